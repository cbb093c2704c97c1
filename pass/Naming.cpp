// Naming.cpp - turns a function into the region name and location users see.
// Fortran names are lower-cased: Fortran is case-insensitive and Flang keeps
// only the main program's name in upper case, so lower case is the one
// spelling that is the same with and without debug info.
#include "Naming.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <cxxabi.h>

using namespace llvm;

namespace scopeprof {

static bool isFortranLang(unsigned Lang) {
  switch (Lang) {
  case dwarf::DW_LANG_Fortran77:
  case dwarf::DW_LANG_Fortran90:
  case dwarf::DW_LANG_Fortran95:
  case dwarf::DW_LANG_Fortran03:
  case dwarf::DW_LANG_Fortran08:
    return true;
  default:
    return false;
  }
}

// The DWARF language of a compile unit, 0 if unknown. LLVM 22 may carry a
// versioned DW_LNAME instead, which none of our producers emit yet.
static unsigned cuLanguage(const DICompileUnit *CU) {
#if LLVM_VERSION_MAJOR >= 22
  DISourceLanguageName L = CU->getSourceLanguage();
  return L.hasVersionedName() ? 0 : L.getUnversionedName();
#else
  return CU->getSourceLanguage();
#endif
}

static bool isCxxLang(unsigned Lang) {
  return Lang == dwarf::DW_LANG_C_plus_plus ||
         Lang == dwarf::DW_LANG_C_plus_plus_03 ||
         Lang == dwarf::DW_LANG_C_plus_plus_11 ||
         Lang == dwarf::DW_LANG_C_plus_plus_14;
}

SourceLang moduleLanguage(const Module &M) {
  // Flang names every LLVM module "FIRModule"; its main program is _QQmain.
  if (M.getSourceFileName() == "FIRModule" || M.getFunction("_QQmain"))
    return SourceLang::Fortran;
  for (const DICompileUnit *CU : M.debug_compile_units()) {
    unsigned L = cuLanguage(CU);
    if (isFortranLang(L))
      return SourceLang::Fortran;
    if (isCxxLang(L))
      return SourceLang::Cxx;
  }
  // Without debug info: Itanium-mangled symbols or a personality routine
  // mean C++ (an extern "C"-only C++ file without -g reads as C).
  for (const Function &F : M)
    if (F.getName().starts_with("_Z") || F.hasPersonalityFn())
      return SourceLang::Cxx;
  return SourceLang::C;
}

std::string symbolName(const Function &F) {
  const DISubprogram *SP = F.getSubprogram();
  if (SP && !SP->getLinkageName().empty())
    return SP->getLinkageName().str();
  // -gline-tables-only drops linkageName: the symbol still carries the
  // signature that keeps C++ overloads apart.
  if (F.getName().starts_with("_Z"))
    return F.getName().str();
  if (SP && !SP->getName().empty())
    return SP->getName().str();
  return F.getName().str();
}

std::string demangleFlang(StringRef Sym) {
  // Flang's scheme: _Q then tagged parts, a capital tag letter followed by a
  // lower-case name: M module, S submodule, F host procedure, P procedure;
  // QQmain is the main program.
  if (!Sym.consume_front("_Q"))
    return {};
  if (Sym == "Qmain")
    return "main";
  std::string Out;
  bool SawProc = false;
  while (!Sym.empty()) {
    char Tag = Sym.front();
    Sym = Sym.drop_front();
    size_t End = Sym.find_if([](char C) { return C >= 'A' && C <= 'Z'; });
    StringRef Part = Sym.take_front(End);
    Sym = Sym.drop_front(Part.size());
    if (Part.empty())
      return {};
    switch (Tag) {
    case 'M':
    case 'S':
    case 'F':
    case 'P':
      if (!Out.empty())
        Out += "::";
      Out += Part.str();
      SawProc |= Tag == 'P';
      break;
    default:
      return {};
    }
  }
  return SawProc ? Out : std::string();
}

static std::string fortranName(const Function &F) {
  const DISubprogram *SP = F.getSubprogram();
  std::string Sym = symbolName(F);
  // Only debug info knows the main program's name.
  if (Sym == "_QQmain")
    return SP && !SP->getName().empty() ? SP->getName().lower() : "main";
  // Flang's mangling carries module and host even under -gline-tables-only.
  std::string D = demangleFlang(Sym);
  if (!D.empty())
    return D;
  if (!SP || SP->getName().empty()) {
    // An external procedure's symbol is its name plus '_' (ext -> ext_).
    StringRef N = F.getName();
    return N.ends_with("_") ? N.drop_back().str() : N.str();
  }
  // bind(C) procedures: the symbol is the C name; debug info has the scope.
  std::string Name = SP->getName().lower();
  for (const DIScope *S = SP->getScope(); S; S = S->getScope()) {
    if (isa<DIModule>(S) || isa<DISubprogram>(S))
      Name = S->getName().lower() + "::" + Name;
    else
      break;
  }
  return Name;
}

// The names users know are c++filt's, which the runtime's symbol reader
// (the gcc route) gives too: GNU's demangler, which the C++ library
// exports. LLVM's names generic lambdas wrongly ('lambda'(T const&) with a
// stray auto where c++filt says {lambda(auto:1 const&)#1}); it stays the
// fallback for what GNU's refuses.
static std::string demangleCxx(const std::string &Sym) {
  int Status = 0;
  char *D = abi::__cxa_demangle(Sym.c_str(), nullptr, nullptr, &Status);
  if (D && Status == 0) {
    std::string Name(D);
    std::free(D);
    return Name;
  }
  std::free(D);
  return demangle(Sym);
}

std::string regionName(const Function &F, bool Fortran) {
  if (Fortran)
    return fortranName(F);
  std::string Sym = symbolName(F);
  // C++ (and anything Itanium-mangled): the full demangled signature, so
  // overloads stay distinct regions.
  if (StringRef(Sym).starts_with("_Z"))
    return demangleCxx(Sym);
  return Sym;
}

SourceLoc sourceLoc(const Function &F) {
  SourceLoc L;
  if (const DISubprogram *SP = F.getSubprogram()) {
    StringRef File = SP->getFilename(), Dir = SP->getDirectory();
    if (!File.empty()) {
      if (sys::path::is_absolute(File) || Dir.empty()) {
        L.File = File.str();
      } else {
        SmallString<256> P(Dir);
        sys::path::append(P, File);
        L.File = std::string(P.str());
      }
      L.Line = SP->getLine();
      return L;
    }
  }
  StringRef Src = F.getParent()->getSourceFileName();
  // Flang's placeholder module name is not a file.
  if (Src != "FIRModule")
    L.File = Src.str();
  return L;
}

} // namespace scopeprof
