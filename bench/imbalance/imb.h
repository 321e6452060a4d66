/*
 * imb.h - what the programs of bench/imbalance share: options, the unit of
 * work, each rank's load per step, and rank 0's report (README.md).
 *
 * Header only and plain MPI, so each program still builds from its one
 * source with any mpicc, ours or Open MPI's.  Nothing here keeps mutable
 * state outside the structs the caller passes.
 */
#ifndef BENCH_IMBALANCE_IMB_H
#define BENCH_IMBALANCE_IMB_H

#include <mpi.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../args.h"

/* ------------------------------------------------------------- the work */

/* A 64-bit mixing function (the finalizer of MurmurHash3's successors):
 * integer only, so every compiler and every decomposition computes the
 * same bits. */
static inline uint64_t imb_mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185u;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44du;
    x ^= x >> 33;
    return x;
}

/* k rounds of imb_mix, one after the other: the unit of work the programs
 * count (one round is a chain of 2 multiplies and 5 shifts and xors, a few
 * nanoseconds). */
static inline uint64_t imb_work(uint64_t x, long k)
{
    for (long i = 0; i < k; i++)
        x = imb_mix(x + 0x9e3779b97f4a7c15u);
    return x;
}

/* ----------------------------------------------------------- the options */

/* One "-F VALUE" option: an integer in lo..hi, def by default and small
 * under -s; value holds the result of imb_args_parse. */
typedef struct {
    char flag;
    const char *what;
    long def, small, lo, hi;
    long value;
} imb_opt_t;

typedef struct {
    const char *prog;
    imb_opt_t *opts;
    int nopts;
    int small;  /* -s: the test size */
    int serial; /* -c: also compare with a serial run */
} imb_args_t;

static inline void imb_args_usage(const imb_args_t *a, FILE *f)
{
    fprintf(f, "usage: %s [-s] [-c]", a->prog);
    for (int i = 0; i < a->nopts; i++)
        fprintf(f, " [-%c N]", a->opts[i].flag);
    fprintf(f, "\n  -s  test size (the values in brackets)\n"
               "  -c  also recompute the result serially on rank 0\n");
    for (int i = 0; i < a->nopts; i++) {
        const imb_opt_t *o = &a->opts[i];
        fprintf(f, "  -%c  %s (default %ld [%ld], %ld..%ld)\n", o->flag,
                o->what, o->def, o->small, o->lo, o->hi);
    }
}

/* Parses argv (every rank does, and gets the same answer): 0 to run, 1
 * after -h (usage printed), 2 after an error.  Only rank 0 prints. */
static inline int imb_args_parse(imb_args_t *a, int argc, char **argv, int rank)
{
    FILE *err = rank == 0 ? stderr : NULL;
    a->small = 0;
    a->serial = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-s") == 0)
            a->small = 1;
    for (int i = 0; i < a->nopts; i++)
        a->opts[i].value = a->small ? a->opts[i].small : a->opts[i].def;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-s") == 0)
            continue;
        if (strcmp(arg, "-c") == 0) {
            a->serial = 1;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            if (err)
                imb_args_usage(a, stdout);
            return 1;
        }
        imb_opt_t *o = NULL;
        for (int j = 0;
             j < a->nopts && arg[0] == '-' && arg[1] != '\0' && arg[2] == '\0';
             j++)
            if (a->opts[j].flag == arg[1])
                o = &a->opts[j];
        if (o == NULL) {
            if (err) {
                fprintf(err, "%s: unknown argument '%s'\n", a->prog, arg);
                imb_args_usage(a, err);
            }
            return 2;
        }
        if (i + 1 == argc) {
            if (err)
                fprintf(err, "%s: %s wants a value\n", a->prog, arg);
            return 2;
        }
        if (bench_parse_long(a->prog, argv[++i], arg, o->lo, o->hi, &o->value,
                             err) != 0)
            return 2;
    }
    return 0;
}

/* 1 when every option has its default value (or, under -s, its test-size
 * value): the sizes the programs know their result for. */
static inline int imb_args_are_builtin(const imb_args_t *a)
{
    for (int i = 0; i < a->nopts; i++) {
        const imb_opt_t *o = &a->opts[i];
        if (o->value != (a->small ? o->small : o->def))
            return 0;
    }
    return 1;
}

/* The value of option flag (which must exist). */
static inline long imb_args_get(const imb_args_t *a, char flag)
{
    for (int i = 0; i < a->nopts; i++)
        if (a->opts[i].flag == flag)
            return a->opts[i].value;
    abort();
}

/* -------------------------------------------------------------- the load */

/* The work (units of imb_work rounds) one rank did in each step. */
typedef struct {
    long steps;
    uint64_t *step;
} imb_load_t;

static inline int imb_load_init(imb_load_t *l, long steps)
{
    l->steps = steps;
    l->step = calloc((size_t)steps, sizeof *l->step);
    return l->step != NULL ? 0 : -1;
}

static inline void imb_load_cleanup(imb_load_t *l)
{
    free(l->step);
    l->step = NULL;
}

/* ------------------------------------------------------------ the report */

typedef struct {
    const char *prog;
    uint64_t result;
    double time_s;
    const imb_load_t *load; /* this rank's */
    const char *check;      /* which checks passed, NULL: one failed */
} imb_report_t;

/* Collective over MPI_COMM_WORLD: reduces the loads to rank 0, which
 * prints the key/value lines of README.md ("ok" last, only when
 * r->check is set).  0, or -1 when out of memory (on any rank). */
static inline int imb_report(const imb_report_t *r)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long steps = r->load->steps;
    uint64_t *sum = malloc((size_t)steps * sizeof *sum);
    uint64_t *max = malloc((size_t)steps * sizeof *max);
    int bad = sum == NULL || max == NULL, anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (anybad) {
        free(sum);
        free(max);
        return -1;
    }
    MPI_Reduce(r->load->step, sum, (int)steps, MPI_UINT64_T, MPI_SUM, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(r->load->step, max, (int)steps, MPI_UINT64_T, MPI_MAX, 0,
               MPI_COMM_WORLD);
    uint64_t mine = 0, load_max = 0;
    for (long s = 0; s < steps; s++)
        mine += r->load->step[s];
    MPI_Reduce(&mine, &load_max, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t total = 0, max_steps = 0;
        for (long s = 0; s < steps; s++) {
            total += sum[s];
            max_steps += max[s];
        }
        double mean = (double)total / size;
        printf("program %s\nranks %d\nsteps %ld\n", r->prog, size, steps);
        printf("result %016" PRIx64 "\n", r->result);
        printf("time_s %.6f\n", r->time_s);
        printf("work_total %" PRIu64 "\n", total);
        printf("load_mean %.1f\n", mean);
        printf("load_max %" PRIu64 "\n", load_max);
        printf("load_max_steps %" PRIu64 "\n", max_steps);
        printf("imbalance %.3f\n", mean > 0 ? (double)load_max / mean : 1.0);
        printf("imbalance_steps %.3f\n",
               mean > 0 ? (double)max_steps / mean : 1.0);
        if (r->check != NULL)
            printf("check %s\nok\n", r->check);
        fflush(stdout);
    }
    free(sum);
    free(max);
    return 0;
}

/* "prog: FAILED: ..." on stderr. */
static inline void imb_fail(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: FAILED: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

/* ------------------------------------------------------- run, check, say */

/* A program's kernel: runs the whole problem over comm (collective),
 * timing its steps between barriers into *time_s and adding each step's
 * work of this rank to load (NULL: not counted).  Returns 0 with the
 * result (the same on every rank), or -1 with why filled in on every rank
 * when an invariant broke.  Out of memory ends the job (MPI_Abort). */
typedef int (*imb_run_fn_t)(MPI_Comm comm, const void *params, imb_load_t *load,
                            uint64_t *result, double *time_s, char *why,
                            size_t whylen);

typedef struct {
    const imb_args_t *args;
    imb_run_fn_t run;
    const void *params;
    long steps;
    /* The results of the default and of the test size (-s), checked when
     * every option has that value; 0: unknown. */
    uint64_t expect_default, expect_small;
} imb_main_t;

/* Rank 0's checks of a result: against the built-in value where the
 * arguments have one, and against the same problem run serially on
 * MPI_COMM_SELF (the whole domain in one piece) under -s, -c, or when
 * there is no built-in value.  Returns the checks done, or NULL after
 * printing why one failed. */
static inline const char *imb_check(const imb_main_t *m, uint64_t result)
{
    const imb_args_t *a = m->args;
    uint64_t expect = a->small ? m->expect_small : m->expect_default;
    int builtin = imb_args_are_builtin(a) && expect != 0;
    if (builtin && result != expect) {
        imb_fail(a->prog,
                 "result %016" PRIx64 ", expected %016" PRIx64
                 " for these arguments",
                 result, expect);
        return NULL;
    }
    if (builtin && !a->small && !a->serial)
        return "expected";
    uint64_t ref = 0;
    double t;
    char why[256] = "";
    if (m->run(MPI_COMM_SELF, m->params, NULL, &ref, &t, why, sizeof why)) {
        imb_fail(a->prog, "serial run: %s", why);
        return NULL;
    }
    if (ref != result) {
        imb_fail(a->prog,
                 "result %016" PRIx64 ", but %016" PRIx64 " computed serially",
                 result, ref);
        return NULL;
    }
    return builtin ? "expected,serial" : "serial";
}

/* Runs m->run over MPI_COMM_WORLD, checks its result and prints the
 * report; the exit status: 0 when every check passed, else 1. */
static inline int imb_main(const imb_main_t *m)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    imb_load_t load;
    if (imb_load_init(&load, m->steps) != 0) {
        fprintf(stderr, "%s: out of memory\n", m->args->prog);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t result = 0;
    double time_s = 0;
    char why[256] = "";
    int rc = m->run(MPI_COMM_WORLD, m->params, &load, &result, &time_s, why,
                    sizeof why);
    const char *check = NULL;
    if (rank == 0) {
        if (rc != 0)
            imb_fail(m->args->prog, "%s", why);
        else
            check = imb_check(m, result);
    }
    int passed = check != NULL;
    MPI_Bcast(&passed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    imb_report_t r = {m->args->prog, result, time_s, &load, check};
    if (imb_report(&r) != 0) {
        fprintf(stderr, "%s: out of memory\n", m->args->prog);
        passed = 0;
    }
    imb_load_cleanup(&load);
    return passed ? 0 : 1;
}

#endif
