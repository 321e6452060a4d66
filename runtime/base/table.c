#include "base/table.h"

#include <stdlib.h>
#include <string.h>

void amp_table_init(amp_table_t *t, size_t elem_size, int first)
{
    memset(t, 0, sizeof(*t));
    t->elem_size = (unsigned)AMP_ROUND_UP(elem_size, 16);
    t->free_head = -1;
    t->first = first;
}

size_t amp_table_space(size_t elem_size)
{
    return 16 + AMP_TABLE_FIRST * AMP_ROUND_UP(elem_size, 16);
}

static void add_chunk(amp_table_t *t, char *chunk);

void amp_table_init_in(amp_table_t *t, size_t elem_size, int first, void *space)
{
    amp_table_init(t, elem_size, first);
    if (!space)
        return;
    t->chunks = space;
    t->lent = AMP_TABLE_LENT_ARRAY | AMP_TABLE_LENT_CHUNK;
    add_chunk(t, (char *)space + 16);
}

void amp_table_cleanup(amp_table_t *t)
{
    for (int i = 0; i < t->nchunks; i++)
        if (i > 0 || !(t->lent & AMP_TABLE_LENT_CHUNK))
            free(t->chunks[i]);
    if (!(t->lent & AMP_TABLE_LENT_ARRAY))
        free(t->chunks);
    memset(t, 0, sizeof(*t));
    t->free_head = -1;
}

/* Chunk (zeroed, its size next in line) becomes the last; its slots at or
 * above t->first go on the free list. */
static void add_chunk(amp_table_t *t, char *chunk)
{
    int base = amp_table_capacity(t), n = AMP_TABLE_FIRST << t->nchunks;
    t->chunks[t->nchunks++] = chunk;
    for (int i = n - 1; i >= 0; i--) {
        amp_obj_t *o = amp_table_slot(t, base + i);
        o->idx = base + i;
        if (base + i < t->first)
            continue;
        o->next_free = t->free_head;
        t->free_head = base + i;
    }
}

/* The chunk array with room for one more: a lent array (one entry) is
 * copied out, the table's own grows in place. */
static char **array_for_more(amp_table_t *t)
{
    size_t bytes = (size_t)(t->nchunks + 1) * sizeof(char *);
    if (!(t->lent & AMP_TABLE_LENT_ARRAY))
        return realloc(t->chunks, bytes);
    char **chunks = malloc(bytes);
    if (chunks) {
        memcpy(chunks, t->chunks, (size_t)t->nchunks * sizeof(char *));
        t->lent &= ~(unsigned)AMP_TABLE_LENT_ARRAY;
    }
    return chunks;
}

/* Adds one chunk, twice the last. */
static amp_status_t grow(amp_table_t *t)
{
    if (t->nchunks == AMP_TABLE_MAX_CHUNKS)
        return AMP_ERR_NOMEM;
    char **chunks = array_for_more(t);
    if (!chunks)
        return AMP_ERR_NOMEM;
    t->chunks = chunks;
    char *chunk = calloc((size_t)AMP_TABLE_FIRST << t->nchunks, t->elem_size);
    if (!chunk)
        return AMP_ERR_NOMEM;
    add_chunk(t, chunk);
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
