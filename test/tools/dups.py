#!/usr/bin/python3
"""dups.py - repeated code in the product's own sources (not its tests):
runs of N or more consecutive lines, identical once blank lines, comments
and lone braces are set aside, standing in two places. Prints one line per
pair of files and exits 1 when there is any; a repeat has one home, a
function both places call. dups.allow lists the pairs of files that must
repeat themselves, each with its reason."""
import os
import re
import sys
from collections import defaultdict

DIRS = ["runtime", "format", "import", "report", "mpi", "pass",
        "python/scopeprof"]
EXT = (".c", ".h", ".cpp", ".py")


def lines_of(path):
    """(line number, text) of the lines that count, comments removed."""
    out = []
    in_c = False
    py = path.endswith(".py")
    with open(path, errors="replace") as f:
        for no, raw in enumerate(f, 1):
            s = raw.strip()
            if py:
                s = "" if s.startswith("#") else s
            else:
                if in_c:
                    if "*/" not in s:
                        continue
                    in_c = False
                    s = s.split("*/", 1)[1].strip()
                s = re.sub(r"/\*.*?\*/", "", s).strip()
                if "/*" in s:
                    s, in_c = s.split("/*", 1)[0].strip(), True
                s = re.sub(r"//.*$", "", s).strip()
            if len(s) > 3:  # not blank, a brace, "};" or the like
                out.append((no, s))
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: dups.py SOURCE_DIR [LINES]")
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 8
    files = {}
    for d in DIRS:
        for dp, _, names in os.walk(os.path.join(root, d)):
            for name in sorted(names):
                if name.endswith(EXT):
                    p = os.path.join(dp, name)
                    files[os.path.relpath(p, root)] = lines_of(p)
    where = defaultdict(list)
    for f, ls in sorted(files.items()):
        for i in range(len(ls) - n + 1):
            where[tuple(s for _, s in ls[i:i + n])].append((f, i))
    allowed = set()
    with open(os.path.join(os.path.dirname(__file__), "dups.allow")) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) == 2:
                allowed.add(tuple(sorted(words)))
    pairs = {}
    for locs in where.values():
        a = locs[0]
        for b in locs[1:]:
            if tuple(sorted((a[0], b[0]))) in allowed:
                continue
            if a[0] != b[0] or abs(a[1] - b[1]) >= n:
                pairs.setdefault((a[0], b[0]), (a, b))
    for (fa, fb), (a, b) in sorted(pairs.items()):
        print(f"{fa}:{files[fa][a[1]][0]} and {fb}:{files[fb][b[1]][0]}: "
              f"{n} or more lines alike")
    return 1 if pairs else 0


if __name__ == "__main__":
    sys.exit(main())
