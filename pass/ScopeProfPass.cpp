// ScopeProfPass.cpp - decides which functions become regions and why, and
// removes every __cyg_profile_func_* reference it consumed.
#include "ScopeProfPass.h"
#include "Compat.h"
#include "Filter.h"
#include "Instrument.h"
#include "Naming.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>

using namespace llvm;

namespace scopeprof {

namespace {
// The -mllvm options. They must exist once the plugin is loaded, before the
// pass runs (Clang 22 loads pass plugins before it parses -mllvm, Clang 19
// needs -Xclang -load), but a cl::opt built in another LLVM than ours
// crashes in its constructor: so they are built only when the loading
// process runs our LLVM (hostIsOurLLVM), never as static objects.
struct Options {
  cl::opt<std::string> FilterFile{
      "sp-filter", cl::value_desc("file"),
      cl::desc("ScopeProf: filter file selecting which "
               "-finstrument-functions functions become regions "
               "(default: $SP_FILTER)")};
  cl::opt<bool> Verbose{
      "sp-verbose", cl::desc("ScopeProf: report every function instrumented "
                             "or skipped, and why, on stderr")};
  cl::opt<bool> InlineCheck{
      "sp-inline-check", cl::init(true),
      cl::desc("ScopeProf: test the runtime's sp_active_ flag inline before "
               "each call, so SP_ENABLE=0 runs skip the calls (default on)")};
  cl::opt<bool> SystemHeaders{
      "sp-system-headers",
      cl::desc("ScopeProf: also make regions of -finstrument-functions "
               "functions defined in system headers (/usr/include, the "
               "compilers' own headers); default: leave them out")};
};
} // namespace

// Never freed: LLVM keeps a pass plugin loaded until the process ends.
static const Options *Opts = hostIsOurLLVM() ? new Options : nullptr;

static std::string filterFileOpt() {
  return Opts ? std::string(Opts->FilterFile) : std::string();
}
static bool verboseOpt() { return Opts && Opts->Verbose; }
static bool inlineCheckOpt() { return !Opts || Opts->InlineCheck; }
static bool systemHeadersOpt() { return Opts && Opts->SystemHeaders; }

static constexpr const char *Done = "scopeprof-instrumented";
static constexpr const char *CygEnter = "__cyg_profile_func_enter";
static constexpr const char *CygExit = "__cyg_profile_func_exit";
static constexpr const char *FilterErrorMark = "scopeprof.filter.error";

namespace {
// Our own diagnostic kind: LLVM 19 has no DiagnosticInfoGeneric, and Clang
// and Flang print any unknown kind as a plain error and fail the compile.
class ScopeProfDiag : public DiagnosticInfo {
  const Twine &Msg;

public:
  ScopeProfDiag(const Twine &Msg, DiagnosticSeverity Sev)
      : DiagnosticInfo(kind(), Sev), Msg(Msg) {}
  void print(DiagnosticPrinter &DP) const override {
    DP << "scopeprof: " << Msg;
  }
  static int kind() {
    static int K = getNextAvailablePluginDiagnosticKind();
    return K;
  }
};
} // namespace

static void diagnose(Module &M, DiagnosticSeverity Sev, const Twine &Msg) {
  M.getContext().diagnose(ScopeProfDiag(Msg, Sev));
}

static void error(Module &M, const Twine &Msg) { diagnose(M, DS_Error, Msg); }

bool ScopeProfPass::getFilter(Module &M, const Filter *&Out) {
  Out = nullptr;
  std::string Path = filterFileOpt();
  if (Path.empty())
    if (const char *Env = std::getenv("SP_FILTER"))
      Path = Env;
  if (!FS.Loaded || FS.Path != Path) {
    FS = FilterState();
    FS.Loaded = true;
    FS.Path = Path;
    if (!Path.empty()) {
      Expected<Filter> F = Filter::load(Path);
      if (F)
        FS.Flt = std::move(*F);
      else
        FS.Error = toString(F.takeError());
    }
  }
  if (Path.empty())
    return true;
  if (!FS.Flt) {
    // Both pipeline stages run a pass instance of their own on the module:
    // the first to fail marks it, so the user reads the error once.
    if (!M.getNamedMetadata(FilterErrorMark)) {
      M.getOrInsertNamedMetadata(FilterErrorMark);
      error(M, FS.Error);
    }
    return false;
  }
  Out = &*FS.Flt;
  return true;
}

// annotate("sp_region") / annotate("sp_region:NAME") from
// llvm.global.annotations: function -> explicit name ("" = the function's).
static MapVector<Function *, std::string> annotations(Module &M) {
  MapVector<Function *, std::string> Out;
  GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return Out;
  auto *CA = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!CA)
    return Out;
  for (Value *Op : CA->operands()) {
    auto *CS = dyn_cast<ConstantStruct>(Op);
    if (!CS || CS->getNumOperands() < 2)
      continue;
    auto *Fn = dyn_cast<Function>(CS->getOperand(0)->stripPointerCasts());
    auto *StrGV =
        dyn_cast<GlobalVariable>(CS->getOperand(1)->stripPointerCasts());
    if (!Fn || !StrGV || !StrGV->hasInitializer())
      continue;
    auto *Str = dyn_cast<ConstantDataArray>(StrGV->getInitializer());
    if (!Str || !Str->isCString())
      continue;
    StringRef A = Str->getAsCString();
    if (A == "sp_region") {
      Out.insert({Fn, ""});
    } else if (A.consume_front("sp_region:")) {
      if (A.trim().empty())
        diagnose(M, DS_Warning,
                 "annotate(\"sp_region:\") on '" + Fn->getName() +
                     "' gives no name; the region is named after the function");
      Out[Fn] = A.trim().str();
    }
  }
  return Out;
}

// Removes Attr if it names the given hook; true if it did.
static bool consumeAttr(Function &F, StringRef Attr, StringRef Hook) {
  if (F.getFnAttribute(Attr).getValueAsString() != Hook)
    return false;
  F.removeFnAttr(Attr);
  return true;
}

static void eraseHook(CallBase &Hook) {
  // The second argument is usually a fresh llvm.returnaddress, dead now.
  Value *RA = Hook.arg_size() > 1 ? Hook.getArgOperand(1) : nullptr;
  Hook.eraseFromParent();
  if (auto *II = dyn_cast_or_null<IntrinsicInst>(RA))
    if (II->getIntrinsicID() == Intrinsic::returnaddress && II->use_empty())
      II->eraseFromParent();
}

// A function defined in a system header (the C and C++ libraries', or a
// compiler's own: std::vector's members, <cmath> wrappers): recording each
// of its calls costs more than it runs and names nothing of the program's.
static bool inSystemHeader(StringRef Path) {
  // GCC's C++ headers come as .../lib/gcc/<triple>/12/../../../../include.
  SmallString<256> Norm(Path);
  sys::path::remove_dots(Norm, /*remove_dot_dot=*/true);
  StringRef File = Norm;
  if (File.starts_with("/usr/include/") || File.starts_with("/usr/lib/gcc/"))
    return true;
  // Clang's resource headers: <prefix>/lib/clang/<version>/include/.
  size_t At = File.find("/lib/clang/");
  return At != StringRef::npos &&
         File.substr(At + 11).split('/').second.starts_with("include/");
}

// The body of an OpenMP construct that the compiler outlined: Clang's
// "f.omp_outlined" (and, with debug info, the "f.omp_outlined_debug__" it
// calls), ".omp_outlined." for tasks; Flang's "f..omp_par". Each runs as
// the implicit or explicit task the runtime's OMPT layer records already
// ("omp implicit task @ file:line", "omp task @ file:line").
static bool isOpenMPOutlined(StringRef Name) {
  return Name.contains(".omp_outlined") || Name.contains("..omp_par");
}

// Why a function that asked to be instrumented is not; empty if it is fine.
static const char *skipReason(const Function &F, bool Fortran, bool Annotated,
                              const Module &M) {
  if (!Annotated && isOpenMPOutlined(F.getName()))
    return "OpenMP outlined body: the runtime records it through OMPT as the "
           "construct's implicit or explicit task";
  if (F.hasFnAttribute(Attribute::Naked))
    return "naked: its body is asm that owns the stack and registers, a call "
           "would corrupt them";
  if (F.hasAvailableExternallyLinkage())
    return "available_externally: this body is dropped; the out-of-line "
           "definition is instrumented where it is compiled";
  if (F.isPresplitCoroutine())
    return "coroutine: its entry and exits are rewritten by CoroSplit later";
  if (Fortran && !Annotated && F.getName() == "main" &&
      M.getFunction("_QQmain"))
    return "Flang's C entry point; the program itself is _QQmain";
  return nullptr;
}

namespace {
struct Hook {
  CallBase *Call;
  Function *Target; // the function the hook was emitted for, or null
  bool IsEnter;
};

class Run {
public:
  Run(Module &M, Stage S, const Filter *Flt)
      : M(M), S(S), Flt(Flt), Lang(moduleLanguage(M)),
        Fortran(Lang == SourceLang::Fortran), Cxx(Lang == SourceLang::Cxx) {}
  bool run();

private:
  Instrumenter &ins() {
    if (!Ins)
      Ins = std::make_unique<Instrumenter>(M, inlineCheckOpt());
    return *Ins;
  }
  // -sp-verbose / $SP_PLUGIN_VERBOSE print every decision; the same text
  // goes out as an optimization remark (-Rpass=scopeprof for what was
  // instrumented, -Rpass-missed=scopeprof for what was skipped).
  void note(Function &F, bool Done, const Twine &Msg) {
    if (verbose())
      errs() << "scopeprof: " << M.getSourceFileName() << ": " << Msg << "\n";
    OptimizationRemarkEmitter ORE(&F);
    if (Done)
      ORE.emit([&] {
        return OptimizationRemark("scopeprof", "Instrumented", &F) << Msg.str();
      });
    else
      ORE.emit([&] {
        return OptimizationRemarkMissed("scopeprof", "Skipped", &F)
               << Msg.str();
      });
  }
  static bool verbose() {
    static bool Env = [] {
      const char *V = std::getenv("SP_PLUGIN_VERBOSE");
      return V && *V && std::string(V) != "0";
    }();
    return verboseOpt() || Env;
  }
  // The site of a function whose hooks were inlined elsewhere (the region
  // of the callee), or null if that function is not to be a region.
  GlobalVariable *siteForInlined(Function *G);

  Module &M;
  Stage S;
  const Filter *Flt;
  SourceLang Lang;
  bool Fortran, Cxx;
  std::unique_ptr<Instrumenter> Ins;
  DenseMap<Function *, GlobalVariable *> Sites;
};
} // namespace

GlobalVariable *Run::siteForInlined(Function *G) {
  auto It = Sites.find(G);
  if (It != Sites.end())
    return It->second;
  GlobalVariable *Site = nullptr;
  if (isOpenMPOutlined(G->getName())) {
    Sites[G] = nullptr;
    return nullptr;
  }
  std::string Name = regionName(*G, Fortran);
  SourceLoc Loc = sourceLoc(*G);
  // The callee's body is gone or elsewhere: judge it by name and file only.
  if (!systemHeadersOpt() && inSystemHeader(Loc.File)) {
    Sites[G] = nullptr;
    return nullptr;
  }
  if (!Flt || Flt->decide(Name, symbolName(*G), Loc.File, ~0u).Keep)
    Site = ins().makeSite(G->getName(), Name, Loc);
  Sites[G] = Site;
  return Site;
}

bool Run::run() {
  bool Early = S != Stage::OptimizerLast, Late = S != Stage::PipelineStart;
  MapVector<Function *, std::string> Annotated;
  if (Early)
    Annotated = annotations(M);
  Function *CygE = M.getFunction(CygEnter), *CygX = M.getFunction(CygExit);

  // Hook calls, by the function they sit in.
  DenseMap<Function *, SmallVector<Hook, 4>> Hooks;
  for (Function *HF : {CygE, CygX}) {
    if (!HF)
      continue;
    for (User *U : HF->users()) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledOperand() != HF || !isa<CallInst>(CB))
        continue;
      Function *Target =
          CB->arg_size()
              ? dyn_cast<Function>(CB->getArgOperand(0)->stripPointerCasts())
              : nullptr;
      Hooks[CB->getFunction()].push_back({CB, Target, HF == CygE});
    }
  }

  bool Changed = false;
  SmallVector<Hook, 8> Inlined;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    auto AIt = Annotated.find(&F);
    bool Ann = AIt != Annotated.end();
    const char *Why = Ann ? "annotate" : nullptr;
    if (Early) {
      bool A = consumeAttr(F, "instrument-function-entry", CygEnter);
      A |= consumeAttr(F, "instrument-function-exit", CygExit);
      if (A && !Why)
        Why = "-finstrument-functions";
      Changed |= A;
    }
    if (Late) {
      bool A = consumeAttr(F, "instrument-function-entry-inlined", CygEnter);
      A |= consumeAttr(F, "instrument-function-exit-inlined", CygExit);
      if (A && !Why)
        Why = "-finstrument-functions-after-inlining";
      Changed |= A;
    }
    auto HIt = Hooks.find(&F);
    if (HIt != Hooks.end()) {
      for (Hook &H : HIt->second) {
        if (H.Target == &F) {
          eraseHook(*H.Call);
          Changed = true;
          if (!Why)
            Why = "__cyg_profile_func hook calls";
        } else {
          Inlined.push_back(H);
        }
      }
    }
    if (!Why)
      continue;

    std::string Name =
        Ann && !AIt->second.empty() ? AIt->second : regionName(F, Fortran);
    if (F.hasFnAttribute(Done)) {
      note(F, false, "skipped '" + Name + "': already instrumented");
      continue;
    }
    if (const char *Skip = skipReason(F, Fortran, Ann, M)) {
      note(F, false, "skipped '" + Name + "': " + Skip);
      Sites[&F] = nullptr; // its inlined hooks, if any, go too
      continue;
    }
    SourceLoc Loc = sourceLoc(F);
    if (!Ann && !systemHeadersOpt() && inSystemHeader(Loc.File)) {
      note(F, false,
           "skipped '" + Name + "': defined in a system header (" + Loc.File +
               "; -mllvm -sp-system-headers keeps these)");
      Sites[&F] = nullptr;
      continue;
    }
    if (Flt && !Ann) {
      Filter::Decision D =
          Flt->decide(Name, symbolName(F), Loc.File, F.getInstructionCount());
      if (!D.Keep) {
        note(F, false, "skipped '" + Name + "': " + D.Why);
        Sites[&F] = nullptr;
        continue;
      }
    }
    GlobalVariable *Site = ins().makeSite(F.getName(), Name, Loc);
    Sites[&F] = Site;
    Instrumenter::Stats St = ins().instrument(F, Site, Cxx);
    F.addFnAttr(Done);
    Changed = true;
    note(F, true,
         "instrumented '" + Name + "' [" + (Loc.File.empty() ? "?" : Loc.File) +
             ":" + Twine(Loc.Line) + "] (" + Why + "; " + Twine(St.Exits) +
             " exit(s), " + Twine(St.Invokes) +
             " call(s) given an EH cleanup)");
  }

  // Hooks copied into other functions by inlining that ran before us
  // (Flang inlines before LLVM sees the module): the callee's region, 1:1.
  for (Hook &H : Inlined) {
    if (GlobalVariable *Site = H.Target ? siteForInlined(H.Target) : nullptr)
      ins().replaceHook(*H.Call, Site, H.IsEnter);
    eraseHook(*H.Call);
    Changed = true;
  }

  // No reference to the hooks may survive into the object.
  for (Function *HF : {CygE, CygX})
    if (HF && HF->use_empty()) {
      HF->eraseFromParent();
      Changed = true;
    }
  return Changed;
}

PreservedAnalyses ScopeProfPass::run(Module &M, ModuleAnalysisManager &) {
  const Filter *Flt;
  if (!getFilter(M, Flt))
    return PreservedAnalyses::all();
  Run R(M, S, Flt);
  return R.run() ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace scopeprof
