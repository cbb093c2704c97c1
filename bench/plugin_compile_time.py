#!/usr/bin/env python3
"""plugin_compile_time.py - compile-time cost of ScopeProf.so: a generated TU
of thousands of functions compiled with and without the plugin, in
alternation, best of several runs; prints the ratios.
usage: plugin_compile_time.py CLANG PLUGIN [FUNCTIONS]"""
import os
import subprocess
import sys
import tempfile
import time


def gen(path, n):
    with open(path, "w") as f:
        f.write("int sink;\n")
        for i in range(n):
            f.write(
                "int f%d(int *a, int n) {\n"
                "  int s = %d;\n"
                "  for (int i = 0; i < n; ++i)\n"
                "    s += a[i] * %d ^ (s >> 3);\n"
                "  if (s & 1) sink += s;\n"
                "  return s;\n"
                "}\n" % (i, i, i % 7 + 1))
        f.write("int main(void) { int a[4] = {1, 2, 3, 4}; int s = 0;\n")
        for i in range(0, n, 50):
            f.write("  s += f%d(a, 4);\n" % i)
        f.write("  return s & 1; }\n")


def best(cmd, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    clang, plugin = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    reps = 5
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "gen.c")
        gen(src, n)
        obj = os.path.join(d, "gen.o")
        base = [clang, "-O2", "-g", "-c", src, "-o", obj]
        cases = [
            ("-O2 -g, no marks", base, base + ["-fpass-plugin=" + plugin]),
            ("-O2 -g -finstrument-functions",
             base + ["-finstrument-functions"],
             base + ["-finstrument-functions", "-fpass-plugin=" + plugin]),
        ]
        print("%d functions, best of %d" % (n, reps))
        print("%-34s %10s %12s %8s" % ("case", "without s", "with plugin s",
                                        "ratio"))
        for name, without, with_ in cases:
            a = best(without, reps)
            b = best(with_, reps)
            print("%-34s %10.3f %12.3f %8.3f" % (name, a, b, b / a))


if __name__ == "__main__":
    main()
