//===- AmpiPrivatize.cpp - The ampi-privatize Clang plugin ----------------===//
//
// Loaded with -fplugin=AmpiPrivatize.so, it makes every mutable global and
// static of the program thread-local, so that the AMPI runtime, which gives
// each rank its own TLS block, gives each rank its own copy.  See
// docs/privatization.md.
//
// Two actions are registered.  "ampi-privatize" runs before CodeGen and
// converts; "ampi-privatize-restore" runs after CodeGen and undoes the
// conversion until the next declaration (Privatizer.h says why).
//
// Arguments: -fplugin-arg-ampi-privatize-<arg> (the driver passes these as
// "privatize-<arg>" to a plugin called "ampi") or
// -Xclang -plugin-arg-ampi-privatize -Xclang <arg>:
//   report=FILE      write the JSON report to FILE (or into directory FILE)
//   Wno-<group>      turn off a warning group, e.g. Wno-ampi-hidden-state
//
//===----------------------------------------------------------------------===//

#include "Diagnostics.h"
#include "Privatizer.h"
#include "Report.h"
#include "SharedPragma.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"

using namespace clang;
using namespace llvm;

namespace ampi {
namespace {

/// Everything one compilation's plugin state holds.
struct Session {
  explicit Session(CompilerInstance &CI)
      : Facts(CompileFacts::of(CI)),
        Diags(CI.getDiagnostics(), CI.getSourceManager(), Rep),
        Pragmas(CI.getSourceManager()) {}

  CompileFacts Facts;
  Report Rep;
  Diagnostics Diags;
  SharedPragmas Pragmas;
  std::unique_ptr<Privatizer> Priv;
  std::string ReportPath;
  std::string MainFile;
};

/// The session of the compilation in progress, for the restoring consumer.
/// The compiler runs one compilation at a time in a process.
Session *Current = nullptr;

class PrivatizeConsumer : public SemaConsumer {
public:
  explicit PrivatizeConsumer(std::shared_ptr<Session> S) : S(std::move(S)) {
    Current = this->S.get();
  }
  ~PrivatizeConsumer() override {
    if (Current == S.get())
      Current = nullptr;
  }

  void Initialize(ASTContext &Ctx) override {
    S->Priv = std::make_unique<Privatizer>(Ctx, S->Facts, S->Diags, S->Pragmas,
                                           S->Rep);
  }
  void InitializeSema(Sema &Sm) override { TheSema = &Sm; }
  void ForgetSema() override { TheSema = nullptr; }

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    Privatizer &P = *S->Priv;
    if (P.finished() || P.isSystemOnly(DG))
      return true;
    P.handleDeclGroup(DG);
    P.convert();
    return true;
  }

  void HandleCXXStaticMemberVarInstantiation(VarDecl *VD) override {
    if (S->Priv->finished())
      return;
    S->Priv->handleInstantiatedVariable(VD);
    S->Priv->convert();
  }

  void CompleteTentativeDefinition(VarDecl *VD) override {
    S->Priv->handleTentativeDefinition(VD);
    S->Priv->convert();
  }

  void CompleteExternalDeclaration(DeclaratorDecl *) override {
    S->Priv->convert();
  }

  void HandleVTable(CXXRecordDecl *) override { S->Priv->convert(); }

  void HandleTranslationUnit(ASTContext &) override {
    std::vector<Decl *> Extra = S->Priv->finish();
    // CodeGen runs after this consumer; hand it what was synthesized.
    if (TheSema)
      for (Decl *D : Extra)
        TheSema->getASTConsumer().HandleTopLevelDecl(DeclGroupRef(D));
    if (S->ReportPath.empty())
      return;
    std::string Error = S->Rep.write(S->ReportPath, S->MainFile);
    if (!Error.empty())
      S->Diags.emit(SourceLocation(), DiagKind::ReportFailed, {Error});
  }

private:
  std::shared_ptr<Session> S;
  Sema *TheSema = nullptr;
};

/// Runs after CodeGen: makes the variables look as declared again, so that
/// Sema accepts the declarations still to come.
class RestoreConsumer : public ASTConsumer {
  static void restore() {
    if (Current && Current->Priv)
      Current->Priv->restore();
  }

public:
  bool HandleTopLevelDecl(DeclGroupRef) override {
    restore();
    return true;
  }
  void HandleCXXStaticMemberVarInstantiation(VarDecl *) override { restore(); }
  void CompleteTentativeDefinition(VarDecl *) override { restore(); }
  void CompleteExternalDeclaration(DeclaratorDecl *) override { restore(); }
  void HandleVTable(CXXRecordDecl *) override { restore(); }
};

class PrivatizeAction : public PluginASTAction {
protected:
  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Given) override {
    Args = Given;
    // -fplugin-arg-ampi-privatize-X reaches us as "privatize-X" for "ampi".
    const auto &All = CI.getFrontendOpts().PluginArgs;
    auto It = All.find("ampi");
    if (It != All.end())
      for (StringRef Arg : It->second)
        if (Arg.consume_front("privatize-"))
          Args.push_back(Arg.str());
    return true;
  }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef InFile) override {
    // Privatized variables are per rank only when every access loads the
    // thread pointer from %fs:0, which the runtime switches: what
    // -mno-tls-direct-seg-refs asks for.  The plugin asks for it itself,
    // so that flags which lose it on the way (CMake's FindMPI keeps only
    // the -f, -D and -I flags of a wrapper) still give per-rank globals.
    if (CI.getTarget().getTriple().isX86())
      CI.getCodeGenOpts().IndirectTlsSegRefs = 1;
    auto S = std::make_shared<Session>(CI);
    S->MainFile = InFile.str();
    for (StringRef Arg : Args)
      applyArg(*S, Arg);
    CI.getPreprocessor().AddPragmaHandler(
        new AmpiPragmaHandler(S->Pragmas, S->Diags, S));
    return std::make_unique<PrivatizeConsumer>(std::move(S));
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  static void applyArg(Session &S, StringRef Arg) {
    if (Arg.consume_front("report=")) {
      S.ReportPath = Arg.str();
      return;
    }
    if (Arg.starts_with("Wno-") && S.Diags.disableGroup(Arg.drop_front(4)))
      return;
    std::string Groups;
    for (const char *G : Diagnostics::groups())
      Groups += (Groups.empty() ? "" : ", ") + std::string(G);
    S.Diags.emit(SourceLocation(), DiagKind::BadPluginArg, {Arg, Groups});
  }

  std::vector<std::string> Args;
};

class RestoreAction : public PluginASTAction {
protected:
  bool ParseArgs(const CompilerInstance &,
                 const std::vector<std::string> &) override {
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<RestoreConsumer>();
  }
  ActionType getActionType() override { return AddAfterMainAction; }
};

} // namespace
} // namespace ampi

static FrontendPluginRegistry::Add<ampi::PrivatizeAction>
    Privatize("ampi-privatize",
              "make mutable globals and statics thread-local, one copy per "
              "AMPI rank");
static FrontendPluginRegistry::Add<ampi::RestoreAction>
    Restore("ampi-privatize-restore",
            "part of ampi-privatize; runs after code generation");
