/* The communicators of a trace (comms.h). */
#include "trace/comms.h"

#include <stdlib.h>

static uint64_t key_of(int ctx, int world)
{
    return (uint64_t)(uint32_t)ctx << 32 | (uint32_t)world;
}

static size_t slot_of(const amp_tmap_t *m, uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    return (size_t)(h ^ h >> 29) & m->mask;
}

static int map_get(const amp_tmap_t *m, uint64_t key, uint64_t *val)
{
    if (!m->keys)
        return 0;
    for (size_t i = slot_of(m, key);; i = (i + 1) & m->mask) {
        if (m->keys[i] == 0)
            return 0;
        if (m->keys[i] == key + 1) {
            *val = m->vals[i];
            return 1;
        }
    }
}

static void map_place(amp_tmap_t *m, uint64_t key, uint64_t val)
{
    size_t i = slot_of(m, key);
    while (m->keys[i] != 0 && m->keys[i] != key + 1)
        i = (i + 1) & m->mask;
    m->used += m->keys[i] == 0;
    m->keys[i] = key + 1;
    m->vals[i] = val;
}

static amp_status_t map_put(amp_tmap_t *m, uint64_t key, uint64_t val)
{
    if (!m->keys || 2 * (m->used + 1) > m->mask + 1) {
        size_t n = m->keys ? 2 * (m->mask + 1) : 1024;
        amp_tmap_t g = {calloc(n, sizeof(uint64_t)),
                        calloc(n, sizeof(uint64_t)), n - 1, 0};
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return AMP_ERR_NOMEM;
        }
        for (size_t i = 0; m->keys && i <= m->mask; i++)
            if (m->keys[i])
                map_place(&g, m->keys[i] - 1, m->vals[i]);
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    map_place(m, key, val);
    return AMP_OK;
}

/* The communicator (ctx, first) of size members, made when new; -1. */
static int comm_of(amp_tcomms_t *t, int ctx, int first, int size)
{
    uint64_t v;
    if (map_get(&t->by_first, key_of(ctx, first), &v))
        return (int)v;
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        amp_tcomm_t *p = realloc(t->v, (size_t)cap * sizeof(*p));
        if (!p)
            return -1;
        t->v = p;
        t->cap = cap;
    }
    amp_tcomm_t *c = &t->v[t->n];
    *c = (amp_tcomm_t){
        ctx, first, size, 0, 0, malloc(sizeof(int) * (size_t)size), 0};
    if (!c->members ||
        map_put(&t->by_first, key_of(ctx, first), (uint64_t)t->n) != AMP_OK) {
        free(c->members);
        return -1;
    }
    for (int i = 0; i < size; i++)
        c->members[i] = -1;
    return t->n++;
}

amp_status_t amp_tcomms_member(amp_tcomms_t *t, int ctx, int world, int index,
                               int size, int first)
{
    if (ctx < 0 || world < 0 || first < 0 || size <= 0 || index < 0 ||
        index >= size)
        return AMP_OK; /* not a record this runtime writes: ignored */
    int k = comm_of(t, ctx, first, size);
    if (k < 0)
        return AMP_ERR_NOMEM;
    amp_tcomm_t *c = &t->v[k];
    if (c->size != size || c->members[index] >= 0)
        return AMP_OK; /* a second record of the same place */
    c->members[index] = world;
    c->filled++;
    return map_put(&t->by_member, key_of(ctx, world),
                   (uint64_t)k << 32 | (uint32_t)index);
}

void amp_tcomms_inter(amp_tcomms_t *t, int ctx, int world)
{
    uint64_t v;
    if (map_get(&t->by_member, key_of(ctx, world), &v))
        t->v[v >> 32].inter = 1;
}

void amp_tcomms_seal(amp_tcomms_t *t)
{
    for (int k = 0; k < t->n; k++)
        if (!t->v[k].inter && t->v[k].filled == t->v[k].size)
            t->v[k].id = ++t->ndefined;
}

int amp_tcomms_find(const amp_tcomms_t *t, int ctx, int world, int *me)
{
    uint64_t v;
    if (!map_get(&t->by_member, key_of(ctx, world), &v))
        return -1;
    *me = (int)(uint32_t)v;
    return (int)(v >> 32);
}

void amp_tcomms_free(amp_tcomms_t *t)
{
    for (int k = 0; k < t->n; k++)
        free(t->v[k].members);
    free(t->v);
    free(t->by_member.keys);
    free(t->by_member.vals);
    free(t->by_first.keys);
    free(t->by_first.vals);
}
