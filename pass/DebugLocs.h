// DebugLocs.h - debug locations for the inserted calls, so -g builds pass
// the verifier and debuggers attribute the calls to the right lines.
#ifndef SCOPEPROF_DEBUGLOCS_H
#define SCOPEPROF_DEBUGLOCS_H

#include "llvm/IR/DebugLoc.h"

namespace llvm {
class Function;
class Instruction;
} // namespace llvm

namespace scopeprof {

// The function's scope line; empty if F has no debug info.
llvm::DebugLoc entryLoc(const llvm::Function &F);

// Before an exit At: At's own location, else line 0 of F's scope
// (compiler-generated code); empty if F has no debug info.
llvm::DebugLoc exitLoc(const llvm::Function &F, const llvm::Instruction *At);

} // namespace scopeprof

#endif
