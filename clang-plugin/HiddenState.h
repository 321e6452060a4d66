//===- HiddenState.h - C library calls that keep state between calls ------===//
//
// Privatization covers the program's own variables, not the C library's.
// Functions such as getopt or strerror keep state inside libc between calls;
// other ranks (on other PEs, or on this one when a call switches ranks) can
// change that state.  These tables say which functions and variables are
// affected and what to use instead.  The runtime gives each rank its own
// state for strtok, the rand/random and drand48 families, gmtime, localtime,
// asctime and ctime (runtime/start/hidden_state.c), so those are not here.
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
