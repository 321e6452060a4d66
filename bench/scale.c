/*
 * What every rank of a very large job costs (bench/scale.sh): start-up,
 * resident memory, a barrier, an 8-byte allreduce, a ring exchange with
 * both neighbours, MPI_Comm_split into up to 1,000 colours, MPI_Comm_dup,
 * a load-balancing step (ours only) and MPI_Finalize.  Rank 0 prints one
 * line of key=value pairs; times in seconds, memory in KiB:
 *
 *     scale ranks=N start=S rss_kib=K barrier=... allreduce=... ring=...
 *           split=... dup=... rss_comms_kib=... lb=... ckpt=... end=T
 *
 * start is from SCALE_T0 (the launcher's clock, seconds since the epoch,
 * set by the script just before it starts the job) to the end of the
 * first barrier; end is the same clock just before MPI_Finalize, so the
 * script can tell how long the exit took.  rss_kib is rank 0's process's
 * resident memory after the first barrier, rss_comms_kib the same after
 * the split and the duplicate (0 with "basic").  Every answer is checked: a
 * wrong one ends the run with status 1.
 *
 * With the program argument "basic" it stops after the ring (split, dup
 * and lb print 0): what a job whose ranks never split costs, for counts
 * where the communicators would not fit the machine.
 *
 * With SCALE_CKPT_DIR set (ours only), every rank then checkpoints into
 * that directory (AMPI_Migrate, "ampi_checkpoint" = "to_file=DIR"):
 * ckpt=S, else ckpt=0.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static long counter; /* a global, private to each rank when privatized */

static double epoch_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static long rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            sscanf(line + 6, " %ld", &kib);
    if (f)
        fclose(f);
    return kib;
}

static void fail(const char *what, long got, long want)
{
    fprintf(stderr, "scale: %s: %ld, expected %ld\n", what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The mean time of reps calls of f, measured between two barriers. */
static double timed(void (*f)(int, int), int rank, int size, int reps)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < reps; i++)
        f(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    return (MPI_Wtime() - t) / reps;
}

static void barrier(int rank, int size)
{
    (void)rank;
    (void)size;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void allreduce(int rank, int size)
{
    (void)rank;
    long one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size)
        fail("allreduce", sum, size);
}

static void ring(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int got[2] = {-1, -1};
    MPI_Request req[4];
    MPI_Irecv(&got[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&rank, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&rank, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    if (got[0] != left || got[1] != right)
        fail("ring", got[0], left);
}

static MPI_Comm part, dup;

static void split(int rank, int size)
{
    int colours = size < 1000 ? size : 1000;
    MPI_Comm_split(MPI_COMM_WORLD, rank % colours, rank, &part);
    int prank;
    MPI_Comm_rank(part, &prank);
    if (prank != rank / colours)
        fail("split", prank, rank / colours);
}

static void duplicate(int rank, int size)
{
    (void)rank;
    (void)size;
    MPI_Comm_dup(part, &dup);
}

static void balance(int rank, int size)
{
    (void)rank;
    (void)size;
#ifdef AMPI
    AMPI_Migrate(AMPI_INFO_LB_SYNC);
#endif
}

static void checkpoint(int rank, int size)
{
    (void)rank;
    (void)size;
#ifdef AMPI
    /* In the heap: a 4 KB array here, inlined into main, made every
     * rank's first frame touch a second page of its stack. */
    const char *dir = getenv("SCALE_CKPT_DIR");
    size_t len = strlen("to_file=") + strlen(dir) + 1;
    char *value = malloc(len);
    if (!value)
        fail("checkpoint", 2, 0);
    snprintf(value, len, "to_file=%s", dir);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ampi_checkpoint", value);
    if (AMPI_Migrate(info) != MPI_SUCCESS)
        fail("checkpoint", 1, 0);
    MPI_Info_free(&info);
    free(value);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counter += rank;
    MPI_Barrier(MPI_COMM_WORLD);
    const char *t0 = getenv("SCALE_T0");
    double start = t0 ? epoch_now() - atof(t0) : -1.0;
    long rss = rank == 0 ? rss_kib() : 0;
    double t_bar = timed(barrier, rank, size, 5);
    double t_all = timed(allreduce, rank, size, 5);
    double t_ring = timed(ring, rank, size, 5);
    int basic = argc > 1 && strcmp(argv[1], "basic") == 0;
    double t_split = 0, t_dup = 0, t_lb = 0, t_ckpt = 0;
    long rss_comms = 0;
    if (!basic) {
        t_split = timed(split, rank, size, 1);
        t_dup = timed(duplicate, rank, size, 1);
        rss_comms = rank == 0 ? rss_kib() : 0;
        t_lb = timed(balance, rank, size, 1);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&part);
    }
#ifdef AMPI
    if (getenv("SCALE_CKPT_DIR"))
        t_ckpt = timed(checkpoint, rank, size, 1);
#endif
    if (counter != rank)
        fail("privatized global", counter, rank);
    if (rank == 0)
        printf("scale ranks=%d start=%.4f rss_kib=%ld barrier=%.3e "
               "allreduce=%.3e ring=%.3e split=%.3e dup=%.3e "
               "rss_comms_kib=%ld lb=%.3e ckpt=%.3e end=%.6f\n",
               size, start, rss, t_bar, t_all, t_ring, t_split, t_dup,
               rss_comms, t_lb, t_ckpt, epoch_now());
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
