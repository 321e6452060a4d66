/*
 * +stats: at the end of a run, one table of this process's PEs (how busy
 * each was, the ranks it ended with, the messages and bytes its ranks
 * sent, the ranks that moved in and out, what it lent and ran for
 * others), then how often each rank was switched to (docs/runtime-options.md).
 */
#include "start/start.h"

#include <stdio.h>

/* The share of PE pe's running time that its threads ran. */
static double busy_share(const amp_pe_t *pe)
{
    uint64_t span = pe->run_until > pe->run_from
                        ? pe->run_until - pe->run_from
                        : 0;
    double share = span ? (double)pe->busy / (double)span : 0.0;
    return share > 1.0 ? 1.0 : share;
}

/* How many of this process's ranks ended with pe as their home. */
static int ranks_on(const amp_pe_t *pe)
{
    int n = 0;
    for (int r = 0; r < amp_proc.nranks; r++)
        if (amp_proc.ranks[r] && amp_proc.ranks[r]->thr.pe == pe)
            n++;
    return n;
}

static void print_pe_table(void)
{
    const amp_sched_t *s = &amp_proc.sched;
    char buf[8192];
    size_t at = 0;
    at += (size_t)snprintf(
        buf + at, sizeof(buf) - at,
        "ampi: stats: process %d of %d, %d PE(s)\n"
        "ampi: stats:   PE   busy  ranks      sends   bytes sent  moved in "
        " moved out      lent    guests\n",
        amp_proc.boot.index, amp_proc.boot.nprocs, s->npes);
    for (int i = 0; i < s->npes && at < sizeof(buf); i++) {
        const amp_pe_t *pe = s->pes[i];
        uint64_t sends, bytes;
        amp_p2p_pe_sends(pe, &sends, &bytes);
        at += (size_t)snprintf(
            buf + at, sizeof(buf) - at,
            "ampi: stats: %4d %5.1f%% %6d %10llu %12llu %9lu %10lu %9lu "
            "%9lu\n",
            i, 100.0 * busy_share(pe), ranks_on(pe),
            (unsigned long long)sends, (unsigned long long)bytes,
            pe->moved_in, pe->moved_out, pe->lent_out, pe->guests);
    }
    fputs(buf, stderr); /* one write: processes' tables do not interleave */
}

void amp_start_stats_print(void)
{
    print_pe_table();
    for (int r = 0; r < amp_proc.nranks; r++) {
        amp_rank_t *rank = amp_proc.ranks[r];
        if (!rank)
            continue; /* in another process */
        fprintf(stderr,
                "ampi: stats: rank %d on PE %d resumed %lu times, lent %lu "
                "times\n",
                r, rank->thr.pe->id, rank->thr.resumes, rank->thr.lent);
    }
}
