/*
 * Windows (MPI chapter 11): creation in every flavor, freeing, the queries
 * and names.  The operations are in win_ops.c, synchronization in
 * win_sync.c; the shared state itself is the rma module's (rma/rma.h).
 *
 * Creation is collective over the communicator: the window keeps a private
 * duplicate of it (fences are barriers on it, and its error handler is the
 * window's).  The first member of each process creates that process's
 * state of the window (rma/rma.h) and the members learn every process's
 * state address in one allgather; each member publishes its segment in the
 * state, and when the window spans processes a second allgather tells
 * every process the segments of the others (for the range checks at the
 * origin).  A closing allreduce makes it all visible before anyone uses the
 * window, and makes every member agree on the outcome.
 */
#include "mpi/comm/comm.h"
#include "mpi/memkinds.h"
#include "mpi/win/win.h"
#include "mpi/attr/attr.h"
#include "mpi/stage.h"
#include "rma/rma.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

amp_status_t amp_win_rank_init(amp_rank_t *rank)
{
    amp_table_init(&rank->wins, sizeof(amp_win_t), 1);
    return AMP_OK;
}

static MPI_Win handle_of(const amp_win_t *w)
{
    return AMPI_HANDLE(AMPI_HANDLE_WIN, w->obj.idx);
}

int amp_win_error(amp_rank_t *rank, amp_win_t *win, int errclass,
                  const char *call, const char *fmt, ...)
{
    char msg[AMP_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return amp_mpi_error_win(rank, amp_comm_lookup(rank, win->comm)->errh,
                             handle_of(win), errclass, call, msg);
}

/* Enters call with window h and a non-NULL pointer argument out (named
 * arg; out may be a dummy when the call has none). */
static int enter_win(MPI_Win h, const void *out, const char *arg,
                     const char *call, amp_rank_t **rank, amp_win_t **w)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_win(*rank, h, call, w);
    if (rc == MPI_SUCCESS && !out)
        rc = amp_win_error(*rank, *w, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)", arg);
    return rc;
}

/* ---- creation ---------------------------------------------------------- */

typedef struct create_args {
    int flavor;
    void *base; /* MPI_Win_create */
    MPI_Aint size;
    int disp_unit;
    MPI_Info info;
    MPI_Comm comm;
    const char *call;
} create_args_t;

/* Whether every member of c runs in a process of this node that shares
 * memory with this one. */
static int members_on_node(const amp_comm_t *c)
{
    const int *rank_proc = amp_proc.world.rank_proc;
    for (int r = 0; rank_proc && r < c->size; r++)
        if (amp_proc.world.node.of_proc[rank_proc[amp_comm_world_rank(c, r)]] <
            0)
            return 0;
    return 1;
}

static int check_create(amp_rank_t *rank, const create_args_t *a,
                        const void *out, amp_comm_t **comm)
{
    int rc = amp_check_comm(rank, a->comm, a->call, comm);
    if (rc == MPI_SUCCESS && (*comm)->is_inter)
        rc = amp_mpi_error(rank, *comm, MPI_ERR_COMM, a->call,
                           "windows need an intra-communicator (argument "
                           "comm)");
    if (rc == MPI_SUCCESS)
        rc = amp_check_info(rank, *comm, a->info, a->call);
    /* Only the processes of one node share memory. */
    if (rc == MPI_SUCCESS && a->flavor == MPI_WIN_FLAVOR_SHARED &&
        !members_on_node(*comm))
        rc = amp_mpi_error(rank, *comm, MPI_ERR_RMA_SHARED, a->call,
                           "the communicator's ranks run in processes that "
                           "share no memory (other nodes%s); split it with "
                           "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) first "
                           "(argument comm)",
                           amp_proc.world.node_shm ? ""
                                                   : ", or AMPI_NODE_SHM=0");
    if (rc == MPI_SUCCESS && a->size < 0)
        rc = amp_mpi_error(rank, *comm, MPI_ERR_SIZE, a->call,
                           "negative size %td (argument size)", a->size);
    if (rc == MPI_SUCCESS && a->disp_unit <= 0)
        rc = amp_mpi_error(rank, *comm, MPI_ERR_DISP, a->call,
                           "displacement unit %d is not positive (argument "
                           "disp_unit)",
                           a->disp_unit);
    if (rc == MPI_SUCCESS && a->flavor == MPI_WIN_FLAVOR_CREATE && a->size &&
        !a->base)
        rc = amp_mpi_error(rank, *comm, MPI_ERR_ARG, a->call,
                           "NULL base for a window of %td bytes (argument "
                           "base)",
                           a->size);
    if (rc == MPI_SUCCESS && !out)
        rc = amp_mpi_error(rank, *comm, MPI_ERR_ARG, a->call,
                           "NULL pointer (argument win)");
    return rc;
}

static void win_cleanup(amp_rank_t *rank, amp_win_t *w)
{
    free(w->locks);
    free(w->acc);
    free(w->access);
    free(w->own_mem);
    amp_info_destroy(w->hints);
    if (w->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&w->comm);
    amp_table_free(&rank->wins, w);
}

/* This member's memory (MPI_Win_allocate: in memory the node's processes
 * share when the window has members in others, win_node.c) and segment. */
static amp_status_t expose(const amp_comm_t *c, amp_win_t *w,
                           const create_args_t *a)
{
    w->base = a->base;
    if (a->flavor == MPI_WIN_FLAVOR_ALLOCATE && a->size &&
        amp_win_node_others(c) > 0) {
        amp_status_t st = amp_win_node_expose(c, w, (size_t)a->size);
        if (st != AMP_OK)
            return st;
    } else if (a->flavor == MPI_WIN_FLAVOR_ALLOCATE && a->size) {
        w->own_mem = aligned_alloc(64, ((size_t)a->size + 63) / 64 * 64);
        if (!w->own_mem)
            return AMP_ERR_NOMEM;
        w->base = w->own_mem;
    }
    if (a->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        w->base = MPI_BOTTOM;
    w->bytes = a->size;
    w->disp_unit = a->disp_unit;
    amp_rma_seg_t *seg = amp_rma_seg(w->shared, w->rank);
    seg->base = w->base;
    seg->size = (size_t)a->size;
    seg->disp_unit = a->disp_unit;
    return AMP_OK;
}

/* Member r's process (0 in a job of one process). */
static int proc_of(const amp_comm_t *c, int r)
{
    const int *rank_proc = amp_proc.world.rank_proc;
    return rank_proc ? rank_proc[amp_comm_world_rank(c, r)] : 0;
}

/* Each process's state of the window, made by its first member; every
 * member learns them all (states[r]: the state of member r's process, 0
 * where it could not be made).  NULL when out of memory here. */
static uint64_t *process_states(const amp_comm_t *c, amp_win_t *w)
{
    int me = proc_of(c, w->rank), first = 0, nlocal = 0;
    while (proc_of(c, first) != me)
        first++;
    for (int r = 0; r < w->size; r++)
        nlocal += proc_of(c, r) == me;
    uint64_t *states = malloc((size_t)w->size * sizeof(*states));
    uint64_t mine = 0;
    if (w->rank == first)
        mine = (uint64_t)(uintptr_t)amp_rma_win_new(w->size, nlocal);
    int rc = PMPI_Allgather(&mine, 1, MPI_UINT64_T, states ? states : &mine,
                            states ? 1 : 0, MPI_UINT64_T, w->comm);
    if (!states || rc != MPI_SUCCESS) {
        free(states);
        return NULL;
    }
    /* A member's process state is the one of its process's first member. */
    for (int r = 0; r < w->size; r++)
        for (int q = 0; q <= r; q++)
            if (proc_of(c, q) == proc_of(c, r)) {
                states[r] = states[q];
                break;
            }
    w->shared = (amp_rma_win_t *)(uintptr_t)states[w->rank];
    return states;
}

/* What a member tells the other processes about its memory. */
typedef struct seg_wire {
    uint64_t base, size;
    int64_t disp_unit;
    uint64_t serial; /* its node object's + 1 (win_node.c), 0: none */
} seg_wire_t;

/* The segments and places of the members of other processes, into this
 * process's state (written by its first member). */
static amp_status_t exchange_segments(const amp_comm_t *c, amp_win_t *w,
                                      const uint64_t *states)
{
    seg_wire_t out = {0, 0, 0, 0};
    if (w->shared) {
        const amp_rma_seg_t *mine = amp_rma_seg(w->shared, w->rank);
        out = (seg_wire_t){(uint64_t)(uintptr_t)mine->base, mine->size,
                           mine->disp_unit, w->own_shm};
    }
    seg_wire_t *all = malloc((size_t)w->size * sizeof(*all));
    int rc = PMPI_Allgather(&out, all ? (int)sizeof(out) : 0, MPI_BYTE,
                            all ? all : &out, all ? (int)sizeof(out) : 0,
                            MPI_BYTE, w->comm);
    if (!all || rc != MPI_SUCCESS) {
        free(all);
        return all ? AMP_ERR_INTERN : AMP_ERR_NOMEM;
    }
    int me = proc_of(c, w->rank), first = 0;
    while (proc_of(c, first) != me)
        first++;
    amp_status_t st = AMP_OK;
    for (int r = 0; states && w->shared && w->rank == first && r < w->size;
         r++) {
        int wr = amp_comm_world_rank(c, r);
        if (proc_of(c, r) == me)
            continue;
        amp_rma_seg_t *seg = amp_rma_seg(w->shared, r);
        seg->base = (char *)(uintptr_t)all[r].base;
        seg->size = (size_t)all[r].size;
        seg->disp_unit = (int)all[r].disp_unit;
        amp_rma_set_peer(w->shared, r, states[r], proc_of(c, r),
                         amp_proc.world.rank_pe[wr]);
        if (st == AMP_OK) /* of this node: win_node.c */
            st = amp_win_node_peer(c, w, r, (unsigned)all[r].serial);
    }
    free(all);
    return st;
}

/* The collective part: the states, segments, the shared block; every
 * member learns the same outcome. */
static amp_status_t create_shared(amp_rank_t *rank, amp_win_t *w,
                                  const create_args_t *a)
{
    const amp_comm_t *c = amp_comm_lookup(rank, w->comm);
    int spans = !amp_comm_members_local(c->size, c->world);
    uint64_t *states = process_states(c, w);
    int st = states && w->shared ? AMP_OK : AMP_ERR_NOMEM;
    for (int r = 0; states && r < w->size; r++)
        if (!states[r])
            st = AMP_ERR_NOMEM;
    if (st == AMP_OK)
        st = expose(c, w, a);
    if (spans) { /* every member takes part, whatever happened before */
        amp_status_t x = exchange_segments(c, w, states);
        if (st == AMP_OK)
            st = x;
    }
    free(states);
    if (a->flavor == MPI_WIN_FLAVOR_SHARED && spans) { /* win_node.c */
        st = amp_win_node_shared(c, w, st);
    } else if (a->flavor == MPI_WIN_FLAVOR_SHARED) {
        if (PMPI_Barrier(w->comm) != MPI_SUCCESS)
            return AMP_ERR_INTERN;
        if (w->rank == 0 && st == AMP_OK)
            st = amp_rma_shared_alloc(w->shared);
        if (PMPI_Bcast(&st, 1, MPI_INT, 0, w->comm) != MPI_SUCCESS)
            return AMP_ERR_INTERN;
    }
    int all = st;
    int rc = PMPI_Allreduce(&st, &all, 1, MPI_INT, MPI_MIN, w->comm);
    /* Every process that was to map this member's node memory has. */
    amp_win_node_unlink(w);
    if (rc != MPI_SUCCESS)
        return AMP_ERR_INTERN;
    if (all == AMP_OK && a->flavor == MPI_WIN_FLAVOR_SHARED)
        w->base = amp_rma_seg(w->shared, w->rank)->base;
    return (amp_status_t)all;
}

static int win_create(const create_args_t *a, MPI_Win *out)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, a->call);
    if (rc == MPI_SUCCESS)
        rc = check_create(rank, a, out, &comm);
    if (rc == MPI_SUCCESS && amp_proc.gpu && a->size > 0 &&
        a->flavor == MPI_WIN_FLAVOR_CREATE) /* gpu.c */
        rc = amp_gpu_refuse(rank, comm, a->base, a->call, "base",
                            "window memory must be host memory");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_win_t *w = amp_table_alloc(&rank->wins);
    if (!w)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, a->call,
                             "out of memory for the window object");
    w->rank = comm->rank;
    w->size = comm->size;
    w->flavor = a->flavor;
    w->comm = MPI_COMM_NULL;
    w->locks = calloc((size_t)w->size, sizeof(int));
    w->acc = calloc((size_t)w->size, 1);
    w->access = calloc((size_t)w->size, sizeof(int));
    amp_status_t st = AMP_ERR_NOMEM;
    if (w->locks && w->acc && w->access &&
        PMPI_Comm_dup(a->comm, &w->comm) == MPI_SUCCESS) {
        /* Re-read: the duplicate may have grown the table. */
        amp_comm_t *dup = amp_comm_lookup(rank, w->comm);
        dup->errh = MPI_ERRORS_RETURN;
        snprintf(dup->name, sizeof(dup->name), "window communicator");
        w->origin = (amp_rma_origin_t){0};
        st = create_shared(rank, w, a);
        dup->errh = MPI_ERRORS_ARE_FATAL; /* the default of windows */
        if (st == AMP_OK)
            st = amp_win_info_apply(&w->hints, amp_info_lookup(rank, a->info));
    }
    if (st != AMP_OK) {
        if (w->shared)
            amp_rma_win_release(w->shared);
        win_cleanup(rank, w);
        comm = amp_comm_lookup(rank, a->comm);
        return amp_mpi_error(
            rank, comm, st == AMP_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INTERN,
            a->call, "cannot create the window: %s", amp_status_str(st));
    }
    *out = handle_of(w);
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                    MPI_Comm comm, MPI_Win *win)
{
    create_args_t a = {MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                       "MPI_Win_create"};
    return win_create(&a, win);
}
AMP_WEAK_ALIAS(Win_create)

/* MPI_Win_allocate(_shared): the window and the base address of this
 * member's memory in *(void **)baseptr. */
static int win_allocate(create_args_t *a, void *baseptr, MPI_Win *win)
{
    if (!baseptr) {
        amp_rank_t *rank;
        int rc = amp_mpi_enter(&rank, a->call);
        if (rc != MPI_SUCCESS)
            return rc;
        return amp_mpi_error(rank, amp_comm_lookup(rank, a->comm), MPI_ERR_ARG,
                             a->call, "NULL pointer (argument baseptr)");
    }
    int rc = win_create(a, win);
    if (rc == MPI_SUCCESS) {
        amp_win_t *w = amp_win_lookup(amp_rank_self(), *win);
        *(void **)baseptr = w->base;
    }
    return rc;
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
                      MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    create_args_t a = {
        MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
        "MPI_Win_allocate"};
    return win_allocate(&a, baseptr, win);
}
AMP_WEAK_ALIAS(Win_allocate)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                             MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    create_args_t a = {
        MPI_WIN_FLAVOR_SHARED,    NULL, size, disp_unit, info, comm,
        "MPI_Win_allocate_shared"};
    return win_allocate(&a, baseptr, win);
}
AMP_WEAK_ALIAS(Win_allocate_shared)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    create_args_t a = {MPI_WIN_FLAVOR_DYNAMIC,  NULL, 0, 1, info, comm,
                       "MPI_Win_create_dynamic"};
    return win_create(&a, win);
}
AMP_WEAK_ALIAS(Win_create_dynamic)

int PMPI_Win_free(MPI_Win *win)
{
    const char *call = "MPI_Win_free";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && !win)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument win)");
    if (rc == MPI_SUCCESS)
        rc = amp_check_win(rank, *win, call, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    if (w->lock_all || w->nlocked || w->naccess || w->exposing)
        return amp_win_error(rank, w, MPI_ERR_RMA_SYNC, call,
                             "the window is still in an epoch (%s)",
                             w->lock_all || w->nlocked
                                 ? "locked; call MPI_Win_unlock first"
                                 : "of post-start-complete-wait");
    rc = amp_attr_win_delete_all(rank, w, call);
    if (rc == MPI_SUCCESS && amp_rma_origin_wait(&w->origin) != AMP_OK)
        rc = amp_win_error(rank, w, MPI_ERR_RMA_RANGE, call,
                           "an operation still outstanding failed at its "
                           "target in another process");
    if (rc != MPI_SUCCESS)
        return rc;
    /* Nobody may touch the memory once anybody frees it. */
    rc = PMPI_Barrier(w->comm);
    if (rc != MPI_SUCCESS)
        return amp_win_error(rank, w, MPI_ERR_INTERN, call,
                             "the closing barrier failed");
    amp_rma_win_release(w->shared);
    win_cleanup(rank, w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_free)

/* ---- shared and dynamic windows ---------------------------------------- */

/* Member r's segment as this rank may load and store it (MPI-4.1: of a
 * window of any flavor but dynamic): every member's memory in this
 * process, and a member's in another process of the node when it is node
 * memory mapped here (MPI_Win_allocate_shared's, and MPI_Win_allocate's
 * over several processes: win_node.c); otherwise size 0 and a NULL base.
 * Returns whether it has bytes. */
static int shared_seg(const amp_win_t *w, int r, MPI_Aint *size, void *baseptr)
{
    const amp_rma_seg_t *seg = amp_rma_seg(w->shared, r);
    char *base = seg->base;
    if (w->flavor != MPI_WIN_FLAVOR_SHARED && amp_rma_is_remote(w->shared, r))
        base = seg->size ? amp_rma_direct(w->shared, r, seg->base) : NULL;
    *size = base ? (MPI_Aint)seg->size : 0;
    *(void **)baseptr = base;
    return *size > 0;
}

int PMPI_Win_shared_query(MPI_Win win, int r, MPI_Aint *size, int *disp_unit,
                          void *baseptr)
{
    const char *call = "MPI_Win_shared_query";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter_win(win, size, "size", call, &rank, &w);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!disp_unit || !baseptr)
        return amp_win_error(rank, w, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             disp_unit ? "baseptr" : "disp_unit");
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return amp_win_error(rank, w, MPI_ERR_RMA_FLAVOR, call,
                             "the window was made by MPI_Win_create_dynamic, "
                             "which has no segment to query");
    if (r != MPI_PROC_NULL && (r < 0 || r >= w->size))
        return amp_win_error(rank, w, MPI_ERR_RANK, call,
                             "rank %d is not in the window's group of %d "
                             "(argument rank)",
                             r, w->size);
    if (r == MPI_PROC_NULL) { /* the first member with memory here */
        r = 0;
        while (r < w->size - 1 && !shared_seg(w, r, size, baseptr))
            r++;
    }
    shared_seg(w, r, size, baseptr);
    *disp_unit = amp_rma_seg(w->shared, r)->disp_unit;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_shared_query)

static int check_dynamic(amp_rank_t *rank, amp_win_t *w, const char *call)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return MPI_SUCCESS;
    return amp_win_error(rank, w, MPI_ERR_RMA_FLAVOR, call,
                         "the window was not made by MPI_Win_create_dynamic");
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    const char *call = "MPI_Win_attach";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter_win(win, &rank, "", call, &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = check_dynamic(rank, w, call);
    if (rc == MPI_SUCCESS && size < 0)
        rc = amp_win_error(rank, w, MPI_ERR_SIZE, call,
                           "negative size %td (argument size)", size);
    if (rc == MPI_SUCCESS && size > 0 && !base)
        rc = amp_win_error(rank, w, MPI_ERR_ARG, call,
                           "NULL base for %td bytes (argument base)", size);
    if (rc == MPI_SUCCESS && size > 0 && amp_gpu_is_device_buf(base))
        rc = amp_win_error(rank, w, MPI_ERR_BUFFER, call,
                           "a CUDA device buffer (argument base) is not "
                           "supported here: window memory must be host "
                           "memory");
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_rma_attach(w->shared, w->rank, base, (size_t)size) != AMP_OK)
        return amp_win_error(rank, w, MPI_ERR_NO_MEM, call,
                             "out of memory for the region");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    const char *call = "MPI_Win_detach";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter_win(win, &rank, "", call, &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = check_dynamic(rank, w, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (amp_rma_detach(w->shared, w->rank, base) != AMP_OK)
        return amp_win_error(rank, w, MPI_ERR_RMA_ATTACH, call,
                             "no region is attached at %p (argument base)",
                             base);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_detach)

/* ---- names, group, info ------------------------------------------------ */

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc =
        enter_win(win, win_name, "win_name", "MPI_Win_set_name", &rank, &w);
    if (rc == MPI_SUCCESS)
        snprintf(w->name, sizeof(w->name), "%s", win_name);
    return rc;
}
AMP_WEAK_ALIAS(Win_set_name)

/* MPI_WIN_NULL's name is "MPI_WIN_NULL" (MPI-4.1). */
static int null_win_name(char *win_name, int *resultlen)
{
    amp_rank_t *rank;
    const char *call = "MPI_Win_get_name";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS && (!win_name || !resultlen))
        rc = amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                           "NULL pointer (argument %s)",
                           win_name ? "resultlen" : "win_name");
    if (rc == MPI_SUCCESS)
        *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
    return rc;
}

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    amp_rank_t *rank;
    amp_win_t *w;
    if (win == MPI_WIN_NULL)
        return null_win_name(win_name, resultlen);
    int rc =
        enter_win(win, win_name, "win_name", "MPI_Win_get_name", &rank, &w);
    if (rc == MPI_SUCCESS && !resultlen)
        rc = amp_win_error(rank, w, MPI_ERR_ARG, "MPI_Win_get_name",
                           "NULL pointer (argument resultlen)");
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_get_name)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter_win(win, group, "group", "MPI_Win_get_group", &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_group(w->comm, group);
    return rc;
}
AMP_WEAK_ALIAS(Win_get_group)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    const char *call = "MPI_Win_set_info";
    amp_rank_t *rank;
    amp_win_t *w;
    int rc = enter_win(win, &rank, "", call, &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = amp_check_info(rank, amp_comm_lookup(rank, w->comm), info, call);
    if (rc != MPI_SUCCESS || info == MPI_INFO_NULL)
        return rc;
    if (amp_win_info_apply(&w->hints, amp_info_lookup(rank, info)) != AMP_OK)
        return amp_win_error(rank, w, MPI_ERR_NO_MEM, call,
                             "out of memory for the hints");
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    amp_rank_t *rank;
    amp_win_t *w;
    int rc =
        enter_win(win, info_used, "info_used", "MPI_Win_get_info", &rank, &w);
    if (rc == MPI_SUCCESS)
        rc = amp_win_info_get(rank, w->hints, info_used, "MPI_Win_get_info");
    if (rc == MPI_SUCCESS) /* MPI-4.1: those of its communicator */
        rc = amp_info_put(rank, *info_used, "mpi_memory_alloc_kinds",
                          amp_memkinds_of(amp_comm_lookup(rank, w->comm)));
    return rc;
}
AMP_WEAK_ALIAS(Win_get_info)
