/*
 * The large-count datatype constructors with values an int does not hold:
 * MPI_Type_vector_c and MPI_Type_create_hvector_c (a stride beyond INT_MAX
 * elements, a block of more than INT_MAX elements, both),
 * MPI_Type_create_indexed_block_c and _hindexed_block_c (such a block, such
 * displacements), MPI_Type_create_struct_c (such an entry),
 * MPI_Type_indexed_c and _create_hindexed_c (blocks of 2^31 and more
 * bytes beside small ones: size, extent, envelope and contents); the
 * type's size and extent are the standard's, and types of small values
 * still move data.  Values that describe more than an address holds are
 * MPI_ERR_ARG.
 */
#include "mpitest.h"

#include <limits.h>

#define BIG ((MPI_Count)INT_MAX + 10)

/* Size and extent of t, then t freed. */
static void check_type(MPI_Datatype t, MPI_Count size, MPI_Count extent)
{
    MPI_Count s = -1, lb = -1, e = -1;
    MT_CHECK_MPI(MPI_Type_commit(&t));
    MT_CHECK_MPI(MPI_Type_size_c(t, &s));
    MT_CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &e));
    MT_CHECK_INT_EQ(s, size);
    MT_CHECK_INT_EQ(lb, 0);
    MT_CHECK_INT_EQ(e, extent);
    MPI_Type_free(&t);
}

/* t (committed) has the combiner it says and the datatypes the envelope
 * counts: MPI_Type_get_contents_c returns them. */
static void check_described(MPI_Datatype t)
{
    MPI_Count ni = -1, na = -1, nl = -1, nd = -1;
    int combiner = -1;
    MT_CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &combiner));
    MT_CHECK(combiner == MPI_COMBINER_STRUCT ||
             combiner == MPI_COMBINER_RESIZED);
    MT_CHECK(ni >= 0 && ni <= 8 && na >= 0 && na <= 8 && nd >= 1 && nd <= 8);
    int ints[8];
    MPI_Aint addrs[8];
    MPI_Count larges[8];
    MPI_Datatype dts[8];
    MT_CHECK_MPI(
        MPI_Type_get_contents_c(t, ni, na, nl, nd, ints, addrs, larges, dts));
    for (MPI_Count i = 0; i < nd; i++) {
        int ni2, na2, nd2, c2;
        MT_CHECK_MPI(MPI_Type_get_envelope(dts[i], &ni2, &na2, &nd2, &c2));
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&dts[i]);
    }
}

/* Blocks of more than INT_MAX bytes beside small ones (nothing of that
 * size is allocated: the types are only described). */
static void check_indexed_big(void)
{
    const MPI_Count big = ((MPI_Count)1 << 31) + 3;
    MPI_Datatype t;
    /* hindexed: 5 bytes at 0, big bytes at 16, 7 bytes after them. */
    MPI_Count lens[3] = {5, big, 7}, hd[3] = {0, 16, 16 + big + 1};
    MT_CHECK_MPI(MPI_Type_create_hindexed_c(3, lens, hd, MPI_BYTE, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    check_described(t);
    check_type(t, 5 + big + 7, 16 + big + 1 + 7);
    /* indexed, in extents of a derived type not committed (two shorts,
     * contiguous): the constructors do not want it committed. */
    MPI_Datatype s2;
    MT_CHECK_MPI(MPI_Type_contiguous(2, MPI_SHORT, &s2));
    MPI_Count l2[2] = {big, 1}, d2[2] = {2, 0};
    MT_CHECK_MPI(MPI_Type_indexed_c(2, l2, d2, s2, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    check_described(t);
    check_type(t, 4 * big + 4, 4 * (big + 2));
    /* A double of every block: no padding of a struct (8 * big + 8 + 4
     * would pad to 8 * big + 16). */
    MPI_Count l3[2] = {big, 1}, d3[2] = {0, 8 * big + 4};
    MT_CHECK_MPI(MPI_Type_create_hindexed_c(2, l3, d3, MPI_DOUBLE, &t));
    check_type(t, 8 * big + 8, 8 * big + 12);
    MPI_Type_free(&s2);
    /* Displacements beyond an int, blocks that fit: as hindexed. */
    MPI_Count l4[2] = {1, 1}, d4[2] = {0, BIG};
    MT_CHECK_MPI(MPI_Type_indexed_c(2, l4, d4, MPI_INT, &t));
    check_type(t, 8, (BIG + 1) * 4);
    MPI_Count l5[2] = {-1, big};
    MT_CHECK_ERR_CLASS(MPI_Type_indexed_c(2, l5, d4, MPI_INT, &t), MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;

    /* Two ints BIG ints apart. */
    MT_CHECK_MPI(MPI_Type_vector_c(2, 1, BIG, MPI_INT, &t));
    check_type(t, 2 * 4, (BIG + 1) * 4);
    /* Three blocks of BIG chars, BIG + 7 apart. */
    MT_CHECK_MPI(MPI_Type_vector_c(3, BIG, BIG + 7, MPI_CHAR, &t));
    check_type(t, 3 * BIG, 2 * (BIG + 7) + BIG);
    /* One block of BIG shorts: as MPI_Type_contiguous_c. */
    MT_CHECK_MPI(MPI_Type_vector_c(1, BIG, 1, MPI_SHORT, &t));
    check_type(t, 2 * BIG, 2 * BIG);
    /* Bytes: two blocks of BIG doubles, 3 * 8 * BIG bytes apart. */
    MT_CHECK_MPI(
        MPI_Type_create_hvector_c(2, BIG, 3 * 8 * BIG, MPI_DOUBLE, &t));
    check_type(t, 2 * 8 * BIG, 3 * 8 * BIG + 8 * BIG);

    /* Blocks at displacements. */
    MPI_Count d2[2] = {0, 3 * BIG}, d3[2] = {0, BIG + 5}, d4[2] = {0, BIG};
    MT_CHECK_MPI(MPI_Type_create_hindexed_block_c(2, BIG, d2, MPI_CHAR, &t));
    check_type(t, 2 * BIG, 4 * BIG);
    MT_CHECK_MPI(MPI_Type_create_indexed_block_c(2, BIG, d3, MPI_SHORT, &t));
    check_type(t, 2 * 2 * BIG, 2 * (BIG + 5) + 2 * BIG);
    MT_CHECK_MPI(MPI_Type_create_indexed_block_c(2, 1, d4, MPI_INT, &t));
    check_type(t, 2 * 4, (BIG + 1) * 4);
    /* A struct with an entry of BIG doubles (extent padded to 8). */
    MPI_Count lens[2] = {BIG, 1}, sd[2] = {0, 8 * BIG + 8};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MT_CHECK_MPI(MPI_Type_create_struct_c(2, lens, sd, types, &t));
    check_type(t, 8 * BIG + 4, 8 * BIG + 16);

    /* Small values: data moves as with the int forms. */
    MPI_Count d5[2] = {1, 4}, l6[2] = {1, 3}, d6[2] = {0, 8};
    MPI_Datatype t6[2] = {MPI_INT, MPI_INT};
    MT_CHECK_MPI(MPI_Type_create_indexed_block_c(2, 2, d5, MPI_INT, &t));
    MT_CHECK_MPI(MPI_Type_commit(&t));
    MPI_Datatype s;
    MT_CHECK_MPI(MPI_Type_create_struct_c(2, l6, d6, t6, &s));
    MT_CHECK_MPI(MPI_Type_commit(&s));
    int in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {0};
    MT_CHECK_MPI(MPI_Sendrecv(in, 1, t, 0, 1, out, 1, s, 0, 1, MPI_COMM_SELF,
                              MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(out[0], 2); /* t: in[1], in[2], in[4], in[5] */
    MT_CHECK_INT_EQ(out[1], 0); /* s: out[0], out[2], out[3], out[4] */
    MT_CHECK_INT_EQ(out[2], 3);
    MT_CHECK_INT_EQ(out[3], 5);
    MT_CHECK_INT_EQ(out[4], 6);
    MPI_Type_free(&t);
    MPI_Type_free(&s);

    /* Small values: data moves as with MPI_Type_vector. */
    int src[12], dst[12] = {0};
    for (int i = 0; i < 12; i++)
        src[i] = i + 1;
    MT_CHECK_MPI(MPI_Type_vector_c(4, 2, 3, MPI_INT, &t));
    MPI_Type_commit(&t);
    MT_CHECK_MPI(MPI_Sendrecv(src, 1, t, 0, 0, dst, 1, t, 0, 0, MPI_COMM_SELF,
                              MPI_STATUS_IGNORE));
    for (int i = 0; i < 12; i++)
        MT_CHECK_INT_EQ(dst[i], i % 3 == 2 ? 0 : i + 1);
    MPI_Type_free(&t);

    MT_CHECK_ERR_CLASS(
        MPI_Type_vector_c(2, 1, (MPI_Count)1 << 62, MPI_DOUBLE, &t),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_vector_c(2, -1, BIG, MPI_INT, &t), MPI_ERR_ARG);
    check_indexed_big();
    return mt_finish_and_finalize();
}
