/* Messages larger than the eager limit to a process that no ring of this
 * node reaches (another node, or AMPI_NODE_SHM=0) go eagerly through UCX
 * up to AMPI_NET_EAGER (64 KiB by default; the MPI_T cvar net_eager says
 * it), and one that comes before its receive waits in a block of its own
 * (runtime/p2p/net.c).  Rank 0 sends rank 1 messages of 8, 32 and 64 KiB
 * and one of 128 KiB (a rendezvous), nonblocking, before rank 1 posts a
 * receive; rank 1 then probes and takes them in reverse order, into a
 * derived datatype, through MPI_Mprobe/MPI_Mrecv, into a buffer too
 * small (MPI_ERR_TRUNCATE), and checks every byte.  MPI_Ssend of 32 KiB
 * (synchronous: never eager here) follows.  First, with MT_EXPECT_FAR=1
 * (the processes talk through UCX), a 32-KiB MPI_Isend must complete while
 * rank 1 waits in a barrier without a receive posted: sent eagerly.  Run
 * with 2 ranks, one a process (MT_EXPECT_NET_EAGER: the cvar's expected
 * value). */
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

#define KIB 1024
enum {
    NSIZES = 4,
    TAG_VEC = 10,
    TAG_M = 11,
    TAG_TRUNC = 12,
    TAG_SYNC = 13,
    TAG_EAGER = 14
};
static const int sizes[NSIZES] = {8 * KIB, 32 * KIB, 64 * KIB, 128 * KIB};

static unsigned char byte_at(int tag, long i)
{
    return (unsigned char)(i * 7 + tag * 31 + (i >> 9));
}

static void fill(unsigned char *b, long n, int tag)
{
    for (long i = 0; i < n; i++)
        b[i] = byte_at(tag, i);
}

static void check(const unsigned char *b, long n, int tag)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += b[i] != byte_at(tag, i);
    if (bad)
        MT_FAIL("tag %d: %ld of %ld bytes wrong", tag, bad, n);
}

/* The send completes with no receive posted when it went eagerly; a
 * rendezvous waits for rank 1, which waits in the barrier. */
static void eager_check(void)
{
    const char *far = getenv("MT_EXPECT_FAR");
    unsigned char *b = malloc(32 * KIB);
    fill(b, 32 * KIB, TAG_EAGER);
    MPI_Request r;
    int done = 0;
    MT_CHECK_MPI(
        MPI_Isend(b, 32 * KIB, MPI_BYTE, 1, TAG_EAGER, MPI_COMM_WORLD, &r));
    double t0 = MPI_Wtime();
    while (far && !done && MPI_Wtime() - t0 < 10.0)
        MT_CHECK_MPI(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
    if (far && !done)
        MT_FAIL("a 32-KiB send to another process did not complete without "
                "its receive: not sent eagerly");
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    free(b);
}

static void sender(void)
{
    eager_check();
    unsigned char *b[NSIZES + 3];
    MPI_Request req[NSIZES + 3];
    int n = 0;
    for (int k = 0; k < NSIZES; k++, n++) {
        b[n] = malloc((size_t)sizes[k]);
        fill(b[n], sizes[k], k + 1);
        MT_CHECK_MPI(MPI_Isend(b[n], sizes[k], MPI_BYTE, 1, k + 1,
                               MPI_COMM_WORLD, &req[n]));
    }
    const int tags[3] = {TAG_VEC, TAG_M, TAG_TRUNC};
    for (int k = 0; k < 3; k++, n++) {
        b[n] = malloc(32 * KIB);
        fill(b[n], 32 * KIB, tags[k]);
        MT_CHECK_MPI(MPI_Isend(b[n], 32 * KIB, MPI_BYTE, 1, tags[k],
                               MPI_COMM_WORLD, &req[n]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    fill(b[0], 32 * KIB, TAG_SYNC);
    MT_CHECK_MPI(
        MPI_Ssend(b[0], 32 * KIB, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD));
    for (int k = 0; k < n; k++)
        free(b[k]);
}

/* 32 KiB into every other 1-KiB block of a 64-KiB buffer. */
static void recv_vector(void)
{
    MPI_Datatype vec;
    MT_CHECK_MPI(MPI_Type_vector(32, KIB, 2 * KIB, MPI_BYTE, &vec));
    MT_CHECK_MPI(MPI_Type_commit(&vec));
    unsigned char *b = calloc(64 * KIB, 1), *packed = malloc(32 * KIB);
    MT_CHECK_MPI(
        MPI_Recv(b, 1, vec, 0, TAG_VEC, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < 32; k++)
        memcpy(packed + k * KIB, b + 2 * k * KIB, KIB);
    check(packed, 32 * KIB, TAG_VEC);
    MT_CHECK_MPI(MPI_Type_free(&vec));
    free(b);
    free(packed);
}

static void receiver(void)
{
    unsigned char *b = malloc(128 * KIB);
    MPI_Barrier(MPI_COMM_WORLD); /* eager_check's */
    MT_CHECK_MPI(MPI_Recv(b, 32 * KIB, MPI_BYTE, 0, TAG_EAGER, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    check(b, 32 * KIB, TAG_EAGER);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = NSIZES - 1; k >= 0; k--) {
        MPI_Status st;
        int count = -1;
        MT_CHECK_MPI(MPI_Probe(0, k + 1, MPI_COMM_WORLD, &st));
        MT_CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        MT_CHECK_INT_EQ(count, sizes[k]);
        memset(b, 0, (size_t)sizes[k]);
        MT_CHECK_MPI(
            MPI_Recv(b, sizes[k], MPI_BYTE, 0, k + 1, MPI_COMM_WORLD, &st));
        MT_CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        MT_CHECK_INT_EQ(count, sizes[k]);
        check(b, sizes[k], k + 1);
    }
    MPI_Message msg;
    MPI_Status st;
    MT_CHECK_MPI(MPI_Mprobe(0, TAG_M, MPI_COMM_WORLD, &msg, &st));
    memset(b, 0, 32 * KIB);
    MT_CHECK_MPI(MPI_Mrecv(b, 32 * KIB, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
    check(b, 32 * KIB, TAG_M);
    recv_vector();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_Recv(b, 16 * KIB, MPI_BYTE, 0, TAG_TRUNC,
                                MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                       MPI_ERR_TRUNCATE);
    MT_CHECK_MPI(MPI_Recv(b, 32 * KIB, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    check(b, 32 * KIB, TAG_SYNC);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_INT_EQ(size, 2);
    const char *want = getenv("MT_EXPECT_NET_EAGER");
    unsigned long eager = 0;
    mt_cvar_read("net_eager", &eager);
    MT_CHECK(eager == (want ? strtoul(want, NULL, 0) : 64ul * KIB));
    if (rank == 0)
        sender();
    else if (rank == 1)
        receiver();
    return mt_finish_and_finalize();
}
