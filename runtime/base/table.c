#include "base/table.h"

#include <stdlib.h>
#include <string.h>

void amp_table_init(amp_table_t *t, size_t elem_size, int first)
{
    memset(t, 0, sizeof(*t));
    t->elem_size = AMP_ROUND_UP(elem_size, 16);
    t->free_head = -1;
    t->first = first;
}

void amp_table_cleanup(amp_table_t *t)
{
    for (int i = 0; i < t->nchunks; i++)
        free(t->chunks[i]);
    free(t->chunks);
    memset(t, 0, sizeof(*t));
    t->free_head = -1;
}

/* Adds one chunk, twice the last; its slots at or above t->first go on
 * the free list. */
static amp_status_t grow(amp_table_t *t)
{
    if (t->nchunks == AMP_TABLE_MAX_CHUNKS)
        return AMP_ERR_NOMEM;
    int base = amp_table_capacity(t), n = AMP_TABLE_FIRST << t->nchunks;
    char **chunks =
        realloc(t->chunks, (size_t)(t->nchunks + 1) * sizeof(*chunks));
    if (!chunks)
        return AMP_ERR_NOMEM;
    t->chunks = chunks;
    char *chunk = calloc((size_t)n, t->elem_size);
    if (!chunk)
        return AMP_ERR_NOMEM;
    t->chunks[t->nchunks++] = chunk;
    for (int i = n - 1; i >= 0; i--) {
        amp_obj_t *o = amp_table_slot(t, base + i);
        o->idx = base + i;
        if (base + i < t->first)
            continue;
        o->next_free = t->free_head;
        t->free_head = base + i;
    }
    return AMP_OK;
}

void *amp_table_alloc(amp_table_t *t)
{
    while (t->free_head < 0)
        if (grow(t) != AMP_OK)
            return NULL;
    amp_obj_t *o = amp_table_slot(t, t->free_head);
    int idx = o->idx;
    t->free_head = o->next_free;
    memset(o, 0, t->elem_size);
    o->idx = idx;
    o->live = 1;
    t->nlive++;
    return o;
}

void *amp_table_put(amp_table_t *t, int idx)
{
    while (idx >= amp_table_capacity(t))
        if (grow(t) != AMP_OK)
            return NULL;
    amp_obj_t *o = amp_table_slot(t, idx);
    memset(o, 0, t->elem_size);
    o->idx = idx;
    o->live = 1;
    t->nlive++;
    return o;
}

void amp_table_free(amp_table_t *t, void *obj)
{
    amp_obj_t *o = obj;
    amp_assert(o->live);
    o->live = 0;
    o->next_free = t->free_head;
    t->free_head = o->idx;
    t->nlive--;
}
