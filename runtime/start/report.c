/* The deadlock report: which rank waits in which call, for what. */
#include "start/start.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void describe_peer(char *buf, size_t len, const char *what, int peer)
{
    if (peer == AMP_P2P_ANY)
        snprintf(buf, len, "%s MPI_ANY_SOURCE", what);
    else
        snprintf(buf, len, "%s %d", what, peer);
}

static void describe_tag(char *buf, size_t len, int tag)
{
    if (tag == AMP_P2P_ANY)
        snprintf(buf, len, "MPI_ANY_TAG");
    else
        snprintf(buf, len, "%d", tag);
}

static void describe_req(amp_rank_t *rank, const amp_p2p_req_t *r)
{
    char peer[64], tag[32], comm[MPI_MAX_OBJECT_NAME + 64];
    if (r->is_send)
        describe_peer(peer, sizeof(peer), "send to world rank", r->peer);
    else
        describe_peer(peer, sizeof(peer), "receive from source", r->peer);
    describe_tag(tag, sizeof(tag), r->tag);
    amp_rank_ctx_label(rank, r->ctx, comm, sizeof(comm));
    amp_log_error("    %s, tag %s (%s)", peer, tag, comm);
}

/* What a blocked rank waits for: its probe, its requests, its
 * collectives. */
static void describe_waits(amp_rank_t *rank)
{
    amp_p2p_ep_t *ep = &rank->ep;
    if (ep->probe_waiting) {
        char peer[64], tag[32], comm[MPI_MAX_OBJECT_NAME + 64];
        describe_peer(peer, sizeof(peer), "probe for source", ep->probe_src);
        describe_tag(tag, sizeof(tag), ep->probe_tag);
        amp_rank_ctx_label(rank, ep->probe_ctx, comm, sizeof(comm));
        amp_log_error("    %s, tag %s (%s)", peer, tag, comm);
        return;
    }
    for (int i = 0; ep->wait_reqs && i < ep->wait_nreqs; i++)
        if (ep->wait_reqs[i] && ep->wait_reqs[i]->waiter)
            describe_req(rank, ep->wait_reqs[i]);
    amp_rank_report_coll_waits(rank);
}

static void describe_rank(amp_rank_t *rank)
{
    if (amp_sched_is_polling(&rank->thr)) {
        amp_log_error("  rank %d: polling in %s, for what nothing will bring "
                      "(no activity for %g s: AMPI_POLL_DEADLOCK)",
                      rank->world_rank, rank->call ? rank->call : "an MPI call",
                      amp_proc.sched.poll_deadlock_ns / 1e9);
        return;
    }
    amp_log_error("  rank %d: blocked in %s", rank->world_rank,
                  rank->call ? rank->call : "an MPI call");
    describe_waits(rank);
}

void amp_report_deadlock(amp_sched_t *sched)
{
    (void)sched;
    amp_report_blocked();
    amp_proc_abandon();
    _exit(1);
}

void amp_report_blocked(void)
{
    int finished = 0;
    /* The ranks stand still while they are described (a poller's PE would
     * poll it again on waking). */
    int halted = amp_sched_halt(&amp_proc.sched);
    amp_report_no_term();
    fflush(stdout);
    if (amp_proc.boot.nprocs > 1)
        amp_log_error("deadlock: every rank is blocked and no message is in "
                      "flight (ranks of process %d of %d)",
                      amp_proc.boot.index, amp_proc.boot.nprocs);
    else
        amp_log_error("deadlock: every rank is blocked and no message is in "
                      "flight");
    for (int r = 0; r < amp_proc.nranks; r++) {
        amp_rank_t *rank = amp_proc.ranks[r];
        if (!rank)
            continue; /* in another process */
        if (rank->thr.state == AMP_THREAD_DONE)
            finished++;
        else
            describe_rank(rank);
    }
    if (finished)
        amp_log_error("  %d rank%s already finished", finished,
                      finished == 1 ? " has" : "s have");
    if (halted)
        amp_sched_resume(&amp_proc.sched);
}

/* At most this many ranks are described when the process is ended by a
 * signal; the others are counted. */
#define TERM_REPORT_RANKS 64

static const char *state_word(amp_rank_t *rank)
{
    if (amp_sched_is_polling(&rank->thr))
        return "polling"; /* parked between looks, whatever its state */
    switch (rank->thr.state) {
    case AMP_THREAD_READY: return "ready to run";
    case AMP_THREAD_RUNNING: return "running";
    case AMP_THREAD_MIGRATING: return "migrating";
    default: return "blocked";
    }
}

/* Called from the handler of a terminating signal (SIGTERM, SIGINT: a
 * job's time limit, mpirun ending the job, Ctrl-C), while the PEs run on:
 * what each rank of this process is doing, so that a hang or a livelock
 * (ranks that keep each other busy and never get on) is seen in the log
 * that a time limit leaves. */
void amp_report_terminated(int sig)
{
    int finished = 0, shown = 0, more = 0, live = 0;
    for (int r = 0; r < amp_proc.nranks; r++)
        live += amp_proc.ranks[r] &&
                amp_proc.ranks[r]->thr.state != AMP_THREAD_DONE;
    if (!live)
        return; /* its part is done: nothing to tell */
    amp_log_error("process %d of %d ended by signal %d (%s); its ranks then:",
                  amp_proc.boot.index, amp_proc.boot.nprocs, sig,
                  sig == SIGTERM  ? "SIGTERM"
                  : sig == SIGINT ? "SIGINT"
                                  : "signal");
    for (int r = 0; r < amp_proc.nranks; r++) {
        amp_rank_t *rank = amp_proc.ranks[r];
        if (!rank)
            continue; /* in another process */
        if (rank->thr.state == AMP_THREAD_DONE) {
            finished++;
        } else if (shown++ < TERM_REPORT_RANKS) {
            const char *word = state_word(rank);
            const char *call = rank->call ? rank->call : "none yet";
            int waits = !strcmp(word, "blocked") || !strcmp(word, "polling");
            if (waits)
                amp_log_error("  rank %d: %s in %s", rank->world_rank, word,
                              call);
            else
                amp_log_error("  rank %d: %s (its last MPI call: %s)",
                              rank->world_rank, word, call);
            if (!strcmp(word, "blocked"))
                describe_waits(rank);
        } else {
            more++;
        }
    }
    if (more)
        amp_log_error("  %d more rank%s not finished", more,
                      more == 1 ? "" : "s");
    if (finished)
        amp_log_error("  %d rank%s already finished", finished,
                      finished == 1 ? " has" : "s have");
}

/* SIGTERM or SIGINT (a time limit, mpirun ending the job, Ctrl-C): the
 * state of this process's ranks, then the default action.  Once: a second
 * signal during the report ends the process at once. */
static void on_terminate(int sig)
{
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    amp_node_abandon(&amp_proc.world.node);
    amp_report_terminated(sig);
    if (amp_proc.opts.trace && amp_trace_signal(&amp_proc.trace))
        amp_log_error("+trace: what process %d recorded until the signal is "
                      "under %s/raw: `ampitrace %s` makes the archive",
                      amp_proc.boot.index, amp_proc.opts.trace,
                      amp_proc.opts.trace);
    raise(sig);
}

void amp_report_no_term(void)
{
    struct sigaction old;
    int sigs[] = {SIGTERM, SIGINT};
    for (int i = 0; i < 2; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 &&
            old.sa_handler == on_terminate)
            signal(sigs[i], SIG_DFL);
}

/* A signal already handled or ignored (nohup, a launcher's setting)
 * stays so; the program may install its own handler later. */
static void install_terminate(int sig)
{
    struct sigaction old, sa;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_terminate;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

void amp_report_install_term(void)
{
    if (!amp_proc.opts.term_report)
        return;
    install_terminate(SIGTERM);
    install_terminate(SIGINT);
}
