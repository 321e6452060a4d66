//===- Policy.h - Which variables are privatized, and why not -------------===//
//
// The single statement of what privatization covers, shared by every entry
// point (the plugin and the source rewriter ampi-privatize).  A
// variable is privatized when it has static storage duration and none of the
// reasons in SkipReason applies.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_POLICY_H
#define AMPI_CLANG_PLUGIN_POLICY_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace ampi {

/// Why a variable with static storage stays shared by all ranks.
enum class SkipReason {
  None,         // Privatized.
  Templated,    // A template pattern; its instantiations are decided alone.
  ThreadLocal,  // Already thread-local (thread_local, __thread, threadprivate).
  Constant,     // A const object without mutable fields: the same everywhere.
  Reference,    // A reference: bound once, never changed.
  SystemHeader, // Declared in a system header: the library's, not the user's.
  Attribute,    // __attribute__((annotate("ampi_shared"))).
  Pragma,       // #pragma ampi shared.
  CLibrary,     // An extern declaration of a C library variable (environ...).
  Section,      // Placed in a named section, which TLS cannot be.
  Register,     // A global register variable.
  Binding,      // A structured binding by reference or of a tuple-like
                // object: Sema already folded its references to constants.
};

/// The text the report and the diagnostics give for a reason.
llvm::StringRef skipReasonText(SkipReason R);

/// Whether R is the user's own choice (so no warning is due).
inline bool isOptOut(SkipReason R) {
  return R == SkipReason::Attribute || R == SkipReason::Pragma;
}

/// The annotation that opts a variable out.
constexpr const char *SharedAnnotation = "ampi_shared";

/// Whether VD has static storage duration, the only variables considered.
bool hasStaticStorage(const clang::VarDecl *VD);

/// Whether this one declaration of a variable carries the opt-out attribute.
bool hasSharedAttribute(const clang::VarDecl *VD);

/// Decides about VD from all its declarations seen so far.  MarkedByPragma
/// says whether one declaration follows '#pragma ampi shared'.
SkipReason
classify(const clang::VarDecl *VD, const clang::SourceManager &SM,
         llvm::function_ref<bool(const clang::VarDecl *)> MarkedByPragma);

/// The report's name for what kind of variable VD is ("global",
/// "local-static", "static-member"...).
llvm::StringRef variableKind(const clang::VarDecl *VD);

/// The name the report and the diagnostics print: qualified, with the
/// enclosing function for a function-local static ("main::count").
std::string variableName(const clang::VarDecl *VD);

/// The declaration the report points at: the definition if there is one.
const clang::VarDecl *reportedDeclaration(const clang::VarDecl *VD);

} // namespace ampi

#endif
