/*
 * io3d: collective write and read bandwidth of a 3-D array of doubles
 * distributed in blocks (MPI_Dims_create), each rank's block contiguous
 * in memory and a subarray of the file (MPI_File_set_view), written with
 * MPI_File_write_all and read back with MPI_File_read_all.  One source for
 * ampicc and any mpicc (bench/run_io.sh runs both).
 *
 *   io3d [-m MIB] [-r REPS] [-s] [-c] FILE
 *
 * -m: the array's size in MiB (default 64; rounded to a cube of doubles);
 * -r: repetitions, each a write then a read (default 3); -s: each write
 * ends with MPI_File_sync (the data reaches the device), else it ends in
 * the page cache; -c: check the values read.  Rank 0 prints one line per
 * repetition: "write_MiBps W read_MiBps R", then "best_write_MiBps" and
 * "best_read_MiBps".  The buffers are written before timing (no zero
 * pages).  The file is deleted at the end.
 */
#include "args.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void part(int n, int p, int c, int *start, int *len)
{
    *len = n / p + (c < n % p);
    *start = c * (n / p) + (c < n % p ? c : n % p);
}

static double value(long long x, long long y, long long z, int rep)
{
    return (double)((x * 1000003 + y * 1009 + z) % 1000000) + rep * 0.5;
}

typedef struct setup {
    int n; /* edge of the cube */
    int lsize[3], lstart[3];
    size_t count; /* doubles in this rank's block */
    MPI_Datatype filetype;
    double *buf;
} setup_t;

static void make(setup_t *s, int mib, int rank, int size)
{
    int dims[3] = {0, 0, 0}, coords[3], g[3];
    long long want = (long long)mib * 1024 * 1024 / 8;
    s->n = 1;
    while ((long long)(s->n + 1) * (s->n + 1) * (s->n + 1) <= want)
        s->n++;
    MPI_Dims_create(size, 3, dims);
    coords[0] = rank / (dims[1] * dims[2]);
    coords[1] = rank / dims[2] % dims[1];
    coords[2] = rank % dims[2];
    for (int d = 0; d < 3; d++) {
        g[d] = s->n;
        part(s->n, dims[d], coords[d], &s->lstart[d], &s->lsize[d]);
    }
    s->count = (size_t)s->lsize[0] * s->lsize[1] * s->lsize[2];
    MPI_Type_create_subarray(3, g, s->lsize, s->lstart, MPI_ORDER_C, MPI_DOUBLE,
                             &s->filetype);
    MPI_Type_commit(&s->filetype);
    s->buf = malloc(s->count * sizeof(double) + 8);
}

static void fill(setup_t *s, int rep)
{
    size_t i = 0;
    for (int x = 0; x < s->lsize[0]; x++)
        for (int y = 0; y < s->lsize[1]; y++)
            for (int z = 0; z < s->lsize[2]; z++)
                s->buf[i++] = value(s->lstart[0] + x, s->lstart[1] + y,
                                    s->lstart[2] + z, rep);
}

static long check(setup_t *s, int rep)
{
    size_t i = 0;
    long bad = 0;
    for (int x = 0; x < s->lsize[0]; x++)
        for (int y = 0; y < s->lsize[1]; y++)
            for (int z = 0; z < s->lsize[2]; z++)
                bad += s->buf[i++] != value(s->lstart[0] + x, s->lstart[1] + y,
                                            s->lstart[2] + z, rep);
    return bad;
}

/* Seconds for one collective access, as the slowest rank saw it. */
static double timed(MPI_File fh, setup_t *s, int write, int sync)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (write)
        MPI_File_write_at_all(fh, 0, s->buf, (int)s->count, MPI_DOUBLE,
                              MPI_STATUS_IGNORE);
    else
        MPI_File_read_at_all(fh, 0, s->buf, (int)s->count, MPI_DOUBLE,
                             MPI_STATUS_IGNORE);
    if (write && sync)
        MPI_File_sync(fh);
    t = MPI_Wtime() - t;
    double max;
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

int main(int argc, char **argv)
{
    long mib = 64, reps = 3;
    int sync = 0, verify = 0, rank, size, opt = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (; opt < argc && argv[opt][0] == '-'; opt++) {
        FILE *err = rank == 0 ? stderr : NULL;
        if (strcmp(argv[opt], "-s") == 0)
            sync = 1;
        else if (strcmp(argv[opt], "-c") == 0)
            verify = 1;
        else if (opt + 1 < argc && strcmp(argv[opt], "-m") == 0 &&
                 bench_parse_long("io3d", argv[opt + 1], "-m", 1, 1 << 20, &mib,
                                  err) == 0)
            opt++;
        else if (opt + 1 < argc && strcmp(argv[opt], "-r") == 0 &&
                 bench_parse_long("io3d", argv[opt + 1], "-r", 1, 1000, &reps,
                                  err) == 0)
            opt++;
        else
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (opt >= argc) {
        if (rank == 0)
            fprintf(stderr, "usage: io3d [-m MIB] [-r REPS] [-s] [-c] FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    setup_t s;
    make(&s, (int)mib, rank, size);
    double bytes = (double)s.n * s.n * s.n * 8, best_w = 0, best_r = 0;
    long bad = 0;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[opt], MPI_MODE_CREATE | MPI_MODE_RDWR,
                  MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, s.filetype, "native", MPI_INFO_NULL);
    for (int r = 0; r < reps; r++) {
        fill(&s, r);
        double w = timed(fh, &s, 1, sync);
        memset(s.buf, 0, s.count * sizeof(double));
        double rd = timed(fh, &s, 0, 0);
        if (verify)
            bad += check(&s, r);
        double wb = bytes / w / 1048576, rb = bytes / rd / 1048576;
        best_w = wb > best_w ? wb : best_w;
        best_r = rb > best_r ? rb : best_r;
        if (rank == 0)
            printf("write_MiBps %.1f read_MiBps %.1f\n", wb, rb);
    }
    MPI_File_close(&fh);
    long total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(argv[opt], MPI_INFO_NULL);
        printf("array %d^3 doubles (%.1f MiB) ranks %d\n", s.n, bytes / 1048576,
               size);
        printf("best_write_MiBps %.1f\nbest_read_MiBps %.1f\n", best_w, best_r);
        if (verify)
            printf("%s\n", total ? "check FAILED" : "check ok");
    }
    MPI_Type_free(&s.filetype);
    free(s.buf);
    MPI_Finalize();
    return total != 0;
}
