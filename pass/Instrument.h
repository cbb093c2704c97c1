// Instrument.h - rewrites one function into a ScopeProf region: the site
// global, sp__enter at entry, sp__exit at every way out.
#ifndef SCOPEPROF_INSTRUMENT_H
#define SCOPEPROF_INSTRUMENT_H

#include "Naming.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

namespace scopeprof {

// Per-module helper owning the runtime declarations and string constants.
class Instrumenter {
public:
  // InlineCheck: guard each call with a load of the runtime's sp_active_
  // flag, as scope_profiler.h's sp_begin/sp_end macros do, so a disabled
  // run (SP_ENABLE=0) pays a load and a branch, not two calls.
  Instrumenter(llvm::Module &M, bool InlineCheck);

  // A new private sp_site {i32 -1, i32 line, ptr name, ptr file}, named
  // after Symbol so the IR is readable.
  llvm::GlobalVariable *makeSite(llvm::StringRef Symbol, llvm::StringRef Name,
                                 const SourceLoc &Loc);

  struct Stats {
    unsigned Exits = 0;   // sp__exit calls on normal paths
    unsigned Invokes = 0; // calls turned into invokes for the EH cleanup
  };
  // Inserts the entry call, an exit call before every return, resume and
  // musttail call and, if WithEH, a cleanup landing pad that closes the
  // region when an exception passes through F.
  Stats instrument(llvm::Function &F, llvm::GlobalVariable *Site, bool WithEH);

  // Puts the ScopeProf call for Site (behind the sp_active_ test if
  // enabled) before a lowered hook call, which the caller then erases.
  void replaceHook(llvm::CallBase &Hook, llvm::GlobalVariable *Site,
                   bool IsEnter);

private:
  // Hook(Site) right before P, behind the sp_active_ test if enabled.
  void emit(llvm::FunctionCallee Hook, llvm::GlobalVariable *Site,
            llvm::Instruction *P, const llvm::DebugLoc &DL);
  llvm::Constant *str(llvm::StringRef S);
  llvm::Function *personality();

  llvm::Module &M;
  llvm::StructType *SiteTy;
  llvm::FunctionCallee Enter, Exit;
  llvm::GlobalVariable *Active = nullptr; // sp_active_, if InlineCheck
  llvm::StringMap<llvm::Constant *> Strings;
};

} // namespace scopeprof

#endif
