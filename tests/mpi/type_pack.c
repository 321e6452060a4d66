/*
 * type_pack: MPI_Pack/MPI_Unpack/MPI_Pack_size round trips, a packed
 * buffer sent as MPI_PACKED; MPI_Type_get_envelope/get_contents rebuild
 * the constructors' arguments; names; MPI_Allreduce with MPI_SUM over a
 * contiguous type and a vector type without holes; the error classes of
 * bad arguments.
 */
#include "mpitest.h"

static void pack_round_trip(int partner)
{
    int a[10], out[10];
    double d = 2.5, dd = 0;
    for (int i = 0; i < 10; i++)
        a[i] = i * 3;
    MPI_Datatype v;
    MPI_Type_vector(3, 2, 4, MPI_INT, &v);
    MPI_Type_commit(&v);
    int sz = -1, szd = -1;
    MT_CHECK_MPI(MPI_Pack_size(1, v, MPI_COMM_WORLD, &sz));
    MT_CHECK_INT_EQ(sz, 6 * sizeof(int));
    MT_CHECK_MPI(MPI_Pack_size(1, MPI_DOUBLE, MPI_COMM_WORLD, &szd));
    char buf[64], rbuf[64];
    int pos = 0;
    MT_CHECK_MPI(MPI_Pack(a, 1, v, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    MT_CHECK_MPI(
        MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(pos, sz + szd);
    MT_CHECK_MPI(MPI_Sendrecv(buf, pos, MPI_PACKED, partner, 3, rbuf,
                              sizeof(rbuf), MPI_PACKED, partner, 3,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 10; i++)
        out[i] = -1;
    int upos = 0;
    MT_CHECK_MPI(MPI_Unpack(rbuf, pos, &upos, out, 1, v, MPI_COMM_WORLD));
    MT_CHECK_MPI(
        MPI_Unpack(rbuf, pos, &upos, &dd, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    MT_CHECK_INT_EQ(upos, pos);
    int want[10] = {0, 3, -1, -1, 12, 15, -1, -1, 24, 27};
    for (int i = 0; i < 10; i++)
        MT_CHECK_INT_EQ(out[i], want[i]);
    MT_CHECK_DBL_EQ(dd, 2.5);
    /* too small a buffer */
    pos = 60;
    MT_CHECK_ERR_CLASS(
        MPI_Pack(a, 1, v, buf, sizeof(buf), &pos, MPI_COMM_WORLD),
        MPI_ERR_TRUNCATE);
    upos = 0;
    MT_CHECK_ERR_CLASS(MPI_Unpack(rbuf, 4, &upos, out, 1, v, MPI_COMM_WORLD),
                       MPI_ERR_TRUNCATE);
    MPI_Type_free(&v);
}

static void contents(void)
{
    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {0, 16};
    MPI_Datatype types[2], st, vec, dup;
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &vec);
    types[0] = vec;
    types[1] = MPI_INT;
    MT_CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &st));
    MPI_Type_free(&vec); /* st keeps it for get_contents */
    int ni, na, nt, comb;
    MT_CHECK_MPI(MPI_Type_get_envelope(st, &ni, &na, &nt, &comb));
    MT_CHECK_INT_EQ(comb, MPI_COMBINER_STRUCT);
    MT_CHECK_INT_EQ(ni, 3);
    MT_CHECK_INT_EQ(na, 2);
    MT_CHECK_INT_EQ(nt, 2);
    int ints[3];
    MPI_Aint addrs[2];
    MPI_Datatype dts[2];
    MT_CHECK_MPI(MPI_Type_get_contents(st, 3, 2, 2, ints, addrs, dts));
    MT_CHECK_INT_EQ(ints[0], 2);
    MT_CHECK_INT_EQ(ints[1], 2);
    MT_CHECK_INT_EQ(ints[2], 1);
    MT_CHECK_INT_EQ(addrs[1], 16);
    MT_CHECK(dts[1] == MPI_INT);
    MT_CHECK_MPI(MPI_Type_get_envelope(dts[0], &ni, &na, &nt, &comb));
    MT_CHECK_INT_EQ(comb, MPI_COMBINER_VECTOR);
    MT_CHECK_MPI(MPI_Type_get_contents(dts[0], 3, 0, 1, ints, addrs, types));
    MT_CHECK_INT_EQ(ints[0], 2);
    MT_CHECK_INT_EQ(ints[1], 1);
    MT_CHECK_INT_EQ(ints[2], 3);
    MT_CHECK(types[0] == MPI_DOUBLE);
    MT_CHECK_MPI(MPI_Type_free(&dts[0]));
    MT_CHECK_MPI(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb));
    MT_CHECK_INT_EQ(comb, MPI_COMBINER_NAMED);
    MT_CHECK_ERR_CLASS(
        MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, addrs, dts),
        MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Type_get_contents(st, 1, 2, 2, ints, addrs, dts),
                       MPI_ERR_ARG);

    MT_CHECK_MPI(MPI_Type_dup(st, &dup));
    MPI_Type_get_envelope(dup, &ni, &na, &nt, &comb);
    MT_CHECK_INT_EQ(comb, MPI_COMBINER_DUP);
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MT_CHECK_MPI(MPI_Type_set_name(dup, "my struct"));
    MT_CHECK_MPI(MPI_Type_get_name(dup, name, &len));
    MT_CHECK(strcmp(name, "my struct") == 0);
    MT_CHECK_INT_EQ(len, 9);
    MT_CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    MT_CHECK(strcmp(name, "MPI_DOUBLE") == 0);
    /* A rank may rename a predefined type, for itself only. */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MT_CHECK_MPI(MPI_Type_set_name(MPI_INT, "int"));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_Type_get_name(MPI_INT, name, &len));
    MT_CHECK(strcmp(name, rank == 0 ? "int" : "MPI_INT") == 0);
    /* One type under two names: the first one, as other MPIs name it. */
    MT_CHECK_MPI(MPI_Type_get_name(MPI_C_COMPLEX, name, &len));
    MT_CHECK(strcmp(name, "MPI_C_COMPLEX") == 0);
    MPI_Type_free(&dup);
    MPI_Type_free(&st);

    MPI_Aint a0, a1;
    int x[2];
    MT_CHECK_MPI(MPI_Get_address(&x[0], &a0));
    MT_CHECK_MPI(MPI_Get_address(&x[1], &a1));
    MT_CHECK_INT_EQ(MPI_Aint_diff(a1, a0), sizeof(int));
}

static void reductions(int size)
{
    MPI_Datatype c3, v;
    MPI_Type_contiguous(3, MPI_INT, &c3);
    MPI_Type_vector(2, 2, 2, MPI_DOUBLE, &v); /* no holes */
    MPI_Type_commit(&c3);
    MPI_Type_commit(&v);
    int in[6] = {1, 2, 3, 4, 5, 6}, out[6];
    MT_CHECK_MPI(MPI_Allreduce(in, out, 2, c3, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 6; i++)
        MT_CHECK_INT_EQ(out[i], in[i] * size);
    double din[4] = {0.5, 1, 1.5, 2}, dout[4];
    MT_CHECK_MPI(MPI_Allreduce(din, dout, 1, v, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        MT_CHECK_DBL_EQ(dout[i], din[i] * size);
    MPI_Type_free(&c3);
    MPI_Type_free(&v);
}

static void errors(void)
{
    MPI_Datatype t;
    int bl[1] = {-1}, d[1] = {0}, sz[1] = {4}, sub[1] = {5}, st[1] = {0};
    MT_CHECK_ERR_CLASS(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    MT_CHECK_ERR_CLASS(MPI_Type_vector(1, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_vector(1, 1, 1, MPI_DATATYPE_NULL, &t),
                       MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Type_vector(1, 1, 1, MPI_INT, NULL), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_indexed(1, bl, d, MPI_INT, &t), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_indexed(1, NULL, d, MPI_INT, &t), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Type_create_subarray(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &t),
        MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Type_create_subarray(1, sz, sz, st, 77, MPI_INT, &t),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(
        MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){0},
                               (MPI_Datatype[]){MPI_DATATYPE_NULL}, &t),
        MPI_ERR_TYPE);
    MT_CHECK_ERR_CLASS(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), MPI_ERR_TYPE);
    /* a type too fragmented to flatten fails cleanly (a vector of that
     * many blocks is kept regular: type_regular.c) */
    MPI_Datatype many;
    MT_CHECK_MPI(MPI_Type_vector(1 << 23, 1, 2, MPI_INT, &many));
    MT_CHECK_ERR_CLASS(MPI_Type_create_struct(2, (int[]){1, 2},
                                              (MPI_Aint[]){0, 4},
                                              (MPI_Datatype[]){many, many}, &t),
                       MPI_ERR_NO_MEM);
    MPI_Type_free(&many);
    int x = 0, pos = 0;
    char buf[8];
    MPI_Type_vector(2, 1, 2, MPI_INT, &t); /* not committed */
    MT_CHECK_ERR_CLASS(MPI_Pack(&x, 1, t, buf, 8, &pos, MPI_COMM_WORLD),
                       MPI_ERR_TYPE);
    MPI_Type_free(&t);
    MT_CHECK_ERR_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    pack_round_trip(mt_partner(MPI_COMM_WORLD));
    contents();
    reductions(size);
    errors();
    return mt_finish_and_finalize();
}
