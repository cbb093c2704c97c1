#!/usr/bin/env python3
# amalgamate.py - the runtime as one C file (scope_profiler.c) beside its
# public header, for the Python package's c/ directory: run by the CMake
# build and by the package's setup.py, never committed.
"""Usage: amalgamate.py SOURCE_DIR OUT_DIR [VERSION]

Writes OUT_DIR/scope_profiler.c (every file of libscopeprof: the runtime's
sources and the format library's HDF5-free ones, as runtime/CMakeLists.txt
and format/CMakeLists.txt list them, with their private headers inlined)
and OUT_DIR/scope_profiler.h (the public header). The result builds with
    cc -I OUT_DIR prog.c OUT_DIR/scope_profiler.c -lpthread -ldl -lm
and writes .spt; the .h5 writer is a separate module it does not carry.
"""
import os
import re
import sys

PUBLIC = "scope_profiler.h"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = {"static", "inline", "const", "volatile", "_Thread_local",
            "__thread", "_Atomic", "struct", "union", "enum", "unsigned",
            "signed", "int", "char", "long", "short", "void", "double",
            "float", "restrict", "__attribute__", "_Noreturn"}
# Code with its comments and string and character literals, which the
# renaming below must not touch; identifiers reached as members (.x, ->x)
# are not file-scope names either.
TOKENS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                    r"'(?:\\.|[^'\\\n])*'|(?:\.|->)\s*[A-Za-z_]\w*|"
                    r"[A-Za-z_]\w*", re.S)
# The one function of libm the runtime calls (statistics of a merged
# file), here so a program links without -lm: x87's fsqrt is what glibc's
# sqrtl is on x86; elsewhere Newton's iteration to a fixed point.
NO_LIBM = r"""#include <math.h>
static long double sp__amal_sqrtl(long double x) {
  if (!(x > 0))
    return x == 0 ? x : (long double)NAN;
#if defined(__x86_64__) || defined(__i386__)
  __asm__("fsqrt" : "+t"(x));
  return x;
#else
  long double r = x > 1 ? x : 1, prev = 0;
  for (int i = 0; i < 20000 && r != prev; i++) {
    prev = r;
    r = (r + x / r) / 2;
  }
  return r;
#endif
}
#define sqrtl sp__amal_sqrtl""".splitlines()
PUSH = ["#if defined(__clang__)", "#pragma clang diagnostic push",
        '#pragma clang diagnostic ignored "-Wunused-function"', "#endif"]
POP = ["#if defined(__clang__)", "#pragma clang diagnostic pop", "#endif"]
BRACES = re.compile(TOKENS.pattern + r"|[{};]", re.S)
TYPEDEF = re.compile(r"^typedef\s[^;]*?\b([A-Za-z_]\w*)\s*;", re.M)
TYPEDEF_BLOCK = re.compile(r"^\}\s*([A-Za-z_]\w*)\s*;", re.M)
TAG = re.compile(r"^(?:typedef\s+)?(struct|union|enum)\s+([A-Za-z_]\w*)\s*\{", re.M)
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.M)


def cmake_list(path, var):
    """The file names of set(var ...) in a CMakeLists.txt."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"set\(\s*%s\s+([^)]*)\)" % re.escape(var), text)
    if not m:
        raise SystemExit("amalgamate: %s: no set(%s ...)" % (path, var))
    body = re.sub(r"#[^\n]*", "", m.group(1))
    return [w for w in body.split() if w.endswith(".c")]


def sources(src):
    rt = [os.path.join(src, "runtime", s) for s in
          cmake_list(os.path.join(src, "runtime", "CMakeLists.txt"),
                     "SP_RUNTIME_SOURCES")]
    fm = [os.path.join(src, "format", s) for s in
          cmake_list(os.path.join(src, "format", "CMakeLists.txt"),
                     "SP_FORMAT_SOURCES")]
    return rt + fm


class Amalgam:
    def __init__(self, src):
        self.dirs = [os.path.join(src, "runtime", "src"),
                     os.path.join(src, "runtime", "include"),
                     os.path.join(src, "format")]
        self.done = set()
        self.out = []

    def find(self, name, here):
        for d in [here] + self.dirs:
            p = os.path.join(d, name)
            if os.path.isfile(p):
                return p
        raise SystemExit("amalgamate: %s: included file %s not found" % (here, name))

    def inline(self, path, text=None):
        """The lines of path (or of text, path's renamed) with its local
        includes inlined: a header once (they are all guarded), a .def
        X-macro table every time."""
        out = []
        if text is None:
            with open(path) as f:
                text = f.read()
        lines = text.splitlines()
        for line in lines:
            m = INCLUDE.match(line)
            if not m:
                out.append(line)
                continue
            name = m.group(1)
            if name == PUBLIC:
                out.append('#include "%s"' % PUBLIC)
                continue
            p = self.find(name, os.path.dirname(path))
            if name.endswith(".h"):
                if p in self.done:
                    continue
                self.done.add(p)
            # A header's static inline functions that this file does not
            # call are not worth a warning, as in a header of their own.
            out.append("/* ---- %s ---- */" % os.path.basename(p))
            out.extend(PUSH)
            out.extend(self.inline(p))
            out.extend(POP)
            out.append("/* ---- end of %s ---- */" % os.path.basename(p))
        return out


def strip(text):
    """text without comments, literals and attributes (replaced by
    blanks)."""
    text = TOKENS.sub(lambda m: m.group(0) if IDENT.fullmatch(m.group(0))
                      else " ", text)
    return re.sub(r"__attribute__\s*\(\([^()]*(?:\([^()]*\)[^()]*)*\)\)", " ", text)


def balanced(text, i, open_, close):
    """The index after the bracket closing the one at text[i]."""
    depth = 0
    while i < len(text):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def static_names(code):
    """Names of the file-scope static functions and variables of code."""
    names = set()
    for m in re.finditer(r"^static\b", code, re.M):
        i, decl = m.end(), []
        # up to the declaration's end: ';' or a function body's '{', an
        # anonymous or tagged struct body skipped whole
        while i < len(code) and code[i] != ";":
            c = code[i]
            if c == "(":
                j = balanced(code, i, "(", ")")
                decl.append(code[i:j])
                i = j
                continue
            if c == "{":
                if re.search(r"\b(?:struct|union|enum)\s*\w*\s*$", "".join(decl)):
                    i = balanced(code, i, "{", "}")
                    decl.append(" ")
                    continue
                break
            decl.append(c)
            i += 1
        d = "".join(decl)
        fn = re.match(r"[^(=]*?([A-Za-z_]\w*)\s*\((?!\s*\*)", d)
        # _Atomic(T) x is a variable, not a function named _Atomic
        if fn and "=" not in d[:fn.end()] and fn.group(1) not in KEYWORDS:
            names.add(fn.group(1))
            continue
        # variables: each top-level comma-separated declarator, without
        # its initializer; a pointer to function names itself in (*x)
        depth, part, parts = 0, [], []
        for c in d:
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            if c == "," and depth == 0:
                parts.append("".join(part))
                part = []
            else:
                part.append(c)
        parts.append("".join(part))
        for k, p in enumerate(parts):
            p = p.split("=")[0]
            pm = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", p)
            if pm:
                names.add(pm.group(1))
                continue
            p = re.sub(r"\[.*", "", p)
            ids = [w for w in IDENT.findall(p) if w not in KEYWORDS]
            if ids:
                names.add(ids[-1])
    return names


def file_locals(text):
    """Names a source file defines for itself alone: statics, typedefs,
    struct/union/enum tags and macros."""
    code = strip(text)
    names = static_names(code) | set(TYPEDEF.findall(code))
    names |= set(TYPEDEF_BLOCK.findall(code))
    names |= {t for _, t in TAG.findall(code)}
    return names, set(DEFINE.findall(code))


def rename(text, names, tag):
    """text with each identifier of names prefixed, but in comments,
    literals, member accesses and member declarations (a struct's member
    may share a name with a file-scope one)."""
    out, pos, stack, prev = [], 0, [], []
    for m in BRACES.finditer(text):
        w = m.group(0)
        out.append(text[pos:m.start()])
        pos = m.end()
        if w == "{":
            stack.append("struct" if any(p in ("struct", "union") for p in prev[-2:])
                         else "block")
        elif w == "}":
            if stack:
                stack.pop()
        elif w in names and IDENT.fullmatch(w):
            nxt = text[m.end():m.end() + 40].lstrip()[:1]
            member = stack and stack[-1] == "struct" and nxt in (";", "[", ",", ":", ")")
            if not member:
                # never a name the sources use (pool.c: static lock would
                # become sp__pool_lock, a function of the same file)
                w = "sp__amal_%s_%s" % (tag, w)
        if IDENT.fullmatch(w) or w in "{};":
            prev = (prev + [w])[-2:]
        out.append(w)
    out.append(text[pos:])
    return "".join(out)


def amalgamate(src, version):
    """The text of scope_profiler.c. A name private to a source file
    (static, typedef, tag) that an earlier file defines too is renamed in
    the later file's text, as one translation unit would otherwise see two
    definitions; the macros a file defines are undefined after it, so the
    next file starts as it would alone."""
    a = Amalgam(src)
    out = ["/* scope_profiler.c - ScopeProf's runtime (libscopeprof) as one C",
           " * file, generated by scripts/amalgamate.py from the sources of",
           " * version %s; do not edit. Build: cc -I<this directory> prog.c" % version,
           " * scope_profiler.c -lpthread -ldl -lm. Writes .spt. */",
           "#ifndef _GNU_SOURCE",
           "#define _GNU_SOURCE",
           "#endif",
           "#define SP_BUILDING_RUNTIME 1",
           '#define SP_VERSION_STRING "%s"' % version] + NO_LIBM
    seen = set()
    for path in sources(src):
        with open(path) as f:
            text = f.read()
        names, macros = file_locals(text)
        dup = names & seen
        seen |= names
        tag = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
        if dup:
            text = rename(text, dup, tag)
        out.append("")
        out.append("/* ======== %s ======== */" % os.path.relpath(path, src))
        out.extend(a.inline(path, text))
        out.extend("#undef %s" % n for n in sorted(macros))
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    version = argv[3] if len(argv) > 3 else "0.0.0"
    text = amalgamate(src, version)
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(src, "runtime", "include", PUBLIC)) as f:
        header = f.read()
    for name, data in ((PUBLIC, header), ("scope_profiler.c", text)):
        tmp = os.path.join(dst, ".%s.tmp%d" % (name, os.getpid()))
        with open(tmp, "w") as f:
            f.write(data)
        os.replace(tmp, os.path.join(dst, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
