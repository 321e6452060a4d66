/*
 * The C library's random number generators, one state per rank.
 *
 * Each rank starts from the state glibc gives a process (random() as after
 * srandom(1), the drand48 family from a zero state) and draws exactly
 * glibc's sequences: the state is glibc's own, advanced by its reentrant
 * functions (random_r, drand48_r...), so a rank gets the numbers a process
 * of its own would under any other MPI.  rand() and srand() are random()
 * and srandom(), as in glibc.
 */
#include "libc/state.h"

#include <string.h>

typedef long (*long_fn_t)(void);
typedef void (*seed_fn_t)(unsigned);
typedef char *(*initstate_fn_t)(unsigned, char *, size_t);
typedef char *(*setstate_fn_t)(char *);
typedef double (*double_fn_t)(void);
typedef double (*erand_fn_t)(unsigned short[3]);
typedef long (*nrand_fn_t)(unsigned short[3]);
typedef void (*srand48_fn_t)(long);
typedef unsigned short *(*seed48_fn_t)(unsigned short[3]);
typedef void (*lcong48_fn_t)(unsigned short[7]);
typedef int (*rand_fn_t)(void);

AMP_LIBC_REAL_FN(rand_fn_t, rand)
AMP_LIBC_REAL_FN(seed_fn_t, srand)
AMP_LIBC_REAL_FN(long_fn_t, random)
AMP_LIBC_REAL_FN(seed_fn_t, srandom)
AMP_LIBC_REAL_FN(initstate_fn_t, initstate)
AMP_LIBC_REAL_FN(setstate_fn_t, setstate)
AMP_LIBC_REAL_FN(double_fn_t, drand48)
AMP_LIBC_REAL_FN(long_fn_t, lrand48)
AMP_LIBC_REAL_FN(long_fn_t, mrand48)
AMP_LIBC_REAL_FN(erand_fn_t, erand48)
AMP_LIBC_REAL_FN(nrand_fn_t, nrand48)
AMP_LIBC_REAL_FN(nrand_fn_t, jrand48)
AMP_LIBC_REAL_FN(srand48_fn_t, srand48)
AMP_LIBC_REAL_FN(seed48_fn_t, seed48)
AMP_LIBC_REAL_FN(lcong48_fn_t, lcong48)

AMP_LIBC_EXPORT int rand(void);
AMP_LIBC_EXPORT void srand(unsigned seed);
AMP_LIBC_EXPORT long random(void);
AMP_LIBC_EXPORT void srandom(unsigned seed);
AMP_LIBC_EXPORT char *initstate(unsigned seed, char *state, size_t n);
AMP_LIBC_EXPORT char *setstate(char *state);
AMP_LIBC_EXPORT double drand48(void);
AMP_LIBC_EXPORT long lrand48(void);
AMP_LIBC_EXPORT long mrand48(void);
AMP_LIBC_EXPORT double erand48(unsigned short xsubi[3]);
AMP_LIBC_EXPORT long nrand48(unsigned short xsubi[3]);
AMP_LIBC_EXPORT long jrand48(unsigned short xsubi[3]);
AMP_LIBC_EXPORT void srand48(long seed);
AMP_LIBC_EXPORT unsigned short *seed48(unsigned short seed16v[3]);
AMP_LIBC_EXPORT void lcong48(unsigned short param[7]);

static int32_t next_random(amp_libc_rank_t *l)
{
    int32_t r;
    random_r(&l->random, &r);
    return r;
}

int rand(void)
{
    amp_libc_rank_t *l = amp_libc_self();
    return l ? next_random(l) : real_rand()();
}

void srand(unsigned seed)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (l)
        srandom_r(seed, &l->random);
    else
        real_srand()(seed);
}

long random(void)
{
    amp_libc_rank_t *l = amp_libc_self();
    return l ? next_random(l) : real_random()();
}

void srandom(unsigned seed)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (l)
        srandom_r(seed, &l->random);
    else
        real_srandom()(seed);
}

/* Both return the previous state buffer (the word before the state, where
 * the generator keeps its type and position), as glibc's do. */
char *initstate(unsigned seed, char *state, size_t n)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (!l)
        return real_initstate()(seed, state, n);
    char *old = (char *)&l->random.state[-1];
    return initstate_r(seed, state, n, &l->random) == 0 ? old : NULL;
}

char *setstate(char *state)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (!l)
        return real_setstate()(state);
    char *old = (char *)&l->random.state[-1];
    return setstate_r(state, &l->random) == 0 ? old : NULL;
}

double drand48(void)
{
    amp_libc_rank_t *l = amp_libc_self();
    double d;
    if (!l)
        return real_drand48()();
    drand48_r(&l->rand48, &d);
    return d;
}

long lrand48(void)
{
    amp_libc_rank_t *l = amp_libc_self();
    long v;
    if (!l)
        return real_lrand48()();
    lrand48_r(&l->rand48, &v);
    return v;
}

long mrand48(void)
{
    amp_libc_rank_t *l = amp_libc_self();
    long v;
    if (!l)
        return real_mrand48()();
    mrand48_r(&l->rand48, &v);
    return v;
}

/* The caller's state, the rank's multiplier and addend (lcong48). */
double erand48(unsigned short xsubi[3])
{
    amp_libc_rank_t *l = amp_libc_self();
    double d;
    if (!l)
        return real_erand48()(xsubi);
    erand48_r(xsubi, &l->rand48, &d);
    return d;
}

long nrand48(unsigned short xsubi[3])
{
    amp_libc_rank_t *l = amp_libc_self();
    long v;
    if (!l)
        return real_nrand48()(xsubi);
    nrand48_r(xsubi, &l->rand48, &v);
    return v;
}

long jrand48(unsigned short xsubi[3])
{
    amp_libc_rank_t *l = amp_libc_self();
    long v;
    if (!l)
        return real_jrand48()(xsubi);
    jrand48_r(xsubi, &l->rand48, &v);
    return v;
}

void srand48(long seed)
{
    amp_libc_rank_t *l = amp_libc_self();
    if (l)
        srand48_r(seed, &l->rand48);
    else
        real_srand48()(seed);
}

/* The previous state, kept in the rank's state as glibc keeps it in the
 * process's. */
unsigned short *seed48(unsigned short seed16v[3])
{
    amp_libc_rank_t *l = amp_libc_self();
    if (!l)
        return real_seed48()(seed16v);
    seed48_r(seed16v, &l->rand48);
    return l->rand48.__old_x;
}

void lcong48(unsigned short param[7])
{
    amp_libc_rank_t *l = amp_libc_self();
    if (l)
        lcong48_r(param, &l->rand48);
    else
        real_lcong48()(param);
}
