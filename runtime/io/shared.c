/*
 * The shared file pointer of a file whose owner (the process of the
 * file's member 0) is another process (io.h): one active message to a PE
 * of the owner, whose handler applies the operation to the pointer there
 * (an atomic, so any PE of the owner may) and answers with the value from
 * before; the answer completes the asking rank's request on its PE.
 */
#include "io/io.h"

#include <string.h>

enum { M_ADD, M_SET, M_ANSWER };

typedef struct shared_msg {
    uint8_t op;
    uint8_t pad[7];
    uint64_t file; /* the owner's amp_io_file_t */
    int64_t value;
    uint64_t rec; /* the asker's amp_io_shared_rec_t */
} shared_msg_t;

static void sent(void *arg, int ok)
{
    (void)arg;
    if (!ok)
        amp_fatal("UCX could not deliver a shared file pointer operation to "
                  "another process");
}

static void handle(amp_pe_t *pe, const amp_p2p_am_t *m)
{
    shared_msg_t q;
    amp_assert(m->hlen == sizeof(q));
    memcpy(&q, m->hdr, sizeof(q));
    if (q.op == M_ANSWER) {
        amp_io_shared_rec_t *rec = (amp_io_shared_rec_t *)(uintptr_t)q.rec;
        rec->result = q.value;
        amp_p2p_req_complete(rec->req);
        return;
    }
    amp_io_file_t *f = (amp_io_file_t *)(uintptr_t)q.file;
    int64_t old = q.op == M_SET ? atomic_exchange(&f->shared_fp, q.value)
                                : atomic_fetch_add(&f->shared_fp, q.value);
    shared_msg_t a = {.op = M_ANSWER, .value = old, .rec = q.rec};
    amp_p2p_am_send(pe, &(amp_p2p_am_out_t){.id = AMP_P2P_AM_IO,
                                            .proc = m->from_proc,
                                            .pe = m->from_pe,
                                            .hdr = &a,
                                            .hlen = sizeof(a),
                                            .done = sent});
}

void amp_io_remote_init(amp_p2p_world_t *world)
{
    amp_p2p_am_register(world, AMP_P2P_AM_IO, handle);
}

void amp_io_shared_remote(amp_pe_t *pe, int proc, int rpe, uint64_t file,
                          int set, int64_t value, amp_io_shared_rec_t *rec)
{
    shared_msg_t q = {.op = set ? M_SET : M_ADD,
                      .file = file,
                      .value = value,
                      .rec = (uint64_t)(uintptr_t)rec};
    amp_p2p_am_send(pe, &(amp_p2p_am_out_t){.id = AMP_P2P_AM_IO,
                                            .proc = proc,
                                            .pe = rpe,
                                            .hdr = &q,
                                            .hlen = sizeof(q),
                                            .done = sent});
}
