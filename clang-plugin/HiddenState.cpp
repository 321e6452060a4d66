//===- HiddenState.cpp - C library calls that keep state between calls ----===//

#include "HiddenState.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace ampi {
namespace {

constexpr const char *LocaleAdvice =
    "the locale is process-wide; use 'newlocale' and 'uselocale' or the "
    "'_l' functions";

} // namespace

// The runtime keeps the state of rand, random, the drand48 family, getopt,
// strtok, and the buffers of gmtime, localtime, asctime, ctime, strerror,
// strsignal, ttyname, getlogin, inet_ntoa, getpwnam, getpwuid, getgrnam and
// getgrgid per rank (runtime/libc): those calls need no warning.
StringRef hiddenStateCallAdvice(StringRef Name) {
  return StringSwitch<StringRef>(Name)
      .Case("readdir", "copy the entry before the next MPI call, or give each "
                       "rank its own directory stream")
      .Case("tmpnam", "use 'mkstemp'")
      .Cases("gethostbyname", "gethostbyname2", "use 'getaddrinfo'")
      .Case("gethostbyaddr", "use 'getnameinfo'")
      .Cases("getservbyname", "getservbyport", "use 'getaddrinfo'")
      .Cases("getpwent", "getgrent", "use the '_r' form")
      .Case("ecvt", "use 'ecvt_r'")
      .Case("fcvt", "use 'fcvt_r'")
      .Cases("lgamma", "lgammaf", "lgammal",
             "use the '_r' form, which "
             "returns the sign itself")
      .Case("mblen", "use 'mbrlen' with a per-rank 'mbstate_t'")
      .Case("mbtowc", "use 'mbrtowc' with a per-rank 'mbstate_t'")
      .Case("wctomb", "use 'wcrtomb' with a per-rank 'mbstate_t'")
      .Case("setlocale", LocaleAdvice)
      .Case("localeconv", LocaleAdvice)
      .Case("nl_langinfo", "use 'nl_langinfo_l'")
      .Case("crypt", "use 'crypt_r'")
      .Case("ptsname", "use 'ptsname_r'")
      .Cases("hcreate", "hsearch", "hdestroy",
             "use 'hcreate_r', 'hsearch_r' "
             "and 'hdestroy_r'")
      .Case("getdate", "use 'getdate_r'")
      .Case("l64a", "copy the string before the next MPI call")
      .Default("");
}

StringRef hiddenStateVariableAdvice(StringRef Name) {
  return StringSwitch<StringRef>(Name)
      .Case("signgam", "use 'lgamma_r', which returns the sign itself")
      .Default("");
}

StringRef perRankLibraryVariable(StringRef Name) {
  return StringSwitch<StringRef>(Name)
      .Case("optind", "__ampi_optind")
      .Case("optarg", "__ampi_optarg")
      .Case("opterr", "__ampi_opterr")
      .Case("optopt", "__ampi_optopt")
      .Default("");
}

bool isCLibraryVariable(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("environ", "__environ", "errno", "h_errno", true)
      .Cases("optarg", "optind", "opterr", "optopt", true)
      .Cases("timezone", "__timezone", "daylight", "__daylight", true)
      .Cases("tzname", "__tzname", "signgam", true)
      .Cases("stdin", "stdout", "stderr", true)
      .Cases("program_invocation_name", "program_invocation_short_name", true)
      .Cases("__progname", "__progname_full", true)
      .Cases("sys_errlist", "sys_nerr", "sys_siglist", true)
      .Default(false);
}

} // namespace ampi
