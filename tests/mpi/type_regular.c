/*
 * Vectors of more separate blocks than a type lists (AMP_DT_MAX_BLOCKS,
 * 4,194,304): MPI_Type_vector of 5,000,000 ints two apart, as MPICH's
 * putfence1 builds them.  Its size, extent and element counts are the
 * standard's; it moves data in a send to the partner, MPI_Pack /
 * MPI_Unpack, MPI_Pack_external, a put, a get and an accumulate on a
 * window, a received part counts its elements; types made of it stay
 * regular (a resized copy repeated, two copies of that, a struct of one
 * entry of it, as MPICH's datatype pools build them).  A type that would
 * have to list every block (a struct of one and two copies of it) fails with
 * MPI_ERR_NO_MEM.  A struct of NB evenly spaced ints and an indexed block
 * type of NB blocks two ints apart (the vector in disguise) work too, and
 * so does a struct of NB ints whose last one breaks the spacing (listed
 * block by block: no more blocks than entries).  The vector is a file
 * view: written through it, read back whole through the default view and
 * in part through it, its end found by a seek; a vector whose blocks go
 * backwards is refused as a view.
 */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NB 5000000 /* blocks: more than AMP_DT_MAX_BLOCKS */
#define SPAN (2 * (size_t)NB)

/* The value of entry i of rank r's strided array. */
static int val(int r, size_t i)
{
    return (int)((i * 7 + (size_t)r * 1000003) % 1000000007);
}

static void fill(int *a, int r)
{
    for (size_t i = 0; i < SPAN; i++)
        a[i] = val(r, i);
}

/* Whether the even entries of a are r's, and the odd ones odd. */
static int check_even(const int *a, int r, int odd)
{
    for (size_t i = 0; i < SPAN; i++)
        if (!MT_CHECK_INT_EQ(a[i], i % 2 ? odd : val(r, i)))
            return 0;
    return 1;
}

static void describe(MPI_Datatype vec)
{
    int size = -1;
    MPI_Aint lb = -1, extent = -1;
    MT_CHECK_MPI(MPI_Type_size(vec, &size));
    MT_CHECK_MPI(MPI_Type_get_extent(vec, &lb, &extent));
    MT_CHECK_INT_EQ(size, NB * 4);
    MT_CHECK_INT_EQ(lb, 0);
    MT_CHECK_INT_EQ(extent, (MPI_Aint)(SPAN - 1) * 4);
    MPI_Datatype two;
    MT_CHECK_ERR_CLASS(MPI_Type_create_struct(2, (int[]){1, 2},
                                              (MPI_Aint[]){0, 4},
                                              (MPI_Datatype[]){vec, vec}, &two),
                       MPI_ERR_NO_MEM);
}

/* A send of one vector, received packed: the even entries in order; the
 * first 3 ints of a second send, received as a vector, count 3 elements. */
static void sendrecv(MPI_Datatype vec, int *a, int *packed, int me, int peer)
{
    fill(a, me);
    MT_CHECK_MPI(MPI_Sendrecv(a, 1, vec, peer, 1, packed, NB, MPI_INT, peer, 1,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t k = 0; k < NB; k++)
        if (!MT_CHECK_INT_EQ(packed[k], val(peer, 2 * k)))
            break;
    for (size_t i = 0; i < SPAN; i++)
        a[i] = -1;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Sendrecv(packed, 3, MPI_INT, peer, 2, a, 1, vec, peer, 2,
                              MPI_COMM_WORLD, &st));
    int n = -1;
    MT_CHECK_MPI(MPI_Get_elements(&st, vec, &n));
    MT_CHECK_INT_EQ(n, 3);
    MT_CHECK_MPI(MPI_Get_count(&st, vec, &n));
    MT_CHECK_INT_EQ(n, MPI_UNDEFINED);
    MT_CHECK_INT_EQ(a[0], val(me, 0));
    MT_CHECK_INT_EQ(a[1], -1);
    MT_CHECK_INT_EQ(a[4], val(me, 4));
    MT_CHECK_INT_EQ(a[6], -1);
}

/* One element of t at a packed (NB ints), a cleared to cleared, then
 * unpacked back into a. */
static void round_trip(MPI_Datatype t, int *a, int *packed, int cleared)
{
    int pos = 0;
    MT_CHECK_MPI(MPI_Pack(a, 1, t, packed, NB * 4, &pos, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(pos, NB * 4);
    for (size_t i = 0; i < SPAN; i++)
        a[i] = cleared;
    pos = 0;
    MT_CHECK_MPI(MPI_Unpack(packed, NB * 4, &pos, a, 1, t, MPI_COMM_WORLD));
}

/* MPI_Pack, MPI_Unpack into a cleared array, then external32. */
static void pack(MPI_Datatype vec, int *a, int *packed, int me)
{
    int bytes = -1;
    MT_CHECK_MPI(MPI_Pack_size(1, vec, MPI_COMM_WORLD, &bytes));
    MT_CHECK(bytes >= NB * 4);
    fill(a, me);
    round_trip(vec, a, packed, 5);
    check_even(a, me, 5);
    MPI_Aint xpos = 0, xsize = -1;
    MT_CHECK_MPI(MPI_Pack_external_size("external32", 1, vec, &xsize));
    MT_CHECK_INT_EQ(xsize, (MPI_Aint)NB * 4);
    MT_CHECK_MPI(
        MPI_Pack_external("external32", a, 1, vec, packed, xsize, &xpos));
    MT_CHECK_INT_EQ(xpos, xsize);
    unsigned char *be = (unsigned char *)packed;
    int v1 = val(me, 2);
    MT_CHECK_INT_EQ(be[4 + 3], (unsigned char)(v1 & 0xff)); /* big-endian */
    for (size_t i = 0; i < SPAN; i++)
        a[i] = 9;
    xpos = 0;
    MT_CHECK_MPI(
        MPI_Unpack_external("external32", packed, xsize, &xpos, a, 1, vec));
    check_even(a, me, 9);
}

/* A window of SPAN ints at every rank, each -7 (*base: this rank's). */
static MPI_Win window(int **base)
{
    MPI_Win win = MPI_WIN_NULL;
    MT_CHECK_MPI(MPI_Win_allocate((MPI_Aint)SPAN * 4, 4, MPI_INFO_NULL,
                                  MPI_COMM_WORLD, base, &win));
    for (size_t i = 0; i < SPAN; i++)
        (*base)[i] = -7;
    return win;
}

/* Into the partner's window: a put of the vector, a get of it back, an
 * accumulate (sum) that doubles the even entries. */
static void rma(MPI_Datatype vec, int *a, int *packed, int me, int peer)
{
    int *base;
    MPI_Win win = window(&base);
    for (size_t k = 0; k < NB; k++)
        packed[k] = val(me, 2 * k);
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_MPI(MPI_Put(packed, NB, MPI_INT, peer, 0, 1, vec, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    check_even(base, peer, -7);
    for (size_t i = 0; i < SPAN; i++)
        a[i] = 0;
    MT_CHECK_MPI(MPI_Get(a, 1, vec, peer, 0, 1, vec, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    check_even(a, me, 0);
    MT_CHECK_MPI(
        MPI_Accumulate(packed, NB, MPI_INT, peer, 0, 1, vec, MPI_SUM, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    for (size_t i = 0; i < SPAN; i++)
        if (!MT_CHECK_INT_EQ(base[i], i % 2 ? -7 : 2 * val(peer, i)))
            break;
    MT_CHECK_MPI(MPI_Win_free(&win));
}

/* Unpacks packed (SPAN values k -> val(me, k)) into a cleared a as count
 * elements of t; then a's entries must be the first copy's (even) and
 * the second's (odd). */
static void unpack_both(MPI_Datatype t, int count, int *a, int *packed, int me)
{
    for (size_t k = 0; k < SPAN; k++)
        packed[k] = val(me, k);
    for (size_t i = 0; i < SPAN; i++)
        a[i] = 0;
    int pos = 0;
    MT_CHECK_MPI(
        MPI_Unpack(packed, (int)(SPAN * 4), &pos, a, count, t, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(pos, (int)(SPAN * 4));
    for (size_t i = 0; i < SPAN; i++) {
        size_t k = i % 2 ? NB + i / 2 : i / 2; /* the second copy's, then */
        if (!MT_CHECK_INT_EQ(a[i], val(me, k)))
            break;
    }
}

/* Copies of the vector resized to one int: two of them back to back fill
 * every entry, as two elements or as one of MPI_Type_contiguous(2); a
 * struct of one entry of the vector, one int in, holds the odd entries. */
static void made_of(MPI_Datatype vec, int *a, int *packed, int me)
{
    MPI_Datatype r, two, odd;
    MT_CHECK_MPI(MPI_Type_create_resized(vec, 0, 4, &r));
    MT_CHECK_MPI(MPI_Type_commit(&r));
    unpack_both(r, 2, a, packed, me);
    MT_CHECK_MPI(MPI_Type_contiguous(2, r, &two));
    MT_CHECK_MPI(MPI_Type_commit(&two));
    int size = -1;
    MT_CHECK_MPI(MPI_Type_size(two, &size));
    MT_CHECK_INT_EQ(size, NB * 8);
    unpack_both(two, 1, a, packed, me);
    MT_CHECK_MPI(MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){4},
                                        (MPI_Datatype[]){vec}, &odd));
    MT_CHECK_MPI(MPI_Type_commit(&odd));
    MPI_Aint lb = -1, extent = -1;
    MT_CHECK_MPI(MPI_Type_get_extent(odd, &lb, &extent));
    MT_CHECK_INT_EQ(lb, 4);
    fill(a, me);
    int pos = 0;
    MT_CHECK_MPI(MPI_Pack(a, 1, odd, packed, NB * 4, &pos, MPI_COMM_WORLD));
    for (size_t k = 0; k < NB; k++)
        if (!MT_CHECK_INT_EQ(packed[k], val(me, 2 * k + 1)))
            break;
    MPI_Type_free(&odd);
    MPI_Type_free(&two);
    MPI_Type_free(&r);
}

/* The same vector in disguise, as generated types are: a struct of NB
 * evenly spaced entries and an indexed block type of NB blocks, packed
 * alike. */
static void disguised(int *a, int *packed, int me)
{
    int *lens = malloc(NB * sizeof(int));
    MPI_Aint *disps = malloc(NB * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc(NB * sizeof(MPI_Datatype));
    int *at = malloc(NB * sizeof(int));
    if (!MT_CHECK(lens && disps && types && at))
        goto out;
    for (int k = 0; k < NB; k++) {
        lens[k] = 1;
        disps[k] = (MPI_Aint)k * 8;
        types[k] = MPI_INT;
        at[k] = 2 * k;
    }
    MPI_Datatype st, ib;
    MT_CHECK_MPI(MPI_Type_create_struct(NB, lens, disps, types, &st));
    MT_CHECK_MPI(MPI_Type_create_indexed_block(NB, 1, at, MPI_INT, &ib));
    MPI_Datatype both[2] = {st, ib};
    for (int t = 0; t < 2; t++) {
        MT_CHECK_MPI(MPI_Type_commit(&both[t]));
        fill(a, me);
        int pos = 0;
        MT_CHECK_MPI(
            MPI_Pack(a, 1, both[t], packed, NB * 4, &pos, MPI_COMM_WORLD));
        MT_CHECK_INT_EQ(pos, NB * 4);
        for (size_t k = 0; k < NB; k++)
            if (!MT_CHECK_INT_EQ(packed[k], val(me, 2 * k)))
                break;
        MPI_Type_free(&both[t]);
    }
out:
    free(lens);
    free(disps);
    free(types);
    free(at);
}

/* Entry k of the uneven struct: int 2k, but the last one's is odd. */
static size_t uneven_at(size_t k)
{
    return 2 * k + (k == NB - 1);
}

/* Whether a holds r's values at the uneven struct's entries and other
 * elsewhere. */
static int check_uneven(const int *a, int r, int other)
{
    for (size_t i = 0; i < SPAN; i++) {
        int in = i % 2 == 0 ? i != 2 * (NB - 1) : i == 2 * NB - 1;
        if (!MT_CHECK_INT_EQ(a[i], in ? val(r, i) : other))
            return 0;
    }
    return 1;
}

/* A struct of NB ints whose last entry breaks the spacing: not regular,
 * so every block is listed (as many as the entries the program gave).
 * It moves data in a send, MPI_Pack/MPI_Unpack and a put. */
static void uneven(int *a, int *packed, int me, int peer)
{
    int *lens = malloc(NB * sizeof(int));
    MPI_Aint *disps = malloc(NB * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc(NB * sizeof(MPI_Datatype)), t, *tp = &t;
    if (!MT_CHECK(lens && disps && types))
        goto out;
    for (size_t k = 0; k < NB; k++) {
        lens[k] = 1;
        disps[k] = (MPI_Aint)uneven_at(k) * 4;
        types[k] = MPI_INT;
    }
    if (!MT_CHECK_MPI(MPI_Type_create_struct(NB, lens, disps, types, tp)) ||
        !MT_CHECK_MPI(MPI_Type_commit(tp)))
        goto out;
    fill(a, me);
    MT_CHECK_MPI(MPI_Sendrecv(a, 1, t, peer, 2, packed, NB, MPI_INT, peer, 2,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t k = 0; k < NB; k++)
        if (!MT_CHECK_INT_EQ(packed[k], val(peer, uneven_at(k))))
            break;
    round_trip(t, a, packed, 0);
    check_uneven(a, me, 0);
    int *base;
    MPI_Win win = window(&base);
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    MT_CHECK_MPI(MPI_Put(packed, NB, MPI_INT, peer, 0, 1, t, win));
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    check_uneven(base, peer, -7);
    MT_CHECK_MPI(MPI_Win_free(&win));
    MPI_Type_free(&t);
out:
    free(lens);
    free(disps);
    free(types);
}

/* Whether the file holds at int k what the view's write of tail left. */
static void check_tail_written(MPI_File fh, int me)
{
    int back[20];
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MT_CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)SPAN - 21, back, 20, MPI_INT,
                                  MPI_STATUS_IGNORE));
    for (int k = 0; k < 20; k++) { /* ints SPAN - 21 .. SPAN - 2 */
        size_t i = SPAN - 21 + (size_t)k;
        MT_CHECK_INT_EQ(back[k], i % 2 ? val(me, i) : -val(me, i));
    }
}

/* The vector as a file view of a file of this rank's own, written whole
 * (up to its last block) through the default view: NB values read through
 * it, ten written near its end (then read back through the default view),
 * its end found by a seek. */
static void file_view(MPI_Datatype vec, int *a, int *packed, int me)
{
    char name[96];
    MPI_File fh;
    snprintf(name, sizeof(name), "type_regular.view.%ld.%d.tmp", (long)getpid(),
             me);
    fill(a, me);
    if (!MT_CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name,
                                    MPI_MODE_CREATE | MPI_MODE_RDWR,
                                    MPI_INFO_NULL, &fh)))
        return;
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MT_CHECK_MPI(
        MPI_File_write_at(fh, 0, a, (int)SPAN - 1, MPI_INT, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(
        MPI_File_set_view(fh, 0, MPI_INT, vec, "native", MPI_INFO_NULL));
    MPI_Offset pos = -1;
    MT_CHECK_MPI(MPI_File_read(fh, packed, NB, MPI_INT, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, NB);
    for (size_t i = 0; i < NB; i++)
        if (!MT_CHECK_INT_EQ(packed[i], val(me, 2 * i)))
            break;
    int tail[10];
    for (int k = 0; k < 10; k++)
        tail[k] = -val(me, 2 * ((size_t)NB - 10 + k));
    MT_CHECK_MPI(
        MPI_File_write_at(fh, NB - 10, tail, 10, MPI_INT, MPI_STATUS_IGNORE));
    MT_CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    MT_CHECK_MPI(MPI_File_get_position(fh, &pos));
    MT_CHECK_INT_EQ(pos, NB);
    check_tail_written(fh, me);
    MPI_Datatype back;
    MT_CHECK_MPI(MPI_Type_create_hvector(NB, 1, -8, MPI_INT, &back));
    MT_CHECK_MPI(MPI_Type_commit(&back));
    MT_CHECK_ERR_CLASS(
        MPI_File_set_view(fh, 0, MPI_INT, back, "native", MPI_INFO_NULL),
        MPI_ERR_IO);
    MPI_Type_free(&back);
    MT_CHECK_MPI(MPI_File_close(&fh));
    MT_CHECK_MPI(MPI_File_delete(name, MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int me, peer = mt_partner(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *a = malloc(SPAN * sizeof(int));
    int *packed = malloc(SPAN * sizeof(int));
    MPI_Datatype vec;
    if (MT_CHECK(a && packed) &&
        MT_CHECK_MPI(MPI_Type_vector(NB, 1, 2, MPI_INT, &vec)) &&
        MT_CHECK_MPI(MPI_Type_commit(&vec))) {
        describe(vec);
        sendrecv(vec, a, packed, me, peer);
        pack(vec, a, packed, me);
        rma(vec, a, packed, me, peer);
        made_of(vec, a, packed, me);
        disguised(a, packed, me);
        uneven(a, packed, me, peer);
        file_view(vec, a, packed, me);
        MPI_Type_free(&vec);
    }
    free(a);
    free(packed);
    return mt_finish_and_finalize();
}
