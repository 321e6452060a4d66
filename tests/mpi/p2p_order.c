/*
 * p2p_order: messages are non-overtaking. Each rank sends NMSG messages to
 * each of up to 8 ranks (itself included), mixing small and 16 KiB
 * messages so that eager and rendezvous transfers interleave:
 *  1. same tag, receives by specific source arrive in send order;
 *  2. varying tags, MPI_ANY_SOURCE + MPI_ANY_TAG: per-sender order is still
 *     send order, and MPI_SOURCE / MPI_TAG / count match the payload;
 *  3. receives posted before any send match in the order they were posted.
 */
#include "mpitest.h"

#include <stdlib.h>

enum { NMSG = 30, MAXPEERS = 8, BIGLEN = 4096 /* ints */ };

/* Message seq from a sender: header {sender, seq}, then filler. Every
 * sixth message is big. */
static int msg_len(int seq)
{
    return seq % 6 == 2 ? BIGLEN : 2 + seq % 3;
}

typedef struct {
    int rank, size, npeers;
    int *out[MAXPEERS * NMSG];
    MPI_Request reqs[MAXPEERS * NMSG];
} sender_t;

/* Starts NMSG sends to each of rank+0 .. rank+npeers-1 (mod size); the
 * receives come from rank-0 .. rank-npeers+1. */
static void start_sends(sender_t *s, int tag_mod, int base_tag)
{
    for (int d = 0; d < s->npeers; d++) {
        int dest = (s->rank + d) % s->size;
        for (int seq = 0; seq < NMSG; seq++) {
            int k = d * NMSG + seq, len = msg_len(seq);
            int *msg = malloc((size_t)len * sizeof(int));
            msg[0] = s->rank;
            msg[1] = seq;
            for (int i = 2; i < len; i++)
                msg[i] = seq * 7 + i;
            s->out[k] = msg;
            MPI_Isend(msg, len, MPI_INT, dest, base_tag + seq % tag_mod,
                      MPI_COMM_WORLD, &s->reqs[k]);
        }
    }
}

static void finish_sends(sender_t *s)
{
    int n = s->npeers * NMSG;
    MT_CHECK_MPI(MPI_Waitall(n, s->reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < n; k++)
        free(s->out[k]);
}

/* Checks a received message and its status; returns its sender. */
static int check_msg(const int *msg, const MPI_Status *st, int want_tag)
{
    int sender = msg[0], seq = msg[1], count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    MT_CHECK_INT_EQ(st->MPI_SOURCE, sender);
    MT_CHECK_INT_EQ(st->MPI_TAG, want_tag);
    if (!MT_CHECK_INT_EQ(count, msg_len(seq)))
        return sender;
    for (int i = 2; i < count; i++)
        if (!MT_CHECK_INT_EQ(msg[i], seq * 7 + i))
            break;
    return sender;
}

static void same_tag(sender_t *s, int *buf)
{
    start_sends(s, 1, 10);
    for (int d = 0; d < s->npeers; d++) {
        int src = (s->rank - d + s->size) % s->size;
        for (int seq = 0; seq < NMSG; seq++) {
            MPI_Status st;
            MPI_Recv(buf, BIGLEN, MPI_INT, src, 10, MPI_COMM_WORLD, &st);
            MT_CHECK_INT_EQ(check_msg(buf, &st, 10), src);
            if (!MT_CHECK_INT_EQ(buf[1], seq))
                MT_FAIL("from %d: message %d arrived as %d", src, buf[1], seq);
        }
    }
    finish_sends(s);
}

static void wildcards(sender_t *s, int *buf)
{
    int *next = calloc((size_t)s->size, sizeof(int));
    start_sends(s, 4, 20);
    for (int k = 0; k < s->npeers * NMSG; k++) {
        MPI_Status st;
        MPI_Recv(buf, BIGLEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &st);
        int sender = buf[0], seq = buf[1];
        if (!MT_CHECK(sender >= 0 && sender < s->size))
            continue;
        check_msg(buf, &st, 20 + seq % 4);
        if (!MT_CHECK_INT_EQ(seq, next[sender]))
            MT_FAIL("from %d: got message %d, expected %d", sender, seq,
                    next[sender]);
        next[sender] = seq + 1;
    }
    for (int d = 0; d < s->npeers; d++)
        MT_CHECK_INT_EQ(next[(s->rank - d + s->size) % s->size], NMSG);
    finish_sends(s);
    free(next);
}

/* All receives are posted before the barrier and all sends start after it.
 * Each receive from a sender is exactly as long as the message it must
 * match if posted receives match in order; a mismatch truncates. */
static void posted_first(sender_t *s)
{
    int n = s->npeers * NMSG;
    int **in = malloc((size_t)n * sizeof(int *));
    MPI_Request *rreqs = malloc((size_t)n * sizeof(MPI_Request));
    MPI_Status *st = malloc((size_t)n * sizeof(MPI_Status));
    for (int d = 0; d < s->npeers; d++) {
        int src = (s->rank - d + s->size) % s->size;
        for (int seq = 0; seq < NMSG; seq++) {
            int k = d * NMSG + seq;
            in[k] = malloc((size_t)msg_len(seq) * sizeof(int));
            MPI_Irecv(in[k], msg_len(seq), MPI_INT, src, 30, MPI_COMM_WORLD,
                      &rreqs[k]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    start_sends(s, 1, 30);
    MT_CHECK_MPI(MPI_Waitall(n, rreqs, st));

    for (int d = 0; d < s->npeers; d++) {
        int src = (s->rank - d + s->size) % s->size;
        for (int seq = 0; seq < NMSG; seq++) {
            int k = d * NMSG + seq;
            MT_CHECK_INT_EQ(check_msg(in[k], &st[k], 30), src);
            MT_CHECK_INT_EQ(in[k][1], seq);
            free(in[k]);
        }
    }
    finish_sends(s);
    free(st);
    free(rreqs);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    sender_t *s = malloc(sizeof(*s));
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    s->npeers = s->size < MAXPEERS ? s->size : MAXPEERS;
    int *buf = malloc(BIGLEN * sizeof(int));

    same_tag(s, buf);
    wildcards(s, buf);
    posted_first(s);

    free(buf);
    free(s);
    return mt_finish_and_finalize();
}
