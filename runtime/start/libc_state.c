/*
 * The C library's functions that keep state between calls, one state per
 * rank.
 *
 * rand, srand, random, srandom, initstate, setstate, drand48, lrand48,
 * mrand48, srand48, seed48, lcong48, strtok, gmtime, localtime, asctime
 * and ctime keep hidden state in the C library, one per process.  With
 * ranks as threads of one process, a rank's sequence of rand() values or
 * strtok() tokens would depend on what the other ranks do meanwhile (on
 * other PEs at the same moment, or on its own PE at any MPI call), where
 * each process of another MPI has its own: a program that seeds each rank
 * the same way and builds the same datatypes on every rank from rand()
 * (MPICH's datatype pools) got different ones on different ranks.  libampi
 * defines them ahead of the C library, as it does the malloc family
 * (alloc.c): each rank's state lives in its rank struct (amp_rank_t.libc,
 * in its slot, so it moves with the rank), and the C library's reentrant
 * forms (random_r, drand48_r, strtok_r, gmtime_r...) do the work, so the
 * values are the C library's.  Threads outside ranks share one state under
 * a lock.  A rank starts as a process does: as after srand(1), with
 * drand48's state zero.
 */
#define _GNU_SOURCE 1
#include "start/start.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

/* The calling rank's state, or the process's (locked: release it with
 * put_state). */
static amp_libc_state_t *get_state(void)
{
    amp_rank_t *rank = amp_rank_self();
    amp_libc_state_t *s = &amp_proc.libc;
    if (rank)
        s = &rank->libc;
    else
        pthread_mutex_lock(&amp_proc.libc_lock);
    if (!s->ready) {
        memset(s, 0, sizeof(*s));
        initstate_r(1, (char *)s->rand_buf, sizeof(s->rand_buf), &s->rand);
        s->rand_cur = (char *)s->rand_buf;
        s->ready = 1;
    }
    return s;
}

static void put_state(amp_libc_state_t *s)
{
    if (s == &amp_proc.libc)
        pthread_mutex_unlock(&amp_proc.libc_lock);
}

/* ---- rand and random: one generator (rand() is random() in glibc) ---- */

EXPORT long random(void)
{
    amp_libc_state_t *s = get_state();
    int32_t v = 0;
    random_r(&s->rand, &v);
    put_state(s);
    return v;
}

EXPORT int rand(void)
{
    return (int)random();
}

EXPORT void srandom(unsigned seed)
{
    amp_libc_state_t *s = get_state();
    srandom_r(seed, &s->rand);
    put_state(s);
}

EXPORT void srand(unsigned seed)
{
    srandom(seed);
}

EXPORT char *initstate(unsigned seed, char *state, size_t n)
{
    amp_libc_state_t *s = get_state();
    char *old = s->rand_cur;
    if (initstate_r(seed, state, n, &s->rand) == 0)
        s->rand_cur = state;
    else
        old = NULL;
    put_state(s);
    return old;
}

EXPORT char *setstate(char *state)
{
    amp_libc_state_t *s = get_state();
    char *old = s->rand_cur;
    if (setstate_r(state, &s->rand) == 0)
        s->rand_cur = state;
    else
        old = NULL;
    put_state(s);
    return old;
}

/* ---- the drand48 family (erand48, nrand48, jrand48 take their state) --- */

EXPORT double drand48(void)
{
    amp_libc_state_t *s = get_state();
    double v = 0;
    drand48_r(&s->d48, &v);
    put_state(s);
    return v;
}

EXPORT long lrand48(void)
{
    amp_libc_state_t *s = get_state();
    long v = 0;
    lrand48_r(&s->d48, &v);
    put_state(s);
    return v;
}

EXPORT long mrand48(void)
{
    amp_libc_state_t *s = get_state();
    long v = 0;
    mrand48_r(&s->d48, &v);
    put_state(s);
    return v;
}

EXPORT void srand48(long seed)
{
    amp_libc_state_t *s = get_state();
    srand48_r(seed, &s->d48);
    put_state(s);
}

/* The previous seed, in the state (as the C library keeps it). */
EXPORT unsigned short *seed48(unsigned short seed[3])
{
    amp_libc_state_t *s = get_state();
    seed48_r(seed, &s->d48);
    put_state(s);
    return s->d48.__old_x;
}

EXPORT void lcong48(unsigned short param[7])
{
    amp_libc_state_t *s = get_state();
    lcong48_r(param, &s->d48);
    put_state(s);
}

/* ---- strtok ---- */

EXPORT char *strtok(char *restrict str, const char *restrict delim)
{
    amp_libc_state_t *s = get_state();
    char *tok = strtok_r(str, delim, &s->strtok_save);
    put_state(s);
    return tok;
}

/* ---- time conversions: gmtime and localtime share one result, as do
 * asctime and ctime ---- */

EXPORT struct tm *gmtime(const time_t *t)
{
    amp_libc_state_t *s = get_state();
    struct tm *r = gmtime_r(t, &s->tm);
    put_state(s);
    return r;
}

EXPORT struct tm *localtime(const time_t *t)
{
    amp_libc_state_t *s = get_state();
    tzset(); /* as localtime does, unlike localtime_r */
    struct tm *r = localtime_r(t, &s->tm);
    put_state(s);
    return r;
}

EXPORT char *asctime(const struct tm *tm)
{
    amp_libc_state_t *s = get_state();
    char *r = asctime_r(tm, s->time_text);
    put_state(s);
    return r;
}

EXPORT char *ctime(const time_t *t)
{
    amp_libc_state_t *s = get_state();
    tzset();
    char *r = ctime_r(t, s->time_text);
    put_state(s);
    return r;
}
