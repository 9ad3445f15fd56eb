#!/usr/bin/env python3
"""Reads bench/waiting-trace.py's trace of one get and marks each instruction from the first
load of the entry's bytes (a load from the value ring) onwards that waits for them: one with
an input (register, flags or memory) that such a load, or an instruction that waits, wrote.
Memory is followed in 8-byte words at the addresses the recorded registers give, so a value
stored to the stack and loaded back still waits. Branches are taken as predicted (the code
after a branch does not wait for its condition; the branch itself does). A heuristic reading
of AT&T syntax that covers what the compiler emits for this path, not every x86 instruction:
check the listing (-v) when a count moves for no reason.

    python3 bench/waiting.py TRACE [-v]
"""
import re
import shutil
import signal
import subprocess
import sys

SUB_REGISTERS = {
    "rax": "eax ax al ah", "rbx": "ebx bx bl bh", "rcx": "ecx cx cl ch",
    "rdx": "edx dx dl dh", "rsi": "esi si sil", "rdi": "edi di dil",
    "rbp": "ebp bp bpl", "rsp": "esp sp spl",
}
FULL = {}
for full, subs in SUB_REGISTERS.items():
    for name in [full] + subs.split():
        FULL[name] = full
for i in range(8, 16):
    for suffix in ["", "d", "w", "b"]:
        FULL["r%d%s" % (i, suffix)] = "r%d" % i
for i in range(32):
    for width in ["xmm", "ymm", "zmm"]:
        FULL["%s%d" % (width, i)] = "v%d" % i
NO_OPERATION = ("nop", "endbr64", "prefetch", "lfence", "mfence", "sfence", "pause")
COPIES = ("mov", "vmov", "lea", "pmov", "vpmov", "cvt", "set")  # write the destination only


def register(operand):
    return FULL.get(operand.lstrip("*%"))


def operands(text):
    parts, depth, current = [], 0, ""
    for c in text:
        depth += c == "("
        depth -= c == ")"
        if c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    return parts + [current.strip()] if current.strip() else parts


def address(operand, regs, next_pc):
    """The address a memory operand names and the registers it reads, or (None, [])."""
    m = re.match(r"(%fs:)?(-?0x[0-9a-f]+|-?\d+)?\((%\w+)?(?:,(%\w+)(?:,(\d))?)?\)$", operand)
    if not m:
        m = re.match(r"%fs:(0x[0-9a-f]+|\d+)$", operand)
        return (regs["fs_base"] + int(m.group(1), 0), []) if m else (None, [])
    at, used = int(m.group(2), 0) if m.group(2) else 0, []
    if m.group(3) == "%rip":
        at += next_pc
    elif m.group(3):
        at += regs[register(m.group(3))]
        used.append(register(m.group(3)))
    if m.group(4):
        at += regs[register(m.group(4))] * int(m.group(5) or 1)
        used.append(register(m.group(4)))
    if m.group(1):
        at += regs["fs_base"]
    return at, used


def words(at, width):
    return set(range(at & ~7, (at + width + 7) & ~7, 8))


def load_trace(path):
    ring, steps = None, []
    for line in open(path):
        fields = line.rstrip("\n").split("\t")
        if fields[0] == "RING":
            ring = (int(fields[1], 16), int(fields[2], 16))
        elif fields[0] == "I":
            regs = {k: int(v, 16) for k, v in (kv.split("=") for kv in fields[-1].split())}
            m = re.match(r"=> (0x[0-9a-f]+)(?: <([^>]*)>)?:\s*(.*)", "\t".join(fields[1:-1]))
            function = re.sub(r"\+\d+$", "", m.group(2) or "?")
            steps.append((int(m.group(1), 16), function, m.group(3).strip(), regs))
    return ring, steps


def effects(text, regs, next_pc):
    """(registers read, words read, flags read, registers written, words written, flags
    written, address loaded or None) of one instruction."""
    text = text.split("#")[0].strip()  # gdb's note of a rip-relative operand's address
    mnemonic, _, rest = text.partition(" ")
    if mnemonic in ("rep", "lock", "notrack", "bnd", "data16"):
        mnemonic, _, rest = rest.strip().partition(" ")
    ops = operands(rest.strip()) if rest.strip() else []
    r_read, m_read, r_write, m_write = set(), set(), set(), set()
    f_read = f_write = False
    loaded = None
    width = 32 if "%ymm" in rest else 16 if "%xmm" in rest and mnemonic not in (
        "movq", "movd", "vmovq", "vmovd", "movsd", "movss") else 8
    for i, op in enumerate(ops):
        if "(" not in op and not op.startswith("%fs:"):
            continue
        at, used = address(op, regs, next_pc)
        if at is None:
            continue
        r_read |= set(used)
        if mnemonic.startswith("lea") or mnemonic.startswith(NO_OPERATION):
            continue
        if i == len(ops) - 1 and len(ops) > 1:  # a store (read too unless a plain move)
            m_write |= words(at, width)
            if not mnemonic.startswith(("mov", "vmov")):
                m_read |= words(at, width)
                loaded = at
        else:
            m_read |= words(at, width)
            loaded = at
            if len(ops) == 1 and mnemonic.startswith(("inc", "dec", "neg", "not", "add", "sub")):
                m_write |= words(at, width)
    regs_in = [register(o) for o in ops if o.startswith("%") and register(o)]
    if mnemonic.startswith("push"):
        r_read |= set(regs_in) | {"rsp"}
        r_write.add("rsp")
        m_write |= words(regs["rsp"] - 8, 8)
    elif mnemonic.startswith("pop"):
        r_read.add("rsp")
        r_write |= {"rsp"} | set(regs_in)
        m_read |= words(regs["rsp"], 8)
    elif mnemonic.startswith("call"):
        r_read |= {"rsp"} | {register(o) for o in ops if o.startswith("*%")}
        r_write.add("rsp")
        m_write |= words(regs["rsp"] - 8, 8)
    elif mnemonic.startswith("ret"):
        r_read.add("rsp")
        r_write.add("rsp")
        m_read |= words(regs["rsp"], 8)
    elif mnemonic.startswith("j"):
        f_read = mnemonic != "jmp"
        r_read |= {register(o) for o in ops if o.startswith("*%")}
    elif mnemonic.startswith(NO_OPERATION):
        m_read, loaded = set(), None
    elif regs_in or ops:
        dest = register(ops[-1]) if ops and ops[-1].startswith("%") else None
        r_read |= {register(o) for o in ops[:-1] if o.startswith("%") and register(o)}
        zeroing = len(ops) == 2 and ops[0] == ops[1] and mnemonic.startswith(
            ("xor", "pxor", "vpxor", "xorps", "vxorps", "sub"))
        if mnemonic.startswith(("cmp", "test", "bt", "ucomis", "comis")):
            if dest:
                r_read.add(dest)
            f_write = True
        elif mnemonic.startswith(COPIES) and not mnemonic.startswith("cmov"):
            f_read = mnemonic.startswith("set")
            if dest:
                r_write.add(dest)
        elif zeroing:
            r_write.add(dest)
            f_write = True
        else:
            if dest:
                r_read.add(dest)
                r_write.add(dest)
            f_read = mnemonic.startswith(("cmov", "adc", "sbb"))
            f_write = not mnemonic.startswith(("cmov", "shlx", "shrx", "sarx", "rorx", "mulx",
                                               "andn", "bswap", "v", "p", "kmov"))
            # One-operand forms: rdx:rax is the product (mul reads only rax) or the dividend.
            if mnemonic.startswith(("mul", "imul", "div", "idiv")) and len(ops) == 1:
                r_read |= {"rax", "rdx"} if mnemonic.startswith(("div", "idiv")) else {"rax"}
                r_write |= {"rax", "rdx"}
            if len(ops) == 2 and ops[0] == "%cl":
                r_read.add("rcx")
    return r_read, m_read, f_read, r_write, m_write, f_write, loaded


def demangled(names):
    """Rust's symbols as paths (c++filt reads their legacy mangling), without the hash."""
    if not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return {n: re.sub(r"::h[0-9a-f]{16}$", "", d).replace("$LT$", "<").replace("$GT$", ">")
            .replace("$u20$", " ").replace("..", "::")
            for n, d in zip(names, out.stdout.splitlines())}


def main():
    ring, steps = load_trace(sys.argv[1])
    verbose = "-v" in sys.argv[2:]
    waiting_regs, waiting_words, waiting_flags = set(), set(), False
    started, listing, per_function = False, [], {}
    for i, (pc, function, text, regs) in enumerate(steps):
        next_pc = steps[i + 1][0] if i + 1 < len(steps) else 0
        r_read, m_read, f_read, r_write, m_write, f_write, loaded = effects(text, regs, next_pc)
        from_ring = loaded is not None and ring[0] <= loaded < ring[1]
        started |= from_ring
        waits = from_ring or bool(r_read & waiting_regs) or bool(m_read & waiting_words) or (
            f_read and waiting_flags)
        if started:
            counts = per_function.setdefault(function, [0, 0])
            counts[0] += 1
            counts[1] += waits
            listing.append(("W " if waits else "  ") + "%-40.40s %s" % (function, text))
        for reg in r_write:
            (waiting_regs.add if waits else waiting_regs.discard)(reg)
        for word in m_write:
            (waiting_words.add if waits else waiting_words.discard)(word)
        if f_write:
            waiting_flags = waits
    total = sum(c[0] for c in per_function.values())
    waiting = sum(c[1] for c in per_function.values())
    print("From the entry's first load to the next get: %d instructions, %d wait for the "
          "entry's bytes" % (total, waiting))
    names = demangled(list(per_function))
    print("| function | instructions | waiting |")
    print("|---|---:|---:|")
    for function, (n, w) in sorted(per_function.items(), key=lambda kv: -kv[1][0]):
        print("| %s | %d | %d |" % (names[function], n, w))
    if verbose:
        print("\n".join(listing))


signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # output cut short by `head` is fine
main()
