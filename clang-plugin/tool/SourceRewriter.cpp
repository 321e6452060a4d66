//===- SourceRewriter.cpp - The privatizer's decision as source edits -----===//

#include "SourceRewriter.h"

#include "Diagnostics.h"
#include "Policy.h"
#include "Privatizer.h"
#include "RankInit.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cassert>
#include <optional>

using namespace clang;
using namespace llvm;

namespace ampi {

void EditSet::addFile(StringRef Path, StringRef Text) {
  Files.try_emplace(Path.str(), File{Text.str(), {}});
}

void EditSet::add(StringRef Path, Edit E) {
  auto It = Files.find(Path.str());
  assert(It != Files.end() && "an edit of a file that was not added");
  It->second.Edits.insert(std::move(E));
}

std::vector<std::string> EditSet::editedFiles() const {
  std::vector<std::string> Paths;
  for (const auto &[Path, F] : Files)
    if (!F.Edits.empty())
      Paths.push_back(Path);
  return Paths;
}

std::string EditSet::apply(StringRef Path) const {
  auto It = Files.find(Path.str());
  if (It == Files.end())
    return "";
  const File &F = It->second;
  std::string Out;
  size_t Done = 0;
  std::optional<unsigned> LastInsertion;
  for (const Edit &E : F.Edits) {
    if (E.Offset < Done)
      continue;
    if (E.Length == 0) {
      // Two translation units that insert different text at one place (one
      // made the variable weak, say): the first one wins.
      if (LastInsertion == E.Offset)
        continue;
      LastInsertion = E.Offset;
    }
    Out.append(F.Original, Done, E.Offset - Done);
    Out += E.Text;
    Done = E.Offset + E.Length;
  }
  Out.append(F.Original, Done, std::string::npos);
  return Out;
}

namespace {

/// Where the thread-local keyword goes in one declaration.
struct Place {
  enum Problem { None, Macro, OtherFile } Trouble = None;
  FileID File;
  unsigned Offset = 0;
  bool After = false; // After 'static' or 'extern', rather than before.
};

/// One list of declaration specifiers and what it declares: the keyword
/// inserted there applies to all of its declarators.
struct Declaration {
  SourceLocation Begin;
  const VarDecl *FirstPrivatized = nullptr;   // For messages.
  SmallVector<const VarDecl *, 2> Privatized; // Canonical declarations.
  std::string Other;    // Something declared there that must stay as it is.
  bool Blocked = false; // Left as it is.
  Place Where;
};

/// The statements that initialize one variable in each rank, and the parts
/// of its initializer they replace with zero.
struct InitPlan {
  std::vector<CharSourceRange> Holes;
  std::vector<std::string> Statements;
};

/// The declarations as written of a variable: those of the template that
/// an instantiation comes from, whose text makes all its instantiations.
SmallVector<const VarDecl *, 4> sourceDeclarations(const VarDecl *Canonical) {
  SmallVector<const VarDecl *, 4> Out;
  for (const VarDecl *R : Canonical->redecls()) {
    if (R->isImplicit())
      continue;
    const VarDecl *Pattern = nullptr;
    if (isTemplateInstantiation(R->getTemplateSpecializationKind()))
      Pattern = R->getTemplateInstantiationPattern();
    if (!Pattern) {
      Out.push_back(R);
      continue;
    }
    for (const VarDecl *PR : Pattern->redecls())
      Out.push_back(PR);
  }
  return Out;
}

/// Reasons to stay shared that a thread-local keyword does not contradict:
/// a per-rank copy of a constant or a reference behaves the same.
bool toleratesThreadLocal(SkipReason R) {
  return R == SkipReason::Constant || R == SkipReason::Reference ||
         R == SkipReason::ThreadLocal;
}

/// Tok is Open; moves Tok past the matching Close.
bool skipBalanced(Lexer &Lex, Token &Tok, tok::TokenKind Open,
                  tok::TokenKind Close) {
  unsigned Depth = 0;
  do {
    if (Tok.is(tok::eof))
      return false;
    if (Tok.is(Open))
      ++Depth;
    else if (Tok.is(Close))
      --Depth;
    Lex.LexFromRawLexer(Tok);
  } while (Depth != 0);
  return true;
}

/// Moves Tok past an attribute in front of the declaration specifiers:
/// [[...]], alignas(...), __attribute__((...)), __declspec(...).
bool skipAttribute(Lexer &Lex, Token &Tok) {
  if (Tok.is(tok::l_square))
    return skipBalanced(Lex, Tok, tok::l_square, tok::r_square);
  if (!Tok.is(tok::raw_identifier) ||
      !is_contained(
          {"alignas", "_Alignas", "__attribute__", "__attribute", "__declspec"},
          Tok.getRawIdentifier()))
    return false;
  Lex.LexFromRawLexer(Tok);
  return Tok.is(tok::l_paren) &&
         skipBalanced(Lex, Tok, tok::l_paren, tok::r_paren);
}

class SourceRewriter {
public:
  SourceRewriter(const Privatizer &P, ASTContext &Ctx, Diagnostics &Diags,
                 const RewriteScope &Scope, EditSet &Edits)
      : P(P), Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()),
        Diags(Diags), Scope(Scope), Edits(Edits),
        Keyword(P.facts().CPlusPlus ? "thread_local" : "_Thread_local") {}

  void run();
  std::string mainPath() { return pathOf(SM.getMainFileID()); }

private:
  bool isPrivatized(const VarDecl *VD) const { return P.isPrivatized(VD); }
  std::string pathOf(FileID FID);
  StringRef fileName(FileID FID) const;
  bool isRewritable(FileID FID);
  void addEdit(FileID FID, EditSet::Edit E);

  void planInitializers();
  std::string planInitializer(const VarDecl *Var,
                              ArrayRef<const RankInit::Assignment *> Moves,
                              InitPlan &Plan);
  void leaveUnmovable();
  void collect(const Privatizer::Outcome &O);
  void noteFunctions();
  Place placeOf(SourceLocation Begin);
  void findPosition(SourceLocation Loc, Place &Pl);
  void check(Declaration &D);
  void spreadUntouched();
  void writeEdits();
  void makeWeak(const VarDecl *Canonical);
  std::string initFunction(ArrayRef<std::string> Statements);
  void remark(const Privatizer::Outcome &O);

  const Privatizer &P;
  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  Diagnostics &Diags;
  const RewriteScope &Scope;
  EditSet &Edits;
  StringRef Keyword;

  MapVector<unsigned, Declaration> Decls;     // By raw encoding of Begin.
  MapVector<const VarDecl *, InitPlan> Plans; // By canonical declaration.
  DenseSet<const VarDecl *> Untouched;        // Privatized, left as written.
  std::vector<const VarDecl *> Weak;          // Tentative under -fcommon.
  DenseMap<FileID, std::string> Paths;
};

std::string SourceRewriter::pathOf(FileID FID) {
  auto It = Paths.find(FID);
  if (It != Paths.end())
    return It->second;
  std::string Path;
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
    SmallString<256> Real;
    Path = sys::fs::real_path(FE->getName(), Real) ? FE->getName().str()
                                                   : Real.str().str();
  }
  Paths[FID] = Path;
  return Path;
}

StringRef SourceRewriter::fileName(FileID FID) const {
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  return FE ? FE->getName() : "<built-in>";
}

bool SourceRewriter::isRewritable(FileID FID) {
  if (FID == SM.getMainFileID())
    return true;
  std::string Path = pathOf(FID);
  return !Path.empty() && Scope.Headers.contains(Path);
}

void SourceRewriter::addEdit(FileID FID, EditSet::Edit E) {
  std::string Path = pathOf(FID);
  Edits.addFile(Path, SM.getBufferData(FID));
  Edits.add(Path, std::move(E));
}

void SourceRewriter::run() {
  Edits.addFile(pathOf(SM.getMainFileID()),
                SM.getBufferData(SM.getMainFileID()));
  std::vector<Privatizer::Outcome> Outcomes = P.outcomes();
  if (!P.facts().CPlusPlus) {
    planInitializers();
    leaveUnmovable();
  }
  for (const Privatizer::Outcome &O : Outcomes)
    if (O.Skip != SkipReason::Templated)
      collect(O);
  noteFunctions();
  for (auto &Entry : Decls)
    check(Entry.second);
  spreadUntouched();
  writeEdits();
  for (const Privatizer::Outcome &O : Outcomes)
    if (O.Reported)
      remark(O);
}

// C: the plugin zeroes the parts of an initializer that take the address of
// a privatized variable and assigns them in each rank.  So does the text,
// when it can name those parts from the end of the main file.
void SourceRewriter::planInitializers() {
  MapVector<const VarDecl *, SmallVector<const RankInit::Assignment *, 4>>
      ByVar;
  for (const RankInit::Assignment &A : P.perRankAssignments())
    ByVar[A.Var].push_back(&A);
  for (auto &[Var, Moves] : ByVar) {
    InitPlan Plan;
    std::string Why = planInitializer(Var, Moves, Plan);
    if (Why.empty()) {
      Plans[Var->getCanonicalDecl()] = std::move(Plan);
      continue;
    }
    const Expr *Where = nullptr;
    const VarDecl *Target = findAddressUse(
        Moves.front()->Value, [&](const VarDecl *V) { return isPrivatized(V); },
        &Where);
    SourceLocation Loc = Where ? Where->getExprLoc() : Var->getLocation();
    Diags.emit(
        Loc, DiagKind::RewriteInitNeedsCode,
        {variableName(Var), Target ? variableName(Target) : "", Keyword, Why});
    Untouched.insert(Var->getCanonicalDecl());
  }
}

std::string
SourceRewriter::planInitializer(const VarDecl *Var,
                                ArrayRef<const RankInit::Assignment *> Moves,
                                InitPlan &Plan) {
  FileID Main = SM.getMainFileID();
  if (!Var->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return "it is a static variable of a function";
  if (SM.getFileID(SM.getExpansionLoc(Var->getLocation())) != Main)
    return "it is defined in a header";
  if (Ctx.getBaseElementType(Var->getType()).isConstQualified())
    return "it is const";
  for (const RankInit::Assignment *A : Moves) {
    std::string Target = Var->getName().str();
    for (const RankInit::Step &S : A->Path) {
      if (!S.Field) {
        Target += "[" + std::to_string(S.Index) + "]";
        continue;
      }
      if (S.Field->getType().isConstQualified())
        return "it sets const member '" + S.Field->getNameAsString() + "'";
      if (S.Field->isAnonymousStructOrUnion())
        continue; // Its members are named as members of the enclosing one.
      if (!S.Field->getIdentifier())
        return "it sets an unnamed member";
      Target += "." + S.Field->getName().str();
    }
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(A->Value->getSourceRange()), SM, LO);
    if (Range.isInvalid() || SM.getFileID(Range.getBegin()) != Main)
      return "the address is taken inside a macro";
    Plan.Holes.push_back(Range);
    Plan.Statements.push_back(Target + " = " +
                              Lexer::getSourceText(Range, SM, LO).str() + ";");
  }
  return "";
}

// Variables whose initializer the plugin itself cannot move (a compound
// literal, an array filler): the privatizer has said so at the line.
void SourceRewriter::leaveUnmovable() {
  for (const Privatizer::Outcome &O : P.outcomes()) {
    const VarDecl *Def = O.Canonical->getDefinition();
    if (O.Skip != SkipReason::None || !Def || Plans.count(O.Canonical))
      continue;
    if (findAddressUse(Def->getInit(),
                       [&](const VarDecl *V) { return isPrivatized(V); }))
      Untouched.insert(O.Canonical);
  }
}

void SourceRewriter::collect(const Privatizer::Outcome &O) {
  bool Private = O.Skip == SkipReason::None;
  if (!Private && toleratesThreadLocal(O.Skip))
    return;
  for (const VarDecl *R : sourceDeclarations(O.Canonical)) {
    SourceLocation Begin = R->getInnerLocStart();
    if (Begin.isInvalid() || SM.isInSystemHeader(SM.getExpansionLoc(Begin)))
      continue;
    Declaration &D = Decls[Begin.getRawEncoding()];
    D.Begin = Begin;
    if (!Private) {
      if (D.Other.empty())
        D.Other =
            "'" + variableName(R) + "' (" + skipReasonText(O.Skip).str() + ")";
      continue;
    }
    if (!D.FirstPrivatized)
      D.FirstPrivatized = R;
    if (!is_contained(D.Privatized, O.Canonical))
      D.Privatized.push_back(O.Canonical);
  }
  if (Private && O.WeakCommon)
    Weak.push_back(O.Canonical);
}

// `int count, compute(void);` declares a function with the same specifiers.
void SourceRewriter::noteFunctions() {
  struct Finder : RecursiveASTVisitor<Finder> {
    SourceRewriter &R;
    explicit Finder(SourceRewriter &R) : R(R) {}
    bool TraverseDecl(Decl *D) {
      if (D && !isa<TranslationUnitDecl>(D) &&
          R.SM.isInSystemHeader(D->getLocation()))
        return true;
      return RecursiveASTVisitor::TraverseDecl(D);
    }
    bool VisitFunctionDecl(FunctionDecl *FD) {
      auto It = R.Decls.find(FD->getInnerLocStart().getRawEncoding());
      if (!FD->isImplicit() && It != R.Decls.end() && It->second.Other.empty())
        It->second.Other = "function '" + FD->getNameAsString() + "'";
      return true;
    }
  };
  if (!Decls.empty())
    Finder(*this).TraverseDecl(Ctx.getTranslationUnitDecl());
}

Place SourceRewriter::placeOf(SourceLocation Begin) {
  Place Pl;
  SourceLocation Loc = Begin;
  bool FromMacro = Loc.isMacroID();
  // A declaration that a macro begins (`GLOBAL int x;`) takes the keyword
  // in front of the macro; one written inside a macro cannot.
  while (Loc.isMacroID()) {
    SourceLocation Start;
    if (!Lexer::isAtStartOfMacroExpansion(Loc, SM, LO, &Start)) {
      Pl.Trouble = Place::Macro;
      return Pl;
    }
    Loc = Start;
  }
  Pl.File = SM.getFileID(Loc);
  if (!isRewritable(Pl.File)) {
    Pl.Trouble = Place::OtherFile;
    return Pl;
  }
  if (FromMacro)
    Pl.Offset = SM.getFileOffset(Loc);
  else
    findPosition(Loc, Pl);
  return Pl;
}

// After a leading 'static' or 'extern' (`static _Thread_local int n;`),
// otherwise before the first specifier, past attributes that must open the
// declaration in C++.
void SourceRewriter::findPosition(SourceLocation Loc, Place &Pl) {
  auto [FID, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buffer = SM.getBufferData(FID);
  Lexer Lex(SM.getLocForStartOfFile(FID), LO, Buffer.begin(),
            Buffer.begin() + Offset, Buffer.end());
  Token Tok;
  Lex.LexFromRawLexer(Tok);
  SourceLocation First = Tok.getLocation();
  while (skipAttribute(Lex, Tok))
    ;
  if (Tok.is(tok::eof)) {
    Pl.Offset = SM.getFileOffset(First);
    return;
  }
  bool Storage =
      Tok.is(tok::raw_identifier) && (Tok.getRawIdentifier() == "static" ||
                                      Tok.getRawIdentifier() == "extern");
  Pl.After = Storage;
  Pl.Offset = SM.getFileOffset(Storage ? Tok.getEndLoc() : Tok.getLocation());
}

void SourceRewriter::check(Declaration &D) {
  if (D.Privatized.empty())
    return;
  const VarDecl *Var = D.FirstPrivatized;
  std::string Name = variableName(Var);
  D.Where = placeOf(D.Begin);
  if (!D.Other.empty())
    Diags.emit(Var->getLocation(), DiagKind::RewriteMixedDeclaration,
               {Name, Keyword, D.Other});
  else if (D.Where.Trouble == Place::Macro)
    Diags.emit(Var->getLocation(), DiagKind::RewriteInMacro, {Name, Keyword});
  else if (D.Where.Trouble == Place::OtherFile)
    Diags.emit(Var->getLocation(), DiagKind::RewriteFileNotListed,
               {Name, Keyword, fileName(D.Where.File)});
  else
    return;
  D.Blocked = true;
  for (const VarDecl *V : D.Privatized)
    Untouched.insert(V);
}

// A variable is rewritten in all its declarations or in none, and a
// declaration in full or not at all: leaving one declaration of a variable
// as it is leaves the others, and the variables they declare too.
void SourceRewriter::spreadUntouched() {
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (auto &Entry : Decls) {
      Declaration &D = Entry.second;
      if (D.Blocked || none_of(D.Privatized, [&](const VarDecl *V) {
            return Untouched.contains(V);
          }))
        continue;
      D.Blocked = true;
      for (const VarDecl *V : D.Privatized)
        Changed |= Untouched.insert(V).second;
    }
  }
}

void SourceRewriter::writeEdits() {
  for (auto &Entry : Decls) {
    Declaration &D = Entry.second;
    if (D.Privatized.empty() || D.Blocked)
      continue;
    std::string Text =
        D.Where.After ? " " + Keyword.str() : Keyword.str() + " ";
    addEdit(D.Where.File, {D.Where.Offset, 0, Text});
  }
  for (const VarDecl *V : Weak)
    if (!Untouched.contains(V))
      makeWeak(V);

  std::vector<std::string> Statements;
  for (auto &[Var, Plan] : Plans) {
    if (Untouched.contains(Var))
      continue;
    for (CharSourceRange R : Plan.Holes) {
      unsigned Begin = SM.getFileOffset(R.getBegin());
      addEdit(SM.getFileID(R.getBegin()),
              {Begin, SM.getFileOffset(R.getEnd()) - Begin, "0"});
    }
    Statements.insert(Statements.end(), Plan.Statements.begin(),
                      Plan.Statements.end());
  }
  if (Statements.empty())
    return;
  FileID Main = SM.getMainFileID();
  addEdit(Main, {unsigned(SM.getBufferData(Main).size()), 0,
                 initFunction(Statements)});
}

// A common symbol cannot be thread-local: as the plugin does, the tentative
// definition becomes a weak one, which the linker merges the same way.  The
// attribute follows the declarator, so that it is the only one it applies
// to; where a macro writes the declarator it is left out, and two such
// definitions then fail to link.
void SourceRewriter::makeWeak(const VarDecl *Canonical) {
  const VarDecl *Acting =
      const_cast<VarDecl *>(Canonical)->getActingDefinition();
  if (!Acting)
    return;
  SourceLocation End = Acting->getEndLoc();
  if (!End.isFileID() || !isRewritable(SM.getFileID(End)))
    return;
  End = Lexer::getLocForEndOfToken(End, 0, SM, LO);
  addEdit(SM.getFileID(End),
          {SM.getFileOffset(End), 0, " __attribute__((weak))"});
}

// The same function, and constructor, that the plugin adds to the AST.
std::string SourceRewriter::initFunction(ArrayRef<std::string> Statements) {
  StringRef Main = SM.getBufferData(SM.getMainFileID());
  std::string Text = Main.empty() || Main.ends_with("\n") ? "" : "\n";
  Text += "\n/* Added by ampi-privatize: addresses of _Thread_local variables "
          "are not\n * constants, so each rank assigns these before its main, "
          "to its own\n * copies (see docs/privatization.md). */\n"
          "void AMPI_Register_rank_init(void (*)(void)) "
          "__attribute__((weak));\n\n"
          "static void __ampi_rank_init(void)\n{\n";
  for (const std::string &S : Statements)
    Text += "    " + S + "\n";
  Text += "}\n\n"
          "__attribute__((constructor)) static void "
          "__ampi_rank_init_register(void)\n{\n"
          "    if (AMPI_Register_rank_init)\n"
          "        AMPI_Register_rank_init(__ampi_rank_init);\n"
          "    else\n"
          "        __ampi_rank_init();\n"
          "}\n";
  return Text;
}

// Each variable of the files being rewritten.
void SourceRewriter::remark(const Privatizer::Outcome &O) {
  const VarDecl *D = reportedDeclaration(O.Canonical);
  if (!isRewritable(SM.getFileID(SM.getExpansionLoc(D->getLocation()))))
    return;
  std::string Kind = variableKind(D).str(), Name = variableName(D);
  if (O.Skip != SkipReason::None) {
    Diags.emit(D->getLocation(), DiagKind::RewriteShared,
               {Kind, Name, skipReasonText(O.Skip)});
    return;
  }
  if (Untouched.contains(O.Canonical))
    return;
  StringRef PerRank =
      Plans.count(O.Canonical)
          ? "; the addresses in its initializer are assigned in each rank, "
            "in __ampi_rank_init"
          : "";
  Diags.emit(D->getLocation(), DiagKind::RewritePrivatized,
             {Kind, Name, Keyword, PerRank});
}

} // namespace

std::string rewriteSource(const Privatizer &P, ASTContext &Ctx,
                          Diagnostics &Diags, const RewriteScope &Scope,
                          EditSet &Edits) {
  SourceRewriter R(P, Ctx, Diags, Scope, Edits);
  R.run();
  return R.mainPath();
}

} // namespace ampi
