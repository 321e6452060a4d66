/*
 * Deadlock detection across the processes of a job, over p2p's control
 * messages (amp_p2p_am_control: not counted as the program's traffic,
 * outside the per-pair order).
 *
 * A process is quiet when its scheduler finds every rank blocked and
 * nothing to do (sched's on_quiet: amp_detect_quiet), and none of its PEs
 * has a transfer under way; it records how many messages of the program's
 * it had sent to and received from other processes then
 * (amp_p2p_net_traffic).  Nothing but a message from another process can
 * wake it, so it stays quiet while those counts stay the same.  Process 0,
 * when quiet itself, sends waves of probes; each process answers whether
 * it is still quiet, with its counts.  Two waves in a row where every
 * process is quiet, the job's sent count equals its received count and
 * both equal the previous wave's mean no message is in flight and nothing
 * can ever change: a deadlock.  Process 0 then has every process report
 * its ranks (amp_report_blocked) and ends the job.  A process whose ranks
 * have all ended tells process 0 its final counts and is quiet from then
 * on.
 */
#include "start/start.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* At most one wave of probes per this many ns. */
#define DETECT_WAVE_NS 10000000L

enum detect_kind {
    DETECT_PROBE,    /* to a process: are you quiet? (wave) */
    DETECT_REPLY,    /* to process 0: quiet, sent, received */
    DETECT_DEADLOCK, /* to a process: report your ranks */
    DETECT_DONE,     /* to process 0: reported */
    DETECT_FINISHED, /* to process 0: every rank ended; final counts */
};

/* What every detection message carries (its header). */
typedef struct detect_msg {
    uint32_t kind; /* enum detect_kind */
    uint32_t wave;
    int32_t quiet;
    int32_t pad;
    uint64_t sent, recv;
} detect_msg_t;

/* The process's state (amp_proc.detect). */
typedef struct amp_detect {
    _Atomic int lock;
    int quiet;                       /* the last on_quiet found it so */
    uint64_t quiet_sent, quiet_recv; /* the counts then */
    /* Process 0: the current wave. */
    int wave, replies_due, all_quiet, prev_ok, dying, dones_due;
    uint64_t sent, recv, own_sent, own_recv, prev_sent, prev_recv;
    long last_ns;
    /* Process 0: processes whose ranks have all ended, their counts. */
    unsigned char *finished;
    uint64_t *fin_sent, *fin_recv;
    int nprocs, proc;
} amp_detect_t;

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void detect_lock(amp_detect_t *d)
{
    amp_spin_lock(&d->lock);
}

static void detect_unlock(amp_detect_t *d)
{
    amp_spin_unlock(&d->lock);
}

/* Whether the process is still as quiet as on_quiet last found it (under
 * the lock); its counts. */
static int still_quiet(amp_detect_t *d, uint64_t *sent, uint64_t *recv)
{
    int busy = amp_p2p_net_traffic(&amp_proc.world, sent, recv);
    return d->quiet && !busy && *sent == d->quiet_sent &&
           *recv == d->quiet_recv;
}

/* A detection message from pe to PE 0 of process proc. */
static void control(amp_pe_t *pe, int proc, int kind, uint32_t wave, int quiet,
                    uint64_t sent, uint64_t recv)
{
    detect_msg_t m = {.kind = (uint32_t)kind,
                      .wave = wave,
                      .quiet = quiet,
                      .sent = sent,
                      .recv = recv};
    amp_p2p_am_control(pe, &(amp_p2p_am_out_t){.id = AMP_P2P_AM_DETECT,
                                               .proc = proc,
                                               .pe = 0,
                                               .hdr = &m,
                                               .hlen = sizeof(m)});
}

/* Process 0, all replies of a wave in (under the lock): whether it found
 * a deadlock. */
static int wave_end(amp_detect_t *d)
{
    uint64_t sent, recv;
    int ok = d->all_quiet && still_quiet(d, &sent, &recv) &&
             sent == d->own_sent && recv == d->own_recv && d->sent == d->recv;
    int found =
        ok && d->prev_ok && d->sent == d->prev_sent && d->recv == d->prev_recv;
    d->prev_ok = ok;
    d->prev_sent = d->sent;
    d->prev_recv = d->recv;
    return found;
}

static void start_wave(amp_detect_t *d, amp_pe_t *pe)
{
    long now = now_ns();
    detect_lock(d);
    int go = !d->replies_due && !d->dying && now - d->last_ns >= DETECT_WAVE_NS;
    uint32_t wave = 0;
    int found = 0;
    if (go) {
        d->last_ns = now;
        wave = (uint32_t)++d->wave;
        d->replies_due = 0;
        d->all_quiet = 1;
        d->sent = d->own_sent = d->quiet_sent;
        d->recv = d->own_recv = d->quiet_recv;
        for (int q = 1; q < d->nprocs; q++) {
            d->replies_due += !d->finished[q];
            d->sent += d->finished[q] ? d->fin_sent[q] : 0;
            d->recv += d->finished[q] ? d->fin_recv[q] : 0;
        }
        if (!d->replies_due && (found = wave_end(d)))
            d->dying = 1;
    }
    detect_unlock(d);
    if (found) { /* every other process has ended */
        amp_report_blocked();
        amp_proc_abandon();
        _exit(1);
    }
    for (int q = 1; go && q < d->nprocs; q++)
        if (!d->finished[q])
            control(pe, q, DETECT_PROBE, wave, 0, 0, 0);
}

void amp_detect_quiet(amp_sched_t *sched)
{
    amp_detect_t *d = amp_proc.detect;
    uint64_t sent, recv;
    (void)sched;
    if (!d)
        return;
    detect_lock(d);
    d->quiet = !amp_p2p_net_traffic(&amp_proc.world, &sent, &recv);
    d->quiet_sent = sent;
    d->quiet_recv = recv;
    int quiet = d->quiet;
    detect_unlock(d);
    if (quiet && d->proc == 0)
        start_wave(d, amp_pe_self());
}

static void on_reply(amp_pe_t *pe, amp_detect_t *d, const detect_msg_t *h)
{
    int found = 0;
    detect_lock(d);
    if (h->wave == (uint32_t)d->wave && d->replies_due > 0 && !d->dying) {
        d->sent += h->sent;
        d->recv += h->recv;
        d->all_quiet &= h->quiet;
        if (--d->replies_due == 0 && (found = wave_end(d))) {
            d->dying = 1;
            d->dones_due = 0;
            for (int q = 1; q < d->nprocs; q++)
                d->dones_due += !d->finished[q];
        }
    }
    detect_unlock(d);
    for (int q = 1; found && q < d->nprocs; q++)
        if (!d->finished[q])
            control(pe, q, DETECT_DEADLOCK, 0, 0, 0, 0);
}

/* Process 0, once every other process has reported: its own report, and
 * the end of the job. */
static void on_done(amp_detect_t *d)
{
    detect_lock(d);
    int last = --d->dones_due == 0;
    detect_unlock(d);
    if (!last)
        return;
    amp_report_blocked();
    amp_proc_abandon();
    _exit(1);
}

static void on_finished(amp_detect_t *d, int q, const detect_msg_t *h)
{
    detect_lock(d);
    d->finished[q] = 1;
    d->fin_sent[q] = h->sent;
    d->fin_recv[q] = h->recv;
    /* A wave that waits for its answer starts over. */
    d->replies_due = 0;
    d->prev_ok = 0;
    detect_unlock(d);
}

/* A detection message from another process, on PE 0. */
static void on_message(amp_pe_t *pe, const amp_p2p_am_t *m)
{
    amp_detect_t *d = amp_proc.detect;
    detect_msg_t h;
    uint64_t sent, recv;
    int q = m->from_proc;
    if (m->hlen != sizeof(h) || q < 0 || q >= d->nprocs)
        amp_fatal("a deadlock-detection message from process %d has a "
                  "%zu-byte header: are all processes the same program?",
                  q, m->hlen);
    memcpy(&h, m->hdr, sizeof(h));
    switch (h.kind) {
    case DETECT_PROBE: {
        detect_lock(d);
        int quiet = still_quiet(d, &sent, &recv);
        detect_unlock(d);
        control(pe, q, DETECT_REPLY, h.wave, quiet, sent, recv);
        return;
    }
    case DETECT_REPLY: on_reply(pe, d, &h); return;
    case DETECT_DEADLOCK:
        amp_report_blocked();
        control(pe, q, DETECT_DONE, 0, 0, 0, 0);
        return;
    case DETECT_FINISHED: on_finished(d, q, &h); return;
    default: on_done(d);
    }
}

void amp_detect_init(void)
{
    int n = amp_proc.world.nprocs;
    amp_detect_t *d = calloc(1, sizeof(*d));
    if (!d || !(d->finished = calloc((size_t)n, 1)) ||
        !(d->fin_sent = calloc((size_t)n, sizeof(uint64_t))) ||
        !(d->fin_recv = calloc((size_t)n, sizeof(uint64_t))))
        amp_fatal("out of memory for %d processes", n);
    atomic_init(&d->lock, 0);
    d->nprocs = n;
    d->proc = amp_proc.world.proc;
    amp_proc.detect = d;
    amp_p2p_am_register(&amp_proc.world, AMP_P2P_AM_DETECT, on_message);
}

/* Process 0 after its ranks have ended: it goes on detecting deadlocks
 * among the other processes' ranks until they have all ended too (the PEs
 * have stopped, so this thread progresses their transport). */
static void serve_until_finished(amp_detect_t *d, amp_sched_t *sched)
{
    detect_lock(d);
    d->quiet =
        !amp_p2p_net_traffic(&amp_proc.world, &d->quiet_sent, &d->quiet_recv);
    detect_unlock(d);
    for (;;) {
        int all = 1;
        detect_lock(d);
        for (int q = 1; q < d->nprocs; q++)
            all &= d->finished[q];
        detect_unlock(d);
        if (all)
            return;
        unsigned n = 0;
        for (int i = 0; i < sched->npes; i++)
            n += amp_p2p_net_progress(sched->pes[i]);
        if (d->quiet)
            start_wave(d, sched->pes[0]);
        if (!n)
            usleep(200);
    }
}

void amp_detect_finish(amp_sched_t *sched)
{
    amp_detect_t *d = amp_proc.detect;
    if (!d)
        return;
    uint64_t sent, recv;
    (void)amp_p2p_net_traffic(&amp_proc.world, &sent, &recv);
    if (d->proc != 0) /* the PEs have stopped: PE 0 is free to send */
        control(sched->pes[0], 0, DETECT_FINISHED, 0, 1, sent, recv);
    else
        serve_until_finished(d, sched);
}

void amp_detect_cleanup(void)
{
    amp_detect_t *d = amp_proc.detect;
    if (!d)
        return;
    amp_proc.detect = NULL;
    free(d->finished);
    free(d->fin_sent);
    free(d->fin_recv);
    free(d);
}
