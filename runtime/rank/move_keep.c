/*
 * The pages of ranks that left this process, kept for their return
 * (move.h: move_keep.c).  Balancing across processes sends many of the
 * same ranks back and forth; giving each slot back when its rank leaves
 * and making it present again when it returns took a system call each way
 * that, on a virtual machine, cost 0.3 ms a slot and more (docs/bench.md).
 */
#include "rank/move.h"
#include "mpi/impl.h"

#include <stdlib.h>

static void unlink_kept(amp_move_t *m, int r)
{
    amp_move_kept_t *k = &m->kept[r];
    if (k->prev >= 0)
        m->kept[k->prev].next = k->next;
    else
        m->kept_first = k->next;
    if (k->next >= 0)
        m->kept[k->next].prev = k->prev;
    else
        m->kept_last = k->prev;
    m->kept_bytes -= k->bytes;
    k->bytes = 0;
}

static void release(int slot, size_t used)
{
    amp_status_ignore(amp_mem_slot_release(&amp_proc.mem, slot, used));
}

static int make_records(amp_move_t *m)
{
    if (m->kept)
        return 1;
    m->kept = calloc((size_t)amp_proc.nranks, sizeof(*m->kept));
    return m->kept != NULL;
}

void amp_move_keep(amp_move_t *m, const struct amp_move_gone *g)
{
    amp_mem_slot_unpoison(&amp_proc.mem, g->slot);
    if (!make_records(m)) {
        release(g->slot, g->used);
        return;
    }
    int r = g->slot;
    m->kept[r] = (amp_move_kept_t){.prev = m->kept_last,
                                   .next = -1,
                                   .used = g->used,
                                   .bytes = g->bytes ? g->bytes : 1};
    if (m->kept_last >= 0)
        m->kept[m->kept_last].next = r;
    else
        m->kept_first = r;
    m->kept_last = r;
    m->kept_bytes += m->kept[r].bytes;
    while (m->kept_bytes > AMP_MOVE_KEEP_BYTES) {
        int old = m->kept_first;
        size_t used = m->kept[old].used;
        unlink_kept(m, old);
        release(old, used);
    }
}

int amp_move_keep_reuse(amp_move_t *m, int r, size_t *heap_open)
{
    if (!m->kept || !m->kept[r].bytes)
        return 0;
    size_t used = m->kept[r].used, image = amp_proc.mem.heap_offset;
    *heap_open = used > image ? used - image : 0;
    unlink_kept(m, r);
    return 1;
}
