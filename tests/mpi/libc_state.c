/*
 * The C library's functions with hidden state behave per rank, as they do
 * per process under another MPI: every rank seeds rand (srand), random
 * (srandom), the drand48 family (srand48) the same way and draws the same
 * sequences, walks its own string with strtok, and keeps its own gmtime /
 * asctime result, while the other ranks of its PE (switched to at each
 * barrier) and of the other PEs (at the same moment) do the same with
 * other seeds and strings.  The expected values come from the C library's
 * reentrant forms (random_r, drand48_r) with state of the test's own.
 */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

enum { DRAWS = 300, EVERY = 7 };

/* The sequence random() gives after srandom(seed). */
static void reference_random(unsigned seed, long *out, int n)
{
    struct random_data rd;
    int32_t state[32], v;
    memset(&rd, 0, sizeof(rd));
    initstate_r(seed, (char *)state, sizeof(state), &rd);
    for (int i = 0; i < n; i++) {
        random_r(&rd, &v);
        out[i] = v;
    }
}

/* Draws with barriers in between, so other ranks draw meanwhile. */
static void check_rand(int rank)
{
    long *want = malloc(DRAWS * sizeof(long));
    /* Unseeded: as after srand(1), in every rank. */
    reference_random(1, want, 1);
    if (rank == 0) /* the others have not drawn yet */
        MT_CHECK_INT_EQ(rand(), want[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned seed = 1234u + (unsigned)(rank % 3);
    reference_random(seed, want, DRAWS);
    srand(seed);
    for (int i = 0; i < DRAWS; i++) {
        if (i % EVERY == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        if (!MT_CHECK_INT_EQ(rand(), want[i]))
            break;
    }
    srandom(seed + 7);
    reference_random(seed + 7, want, DRAWS);
    for (int i = 0; i < DRAWS; i++) {
        if (i % EVERY == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        if (!MT_CHECK_INT_EQ(random(), want[i]))
            break;
    }
    free(want);
}

static void check_drand48(int rank)
{
    struct drand48_data ref;
    memset(&ref, 0, sizeof(ref));
    srand48_r(rank % 4, &ref);
    srand48(rank % 4);
    for (int i = 0; i < DRAWS; i++) {
        if (i % EVERY == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        double d, got = drand48();
        drand48_r(&ref, &d);
        if (!MT_CHECK(got == d))
            break;
        long l, lgot = lrand48();
        lrand48_r(&ref, &l);
        if (!MT_CHECK_INT_EQ(lgot, l))
            break;
    }
}

/* Each rank's own string: tokens "r<rank>t<i>" separated by commas. */
static void check_strtok(int rank)
{
    char text[512] = "", want[32];
    for (int i = 0; i < 20; i++) {
        snprintf(want, sizeof(want), "%sr%dt%d", i ? "," : "", rank, i);
        strcat(text, want);
    }
    int bad = 0;
    for (int i = 0; i <= 20; i++) { /* the same barriers on every rank */
        char *t = strtok(i ? NULL : text, ",");
        MPI_Barrier(MPI_COMM_WORLD);
        snprintf(want, sizeof(want), "r%dt%d", rank, i);
        if (i == 20)
            bad += t != NULL;
        else
            bad += !t || strcmp(t, want) != 0;
    }
    MT_CHECK_INT_EQ(bad, 0);
}

static void check_time(int rank)
{
    time_t t = (time_t)86400 * (rank % 28); /* 1970-01-(1 + rank % 28) */
    struct tm *tm = gmtime(&t);
    char *text = asctime(tm);
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(tm->tm_mday, 1 + rank % 28);
    char want[64];
    snprintf(want, sizeof(want), "Thu Jan %2d 00:00:00 1970\n", 1 + rank % 28);
    if (rank % 28 % 7 == 0) /* Thursdays */
        MT_CHECK(strcmp(text, want) == 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_rand(rank);
    check_drand48(rank);
    check_strtok(rank);
    check_time(rank);
    return mt_finish_and_finalize();
}
