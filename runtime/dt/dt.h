/*
 * dt: datatype descriptors, packing and unpacking.
 *
 * A datatype is described by the data blocks of one element (offset from
 * the element's start, length, and the size of the basic values in it) plus
 * its bounds.  Contiguous types (one block filling the extent) are the
 * common case and move with plain memcpy.
 *
 * Constructors flatten once, at creation: a derived type holds the merged
 * blocks of one element, never a tree.  So that a type with a huge element
 * count cannot take all memory, one element may have at most
 * AMP_DT_MAX_BLOCKS separate blocks; a constructor that would need more
 * fails with AMP_ERR_NOMEM (adjacent blocks merge, so this limits the
 * holes, not the count: a vector of 10^9 ints with stride 1 is one block).
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
    size_t align;   /* strictest alignment of the basic values in it */
    int sticky;     /* AMP_DT_STICKY_*: bounds set explicitly */
    int base_id;    /* predefined type it repeats (for reductions), or 0 */
    int base_count; /* how many base_id values one element holds */
    const char *name;
    /* Set by the MPI layer: the constructor's arguments for
     * MPI_Type_get_contents, a name, and references from other types. */
    int refs;      /* user_refs + the types whose contents name it */
    int user_refs; /* handles the user holds (and must free) */
    int nints, naddrs, ntypes;
    int *ints;
    ptrdiff_t *addrs;
    int *types;
    char *owned_name;
} amp_dt_t;

/* Bounds set by MPI_LB/MPI_UB or MPI_Type_create_resized: they win over
 * the data's own bounds in every type built from this one. */
enum { AMP_DT_STICKY_LB = 1 << 0, AMP_DT_STICKY_UB = 1 << 1 };

#define AMP_DT_MAX_BLOCKS (1 << 22)

/* blocklen copies of type (back to back at its extent), starting at byte
 * displacement disp: one entry of a struct, indexed or vector type. */
typedef struct amp_dt_part {
    ptrdiff_t disp;
    size_t blocklen;
    const amp_dt_t *type;
} amp_dt_part_t;

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
/* count entries of blocklen copies of old, stride bytes apart (the
 * vector and hvector layouts). */
amp_status_t amp_dt_make_hvector(amp_dt_t *newdt, int count, size_t blocklen,
                                 ptrdiff_t stride, const amp_dt_t *old);
/* The general layout (struct, indexed, hindexed, ...).  With pad, the
 * extent is rounded up to the strictest alignment of the values in it
 * (as a C compiler pads a struct), unless a bound is sticky. */
amp_status_t amp_dt_make_struct(amp_dt_t *newdt, int count,
                                const amp_dt_part_t *parts, int pad);
/* old with bounds lb and lb + extent (both sticky). */
amp_status_t amp_dt_make_resized(amp_dt_t *newdt, const amp_dt_t *old,
                                 ptrdiff_t lb, ptrdiff_t extent);
/* An exact copy of old's layout. */
amp_status_t amp_dt_make_dup(amp_dt_t *newdt, const amp_dt_t *old);
/* The subarray subsizes at starts of an ndims array sizes of old, in C
 * (row-major, c_order) or Fortran order; lb 0, extent the whole array.
 * The arguments must already be valid (subsizes within sizes). */
amp_status_t amp_dt_make_subarray(amp_dt_t *newdt, int ndims, const int *sizes,
                                  const int *subsizes, const int *starts,
                                  int c_order, const amp_dt_t *old);
/* Frees what a constructor or the MPI layer allocated for dt. */
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
