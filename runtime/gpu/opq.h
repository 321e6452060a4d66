/*
 * gpu/opq.h: the GPU operations one PE waits for, each completed through
 * an event that the scheduler loop polls (gpu.h: amp_gpu_poll).
 *
 * An operation is an event recorded on a stream after the work it stands
 * for; when the event has completed, the operation's done function runs on
 * the PE.  Events are created once and kept with the finished operations
 * for the next ones: after the first few messages no event is created any
 * more.  A stream runs its work in order, so once an operation's event is
 * not complete, no later operation recorded on the same stream is asked
 * about in that poll: a pipeline of chunks on the PE's stream costs one
 * query per poll, not one per chunk.
 *
 * The driver calls come in as functions (amp_gpu_ev_ops_t) so that the
 * unit tests drive the queue without CUDA; gpu.c passes the driver's.
 */
#ifndef AMP_GPU_OPQ_H
#define AMP_GPU_OPQ_H

#include "base/base.h"

#include <stdatomic.h>

/* Called on the PE that started the operation, from its scheduler loop,
 * once the GPU has finished it; st is AMP_OK or the error the driver
 * reported. */
typedef void (*amp_gpu_done_fn_t)(void *arg, amp_status_t st);

/* What an event answers when asked. */
enum amp_gpu_ev_state {
    AMP_GPU_EV_DONE,    /* the work it captured is complete */
    AMP_GPU_EV_PENDING, /* not yet */
    AMP_GPU_EV_FAILED,  /* the work (or the query) failed */
};

typedef struct amp_gpu_ev_ops {
    /* A new event into *ev: AMP_OK, or an error. */
    amp_status_t (*create)(void *ctx, void **ev);
    /* Captures in ev the work queued on stream so far. */
    amp_status_t (*record)(void *ctx, void *ev, void *stream);
    int (*query)(void *ctx, void *ev); /* enum amp_gpu_ev_state */
    void (*destroy)(void *ctx, void *ev);
    void *ctx;
} amp_gpu_ev_ops_t;

typedef struct amp_gpu_opq_entry {
    struct amp_gpu_opq_entry *next;
    void *ev;
    void *stream; /* where ev was recorded */
    amp_gpu_done_fn_t done;
    void *arg;
    amp_status_t st; /* how it ended */
} amp_gpu_opq_entry_t;

typedef struct amp_gpu_opq {
    amp_gpu_opq_entry_t *head, *tail; /* in flight, oldest first */
    amp_gpu_opq_entry_t *spare;       /* finished, with their events */
    _Atomic int npending;  /* read by any PE (deadlock check, moves) */
    unsigned long created; /* events created so far */
    unsigned long queries; /* events asked about so far */
} amp_gpu_opq_t;

void amp_gpu_opq_init(amp_gpu_opq_t *q);
/* Destroys every event (nothing may be in flight). */
void amp_gpu_opq_cleanup(amp_gpu_opq_t *q, const amp_gpu_ev_ops_t *ops);

/* Records an event on stream after the work queued there so far; done(arg,
 * st) follows from amp_gpu_opq_poll once it has completed.  An error
 * (no event could be created or recorded) is returned and done is not
 * called. */
AMP_MUST_USE amp_status_t amp_gpu_opq_push(amp_gpu_opq_t *q,
                                           const amp_gpu_ev_ops_t *ops,
                                           void *stream, amp_gpu_done_fn_t done,
                                           void *arg);

/* Takes out the operations whose events have completed (the only part
 * that asks the driver), in the order they were pushed. */
amp_gpu_opq_entry_t *amp_gpu_opq_take(amp_gpu_opq_t *q,
                                      const amp_gpu_ev_ops_t *ops);
/* Calls the done functions of what amp_gpu_opq_take took, in order (a done
 * function may push new operations); each operation counts as pending
 * until its done function has returned.  Returns how many finished. */
int amp_gpu_opq_finish(amp_gpu_opq_t *q, amp_gpu_opq_entry_t *fin);
/* Both. */
int amp_gpu_opq_poll(amp_gpu_opq_t *q, const amp_gpu_ev_ops_t *ops);

/* Operations pushed and not yet finished (from any thread). */
int amp_gpu_opq_pending(amp_gpu_opq_t *q);

#endif
