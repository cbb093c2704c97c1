// Compat.h - the few places where LLVM 19 and LLVM 22 differ for this plugin.
#ifndef SCOPEPROF_COMPAT_H
#define SCOPEPROF_COMPAT_H

#include "llvm/Config/llvm-config.h"

// pass/CMakeLists.txt checks this too, with the versions CI tests.
#if LLVM_VERSION_MAJOR < 19
#error "ScopeProf.so needs LLVM 19 or later"
#endif

// PassPlugin.h moved from llvm/Passes/ to llvm/Plugins/ in LLVM 22.
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

namespace scopeprof {
// False when the process that loaded the plugin runs another LLVM major
// version than the one the plugin was built for; true when it cannot tell.
// Calls nothing of LLVM's, so it is safe in any LLVM (Plugin.cpp).
bool hostIsOurLLVM();
} // namespace scopeprof

#endif
