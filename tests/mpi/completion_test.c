/*
 * completion_test: MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome and
 * MPI_Request_get_status. A receive whose message the partner sends only
 * after a barrier (LATE) cannot complete before this rank enters the
 * barrier, so the tests around it are deterministic:
 *  - MPI_Test / MPI_Request_get_status on it give flag = false;
 *  - MPI_Testall with it gives false and leaves every request alone;
 *  - MPI_Testany / MPI_Testsome complete the other requests, never it, and
 *    with only it left return index MPI_UNDEFINED / outcount 0;
 *  - MPI_Request_get_status, once true, does not free the request; the
 *    following MPI_Test gives the same status and frees it.
 * Null entries and all-null arrays: flag true, MPI_UNDEFINED, empty status.
 */
#include "mpitest.h"

enum { TAG_LATE = 1, TAG_EARLY = 2, N = 6 };

static void no_active_requests(void)
{
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[2];
    int flag = 0, index = 0, outcount = 0, indices[2];

    MT_CHECK_MPI(MPI_Test(&reqs[0], &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_EMPTY_STATUS(st, MPI_ANY_SOURCE);

    flag = 0;
    MT_CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_EMPTY_STATUS(st, MPI_ANY_SOURCE);

    flag = 0;
    MT_CHECK_MPI(MPI_Testall(2, reqs, &flag, sts));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_EMPTY_STATUS(sts[1], MPI_ANY_SOURCE);

    flag = 0;
    MT_CHECK_MPI(MPI_Testany(2, reqs, &index, &flag, &st));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_INT_EQ(index, MPI_UNDEFINED);
    MT_CHECK_EMPTY_STATUS(st, MPI_ANY_SOURCE);

    MT_CHECK_MPI(MPI_Testsome(2, reqs, &outcount, indices, sts));
    MT_CHECK_INT_EQ(outcount, MPI_UNDEFINED);
}

/* reqs = {NULL, early recv, early send, early recv, NULL, early send}:
 * entries that complete as soon as both partners have started them. */
static void start_early(MPI_Request *reqs, int *in, const int *out, int partner)
{
    for (int i = 0; i < N; i += 3) {
        reqs[i] = MPI_REQUEST_NULL;
        MPI_Irecv(&in[i], 1, MPI_INT, partner, TAG_EARLY + i, MPI_COMM_WORLD,
                  &reqs[i + 1]);
        MPI_Isend(&out[i], 1, MPI_INT, partner, TAG_EARLY + i, MPI_COMM_WORLD,
                  &reqs[i + 2]);
    }
    /* Swap so that a null entry also sits in the middle. */
    MPI_Request tmp = reqs[3];
    reqs[3] = reqs[4];
    reqs[4] = tmp;
}

static void test_any(MPI_Request late, int partner)
{
    MPI_Request reqs[N + 1];
    int in[N], out[N], seen[N + 1] = {0}, ndone = 0;
    for (int i = 0; i < N; i++)
        out[i] = i;
    start_early(reqs, in, out, partner);
    reqs[N] = late; /* a copy: Testany must never complete it */

    while (ndone < 4) {
        int flag = 0, index = -5;
        MPI_Status st;
        MT_CHECK_MPI(MPI_Testany(N + 1, reqs, &index, &flag, &st));
        if (!flag) {
            MT_CHECK_INT_EQ(index, MPI_UNDEFINED);
            continue;
        }
        if (!MT_CHECK(index >= 0 && index < N && !seen[index]))
            break;
        MT_CHECK(reqs[index] == MPI_REQUEST_NULL);
        seen[index] = 1;
        ndone++;
    }
    int flag = 1, index = -5, outcount = -5, indices[N + 1];
    MPI_Status sts[N + 1];
    MT_CHECK_MPI(MPI_Testany(N + 1, reqs, &index, &flag, MPI_STATUS_IGNORE));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK_INT_EQ(index, MPI_UNDEFINED);
    MT_CHECK_MPI(MPI_Testsome(N + 1, reqs, &outcount, indices, sts));
    MT_CHECK_INT_EQ(outcount, 0);
    MT_CHECK(reqs[N] == late);
}

static void test_some(MPI_Request late, int partner)
{
    MPI_Request reqs[N + 1];
    int in[N], out[N], seen[N + 1] = {0}, ndone = 0;
    for (int i = 0; i < N; i++)
        out[i] = 10 + i;
    reqs[0] = late;
    start_early(&reqs[1], in, out, partner);

    while (ndone < 4) {
        int outcount = -5, indices[N + 1];
        MPI_Status sts[N + 1];
        MT_CHECK_MPI(MPI_Testsome(N + 1, reqs, &outcount, indices, sts));
        if (!MT_CHECK(outcount >= 0 && outcount <= 4 - ndone))
            break;
        for (int j = 0; j < outcount; j++) {
            int i = indices[j];
            if (!MT_CHECK(i >= 1 && i <= N && !seen[i]))
                return;
            MT_CHECK(reqs[i] == MPI_REQUEST_NULL);
            seen[i] = 1;
            ndone++;
        }
    }
    for (int i = 0; i < N; i += 3)
        MT_CHECK_INT_EQ(in[i], 10 + i);
    MT_CHECK(reqs[0] == late);
}

static void test_all(MPI_Request late, int partner)
{
    MPI_Request reqs[N + 1], copy[N + 1];
    MPI_Status sts[N + 1];
    int in[N], out[N], flag = 1;
    for (int i = 0; i < N; i++)
        out[i] = 20 + i;
    start_early(reqs, in, out, partner);
    reqs[N] = late;

    /* Cannot be complete, and a false Testall modifies nothing. */
    memcpy(copy, reqs, sizeof(reqs));
    MT_CHECK_MPI(MPI_Testall(N + 1, reqs, &flag, sts));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK(memcmp(copy, reqs, sizeof(reqs)) == 0);

    /* Without the late receive it completes. */
    for (flag = 0; !flag;)
        MT_CHECK_MPI(MPI_Testall(N, reqs, &flag, sts));
    for (int i = 0; i < N; i++)
        MT_CHECK(reqs[i] == MPI_REQUEST_NULL);
    MT_CHECK_EMPTY_STATUS(sts[0], MPI_ANY_SOURCE);
    MT_CHECK_INT_EQ(sts[1].MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(sts[1].MPI_TAG, TAG_EARLY);
    MT_CHECK_INT_EQ(in[0], 20);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = mt_partner(MPI_COMM_WORLD);

    no_active_requests();

    int late_in = -1, flag = 1;
    MPI_Request late;
    MPI_Status st, st2;
    MPI_Irecv(&late_in, 1, MPI_INT, partner, TAG_LATE, MPI_COMM_WORLD, &late);
    MT_CHECK_MPI(MPI_Test(&late, &flag, &st));
    MT_CHECK_INT_EQ(flag, 0);
    MT_CHECK(late != MPI_REQUEST_NULL);
    flag = 1;
    MT_CHECK_MPI(MPI_Request_get_status(late, &flag, &st));
    MT_CHECK_INT_EQ(flag, 0);

    test_any(late, partner);
    test_some(late, partner);
    test_all(late, partner);

    MPI_Barrier(MPI_COMM_WORLD);
    int late_out = rank + 1000;
    MT_CHECK_MPI(
        MPI_Send(&late_out, 1, MPI_INT, partner, TAG_LATE, MPI_COMM_WORLD));
    for (flag = 0; !flag;)
        MT_CHECK_MPI(MPI_Request_get_status(late, &flag, &st));
    MT_CHECK(late != MPI_REQUEST_NULL);
    MT_CHECK_INT_EQ(st.MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st.MPI_TAG, TAG_LATE);
    MT_CHECK_INT_EQ(late_in, partner + 1000);
    /* Still there, now complete: Test frees it, with the same status. */
    flag = 0;
    MT_CHECK_MPI(MPI_Test(&late, &flag, &st2));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK(late == MPI_REQUEST_NULL);
    MT_CHECK_INT_EQ(st2.MPI_SOURCE, partner);
    MT_CHECK_INT_EQ(st2.MPI_TAG, TAG_LATE);

    return mt_finish_and_finalize();
}
