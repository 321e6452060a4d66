/*
 * ampicc, ampicxx, ampif90 and ampif77: compiler wrappers for AMPI programs.
 *
 * One source, built once per language: with AMPI_WRAPPER_CXX defined it is
 * ampicxx; with AMPI_WRAPPER_FORTRAN defined to 90 or 77 it is ampif90 or
 * ampif77, which drive flang-new.
 *
 * The wrapper finds its installation prefix from its own location
 * (/proc/self/exe is <prefix>/bin/ampicc), so the build tree and every
 * installed copy are relocatable, and runs
 *
 *     <compiler> <compile flags> <user args> [<link flags>]
 *
 *     compile flags  -I<prefix>/include [privatization flags]
 *     link flags     -Wl,-u,main -Wl,--wrap=main -L<prefix>/lib -lampi_main
 * -lampi -Wl,-rpath,<prefix>/lib -lpthread
 *
 * The runtime owns main: --wrap=main sends the C start-up code to
 * __wrap_main in libampi_main.a, which starts the ranks and has each of them
 * call the program's own main (__real_main).
 *
 * Link flags come after the user's arguments, so libraries follow objects,
 * and only when the invocation links: not with -c, -S, -E, -M, -MM or
 * -fsyntax-only.  With -shared or -r there is no program to wrap, so only
 * libampi is added.  Without any input file (--version, -v) no flag at all
 * is added: `ampicc --version` is `clang --version`.
 *
 * Fortran: the include directory also holds mpif.h and mpi.mod.  flang's
 * generated main ends with _FortranAProgramEndStatement, which closes every
 * unit and calls exit(): the link wraps it (and STOP) so that END ends the
 * rank, not the job (start/fortran_main.c in libampi_main.a).
 *
 * Privatization (-privatize=MODE, or AMPI_PRIVATIZE; the option wins):
 * tls, the default, gives every rank its own mutable globals; none builds
 * the program as it is.  For Fortran, tls loads the LLVM pass plugin
 * <prefix>/lib/ampi/AmpiPrivatizePass.so into flang (-fpass-plugin), which
 * makes the globals thread-local and marks every function for TLS accesses
 * through %fs:0.  pie, for any compiler (and the default with gfortran,
 * which the pass plugin cannot serve), builds a position-independent
 * executable marked for the runtime, which gives every rank its own
 * relocated copy of the program image (pie/, docs/privatization-pie.md).
 *
 * The compiler is the one chosen at configure time, or AMPI_CC (AMPI_CXX for
 * ampicxx, AMPI_FC for ampif90, AMPI_F77 for ampif77) from the environment,
 * split on white space (AMPI_CC="ccache clang" works).  The wrapper execs
 * it, so its exit status is the wrapper's.
 *
 * The wrapper's own options (-show, -showme:..., -compile-info, -link-info,
 * -ampi-help) are listed in usage() below.  They follow the conventions of
 * the Open MPI and MPICH wrappers, which is what build systems (CMake's
 * FindMPI, Meson, autoconf macros) interrogate.
 */
#define _GNU_SOURCE
#include "run_compiler.h"
#include "start/fortran_io_names.h"
#include "wrapper_config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(AMPI_WRAPPER_FORTRAN) && AMPI_WRAPPER_FORTRAN == 77
#define WRAPPER_NAME "ampif77"
#define COMPILER_ENV "AMPI_F77"
#define MPICH_ENVS "MPICH_F77"
#define DEFAULT_COMPILER AMPI_DEFAULT_FC
#define PLUGIN_MAJOR AMPI_DEFAULT_FC_MAJOR
#define LANGUAGE_NAME "Fortran 77"
#elif defined(AMPI_WRAPPER_FORTRAN)
#define WRAPPER_NAME "ampif90"
#define COMPILER_ENV "AMPI_FC"
#define MPICH_ENVS "MPICH_FC", "MPICH_F90"
#define DEFAULT_COMPILER AMPI_DEFAULT_FC
#define PLUGIN_MAJOR AMPI_DEFAULT_FC_MAJOR
#define LANGUAGE_NAME "Fortran"
#elif defined(AMPI_WRAPPER_CXX)
#define WRAPPER_NAME "ampicxx"
#define COMPILER_ENV "AMPI_CXX"
#define MPICH_ENVS "MPICH_CXX"
#define DEFAULT_COMPILER AMPI_DEFAULT_CXX
#define PLUGIN_MAJOR AMPI_DEFAULT_CC_MAJOR
#define LANGUAGE_NAME "C++"
#else
#define WRAPPER_NAME "ampicc"
#define COMPILER_ENV "AMPI_CC"
#define MPICH_ENVS "MPICH_CC"
#define DEFAULT_COMPILER AMPI_DEFAULT_CC
#define PLUGIN_MAJOR AMPI_DEFAULT_CC_MAJOR
#define LANGUAGE_NAME "C"
#endif

/* Response files (@file) are read for the link decision; this bounds the
 * nesting of @file inside @file. */
#define MAX_RESPONSE_DEPTH 8

typedef enum {
    MODE_RUN,          /* exec the compiler */
    MODE_SHOW,         /* -show, -showme: print the command */
    MODE_SHOW_COMPILE, /* -showme:compile */
    MODE_SHOW_LINK,    /* -showme:link */
    MODE_SHOW_COMMAND, /* -showme:command */
    MODE_SHOW_INCDIRS, /* -showme:incdirs */
    MODE_SHOW_LIBDIRS, /* -showme:libdirs */
    MODE_SHOW_LIBS,    /* -showme:libs */
    MODE_SHOW_VERSION, /* -showme:version */
    MODE_COMPILE_INFO, /* -compile-info, -compile_info */
    MODE_LINK_INFO,    /* -link-info, -link_info */
    MODE_HELP,         /* -ampi-help, -showme:help */
} wrap_mode_t;

typedef struct {
    char **items; /* NULL-terminated, so it can be handed to execvp */
    size_t count;
    size_t capacity;
} strv_t;

typedef enum {
    PRIVATIZE_TLS,  /* every rank gets its own globals (the default) */
    PRIVATIZE_PIE,  /* every rank gets its own copy of the program image */
    PRIVATIZE_NONE, /* the program is built as it is */
} privatize_t;

typedef struct {
    char *incdir;
    char *libdir;
} paths_t;

/* The wrapper's own settings, from its options and the environment. */
typedef struct {
    wrap_mode_t mode;
    privatize_t privatize;
    bool gnu;           /* the compiler is GCC's (gcc, g++, gfortran) */
    int clang_major;    /* the compiler is Clang of this version, or 0 */
    bool plugin_ok;     /* the compiler can load our privatization plugin */
    bool auto_pie;      /* pie chosen because it cannot */
    bool strict;        /* Clang's own errors and warnings (-ampi-strict) */
    bool werror;        /* the user asked for -Werror */
    bool openmp;        /* the user asked for OpenMP (-fopenmp...) */
    strv_t plugin_args; /* for the C/C++ plugin: report, warning groups */
} settings_t;

/* What the user's arguments ask the compiler to do. */
typedef struct {
    bool has_input;   /* a source, object, library, - or @file */
    bool stops_early; /* -c, -S, -E, -M, -MM, -fsyntax-only, ... */
    bool no_program;  /* -shared or -r: links, but not a program */
} scan_t;

static const struct {
    const char *flag;
    wrap_mode_t mode;
} own_flags[] = {
    {"-show", MODE_SHOW},
    {"-showme", MODE_SHOW},
    {"-showme:compile", MODE_SHOW_COMPILE},
    {"-showme:link", MODE_SHOW_LINK},
    {"-showme:command", MODE_SHOW_COMMAND},
    {"-showme:incdirs", MODE_SHOW_INCDIRS},
    {"-showme:libdirs", MODE_SHOW_LIBDIRS},
    {"-showme:libs", MODE_SHOW_LIBS},
    {"-showme:version", MODE_SHOW_VERSION},
    {"-showme:help", MODE_HELP},
    {"-compile-info", MODE_COMPILE_INFO},
    {"-compile_info", MODE_COMPILE_INFO},
    {"-link-info", MODE_LINK_INFO},
    {"-link_info", MODE_LINK_INFO},
    {"-ampi-help", MODE_HELP},
};

/* Options after which the compiler stops before linking. */
static const char *const stop_flags[] = {
    "-c",           "-S",         "-E",
    "-M",           "-MM",        "-fsyntax-only",
    "--compile",    "--assemble", "--preprocess",
    "--precompile", "--analyze",  "-emit-ast"};

/* Options whose value is the next argument ("-o file", "-I dir"). */
/* clang-format off */
static const char *const options_with_value[] = {
    /* output, language, preprocessor */
    "-o", "-x", "-I", "-D", "-U", "-include", "-imacros", "-isystem",
    "-idirafter", "-iquote", "-iprefix", "-iwithprefix", "-iwithprefixbefore",
    "-isysroot", "-imultilib", "-iframework", "-cxx-isystem", "-ivfsoverlay",
    "-MF", "-MT", "-MQ", "-MJ", "-A",
    /* linker */
    "-L", "-l", "-Xlinker", "-T", "-u", "-z", "-e",
    /* passed to other tools */
    "-Xpreprocessor", "-Xassembler", "-Xclang", "-Xanalyzer",
    "-Xopenmp-target", "-mllvm",
    /* driver */
    "-B", "-F", "-target", "-arch", "--sysroot", "--param", "-aux-info",
    "-dumpdir", "-dumpbase", "-dumpbase-ext", "-resource-dir",
    "--serialize-diagnostics", "-working-directory",
    /* flang: where .mod files go */
    "-J", "-module-dir",
};
/* clang-format on */

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Reports a problem on one line and exits with status 1. */
static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;

    fputs(WRAPPER_NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size);
    if (p == NULL)
        die("out of memory");
    return p;
}

static char *concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = xrealloc(NULL, la + lb + 1);
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    return s;
}

static void strv_push(strv_t *v, const char *s)
{
    if (v->count + 2 > v->capacity) {
        v->capacity = v->capacity ? 2 * v->capacity : 16;
        v->items = xrealloc(v->items, v->capacity * sizeof(char *));
    }
    v->items[v->count++] = concat(s, "");
    v->items[v->count] = NULL;
}

static void strv_free(strv_t *v)
{
    for (size_t i = 0; i < v->count; i++)
        free(v->items[i]);
    free(v->items);
    *v = (strv_t){0};
}

static void strv_append(strv_t *v, const strv_t *from)
{
    for (size_t i = 0; i < from->count; i++)
        strv_push(v, from->items[i]);
}

static bool in_list(const char *arg, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(arg, list[i]) == 0)
            return true;
    return false;
}

static bool is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Cuts the last path component: "/a/b/c" becomes "/a/b", "/a" becomes "". */
static void cut_last_component(char *path)
{
    char *slash = strrchr(path, '/');
    if (slash != NULL)
        *slash = '\0';
    else
        path[0] = '\0';
}

/*
 * The prefix is the parent of the directory holding this executable.
 * /proc/self/exe names the real file even when the wrapper was started
 * through a symbolic link; argv[0] is the fallback where /proc is missing.
 */
static char *find_prefix(const char *argv0)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    int err = errno;

    if (n > 0) {
        exe[n] = '\0';
    } else if (strchr(argv0, '/') == NULL || realpath(argv0, exe) == NULL) {
        die("cannot find its own location (/proc/self/exe: %s); "
            "install it as <prefix>/bin/" WRAPPER_NAME,
            strerror(err));
    }
    cut_last_component(exe); /* <prefix>/bin */
    cut_last_component(exe); /* <prefix> */
    return concat(exe, "");
}

/*
 * The build tree always uses include/ and lib/.  An installed tree uses the
 * install directories chosen at configure time (lib/x86_64-linux-gnu, say),
 * when they differ from those and exist.
 */
static char *prefix_dir(const char *prefix, const char *installed,
                        const char *plain)
{
    char *dir = concat(prefix, installed);
    if (strcmp(installed, plain) != 0 && is_directory(dir))
        return dir;
    free(dir);
    return concat(prefix, plain);
}

static void find_paths(const char *argv0, paths_t *paths)
{
    char *prefix = find_prefix(argv0);
    paths->incdir = prefix_dir(prefix, "/" AMPI_INSTALL_INCLUDEDIR, "/include");
    paths->libdir = prefix_dir(prefix, "/" AMPI_INSTALL_LIBDIR, "/lib");
    free(prefix);
}

/*
 * What -privatize=pie adds to a compilation (pie/README.md): position-
 * independent code, whose dynamic relocations the runtime applies to each
 * rank's copy of the program.  GCC (also gfortran) reads a shared library's
 * variables through copy relocations unless told otherwise, and a copy
 * cannot share those.  TLS accesses go through %fs:0 (not flang: it lacks
 * the flag), so the program's own thread-local variables are per rank too.
 */
static void add_pie_compile_flags(strv_t *v, const settings_t *set)
{
    strv_push(v, "-fPIE");
#if defined(AMPI_WRAPPER_FORTRAN)
    if (set->gnu)
        strv_push(v, "-mno-tls-direct-seg-refs");
#else
    strv_push(v, "-mno-tls-direct-seg-refs");
#endif
    if (set->gnu)
        strv_push(v, "-mno-direct-extern-access");
}

/*
 * What -privatize=tls adds to a compilation.  Fortran: the pass plugin,
 * which also marks every function "indirect-tls-seg-refs" (flang has no
 * -mno-tls-direct-seg-refs).
 */
static void add_privatize_flags(strv_t *v, const paths_t *paths,
                                const settings_t *set)
{
    if (set->privatize == PRIVATIZE_PIE) {
        add_pie_compile_flags(v, set);
        return;
    }
    if (set->privatize != PRIVATIZE_TLS)
        return;
#if defined(AMPI_WRAPPER_FORTRAN)
    char *plugin = concat(paths->libdir, "/ampi/AmpiPrivatizePass.so");
    char *flag = concat("-fpass-plugin=", plugin);
    strv_push(v, flag);
    free(flag);
    free(plugin);
#else
    /* C and C++: the Clang plugin makes the globals thread-local; every TLS
     * access then reads the thread pointer from %fs:0, which the runtime
     * switches per rank, with an exec model (also in shared libraries). */
    char *plugin = concat(paths->libdir, "/ampi/AmpiPrivatize.so");
    char *flag = concat("-fplugin=", plugin);
    strv_push(v, flag);
    strv_push(v, "-mno-tls-direct-seg-refs");
    strv_push(v, "-ftls-model=initial-exec");
    strv_append(v, &set->plugin_args);
    free(flag);
    free(plugin);
#endif
}

/*
 * C only: what GCC 12 (what mpicc drives on most systems) warns about in old
 * C, Clang 16 and later reject: calls to undeclared functions, implicit
 * int, integer/pointer conversions, incompatible (function) pointers.  They
 * stay warnings, as with mpicc, unless the user asks for -Werror or for
 * Clang's errors (-ampi-strict, AMPI_STRICT_C=1).
 */
static void add_old_c_flags(strv_t *v, const settings_t *set)
{
#if !defined(AMPI_WRAPPER_FORTRAN) && !defined(AMPI_WRAPPER_CXX)
    /* Only GCC and Clang are known to take these flags. */
    if (set->strict || set->werror || (!set->gnu && !set->clang_major))
        return;
    strv_push(v, "-Wno-error=implicit-function-declaration");
    strv_push(v, "-Wno-error=implicit-int");
    strv_push(v, "-Wno-error=int-conversion");
    strv_push(v, "-Wno-error=incompatible-pointer-types");
    if (set->clang_major >= 16)
        strv_push(v, "-Wno-error=incompatible-function-pointer-types");
#else
    (void)v;
    (void)set;
#endif
}

/*
 * C and C++ with Clang: the warnings Clang gives by default and GCC 12
 * (what mpicc and mpicxx drive on most systems) gives only with -Wall or
 * -Wextra, or not at all, which old code prints by the hundred.  Placed
 * before the user's arguments, so that -Wall, -Wextra or -Wfoo there turn
 * them on again; -ampi-strict or AMPI_STRICT_C=1 keeps Clang's defaults.
 * Checked against Clang 19's tables: no group here holds a diagnostic that
 * is an error by default but return-type's return-mismatch, which stays
 * one.  Not for older Clangs, whose groups held other errors.
 */
#if !defined(AMPI_WRAPPER_FORTRAN)
static const char *const quiet_warnings[] = {
    "-Wno-absolute-value",
    "-Wno-array-bounds",
    "-Wno-comment",
    "-Wno-constant-logical-operand",
    "-Wno-empty-body",
    "-Wno-format", /* format-security, format-extra-args... */
    "-Wno-header-guard",
    "-Wno-implicit-const-int-float-conversion",
    "-Wno-literal-conversion",
    "-Wno-parentheses", /* dangling-else, parentheses-equality... */
    "-Wno-pointer-bool-conversion",
    "-Wno-shift-negative-value",
    "-Wno-single-bit-bitfield-constant-conversion",
    "-Wno-sizeof-array-div",
    "-Wno-sizeof-pointer-memaccess",
    "-Wno-string-plus-int",
    "-Wno-switch",
    "-Wno-tautological-compare",
    "-Wno-uninitialized",
    "-Wno-unsequenced",
    "-Wno-unused-command-line-argument", /* -lm with -c... */
    "-Wno-unused-value",
#if defined(AMPI_WRAPPER_CXX)
    "-Wno-dynamic-class-memaccess",
    "-Wno-inconsistent-missing-override",
    "-Wno-mismatched-new-delete",
#else
    "-Wno-deprecated-non-prototype",
    "-Wno-main-return-type",
    "-Wno-pointer-sign",
    "-Wno-return-type", /* g++ has it by default: C only */
    "-Werror=return-mismatch",
#endif
};
#endif

static void add_quiet_flags(strv_t *v, const settings_t *set)
{
#if !defined(AMPI_WRAPPER_FORTRAN)
    if (set->strict || set->clang_major < 19)
        return;
    for (size_t i = 0; i < sizeof(quiet_warnings) / sizeof(quiet_warnings[0]);
         i++)
        strv_push(v, quiet_warnings[i]);
#else
    (void)v;
    (void)set;
#endif
}

/* Pushes the words of value (split on white space); false if it has none. */
static bool push_words(strv_t *v, const char *value)
{
    size_t before = v->count;
    char *copy = concat(value, "");
    for (char *word = strtok(copy, " \t\n"); word != NULL;
         word = strtok(NULL, " \t\n"))
        strv_push(v, word);
    free(copy);
    return v->count > before;
}

static void add_compile_flags(strv_t *v, const paths_t *paths,
                              const settings_t *set)
{
    char *flag = concat("-I", paths->incdir);
#if defined(AMPI_WRAPPER_FORTRAN)
    /* gfortran's mpi.mod (use mpi) first: include/mpi.mod is flang's.
     * gfortran (10 and later) rejects calls passing different types to the
     * same choice-buffer argument of an external procedure (MPI_SEND of
     * INTEGER, then of REAL); the MPI binding needs that, so it is made a
     * warning, as flang has it. */
    if (set->gnu) {
        char *gfortran = concat(flag, "/gfortran");
        strv_push(v, gfortran);
        free(gfortran);
    }
#endif
    strv_push(v, flag);
    free(flag);
#if defined(AMPI_WRAPPER_FORTRAN)
    if (set->gnu)
        strv_push(v, "-fallow-argument-mismatch");
#endif
    add_old_c_flags(v, set);
    add_quiet_flags(v, set);
    add_privatize_flags(v, paths, set);
#if !defined(AMPI_WRAPPER_FORTRAN)
    push_words(v, AMPI_SANITIZE_CFLAGS);
#endif
}

/*
 * What -privatize=pie adds to a program's link: a position-independent
 * executable (flang's driver makes one anyway, and has no -pie), every
 * symbol bound at startup (the runtime reads what each relocation resolved
 * to from the loaded program), and the note that asks the runtime for
 * per-rank copies (pie/note.S, in libampi_main.a).  -znow is spelled
 * without the comma because CMake's FindMPI drops "-Wl,-z,..." from the
 * link flags it reads (-showme:link) but keeps other -Wl, flags.
 */
static void add_pie_link_flags(strv_t *v, const settings_t *set)
{
#if defined(AMPI_WRAPPER_FORTRAN)
    if (set->gnu)
        strv_push(v, "-pie");
#else
    (void)set;
    strv_push(v, "-pie");
#endif
    strv_push(v, "-Wl,-znow");
    strv_push(v, "-Wl,--undefined=amp_pie_note");
}

/* The Fortran runtime's END and STOP must end one rank, not the process
 * (start/fortran_main.c for flang, start/gfortran_main.c for gfortran). */
static void add_fortran_wraps(strv_t *v, const settings_t *set)
{
#if defined(AMPI_WRAPPER_FORTRAN)
    if (set->gnu) {
        strv_push(v, "-Wl,--wrap=_gfortran_stop_numeric");
        strv_push(v, "-Wl,--wrap=_gfortran_stop_string");
        /* The command line of a subroutine MPI_Main (main_wrap.c). */
        strv_push(v, "-Wl,--undefined=amp_gfortran_args");
        return;
    }
    strv_push(v, "-Wl,--wrap=_FortranAProgramEndStatement");
    strv_push(v, "-Wl,--wrap=_FortranAStopStatement");
    strv_push(v, "-Wl,--wrap=_FortranAStopStatementText");
    strv_push(v, "-Wl,--undefined=amp_flang_args");
    /* One I/O statement at a time (start/fortran_io.c). */
#define WRAP_ONE(name) "-Wl,--wrap=" #name,
    static const char *const io[] = {AMP_FORTRAN_IO_BEGINS(WRAP_ONE)};
#undef WRAP_ONE
    for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
        strv_push(v, io[i]);
    strv_push(v, "-Wl,--wrap=_FortranAioEndIoStatement");
#else
    (void)v;
    (void)set;
#endif
}

/* OpenMP with LLVM's runtime (libomp): a rank's parallel regions run on
 * threads of the rank without blocking its PE (start/omp_fork.c,
 * omp_icv.c, in libampi_main.a; docs/mpi-support.md).  Unused symbols
 * under GCC's libgomp, and harmless. */
static void add_openmp_wraps(strv_t *v, const settings_t *set)
{
    static const char *const wraps[] = {
        "-Wl,--wrap=__kmpc_fork_call", "-Wl,--wrap=__kmpc_fork_call_if",
        "-Wl,--wrap=__kmpc_push_num_threads",
        "-Wl,--wrap=__kmpc_push_proc_bind", "-Wl,--wrap=omp_set_num_threads"};
    if (!set->openmp)
        return;
    for (size_t i = 0; i < sizeof(wraps) / sizeof(wraps[0]); i++)
        strv_push(v, wraps[i]);
}

/* A program gets main wrapped and libampi_main; a shared object only needs
 * libampi. */
static void add_link_flags(strv_t *v, const paths_t *paths,
                           const settings_t *set, bool program)
{
    char *libpath = concat("-L", paths->libdir);
    char *rpath = concat("-Wl,-rpath,", paths->libdir);

#if defined(AMPI_WRAPPER_FORTRAN)
    push_words(v, AMPI_SANITIZE_FORTRAN_LDFLAGS);
#else
    push_words(v, AMPI_SANITIZE_LDFLAGS);
#endif
    if (program) {
        if (set->privatize == PRIVATIZE_PIE)
            add_pie_link_flags(v, set);
        /* main may be in an archive (-lfoo, libfoo.a) named before
         * libampi_main, which is the first to need it once main is
         * wrapped: asked for from the start, it is taken from there. */
        strv_push(v, "-Wl,-u,main");
        strv_push(v, "-Wl,--wrap=main");
        add_fortran_wraps(v, set);
        add_openmp_wraps(v, set);
    }
    strv_push(v, libpath);
    if (program)
        strv_push(v, "-lampi_main");
    strv_push(v, "-lampi");
    strv_push(v, rpath);
    strv_push(v, "-lpthread");
    free(libpath);
    free(rpath);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/*
 * The compiler command: AMPI_CC split on white space; else MPICH_CC, which
 * MPICH's wrappers honour and CMake's FindMPI sets to the project's own
 * compiler while it asks for flags (so that -showme:compile answers for
 * the compiler that will use them), unless it names one of these wrappers;
 * else the default.
 */
static void add_compiler(strv_t *v)
{
    static const char *const mpich[] = {MPICH_ENVS};
    const char *env = getenv(COMPILER_ENV);

    if (env != NULL && push_words(v, env))
        return;
    for (size_t i = 0; i < sizeof(mpich) / sizeof(mpich[0]); i++) {
        env = getenv(mpich[i]);
        if (env == NULL || strncmp(base_name(env), "ampi", 4) == 0)
            continue;
        if (push_words(v, env))
            return;
    }
    strv_push(v, DEFAULT_COMPILER);
}

/* Splits a response file the way GCC and Clang read one: white space
 * separates words; quotes group; a backslash takes the next character. */
static void split_response(const char *text, strv_t *words)
{
    size_t len = strlen(text);
    char *word = xrealloc(NULL, len + 1);
    const char *p = text;

    while (*p != '\0') {
        size_t n = 0;
        char quote = '\0';
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '\0')
            break;
        for (; *p != '\0'; p++) {
            if (quote == '\0' && strchr(" \t\n\r", *p) != NULL)
                break;
            if (*p == '\\' && p[1] != '\0' && quote != '\'')
                word[n++] = *++p;
            else if (quote == '\0' && (*p == '\'' || *p == '"'))
                quote = *p;
            else if (*p == quote)
                quote = '\0';
            else
                word[n++] = *p;
        }
        word[n] = '\0';
        strv_push(words, word);
    }
    free(word);
}

/* Reads @file's words into words; false when it cannot be read. */
static bool read_response(const char *path, strv_t *words)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0, cap = 0, got;

    if (f == NULL)
        return false;
    do {
        if (cap - len < 4096) {
            cap = cap ? 2 * cap : 8192;
            text = xrealloc(text, cap);
        }
        got = fread(text + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    fclose(f);
    text[len] = '\0';
    split_response(text, words);
    free(text);
    return true;
}

static void scan_args(char *const *args, size_t n, scan_t *scan, int depth);

static void scan_response(const char *arg, scan_t *scan, int depth)
{
    strv_t words = {0};

    if (depth < MAX_RESPONSE_DEPTH && read_response(arg + 1, &words))
        scan_args(words.items, words.count, scan, depth + 1);
    else
        scan->has_input = true; /* the compiler takes it as a file name */
    strv_free(&words);
}

/* Records what the user's arguments ask for.  Only the options that change
 * the link decision matter; everything else passes through untouched. */
static void scan_args(char *const *args, size_t n, scan_t *scan, int depth)
{
    bool options_done = false;

    for (size_t i = 0; i < n; i++) {
        const char *arg = args[i];

        if (arg[0] == '@' && !options_done) {
            scan_response(arg, scan, depth);
        } else if (options_done || arg[0] != '-' || arg[1] == '\0') {
            scan->has_input = true; /* a file, or - for standard input */
        } else if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (in_list(arg, stop_flags, COUNT_OF(stop_flags))) {
            scan->stops_early = true;
        } else if (strcmp(arg, "-shared") == 0 || strcmp(arg, "-r") == 0) {
            scan->no_program = true;
        } else if (strncmp(arg, "-l", 2) == 0 || strncmp(arg, "-Wl,", 4) == 0 ||
                   strcmp(arg, "-Xlinker") == 0) {
            scan->has_input = true; /* the driver runs the linker for it */
        }
        if (in_list(arg, options_with_value, COUNT_OF(options_with_value)))
            i++;
    }
}

static bool is_own_flag(const char *arg, wrap_mode_t *mode)
{
    /* Open MPI spells these with one dash or two: --showme:link. */
    const char *flag = strncmp(arg, "--showme", 8) == 0 ? arg + 1 : arg;

    for (size_t i = 0; i < COUNT_OF(own_flags); i++) {
        if (strcmp(flag, own_flags[i].flag) == 0) {
            *mode = own_flags[i].mode;
            return true;
        }
    }
    if (strncmp(flag, "-showme:", 8) == 0)
        die("unknown option '%s' (see " WRAPPER_NAME " -ampi-help)", arg);
    return false;
}

/* Reads a privatization mode; where names the flag or variable it came
 * from, for the error message. */
static privatize_t parse_privatize(const char *value, const char *where)
{
    if (strcmp(value, "tls") == 0)
        return PRIVATIZE_TLS;
    if (strcmp(value, "pie") == 0)
        return PRIVATIZE_PIE;
    if (strcmp(value, "none") == 0)
        return PRIVATIZE_NONE;
    die("unknown privatization mode '%s' in %s (use tls, pie or none)", value,
        where);
}

/* Whether a compiler's name is GCC's C, C++ or Fortran compiler (gcc,
 * g++, gfortran, with any target prefix or version suffix; clang++ is not
 * g++). */
static bool name_is_gnu(const char *word)
{
    const char *name = base_name(word);
    return strstr(name, "clang") == NULL &&
           (strstr(name, "gcc") != NULL || strstr(name, "g++") != NULL ||
            strstr(name, "gfortran") != NULL);
}

/* The major version after "version " in a --version banner, or -1. */
static int banner_major(const char *banner)
{
    const char *v = strstr(banner, "version ");
    return v ? atoi(v + 8) : -1;
}

/*
 * What the compiler is, from its name and, for a name that does not say
 * (cc, c++, a clang of another version), from its --version banner: GCC's,
 * or the Clang (flang-new for Fortran) whose major version our
 * privatization plugin was built for.  A compiler that cannot be run is
 * taken to be what its name says; running it will tell the user.
 */
static void classify_compiler(settings_t *set)
{
    strv_t words = {0};
    char banner[1024];

    add_compiler(&words);
    set->gnu = false;
    for (size_t i = 0; i < words.count; i++)
        set->gnu = set->gnu || name_is_gnu(words.items[i]);
    bool is_default =
        words.count == 1 && strcmp(words.items[0], DEFAULT_COMPILER) == 0;
    set->plugin_ok = !set->gnu;
    set->clang_major = set->gnu ? 0 : atoi(AMPI_DEFAULT_CC_MAJOR);
    if (!is_default && !set->gnu &&
        amp_wrapper_banner(words.items, banner, sizeof(banner)) == 0) {
#if defined(AMPI_WRAPPER_FORTRAN)
        const char *family = "flang";
#else
        const char *family = "clang version";
#endif
        int major = banner_major(banner);
        set->gnu = strstr(banner, "Free Software Foundation") != NULL ||
                   strncmp(banner, "GNU ", 4) == 0;
        set->plugin_ok =
            strstr(banner, family) != NULL && major == atoi(PLUGIN_MAJOR);
        set->clang_major = strstr(banner, "clang version") ? major : 0;
    }
    strv_free(&words);
}

/*
 * The mode when neither -privatize= nor AMPI_PRIVATIZE gives one: tls when
 * the compiler can load the privatization plugin (Clang, or flang-new for
 * Fortran, of the version it was built for), else pie, which works with
 * any compiler (gcc, g++, gfortran, another Clang).
 */
static privatize_t default_privatize(settings_t *set)
{
    if (set->plugin_ok)
        return PRIVATIZE_TLS;
    set->auto_pie = true;
    return PRIVATIZE_PIE;
}

static void check_privatize(const settings_t *set)
{
    if (set->privatize != PRIVATIZE_TLS || set->plugin_ok)
        return;
#if defined(AMPI_WRAPPER_FORTRAN)
    die("-privatize=tls needs flang-new %s (the privatization pass is "
        "flang's); with this compiler use -privatize=pie (its default) or "
        "none",
        PLUGIN_MAJOR);
#else
    die("-privatize=tls needs Clang %s (the privatization plugin is "
        "Clang's); with this compiler use -privatize=pie (its default) or "
        "none",
        PLUGIN_MAJOR);
#endif
}

/* Separates the wrapper's own options from the user's; the last of the
 * wrapper's options wins, and -privatize= wins over AMPI_PRIVATIZE. */
/*
 * -privatize-report[=FILE] and -W[no-]ampi-GROUP belong to the privatization
 * plugin: they become its arguments (clang itself would reject them).  A
 * report names every variable privatized or left shared and every warning;
 * FILE may be a directory, which then gets one SOURCE.privatize.json per
 * source.
 */
static bool take_plugin_option(const char *arg, strv_t *plugin_args)
{
    const char *prefix = "-fplugin-arg-ampi-privatize-";
    if (strcmp(arg, "-privatize-report") == 0)
        arg = "-privatize-report=.";
    if (strncmp(arg, "-privatize-report=", 18) == 0) {
#if defined(AMPI_WRAPPER_FORTRAN)
        die("-privatize-report: the Fortran privatization pass writes no "
            "report yet");
#endif
        char *report = concat("report=", arg + 18);
        char *flag = concat(prefix, report);
        strv_push(plugin_args, flag);
        free(flag);
        free(report);
        return true;
    }
    if (strncmp(arg, "-Wampi-", 7) == 0 ||
        strncmp(arg, "-Wno-ampi-", 10) == 0) {
        char *flag = concat(prefix, arg + 1);
        strv_push(plugin_args, flag);
        free(flag);
        return true;
    }
    return false;
}

/* One line on stderr that the build goes on from. */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
    va_list ap;

    fputs(WRAPPER_NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The value of a Charm++ option at argv[*i] (the next argument). */
static const char *charm_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        die("%s needs a value", argv[*i]);
    return argv[++*i];
}

/*
 * The options of Charm++'s AMPI wrappers (charmc), so that Makefiles written
 * for it build: its privatization flags become -privatize= modes (*flag),
 * what holds here anyway is accepted quietly, and the rest is accepted with
 * one line saying it has no effect.  Returns whether argv[*i] was one.
 */
static bool take_charm_option(int argc, char **argv, int *i, const char **flag)
{
    static const char *const tls[] = {"-tlsglobals", "-swapglobals"};
    static const char *const pie[] = {"-pieglobals", "-pipglobals",
                                      "-fsglobals"};
    static const char *const inert[] = {"-module", "-tracemode", "-thread",
                                        "-balancer"};
    const char *arg = argv[*i];

    if (in_list(arg, tls, COUNT_OF(tls))) {
        *flag = "-privatize=tls";
    } else if (in_list(arg, pie, COUNT_OF(pie))) {
        *flag = "-privatize=pie";
    } else if (strcmp(arg, "-language") == 0) {
        const char *lang = charm_value(argc, argv, i);
        if (strcmp(lang, "ampi") != 0 && strcmp(lang, "ampif") != 0)
            die("-language %s: only ampi and ampif programs are built here",
                lang);
    } else if (strcmp(arg, "-memory") == 0) {
        /* Rank memory is always isomalloc here. */
        const char *kind = charm_value(argc, argv, i);
        if (strcmp(kind, "isomalloc") != 0)
            note("-memory %s has no effect here: every rank's memory is "
                 "isomalloc (docs/isomalloc.md)",
                 kind);
    } else if (in_list(arg, inert, COUNT_OF(inert))) {
        const char *value = charm_value(argc, argv, i);
        if (strcmp(arg, "-balancer") == 0)
            note("-balancer %s has no effect at link time here; choose the "
                 "balancer at run time with +balancer %s",
                 value, value);
        else
            note("%s %s has no effect here", arg, value);
    } else if (strcmp(arg, "-production") == 0) {
        note("-production has no effect here");
    } else {
        return false;
    }
    return true;
}

static bool env_flag(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static void parse_args(int argc, char **argv, strv_t *user, settings_t *set)
{
    const char *env = getenv("AMPI_PRIVATIZE");
    const char *flag = NULL;

    set->mode = MODE_RUN;
    set->auto_pie = false;
    set->strict = env_flag("AMPI_STRICT_C");
    set->werror = false;
    set->openmp = false;
    set->plugin_args = (strv_t){0};
    for (int i = 1; i < argc; i++) {
        wrap_mode_t own;
        if (take_plugin_option(argv[i], &set->plugin_args) ||
            take_charm_option(argc, argv, &i, &flag))
            continue;
        if (strcmp(argv[i], "-ampi-strict") == 0 ||
            strcmp(argv[i], "-ampi-strict-c") == 0)
            set->strict = true;
        else if (strncmp(argv[i], "-privatize=", 11) == 0)
            flag = argv[i];
        else if (strcmp(argv[i], "-privatize") == 0)
            die("-privatize needs a mode: -privatize=tls, -privatize=pie "
                "or -privatize=none");
        else if (is_own_flag(argv[i], &own))
            set->mode = own;
        else
            strv_push(user, argv[i]);
        set->werror = set->werror || strcmp(argv[i], "-Werror") == 0;
        set->openmp = set->openmp || strcmp(argv[i], "-fopenmp") == 0 ||
                      strncmp(argv[i], "-fopenmp=", 9) == 0;
    }
    classify_compiler(set);
    if (flag != NULL)
        set->privatize = parse_privatize(flag + 11, flag);
    else if (env != NULL && env[0] != '\0')
        set->privatize = parse_privatize(env, "AMPI_PRIVATIZE");
    else
        set->privatize = default_privatize(set);
    check_privatize(set);
}

/* Characters that need no quoting when a command is shown for a shell. */
static bool shell_safe(const char *s)
{
    if (*s == '\0')
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789-_./=+,:%@") == strlen(s);
}

static void print_word(const char *s)
{
    if (shell_safe(s)) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s != '\0'; s++) {
        if (strchr("\"\\$`", *s) != NULL)
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

static void print_words(const strv_t *v)
{
    for (size_t i = 0; i < v->count; i++) {
        if (i > 0)
            putchar(' ');
        print_word(v->items[i]);
    }
    putchar('\n');
}

static void usage(void)
{
    printf("usage: " WRAPPER_NAME " [compiler arguments...]\n"
           "Compiles and links " LANGUAGE_NAME " programs for AMPI: runs the "
           "compiler with AMPI's\ninclude directory and, when it links, "
           "AMPI's libraries (main is wrapped).\n\n"
           "Wrapper options (every other argument goes to the compiler):\n"
           "  -show, -showme      print the command instead of running it\n"
           "  -showme:compile     print the compile flags\n"
           "  -showme:link        print the link flags\n"
           "  -showme:command     print the compiler command\n"
           "  -showme:incdirs     print the include directories\n"
           "  -showme:libdirs     print the library directories\n"
           "  -showme:libs        print the library names\n"
           "  -showme:version     print the AMPI version\n"
           "  -compile-info       print the compiler and the compile flags\n"
           "  -link-info          print the compiler, compile and link flags\n"
           "  -ampi-help          print this help (-help goes to the compiler)"
           "\n  -privatize=MODE     tls (default): each rank gets its own "
           "global variables;\n                      pie: each rank gets its "
           "own copy of the program image\n                      (any "
           "compiler; the default with gfortran);\n                      "
           "none: build the program as it is"
           "\n  -ampi-strict        keep Clang's own errors and warnings "
           "(by default old C's\n                      errors are warnings and "
           "warnings GCC gives only with\n                      -Wall or "
           "-Wextra are off, as with mpicc)"
           "\n\nEnvironment:\n"
           "  " COMPILER_ENV "  the " LANGUAGE_NAME " compiler to run (default "
           "%s)\n"
           "  AMPI_PRIVATIZE  the privatization mode when -privatize= is not "
           "given\n"
           "  AMPI_STRICT_C   1: as -ampi-strict\n",
           DEFAULT_COMPILER);
}

/* Answers the -showme:... family, whose output is the flags alone. */
static void show_part(const settings_t *set, const paths_t *paths)
{
    wrap_mode_t mode = set->mode;
    strv_t v = {0};

    if (mode == MODE_SHOW_COMPILE)
        add_compile_flags(&v, paths, set);
    else if (mode == MODE_SHOW_LINK || mode == MODE_SHOW_LIBS)
        add_link_flags(&v, paths, set, true);
    else if (mode == MODE_SHOW_COMMAND)
        add_compiler(&v);
    else if (mode == MODE_SHOW_INCDIRS)
        strv_push(&v, paths->incdir);
    else if (mode == MODE_SHOW_LIBDIRS)
        strv_push(&v, paths->libdir);
    if (mode == MODE_SHOW_LIBS) {
        /* The names of the -l flags, as Open MPI prints them. */
        strv_t names = {0};
        for (size_t i = 0; i < v.count; i++)
            if (strncmp(v.items[i], "-l", 2) == 0)
                strv_push(&names, v.items[i] + 2);
        strv_free(&v);
        v = names;
    }
    print_words(&v);
    strv_free(&v);
}

/*
 * Builds the command for the mode.  The command that runs (and -show, which
 * prints it) gets link flags only when the invocation links; -show with no
 * argument at all prints the whole line, as the Open MPI and MPICH wrappers
 * do, for tools that read flags from it.
 */
static void build_command(const settings_t *set, const strv_t *user,
                          const paths_t *paths, strv_t *cmd)
{
    wrap_mode_t mode = set->mode;
    scan_t scan = {0};
    bool compile, link;

    scan_args(user->items, user->count, &scan, 0);
    if (mode == MODE_COMPILE_INFO || mode == MODE_LINK_INFO) {
        compile = true;
        link = mode == MODE_LINK_INFO;
        scan.no_program = false;
    } else if (mode == MODE_SHOW && user->count == 0) {
        compile = link = true;
    } else {
        compile = scan.has_input;
        link = scan.has_input && !scan.stops_early;
    }
    add_compiler(cmd);
    if (compile)
        add_compile_flags(cmd, paths, set);
    strv_append(cmd, user);
    if (link)
        add_link_flags(cmd, paths, set, !scan.no_program);
    if (mode == MODE_RUN && link && !scan.no_program && set->auto_pie)
        note("%s cannot load the privatization plugin; building with "
             "-privatize=pie (each rank gets its own copy of the program)",
             cmd->items[0]);
}

/* Runs the compiler as a child, so that a link failure caused by mixing
 * privatized and plain objects can be explained (run_compiler.c).  Its
 * diagnostics then go through a pipe: C and C++ compilers are told to keep
 * their colours when our own stderr is a terminal. */
static int run(strv_t *cmd)
{
#if !defined(AMPI_WRAPPER_FORTRAN)
    if (isatty(STDERR_FILENO))
        strv_push(cmd, "-fdiagnostics-color=always");
#endif
    return amp_wrapper_run(cmd->items, WRAPPER_NAME, LANGUAGE_NAME " compiler",
                           "set " COMPILER_ENV " to the compiler to use");
}

static bool prints_flags_only(wrap_mode_t mode)
{
    return mode != MODE_RUN && mode != MODE_SHOW && mode != MODE_COMPILE_INFO &&
           mode != MODE_LINK_INFO;
}

/* Frees what it built before returning, so that sanitizer builds
 * (AMPI_SANITIZE) report no leak from the wrapper. */
int main(int argc, char **argv)
{
    strv_t user = {0}, cmd = {0};
    paths_t paths = {0};
    settings_t set;
    int status = 0;

    parse_args(argc, argv, &user, &set);
    if (set.mode == MODE_HELP) {
        usage();
    } else if (set.mode == MODE_SHOW_VERSION) {
        printf(WRAPPER_NAME ": AMPI %s (Language: " LANGUAGE_NAME ")\n",
               AMPI_VERSION_STRING);
    } else {
        find_paths(argv[0], &paths);
        if (prints_flags_only(set.mode)) {
            show_part(&set, &paths);
        } else {
            build_command(&set, &user, &paths, &cmd);
            if (set.mode == MODE_RUN)
                status = run(&cmd);
            else
                print_words(&cmd);
        }
    }
    strv_free(&cmd);
    strv_free(&user);
    strv_free(&set.plugin_args);
    free(paths.incdir);
    free(paths.libdir);
    return status;
}
