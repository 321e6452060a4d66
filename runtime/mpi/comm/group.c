/*
 * Groups: ordered lists of world ranks, local to the rank that made them.
 * Set operations and translations go through an inverse map (world rank ->
 * position) built per call, so each is linear in the sizes involved.
 */
#include "mpi/comm/comm.h"

#include <stdlib.h>
#include <string.h>

amp_status_t amp_group_init(amp_rank_t *rank, void *space)
{
    amp_table_init_in(&rank->groups, sizeof(amp_group_t), 1, space);
    amp_group_t *empty = amp_table_put(&rank->groups, 0);
    return empty ? AMP_OK : AMP_ERR_NOMEM;
}

amp_group_t *amp_group_lookup(amp_rank_t *rank, MPI_Group h)
{
    if (AMP_HANDLE_KIND(h) != AMPI_HANDLE_GROUP)
        return NULL;
    return amp_table_lookup(&rank->groups, AMP_HANDLE_INDEX(h));
}

int amp_check_group(amp_rank_t *rank, amp_comm_t *comm, MPI_Group h,
                    const char *call, const char *arg, amp_group_t **group)
{
    *group = amp_group_lookup(rank, h);
    if (*group)
        return MPI_SUCCESS;
    if (h == MPI_GROUP_NULL)
        return amp_mpi_error(rank, comm, MPI_ERR_GROUP, call,
                             "MPI_GROUP_NULL is not a valid group "
                             "(argument %s)",
                             arg);
    return amp_mpi_error(rank, comm, MPI_ERR_GROUP, call,
                         "invalid group handle %#x (argument %s)", (unsigned)h,
                         arg);
}

amp_status_t amp_group_new(amp_rank_t *rank, int *world, int n, MPI_Group *out)
{
    if (n == 0) {
        free(world);
        *out = MPI_GROUP_EMPTY;
        return AMP_OK;
    }
    amp_group_t *g = amp_table_alloc(&rank->groups);
    if (!g) {
        free(world);
        return AMP_ERR_NOMEM;
    }
    g->size = n;
    g->world = world;
    *out = AMPI_HANDLE(AMPI_HANDLE_GROUP, g->obj.idx);
    return AMP_OK;
}

int amp_group_rank_of(const amp_group_t *group, int w)
{
    for (int i = 0; i < group->size; i++)
        if (group->world[i] == w)
            return i;
    return MPI_UNDEFINED;
}

/* pos[w] = position of world rank w in g, or -1: an inverse map of
 * amp_proc.nranks entries.  NULL when out of memory. */
static int *inverse_map(const amp_group_t *g)
{
    int *pos = malloc((size_t)amp_proc.nranks * sizeof(int));
    if (!pos)
        return NULL;
    memset(pos, 0xff, (size_t)amp_proc.nranks * sizeof(int));
    for (int i = 0; i < g->size; i++)
        pos[g->world[i]] = i;
    return pos;
}

/* Answers a new group for the world ranks in world (n of them) in *out,
 * or MPI_ERR_NO_MEM. */
static int finish_new(amp_rank_t *rank, int *world, int n, MPI_Group *out,
                      const char *call)
{
    if (amp_group_new(rank, world, n, out) != AMP_OK)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory for a group of %d ranks", n);
    return MPI_SUCCESS;
}

static int no_memory(amp_rank_t *rank, const char *call)
{
    return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call, "out of memory");
}

static int null_arg(amp_rank_t *rank, const char *call, const char *arg)
{
    return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                         "NULL pointer (argument %s)", arg);
}

/* ---- queries ---- */

/* Enters call with group h and a place out (named outarg) for a result. */
static int enter_group(amp_rank_t **rank, MPI_Group h, const void *out,
                       const char *outarg, const char *call, amp_group_t **g)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(*rank, NULL, h, call, "group", g);
    if (rc == MPI_SUCCESS && !out)
        rc = null_arg(*rank, call, outarg);
    return rc;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    amp_rank_t *rank;
    amp_group_t *g;
    int rc = enter_group(&rank, group, size, "size", "MPI_Group_size", &g);
    if (rc == MPI_SUCCESS)
        *size = g->size;
    return rc;
}
AMP_WEAK_ALIAS(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank_out)
{
    amp_rank_t *rank;
    amp_group_t *g;
    int rc = enter_group(&rank, group, rank_out, "rank", "MPI_Group_rank", &g);
    if (rc == MPI_SUCCESS)
        *rank_out = amp_group_rank_of(g, rank->world_rank);
    return rc;
}
AMP_WEAK_ALIAS(Group_rank)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[])
{
    amp_rank_t *rank;
    amp_group_t *g1, *g2;
    const char *call = "MPI_Group_translate_ranks";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(rank, NULL, group1, call, "group1", &g1);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(rank, NULL, group2, call, "group2", &g2);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "negative count %d (argument n)", n);
    if (n > 0 && (!ranks1 || !ranks2))
        return null_arg(rank, call, ranks1 ? "ranks2" : "ranks1");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL &&
            (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return amp_mpi_error(rank, NULL, MPI_ERR_RANK, call,
                                 "invalid rank %d (argument ranks1[%d]): "
                                 "group1 has %d ranks",
                                 ranks1[i], i, g1->size);
    int *pos = inverse_map(g2);
    if (!pos)
        return no_memory(rank, call);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        int p = pos[g1->world[ranks1[i]]];
        ranks2[i] = p >= 0 ? p : MPI_UNDEFINED;
    }
    free(pos);
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    amp_rank_t *rank;
    amp_group_t *g1, *g2;
    const char *call = "MPI_Group_compare";
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(rank, NULL, group1, call, "group1", &g1);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(rank, NULL, group2, call, "group2", &g2);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!result)
        return null_arg(rank, call, "result");
    *result = MPI_UNEQUAL;
    if (g1->size != g2->size)
        return MPI_SUCCESS;
    if (g1->size == 0 ||
        !memcmp(g1->world, g2->world, (size_t)g1->size * sizeof(int))) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int *pos = inverse_map(g2);
    if (!pos)
        return no_memory(rank, call);
    int similar = 1;
    for (int i = 0; i < g1->size && similar; i++)
        similar = pos[g1->world[i]] >= 0;
    free(pos);
    *result = similar ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Group_compare)

/* ---- set operations ---- */

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/* The members of g1 that are (keep = 1) or are not (keep = 0) in g2, in
 * g1's order, followed for a union by g2's members not in g1. */
static int set_op(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup,
                  enum set_op op, const char *call)
{
    amp_rank_t *rank;
    amp_group_t *g1, *g2;
    int rc = amp_mpi_enter(&rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(rank, NULL, group1, call, "group1", &g1);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(rank, NULL, group2, call, "group2", &g2);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newgroup)
        return null_arg(rank, call, "newgroup");
    int *in2 = inverse_map(g2);
    int *world =
        malloc(((size_t)g1->size + (size_t)g2->size + 1) * sizeof(int));
    if (!in2 || !world) {
        free(in2);
        free(world);
        return no_memory(rank, call);
    }
    int n = 0;
    for (int i = 0; i < g1->size; i++) {
        int member = in2[g1->world[i]] >= 0;
        if (op == SET_UNION || member == (op == SET_INTERSECTION))
            world[n++] = g1->world[i];
    }
    if (op == SET_UNION) {
        /* in2 becomes the map of g1: g2's members absent from it follow. */
        for (int i = 0; i < g2->size; i++)
            in2[g2->world[i]] = -1;
        for (int i = 0; i < g1->size; i++)
            in2[g1->world[i]] = i;
        for (int i = 0; i < g2->size; i++)
            if (in2[g2->world[i]] < 0)
                world[n++] = g2->world[i];
    }
    free(in2);
    return finish_new(rank, world, n, newgroup, call);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, SET_UNION, "MPI_Group_union");
}
AMP_WEAK_ALIAS(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2,
                            MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, SET_INTERSECTION,
                  "MPI_Group_intersection");
}
AMP_WEAK_ALIAS(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2,
                          MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, SET_DIFFERENCE,
                  "MPI_Group_difference");
}
AMP_WEAK_ALIAS(Group_difference)

/* ---- subsets by rank ---- */

/* Checks the common arguments of the incl/excl calls. */
static int check_subset(amp_rank_t **rank, MPI_Group group, int n,
                        const void *list, MPI_Group *newgroup, const char *call,
                        amp_group_t **g)
{
    int rc = amp_mpi_enter(rank, call);
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(*rank, NULL, group, call, "group", g);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0)
        return amp_mpi_error(*rank, NULL, MPI_ERR_ARG, call,
                             "negative count %d (argument n)", n);
    if (n > 0 && !list)
        return null_arg(*rank, call, "ranks");
    if (!newgroup)
        return null_arg(*rank, call, "newgroup");
    return MPI_SUCCESS;
}

/* Marks the ranks of g that ranks[0..n) names in chosen[] (1 + the position
 * in ranks), answering MPI_ERR_RANK for an invalid or repeated rank. */
static int mark_ranks(amp_rank_t *rank, const amp_group_t *g, int n,
                      const int ranks[], int *chosen, const char *call)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return amp_mpi_error(rank, NULL, MPI_ERR_RANK, call,
                                 "invalid rank %d (argument ranks[%d]): the "
                                 "group has %d ranks",
                                 r, i, g->size);
        if (chosen[r])
            return amp_mpi_error(rank, NULL, MPI_ERR_RANK, call,
                                 "rank %d appears twice (argument "
                                 "ranks[%d] and ranks[%d])",
                                 r, chosen[r] - 1, i);
        chosen[r] = i + 1;
    }
    return MPI_SUCCESS;
}

/* The subset of g: the ranks in order (incl) or the others (excl). */
static int subset_new(amp_rank_t *rank, const amp_group_t *g, int n,
                      const int ranks[], MPI_Group *newgroup, int incl,
                      const char *call)
{
    int *chosen = calloc((size_t)g->size + 1, sizeof(int));
    int *world = malloc(((size_t)g->size + 1) * sizeof(int));
    if (!chosen || !world) {
        free(chosen);
        free(world);
        return no_memory(rank, call);
    }
    int rc = mark_ranks(rank, g, n, ranks, chosen, call);
    int m = 0;
    for (int i = 0; rc == MPI_SUCCESS && incl && i < n; i++)
        world[m++] = g->world[ranks[i]];
    for (int i = 0; rc == MPI_SUCCESS && !incl && i < g->size; i++)
        if (!chosen[i])
            world[m++] = g->world[i];
    free(chosen);
    if (rc != MPI_SUCCESS) {
        free(world);
        return rc;
    }
    return finish_new(rank, world, m, newgroup, call);
}

static int subset_common(MPI_Group group, int n, const int ranks[],
                         MPI_Group *newgroup, int incl, const char *call)
{
    amp_rank_t *rank;
    amp_group_t *g;
    int rc = check_subset(&rank, group, n, ranks, newgroup, call, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    return subset_new(rank, g, n, ranks, newgroup, incl, call);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup)
{
    return subset_common(group, n, ranks, newgroup, 1, "MPI_Group_incl");
}
AMP_WEAK_ALIAS(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup)
{
    return subset_common(group, n, ranks, newgroup, 0, "MPI_Group_excl");
}
AMP_WEAK_ALIAS(Group_excl)

/* Expands ranges[0..n) of (first, last, stride) triples of g into *out
 * (the ranks, in order) and *count, checking each triple. */
static int expand_ranges(amp_rank_t *rank, const amp_group_t *g, int n,
                         int ranges[][3], int **out, int *count,
                         const char *call)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                                 "zero stride (argument ranges[%d][2])", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return amp_mpi_error(rank, NULL, MPI_ERR_RANK, call,
                                 "range %d..%d outside the group's %d ranks "
                                 "(argument ranges[%d])",
                                 first, last, g->size, i);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                                 "stride %d never leads from %d to %d "
                                 "(argument ranges[%d])",
                                 stride, first, last, i);
        total += (last - first) / stride + 1;
    }
    if (total > g->size)
        return amp_mpi_error(rank, NULL, MPI_ERR_RANK, call,
                             "the ranges name %ld ranks, the group has only "
                             "%d: some repeat (argument ranges)",
                             total, g->size);
    int *list = malloc(((size_t)total + 1) * sizeof(int));
    if (!list)
        return no_memory(rank, call);
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], stride = ranges[i][2];
        int steps = (ranges[i][1] - first) / stride;
        for (int s = 0; s <= steps; s++)
            list[k++] = first + s * stride;
    }
    *out = list;
    *count = k;
    return MPI_SUCCESS;
}

static int range_common(MPI_Group group, int n, int ranges[][3],
                        MPI_Group *newgroup, int incl, const char *call)
{
    amp_rank_t *rank;
    amp_group_t *g;
    int rc = check_subset(&rank, group, n, ranges, newgroup, call, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    int *list = NULL, count = 0;
    rc = expand_ranges(rank, g, n, ranges, &list, &count, call);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = subset_new(rank, g, count, list, newgroup, incl, call);
    free(list);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup)
{
    return range_common(group, n, ranges, newgroup, 1, "MPI_Group_range_incl");
}
AMP_WEAK_ALIAS(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup)
{
    return range_common(group, n, ranges, newgroup, 0, "MPI_Group_range_excl");
}
AMP_WEAK_ALIAS(Group_range_excl)

/* ---- from communicators, and freeing ---- */

/* A new group of the n world ranks of map (NULL: the identity). */
static int group_of_map(amp_rank_t *rank, amp_comm_t *comm, const int *map,
                        int n, MPI_Group *out, const char *call)
{
    int *world = malloc(((size_t)n + 1) * sizeof(int));
    if (!world)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call, "out of memory");
    for (int i = 0; i < n; i++)
        world[i] = map ? map[i] : i;
    if (amp_group_new(rank, world, n, out) != AMP_OK)
        return amp_mpi_error(rank, comm, MPI_ERR_NO_MEM, call,
                             "out of memory for a group of %d ranks", n);
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm_h, MPI_Group *group)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    int rc = amp_mpi_enter(&rank, "MPI_Comm_group");
    if (rc == MPI_SUCCESS)
        rc = amp_check_comm(rank, comm_h, "MPI_Comm_group", &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!group)
        return amp_mpi_error(rank, comm, MPI_ERR_ARG, "MPI_Comm_group",
                             "NULL pointer (argument group)");
    return group_of_map(rank, comm, comm->world, comm->size, group,
                        "MPI_Comm_group");
}
AMP_WEAK_ALIAS(Comm_group)

int PMPI_Comm_remote_group(MPI_Comm comm_h, MPI_Group *group)
{
    amp_rank_t *rank;
    amp_comm_t *comm;
    const char *call = "MPI_Comm_remote_group";
    int rc = amp_intercomm_enter(&rank, comm_h, group, "group", call, &comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return group_of_map(rank, comm, comm->remote_world, comm->remote_size,
                        group, call);
}
AMP_WEAK_ALIAS(Comm_remote_group)

int PMPI_Group_free(MPI_Group *group)
{
    amp_rank_t *rank;
    amp_group_t *g;
    int rc = amp_mpi_enter(&rank, "MPI_Group_free");
    if (rc == MPI_SUCCESS && !group)
        rc = null_arg(rank, "MPI_Group_free", "group");
    if (rc == MPI_SUCCESS)
        rc = amp_check_group(rank, NULL, *group, "MPI_Group_free", "group", &g);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI_GROUP_EMPTY, predefined, stays; its handle is dropped all the
     * same, as the calls that return it expect it to be freed. */
    if (*group != MPI_GROUP_EMPTY) {
        free(g->world);
        amp_table_free(&rank->groups, g);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
AMP_WEAK_ALIAS(Group_free)
