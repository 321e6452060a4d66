//===- Policy.cpp - Which variables are privatized, and why not -----------===//

#include "Policy.h"
#include "HiddenState.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace ampi {
namespace {

/// A const object whose bytes no one may change: const-qualified (arrays of
/// const too) and without mutable members.
bool isTrulyConstant(QualType T, const ASTContext &Ctx) {
  if (!T.isConstant(Ctx))
    return false;
  if (const CXXRecordDecl *RD = Ctx.getBaseElementType(T)->getAsCXXRecordDecl())
    if (RD->hasDefinition() && RD->hasMutableFields())
      return false;
  return true;
}

bool isThreadLocal(const VarDecl *VD) {
  return VD->getTSCSpec() != TSCS_unspecified || VD->hasAttr<ThreadAttr>() ||
         VD->hasAttr<OMPThreadPrivateDeclAttr>();
}

/// An extern declaration, in no namespace, of a variable that the C library
/// defines: privatizing it would ask the linker for a TLS symbol libc lacks.
bool isCLibraryDeclaration(const VarDecl *VD) {
  if (!VD->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
      !VD->getIdentifier() || !isCLibraryVariable(VD->getName()))
    return false;
  const VarDecl *Def = VD->getDefinition();
  return !Def && !const_cast<VarDecl *>(VD)->getActingDefinition();
}

/// A structured binding whose names Sema bound to references: to the
/// object itself (auto &[a, b] = x) or, for a tuple-like object, through
/// hidden reference variables.  Sema already treats those references as
/// constants, which a per-rank object cannot honour.
bool bindsThroughReferences(const VarDecl *VD) {
  const auto *DD = dyn_cast<DecompositionDecl>(VD);
  return DD && (DD->getType()->isReferenceType() ||
                any_of(DD->bindings(), [](const BindingDecl *B) {
                  return B->getHoldingVar() != nullptr;
                }));
}

bool anyRedecl(const VarDecl *VD,
               function_ref<bool(const VarDecl *)> Predicate) {
  return any_of(VD->redecls(), Predicate);
}

} // namespace

StringRef skipReasonText(SkipReason R) {
  switch (R) {
  case SkipReason::None:
    return "privatized";
  case SkipReason::Templated:
    return "template pattern";
  case SkipReason::ThreadLocal:
    return "already thread-local";
  case SkipReason::Constant:
    return "constant";
  case SkipReason::Reference:
    return "reference";
  case SkipReason::SystemHeader:
    return "declared in a system header";
  case SkipReason::Attribute:
    return "marked shared with the attribute";
  case SkipReason::Pragma:
    return "marked shared with '#pragma ampi shared'";
  case SkipReason::CLibrary:
    return "a C library variable";
  case SkipReason::Section:
    return "placed in a named section";
  case SkipReason::Register:
    return "a global register variable";
  case SkipReason::Binding:
    return "a structured binding by reference or of a tuple-like object, "
           "which cannot be privatized";
  }
  llvm_unreachable("unknown skip reason");
}

bool hasStaticStorage(const VarDecl *VD) {
  return !isa<ParmVarDecl>(VD) && VD->hasGlobalStorage();
}

bool hasSharedAttribute(const VarDecl *VD) {
  return any_of(VD->specific_attrs<AnnotateAttr>(), [](const AnnotateAttr *A) {
    return A->getAnnotation() == SharedAnnotation;
  });
}

SkipReason classify(const VarDecl *VD, const SourceManager &SM,
                    function_ref<bool(const VarDecl *)> MarkedByPragma) {
  const ASTContext &Ctx = VD->getASTContext();
  if (VD->isTemplated() || VD->getDeclContext()->isDependentContext())
    return SkipReason::Templated;
  if (anyRedecl(VD, isThreadLocal))
    return SkipReason::ThreadLocal;
  if (anyRedecl(VD, [&](const VarDecl *R) {
        return SM.isInSystemHeader(R->getLocation());
      }))
    return SkipReason::SystemHeader;
  if (anyRedecl(VD, hasSharedAttribute))
    return SkipReason::Attribute;
  if (anyRedecl(VD, MarkedByPragma))
    return SkipReason::Pragma;
  if (VD->getStorageClass() == SC_Register)
    return SkipReason::Register;
  if (anyRedecl(VD, [](const VarDecl *R) { return R->hasAttr<SectionAttr>(); }))
    return SkipReason::Section;
  if (bindsThroughReferences(VD))
    return SkipReason::Binding;
  if (VD->getType()->isReferenceType())
    return SkipReason::Reference;
  if (isTrulyConstant(VD->getType(), Ctx))
    return SkipReason::Constant;
  if (isCLibraryDeclaration(VD))
    return SkipReason::CLibrary;
  return SkipReason::None;
}

StringRef variableKind(const VarDecl *VD) {
  if (VD->isStaticLocal())
    return "local-static";
  if (VD->isStaticDataMember())
    return isa<ClassTemplateSpecializationDecl>(VD->getDeclContext())
               ? "template-static-member"
               : "static-member";
  if (isa<VarTemplateSpecializationDecl>(VD))
    return "variable-template";
  if (VD->isInAnonymousNamespace())
    return "anonymous-namespace";
  if (VD->getDeclContext()->getRedeclContext()->isNamespace())
    return "namespace";
  if (VD->getStorageClass() == SC_Static)
    return "file-static";
  if (VD->getDefinition())
    return "global";
  if (const_cast<VarDecl *>(VD)->getActingDefinition())
    return "tentative";
  return "extern";
}

namespace {
/// The qualified name with template arguments: "Tm<int>::count".
std::string printedName(const NamedDecl *ND) {
  std::string Name;
  raw_string_ostream OS(Name);
  ND->getNameForDiagnostic(OS, ND->getASTContext().getPrintingPolicy(),
                           /*Qualified=*/true);
  return OS.str();
}
} // namespace

std::string variableName(const VarDecl *VD) {
  if (!VD->isStaticLocal())
    return printedName(VD);
  const DeclContext *DC = VD->getParentFunctionOrMethod();
  std::string Scope = "(block)";
  if (const auto *FD = dyn_cast_or_null<FunctionDecl>(DC))
    Scope = printedName(FD);
  return Scope + "::" + VD->getNameAsString();
}

const VarDecl *reportedDeclaration(const VarDecl *VD) {
  if (const VarDecl *Def = VD->getDefinition())
    return Def;
  if (const VarDecl *Acting = const_cast<VarDecl *>(VD)->getActingDefinition())
    return Acting;
  return VD->getCanonicalDecl();
}

} // namespace ampi
