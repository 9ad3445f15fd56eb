# gdb script of bench/waiting.sh: single-steps one shmcache_get() of bench/waiting.php, from the
# handler's entry to its next entry (the get, its return through PHP's VM, the next iteration of
# the loop), and writes each instruction with the general registers before it runs, then the
# address range of the region's value ring. Output file: $WAITING_TRACE.
import os

import gdb

REGS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
MAGIC = 0x5348_4D43_4143_4845  # "SHMCACHE", the region header's first word
RING_OFFSET_FIELD = 96  # region.rs `Header::ring_offset`
RING_CAPACITY_FIELD = 56  # region.rs `Header::ring_capacity`


def u64(addr):
    return int.from_bytes(bytes(gdb.selected_inferior().read_memory(addr, 8)), "little")


def ring_range():
    """The value ring of the region this process mapped: the shared mapping whose first word
    is the region's magic."""
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        fields = line.split()
        if len(fields) < 5 or not fields[0].startswith("0x") or "s" not in fields[4]:
            continue
        start = int(fields[0], 16)
        try:
            if u64(start) == MAGIC:
                ring = start + u64(start + RING_OFFSET_FIELD)
                return ring, ring + u64(start + RING_CAPACITY_FIELD)
        except gdb.MemoryError:
            continue
    raise gdb.GdbError("no shmcache region mapped")


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set breakpoint pending on")
gdb.execute("break shmcache::php::fast::function_get")
gdb.execute("run")
# A few gets first: the loop, the caches and PHP's allocator in their steady state.
for _ in range(5):
    gdb.execute("continue")
gdb.execute("delete")
start = int(gdb.parse_and_eval("$pc"))
with open(os.environ["WAITING_TRACE"], "w") as out:
    lo, hi = ring_range()
    out.write("RING\t%x\t%x\n" % (lo, hi))
    for step in range(5000):
        frame = gdb.selected_frame()
        pc = int(frame.read_register("rip"))
        if step > 10 and pc == start:
            break
        insn = gdb.execute("x/i $pc", to_string=True).strip()
        regs = " ".join("%s=%x" % (r, int(frame.read_register(r)) & (2**64 - 1)) for r in REGS)
        out.write("I\t%s\t%s fs_base=%x\n" % (insn, regs, int(gdb.parse_and_eval("$fs_base"))))
        gdb.execute("stepi", to_string=True)
gdb.execute("kill")
