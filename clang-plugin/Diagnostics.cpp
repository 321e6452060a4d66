//===- Diagnostics.cpp - The plugin's diagnostics and warning groups ------===//

#include "Diagnostics.h"
#include "Report.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace ampi {
namespace {

enum class Severity { Warning, Error, Note, Remark };

struct DiagInfo {
  DiagKind Kind;
  Severity Sev;
  const char *Group; // Warnings and remarks only.
  const char *Text;  // Clang format: %0 is an argument, %% a percent sign.
};

constexpr const char *HiddenState = "ampi-hidden-state";
constexpr const char *Unprivatized = "ampi-unprivatized";
constexpr const char *Pragma = "ampi-pragma";
constexpr const char *SharedRedecl = "ampi-shared-redecl";
constexpr const char *Rewrite = "ampi-rewrite";

const DiagInfo Infos[] = {
    {DiagKind::HiddenStateCall, Severity::Warning, HiddenState,
     "call to '%0' keeps hidden state that other ranks can change between "
     "calls; %1"},
    {DiagKind::HiddenStateVar, Severity::Warning, HiddenState,
     "'%0' is C library state shared by all ranks; %1"},
    {DiagKind::Unprivatized, Severity::Warning, Unprivatized,
     "'%0' stays shared by all ranks: %1; mark it with '#pragma ampi shared' "
     "if that is intended"},
    {DiagKind::PragmaUnknown, Severity::Warning, Pragma,
     "unknown '#pragma ampi %0' ignored; expected '#pragma ampi shared'"},
    {DiagKind::PragmaMissing, Severity::Warning, Pragma,
     "'#pragma ampi' without an argument ignored; expected "
     "'#pragma ampi shared'"},
    {DiagKind::PragmaExtra, Severity::Warning, Pragma,
     "extra tokens at the end of '#pragma ampi shared' ignored"},
    {DiagKind::PragmaUnused, Severity::Warning, Pragma,
     "'#pragma ampi shared' is not followed by a variable declaration; "
     "ignored"},
    {DiagKind::SharedRedeclared, Severity::Warning, SharedRedecl,
     "'%0' is marked shared here but not where it is first declared; "
     "translation units that see only that declaration privatize it, and "
     "linking them with this one fails"},
    {DiagKind::SharedAfterUse, Severity::Error, nullptr,
     "'%0' is marked shared here, but code above already uses it as a "
     "privatized variable; mark its first declaration shared instead"},
    {DiagKind::SharedTakesAddress, Severity::Error, nullptr,
     "'%0' is not privatized (%1), but its initializer takes the address of "
     "privatized variable '%2', which differs in each rank; mark '%2' shared "
     "or initialize '%0' in code"},
    {DiagKind::InitUnsupported, Severity::Error, nullptr,
     "cannot initialize '%0' in each rank: its initializer takes the address "
     "of privatized variable '%1' inside %2; assign it in code that each rank "
     "runs, or mark '%1' shared"},
    {DiagKind::ConstexprAddress, Severity::Error, nullptr,
     "constexpr variable '%0' takes the address of privatized variable "
     "'%1', which is not a constant once privatized; drop 'constexpr' or mark "
     "'%1' shared"},
    {DiagKind::NeedIndirectTLS, Severity::Error, nullptr,
     "privatized variables must be reached through %%fs:0: compile with "
     "-mno-tls-direct-seg-refs (ampicc -privatize=tls adds it)"},
    {DiagKind::NeedExecTLSModel, Severity::Error, nullptr,
     "privatized variables in position-independent code need an exec TLS "
     "model: compile with -ftls-model=initial-exec (ampicc -privatize=tls "
     "adds it)"},
    {DiagKind::BadPluginArg, Severity::Error, nullptr,
     "unknown argument '%0' for plugin 'ampi-privatize'; expected "
     "report=FILE or Wno-<group>, with <group> one of %1"},
    {DiagKind::ReportFailed, Severity::Error, nullptr, "%0"},
    {DiagKind::RewriteInitNeedsCode, Severity::Error, nullptr,
     "'%0' is left as it is: its initializer takes the address of privatized "
     "variable '%1', which is not a constant once '%1' is %2, and "
     "ampi-privatize cannot move it into per-rank code (%3); make '%0' %2 and "
     "assign it in code that each rank runs before using it, or mark '%1' "
     "shared"},
    {DiagKind::RewriteInMacro, Severity::Error, nullptr,
     "cannot insert '%1' into this declaration of '%0': it is written inside "
     "a macro; add '%1' to the macro by hand"},
    {DiagKind::RewriteMixedDeclaration, Severity::Error, nullptr,
     "cannot insert '%1' into this declaration of '%0': it also declares %2, "
     "which must not be thread-local; split the declaration"},
    {DiagKind::RewriteFileNotListed, Severity::Error, nullptr,
     "cannot insert '%1' into this declaration of '%0': '%2' is not being "
     "rewritten; name it among the inputs of ampi-privatize -i, so that "
     "every declaration of '%0' changes"},
    {DiagKind::RewriteUnknownGroup, Severity::Error, nullptr,
     "unknown warning group in '-W%0'; the groups are %1"},
    {DiagKind::NoteFirstDeclaration, Severity::Note, nullptr,
     "first declaration of '%0' is here"},
    {DiagKind::RewritePrivatized, Severity::Remark, Rewrite,
     "%0 '%1' made %2%3"},
    {DiagKind::RewriteShared, Severity::Remark, Rewrite,
     "%0 '%1' stays shared: %2"},
};

const char *const GroupNames[] = {HiddenState, Unprivatized, Pragma,
                                  SharedRedecl};

const DiagInfo &infoFor(DiagKind Kind) {
  for (const DiagInfo &I : Infos)
    if (I.Kind == Kind)
      return I;
  llvm_unreachable("diagnostic without a table entry");
}

/// Formats Text the way clang does for plain string arguments.
std::string formatMessage(StringRef Text, ArrayRef<StringRef> Args) {
  std::string Out;
  for (size_t I = 0; I < Text.size(); ++I) {
    if (Text[I] != '%' || I + 1 == Text.size()) {
      Out += Text[I];
      continue;
    }
    char Next = Text[++I];
    if (Next >= '0' && Next <= '9' && unsigned(Next - '0') < Args.size())
      Out += Args[Next - '0'].str();
    else
      Out += Next;
  }
  return Out;
}

std::string withGroup(const DiagInfo &Info) {
  std::string Text = Info.Text;
  if (Info.Group)
    Text += std::string(Info.Sev == Severity::Remark ? " [-R" : " [-W") +
            Info.Group + "]";
  return Text;
}

} // namespace

ArrayRef<const char *> Diagnostics::groups() { return GroupNames; }

void Diagnostics::disableRemarks() { Disabled.insert(Rewrite); }

bool Diagnostics::disableGroup(StringRef Group) {
  if (!is_contained(groups(), Group))
    return false;
  Disabled.insert(Group);
  return true;
}

unsigned Diagnostics::idFor(DiagKind Kind, DiagnosticsEngine::Level Level) {
  unsigned Key = unsigned(Kind) * 8 + unsigned(Level);
  auto It = IDs.find(Key);
  if (It != IDs.end())
    return It->second;
  unsigned ID = Engine.getDiagnosticIDs()->getCustomDiagID(
      static_cast<DiagnosticIDs::Level>(Level), withGroup(infoFor(Kind)));
  IDs[Key] = ID;
  return ID;
}

bool Diagnostics::emit(SourceLocation Loc, DiagKind Kind,
                       ArrayRef<StringRef> Args) {
  const DiagInfo &Info = infoFor(Kind);
  DiagnosticsEngine::Level Level = DiagnosticsEngine::Error;
  if (Info.Sev == Severity::Note) {
    if (LastSuppressed)
      return false;
    Level = DiagnosticsEngine::Note;
  } else if (Info.Sev == Severity::Remark) {
    LastSuppressed = Disabled.contains(Info.Group);
    if (LastSuppressed)
      return false;
    Level = DiagnosticsEngine::Remark;
  } else if (Info.Sev == Severity::Warning) {
    LastSuppressed =
        Disabled.contains(Info.Group) || Engine.getIgnoreAllWarnings();
    if (LastSuppressed)
      return false;
    Level = Engine.getWarningsAsErrors() ? DiagnosticsEngine::Error
                                         : DiagnosticsEngine::Warning;
  } else {
    LastSuppressed = false;
  }

  DiagnosticBuilder Builder = Engine.Report(Loc, idFor(Kind, Level));
  for (StringRef Arg : Args)
    Builder << Arg;

  if (Level == DiagnosticsEngine::Error)
    ++Errors;
  if (Level != DiagnosticsEngine::Note && Level != DiagnosticsEngine::Remark)
    Rep.addDiagnostic(SM, Loc, Level == DiagnosticsEngine::Error,
                      Info.Group ? Info.Group : "",
                      formatMessage(Info.Text, Args));
  return true;
}

} // namespace ampi
