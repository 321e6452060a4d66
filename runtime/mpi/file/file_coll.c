/*
 * Collective reads and writes (file.h, docs/mpi-io.md).
 *
 * Ranks of one process share its address space, so a collective access
 * is aggregated per process without copying: each member describes its
 * part (its view, where its access starts, its data stream) and the
 * process's leader gathers the descriptions' addresses.  The leader merges
 * the members' pieces into one stream in file order and hands it to a
 * helper thread, which reads or writes it straight from and to the
 * members' memory with few, large system calls (io/rw.c): adjacent pieces
 * of different ranks become one pwritev.  The members wait as user-level
 * threads meanwhile and learn the outcome from the leader.
 *
 * Several processes: when their parts interleave in the file (or
 * romio_cb_read/write say "enable"), the leaders run two-phase I/O among
 * themselves.  The file range the call touches is cut into chunks of
 * cb_buffer_size bytes, dealt to cb_nodes aggregating processes in turn
 * (one per node first); in each round every leader sends each aggregator
 * the pieces of its chunk (offsets, lengths and, for a write, the data)
 * and the aggregator reads or writes its chunk in one go, answering a
 * read with the data.  Parts that do not interleave are written by their
 * own process.  Atomic mode keeps every access in its own process.
 *
 * MPI_File_iread_all and kin are independent nonblocking accesses (a
 * collective access means the same data as the independent one); split
 * collectives do their work in the begin call, as the standard allows.
 */
#include "mpi/file/file.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One member's part, in its memory; its leader reads it and writes done. */
typedef struct part {
    const amp_io_view_t *view;
    int64_t start;
    size_t bytes;
    char *stream;
    size_t done;
} part_t;

/* The leader's word to the members of its process. */
typedef struct outcome {
    int32_t st, err;
} outcome_t;

/* The file range [lo, hi) a part touches (lo > hi when none). */
static void part_range(const part_t *p, int64_t *lo, int64_t *hi)
{
    if (!p->bytes) {
        *lo = INT64_MAX;
        *hi = INT64_MIN;
        return;
    }
    *lo = amp_io_view_offset(p->view, p->start);
    *hi = amp_io_view_offset(p->view, p->start + (int64_t)p->bytes - 1) + 1;
}

/* ---- one process's parts, by its helper threads ---- */

/* A process's transfer is cut into slices of the file range it touches,
 * one per helper thread (a slice is worth it from this many bytes on). */
#define SLICE_MIN ((int64_t)8 << 20)

/* One slice: of each part, the bytes [sub[2i], sub[2i + 1]) of its
 * stream lie in the slice's file range. */
typedef struct slice_job {
    amp_io_job_t job;
    amp_io_xfer_t x;
    part_t **parts;
    int n;
    int64_t *sub;
    size_t *done; /* bytes moved, by part */
} slice_job_t;

static void run_slice(amp_io_job_t *job)
{
    slice_job_t *sj = job->arg;
    int n = sj->n;
    amp_io_cursor_t *cur = malloc((size_t)n * sizeof(*cur));
    amp_io_seg_t *head = malloc((size_t)n * sizeof(*head));
    int *heap = malloc((size_t)n * sizeof(*heap));
    amp_io_merge_t m;
    if (!cur || !head || !heap) {
        job->status = AMP_ERR_NOMEM;
    } else {
        for (int i = 0; i < n; i++) {
            const part_t *p = sj->parts[i];
            int64_t from = sj->sub[2 * i], to = sj->sub[2 * i + 1];
            amp_io_cursor_init(&cur[i], p->view, p->start + from,
                               (size_t)(to - from), p->stream + from, i);
        }
        amp_io_merge_init(&m, cur, n, head, heap);
        sj->x.next = amp_io_merge_next;
        sj->x.src = &m;
        sj->x.done = sj->done;
        sj->x.nsrc = n;
        job->status = amp_io_xfer_run(&sj->x, &job->err);
    }
    free(cur);
    free(head);
    free(heap);
}

/* Where slice k of nk of [lo, hi) starts in part p's stream. */
static int64_t slice_at(const part_t *p, int64_t lo, int64_t hi, int k, int nk)
{
    if (k == 0)
        return 0;
    if (k == nk)
        return (int64_t)p->bytes;
    int64_t off = lo + (hi - lo) / nk * k;
    int64_t at = amp_io_view_stream_below(p->view, off) - p->start;
    return at<0 ? 0 : at>(int64_t) p->bytes ? (int64_t)p->bytes : at;
}

/* The slices' jobs (nk of them) over the n parts, file range [lo, hi). */
static slice_job_t *slices_make(amp_file_t *f, int write, part_t **parts, int n,
                                int64_t lo, int64_t hi, int nk)
{
    slice_job_t *sj = calloc((size_t)nk, sizeof(*sj));
    int64_t *sub = malloc((size_t)nk * n * 2 * sizeof(*sub));
    size_t *done = calloc((size_t)nk * n, sizeof(*done));
    if (!sj || !sub || !done) {
        free(sj);
        free(sub);
        free(done);
        return NULL;
    }
    for (int k = 0; k < nk; k++) {
        sj[k].parts = parts;
        sj[k].n = n;
        sj[k].sub = sub + (size_t)k * n * 2;
        sj[k].done = done + (size_t)k * n;
        for (int i = 0; i < n; i++) {
            sj[k].sub[2 * i] = slice_at(parts[i], lo, hi, k, nk);
            sj[k].sub[2 * i + 1] = slice_at(parts[i], lo, hi, k + 1, nk);
        }
        sj[k].x = (amp_io_xfer_t){.file = f->io,
                                  .write = write,
                                  .bounce = (size_t)f->hints.cb_buffer_size,
                                  .atomic = f->atomic,
                                  .lo = lo,
                                  .hi = hi};
        sj[k].job = (amp_io_job_t){.run = run_slice, .arg = &sj[k]};
    }
    return sj;
}

/* The leader's transfer of its process's n parts: one slice per helper
 * thread (one in atomic mode, where a transfer holds the whole range). */
static outcome_t run_process(amp_file_t *f, int write, part_t **parts, int n)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < n; i++) {
        int64_t a, b;
        part_range(parts[i], &a, &b);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    int nk = 1;
    if (!f->atomic && !f->io->sequential && hi > lo) {
        int64_t want = (hi - lo) / SLICE_MIN;
        nk = want < 1 ? 1
                      : (int)(want < amp_io_threads(amp_proc.io)
                                  ? want
                                  : amp_io_threads(amp_proc.io));
    }
    slice_job_t *sj = slices_make(f, write, parts, n, lo, hi, nk);
    amp_io_job_t **jobs = malloc((size_t)nk * sizeof(*jobs));
    if (!sj || !jobs) {
        free(jobs);
        return (outcome_t){AMP_ERR_NOMEM, 0};
    }
    for (int k = 0; k < nk; k++)
        jobs[k] = &sj[k].job;
    amp_io_wait_all(amp_proc.io, jobs, nk);
    outcome_t out = {AMP_OK, 0};
    for (int k = 0; k < nk; k++) {
        if (out.st == AMP_OK && sj[k].job.status != AMP_OK)
            out = (outcome_t){sj[k].job.status, sj[k].job.err};
        for (int i = 0; i < n; i++)
            parts[i]->done += sj[k].done[i];
    }
    free(sj[0].sub);
    free(sj[0].done);
    free(sj);
    free(jobs);
    return out;
}

/* ---- two-phase I/O among the leaders ---- */

/* What the leaders share to plan: each one's range and node. */
typedef struct plan_in {
    int64_t lo, hi;
    int64_t node;
} plan_in_t;

typedef struct plan {
    int nl, me;     /* leaders, this one */
    int naggs;      /* aggregators */
    int *aggs;      /* leader of each aggregator */
    int my_agg;     /* this leader's aggregator index, or -1 */
    int64_t lo, hi; /* the range of the call */
    int64_t chunk;
    int64_t rounds;
} plan_t;

/* Whether two leaders' ranges overlap. */
static int interleaved(const plan_in_t *in, int nl)
{
    for (int a = 0; a < nl; a++)
        for (int b = a + 1; b < nl; b++)
            if (in[a].lo < in[a].hi && in[b].lo < in[b].hi &&
                in[a].lo < in[b].hi && in[b].lo < in[a].hi)
                return 1;
    return 0;
}

/* Aggregators: the first leader of each node, then the others, in order,
 * up to cb_nodes. */
static void choose_aggs(plan_t *p, const plan_in_t *in, int want)
{
    char *taken = calloc((size_t)p->nl, 1);
    p->naggs = 0;
    for (int pass = 0; pass < 2 && taken; pass++)
        for (int l = 0; l < p->nl && p->naggs < want; l++) {
            int first_of_node = 1;
            for (int k = 0; k < l; k++)
                first_of_node &= in[k].node != in[l].node;
            if (taken[l] || (pass == 0 && !first_of_node))
                continue;
            taken[l] = 1;
            p->aggs[p->naggs++] = l;
        }
    if (!taken) /* out of memory: the leaders in order */
        for (; p->naggs < want && p->naggs < p->nl; p->naggs++)
            p->aggs[p->naggs] = p->naggs;
    free(taken);
    p->my_agg = -1;
    for (int a = 0; a < p->naggs; a++)
        if (p->aggs[a] == p->me)
            p->my_agg = a;
}

/* Plans the call among the leaders; *two_phase: whether to run it. */
static int plan_make(amp_file_t *f, int write, int64_t lo, int64_t hi,
                     plan_t *p, int *two_phase)
{
    PMPI_Comm_size(f->leaders, &p->nl);
    PMPI_Comm_rank(f->leaders, &p->me);
    int proc = amp_proc.world.rank_proc ? amp_proc.world.proc : 0;
    plan_in_t mine = {
        lo, hi, amp_proc.world.proc_node ? amp_proc.world.proc_node[proc] : 0};
    plan_in_t *in = malloc((size_t)p->nl * sizeof(*in));
    p->aggs = malloc((size_t)p->nl * sizeof(*p->aggs));
    if (!in || !p->aggs ||
        PMPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, in,
                       (int)sizeof(mine), MPI_BYTE,
                       f->leaders) != MPI_SUCCESS) {
        free(in);
        return MPI_ERR_NO_MEM; /* the same everywhere unless memory ran out */
    }
    int cb = write ? f->hints.cb_write : f->hints.cb_read;
    *two_phase = !f->atomic && cb != AMP_CB_DISABLE &&
                 (cb == AMP_CB_ENABLE || interleaved(in, p->nl));
    p->lo = INT64_MAX;
    p->hi = INT64_MIN;
    for (int l = 0; l < p->nl; l++) {
        p->lo = in[l].lo < p->lo ? in[l].lo : p->lo;
        p->hi = in[l].hi > p->hi ? in[l].hi : p->hi;
    }
    int want = f->hints.cb_nodes < p->nl ? f->hints.cb_nodes : p->nl;
    choose_aggs(p, in, want > 0 ? want : 1);
    free(in);
    p->chunk = f->hints.cb_buffer_size;
    int64_t chunks =
        p->hi > p->lo ? (p->hi - p->lo + p->chunk - 1) / p->chunk : 0;
    p->rounds = (chunks + p->naggs - 1) / p->naggs;
    return MPI_SUCCESS;
}

/* The pieces one leader exchanges with each other leader in a round. */
typedef struct side {
    int64_t *meta;      /* (offset, length) pairs, by peer */
    char *data;         /* by peer */
    int *nmeta, *ndata; /* counts by peer (int64s, bytes) */
    int *dmeta, *ddata; /* displacements */
    char **dest;        /* reads: where each piece sent goes */
    int *dest_part;     /* and whose it is */
    size_t cap_meta, cap_data, cap_dest, cap_part, npieces;
} side_t;

/* The merged stream of the process's parts, walked once over the rounds.
 * A piece cut at a chunk boundary keeps its rest for a later round; since
 * pieces may overlap (reads), a later piece can start before a rest, so
 * the rests wait in a heap by offset and the next piece is the lower of
 * the heap's first and the merge's next. */
typedef struct walker {
    amp_io_merge_t m;
    amp_io_cursor_t *cur;
    amp_io_seg_t *head;
    int *heap;
    amp_io_seg_t next; /* taken from the merge, not yet given out */
    int has_next;
    amp_io_seg_t *rests; /* a heap by offset */
    size_t nrests, cap_rests;
} walker_t;

static int walker_init(walker_t *w, part_t **parts, int n)
{
    memset(w, 0, sizeof(*w));
    w->cur = malloc((size_t)(n ? n : 1) * sizeof(*w->cur));
    w->head = malloc((size_t)(n ? n : 1) * sizeof(*w->head));
    w->heap = malloc((size_t)(n ? n : 1) * sizeof(*w->heap));
    if (!w->cur || !w->head || !w->heap)
        return 0;
    for (int i = 0; i < n; i++)
        amp_io_cursor_init(&w->cur[i], parts[i]->view, parts[i]->start,
                           parts[i]->bytes, parts[i]->stream, i);
    amp_io_merge_init(&w->m, w->cur, n, w->head, w->heap);
    return 1;
}

static void walker_cleanup(walker_t *w)
{
    free(w->cur);
    free(w->head);
    free(w->heap);
    free(w->rests);
}

static void rests_swap(amp_io_seg_t *a, amp_io_seg_t *b)
{
    amp_io_seg_t t = *a;
    *a = *b;
    *b = t;
}

static int rests_push(walker_t *w, const amp_io_seg_t *s)
{
    if (w->nrests == w->cap_rests) {
        size_t cap = w->cap_rests ? 2 * w->cap_rests : 16;
        amp_io_seg_t *r = realloc(w->rests, cap * sizeof(*r));
        if (!r)
            return 0;
        w->rests = r;
        w->cap_rests = cap;
    }
    size_t i = w->nrests++;
    w->rests[i] = *s;
    while (i > 0 && w->rests[(i - 1) / 2].off > w->rests[i].off) {
        rests_swap(&w->rests[(i - 1) / 2], &w->rests[i]);
        i = (i - 1) / 2;
    }
    return 1;
}

static void rests_pop(walker_t *w)
{
    w->rests[0] = w->rests[--w->nrests];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, min = i;
        if (l < w->nrests && w->rests[l].off < w->rests[min].off)
            min = l;
        if (r < w->nrests && w->rests[r].off < w->rests[min].off)
            min = r;
        if (min == i)
            return;
        rests_swap(&w->rests[i], &w->rests[min]);
        i = min;
    }
}

/* The next piece that starts below end, cut at the next multiple of chunk
 * from lo: 1, or 0 when there is none; -1 when out of memory. */
static int walker_next(walker_t *w, int64_t end, int64_t lo, int64_t chunk,
                       amp_io_seg_t *s)
{
    if (!w->has_next)
        w->has_next = amp_io_merge_next(&w->m, &w->next);
    int rest = w->nrests > 0 && (!w->has_next || w->rests[0].off < w->next.off);
    if (!rest && !w->has_next)
        return 0;
    *s = rest ? w->rests[0] : w->next;
    if (s->off >= end)
        return 0;
    if (rest)
        rests_pop(w);
    else
        w->has_next = 0;
    int64_t bound = lo + ((s->off - lo) / chunk + 1) * chunk;
    if (s->off + (int64_t)s->len > bound) {
        amp_io_seg_t r = *s;
        s->len = (size_t)(bound - s->off);
        r.off = bound;
        r.len -= s->len;
        r.mem += s->len;
        if (!rests_push(w, &r))
            return -1;
    }
    return 1;
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *b = realloc(*buf, c * elem);
    if (!b)
        return 0;
    *buf = b;
    *cap = c;
    return 1;
}

/* Collects this leader's pieces of round r, by aggregator: their
 * offsets and lengths, and (write) their data or (read) where each
 * goes.  Returns 0 when out of memory. */
static int collect_round(const plan_t *p, walker_t *w, int64_t r, int write,
                         side_t *s)
{
    int64_t first = r * p->naggs, end = p->lo + (first + p->naggs) * p->chunk;
    amp_io_seg_t seg;
    /* Pieces come in file order, hence by aggregator: count as we go. */
    memset(s->nmeta, 0, (size_t)p->nl * sizeof(int));
    memset(s->ndata, 0, (size_t)p->nl * sizeof(int));
    size_t nm = 0, nd = 0;
    s->npieces = 0;
    int more;
    while ((more = walker_next(w, end, p->lo, p->chunk, &seg)) > 0) {
        int a = (int)((seg.off - p->lo) / p->chunk - first);
        int peer = p->aggs[a];
        if (!grow((void **)&s->meta, &s->cap_meta, nm + 2, sizeof(int64_t)))
            return 0;
        s->meta[nm++] = seg.off;
        s->meta[nm++] = (int64_t)seg.len;
        s->nmeta[peer] += 2;
        if (write) {
            if (!grow((void **)&s->data, &s->cap_data, nd + seg.len, 1))
                return 0;
            memcpy(s->data + nd, seg.mem, seg.len);
            nd += seg.len;
        } else {
            if (!grow((void **)&s->dest, &s->cap_dest, s->npieces + 1,
                      sizeof(char *)) ||
                !grow((void **)&s->dest_part, &s->cap_part, s->npieces + 1,
                      sizeof(int)))
                return 0;
            s->dest[s->npieces] = seg.mem;
            s->dest_part[s->npieces] = seg.src;
        }
        s->ndata[peer] += (int)seg.len;
        s->npieces++;
    }
    return more == 0;
}

/* Displacements of counts laid out in aggregator order (a peer that is
 * no aggregator sends and receives nothing). */
static void displs_by_agg(const plan_t *p, const int *counts, int *displs)
{
    int at = 0;
    memset(displs, 0, (size_t)p->nl * sizeof(int));
    for (int a = 0; a < p->naggs; a++) {
        displs[p->aggs[a]] = at;
        at += counts[p->aggs[a]];
    }
}

/* Displacements of counts by peer order; returns the total. */
static size_t displs_in_order(int n, const int *counts, int *displs)
{
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        displs[i] = (int)at;
        at += (size_t)counts[i];
    }
    return at;
}

typedef struct array_src {
    amp_io_seg_t *s;
    size_t n, i;
} array_src_t;

static int array_next(void *arg, amp_io_seg_t *seg)
{
    array_src_t *a = arg;
    if (a->i == a->n)
        return 0;
    *seg = a->s[a->i++];
    return 1;
}

static int by_offset(const void *a, const void *b)
{
    const amp_io_seg_t *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

typedef struct agg_job {
    amp_io_job_t job;
    amp_io_xfer_t x;
    array_src_t src;
} agg_job_t;

static void run_agg(amp_io_job_t *job)
{
    agg_job_t *aj = job->arg;
    qsort(aj->src.s, aj->src.n, sizeof(*aj->src.s), by_offset);
    job->status = amp_io_xfer_run(&aj->x, &job->err);
}

/* The aggregator's transfer of the pieces received (n of them, described
 * by meta, their data at data); done: bytes moved by piece. */
static outcome_t agg_transfer(amp_file_t *f, int write, const int64_t *meta,
                              size_t n, char *data, size_t *done)
{
    agg_job_t aj;
    aj.src = (array_src_t){malloc((n ? n : 1) * sizeof(amp_io_seg_t)), n, 0};
    if (!aj.src.s)
        return (outcome_t){AMP_ERR_NOMEM, 0};
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        aj.src.s[i] = (amp_io_seg_t){meta[2 * i], (size_t)meta[2 * i + 1],
                                     data + at, (int)i};
        at += (size_t)meta[2 * i + 1];
    }
    aj.x = (amp_io_xfer_t){.file = f->io,
                           .write = write,
                           .next = array_next,
                           .src = &aj.src,
                           .bounce = (size_t)f->hints.cb_buffer_size,
                           .done = done,
                           .nsrc = (int)n};
    aj.job = (amp_io_job_t){.run = run_agg, .arg = &aj};
    amp_io_wait(amp_proc.io, &aj.job);
    free(aj.src.s);
    return (outcome_t){aj.job.status, aj.job.err};
}

/* The exchange buffers of one round. */
typedef struct round_bufs {
    int *cnt;                   /* 4 per peer: send meta, send data, recv ... */
    int *sm, *sd, *rm, *rd;     /* counts */
    int *dsm, *dsd, *drm, *drd; /* displacements */
    int64_t *rmeta;
    char *rdata;
    size_t *done;
    int64_t *valid;
} round_bufs_t;

static int bufs_init(round_bufs_t *b, int nl)
{
    memset(b, 0, sizeof(*b));
    b->cnt = calloc((size_t)nl * 12, sizeof(int));
    if (!b->cnt)
        return 0;
    int *c = b->cnt;
    b->sm = c;
    b->sd = c + nl;
    b->rm = c + 2 * nl;
    b->rd = c + 3 * nl;
    b->dsm = c + 4 * nl;
    b->dsd = c + 5 * nl;
    b->drm = c + 6 * nl;
    b->drd = c + 7 * nl;
    return 1;
}

static void bufs_free(round_bufs_t *b)
{
    free(b->cnt);
    free(b->rmeta);
    free(b->rdata);
    free(b->done);
    free(b->valid);
}

/* Sends each aggregator its counts, then the pieces' descriptions (and a
 * write's data); the aggregator ends up with rmeta (and rdata). */
static int exchange_out(amp_file_t *f, const plan_t *p, side_t *s,
                        round_bufs_t *b, int write, size_t *nrecv,
                        size_t *recv_bytes)
{
    int nl = p->nl;
    int *pairs = b->cnt + 8 * nl; /* (meta, data) by peer, sent and got */
    for (int i = 0; i < nl; i++) {
        pairs[2 * i] = s->nmeta[i];
        pairs[2 * i + 1] = s->ndata[i];
    }
    int rc = PMPI_Alltoall(pairs, 2, MPI_INT, pairs + 2 * nl, 2, MPI_INT,
                           f->leaders);
    for (int i = 0; i < nl; i++) {
        b->sm[i] = s->nmeta[i];
        b->sd[i] = s->ndata[i];
        b->rm[i] = pairs[2 * nl + 2 * i];
        b->rd[i] = pairs[2 * nl + 2 * i + 1];
    }
    displs_by_agg(p, b->sm, b->dsm);
    displs_by_agg(p, b->sd, b->dsd);
    size_t nm = displs_in_order(nl, b->rm, b->drm);
    *recv_bytes = displs_in_order(nl, b->rd, b->drd);
    *nrecv = nm / 2;
    free(b->rmeta);
    free(b->rdata);
    b->rmeta = malloc((nm ? nm : 1) * sizeof(int64_t));
    b->rdata = malloc(*recv_bytes ? *recv_bytes : 1);
    if (!b->rmeta || !b->rdata)
        return MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallv(s->meta, b->sm, b->dsm, MPI_INT64_T, b->rmeta,
                            b->rm, b->drm, MPI_INT64_T, f->leaders);
    if (rc == MPI_SUCCESS && write)
        rc = PMPI_Alltoallv(s->data, b->sd, b->dsd, MPI_BYTE, b->rdata, b->rd,
                            b->drd, MPI_BYTE, f->leaders);
    return rc;
}

/* A read's answers: the data of every piece asked for, and how much of
 * it the file held; the leader copies them to the members' memory. */
static int exchange_back(amp_file_t *f, const plan_t *p, side_t *s,
                         round_bufs_t *b, size_t nrecv, part_t **parts)
{
    int nl = p->nl;
    int *vs = b->cnt + 10 * nl, *vr = b->cnt + 11 * nl;
    size_t asked = 0;
    for (int i = 0; i < nl; i++)
        asked += (size_t)s->ndata[i];
    /* Two arrays apart (the second never at the first's address). */
    b->valid = realloc(b->valid, (nrecv + s->npieces + 2) * sizeof(int64_t));
    char *in = malloc(asked ? asked : 1);
    if (!b->valid || !in) {
        free(in);
        return MPI_ERR_NO_MEM;
    }
    int64_t *sent_valid = b->valid, *got_valid = b->valid + nrecv + 1;
    for (size_t i = 0; i < nrecv; i++)
        sent_valid[i] = (int64_t)b->done[i];
    for (int i = 0; i < nl; i++) {
        vs[i] = b->rm[i] / 2;
        vr[i] = s->nmeta[i] / 2;
    }
    int *dvs = b->cnt + 8 * nl, *dvr = b->cnt + 9 * nl;
    displs_in_order(nl, vs, dvs);
    displs_by_agg(p, vr, dvr);
    int rc = PMPI_Alltoallv(b->rdata, b->rd, b->drd, MPI_BYTE, in, b->sd,
                            b->dsd, MPI_BYTE, f->leaders);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallv(sent_valid, vs, dvs, MPI_INT64_T, got_valid, vr,
                            dvr, MPI_INT64_T, f->leaders);
    /* Pieces went out in aggregator order, which is how they come back. */
    size_t at = 0;
    for (size_t i = 0; rc == MPI_SUCCESS && i < s->npieces; i++) {
        size_t len = (size_t)s->meta[2 * i + 1], v = (size_t)got_valid[i];
        memcpy(s->dest[i], in + at, v < len ? v : len);
        parts[s->dest_part[i]]->done += v < len ? v : len;
        at += len;
    }
    free(in);
    return rc;
}

static void side_free(side_t *s)
{
    free(s->meta);
    free(s->data);
    free(s->nmeta);
    free(s->ndata);
    free(s->dest);
    free(s->dest_part);
}

/* One round of two-phase I/O. */
static outcome_t one_round(amp_file_t *f, const plan_t *p, walker_t *w,
                           int64_t r, int write, side_t *s, round_bufs_t *b,
                           part_t **parts)
{
    outcome_t out = {AMP_OK, 0};
    size_t nrecv = 0, bytes = 0;
    if (!collect_round(p, w, r, write, s)) {
        out.st = AMP_ERR_NOMEM;
        memset(s->nmeta, 0, (size_t)p->nl * sizeof(int));
        memset(s->ndata, 0, (size_t)p->nl * sizeof(int));
        s->npieces = 0;
    }
    if (exchange_out(f, p, s, b, write, &nrecv, &bytes) != MPI_SUCCESS)
        return (outcome_t){AMP_ERR_INTERN, 0};
    free(b->done);
    b->done = calloc(nrecv + 1, sizeof(size_t));
    if (!b->done)
        return (outcome_t){AMP_ERR_NOMEM, 0};
    if (nrecv) {
        outcome_t o =
            agg_transfer(f, write, b->rmeta, nrecv, b->rdata, b->done);
        if (out.st == AMP_OK)
            out = o;
    }
    if (!write && exchange_back(f, p, s, b, nrecv, parts) != MPI_SUCCESS)
        return (outcome_t){AMP_ERR_INTERN, 0};
    return out;
}

static outcome_t two_phase(amp_file_t *f, const plan_t *p, int write,
                           part_t **parts, int n)
{
    outcome_t out = {AMP_OK, 0};
    walker_t w;
    side_t s;
    round_bufs_t b;
    memset(&s, 0, sizeof(s));
    s.nmeta = calloc((size_t)p->nl, sizeof(int));
    s.ndata = calloc((size_t)p->nl, sizeof(int));
    int ok =
        walker_init(&w, parts, n) && s.nmeta && s.ndata && bufs_init(&b, p->nl);
    if (!ok) /* the same everywhere but for memory: then it hangs less */
        out.st = AMP_ERR_NOMEM;
    for (int64_t r = 0; ok && r < p->rounds; r++) {
        outcome_t o = one_round(f, p, &w, r, write, &s, &b, parts);
        if (out.st == AMP_OK)
            out = o;
    }
    if (ok && write)
        for (int i = 0; i < n; i++)
            parts[i]->done = out.st == AMP_OK ? parts[i]->bytes : 0;
    walker_cleanup(&w);
    side_free(&s);
    if (ok)
        bufs_free(&b);
    return out;
}

/* ---- the leader ---- */

static outcome_t leaders_agree(amp_file_t *f, outcome_t out)
{
    int64_t mine = amp_file_pair(out.st, out.err), all = mine;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MIN, f->leaders) !=
        MPI_SUCCESS)
        return (outcome_t){AMP_ERR_INTERN, 0};
    return (outcome_t){(int32_t)(all >> 32), (int32_t)(uint32_t)all};
}

static outcome_t leader_run(amp_file_t *f, int write, part_t **parts, int n)
{
    if (f->nprocs == 1 || f->leaders == MPI_COMM_NULL)
        return run_process(f, write, parts, n);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < n; i++) {
        int64_t a, b;
        part_range(parts[i], &a, &b);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    plan_t p;
    int two = 0;
    outcome_t out;
    if (plan_make(f, write, lo, hi, &p, &two) != MPI_SUCCESS)
        out = (outcome_t){AMP_ERR_NOMEM, 0};
    else if (two)
        out = two_phase(f, &p, write, parts, n);
    else
        out = run_process(f, write, parts, n);
    free(p.aggs);
    return leaders_agree(f, out);
}

int amp_file_collective(amp_rank_t *rank, amp_file_t *f, int write,
                        int64_t start, amp_file_mem_t *m, size_t *moved,
                        MPI_Status *status, const char *call)
{
    int cb = write ? f->hints.cb_write : f->hints.cb_read;
    *moved = 0;
    if (cb == AMP_CB_DISABLE)
        return amp_file_independent(rank, f,
                                    &(amp_file_access_t){.status = status,
                                                         .write = write,
                                                         .call = call},
                                    start, m, moved);
    int empty = m->bytes > 0 && f->view.fsize == 0;
    part_t me = {&f->view, start, empty ? 0 : m->bytes, m->stream, 0};
    int lrank, lsize;
    PMPI_Comm_rank(f->local, &lrank);
    PMPI_Comm_size(f->local, &lsize);
    uint64_t addr = (uint64_t)(uintptr_t)&me;
    uint64_t *all = lrank == 0 ? malloc((size_t)lsize * sizeof(*all)) : NULL;
    outcome_t out = {AMP_OK, 0};
    if (PMPI_Gather(&addr, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0,
                    f->local) != MPI_SUCCESS)
        out.st = AMP_ERR_INTERN;
    if (lrank == 0)
        out = all ? leader_run(f, write, (part_t **)all, lsize)
                  : (outcome_t){AMP_ERR_NOMEM, 0};
    free(all);
    if (PMPI_Bcast(&out, 2, MPI_INT32_T, 0, f->local) != MPI_SUCCESS)
        out.st = AMP_ERR_INTERN;
    int rc = MPI_SUCCESS;
    if (empty)
        rc = amp_file_error(rank, f, MPI_ERR_IO, call,
                            "the view's filetype holds no data");
    else if (out.st != AMP_OK)
        rc = amp_file_io_error(rank, f, out.st, out.err, call,
                               write ? "cannot write" : "cannot read");
    else if (!write && amp_file_mem_unpack(m, me.done, 1) != MPI_SUCCESS)
        rc = amp_file_error(rank, f, MPI_ERR_CONVERSION, call,
                            "the conversion from \"%s\" failed", f->datarep);
    if (rc == MPI_SUCCESS)
        amp_file_status(status, amp_file_mem_bytes(m, me.done));
    *moved = me.done;
    amp_file_mem_end(m);
    return rc;
}

/* ---- the calls ---- */

/* The collective access a (blocking) at an explicit offset (a->at) or the
 * individual file pointer. */
static int coll_access(const amp_file_access_t *a)
{
    amp_rank_t *rank;
    amp_file_t *f;
    amp_file_mem_t m;
    const char *call = a->call;
    int at = a->at, write = a->write;
    MPI_Offset offset = a->offset;
    int rc = amp_file_enter(a->fh, call, &rank, &f);
    if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_SEQUENTIAL))
        rc = amp_file_error(rank, f, MPI_ERR_UNSUPPORTED_OPERATION, call,
                            "the file was opened MPI_MODE_SEQUENTIAL, which "
                            "allows only the shared file pointer");
    if (rc == MPI_SUCCESS && at && offset < 0)
        rc = amp_file_error(rank, f, MPI_ERR_ARG, call,
                            "negative offset %lld (argument offset)", offset);
    if (rc == MPI_SUCCESS)
        rc = amp_file_mem_begin(rank, f, write, a->buf, a->count, a->dtype, &m,
                                call);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t start = amp_file_stream_pos(f, at ? offset : f->fp);
    size_t moved, bytes = m.bytes;
    rc =
        amp_file_collective(rank, f, write, start, &m, &moved, a->status, call);
    /* Past the data asked for, as an independent access (file_rw.c). */
    if (rc == MPI_SUCCESS && !at)
        f->fp += (int64_t)bytes / (int64_t)f->etype->size;
    return rc;
}

int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status)
{
    return coll_access(&(amp_file_access_t){.fh = fh,
                                            .buf = buf,
                                            .count = count,
                                            .dtype = datatype,
                                            .status = status,
                                            .call = "MPI_File_read_all"});
}
AMP_WEAK_ALIAS(File_read_all)

int PMPI_File_write_all(MPI_File fh, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Status *status)
{
    return coll_access(&(amp_file_access_t){.fh = fh,
                                            .buf = (void *)buf,
                                            .count = count,
                                            .dtype = datatype,
                                            .status = status,
                                            .write = 1,
                                            .call = "MPI_File_write_all"});
}
AMP_WEAK_ALIAS(File_write_all)

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    return coll_access(&(amp_file_access_t){.fh = fh,
                                            .at = 1,
                                            .offset = offset,
                                            .buf = buf,
                                            .count = count,
                                            .dtype = datatype,
                                            .status = status,
                                            .call = "MPI_File_read_at_all"});
}
AMP_WEAK_ALIAS(File_read_at_all)

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                           int count, MPI_Datatype datatype, MPI_Status *status)
{
    return coll_access(&(amp_file_access_t){.fh = fh,
                                            .at = 1,
                                            .offset = offset,
                                            .buf = (void *)buf,
                                            .count = count,
                                            .dtype = datatype,
                                            .status = status,
                                            .write = 1,
                                            .call = "MPI_File_write_at_all"});
}
AMP_WEAK_ALIAS(File_write_at_all)

/* ---- nonblocking collectives: independent nonblocking accesses ---- */

int PMPI_File_iread_all(MPI_File fh, void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    return amp_file_access(&(amp_file_access_t){.fh = fh,
                                                .buf = buf,
                                                .count = count,
                                                .dtype = datatype,
                                                .nonblocking = 1,
                                                .request = request,
                                                .call = "MPI_File_iread_all"});
}
AMP_WEAK_ALIAS(File_iread_all)

int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count,
                         MPI_Datatype datatype, MPI_Request *request)
{
    return amp_file_access(&(amp_file_access_t){.fh = fh,
                                                .buf = (void *)buf,
                                                .count = count,
                                                .dtype = datatype,
                                                .nonblocking = 1,
                                                .request = request,
                                                .write = 1,
                                                .call = "MPI_File_iwrite_all"});
}
AMP_WEAK_ALIAS(File_iwrite_all)

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return amp_file_access(
        &(amp_file_access_t){.fh = fh,
                             .at = 1,
                             .offset = offset,
                             .buf = buf,
                             .count = count,
                             .dtype = datatype,
                             .nonblocking = 1,
                             .request = request,
                             .call = "MPI_File_iread_at_all"});
}
AMP_WEAK_ALIAS(File_iread_at_all)

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                            int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return amp_file_access(
        &(amp_file_access_t){.fh = fh,
                             .at = 1,
                             .offset = offset,
                             .buf = (void *)buf,
                             .count = count,
                             .dtype = datatype,
                             .nonblocking = 1,
                             .request = request,
                             .write = 1,
                             .call = "MPI_File_iwrite_at_all"});
}
AMP_WEAK_ALIAS(File_iwrite_at_all)

/* ---- split collectives: the work is done by the begin call ---- */

enum split_kind {
    SPLIT_READ_AT = 1,
    SPLIT_WRITE_AT,
    SPLIT_READ_ALL,
    SPLIT_WRITE_ALL,
    SPLIT_READ_ORDERED,
    SPLIT_WRITE_ORDERED
};

static const char *const split_begin_name[] = {
    [SPLIT_READ_AT] = "MPI_File_read_at_all_begin",
    [SPLIT_WRITE_AT] = "MPI_File_write_at_all_begin",
    [SPLIT_READ_ALL] = "MPI_File_read_all_begin",
    [SPLIT_WRITE_ALL] = "MPI_File_write_all_begin",
    [SPLIT_READ_ORDERED] = "MPI_File_read_ordered_begin",
    [SPLIT_WRITE_ORDERED] = "MPI_File_write_ordered_begin",
};

static int split_begin(MPI_File fh, int kind, MPI_Offset offset, void *buf,
                       int count, MPI_Datatype dtype)
{
    const char *call = split_begin_name[kind];
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (f->split)
        return amp_file_error(rank, f, MPI_ERR_OTHER, call,
                              "%s has begun and not ended; a file has one "
                              "split collective at a time",
                              split_begin_name[f->split]);
    MPI_Status st;
    amp_status_empty(&st);
    int write = kind == SPLIT_WRITE_AT || kind == SPLIT_WRITE_ALL ||
                kind == SPLIT_WRITE_ORDERED;
    if (kind == SPLIT_READ_ORDERED || kind == SPLIT_WRITE_ORDERED)
        rc = amp_file_ordered(fh, buf, count, dtype, &st, write, call);
    else
        rc = coll_access(&(amp_file_access_t){.fh = fh,
                                              .at = kind <= SPLIT_WRITE_AT,
                                              .offset = offset,
                                              .buf = buf,
                                              .count = count,
                                              .dtype = dtype,
                                              .status = &st,
                                              .write = write,
                                              .call = call});
    f->split = kind;
    f->split_buf = buf;
    f->split_status = st;
    return rc;
}

static int split_end(MPI_File fh, int kind, const void *buf, MPI_Status *status,
                     const char *call)
{
    amp_rank_t *rank;
    amp_file_t *f;
    int rc = amp_file_enter(fh, call, &rank, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    if (f->split != kind)
        return amp_file_error(rank, f, MPI_ERR_OTHER, call, "no %s to end%s%s",
                              split_begin_name[kind],
                              f->split ? "; begun: " : "",
                              f->split ? split_begin_name[f->split] : "");
    (void)buf;
    f->split = 0;
    if (status != MPI_STATUS_IGNORE) {
        int err = status->MPI_ERROR;
        *status = f->split_status;
        status->MPI_ERROR = err;
    }
    return MPI_SUCCESS;
}

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf,
                                int count, MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_READ_AT, offset, buf, count, datatype);
}
AMP_WEAK_ALIAS(File_read_at_all_begin)

int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end(fh, SPLIT_READ_AT, buf, status,
                     "MPI_File_read_at_all_end");
}
AMP_WEAK_ALIAS(File_read_at_all_end)

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset,
                                 const void *buf, int count,
                                 MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_WRITE_AT, offset, (void *)buf, count,
                       datatype);
}
AMP_WEAK_ALIAS(File_write_at_all_begin)

int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end(fh, SPLIT_WRITE_AT, buf, status,
                     "MPI_File_write_at_all_end");
}
AMP_WEAK_ALIAS(File_write_at_all_end)

int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count,
                             MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_READ_ALL, 0, buf, count, datatype);
}
AMP_WEAK_ALIAS(File_read_all_begin)

int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end(fh, SPLIT_READ_ALL, buf, status, "MPI_File_read_all_end");
}
AMP_WEAK_ALIAS(File_read_all_end)

int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count,
                              MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_WRITE_ALL, 0, (void *)buf, count, datatype);
}
AMP_WEAK_ALIAS(File_write_all_begin)

int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end(fh, SPLIT_WRITE_ALL, buf, status,
                     "MPI_File_write_all_end");
}
AMP_WEAK_ALIAS(File_write_all_end)

int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count,
                                 MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_READ_ORDERED, 0, buf, count, datatype);
}
AMP_WEAK_ALIAS(File_read_ordered_begin)

int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end(fh, SPLIT_READ_ORDERED, buf, status,
                     "MPI_File_read_ordered_end");
}
AMP_WEAK_ALIAS(File_read_ordered_end)

int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count,
                                  MPI_Datatype datatype)
{
    return split_begin(fh, SPLIT_WRITE_ORDERED, 0, (void *)buf, count,
                       datatype);
}
AMP_WEAK_ALIAS(File_write_ordered_begin)

int PMPI_File_write_ordered_end(MPI_File fh, const void *buf,
                                MPI_Status *status)
{
    return split_end(fh, SPLIT_WRITE_ORDERED, buf, status,
                     "MPI_File_write_ordered_end");
}
AMP_WEAK_ALIAS(File_write_ordered_end)
