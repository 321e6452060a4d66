/*
 * type_contiguous: MPI_Type_contiguous + MPI_Type_commit + MPI_Type_free.
 * Size, lower bound and extent of contiguous types over MPI_INT, over
 * another contiguous type, over MPI_DOUBLE_INT (extent includes the
 * padding) and of zero elements. Derived types travel to the partner and
 * match the equivalent count of the base type; a 64 KiB contiguous type
 * too. Freeing a type leaves the types built from it, and communication
 * already started with it, working; MPI_Type_free sets the handle to
 * MPI_DATATYPE_NULL.
 */
#include "mpitest.h"

#include <stdlib.h>

static void check_layout(MPI_Datatype dt, int size, MPI_Aint extent,
                         const char *what)
{
    int s = -1;
    MPI_Aint lb = -1, ext = -1;
    MT_CHECK_MPI(MPI_Type_size(dt, &s));
    MT_CHECK_MPI(MPI_Type_get_extent(dt, &lb, &ext));
    if (!MT_CHECK_INT_EQ(s, size) || !MT_CHECK_INT_EQ(lb, 0) ||
        !MT_CHECK_INT_EQ(ext, extent))
        MT_FAIL("layout of %s", what);
}

static void layouts(void)
{
    MPI_Datatype five, nested, pairs, empty;
    MT_CHECK_MPI(MPI_Type_contiguous(5, MPI_INT, &five));
    MT_CHECK_MPI(MPI_Type_contiguous(4, five, &nested));
    MT_CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE_INT, &pairs));
    MT_CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));

    /* Layout queries work before commit too. */
    check_layout(five, 5 * (int)sizeof(int), 5 * sizeof(int), "5 x int");
    MT_CHECK_MPI(MPI_Type_commit(&five));
    MT_CHECK_MPI(MPI_Type_commit(&nested));
    MT_CHECK_MPI(MPI_Type_commit(&pairs));
    MT_CHECK_MPI(MPI_Type_commit(&empty));

    struct di {
        double v;
        int i;
    };
    check_layout(five, 5 * (int)sizeof(int), 5 * sizeof(int), "5 x int");
    check_layout(nested, 20 * (int)sizeof(int), 20 * sizeof(int),
                 "4 x (5 x int)");
    check_layout(pairs, 3 * (int)(sizeof(double) + sizeof(int)),
                 3 * sizeof(struct di), "3 x MPI_DOUBLE_INT");
    check_layout(empty, 0, 0, "0 x int");

    MT_CHECK_MPI(MPI_Type_free(&five));
    MT_CHECK(five == MPI_DATATYPE_NULL);
    /* nested outlives the type it was built from. */
    check_layout(nested, 20 * (int)sizeof(int), 20 * sizeof(int),
                 "4 x (5 x int) after freeing 5 x int");
    MPI_Type_free(&nested);
    MPI_Type_free(&pairs);
    MPI_Type_free(&empty);
}

/* Sends count elements of dt (n ints in all) to the partner, receives them
 * as n MPI_INT. With free_early, the type is freed while the send is
 * pending. */
static void transfer(int rank, int partner, MPI_Datatype dt, int count, int n,
                     int free_early)
{
    int *out = malloc((size_t)n * sizeof(int));
    int *in = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        out[i] = rank * 1000003 + i;

    MPI_Request req;
    MPI_Status st;
    MPI_Isend(out, count, dt, partner, 4, MPI_COMM_WORLD, &req);
    if (free_early)
        MT_CHECK_MPI(MPI_Type_free(&dt));
    MT_CHECK_MPI(MPI_Recv(in, n, MPI_INT, partner, 4, MPI_COMM_WORLD, &st));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    MT_CHECK_INT_EQ(got, n);
    for (int i = 0; i < n; i++)
        if (!MT_CHECK_INT_EQ(in[i], partner * 1000003 + i))
            break;

    /* And back the other way: n ints received as the derived type. */
    if (!free_early) {
        memset(in, 0, (size_t)n * sizeof(int));
        MPI_Isend(out, n, MPI_INT, partner, 5, MPI_COMM_WORLD, &req);
        MT_CHECK_MPI(MPI_Recv(in, count, dt, partner, 5, MPI_COMM_WORLD, &st));
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, dt, &got);
        MT_CHECK_INT_EQ(got, count);
        for (int i = 0; i < n; i++)
            if (!MT_CHECK_INT_EQ(in[i], partner * 1000003 + i))
                break;
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    layouts();

    MPI_Datatype five, nested, big;
    MPI_Type_contiguous(5, MPI_INT, &five);
    MPI_Type_commit(&five);
    MPI_Type_contiguous(4, five, &nested);
    MPI_Type_commit(&nested);
    MPI_Type_contiguous(16384, MPI_INT, &big);
    MPI_Type_commit(&big);

    transfer(rank, partner, five, 3, 15, 0);
    MPI_Type_free(&five);
    transfer(rank, partner, nested, 2, 40, 0);
    transfer(rank, partner, big, 1, 16384, 0);
    transfer(rank, partner, big, 1, 16384, 1); /* frees big */
    MPI_Type_free(&nested);

    return mt_finish_and_finalize();
}
