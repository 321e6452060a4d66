//===- SharedPragma.cpp - '#pragma ampi shared' ---------------------------===//

#include "SharedPragma.h"
#include "Diagnostics.h"

#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace ampi {

SourceLocation SharedPragmas::beginOf(const Decl *D) const {
  return SM.getExpansionLoc(D->getBeginLoc());
}

void SharedPragmas::noteDeclaration(const Decl *D) {
  if (Pending.empty())
    return;
  SourceLocation Begin = beginOf(D);
  if (Begin.isInvalid())
    return;
  auto Precedes = [&](SourceLocation Pragma) {
    return SM.isBeforeInTranslationUnit(Pragma, Begin);
  };
  for (SourceLocation Pragma : Pending)
    if (Precedes(Pragma))
      Marked.try_emplace(Begin, Pragma);
  erase_if(Pending, Precedes);
}

bool SharedPragmas::marks(const VarDecl *VD) {
  if (Marked.empty())
    return false;
  auto It = Marked.find(beginOf(VD));
  if (It == Marked.end())
    return false;
  Used.insert(It->second);
  return true;
}

void SharedPragmas::diagnoseUnused(Diagnostics &Diags) {
  std::vector<SourceLocation> Unused = Pending;
  for (const auto &Entry : Marked)
    if (!Used.contains(Entry.second))
      Unused.push_back(Entry.second);
  llvm::sort(Unused, [&](SourceLocation A, SourceLocation B) {
    return SM.isBeforeInTranslationUnit(A, B);
  });
  for (SourceLocation Loc : Unused)
    Diags.emit(Loc, DiagKind::PragmaUnused);
  Pending.clear();
}

void AmpiPragmaHandler::HandlePragma(Preprocessor &PP,
                                     PragmaIntroducer Introducer,
                                     Token &FirstToken) {
  Token Tok;
  PP.Lex(Tok);
  if (Tok.is(tok::eod)) {
    Diags.emit(Tok.getLocation(), DiagKind::PragmaMissing);
    return;
  }
  if (!Tok.is(tok::identifier) ||
      Tok.getIdentifierInfo()->getName() != "shared") {
    Diags.emit(Tok.getLocation(), DiagKind::PragmaUnknown,
               {PP.getSpelling(Tok)});
    PP.DiscardUntilEndOfDirective();
    return;
  }
  PP.Lex(Tok);
  if (!Tok.is(tok::eod)) {
    Diags.emit(Tok.getLocation(), DiagKind::PragmaExtra);
    PP.DiscardUntilEndOfDirective();
  }
  Pragmas.add(PP.getSourceManager().getExpansionLoc(Introducer.Loc));
}

} // namespace ampi
