/*
 * The processes of a job that share one kernel share its cores, whatever
 * their host names: two "nodes" of one machine (network namespaces,
 * containers) that each pinned their PEs from the machine's first core on
 * would run on the same core, where every message between them waits for
 * the kernel to switch from one spinning process to the other.  Run with
 * +p 1: every rank reads its kernel's boot id and the cores its PE is bound
 * to; rank 0 checks that
 *
 * - each PE is bound to exactly one CPU (the runtime pins by default);
 * - ranks of different processes on one kernel are bound to different
 *   CPUs, as long as that kernel has a CPU for each of those processes.
 */
#define _GNU_SOURCE
#include "mpitest.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BOOT_MAX 40

typedef struct where {
    char boot[BOOT_MAX];
    cpu_set_t cpus;
    int proc, ncpus;
} where_t;

static void read_boot_id(char *id)
{
    memset(id, 0, BOOT_MAX);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return;
    if (!fgets(id, BOOT_MAX, f))
        id[0] = '\0';
    fclose(f);
    id[strcspn(id, "\n")] = '\0';
}

/* Processes of the job whose kernel is a's, counted once each. */
static int procs_on_kernel(const where_t *all, int size, const where_t *a)
{
    int n = 0;
    for (int r = 0; r < size; r++) {
        if (strcmp(all[r].boot, a->boot) != 0)
            continue;
        int first = 1;
        for (int s = 0; s < r && first; s++)
            first = !(strcmp(all[s].boot, a->boot) == 0 &&
                      all[s].proc == all[r].proc);
        n += first;
    }
    return n;
}

static void check(const where_t *all, int size)
{
    for (int r = 0; r < size; r++) {
        if (CPU_COUNT(&all[r].cpus) != 1)
            MT_FAIL("rank %d (process %d) is bound to %d CPUs, expected one",
                    r, all[r].proc, CPU_COUNT(&all[r].cpus));
        if (!all[r].boot[0])
            MT_FAIL("rank %d cannot read its kernel's boot id", r);
    }
    for (int r = 0; r < size; r++)
        for (int s = r + 1; s < size; s++) {
            const where_t *a = &all[r], *b = &all[s];
            if (a->proc == b->proc || strcmp(a->boot, b->boot) != 0 ||
                procs_on_kernel(all, size, a) > a->ncpus)
                continue;
            cpu_set_t both;
            CPU_AND(&both, &a->cpus, &b->cpus);
            if (CPU_COUNT(&both) != 0)
                MT_FAIL("ranks %d and %d, of processes %d and %d on one "
                        "kernel of %d CPUs, share a CPU",
                        r, s, a->proc, b->proc, a->ncpus);
        }
}

int main(int argc, char **argv)
{
    MT_CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    MT_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    where_t me;
    memset(&me, 0, sizeof(me));
    read_boot_id(me.boot);
    MT_CHECK(sched_getaffinity(0, sizeof(me.cpus), &me.cpus) == 0);
    me.proc = mt_process_of(rank);
    me.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    where_t *all = calloc((size_t)size, sizeof(*all));
    MT_CHECK(all != NULL);
    MT_CHECK_MPI(MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all,
                            (int)sizeof(me), MPI_BYTE, 0, MPI_COMM_WORLD));
    if (rank == 0)
        check(all, size);
    free(all);
    return mt_finish_and_finalize();
}
