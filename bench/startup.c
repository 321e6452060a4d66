/*
 * Startup benchmark program (bench/startup.sh): a small legacy-style MPI
 * program with a few kilobytes of mutable globals, which every rank
 * initializes and synchronizes once.  Then rank 0, with every rank started
 * and waiting, prints the process's resident memory from /proc/self/status
 * (all of it, the anonymous part, the file-backed part) in KiB:
 *
 *     rss <VmRSS> anon <RssAnon> file <RssFile>
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int my_rank = -1;
double field[512]; /* 4 KiB of .bss */
int steps = 10;    /* .data */
const char *name = "startup";
int *rank_ptr = &my_rank;

static long status_kib(const char *key)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, key, strlen(key)) == 0)
            sscanf(line + strlen(key), " %ld", &kib);
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    int rank, size; /* rank is local: -privatize=none shares my_rank */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *rank_ptr = rank;
    field[rank % 512] = steps;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: rss %ld anon %ld file %ld\n", name, status_kib("VmRSS:"),
               status_kib("RssAnon:"), status_kib("RssFile:"));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
