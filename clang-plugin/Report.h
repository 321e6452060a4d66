//===- Report.h - The JSON privatization report ---------------------------===//
//
// What `report=FILE` writes: every variable privatized (name, kind,
// file:line, notes on how it is initialized), every one left shared and why,
// and every diagnostic the plugin emitted.  docs/privatization.md describes
// the format.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_REPORT_H
#define AMPI_CLANG_PLUGIN_REPORT_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class SourceManager;
}

namespace ampi {

/// A source position as the report prints it.
struct Position {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;

  static Position of(const clang::SourceManager &SM, clang::SourceLocation L);
};

class Report {
public:
  struct Variable {
    std::string Name;
    std::string Kind;
    Position Where;
    std::string Reason; // Why it stays shared; empty when privatized.
    std::vector<std::string> Notes;
  };

  void addPrivatized(Variable V) { Privatized.push_back(std::move(V)); }
  void addSkipped(Variable V) { Skipped.push_back(std::move(V)); }
  void addDiagnostic(const clang::SourceManager &SM, clang::SourceLocation Loc,
                     bool IsError, llvm::StringRef Group, std::string Message);

  /// Writes the report to Path, or to <Path>/<main file>.privatize.json when
  /// Path is a directory.  Returns an error message, empty on success.
  std::string write(llvm::StringRef Path, llvm::StringRef MainFile) const;

private:
  struct Diagnostic {
    bool IsError;
    std::string Group;
    Position Where;
    std::string Message;
  };

  std::vector<Variable> Privatized;
  std::vector<Variable> Skipped;
  std::vector<Diagnostic> Diagnostics;
};

} // namespace ampi

#endif
