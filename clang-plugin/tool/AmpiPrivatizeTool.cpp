//===- AmpiPrivatizeTool.cpp - ampi-privatize, the source rewriter --------===//
//
//   ampi-privatize [options] <source> [-- <compiler flags>]
//   ampi-privatize -i [options] <source or header>... [-- <compiler flags>]
//
// Applies to the source text what the plugin does while compiling: it runs
// the same Privatizer over each source, without code generation, and
// inserts '_Thread_local' (C) or 'thread_local' (C++) into every declaration
// of each variable the plugin would privatize.  The rewritten source goes
// to standard output, or with -i back into the files, headers named among
// the inputs included.  Standard error says what was made thread-local and
// what stays shared (remarks), and what is left to do by hand (errors, with
// exit status 1); --report=FILE writes the plugin's JSON report.  Compiler
// flags come from a compilation database (-p DIR) or follow '--'.  See
// docs/privatization.md.
//
//===----------------------------------------------------------------------===//

#include "Diagnostics.h"
#include "Privatizer.h"
#include "Report.h"
#include "SharedPragma.h"
#include "SourceRewriter.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::tooling;
using namespace llvm;

namespace ampi {
namespace {

cl::OptionCategory Category("ampi-privatize options");

cl::opt<bool> InPlace("i",
                      cl::desc("Rewrite the inputs in place; without it, the "
                               "one source's rewritten text goes to standard "
                               "output"),
                      cl::cat(Category));
cl::opt<std::string>
    ReportPath("report",
               cl::desc("Write the JSON report to <file>, or to "
                        "<file>/<source>.privatize.json if it is a directory"),
               cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> Quiet("quiet",
                    cl::desc("Do not list each variable on standard error"),
                    cl::cat(Category));

cl::extrahelp CommonHelp(CommonOptionsParser::HelpMessage);
cl::extrahelp MoreHelp(R"(
Compiler flags are those of ampicc: -Wno-ampi-<group> turns a warning group
off, -privatize=... is ignored.

Inputs ending in .h, .hh, .hpp or .hxx are headers: they are not compiled on
their own, but the declarations in them are rewritten with those of the
sources that include them (only with -i).  A variable declared in a header
that is not among the inputs is left as it is, with an error.

Exit status: 0 when everything was rewritten, 1 when something needs
attention (the errors say what; the rest is rewritten all the same), or when
a source does not compile (nothing of it is rewritten).
)");

std::string groupList() {
  std::string Groups;
  for (const char *G : Diagnostics::groups())
    Groups += (Groups.empty() ? "" : ", ") + std::string(G);
  return Groups;
}

/// What all translation units share.
struct ToolState {
  RewriteScope Scope;
  EditSet Edits;
  std::vector<std::string> MainFiles; // Those that compiled.
};

/// One translation unit's privatizer and what it reports to.
struct Session {
  explicit Session(CompilerInstance &CI)
      : Facts(CompileFacts::of(CI)),
        Diags(CI.getDiagnostics(), CI.getSourceManager(), Rep),
        Pragmas(CI.getSourceManager()) {
    Facts.EmitsCode = false; // The AST stays as written.
  }

  CompileFacts Facts;
  Report Rep;
  Diagnostics Diags;
  SharedPragmas Pragmas;
  std::unique_ptr<Privatizer> Priv;
  std::string MainFile;
};

/// Feeds the privatizer as the plugin does, then turns its decision into
/// edits.
class RewriteConsumer : public ASTConsumer {
public:
  RewriteConsumer(std::shared_ptr<Session> S, ToolState &State)
      : S(std::move(S)), State(State) {}

  void Initialize(ASTContext &Ctx) override {
    S->Priv = std::make_unique<Privatizer>(Ctx, S->Facts, S->Diags, S->Pragmas,
                                           S->Rep);
  }

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    if (!S->Priv->isSystemOnly(DG))
      S->Priv->handleDeclGroup(DG);
    return true;
  }

  void HandleCXXStaticMemberVarInstantiation(VarDecl *VD) override {
    S->Priv->handleInstantiatedVariable(VD);
  }

  void CompleteTentativeDefinition(VarDecl *VD) override {
    S->Priv->handleTentativeDefinition(VD);
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    S->Priv->finish();
    // Errors of the compiler itself: the AST may be incomplete, so nothing
    // of this file is rewritten.
    bool Compiles =
        Ctx.getDiagnostics().getNumErrors() == S->Diags.errorCount();
    if (Compiles)
      State.MainFiles.push_back(
          rewriteSource(*S->Priv, Ctx, S->Diags, State.Scope, State.Edits));
    if (ReportPath.empty())
      return;
    std::string Error = S->Rep.write(ReportPath, S->MainFile);
    if (!Error.empty())
      S->Diags.emit(SourceLocation(), DiagKind::ReportFailed, {Error});
  }

private:
  std::shared_ptr<Session> S;
  ToolState &State;
};

class RewriteAction : public ASTFrontendAction {
public:
  explicit RewriteAction(ToolState &State) : State(State) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef InFile) override {
    auto S = std::make_shared<Session>(CI);
    S->MainFile = InFile.str();
    // -Wno-ampi-<group>, which ampicc hands to the plugin.
    for (StringRef Flag : CI.getDiagnosticOpts().Warnings)
      if (Flag.consume_front("no-") && Flag.starts_with("ampi-") &&
          !S->Diags.disableGroup(Flag))
        S->Diags.emit(SourceLocation(), DiagKind::RewriteUnknownGroup,
                      {("no-" + Flag).str(), groupList()});
    if (Quiet)
      S->Diags.disableRemarks();
    CI.getPreprocessor().AddPragmaHandler(
        new AmpiPragmaHandler(S->Pragmas, S->Diags, S));
    return std::make_unique<RewriteConsumer>(std::move(S), State);
  }

private:
  ToolState &State;
};

class RewriteActionFactory : public FrontendActionFactory {
public:
  explicit RewriteActionFactory(ToolState &State) : State(State) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<RewriteAction>(State);
  }

private:
  ToolState &State;
};

/// The wrapper's own options, which a compilation database written for
/// ampicc holds: -privatize... goes, -Wno-ampi-<group> stays for the
/// privatizer (clang, which does not know the group, is told to keep quiet).
ArgumentsAdjuster adjustWrapperOptions() {
  return [](const CommandLineArguments &Args, StringRef) {
    CommandLineArguments Kept;
    bool AmpiWarnings = false;
    for (const std::string &Arg : Args) {
      StringRef A(Arg);
      if (A.starts_with("-privatize") || A.starts_with("-Wampi-"))
        continue;
      AmpiWarnings |= A.starts_with("-Wno-ampi-");
      Kept.push_back(Arg);
    }
    if (AmpiWarnings && !Kept.empty())
      Kept.insert(Kept.begin() + 1, "-Wno-unknown-warning-option");
    return Kept;
  };
}

/// What ampicc adds to every compilation, and clang's builtin headers, which
/// a tool otherwise looks for beside itself.
ArgumentsAdjuster addCompilerDefaults(std::string IncludeDir) {
  return [IncludeDir](const CommandLineArguments &Args, StringRef) {
    CommandLineArguments Out = Args;
    if (!IncludeDir.empty())
      Out.push_back("-I" + IncludeDir);
    if (none_of(Args,
                [](StringRef A) { return A.starts_with("-resource-dir"); }))
      Out.push_back("-resource-dir=" AMPI_CLANG_RESOURCE_DIR);
    return Out;
  };
}

/// <prefix>/include (or the configured include directory of an installed
/// tree), found like the wrappers do from <prefix>/bin/ampi-privatize.
std::string ampiIncludeDir(const char *Argv0) {
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable(Argv0, &Anchor);
  SmallString<256> Prefix(sys::path::parent_path(sys::path::parent_path(Exe)));
  for (StringRef Dir : {AMPI_INSTALL_INCLUDEDIR, "include"}) {
    SmallString<256> Path(Prefix);
    sys::path::append(Path, Dir);
    if (sys::fs::is_directory(Path))
      return Path.str().str();
  }
  return "";
}

bool isHeader(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return is_contained({".h", ".hh", ".hpp", ".hxx"}, Ext);
}

int fail(const Twine &Message) {
  errs() << "ampi-privatize: error: " << Message << "\n";
  return 1;
}

/// Writes the edited files back, or the one source to standard output.
int writeOutput(const ToolState &State, ArrayRef<std::string> Sources) {
  if (!InPlace) {
    if (State.MainFiles.empty())
      return 1;
    outs() << State.Edits.apply(State.MainFiles.front());
    return 0;
  }
  int Status = 0;
  for (const std::string &Path : State.Edits.editedFiles()) {
    std::string Text = State.Edits.apply(Path);
    Error E = writeToOutput(Path, [&](raw_ostream &OS) {
      OS << Text;
      return Error::success();
    });
    if (E)
      Status = fail("cannot write '" + Path + "': " + toString(std::move(E)));
  }
  return Status;
}

int run(int Argc, const char **Argv) {
  auto Parser = CommonOptionsParser::create(
      Argc, Argv, Category, cl::OneOrMore,
      "ampi-privatize: makes the mutable globals and statics of C and C++ "
      "sources thread-local in the text, as ampicc -privatize=tls does while "
      "compiling\n");
  if (!Parser) {
    errs() << toString(Parser.takeError());
    return 1;
  }
  ToolState State;
  std::vector<std::string> Sources;
  for (const std::string &Input : Parser->getSourcePathList()) {
    if (!isHeader(Input)) {
      Sources.push_back(Input);
      continue;
    }
    SmallString<256> Real;
    if (sys::fs::real_path(Input, Real))
      return fail("cannot find header '" + Input + "'");
    State.Scope.Headers.insert(Real);
  }
  if (Sources.empty())
    return fail("no source file among the inputs");
  if (!InPlace && (Sources.size() != 1 || !State.Scope.Headers.empty()))
    return fail("without -i, give exactly one source file (and no header): "
                "its rewritten text goes to standard output");

  ClangTool Tool(Parser->getCompilations(), Sources);
  Tool.appendArgumentsAdjuster(getStripPluginsAdjuster());
  Tool.appendArgumentsAdjuster(adjustWrapperOptions());
  Tool.appendArgumentsAdjuster(addCompilerDefaults(ampiIncludeDir(Argv[0])));
  RewriteActionFactory Factory(State);
  int Status = Tool.run(&Factory);
  int Written = writeOutput(State, Sources);
  return Status != 0 ? 1 : Written;
}

} // namespace
} // namespace ampi

int main(int Argc, const char **Argv) { return ampi::run(Argc, Argv); }
