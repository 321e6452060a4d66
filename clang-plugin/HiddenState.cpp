//===- HiddenState.cpp - C library calls that keep state between calls ----===//

#include "HiddenState.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace ampi {
namespace {

constexpr const char *RandomAdvice =
    "use 'rand_r', 'erand48' or 'nrand48' with a per-rank seed";
constexpr const char *Rand48Advice =
    "use 'erand48', 'nrand48' or 'jrand48' with per-rank state";
constexpr const char *RandomRAdvice =
    "use 'random_r' with a per-rank state buffer";
constexpr const char *GetoptAdvice =
    "set 'optind = 1' before each rank's option loop and finish it before "
    "any MPI call";
constexpr const char *LocaleAdvice =
    "the locale is process-wide; use 'newlocale' and 'uselocale' or the "
    "'_l' functions";
constexpr const char *ShiftStateAdvice =
    "use the restartable form with a per-rank 'mbstate_t'";

} // namespace

StringRef hiddenStateCallAdvice(StringRef Name) {
  return StringSwitch<StringRef>(Name)
      .Case("strtok", "use 'strtok_r'")
      .Cases("getopt", "getopt_long", "getopt_long_only", GetoptAdvice)
      .Cases("rand", "srand", RandomAdvice)
      .Cases("random", "srandom", "initstate", "setstate", RandomRAdvice)
      .Cases("drand48", "lrand48", "mrand48", Rand48Advice)
      .Cases("srand48", "seed48", "lcong48", Rand48Advice)
      .Case("asctime", "use 'asctime_r'")
      .Case("ctime", "use 'ctime_r'")
      .Case("gmtime", "use 'gmtime_r'")
      .Case("localtime", "use 'localtime_r'")
      .Case("strerror", "use 'strerror_r'")
      .Case("strsignal", "copy the string before the next MPI call")
      .Case("readdir", "copy the entry before the next MPI call, or give each "
                       "rank its own directory stream")
      .Case("tmpnam", "use 'mkstemp'")
      .Case("ttyname", "use 'ttyname_r'")
      .Case("getlogin", "use 'getlogin_r'")
      .Cases("gethostbyname", "gethostbyname2", "use 'getaddrinfo'")
      .Case("gethostbyaddr", "use 'getnameinfo'")
      .Cases("getservbyname", "getservbyport", "use 'getaddrinfo'")
      .Case("getpwnam", "use 'getpwnam_r'")
      .Case("getpwuid", "use 'getpwuid_r'")
      .Case("getgrnam", "use 'getgrnam_r'")
      .Case("getgrgid", "use 'getgrgid_r'")
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
      .Case("inet_ntoa", "use 'inet_ntop'")
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
      .Cases("optind", "optarg", "opterr", "optopt", GetoptAdvice)
      .Case("signgam", "use 'lgamma_r', which returns the sign itself")
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
