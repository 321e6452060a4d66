/*
 * dt: datatype descriptors, packing and unpacking.
 *
 * A datatype is described by the data blocks of one element (offset from
 * the element's start, length, and the size of the basic values in it) plus
 * its bounds.  Contiguous types (one block filling the extent) are the
 * common case and move with plain memcpy.
 */
#ifndef AMP_DT_H
#define AMP_DT_H

#include "base/base.h"
#include "base/table.h"

#include <stddef.h>

typedef struct amp_dt_block {
    ptrdiff_t off;
    size_t len;
    size_t elem; /* size of the basic values in this block */
} amp_dt_block_t;

typedef struct amp_dt {
    amp_obj_t obj;        /* handle table entry (derived types only) */
    size_t size;          /* data bytes in one element */
    ptrdiff_t lb, extent; /* bounds of one element */
    ptrdiff_t true_lb, true_extent;
    size_t basic_size; /* size of the one basic type it is made of, or 0 */
    int contig;        /* n elements are n * size bytes at true_lb */
    int nblocks;
    const amp_dt_block_t *blocks;
    amp_dt_block_t *owned_blocks; /* derived types: blocks to free */
    int predefined;
    int committed;
    int combiner;
    int count;      /* MPI_Type_contiguous count */
    int old_handle; /* MPI_Type_contiguous old type */
    int flags;      /* AMP_DT_* below: what reductions may apply */
    int base_id;    /* predefined type it repeats (for reductions), or 0 */
    int base_count; /* how many base_id values one element holds */
    const char *name;
} amp_dt_t;

/* Classes of basic types, for the reductions that apply to each. */
enum {
    AMP_DT_INTEGER = 1 << 0,
    AMP_DT_FLOAT = 1 << 1,
    AMP_DT_COMPLEX = 1 << 2,
    AMP_DT_LOGICAL = 1 << 3,
    AMP_DT_BYTE = 1 << 4,
    AMP_DT_PAIR = 1 << 5,
};

/* The predefined type with id (1 .. AMPI_DTID_COUNT-1), or NULL. */
const amp_dt_t *amp_dt_predefined(int id);

/* Fills new as count copies of old, back to back. */
amp_status_t amp_dt_make_contiguous(amp_dt_t *newdt, int count,
                                    const amp_dt_t *old);
void amp_dt_destroy(amp_dt_t *dt);

/* Copies count elements from buf into the packed buffer out
 * (count * size bytes). */
void amp_dt_pack(const amp_dt_t *dt, int count, const void *buf, void *out);

/* Copies at most bytes packed bytes from in into count elements at buf;
 * returns the bytes used. */
size_t amp_dt_unpack(const amp_dt_t *dt, int count, void *buf, const void *in,
                     size_t bytes);

/* Basic elements in bytes of packed dt data, or -1 if bytes ends inside a
 * basic value. */
long long amp_dt_elements(const amp_dt_t *dt, size_t bytes);

/* Bytes from the first to the last data byte of count elements. */
static inline size_t amp_dt_span(const amp_dt_t *dt, int count)
{
    if (count <= 0 || dt->size == 0)
        return 0;
    return (size_t)((count - 1) * dt->extent + dt->true_extent);
}

#endif
