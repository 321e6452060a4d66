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

#define AMP_TABLE_CHUNK 64

typedef struct amp_table {
    char **chunks;
    int nchunks;
    int first; /* lowest index ever handed out */
    size_t elem_size;
    int free_head; /* -1 when empty */
    int nlive;
} amp_table_t;

/* Indexes below first are never handed out (reserved for predefined
 * objects that are set up with amp_table_put). */
void amp_table_init(amp_table_t *t, size_t elem_size, int first);
void amp_table_cleanup(amp_table_t *t);

/* A zeroed object with obj.idx set, or NULL when out of memory. */
void *amp_table_alloc(amp_table_t *t);
/* The object at a reserved index idx (< first), zeroed and live. */
void *amp_table_put(amp_table_t *t, int idx);
void amp_table_free(amp_table_t *t, void *obj);

static inline void *amp_table_lookup(const amp_table_t *t, int idx)
{
    if (idx < 0 || idx >= t->nchunks * AMP_TABLE_CHUNK)
        return NULL;
    amp_obj_t *o =
        (amp_obj_t *)(t->chunks[idx / AMP_TABLE_CHUNK] +
                      (size_t)(idx % AMP_TABLE_CHUNK) * t->elem_size);
    return o->live ? o : NULL;
}

#endif
