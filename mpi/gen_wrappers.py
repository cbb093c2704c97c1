#!/usr/bin/python3
"""gen_wrappers.py - writes the PMPI wrappers of libscopeprof_mpi.so from the
MPI installation's own prototypes (mpi.h run through the C preprocessor) and
the Fortran entry points its Fortran libraries define.

usage: gen_wrappers.py OUT.c PREPROCESSED_MPI_H NM [FORTRAN_LIB ...]

Wrapped: every MPI_ function that returns int (an error code). Left out:
- the functions that return something else: MPI_Wtime, MPI_Wtick (clock
  reads), MPI_Aint_add/diff (arithmetic), the handle conversions *_c2f/*_f2c:
  local and cheap, they would drown the profile and have no time of their own;
- MPI_Finalize and MPI_Abort: runtime.c defines them (MPI_Abort's Fortran
  entry points too), for the runtime's work at those calls;
- variadic functions (MPI_Pcontrol): C cannot forward "...";
- MPI_Status_{c2f08,f082c,f082f,f2f08}: status conversions like the
  handle ones, which MPICH 4.0 declares in mpi.h but defines only in its
  Fortran 2008 library.
MPI_Init and MPI_Init_thread (C and Fortran) then call the clock alignment
(sp_mpi__after_init in runtime.c, after the call's region).
Recorded: the C functions comm.c, icoll.c, ncoll.c and persist.c define a
sp_mpi__x_<name> for (MPI-4's persistent collectives and large-count _c
forms among them, defined under #if MPI_VERSION >= 4: a name this mpi.h
lacks is not routed) (point-to-point, collective and neighbourhood
collective calls, persistent requests, matched receives) hand the call there while their region is
open, which makes the PMPI call and notes bytes and partners; their
prototypes, from mpi.h, go into comm_decl.h beside OUT.c. Those comm_wrap.h
defines a sp_mpi__xe_<name> for (the blocking sends, MPI_Recv) call it
inline instead, and it also ends the call's region. The Fortran entry
points fcomm.c and fpersist.c define a sp_mpi__fx_<name> for (lower case,
no suffix: one for mpi_x_ and mpi_x_f08_) hand their arguments there, which
forwards them to MPI's binding and records from the Fortran handles; the
other entry points of recorded C functions go through sp_mpi__fx_plain.
Where MPI's binding calls the C function (MPICH), its C wrapper records the
call under the Fortran call's region (sp_mpi__inner), once, and the entry
point does not.
Fortran: mpi_x_ (mpif.h, use mpi) and mpi_x_f08_ (use mpi_f08) for each
wrapped function whose pmpi_x_ / pmpi_x_f08_ a given library defines; the
libraries' sonames go into sp_mpi__flibs, for a program whose link dropped
them (sp_mpi__fortran in layer.c). While one runs, the C wrappers open no
region (sp_mpi__in_fortran): MPICH's Fortran bindings call the C MPI_
functions, OpenMPI's the PMPI_ ones, and a call is one region either way.
"""
import os
import re
import subprocess
import sys

LEFT_OUT = {"MPI_Finalize", "MPI_Abort", "MPI_Status_c2f08",
            "MPI_Status_f082c", "MPI_Status_f082f", "MPI_Status_f2f08"}
AFTER_INIT = {"MPI_Init", "MPI_Init_thread"}
# Fortran arguments are all addresses or hidden string lengths (integer
# class); 16 covers the longest binding (MPI_Comm_spawn_multiple: 9
# arguments, 2 hidden lengths). See mpi/layer.h for why forwarding a fixed
# number is sound.
F_ARGS = 16


def strip_attributes(s):
    """Removes every __attribute__((...)) (balanced) from s."""
    out, i = [], 0
    while True:
        j = s.find("__attribute__", i)
        if j < 0:
            out.append(s[i:])
            return "".join(out)
        out.append(s[i:j])
        k = s.index("(", j)
        depth = 0
        while True:
            if s[k] == "(":
                depth += 1
            elif s[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def split_params(p):
    """Splits a parameter list on its top-level commas."""
    parts, depth, cur = [], 0, []
    for c in p:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def prototypes(text):
    """(name, params text, [param names], deprecated) of every MPI_ function
    returning int."""
    text = re.sub(r"\s+", " ", text)
    protos = []
    for stmt in text.split(";"):
        m = re.search(r"\b(MPI_\w+)\s*\(", stmt)
        if not m or "typedef" in stmt:
            continue
        deprecated = "deprecated" in stmt
        head = strip_attributes(stmt[:m.start()]).replace("extern", "").strip()
        if head != "int":
            continue
        # the parameter list: from the '(' to its matching ')'
        k, depth = m.end() - 1, 0
        for k in range(m.end() - 1, len(stmt)):
            if stmt[k] == "(":
                depth += 1
            elif stmt[k] == ")":
                depth -= 1
                if depth == 0:
                    break
        params = stmt[m.end():k].strip()
        parts = split_params(params)
        if "..." in parts:
            continue
        if parts == ["void"] or not parts:
            names = []
        else:
            names = []
            for q in parts:
                n = re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*$", q)
                if not n or len(q.split()) < 2 and "*" not in q:
                    sys.exit("gen_wrappers.py: an unnamed parameter in %s(%s)"
                             % (m.group(1), params))
                names.append(n.group(1))
        protos.append((m.group(1), params, names, deprecated))
    return protos


def soname(nm, lib):
    """The library's DT_SONAME (readelf beside nm), else its file name: what
    the layer dlopens when the program's link dropped the library."""
    readelf = re.sub(r"nm$", "readelf", nm)
    try:
        out = subprocess.run([readelf, "-d", lib], check=True,
                             capture_output=True, text=True).stdout
        m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
        if m:
            return m.group(1)
    except (OSError, subprocess.CalledProcessError):
        pass
    return lib.rsplit("/", 1)[-1]


def fortran_symbols(nm, libs):
    syms = set()
    for lib in libs:
        out = subprocess.run([nm, "-D", "--defined-only", lib], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if f:
                syms.add(f[-1])
    return syms


def recorded_names():
    """The MPI functions comm.c records (sp_mpi__x_<name>, or made by its
    SEND_FN/ISEND_FN macros), and those comm_wrap.h records inline
    (sp_mpi__xe_<name>, or made by its XE_SEND macro), which end their
    region themselves."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "comm.c")) as f:
        text = f.read()
    names = set(re.findall(r"(?:sp_mpi__x_|SEND_FN\()(MPI_\w+)", text))
    for src in ("persist.c", "icoll.c", "ncoll.c"):
        with open(os.path.join(here, src)) as f:
            names |= set(re.findall(r"(?:sp_mpi__x_|INIT_FN\()(MPI_\w+)",
                                    f.read()))
    with open(os.path.join(here, "comm_wrap.h")) as f:
        inline = set(re.findall(r"(?:sp_mpi__xe_|XE_SEND\()(MPI_\w+)",
                                f.read()))
    return names, inline


def fortran_recorded():
    """The Fortran bindings fcomm.c and fpersist.c record from their own
    arguments (sp_mpi__fx_<name>, or made by their FX_* macros), lower
    case."""
    names = set()
    for src in ("fcomm.c", "fpersist.c"):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               src)) as f:
            names |= set(re.findall(r"(?:sp_mpi__fx_|FX_\w+\()(mpi_\w+)",
                                    f.read()))
    return names


def main():
    out_path, mpi_i = sys.argv[1], sys.argv[2]
    recorded, inline = recorded_names()
    frecorded = fortran_recorded()
    with open(mpi_i) as f:
        protos = [p for p in prototypes(f.read()) if p[0] not in LEFT_OUT]
    seen, uniq = set(), []
    for p in protos:
        if p[0] not in seen:
            seen.add(p[0])
            uniq.append(p)
    protos = sorted(uniq)
    fsyms = fortran_symbols(sys.argv[3], sys.argv[4:])
    fargs = ", ".join("void *a%d" % i for i in range(F_ARGS))
    fpass = ", ".join("a%d" % i for i in range(F_ARGS))

    w = []
    w.append("/* Generated by mpi/gen_wrappers.py from this MPI's mpi.h: do "
             "not edit.\n * One PMPI wrapper per MPI function: C, then "
             "Fortran entry points. */")
    w.append("#include \"comm.h\"\n")
    w.append("/* Deprecated MPI functions are wrapped too (programs still "
             "call them). */")
    w.append("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n")
    w.append("const char *const sp_mpi__names[SP_MPI_NFUNCS] = {")
    for name, _, _, _ in protos:
        w.append("    \"%s\"," % name)
    w.append("};\n")
    w.append("/* MPI's Fortran libraries the entry points below forward to. */")
    w.append("const char *const sp_mpi__flibs[] = {")
    for lib in sys.argv[4:]:
        w.append("    \"%s\"," % soname(sys.argv[3], lib))
    w.append("    NULL};\n")
    for i, (name, params, names, _) in enumerate(protos):
        args = ", ".join(names)
        w.append("SP_MPI_EXPORT int %s(%s) {" % (name, params))
        w.append("  int r_ = sp_mpi__enter(%d);" % i)
        if name in inline:
            # the message and the region's end in one call to the runtime
            w.append("  if (r_ >= 0 && sp_mpi__msgs_on)")
            w.append("    return sp_mpi__xe_%s(r_, %s);" % (name, args))
        if name in recorded:
            w.append("  int m_ = r_ >= 0 ? r_ : sp_mpi__inner();")
            w.append("  int ret_ = m_ >= 0 && sp_mpi__msgs_on ? "
                     "sp_mpi__x_%s(m_%s) : P%s(%s);"
                     % (name, ", " + args if args else "", name, args))
        else:
            w.append("  int ret_ = P%s(%s);" % (name, args))
        w.append("  sp_mpi__leave(r_);")
        if name in AFTER_INIT:
            w.append("  sp_mpi__after_init();")
        w.append("  return ret_;")
        w.append("}\n")
    nf = 0
    for i, (name, _, _, _) in enumerate(protos):
        low = name.lower()
        for suffix in ("_", "_f08_"):
            target = "p" + low + suffix
            # MPICH's use mpi_f08 bindings have no PMPI twins: the entry
            # point forwards to the binding it hides (RTLD_NEXT)
            own = suffix == "_f08_" and target not in fsyms and \
                low + suffix in fsyms
            if target not in fsyms and not own:
                continue
            nf += 1
            w.append("extern void %s(%s) __attribute__((weak));" % (target, fargs))
            w.append("SP_MPI_EXPORT void %s%s(%s) {" % (low, suffix, fargs))
            w.append("  static sp_mpi__ffn f_;")
            w.append("  sp_mpi__ffn f = __atomic_load_n(&f_, __ATOMIC_RELAXED);")
            w.append("  if (!f)")
            if own:
                w.append("    f = sp_mpi__fortran_or_next(&f_, %s, \"%s\", "
                         "\"%s\");" % (target, target, low + suffix))
            else:
                w.append("    f = sp_mpi__fortran(&f_, %s, \"%s\");"
                         % (target, target))
            w.append("  int r_ = sp_mpi__enter(%d);" % i)
            w.append("  sp_mpi__in_fortran++;")
            # recorded: by the C function MPI's binding calls, if it calls
            # one, else from the Fortran arguments (fcomm.c, fpersist.c)
            fx = None
            if low in frecorded:
                fx = "sp_mpi__fx_" + low
            elif name in recorded:
                fx = "sp_mpi__fx_plain"
            if fx:
                w.append("  if (r_ >= 0 && sp_mpi__msgs_on) {")
                w.append("    void *a_[%d] = {%s};" % (F_ARGS, fpass))
                w.append("    %s(r_, f, a_);" % fx)
                w.append("  } else {")
                w.append("    f(%s);" % fpass)
                w.append("  }")
            else:
                w.append("  f(%s);" % fpass)
            w.append("  sp_mpi__in_fortran--;")
            w.append("  sp_mpi__leave(r_);")
            if name in AFTER_INIT:
                w.append("  sp_mpi__after_init();")
            w.append("}\n")
    w.append("/* %d C wrappers, %d Fortran entry points */" % (len(protos), nf))
    text = "\n".join(w) + "\n"
    header = "#define SP_MPI_NFUNCS %d\n" % len(protos)
    with open(out_path, "w") as f:
        f.write(text)
    decl = ["/* Generated by mpi/gen_wrappers.py from this MPI's mpi.h: the "
            "recorded calls of\n * comm.c, each with its region first. */"]
    for name, params, names, _ in protos:
        if name in recorded:
            decl.append("int sp_mpi__x_%s(int r_%s);"
                        % (name, ", " + params if names else ""))
    decl.append("void sp_mpi__fx_plain(int r_, sp_mpi__ffn f, "
                "void *const *a);")
    for low in sorted(frecorded):
        decl.append("void sp_mpi__fx_%s(int r_, sp_mpi__ffn f, "
                    "void *const *a);" % low)
    with open(os.path.join(os.path.dirname(out_path), "comm_decl.h"),
              "w") as f:
        f.write("\n".join(decl) + "\n")
    with open(re.sub(r"\.c$", "_count.h", out_path), "w") as f:
        f.write("/* Generated by mpi/gen_wrappers.py: the number of wrapped "
                "functions. */\n" + header)


if __name__ == "__main__":
    main()
