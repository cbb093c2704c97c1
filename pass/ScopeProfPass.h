// ScopeProfPass.h - the module pass that selects functions (annotate,
// -finstrument-functions marks and hooks, the filter) and instruments them.
#ifndef SCOPEPROF_PASS_H
#define SCOPEPROF_PASS_H

#include "llvm/IR/PassManager.h"

namespace scopeprof {

// Where in the pipeline the pass runs decides what it consumes:
// PipelineStart takes annotate, the pre-inlining attributes and lowered
// hook calls (so each source function is a region, before inlining);
// OptimizerLast takes the -after-inlining attributes (and any hook calls
// left); All takes everything (for opt -passes=scopeprof).
enum class Stage { PipelineStart, OptimizerLast, All };

class ScopeProfPass : public llvm::PassInfoMixin<ScopeProfPass> {
public:
  explicit ScopeProfPass(Stage S) : S(S) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  // Required, or -O0's optnone would skip the pass and leave the hooks.
  static bool isRequired() { return true; }

private:
  Stage S;
};

} // namespace scopeprof

#endif
