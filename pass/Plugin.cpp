// Plugin.cpp - registers ScopeProf with the new pass manager: at the start of
// the pipeline, at the end of the optimizer, and by name for opt.
#include "Compat.h"
#include "ScopeProfPass.h"

#include "llvm/Passes/PassBuilder.h"

#include <dlfcn.h>

// The project's version, from CMake.
#ifndef SP_PLUGIN_VERSION
#error "SP_PLUGIN_VERSION is defined by pass/CMakeLists.txt"
#endif

using namespace llvm;
using scopeprof::ScopeProfPass;
using scopeprof::Stage;

bool scopeprof::hostIsOurLLVM() {
  // LLVM's C API says which LLVM the process runs (LLVMGetVersion, in every
  // LLVM this plugin builds against); dlsym, not a link-time reference, as
  // a process without it must still load the plugin.
  static const bool Ours = [] {
    using GetVersion = void (*)(unsigned *, unsigned *, unsigned *);
    void *Sym = dlsym(RTLD_DEFAULT, "LLVMGetVersion");
    if (!Sym)
      return true;
    unsigned Major = 0, Minor = 0, Patch = 0;
    reinterpret_cast<GetVersion>(Sym)(&Major, &Minor, &Patch);
    return Major == LLVM_VERSION_MAJOR;
  }();
  return Ours;
}

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
  // In another LLVM, API version 0 (no LLVM's) has the host refuse the
  // plugin with its one "Wrong API version" error before it calls anything
  // of ours, even where both LLVMs number their plugin API alike.
  return {scopeprof::hostIsOurLLVM() ? LLVM_PLUGIN_API_VERSION : 0u,
          "ScopeProf", SP_PLUGIN_VERSION, registerCallbacks};
}
