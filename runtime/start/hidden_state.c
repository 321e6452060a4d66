/*
 * The C library's hidden state, per rank.
 *
 * Some C library functions keep state between calls in one static object
 * of the process: strtok's position, the generators of rand/random and of
 * the drand48 family, the result of gmtime/localtime and of
 * asctime/ctime.  In a process of MPI ranks that state would be shared by
 * ranks that run at the same time on other PEs, or that take turns on one
 * PE: one rank's strtok would continue another's string, and a seeded
 * generator would give each rank a different part of one sequence.
 *
 * libampi defines these functions ahead of the C library.  Called from a
 * rank, each works on the rank's own state (amp_libc_state_t in its rank
 * struct, which moves with the rank), with the C library's reentrant forms
 * doing the work, so a rank sees what a process of its own would see: the
 * same sequences from the same seeds, rand() without srand() as after
 * srand(1).  Called from any other thread (main before the ranks start,
 * the threads of UCX or PMIx), they are the C library's own.
 */
#define _GNU_SOURCE 1
#include "start/start.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

/* The state of the calling rank; NULL outside a rank. */
static amp_libc_state_t *rank_state(void)
{
    amp_rank_t *rank = amp_rank_self();
    return rank ? &rank->libc : NULL;
}

/* The C library's definition of name, for callers outside a rank. */
static void *libc_fn(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn)
        amp_fatal("%s: the C library's definition is missing (%s)", name,
                  dlerror());
    return fn;
}

/* ------------------------------------------------------------- strtok */

EXPORT char *strtok(char *s, const char *delim)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        char *(*fn)(char *, const char *) = libc_fn("strtok");
        return fn(s, delim);
    }
    return strtok_r(s, delim, &st->strtok_next);
}

/* ------------------------------------------------ rand and random family */

/* The rank's random state, seeded with 1 on first use as glibc's is. */
static struct random_data *random_of(amp_libc_state_t *st)
{
    if (!st->random_ready) {
        st->random_state = (char *)st->random_buf;
        initstate_r(1, st->random_state, sizeof(st->random_buf), &st->random);
        st->random_ready = 1;
    }
    return &st->random;
}

EXPORT long random(void)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        long (*fn)(void) = libc_fn("random");
        return fn();
    }
    int32_t r;
    random_r(random_of(st), &r);
    return r;
}

EXPORT void srandom(unsigned seed)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        void (*fn)(unsigned) = libc_fn("srandom");
        fn(seed);
        return;
    }
    srandom_r(seed, random_of(st));
}

/* glibc's rand and srand are random and srandom. */
EXPORT int rand(void)
{
    return (int)random();
}

EXPORT void srand(unsigned seed)
{
    srandom(seed);
}

EXPORT char *initstate(unsigned seed, char *state, size_t n)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        char *(*fn)(unsigned, char *, size_t) = libc_fn("initstate");
        return fn(seed, state, n);
    }
    random_of(st);
    char *old = st->random_state;
    if (initstate_r(seed, state, n, &st->random) != 0)
        return NULL;
    st->random_state = state;
    return old;
}

EXPORT char *setstate(char *state)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        char *(*fn)(char *) = libc_fn("setstate");
        return fn(state);
    }
    random_of(st);
    char *old = st->random_state;
    if (setstate_r(state, &st->random) != 0)
        return NULL;
    st->random_state = state;
    return old;
}

/* --------------------------------------------------- the drand48 family */

/* The rank's drand48 state starts at zero, as glibc's own does: the
 * standard multiplier and addend, and a zero seed.  Each generator is its
 * reentrant form on that state, and erand48, nrand48 and jrand48 (which
 * take the caller's 48 bits) use its multiplier and addend. */
typedef int rand48_long_fn_t(struct drand48_data *, long *);
typedef int rand48_xlong_fn_t(unsigned short *, struct drand48_data *, long *);

static long rand48_long(const char *name, rand48_long_fn_t *per_rank)
{
    amp_libc_state_t *st = rank_state();
    long r;
    if (!st)
        return ((long (*)(void))libc_fn(name))();
    per_rank(&st->rand48, &r);
    return r;
}

static long rand48_xlong(const char *name, rand48_xlong_fn_t *per_rank,
                         unsigned short xsubi[3])
{
    amp_libc_state_t *st = rank_state();
    long r;
    if (!st)
        return ((long (*)(unsigned short *))libc_fn(name))(xsubi);
    per_rank(xsubi, &st->rand48, &r);
    return r;
}

EXPORT long lrand48(void)
{
    return rand48_long("lrand48", lrand48_r);
}

EXPORT long mrand48(void)
{
    return rand48_long("mrand48", mrand48_r);
}

EXPORT long nrand48(unsigned short xsubi[3])
{
    return rand48_xlong("nrand48", nrand48_r, xsubi);
}

EXPORT long jrand48(unsigned short xsubi[3])
{
    return rand48_xlong("jrand48", jrand48_r, xsubi);
}

EXPORT double drand48(void)
{
    amp_libc_state_t *st = rank_state();
    double r;
    if (!st)
        return ((double (*)(void))libc_fn("drand48"))();
    drand48_r(&st->rand48, &r);
    return r;
}

EXPORT double erand48(unsigned short xsubi[3])
{
    amp_libc_state_t *st = rank_state();
    double r;
    if (!st)
        return ((double (*)(unsigned short *))libc_fn("erand48"))(xsubi);
    erand48_r(xsubi, &st->rand48, &r);
    return r;
}

EXPORT void srand48(long seed)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        void (*fn)(long) = libc_fn("srand48");
        fn(seed);
        return;
    }
    srand48_r(seed, &st->rand48);
}

/* seed48 returns the previous seed in storage of the rank's state, where
 * the C library keeps it in its own (__old_x). */
EXPORT unsigned short *seed48(unsigned short seed16v[3])
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        unsigned short *(*fn)(unsigned short *) = libc_fn("seed48");
        return fn(seed16v);
    }
    seed48_r(seed16v, &st->rand48);
    return st->rand48.__old_x;
}

EXPORT void lcong48(unsigned short param[7])
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        void (*fn)(unsigned short *) = libc_fn("lcong48");
        fn(param);
        return;
    }
    lcong48_r(param, &st->rand48);
}

/* ------------------------------------------------------ broken-down time */

EXPORT struct tm *gmtime(const time_t *t)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        struct tm *(*fn)(const time_t *) = libc_fn("gmtime");
        return fn(t);
    }
    return gmtime_r(t, &st->tm);
}

/* localtime reads the time zone each time (tzset); localtime_r need not. */
EXPORT struct tm *localtime(const time_t *t)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        struct tm *(*fn)(const time_t *) = libc_fn("localtime");
        return fn(t);
    }
    tzset();
    return localtime_r(t, &st->tm);
}

EXPORT char *asctime(const struct tm *tm)
{
    amp_libc_state_t *st = rank_state();
    if (!st) {
        char *(*fn)(const struct tm *) = libc_fn("asctime");
        return fn(tm);
    }
    return asctime_r(tm, st->asctime);
}

/* ctime is asctime(localtime(t)), with their storage. */
EXPORT char *ctime(const time_t *t)
{
    struct tm *tm = localtime(t);
    return tm ? asctime(tm) : NULL;
}
