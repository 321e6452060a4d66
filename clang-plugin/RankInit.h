//===- RankInit.h - Per-rank initialization of address-taking initializers ===//
//
// In C, `int *p = &x;` is a constant initializer: the linker writes x's
// address into p.  Once x is privatized it has one address per rank, so no
// constant is right.  RankInit moves each such part of a static initializer
// into a function that assigns it (the static image keeps zero there), and
// adds a constructor that hands that function to the runtime:
//
//   void AMPI_Register_rank_init(void (*fn)(void));   // weak
//
// which runs fn in every rank, with the rank's own TLS block, before the
// rank's main.  When the runtime is absent (a plain process), the
// constructor calls fn directly.  C++ does not need this: its thread_local
// dynamic initialization already runs per rank.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_RANKINIT_H
#define AMPI_CLANG_PLUGIN_RANKINIT_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace ampi {

using VarPredicate = llvm::function_ref<bool(const clang::VarDecl *)>;

/// The first variable satisfying IsPrivatized whose address (rather than
/// value) Init uses where it is evaluated; nullptr if there is none.  Where
/// receives the expression naming it.
const clang::VarDecl *findAddressUse(const clang::Expr *Init,
                                     VarPredicate IsPrivatized,
                                     const clang::Expr **Where = nullptr);

/// The name of the runtime function that takes per-rank initializers.
constexpr const char *RegisterFunctionName = "AMPI_Register_rank_init";

class RankInit {
public:
  explicit RankInit(clang::ASTContext &Ctx) : Ctx(Ctx) {}

  struct Failure {
    const clang::Expr *Where = nullptr;
    const clang::VarDecl *Target = nullptr;
    llvm::StringRef What; // "a compound literal", ...
  };

  /// One step from a variable to the part of it an assignment writes.
  struct Step {
    clang::FieldDecl *Field; // Null: an array element.
    unsigned Index;
  };
  /// Var.Path = Value, run in each rank.
  struct Assignment {
    clang::VarDecl *Var;
    llvm::SmallVector<Step, 4> Path;
    clang::Expr *Value;
  };

  /// Moves the parts of VD's initializer that take the address of a
  /// privatized variable into the per-rank function, leaving zero in their
  /// place.  On failure nothing changes and F says why.  With Commit false
  /// the AST stays as it is: the assignments are only recorded, for an
  /// entry point that writes them out itself (the source rewriter).
  bool rewrite(clang::VarDecl *VD, VarPredicate IsPrivatized, Failure &F,
               bool Commit = true);

  bool empty() const { return Assignments.empty(); }
  llvm::ArrayRef<Assignment> assignments() const { return Assignments; }

  /// The per-rank function, the constructor that registers it and the
  /// declaration of the runtime function, for CodeGen to emit.  Only after
  /// rewrites with Commit true.
  std::vector<clang::Decl *> build();

private:
  struct ListRewrite;

  clang::Expr *designate(const Assignment &A, clang::SourceLocation Loc);
  clang::FunctionDecl *makeFunction(llvm::StringRef Name, clang::QualType Type,
                                    clang::StorageClass SC,
                                    clang::SourceLocation Loc);
  clang::Expr *functionPointer(clang::FunctionDecl *FD,
                               clang::SourceLocation Loc);
  clang::FunctionDecl *buildInitFunction(clang::SourceLocation Loc);
  clang::FunctionDecl *buildConstructor(clang::FunctionDecl *InitFn,
                                        clang::FunctionDecl *Register,
                                        clang::SourceLocation Loc);

  clang::ASTContext &Ctx;
  std::vector<Assignment> Assignments;
};

} // namespace ampi

#endif
