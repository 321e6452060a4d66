//===- Report.cpp - The JSON privatization report -------------------------===//

#include "Report.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace ampi {
namespace {

json::Object positionFields(const Position &P) {
  return json::Object{{"file", P.File}, {"line", P.Line}};
}

json::Value variableJSON(const Report::Variable &V, bool Privatized) {
  json::Object O = positionFields(V.Where);
  O["name"] = V.Name;
  O["kind"] = V.Kind;
  if (!Privatized)
    O["reason"] = V.Reason;
  if (!V.Notes.empty())
    O["notes"] = json::Array(V.Notes);
  return json::Value(std::move(O));
}

} // namespace

Position Position::of(const SourceManager &SM, SourceLocation L) {
  Position P;
  PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (PL.isInvalid())
    return P;
  P.File = PL.getFilename();
  P.Line = PL.getLine();
  P.Column = PL.getColumn();
  return P;
}

void Report::addDiagnostic(const SourceManager &SM, SourceLocation Loc,
                           bool IsError, StringRef Group, std::string Message) {
  Diagnostics.push_back(
      {IsError, Group.str(), Position::of(SM, Loc), std::move(Message)});
}

std::string Report::write(StringRef Path, StringRef MainFile) const {
  json::Array Priv, Skip, Warnings, Errors;
  for (const Variable &V : Privatized)
    Priv.push_back(variableJSON(V, true));
  for (const Variable &V : Skipped)
    Skip.push_back(variableJSON(V, false));
  for (const Diagnostic &D : Diagnostics) {
    json::Object O = positionFields(D.Where);
    O["column"] = D.Where.Column;
    if (!D.Group.empty())
      O["group"] = D.Group;
    O["message"] = D.Message;
    (D.IsError ? Errors : Warnings).push_back(std::move(O));
  }
  json::Object Root{{"version", 1},
                    {"source", MainFile},
                    {"privatized", std::move(Priv)},
                    {"skipped", std::move(Skip)},
                    {"warnings", std::move(Warnings)},
                    {"errors", std::move(Errors)}};

  SmallString<256> Target(Path);
  if (sys::fs::is_directory(Target))
    sys::path::append(Target,
                      sys::path::filename(MainFile) + ".privatize.json");
  std::error_code EC;
  raw_fd_ostream OS(Target, EC, sys::fs::OF_Text);
  if (EC)
    return "cannot write the privatization report '" + Target.str().str() +
           "': " + EC.message();
  OS << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
  return "";
}

} // namespace ampi
