/*
 * Sessions (MPI-4.0): MPI_Session_init and _finalize, the process sets,
 * groups from them, communicators from groups, and the error handlers of
 * sessions.
 *
 * A rank may use MPI through a session without MPI_Init: while it holds a
 * session, every call is allowed (amp_mpi_enter).  The process sets are the
 * two the standard names: "mpi://WORLD" (every rank of the job) and
 * "mpi://SELF" (the caller).  MPI_Comm_create_from_group is
 * MPI_Comm_create_group over the ranks of the job, with a tag that comes
 * from the string tag (so calls with different string tags run at once
 * without mixing their messages, except in the unlikely case that two tags
 * hash alike); MPI_Intercomm_create_from_groups makes the local group's
 * communicator that way, then joins the two leaders over the ranks of the
 * job.
 */
#include "mpi/comm/comm.h"
#include "mpi/attr/attr.h"
#include "mpi/init/session.h"
#include "mpi/request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};
enum { NPSETS = 2 };

static const char *const level_names[] = {
    "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
    "MPI_THREAD_MULTIPLE"};

amp_status_t amp_session_rank_init(amp_rank_t *rank)
{
    amp_table_init(&rank->sessions, sizeof(amp_session_t), 1);
    return AMP_OK;
}

/* Looks up session h; an invalid one is an error of class MPI_ERR_SESSION
 * of no object (errors.c: MPI_COMM_SELF's or MPI_COMM_WORLD's handler). */
static int lookup(amp_rank_t *rank, MPI_Session h, const char *call,
                  amp_session_t **s)
{
    *s = AMP_HANDLE_KIND(h) == AMPI_HANDLE_SESSION
             ? amp_table_lookup(&rank->sessions, AMP_HANDLE_INDEX(h))
             : NULL;
    if (*s)
        return MPI_SUCCESS;
    return amp_mpi_error(rank, NULL, MPI_ERR_SESSION, call,
                         "invalid session %#x (argument session)", (unsigned)h);
}

/* An error of a call on session s, through its handler. */
static int session_error(amp_rank_t *rank, amp_session_t *s, int errclass,
                         const char *call, const char *detail)
{
    return amp_errh_apply(rank, s->errh,
                          AMPI_HANDLE(AMPI_HANDLE_SESSION, s->obj.idx),
                          errclass, 0, call, detail);
}

/* Enters call on session h, whose output out (argument outarg; NULL: none)
 * must not be NULL. */
static int session_enter(MPI_Session h, const void *out, const char *outarg,
                         const char *call, amp_rank_t **rank, amp_session_t **s)
{
    char why[80];
    amp_mpi_enter_any(rank, call);
    int rc = lookup(*rank, h, call, s);
    if (rc != MPI_SUCCESS || !outarg || out)
        return rc;
    snprintf(why, sizeof(why), "NULL pointer (argument %s)", outarg);
    return session_error(*rank, *s, MPI_ERR_ARG, call, why);
}

/* The thread level the info hint "thread_level" asks for; without one
 * (or an unknown one), MPI_THREAD_MULTIPLE, which every rank has at no
 * cost until it has threads (mpi/threads/threads.c), as MPICH gives by default.
 */
static int asked_level(amp_rank_t *rank, MPI_Info info)
{
    char value[MPI_MAX_INFO_VAL];
    int flag = 0, len = sizeof(value);
    if (info == MPI_INFO_NULL || !amp_info_lookup(rank, info))
        return MPI_THREAD_MULTIPLE;
    PMPI_Info_get_string(info, "thread_level", &len, value, &flag);
    for (int l = 0; flag && l < 4; l++)
        if (strcasecmp(value, level_names[l]) == 0)
            return l;
    return MPI_THREAD_MULTIPLE;
}

/* "mpi_memory_alloc_kinds" of info (or the default), as supported. */
static void asked_memkinds(amp_rank_t *rank, MPI_Info info,
                           char out[AMP_MEMKINDS_LEN])
{
    char value[MPI_MAX_INFO_VAL + 1];
    int len = MPI_MAX_INFO_VAL, flag = 0;
    (void)rank;
    if (info != MPI_INFO_NULL)
        PMPI_Info_get_string(info, "mpi_memory_alloc_kinds", &len, value,
                             &flag);
    amp_memkinds_supported(flag ? value : NULL, out, AMP_MEMKINDS_LEN);
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
                      MPI_Session *session)
{
    const char *call = "MPI_Session_init";
    amp_rank_t *rank;
    amp_mpi_enter_any(&rank, call);
    /* Its errors go to errhandler, when that is one. */
    int rc = amp_errh_check(rank, errhandler, AMP_ERRH_SESSION, call);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL &&
        !amp_info_lookup(rank, info))
        rc = amp_errh_apply(rank, errhandler, MPI_SESSION_NULL, MPI_ERR_INFO, 0,
                            call, "invalid info object (argument info)");
    if (rc == MPI_SUCCESS && !session)
        rc = amp_errh_apply(rank, errhandler, MPI_SESSION_NULL, MPI_ERR_ARG, 0,
                            call, "NULL pointer (argument session)");
    if (rc != MPI_SUCCESS)
        return rc;
    amp_session_t *s = amp_table_alloc(&rank->sessions);
    if (!s)
        return amp_errh_apply(rank, errhandler, MPI_SESSION_NULL,
                              MPI_ERR_NO_MEM, 0, call, "out of memory");
    s->errh = errhandler;
    s->thread_level = asked_level(rank, info);
    asked_memkinds(rank, info, s->memkinds);
    rank->nsessions++;
    *session = AMPI_HANDLE(AMPI_HANDLE_SESSION, s->obj.idx);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_init)

int PMPI_Session_finalize(MPI_Session *session)
{
    const char *call = "MPI_Session_finalize";
    amp_rank_t *rank;
    amp_session_t *s;
    amp_mpi_enter_any(&rank, call);
    if (!session)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument session)");
    int rc = lookup(rank, *session, call, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    rank = amp_bsend_drain(rank, &s->bsend, call); /* its buffer detached */
    amp_table_free(&rank->sessions, s);
    rank->nsessions--;
    *session = MPI_SESSION_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_finalize)

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info,
                               int *npset_names)
{
    const char *call = "MPI_Session_get_num_psets";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc =
        session_enter(session, npset_names, "npset_names", call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    (void)info; /* no hints change the answer */
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_get_num_psets)

/* *pset_len 0 asks for the length only (with the NUL); otherwise at most
 * *pset_len - 1 characters and a NUL are copied.  *pset_len is the length
 * of the whole name with its NUL afterwards. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n,
                              int *pset_len, char *pset_name)
{
    const char *call = "MPI_Session_get_nth_pset";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = session_enter(session, NULL, NULL, call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    (void)info;
    if (!pset_len || (*pset_len > 0 && !pset_name))
        return session_error(rank, s, MPI_ERR_ARG, call,
                             pset_len ? "NULL pointer (argument pset_name)"
                                      : "NULL pointer (argument pset_len)");
    if (n < 0 || n >= NPSETS) {
        char why[96];
        snprintf(why, sizeof(why),
                 "no process set %d: there are %d (argument n)", n, NPSETS);
        return session_error(rank, s, MPI_ERR_ARG, call, why);
    }
    int whole = (int)strlen(psets[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]);
    *pset_len = whole;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_get_nth_pset)

/* The world ranks of process set name (NULL: no such set); *n of them. */
static int *pset_members(amp_rank_t *rank, const char *name, int *n)
{
    int world = strcasecmp(name, psets[0]) == 0;
    if (!world && strcasecmp(name, psets[1]) != 0)
        return NULL;
    *n = world ? amp_proc.nranks : 1;
    int *m = malloc((size_t)*n * sizeof(int));
    for (int i = 0; m && i < *n; i++)
        m[i] = world ? i : rank->world_rank;
    return m;
}

/* Checks pset_name (a known set) and out for call on session. */
static int pset_enter(MPI_Session session, const char *pset_name,
                      const void *out, const char *outarg, const char *call,
                      amp_rank_t **rank, amp_session_t **s)
{
    int rc = session_enter(session, out, outarg, call, rank, s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!pset_name)
        return session_error(*rank, *s, MPI_ERR_ARG, call,
                             "NULL pointer (argument pset_name)");
    if (strcasecmp(pset_name, psets[0]) != 0 &&
        strcasecmp(pset_name, psets[1]) != 0) {
        char why[MPI_MAX_PSET_NAME_LEN + 96];
        snprintf(why, sizeof(why),
                 "no process set named \"%.*s\" (argument pset_name; there "
                 "are mpi://WORLD and mpi://SELF)",
                 MPI_MAX_PSET_NAME_LEN, pset_name);
        return session_error(*rank, *s, MPI_ERR_ARG, call, why);
    }
    return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name,
                               MPI_Info *info)
{
    const char *call = "MPI_Session_get_pset_info";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = pset_enter(session, pset_name, info, "info", call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = 0;
    free(pset_members(rank, pset_name, &n));
    char size[32];
    snprintf(size, sizeof(size), "%d", n);
    rc = PMPI_Info_create(info);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info, "mpi_size", size);
    return rc;
}
AMP_WEAK_ALIAS(Session_get_pset_info)

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    const char *call = "MPI_Session_get_info";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = session_enter(session, info_used, "info_used", call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Info_create(info_used);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info_used, "thread_level",
                           level_names[s->thread_level]);
    if (rc == MPI_SUCCESS)
        rc = amp_info_put(rank, *info_used, "mpi_memory_alloc_kinds",
                          s->memkinds);
    return rc;
}
AMP_WEAK_ALIAS(Session_get_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    const char *call = "MPI_Group_from_session_pset";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc =
        pset_enter(session, pset_name, newgroup, "newgroup", call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = 0;
    int *members = pset_members(rank, pset_name, &n);
    if (!members || amp_group_new(rank, members, n, newgroup) != AMP_OK)
        return session_error(rank, s, MPI_ERR_NO_MEM, call, "out of memory");
    amp_group_lookup(rank, *newgroup)->session_bsend = &s->bsend;
    amp_group_lookup(rank, *newgroup)->session_memkinds = s->memkinds;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Group_from_session_pset)

/* The MPI_Comm_create_group tag standing for stringtag (FNV-1a, folded
 * into 0..MPI_TAG_UB_VALUE); salt tells the calls of one string apart. */
static int tag_of(const char *stringtag, unsigned salt)
{
    unsigned h = 2166136261u ^ salt;
    for (const char *c = stringtag; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return (int)(h % ((unsigned)MPI_TAG_UB_VALUE + 1u));
}

/* The checks of the arguments the two constructors share. */
static int from_group_checks(amp_rank_t *rank, MPI_Group group,
                             const char *stringtag, MPI_Info info,
                             MPI_Errhandler errhandler, const void *out,
                             const char *call)
{
    amp_group_t *g = amp_group_lookup(rank, group);
    if (!g)
        return amp_mpi_error(rank, NULL, MPI_ERR_GROUP, call,
                             "invalid group %#x", (unsigned)group);
    if (amp_group_rank_of(g, rank->world_rank) == MPI_UNDEFINED)
        return amp_mpi_error(rank, NULL, MPI_ERR_GROUP, call,
                             "the calling rank is not in the group");
    if (!stringtag || !out)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "NULL pointer (argument %s)",
                             out ? "stringtag" : "newcomm");
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "string tag of %zu characters; at most %d "
                             "(argument stringtag)",
                             strlen(stringtag), MPI_MAX_STRINGTAG_LEN - 1);
    int rc = amp_check_info(rank, NULL, info, call);
    if (rc == MPI_SUCCESS && errhandler != MPI_ERRHANDLER_NULL)
        rc = amp_errh_check(rank, errhandler, AMP_ERRH_COMM, call);
    return rc;
}

/* Communicator comm_h, made from group, sends buffered messages through
 * the buffer of the group's session when it has none of its own. */
static void inherit_buffer(amp_rank_t *rank, MPI_Group group, MPI_Comm comm_h)
{
    amp_comm_t *comm = amp_comm_lookup(rank, comm_h);
    comm->session_bsend = amp_group_lookup(rank, group)->session_bsend;
    comm->session_memkinds = amp_group_lookup(rank, group)->session_memkinds;
}

/* The new communicator gets errhandler (MPI_ERRHANDLER_NULL: the default,
 * MPI_ERRORS_ARE_FATAL) and the hints of info. */
static int finish_new(MPI_Comm comm, MPI_Info info, MPI_Errhandler errhandler)
{
    int rc = PMPI_Comm_set_errhandler(comm, errhandler == MPI_ERRHANDLER_NULL
                                                ? MPI_ERRORS_ARE_FATAL
                                                : errhandler);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        rc = PMPI_Comm_set_info(comm, info);
    return rc;
}

/* MPI_Comm_create_group over the job's ranks, errors named for call. */
static int create_from(amp_rank_t *rank, MPI_Group group, int tag,
                       MPI_Comm *newcomm, const char *call)
{
    amp_call_ctx_t *ctx = amp_call_ctx();
    amp_call_ctx_t saved = *ctx;
    ctx->alias_of = "MPI_Comm_create_group";
    ctx->alias = call;
    rank->call = call;
    int rc = PMPI_Comm_create_group(MPI_COMM_WORLD, group, tag, newcomm);
    *amp_call_ctx() = saved;
    return rc;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag,
                                MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm *newcomm)
{
    const char *call = "MPI_Comm_create_from_group";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = from_group_checks(rank, group, stringtag, info, errhandler,
                               newcomm, call);
    if (rc == MPI_SUCCESS)
        rc = create_from(rank, group, tag_of(stringtag, 0), newcomm, call);
    if (rc == MPI_SUCCESS) {
        inherit_buffer(amp_rank_self(), group, *newcomm);
        rc = finish_new(*newcomm, info, errhandler);
    }
    return rc;
}
AMP_WEAK_ALIAS(Comm_create_from_group)

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler,
                                      MPI_Comm *newintercomm)
{
    const char *call = "MPI_Intercomm_create_from_groups";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = from_group_checks(rank, local_group, stringtag, info, errhandler,
                               newintercomm, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_group_t *lg = amp_group_lookup(rank, local_group);
    amp_group_t *rg = amp_group_lookup(rank, remote_group);
    if (!rg)
        return amp_mpi_error(rank, NULL, MPI_ERR_GROUP, call,
                             "invalid group %#x (argument remote_group)",
                             (unsigned)remote_group);
    if (local_leader < 0 || local_leader >= lg->size || remote_leader < 0 ||
        remote_leader >= rg->size)
        return amp_mpi_error(
            rank, NULL, MPI_ERR_RANK, call,
            "leader %d is not a rank of its group (argument "
            "%s_leader)",
            local_leader < 0 || local_leader >= lg->size ? local_leader
                                                         : remote_leader,
            local_leader < 0 || local_leader >= lg->size ? "local" : "remote");
    int remote_world = rg->world[remote_leader];
    MPI_Comm local;
    rc = create_from(rank, local_group, tag_of(stringtag, 1), &local, call);
    if (rc != MPI_SUCCESS)
        return rc;
    amp_call_ctx_t *ctx = amp_call_ctx();
    amp_call_ctx_t saved = *ctx;
    ctx->alias_of = "MPI_Intercomm_create";
    ctx->alias = call;
    rc =
        PMPI_Intercomm_create(local, local_leader, MPI_COMM_WORLD, remote_world,
                              tag_of(stringtag, 2), newintercomm);
    *amp_call_ctx() = saved;
    PMPI_Comm_free(&local);
    if (rc == MPI_SUCCESS) {
        inherit_buffer(amp_rank_self(), local_group, *newintercomm);
        rc = finish_new(*newintercomm, info, errhandler);
    }
    return rc;
}
AMP_WEAK_ALIAS(Intercomm_create_from_groups)

/* ---- error handlers of sessions ---- */

int PMPI_Session_create_errhandler(
    MPI_Session_errhandler_function *session_errhandler_fn,
    MPI_Errhandler *errhandler)
{
    return amp_errh_create(AMP_ERRH_SESSION, (void *)session_errhandler_fn,
                           errhandler, "MPI_Session_create_errhandler");
}
AMP_WEAK_ALIAS(Session_create_errhandler)

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    const char *call = "MPI_Session_set_errhandler";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = session_enter(session, NULL, NULL, call, &rank, &s);
    if (rc == MPI_SUCCESS)
        rc = amp_errh_check(rank, errhandler, AMP_ERRH_SESSION, call);
    if (rc == MPI_SUCCESS)
        s->errh = errhandler;
    return rc;
}
AMP_WEAK_ALIAS(Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    const char *call = "MPI_Session_get_errhandler";
    amp_rank_t *rank;
    amp_session_t *s;
    int rc = session_enter(session, errhandler, "errhandler", call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    *errhandler = s->errh;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    const char *call = "MPI_Session_call_errhandler";
    amp_rank_t *rank;
    amp_session_t *s;
    char detail[64];
    int rc = session_enter(session, NULL, NULL, call, &rank, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(detail, sizeof(detail), "error code %d raised by the program",
             errorcode);
    amp_errh_apply(rank, s->errh, session, errorcode, 1, call, detail);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Session_call_errhandler)

int amp_session_enter(MPI_Session h, const char *call, amp_rank_t **rank,
                      amp_session_t **s)
{
    return session_enter(h, NULL, NULL, call, rank, s);
}

int amp_session_error(amp_rank_t *rank, amp_session_t *s, int errclass,
                      const char *call, const char *detail)
{
    return session_error(rank, s, errclass, call, detail);
}
