/*
 * Periodic load balancing without AMPI_Migrate (+lbperiod SECONDS).
 *
 * The job balances at the first blocking collective over MPI_COMM_WORLD
 * (barrier, allreduce, bcast, ...) after each period, as if every rank had
 * called AMPI_Migrate(AMPI_INFO_LB_SYNC) just before it.  Every rank must
 * take that step at the same collective, and the ranks reach it at
 * different times, so the job asks: at some of those collectives (the
 * same ones in every rank, counted alike) each rank says whether its
 * process's period is over, and an allreduce of that answer decides for
 * all.  After a question answered no, the next comes twice as many
 * collectives later (at most AMP_PERIOD_GAP_MAX); after a step, at the
 * next one.  A rank that cannot move at that point (a nonblocking
 * collective under way, kernel threads bound to its PE) stays where it is
 * (AMP_LB_STAY) and +lbdebug counts it.
 */
#ifndef AMP_RANK_PERIOD_H
#define AMP_RANK_PERIOD_H

#define AMP_PERIOD_GAP_MAX 64

/* From start-up, when +lbperiod was given: sets amp_proc.lb_periodic,
 * which the blocking collectives' entry points call (scripts/
 * gen_threads.py), and the first period's end. */
void amp_period_init(void);

/* The balancing step itself, collective over the job's ranks (migrate.c):
 * AMPI_Migrate(AMPI_INFO_LB_SYNC), but a rank that cannot move stays. */
void amp_migrate_periodic(void);

#endif
