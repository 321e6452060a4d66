// What the C library keeps between calls or answers in a static buffer is
// per rank: strtok's position, the struct tm of gmtime and localtime, the
// strings of asctime, ctime, strerror, strsignal and inet_ntoa, the records
// of getpwuid and getgrgid.  Each rank makes a call with inputs of its own,
// lets the other ranks make theirs (a barrier), and checks that what it
// holds is still its answer.  Built with -privatize=none the ranks' globals
// are shared but these answers are still their own.
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 4 +p 1 | FileCheck %s
// RUN: %t +vp 8 +p 2 | FileCheck %s
// RUN: %ampicc -privatize=pie %s -o %t.pie
// RUN: %t.pie +vp 4 +p 2 | FileCheck %s
// RUN: %ampicc -privatize=none %s -o %t.none
// RUN: %t.none +vp 4 +p 2 | FileCheck %s
// RUN: %ampirun -n 2 --allow-run-as-root --launcher-arg --oversubscribe %t +vp 4 | FileCheck %s

// CHECK: 0 of {{[0-9]+}} ranks found another rank's answer

#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <grp.h>
#include <mpi.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int bad;

static void wait_for_others(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void expect(const char *what, const char *got, const char *want)
{
    if (!got || strcmp(got, want) != 0) {
        printf("%s: '%s', expected '%s'\n", what, got ? got : "(null)", want);
        bad = 1;
    }
}

static void tokens(int rank)
{
    char line[64], want[16];
    snprintf(line, sizeof(line), "a%d b%d c%d", rank, rank, rank);
    char *first = strtok(line, " ");
    wait_for_others();
    char *second = strtok(NULL, " ");
    snprintf(want, sizeof(want), "b%d", rank);
    expect("strtok", second, want);
    (void)first;
}

static void times(int rank)
{
    time_t t = (time_t)rank * 86400 * 40; /* a different month each */
    char want[64], have[64];
    struct tm mine;
    struct tm *g = gmtime(&t);
    char *text = asctime(g);
    wait_for_others();
    gmtime_r(&t, &mine);
    strftime(want, sizeof(want), "%F %T", &mine);
    strftime(have, sizeof(have), "%F %T", g);
    expect("gmtime", have, want);
    expect("asctime", text, asctime_r(&mine, want));
    char *c = ctime(&t);
    struct tm *l = localtime(&t);
    wait_for_others();
    localtime_r(&t, &mine);
    expect("ctime", c, asctime_r(&mine, want));
    strftime(want, sizeof(want), "%F %T", &mine);
    strftime(have, sizeof(have), "%F %T", l);
    expect("localtime", have, want);
}

static void strings(int rank)
{
    char want[256];
    char *err = strerror(1000 + rank); /* unknown: formatted per call */
    char *sig = strsignal(SIGRTMIN + rank % 8);
    struct in_addr a = {htonl(0x0a000000u + (unsigned)rank)};
    char *addr = inet_ntoa(a);
    wait_for_others();
    expect("strerror", err, strerror_r(1000 + rank, want, sizeof(want)));
    snprintf(want, sizeof(want), "Real-time signal %d", rank % 8);
    expect("strsignal", sig, want);
    snprintf(want, sizeof(want), "10.0.0.%d", rank);
    expect("inet_ntoa", addr, want);
}

static void users(int rank)
{
    /* root and the first group, or nobody and nogroup, by rank */
    uid_t uid = rank % 2 ? 65534 : 0;
    gid_t gid = rank % 2 ? 65534 : 0;
    struct passwd *pw = getpwuid(uid), pwbuf, *pwr;
    struct group *gr = getgrgid(gid), grbuf, *grr;
    char buf[4096];
    wait_for_others();
    if (getpwuid_r(uid, &pwbuf, buf, sizeof(buf), &pwr) == 0 && pwr)
        expect("getpwuid", pw ? pw->pw_name : NULL, pwr->pw_name);
    if (getgrgid_r(gid, &grbuf, buf, sizeof(buf), &grr) == 0 && grr)
        expect("getgrgid", gr ? gr->gr_name : NULL, grr->gr_name);
}

int main(int argc, char **argv)
{
    int rank, size, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tokens(rank);
    times(rank);
    strings(rank);
    users(rank);
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks found another rank's answer\n", total, size);
    MPI_Finalize();
    return 0;
}
