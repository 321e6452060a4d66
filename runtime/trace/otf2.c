/*
 * The raw files of every process (trace.c) into one OTF2 archive, by
 * process 0 after the job's fence.
 *
 * The records of all PEs are read, their cycle counts turned into ns of
 * CLOCK_REALTIME (each process's rate from its clock file), sorted by time
 * and handed out to the locations: a PE's location gets the running of
 * threads (a region "rank R" entered and left; the leave carries where the
 * rank stopped and why), idling (region "idle") and the balancing steps
 * decided there (region "load balancing"); a rank's location gets its MPI
 * calls (a region per call), its sends and completed receives (MpiSend,
 * MpiRecv on their communicator, the peer as its rank there), its blocking
 * collectives (MpiCollectiveBegin/End) and, at each balancing step, its
 * load and new place (a metric).  The communicators are put together from
 * their members' records (comms.h).  Regions left open at the end are
 * closed at the last time.
 */
#include "trace/comms.h"
#include "trace/raw.h"
#include "trace/trace.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct ev {
    int64_t ns;
    uint64_t seq; /* order of reading: ties keep a PE's order */
    int loc;      /* the PE's location */
    int stream;   /* index into cv->streams (the PE's names) */
    amp_trace_rec_t r;
    uint64_t aux; /* SEND, RECV: the context (ON_COMM before it, else 0);
                     COLL_END: the bytes received (COLL_RECV after it) */
} ev_t;

typedef struct stream {
    int *gname; /* local name id -> global name index, -1: none */
    uint64_t dropped;
} stream_t;

typedef struct conv {
    int nprocs, nranks, npes_all;
    int salvage;  /* a killed job's: a process or a PE may lack files */
    int *pe_base; /* process -> its first PE location */
    ev_t *evs;
    size_t nevs, cap;
    stream_t *streams;
    char **names; /* global names (MPI calls) */
    int nnames;
    char **strs; /* OTF2 strings, by ref */
    uint32_t nstrs, strcap;
    int64_t tmin, tmax;
    uint64_t dropped;
    int *rank_proc;   /* the process a rank was first seen in */
    int *stream_proc; /* a PE's stream -> its process */
    amp_tcomms_t comms;
} conv_t;

/* OTF2's smallest chunk (bytes). */
#define CHUNK (256 * 1024)

/* Locations: the PEs, then the ranks.  Regions: */
enum { REG_IDLE, REG_LB, REG_RANK0 };
/* Attributes. */
enum { ATTR_CALL, ATTR_STOP, ATTR_VIA, NATTRS };

static uint32_t str_ref(conv_t *cv, const char *s)
{
    for (uint32_t i = 0; i < cv->nstrs; i++)
        if (strcmp(cv->strs[i], s) == 0)
            return i;
    if (cv->nstrs == cv->strcap) {
        uint32_t cap = cv->strcap ? 2 * cv->strcap : 256;
        char **p = realloc(cv->strs, cap * sizeof(*p));
        if (!p)
            return 0;
        cv->strs = p;
        cv->strcap = cap;
    }
    cv->strs[cv->nstrs] = strdup(s);
    return cv->strs[cv->nstrs] ? cv->nstrs++ : 0;
}

static int global_name(conv_t *cv, const char *s)
{
    for (int i = 0; i < cv->nnames; i++)
        if (strcmp(cv->names[i], s) == 0)
            return i;
    char **p = realloc(cv->names, (size_t)(cv->nnames + 1) * sizeof(*p));
    if (!p)
        return -1;
    cv->names = p;
    cv->names[cv->nnames] = strdup(s);
    return cv->names[cv->nnames] ? cv->nnames++ : -1;
}

static amp_status_t read_names(conv_t *cv, const char *path, stream_t *s)
{
    s->gname = malloc((AMP_TRACE_NAMES + 1) * sizeof(int));
    if (!s->gname)
        return AMP_ERR_NOMEM;
    for (int i = 0; i <= AMP_TRACE_NAMES; i++)
        s->gname[i] = -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return cv->salvage ? AMP_OK : AMP_ERR_SYS;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        int id;
        char name[256];
        uint64_t n;
        if (sscanf(line, "dropped %" SCNu64, &n) == 1)
            s->dropped = n;
        else if (sscanf(line, "%d %255s", &id, name) == 2 && id > 0 &&
                 id <= AMP_TRACE_NAMES)
            s->gname[id] = global_name(cv, name);
    }
    fclose(f);
    return AMP_OK;
}

static amp_status_t add_ev(conv_t *cv, const ev_t *e)
{
    if (cv->nevs == cv->cap) {
        size_t cap = cv->cap ? 2 * cv->cap : 65536;
        ev_t *p = realloc(cv->evs, cap * sizeof(*p));
        if (!p)
            return AMP_ERR_NOMEM;
        cv->evs = p;
        cv->cap = cap;
    }
    cv->evs[cv->nevs++] = *e;
    return AMP_OK;
}

/* Takes in the records that belong to a neighbour or to the definitions
 * (*on: a pending ON_COMM; first: this PE's first event); whether e is
 * done with.  A record whose partner was dropped stands alone. */
static int fold(conv_t *cv, ev_t *e, amp_trace_rec_t *on, size_t first)
{
    const amp_trace_rec_t *r = &e->r;
    ev_t *last = cv->nevs > first ? &cv->evs[cv->nevs - 1] : NULL;
    int after_on = on->kind == AMP_TRACE_ON_COMM && on->a == r->a;
    on->kind = 0;
    e->aux = 0;
    switch (r->kind) {
    case AMP_TRACE_COMM:
        if (amp_tcomms_member(&cv->comms, r->b, r->a - 1, r->c,
                              (int)(r->d >> 32), (int)(uint32_t)r->d) != AMP_OK)
            cv->dropped++; /* out of memory: that place is lost */
        return 1;
    case AMP_TRACE_INTER:
        amp_tcomms_inter(&cv->comms, r->b, r->a - 1);
        return 1;
    case AMP_TRACE_ON_COMM: *on = *r; return 1;
    case AMP_TRACE_SEND:
    case AMP_TRACE_RECV:
        if (after_on)
            e->aux = (uint32_t)on->b;
        return 0;
    case AMP_TRACE_COLL_RECV:
        if (last && last->r.kind == AMP_TRACE_COLL_END && last->r.a == r->a)
            last->aux = r->d;
        return 1;
    default: return 0;
    }
}

/* The records of PE pe of process proc, whose clock is given. */
static amp_status_t read_pe(conv_t *cv, const char *dir, int proc, int pe,
                            const double clk[4])
{
    char path[4096];
    int s = cv->pe_base[proc] + pe;
    amp_trace_raw_path(path, sizeof(path), dir, proc, pe, "names");
    amp_status_t st = read_names(cv, path, &cv->streams[s]);
    if (st != AMP_OK)
        return st;
    cv->dropped += cv->streams[s].dropped;
    amp_trace_raw_path(path, sizeof(path), dir, proc, pe, "bin");
    FILE *f = fopen(path, "rb");
    if (!f)
        return cv->salvage ? AMP_OK : AMP_ERR_SYS;
    double rate = clk[2] > clk[0] && clk[3] > clk[1]
                      ? (clk[3] - clk[1]) / (clk[2] - clk[0])
                      : 1.0; /* ns per cycle */
    ev_t e = {.loc = s, .stream = s};
    amp_trace_rec_t on = {0}; /* an ON_COMM waiting for its record */
    size_t first = cv->nevs;
    while (st == AMP_OK && fread(&e.r, sizeof(e.r), 1, f) == 1) {
        e.ns = (int64_t)clk[1] + (int64_t)(((double)e.r.t - clk[0]) * rate);
        e.seq = cv->nevs;
        if (e.r.kind == AMP_TRACE_RUN && e.r.a > 0 && e.r.a <= cv->nranks &&
            cv->rank_proc[e.r.a - 1] < 0)
            cv->rank_proc[e.r.a - 1] = proc;
        if (!fold(cv, &e, &on, first))
            st = add_ev(cv, &e);
    }
    fclose(f);
    return st;
}

static int by_time(const void *pa, const void *pb)
{
    const ev_t *a = pa, *b = pb;
    if (a->ns != b->ns)
        return a->ns < b->ns ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Every process's clock and PE count, then every PE's records. */
static amp_status_t read_all(conv_t *cv, const char *dir)
{
    double(*clk)[4] = calloc((size_t)cv->nprocs, sizeof(*clk));
    int *npes = calloc((size_t)cv->nprocs, sizeof(int));
    cv->pe_base = calloc((size_t)cv->nprocs + 1, sizeof(int));
    amp_status_t st = clk && npes && cv->pe_base ? AMP_OK : AMP_ERR_NOMEM;
    for (int p = 0; st == AMP_OK && p < cv->nprocs; p++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/raw/p%d.clock", dir, p);
        FILE *f = fopen(path, "r");
        uint64_t c0, c1;
        int64_t n0, n1;
        if (!f ||
            fscanf(f, "%" SCNu64 " %" SCNd64 " %" SCNu64 " %" SCNd64 " %d", &c0,
                   &n0, &c1, &n1, &npes[p]) != 5) {
            st = cv->salvage ? AMP_OK : AMP_ERR_SYS;
            c0 = c1 = 0;
            n0 = n1 = 0;
            npes[p] = 0; /* killed before its flusher wrote anything */
        }
        if (f)
            fclose(f);
        clk[p][0] = (double)c0;
        clk[p][1] = (double)n0;
        clk[p][2] = (double)c1;
        clk[p][3] = (double)n1;
        cv->pe_base[p + 1] = cv->pe_base[p] + npes[p];
    }
    if (st == AMP_OK) {
        cv->npes_all = cv->pe_base[cv->nprocs];
        cv->streams = calloc((size_t)cv->npes_all, sizeof(*cv->streams));
        cv->stream_proc = calloc((size_t)cv->npes_all, sizeof(int));
        if (!cv->streams || !cv->stream_proc)
            st = AMP_ERR_NOMEM;
        for (int p = 0; st == AMP_OK && p < cv->nprocs; p++)
            for (int i = cv->pe_base[p]; i < cv->pe_base[p + 1]; i++)
                cv->stream_proc[i] = p;
    }
    for (int p = 0; st == AMP_OK && p < cv->nprocs; p++)
        for (int i = 0; st == AMP_OK && i < npes[p]; i++)
            st = read_pe(cv, dir, p, i, clk[p]);
    free(clk);
    free(npes);
    if (st != AMP_OK)
        return st;
    amp_tcomms_seal(&cv->comms);
    qsort(cv->evs, cv->nevs, sizeof(*cv->evs), by_time);
    cv->tmin = cv->nevs ? cv->evs[0].ns : 0;
    cv->tmax = cv->nevs ? cv->evs[cv->nevs - 1].ns : 0;
    return AMP_OK;
}

/* ---- writing ---- */

typedef struct out {
    conv_t *cv;
    OTF2_Archive *ar;
    OTF2_EvtWriter **w; /* by location */
    uint64_t *count;    /* events by location */
    int *pe_rank;       /* PE location -> rank region open, or -1 */
    char *pe_idle;      /* PE location -> idle open */
    char *pe_lb;        /* PE location -> balancing open */
    int *rank_call;     /* rank -> the call region open, or -1 */
    int64_t *coll;      /* rank -> its open collective's OTF2 comm, or -1 */
    int *coll_op;       /* ... and what it is (amp_trace_coll_t) */
    OTF2_AttributeList *attrs;
    uint32_t stop_str[4], via_str[4];
    uint32_t *call_str; /* global name -> its string */
} out_t;

static OTF2_FlushType pre_flush(void *data, OTF2_FileType type,
                                OTF2_LocationRef loc, void *cb, bool final)
{
    (void)data;
    (void)type;
    (void)loc;
    (void)cb;
    (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *data, OTF2_FileType type,
                                 OTF2_LocationRef loc)
{
    (void)data;
    (void)type;
    (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cbs = {.otf2_pre_flush = pre_flush,
                                              .otf2_post_flush = post_flush};

static OTF2_EvtWriter *writer(out_t *o, int loc)
{
    if (!o->w[loc])
        o->w[loc] = OTF2_Archive_GetEvtWriter(o->ar, (OTF2_LocationRef)loc);
    o->count[loc]++;
    return o->w[loc];
}

static int rank_loc(const out_t *o, int r)
{
    return o->cv->npes_all + r;
}

static void region(out_t *o, int loc, int64_t t, uint32_t reg, int enter)
{
    OTF2_EvtWriter *w = writer(o, loc);
    if (enter)
        OTF2_EvtWriter_Enter(w, o->attrs, (OTF2_TimeStamp)t, reg);
    else
        OTF2_EvtWriter_Leave(w, o->attrs, (OTF2_TimeStamp)t, reg);
}

static uint32_t call_region(const out_t *o, int g)
{
    return (uint32_t)(REG_RANK0 + o->cv->nranks + g);
}

static void close_pe(out_t *o, int loc, int64_t t)
{
    if (o->pe_lb[loc]) {
        region(o, loc, t, REG_LB, 0);
        o->pe_lb[loc] = 0;
    }
    if (o->pe_rank[loc] >= 0) {
        region(o, loc, t, (uint32_t)(REG_RANK0 + o->pe_rank[loc]), 0);
        o->pe_rank[loc] = -1;
    }
    if (o->pe_idle[loc]) {
        region(o, loc, t, REG_IDLE, 0);
        o->pe_idle[loc] = 0;
    }
}

static void on_stop(out_t *o, const ev_t *e)
{
    int r = e->r.a - 1;
    if (o->pe_rank[e->loc] != r)
        return;
    if (o->pe_lb[e->loc]) {
        region(o, e->loc, e->ns, REG_LB, 0);
        o->pe_lb[e->loc] = 0;
    }
    const stream_t *s = &o->cv->streams[e->stream];
    int g = e->r.b > 0 && e->r.b <= AMP_TRACE_NAMES ? s->gname[e->r.b] : -1;
    int waits =
        e->r.x == AMP_TRACE_STOP_BLOCK || e->r.x == AMP_TRACE_STOP_YIELD;
    if (g >= 0 && waits)
        OTF2_AttributeList_AddStringRef(o->attrs, ATTR_CALL, o->call_str[g]);
    OTF2_AttributeList_AddStringRef(o->attrs, ATTR_STOP,
                                    o->stop_str[e->r.x & 3]);
    region(o, e->loc, e->ns, (uint32_t)(REG_RANK0 + r), 0);
    o->pe_rank[e->loc] = -1;
}

static void on_call(out_t *o, const ev_t *e, int enter)
{
    int r = e->r.a - 1;
    const stream_t *s = &o->cv->streams[e->stream];
    int g = e->r.b > 0 && e->r.b <= AMP_TRACE_NAMES ? s->gname[e->r.b] : -1;
    if (g < 0)
        return;
    int open = o->rank_call[r];
    if (open >= 0 && (enter || open != g)) { /* unmatched: close it */
        region(o, rank_loc(o, r), e->ns, call_region(o, open), 0);
        o->rank_call[r] = -1;
    }
    if (enter) {
        region(o, rank_loc(o, r), e->ns, call_region(o, g), 1);
        o->rank_call[r] = g;
    } else if (open == g) {
        region(o, rank_loc(o, r), e->ns, call_region(o, g), 0);
        o->rank_call[r] = -1;
    }
}

static void on_lb_rank(out_t *o, const ev_t *e)
{
    int r = e->r.a - 1;
    double load;
    memcpy(&load, &e->r.d, sizeof(load));
    OTF2_Type types[5] = {OTF2_TYPE_DOUBLE, OTF2_TYPE_INT64, OTF2_TYPE_INT64,
                          OTF2_TYPE_INT64, OTF2_TYPE_INT64};
    OTF2_MetricValue v[5];
    v[0].floating_point = load;
    v[1].signed_int = e->r.b;
    v[2].signed_int = e->r.c;
    v[3].signed_int = o->cv->stream_proc[e->stream]; /* where it was */
    v[4].signed_int = e->r.x;
    OTF2_EvtWriter_Metric(writer(o, rank_loc(o, r)), NULL,
                          (OTF2_TimeStamp)e->ns, 0, 5, types, v);
}

static void on_pe_event(out_t *o, const ev_t *e)
{
    int loc = e->loc;
    switch (e->r.kind) {
    case AMP_TRACE_RUN:
        close_pe(o, loc, e->ns);
        region(o, loc, e->ns, (uint32_t)(REG_RANK0 + e->r.a - 1), 1);
        o->pe_rank[loc] = e->r.a - 1;
        break;
    case AMP_TRACE_STOP: on_stop(o, e); break;
    case AMP_TRACE_IDLE:
        close_pe(o, loc, e->ns);
        region(o, loc, e->ns, REG_IDLE, 1);
        o->pe_idle[loc] = 1;
        break;
    case AMP_TRACE_BUSY:
        if (o->pe_idle[loc]) {
            region(o, loc, e->ns, REG_IDLE, 0);
            o->pe_idle[loc] = 0;
        }
        break;
    case AMP_TRACE_LB_BEGIN:
        if (!o->pe_lb[loc]) {
            region(o, loc, e->ns, REG_LB, 1);
            o->pe_lb[loc] = 1;
        }
        break;
    case AMP_TRACE_LB_SHIP: {
        OTF2_Type types[2] = {OTF2_TYPE_INT64, OTF2_TYPE_UINT64};
        OTF2_MetricValue v[2];
        v[0].signed_int = e->r.a;
        v[1].unsigned_int = e->r.d;
        OTF2_EvtWriter_Metric(writer(o, loc), NULL, (OTF2_TimeStamp)e->ns, 1, 2,
                              types, v);
        break;
    }
    case AMP_TRACE_LB_END:
        if (o->pe_lb[loc]) {
            region(o, loc, e->ns, REG_LB, 0);
            o->pe_lb[loc] = 0;
        }
        break;
    }
}

/* The OTF2 communicator that a record of rank r on context ctx is on,
 * and the rank's peer world in it (*peer; -1: not a member): 0 for
 * MPI_COMM_WORLD (and for a communicator the archive does not define: the
 * peer stays a world rank, which is right there); -1 for a message of a
 * collective's own, not the program's (the context after a
 * communicator's). */
static int64_t comm_of(const out_t *o, int r, int ctx, int world, int *peer)
{
    const amp_tcomms_t *t = &o->cv->comms;
    int me, k;
    *peer = world;
    if (ctx == 0)
        return 0;
    if (ctx == 1 || amp_tcomms_find(t, ctx - 1, r, &me) >= 0)
        return -1;
    k = amp_tcomms_find(t, ctx, r, &me);
    if (k < 0 || !t->v[k].id)
        return 0;
    int j;
    *peer = amp_tcomms_find(t, ctx, world, &j) == k ? j : -1;
    return t->v[k].id;
}

static void on_message(out_t *o, const ev_t *e)
{
    int r = e->r.a - 1, peer;
    if (e->r.b < 0 || e->r.b >= o->cv->nranks)
        return;
    int64_t comm = comm_of(o, r, (int)e->aux, e->r.b, &peer);
    if (comm < 0 || peer < 0)
        return;
    OTF2_EvtWriter *w = writer(o, rank_loc(o, r));
    if (e->r.kind == AMP_TRACE_RECV) {
        OTF2_EvtWriter_MpiRecv(w, NULL, (OTF2_TimeStamp)e->ns, (uint32_t)peer,
                               (OTF2_CommRef)comm, (uint32_t)e->r.c, e->r.d);
        return;
    }
    OTF2_AttributeList_AddStringRef(o->attrs, ATTR_VIA, o->via_str[e->r.x & 3]);
    OTF2_EvtWriter_MpiSend(w, o->attrs, (OTF2_TimeStamp)e->ns, (uint32_t)peer,
                           (OTF2_CommRef)comm, (uint32_t)e->r.c, e->r.d);
}

/* A blocking collective's begin, on a communicator the archive defines. */
static void on_coll_begin(out_t *o, const ev_t *e)
{
    int r = e->r.a - 1, me;
    const amp_tcomms_t *t = &o->cv->comms;
    int k = e->r.b > 0 ? amp_tcomms_find(t, e->r.b, r, &me) : -1;
    int64_t comm = e->r.b == 0            ? 0
                   : k >= 0 && t->v[k].id ? (int64_t)t->v[k].id
                                          : -1;
    if (comm < 0 || o->coll[r] >= 0)
        return;
    OTF2_EvtWriter_MpiCollectiveBegin(writer(o, rank_loc(o, r)), NULL,
                                      (OTF2_TimeStamp)e->ns);
    o->coll[r] = comm;
    o->coll_op[r] = e->r.x;
}

/* OTF2's name of each amp_trace_coll_t. */
static const OTF2_CollectiveOp coll_op[] = {
    [AMP_TRACE_COLL_BARRIER] = OTF2_COLLECTIVE_OP_BARRIER,
    [AMP_TRACE_COLL_BCAST] = OTF2_COLLECTIVE_OP_BCAST,
    [AMP_TRACE_COLL_GATHER] = OTF2_COLLECTIVE_OP_GATHER,
    [AMP_TRACE_COLL_GATHERV] = OTF2_COLLECTIVE_OP_GATHERV,
    [AMP_TRACE_COLL_SCATTER] = OTF2_COLLECTIVE_OP_SCATTER,
    [AMP_TRACE_COLL_SCATTERV] = OTF2_COLLECTIVE_OP_SCATTERV,
    [AMP_TRACE_COLL_ALLGATHER] = OTF2_COLLECTIVE_OP_ALLGATHER,
    [AMP_TRACE_COLL_ALLGATHERV] = OTF2_COLLECTIVE_OP_ALLGATHERV,
    [AMP_TRACE_COLL_ALLTOALL] = OTF2_COLLECTIVE_OP_ALLTOALL,
    [AMP_TRACE_COLL_ALLTOALLV] = OTF2_COLLECTIVE_OP_ALLTOALLV,
    [AMP_TRACE_COLL_ALLTOALLW] = OTF2_COLLECTIVE_OP_ALLTOALLW,
    [AMP_TRACE_COLL_ALLREDUCE] = OTF2_COLLECTIVE_OP_ALLREDUCE,
    [AMP_TRACE_COLL_REDUCE] = OTF2_COLLECTIVE_OP_REDUCE,
    [AMP_TRACE_COLL_REDUCE_SCATTER] = OTF2_COLLECTIVE_OP_REDUCE_SCATTER,
    [AMP_TRACE_COLL_REDUCE_SCATTER_BLOCK] =
        OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
    [AMP_TRACE_COLL_SCAN] = OTF2_COLLECTIVE_OP_SCAN,
    [AMP_TRACE_COLL_EXSCAN] = OTF2_COLLECTIVE_OP_EXSCAN};

/* ... and its end at time t: op (amp_trace_coll_t), root (-1: none),
 * bytes sent and received. */
static void coll_end(out_t *o, int r, int64_t t, int op, int root,
                     uint64_t sent, uint64_t recv)
{
    if (o->coll[r] < 0)
        return;
    OTF2_EvtWriter_MpiCollectiveEnd(
        writer(o, rank_loc(o, r)), NULL, (OTF2_TimeStamp)t,
        coll_op[op >= AMP_TRACE_COLL_BARRIER && op <= AMP_TRACE_COLL_EXSCAN
                    ? op
                    : AMP_TRACE_COLL_BARRIER],
        (OTF2_CommRef)o->coll[r],
        root >= 0 ? (uint32_t)root : OTF2_COLLECTIVE_ROOT_NONE, sent, recv);
    o->coll[r] = -1;
}

static void on_event(out_t *o, const ev_t *e)
{
    int r = e->r.a - 1;
    int ranked = e->r.kind == AMP_TRACE_RUN || e->r.kind == AMP_TRACE_STOP ||
                 e->r.kind == AMP_TRACE_ENTER || e->r.kind == AMP_TRACE_LEAVE ||
                 e->r.kind == AMP_TRACE_SEND || e->r.kind == AMP_TRACE_RECV ||
                 e->r.kind == AMP_TRACE_LB_RANK ||
                 e->r.kind == AMP_TRACE_COLL_BEGIN ||
                 e->r.kind == AMP_TRACE_COLL_END;
    if (ranked && (r < 0 || r >= o->cv->nranks))
        return; /* a helper thread, not a rank */
    switch (e->r.kind) {
    case AMP_TRACE_ENTER:
    case AMP_TRACE_LEAVE: on_call(o, e, e->r.kind == AMP_TRACE_ENTER); break;
    case AMP_TRACE_SEND:
    case AMP_TRACE_RECV: on_message(o, e); break;
    case AMP_TRACE_COLL_BEGIN: on_coll_begin(o, e); break;
    case AMP_TRACE_COLL_END:
        coll_end(o, r, e->ns, e->r.x, e->r.c, e->r.d, e->aux);
        break;
    case AMP_TRACE_LB_RANK: on_lb_rank(o, e); break;
    default: on_pe_event(o, e);
    }
}

static void close_all(out_t *o)
{
    for (int loc = 0; loc < o->cv->npes_all; loc++)
        close_pe(o, loc, o->cv->tmax);
    for (int r = 0; r < o->cv->nranks; r++)
        coll_end(o, r, o->cv->tmax, o->coll_op[r], -1, 0, 0);
    for (int r = 0; r < o->cv->nranks; r++)
        if (o->rank_call[r] >= 0)
            region(o, rank_loc(o, r), o->cv->tmax,
                   call_region(o, o->rank_call[r]), 0);
}

/* ---- definitions ---- */

static int has_word(const char *name, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(name, *words) == 0)
            return 1;
    return 0;
}

/* The OTF2 role of the MPI call name. */
static OTF2_RegionRole call_role(const char *name)
{
    static const char *const one2all[] = {"MPI_Bcast", "MPI_Scatter",
                                          "MPI_Scatterv", NULL};
    static const char *const all2one[] = {"MPI_Reduce", "MPI_Gather",
                                          "MPI_Gatherv", NULL};
    static const char *const all2all[] = {"MPI_Allreduce",
                                          "MPI_Allgather",
                                          "MPI_Allgatherv",
                                          "MPI_Alltoall",
                                          "MPI_Alltoallv",
                                          "MPI_Alltoallw",
                                          "MPI_Reduce_scatter",
                                          "MPI_Reduce_scatter_block",
                                          "MPI_Scan",
                                          "MPI_Exscan",
                                          NULL};
    static const char *const p2p[] = {
        "MPI_Send",  "MPI_Ssend",   "MPI_Bsend",   "MPI_Rsend",
        "MPI_Recv",  "MPI_Isend",   "MPI_Irecv",   "MPI_Sendrecv",
        "MPI_Wait",  "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
        "MPI_Probe", "MPI_Mrecv",   NULL};
    if (strcmp(name, "MPI_Barrier") == 0)
        return OTF2_REGION_ROLE_BARRIER;
    if (has_word(name, one2all))
        return OTF2_REGION_ROLE_COLL_ONE2ALL;
    if (has_word(name, all2one))
        return OTF2_REGION_ROLE_COLL_ALL2ONE;
    if (has_word(name, all2all))
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
    if (has_word(name, p2p))
        return OTF2_REGION_ROLE_POINT2POINT;
    return OTF2_REGION_ROLE_FUNCTION;
}

static void def_region(out_t *o, OTF2_GlobalDefWriter *d, uint32_t ref,
                       const char *name, OTF2_RegionRole role,
                       OTF2_Paradigm paradigm)
{
    uint32_t s = str_ref(o->cv, name), none = str_ref(o->cv, "");
    if (d)
        OTF2_GlobalDefWriter_WriteRegion(d, ref, s, s, none, role, paradigm,
                                         OTF2_REGION_FLAG_NONE, none, 0, 0);
}

static void def_regions(out_t *o, OTF2_GlobalDefWriter *d)
{
    conv_t *cv = o->cv;
    def_region(o, d, REG_IDLE, "idle", OTF2_REGION_ROLE_ARTIFICIAL,
               OTF2_PARADIGM_USER);
    def_region(o, d, REG_LB, "load balancing", OTF2_REGION_ROLE_FUNCTION,
               OTF2_PARADIGM_USER);
    for (int r = 0; r < cv->nranks; r++) {
        char name[32];
        snprintf(name, sizeof(name), "rank %d", r);
        def_region(o, d, (uint32_t)(REG_RANK0 + r), name,
                   OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    }
    for (int g = 0; g < cv->nnames; g++)
        def_region(o, d, call_region(o, g), cv->names[g],
                   call_role(cv->names[g]), OTF2_PARADIGM_MPI);
}

static void def_locations(out_t *o, OTF2_GlobalDefWriter *d)
{
    conv_t *cv = o->cv;
    uint32_t job = str_ref(cv, "job"), machine = str_ref(cv, "machine");
    if (d)
        OTF2_GlobalDefWriter_WriteSystemTreeNode(
            d, 0, job, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    char name[64];
    for (int p = 0; p < cv->nprocs; p++) {
        snprintf(name, sizeof(name), "process %d", p);
        uint32_t s = str_ref(cv, name);
        if (d)
            OTF2_GlobalDefWriter_WriteLocationGroup(
                d, (uint32_t)p, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                OTF2_UNDEFINED_LOCATION_GROUP);
        for (int pe = 0; pe < cv->pe_base[p + 1] - cv->pe_base[p]; pe++) {
            int loc = cv->pe_base[p] + pe;
            snprintf(name, sizeof(name), "process %d PE %d", p, pe);
            s = str_ref(cv, name);
            if (d)
                OTF2_GlobalDefWriter_WriteLocation(
                    d, (uint64_t)loc, s, OTF2_LOCATION_TYPE_CPU_THREAD,
                    o->count[loc], (uint32_t)p);
        }
    }
    for (int r = 0; r < cv->nranks; r++) {
        snprintf(name, sizeof(name), "MPI rank %d", r);
        int loc = rank_loc(o, r);
        int p = cv->rank_proc[r] >= 0 ? cv->rank_proc[r] : 0;
        uint32_t s = str_ref(cv, name);
        if (d)
            OTF2_GlobalDefWriter_WriteLocation(d, (uint64_t)loc, s,
                                               OTF2_LOCATION_TYPE_CPU_THREAD,
                                               o->count[loc], (uint32_t)p);
    }
}

/* MPI_COMM_WORLD over the ranks' locations (comm 0, group 1), then
 * every communicator the ranks' records define (comm k, group k + 1: its
 * members' world ranks, which index group 0). */
static amp_status_t def_comm(out_t *o, OTF2_GlobalDefWriter *d)
{
    conv_t *cv = o->cv;
    const amp_tcomms_t *t = &cv->comms;
    uint32_t ranks = str_ref(cv, "MPI ranks");
    uint32_t world = str_ref(cv, "MPI_COMM_WORLD");
    uint32_t *names = malloc(((size_t)t->n + 1) * sizeof(*names));
    if (!names)
        return AMP_ERR_NOMEM;
    for (int k = 0; k < t->n; k++) { /* one name per context and size */
        char name[64];
        snprintf(name, sizeof(name), "context %d, %d ranks", t->v[k].ctx,
                 t->v[k].size);
        names[k] = str_ref(cv, name);
    }
    int most = cv->nranks;
    for (int k = 0; k < t->n; k++)
        most = t->v[k].size > most ? t->v[k].size : most;
    uint64_t *m = malloc((size_t)(most ? most : 1) * sizeof(*m));
    if (!m || !d) {
        free(names);
        free(m);
        return m || !d ? AMP_OK : AMP_ERR_NOMEM;
    }
    for (int r = 0; r < cv->nranks; r++)
        m[r] = (uint64_t)rank_loc(o, r);
    OTF2_GlobalDefWriter_WriteGroup(d, 0, ranks, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)cv->nranks, m);
    for (int r = 0; r < cv->nranks; r++)
        m[r] = (uint64_t)r;
    OTF2_GlobalDefWriter_WriteGroup(d, 1, world, OTF2_GROUP_TYPE_COMM_GROUP,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)cv->nranks, m);
    OTF2_GlobalDefWriter_WriteComm(d, 0, world, 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    for (int k = 0; k < t->n; k++) {
        const amp_tcomm_t *c = &t->v[k];
        if (!c->id)
            continue;
        for (int i = 0; i < c->size; i++)
            m[i] = (uint64_t)c->members[i];
        OTF2_GlobalDefWriter_WriteGroup(
            d, c->id + 1, names[k], OTF2_GROUP_TYPE_COMM_GROUP,
            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)c->size, m);
        OTF2_GlobalDefWriter_WriteComm(d, c->id, names[k], c->id + 1,
                                       OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
    }
    free(names);
    free(m);
    return AMP_OK;
}

/* Metric 0: a rank's row of a balancing step; 1: what a process shipped
 * to others at a step (on the location of the PE that recorded it). */
static void def_metric(out_t *o, OTF2_GlobalDefWriter *d)
{
    conv_t *cv = o->cv;
    static const char *const names[7] = {
        "lb load",           "lb PE before",     "lb PE after",
        "lb process before", "lb process after", "lb ranks sent",
        "lb bytes sent"};
    static const char *const units[7] = {"s", "", "", "", "", "", "bytes"};
    static const OTF2_Type types[7] = {
        OTF2_TYPE_DOUBLE, OTF2_TYPE_INT64, OTF2_TYPE_INT64, OTF2_TYPE_INT64,
        OTF2_TYPE_INT64,  OTF2_TYPE_INT64, OTF2_TYPE_UINT64};
    OTF2_MetricMemberRef members[7];
    for (int k = 0; k < 7; k++) {
        uint32_t n = str_ref(cv, names[k]), u = str_ref(cv, units[k]);
        members[k] = (OTF2_MetricMemberRef)k;
        if (d)
            OTF2_GlobalDefWriter_WriteMetricMember(
                d, members[k], n, n, OTF2_METRIC_TYPE_USER,
                OTF2_METRIC_ABSOLUTE_POINT, types[k], OTF2_BASE_DECIMAL, 0, u);
    }
    if (!d)
        return;
    OTF2_GlobalDefWriter_WriteMetricClass(d, 0, 5, members,
                                          OTF2_METRIC_ASYNCHRONOUS,
                                          OTF2_RECORDER_KIND_ABSTRACT);
    OTF2_GlobalDefWriter_WriteMetricClass(d, 1, 2, members + 5,
                                          OTF2_METRIC_ASYNCHRONOUS,
                                          OTF2_RECORDER_KIND_ABSTRACT);
}

/* The definitions into d; with d NULL, only the strings they use are
 * collected (the strings go first: readers resolve names as they read). */
static amp_status_t defs(out_t *o, OTF2_GlobalDefWriter *d)
{
    conv_t *cv = o->cv;
    if (d)
        OTF2_GlobalDefWriter_WriteClockProperties(
            d, 1000000000, (uint64_t)cv->tmin, (uint64_t)(cv->tmax - cv->tmin),
            (uint64_t)cv->tmin);
    static const char *const attr[NATTRS][2] = {
        {"blocked in", "the MPI call a rank stopped in"},
        {"stop", "why a rank stopped: block, yield, move or done"},
        {"via", "a send's transport: PE, process, network or device"}};
    for (int k = 0; k < NATTRS; k++) {
        uint32_t n = str_ref(cv, attr[k][0]), desc = str_ref(cv, attr[k][1]);
        if (d)
            OTF2_GlobalDefWriter_WriteAttribute(d, (uint32_t)k, n, desc,
                                                OTF2_TYPE_STRING);
    }
    def_regions(o, d);
    def_locations(o, d);
    def_metric(o, d);
    return def_comm(o, d);
}

static amp_status_t write_defs(out_t *o)
{
    conv_t *cv = o->cv;
    amp_status_t st = defs(o, NULL);
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(o->ar);
    if (st != AMP_OK || !d)
        return st != AMP_OK ? st : AMP_ERR_SYS;
    for (uint32_t i = 0; i < cv->nstrs; i++)
        OTF2_GlobalDefWriter_WriteString(d, i, cv->strs[i]);
    return defs(o, d);
}

/* Removes an archive an earlier run left in dir (its anchor, definitions
 * and event files: nothing else). */
static void remove_old(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/traces.otf2", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/traces.def", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/traces", dir);
    DIR *dp = opendir(path);
    struct dirent *de;
    while (dp && (de = readdir(dp))) {
        size_t n = strlen(de->d_name);
        if (n > 4 && (strcmp(de->d_name + n - 4, ".evt") == 0 ||
                      strcmp(de->d_name + n - 4, ".def") == 0)) {
            char f[8192];
            snprintf(f, sizeof(f), "%s/%s", path, de->d_name);
            unlink(f);
        }
    }
    if (dp)
        closedir(dp);
    rmdir(path);
}

/* Removes dir/raw and what trace.c wrote there. */
/* DIR/raw and every file in it (only this module writes there). */
static void remove_raw(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/raw", dir);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char file[8192];
        if (e->d_name[0] == '.')
            continue;
        snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
        unlink(file);
    }
    if (d)
        closedir(d);
    rmdir(path);
}

static amp_status_t out_init(out_t *o, conv_t *cv)
{
    int nloc = cv->npes_all + cv->nranks;
    memset(o, 0, sizeof(*o));
    o->cv = cv;
    o->w = calloc((size_t)nloc, sizeof(*o->w));
    o->count = calloc((size_t)nloc, sizeof(*o->count));
    o->pe_rank = malloc((size_t)(cv->npes_all + 1) * sizeof(int));
    o->pe_idle = calloc((size_t)cv->npes_all + 1, 1);
    o->pe_lb = calloc((size_t)cv->npes_all + 1, 1);
    o->rank_call = malloc((size_t)(cv->nranks + 1) * sizeof(int));
    o->coll = malloc((size_t)(cv->nranks + 1) * sizeof(*o->coll));
    o->coll_op = malloc((size_t)(cv->nranks + 1) * sizeof(int));
    o->attrs = OTF2_AttributeList_New();
    o->call_str = malloc((size_t)(cv->nnames + 1) * sizeof(uint32_t));
    if (!o->w || !o->count || !o->pe_rank || !o->pe_idle || !o->pe_lb ||
        !o->rank_call || !o->coll || !o->coll_op || !o->attrs || !o->call_str)
        return AMP_ERR_NOMEM;
    for (int g = 0; g < cv->nnames; g++)
        o->call_str[g] = str_ref(cv, cv->names[g]);
    for (int i = 0; i < cv->npes_all; i++)
        o->pe_rank[i] = -1;
    for (int r = 0; r < cv->nranks; r++)
        o->rank_call[r] = o->coll[r] = -1;
    static const char *const stops[4] = {"block", "yield", "move", "done"};
    static const char *const vias[4] = {"PE", "process", "network", "device"};
    for (int k = 0; k < 4; k++) {
        o->stop_str[k] = str_ref(cv, stops[k]);
        o->via_str[k] = str_ref(cv, vias[k]);
    }
    return AMP_OK;
}

static void out_cleanup(out_t *o)
{
    free(o->w);
    free(o->count);
    free(o->pe_rank);
    free(o->pe_idle);
    free(o->pe_lb);
    free(o->rank_call);
    free(o->coll);
    free(o->coll_op);
    free(o->call_str);
    if (o->attrs)
        OTF2_AttributeList_Delete(o->attrs);
}

static void conv_cleanup(conv_t *cv)
{
    free(cv->evs);
    for (int s = 0; cv->streams && s < cv->npes_all; s++)
        free(cv->streams[s].gname);
    free(cv->streams);
    for (int i = 0; i < cv->nnames; i++)
        free(cv->names[i]);
    free(cv->names);
    for (uint32_t i = 0; i < cv->nstrs; i++)
        free(cv->strs[i]);
    free(cv->strs);
    free(cv->pe_base);
    free(cv->rank_proc);
    free(cv->stream_proc);
    amp_tcomms_free(&cv->comms);
}

/* The archive: events location by location, then the definitions. */
static amp_status_t write_archive(const char *dir, conv_t *cv)
{
    out_t o;
    amp_status_t st = out_init(&o, cv);
    OTF2_Archive *ar = NULL;
    if (st != AMP_OK)
        goto out;
    remove_old(dir);
    /* The smallest chunks OTF2 takes: each location's writer holds one. */
    ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, CHUNK, CHUNK,
                           OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        st = AMP_ERR_SYS;
        goto out;
    }
    o.ar = ar;
    OTF2_Archive_SetFlushCallbacks(ar, &flush_cbs, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_SetCreator(ar, "libampi +trace");
    OTF2_Archive_OpenEvtFiles(ar);
    for (size_t i = 0; i < cv->nevs; i++)
        on_event(&o, &cv->evs[i]);
    close_all(&o);
    int nloc = cv->npes_all + cv->nranks;
    for (int loc = 0; loc < nloc; loc++) {
        /* Readers open every location's events, even none (a process
         * killed before it wrote any, after an abnormal end). */
        if (!o.w[loc])
            o.w[loc] = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)loc);
        if (o.w[loc])
            OTF2_Archive_CloseEvtWriter(ar, o.w[loc]);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    /* Readers expect a (here empty) local definition file per location. */
    OTF2_Archive_OpenDefFiles(ar);
    for (int loc = 0; loc < nloc; loc++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (uint64_t)loc);
        if (dw)
            OTF2_Archive_CloseDefWriter(ar, dw);
    }
    OTF2_Archive_CloseDefFiles(ar);
    st = write_defs(&o);
out:
    if (ar && OTF2_Archive_Close(ar) != OTF2_SUCCESS && st == AMP_OK)
        st = AMP_ERR_SYS;
    out_cleanup(&o);
    return st;
}

static amp_status_t convert(const char *dir, int nprocs, int nranks,
                            int salvage)
{
    conv_t cv = {.nprocs = nprocs, .nranks = nranks, .salvage = salvage};
    cv.rank_proc = malloc((size_t)(nranks + 1) * sizeof(int));
    amp_status_t st = cv.rank_proc ? AMP_OK : AMP_ERR_NOMEM;
    for (int r = 0; r < nranks; r++)
        cv.rank_proc[r] = -1;
    if (st == AMP_OK)
        st = read_all(&cv, dir);
    if (st == AMP_OK)
        st = write_archive(dir, &cv);
    if (st == AMP_OK)
        remove_raw(dir);
    else
        amp_log_error("+trace: cannot write the OTF2 archive %s/traces.otf2 "
                      "from %s/raw (%s)",
                      dir, dir, amp_status_str(st));
    if (st == AMP_OK && cv.dropped)
        fprintf(stderr,
                "ampi: trace: %" PRIu64 " records lost (the disk did not keep "
                "up); the archive lacks them\n",
                cv.dropped);
    conv_cleanup(&cv);
    return st;
}

amp_status_t amp_trace_convert(const char *dir, int nprocs, int nranks)
{
    return convert(dir, nprocs, nranks, 0);
}

amp_status_t amp_trace_convert_dir(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/raw/job", dir);
    FILE *f = fopen(path, "r");
    int nprocs = 0, nranks = 0;
    int ok = f && fscanf(f, "%d %d", &nprocs, &nranks) == 2 && nprocs > 0 &&
             nranks > 0;
    if (f)
        fclose(f);
    if (!ok) {
        amp_log_error("+trace: %s has no raw trace to convert (%s is missing "
                      "or unreadable)",
                      dir, path);
        return AMP_ERR_ARG;
    }
    return convert(dir, nprocs, nranks, 1);
}
