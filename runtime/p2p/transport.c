/*
 * The transports a job uses (transport.h): the table for each
 * destination, chosen once at startup.
 */
#include "p2p/transport.h"

#include "p2p/dev.h"
#include "p2p/net.h"

amp_status_t amp_p2p_net_init(amp_p2p_world_t *w, amp_sched_t *sched,
                              amp_boot_t *boot, int first, int nlocal,
                              const int *local_pe)
{
    amp_status_t st = amp_net_init(w, sched, boot, first, nlocal, local_pe);
    if (st == AMP_OK)
        st = amp_p2p_dev_init(w, sched);
    if (st != AMP_OK)
        return st;
    w->between = &amp_p2p_net_tp;
    w->device = &amp_p2p_dev_tp;
    amp_p2p_am_register(w, AMP_P2P_AM_GPU, amp_p2p_dev_am);
    return AMP_OK;
}

void amp_p2p_net_finish(amp_p2p_world_t *w, amp_sched_t *sched,
                        amp_boot_t *boot)
{
    amp_net_finish(w, sched, boot);
    amp_p2p_dev_finish(w);
    w->between = NULL;
    w->device = NULL;
}
