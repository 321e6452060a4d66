//===- AmpiPrivatizePass.cpp - Per-rank globals for flang code -----------===//
//
// An LLVM pass plugin, loaded with `flang-new -fpass-plugin=...` (ampif90 and
// ampif77 do it), that gives every AMPI rank its own copy of the program's
// mutable globals.  It runs first in the pipeline and
//
//   * makes thread-local (initial-exec; LLVM relaxes it to local-exec where
//     the variable is known to be in the executable) every mutable global
//     the module defines or declares that belongs to user code: Fortran
//     module variables, SAVEd and DATA-initialized variables, COMMON blocks,
//     BIND(C) variables;
//   * adds "indirect-tls-seg-refs" to every function it sees, so that each
//     TLS access reads the thread pointer from %fs:0, which the runtime
//     switches at every rank switch (tlsglobals/);
//   * gives each COMMON block a link-time size check (see addCommonCheck);
//   * re-creates, per rank, constants that hold the address of a privatized
//     variable (flang's NAMELIST descriptors): the address differs per rank,
//     so no static initializer can hold it (see Privatizer::addInitFn).
//
// Left shared: constants, globals in a section, globals that are already
// thread-local, LLVM's own (llvm.*), flang's compiler-generated objects
// (_QQ*: literals, read-only arrays, environment defaults; mangled names
// with a '.': type descriptions), the Fortran runtime's (_Fortran*), and
// the MPI library's (mpif.h's COMMON blocks /MPI_FORTRAN_.../ for
// MPI_BOTTOM and friends, which must stay the library's single copy: it
// recognizes them by address).
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

#define DEBUG_TYPE "ampi-privatize"

namespace {

constexpr const char *IndirectTLSAttr = "indirect-tls-seg-refs";

/// The user-facing name of a global, for diagnostics: flang mangles module
/// variables as _QM<module>E<name> and procedure-local SAVEd variables as
/// _QF<procedure>E<name>; COMMON /name/ is name_.
std::string describe(const GlobalVariable &GV) {
  StringRef Name = GV.getName();
  size_t E = Name.rfind('E');
  if (Name.starts_with("_QM") && E != StringRef::npos && E > 3)
    return ("variable '" + Name.substr(E + 1) + "' of module '" +
            Name.substr(3, E - 3) + "'")
        .str();
  if (Name.starts_with("_QF") && E != StringRef::npos && E > 3)
    return ("variable '" + Name.substr(E + 1) + "' of '" +
            Name.substr(3, E - 3) + "'")
        .str();
  return ("'" + Name + "'").str();
}

/// " (file:line)" from the debug information (-g), or nothing.
std::string where(const GlobalVariable &GV) {
  SmallVector<DIGlobalVariableExpression *, 1> Exprs;
  GV.getDebugInfo(Exprs);
  for (const DIGlobalVariableExpression *E : Exprs)
    if (const DIGlobalVariable *Var = E->getVariable())
      if (Var->getLine() != 0)
        return (" (" + Var->getFilename() + ":" + Twine(Var->getLine()) + ")")
            .str();
  return "";
}

/// Why a global stays shared between ranks, or an empty string when it is
/// user data to privatize.
StringRef sharedReason(const GlobalVariable &GV) {
  StringRef Name = GV.getName();
  if (GV.isThreadLocal())
    return "already thread-local";
  if (GV.isConstant())
    return "constant";
  if (GV.hasSection())
    return "in a section";
  if (Name.starts_with("llvm."))
    return "LLVM's own";
  if (Name.starts_with("_QQ"))
    return "compiler-generated";
  if (Name.starts_with("_Q") && Name.contains('.'))
    return "compiler-generated";
  if (Name.starts_with("_Fortran"))
    return "Fortran runtime's";
  if (Name.starts_with("mpi_fortran_"))
    return "MPI library's";
  return "";
}

/// Whether C refers to a global variable that Pred accepts, looking
/// through constant expressions and aggregates but not through other
/// globals.
bool refersTo(const Constant *C,
              function_ref<bool(const GlobalVariable *)> Pred) {
  if (auto *GV = dyn_cast<GlobalVariable>(C))
    return Pred(GV);
  if (isa<GlobalValue>(C))
    return false;
  for (const Use &Op : C->operands())
    if (refersTo(cast<Constant>(Op.get()), Pred))
      return true;
  return false;
}

/// A part of an initializer that refers to a privatized global: its place
/// (GEP indices into the global) and its value.
struct Fixup {
  SmallVector<unsigned, 4> Path;
  Constant *Value;
};

class Privatizer {
public:
  explicit Privatizer(Module &M) : M(M), Ctx(M.getContext()) {}
  bool run();

private:
  Module &M;
  LLVMContext &Ctx;
  SmallPtrSet<GlobalVariable *, 32> Private;
  SmallVector<GlobalVariable *, 32> Order; // Private, in module order
  SmallVector<GlobalVariable *, 8> NeedInit;
  /// GV.ampi.init for each of NeedInit, and where in it the calls to the
  /// init functions of the globals it refers to go (after its flag is set,
  /// so that globals referring to each other do not recurse).
  DenseMap<GlobalVariable *, Function *> InitFns;
  DenseMap<Function *, Instruction *> DepCallPoint;

  void collectAddressHolders();
  Constant *stripFixups(Constant *C, SmallVectorImpl<unsigned> &Path,
                        SmallVectorImpl<Fixup> &Fixups);
  void checkLazyInitOk(const GlobalVariable &GV);
  void addInitFn(GlobalVariable *GV);
  void callInitInUsers(GlobalVariable *GV);
  void addCommonCheck(GlobalVariable &GV);
  bool refersToPrivate(const Constant *C) const {
    return refersTo(
        C, [this](const GlobalVariable *GV) { return Private.contains(GV); });
  }
  /// Stops the compilation: flang-new ignores LLVMContext::diagnose
  /// errors, so the error is fatal here.
  [[noreturn]] void error(const Twine &Msg) {
    report_fatal_error("ampi-privatize: " + Msg, /*gen_crash_diag=*/false);
  }
};

/// Globals whose initializer holds the address of a privatized global must
/// be per rank too (the address differs per rank), and be filled in at run
/// time.  Repeats until no more join: an address of those is per rank too.
void Privatizer::collectAddressHolders() {
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (GlobalVariable &GV : M.globals()) {
      if (!GV.hasInitializer() || GV.hasSection() ||
          GV.getName().starts_with("llvm.") || GV.isThreadLocal() ||
          is_contained(NeedInit, &GV))
        continue;
      if (!refersToPrivate(GV.getInitializer()))
        continue;
      if (Private.insert(&GV).second)
        Order.push_back(&GV);
      NeedInit.push_back(&GV);
      Changed = true;
    }
  }
}

/// Returns C with every part that refers to a privatized global replaced
/// by zero, and records those parts in Fixups.
Constant *Privatizer::stripFixups(Constant *C, SmallVectorImpl<unsigned> &Path,
                                  SmallVectorImpl<Fixup> &Fixups) {
  if (!refersToPrivate(C))
    return C;
  if (!isa<ConstantAggregate>(C)) {
    Fixup Fix;
    Fix.Path.assign(Path.begin(), Path.end());
    Fix.Value = C;
    Fixups.push_back(std::move(Fix));
    return Constant::getNullValue(C->getType());
  }
  SmallVector<Constant *, 8> Elems;
  for (unsigned I = 0, N = C->getNumOperands(); I != N; ++I) {
    Path.push_back(I);
    Elems.push_back(stripFixups(C->getAggregateElement(I), Path, Fixups));
    Path.pop_back();
  }
  if (auto *ST = dyn_cast<StructType>(C->getType()))
    return ConstantStruct::get(ST, Elems);
  if (auto *AT = dyn_cast<ArrayType>(C->getType()))
    return ConstantArray::get(AT, Elems);
  return ConstantVector::get(Elems);
}

/// GV's initializer holds addresses of privatized globals.  Each rank
/// stores them into its copy before its first use of GV in this module:
/// every function that uses GV first calls GV.ampi.init, which runs once
/// per rank (a thread-local flag).  That covers every use only when the
/// uses are all in this module (local linkage) or every module that uses
/// GV also defines it (linkonce, as flang emits NAMELIST descriptors);
/// otherwise the program is rejected here rather than miscompiled.
void Privatizer::checkLazyInitOk(const GlobalVariable &GV) {
  if (GV.hasLocalLinkage() || GV.hasLinkOnceLinkage())
    return;
  const GlobalVariable *Target = nullptr;
  refersTo(GV.getInitializer(), [&](const GlobalVariable *Ref) {
    if (Private.contains(Ref))
      Target = Ref;
    return Target != nullptr;
  });
  error(describe(GV) + where(GV) + " is initialized with the address of " +
        describe(*Target) + ", which each rank has its own copy of; other " +
        "files cannot see that it must be set per rank.  Assign it at run " +
        "time instead (for a pointer: p => target), or build with " +
        "-privatize=none");
}

/// Moves the parts of GV's initializer that hold addresses of privatized
/// globals into GV.ampi.init:
///
///   if (!GV.ampi.ready) { GV.ampi.ready = true; <stores> }
void Privatizer::addInitFn(GlobalVariable *GV) {
  SmallVector<unsigned, 4> Path;
  SmallVector<Fixup, 4> Fixups;
  GV->setInitializer(stripFixups(GV->getInitializer(), Path, Fixups));
  GV->setConstant(false);

  auto *Ready = new GlobalVariable(
      M, Type::getInt1Ty(Ctx), false, GlobalValue::InternalLinkage,
      ConstantInt::getFalse(Ctx), GV->getName() + ".ampi.ready", nullptr,
      GlobalValue::InitialExecTLSModel);
  auto *Ty = FunctionType::get(Type::getVoidTy(Ctx), false);
  Function *F = Function::Create(Ty, GlobalValue::InternalLinkage,
                                 GV->getName() + ".ampi.init", M);
  F->addFnAttr(Attribute::NoUnwind);
  InitFns[GV] = F;

  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F);
  BasicBlock *Fill = BasicBlock::Create(Ctx, "fill", F);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", F);
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateLoad(B.getInt1Ty(), Ready), Done, Fill);
  B.SetInsertPoint(Fill);
  DepCallPoint[F] = B.CreateStore(B.getTrue(), Ready);
  for (const Fixup &Fix : Fixups) {
    SmallVector<Value *, 4> Idx{B.getInt32(0)};
    for (unsigned I : Fix.Path)
      Idx.push_back(B.getInt32(I));
    B.CreateStore(Fix.Value, B.CreateInBoundsGEP(GV->getValueType(), GV, Idx));
  }
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();
}

/// Calls GV.ampi.init at the start of every function that uses GV,
/// directly or through constant expressions (in another init function:
/// once its flag is set).
void Privatizer::callInitInUsers(GlobalVariable *GV) {
  Function *Init = InitFns.lookup(GV);
  SmallPtrSet<Function *, 8> Users;
  SmallVector<User *, 16> Work(GV->users());
  while (!Work.empty()) {
    User *U = Work.pop_back_val();
    if (auto *I = dyn_cast<Instruction>(U))
      Users.insert(I->getFunction());
    else if (isa<ConstantExpr>(U) || isa<ConstantAggregate>(U))
      Work.append(U->user_begin(), U->user_end());
  }
  for (Function *F : Users) {
    if (F == Init)
      continue;
    Instruction *At = DepCallPoint.lookup(F);
    if (At)
      At = At->getNextNode();
    else
      At = &*F->getEntryBlock().getFirstInsertionPt();
    IRBuilder<>(At).CreateCall(Init);
  }
}

/// A COMMON block is a weak definition in every file that uses it; once
/// thread-local, the linker keeps the first one it sees and, unlike for
/// ordinary common symbols, does not take the largest size.  Each file
/// therefore also defines a one-byte symbol in a COMDAT group whose name
/// carries the size: files that agree share one group, files that
/// disagree define the symbol twice, and the link fails naming the block.
void Privatizer::addCommonCheck(GlobalVariable &GV) {
  if (!Triple(M.getTargetTriple()).isOSBinFormatELF())
    return;
  uint64_t Size = M.getDataLayout().getTypeAllocSize(GV.getValueType());
  std::string Sym =
      ("ampi.COMMON." + GV.getName() + ".size_differs_between_files").str();
  Comdat *Group = M.getOrInsertComdat(
      ("ampi.COMMON." + GV.getName() + "." + Twine(Size)).str());
  auto *Check = new GlobalVariable(
      M, Type::getInt8Ty(Ctx), true, GlobalValue::ExternalLinkage,
      ConstantInt::get(Type::getInt8Ty(Ctx), 0), Sym);
  Check->setComdat(Group);
  Check->setVisibility(GlobalValue::HiddenVisibility);
}

bool Privatizer::run() {
  for (GlobalVariable &GV : M.globals()) {
    StringRef Reason = sharedReason(GV);
    LLVM_DEBUG(dbgs() << "ampi-privatize: " << GV.getName() << ": "
                      << (Reason.empty() ? "privatized" : Reason) << "\n");
    if (Reason.empty() && Private.insert(&GV).second)
      Order.push_back(&GV);
  }
  collectAddressHolders();
  if (Order.empty())
    return false;

  for (GlobalVariable *GV : Order) {
    GV->setThreadLocalMode(GlobalValue::InitialExecTLSModel);
    // Flang names COMMON /name/ name_ and gives it common linkage, or
    // external linkage where BLOCK DATA initializes it.
    bool IsCommon =
        GV->hasCommonLinkage() ||
        (GV->hasExternalLinkage() && !GV->isDeclaration() &&
         !GV->getName().starts_with("_Q") && GV->getName().ends_with("_"));
    if (IsCommon)
      addCommonCheck(*GV);
  }
  for (GlobalVariable *GV : NeedInit)
    checkLazyInitOk(*GV);
  for (GlobalVariable *GV : NeedInit)
    addInitFn(GV);
  for (GlobalVariable *GV : NeedInit)
    callInitInUsers(GV);
  // Uses of the addresses inside the new functions become instructions,
  // which the code generator handles for every TLS model.
  SmallVector<Constant *, 16> Consts(Order.begin(), Order.end());
  for (auto &Entry : InitFns)
    convertUsersOfConstantsToInstructions(Consts, Entry.second);
  return true;
}

bool markIndirectTLS(Module &M) {
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration() || F.hasFnAttribute(IndirectTLSAttr))
      continue;
    F.addFnAttr(IndirectTLSAttr);
    Changed = true;
  }
  return Changed;
}

struct AmpiPrivatizePass : PassInfoMixin<AmpiPrivatizePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    bool Changed = Privatizer(M).run();
    Changed |= markIndirectTLS(M);
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

/// Functions the optimizer creates later (outlined or cloned code) read
/// thread-locals too.
struct AmpiIndirectTLSPass : PassInfoMixin<AmpiIndirectTLSPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return markIndirectTLS(M) ? PreservedAnalyses::none()
                              : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(AmpiPrivatizePass());
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(AmpiIndirectTLSPass());
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "ampi-privatize")
          return false;
        MPM.addPass(AmpiPrivatizePass());
        return true;
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "AmpiPrivatize", "0.1", registerCallbacks};
}
