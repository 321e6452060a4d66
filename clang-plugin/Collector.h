//===- Collector.h - The AST walk that finds variables and calls ----------===//
//
// Walks a declaration and reports to the Privatizer every declaration (for
// '#pragma ampi shared'), every variable declared or used, and every call.
// A sweep (the last walk, over the whole translation unit) also enters
// template instantiations and reports neither calls nor uses as code.
//
//===----------------------------------------------------------------------===//

#ifndef AMPI_CLANG_PLUGIN_COLLECTOR_H
#define AMPI_CLANG_PLUGIN_COLLECTOR_H

namespace clang {
class Decl;
class SourceManager;
} // namespace clang

namespace ampi {

class Privatizer;

void collect(clang::Decl *D, Privatizer &P, const clang::SourceManager &SM,
             bool Sweep);

} // namespace ampi

#endif
