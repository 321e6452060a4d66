/* Collectives between processes do not make their temporaries present
 * again at every call.  Their buffers come from the C library's heap,
 * which by default gave the top of the heap back above 128 KiB at each
 * free: each 256-KiB MPI_Allreduce or MPI_Reduce between 2 processes then
 * faulted in 64 pages or more per temporary, and took several times as
 * long (runtime/start/alloc.c, keep_freed_memory).  After 3 calls of each
 * to warm up, 10 more may fault in at most 16 pages a call over the whole
 * process (under AddressSanitizer, whose quarantine hands out fresh
 * memory, only the results); every result is checked.  Run with one rank a
 * process. */
#include "mpitest.h"

#include <stdlib.h>
#include <sys/resource.h>

enum { COUNT = 32768, WARM = 3, CALLS = 10, MAX_FAULTS_PER_CALL = 16 };

static long faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

static void fill(double *v, int rank, int call)
{
    for (int i = 0; i < COUNT; i++)
        v[i] = (double)(rank + 1) * (i % 97) + call;
}

/* MPI_Allreduce (root < 0) or MPI_Reduce to root, call number call. */
static void reduce_once(double *in, double *out, int root, int call)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fill(in, rank, call);
    if (root < 0)
        MT_CHECK_MPI(
            MPI_Allreduce(in, out, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    else
        MT_CHECK_MPI(MPI_Reduce(in, out, COUNT, MPI_DOUBLE, MPI_SUM, root,
                                MPI_COMM_WORLD));
    if (root >= 0 && rank != root)
        return;
    double ranks = (double)size * (size + 1) / 2;
    for (int i = 0; i < COUNT; i += 511)
        MT_CHECK_DBL_EQ(out[i], ranks * (i % 97) + (double)size * call);
}

static void measure(double *in, double *out, int root, const char *name)
{
    for (int c = 0; c < WARM; c++)
        reduce_once(in, out, root, c);
    long before = faults();
    for (int c = 0; c < CALLS; c++)
        reduce_once(in, out, root, WARM + c);
    long per_call = (faults() - before) / CALLS;
    if (!MT_ASAN && per_call > MAX_FAULTS_PER_CALL)
        MT_FAIL("%s of %d doubles: %ld pages faulted in a call after %d "
                "calls (at most %d expected)",
                name, COUNT, per_call, WARM, MAX_FAULTS_PER_CALL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double *in = malloc(COUNT * sizeof(double));
    double *out = malloc(COUNT * sizeof(double));
    MT_CHECK(in && out);
    fill(out, 0, 0);
    measure(in, out, -1, "MPI_Allreduce");
    measure(in, out, 0, "MPI_Reduce");
    free(in);
    free(out);
    return mt_finish_and_finalize();
}
