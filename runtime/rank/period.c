/* +lbperiod: the job agrees at which collective to balance (period.h). */
#include "rank/period.h"
#include "mpi/impl.h"

#include <time.h>

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* At each blocking collective over MPI_COMM_WORLD of the calling rank,
 * before it runs. */
static void world_collective(void)
{
    amp_rank_t *rank = amp_rank_self();
    if (++rank->lbp_count < rank->lbp_next)
        return;
    int due = now_ns() >= atomic_load(&amp_proc.lb_deadline), any = 0;
    if (PMPI_Allreduce(&due, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        any = 0; /* every rank got the same error: nobody balances */
    rank = amp_rank_self();
    if (!any) {
        unsigned long gap = rank->lbp_gap ? rank->lbp_gap * 2 : 1;
        rank->lbp_gap = gap < AMP_PERIOD_GAP_MAX ? gap : AMP_PERIOD_GAP_MAX;
        rank->lbp_next = rank->lbp_count + rank->lbp_gap;
        return;
    }
    amp_migrate_periodic();
    rank = amp_rank_self(); /* it may have changed process */
    rank->lbp_gap = 0;
    rank->lbp_next = rank->lbp_count + 1;
    atomic_store(&amp_proc.lb_deadline, now_ns() + amp_proc.opts.lbperiod_ns);
}

void amp_period_init(void)
{
    if (amp_proc.opts.lbperiod_ns <= 0)
        return;
    atomic_store(&amp_proc.lb_deadline, now_ns() + amp_proc.opts.lbperiod_ns);
    amp_proc.lb_periodic = world_collective;
}
