//===- Collector.cpp - The AST walk that finds variables and calls --------===//

#include "Collector.h"
#include "Privatizer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace ampi {
namespace {

class Collector : public RecursiveASTVisitor<Collector> {
  using Base = RecursiveASTVisitor<Collector>;

public:
  Collector(Privatizer &P, const SourceManager &SM, bool Sweep)
      : P(P), SM(SM), Sweep(Sweep) {}

  bool shouldVisitTemplateInstantiations() const { return Sweep; }

  // The C library's and the C++ library's declarations hold none of the
  // program's variables.
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        SM.isInSystemHeader(D->getLocation()))
      return true;
    return Base::TraverseDecl(D);
  }

  bool VisitDecl(Decl *D) {
    if (!Sweep && !D->isImplicit())
      P.noteDeclaration(D);
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    P.noteVariable(VD);
    return true;
  }

  // A structured binding to a tuple-like object is a hidden reference
  // variable bound to the decomposed object: it must follow that object.
  bool VisitBindingDecl(BindingDecl *BD) {
    if (VarDecl *Holding = BD->getHoldingVar())
      P.noteVariable(Holding);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *VD = dyn_cast<VarDecl>(E->getDecl()))
      P.noteUse(VD, E->getLocation(), !Sweep);
    return true;
  }

  bool VisitMemberExpr(MemberExpr *E) {
    if (auto *VD = dyn_cast<VarDecl>(E->getMemberDecl()))
      P.noteUse(VD, E->getMemberLoc(), !Sweep);
    return true;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (!Sweep)
      P.noteCall(E);
    return true;
  }

private:
  Privatizer &P;
  const SourceManager &SM;
  bool Sweep;
};

} // namespace

void collect(Decl *D, Privatizer &P, const SourceManager &SM, bool Sweep) {
  Collector(P, SM, Sweep).TraverseDecl(D);
}

} // namespace ampi
