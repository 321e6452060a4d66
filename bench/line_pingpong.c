/*
 * The floor under every message between two cores: one cache line handed
 * back and forth by two threads, each waiting for the other's store.
 *
 * Half a round trip is what the hardware (here, a VM's two virtual CPUs)
 * charges for a line to cross from one core to the other and be seen;
 * a message between two PEs, or two processes, costs at least that, plus
 * its software.  On this project's VM it changes by a factor of 3 to 4
 * from one quarter of an hour to the next, with where the host puts the
 * two virtual CPUs, so bench/pingpong_ab.sh prints it before and after
 * its runs.
 *
 *   line_pingpong [-i ROUND_TRIPS] [-r REPS]
 *
 * Output: line_oneway_ns=... min_ns=... round_trips=... reps=...
 * (median and minimum over the repetitions).  Pins nothing: the two
 * threads go where the kernel puts them, as the PEs of a process do
 * unless told otherwise.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 101

typedef struct {
    _Alignas(64) _Atomic long ping;
    _Alignas(64) _Atomic long pong;
    long n;
} lines_t;

static void *answer(void *arg)
{
    lines_t *l = arg;
    for (long i = 1; i <= l->n; i++) {
        while (atomic_load_explicit(&l->ping, memory_order_acquire) != i)
            ;
        atomic_store_explicit(&l->pong, i, memory_order_release);
    }
    return NULL;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* One repetition of n round trips: ns one way. */
static double one_rep(long n)
{
    static lines_t l;
    pthread_t t;
    atomic_store(&l.ping, 0);
    atomic_store(&l.pong, 0);
    l.n = n;
    if (pthread_create(&t, NULL, answer, &l) != 0) {
        perror("line_pingpong: pthread_create");
        exit(1);
    }
    double start = now_ns();
    for (long i = 1; i <= n; i++) {
        atomic_store_explicit(&l.ping, i, memory_order_release);
        while (atomic_load_explicit(&l.pong, memory_order_acquire) != i)
            ;
    }
    double ns = (now_ns() - start) / (2.0 * (double)n);
    pthread_join(t, NULL);
    return ns;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long n = 200000;
    int reps = 7, c;
    while ((c = getopt(argc, argv, "i:r:")) != -1) {
        if (c == 'i')
            n = atol(optarg);
        else if (c == 'r')
            reps = atoi(optarg);
        else {
            fprintf(stderr, "usage: %s [-i ROUND_TRIPS] [-r REPS]\n", argv[0]);
            return 2;
        }
    }
    if (n < 1 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "line_pingpong: -i must be >= 1 and -r 1 to %d\n",
                MAX_REPS);
        return 2;
    }
    double t[MAX_REPS];
    for (int r = 0; r < reps; r++)
        t[r] = one_rep(n);
    qsort(t, (size_t)reps, sizeof(t[0]), cmp);
    printf("line_oneway_ns=%.1f min_ns=%.1f round_trips=%ld reps=%d\n",
           t[reps / 2], t[0], n, reps);
    return 0;
}
