/* Datatype descriptors: packing with holes, element counts. */
#include "unit.h"

#include "dt/dt.h"
#include "mpi.h"

#include <string.h>

struct di {
    double v;
    int i;
};

UNIT_TEST(dt_pair_type_has_a_hole)
{
    const amp_dt_t *dt = amp_dt_predefined(AMPI_DTID_MPI_DOUBLE_INT);
    UNIT_EQ(dt->size, sizeof(double) + sizeof(int));
    UNIT_EQ(dt->extent, sizeof(struct di));
    UNIT_TRUE(!dt->contig);
}

UNIT_TEST(dt_pack_and_unpack_skip_padding)
{
    const amp_dt_t *dt = amp_dt_predefined(AMPI_DTID_MPI_DOUBLE_INT);
    struct di in[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, out[3];
    unsigned char packed[3 * 12];
    memset(out, 0, sizeof(out));
    amp_dt_pack(dt, 3, in, packed);
    UNIT_EQ(amp_dt_unpack(dt, 3, out, packed, sizeof(packed)), 36);
    for (int k = 0; k < 3; k++) {
        UNIT_TRUE(out[k].v == in[k].v);
        UNIT_EQ(out[k].i, in[k].i);
    }
    /* a short message fills only what it has */
    memset(out, 0, sizeof(out));
    amp_dt_unpack(dt, 3, out, packed, 12 + 8);
    UNIT_EQ(out[0].i, 1);
    UNIT_TRUE(out[1].v == 2.5);
    UNIT_EQ(out[1].i, 0);
}

UNIT_TEST(dt_contiguous_of_contiguous_is_one_block)
{
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_contiguous(&d, 5, amp_dt_predefined(AMPI_DTID_MPI_INT)),
            AMP_OK);
    UNIT_EQ(d.size, 5 * sizeof(int));
    UNIT_EQ(d.extent, 5 * sizeof(int));
    UNIT_EQ(d.nblocks, 1);
    UNIT_TRUE(d.contig);
    UNIT_EQ(d.base_count, 5);
    UNIT_EQ(amp_dt_elements(&d, 7 * sizeof(int)), 7);
    UNIT_EQ(amp_dt_elements(&d, 7 * sizeof(int) + 1), -1);
    amp_dt_destroy(&d);
}

UNIT_TEST(dt_elements_of_pairs_count_both_members)
{
    const amp_dt_t *dt = amp_dt_predefined(AMPI_DTID_MPI_DOUBLE_INT);
    UNIT_EQ(amp_dt_elements(dt, 24), 4);
    UNIT_EQ(amp_dt_elements(dt, 12 + 8), 3);  /* two pairs' worth: 1 + 1 + 1 */
    UNIT_EQ(amp_dt_elements(dt, 12 + 4), -1); /* ends inside the double */
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    amp_dt_make_contiguous(&d, 2, dt);
    UNIT_EQ(d.nblocks, 4); /* holes keep the blocks apart */
    UNIT_EQ(amp_dt_elements(&d, 24), 4);
    amp_dt_destroy(&d);
}
