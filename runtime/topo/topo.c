#include "topo/topo.h"

#include <hwloc.h>

static int allowed_cores(hwloc_topology_t t)
{
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    if (n <= 0)
        n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    return n > 0 ? n : 1;
}

amp_status_t amp_topo_init(amp_topo_t *topo)
{
    hwloc_topology_t t;
    topo->topology = NULL;
    topo->ncores = 1;
    if (hwloc_topology_init(&t) != 0)
        return AMP_ERR_SYS;
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return AMP_ERR_SYS;
    }
    topo->topology = t;
    topo->ncores = allowed_cores(t);
    return AMP_OK;
}

void amp_topo_cleanup(amp_topo_t *topo)
{
    if (topo->topology)
        hwloc_topology_destroy(topo->topology);
    topo->topology = NULL;
}

amp_status_t amp_topo_pin_self(amp_topo_t *topo, int pe)
{
    hwloc_topology_t t = topo->topology;
    if (!t)
        return AMP_ERR_SYS;
    hwloc_obj_t obj =
        hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, (unsigned)(pe % topo->ncores));
    if (!obj)
        obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU,
                                    (unsigned)(pe % topo->ncores));
    if (!obj || !obj->cpuset)
        return AMP_ERR_SYS;
    hwloc_cpuset_t set = hwloc_bitmap_dup(obj->cpuset);
    hwloc_bitmap_singlify(set);
    int rc = hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
    return rc == 0 ? AMP_OK : AMP_ERR_SYS;
}
