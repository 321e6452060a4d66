//===- Privatizer.cpp - Turning mutable globals into thread-locals --------===//

#include "Privatizer.h"
#include "Collector.h"
#include "Diagnostics.h"
#include "HiddenState.h"
#include "Report.h"
#include "SharedPragma.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace ampi {
namespace {

bool generatesCode(frontend::ActionKind Action) {
  switch (Action) {
  case frontend::EmitAssembly:
  case frontend::EmitBC:
  case frontend::EmitLLVM:
  case frontend::EmitLLVMOnly:
  case frontend::EmitCodeGenOnly:
  case frontend::EmitObj:
    return true;
  default:
    return false;
  }
}

/// T without const, also on array elements.
QualType withoutConst(QualType T, const ASTContext &Ctx) {
  Qualifiers Quals;
  QualType Bare = Ctx.getUnqualifiedArrayType(T, Quals);
  Quals.removeConst();
  return Ctx.getQualifiedType(Bare, Quals);
}

void addNote(std::vector<std::string> &Notes, std::string Note) {
  if (!is_contained(Notes, Note))
    Notes.push_back(std::move(Note));
}

/// The runtime's per-rank variable that a C library variable's declaration
/// is renamed to, or an empty string.
StringRef redirectOf(const VarDecl *VD, SkipReason Skip) {
  bool Library =
      Skip == SkipReason::SystemHeader || Skip == SkipReason::CLibrary;
  if (!Library || !VD->getIdentifier() ||
      !VD->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
      VD->getDefinition())
    return "";
  return perRankLibraryVariable(VD->getName());
}

/// A static data member of a class template specialization that this
/// translation unit neither defines nor uses: nothing is emitted for it.
bool isUnusedInstantiation(const VarDecl *VD, bool Referenced) {
  return isTemplateInstantiation(VD->getTemplateSpecializationKind()) &&
         !Referenced && !VD->getDefinition();
}

} // namespace

CompileFacts CompileFacts::of(const CompilerInstance &CI) {
  const LangOptions &LO = CI.getLangOpts();
  const CodeGenOptions &CG = CI.getCodeGenOpts();
  CompileFacts F;
  F.CPlusPlus = LO.CPlusPlus;
  F.Common = !LO.CPlusPlus && !CG.NoCommon;
  F.EmitsCode = generatesCode(CI.getFrontendOpts().ProgramAction);
  F.X86 = CI.getTarget().getTriple().isX86();
  F.IndirectTLS = CG.IndirectTlsSegRefs;
  CodeGenOptions::TLSModel Model = CG.getDefaultTLSModel();
  bool DynamicModel = Model == CodeGenOptions::GeneralDynamicTLSModel ||
                      Model == CodeGenOptions::LocalDynamicTLSModel;
  F.DynamicTLS = DynamicModel && LO.PICLevel != 0 && !LO.PIE;
  return F;
}

Privatizer::Privatizer(ASTContext &Ctx, const CompileFacts &Facts,
                       Diagnostics &Diags, SharedPragmas &Pragmas, Report &Rep)
    : Ctx(Ctx), SM(Ctx.getSourceManager()), Facts(Facts), Diags(Diags),
      Pragmas(Pragmas), Rep(Rep), PerRank(Ctx) {}

bool Privatizer::inUserCode(SourceLocation Loc) const {
  return Loc.isValid() && !SM.isInSystemHeader(SM.getExpansionLoc(Loc));
}

bool Privatizer::warnOnce(SourceLocation Loc) {
  return Warned.insert(SM.getExpansionLoc(Loc)).second;
}

Privatizer::VarState *Privatizer::stateOf(const VarDecl *VD) {
  auto It = Vars.find(VD->getCanonicalDecl());
  return It == Vars.end() ? nullptr : &It->second;
}

const Privatizer::VarState *Privatizer::stateOf(const VarDecl *VD) const {
  auto It = Vars.find(VD->getCanonicalDecl());
  return It == Vars.end() ? nullptr : &It->second;
}

bool Privatizer::isPrivatized(const VarDecl *VD) const {
  const VarState *S = stateOf(VD);
  return S && S->Skip == SkipReason::None;
}

bool Privatizer::isSystemOnly(DeclGroupRef DG) const {
  return all_of(
      DG, [&](const Decl *D) { return SM.isInSystemHeader(D->getLocation()); });
}

void Privatizer::walk(Decl *D, bool Sweep) { collect(D, *this, SM, Sweep); }

void Privatizer::handleDeclGroup(DeclGroupRef DG) {
  for (Decl *D : DG)
    walk(D, /*Sweep=*/false);
  analyzeNewDefinitions();
}

void Privatizer::handleInstantiatedVariable(VarDecl *VD) {
  walk(VD, /*Sweep=*/false);
  analyzeNewDefinitions();
}

void Privatizer::handleTentativeDefinition(VarDecl *VD) {
  noteVariable(VD);
  analyzeNewDefinitions();
  VarState *S = stateOf(VD);
  if (!S || S->Skip != SkipReason::None || !VD->isExternallyVisible())
    return;
  bool Common = (Facts.Common && !VD->hasAttr<NoCommonAttr>()) ||
                VD->hasAttr<CommonAttr>();
  if (!Common)
    return;
  // A common symbol cannot be thread-local; a weak definition merges the
  // same way across translation units.
  S->WeakCommon = true;
  if (Facts.EmitsCode)
    VD->addAttr(WeakAttr::CreateImplicit(Ctx));
  addNote(S->Notes, "tentative definition under -fcommon: emitted as a weak "
                    "thread-local definition, since a thread-local variable "
                    "cannot be a common symbol");
}

void Privatizer::noteDeclaration(Decl *D) { Pragmas.noteDeclaration(D); }

void Privatizer::noteVariable(VarDecl *VD) {
  if (!hasStaticStorage(VD) || VD->isInvalidDecl())
    return;
  VarDecl *Canonical = VD->getCanonicalDecl();
  auto [It, Inserted] = Vars.try_emplace(Canonical);
  VarState &S = It->second;
  if (Inserted) {
    S.Canonical = Canonical;
    S.Skip = classify(Canonical, SM,
                      [&](const VarDecl *R) { return Pragmas.marks(R); });
    S.Redirect = redirectOf(Canonical, S.Skip);
    bool Warn = S.Skip == SkipReason::Section || S.Skip == SkipReason::Binding;
    if (Warn && inUserCode(VD->getLocation()))
      Diags.emit(VD->getLocation(), DiagKind::Unprivatized,
                 {variableName(VD), skipReasonText(S.Skip)});
  }
  if (!SeenDecls.insert(VD).second)
    return;
  if (!Inserted)
    checkRedeclaration(S, VD);
  if (VD->hasInit())
    NewDefinitions.push_back(VD);
}

void Privatizer::checkRedeclaration(VarState &S, VarDecl *VD) {
  if (S.Skip != SkipReason::None)
    return;
  bool Attribute = hasSharedAttribute(VD);
  if (!Attribute && !Pragmas.marks(VD))
    return;
  std::string Name = variableName(VD);
  if (S.Referenced) {
    Diags.emit(VD->getLocation(), DiagKind::SharedAfterUse, {Name});
    return;
  }
  Diags.emit(VD->getLocation(), DiagKind::SharedRedeclared, {Name});
  Diags.emit(S.Canonical->getLocation(), DiagKind::NoteFirstDeclaration,
             {Name});
  S.Skip = Attribute ? SkipReason::Attribute : SkipReason::Pragma;
}

void Privatizer::noteUse(VarDecl *VD, SourceLocation Loc, bool FromCode) {
  if (!hasStaticStorage(VD) || VD->isInvalidDecl())
    return;
  noteVariable(VD);
  VarState *S = stateOf(VD);
  if (!FromCode || !S)
    return;
  S->Referenced = true;
  bool Library =
      S->Skip == SkipReason::SystemHeader || S->Skip == SkipReason::CLibrary;
  StringRef Advice =
      VD->getIdentifier() ? hiddenStateVariableAdvice(VD->getName()) : "";
  if (Library && !Advice.empty() && inUserCode(Loc) && warnOnce(Loc))
    Diags.emit(Loc, DiagKind::HiddenStateVar, {VD->getName(), Advice});
}

void Privatizer::noteCall(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return;
  StringRef Advice = hiddenStateCallAdvice(FD->getName());
  if (Advice.empty())
    return;
  bool Library = FD->getBuiltinID() != 0 ||
                 SM.isInSystemHeader(FD->getFirstDecl()->getLocation());
  bool Global = FD->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
                FD->isInStdNamespace();
  SourceLocation Loc = CE->getCallee()->getBeginLoc();
  if (Library && Global && inUserCode(Loc) && warnOnce(Loc))
    Diags.emit(Loc, DiagKind::HiddenStateCall, {FD->getName(), Advice});
}

void Privatizer::analyzeNewDefinitions() {
  std::vector<VarDecl *> Definitions;
  Definitions.swap(NewDefinitions);
  for (VarDecl *VD : Definitions)
    analyzeInitializer(VD);
}

void Privatizer::analyzeInitializer(VarDecl *VD) {
  VarState *S = stateOf(VD);
  if (!S || S->Skip == SkipReason::Templated ||
      S->Skip == SkipReason::ThreadLocal || S->Skip == SkipReason::SystemHeader)
    return;
  const Expr *Where = nullptr;
  const VarDecl *Target = findAddressUse(
      VD->getInit(), [&](const VarDecl *V) { return isPrivatized(V); }, &Where);
  if (Target) {
    std::string Name = variableName(VD), TargetName = variableName(Target);
    if (VD->isConstexpr()) {
      Diags.emit(Where->getExprLoc(), DiagKind::ConstexprAddress,
                 {Name, TargetName});
      return;
    }
    StringRef Reason = skipReasonText(S->Skip);
    if (S->Skip == SkipReason::Constant || S->Skip == SkipReason::Reference)
      if (!promote(*S, VD, Target))
        Reason = "a constant that code above already uses as one";
    if (S->Skip != SkipReason::None) {
      Diags.emit(Where->getExprLoc(), DiagKind::SharedTakesAddress,
                 {Name, Reason, TargetName});
      return;
    }
    if (Facts.CPlusPlus)
      S->DynamicInit = true;
    else
      initializePerRank(*S, VD, Target);
  }
  if (Facts.CPlusPlus && S->Skip == SkipReason::None)
    noteCXXInitialization(*S, VD);
}

bool Privatizer::promote(VarState &S, const VarDecl *Def,
                         const VarDecl *Target) {
  // Code that already uses the constant may have folded its value: in C++
  // Sema marks uses of a constant reference as such; in C only code before
  // this definition can have used it.
  bool FoldedUse =
      Facts.CPlusPlus ? S.Referenced : S.Referenced && Def != S.Canonical;
  if (FoldedUse)
    return false;
  S.Skip = SkipReason::None;
  // In C the object is written at rank start, so it must not be emitted
  // into read-only memory or have its reads folded.
  if (!Facts.CPlusPlus && Facts.EmitsCode)
    for (VarDecl *R : S.Canonical->redecls())
      R->setType(withoutConst(R->getType(), Ctx));
  addNote(S.Notes, "privatized although constant: its initializer takes the "
                   "address of privatized '" +
                       variableName(Target) + "'");
  return true;
}

void Privatizer::noteCXXInitialization(VarState &S, const VarDecl *Def) {
  if (S.DynamicInit || !Def->hasConstantInitialization())
    addNote(S.Notes, "dynamic initialization: runs in each rank on the "
                     "rank's first use (C++ thread_local semantics)");
  if (Def->needsDestruction(Ctx) != QualType::DK_none)
    addNote(S.Notes, "non-trivial destructor: each rank's copy is destroyed "
                     "when the rank ends (C++ thread_local semantics, "
                     "registered with __cxa_thread_atexit)");
}

void Privatizer::initializePerRank(VarState &S, VarDecl *VD,
                                   const VarDecl *Target) {
  RankInit::Failure F;
  auto IsPrivatized = [&](const VarDecl *V) { return isPrivatized(V); };
  if (!PerRank.rewrite(VD, IsPrivatized, F, /*Commit=*/Facts.EmitsCode)) {
    SourceLocation Loc = F.Where ? F.Where->getExprLoc() : VD->getLocation();
    Diags.emit(
        Loc, DiagKind::InitUnsupported,
        {variableName(VD), variableName(F.Target ? F.Target : Target), F.What});
    return;
  }
  addNote(S.Notes, std::string("initialized in each rank before main (") +
                       RegisterFunctionName +
                       "): its initializer takes the address of privatized '" +
                       variableName(Target) + "'");
}

void Privatizer::convert() {
  // Without code generation (-fsyntax-only, a precompiled header) the AST
  // stays as written: the diagnostics and the report need no change.
  if (Converted || !Facts.EmitsCode)
    return;
  ThreadStorageClassSpecifier TSC =
      Facts.CPlusPlus ? TSCS_thread_local : TSCS__Thread_local;
  for (auto &Entry : Vars) {
    VarState &S = Entry.second;
    if (!S.Redirect.empty())
      redirect(S);
    if (S.Skip != SkipReason::None)
      continue;
    for (VarDecl *R : S.Canonical->redecls()) {
      R->setTSCSpec(TSC);
      // Forget the constant Sema computed from the address of a variable
      // that was not thread-local then; CodeGen now initializes it at run
      // time, in each thread (rank).
      if (S.DynamicInit && R->getInit())
        R->setInit(R->getInit());
    }
  }
  Converted = true;
}

void Privatizer::redirect(VarState &S) {
  for (VarDecl *R : S.Canonical->redecls()) {
    R->setTSCSpec(TSCS___thread);
    if (!R->hasAttr<AsmLabelAttr>())
      R->addAttr(AsmLabelAttr::CreateImplicit(Ctx, S.Redirect,
                                              /*LiteralLabel=*/true));
  }
}

void Privatizer::restore() {
  if (!Converted || Finished)
    return;
  for (auto &Entry : Vars) {
    VarState &S = Entry.second;
    if (S.Skip == SkipReason::None || !S.Redirect.empty())
      for (VarDecl *R : S.Canonical->redecls())
        R->setTSCSpec(TSCS_unspecified);
  }
  Converted = false;
}

void Privatizer::checkCodeGenOptions() {
  if (!Facts.EmitsCode || !Facts.X86)
    return;
  auto First = find_if(Vars, [](const auto &Entry) {
    return Entry.second.Skip == SkipReason::None ||
           (!Entry.second.Redirect.empty() && Entry.second.Referenced);
  });
  if (First == Vars.end())
    return;
  SourceLocation Loc =
      reportedDeclaration(First->second.Canonical)->getLocation();
  if (!Facts.IndirectTLS)
    Diags.emit(Loc, DiagKind::NeedIndirectTLS);
  if (Facts.DynamicTLS)
    Diags.emit(Loc, DiagKind::NeedExecTLSModel);
}

bool Privatizer::isReported(const VarState &S) const {
  return S.Skip != SkipReason::Templated &&
         (S.Skip != SkipReason::SystemHeader || S.Referenced) &&
         !S.Canonical->isImplicit() &&
         !isUnusedInstantiation(S.Canonical, S.Referenced);
}

std::vector<Privatizer::Outcome> Privatizer::outcomes() const {
  std::vector<Outcome> All;
  for (const auto &Entry : Vars) {
    const VarState &S = Entry.second;
    All.push_back({S.Canonical, S.Skip, isReported(S), S.WeakCommon});
  }
  return All;
}

void Privatizer::fillReport() {
  for (auto &Entry : Vars) {
    const VarState &S = Entry.second;
    if (!isReported(S))
      continue;
    const VarDecl *D = reportedDeclaration(S.Canonical);
    Report::Variable V{variableName(D), variableKind(D).str(),
                       Position::of(SM, D->getLocation()), "", S.Notes};
    if (!S.Redirect.empty())
      V.Notes.push_back("the C library's variable: each rank uses its own, "
                        "the runtime's '" +
                        S.Redirect.str() + "'");
    if (S.Skip == SkipReason::None || !S.Redirect.empty()) {
      Rep.addPrivatized(std::move(V));
    } else {
      V.Reason = skipReasonText(S.Skip).str();
      Rep.addSkipped(std::move(V));
    }
  }
}

std::vector<Decl *> Privatizer::finish() {
  walk(Ctx.getTranslationUnitDecl(), /*Sweep=*/true);
  analyzeNewDefinitions();
  Pragmas.diagnoseUnused(Diags);
  checkCodeGenOptions();
  restore();
  convert();
  Finished = true;
  std::vector<Decl *> Extra;
  if (!Facts.CPlusPlus && Facts.EmitsCode)
    Extra = PerRank.build();
  fillReport();
  return Extra;
}

} // namespace ampi
