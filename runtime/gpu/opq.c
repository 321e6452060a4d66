/*
 * The GPU operations a PE waits for (opq.h).  No CUDA here: the events are
 * reached through amp_gpu_ev_ops_t.
 */
#include "gpu/opq.h"

#include <stdlib.h>

/* Streams found busy in one poll: later events on them are not asked
 * about.  Past this many, every event is asked (still right, only
 * slower). */
#define BUSY_STREAMS 8

void amp_gpu_opq_init(amp_gpu_opq_t *q)
{
    *q = (amp_gpu_opq_t){0};
    atomic_init(&q->npending, 0);
}

void amp_gpu_opq_cleanup(amp_gpu_opq_t *q, const amp_gpu_ev_ops_t *ops)
{
    amp_assert(!q->head);
    for (amp_gpu_opq_entry_t *op = q->spare, *next; op; op = next) {
        next = op->next;
        ops->destroy(ops->ctx, op->ev);
        free(op);
    }
    q->spare = NULL;
}

/* A finished operation with its event, or a new one. */
static amp_gpu_opq_entry_t *op_get(amp_gpu_opq_t *q,
                                   const amp_gpu_ev_ops_t *ops)
{
    amp_gpu_opq_entry_t *op = q->spare;
    if (op) {
        q->spare = op->next;
        return op;
    }
    op = malloc(sizeof(*op));
    if (op && ops->create(ops->ctx, &op->ev) != AMP_OK) {
        free(op);
        return NULL;
    }
    if (op)
        q->created++;
    return op;
}

static void op_put(amp_gpu_opq_t *q, amp_gpu_opq_entry_t *op)
{
    op->next = q->spare;
    q->spare = op;
}

amp_status_t amp_gpu_opq_push(amp_gpu_opq_t *q, const amp_gpu_ev_ops_t *ops,
                              void *stream, amp_gpu_done_fn_t done, void *arg)
{
    amp_gpu_opq_entry_t *op = op_get(q, ops);
    if (!op)
        return AMP_ERR_NOMEM;
    amp_status_t st = ops->record(ops->ctx, op->ev, stream);
    if (st != AMP_OK) {
        op_put(q, op);
        return st;
    }
    op->stream = stream;
    op->done = done;
    op->arg = arg;
    op->next = NULL;
    if (q->tail)
        q->tail->next = op;
    else
        q->head = op;
    q->tail = op;
    atomic_fetch_add(&q->npending, 1);
    return AMP_OK;
}

static int is_busy(void *const *busy, int nbusy, void *stream)
{
    for (int i = 0; i < nbusy; i++)
        if (busy[i] == stream)
            return 1;
    return 0;
}

amp_gpu_opq_entry_t *amp_gpu_opq_take(amp_gpu_opq_t *q,
                                      const amp_gpu_ev_ops_t *ops)
{
    void *busy[BUSY_STREAMS];
    int nbusy = 0;
    amp_gpu_opq_entry_t *fin = NULL, **fin_tail = &fin, **link = &q->head;
    amp_gpu_opq_entry_t *last = NULL;
    while (*link) {
        amp_gpu_opq_entry_t *op = *link;
        int state = AMP_GPU_EV_PENDING;
        if (!is_busy(busy, nbusy, op->stream)) {
            q->queries++;
            state = ops->query(ops->ctx, op->ev);
        }
        if (state == AMP_GPU_EV_PENDING) {
            if (nbusy < BUSY_STREAMS && !is_busy(busy, nbusy, op->stream))
                busy[nbusy++] = op->stream;
            last = op;
            link = &op->next;
            continue;
        }
        op->st = state == AMP_GPU_EV_DONE ? AMP_OK : AMP_ERR_OTHER;
        *link = op->next;
        op->next = NULL;
        *fin_tail = op;
        fin_tail = &op->next;
    }
    q->tail = last;
    return fin;
}

int amp_gpu_opq_finish(amp_gpu_opq_t *q, amp_gpu_opq_entry_t *fin)
{
    int n = 0;
    while (fin) {
        amp_gpu_opq_entry_t *op = fin;
        fin = op->next;
        amp_gpu_done_fn_t done = op->done;
        void *arg = op->arg;
        amp_status_t st = op->st;
        op_put(q, op);
        done(arg, st);
        /* Only now: what done queues or sends next is under way before
         * the PE stops counting as busy (rank moves wait for that). */
        atomic_fetch_sub(&q->npending, 1);
        n++;
    }
    return n;
}

int amp_gpu_opq_poll(amp_gpu_opq_t *q, const amp_gpu_ev_ops_t *ops)
{
    return amp_gpu_opq_finish(q, amp_gpu_opq_take(q, ops));
}

int amp_gpu_opq_pending(amp_gpu_opq_t *q)
{
    return atomic_load(&q->npending);
}
