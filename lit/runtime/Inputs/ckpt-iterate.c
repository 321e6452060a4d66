/*
 * An iterative program that checkpoints to files every few steps, for the
 * tests that kill one of its processes (checkpoint-kill-*.test): each rank
 * holds WORDS 64-bit words in its heap, and every step passes its last
 * word to the right neighbour, mixes its words and sums a digest over the
 * job.  The checksum it prints at the end depends on nothing but the
 * arguments, whatever processes the ranks ran in and however often the
 * job was restarted from a checkpoint on the way.
 *
 *   ckpt-iterate DIR STEPS EVERY WORDS PAUSE_MS [DIE_AT]
 *
 * DIR "none": no checkpoint; "memory": checkpoints in memory
 * (AMPI_INFO_CHKPT_IN_MEMORY).  PAUSE_MS: each step sleeps that long, so
 * that the run lasts long enough to be killed at a chosen moment.  DIE_AT:
 * rank 0's process kills itself (SIGKILL) after that step, in every run;
 * with CKPT_ITERATE_DIE_ONCE=FILE in the environment, only in the run that
 * creates FILE (the first, when FILE did not exist).  With
 * CKPT_ITERATE_LOSE_NODE=1 too, it first removes its node's copy of the
 * in-memory checkpoint (AMPI_CHECKPOINT_MEMORY), as if the node's memory
 * were lost with it.
 */
#include <mpi.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static uint64_t step(uint64_t *w, long words, int it, int rank, int size)
{
    uint64_t in = 0, out = w[words - 1], mine = 0, all = 0;
    MPI_Sendrecv(&out, 1, MPI_UINT64_T, (rank + 1) % size, it, &in, 1,
                 MPI_UINT64_T, (rank + size - 1) % size, it, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    uint64_t carry = in ^ (uint64_t)it;
    for (long i = 0; i < words; i++) {
        carry = carry * 6364136223846793005ull + w[i] + 1442695040888963407ull;
        w[i] = carry;
    }
    for (long i = 0; i < words; i += 97)
        mine += w[i];
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* Removes dir and a checkpoint's files in it (of size ranks). */
static void remove_dir(const char *dir, int size)
{
    char path[1024];
    for (int r = 0; r < size; r++) {
        snprintf(path, sizeof(path), "%s/rank-%d.ckpt", dir, r);
        unlink(path);
    }
    snprintf(path, sizeof(path), "%s/manifest", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/owner", dir);
    unlink(path);
    rmdir(dir);
}

/* Whether this run is the one that dies (CKPT_ITERATE_DIE_ONCE); then,
 * with CKPT_ITERATE_LOSE_NODE, the node's in-memory checkpoint goes. */
static int first_death(int size)
{
    const char *once = getenv("CKPT_ITERATE_DIE_ONCE");
    const char *lose = getenv("CKPT_ITERATE_LOSE_NODE");
    const char *mem = getenv("AMPI_CHECKPOINT_MEMORY");
    if (once) {
        int fd = open(once, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0)
            return 0;
        close(fd);
    }
    if (lose && mem) {
        char next[512];
        snprintf(next, sizeof(next), "%s.next", mem);
        remove_dir(mem, size);
        remove_dir(next, size);
    }
    return 1;
}

static void checkpoint(const char *dir)
{
    if (strcmp(dir, "memory") == 0) {
        if (AMPI_Migrate(AMPI_INFO_CHKPT_IN_MEMORY) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        return;
    }
    char value[MPI_MAX_INFO_VAL];
    MPI_Info info;
    snprintf(value, sizeof(value), "to_file=%s", dir);
    MPI_Info_create(&info);
    MPI_Info_set(info, "ampi_checkpoint", value);
    if (AMPI_Migrate(info) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 6 && argc != 7) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s DIR STEPS EVERY WORDS PAUSE_MS [DIE_AT]\n",
                    argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *dir = strcmp(argv[1], "none") == 0 ? NULL : argv[1];
    int steps = atoi(argv[2]), every = atoi(argv[3]);
    long words = atol(argv[4]), pause = atol(argv[5]);
    int die_at = argc == 7 ? atoi(argv[6]) : -1;
    uint64_t *w = malloc((size_t)words * sizeof(*w)), digest = 0;
    if (!w || steps < 1 || every < 1 || words < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (long i = 0; i < words; i++)
        w[i] = (uint64_t)rank << 40 | (uint64_t)i;
    for (int it = 0; it < steps; it++) {
        digest = digest * 1099511628211ull + step(w, words, it, rank, size);
        if (dir && it % every == every - 1)
            checkpoint(dir);
        if (it == die_at && rank == 0 && first_death(size)) {
            fflush(stdout);
            kill(getpid(), SIGKILL);
        }
        pause_ms(pause);
    }
    if (rank == 0)
        printf("checksum %016llx\nNo Errors\n", (unsigned long long)digest);
    free(w);
    MPI_Finalize();
    return 0;
}
