//===- Diagnostics.h - The plugin's diagnostics and warning groups --------===//
//
// Every diagnostic the plugin emits goes through this class: it owns the
// custom diagnostic IDs, the warning groups (named in the message, since a
// plugin cannot register real -W groups), turning groups off with the plugin
// argument Wno-<group>, -w and -Werror, and it copies each warning and error
// into the report.  The source rewriter adds its remarks (what it changed), in
// a group of their own, which the report leaves out.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_DIAGNOSTICS_H
#define AMPI_CLANG_PLUGIN_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace ampi {

class Report;

enum class DiagKind {
  // Warnings, each in a group.
  HiddenStateCall,
  HiddenStateVar,
  Unprivatized,
  PragmaUnknown,
  PragmaMissing,
  PragmaExtra,
  PragmaUnused,
  SharedRedeclared,
  // Errors.
  SharedAfterUse,
  SharedTakesAddress,
  InitUnsupported,
  ConstexprAddress,
  NeedIndirectTLS,
  NeedExecTLSModel,
  BadPluginArg,
  ReportFailed,
  // Errors of the source rewriter (ampi-privatize): what it leaves to do by
  // hand.
  RewriteInitNeedsCode,
  RewriteInMacro,
  RewriteMixedDeclaration,
  RewriteFileNotListed,
  RewriteUnknownGroup,
  // Notes.
  NoteFirstDeclaration,
  // Remarks of the source rewriter: what it did, in their own group.
  RewritePrivatized,
  RewriteShared,
};

class Diagnostics {
public:
  Diagnostics(clang::DiagnosticsEngine &Engine, const clang::SourceManager &SM,
              Report &Rep)
      : Engine(Engine), SM(SM), Rep(Rep) {}

  /// Turns a warning group off; false if there is no such group.
  bool disableGroup(llvm::StringRef Group);

  /// Turns the source rewriter's remarks off.
  void disableRemarks();

  /// Emits one diagnostic; %0, %1... in its text are replaced by Args.
  /// Returns false if it was suppressed.
  bool emit(clang::SourceLocation Loc, DiagKind Kind,
            llvm::ArrayRef<llvm::StringRef> Args = {});

  /// The names of all warning groups, for messages and the documentation.
  static llvm::ArrayRef<const char *> groups();

  /// The errors emitted so far.
  unsigned errorCount() const { return Errors; }

private:
  unsigned idFor(DiagKind Kind, clang::DiagnosticsEngine::Level Level);

  clang::DiagnosticsEngine &Engine;
  const clang::SourceManager &SM;
  Report &Rep;
  llvm::StringSet<> Disabled;
  llvm::DenseMap<unsigned, unsigned> IDs;
  bool LastSuppressed = false;
  unsigned Errors = 0;
};

} // namespace ampi

#endif
