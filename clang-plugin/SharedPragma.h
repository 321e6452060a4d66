//===- SharedPragma.h - '#pragma ampi shared' -----------------------------===//
//
// '#pragma ampi shared' opts the next declaration out of privatization.  The
// handler only records where each pragma is; the AST walk then tells which
// declaration comes next, since the parser gives plugins no hook between
// a pragma and the declaration after it.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_SHAREDPRAGMA_H
#define AMPI_CLANG_PLUGIN_SHAREDPRAGMA_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/Pragma.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>
#include <vector>

namespace clang {
class Decl;
class SourceManager;
class VarDecl;
} // namespace clang

namespace ampi {

class Diagnostics;

/// Where the pragmas are and which declarations they mark.
class SharedPragmas {
public:
  explicit SharedPragmas(const clang::SourceManager &SM) : SM(SM) {}

  void add(clang::SourceLocation PragmaLoc) { Pending.push_back(PragmaLoc); }

  /// Called for each declaration the AST walk meets, in source order: the
  /// pending pragmas before it now mark it.
  void noteDeclaration(const clang::Decl *D);

  /// Whether VD is (part of) a declaration that follows a pragma.
  bool marks(const clang::VarDecl *VD);

  /// Warns about each pragma that marked no variable.
  void diagnoseUnused(Diagnostics &Diags);

private:
  clang::SourceLocation beginOf(const clang::Decl *D) const;

  const clang::SourceManager &SM;
  std::vector<clang::SourceLocation> Pending;
  // The start of a marked declaration -> its pragma.
  llvm::DenseMap<clang::SourceLocation, clang::SourceLocation> Marked;
  llvm::DenseSet<clang::SourceLocation> Used;
};

/// The handler for '#pragma ampi ...'.  KeepAlive owns Pragmas and Diags.
class AmpiPragmaHandler : public clang::PragmaHandler {
public:
  AmpiPragmaHandler(SharedPragmas &Pragmas, Diagnostics &Diags,
                    std::shared_ptr<void> KeepAlive)
      : PragmaHandler("ampi"), Pragmas(Pragmas), Diags(Diags),
        KeepAlive(std::move(KeepAlive)) {}

  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer Introducer,
                    clang::Token &FirstToken) override;

private:
  SharedPragmas &Pragmas;
  Diagnostics &Diags;
  std::shared_ptr<void> KeepAlive;
};

} // namespace ampi

#endif
