#!/usr/bin/env python3
"""Turns the figures of bench/run-all.sh (target/bench/) into docs/benchmarks.md and PNG charts."""
import json
import os
import platform
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out_dir, docs = sys.argv[1], sys.argv[2]
img = os.path.join(docs, "img")
os.makedirs(img, exist_ok=True)


def load(name):
    path = os.path.join(out_dir, name)
    return json.load(open(path)) if os.path.exists(path) else None


def read(name):
    path = os.path.join(out_dir, name)
    return open(path).read() if os.path.exists(path) else "(not run)\n"


# The page's tables are regenerated in place: each sits between two markers naming its block,
# and everything outside the markers (the prose, the sections other benches add by hand) is kept.
# A block is replaced only when its figures were measured in this run (its file exists), so a
# partial run (e.g. BENCH_SKIP_WP=1) leaves the other tables as they were. Without a page that
# has markers, the whole page is written.
blocks = {}


def block(name, text, source=None):
    """`text` as the page's block `name`, replaced in an existing page if `source` (a file of the
    run) exists, or always when no source is given."""
    if source is None or os.path.exists(os.path.join(out_dir, source)):
        blocks[name] = text
    return [f"<!-- bench/report.py: {name} -->", text.rstrip("\n"), f"<!-- /bench/report.py: {name} -->", ""]


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return "?"


def ops(v):
    return v["ops"] if isinstance(v, dict) else v


def bar_chart(results, cases, title, filename, log=True, xlabel="operations per second (higher is better)"):
    names = []
    for c in cases:
        for n in results.get(c, {}):
            if n not in names:
                names.append(n)
    fig, ax = plt.subplots(figsize=(11, 0.5 * len(cases) * max(1, len(names)) / 2 + 2))
    height = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        ys = [j + i * height for j in range(len(cases))]
        xs = [ops(results[c].get(n, 0) or 0) for c in cases]
        ax.barh(ys, xs, height=height, label=n)
    ax.set_yticks([j + 0.4 - height / 2 for j in range(len(cases))])
    ax.set_yticklabels(cases, fontsize=8)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(os.path.join(img, filename), dpi=90)
    plt.close(fig)


micro = load("micro.json") or {}
gets = [c for c in micro if c.startswith("get hit")]
sets = [c for c in micro if c.startswith("set:")]
# add, delete and multi-get are measured for every value; the chart shows the small string's.
others = [c for c in micro if not c.startswith("get hit") and not c.startswith("set:")
          and (":" not in c or c.endswith(": small string"))]
if micro:
    bar_chart(micro, gets, "get (hit), one process", "bench-get.png")
    bar_chart(micro, sets, "set, one process", "bench-set.png")
    bar_chart(micro, others, "other operations, one process", "bench-other.png")
contention = load("contention.json") or {}
if contention:
    cases = [c for c in contention if c.endswith("4 proc")]
    bar_chart(contention, cases, "4 forked processes sharing one cache (aggregate)", "bench-contention.png")
contention_small = load("contention-small.json") or {}
# Reads served from memory, not operations: with memory short, a miss is an operation that
# costs a cache almost nothing, so ops/s alone favours the cache that keeps the fewest values.
served_small = {c: {n: {"ops": x.get("hits_per_s", 0)} for n, x in row.items()} for c, row in contention_small.items()}
if any("hits_per_s" in x for row in contention_small.values() for x in row.values()):
    cases = [c for c in served_small if c.endswith("4 proc")]
    bar_chart(served_small, cases, "4 MB of value memory, 4 processes: reads served from the cache",
              "bench-contention-served.png", xlabel="hits per second (higher is better)")

md = ["# Benchmarks", ""]
md.append("Produced by `bash bench/run-all.sh` (one command; it installs the peers from Debian, starts "
          "memcached and redis on unix sockets, and writes this page). Every figure below comes from "
          "one run on the machine described here; ratios are shmcache / peer (above 1 = shmcache faster).")
md.append("")
md.append("## Machine and versions")
md.append("")
cpu = sh("lscpu | sed -n 's/^Model name: *//p'")
ram = sh("free -g | awk '/Mem:/ {print $2}'")
versions = {
    "shmcache": sh("php -n -d extension=target/release/libshmcache.so -r 'echo SHMCACHE_VERSION;'"),
    "APCu": sh("dpkg-query -W -f='${Version}' php8.2-apcu"),
    "Yac": sh("apt-cache show php8.2-yac | sed -n 's/^Version: //p' | head -n1"),
    "php-memcached": sh("dpkg-query -W -f='${Version}' php8.2-memcached"),
    "memcached": sh("dpkg-query -W -f='${Version}' memcached"),
    "php-redis": sh("dpkg-query -W -f='${Version}' php8.2-redis"),
    "redis": sh("dpkg-query -W -f='${Version}' redis-server"),
}
machine = [f"- CPU: {cpu} — {os.cpu_count()} cores, {ram} GiB RAM; a shared machine (other jobs ran on it)",
           f"- {platform.platform()}", f"- {sh('php -v | head -n 1')}"]
commit_file = os.path.join(out_dir, "commit.txt")
if os.path.exists(commit_file) and open(commit_file).read().strip():
    machine.append(f"- shmcache source: commit {open(commit_file).read().strip()}")
machine.append("- " + ", ".join(f"{k} {v}" for k, v in versions.items()))
md += block("machine", "\n".join(machine), "micro.md")
md.append("Configuration: every cache gets 256 MB of value memory (APCu `apc.entries_hint=200000`, "
          "shmcache `keys_memory_size=4M`, Yac `keys_memory_size=16M`); memcached and redis run on unix "
          "sockets with 512 MB; the PHP array is the in-process ceiling. Reads walk the keys in a shuffled "
          "order (not insertion order, which favours allocators that lay entries out sequentially). "
          "Micro figures are the best of 5 rounds of 0.2 s, the caches taking turns round by round (a slow minute of the shared machine then lands on all of them).")
md.append("")
md.append("## Micro benchmarks (one process)")
md.append("")
md += block("micro", read("micro.md"), "micro.md")
if micro:
    md += ["![get](img/bench-get.png)", "", "![set](img/bench-set.png)", "", "![other](img/bench-other.png)", ""]
md.append("Note on the 50 KB strings: shmcache compresses values of 4 KB and more with LZ4 "
          "(`shmcache.compress_threshold`); APCu and Yac store the compressible string as it is "
          "(Yac compresses above 1 MB only). The same compressible string with shmcache's compression "
          "turned off (`shmcache.compress_threshold=0`, a separate run of the same cases):")
md.append("")
md += block("micro-nocompress", read("micro-nocompress.md"), "micro-nocompress.md")
md.append("### Instructions per operation (callgrind)")
md.append("")
md.append("Timings on a shared 2-core machine move by 10–30% from run to run; instruction counts do not "
          "(`bash bench/instructions.sh`: the same binary and input give the same count). They are not a "
          "speed — memory stalls and atomic instructions cost different amounts of time — but they show "
          "where the work is. 5,000 keys, one CLI process, including PHP's own loop and call overhead.")
md.append("")
md += block("instructions", read("instructions.md"), "instructions.md")
md.append("### Where APCu is ahead, and why")
md.append("")
md.append("- **Operations that read before they write** (add of a new key, delete, incr): APCu takes its "
          "write lock and changes its table in place. shmcache takes no lock: it validates the current entry "
          "(key compared, checksum checked), appends a new entry to the ring and publishes it with a "
          "compare-and-swap on the key's slot; a new key's slot is first reserved as pending while the key's "
          "other candidate slots are checked, which is how concurrent adds get exactly one winner. That is "
          "more work per call, and it is what lets a worker killed at any instruction of these leave the cache "
          "consistent and no other worker waiting ([design.md](design.md#no-locks-what-a-killed-process-leaves-behind)). "
          "A delete also validates the entry it removes, so that it calls a key live exactly when a get would: "
          "the stored value is hashed where it lies (not copied), which for a 50 KB value stored uncompressed "
          "is a 50 KB hash that APCu's delete does not do.")
md.append("- **Gets of large values APCu hands back unchecked**: every shmcache read hashes what it copied "
          "(header, key and value: a hash of the value, mixed with the header words and the key's hash) and treats a mismatch as a miss; APCu trusts its memory. On the "
          "50 KB strings stored uncompressed both copy 50 KB, and the hash is most of the difference (it runs "
          "with AVX2 where the CPU has it). Without it a writer that stalled for a whole lap of the ring could "
          "leave torn bytes in a newer entry unnoticed ([design.md](design.md)). Smaller values, the post object "
          "included (a stdClass, stored in shmcache's native encoding rather than through serialize()), come "
          "out ahead.")
md.append("- **Multi-gets of small values when every key is in the CPU's caches** (this table's 10,000 "
          "keys): a little behind APCu. Each key of a batch costs about 930 instructions against APCu's 546 "
          "(`multi-get` in the instructions table): the checksum, which APCu does not compute (45 to 90 "
          "instructions of a small read), and the look-ahead that requests the next keys' buckets and entries "
          "while the current one is read. On key sets that are not in the CPU's caches that look-ahead makes "
          "`get_multi` faster than APCu ([design.md](design.md#reading-a-key-get)). Single small gets, which "
          "pay for the same checksum, measure level with APCu or ahead from run to run; small sets, which "
          "APCu does under its lock, come out ahead.")
md.append("- **Operations per second of the contention runs whose value memory recycles**, for 4 KB and "
          "20 KB values: APCu, which empties its whole cache when it is full, then misses most reads, and a "
          "miss is the cheapest operation there is. Counted as reads served from the cache, which is what a "
          "site gets, shmcache is ahead in every one of those runs (the hits table and hit rates below).")
md.append("")
md.append("## Contention (forked processes sharing one cache)")
md.append("")
md.append("Each process reads or writes random keys for " + os.environ.get("BENCH_CONTENTION_SECONDS", "0.5")
          + " s; every value embeds its key and an MD5 of its "
          "body, and every value read is checked. Aggregate operations per second, then the count of wrong "
          "values among all values read.")
md.append("")
md += block("contention", read("contention.md"), "contention.md")
if contention:
    md += ["![contention](img/bench-contention.png)", ""]
md.append("### Value memory smaller than the working set (4 MB each), so memory recycles")
md.append("")
md.append("Here the caches differ in how many values they keep, so the operations per second of the first "
          "table mix two things: a read that misses costs a cache almost nothing (no value to copy, check or "
          "decode), so a cache that keeps fewer values can post more operations per second while serving fewer "
          "reads. The second table counts only the reads each cache served from memory, per second, and the "
          "third gives the hit rate. What a site gets from a cache is its hits: every miss is a page that goes "
          "back to the database.")
md.append("")
md += block("contention-small", read("contention-small.md"), "contention-small.md")
if os.path.exists(os.path.join(img, "bench-contention-served.png")) and served_small:
    md += ["![reads served with 4 MB of value memory](img/bench-contention-served.png)", ""]
md.append("## Memory per entry (100,000 WordPress post objects)")
md.append("")
md += block("memory", read("memory.md"), "memory.md")
md.append("shmcache: ring bytes used plus 8 bytes per used slot; APCu: shared memory used; memcached: "
          "its `bytes` stat; redis: `used_memory`; PHP array: process memory. Yac reports no used-bytes "
          "figure for its value memory.")
md.append("")
md.append("## WordPress (nginx + PHP-FPM, 4 workers, MariaDB, WordPress 6.1, 300 posts)")
md.append("")
md += block("wordpress", read("wordpress.md"), "wordpress.md")
md.append("")
md.append("How to read the profile: with the drop-in, the database share falls to almost nothing and the "
          "object cache (the drop-in's PHP methods together with the extension calls they make: Excimer "
          "sees PHP frames only) takes a few percent of the CPU. What is left is WordPress itself: loading "
          "and bootstrapping core, plugins and theme, and rendering the theme's templates (block parsing, "
          "theme.json processing, hooks). An object cache cannot make that part faster; a page cache "
          "skips it, see [page-cache.md](page-cache.md).")
page_path = os.path.join(docs, "benchmarks.md")
page = open(page_path).read() if os.path.exists(page_path) else ""
if "<!-- bench/report.py: " not in page:
    page = "\n".join(md) + "\n"
else:
    for name, text in blocks.items():
        start, end = f"<!-- bench/report.py: {name} -->\n", f"\n<!-- /bench/report.py: {name} -->"
        at, until = page.find(start), page.find(end)
        if at < 0 or until < at:
            print(f"report.py: docs/benchmarks.md has no block {name}; its figures are in {out_dir}", file=sys.stderr)
            continue
        page = page[:at + len(start)] + text.rstrip("\n") + page[until:]
open(page_path, "w").write(page)
