/*
 * charm_iget: AMPI_Iget, AMPI_Iget_wait, AMPI_Iget_data and AMPI_Iget_free
 * in a program written for Charm++'s AMPI (its entry MPI_Main, its C
 * helpers declared with charm-api.h's macros).  Every rank reads its right
 * neighbour's window outside any epoch, inside a fence epoch and inside a
 * lock_all epoch, contiguous and strided (a vector at the target into
 * contiguous ints), and checks the data, the status (MPI_SOURCE,
 * MPI_LENGTH) and the errors: a request that is not an Iget's, a status
 * that names none, a NULL request.
 */
#include "mpitest.h"
#include "charm-api.h"

#include <stdlib.h>

#define N 64

/* A C routine as Fortran would call it, through charm-api.h. */
CLINKAGE int ampi_test_value(int owner, int i);
int ampi_test_value(int owner, int i)
{
    return owner * 1000 + i;
}
FORTRAN_AS_C_RETURN(int, TEST_VALUE, ampi_test_value, test_value,
                    (int *owner, int *i), (*owner, *i))

/* count ints from an Iget of target's window, starting at disp with
 * stride (1: contiguous), checked against what target holds. */
static void iget_check(MPI_Win win, int target, int disp, int count, int stride)
{
    MPI_Datatype ttype = MPI_INT;
    if (stride > 1) {
        MPI_Type_vector(count, 1, stride, MPI_INT, &ttype);
        MPI_Type_commit(&ttype);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    MT_CHECK_MPI(AMPI_Iget(0, count, MPI_INT, target, disp,
                           stride > 1 ? 1 : count, ttype, win, &req));
    MT_CHECK(req != MPI_REQUEST_NULL);
    MT_CHECK_MPI(AMPI_Iget_wait(&req, &st, win));
    MT_CHECK_INT_EQ(st.MPI_SOURCE, target);
    MT_CHECK_INT_EQ(st.MPI_LENGTH, count * (int)sizeof(int));
    int *got = calloc((size_t)count, sizeof(int));
    MT_CHECK_MPI(AMPI_Iget_data(got, st));
    for (int i = 0; i < count; i++) {
        int at = disp + i * stride;
        if (!MT_CHECK_INT_EQ(got[i],
                             FTN_NAME(TEST_VALUE, test_value)(&target, &at)))
            break;
    }
    free(got);
    MT_CHECK_MPI(AMPI_Iget_free(&req, &st, win));
    MT_CHECK(req == MPI_REQUEST_NULL);
    if (stride > 1)
        MPI_Type_free(&ttype);
}

static void errors(MPI_Win win, int me)
{
    MPI_Request req;
    MPI_Status st;
    int v = 0;
    MT_CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, me, 0, MPI_COMM_SELF, &req));
    MT_CHECK_ERR_CLASS(AMPI_Iget_wait(&req, &st, win), MPI_ERR_REQUEST);
    MT_CHECK_MPI(MPI_Send(&v, 1, MPI_INT, me, 0, MPI_COMM_SELF));
    MT_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    memset(&st, 0, sizeof(st));
    MT_CHECK_ERR_CLASS(AMPI_Iget_data(&v, st), MPI_ERR_REQUEST);
    MT_CHECK_ERR_CLASS(AMPI_Iget(0, 1, MPI_INT, me, 0, 1, MPI_INT, win, NULL),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(AMPI_Iget(0, -1, MPI_INT, me, 0, 1, MPI_INT, win, &req),
                       MPI_ERR_COUNT);
}

int MPI_Main(int argc, char **argv)
{
    int me, size;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *base = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        base[i] = ampi_test_value(me, i);
    MT_CHECK_MPI(MPI_Win_create(base, N * sizeof(int), sizeof(int),
                                MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int right = (me + 1) % size;
    /* No epoch: each Iget takes a shared lock of its own. */
    iget_check(win, right, 0, N, 1);
    iget_check(win, right, 3, N / 4, 4);
    /* In a fence epoch. */
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    iget_check(win, right, 5, 10, 1);
    iget_check(win, right, 1, N / 2, 2);
    MT_CHECK_MPI(MPI_Win_fence(0, win));
    /* In a lock_all epoch. */
    MT_CHECK_MPI(MPI_Win_lock_all(0, win));
    iget_check(win, right, N - 1, 1, 1);
    MT_CHECK_MPI(MPI_Win_unlock_all(win));
    errors(win, 0);
    MT_CHECK_MPI(MPI_Win_free(&win));
    free(base);
    return mt_finish_and_finalize();
}
