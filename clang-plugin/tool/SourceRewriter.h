//===- SourceRewriter.h - The privatizer's decision as source edits -------===//
//
// Turns what the Privatizer decided about one translation unit into edits of
// the source text: '_Thread_local' (C) or 'thread_local' (C++) inserted into
// every declaration of each privatized variable and, in C, the parts of
// initializers that take the address of a privatized variable moved into a
// function that each rank runs before its main, registered with
// AMPI_Register_rank_init exactly as the plugin does in the AST.  What cannot
// be written that way is left as it is, with an error at its line.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_TOOL_SOURCEREWRITER_H
#define AMPI_CLANG_PLUGIN_TOOL_SOURCEREWRITER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace ampi {

class Diagnostics;
class Privatizer;

/// The edits of every file, gathered over all translation units and applied
/// at the end (a header may be included by several of them).
class EditSet {
public:
  struct Edit {
    unsigned Offset;
    unsigned Length;
    std::string Text;

    bool operator<(const Edit &O) const {
      return std::tie(Offset, Length, Text) <
             std::tie(O.Offset, O.Length, O.Text);
    }
  };

  /// Records the text of Path as the first translation unit read it.
  void addFile(llvm::StringRef Path, llvm::StringRef Text);
  /// Adds an edit of a file added before; the same edit twice counts once.
  void add(llvm::StringRef Path, Edit E);

  /// The files that have edits.
  std::vector<std::string> editedFiles() const;
  /// Path's text with its edits applied; empty if Path was never added.
  std::string apply(llvm::StringRef Path) const;

private:
  struct File {
    std::string Original;
    std::set<Edit> Edits;
  };
  std::map<std::string, File> Files;
};

/// Which files may be edited besides the main file: the headers named
/// among the inputs, by real path.
struct RewriteScope {
  llvm::StringSet<> Headers;
};

/// Computes the edits for one translation unit, after P.finish(), and says
/// on Diags what it did (remarks) and what it left as it is (errors).
/// Returns the main file's path, under which Edits holds it.
std::string rewriteSource(const Privatizer &P, clang::ASTContext &Ctx,
                          Diagnostics &Diags, const RewriteScope &Scope,
                          EditSet &Edits);

} // namespace ampi

#endif
