/*
 * ckpt.c - the cost of a checkpoint to files against the memory a rank
 * holds (docs/bench.md, "Checkpoints"): every rank fills BYTES of its heap,
 * then calls AMPI_Migrate with "ampi_checkpoint" = "to_file=DIR" (DIR
 * "memory": "in_memory", into AMPI_CHECKPOINT_MEMORY) N times,
 * each time after changing every page; rank 0 prints the median and the
 * fastest time of one call.  The last call is the program's last step, so
 * a run restarted from DIR (+restart DIR) only ends: its time is the
 * restart's (bench/run_ckpt.sh measures it).
 *
 *   ckpt DIR BYTES N
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: %s DIR BYTES N\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t bytes = strtoull(argv[2], NULL, 10);
    int n = atoi(argv[3]);
    char *mem = malloc(bytes ? bytes : 1), value[MPI_MAX_INFO_VAL];
    double *t = malloc((size_t)(n > 0 ? n : 1) * sizeof(*t));
    if (!mem || !t || n < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(argv[1], "memory") == 0)
        snprintf(value, sizeof(value), "in_memory");
    else
        snprintf(value, sizeof(value), "to_file=%s", argv[1]);
    MPI_Info_set(info, "ampi_checkpoint", value);
    int restarted = 0;
    for (int i = 0; i < n; i++) {
        for (size_t b = 0; b < bytes; b += 4096)
            mem[b] = (char)(i + rank);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pid_t pid = getpid();
        AMPI_Migrate(info);
        t[i] = MPI_Wtime() - t0;
        if (getpid() != pid) /* resumed in a restarted run */
            restarted = 1;
    }
    unsigned sum = 0; /* read back: the memory is really there */
    for (size_t b = 0; b < bytes; b += 4096)
        sum += (unsigned char)mem[b];
    if (sum != (unsigned)(bytes / 4096) * (unsigned char)(n - 1 + rank) &&
        bytes % 4096 == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (rank == 0 && !restarted) {
        qsort(t, (size_t)n, sizeof(*t), cmp);
        printf("ranks %d bytes_per_rank %zu median_ms %.2f min_ms %.2f\n", size,
               bytes, 1e3 * t[n / 2], 1e3 * t[0]);
    }
    MPI_Info_free(&info);
    free(t);
    free(mem);
    MPI_Finalize();
    return 0;
}
