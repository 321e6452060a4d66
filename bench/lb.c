/*
 * Load balancing (docs/load-balancing.md, results in docs/bench.md):
 *
 *   lb loop [ITERS [UNIT_STEPS]]   an imbalanced loop: the first half of
 *       the ranks do 4 units of work per iteration, the others 1, then all
 *       meet in an MPI_Allreduce; AMPI_Migrate(AMPI_INFO_LB_SYNC) after
 *       iterations 2, 12, 22, ...  Prints "loop_s S" (wall time of the
 *       loop) and "result R" (the same with or without a balancer).
 *   lb migrate [ROUNDS]   every rank goes to the next PE of its process
 *       with AMPI_Migrate_to_pe, on its own, ROUNDS times, then the same
 *       call that moves nobody: prints "move_us" and "stay_us" (per call)
 *       and "us_per_rank" (the extra time of a call that moves every
 *       rank, per rank moved); then "call_home_us" and "call_lodged_us":
 *       an MPI_Comm_compare, every rank at home, then every rank running on
 *       the next PE (its calls carried out at home).
 *   lb migrate_heap [ROUNDS [BYTES]]   the same with BYTES of heap per
 *       rank, written before the moves (a move copies nothing, so the
 *       time does not depend on it).
 *   lb cross [REPS [MIB,MIB,...]]   moving one rank to another process:
 *       4 ranks in 2 processes of 1 PE each (+vp 4 +p 1, two processes,
 *       +balancer GreedyLB), so process 0 runs ranks 0 and 1, process 1
 *       ranks 2 and 3.  For each size (default 1,4,16,64,100 MiB) rank 1
 *       mallocs and writes that much heap; loads set with
 *       AMPI_Load_set_value make GreedyLB send rank 1 alone to process 1
 *       ("out"), then alone back ("back"), and also move nobody ("stay":
 *       the same AMPI_Migrate, the baseline).  After each move a step
 *       that moves nobody lets the process the rank left give its slot
 *       back ("release"), so a move step does not pay for that.  Every
 *       step checks that each rank is in the process it should be.
 *       Prints "cross bytes=B out_us=... back_us=... stay_us=...
 *       release_us=..." per size: medians over REPS (default 5) of the
 *       step's time between two barriers of all ranks.  run_lb.sh gives
 *       one size per run: a rank that came from another process mallocs
 *       outside its slot for now (docs/bench.md), which the check of its
 *       heap in the other process catches as a crash.
 *   lb send [REPS [MIB,MIB,...]]   2 ranks, one per process: rank 0
 *       sends each size to rank 1 (buffers written beforehand), which
 *       answers with an empty message; prints "send bytes=B us=..." (the
 *       median).  Also built with Open MPI's mpicc: what moving that
 *       many bytes between two processes costs at best.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MIBS "1,4,16,64,100"
#define MAX_SIZES 16
#define MAX_REPS 31

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), by_value);
    return v[n / 2];
}

/* "1,4,16" -> sizes in bytes; the count, or -1 on a malformed list. */
static int parse_mibs(const char *list, size_t *bytes, int max)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || n == max || (*end && *end != ','))
            return -1;
        bytes[n++] = (size_t)v << 20;
        p = *end ? end + 1 : end;
    }
    return n;
}

/* Rank 0 sends each size to rank 1, which answers with an empty message. */
static int send_sizes(int rank, int size, int reps, const char *list)
{
    size_t bytes[MAX_SIZES];
    int nsizes = parse_mibs(list, bytes, MAX_SIZES);
    if (size != 2 || nsizes <= 0 || reps < 1 || reps > MAX_REPS) {
        if (rank == 0)
            fprintf(stderr,
                    "lb send: needs 2 ranks, 1 <= REPS <= %d and a "
                    "list of MiB like 1,4,16\n",
                    MAX_REPS);
        return 1;
    }
    for (int i = 0; i < nsizes; i++) {
        char *buf = malloc(bytes[i]);
        if (!buf) {
            fprintf(stderr, "lb send: out of memory for %zu bytes\n", bytes[i]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(buf, rank + 1, bytes[i]);
        double t[MAX_REPS];
        for (int k = -1; k < reps; k++) { /* k = -1: warm up */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, (int)bytes[i], MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes[i], MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
            if (k >= 0)
                t[k] = MPI_Wtime() - t0;
        }
        if (rank == 1 && (buf[0] != 1 || buf[bytes[i] - 1] != 1)) {
            fprintf(stderr, "lb send: wrong data received\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0)
            printf("send bytes=%zu us=%.1f\n", bytes[i], median(t, reps) * 1e6);
        free(buf);
    }
    return 0;
}

#ifdef AMPI
/* A dependent chain the compiler cannot shorten. */
static uint64_t work(uint64_t x, long steps)
{
    for (long i = 0; i < steps; i++) {
        x ^= x >> 29;
        x = x * 6364136223846793005u + (uint64_t)i;
    }
    return x;
}

static int loop(int rank, int size, int iters, long unit)
{
    long units = rank < size / 2 ? 4 : 1;
    uint64_t acc = (uint64_t)rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        acc = work(acc, units * unit);
        uint64_t sum;
        MPI_Allreduce(&acc, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        acc ^= sum;
        if (it % 10 == 2)
            AMPI_Migrate(AMPI_INFO_LB_SYNC);
    }
    double t = MPI_Wtime() - t0;
    uint64_t all;
    MPI_Allreduce(&acc, &all, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("loop_s %.4f\nresult %llu\n", t, (unsigned long long)all);
    return 0;
}

static int my_pe(void)
{
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_MY_WTH, &v, &flag);
    return *v;
}

static double time_calls(int rounds, int move, int npes)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < rounds; i++)
        AMPI_Migrate_to_pe(move ? (my_pe() + 1) % npes : -1);
    return (MPI_Wtime() - t0) / rounds;
}

/* One MPI call that a rank makes at home (MPI_Comm_compare), per call. */
static double time_probe(int rounds)
{
    int r;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < rounds * 10; i++)
        MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &r);
    return (MPI_Wtime() - t0) / (rounds * 10);
}

static int migrate(int rank, int size, int rounds, size_t bytes)
{
    int *np, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, AMPI_NUM_WTHS, &np, &flag);
    /* Written once: its pages are resident, and a move copies none. */
    char *heap = bytes ? malloc(bytes) : NULL;
    if (heap)
        memset(heap, 1, bytes);
    int home = my_pe();
    time_calls(rounds / 10 + 1, 1, *np); /* warm up */
    double move = time_calls(rounds, 1, *np);
    double stay = time_calls(rounds, 0, *np);
    AMPI_Migrate_to_pe(home);
    double at_home = time_probe(rounds);
    AMPI_Migrate_to_pe((home + 1) % *np);
    double lodged = time_probe(rounds);
    AMPI_Migrate_to_pe(home);
    double m = 0, s = 0, h = 0, l = 0;
    MPI_Allreduce(&move, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&stay, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&at_home, &h, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&lodged, &l, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("move_us %.2f\nstay_us %.2f\nus_per_rank %.3f\n"
               "call_home_us %.3f\ncall_lodged_us %.3f\n",
               m * 1e6, s * 1e6, (m - s) * 1e6 / size, h * 1e6, l * 1e6);
    free(heap);
    return 0;
}

static int attr_int(int key)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    return flag ? *v : -1;
}

enum {
    STEP_OUT,
    STEP_RELEASE_OUT,
    STEP_BACK,
    STEP_RELEASE_BACK,
    STEP_STAY,
    NSTEPS
};

/* The loads of ranks 0-3 for each step, and the process every rank must
 * be in after it.  GreedyLB (runtime/lb/strategy.c) places the ranks
 * heaviest first on the least loaded PE, a tie keeping the rank's PE; the
 * two PEs are process 0's and process 1's. */
static const double step_loads[NSTEPS][4] = {
    {10, 1, 1, 1}, /* 10 | 1: rank 1 joins ranks 2 and 3 */
    {10, 1, 1, 1}, /* 10 | 3: nobody moves */
    {9, 1, 5, 5},  /* 9 | 5+5: rank 1 comes back to rank 0 */
    {2, 1, 2, 1},  /* 2 | 2, then ties: nobody moves */
    {2, 1, 2, 1},
};
static const int step_procs[NSTEPS][4] = {
    {0, 1, 1, 1}, {0, 1, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 1},
};
static const char *const step_names[NSTEPS] = {"out", "release_out", "back",
                                               "release_back", "stay"};

/* One AMPI_Migrate with the loads of step s: its time between two
 * barriers of all ranks (rank 0, which never moves, measures it). */
static double cross_step(int rank, int s)
{
    AMPI_Load_set_value(step_loads[s][rank]);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    AMPI_Migrate(AMPI_INFO_LB_SYNC);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    int me = attr_int(AMPI_MY_PROCESS), procs[4];
    MPI_Allgather(&me, 1, MPI_INT, procs, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < 4; r++)
        if (procs[r] != step_procs[s][r]) {
            if (rank == 0)
                fprintf(stderr,
                        "lb cross: after step %s rank %d is in process %d, "
                        "not %d (run with +balancer GreedyLB)\n",
                        step_names[s], r, procs[r], step_procs[s][r]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static void check_heap(const char *heap, size_t n, int want, const char *step)
{
    for (size_t b = 0; b < n; b++)
        if ((unsigned char)heap[b] != want) {
            fprintf(stderr,
                    "lb cross: after step %s rank 1's heap has %#x at byte "
                    "%zu of %zu, not %#x\n",
                    step, (unsigned char)heap[b], b, n, want);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static int cross(int rank, int size, int reps, const char *list)
{
    size_t bytes[MAX_SIZES];
    int nsizes = parse_mibs(list, bytes, MAX_SIZES);
    if (size != 4 || attr_int(AMPI_NUM_PROCESSES) != 2 || nsizes <= 0 ||
        reps < 1 || reps > MAX_REPS) {
        if (rank == 0)
            fprintf(stderr,
                    "lb cross: needs +vp 4 +p 1 in 2 processes, "
                    "1 <= REPS <= %d and a list of MiB like 1,4,16\n",
                    MAX_REPS);
        return 1;
    }
    if (attr_int(AMPI_MY_PROCESS) != rank / 2) {
        fprintf(stderr, "lb cross: rank %d starts in process %d, not %d\n",
                rank, attr_int(AMPI_MY_PROCESS), rank / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < nsizes; i++) {
        char *heap = NULL;
        if (rank == 1) {
            if (!(heap = malloc(bytes[i]))) {
                fprintf(stderr, "lb cross: out of memory for %zu bytes\n",
                        bytes[i]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            memset(heap, 0x5a, bytes[i]);
        }
        double t[NSTEPS][MAX_REPS];
        for (int k = -1; k < reps; k++) /* k = -1: warm up */
            for (int s = 0; s < NSTEPS; s++) {
                double v = cross_step(rank, s);
                if (k >= 0)
                    t[s][k] = v;
                /* Warming up, rank 1 checks its heap and rewrites it in
                 * the other process, and checks that on its return. */
                if (heap && k < 0 && (s == STEP_OUT || s == STEP_BACK)) {
                    int was = s == STEP_OUT ? 0x5a : 0xa5;
                    check_heap(heap, bytes[i], was, step_names[s]);
                    memset(heap, was ^ 0xff, bytes[i]);
                }
            }
        if (heap) {
            check_heap(heap, bytes[i], 0x5a, "the last step");
            free(heap);
        }
        if (rank == 0) {
            printf("cross bytes=%zu", bytes[i]);
            for (int s = 0; s < NSTEPS; s++)
                printf(" %s_us=%.1f", step_names[s], median(t[s], reps) * 1e6);
            printf("\n");
            fflush(stdout);
        }
    }
    return 0;
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "loop";
    int rc;
    if (strcmp(mode, "send") == 0)
        rc = send_sizes(rank, size, argc > 2 ? atoi(argv[2]) : 5,
                        argc > 3 ? argv[3] : DEFAULT_MIBS);
#ifdef AMPI
    else if (strcmp(mode, "cross") == 0)
        rc = cross(rank, size, argc > 2 ? atoi(argv[2]) : 5,
                   argc > 3 ? argv[3] : DEFAULT_MIBS);
    else if (strcmp(mode, "loop") == 0)
        rc = loop(rank, size, argc > 2 ? atoi(argv[2]) : 40,
                  argc > 3 ? atol(argv[3]) : 1000000L);
    else if (strcmp(mode, "migrate") == 0)
        rc = migrate(rank, size, argc > 2 ? atoi(argv[2]) : 2000, 0);
    else if (strcmp(mode, "migrate_heap") == 0)
        rc = migrate(rank, size, argc > 2 ? atoi(argv[2]) : 200,
                     argc > 3 ? (size_t)atol(argv[3]) : (1u << 20));
#endif
    else {
        if (rank == 0)
            fprintf(stderr, "lb: unknown mode %s\n", mode);
        rc = 2;
    }
    MPI_Finalize();
    return rc;
}
