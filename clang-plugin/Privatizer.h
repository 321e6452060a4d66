//===- Privatizer.h - Turning mutable globals into thread-locals ----------===//
//
// The transformation itself, which every entry point calls.  The source
// rewriter (tool/) runs it without code generation, which leaves the AST as
// written, and applies outcomes() to the text.
//
// Clang's CodeGen reads a variable's thread-local kind each time it emits a
// definition of it or an access to it, and it emits as it goes: after each
// top-level declaration.  Sema, meanwhile, checks every redeclaration against
// the earlier ones, and rejects `int x;` after a thread-local `extern int x;`.
// So the privatized variables are thread-local only while CodeGen runs:
// convert() before CodeGen sees a declaration, restore() right after (the
// plugin registers a second consumer behind CodeGen for that), and for good
// at the end of the translation unit, when CodeGen emits what it deferred.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_PRIVATIZER_H
#define AMPI_CLANG_PLUGIN_PRIVATIZER_H

#include "Policy.h"
#include "RankInit.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclGroup.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
class SourceManager;
} // namespace clang

namespace ampi {

class Diagnostics;
class Report;
class SharedPragmas;

/// What the privatizer needs to know about the compilation.
struct CompileFacts {
  bool CPlusPlus = false;
  bool Common = false;      // -fcommon: tentative definitions become common.
  bool EmitsCode = false;   // The main action generates code; only then is
                            // the AST changed.
  bool X86 = false;         // TLS is reached through %fs (or %gs).
  bool IndirectTLS = false; // -mno-tls-direct-seg-refs.
  bool DynamicTLS = false;  // A shared object with a dynamic TLS model.

  static CompileFacts of(const clang::CompilerInstance &CI);
};

class Privatizer {
public:
  Privatizer(clang::ASTContext &Ctx, const CompileFacts &Facts,
             Diagnostics &Diags, SharedPragmas &Pragmas, Report &Rep);

  /// Entry points, one per consumer callback after which CodeGen may emit.
  void handleDeclGroup(clang::DeclGroupRef DG);
  void handleInstantiatedVariable(clang::VarDecl *VD);
  void handleTentativeDefinition(clang::VarDecl *VD);

  /// Whether the group holds only system-header declarations, for which
  /// nothing is walked or converted.
  bool isSystemOnly(clang::DeclGroupRef DG) const;

  void convert();
  void restore();

  /// The end of the translation unit: a last walk over everything, the
  /// final conversion and the report.  Returns declarations (the per-rank
  /// initialization of C) that CodeGen must still emit.
  std::vector<clang::Decl *> finish();
  bool finished() const { return Finished; }

  /// What finish() decided about one variable, for an entry point that
  /// applies the decision itself (the source rewriter).
  struct Outcome {
    const clang::VarDecl *Canonical;
    SkipReason Skip;
    bool Reported;   // Listed in the report.
    bool WeakCommon; // A tentative definition under -fcommon: made weak.
  };
  std::vector<Outcome> outcomes() const;
  bool isPrivatized(const clang::VarDecl *VD) const;
  /// C: the parts of initializers to assign in each rank (RankInit.h).
  llvm::ArrayRef<RankInit::Assignment> perRankAssignments() const {
    return PerRank.assignments();
  }
  const CompileFacts &facts() const { return Facts; }

  /// Called by the AST walk.
  void noteDeclaration(clang::Decl *D);
  void noteVariable(clang::VarDecl *VD);
  void noteUse(clang::VarDecl *VD, clang::SourceLocation Loc, bool FromCode);
  void noteCall(const clang::CallExpr *CE);

private:
  struct VarState {
    clang::VarDecl *Canonical = nullptr;
    SkipReason Skip = SkipReason::None;
    bool Referenced = false;  // Code already uses it.
    bool DynamicInit = false; // C++: initialized per rank at run time.
    bool WeakCommon = false;  // -fcommon tentative definition: made weak.
    llvm::StringRef Redirect; // The runtime's per-rank variable it becomes.
    std::vector<std::string> Notes;
  };

  VarState *stateOf(const clang::VarDecl *VD);
  const VarState *stateOf(const clang::VarDecl *VD) const;
  bool isReported(const VarState &S) const;
  void walk(clang::Decl *D, bool Sweep);
  void checkRedeclaration(VarState &S, clang::VarDecl *VD);
  void analyzeNewDefinitions();
  void analyzeInitializer(clang::VarDecl *VD);
  bool promote(VarState &S, const clang::VarDecl *Def,
               const clang::VarDecl *Target);
  void noteCXXInitialization(VarState &S, const clang::VarDecl *Def);
  void initializePerRank(VarState &S, clang::VarDecl *VD,
                         const clang::VarDecl *Target);
  void checkCodeGenOptions();
  void redirect(VarState &S);
  void fillReport();
  bool inUserCode(clang::SourceLocation Loc) const;
  bool warnOnce(clang::SourceLocation Loc);

  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  CompileFacts Facts;
  Diagnostics &Diags;
  SharedPragmas &Pragmas;
  Report &Rep;
  RankInit PerRank;

  llvm::MapVector<const clang::VarDecl *, VarState> Vars; // By canonical decl.
  llvm::DenseSet<const clang::VarDecl *> SeenDecls;
  std::vector<clang::VarDecl *> NewDefinitions;
  llvm::DenseSet<clang::SourceLocation> Warned;
  bool Converted = false;
  bool Finished = false;
};

} // namespace ampi

#endif
