// Naming.h - region names and source locations of instrumented functions:
// C as written, C++ demangled, Fortran as module::procedure.
#ifndef SCOPEPROF_NAMING_H
#define SCOPEPROF_NAMING_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace scopeprof {

struct SourceLoc {
  std::string File; // empty: unknown
  int Line = -1;    // -1: unknown
};

enum class SourceLang { C, Cxx, Fortran };

// The module's source language: from debug info, else from Flang's module
// name and the symbols' mangling.
SourceLang moduleLanguage(const llvm::Module &M);

// The linkage name the function was written under (stable across LLVM's
// renaming of clones), from debug info when present.
std::string symbolName(const llvm::Function &F);

// The region name for F.
std::string regionName(const llvm::Function &F, bool Fortran);

// Demangles a Flang symbol (_QMmodPproc -> mod::proc); empty if it is not one.
std::string demangleFlang(llvm::StringRef Sym);

// Definition's file and line from debug info, else the module's source file
// and line -1.
SourceLoc sourceLoc(const llvm::Function &F);

} // namespace scopeprof

#endif
