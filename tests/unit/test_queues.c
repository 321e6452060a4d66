/* The lock-free inbox, the envelope pool and the handle table. */
#include "unit.h"

#include "base/table.h"
#include "p2p/msg.h"
#include "sched/inbox.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PRODUCERS 3
#define PER_PRODUCER 200000

typedef struct item {
    amp_inbox_item_t link;
    int producer, seq;
} item_t;

static amp_inbox_t box;
static atomic_int started;

static void *produce(void *arg)
{
    int p = (int)(long)arg;
    atomic_fetch_add(&started, 1);
    while (atomic_load(&started) < PRODUCERS)
        ;
    for (int i = 0; i < PER_PRODUCER; i++) {
        item_t *it = malloc(sizeof(*it));
        it->producer = p;
        it->seq = i;
        amp_inbox_push(&box, &it->link);
    }
    return NULL;
}

/* Every item arrives exactly once, and each producer's items arrive in the
 * order it pushed them (MPI's non-overtaking rule rests on this). */
UNIT_TEST(inbox_keeps_each_producers_order)
{
    pthread_t t[PRODUCERS];
    int next[PRODUCERS] = {0};
    long total = 0;
    amp_inbox_init(&box);
    for (long p = 0; p < PRODUCERS; p++)
        pthread_create(&t[p], NULL, produce, (void *)p);
    while (total < (long)PRODUCERS * PER_PRODUCER) {
        amp_inbox_item_t *it = amp_inbox_take_all(&box);
        while (it) {
            item_t *x = (item_t *)it;
            it = it->next;
            UNIT_EQ(x->seq, next[x->producer]);
            next[x->producer]++;
            total++;
            free(x);
        }
    }
    for (int p = 0; p < PRODUCERS; p++) {
        pthread_join(t[p], NULL);
        UNIT_EQ(next[p], PER_PRODUCER);
    }
    UNIT_TRUE(amp_inbox_is_empty(&box));
}

UNIT_TEST(msg_pool_reuses_envelopes_locally)
{
    amp_msg_pool_t pool;
    memset(&pool, 0, sizeof(pool));
    pool.payload = 64;
    amp_msg_t *a = amp_msg_get(&pool);
    amp_msg_t *b = amp_msg_get(&pool);
    UNIT_TRUE(a != b);
    UNIT_TRUE(a->home == &pool);
    amp_msg_put(&pool, a);
    UNIT_TRUE(amp_msg_get(&pool) == a); /* last freed, first reused */
}

static amp_msg_pool_t owner, other;
static amp_msg_t *handed[100];

static void *give_back(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        amp_msg_put(&other, handed[i]);
    return NULL;
}

/* Envelopes freed by another PE go back to the pool they came from. */
UNIT_TEST(msg_pool_takes_back_envelopes_from_other_threads)
{
    pthread_t t;
    owner.payload = other.payload = 32;
    owner.owner = &owner;
    other.owner = &other;
    for (int i = 0; i < 100; i++)
        handed[i] = amp_msg_get(&owner);
    pthread_create(&t, NULL, give_back, NULL);
    pthread_join(t, NULL);
    UNIT_TRUE(other.free == NULL);
    int found = 0;
    for (int i = 0; i < 100; i++) {
        amp_msg_t *m = amp_msg_get(&owner);
        for (int j = 0; j < 100; j++)
            found += m == handed[j];
    }
    UNIT_EQ(found, 100);
}

/* A PE's pools of two sizes: an envelope of either goes back to its own
 * pool's free list, without the return stack, whichever of them the PE
 * names. */
UNIT_TEST(msg_pool_pools_of_one_pe_take_back_locally)
{
    amp_msg_pool_t big, small;
    memset(&big, 0, sizeof(big));
    memset(&small, 0, sizeof(small));
    big.payload = 4096;
    small.payload = 64;
    big.owner = small.owner = &big;
    amp_msg_t *a = amp_msg_get(&small);
    amp_msg_t *b = amp_msg_get(&big);
    amp_msg_put(&big, a);
    amp_msg_put(&small, b);
    UNIT_TRUE(small.free == a);
    UNIT_TRUE(big.free == b);
    UNIT_TRUE(atomic_load(&small.returned) == NULL);
    UNIT_TRUE(atomic_load(&big.returned) == NULL);
}

typedef struct obj {
    amp_obj_t obj;
    int payload;
} obj_t;

UNIT_TEST(table_hands_out_stable_reusable_indices)
{
    amp_table_t t;
    obj_t *objs[300];
    amp_table_init(&t, sizeof(obj_t), 2);
    for (int i = 0; i < 300; i++) {
        objs[i] = amp_table_alloc(&t);
        UNIT_TRUE(objs[i] != NULL);
        UNIT_TRUE(objs[i]->obj.idx >= 2); /* reserved ones are skipped */
        objs[i]->payload = i;
    }
    for (int i = 0; i < 300; i++)
        UNIT_TRUE(amp_table_lookup(&t, objs[i]->obj.idx) == objs[i]);
    int freed = objs[7]->obj.idx;
    amp_table_free(&t, objs[7]);
    UNIT_TRUE(amp_table_lookup(&t, freed) == NULL);
    UNIT_TRUE(amp_table_lookup(&t, 1) == NULL);
    UNIT_TRUE(amp_table_lookup(&t, -1) == NULL);
    UNIT_TRUE(amp_table_lookup(&t, 1 << 20) == NULL);
    obj_t *again = amp_table_alloc(&t);
    UNIT_EQ(again->obj.idx, freed);
    UNIT_EQ(again->payload, 0); /* handed out zeroed */
    UNIT_EQ(objs[299]->payload, 299);
    obj_t *reserved = amp_table_put(&t, 0);
    UNIT_TRUE(amp_table_lookup(&t, 0) == reserved);
    UNIT_EQ(t.nlive, 301);
    amp_table_cleanup(&t);
}

/* A table starts small and doubles: a rank that makes a few objects of a
 * kind pays for a few slots; indices stay dense across chunk edges. */
UNIT_TEST(table_grows_by_doubling_from_a_small_first_chunk)
{
    amp_table_t t;
    amp_table_init(&t, sizeof(obj_t), 1);
    obj_t *first = amp_table_alloc(&t);
    UNIT_EQ(first->obj.idx, 1);
    UNIT_EQ(t.nchunks, 1);
    UNIT_EQ(amp_table_capacity(&t), AMP_TABLE_FIRST);
    for (int i = 2; i < 1000; i++) {
        obj_t *o = amp_table_alloc(&t);
        UNIT_EQ(o->obj.idx, i); /* ascending, none skipped */
        o->payload = i;
    }
    /* 4 + 8 + ... + 512 + 1024 >= 1000 > 4 + ... + 512 */
    UNIT_EQ(t.nchunks, 8);
    UNIT_EQ(amp_table_capacity(&t), AMP_TABLE_FIRST * 255);
    for (int i = 2; i < 1000; i++) {
        obj_t *o = amp_table_lookup(&t, i);
        UNIT_TRUE(o != NULL);
        UNIT_EQ(o->payload, i);
    }
    UNIT_TRUE(amp_table_lookup(&t, 1000) == NULL); /* not handed out */
    UNIT_TRUE(amp_table_lookup(&t, amp_table_capacity(&t)) == NULL);
    obj_t *far = amp_table_put(&t, 5000); /* grows to hold it */
    UNIT_TRUE(far != NULL && amp_table_lookup(&t, 5000) == far);
    amp_table_cleanup(&t);
}

/* A table whose first chunk is in space of its owner's: its objects live
 * there, more go into chunks of its own, and neither the space nor its
 * first chunk is freed (a free of them would abort); a table without
 * space allocates as amp_table_init's. */
UNIT_TEST(table_first_chunk_in_space_lent_by_its_owner)
{
    _Alignas(16) char space[2][512];
    UNIT_TRUE(amp_table_space(sizeof(obj_t)) <= sizeof(space[0]));
    memset(space, 0, sizeof(space));
    amp_table_t t;
    amp_table_init_in(&t, sizeof(obj_t), 2, space[0]);
    UNIT_EQ(t.nchunks, 1);
    obj_t *reserved = amp_table_put(&t, 1);
    UNIT_TRUE((char *)reserved > space[0] &&
              (char *)reserved < space[0] + sizeof(space[0]));
    reserved->payload = -1;
    for (int i = 2; i < 40; i++) {
        obj_t *o = amp_table_alloc(&t);
        UNIT_EQ(o->obj.idx, i);
        o->payload = i;
    }
    UNIT_TRUE(t.nchunks > 1 && !(t.lent & AMP_TABLE_LENT_ARRAY));
    UNIT_TRUE(t.lent & AMP_TABLE_LENT_CHUNK);
    UNIT_EQ(((obj_t *)amp_table_lookup(&t, 1))->payload, -1);
    for (int i = 2; i < 40; i++)
        UNIT_EQ(((obj_t *)amp_table_lookup(&t, i))->payload, i);
    amp_table_cleanup(&t);
    amp_table_init_in(&t, sizeof(obj_t), 0, space[1]); /* never grows */
    UNIT_TRUE(amp_table_alloc(&t) != NULL);
    amp_table_cleanup(&t);
    amp_table_init_in(&t, sizeof(obj_t), 0, NULL);
    UNIT_TRUE(amp_table_alloc(&t) != NULL);
    UNIT_EQ(t.lent, 0);
    amp_table_cleanup(&t);
}
