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
 * A vector (hvector), a contiguous type or a struct of one entry beyond
 * the limit is kept regular instead: the blocks of one entry, repeated
 * over a loop nest (reps, dims); every walk over blocks repeats them.
 * Other types built from such a type are flattened, and fail at the limit
 * as before, except a struct or indexed type of more entries than the
 * limit: it may have as many blocks as entries (the program's own arrays
 * are that long).
 */
#ifndef AMP_DT_H
#define AMP_DT_H

#include "base/base.h"
#include "base/table.h"
#include "mpi.h" /* AMPI_DTID_COUNT */

#include <stddef.h>
#include <stdint.h>

/* Fortran REAL(16) (IEEE binary128), COMPLEX(16) and INTEGER(16) in C,
 * where the compiler has them (MPI_REAL16, MPI_COMPLEX32, MPI_INTEGER16). */
#if defined(__SIZEOF_FLOAT128__)
typedef __float128 amp_real16_t;
#define AMP_HAVE_REAL16 1
#elif defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113
typedef long double amp_real16_t;
#define AMP_HAVE_REAL16 1
#endif
#ifdef AMP_HAVE_REAL16
typedef struct amp_complex32 {
    amp_real16_t re, im;
} amp_complex32_t;
#endif
#if defined(__SIZEOF_INT128__)
typedef __int128 amp_int16_t;
#define AMP_HAVE_INTEGER16 1
#endif

typedef struct amp_dt_block {
    ptrdiff_t off;
    size_t len;
    uint32_t elem; /* size of the basic values in this block */
    uint32_t x32;  /* AMP_DT_X32_*: how the values convert to external32 */
} amp_dt_block_t;

/* What external32 (big-endian, MPI standard sizes) makes of a basic value:
 * plain values byte-swap whole, complex ones swap each half, long double
 * becomes IEEE binary128; C long and unsigned long become 4 bytes, wchar_t
 * 2 (the standard's sizes, smaller than this platform's). */
enum {
    AMP_DT_X32_PLAIN = 0,
    AMP_DT_X32_COMPLEX = 1,
    AMP_DT_X32_LDOUBLE = 2,
    AMP_DT_X32_LDCOMPLEX = 3,
    AMP_DT_X32_LONG = 4,
    AMP_DT_X32_ULONG = 5,
    AMP_DT_X32_WCHAR = 6,
};

/* Levels of a regular type's loop nest (amp_dt.dims). */
#define AMP_DT_MAX_DIMS 8

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
    /* A regular type whose element has more than AMP_DT_MAX_BLOCKS blocks
     * (a vector of many strided blocks, and types made of such): the
     * element is blocks[0 .. nblocks) repeated over a loop nest of ndims
     * levels, outermost first, repetition (i_0, ..., i_n) lying at
     * i_0 * strides[0] + ... + i_n * strides[n]; reps is how many
     * (amp_dt_reps: 0 or 1 means the blocks once), steps[k] how far the
     * next one lies when level k moves on (amp_dt_rep_next). */
    long long reps;
    int ndims;
    long long dims[AMP_DT_MAX_DIMS];
    ptrdiff_t strides[AMP_DT_MAX_DIMS], steps[AMP_DT_MAX_DIMS];
    int predefined;
    int committed;
    int combiner;
    int count;      /* MPI_Type_contiguous count */
    int old_handle; /* MPI_Type_contiguous old type */
    int flags;      /* AMP_DT_* below: what reductions may apply */
    size_t align;   /* strictest alignment of the basic values in it */
    int sticky;     /* AMP_DT_STICKY_*: bounds set explicitly */
    int base_id;    /* predefined type it repeats (for reductions), or 0 */
    long long base_count; /* how many base_id values one element holds */
    int base_holes;       /* 1: they are not back to back from offset 0 */
    const char *name;
    /* Set by the MPI layer: the constructor's arguments for
     * MPI_Type_get_contents, a name, and references from other types. */
    int f90;       /* from MPI_Type_create_f90_*: never freed */
    int refs;      /* user_refs + the types whose contents name it */
    int user_refs; /* handles the user holds (and must free) */
    int nints, naddrs, ntypes;
    int *ints;
    ptrdiff_t *addrs;
    int *types;
    char *owned_name;
    struct amp_attr *attrs; /* mpi/attr/attr.c: attributes cached on it */
    /* mpi/large.c: a type made to hold a large count, large_count
     * elements (of extent large_extent) of type handle large_of; 0 else */
    int large_of;
    long long large_count;
    ptrdiff_t large_extent;
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

/* How many times one element repeats its blocks (amp_dt.reps). */
static inline long long amp_dt_reps(const amp_dt_t *dt)
{
    return dt->reps > 1 ? dt->reps : 1;
}

/* Moves idx (dt->ndims counters, zero at the first repetition) to the
 * next repetition of dt's blocks and returns how far it lies from the one
 * before; after the last it is back at zero (and the return value 0). */
static inline ptrdiff_t amp_dt_rep_next(const amp_dt_t *dt, long long *idx)
{
    for (int k = dt->ndims - 1; k >= 0; k--) {
        if (++idx[k] < dt->dims[k])
            return dt->steps[k];
        idx[k] = 0;
    }
    return 0;
}

/* Sets reps and steps from dims and strides (ndims of them). */
void amp_dt_rep_init(amp_dt_t *dt);

/* Classes of basic types, for the reductions that apply to each. */
enum {
    AMP_DT_INTEGER = 1 << 0,
    AMP_DT_FLOAT = 1 << 1,
    AMP_DT_COMPLEX = 1 << 2,
    AMP_DT_LOGICAL = 1 << 3,
    AMP_DT_BYTE = 1 << 4,
    AMP_DT_PAIR = 1 << 5,
};

/* The predefined types by id (predefined.c); entries without a name are
 * ids no type has. */
extern const amp_dt_t amp_dt_predefined_table[AMPI_DTID_COUNT];

/* The predefined type with id (1 .. AMPI_DTID_COUNT-1), or NULL.  Inline:
 * every send and receive of a predefined type looks its type up. */
static inline const amp_dt_t *amp_dt_predefined(int id)
{
    if (id <= 0 || id >= AMPI_DTID_COUNT || !amp_dt_predefined_table[id].name)
        return NULL;
    return &amp_dt_predefined_table[id];
}

/* Fills new as count copies of old, back to back. */
AMP_MUST_USE amp_status_t amp_dt_make_contiguous(amp_dt_t *newdt, int count,
                                                 const amp_dt_t *old);
/* count entries of blocklen copies of old, stride bytes apart (the
 * vector and hvector layouts). */
AMP_MUST_USE amp_status_t amp_dt_make_hvector(amp_dt_t *newdt, int count,
                                              size_t blocklen, ptrdiff_t stride,
                                              const amp_dt_t *old);
/* The general layout (struct, indexed, hindexed, ...).  With pad, the
 * extent is rounded up to the strictest alignment of the values in it
 * (as a C compiler pads a struct), unless a bound is sticky. */
AMP_MUST_USE amp_status_t amp_dt_make_struct(amp_dt_t *newdt, int count,
                                             const amp_dt_part_t *parts,
                                             int pad);
/* old with bounds lb and lb + extent (both sticky). */
AMP_MUST_USE amp_status_t amp_dt_make_resized(amp_dt_t *newdt,
                                              const amp_dt_t *old, ptrdiff_t lb,
                                              ptrdiff_t extent);
/* An exact copy of old's layout. */
AMP_MUST_USE amp_status_t amp_dt_make_dup(amp_dt_t *newdt, const amp_dt_t *old);
/* The subarray subsizes at starts of an ndims array sizes of old, in C
 * (row-major, c_order) or Fortran order; lb 0, extent the whole array.
 * The arguments must already be valid (subsizes within sizes). */
AMP_MUST_USE amp_status_t amp_dt_make_subarray(amp_dt_t *newdt, int ndims,
                                               const int *sizes,
                                               const int *subsizes,
                                               const int *starts, int c_order,
                                               const amp_dt_t *old);
/* One dimension of a distributed array (MPI_Type_create_darray). */
enum { AMP_DT_DIST_BLOCK = 1, AMP_DT_DIST_CYCLIC, AMP_DT_DIST_NONE };
typedef struct amp_dt_darray_dim {
    int gsize;   /* elements of the global array in this dimension */
    int distrib; /* AMP_DT_DIST_* */
    int darg;    /* block size (block: >= ceil(gsize/psize); cyclic: k) */
    int psize;   /* processes in this dimension */
} amp_dt_darray_dim_t;
/* The part of an ndims global array of old that the process at coords
 * (one per dimension) owns, in C (row-major, c_order) or Fortran order;
 * lb 0, extent the whole global array.  The arguments must already be
 * valid, darg resolved (no default left). */
AMP_MUST_USE amp_status_t amp_dt_make_darray(amp_dt_t *newdt, int ndims,
                                             const amp_dt_darray_dim_t *dims,
                                             const int *coords, int c_order,
                                             const amp_dt_t *old);
/* Frees what a constructor or the MPI layer allocated for dt. */
void amp_dt_destroy(amp_dt_t *dt);

/* The data blocks of one element of dt, in type-map order (*n of them);
 * one is room for the single block of a type without a list.  A regular
 * type (amp_dt_reps > 1) repeats them (amp_dt_rep_next). */
const amp_dt_block_t *amp_dt_blocks(const amp_dt_t *dt, int *n,
                                    amp_dt_block_t *one);

/* Copies the data of count elements from src to dst, both in dt's layout;
 * the bytes between the blocks stay as they were. */
void amp_dt_copy(const amp_dt_t *dt, int count, void *dst, const void *src);

/* Copies the first bytes data bytes (in type-map order) of sdt elements
 * at sbuf into rdt elements at rbuf: one copy between two layouts of the
 * same type signature.  A NULL type stands for plain bytes at the
 * address; the caller makes sure bytes fit both sides.  Returns the number
 * of pieces it copied (one memcpy each): the data of contiguous types
 * (MPI_BYTE, a contiguous vector...) is one run, however many elements. */
size_t amp_dt_copy_typed(const amp_dt_t *sdt, const void *sbuf,
                         const amp_dt_t *rdt, void *rbuf, size_t bytes);

/* Copies count elements from buf into the packed buffer out
 * (count * size bytes). */
void amp_dt_pack(const amp_dt_t *dt, int count, const void *buf, void *out);

/* Copies at most bytes packed bytes from in into count elements at buf;
 * returns the bytes used. */
size_t amp_dt_unpack(const amp_dt_t *dt, int count, void *buf, const void *in,
                     size_t bytes);

/* The AMP_DT_X32_* kind of the values of a type without a block list (a
 * predefined one). */
uint32_t amp_dt_x32_kind(const amp_dt_t *dt);
/* external32 (MPI_Pack_external): the bytes count elements of dt take,
 * or -1 when a value in dt has no external32 form on this platform. */
long long amp_dt_x32_size(const amp_dt_t *dt, int count);
/* Converts count elements in place between native and external32 byte
 * order: packed data (a stream in type-map order) when packed, else data
 * in dt's layout at buf.  to_x32: native -> external32.  Only for types
 * without values that change size (amp_dt_x32_resizes). */
void amp_dt_x32_convert(const amp_dt_t *dt, int count, void *buf, int packed,
                        int to_x32);
/* Whether dt holds values whose external32 size is not their size here
 * (long, unsigned long, wchar_t). */
int amp_dt_x32_resizes(const amp_dt_t *dt);
/* count elements of dt packed with their native sizes at in (type-map
 * order) -> external32 at out (amp_dt_x32_size bytes); AMP_ERR_ARG when
 * a value does not fit its external32 size (out is then incomplete). */
AMP_MUST_USE amp_status_t amp_dt_x32_narrow(const amp_dt_t *dt, int count,
                                            const void *in, void *out);
/* The reverse: external32 at in -> native packed values at out. */
void amp_dt_x32_widen(const amp_dt_t *dt, int count, const void *in, void *out);

/* Basic elements in bytes of packed dt data, or -1 if bytes ends inside a
 * basic value. */
long long amp_dt_elements(const amp_dt_t *dt, size_t bytes);
/* The reverse: the packed bytes of the first elements basic elements of
 * dt data (elements of dt, then the first ones of the next). */
long long amp_dt_elements_bytes(const amp_dt_t *dt, long long elements);

/* buf + dt->true_lb: where the data of dt in buf begins.  In integer
 * arithmetic, so that a NULL buf (no data: a count of 0) is no undefined
 * behaviour. */
static inline void *amp_dt_data(const void *buf, const amp_dt_t *dt)
{
    return (void *)((uintptr_t)buf + (uintptr_t)dt->true_lb);
}

/* Bytes from the first to the last data byte of count elements. */
static inline size_t amp_dt_span(const amp_dt_t *dt, int count)
{
    if (count <= 0 || dt->size == 0)
        return 0;
    return (size_t)((count - 1) * dt->extent + dt->true_extent);
}

#endif
