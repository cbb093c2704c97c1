// DebugLocs.cpp - locations for the entry and exit calls (see DebugLocs.h).
#include "DebugLocs.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"

using namespace llvm;

namespace scopeprof {

DebugLoc entryLoc(const Function &F) {
  DISubprogram *SP = F.getSubprogram();
  if (!SP)
    return DebugLoc();
  return DILocation::get(F.getContext(), SP->getScopeLine(), 0, SP);
}

DebugLoc exitLoc(const Function &F, const Instruction *At) {
  DISubprogram *SP = F.getSubprogram();
  if (!SP)
    return DebugLoc();
  if (At && At->getDebugLoc())
    return At->getDebugLoc();
  return DILocation::get(F.getContext(), 0, 0, SP);
}

} // namespace scopeprof
