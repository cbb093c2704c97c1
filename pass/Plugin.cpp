// Plugin.cpp - registers ScopeProf with the new pass manager: at the start of
// the pipeline, at the end of the optimizer, and by name for opt.
#include "Compat.h"
#include "ScopeProfPass.h"

#include "llvm/Passes/PassBuilder.h"

// The project's version, from CMake.
#ifndef SP_PLUGIN_VERSION
#error "SP_PLUGIN_VERSION is defined by pass/CMakeLists.txt"
#endif

using namespace llvm;
using scopeprof::ScopeProfPass;
using scopeprof::Stage;

static void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ScopeProfPass(Stage::PipelineStart));
      });
#if LLVM_VERSION_MAJOR >= 20
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        MPM.addPass(ScopeProfPass(Stage::OptimizerLast));
      });
#else
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ScopeProfPass(Stage::OptimizerLast));
      });
#endif
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "scopeprof")
          MPM.addPass(ScopeProfPass(Stage::All));
        else if (Name == "scopeprof-start")
          MPM.addPass(ScopeProfPass(Stage::PipelineStart));
        else if (Name == "scopeprof-last")
          MPM.addPass(ScopeProfPass(Stage::OptimizerLast));
        else
          return false;
        return true;
      });
}

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ScopeProf", SP_PLUGIN_VERSION,
          registerCallbacks};
}
