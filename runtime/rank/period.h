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
 * +ckptperiod asks the same question about its own period, at the same
 * collectives (the job's answer says which of the two are due): a
 * checkpoint is AMPI_Migrate with "ampi_checkpoint" = "to_file=DIR" just
 * before the collective, and a restarted rank resumes there, then runs
 * the collective.
 */
#ifndef AMP_RANK_PERIOD_H
#define AMP_RANK_PERIOD_H

#define AMP_PERIOD_GAP_MAX 65536

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

/* The balancing step itself, collective over the job's ranks (migrate.c):
 * AMPI_Migrate(AMPI_INFO_LB_SYNC), but a rank that cannot move stays. */
void amp_migrate_periodic(void);
/* The checkpoint step, collective over the job's ranks (migrate.c): into
 * +ckptdir, as AMPI_Migrate would; its errors go through MPI_COMM_WORLD's
 * handler. */
void amp_checkpoint_periodic(void);

#endif
