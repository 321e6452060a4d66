/*
 * Who is in each colour of an MPI_Comm_split, in key order.
 *
 * The parent's members in each process meet on a board (one per split and
 * process): each writes its colour and key there.  The member of least
 * rank in the parent there (the process's collector) takes them all once
 * every member wrote.  The collectors of the other processes send theirs
 * to the parent's rank 0 in one message each.  Rank 0 sorts them all by
 * (colour, key, rank) once and answers each collector in one message:
 * each member's colour and place, and the world ranks of those colours.
 * A collector makes one shared world map per colour (world_map.c) and
 * tells each member of its process its place in a small message.
 *
 * So a split sends two messages per process across processes and one per
 * member inside a process, and keeps each colour's list once per process
 * (a million ranks in a thousand colours of a thousand each: 4 MB in all,
 * where a list for every member would take 4 GB).
 */
#include "mpi/comm/comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Tags on the parent's collective context of the messages of a split, below
 * every tag of the agreements among a subset (comm_create.c): between
 * processes (a process's members, and rank 0's answer), and inside one
 * (every member wrote; a member's place). */
#define TAG_PROCS INT_MIN
#define TAG_HERE (INT_MIN + 1)

/* What each member writes on its board. */
typedef struct member {
    int color, key, rank, world; /* rank in the parent, world rank */
} member_t;

/* A member's answer from its collector: n members, it at place me, map
 * (shared, one hold of it the member's); n < 0: out of memory. */
typedef struct placed {
    amp_world_map_t *map;
    int n, me;
} placed_t;

/* A split's meeting place in this process. */
struct amp_split_board {
    amp_split_board_t *next;
    int pctx, root_world, ctx; /* whose: parent's context, rank 0, new ctx */
    int nlocal, arrived;       /* the parent's members here; written */
    int collector;             /* the least rank of the parent here */
    /* By process, at the root's process only: the parent's members there
     * and the least of their ranks (-1: none). */
    int *count, *least;
    member_t m[]; /* by arrival */
};

/* What a split needs of the parent, taken before anything blocks. */
typedef struct split {
    int size, me, cctx, pctx;
    const int *world; /* the parent's map (NULL: the identity) */
    int my_world, root_world;
} split_t;

static int world_of(const split_t *s, int r)
{
    return s->world ? s->world[r] : r;
}

/* ---- messages ---- */

static void send_to(const void *buf, size_t bytes, const split_t *s,
                    int to_world, int tag)
{
    amp_p2p_req_t req;
    amp_p2p_req_t *reqs[1] = {&req};
    req.on_done = NULL;
    amp_p2p_ep_t *ep = &amp_rank_self()->ep;
    amp_p2p_isend(
        ep, buf, bytes,
        (amp_p2p_env_t){
            .ctx = s->cctx, .src = s->me, .dst = to_world, .tag = tag},
        AMP_P2P_STANDARD, &req);
    amp_p2p_wait_all(ep, reqs, 1);
}

static void recv_from(void *buf, size_t capacity, const split_t *s, int from,
                      int tag)
{
    amp_p2p_req_t req;
    amp_p2p_req_t *reqs[1] = {&req};
    req.on_done = NULL;
    amp_p2p_ep_t *ep = &amp_rank_self()->ep;
    amp_p2p_irecv(ep, buf, capacity,
                  (amp_p2p_env_t){.ctx = s->cctx, .src = from, .tag = tag},
                  &req);
    amp_p2p_wait_all(ep, reqs, 1);
}

/* ---- the boards ---- */

static void boards_lock(amp_split_boards_t *t)
{
    amp_spin_lock(&t->lock);
}

static void boards_unlock(amp_split_boards_t *t)
{
    amp_spin_unlock(&t->lock);
}

/* The parent's members in this process, its collector, and at the root's
 * process the members and least rank of every process: one look at the
 * parent's map, by the board's first member. */
static amp_status_t board_count(amp_split_board_t *b, const split_t *s)
{
    const int *proc = amp_proc.world.rank_proc;
    int here = amp_proc.world.proc, nprocs = amp_proc.world.nprocs;
    if (!proc || nprocs <= 1) {
        b->nlocal = s->size;
        b->collector = 0;
        return AMP_OK;
    }
    int root_proc = proc[s->root_world];
    if (root_proc == here) {
        b->count = calloc((size_t)nprocs, sizeof(int));
        b->least = malloc((size_t)nprocs * sizeof(int));
        if (!b->count || !b->least)
            return AMP_ERR_NOMEM;
        for (int q = 0; q < nprocs; q++)
            b->least[q] = -1;
    }
    b->nlocal = 0;
    b->collector = -1;
    for (int r = 0; r < s->size; r++) {
        int q = proc[world_of(s, r)];
        if (b->count && b->count[q]++ == 0)
            b->least[q] = r;
        if (q == here && b->nlocal++ == 0)
            b->collector = r;
    }
    return AMP_OK;
}

static void board_free(amp_split_board_t *b)
{
    if (!b)
        return;
    free(b->count);
    free(b->least);
    free(b);
}

/* The board of this split here, made by its first member; NULL when out
 * of memory.  Under the lock. */
static amp_split_board_t *board_find(amp_split_boards_t *t, const split_t *s,
                                     int ctx)
{
    for (amp_split_board_t *b = t->head; b; b = b->next)
        if (b->pctx == s->pctx && b->root_world == s->root_world &&
            b->ctx == ctx)
            return b;
    amp_split_board_t *b = calloc(1, sizeof(*b));
    if (!b || board_count(b, s) != AMP_OK) {
        board_free(b);
        return NULL;
    }
    amp_split_board_t *sized =
        realloc(b, sizeof(*b) + (size_t)b->nlocal * sizeof(member_t));
    if (!sized) {
        board_free(b);
        return NULL;
    }
    b = sized;
    b->pctx = s->pctx;
    b->root_world = s->root_world;
    b->ctx = ctx;
    b->next = t->head;
    t->head = b;
    return b;
}

static void board_unlink(amp_split_boards_t *t, amp_split_board_t *b)
{
    boards_lock(t);
    amp_split_board_t **p = &t->head;
    while (*p != b)
        p = &(*p)->next;
    *p = b->next;
    boards_unlock(t);
}

/* Writes the caller on its board.  Returns the board, for the collector
 * once every member wrote, else NULL; *st says when it could not, and
 * *collector who the collector is. */
static amp_split_board_t *board_join(const split_t *s, int ctx,
                                     const member_t *mine, amp_status_t *st,
                                     int *collector)
{
    amp_split_boards_t *t = &amp_proc.split_boards;
    boards_lock(t);
    amp_split_board_t *b = board_find(t, s, ctx);
    if (!b) {
        boards_unlock(t);
        *st = AMP_ERR_NOMEM;
        return NULL;
    }
    b->m[b->arrived++] = *mine;
    int all = b->arrived == b->nlocal;
    *collector = b->collector;
    boards_unlock(t);
    *st = AMP_OK;
    if (s->me == *collector) {
        if (!all) /* the last one tells */
            recv_from(NULL, 0, s, AMP_P2P_ANY, TAG_HERE);
        board_unlink(t, b);
        return b;
    }
    if (all)
        send_to(NULL, 0, s, world_of(s, *collector), TAG_HERE);
    return NULL;
}

/* ---- the answer to one process ----
 * ints: nrec, ncol, nblob; then nrec records (colour index, place; -1, 0 for
 * MPI_UNDEFINED) in the order of that process's board; ncol colours (offset
 * in the blob, members); the blob of world ranks. */
typedef struct answer {
    int *buf;
    int nrec, ncol, nblob;
    int *rec, *col, *blob;
} answer_t;

/* What rank 0 knows once it sorted: all members by (colour, key, rank);
 * by sorted place, the start of its colour; by parent rank, its sorted
 * place; a stamp per colour start. */
typedef struct table {
    const member_t *sorted;
    const int *start, *pos;
    int *stamp, *index;
} table_t;

static int by_color_key_rank(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Members of the colour whose first sorted place is a. */
static int colour_size(const table_t *t, int a, int size)
{
    int b = a + 1;
    while (b < size && t->start[b] == a)
        b++;
    return b - a;
}

/* The answer for the members m[0..k) of one process (stamp: a value no
 * other answer used); AMP_ERR_NOMEM. */
static amp_status_t answer_make(const table_t *t, int size, const member_t *m,
                                int k, int stamp, answer_t *a)
{
    *a = (answer_t){.nrec = k};
    for (int j = 0; j < k; j++) {
        int i = t->pos[m[j].rank], c = t->start[i];
        if (t->sorted[i].color == MPI_UNDEFINED || t->stamp[c] == stamp)
            continue;
        t->stamp[c] = stamp;
        t->index[c] = a->ncol++;
        a->nblob += colour_size(t, c, size);
    }
    size_t ints = 3 + 2 * (size_t)k + 2 * (size_t)a->ncol + (size_t)a->nblob;
    if (!(a->buf = malloc(ints * sizeof(int))))
        return AMP_ERR_NOMEM;
    a->buf[0] = a->nrec;
    a->buf[1] = a->ncol;
    a->buf[2] = a->nblob;
    a->rec = a->buf + 3;
    a->col = a->rec + 2 * k;
    a->blob = a->col + 2 * a->ncol;
    int nblob = 0;
    for (int j = 0; j < k; j++) {
        int i = t->pos[m[j].rank], c = t->start[i];
        int undefined = t->sorted[i].color == MPI_UNDEFINED;
        a->rec[2 * j] = undefined ? -1 : t->index[c];
        a->rec[2 * j + 1] = i - c;
        if (undefined || t->stamp[c] == -stamp - 1)
            continue;
        t->stamp[c] = -stamp - 1; /* its list written */
        int g = colour_size(t, c, size), x = t->index[c];
        a->col[2 * x] = nblob;
        a->col[2 * x + 1] = g;
        for (int y = 0; y < g; y++)
            a->blob[nblob + y] = t->sorted[c + y].world;
        nblob += g;
    }
    return AMP_OK;
}

/* ---- a collector tells its members ---- */

/* One shared map per colour of answer a; holds: how many members take it.
 * NULL entries where out of memory. */
static amp_world_map_t **answer_maps(const answer_t *a)
{
    amp_world_map_t **maps = calloc((size_t)a->ncol + 1, sizeof(*maps));
    int *holds = calloc((size_t)a->ncol + 1, sizeof(int));
    if (!maps || !holds) {
        free(maps);
        free(holds);
        return NULL;
    }
    for (int j = 0; j < a->nrec; j++)
        if (a->rec[2 * j] >= 0)
            holds[a->rec[2 * j]]++;
    for (int x = 0; x < a->ncol; x++) {
        int g = a->col[2 * x + 1];
        int *w = holds[x] ? malloc((size_t)g * sizeof(int)) : NULL;
        if (!w)
            continue;
        memcpy(w, a->blob + a->col[2 * x], (size_t)g * sizeof(int));
        maps[x] = amp_world_map_share(&amp_proc.world_maps, w, g);
        if (maps[x] && holds[x] > 1)
            amp_world_map_hold(&amp_proc.world_maps, maps[x], holds[x] - 1);
    }
    free(holds);
    return maps;
}

/* Each member of board b its place from answer a (NULL: out of memory);
 * the collector's own in *mine. */
static void tell(const split_t *s, const amp_split_board_t *b,
                 const answer_t *a, placed_t *mine)
{
    amp_world_map_t **maps = a ? answer_maps(a) : NULL;
    for (int j = 0; j < b->nlocal; j++) {
        int x = maps ? a->rec[2 * j] : 0;
        if (b->m[j].color == MPI_UNDEFINED)
            continue;
        placed_t p = {maps ? maps[x] : NULL, -1, 0};
        if (p.map) {
            p.n = a->col[2 * x + 1];
            p.me = a->rec[2 * j + 1];
        }
        if (b->m[j].rank == s->me)
            *mine = p;
        else
            send_to(&p, sizeof(p), s, b->m[j].world, TAG_HERE);
    }
    free(maps);
}

/* ---- rank 0 ---- */

/* Every process's members, its own board's first, the others as their
 * collectors send them, into all (size of them); off[q]: process q's first
 * (off[here] = 0). */
static void gather_all(const split_t *s, const amp_split_board_t *b,
                       member_t *all, int *off)
{
    memcpy(all, b->m, (size_t)b->nlocal * sizeof(member_t));
    int nprocs = b->count ? amp_proc.world.nprocs : 1;
    int here = b->count ? amp_proc.world.proc : 0, next = b->nlocal;
    for (int q = 0; q < nprocs; q++) {
        if (q == here || !b->count[q]) {
            off[q] = q == here ? 0 : next;
            continue;
        }
        off[q] = next;
        recv_from(all + next, (size_t)b->count[q] * sizeof(member_t), s,
                  b->least[q], TAG_PROCS);
        next += b->count[q];
    }
}

/* The table of all, sorted; the arrays are the caller's to free (one
 * block: t->stamp). */
static amp_status_t table_make(const member_t *all, int size, member_t *sorted,
                               table_t *t)
{
    int *ints = malloc(4 * (size_t)size * sizeof(int));
    if (!ints)
        return AMP_ERR_NOMEM;
    t->stamp = ints;
    t->index = ints + size;
    int *start = ints + 2 * (size_t)size, *pos = ints + 3 * (size_t)size;
    memcpy(sorted, all, (size_t)size * sizeof(member_t));
    qsort(sorted, (size_t)size, sizeof(member_t), by_color_key_rank);
    for (int i = 0; i < size; i++) {
        start[i] =
            i > 0 && sorted[i].color == sorted[i - 1].color ? start[i - 1] : i;
        pos[sorted[i].rank] = i;
        t->stamp[i] = 0;
    }
    t->sorted = sorted;
    t->start = start;
    t->pos = pos;
    return AMP_OK;
}

/* Answers each other process's collector (a refusal, nrec -1, when t is
 * NULL) and returns this process's answer in *mine. */
static amp_status_t answer_all(const split_t *s, const amp_split_board_t *b,
                               const table_t *t, const member_t *all,
                               const int *off, answer_t *mine)
{
    int nprocs = b->count ? amp_proc.world.nprocs : 1;
    int here = b->count ? amp_proc.world.proc : 0;
    amp_status_t st = t ? AMP_OK : AMP_ERR_NOMEM;
    for (int q = 0; q < nprocs; q++) {
        int k = q == here ? b->nlocal : b->count[q];
        if (!k)
            continue;
        answer_t a = {0};
        if (st == AMP_OK) /* all and off are there with t */
            st = answer_make(t, s->size, all + off[q], k, q + 1, &a);
        if (q == here) {
            *mine = a;
            continue;
        }
        int refused[3] = {-1, 0, 0};
        const int *hdr = st == AMP_OK ? a.buf : refused;
        int dst = world_of(s, b->least[q]);
        send_to(hdr, 3 * sizeof(int), s, dst, TAG_PROCS);
        if (st == AMP_OK)
            send_to(a.buf + 3,
                    (size_t)(2 * a.nrec + 2 * a.ncol + a.nblob) * sizeof(int),
                    s, dst, TAG_PROCS);
        free(a.buf);
    }
    return st;
}

/* Rank 0, its process's collector: every member's (colour, key), sorted
 * once; each process answered; this process's answer in *mine. */
static amp_status_t root_answers(const split_t *s, const amp_split_board_t *b,
                                 answer_t *mine)
{
    int nprocs = b->count ? amp_proc.world.nprocs : 1;
    member_t *all = malloc((size_t)s->size * 2 * sizeof(member_t));
    int *off = malloc((size_t)nprocs * sizeof(int));
    table_t t = {0};
    amp_status_t st = all && off ? AMP_OK : AMP_ERR_NOMEM;
    if (st == AMP_OK) {
        gather_all(s, b, all, off);
        st = table_make(all, s->size, all + s->size, &t);
    } else if (b->count) { /* take the others' messages all the same */
        for (int q = 0; q < nprocs; q++)
            if (q != amp_proc.world.proc && b->count[q])
                recv_from(NULL, 0, s, b->least[q], TAG_PROCS);
    }
    st = answer_all(s, b, st == AMP_OK ? &t : NULL, all, off, mine);
    free(t.stamp);
    free(all);
    free(off);
    return st;
}

/* A collector in another process than rank 0's: its members to rank 0,
 * then rank 0's answer. */
static amp_status_t remote_answer(const split_t *s, const amp_split_board_t *b,
                                  answer_t *mine)
{
    send_to(b->m, (size_t)b->nlocal * sizeof(member_t), s, s->root_world,
            TAG_PROCS);
    int hdr[3];
    recv_from(hdr, sizeof(hdr), s, 0, TAG_PROCS);
    if (hdr[0] < 0)
        return AMP_ERR_NOMEM;
    size_t rest = 2 * (size_t)hdr[0] + 2 * (size_t)hdr[1] + (size_t)hdr[2];
    *mine = (answer_t){.buf = malloc((3 + rest) * sizeof(int)),
                       .nrec = hdr[0],
                       .ncol = hdr[1],
                       .nblob = hdr[2]};
    recv_from(mine->buf ? mine->buf + 3 : NULL,
              mine->buf ? rest * sizeof(int) : 0, s, 0, TAG_PROCS);
    if (!mine->buf)
        return AMP_ERR_NOMEM;
    mine->rec = mine->buf + 3;
    mine->col = mine->rec + 2 * mine->nrec;
    mine->blob = mine->col + 2 * mine->ncol;
    return AMP_OK;
}

/* The collector's part: the answer for its process, told to its
 * members. */
static void collect(const split_t *s, amp_split_board_t *b, placed_t *mine)
{
    answer_t a = {0};
    amp_status_t st =
        s->me == 0 ? root_answers(s, b, &a) : remote_answer(s, b, &a);
    tell(s, b, st == AMP_OK ? &a : NULL, mine);
    free(a.buf);
    board_free(b);
}

amp_status_t amp_comm_split_members(amp_comm_t *comm, int ctx, int color,
                                    int key, amp_world_map_t **map, int *n,
                                    int *me)
{
    split_t s = {comm->size,
                 comm->rank,
                 comm->ctx + 1,
                 comm->ctx,
                 comm->world,
                 amp_comm_world_rank(comm, comm->rank),
                 amp_comm_world_rank(comm, 0)};
    member_t mine = {color, key, s.me, s.my_world};
    placed_t p = {NULL, 0, 0};
    amp_status_t st;
    int collector;
    amp_split_board_t *b = board_join(&s, ctx, &mine, &st, &collector);
    if (st != AMP_OK)
        return st;
    if (b)
        collect(&s, b, &p);
    else if (color != MPI_UNDEFINED)
        recv_from(&p, sizeof(p), &s, collector, TAG_HERE);
    *map = p.map;
    *n = p.n;
    *me = p.me;
    return color != MPI_UNDEFINED && p.n < 0 ? AMP_ERR_NOMEM : AMP_OK;
}
