#!/usr/bin/env python3
"""plugin_compile_time.py - compile-time cost of ScopeProf.so on a generated
TU of thousands of functions: the same compile with and without the plugin,
interleaved, best CPU time (user+sys of the compiler) of several runs, as
ratios; plus the pass's own share from -ftime-report.
usage: plugin_compile_time.py CLANG PLUGIN [FUNCTIONS [REPS]]"""
import os
import re
import resource
import subprocess
import sys
import tempfile


def gen(path, n, annotate):
    mark = '__attribute__((annotate("sp_region"))) ' if annotate else ""
    with open(path, "w") as f:
        f.write("int sink;\nint ext(int);\n")
        for i in range(n):
            f.write(
                "%sint f%d(int x) {\n"
                "  int y = x * %d + ext(x);\n"
                "  if (y & 1)\n"
                "    sink += y;\n"
                "  return y ^ %d;\n"
                "}\n" % (mark, i, i % 7 + 1, i))
        f.write("int main(void) { int s = 0;\n")
        for i in range(0, n, 10):
            f.write("  s += f%d(%d);\n" % (i, i))
        f.write("  return s & 1; }\n")


def cpu(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pass_share(cmd):
    out = subprocess.run(cmd + ["-ftime-report"], check=True,
                         stderr=subprocess.PIPE, text=True).stderr
    m = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+[0-9.]+ \(\s*[0-9.]+%\)"
                  r"\s+([0-9.]+) \(\s*[0-9.]+%\)\s+[0-9.]+ \(\s*[0-9.]+%\)"
                  r"\s+scopeprof::ScopeProfPass", out, re.M)
    return float(m.group(2)) if m else 0.0


def main():
    clang, plugin = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    plug = ["-fpass-plugin=" + plugin]
    with tempfile.TemporaryDirectory() as d:
        plain, marked = os.path.join(d, "plain.c"), os.path.join(d, "ann.c")
        gen(plain, n, False)
        gen(marked, n, True)
        obj = os.path.join(d, "gen.o")
        cases = []
        for opt in ("-O0", "-O2"):
            base = [clang, opt, "-g", "-c", "-o", obj]
            cases += [
                ("%s -g, no marks" % opt, base + [plain], base + [plain] + plug),
                ("%s -g -finstrument-functions" % opt,
                 base + [plain, "-finstrument-functions"],
                 base + [plain, "-finstrument-functions"] + plug),
                ("%s -g, every function annotated" % opt,
                 base + [marked], base + [marked] + plug),
            ]
        print("%d functions, best CPU time of %d interleaved runs" % (n, reps))
        print("%-36s %9s %9s %7s %9s" % ("case", "without", "with", "ratio",
                                         "pass s"))
        for name, without, with_ in cases:
            a = b = float("inf")
            for _ in range(reps):
                a = min(a, cpu(without))
                b = min(b, cpu(with_))
            print("%-36s %9.3f %9.3f %7.3f %9.4f" %
                  (name, a, b, b / a, pass_share(with_)))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
