/*
 * +ckptgather DIR (checkpoint.h): before a restart from an in-memory
 * checkpoint kept on several nodes, each process's DIR gets the manifest
 * and the files of the ranks the process will hold, from another
 * process's DIR where its own lacks them (its node was lost, or the rank
 * was elsewhere at the checkpoint).  The first rank of each process works
 * for it; the transfers go one after another in one order that every
 * process follows (manifest last), each from the lowest process that has
 * the file, so that no two wait for each other.
 */
#define _GNU_SOURCE 1
#include "rank/checkpoint.h"
#include "rank/ckpt_dir.h"
#include "mpi/impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 30)

typedef struct gather {
    const char *dir;
    MPI_Comm procs; /* one rank of each process, in process order */
    int np, me, nranks;
    uint64_t target;    /* the checkpoint's id */
    uint64_t *ids;      /* process -> id of its DIR's manifest (0: none) */
    unsigned char *has; /* process -> bitmap of rank files of target */
    size_t row;         /* bytes of one bitmap */
} gather_t;

/* The id of dir's manifest if it is complete (its last line "end"). */
static uint64_t manifest_id(const char *dir)
{
    char path[PATH_MAX], line[256], last[256] = "";
    unsigned long long id = 0;
    snprintf(path, sizeof(path), "%s/manifest", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        sscanf(line, "id %llx", &id);
        memcpy(last, line, sizeof(last));
    }
    fclose(f);
    return strcmp(last, "end\n") == 0 ? id : 0;
}

/* Whether dir holds rank r's file of checkpoint id. */
static int rank_file_ok(const char *dir, int r, uint64_t id)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/rank-%d.ckpt", dir, r);
    amp_ckpt_rank_hdr_t h;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = pread(fd, &h, sizeof(h), 0);
    close(fd);
    return n == (ssize_t)sizeof(h) &&
           memcmp(h.magic, AMP_CKPT_RANK_MAGIC, sizeof(h.magic)) == 0 &&
           h.world_rank == r && h.id == id;
}

/* This process's bitmap: the rank files of g->target in its DIR. */
static void list_mine(gather_t *g, unsigned char *row)
{
    memset(row, 0, g->row);
    DIR *d = opendir(g->dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int r, end = 0;
        if (sscanf(e->d_name, "rank-%d.ckpt%n", &r, &end) != 1 ||
            e->d_name[end] || r < 0 || r >= g->nranks)
            continue;
        if (rank_file_ok(g->dir, r, g->target))
            row[r / 8] |= (unsigned char)(1u << (r % 8));
    }
    closedir(d);
}

static int has(const gather_t *g, int q, int r)
{
    return g->has[(size_t)q * g->row + (size_t)r / 8] >> (r % 8) & 1;
}

/* The process that will hold rank r (the restarted job's placement). */
static int holder(int r)
{
    const amp_p2p_world_t *w = &amp_proc.world;
    return w->nprocs > 1 ? w->rank_proc[r] : 0;
}

/* The lowest process whose DIR has item i (a rank's file, or the
 * manifest for i == nranks); -1: none. */
static int source_of(const gather_t *g, int i)
{
    for (int q = 0; q < g->np; q++)
        if (i == g->nranks ? g->ids[q] == g->target : has(g, q, i))
            return q;
    return -1;
}

/* Whether process p's DIR needs item i from elsewhere: a rank of its own
 * that it lacks, or the manifest (once a node: the node's first process
 * that lacks it fetches it). */
static int needs(const gather_t *g, int p, int i)
{
    if (i < g->nranks)
        return holder(i) == p && !has(g, p, i);
    if (g->ids[p] == g->target)
        return 0;
    const int *node = amp_proc.world.proc_node;
    for (int q = 0; node && q < p; q++)
        if (node[q] == node[p] && g->ids[q] != g->target)
            return 0;
    return 1;
}

static void item_path(const gather_t *g, int i, char *out, size_t len)
{
    if (i == g->nranks)
        snprintf(out, len, "%s/manifest", g->dir);
    else
        snprintf(out, len, "%s/rank-%d.ckpt", g->dir, i);
}

/* Sends item i's file to process p (its size first, then its bytes). */
static int send_item(const gather_t *g, int i, int p)
{
    char path[PATH_MAX];
    item_path(g, i, path, sizeof(path));
    size_t bytes = 0;
    int err;
    char *data = amp_ckpt_file_map(path, &bytes, &err);
    int64_t size = data ? (int64_t)bytes : -1;
    PMPI_Send(&size, 1, MPI_INT64_T, p, 0, g->procs);
    for (size_t off = 0; data && off < bytes; off += CHUNK) {
        size_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
        PMPI_Send(data + off, (int)n, MPI_BYTE, p, 1, g->procs);
    }
    if (data)
        munmap(data, bytes);
    return !data;
}

/* Receives item i from process q into DIR (as a .tmp, renamed when
 * whole).  0, or 1 after a line saying what failed. */
static int recv_item(const gather_t *g, int i, int q)
{
    char path[PATH_MAX];
    item_path(g, i, path, sizeof(path));
    int64_t size;
    PMPI_Recv(&size, 1, MPI_INT64_T, q, 0, g->procs, MPI_STATUS_IGNORE);
    if (size <= 0) {
        amp_log_error("+ckptgather %s: process %d cannot read its %s", g->dir,
                      q, path);
        return 1;
    }
    amp_ckpt_incoming_t in;
    amp_ckpt_incoming_begin(&in, path, (size_t)size);
    for (size_t off = 0; off < in.bytes; off += CHUNK) {
        size_t n = in.bytes - off < CHUNK ? in.bytes - off : CHUNK;
        PMPI_Recv(in.mem + off, (int)n, MPI_BYTE, q, 1, g->procs,
                  MPI_STATUS_IGNORE);
    }
    int err = amp_ckpt_incoming_end(&in);
    if (err)
        amp_log_error("+ckptgather %s: cannot write %s: %s", g->dir, path,
                      strerror(err));
    return err != 0;
}

/* One line naming the ranks whose files are on no process's DIR; their
 * count. */
static int report_lost(const gather_t *g)
{
    char list[256] = "";
    size_t at = 0;
    int lost = 0;
    for (int r = 0; r < g->nranks; r++) {
        if (source_of(g, r) >= 0)
            continue;
        if (lost < 16 && at < sizeof(list))
            at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%d",
                                   lost ? ", " : "", r);
        lost++;
    }
    if (lost && g->me == 0)
        amp_log_error("+ckptgather %s: the checkpoint lost %d of its %d "
                      "ranks (%s%s): neither their process's node nor the "
                      "node with their copy has their file",
                      g->dir, lost, g->nranks, list, lost > 16 ? ", ..." : "");
    return lost;
}

/* Every item some process lacks, in one order, from its source. */
static int transfer(const gather_t *g)
{
    int failed = 0;
    for (int i = 0; i <= g->nranks; i++) {
        int q = source_of(g, i);
        for (int p = 0; q >= 0 && p < g->np; p++) {
            if (!needs(g, p, i))
                continue;
            if (g->me == q)
                failed |= send_item(g, i, p);
            else if (g->me == p)
                failed |= recv_item(g, i, q);
        }
    }
    return failed;
}

/* The checkpoint to restart from (g->target) and the id of each
 * process's DIR (g->ids): DIR's of the lowest process that has one.  A job
 * that died while its nodes swapped their directories left the new
 * checkpoint in DIR on some and in DIR.next on others, the previous one
 * the other way round: each process brings the chosen one into DIR. */
static int choose(gather_t *g)
{
    char stage[PATH_MAX];
    amp_ckpt_dir_staging(g->dir, stage, sizeof(stage));
    uint64_t mine[2] = {manifest_id(g->dir), manifest_id(stage)};
    uint64_t *all = calloc(2 * (size_t)g->np, sizeof(*all));
    if (!all)
        amp_fatal("+ckptgather: out of memory");
    PMPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, g->procs);
    for (int k = 0; k < 2 && !g->target; k++)
        for (int q = 0; q < g->np && !g->target; q++)
            g->target = all[2 * q + k];
    free(all);
    if (!g->target) {
        if (g->me == 0)
            amp_log_error("+ckptgather %s: no process's node has a complete "
                          "checkpoint there",
                          g->dir);
        return 1;
    }
    amp_ckpt_dir_settle(g->dir, g->target, manifest_id);
    PMPI_Barrier(g->procs); /* every DIR settled before any is read */
    mine[0] = manifest_id(g->dir);
    PMPI_Allgather(mine, 1, MPI_UINT64_T, g->ids, 1, MPI_UINT64_T, g->procs);
    return 0;
}

/* The first rank of a process works for it. */
static int gather_process(gather_t *g)
{
    PMPI_Comm_size(g->procs, &g->np);
    PMPI_Comm_rank(g->procs, &g->me);
    g->row = ((size_t)g->nranks + 7) / 8;
    g->ids = calloc((size_t)g->np, sizeof(*g->ids));
    g->has = calloc((size_t)g->np, g->row);
    unsigned char *row = malloc(g->row);
    if (!g->ids || !g->has || !row)
        amp_fatal("+ckptgather: out of memory");
    mkdir(g->dir, 0777); /* a node that lost it */
    int failed = choose(g) != 0;
    if (!failed) {
        list_mine(g, row);
        PMPI_Allgather(row, (int)g->row, MPI_BYTE, g->has, (int)g->row,
                       MPI_BYTE, g->procs);
        failed = report_lost(g) ? 1 : transfer(g);
    }
    free(row);
    free(g->ids);
    free(g->has);
    return failed;
}

int amp_ckpt_gather_main(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    PMPI_Init(NULL, NULL);
    gather_t g = {.dir = amp_proc.opts.gather};
    int r, failed = 0, any = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    PMPI_Comm_size(MPI_COMM_WORLD, &g.nranks);
    int first = r == 0 || holder(r - 1) != holder(r);
    PMPI_Comm_split(MPI_COMM_WORLD, first ? 0 : MPI_UNDEFINED, r, &g.procs);
    if (first) {
        amp_sys_alloc_enter();
        failed = gather_process(&g);
        amp_sys_alloc_leave();
        PMPI_Comm_free(&g.procs);
    }
    PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Finalize();
    return any;
}
