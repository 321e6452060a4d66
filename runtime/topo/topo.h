/*
 * topo: the machine's cores (hwloc) and pinning of PE threads to them.
 */
#ifndef AMP_TOPO_H
#define AMP_TOPO_H

#include "base/base.h"

typedef struct amp_topo {
    void *topology; /* hwloc_topology_t */
    int ncores;     /* cores this process may run on */
} amp_topo_t;

amp_status_t amp_topo_init(amp_topo_t *topo);
void amp_topo_cleanup(amp_topo_t *topo);

/* Binds the calling thread to core (pe mod ncores). */
amp_status_t amp_topo_pin_self(amp_topo_t *topo, int pe);

#endif
