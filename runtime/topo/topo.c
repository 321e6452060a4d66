#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_COUNT */
#include "topo/topo.h"

#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The PUs the process is bound to (taskset, numactl, a launcher's binding)
 * within those the system allows it; all allowed ones if the binding is
 * unknown. */
static hwloc_bitmap_t process_pus(hwloc_topology_t t)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return NULL;
    hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(t);
    if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0)
        hwloc_bitmap_and(set, set, allowed);
    else
        hwloc_bitmap_zero(set);
    if (hwloc_bitmap_iszero(set))
        hwloc_bitmap_copy(set, allowed);
    return set;
}

/* Fills topo->core and topo->pu with the cores that hold a PU of pus (the
 * PUs themselves on a machine hwloc finds no cores on). */
static amp_status_t find_cores(amp_topo_t *topo, hwloc_topology_t t,
                               hwloc_const_bitmap_t pus)
{
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    if (hwloc_get_nbobjs_by_type(t, type) <= 0)
        type = HWLOC_OBJ_PU;
    int n = hwloc_get_nbobjs_by_type(t, type);
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    topo->core = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    topo->pu = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!mine || !topo->core || !topo->pu) {
        hwloc_bitmap_free(mine);
        return AMP_ERR_NOMEM;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(t, type, (unsigned)i);
        if (!obj || !obj->cpuset)
            continue;
        hwloc_bitmap_and(mine, obj->cpuset, pus);
        if (hwloc_bitmap_iszero(mine))
            continue;
        topo->core[k] = (int)obj->logical_index;
        topo->pu[k] = hwloc_bitmap_first(mine);
        k++;
    }
    hwloc_bitmap_free(mine);
    topo->ncores = k;
    topo->machine_cores = n;
    topo->machine_pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    return k > 0 ? AMP_OK : AMP_ERR_SYS;
}

/* Without hwloc: the CPUs in the process's affinity mask. */
static int affinity_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

amp_status_t amp_topo_init(amp_topo_t *topo)
{
    hwloc_topology_t t;
    *topo = (amp_topo_t){.ncores = 1};
    if (hwloc_topology_init(&t) != 0)
        goto err;
    if (hwloc_topology_load(t) != 0)
        goto err_destroy;
    hwloc_bitmap_t pus = process_pus(t);
    if (!pus)
        goto err_destroy;
    amp_status_t status = find_cores(topo, t, pus);
    if (status == AMP_OK && hwloc_bitmap_list_asprintf(&topo->pus, pus) < 0)
        status = AMP_ERR_NOMEM;
    hwloc_bitmap_free(pus);
    if (status != AMP_OK)
        goto err_destroy;
    topo->topology = t;
    return AMP_OK;

err_destroy:
    hwloc_topology_destroy(t);
err:
    amp_topo_cleanup(topo);
    topo->ncores = affinity_count();
    return AMP_ERR_SYS;
}

void amp_topo_cleanup(amp_topo_t *topo)
{
    if (topo->topology)
        hwloc_topology_destroy(topo->topology);
    free(topo->core);
    free(topo->pu);
    free(topo->pus);
    *topo = (amp_topo_t){.ncores = 1};
}

amp_status_t amp_topo_pin_self(amp_topo_t *topo, int pe)
{
    hwloc_topology_t t = topo->topology;
    if (!t)
        return AMP_ERR_SYS;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return AMP_ERR_NOMEM;
    hwloc_bitmap_only(set, (unsigned)topo->pu[pe % topo->ncores]);
    int rc = hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
    return rc == 0 ? AMP_OK : AMP_ERR_SYS;
}

void amp_topo_pe_str(const amp_topo_t *topo, int pe, char *buf, size_t size)
{
    if (!topo->topology) {
        snprintf(buf, size, "not bound");
        return;
    }
    int i = pe % topo->ncores;
    snprintf(buf, size, "core %d (PU %d)", topo->core[i], topo->pu[i]);
}

void amp_topo_allowed_str(const amp_topo_t *topo, char *buf, size_t size)
{
    const char *s = topo->ncores == 1 ? "" : "s";
    int n = snprintf(buf, size, "%d core%s", topo->ncores, s);
    if (!topo->topology || n < 0 || (size_t)n >= size)
        return;
    hwloc_bitmap_t cores = hwloc_bitmap_alloc();
    if (!cores)
        return;
    for (int i = 0; i < topo->ncores; i++)
        hwloc_bitmap_set(cores, (unsigned)topo->core[i]);
    char list[256];
    hwloc_bitmap_list_snprintf(list, sizeof(list), cores);
    hwloc_bitmap_free(cores);
    s = strchr(topo->pus, ',') || strchr(topo->pus, '-') ? "s" : "";
    snprintf(buf + n, size - (size_t)n, ": %s (PU%s %s)", list, s, topo->pus);
}
