#!/usr/bin/env python3
"""Where a WordPress page's CPU time goes, from Excimer's collapsed stacks.

usage: wp_profile.py NAME=FILE [NAME=FILE ...]
Each FILE holds the collapsed stacks ("frame;frame;... count") of many requests of one page in
one mode. Prints a markdown table of the share of CPU samples by request phase (exclusive: the
first matching phase in the stack wins) and by activity (a sample counts for every activity
with a frame in its stack), then the functions with the most self time.
"""
import re
import sys

PHASES = [
    ("bootstrap (wp-settings.php: core, plugins, theme setup, init)", re.compile(r"/wp-settings\.php$")),
    ("main query and request parsing (wp())", re.compile(r"^(wp|WP::main)$")),
    ("theme templates (template-loader.php and below)", re.compile(r"/template-loader\.php$")),
    ("shutdown hooks", re.compile(r"^shutdown_action_hook$")),
]
ACTIVITIES = [
    # Excimer records PHP frames only: time inside an extension function (shmcache_get,
    # mysqli_query) counts as self time of the PHP function that called it.
    ("object cache (drop-in methods, including the extension calls they make)", re.compile(r"^(WP_Object_Cache::|wp_cache_)")),
    ("database (wpdb, mysqli)", re.compile(r"^(wpdb::|mysqli)")),
    ("translations (gettext, text domains)", re.compile(r"^(translate|load_textdomain|load_default_textdomain|_load_textdomain_just_in_time|.*Translations::|MO::|POMO_)")),
]


def load(path):
    stacks = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip().lstrip(";")
            if " " not in line:
                continue
            stack, count = line.rsplit(" ", 1)
            if count.isdigit():
                stacks.append((stack.split(";"), int(count)))
    return stacks


def share(stacks, total, test):
    return 100 * sum(c for frames, c in stacks if test(frames)) / total


def main():
    runs = [arg.split("=", 1) for arg in sys.argv[1:]]
    data = {name: load(path) for name, path in runs}
    totals = {name: sum(c for _, c in s) or 1 for name, s in data.items()}
    names = [name for name, _ in runs]
    print("| share of CPU samples | " + " | ".join(names) + " |")
    print("|---" + "|---:" * len(names) + "|")

    def phase_of(frames):
        for label, pattern in PHASES:
            if any(pattern.search(f) for f in frames):
                return label
        return "other (PHP start-up, index.php)"

    for label in [p[0] for p in PHASES] + ["other (PHP start-up, index.php)"]:
        cells = [f"{share(data[n], totals[n], lambda fr, l=label: phase_of(fr) == l):.1f}%" for n in names]
        print(f"| phase: {label} | " + " | ".join(cells) + " |")
    for label, pattern in ACTIVITIES:
        cells = [f"{share(data[n], totals[n], lambda fr, p=pattern: any(p.search(f) for f in fr)):.1f}%" for n in names]
        print(f"| activity: {label} | " + " | ".join(cells) + " |")
    print("| samples | " + " | ".join(f"{totals[n]:,}" for n in names) + " |")
    print()
    for name in names:
        self_time = {}
        for frames, c in data[name]:
            self_time[frames[-1]] = self_time.get(frames[-1], 0) + c
        top = sorted(self_time.items(), key=lambda kv: -kv[1])[:8]
        print(f"- {name}, most self time: "
              + ", ".join(f"`{f.replace('/usr/share/wordpress/', '')}` {100 * c / totals[name]:.1f}%" for f, c in top))


if __name__ == "__main__":
    main()
