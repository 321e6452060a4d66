/* Datatype descriptors: packing with holes, element counts. */
#include "unit.h"

#include "dt/dt.h"
#include "mpi.h"

#include <stdlib.h>
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
    UNIT_EQ(amp_dt_make_contiguous(&d, 2, dt), AMP_OK);
    UNIT_EQ(d.nblocks, 4); /* holes keep the blocks apart */
    UNIT_EQ(amp_dt_elements(&d, 24), 4);
    amp_dt_destroy(&d);
}

static const amp_dt_t *pre(int id)
{
    return amp_dt_predefined(id);
}

UNIT_TEST(dt_vector_of_ints_has_one_block_per_row)
{
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    /* 3 blocks of 2 ints, 5 ints apart */
    UNIT_EQ(
        amp_dt_make_hvector(&d, 3, 2, 5 * sizeof(int), pre(AMPI_DTID_MPI_INT)),
        AMP_OK);
    UNIT_EQ(d.nblocks, 3);
    UNIT_EQ(d.size, 6 * sizeof(int));
    UNIT_EQ(d.lb, 0);
    UNIT_EQ(d.extent, 12 * sizeof(int));
    UNIT_EQ(d.true_extent, 12 * sizeof(int));
    UNIT_EQ(d.blocks[2].off, 10 * sizeof(int));
    UNIT_EQ(d.blocks[2].len, 2 * sizeof(int));
    UNIT_TRUE(!d.contig);
    /* holes: reductions walk the blocks instead of the whole span */
    UNIT_EQ(d.base_id, amp_dt_predefined(AMPI_DTID_MPI_INT)->base_id);
    UNIT_EQ(d.base_holes, 1);
    UNIT_EQ(amp_dt_elements(&d, 6 * sizeof(int)), 6);
    amp_dt_destroy(&d);
}

UNIT_TEST(dt_vector_with_touching_blocks_merges)
{
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_hvector(&d, 1000000, 2, 2 * sizeof(double),
                                pre(AMPI_DTID_MPI_DOUBLE)),
            AMP_OK);
    UNIT_EQ(d.nblocks, 1);
    UNIT_TRUE(d.contig);
    UNIT_EQ(d.base_id, AMPI_DTID_MPI_DOUBLE);
    UNIT_EQ(d.base_count, 2000000);
    amp_dt_destroy(&d);
}

UNIT_TEST(dt_negative_stride_and_displacement_bounds)
{
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_hvector(&d, 3, 1, -8, pre(AMPI_DTID_MPI_INT)), AMP_OK);
    UNIT_EQ(d.lb, -16);
    UNIT_EQ(d.extent, 20);
    UNIT_EQ(d.true_lb, -16);
    UNIT_EQ(d.blocks[0].off, 0); /* type-map order kept */
    UNIT_EQ(d.blocks[2].off, -16);
    amp_dt_destroy(&d);
}

struct padded {
    int a;
    double b;
    char c;
};

UNIT_TEST(dt_struct_extent_is_padded_like_c)
{
    amp_dt_part_t parts[3] = {
        {offsetof(struct padded, a), 1, pre(AMPI_DTID_MPI_INT)},
        {offsetof(struct padded, b), 1, pre(AMPI_DTID_MPI_DOUBLE)},
        {offsetof(struct padded, c), 1, pre(AMPI_DTID_MPI_CHAR)}};
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_struct(&d, 3, parts, 1), AMP_OK);
    UNIT_EQ(d.size, sizeof(int) + sizeof(double) + 1);
    UNIT_EQ(d.extent, sizeof(struct padded));
    UNIT_EQ(d.true_extent, offsetof(struct padded, c) + 1);
    UNIT_EQ(d.nblocks, 3);
    UNIT_EQ(d.basic_size, 0);
    UNIT_EQ(d.base_id, 0);
    amp_dt_destroy(&d);
}

UNIT_TEST(dt_resized_bounds_are_sticky)
{
    amp_dt_t r, s;
    memset(&r, 0, sizeof(r));
    memset(&s, 0, sizeof(s));
    UNIT_EQ(amp_dt_make_resized(&r, pre(AMPI_DTID_MPI_INT), -4, 16), AMP_OK);
    UNIT_EQ(r.lb, -4);
    UNIT_EQ(r.extent, 16);
    UNIT_EQ(r.true_lb, 0);
    UNIT_TRUE(!r.contig);
    /* an int placed further out does not move the sticky upper bound */
    amp_dt_part_t parts[2] = {{0, 2, &r}, {100, 1, pre(AMPI_DTID_MPI_INT)}};
    UNIT_EQ(amp_dt_make_struct(&s, 2, parts, 1), AMP_OK);
    UNIT_EQ(s.lb, -4);
    UNIT_EQ(s.extent, 32);
    UNIT_EQ(s.true_extent, 104);
    UNIT_EQ(s.nblocks, 3);
    amp_dt_destroy(&s);
    amp_dt_destroy(&r);
}

UNIT_TEST(dt_lb_ub_markers_set_bounds)
{
    amp_dt_part_t parts[3] = {{-8, 1, pre(AMPI_DTID_MPI_LB)},
                              {0, 1, pre(AMPI_DTID_MPI_INT)},
                              {32, 1, pre(AMPI_DTID_MPI_UB)}};
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_struct(&d, 3, parts, 1), AMP_OK);
    UNIT_EQ(d.lb, -8);
    UNIT_EQ(d.extent, 40);
    UNIT_EQ(d.size, sizeof(int));
    amp_dt_destroy(&d);
}

UNIT_TEST(dt_subarray_c_and_fortran_order)
{
    int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
    amp_dt_t c, f;
    memset(&c, 0, sizeof(c));
    memset(&f, 0, sizeof(f));
    UNIT_EQ(amp_dt_make_subarray(&c, 2, sizes, subsizes, starts, 1,
                                 pre(AMPI_DTID_MPI_INT)),
            AMP_OK);
    /* rows 1..2, columns 2..4 of a 4 x 6 row-major array */
    UNIT_EQ(c.lb, 0);
    UNIT_EQ(c.extent, 24 * sizeof(int));
    UNIT_EQ(c.nblocks, 2);
    UNIT_EQ(c.blocks[0].off, (1 * 6 + 2) * sizeof(int));
    UNIT_EQ(c.blocks[1].off, (2 * 6 + 2) * sizeof(int));
    UNIT_EQ(c.blocks[1].len, 3 * sizeof(int));
    UNIT_EQ(amp_dt_make_subarray(&f, 2, sizes, subsizes, starts, 0,
                                 pre(AMPI_DTID_MPI_INT)),
            AMP_OK);
    /* column-major: 3 columns of 2, columns 4 ints apart */
    UNIT_EQ(f.nblocks, 3);
    UNIT_EQ(f.blocks[0].off, (2 * 4 + 1) * sizeof(int));
    UNIT_EQ(f.blocks[0].len, 2 * sizeof(int));
    UNIT_EQ(f.blocks[2].off, (4 * 4 + 1) * sizeof(int));
    amp_dt_destroy(&c);
    amp_dt_destroy(&f);
}

UNIT_TEST(dt_too_many_blocks_fail_cleanly)
{
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    /* alike, evenly spaced but for the last: not regular, more blocks
     * than AMP_DT_MAX_BLOCKS */
    const int n = AMP_DT_MAX_BLOCKS + 1;
    amp_dt_part_t *parts = malloc((size_t)n * sizeof(*parts));
    UNIT_TRUE(parts != NULL);
    if (!parts)
        return;
    for (int k = 0; k < n; k++)
        parts[k] = (amp_dt_part_t){(ptrdiff_t)k * 8 + (k == n - 1 ? 4 : 0), 1,
                                   pre(AMPI_DTID_MPI_INT)};
    /* no more blocks than entries listed: made, every block listed */
    UNIT_EQ(amp_dt_make_struct(&d, n, parts, 0), AMP_OK);
    UNIT_EQ(d.nblocks, n);
    UNIT_EQ(d.reps, 0);
    UNIT_EQ(d.blocks[n - 1].off, (ptrdiff_t)(n - 1) * 8 + 4);
    UNIT_EQ(d.size, (size_t)n * sizeof(int));
    amp_dt_destroy(&d);
    /* entries of two blocks each: twice as many blocks as entries */
    amp_dt_t pair;
    memset(&pair, 0, sizeof(pair));
    UNIT_EQ(amp_dt_make_hvector(&pair, 2, 1, 8, pre(AMPI_DTID_MPI_INT)),
            AMP_OK);
    for (int k = 0; k < n; k++)
        parts[k] =
            (amp_dt_part_t){(ptrdiff_t)k * 16 + (k == n - 1 ? 4 : 0), 1, &pair};
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_struct(&d, n, parts, 0), AMP_ERR_NOMEM);
    amp_dt_destroy(&pair);
    free(parts);
    UNIT_EQ(
        amp_dt_make_hvector(&d, 4, 1, PTRDIFF_MAX / 2, pre(AMPI_DTID_MPI_INT)),
        AMP_ERR_ARG);
}

/* A vector of more blocks than a type lists: one block repeated; a
 * contiguous type of two of it (resized) nests a level outside. */
UNIT_TEST(dt_regular_vector_is_a_loop_nest)
{
    const long long n = AMP_DT_MAX_BLOCKS + 1;
    amp_dt_t v, r, two;
    memset(&v, 0, sizeof(v));
    memset(&r, 0, sizeof(r));
    memset(&two, 0, sizeof(two));
    UNIT_EQ(amp_dt_make_hvector(&v, (int)n, 1, 8, pre(AMPI_DTID_MPI_INT)),
            AMP_OK);
    UNIT_EQ(v.nblocks, 1);
    UNIT_EQ(v.reps, n);
    UNIT_EQ(v.ndims, 1);
    UNIT_EQ(v.strides[0], 8);
    UNIT_EQ(v.size, (size_t)n * 4);
    UNIT_EQ(v.extent, (ptrdiff_t)(n - 1) * 8 + 4);
    UNIT_EQ(amp_dt_elements(&v, 12), 3);
    UNIT_EQ(amp_dt_make_resized(&r, &v, 0, 4), AMP_OK);
    UNIT_EQ(amp_dt_make_contiguous(&two, 2, &r), AMP_OK);
    UNIT_EQ(two.ndims, 2);
    UNIT_EQ(two.dims[0], 2);
    UNIT_EQ(two.strides[0], 4);
    UNIT_EQ(two.reps, 2 * n);
    /* the walk: (0, 0), (0, 1) .. (0, n-1), then (1, 0) one int in */
    long long idx[AMP_DT_MAX_DIMS] = {0};
    UNIT_EQ(amp_dt_rep_next(&two, idx), 8);
    ptrdiff_t at = 8;
    for (long long k = 2; k < n; k++)
        at += amp_dt_rep_next(&two, idx);
    UNIT_EQ(at, (ptrdiff_t)(n - 1) * 8);
    at += amp_dt_rep_next(&two, idx);
    UNIT_EQ(at, 4);
    amp_dt_destroy(&two);
    amp_dt_destroy(&r);
    amp_dt_destroy(&v);
}

UNIT_TEST(dt_indexed_pack_round_trip)
{
    const amp_dt_t *i = pre(AMPI_DTID_MPI_INT);
    amp_dt_part_t parts[3] = {{5 * 4, 2, i}, {0, 1, i}, {9 * 4, 1, i}};
    amp_dt_t d;
    memset(&d, 0, sizeof(d));
    UNIT_EQ(amp_dt_make_struct(&d, 3, parts, 0), AMP_OK);
    UNIT_EQ(d.extent, 10 * sizeof(int));
    int in[20], out[20], packed[8];
    for (int k = 0; k < 20; k++)
        in[k] = k;
    amp_dt_pack(&d, 2, in, packed);
    int want[8] = {5, 6, 0, 9, 15, 16, 10, 19};
    for (int k = 0; k < 8; k++)
        UNIT_EQ(packed[k], want[k]);
    memset(out, 0, sizeof(out));
    UNIT_EQ(amp_dt_unpack(&d, 2, out, packed, sizeof(packed)), sizeof(packed));
    UNIT_EQ(out[16], 16);
    UNIT_EQ(out[1], 0);
    amp_dt_destroy(&d);
}

/* A typed copy walks contiguous data as one run, whatever the number of
 * elements (MPI_BYTE was copied a byte at a time); types with gaps are
 * copied block by block into the right places. */
UNIT_TEST(dt_copy_typed_contiguous_is_one_piece)
{
    enum { N = 4096 };
    static unsigned char src[N], dst[N];
    for (int k = 0; k < N; k++)
        src[k] = (unsigned char)(k * 7 + 1);
    const amp_dt_t *byte = amp_dt_predefined(AMPI_DTID_MPI_BYTE);
    const amp_dt_t *dbl = amp_dt_predefined(AMPI_DTID_MPI_DOUBLE);
    UNIT_EQ(amp_dt_copy_typed(byte, src, byte, dst, N), 1);
    UNIT_EQ(memcmp(src, dst, N), 0);
    memset(dst, 0, N);
    UNIT_EQ(amp_dt_copy_typed(dbl, src, NULL, dst, N), 1);
    UNIT_EQ(memcmp(src, dst, N), 0);

    /* 2 elements of hvector(2 blocks of 1 int, 2 ints apart) */
    amp_dt_t v;
    memset(&v, 0, sizeof(v));
    UNIT_EQ(amp_dt_make_hvector(&v, 2, 1, 2 * sizeof(int),
                                amp_dt_predefined(AMPI_DTID_MPI_INT)),
            AMP_OK);
    int in[4] = {1, 2, 3, 4}, out[8] = {0};
    UNIT_EQ(amp_dt_copy_typed(NULL, in, &v, out, sizeof(in)), 4);
    /* element 1 starts at the extent, 3 ints in */
    UNIT_EQ(out[0], 1);
    UNIT_EQ(out[1], 0);
    UNIT_EQ(out[2], 2);
    UNIT_EQ(out[3], 3);
    UNIT_EQ(out[4], 0);
    UNIT_EQ(out[5], 4);
    amp_dt_destroy(&v);
}
