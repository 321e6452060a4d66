/*
 * mpitest.h - assertion helpers shared by the MPI test programs.
 *
 * Checks count failures instead of aborting and print both sides, file:line
 * and the MPI_COMM_WORLD rank. Each evaluates to nonzero when it passed, so
 * a loop can stop at its first failure. A test ends with
 *
 *     return mt_finish_and_finalize();
 *
 * which sums the failures over MPI_COMM_WORLD, has rank 0 print " No Errors"
 * or " Found N errors" (the MPICH test-suite convention) and returns the
 * exit status: 0 only when no rank found an error.
 *
 * The failure count is the only mutable state. If the ranks share a process
 * without privatized globals they share it too; the verdict stays right (a
 * failure leaves every sharer's count nonzero), only N may be inflated. The
 * tests themselves keep no mutable globals and keep big buffers off the
 * stack, since ranks may run on small user-level stacks.
 */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* MT_ASAN: 1 when the test is built with AddressSanitizer (gcc's or
 * Clang's), whose allocator and quarantine change what memory a call gets. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(MT_ASAN)
#define MT_ASAN 1
#endif
#ifndef MT_ASAN
#define MT_ASAN 0
#endif

static inline atomic_int *mt_error_count(void)
{
    static atomic_int count;
    return &count;
}

/* World rank for messages, or -1 outside MPI_Init..MPI_Finalize. */
static inline int mt_world_rank(void)
{
    int initialized = 0, finalized = 0, rank = -1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* Counts a failure and prints "file:line: [rank r] message". */
static inline void mt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    atomic_fetch_add(mt_error_count(), 1);
    fprintf(stderr, "%s:%d: [rank %d] ", file, line, mt_world_rank());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

static inline int mt_check(int ok, const char *expr, const char *file, int line)
{
    if (!ok)
        mt_fail(file, line, "check failed: %s", expr);
    return ok;
}

static inline int mt_check_int_eq(long long a, long long b, const char *ea,
                                  const char *eb, const char *file, int line)
{
    if (a != b)
        mt_fail(file, line, "%s == %s failed: %lld != %lld", ea, eb, a, b);
    return a == b;
}

static inline int mt_check_dbl_eq(double a, double b, const char *ea,
                                  const char *eb, const char *file, int line)
{
    if (a != b)
        mt_fail(file, line, "%s == %s failed: %.17g != %.17g", ea, eb, a, b);
    return a == b;
}

/* rc is MPI_SUCCESS (expected == MPI_SUCCESS) or an error code of class
 * expected. */
static inline int mt_check_class(int rc, int expected, const char *call,
                                 const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int cls = rc, len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls == expected)
        return 1;
    MPI_Error_string(rc, msg, &len);
    mt_fail(file, line, "%s: error class %d (code %d: %s), expected %d", call,
            cls, rc, msg, expected);
    return 0;
}

/* Source MPI_PROC_NULL or MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0: the
 * status of an MPI_PROC_NULL receive, a null or an inactive request. */
static inline int mt_check_empty_status(const MPI_Status *st, int source,
                                        const char *file, int line)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE == source && st->MPI_TAG == MPI_ANY_TAG && count == 0)
        return 1;
    mt_fail(file, line,
            "status not empty: source %d (want %d), tag %d (want %d), "
            "count %d (want 0)",
            st->MPI_SOURCE, source, st->MPI_TAG, MPI_ANY_TAG, count);
    return 0;
}

/* A byte that depends on the position and a seed, for filling buffers. */
static inline unsigned char mt_pattern(size_t i, unsigned seed)
{
    return (unsigned char)(i * 131u + (i >> 8) * 7u + seed * 29u + 1u);
}

static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = mt_pattern(i, seed);
}

/* buf holds what mt_fill(buf, n, seed) wrote; reports the first bad byte. */
static inline int mt_check_pattern(const void *buf, size_t n, unsigned seed,
                                   const char *expr, const char *file, int line)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != mt_pattern(i, seed)) {
            mt_fail(file, line,
                    "%s: byte %zu of %zu is 0x%02x, expected 0x%02x (seed %u)",
                    expr, i, n, p[i], mt_pattern(i, seed), seed);
            return 0;
        }
    }
    return 1;
}

#define MT_CHECK(cond) mt_check((cond) != 0, #cond, __FILE__, __LINE__)
#define MT_CHECK_INT_EQ(a, b)                                                  \
    mt_check_int_eq((long long)(a), (long long)(b), #a, #b, __FILE__, __LINE__)
#define MT_CHECK_DBL_EQ(a, b)                                                  \
    mt_check_dbl_eq((double)(a), (double)(b), #a, #b, __FILE__, __LINE__)
/* The call returned MPI_SUCCESS. */
#define MT_CHECK_MPI(call)                                                     \
    mt_check_class((call), MPI_SUCCESS, #call, __FILE__, __LINE__)
/* The call (made under MPI_ERRORS_RETURN) failed with error class cls. */
#define MT_CHECK_ERR_CLASS(call, cls)                                          \
    mt_check_class((call), (cls), #call, __FILE__, __LINE__)
#define MT_CHECK_EMPTY_STATUS(st, source)                                      \
    mt_check_empty_status(&(st), (source), __FILE__, __LINE__)
#define MT_CHECK_PATTERN(buf, n, seed)                                         \
    mt_check_pattern((buf), (n), (seed), #buf, __FILE__, __LINE__)
#define MT_FAIL(...) mt_fail(__FILE__, __LINE__, __VA_ARGS__)

/* A field of this process's /proc/self/status in KiB ("VmRSS",
 * "VmPTE"), or -1. */
static inline long mt_status_kib(const char *field)
{
    char line[256];
    size_t len = strlen(field);
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, field, len) == 0 && line[len] == ':')
            sscanf(line + len + 1, " %ld", &kib);
    if (f)
        fclose(f);
    return kib;
}

/* Partner for pairwise tests: rank ^ 1, or the rank itself when that is out
 * of range (a single rank, or the last of an odd number). */
/* The job's processes (AMPI_NUM_PROCESSES; 1 started alone). */
static inline int mt_nprocs(void)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_PROCESSES, &v, &flag);
    return flag ? *v : 1;
}

/* The first world rank of process p: the runtime gives each process a
 * block of consecutive ranks: process p starts at floor(p * size / nprocs)
 * (docs/multi-process.md). */
static inline int mt_first_rank_of(int p)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return (int)((long long)p * size / mt_nprocs());
}

/* The process that runs world rank w. */
static inline int mt_process_of(int w)
{
    int p = 0;
    while (w >= mt_first_rank_of(p + 1))
        p++;
    return p;
}

static inline int mt_partner(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    return (rank ^ 1) < size ? (rank ^ 1) : rank;
}

/* Reads the MPI_T control variable called name (an int or an unsigned
 * long, as it says) into value, between its own MPI_T_init_thread and
 * MPI_T_finalize; a failure if there is none. */
static inline void mt_cvar_read(const char *name, void *value)
{
    int provided, n, idx = -1, count;
    MPI_T_cvar_handle h;
    MT_CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MT_CHECK_MPI(MPI_T_cvar_get_num(&n));
    for (int i = 0; i < n && idx < 0; i++) {
        char got[64], desc[256];
        int nlen = sizeof(got), dlen = sizeof(desc), verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        MT_CHECK_MPI(MPI_T_cvar_get_info(i, got, &nlen, &verb, &dt, &en, desc,
                                         &dlen, &bind, &scope));
        if (strcmp(got, name) == 0)
            idx = i;
    }
    if (idx < 0)
        MT_FAIL("no MPI_T control variable %s", name);
    if (idx >= 0) {
        MT_CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
        MT_CHECK_MPI(MPI_T_cvar_read(h, value));
        MT_CHECK_MPI(MPI_T_cvar_handle_free(&h));
    }
    MT_CHECK_MPI(MPI_T_finalize());
}

/* Sums the failures over MPI_COMM_WORLD; rank 0 prints the verdict.
 * Returns the exit status for main. */
static inline int mt_finish(void)
{
    int local = atomic_load(mt_error_count()), total = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) !=
        MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] mt_finish: MPI_Allreduce failed\n", rank);
        total = local > 0 ? local : 1;
    }
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    return total == 0 ? 0 : 1;
}

static inline int mt_finish_and_finalize(void)
{
    int status = mt_finish();
    if (MPI_Finalize() != MPI_SUCCESS)
        status = 1;
    return status;
}

#endif /* MPITEST_H */
