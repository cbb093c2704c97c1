// ScopeProfPass.h - the module pass that selects functions (annotate,
// -finstrument-functions marks and hooks, the filter) and instruments them.
#ifndef SCOPEPROF_PASS_H
#define SCOPEPROF_PASS_H

#include "Filter.h"

#include "llvm/IR/PassManager.h"

#include <optional>
#include <string>

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
  // The -sp-filter / $SP_FILTER file, read on this instance's first run and
  // kept for its later ones (opt and LTO may run it on many modules). The
  // state is the instance's own: lld's ThinLTO backends build a pipeline
  // per thread and run them in parallel.
  struct FilterState {
    bool Loaded = false;
    std::string Path;          // what was read ("" = no filter)
    std::optional<Filter> Flt; // set if it parsed
    std::string Error;         // else why not
  };
  // Out is null when there is no filter. False after diagnosing an error.
  bool getFilter(llvm::Module &M, const Filter *&Out);

  Stage S;
  FilterState FS;
};

} // namespace scopeprof

#endif
