/*
 * A new rank's MPI objects (proc.h: amp_rank_objects_init): the tables
 * behind its handles and what each chapter keeps per rank, with the
 * predefined objects (MPI_COMM_WORLD, MPI_COMM_SELF, MPI_GROUP_EMPTY,
 * MPI_INFO_ENV...).
 */
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/win/win.h"
#include "mpi/attr/attr.h"
#include "mpi/file/fileio.h"
#include "mpi/init/session.h"

/* The tables set up with objects in them: communicators, groups, infos,
 * their first chunks side by side in the space of amp_rank_objects_init. */
size_t amp_rank_objects_space(void)
{
    return amp_table_space(sizeof(amp_comm_t)) +
           amp_table_space(sizeof(amp_group_t)) + amp_info_rank_space();
}

/* The part of the space at *at for a table of elem_size objects (NULL
 * without space); *at moves past it. */
static void *part(char **at, size_t elem_size)
{
    char *p = *at;
    if (p)
        *at = p + amp_table_space(elem_size);
    return p;
}

amp_status_t amp_rank_objects_init(amp_rank_t *rank, void *space)
{
    char *at = space;
    amp_table_init_in(&rank->comms, sizeof(amp_comm_t), 2,
                      part(&at, sizeof(amp_comm_t)));
    void *groups = part(&at, sizeof(amp_group_t));
    amp_table_init(&rank->dts, sizeof(amp_dt_t), 0);
    amp_table_init(&rank->reqs, sizeof(amp_req_t), 1);
    amp_table_init(&rank->msgs, sizeof(amp_msg_handle_t), 1);
    amp_table_init(&rank->errhs, sizeof(amp_errh_t), 4);
    amp_table_init(&rank->ops, sizeof(amp_op_obj_t), 1);
    if (amp_group_init(rank, groups) != AMP_OK)
        return AMP_ERR_NOMEM;
    if (amp_attr_rank_init(rank) != AMP_OK ||
        amp_info_rank_init(rank, at) != AMP_OK ||
        amp_win_rank_init(rank) != AMP_OK ||
        amp_file_rank_init(rank) != AMP_OK ||
        amp_session_rank_init(rank) != AMP_OK)
        return AMP_ERR_NOMEM;
    return amp_comm_rank_init(rank);
}

static void forget_types(amp_rank_t *rank)
{
    amp_table_t *t = &rank->dts;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_dt_t *d = amp_table_lookup(t, i);
        if (d)
            amp_dt_destroy(d);
    }
}

static void forget_groups(amp_rank_t *rank)
{
    amp_table_t *t = &rank->groups;
    for (int i = 0; i < amp_table_capacity(t); i++) {
        amp_group_t *g = amp_table_lookup(t, i);
        if (g)
            free(g->world);
    }
}

void amp_rank_objects_forget(amp_rank_t *rank)
{
    amp_comm_forget_all(rank);
    forget_types(rank);
    forget_groups(rank);
    amp_info_forget_all(rank);
    amp_table_t *tables[] = {&rank->comms,   &rank->dts,    &rank->reqs,
                             &rank->msgs,    &rank->errhs,  &rank->ops,
                             &rank->groups,  &rank->keyvals, &rank->infos,
                             &rank->wins,    &rank->files,  &rank->sessions};
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        amp_table_cleanup(tables[i]);
}
