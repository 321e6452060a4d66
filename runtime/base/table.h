/*
 * table: a chunked array of fixed-size objects with a free list, used for
 * the per-rank handle tables.  Objects never move, so pointers to them stay
 * valid; an object's handle is its index.  Allocation after warm-up is a
 * free-list pop (no malloc).
 */
#ifndef AMP_BASE_TABLE_H
#define AMP_BASE_TABLE_H

#include "base/base.h"

/* First member of every object kept in a table. */
typedef struct amp_obj {
    int idx;
    int live;
    int next_free;
} amp_obj_t;

/* Chunk k holds AMP_TABLE_FIRST << k objects: a rank that makes few
 * objects of a kind (most ranks, of most kinds) keeps a few slots of each
 * table, not a fixed chunk of 64; a million ranks pay for that. */
#define AMP_TABLE_FIRST_LG 2
#define AMP_TABLE_FIRST (1 << AMP_TABLE_FIRST_LG)
#define AMP_TABLE_MAX_CHUNKS (31 - AMP_TABLE_FIRST_LG)

typedef struct amp_table {
    char **chunks;
    int nchunks;
    int first; /* lowest index ever handed out */
    unsigned elem_size;
    unsigned lent; /* AMP_TABLE_LENT_*: what the table must not free */
    int free_head; /* -1 when empty */
    int nlive;
} amp_table_t;

/* Parts of a table in space given by its owner (amp_table_init_in). */
enum { AMP_TABLE_LENT_ARRAY = 1, AMP_TABLE_LENT_CHUNK = 2 };

/* Indexes below first are never handed out (reserved for predefined
 * objects that are set up with amp_table_put). */
void amp_table_init(amp_table_t *t, size_t elem_size, int first);
/* The bytes amp_table_init_in takes: the first chunk and its place in the
 * chunk array. */
size_t amp_table_space(size_t elem_size);
/* amp_table_init with the first chunk already in space (16-byte aligned,
 * amp_table_space bytes, zeroed), which the table never frees: many
 * tables set up at once take no allocation each.  NULL: amp_table_init. */
void amp_table_init_in(amp_table_t *t, size_t elem_size, int first,
                       void *space);
void amp_table_cleanup(amp_table_t *t);

/* A zeroed object with obj.idx set, or NULL when out of memory. */
void *amp_table_alloc(amp_table_t *t);
/* The object at a reserved index idx (< first), zeroed and live. */
void *amp_table_put(amp_table_t *t, int idx);
void amp_table_free(amp_table_t *t, void *obj);

/* The number of indices the table's chunks hold. */
static inline int amp_table_capacity(const amp_table_t *t)
{
    return AMP_TABLE_FIRST * ((1 << t->nchunks) - 1);
}

/* Where index idx (below the capacity) lies: chunk k starts at
 * AMP_TABLE_FIRST * (2^k - 1). */
static inline amp_obj_t *amp_table_slot(const amp_table_t *t, int idx)
{
    unsigned u = (unsigned)idx + AMP_TABLE_FIRST;
    int k = 31 - __builtin_clz(u) - AMP_TABLE_FIRST_LG;
    return (amp_obj_t *)(t->chunks[k] +
                         (size_t)(u - (AMP_TABLE_FIRST << k)) * t->elem_size);
}

static inline void *amp_table_lookup(const amp_table_t *t, int idx)
{
    if (idx < 0 || idx >= amp_table_capacity(t))
        return NULL;
    amp_obj_t *o = amp_table_slot(t, idx);
    return o->live ? o : NULL;
}

#endif
