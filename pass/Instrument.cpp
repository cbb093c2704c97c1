// Instrument.cpp - the EntryExitInstrumenter-style rewrite of one function
// (see Instrument.h); also emits the sp_site globals of sp_hooks.h.
#include "Instrument.h"
#include "DebugLocs.h"
#include "sp_hooks.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/EHPersonalities.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace scopeprof {

Instrumenter::Instrumenter(Module &M, bool InlineCheck) : M(M) {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C);
  Type *I32 = Type::getInt32Ty(C);
  // sp_site of sp_hooks.h, whose static_asserts pin this layout.
  SiteTy = StructType::get(C, {I32, I32, Ptr, Ptr});
  FunctionType *HookTy = FunctionType::get(Type::getVoidTy(C), {Ptr}, false);
  Enter = M.getOrInsertFunction("sp__enter", HookTy);
  Exit = M.getOrInsertFunction("sp__exit", HookTy);
  // The runtime is C and never throws: nounwind keeps the calls themselves
  // out of the EH rewrite and lets the optimizer treat them as cheap.
  for (FunctionCallee FC : {Enter, Exit})
    if (auto *Fn = dyn_cast<Function>(FC.getCallee()))
      Fn->addFnAttr(Attribute::NoUnwind);
  if (InlineCheck) {
    Active = dyn_cast<GlobalVariable>(M.getOrInsertGlobal("sp_active_", I32));
    // A module that defines sp_active_ itself is the runtime: leave it be.
    if (Active && !Active->isDeclaration())
      Active = nullptr;
  }
  if (Active) {
    // Linkable without the runtime, as -finstrument-functions objects are
    // against libc's empty hooks (a configure script's link test, a
    // program linked plainly): a weak sp_active_ of 0, which the runtime's
    // definition (or its start, for a copy in the program) overrides,
    // and weak hooks that the guard never calls while it is 0.
    Active->setLinkage(GlobalValue::WeakAnyLinkage);
    Active->setInitializer(ConstantInt::get(I32, 0));
    for (FunctionCallee FC : {Enter, Exit})
      if (auto *Fn = dyn_cast<Function>(FC.getCallee()))
        if (Fn->isDeclaration())
          Fn->setLinkage(GlobalValue::ExternalWeakLinkage);
  }
}

void Instrumenter::emit(FunctionCallee Hook, GlobalVariable *Site,
                        Instruction *P, const DebugLoc &DL) {
  IRBuilder<> B(P);
  B.SetCurrentDebugLocation(DL);
  if (Active) {
    Type *I32 = Type::getInt32Ty(M.getContext());
    Value *Act = B.CreateIsNotNull(B.CreateLoad(I32, Active, "sp.active"));
    // The site's id, which the runtime stores from any thread: a relaxed
    // atomic load (a plain move on every target).
    LoadInst *Id = B.CreateAlignedLoad(I32, Site, Align(4), "sp.id");
    Id->setAtomic(AtomicOrdering::Monotonic);
    Value *On = B.CreateAnd(
        Act, B.CreateICmpNE(Id, ConstantInt::getSigned(I32, SP_SITE_EXCLUDED)));
    Instruction *Then = SplitBlockAndInsertIfThen(
        On, P->getIterator(), /*Unreachable=*/false,
        MDBuilder(M.getContext()).createLikelyBranchWeights());
    Then->getParent()->setName("sp.on");
    B.SetInsertPoint(Then); // this also takes Then's location: reset it
    B.SetCurrentDebugLocation(DL);
  }
  B.CreateCall(Hook, {Site});
}

Constant *Instrumenter::str(StringRef S) {
  auto It = Strings.find(S);
  if (It != Strings.end())
    return It->second;
  Constant *Init = ConstantDataArray::getString(M.getContext(), S);
  auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, Init, ".sp.str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  Strings[S] = GV;
  return GV;
}

GlobalVariable *Instrumenter::makeSite(StringRef Symbol, StringRef Name,
                                       const SourceLoc &Loc) {
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C);
  Constant *File = Loc.File.empty()
                       ? ConstantPointerNull::get(PointerType::getUnqual(C))
                       : str(Loc.File);
  Constant *Init = ConstantStruct::get(
      SiteTy, {ConstantInt::getSigned(I32, SP_SITE_UNSEEN),
               ConstantInt::getSigned(I32, Loc.Line), str(Name), File});
  // Writable: the runtime caches the region id in the first field.
  auto *GV = new GlobalVariable(M, SiteTy, /*isConstant=*/false,
                                GlobalValue::PrivateLinkage, Init,
                                "sp.site." + Symbol);
  GV->setAlignment(Align(8));
  return GV;
}

Function *Instrumenter::personality() {
  // Itanium C++ ABI personality: the one Clang uses on Linux. Only called
  // for modules that are C++ already, so libstdc++/libc++abi is linked.
  LLVMContext &C = M.getContext();
  FunctionCallee P = M.getOrInsertFunction(
      "__gxx_personality_v0", FunctionType::get(Type::getInt32Ty(C), true));
  return dyn_cast<Function>(P.getCallee());
}

static bool mayThrowOut(const CallInst &CI, const Function *Enter,
                        const Function *Exit) {
  if (CI.doesNotThrow() || CI.isMustTailCall() || CI.isInlineAsm())
    return false;
  // Intrinsics cannot be invoked (bar a few statepoint-style ones).
  if (isa<IntrinsicInst>(CI))
    return false;
  const Function *Callee = CI.getCalledFunction();
  if (Callee && (Callee == Enter || Callee == Exit))
    return false;
  // Funclet-based EH (MSVC) is not handled; see docs/plugin.md.
  if (CI.countOperandBundlesOfType(LLVMContext::OB_funclet))
    return false;
  return true;
}

Instrumenter::Stats Instrumenter::instrument(Function &F, GlobalVariable *Site,
                                             bool WithEH) {
  Stats S;
  auto *EnterFn = dyn_cast<Function>(Enter.getCallee());
  auto *ExitFn = dyn_cast<Function>(Exit.getCallee());

  // Find the ways out before adding anything.
  SmallVector<Instruction *, 8> ExitPoints;
  for (BasicBlock &BB : F) {
    Instruction *T = BB.getTerminator();
    if (isa<ReturnInst>(T)) {
      // A musttail call must stay right before its ret: close the region
      // before the call (the callee's time is not ours anyway).
      if (CallInst *MT = BB.getTerminatingMustTailCall())
        ExitPoints.push_back(MT);
      else
        ExitPoints.push_back(T);
    } else if (isa<ResumeInst>(T)) {
      ExitPoints.push_back(T); // F's own cleanup lets an exception out
    }
  }
  SmallVector<CallInst *, 16> MayThrow;
  if (WithEH && !F.doesNotThrow()) {
    bool Scoped =
        F.hasPersonalityFn() &&
        isScopedEHPersonality(classifyEHPersonality(F.getPersonalityFn()));
    if (!Scoped)
      for (Instruction &I : instructions(F))
        if (auto *CI = dyn_cast<CallInst>(&I))
          if (mayThrowOut(*CI, EnterFn, ExitFn))
            MayThrow.push_back(CI);
  }

  // After the leading allocas: splitting the entry block for the
  // sp_active_ test must leave them in it, or SROA/mem2reg would not see
  // them as static.
  BasicBlock::iterator EntryPt = F.getEntryBlock().getFirstInsertionPt();
  while (isa<AllocaInst>(*EntryPt) || isa<DbgInfoIntrinsic>(*EntryPt))
    ++EntryPt;
  emit(Enter, Site, &*EntryPt, entryLoc(F));

  for (Instruction *P : ExitPoints) {
    emit(Exit, Site, P, exitLoc(F, P));
    ++S.Exits;
  }

  if (!MayThrow.empty()) {
    if (!F.hasPersonalityFn())
      F.setPersonalityFn(personality());
    LLVMContext &C = M.getContext();
    BasicBlock *Cleanup = BasicBlock::Create(C, "sp.cleanup", &F);
    IRBuilder<> B(Cleanup);
    B.SetCurrentDebugLocation(exitLoc(F, nullptr));
    Type *LPTy =
        StructType::get(C, {PointerType::getUnqual(C), Type::getInt32Ty(C)});
    LandingPadInst *LP = B.CreateLandingPad(LPTy, 0);
    LP->setCleanup(true);
    ResumeInst *R = B.CreateResume(LP);
    emit(Exit, Site, R, exitLoc(F, nullptr));
    for (CallInst *CI : MayThrow) {
      changeToInvokeAndSplitBasicBlock(CI, Cleanup);
      ++S.Invokes;
    }
  }
  return S;
}

void Instrumenter::replaceHook(CallBase &Hook, GlobalVariable *Site,
                               bool IsEnter) {
  emit(IsEnter ? Enter : Exit, Site, &Hook, Hook.getDebugLoc());
}

} // namespace scopeprof
