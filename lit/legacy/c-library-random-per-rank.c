// Every rank draws from the C library's generators (rand, random, the
// drand48 family) exactly the numbers a process of its own draws: each rank
// starts from glibc's initial state and its seeds affect no other rank.
// Other ranks draw between the calls (a barrier after each), on other PEs
// at the same time, and in other processes.  The same source built without
// MPI gives the expected transcript; C++ callers (std::rand) get the same.
// REQUIRES: ampi-runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -DPLAIN %s -o %t/plain && %t/plain > %t/plain.out
// RUN: %ampicc %s -o %t/tls
// RUN: %t/tls +vp 4 +p 2 > %t/out && diff %t/plain.out %t/out
// RUN: %t/tls +vp 9 +p 2 +mapping random:3 > %t/out && diff %t/plain.out %t/out
// RUN: %ampirun -n 2 --allow-run-as-root --launcher-arg --oversubscribe %t/tls +vp 5 > %t/out && diff %t/plain.out %t/out
// RUN: %ampicc -privatize=pie %s -o %t/pie
// RUN: %t/pie +vp 4 +p 2 > %t/out && diff %t/plain.out %t/out
// RUN: env AMPI_CC=gcc %ampicc %s -o %t/gcc 2>/dev/null
// RUN: %t/gcc +vp 4 +p 2 > %t/out && diff %t/plain.out %t/out
// RUN: %ampicxx -x c++ %s -o %t/cxx
// RUN: %t/cxx +vp 4 +p 2 > %t/out && diff %t/plain.out %t/out
// RUN: FileCheck %s < %t/out

// CHECK: rand 1804289383 846930886 1681692777
// CHECK: every rank drew the same

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef PLAIN
#define MPI_Barrier(c) ((void)0)
#else
#include <mpi.h>
#endif

static char text[4096];
static int len;

#define LOG(...)                                                               \
    do {                                                                       \
        len += snprintf(text + len, sizeof(text) - len, __VA_ARGS__);          \
        MPI_Barrier(MPI_COMM_WORLD);                                           \
    } while (0)

static void draw(void)
{
    static char state[64], other[128];
    unsigned short xsubi[3] = {7, 8, 9};
    unsigned short seed[3] = {1, 2, 3};
    unsigned short param[7] = {1, 2, 3, 4, 5, 6, 7};
    /* One call per statement: the order of a call's arguments is not. */
    long a = rand(), b = rand(), c = rand();
    LOG("rand %ld %ld %ld\n", a, b, c);
    srand(42);
    a = rand();
    b = rand();
    LOG("srand(42) %ld %ld\n", a, b);
    LOG("random %ld\n", random());
    srandom(7);
    a = random();
    b = random();
    LOG("srandom(7) %ld %ld\n", a, b);
    char *old = initstate(3, state, sizeof(state));
    a = random();
    b = random();
    LOG("initstate(3) %ld %ld\n", a, b);
    initstate(11, other, sizeof(other));
    LOG("initstate(11) %ld\n", random());
    char *back = setstate(state);
    LOG("setstate %ld %d\n", random(), back == other);
    setstate(old);
    LOG("back to the first %ld\n", random());
    double d = drand48();
    a = lrand48();
    b = mrand48();
    LOG("drand48 %a %ld %ld\n", d, a, b);
    srand48(5);
    LOG("srand48(5) %a\n", drand48());
    unsigned short *prev = seed48(seed);
    unsigned short p0 = prev[0], p1 = prev[1], p2 = prev[2];
    LOG("seed48 old %u %u %u then %ld\n", p0, p1, p2, lrand48());
    lcong48(param);
    LOG("lcong48 %ld\n", lrand48());
    d = erand48(xsubi);
    a = nrand48(xsubi);
    b = jrand48(xsubi);
    LOG("erand48 %a nrand48 %ld jrand48 %ld\n", d, a, b);
}

int main(int argc, char **argv)
{
    int rank = 0, same = 1;
#ifndef PLAIN
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    draw();
#ifndef PLAIN
    char first[sizeof(text)];
    memcpy(first, text, sizeof(first));
    MPI_Bcast(first, sizeof(first), MPI_CHAR, 0, MPI_COMM_WORLD);
    int mine = strcmp(first, text) == 0;
    MPI_Allreduce(&mine, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
#endif
    if (rank == 0)
        printf("%s%s\n", text, same ? "every rank drew the same" : "ranks differ");
#ifndef PLAIN
    MPI_Finalize();
#endif
    return 0;
}
