/* Members of windows in other processes of this node; see rma.h. */
#include "rma/rma.h"
#include "rma/state.h"

#include "node/node.h"

#include <stdlib.h>
#include <string.h>

/* Target layouts of more pieces than this go as messages instead. */
#define CMA_MAX_PIECES 65536

/* Node memory mapped for a window, unmapped with its state. */
typedef struct mapping {
    struct mapping *next;
    void *p;
    size_t bytes;
} mapping_t;

void amp_rma_set_direct(amp_rma_win_t *w, int r, char *base)
{
    w->targets[r].direct = base;
}

char *amp_rma_direct(const amp_rma_win_t *w, int r, const char *taddr)
{
    const target_t *t = &w->targets[r];
    if (!t->direct)
        return NULL;
    return t->direct + (taddr - t->seg.base);
}

void amp_rma_set_acc_lock(amp_rma_win_t *w, int r, _Atomic int *acc)
{
    w->targets[r].accp = acc;
}

void amp_rma_set_cma(amp_rma_win_t *w, int r, int pid)
{
    w->targets[r].cma_pid = pid;
}

int amp_rma_cma(const amp_rma_win_t *w, int r)
{
    return w->targets[r].cma_pid != 0;
}

amp_status_t amp_rma_keep_mapping(amp_rma_win_t *w, void *p, size_t bytes)
{
    mapping_t *m = malloc(sizeof(*m));
    if (!m)
        return AMP_ERR_NOMEM;
    amp_spin_lock(&w->wl); /* members of this process add theirs at once */
    *m = (mapping_t){w->maps, p, bytes};
    w->maps = m;
    amp_spin_unlock(&w->wl);
    return AMP_OK;
}

void amp_rma_unmap_all(amp_rma_win_t *w)
{
    while (w->maps) {
        mapping_t *m = w->maps;
        w->maps = m->next;
        amp_node_unmap(m->p, m->bytes);
        free(m);
    }
}

/* ---- cross-memory copies ---------------------------------------------- */

/* The pieces of tcount elements of tdt at taddr (in the target's process),
 * in type-map order, into a new list (*n of them); NULL when out of memory
 * or above CMA_MAX_PIECES (*n then says which). */
static amp_node_iov_t *target_pieces(const amp_dt_t *tdt, int tcount,
                                     char *taddr, int *n)
{
    if (tdt->contig) {
        amp_node_iov_t *v = malloc(sizeof(*v));
        if (v)
            *v = (amp_node_iov_t){taddr + tdt->true_lb,
                                  (size_t)tcount * tdt->size};
        *n = 1;
        return v;
    }
    /* A type without a list of blocks (a basic type resized) has one. */
    amp_dt_block_t one;
    int nb;
    const amp_dt_block_t *blocks = amp_dt_blocks(tdt, &nb, &one);
    long long reps = amp_dt_reps(tdt);
    long long total = (long long)tcount * reps * nb;
    *n = total > CMA_MAX_PIECES ? -1 : (int)total;
    if (*n < 0)
        return NULL;
    amp_node_iov_t *v = malloc((size_t)(total ? total : 1) * sizeof(*v));
    int k = 0;
    long long idx[AMP_DT_MAX_DIMS] = {0};
    for (int i = 0; v && i < tcount; i++) {
        char *at = taddr + (ptrdiff_t)i * tdt->extent;
        for (long long r = 0; r < reps; r++, at += amp_dt_rep_next(tdt, idx))
            for (int b = 0; b < nb; b++, k++)
                v[k] = (amp_node_iov_t){at + blocks[b].off, blocks[b].len};
    }
    return v;
}

/* One copy between the origin layout (dt, count at addr; packed through a
 * temporary unless contiguous) and the target's pieces. */
static amp_status_t cma_copy(int pid, int put, const amp_rma_acc_t *d,
                             const amp_dt_t *dt, int count, void *addr)
{
    size_t bytes = (size_t)d->tcount * d->tdt->size;
    if (!bytes)
        return AMP_OK;
    int n;
    amp_node_iov_t *tv = target_pieces(d->tdt, d->tcount, d->taddr, &n);
    if (!tv)
        return n < 0 ? AMP_ERR_UNSUPPORTED : AMP_ERR_NOMEM;
    void *temp = NULL;
    amp_node_iov_t ov = {amp_dt_data(addr, dt), bytes};
    if (!dt->contig && !(ov.base = temp = malloc(bytes))) {
        free(tv);
        return AMP_ERR_NOMEM;
    }
    if (put && temp)
        amp_dt_pack(dt, count, addr, temp);
    amp_status_t st = put ? amp_node_cma_writev(pid, &ov, 1, tv, n)
                          : amp_node_cma_readv(pid, &ov, 1, tv, n);
    if (st == AMP_OK && !put && temp)
        amp_dt_unpack(dt, count, addr, temp, bytes);
    free(temp);
    free(tv);
    return st;
}

amp_status_t amp_rma_cma_put(amp_rma_win_t *w, int r, const amp_rma_acc_t *d)
{
    return cma_copy(w->targets[r].cma_pid, 1, d, d->odt, d->ocount,
                    (void *)d->oaddr);
}

amp_status_t amp_rma_cma_get(amp_rma_win_t *w, int r, const amp_rma_acc_t *d)
{
    return cma_copy(w->targets[r].cma_pid, 0, d, d->rdt, d->rcount, d->raddr);
}
