/*
 * The C library's hidden state is the rank's own: strtok, rand/srand,
 * random/srandom/initstate/setstate, the drand48 family and
 * gmtime/localtime/asctime/ctime give each rank what a process of its own
 * would get, while every rank uses them at once and MPI calls (which run
 * the other ranks of the PE) come between the calls.
 */
#include "mpitest.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static void pause_for_others(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_strtok(int rank)
{
    char line[64], want[3][16];
    snprintf(line, sizeof(line), "r%d,a%d,,b%d", rank, rank, rank);
    snprintf(want[0], sizeof(want[0]), "r%d", rank);
    snprintf(want[1], sizeof(want[1]), "a%d", rank);
    snprintf(want[2], sizeof(want[2]), "b%d", rank);
    char *tok = strtok(line, ",");
    for (int i = 0; i < 3; i++) {
        pause_for_others();
        if (!MT_CHECK(tok != NULL))
            tok = "(null)";
        else if (strcmp(tok, want[i]) != 0)
            MT_FAIL("token %d is '%s', expected '%s'", i, tok, want[i]);
        tok = strtok(NULL, ",");
    }
    MT_CHECK(tok == NULL);
}

/* rand() before any srand: glibc's sequence from seed 1. */
static void check_rand_unseeded(void)
{
    static const int first[3] = {1804289383, 846930886, 1681692777};
    for (int i = 0; i < 3; i++) {
        int r = rand();
        MT_CHECK_INT_EQ(r, first[i]);
        pause_for_others();
    }
}

/* random(), after srandom(seed) or initstate(seed, buf, n), gives what a
 * private state seeded the same way gives. */
static void check_random_seeded(int rank)
{
    struct random_data rd;
    int32_t want_buf[64];
    char mine[256];
    memset(&rd, 0, sizeof(rd));
    initstate_r(100u + rank, (char *)want_buf, 128, &rd);
    srand(100u + rank);
    for (int i = 0; i < 4; i++) {
        int32_t want;
        random_r(&rd, &want);
        MT_CHECK_INT_EQ(i % 2 ? rand() : random(), want);
        pause_for_others();
    }
    memset(&rd, 0, sizeof(rd));
    initstate_r(7u * rank + 1, (char *)want_buf, sizeof(want_buf), &rd);
    char *before = initstate(7u * rank + 1, mine, sizeof(mine));
    MT_CHECK(before != NULL);
    for (int i = 0; i < 3; i++) {
        int32_t want;
        random_r(&rd, &want);
        MT_CHECK_INT_EQ(random(), want);
        pause_for_others();
    }
    MT_CHECK(setstate(before) == mine);
}

/* lrand48's 48-bit generator, written out: X' = a X + c mod 2^48, the
 * result X' >> 17. */
static long lcg48_next(uint64_t *x)
{
    *x = (0x5DEECE66Dull * *x + 0xB) & ((1ull << 48) - 1);
    return (long)(*x >> 17);
}

static void check_drand48(int rank)
{
    uint64_t x = 0; /* the state before any seed */
    for (int i = 0; i < 2; i++) {
        MT_CHECK_INT_EQ(lrand48(), lcg48_next(&x));
        pause_for_others();
    }
    long seed = 1000 + rank;
    srand48(seed);
    x = ((uint64_t)(uint32_t)seed << 16) | 0x330E;
    for (int i = 0; i < 3; i++) {
        MT_CHECK_INT_EQ(lrand48(), lcg48_next(&x));
        pause_for_others();
    }
    unsigned short s[3] = {1, 2, (unsigned short)rank};
    unsigned short *old = seed48(s);
    MT_CHECK_INT_EQ(old[0], (unsigned)(x & 0xffff));
    MT_CHECK_INT_EQ(old[2], (unsigned)(x >> 32));
    x = ((uint64_t)rank << 32) | (2u << 16) | 1u;
    pause_for_others();
    MT_CHECK_INT_EQ(lrand48(), lcg48_next(&x));
}

static void check_time(int rank)
{
    time_t t = (time_t)(rank % 28) * 86400 + (time_t)(rank % 24) * 3600;
    struct tm *g = gmtime(&t);
    pause_for_others();
    MT_CHECK_INT_EQ(g->tm_mday, 1 + rank % 28);
    MT_CHECK_INT_EQ(g->tm_hour, rank % 24);

    struct tm mine;
    char want[64];
    asctime_r(gmtime_r(&t, &mine), want);
    char *s = asctime(g);
    pause_for_others();
    if (strcmp(s, want) != 0)
        MT_FAIL("asctime gave '%s', expected '%s'", s, want);

    t += 12345;
    localtime_r(&t, &mine);
    struct tm *l = localtime(&t);
    pause_for_others();
    MT_CHECK_INT_EQ(l->tm_yday, mine.tm_yday);
    MT_CHECK_INT_EQ(l->tm_hour, mine.tm_hour);
    MT_CHECK_INT_EQ(l->tm_min, mine.tm_min);

    ctime_r(&t, want);
    s = ctime(&t);
    pause_for_others();
    if (strcmp(s, want) != 0)
        MT_FAIL("ctime gave '%s', expected '%s'", s, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_strtok(rank);
    check_rand_unseeded();
    check_random_seeded(rank);
    check_drand48(rank);
    check_time(rank);
    return mt_finish_and_finalize();
}
