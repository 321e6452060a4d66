/*
 * getopt, getopt_long and getopt_long_only with each rank's own position
 * and variables.
 *
 * Each rank parses its own argv (every rank has its own copy) from its own
 * optind, and answers in its own optind, optarg, optopt, read with its own
 * opterr.  The program reaches the rank's variables as libampi's
 * __ampi_optind... thread-locals (every rank has its own copy of them in its
 * TLS block): the privatization plugin renames the program's references
 * (-privatize=tls), and pie privatization points a copy's references at
 * them, or uses the copy's own instance of the variables (a program built
 * by GCC without -mno-direct-extern-access reads them through copy
 * relocations).  The answer also goes to the C library's variables, for
 * code built without privatization; such code rescans by setting the C
 * library's optind to 0 or 1, which is honoured, and silences errors with
 * its opterr = 0.
 *
 * The behaviour is glibc's: argv is permuted so that options come first
 * (unless optstring starts with '+' or POSIXLY_CORRECT is set; a leading
 * '-' returns non-options as option 1), a leading ':' reports a missing
 * argument as ':' and prints nothing, long options may be abbreviated
 * where unambiguous, "W;" takes -W foo as --foo, and the error messages are
 * glibc's words (translated through its message catalogue).
 */
#include "libc/state.h"
#include "mpi/proc.h"

#include <getopt.h>
#include <libintl.h>
#include <stdio.h>
#include <string.h>

enum { PERMUTE, REQUIRE_ORDER, RETURN_IN_ORDER };

/* Not yet decided: go on with the next short option character. */
#define GO_ON (-2)

/* The rank's own getopt variables: every rank's TLS block has its copy. */
AMP_LIBC_EXPORT __thread int __ampi_optind
    __attribute__((tls_model("global-dynamic"))) = 1;
AMP_LIBC_EXPORT __thread char *__ampi_optarg
    __attribute__((tls_model("global-dynamic")));
AMP_LIBC_EXPORT __thread int __ampi_opterr
    __attribute__((tls_model("global-dynamic"))) = 1;
AMP_LIBC_EXPORT __thread int __ampi_optopt
    __attribute__((tls_model("global-dynamic"))) = '?';

/* One call: its arguments and the values it works on. */
typedef struct call {
    int argc;
    char **argv;
    const char *optstring;
    const struct option *longopts;
    int *longind;
    int long_only;
    int print;
    amp_getopt_t *st;
    int optind, optopt;
    char *optarg;
} call_t;

typedef int (*getopt_fn_t)(int, char *const *, const char *);
typedef int (*getopt_long_fn_t)(int, char *const *, const char *,
                                const struct option *, int *);

AMP_LIBC_REAL_FN(getopt_fn_t, getopt)
AMP_LIBC_REAL_FN(getopt_fn_t, __posix_getopt)
AMP_LIBC_REAL_FN(getopt_long_fn_t, getopt_long)
AMP_LIBC_REAL_FN(getopt_long_fn_t, getopt_long_only)

void amp_libc_getopt_vars(void *tp, uintptr_t vars[AMP_PIE_NVARS])
{
    /* The variables' places in the kernel thread's block (the addresses
     * come through __tls_get_addr, which always answers for the kernel
     * thread), moved to the block at tp. */
    char *kernel = amp_tls_kernel_get();
    void *mine[AMP_PIE_NVARS] = {
        [AMP_PIE_VAR_OPTIND] = &__ampi_optind,
        [AMP_PIE_VAR_OPTARG] = &__ampi_optarg,
        [AMP_PIE_VAR_OPTERR] = &__ampi_opterr,
        [AMP_PIE_VAR_OPTOPT] = &__ampi_optopt,
    };
    for (int i = 0; i < AMP_PIE_NVARS; i++)
        vars[i] = (uintptr_t)tp + (uintptr_t)((char *)mine[i] - kernel);
}

/* Where the calling rank's code reads its variables. */
static void locate(amp_getopt_t *st)
{
    amp_rank_t *rank = amp_rank_self();
    amp_libc_getopt_vars(rank->thr.tls, st->at);
    for (int i = 0; i < AMP_PIE_NVARS; i++) {
        uintptr_t own = amp_proc.pie.active
                            ? amp_pie_var_at(&amp_proc.pie, rank->pie_base, i)
                            : 0;
        if (own)
            st->at[i] = own;
    }
    st->located = 1;
}

static int nonoption(const char *arg)
{
    return arg[0] != '-' || arg[1] == '\0';
}

static void reverse(char **argv, int from, int to)
{
    for (to--; from < to; from++, to--) {
        char *t = argv[from];
        argv[from] = argv[to];
        argv[to] = t;
    }
}

/* The options seen since the last non-options (first_nonopt..last_nonopt)
 * move before them, each group in its order. */
static void permute(call_t *c)
{
    amp_getopt_t *st = c->st;
    reverse(c->argv, st->first_nonopt, st->last_nonopt);
    reverse(c->argv, st->last_nonopt, c->optind);
    reverse(c->argv, st->first_nonopt, c->optind);
    st->first_nonopt += c->optind - st->last_nonopt;
    st->last_nonopt = c->optind;
}

static const char *initialize(call_t *c, const char *optstring, int posix)
{
    amp_getopt_t *st = c->st;
    st->first_nonopt = st->last_nonopt = c->optind;
    st->nextchar = NULL;
    if (optstring[0] == '-') {
        st->ordering = RETURN_IN_ORDER;
        optstring++;
    } else if (optstring[0] == '+') {
        st->ordering = REQUIRE_ORDER;
        optstring++;
    } else {
        st->ordering =
            posix || getenv("POSIXLY_CORRECT") ? REQUIRE_ORDER : PERMUTE;
    }
    st->initialized = 1;
    return optstring;
}

static const char *msg(const char *text)
{
    return dgettext("libc", text);
}

/* Whether the long option matched second (p) makes the abbreviation
 * ambiguous with the first one (first). */
static int conflicts(const call_t *c, const struct option *first,
                     const struct option *p)
{
    return c->long_only || first->has_arg != p->has_arg ||
           first->flag != p->flag || first->val != p->val;
}

static void print_ambiguous(const call_t *c, const char *prefix, size_t len,
                            int found)
{
    const struct option *first = &c->longopts[found];
    flockfile(stderr);
    fprintf(stderr, msg("%s: option '%s%s' is ambiguous; possibilities:"),
            c->argv[0], prefix, c->st->nextchar);
    for (int i = 0; c->longopts[i].name; i++)
        if (i == found ||
            (i > found && !strncmp(c->longopts[i].name, c->st->nextchar, len) &&
             conflicts(c, first, &c->longopts[i])))
            fprintf(stderr, " '%s%s'", prefix, c->longopts[i].name);
    fputc('\n', stderr);
    funlockfile(stderr);
}

/* The long option the name at nextchar (len bytes) names: an exact match,
 * else the first abbreviation; *ambiguous when others differ from it. */
static int find_long(const call_t *c, size_t len, int *ambiguous)
{
    const struct option *o = c->longopts;
    int found = -1;
    *ambiguous = 0;
    for (int i = 0; o[i].name; i++)
        if (!strncmp(o[i].name, c->st->nextchar, len) &&
            strlen(o[i].name) == len)
            return i;
    for (int i = 0; o[i].name; i++) {
        if (strncmp(o[i].name, c->st->nextchar, len) != 0)
            continue;
        if (found < 0)
            found = i;
        else if (conflicts(c, &o[found], &o[i]))
            *ambiguous = 1;
    }
    return found;
}

/* The long option's argument, or its error. */
static int long_argument(call_t *c, const char *prefix, const struct option *p,
                         const char *nameend)
{
    if (*nameend) {
        if (p->has_arg) {
            c->optarg = (char *)nameend + 1;
            return 0;
        }
        if (c->print)
            fprintf(stderr,
                    msg("%s: option '%s%s' doesn't allow an argument\n"),
                    c->argv[0], prefix, p->name);
        c->optopt = p->val;
        return '?';
    }
    if (p->has_arg != required_argument)
        return 0;
    if (c->optind < c->argc) {
        c->optarg = c->argv[c->optind++];
        return 0;
    }
    if (c->print)
        fprintf(stderr, msg("%s: option '%s%s' requires an argument\n"),
                c->argv[0], prefix, p->name);
    c->optopt = p->val;
    return c->optstring[0] == ':' ? ':' : '?';
}

/* The long option at nextchar ("name" or "name=value"); -1: not one, to be
 * read as short options (getopt_long_only). */
static int long_option(call_t *c, const char *prefix)
{
    amp_getopt_t *st = c->st;
    const char *nameend = st->nextchar;
    while (*nameend && *nameend != '=')
        nameend++;
    size_t len = (size_t)(nameend - st->nextchar);
    int ambiguous;
    int found = find_long(c, len, &ambiguous);
    if (ambiguous) {
        if (c->print)
            print_ambiguous(c, prefix, len, found);
        st->nextchar += strlen(st->nextchar);
        c->optind++;
        c->optopt = 0;
        return '?';
    }
    if (found < 0) {
        if (c->long_only && c->argv[c->optind][1] != '-' &&
            strchr(c->optstring, *st->nextchar))
            return -1;
        if (c->print)
            fprintf(stderr, msg("%s: unrecognized option '%s%s'\n"), c->argv[0],
                    prefix, st->nextchar);
        st->nextchar = NULL;
        c->optind++;
        c->optopt = 0;
        return '?';
    }
    const struct option *p = &c->longopts[found];
    c->optind++;
    st->nextchar = NULL;
    int err = long_argument(c, prefix, p, nameend);
    if (err)
        return err;
    if (c->longind)
        *c->longind = found;
    if (p->flag) {
        *p->flag = p->val;
        return 0;
    }
    return p->val;
}

/* Skips to the next element to parse, permuting as it goes; the answer
 * when that element ends the call, else GO_ON with nextchar set. */
static int next_element(call_t *c)
{
    amp_getopt_t *st = c->st;
    char **argv = c->argv;
    if (st->last_nonopt > c->optind)
        st->last_nonopt = c->optind;
    if (st->first_nonopt > c->optind)
        st->first_nonopt = c->optind;
    if (st->ordering == PERMUTE) {
        if (st->first_nonopt != st->last_nonopt && st->last_nonopt != c->optind)
            permute(c);
        else if (st->last_nonopt != c->optind)
            st->first_nonopt = c->optind;
        while (c->optind < c->argc && nonoption(argv[c->optind]))
            c->optind++;
        st->last_nonopt = c->optind;
    }
    if (c->optind != c->argc && !strcmp(argv[c->optind], "--")) {
        c->optind++;
        if (st->first_nonopt != st->last_nonopt && st->last_nonopt != c->optind)
            permute(c);
        else if (st->first_nonopt == st->last_nonopt)
            st->first_nonopt = c->optind;
        st->last_nonopt = c->argc;
        c->optind = c->argc;
    }
    if (c->optind == c->argc) {
        if (st->first_nonopt != st->last_nonopt)
            c->optind = st->first_nonopt;
        return -1;
    }
    if (nonoption(argv[c->optind])) {
        if (st->ordering == REQUIRE_ORDER)
            return -1;
        c->optarg = argv[c->optind++];
        return 1;
    }
    return GO_ON;
}

/* A long option at argv[optind], if it is one; GO_ON if not. */
static int maybe_long(call_t *c)
{
    const char *arg = c->argv[c->optind];
    if (!c->longopts)
        return GO_ON;
    if (arg[1] == '-') {
        c->st->nextchar = (char *)arg + 2;
        return long_option(c, "--");
    }
    if (c->long_only && (arg[2] || !strchr(c->optstring, arg[1]))) {
        c->st->nextchar = (char *)arg + 1;
        int code = long_option(c, "-");
        if (code != -1)
            return code;
    }
    return GO_ON;
}

/* The missing argument of short option ch. */
static int missing(call_t *c, char ch)
{
    if (c->print)
        fprintf(stderr, msg("%s: option requires an argument -- '%c'\n"),
                c->argv[0], ch);
    c->optopt = ch;
    return c->optstring[0] == ':' ? ':' : '?';
}

/* -W foo, with "W;" in optstring: the long option foo. */
static int w_option(call_t *c, char ch)
{
    amp_getopt_t *st = c->st;
    if (*st->nextchar != '\0')
        c->optarg = st->nextchar;
    else if (c->optind == c->argc)
        return missing(c, ch);
    else
        c->optarg = c->argv[c->optind];
    st->nextchar = c->optarg;
    c->optarg = NULL;
    return long_option(c, "-W ");
}

/* The short option at nextchar, with its argument. */
static int short_option(call_t *c)
{
    amp_getopt_t *st = c->st;
    char ch = *st->nextchar++;
    const char *spec = strchr(c->optstring, ch);
    if (*st->nextchar == '\0')
        c->optind++;
    if (!spec || ch == ':' || ch == ';') {
        if (c->print)
            fprintf(stderr, msg("%s: invalid option -- '%c'\n"), c->argv[0],
                    ch);
        c->optopt = ch;
        return '?';
    }
    if (spec[0] == 'W' && spec[1] == ';' && c->longopts)
        return w_option(c, ch);
    if (spec[1] != ':')
        return ch;
    if (*st->nextchar != '\0') {
        c->optarg = st->nextchar;
        c->optind++;
    } else if (spec[2] == ':') {
        c->optarg = NULL; /* optional, and not attached */
    } else if (c->optind == c->argc) {
        ch = (char)missing(c, ch);
    } else {
        c->optarg = c->argv[c->optind++];
    }
    st->nextchar = NULL;
    return ch;
}

static int parse(call_t *c, int posix)
{
    amp_getopt_t *st = c->st;
    c->optarg = NULL;
    if (c->argc < 1)
        return -1;
    if (c->optind == 0 || !st->initialized) {
        if (c->optind == 0)
            c->optind = 1;
        c->optstring = initialize(c, c->optstring, posix);
    } else if (c->optstring[0] == '-' || c->optstring[0] == '+') {
        c->optstring++;
    }
    if (c->optstring[0] == ':')
        c->print = 0;
    if (!st->nextchar || *st->nextchar == '\0') {
        int r = next_element(c);
        if (r == GO_ON)
            r = maybe_long(c);
        if (r != GO_ON)
            return r;
        st->nextchar = c->argv[c->optind] + 1;
    }
    return short_option(c);
}

/* One call in a rank: its variables in, parse, its variables out (and the
 * C library's, for code built without privatization). */
static int rank_getopt(amp_libc_rank_t *l, call_t *c, int posix)
{
    amp_getopt_t *st = &l->getopt;
    if (!st->located)
        locate(st);
    int *ind = (int *)st->at[AMP_PIE_VAR_OPTIND];
    int *err = (int *)st->at[AMP_PIE_VAR_OPTERR];
    int *opt = (int *)st->at[AMP_PIE_VAR_OPTOPT];
    char **arg = (char **)st->at[AMP_PIE_VAR_OPTARG];
    if (optind <= 1 && optind != *ind)
        *ind = optind; /* plain code asked to rescan */
    c->st = st;
    c->optind = *ind;
    c->optopt = *opt;
    c->print = *err && opterr;
    int r = parse(c, posix);
    optind = *ind = c->optind;
    optarg = *arg = c->optarg;
    optopt = *opt = c->optopt;
    return r;
}

AMP_LIBC_EXPORT int getopt(int argc, char *const argv[], const char *optstring);
AMP_LIBC_EXPORT int __posix_getopt(int argc, char *const argv[],
                                   const char *optstring);
AMP_LIBC_EXPORT int getopt_long(int argc, char *const argv[],
                                const char *optstring,
                                const struct option *longopts, int *longind);
AMP_LIBC_EXPORT int getopt_long_only(int argc, char *const argv[],
                                     const char *optstring,
                                     const struct option *longopts,
                                     int *longind);

/* getopt, or (posix) what getopt is for programs built for strict POSIX
 * (glibc's headers rename it so without _GNU_SOURCE): no permutation. */
static int short_getopt(int argc, char *const argv[], const char *optstring,
                        int posix)
{
    amp_libc_rank_t *l = amp_libc_self();
    call_t c = {.argc = argc, .argv = (char **)argv, .optstring = optstring};
    if (l)
        return rank_getopt(l, &c, posix);
    getopt_fn_t real = posix ? real___posix_getopt() : real_getopt();
    return real(argc, argv, optstring);
}

int getopt(int argc, char *const argv[], const char *optstring)
{
    return short_getopt(argc, argv, optstring, 0);
}

int __posix_getopt(int argc, char *const argv[], const char *optstring)
{
    return short_getopt(argc, argv, optstring, 1);
}

int getopt_long(int argc, char *const argv[], const char *optstring,
                const struct option *longopts, int *longind)
{
    amp_libc_rank_t *l = amp_libc_self();
    call_t c = {.argc = argc,
                .argv = (char **)argv,
                .optstring = optstring,
                .longopts = longopts,
                .longind = longind};
    return l ? rank_getopt(l, &c, 0)
             : real_getopt_long()(argc, argv, optstring, longopts, longind);
}

int getopt_long_only(int argc, char *const argv[], const char *optstring,
                     const struct option *longopts, int *longind)
{
    amp_libc_rank_t *l = amp_libc_self();
    call_t c = {.argc = argc,
                .argv = (char **)argv,
                .optstring = optstring,
                .longopts = longopts,
                .longind = longind,
                .long_only = 1};
    return l ? rank_getopt(l, &c, 0)
             : real_getopt_long_only()(argc, argv, optstring, longopts,
                                       longind);
}
