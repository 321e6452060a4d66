//===- HiddenState.h - C library calls that keep state between calls ------===//
//
// Privatization covers the program's own variables, not the C library's.
// Functions such as strtok or localtime keep state inside libc between calls;
// when a rank yields between two calls (any MPI call may switch ranks), another
// rank can change that state.  These tables say which functions and variables
// are affected and what to use instead.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_HIDDENSTATE_H
#define AMPI_CLANG_PLUGIN_HIDDENSTATE_H

#include "llvm/ADT/StringRef.h"

namespace ampi {

/// What to do instead of calling the C library function Name, or an empty
/// string if Name keeps no hidden state.
llvm::StringRef hiddenStateCallAdvice(llvm::StringRef Name);

/// What to do about a use of the C library variable Name (optind...), or an
/// empty string if it is not one of those.
llvm::StringRef hiddenStateVariableAdvice(llvm::StringRef Name);

/// Whether Name is a variable the C library defines (environ, optind,
/// stdout...), which an extern declaration in user code must not privatize.
bool isCLibraryVariable(llvm::StringRef Name);

} // namespace ampi

#endif
