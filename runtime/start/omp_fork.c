/*
 * OpenMP parallel regions of ranks, for programs built with LLVM's OpenMP
 * (clang -fopenmp, flang -fopenmp: libomp).  Linked into the program
 * (libampi_main.a) with -Wl,--wrap=__kmpc_fork_call and friends, which
 * ampicc and ampif90 add when they link with -fopenmp.
 *
 * A region the rank's user-level thread starts is run by a runner thread
 * bound to the rank (mpi/threads/threads.c) while the ULT waits in the
 * scheduler: the PE goes on running the other ranks and the MPI calls of the
 * region's threads, and the OpenMP barriers and joins block kernel threads of
 * the rank, never the PE.  Each thread of the team runs the region's outlined
 * function through trampoline(), which binds it to the rank for the
 * region: the rank's privatized globals, and MPI calls run on the rank's
 * PE.  The clauses the program pushed before the fork (num_threads,
 * proc_bind) are pushed again on the runner; omp_set_num_threads of a rank
 * is kept per rank (omp_icv.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*kmpc_micro)(int *gtid, int *btid, ...);

void __real___kmpc_fork_call(void *loc, int argc, kmpc_micro fn, ...);
/* Weak: libomp before version 17 lacks it (and its programs never call
 * it), and programs linked with -Wl,-znow must still load. */
void __real___kmpc_fork_call_if(void *loc, int argc, kmpc_micro fn, int cond,
                                void *args) __attribute__((weak));
void __real___kmpc_push_num_threads(void *loc, int gtid, int n);
void __real___kmpc_push_proc_bind(void *loc, int gtid, int bind);
int __kmpc_global_thread_num(void *loc);

void __wrap___kmpc_fork_call(void *loc, int argc, kmpc_micro fn, ...);
void __wrap___kmpc_fork_call_if(void *loc, int argc, kmpc_micro fn, int cond,
                                void *args);
void __wrap___kmpc_push_num_threads(void *loc, int gtid, int n);
void __wrap___kmpc_push_proc_bind(void *loc, int gtid, int bind);

/* libampi (mpi/threads/threads.c). */
int amp_omp_on_rank_ult(void);
void amp_omp_run(void (*fn)(void *), void *arg);
void *amp_omp_bound_rank(void);
void amp_omp_enter(void *b, size_t size, void *rank);
void amp_omp_leave(void *b);
int *amp_omp_state(void);

/* Shared variables an outlined function may take (the arguments after the
 * thread ids). */
#define MAX_ARGS 48

typedef struct region {
    void *loc;
    int argc;
    kmpc_micro fn;
    void *rank; /* the rank the team's threads act for, or NULL */
    int nthreads, bind;
    void *args[MAX_ARGS];
} region_t;

/* fn(gtid, btid, args...) with argc arguments: called with all MAX_ARGS,
 * the unused ones 0.  libomp calls outlined functions through the same
 * variadic type; under the x86-64 and AArch64 calling conventions the
 * caller owns the argument area, and an outlined function does not read
 * past its own arguments. */
#define P4(i) p[i], p[i + 1], p[i + 2], p[i + 3]
static void invoke(kmpc_micro fn, int *g, int *b, int argc, void **a)
{
    void *p[MAX_ARGS] = {0};
    for (int i = 0; i < argc; i++)
        p[i] = a[i];
    fn(g, b, P4(0), P4(4), P4(8), P4(12), P4(16), P4(20), P4(24), P4(28),
       P4(32), P4(36), P4(40), P4(44));
}

/* Every thread of the team: bound to the region's rank while it runs the
 * outlined function. */
static void trampoline(int *gtid, int *btid, region_t *r)
{
    _Alignas(16) char bind[128];
    if (r->rank)
        amp_omp_enter(bind, sizeof(bind), r->rank);
    invoke(r->fn, gtid, btid, r->argc, r->args);
    if (r->rank)
        amp_omp_leave(bind);
}

/* Forks r's team from the calling thread, through the trampoline. */
static void fork_team(void *p)
{
    region_t *r = p;
    int gtid = __kmpc_global_thread_num(r->loc);
    if (r->nthreads > 0)
        __real___kmpc_push_num_threads(r->loc, gtid, r->nthreads);
    if (r->bind > 0)
        __real___kmpc_push_proc_bind(r->loc, gtid, r->bind);
    __real___kmpc_fork_call(r->loc, 1, (kmpc_micro)trampoline, r);
}

/* The pushed clauses and the rank's thread count go with the region. */
static void start(region_t *r)
{
    int *st = amp_omp_state();
    r->rank = amp_omp_bound_rank();
    if (st) {
        r->nthreads = st[1] > 0 ? st[1] : st[0];
        r->bind = st[2];
        st[1] = st[2] = 0;
    }
    if (amp_omp_on_rank_ult())
        amp_omp_run(fork_team, r);
    else
        fork_team(r);
}

void __wrap___kmpc_fork_call(void *loc, int argc, kmpc_micro fn, ...)
{
    region_t r = {.loc = loc, .argc = argc, .fn = fn};
    if (argc < 0 || argc > MAX_ARGS) {
        fprintf(stderr,
                "ampi: an OpenMP parallel region shares %d variables; at "
                "most %d are supported\n",
                argc, MAX_ARGS);
        abort();
    }
    va_list ap;
    va_start(ap, fn);
    for (int i = 0; i < argc; i++)
        r.args[i] = va_arg(ap, void *);
    va_end(ap);
    start(&r);
}

/* flang's form: args is the one shared argument (argc 0 or 1). */
void __wrap___kmpc_fork_call_if(void *loc, int argc, kmpc_micro fn, int cond,
                                void *args)
{
    if (!cond || argc > 1) {
        int *st = amp_omp_state();
        if (st && amp_omp_on_rank_ult())
            st[1] = st[2] = 0; /* a serialized region takes no clauses */
        __real___kmpc_fork_call_if(loc, argc, fn, cond, args);
        return;
    }
    region_t r = {.loc = loc, .argc = argc, .fn = fn};
    r.args[0] = args;
    start(&r);
}

/* On a rank's ULT the clauses wait for the fork (the PE's OpenMP state is
 * the ranks'); elsewhere they go to libomp as they are. */
void __wrap___kmpc_push_num_threads(void *loc, int gtid, int n)
{
    int *st = amp_omp_state();
    if (st && amp_omp_on_rank_ult())
        st[1] = n;
    else
        __real___kmpc_push_num_threads(loc, gtid, n);
}

void __wrap___kmpc_push_proc_bind(void *loc, int gtid, int bind)
{
    int *st = amp_omp_state();
    if (st && amp_omp_on_rank_ult())
        st[2] = bind;
    else
        __real___kmpc_push_proc_bind(loc, gtid, bind);
}
