/* What needs no CUDA: staging plans, the path policy and +gpumap (gpu.h). */
#include "gpu/gpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void amp_gpu_span_of(int count, size_t size, ptrdiff_t extent,
                     ptrdiff_t true_lb, ptrdiff_t true_extent, int contig,
                     amp_gpu_span_t *s)
{
    if (count <= 0 || size == 0) {
        s->lo = 0;
        s->bytes = 0;
        s->dense = 1;
        return;
    }
    /* Element i covers [i * extent + true_lb, ... + true_extent). */
    ptrdiff_t last = (ptrdiff_t)(count - 1) * extent;
    ptrdiff_t lo = true_lb + (last < 0 ? last : 0);
    ptrdiff_t hi = true_lb + true_extent + (last > 0 ? last : 0);
    s->lo = lo;
    s->bytes = (size_t)(hi - lo);
    s->dense = contig && s->bytes == size * (size_t)count;
}

int amp_gpu_path_select(int is_device, int role, const amp_gpu_span_t *s,
                        int *fetch)
{
    *fetch = 0;
    if (!is_device || s->bytes == 0)
        return AMP_GPU_PATH_HOST;
    *fetch = role != AMP_GPU_RECV || !s->dense;
    return AMP_GPU_PATH_STAGE;
}

int amp_gpu_path_choose(int mode, int is_device, int role,
                        const amp_gpu_span_t *s, const amp_gpu_peer_t *peer,
                        int *fetch)
{
    if (mode != AMP_GPU_MODE_STAGED && is_device && s->bytes > 0 && s->dense &&
        role != AMP_GPU_INOUT && !(role == AMP_GPU_SEND && peer->eager)) {
        *fetch = 0;
        return AMP_GPU_PATH_DIRECT;
    }
    return amp_gpu_path_select(is_device, role, s, fetch);
}

amp_status_t amp_gpu_mode_parse(const char *s, int *mode)
{
    if (!s || !*s || strcmp(s, "auto") == 0) {
        *mode = AMP_GPU_MODE_AUTO;
        return AMP_OK;
    }
    if (strcmp(s, "staged") == 0) {
        *mode = AMP_GPU_MODE_STAGED;
        return AMP_OK;
    }
    if (strcmp(s, "pipelined") == 0) {
        *mode = AMP_GPU_MODE_PIPELINED;
        return AMP_OK;
    }
    return AMP_ERR_ARG;
}

int amp_gpu_xfer_choose(int mode, int same_node, int ucx_cuda)
{
    if (mode != AMP_GPU_MODE_AUTO)
        return AMP_GPU_XFER_PIPELINE;
    if (same_node)
        return AMP_GPU_XFER_IPC;
    return ucx_cuda ? AMP_GPU_XFER_UCX : AMP_GPU_XFER_PIPELINE;
}

amp_status_t amp_gpu_map_parse(const char *spec, int ndev, int npes, int first,
                               int *pe_dev)
{
    if (ndev <= 0 || first < 0)
        return AMP_ERR_ARG;
    if (!spec || strcmp(spec, "rr") == 0) {
        for (int i = 0; i < npes; i++)
            pe_dev[i] = (int)(((long long)first + i) % ndev);
        return AMP_OK;
    }
    int n = 0;
    const char *s = spec;
    for (;;) {
        char *end;
        errno = 0;
        long d = strtol(s, &end, 10);
        if (end == s || errno || d < 0 || d >= ndev)
            return AMP_ERR_ARG;
        if (n < npes)
            pe_dev[n] = (int)d;
        n++;
        if (*end == '\0')
            break;
        if (*end != ',')
            return AMP_ERR_ARG;
        s = end + 1;
    }
    for (int i = n; i < npes; i++)
        pe_dev[i] = pe_dev[i % n];
    return AMP_OK;
}

int amp_gpu_order_devices(int pe_dev, int sdev, int ddev, int ndev, int out[2])
{
    int n = 0;
    if (sdev >= 0 && sdev < ndev && sdev != pe_dev)
        out[n++] = sdev;
    if (ddev >= 0 && ddev < ndev && ddev != pe_dev && ddev != sdev)
        out[n++] = ddev;
    return n;
}

void amp_gpu_span_dt(amp_gpu_span_t *sp, int count, const amp_dt_t *dt)
{
    amp_gpu_span_of(count, dt->size, dt->extent, dt->true_lb, dt->true_extent,
                    dt->contig, sp);
}

void amp_gpu_span_add(amp_gpu_span_t *sp, ptrdiff_t disp, int count,
                      const amp_dt_t *dt)
{
    amp_gpu_span_t b;
    if (count <= 0)
        return;
    amp_gpu_span_dt(&b, count, dt);
    if (b.bytes == 0)
        return;
    b.lo += disp;
    if (sp->bytes == 0) {
        *sp = b;
        return;
    }
    ptrdiff_t hi = sp->lo + (ptrdiff_t)sp->bytes;
    ptrdiff_t bhi = b.lo + (ptrdiff_t)b.bytes;
    sp->lo = b.lo < sp->lo ? b.lo : sp->lo;
    sp->bytes = (size_t)((bhi > hi ? bhi : hi) - sp->lo);
    sp->dense = 0;
}
