//===- RankInit.cpp - Per-rank initialization of address-taking initializers =//

#include "RankInit.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"

using namespace clang;
using namespace llvm;

namespace ampi {
namespace {

/// The variable that E names, alone or through members and elements (s.f,
/// a[i]), or null.
const VarDecl *namedVariable(const Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return nullptr;
      E = ME->getBase();
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      const auto *Decay = dyn_cast<ImplicitCastExpr>(AS->getBase());
      if (!Decay || Decay->getCastKind() != CK_ArrayToPointerDecay)
        return nullptr;
      E = Decay->getSubExpr();
    } else {
      return nullptr;
    }
  }
}

/// Whether the rvalue conversion Cast reads a mutable variable: a value
/// known only at run time, never folded to a constant, so not an address.
bool readsMutableVariable(const ImplicitCastExpr *Cast) {
  if (Cast->getCastKind() != CK_LValueToRValue)
    return false;
  const VarDecl *VD = namedVariable(Cast->getSubExpr());
  return VD && !VD->getType().isConstQualified();
}

class AddressFinder : public RecursiveASTVisitor<AddressFinder> {
  using Base = RecursiveASTVisitor<AddressFinder>;

public:
  explicit AddressFinder(VarPredicate IsPrivatized)
      : IsPrivatized(IsPrivatized) {}

  const VarDecl *Found = nullptr;
  const Expr *Where = nullptr;

  // Unevaluated operands take no address at run time.
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) {
    return true;
  }
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr *) { return true; }
  bool TraverseImplicitCastExpr(ImplicitCastExpr *E) {
    if (readsMutableVariable(E))
      return true;
    return Base::TraverseImplicitCastExpr(E);
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) { return check(E->getDecl(), E); }
  bool VisitMemberExpr(MemberExpr *E) { return check(E->getMemberDecl(), E); }

private:
  bool check(ValueDecl *D, Expr *E) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD || !IsPrivatized(VD))
      return true;
    Found = VD;
    Where = E;
    return false;
  }

  VarPredicate IsPrivatized;
};

/// Whether E holds a compound literal: moved into a function, its object
/// would become automatic, and the pointer to it would dangle.
bool hasCompoundLiteral(const Expr *E) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitCompoundLiteralExpr(CompoundLiteralExpr *) {
      Found = true;
      return false;
    }
  } F;
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

} // namespace

const VarDecl *findAddressUse(const Expr *Init, VarPredicate IsPrivatized,
                              const Expr **Where) {
  if (!Init)
    return nullptr;
  AddressFinder Finder(IsPrivatized);
  Finder.TraverseStmt(const_cast<Expr *>(Init));
  if (Where)
    *Where = Finder.Where;
  return Finder.Found;
}

/// Collects the moves for one initializer; nothing changes until commit().
struct RankInit::ListRewrite {
  ASTContext &Ctx;
  VarDecl *Var;
  VarPredicate IsPrivatized;
  Failure &F;
  std::vector<Assignment> Moves;
  std::vector<std::pair<InitListExpr *, unsigned>> Holes;

  bool fail(const Expr *E, StringRef What) {
    F.Where = E;
    F.Target = findAddressUse(E, IsPrivatized);
    F.What = What;
    return false;
  }

  bool element(InitListExpr *ILE, unsigned I, SmallVector<Step, 4> Path) {
    Expr *E = ILE->getInit(I);
    if (!findAddressUse(E, IsPrivatized))
      return true;
    if (auto *Sub = dyn_cast<InitListExpr>(E))
      return list(Sub, std::move(Path));
    if (!E->getType()->isScalarType())
      return fail(E, "an aggregate that is not a braced list");
    if (hasCompoundLiteral(E))
      return fail(E, "a compound literal");
    Holes.push_back({ILE, I});
    Moves.push_back({Var, std::move(Path), E});
    return true;
  }

  bool record(InitListExpr *ILE, RecordDecl *RD,
              const SmallVector<Step, 4> &Path) {
    if (RD->isUnion()) {
      FieldDecl *Field = ILE->getInitializedFieldInUnion();
      if (!Field || ILE->getNumInits() == 0)
        return true;
      auto Sub = Path;
      Sub.push_back({Field, 0});
      return element(ILE, 0, std::move(Sub));
    }
    unsigned I = 0;
    for (FieldDecl *Field : RD->fields()) {
      if (Field->isUnnamedBitField())
        continue;
      if (I == ILE->getNumInits())
        break;
      auto Sub = Path;
      Sub.push_back({Field, I});
      if (!element(ILE, I++, std::move(Sub)))
        return false;
    }
    return true;
  }

  bool list(InitListExpr *ILE, SmallVector<Step, 4> Path) {
    QualType T = ILE->getType();
    if (ILE->hasArrayFiller() &&
        findAddressUse(ILE->getArrayFiller(), IsPrivatized))
      return fail(ILE->getArrayFiller(), "an array filler");
    if (T->isScalarType())
      return ILE->getNumInits() == 0 || element(ILE, 0, std::move(Path));
    if (const auto *RT = T->getAs<RecordType>())
      return record(ILE, RT->getDecl(), Path);
    if (!Ctx.getAsArrayType(T))
      return fail(ILE, "an initializer list of this type");
    for (unsigned I = 0, N = ILE->getNumInits(); I != N; ++I) {
      auto Sub = Path;
      Sub.push_back({nullptr, I});
      if (!element(ILE, I, std::move(Sub)))
        return false;
    }
    return true;
  }

  void record(std::vector<Assignment> &Into) {
    for (Assignment &A : Moves)
      Into.push_back(std::move(A));
  }

  void fillHoles() {
    for (auto [ILE, I] : Holes)
      ILE->setInit(I,
                   new (Ctx) ImplicitValueInitExpr(ILE->getInit(I)->getType()));
  }
};

bool RankInit::rewrite(VarDecl *VD, VarPredicate IsPrivatized, Failure &F,
                       bool Commit) {
  Expr *Init = VD->getInit();
  if (!findAddressUse(Init, IsPrivatized))
    return true;
  if (auto *ILE = dyn_cast<InitListExpr>(Init)) {
    ListRewrite LR{Ctx, VD, IsPrivatized, F, {}, {}};
    if (!LR.list(ILE, {}))
      return false;
    LR.record(Assignments);
    if (!Commit)
      return true;
    LR.fillHoles();
    VD->setInit(ILE); // Drops any value Sema computed for the old contents.
    return true;
  }
  StringRef Problem;
  if (!Init->getType()->isScalarType())
    Problem = "an aggregate that is not a braced list";
  else if (hasCompoundLiteral(Init))
    Problem = "a compound literal";
  if (!Problem.empty()) {
    F = {Init, findAddressUse(Init, IsPrivatized), Problem};
    return false;
  }
  Assignments.push_back({VD, {}, Init});
  if (!Commit)
    return true;
  VD->setInit(new (Ctx) ImplicitValueInitExpr(VD->getType()));
  return true;
}

Expr *RankInit::designate(const Assignment &A, SourceLocation Loc) {
  Expr *E = DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(), SourceLocation(),
                                A.Var, false, Loc, A.Var->getType(), VK_LValue);
  for (const Step &S : A.Path) {
    if (S.Field) {
      E = MemberExpr::CreateImplicit(
          Ctx, E, /*IsArrow=*/false, S.Field, S.Field->getType(), VK_LValue,
          S.Field->isBitField() ? OK_BitField : OK_Ordinary);
      continue;
    }
    QualType Element = Ctx.getAsArrayType(E->getType())->getElementType();
    Expr *Decayed = ImplicitCastExpr::Create(
        Ctx, Ctx.getArrayDecayedType(E->getType()), CK_ArrayToPointerDecay, E,
        nullptr, VK_PRValue, FPOptionsOverride());
    QualType SizeT = Ctx.getSizeType();
    Expr *Index = IntegerLiteral::Create(
        Ctx, APInt(Ctx.getTypeSize(SizeT), S.Index), SizeT, Loc);
    E = new (Ctx) ArraySubscriptExpr(Decayed, Index, Element, VK_LValue,
                                     OK_Ordinary, Loc);
  }
  return E;
}

FunctionDecl *RankInit::makeFunction(StringRef Name, QualType Type,
                                     StorageClass SC, SourceLocation Loc) {
  TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
  auto *FD =
      FunctionDecl::Create(Ctx, TU, Loc, Loc, &Ctx.Idents.get(Name), Type,
                           Ctx.getTrivialTypeSourceInfo(Type, Loc), SC);
  FD->setImplicit();
  SmallVector<ParmVarDecl *, 1> Params;
  for (QualType P : Type->castAs<FunctionProtoType>()->param_types())
    Params.push_back(ParmVarDecl::Create(Ctx, FD, Loc, Loc, nullptr, P,
                                         Ctx.getTrivialTypeSourceInfo(P, Loc),
                                         SC_None, nullptr));
  FD->setParams(Params);
  TU->addDecl(FD);
  return FD;
}

Expr *RankInit::functionPointer(FunctionDecl *FD, SourceLocation Loc) {
  // A function designator is an rvalue in C.
  Expr *Ref =
      DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(), SourceLocation(), FD,
                          false, Loc, FD->getType(), VK_PRValue);
  return ImplicitCastExpr::Create(Ctx, Ctx.getPointerType(FD->getType()),
                                  CK_FunctionToPointerDecay, Ref, nullptr,
                                  VK_PRValue, FPOptionsOverride());
}

FunctionDecl *RankInit::buildInitFunction(SourceLocation Loc) {
  QualType VoidFn = Ctx.getFunctionType(Ctx.VoidTy, {}, {});
  FunctionDecl *FD = makeFunction("__ampi_rank_init", VoidFn, SC_Static, Loc);
  SmallVector<Stmt *, 8> Body;
  for (const Assignment &A : Assignments) {
    Expr *Target = designate(A, Loc);
    Body.push_back(BinaryOperator::Create(
        Ctx, Target, A.Value, BO_Assign, Target->getType().getUnqualifiedType(),
        VK_PRValue, OK_Ordinary, Loc, FPOptionsOverride()));
  }
  FD->setBody(CompoundStmt::Create(Ctx, Body, FPOptionsOverride(), Loc, Loc));
  return FD;
}

FunctionDecl *RankInit::buildConstructor(FunctionDecl *InitFn,
                                         FunctionDecl *Register,
                                         SourceLocation Loc) {
  // if (AMPI_Register_rank_init) AMPI_Register_rank_init(__ampi_rank_init);
  // else __ampi_rank_init();
  Expr *Registered = CallExpr::Create(
      Ctx, functionPointer(Register, Loc), {functionPointer(InitFn, Loc)},
      Ctx.VoidTy, VK_PRValue, Loc, FPOptionsOverride());
  Expr *Direct =
      CallExpr::Create(Ctx, functionPointer(InitFn, Loc), {}, Ctx.VoidTy,
                       VK_PRValue, Loc, FPOptionsOverride());
  Stmt *If = IfStmt::Create(Ctx, Loc, IfStatementKind::Ordinary, nullptr,
                            nullptr, functionPointer(Register, Loc), Loc, Loc,
                            Registered, Loc, Direct);
  QualType VoidFn = Ctx.getFunctionType(Ctx.VoidTy, {}, {});
  FunctionDecl *Ctor =
      makeFunction("__ampi_rank_init_register", VoidFn, SC_Static, Loc);
  Ctor->setBody(CompoundStmt::Create(Ctx, {If}, FPOptionsOverride(), Loc, Loc));
  Ctor->addAttr(ConstructorAttr::CreateImplicit(Ctx, 65535));
  Ctor->addAttr(UsedAttr::CreateImplicit(Ctx));
  return Ctor;
}

std::vector<Decl *> RankInit::build() {
  if (Assignments.empty())
    return {};
  SourceLocation Loc = Assignments.front().Var->getLocation();
  QualType VoidFn = Ctx.getFunctionType(Ctx.VoidTy, {}, {});
  QualType RegisterFn =
      Ctx.getFunctionType(Ctx.VoidTy, {Ctx.getPointerType(VoidFn)}, {});
  FunctionDecl *Register =
      makeFunction(RegisterFunctionName, RegisterFn, SC_None, Loc);
  Register->addAttr(WeakAttr::CreateImplicit(Ctx));
  FunctionDecl *InitFn = buildInitFunction(Loc);
  FunctionDecl *Ctor = buildConstructor(InitFn, Register, Loc);
  return {Register, InitFn, Ctor};
}

} // namespace ampi
