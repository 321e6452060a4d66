/*
 * Whether the installed UCX moves CUDA memory (gpu.h): asked of a UCP
 * context, which p2p/net.c owns.  UCX reports the memory types its
 * transports can reach; with UCS_MEMORY_TYPE_CUDA among them (UCX built
 * with CUDA and its cuda_copy / cuda_ipc transports installed), device
 * buffers of messages between processes could go to UCX as they are.
 */
#include "gpu/gpu.h"

#include <ucp/api/ucp.h>

int amp_gpu_ucx_cuda(void *ucp_context)
{
    if (!ucp_context)
        return 0;
    ucp_context_attr_t attr = {.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES};
    if (ucp_context_query((ucp_context_h)ucp_context, &attr) != UCS_OK)
        return 0;
    return (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
}
