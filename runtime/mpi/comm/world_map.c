/* World maps (comm rank -> world rank) shared by the members of a
 * communicator that run in this process: every member of a communicator
 * holds the same map, and a million ranks split into a thousand
 * communicators of a thousand members each held a thousand maps of 4 KB
 * apiece per communicator where one a process does. */
#include "mpi/comm/comm.h"

#include <stdlib.h>
#include <string.h>

struct amp_world_map {
    struct amp_world_map *next; /* in its bucket */
    uint64_t hash;
    int size;
    int refs;
    int world[];
};

static void maps_lock(amp_world_maps_t *t)
{
    amp_spin_lock(&t->lock);
}

static void maps_unlock(amp_world_maps_t *t)
{
    amp_spin_unlock(&t->lock);
}

/* FNV-1a over the map's entries. */
static uint64_t map_hash(const int *world, int size)
{
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < size; i++) {
        h ^= (uint32_t)world[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Doubles the table when it holds more maps than buckets; left as it is
 * when out of memory (the chains grow longer). */
static void maps_grow(amp_world_maps_t *t)
{
    if (t->count < t->nbuckets)
        return;
    size_t n = t->nbuckets ? 2 * t->nbuckets : 64;
    amp_world_map_t **b = calloc(n, sizeof(*b));
    if (!b)
        return;
    for (size_t i = 0; i < t->nbuckets; i++)
        for (amp_world_map_t *m = t->buckets[i], *next; m; m = next) {
            next = m->next;
            m->next = b[m->hash & (n - 1)];
            b[m->hash & (n - 1)] = m;
        }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = n;
}

/* The entry equal to world, counted once more, or a new one; NULL when
 * out of memory.  Under the lock. */
static amp_world_map_t *find_or_add(amp_world_maps_t *t, const int *world,
                                    int size, uint64_t hash)
{
    maps_grow(t);
    if (!t->nbuckets)
        return NULL;
    amp_world_map_t **b = &t->buckets[hash & (t->nbuckets - 1)];
    for (amp_world_map_t *m = *b; m; m = m->next)
        if (m->hash == hash && m->size == size &&
            memcmp(m->world, world, (size_t)size * sizeof(int)) == 0) {
            m->refs++;
            return m;
        }
    amp_world_map_t *m = malloc(sizeof(*m) + (size_t)size * sizeof(int));
    if (!m)
        return NULL;
    *m = (amp_world_map_t){.next = *b, .hash = hash, .size = size, .refs = 1};
    memcpy(m->world, world, (size_t)size * sizeof(int));
    *b = m;
    t->count++;
    return m;
}

amp_world_map_t *amp_world_map_share(amp_world_maps_t *t, int *world, int size)
{
    uint64_t hash = map_hash(world, size);
    maps_lock(t);
    amp_world_map_t *m = find_or_add(t, world, size, hash);
    maps_unlock(t);
    free(world);
    return m;
}

const int *amp_world_map_ranks(const amp_world_map_t *m)
{
    return m ? m->world : NULL;
}

amp_world_map_t *amp_world_map_hold(amp_world_maps_t *t, amp_world_map_t *m,
                                    int k)
{
    maps_lock(t);
    m->refs += k;
    maps_unlock(t);
    return m;
}

void amp_world_map_drop(amp_world_maps_t *t, amp_world_map_t *m)
{
    if (!m)
        return;
    maps_lock(t);
    int last = --m->refs == 0;
    if (last) {
        amp_world_map_t **p = &t->buckets[m->hash & (t->nbuckets - 1)];
        while (*p != m)
            p = &(*p)->next;
        *p = m->next;
        t->count--;
    }
    maps_unlock(t);
    if (last)
        free(m);
}
