/*
 * topo: the cores this process may run on (hwloc) and pinning of PE threads
 * to them.
 *
 * "May run on" is the process's CPU binding (taskset, numactl, an mpirun
 * that binds each process) within the cores the system allows it (cgroup
 * cpusets), not the whole machine.  PE i is bound to the first allowed PU
 * of allowed core (i mod ncores), so PEs get distinct cores until there are
 * more PEs than cores.
 */
#ifndef AMP_TOPO_H
#define AMP_TOPO_H

#include "base/base.h"

#include <stddef.h>

typedef struct amp_topo {
    void *topology;    /* hwloc_topology_t; NULL if hwloc failed */
    int ncores;        /* cores this process may run on (at least 1) */
    int machine_cores; /* cores of the machine (0 without hwloc) */
    int machine_pus;   /* its hardware threads (0 without hwloc) */
    int *core;         /* [ncores] hwloc logical index of each such core */
    int *pu;           /* [ncores] OS index of the PU a PE binds to on it */
    char *pus;         /* the PUs the process may use, as a list ("0-3,8") */
} amp_topo_t;

/* Finds the cores the process may use.  If hwloc fails it returns
 * AMP_ERR_SYS with ncores counted from the process's affinity mask and no
 * topology (pinning is then impossible). */
AMP_MUST_USE amp_status_t amp_topo_init(amp_topo_t *topo);
void amp_topo_cleanup(amp_topo_t *topo);

/* Binds the calling thread to the PU of core (pe mod ncores). */
AMP_MUST_USE amp_status_t amp_topo_pin_self(amp_topo_t *topo, int pe);

/* Writes where PE pe is bound, "core C (PU P)", into buf. */
void amp_topo_pe_str(const amp_topo_t *topo, int pe, char *buf, size_t size);

/* Writes the cores the process may use, "2 cores: 0-1 (PUs 0-1)", into
 * buf (just "N cores" without a topology). */
void amp_topo_allowed_str(const amp_topo_t *topo, char *buf, size_t size);

#endif
