/*
 * Periodic load balancing and checkpoints without AMPI_Migrate
 * (+lbperiod SECONDS; +ckptperiod SECONDS with +ckptdir DIR).
 *
 * The job balances at the first blocking collective over MPI_COMM_WORLD
 * (barrier, allreduce, bcast, ...) after each period, as if every rank had
 * called AMPI_Migrate(AMPI_INFO_LB_SYNC) just before it.  Every rank must
 * take that step at the same collective, and the ranks reach it at
 * different times, so the job asks: at some of those collectives (the
 * same ones in every rank, counted alike) each rank says whether its
 * process's period is over, and an allreduce of that answer decides for
 * all.  After a step the next question comes at the next collective;
 * after a question answered no, as many collectives later as the rank
 * that expects fewest expects to make before its period ends (from the
 * time its collectives took since the last question), but at most twice
 * as many as the last time and AMP_PERIOD_GAP_MAX.  A rank that cannot move at that point (a nonblocking
 * collective under way, kernel threads bound to its PE) stays where it is
 * (AMP_LB_STAY) and +lbdebug counts it.
 *
 * A step comes early where the load is far off (+lbearly FRACTION, 0.125
 * unless given; 0: never early): once that part of the period has passed
 * since the last step (since the ranks' first collective over
 * MPI_COMM_WORLD, for the first), the next question also compares how
 * busy the job's PEs were since then (the part of the time each ran
 * threads, amp_sched_pe_busy); when the least busy was busy less than
 * 1 - AMP_PERIOD_EARLY_GAP of the busiest's, the job balances there, and
 * the next period starts.  Idle time alone does not tell: a balanced
 * program idles every PE alike while its messages travel.  One early look
 * a period: a first placement that puts the heavy ranks together, or a
 * load that jumps, does not wait a whole period, and a balanced job pays
 * only a larger question.
 *
 * +ckptperiod asks the same question about its own period, at the same
 * collectives (the job's answer says which of the two are due): a
 * checkpoint is AMPI_Migrate with "ampi_checkpoint" = "to_file=DIR" just
 * before the collective, and a restarted rank resumes there, then runs
 * the collective.
 */
#ifndef AMP_RANK_PERIOD_H
#define AMP_RANK_PERIOD_H

#include <stdint.h>

struct amp_rank;

#define AMP_PERIOD_GAP_MAX 65536
/* How much less busy than the busiest PE the least busy may be before the
 * early look balances (over 2 PEs, a step would gain 10%). */
#define AMP_PERIOD_EARLY_GAP 0.20

/* From start-up, when +lbperiod or +ckptperiod was given: sets
 * amp_proc.lb_periodic,
 * which the blocking collectives' entry points call (scripts/
 * gen_threads.py), and the first period's end. */
void amp_period_init(void);

/* The collectives until the next question: as many as a rank that made
 * made collectives in spent_ns expects to make in the left_ns before its
 * period ends, aiming a little short; at most twice last_gap (a program
 * that slows down is not missed by much) and AMP_PERIOD_GAP_MAX; at least
 * 1. */
static inline long amp_period_gap(unsigned long made, long spent_ns,
                                  long left_ns, unsigned long last_gap)
{
    if (!made || spent_ns <= 0 || left_ns <= 0)
        return 1;
    double expect = 0.9 * (double)left_ns * (double)made / (double)spent_ns;
    long most = 2 * (long)last_gap;
    if (most > AMP_PERIOD_GAP_MAX)
        most = AMP_PERIOD_GAP_MAX;
    long gap = expect < (double)most ? (long)expect : most;
    return gap < 1 ? 1 : gap;
}

/* Thousandths of the cycles since a mark in which a PE ran threads, from
 * its busy ticks then and now (amp_sched_pe_busy) and the cycle counter
 * then and now: 0 to 1000; -1 when no time has passed. */
static inline int amp_period_busy(uint64_t busy0, uint64_t busy1,
                                  uint64_t cycles0, uint64_t cycles1)
{
    if (cycles1 <= cycles0 || busy1 < busy0)
        return -1;
    double part = (double)(busy1 - busy0) / (double)(cycles1 - cycles0);
    return part >= 1 ? 1000 : (int)(1000 * part);
}

/* Whether the early look balances: the busiest and the least busy PE's
 * thousandths (amp_period_busy). */
static inline int amp_period_uneven(int most, int least)
{
    return most > 0 && least >= 0 &&
           (double)least < (1 - AMP_PERIOD_EARLY_GAP) * (double)most;
}

/* The rank's measured load starts again from now (migrate.c): at its
 * first collective over MPI_COMM_WORLD, so that the first step, early or
 * not, balances what the ranks did since, not their set-up. */
void amp_migrate_load_restart(struct amp_rank *rank);

/* The balancing step itself, collective over the job's ranks (migrate.c):
 * AMPI_Migrate(AMPI_INFO_LB_SYNC), but a rank that cannot move stays. */
void amp_migrate_periodic(void);
/* The checkpoint step, collective over the job's ranks (migrate.c): into
 * +ckptdir, as AMPI_Migrate would; its errors go through MPI_COMM_WORLD's
 * handler. */
void amp_checkpoint_periodic(void);

#endif
