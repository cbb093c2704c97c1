#!/usr/bin/env python3
# check_hotpath.py - checks the machine code of the per-event entry points
# in libscopeprof.so against the contract runtime/src/hotpath.h states.
"""usage: check_hotpath.py OBJDUMP LIBRARY
       check_hotpath.py OBJDUMP --compile CC SOURCE_DIR

The second form compiles record.c and cyg.c with CC at -O2 as the runtime
is built and checks those objects, so one build checks both compilers.
x86-64 only: elsewhere it says why and exits 77 (ctest's skip)."""
import os
import re
import subprocess
import sys
import tempfile

# Calls a path may make because it needs the answer: the clock when the
# TSC is not used, a cyg hook's cache miss. Every
# other way out is a tail call (jmp) to one of SLOW.
CALLS = {
    "sp__enter": {"sp__mono_ns"},
    "sp_begin": {"sp__mono_ns"},
    "__cyg_profile_func_enter": {"sp__mono_ns", "addr_slow"},
    "sp__exit": {"sp__mono_ns"},
    "sp_end": {"sp__mono_ns"},
    "__cyg_profile_func_exit": {"sp__mono_ns", "addr_slow"},
}
SLOW = {"sp__begin_slow", "sp__end_slow", "sp__prof_begin_slow",
        "sp__prof_end_slow", "sp__cnt_end", "site_enter_slow"}
# The register saves the non-tail calls above cost (hotpath.h).
MAX_PUSHES = 5
# Atomic read-modify-writes and fences; "xchg %ax,%ax" is a nop, so only
# an xchg with a memory operand counts.
RMW = re.compile(r"^(lock\b|cmpxchg|xadd|mfence|lfence|sfence)|^xchg\S*\s+.*\(")

INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
# In an object file a branch out of its section reads as a relocation.
RELOC = re.compile(r"^\s*[0-9a-f]+: R_X86_64_\w+\s+([^-+\s]+)")
TARGET = re.compile(r"^([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>$")


def disassemble(objdump, lib):
    run = subprocess.run([objdump, "-dr", "--no-show-raw-insn", lib],
                         capture_output=True, text=True)
    out = run.stdout
    # Checked before the status: a host objdump fails on a cross build's.
    if "file format " in out and "file format elf64-x86-64" not in out:
        print("check_hotpath: skipped: %s is not x86-64 code, the only "
              "machine code this check reads" % lib)
        sys.exit(77)
    if run.returncode:
        sys.exit("check_hotpath: %s: %s" % (lib, run.stderr.strip()))
    funcs, name = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            name = m.group(1)
            funcs[name] = []
            continue
        m = RELOC.match(line)
        if m and name and funcs[name]:
            a, op, _ = funcs[name][-1]
            if op.startswith(("call", "jmp")):
                funcs[name][-1] = (a, op, "ffffffffffffffff <%s>" % m.group(1))
            continue
        m = INSN.match(line)
        if m and name:
            text = m.group(2).split("#")[0].strip()
            op, _, arg = text.partition(" ")
            funcs[name].append((int(m.group(1), 16), op, arg.strip()))
    return funcs


def check(name, insns):
    errs = []
    addrs = {a for a, _, _ in insns}
    for addr, op, arg in insns:
        where = "%s+0x%x: %s %s" % (name, addr - insns[0][0], op, arg)
        if RMW.search((op + " " + arg).strip()):
            errs.append(where + ": an atomic read-modify-write or fence")
        if op.startswith(("call", "jmp")):
            if arg.startswith("*"):
                errs.append(where + ": an indirect branch")
                continue
            m = TARGET.match(arg)
            if not m:
                errs.append(where + ": a branch target not understood")
                continue
            inside = int(m.group(1), 16) in addrs
            if op.startswith("call") and m.group(2) not in CALLS[name]:
                errs.append(where + ": a call the contract does not allow "
                            "(a slow path must be a tail call)")
            elif op.startswith("jmp") and not inside and m.group(2) not in SLOW:
                errs.append(where + ": a tail call to no known slow path")
    # The recorded case is the straight line: every conditional branch not
    # taken (the rare cases are out of line), unconditional jumps followed.
    pos = {a: i for i, (a, _, _) in enumerate(insns)}
    i, pushes, clocks, seen = 0, 0, 0, set()
    while True:
        if i >= len(insns) or i in seen:
            errs.append(name + ": the fall-through path never returns")
            break
        seen.add(i)
        addr, op, arg = insns[i]
        if op.startswith("push"):
            pushes += 1
        elif op == "rdtsc":
            clocks += 1
        elif op.startswith("call"):
            errs.append("%s+0x%x: a call on the recorded path"
                        % (name, addr - insns[0][0]))
        elif op.startswith("ret"):
            break
        elif op.startswith("jmp"):
            m = TARGET.match(arg)
            if not m or int(m.group(1), 16) not in pos:
                errs.append("%s: the recorded path leaves by %s %s"
                            % (name, op, arg))
                break
            i = pos[int(m.group(1), 16)]
            continue
        i += 1
    if clocks != 1:
        errs.append("%s: %d clock reads (rdtsc) on the recorded path, not 1"
                    % (name, clocks))
    if pushes > MAX_PUSHES:
        errs.append("%s: %d registers saved on the recorded path, more than %d"
                    % (name, pushes, MAX_PUSHES))
    return errs, pushes, len(seen)


def compile_objects(cc, src, tmp):
    objs = []
    for f in ("record.c", "cyg.c"):
        o = os.path.join(tmp, f + ".o")
        subprocess.run([cc, "-O2", "-fPIC", "-fvisibility=hidden",
                        "-ftls-model=initial-exec", "-std=c11", "-D_GNU_SOURCE",
                        "-DSP_BUILDING_RUNTIME", "-DNDEBUG",
                        "-I" + os.path.join(src, "runtime", "include"),
                        "-I" + os.path.join(src, "runtime", "src"),
                        "-I" + os.path.join(src, "format"), "-c",
                        os.path.join(src, "runtime", "src", f), "-o", o],
                       check=True)
        objs.append(o)
    return objs


def main():
    objdump = sys.argv[1]
    if sys.argv[2] == "--compile":
        with tempfile.TemporaryDirectory() as tmp:
            funcs = {}
            for o in compile_objects(sys.argv[3], sys.argv[4], tmp):
                funcs.update(disassemble(objdump, o))
        lib = sys.argv[3] + " -O2"
    else:
        lib = sys.argv[2]
        funcs = disassemble(objdump, lib)
    errs = []
    for name in CALLS:
        insns = funcs.get(name, [])
        # Parts a compiler moves out of line stay the function's own.
        for other, more in funcs.items():
            if other.startswith(name + ".cold"):
                insns = insns + more
        if not insns:
            errs.append("%s: %s not found" % (lib, name))
            continue
        e, pushes, path = check(name, insns)
        errs += e
        print("%s: %d instructions, the recorded path %d of them with %d "
              "register saves%s" % (name, len(insns), path, pushes,
                                    "" if e else ", as the contract says"))
    for e in errs:
        print("check_hotpath: " + e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
