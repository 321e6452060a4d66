/*
 * Charm++ AMPI's registration of a rank's data with a pup routine
 * (AMPI_Register_pup): the registered pointer comes back from
 * AMPI_Get_pup_data after the rank moved between PEs and between processes
 * (+balancer GreedyLB, an uneven load), with the data it points to intact,
 * since isomalloc carries the rank's heap.  A program can run its own pup
 * routine on a pupper: sizing, packing and unpacking round-trip.  And the
 * argument checks.
 */
#include "mpitest.h"

#include <stdlib.h>

struct chunk {
    int n;
    double *values;
    long tag;
};

static void chunk_pup(pup_er p, void *data)
{
    struct chunk **cp = data;
    struct chunk *c = *cp;
    pup_int(p, &c->n);
    if (pup_isUnpacking(p))
        c->values = malloc((size_t)c->n * sizeof(double));
    pup_doubles(p, c->values, (size_t)c->n);
    pup_long(p, &c->tag);
}

static struct chunk *make_chunk(int rank)
{
    struct chunk *c = malloc(sizeof(*c));
    c->n = 100 + rank;
    c->values = malloc((size_t)c->n * sizeof(double));
    for (int i = 0; i < c->n; i++)
        c->values[i] = rank * 1000.0 + i;
    c->tag = 7L * rank;
    return c;
}

static int chunk_ok(const struct chunk *c, int rank)
{
    int ok = c->n == 100 + rank && c->tag == 7L * rank;
    for (int i = 0; ok && i < c->n; i++)
        ok = c->values[i] == rank * 1000.0 + i;
    return ok;
}

/* Sizes, packs and unpacks c with its own routine into a fresh chunk. */
static void round_trip(struct chunk *c, int rank)
{
    AMPI_Pupper p;
    MT_CHECK_MPI(AMPI_Pupper_init(&p, AMPI_PUP_SIZING, NULL, 0));
    chunk_pup(&p, &c);
    size_t bytes = p.pos;
    MT_CHECK_INT_EQ((int)bytes,
                    (int)(sizeof(int) + c->n * sizeof(double) + sizeof(long)));
    char *buf = malloc(bytes);
    MT_CHECK_MPI(AMPI_Pupper_init(&p, AMPI_PUP_PACKING, buf, bytes));
    MT_CHECK(pup_isPacking(&p) && !pup_isDeleting(&p));
    chunk_pup(&p, &c);
    MT_CHECK(!p.overflow && p.pos == bytes);
    struct chunk copy = {0}, *cp = &copy;
    MT_CHECK_MPI(AMPI_Pupper_init(&p, AMPI_PUP_UNPACKING, buf, bytes));
    chunk_pup(&p, &cp);
    MT_CHECK(chunk_ok(&copy, rank));
    free(copy.values);
    /* Too small a buffer: the rest is left out, and it says so. */
    MT_CHECK_MPI(AMPI_Pupper_init(&p, AMPI_PUP_PACKING, buf, bytes / 2));
    chunk_pup(&p, &c);
    MT_CHECK(p.overflow);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, idx = -1, idx2 = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    struct chunk *c = make_chunk(rank);
    long other = 5;
    MT_CHECK_MPI(AMPI_Register_pup(chunk_pup, &c, &idx));
    MT_CHECK_MPI(AMPI_Register_pup(chunk_pup, &other, &idx2));
    MT_CHECK_INT_EQ(idx, 0);
    MT_CHECK_INT_EQ(idx2, 1);
    MT_CHECK_ERR_CLASS(AMPI_Register_pup(NULL, &c, &idx), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(AMPI_Get_pup_data(2, &c), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(AMPI_Get_pup_data(-1, &c), MPI_ERR_ARG);
    round_trip(c, rank);
    for (int step = 0; step < 3; step++) {
        /* Uneven work, so the balancer moves ranks. */
        double t = MPI_Wtime();
        while (MPI_Wtime() - t < 0.002 * (rank % 3))
            ;
        MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
        struct chunk **back = NULL;
        MT_CHECK_MPI(AMPI_Get_pup_data(idx, &back));
        MT_CHECK(back == &c && chunk_ok(*back, rank));
    }
    round_trip(c, rank);
    free(c->values);
    free(c);
    return mt_finish_and_finalize();
}
