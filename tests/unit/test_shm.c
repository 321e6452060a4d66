/* The registry of the collective states that the members of a
 * communicator in one process share (runtime/coll/shm.c): thousands of
 * communicators, each found again by every member that attaches, through
 * the table's growth, and gone when the last member detaches. */
#include "unit.h"

#include "coll/shm.h"

#include <stdlib.h>
#include <string.h>

#define NCOMMS 3000
#define MEMBERS 4
#define NPES 2

UNIT_TEST(shm_registry_finds_each_communicators_state)
{
    static amp_coll_shm_t *first[NCOMMS];
    amp_coll_shm_registry_t reg;
    memset(&reg, 0, sizeof(reg));
    int rank_pe[MEMBERS * NCOMMS];
    for (int r = 0; r < MEMBERS * NCOMMS; r++)
        rank_pe[r] = r % NPES;
    /* Communicator c: context 10 + c / 2, members c, c + NCOMMS, ...
     * (two communicators share each context, as colours of a split do). */
    for (int round = 0; round < 2; round++)
        for (int c = 0; c < NCOMMS; c++) {
            int world[MEMBERS];
            for (int i = 0; i < MEMBERS; i++)
                world[i] = c + i * NCOMMS;
            amp_coll_shm_members_t m = {10 + c / 2, MEMBERS, world, 0, MEMBERS};
            amp_coll_shm_t *s = NULL;
            UNIT_EQ(amp_coll_shm_attach(&reg, rank_pe, NPES, &m, &s), AMP_OK);
            UNIT_TRUE(s != NULL);
            if (round == 0) {
                for (int d = 0; d < c; d++)
                    if (first[d] == s)
                        UNIT_EQ(d, c);
                first[c] = s;
            } else {
                UNIT_TRUE(s == first[c]);
            }
        }
    UNIT_EQ(reg.count, NCOMMS);
    UNIT_TRUE(reg.nbuckets > NCOMMS);
    for (int round = 0; round < 2; round++)
        for (int c = 0; c < NCOMMS; c++)
            amp_coll_shm_detach(&reg, first[c]);
    UNIT_EQ(reg.count, 0);
    for (size_t i = 0; i < reg.nbuckets; i++)
        UNIT_TRUE(reg.buckets[i] == NULL);
}
