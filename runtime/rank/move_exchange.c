/* The exchanges of loads and places around a move of ranks; see
 * move_exchange.h. */
#include "rank/move_exchange.h"
#include "mpi/impl.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { EXCHANGE_PLACES, EXCHANGE_LOADS, EXCHANGE_SENDS };

/* The header of an exchange's message: its kind and how many records
 * follow as its data ((rank, PE) pairs, or amp_move_load_t). */
typedef struct exchange_hdr {
    int32_t kind, n;
} exchange_hdr_t;

/* What PE 0's handler fills in for the thread that runs an exchange. */
typedef struct amp_move_exchange {
    int nranks;
    int *place_pe, *place_proc; /* by world rank, as processes reported */
    _Atomic int places_got;
    amp_move_load_t *loads; /* by world rank, as processes reported */
    _Atomic int loads_got;
    amp_lb_sends_t *sends; /* by world rank, or NULL: not exchanged */
    _Atomic int sends_got;
} amp_move_exchange_t;

/* A send table as it travels: its rank first. */
typedef struct sends_rec {
    int32_t rank, pad;
    amp_lb_sends_t sends;
} sends_rec_t;

/* The record size of an exchange of kind. */
static size_t record_size(int kind)
{
    return kind == EXCHANGE_LOADS   ? sizeof(amp_move_load_t)
           : kind == EXCHANGE_SENDS ? sizeof(sends_rec_t)
                                    : 2 * sizeof(int32_t);
}

/* On PE 0, from process m->from_proc: the PEs of its ranks, or their
 * loads. */
static void on_message(amp_pe_t *pe, const amp_p2p_am_t *m)
{
    amp_move_exchange_t *x = amp_proc.move_exchange;
    exchange_hdr_t h;
    int q = m->from_proc;
    (void)pe;
    if (m->hlen != sizeof(h))
        amp_fatal("process %d sent a %zu-byte header of rank places: are "
                  "all processes the same program?",
                  q, m->hlen);
    memcpy(&h, m->hdr, sizeof(h));
    size_t rec = record_size(h.kind);
    if (h.n < 0 || h.n > x->nranks || m->bytes != (size_t)h.n * rec ||
        (m->bytes && !m->data) || (h.kind == EXCHANGE_SENDS && !x->sends))
        amp_fatal("process %d sent %zu bytes of rank places: are all "
                  "processes the same program?",
                  q, m->bytes);
    const char *p = m->data;
    for (int i = 0; i < h.n; i++, p += rec) {
        int32_t pair[2];
        memcpy(pair, p, sizeof(pair));
        if (pair[0] < 0 || pair[0] >= x->nranks)
            amp_fatal("process %d reported rank %d of %d", q, pair[0],
                      x->nranks);
        if (h.kind == EXCHANGE_LOADS) {
            memcpy(&x->loads[pair[0]], p, rec);
            continue;
        }
        if (h.kind == EXCHANGE_SENDS) {
            memcpy(&x->sends[pair[0]], p + offsetof(sends_rec_t, sends),
                   sizeof(amp_lb_sends_t));
            continue;
        }
        x->place_pe[pair[0]] = pair[1];
        x->place_proc[pair[0]] = q;
    }
    atomic_fetch_add_explicit(h.kind == EXCHANGE_LOADS   ? &x->loads_got
                              : h.kind == EXCHANGE_SENDS ? &x->sends_got
                                                         : &x->places_got,
                              1, memory_order_release);
}

void amp_move_exchange_init(amp_p2p_world_t *w)
{
    amp_move_exchange_t *x = calloc(1, sizeof(*x));
    int n = w->nranks;
    if (!x || !(x->place_pe = calloc((size_t)n, sizeof(int))) ||
        !(x->place_proc = malloc((size_t)n * sizeof(int))) ||
        !(x->loads = calloc((size_t)n, sizeof(*x->loads))))
        amp_fatal("out of memory for %d ranks", n);
    for (int r = 0; r < n; r++)
        x->place_proc[r] = -1;
    x->nranks = n;
    atomic_init(&x->places_got, 0);
    atomic_init(&x->loads_got, 0);
    atomic_init(&x->sends_got, 0);
    if (amp_proc.lb.comm && n <= AMP_MOVE_SENDS_MAX &&
        !(x->sends = calloc((size_t)n, sizeof(*x->sends))))
        amp_fatal("out of memory for the send tables of %d ranks", n);
    amp_proc.move_exchange = x;
    amp_p2p_am_register(w, AMP_P2P_AM_PLACES, on_message);
}

/* What the thread does while it waits for the others: lets its own PE
 * take what arrives (the other PEs, whose ranks all wait, do so by
 * themselves). */
static void wait_poll(void)
{
    amp_sched_poll(amp_pe_self());
    for (int i = 0; i < 64; i++)
        __asm__ volatile("" ::: "memory");
}

/* Sends the exchange's message to PE 0 of every other process, then waits
 * until every other process's has come. */
static void exchange(amp_p2p_world_t *w, int kind, const void *data, int n,
                     size_t rec, _Atomic int *got)
{
    exchange_hdr_t h = {.kind = kind, .n = n};
    for (int q = 0; q < w->nprocs; q++)
        if (q != w->proc)
            amp_p2p_am_control(amp_pe_self(),
                               &(amp_p2p_am_out_t){.id = AMP_P2P_AM_PLACES,
                                                   .proc = q,
                                                   .pe = 0,
                                                   .hdr = &h,
                                                   .hlen = sizeof(h),
                                                   .data = data,
                                                   .bytes = (size_t)n * rec});
    while (atomic_load_explicit(got, memory_order_acquire) < w->nprocs - 1)
        wait_poll();
    atomic_store_explicit(got, 0, memory_order_relaxed);
}

void amp_move_exchange_places(amp_p2p_world_t *w)
{
    amp_move_exchange_t *x = amp_proc.move_exchange;
    int32_t *pairs = malloc((size_t)w->nranks * 2 * sizeof(int32_t));
    if (!pairs)
        amp_fatal("out of memory exchanging the places of ranks");
    int n = 0;
    for (int r = 0; r < w->nranks; r++) {
        if (w->rank_proc[r] != w->proc)
            continue;
        pairs[2 * n] = r;
        pairs[2 * n + 1] = w->rank_pe[r];
        n++;
    }
    exchange(w, EXCHANGE_PLACES, pairs, n, 2 * sizeof(int32_t), &x->places_got);
    free(pairs);
    for (int r = 0; r < w->nranks; r++) {
        if (x->place_proc[r] < 0)
            continue;
        amp_p2p_net_place(w, r, x->place_proc[r], x->place_pe[r]);
        x->place_proc[r] = -1;
    }
}

void amp_move_exchange_loads(amp_p2p_world_t *w, const amp_move_load_t *mine,
                             int n, amp_move_load_t *all)
{
    amp_move_exchange_t *x = amp_proc.move_exchange;
    exchange(w, EXCHANGE_LOADS, mine, n, sizeof(*mine), &x->loads_got);
    memcpy(all, x->loads, (size_t)w->nranks * sizeof(*all));
    for (int i = 0; i < n; i++)
        all[mine[i].rank] = mine[i];
}

int amp_move_exchange_has_sends(void)
{
    const amp_move_exchange_t *x = amp_proc.move_exchange;
    return x && x->sends;
}

void amp_move_exchange_sends(amp_p2p_world_t *w, const int *ranks,
                             const amp_lb_sends_t *const *tables, int n,
                             amp_lb_sends_t *all)
{
    amp_move_exchange_t *x = amp_proc.move_exchange;
    sends_rec_t *mine = calloc((size_t)(n ? n : 1), sizeof(*mine));
    if (!mine)
        amp_fatal("out of memory exchanging the send tables of %d ranks", n);
    for (int i = 0; i < n; i++) {
        mine[i].rank = ranks[i];
        mine[i].sends = *tables[i];
    }
    exchange(w, EXCHANGE_SENDS, mine, n, sizeof(*mine), &x->sends_got);
    memcpy(all, x->sends, (size_t)w->nranks * sizeof(*all));
    for (int i = 0; i < n; i++)
        all[ranks[i]] = *tables[i];
    free(mine);
}
