/* Matching without MPI: the posted and unexpected queues of p2p's
 * endpoints, wildcards, the hashed buckets of exact contexts, MPI's
 * non-overtaking rule (on one PE and through the rings between PEs) and
 * cancellation.  The test drives the endpoints from its own thread: ranks
 * are endpoints whose threads never run, placed on PEs that never run
 * either; what travels between PEs is delivered by calling the PEs' poll
 * hook (amp_p2p_poll), as their scheduler would. */
#include "unit.h"

#include "mem/sys_alloc.h" /* mpi/proc.h uses it */
#include "mpi/proc.h"
#include "p2p/msg.h"
#include "p2p/p2p.h"

#include <stdint.h>
#include <string.h>

#define RANKS 4
#define EAGER 256 /* the eager limit: larger messages are rendezvous */
#define CTX 8

static amp_sched_t sched;
static amp_p2p_world_t world;
static amp_p2p_ep_t ep[RANKS];
static amp_p2p_ep_t *eps[RANKS];
static amp_thread_t thr[RANKS];

/* Rank r on PE pe_of[r] (NULL: every rank on PE 0). */
static void world_init(int npes, const int *pe_of)
{
    amp_sched_hooks_t hooks = {.on_item = amp_p2p_handle_item,
                               .on_poll = amp_p2p_poll,
                               .pending = amp_p2p_pending};
    UNIT_EQ(amp_sched_init(&sched, npes, &hooks), AMP_OK);
    world.eps = eps;
    world.nranks = RANKS;
    world.eager_limit = EAGER;
    world.nprocs = 1;
    for (int p = 0; p < npes; p++)
        UNIT_EQ(amp_p2p_pe_init(sched.pes[p], EAGER, &world), AMP_OK);
    for (int r = 0; r < RANKS; r++) {
        thr[r].pe = sched.pes[pe_of ? pe_of[r] : 0];
        thr[r].state = AMP_THREAD_RUNNING;
        amp_p2p_ep_init(&ep[r], &world, r, &thr[r]);
        eps[r] = &ep[r];
    }
}

/* Polls every PE until nothing is left in flight between them. */
static void deliver(void)
{
    for (int round = 0; round < 1000; round++) {
        int busy = 0;
        for (int p = 0; p < sched.npes; p++) {
            busy |= amp_p2p_pending(sched.pes[p]);
            amp_sched_poll(sched.pes[p]);
        }
        if (!busy && amp_sched_quiet(&sched))
            return;
    }
    UNIT_TRUE(!"messages between PEs were never delivered");
}

/* Requests come zeroed, as the MPI layer's do (no on_done). */
static amp_p2p_req_t *fresh(amp_p2p_req_t *req)
{
    memset(req, 0, sizeof(*req));
    return req;
}

/* A send of n bytes of buf from rank from to rank to, the sender's rank
 * in the communicator being its world rank. */
static void send_mode(int from, int to, int ctx, int tag, const void *buf,
                      size_t n, int mode, amp_p2p_req_t *req)
{
    amp_p2p_isend(
        &ep[from], buf, n,
        (amp_p2p_env_t){.ctx = ctx, .src = from, .dst = to, .tag = tag}, mode,
        fresh(req));
}

static void send(int from, int to, int ctx, int tag, const void *buf, size_t n,
                 amp_p2p_req_t *req)
{
    send_mode(from, to, ctx, tag, buf, n, AMP_P2P_STANDARD, req);
}

static void recv(int at, int ctx, int src, int tag, void *buf, size_t cap,
                 amp_p2p_req_t *req)
{
    amp_p2p_irecv(&ep[at], buf, cap,
                  (amp_p2p_env_t){.ctx = ctx, .src = src, .tag = tag},
                  fresh(req));
}

/* The value of a message: its sender, tag and number. */
static int value(int src, int tag, int n)
{
    return src * 1000000 + tag * 1000 + n;
}

static void expect_status(const amp_p2p_req_t *r, int src, int tag,
                          size_t bytes)
{
    UNIT_EQ(r->done, 1);
    UNIT_EQ(r->cancelled, 0);
    UNIT_EQ(r->error, AMP_OK);
    UNIT_EQ(r->st_source, src);
    UNIT_EQ(r->st_tag, tag);
    UNIT_EQ(r->st_bytes, bytes);
}

static int queued(const amp_p2p_mq_t *q)
{
    int n = 0;
    for (const amp_msg_t *m = q->head; m; m = m->next)
        n++;
    return n;
}

static int posted(const amp_p2p_rq_t *q)
{
    int n = 0;
    for (const amp_p2p_req_t *r = q->head; r; r = r->next)
        n++;
    return n;
}

/* ---- the two queues ----------------------------------------------------- */

UNIT_TEST(p2p_posted_receive_is_filled_by_a_later_send)
{
    world_init(1, NULL);
    int in = -1, out = value(1, 5, 0);
    amp_p2p_req_t rreq, sreq;
    recv(0, CTX, 1, 5, &in, sizeof(in), &rreq);
    UNIT_EQ(rreq.done, 0);
    UNIT_EQ(rreq.posted, 1);
    UNIT_EQ(posted(&ep[0].posted), 1);
    send(1, 0, CTX, 5, &out, sizeof(out), &sreq);
    expect_status(&rreq, 1, 5, sizeof(int));
    UNIT_EQ(in, out);
    UNIT_EQ(rreq.posted, 0);
    UNIT_EQ(posted(&ep[0].posted), 0);
    UNIT_EQ(sreq.done, 1);
    UNIT_EQ(queued(&ep[0].unexp), 0);
}

UNIT_TEST(p2p_unexpected_message_waits_for_its_receive)
{
    world_init(1, NULL);
    int in = -1, out = value(2, 3, 0);
    amp_p2p_req_t rreq, sreq;
    amp_p2p_probe_info_t info;
    UNIT_EQ(amp_p2p_iprobe(&ep[0], CTX, 2, 3, &info), 0);
    send(2, 0, CTX, 3, &out, sizeof(out), &sreq);
    UNIT_EQ(sreq.done, 1); /* eager: the data is in the envelope */
    out = -2;              /* the sender may reuse its buffer */
    UNIT_EQ(queued(&ep[0].unexp), 1);
    UNIT_EQ(amp_p2p_iprobe(&ep[0], CTX, 2, 3, &info), 1);
    UNIT_EQ(info.source, 2);
    UNIT_EQ(info.tag, 3);
    UNIT_EQ(info.bytes, sizeof(int));
    UNIT_EQ(queued(&ep[0].unexp), 1); /* a probe leaves it there */
    recv(0, CTX, 2, 3, &in, sizeof(in), &rreq);
    expect_status(&rreq, 2, 3, sizeof(int));
    UNIT_EQ(in, value(2, 3, 0));
    UNIT_EQ(queued(&ep[0].unexp), 0);
    UNIT_EQ(posted(&ep[0].posted), 0);
}

/* Past the eager limit, and in synchronous mode, a send completes only
 * once its receive has taken the data. */
UNIT_TEST(p2p_rendezvous_send_completes_when_received)
{
    world_init(1, NULL);
    static char big[EAGER * 4], got[EAGER * 4];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)(i * 7);
    amp_p2p_req_t sreq, rreq, ssync, rsync;
    send(1, 0, CTX, 1, big, sizeof(big), &sreq);
    UNIT_EQ(sreq.done, 0);
    int small = 77, small_in = 0;
    send_mode(1, 0, CTX, 2, &small, sizeof(small), AMP_P2P_SYNC, &ssync);
    UNIT_EQ(ssync.done, 0);
    UNIT_EQ(queued(&ep[0].unexp), 2);
    recv(0, CTX, 1, 1, got, sizeof(got), &rreq);
    expect_status(&rreq, 1, 1, sizeof(big));
    UNIT_EQ(memcmp(big, got, sizeof(big)), 0);
    UNIT_EQ(sreq.done, 1);
    UNIT_EQ(ssync.done, 0);
    recv(0, CTX, 1, 2, &small_in, sizeof(small_in), &rsync);
    expect_status(&rsync, 1, 2, sizeof(int));
    UNIT_EQ(small_in, 77);
    UNIT_EQ(ssync.done, 1);
}

UNIT_TEST(p2p_truncated_receive_reports_truncation)
{
    world_init(1, NULL);
    int out[4] = {1, 2, 3, 4}, in[4] = {0, 0, 0, -9};
    amp_p2p_req_t sreq, rreq;
    send(1, 0, CTX, 0, out, sizeof(out), &sreq);
    recv(0, CTX, 1, 0, in, 3 * sizeof(int), &rreq);
    UNIT_EQ(rreq.done, 1);
    UNIT_EQ(rreq.error, AMP_ERR_TRUNCATE);
    UNIT_EQ(rreq.st_bytes, 3 * sizeof(int));
    UNIT_EQ(in[2], 3);
    UNIT_EQ(in[3], -9); /* nothing past the receive's capacity */
}

UNIT_TEST(p2p_improbe_takes_the_message_for_mrecv)
{
    world_init(1, NULL);
    int out = 42, in = 0;
    amp_p2p_req_t sreq, rreq, other;
    amp_p2p_probe_info_t info;
    send(1, 0, CTX, 6, &out, sizeof(out), &sreq);
    struct amp_msg *m = amp_p2p_improbe(&ep[0], CTX, AMP_P2P_ANY, 6, &info);
    UNIT_TRUE(m != NULL);
    UNIT_EQ(info.source, 1);
    UNIT_EQ(queued(&ep[0].unexp), 0);
    /* No longer there for a receive. */
    recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, &in, sizeof(in), &other);
    UNIT_EQ(other.done, 0);
    amp_p2p_mrecv(&ep[0], m, &in, sizeof(in), fresh(&rreq));
    expect_status(&rreq, 1, 6, sizeof(int));
    UNIT_EQ(in, 42);
    UNIT_EQ(other.done, 0);
    amp_p2p_cancel(&ep[0], &other);
    UNIT_EQ(other.cancelled, 1);
}

/* ---- wildcards and order ---------------------------------------------- */

/* Receives with wildcards take the earliest arrival that matches; the
 * status names the actual source and tag. */
UNIT_TEST(p2p_wildcards_match_the_earliest_arrival)
{
    world_init(1, NULL);
    /* Arrivals, in order: (1, 5), (2, 7), (3, 5), (1, 7). */
    int from[4] = {1, 2, 3, 1}, tags[4] = {5, 7, 5, 7}, out[4];
    amp_p2p_req_t s[4], r[4];
    for (int i = 0; i < 4; i++) {
        out[i] = value(from[i], tags[i], i);
        send(from[i], 0, CTX, tags[i], &out[i], sizeof(int), &s[i]);
    }
    int in[4];
    recv(0, CTX, AMP_P2P_ANY, 7, &in[0], sizeof(int), &r[0]);
    expect_status(&r[0], 2, 7, sizeof(int));
    UNIT_EQ(in[0], out[1]);
    recv(0, CTX, 1, AMP_P2P_ANY, &in[1], sizeof(int), &r[1]);
    expect_status(&r[1], 1, 5, sizeof(int));
    UNIT_EQ(in[1], out[0]);
    recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, &in[2], sizeof(int), &r[2]);
    expect_status(&r[2], 3, 5, sizeof(int));
    UNIT_EQ(in[2], out[2]);
    recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, &in[3], sizeof(int), &r[3]);
    expect_status(&r[3], 1, 7, sizeof(int));
    UNIT_EQ(in[3], out[3]);
    UNIT_EQ(queued(&ep[0].unexp), 0);
}

/* A message goes to the earliest posted receive that matches it, whether
 * that one names its source and tag or not. */
UNIT_TEST(p2p_earliest_posted_receive_wins)
{
    world_init(1, NULL);
    int in[3] = {0, 0, 0}, out[2] = {11, 22};
    amp_p2p_req_t r[3], s[2];
    recv(0, CTX, 2, 4, &in[0], sizeof(int), &r[0]);
    recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, &in[1], sizeof(int), &r[1]);
    recv(0, CTX, 1, 4, &in[2], sizeof(int), &r[2]);
    send(1, 0, CTX, 4, &out[0], sizeof(int), &s[0]);
    UNIT_EQ(r[0].done, 0);
    expect_status(&r[1], 1, 4, sizeof(int));
    UNIT_EQ(in[1], 11);
    UNIT_EQ(r[2].done, 0);
    send(1, 0, CTX, 4, &out[1], sizeof(int), &s[1]);
    expect_status(&r[2], 1, 4, sizeof(int));
    UNIT_EQ(in[2], 22);
    UNIT_EQ(r[0].done, 0);
    UNIT_EQ(posted(&ep[0].posted), 1);
    amp_p2p_cancel(&ep[0], &r[0]);
}

/* Wildcards never cross communicators (contexts). */
UNIT_TEST(p2p_contexts_never_match_each_other)
{
    world_init(1, NULL);
    int out = 5, in = 0;
    amp_p2p_req_t s, r, r2;
    amp_p2p_probe_info_t info;
    send(1, 0, CTX + 2, 0, &out, sizeof(out), &s);
    recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, &in, sizeof(in), &r);
    UNIT_EQ(r.done, 0);
    UNIT_EQ(amp_p2p_iprobe(&ep[0], CTX, AMP_P2P_ANY, AMP_P2P_ANY, &info), 0);
    UNIT_EQ(queued(&ep[0].unexp), 1);
    recv(0, CTX + 2, AMP_P2P_ANY, AMP_P2P_ANY, &in, sizeof(in), &r2);
    expect_status(&r2, 1, 0, sizeof(int));
    UNIT_EQ(r.done, 0);
    amp_p2p_cancel(&ep[0], &r);
}

/* Sizes that take every path: inline in a ring slot (<= 96 bytes), eager
 * envelopes, rendezvous. */
static size_t size_of_message(int i)
{
    static const size_t sizes[] = {4, 96, 200, EAGER, EAGER + 1, 1000};
    return sizes[i % 6];
}

#define ORDERED 200

static unsigned char order_out[ORDERED][1000], order_in[ORDERED][1000];
static amp_p2p_req_t order_s[ORDERED], order_r[ORDERED];

static void fill_ordered(int src)
{
    for (int i = 0; i < ORDERED; i++)
        memset(order_out[i], (unsigned char)(i + src), sizeof(order_out[i]));
    memset(order_in, 0xee, sizeof(order_in));
}

/* Each receive got the i-th message: its bytes are i's. */
static void expect_in_order(int src, int tag)
{
    for (int i = 0; i < ORDERED; i++) {
        size_t n = size_of_message(i);
        expect_status(&order_r[i], src, tag, n);
        UNIT_EQ(order_in[i][0], (unsigned char)(i + src));
        UNIT_EQ(order_in[i][n - 1], (unsigned char)(i + src));
        UNIT_EQ(order_s[i].done, 1);
    }
}

/* Messages of one sender with one tag arrive in the order sent, whatever
 * their protocol, for receives posted before and after. */
UNIT_TEST(p2p_messages_of_one_sender_do_not_overtake)
{
    world_init(1, NULL);
    fill_ordered(1);
    for (int i = 0; i < ORDERED / 2; i++)
        recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, order_in[i], 1000, &order_r[i]);
    for (int i = 0; i < ORDERED; i++)
        send(1, 0, CTX, 9, order_out[i], size_of_message(i), &order_s[i]);
    for (int i = ORDERED / 2; i < ORDERED; i++)
        recv(0, CTX, 1, 9, order_in[i], 1000, &order_r[i]);
    expect_in_order(1, 9);
}

/* The same between two PEs, through their ring: more messages than the
 * ring has slots (the rest wait in the sender's overflow list), the
 * receiver's PE polling now and then. */
UNIT_TEST(p2p_order_kept_between_pes_through_a_full_ring)
{
    int pe_of[RANKS] = {1, 0, 0, 0};
    world_init(2, pe_of);
    fill_ordered(2);
    /* A quarter posted before anything arrives, a quarter while some have
     * arrived and others are on their way, the rest after. */
    for (int j = 0; j < ORDERED / 4; j++)
        recv(0, CTX, AMP_P2P_ANY, 3, order_in[j], 1000, &order_r[j]);
    for (int i = 0; i < ORDERED; i++) {
        send(2, 0, CTX, 3, order_out[i], size_of_message(i), &order_s[i]);
        if (i % 70 == 69)
            deliver();
        if (i == ORDERED / 2)
            for (int j = ORDERED / 4; j < ORDERED / 2; j++)
                recv(0, CTX, AMP_P2P_ANY, 3, order_in[j], 1000, &order_r[j]);
    }
    deliver();
    for (int j = ORDERED / 2; j < ORDERED; j++)
        recv(0, CTX, 2, AMP_P2P_ANY, order_in[j], 1000, &order_r[j]);
    deliver(); /* rendezvous sends learn that their data was taken */
    expect_in_order(2, 3);
}

/* ---- exact contexts: hashed buckets ------------------------------------- */

/* The bucket that holds posted receive r (-1: none). */
static int bucket_of_req(const amp_p2p_ep_t *e, const amp_p2p_req_t *r)
{
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        for (const amp_p2p_req_t *x = e->posted_b[b].head; x; x = x->next)
            if (x == r)
                return b;
    return -1;
}

static int bucketed_msgs(const amp_p2p_ep_t *e)
{
    int n = 0;
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        n += queued(&e->unexp_b[b]);
    return n;
}

/* On an exact context receives and messages live in the buckets, never
 * in the linear queues, and match as before; other contexts stay linear. */
UNIT_TEST(p2p_exact_context_matches_in_buckets)
{
    world_init(1, NULL);
    amp_p2p_ep_set_exact(&ep[0], CTX, 1);
    int out[3] = {1, 2, 3}, in[3] = {0, 0, 0};
    amp_p2p_req_t s[3], r[3];
    recv(0, CTX, 1, 1, &in[0], sizeof(int), &r[0]);
    UNIT_EQ(posted(&ep[0].posted), 0);
    UNIT_TRUE(bucket_of_req(&ep[0], &r[0]) >= 0);
    send(2, 0, CTX, 1, &out[1], sizeof(int), &s[1]);
    send(1, 0, CTX + 2, 1, &out[2], sizeof(int), &s[2]);
    UNIT_EQ(bucketed_msgs(&ep[0]), 1);
    UNIT_EQ(queued(&ep[0].unexp), 1); /* the other context's */
    UNIT_EQ(r[0].done, 0);
    send(1, 0, CTX, 1, &out[0], sizeof(int), &s[0]);
    expect_status(&r[0], 1, 1, sizeof(int));
    UNIT_EQ(in[0], 1);
    recv(0, CTX, 2, 1, &in[1], sizeof(int), &r[1]);
    expect_status(&r[1], 2, 1, sizeof(int));
    UNIT_EQ(in[1], 2);
    UNIT_EQ(bucketed_msgs(&ep[0]), 0);
    recv(0, CTX + 2, 1, 1, &in[2], sizeof(int), &r[2]);
    expect_status(&r[2], 1, 1, sizeof(int));
}

/* Two (source, tag) pairs that hash to the same bucket share its queue
 * but never match each other. */
UNIT_TEST(p2p_bucket_collisions_keep_pairs_apart)
{
    world_init(1, NULL);
    amp_p2p_ep_set_exact(&ep[0], CTX, 1);
    enum { N = AMP_P2P_BUCKETS + 1 };
    static amp_p2p_req_t r[N];
    static int in[N];
    int first = -1, second = -1, where[N];
    /* N receives from rank 1 with tags 0..N-1: two share a bucket. */
    for (int t = 0; t < N; t++) {
        recv(0, CTX, 1, t, &in[t], sizeof(int), &r[t]);
        where[t] = bucket_of_req(&ep[0], &r[t]);
        UNIT_TRUE(where[t] >= 0);
        for (int u = 0; u < t && first < 0; u++)
            if (where[u] == where[t]) {
                first = u;
                second = t;
            }
    }
    UNIT_TRUE(first >= 0);
    /* The later one's message goes to it, past the earlier receive. */
    int out = 99;
    amp_p2p_req_t s;
    send(1, 0, CTX, second, &out, sizeof(out), &s);
    expect_status(&r[second], 1, second, sizeof(int));
    UNIT_EQ(in[second], 99);
    UNIT_EQ(r[first].done, 0);
    for (int t = 0; t < N; t++)
        if (t != second) {
            amp_p2p_cancel(&ep[0], &r[t]);
            UNIT_EQ(r[t].cancelled, 1);
        }
    for (int b = 0; b < AMP_P2P_BUCKETS; b++)
        UNIT_EQ(posted(&ep[0].posted_b[b]), 0);
}

/* Switching a context to exact and back with receives posted and messages
 * waiting moves them between the queues: nothing is lost, and once back,
 * wildcard receives see the messages in arrival order across pairs. */
UNIT_TEST(p2p_exact_on_and_off_keeps_arrival_order)
{
    world_init(1, NULL);
    int out[6], in[6];
    amp_p2p_req_t s[6], r[6], early;
    int early_in = 0;
    recv(0, CTX, 3, 8, &early_in, sizeof(int), &early);
    amp_p2p_ep_set_exact(&ep[0], CTX, 1);
    UNIT_EQ(posted(&ep[0].posted), 0);
    UNIT_TRUE(bucket_of_req(&ep[0], &early) >= 0);
    /* Six arrivals over three pairs, interleaved. */
    for (int i = 0; i < 6; i++) {
        out[i] = value(1 + i % 3, i % 2, i);
        send(1 + i % 3, 0, CTX, i % 2, &out[i], sizeof(int), &s[i]);
    }
    UNIT_EQ(bucketed_msgs(&ep[0]), 6);
    amp_p2p_ep_set_exact(&ep[0], CTX, 0);
    UNIT_EQ(bucketed_msgs(&ep[0]), 0);
    UNIT_EQ(queued(&ep[0].unexp), 6);
    UNIT_EQ(posted(&ep[0].posted), 1);
    for (int i = 0; i < 6; i++) {
        recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, &in[i], sizeof(int), &r[i]);
        expect_status(&r[i], 1 + i % 3, i % 2, sizeof(int));
        UNIT_EQ(in[i], out[i]);
    }
    int late = 8;
    amp_p2p_req_t ls;
    send(3, 0, CTX, 8, &late, sizeof(late), &ls);
    expect_status(&early, 3, 8, sizeof(int));
    UNIT_EQ(early_in, 8);
}

/* ---- cancel ---------------------------------------------------------- */

UNIT_TEST(p2p_cancel_withdraws_a_posted_receive)
{
    world_init(1, NULL);
    amp_p2p_ep_set_exact(&ep[0], CTX + 2, 1);
    int in[2] = {0, 0}, out = 5, later = 0;
    amp_p2p_req_t r[2], s, rl;
    recv(0, CTX, 1, 2, &in[0], sizeof(int), &r[0]);     /* linear */
    recv(0, CTX + 2, 1, 2, &in[1], sizeof(int), &r[1]); /* in a bucket */
    for (int i = 0; i < 2; i++) {
        amp_p2p_cancel(&ep[0], &r[i]);
        UNIT_EQ(r[i].done, 1);
        UNIT_EQ(r[i].cancelled, 1);
        UNIT_EQ(r[i].posted, 0);
    }
    UNIT_EQ(posted(&ep[0].posted), 0);
    UNIT_EQ(bucket_of_req(&ep[0], &r[1]), -1);
    /* A later message waits for a new receive instead. */
    send(1, 0, CTX, 2, &out, sizeof(out), &s);
    UNIT_EQ(in[0], 0);
    UNIT_EQ(queued(&ep[0].unexp), 1);
    recv(0, CTX, 1, 2, &later, sizeof(int), &rl);
    expect_status(&rl, 1, 2, sizeof(int));
    UNIT_EQ(later, 5);
}

UNIT_TEST(p2p_cancel_after_the_match_does_nothing)
{
    world_init(1, NULL);
    int in = 0, out = 3;
    amp_p2p_req_t r, s;
    recv(0, CTX, 1, 0, &in, sizeof(in), &r);
    send(1, 0, CTX, 0, &out, sizeof(out), &s);
    amp_p2p_cancel(&ep[0], &r);
    expect_status(&r, 1, 0, sizeof(int));
    UNIT_EQ(in, 3);
    amp_p2p_cancel(&ep[1], &s); /* its message was received */
    UNIT_EQ(s.cancelled, 0);
    UNIT_EQ(s.done, 1);
}

/* A send whose message still waits unmatched is withdrawn from the
 * receiver's unexpected queue: on the same PE at once, from another PE
 * through the answer of the receiver's PE. */
UNIT_TEST(p2p_cancel_withdraws_an_unmatched_send)
{
    int pe_of[RANKS] = {0, 0, 1, 0};
    world_init(2, pe_of);
    static char big[EAGER * 2];
    int small = 1, in = 0;
    amp_p2p_req_t s_local, s_remote, s_big, r;
    send(1, 0, CTX, 4, &small, sizeof(small), &s_local);
    send(2, 0, CTX, 4, &small, sizeof(small), &s_remote);
    send(2, 0, CTX, 5, big, sizeof(big), &s_big);
    deliver();
    UNIT_EQ(queued(&ep[0].unexp), 3);
    amp_p2p_cancel(&ep[1], &s_local);
    UNIT_EQ(s_local.cancelled, 1);
    UNIT_EQ(queued(&ep[0].unexp), 2);
    amp_p2p_cancel(&ep[2], &s_remote);
    amp_p2p_cancel(&ep[2], &s_big);
    UNIT_EQ(s_remote.done, 0); /* until the answer is back */
    deliver();
    UNIT_EQ(s_remote.done, 1);
    UNIT_EQ(s_remote.cancelled, 1);
    UNIT_EQ(s_big.done, 1);
    UNIT_EQ(s_big.cancelled, 1);
    UNIT_EQ(queued(&ep[0].unexp), 0);
    /* Nothing is left for a receive. */
    recv(0, CTX, AMP_P2P_ANY, AMP_P2P_ANY, &in, sizeof(in), &r);
    UNIT_EQ(r.done, 0);
    amp_p2p_cancel(&ep[0], &r);
}

/* What a sender reads of the receiving rank for every message (its
 * endpoint's thread, world, world rank) sits on a cache line that none of
 * the fields the rank writes at its calls shares, wherever a rank's
 * struct lies (at the start of its slot's rank area, 64-byte aligned):
 * last_sid, written by every send, beside the thread had made each
 * message between two PEs wait for a line the receiver had just written. */
UNIT_TEST(p2p_senders_read_a_line_the_receiver_leaves_alone)
{
    size_t thr = offsetof(amp_rank_t, ep) + offsetof(amp_p2p_ep_t, thr);
    size_t sid = offsetof(amp_rank_t, ep) + offsetof(amp_p2p_ep_t, last_sid);
    UNIT_EQ(thr % 64, (size_t)0);
    UNIT_TRUE(sid / 64 != thr / 64);
    UNIT_TRUE(offsetof(amp_rank_t, heap) >= thr + 64); /* the rank's next */
}
