/*
 * Matching with many outstanding receives, with and without the MPI-4
 * hints mpi_assert_no_any_source and mpi_assert_no_any_tag.
 *
 * Rank 1 posts N receives from rank 0 with tags 0..N-1, then rank 0 sends
 * N small messages with the tags in reverse order, so each arrival finds
 * its receive at the end of the posted queue: a matcher that scans the
 * queue pays about N/2 comparisons per message.  With the hints set on the
 * communicator (MPI_Comm_set_info), a matcher may look only at receives of
 * the message's own (source, tag).  Each round ends with an empty message
 * back from rank 1, so rounds do not overlap.  Ranks other than 0 and 1
 * only join the barriers.
 *
 * Output, on rank 0, one line per communicator and N:
 *   comm=plain n=1024 ns_per_msg=812.4 min_ns_per_msg=790.1 rounds=200
 *   comm=hints n=1024 ns_per_msg=95.3 ...
 *   ratio n=1024 plain/hints=8.52
 * preceded by comment lines starting with '#'.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_REPS 101

/* ns per message of one timed repetition of rounds rounds of n messages. */
static double one_rep(MPI_Comm comm, int rank, int n, long rounds, int *buf,
                      MPI_Request *reqs)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (long r = 0; r < rounds; r++) {
        if (rank == 1) {
            for (int t = 0; t < n; t++)
                MPI_Irecv(&buf[t], 1, MPI_INT, 0, t, comm, &reqs[t]);
            MPI_Send(NULL, 0, MPI_INT, 0, n, comm); /* ready */
            MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        } else if (rank == 0) {
            MPI_Recv(NULL, 0, MPI_INT, 1, n, comm, MPI_STATUS_IGNORE);
            for (int t = n - 1; t >= 0; t--)
                MPI_Send(&t, 1, MPI_INT, 1, t, comm);
        }
    }
    double t = MPI_Wtime() - t0;
    return t * 1e9 / ((double)rounds * n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and minimum ns per message over reps repetitions. */
static void measure(MPI_Comm comm, int rank, int n, long rounds, int reps,
                    double *median, double *min)
{
    int *buf = malloc((size_t)n * sizeof(int));
    MPI_Request *reqs = malloc((size_t)n * sizeof(MPI_Request));
    double t[MAX_REPS];
    one_rep(comm, rank, n, rounds / 10 + 1, buf, reqs); /* warm-up */
    for (int i = 0; i < reps; i++)
        t[i] = one_rep(comm, rank, n, rounds, buf, reqs);
    if (rank == 1)
        for (int k = 0; k < n; k++)
            if (buf[k] != k) {
                fprintf(stderr, "matching: tag %d got %d\n", k, buf[k]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    *median = t[reps / 2];
    *min = t[0];
    free(buf);
    free(reqs);
}

int main(int argc, char **argv)
{
    int rank, size;
    long n = 1024, rounds = 200, reps = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        int bad = i + 1 >= argc;
        if (!bad && !strcmp(argv[i], "-n"))
            bad = bench_parse_long(argv[0], argv[++i], "-n", 1, 1 << 20, &n,
                                   rank ? NULL : stderr);
        else if (!bad && !strcmp(argv[i], "-i"))
            bad = bench_parse_long(argv[0], argv[++i], "-i", 1, 1 << 30,
                                   &rounds, rank ? NULL : stderr);
        else if (!bad && !strcmp(argv[i], "-r"))
            bad = bench_parse_long(argv[0], argv[++i], "-r", 1, MAX_REPS, &reps,
                                   rank ? NULL : stderr);
        else
            bad = 1;
        if (bad) {
            if (rank == 0)
                fprintf(stderr,
                        "usage: %s [-n RECEIVES] [-i ROUNDS] "
                        "[-r REPS]\n",
                        argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "matching: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm plain, hints;
    MPI_Info info;
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Comm_dup(MPI_COMM_WORLD, &hints);
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_source", "true");
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm_set_info(hints, info);
    MPI_Info_free(&info);
    if (rank == 0)
        printf("# matching: %ld outstanding receives, reverse-order "
               "arrivals; %ld rounds x %ld reps, median\n",
               n, rounds, reps);
    double med[2], min[2];
    measure(plain, rank, (int)n, rounds, (int)reps, &med[0], &min[0]);
    measure(hints, rank, (int)n, rounds, (int)reps, &med[1], &min[1]);
    if (rank == 0) {
        const char *name[2] = {"plain", "hints"};
        for (int c = 0; c < 2; c++)
            printf("comm=%s n=%ld ns_per_msg=%.1f min_ns_per_msg=%.1f "
                   "rounds=%ld\n",
                   name[c], n, med[c], min[c], rounds);
        printf("ratio n=%ld plain/hints=%.2f\n", n, med[0] / med[1]);
    }
    MPI_Comm_free(&plain);
    MPI_Comm_free(&hints);
    MPI_Finalize();
    return 0;
}
