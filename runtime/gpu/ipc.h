/*
 * gpu/ipc.h: CUDA IPC between the processes of one node.
 *
 * A sender exports the allocation that holds its device buffer
 * (cuIpcGetMemHandle, cached per PE by the allocation's buffer id) and
 * sends the handle with the offset of its data; the receiving process maps
 * the allocation into the context of its PE's device (cuIpcOpenMemHandle)
 * and the GPU copies straight out of it.
 *
 * Opening a handle maps memory and costs far more than a message, so the
 * mappings are kept in a cache of the process, keyed by the exporting
 * process and the allocation's buffer id there (unique for that process's
 * lifetime: a cudaFree + cudaMalloc at the same address has a new id and
 * so a new entry) and the device of the context it is mapped into.  An
 * entry in use by a copy is never closed; when the cache is full the least
 * recently used idle entry is closed and replaced.  A mapping stays open
 * while cached, so memory the exporter frees is released on the device
 * only when its entry is evicted (the CUDA documentation calls freeing
 * exported memory before every importer closed it undefined; in practice
 * the memory lives on until the last mapping goes).
 *
 * The driver calls come in as functions (amp_gpu_ipc_ops_t) so that the
 * unit tests drive the cache without CUDA; gpu.c passes the driver's.
 */
#ifndef AMP_GPU_IPC_H
#define AMP_GPU_IPC_H

#include "base/base.h"

#include <stdatomic.h>
#include <stdint.h>

#define AMP_GPU_IPC_HANDLE 64 /* CU_IPC_HANDLE_SIZE */

/* What travels with a message: enough for the receiver to map the data. */
typedef struct amp_gpu_ipc {
    unsigned char handle[AMP_GPU_IPC_HANDLE];
    uint64_t id;     /* the allocation's buffer id in the exporter */
    uint64_t offset; /* of the data from the allocation's start */
} amp_gpu_ipc_t;

typedef struct amp_gpu_ipc_ops {
    /* Maps handle into the context of device dev: *base, AMP_OK. */
    amp_status_t (*open)(void *ctx, int dev, const unsigned char *handle,
                         void **base);
    void (*close)(void *ctx, int dev, void *base);
    void *ctx;
} amp_gpu_ipc_ops_t;

#define AMP_GPU_IPC_SLOTS 64

typedef struct amp_gpu_ipc_entry {
    int proc, dev;
    uint64_t id;
    void *base;
    int refs;            /* copies using it now */
    unsigned long stamp; /* last use */
} amp_gpu_ipc_entry_t;

typedef struct amp_gpu_ipc_cache {
    _Atomic int lock; /* the PEs of the process share it */
    amp_gpu_ipc_entry_t slot[AMP_GPU_IPC_SLOTS];
    int n;
    unsigned long clock;
    unsigned long hits, opens, evictions;
} amp_gpu_ipc_cache_t;

void amp_gpu_ipc_cache_init(amp_gpu_ipc_cache_t *c);
/* The mapping in device dev's context of the allocation in of process
 * proc, opened now or found cached; *base is the allocation's start (the
 * data is at *base + in->offset).  It stays open until the matching
 * amp_gpu_ipc_cache_put.  AMP_ERR_NOMEM when every entry is in use; the
 * error of ops->open when the driver refuses. */
AMP_MUST_USE amp_status_t amp_gpu_ipc_cache_get(amp_gpu_ipc_cache_t *c,
                                                const amp_gpu_ipc_ops_t *ops,
                                                int proc, int dev,
                                                const amp_gpu_ipc_t *in,
                                                void **base);
/* The copy that used the entry of base (in device dev) is done. */
void amp_gpu_ipc_cache_put(amp_gpu_ipc_cache_t *c, int dev, void *base);
/* Closes every mapping (at the end: none is in use). */
void amp_gpu_ipc_cache_clear(amp_gpu_ipc_cache_t *c,
                             const amp_gpu_ipc_ops_t *ops);

#endif
