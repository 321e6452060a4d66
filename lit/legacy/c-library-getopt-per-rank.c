// Every rank parses its own command line with getopt, getopt_long and
// getopt_long_only, as each process does under any other MPI: the options,
// their arguments, optind, optopt, the permuted argv and the error
// messages are exactly glibc's in a process of its own (the same source
// built without MPI).  Other ranks run between the calls (a barrier in the
// loop), on other PEs at the same time, in other processes; ranks other
// than 0 set opterr = 0 to keep quiet, which must hold for them only.
// REQUIRES: ampi-runtime
// RUN: rm -rf %t && mkdir -p %t/plain %t/tls %t/pie %t/gcc
// RUN: %clang -DPLAIN %s -o %t/plain/prog
// RUN: %ampicc %s -o %t/tls/prog
// RUN: %ampicc -privatize=pie %s -o %t/pie/prog
// RUN: env AMPI_CC=gcc %ampicc %s -o %t/gcc/prog 2>/dev/null
// RUN: cd %t/plain && ./prog -v -n 5 in.txt --size=3 -x -t -W size=9 --col --mode --verb out.txt -- -n 1 > %t/plain.out 2> %t/plain.err
// RUN: cd %t/tls && ./prog -v -n 5 in.txt --size=3 -x -t -W size=9 --col --mode --verb out.txt -- -n 1 +vp 4 +p 2 > %t/tls.out 2> %t/tls.err
// RUN: diff %t/plain.out %t/tls.out
// RUN: diff %t/plain.err %t/tls.err
// RUN: cd %t/tls && ./prog -v -n 5 in.txt --size=3 -x -t -W size=9 --col --mode --verb out.txt -- -n 1 +vp 7 +p 2 +mapping rr > %t/tls7.out 2> %t/tls7.err
// RUN: diff %t/plain.out %t/tls7.out
// RUN: diff %t/plain.err %t/tls7.err
// RUN: cd %t/pie && ./prog -v -n 5 in.txt --size=3 -x -t -W size=9 --col --mode --verb out.txt -- -n 1 +vp 4 +p 2 > %t/pie.out 2> %t/pie.err
// RUN: diff %t/plain.out %t/pie.out
// RUN: diff %t/plain.err %t/pie.err
// RUN: cd %t/gcc && ./prog -v -n 5 in.txt --size=3 -x -t -W size=9 --col --mode --verb out.txt -- -n 1 +vp 4 +p 2 > %t/gcc.out 2> %t/gcc.err
// RUN: diff %t/plain.out %t/gcc.out
// RUN: diff %t/plain.err %t/gcc.err
// RUN: cd %t/tls && %ampirun -n 2 --allow-run-as-root --launcher-arg --oversubscribe ./prog -v -n 5 in.txt --size=3 -x -t -W size=9 --col --mode --verb out.txt -- -n 1 +vp 4 > %t/np.out 2> %t/np.err
// RUN: diff %t/plain.out %t/np.out
// RUN: diff %t/plain.err %t/np.err
// RUN: FileCheck %s < %t/tls.out
// RUN: FileCheck %s --check-prefix=ERR --implicit-check-not={{.}} < %t/tls.err

// ERR: ./prog: unrecognized option '-W'
// ERR-NEXT: ./prog: option '--col' is ambiguous; possibilities: '--color' '--columns'
// ERR-NEXT: ./prog: unrecognized option '--mode'

// CHECK: getopt: v n=5 end optind=4
// CHECK-NEXT: getopt_long: 118[-1]- 110[-1]5 115[0]3 120[-1]- 116[-1]- 115[0]9 63[0]- 109[1]- 118[2]- end optind=13
// CHECK-NEXT: getopt_long_only: v- n5 s3 x- t- ?- ?- ?- V- end optind=12
// CHECK-NEXT: argv: ./prog -v -n 5 --size=3 -x -t -W --col --mode --verb -- size=9 in.txt out.txt -n 1
// CHECK-NEXT: every rank parsed the same

#define _GNU_SOURCE 1
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef PLAIN
#define MPI_Barrier(c) ((void)0)
#else
#include <mpi.h>
#endif

static char log_text[4096];
static int log_len;

static void note(const char *fmt, int a, const char *s)
{
    log_len += snprintf(log_text + log_len, sizeof(log_text) - log_len, fmt,
                        a, s ? s : "-");
}

static void short_options(int argc, char **argv, int quiet)
{
    int c;
    note("getopt:", 0, NULL);
    if (quiet)
        opterr = 0;
    /* First the short options only, up to the first non-option (+). */
    while ((c = getopt(argc, argv, "+vn:tx")) != -1) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (c == 'n')
            note(" n=%.0d%s", 0, optarg);
        else if (c == '?')
            note(" ?(%c)%s", optopt, "");
        else
            note(" %c%s", c, "");
    }
    note(" end optind=%d%s\n", optind, "");
}

static void long_options(int argc, char **argv)
{
    static const struct option longs[] = {
        {"size", required_argument, 0, 's'}, {"mode", optional_argument, 0, 'm'},
        {"verbose", no_argument, 0, 'v'},    {"color", no_argument, 0, 'c'},
        {"columns", required_argument, 0, 'C'}, {0, 0, 0, 0}};
    int c, index = -1;
    optind = 0; /* parse again from the start, permuting this time */
    note("getopt_long:", 0, NULL);
    while ((c = getopt_long(argc, argv, ":vn:txW;", longs, &index)) != -1) {
        MPI_Barrier(MPI_COMM_WORLD);
        note(" %d", c, NULL);
        note("[%d]%s", c == '?' || c == ':' ? optopt : index, optarg);
        index = -1;
    }
    note(" end optind=%d%s\n", optind, "");
}

static void long_only(int argc, char **argv)
{
    static const struct option longs[] = {
        {"verb", no_argument, 0, 'V'},    {"size", required_argument, 0, 's'},
        {"color", no_argument, 0, 'c'},   {"columns", required_argument, 0, 'C'},
        {0, 0, 0, 0}};
    int c;
    optind = 0; /* glibc's full reinitialization */
    note("getopt_long_only:", 0, NULL);
    while ((c = getopt_long_only(argc, argv, "vn:tx", longs, NULL)) != -1) {
        MPI_Barrier(MPI_COMM_WORLD);
        note(" %c", c, NULL);
        note("%.0d%s", 0, optarg);
    }
    note(" end optind=%d%s\n", optind, "");
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, same = 1;
#ifndef PLAIN
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    short_options(argc, argv, rank != 0);
    long_options(argc, argv);
    long_only(argc, argv);
    note("argv:", 0, NULL);
    for (int i = 0; i < argc; i++)
        note(" %.0d%s", 0, argv[i]);
    note("\n", 0, NULL);
#ifndef PLAIN
    char first[sizeof(log_text)];
    memcpy(first, log_text, sizeof(first));
    MPI_Bcast(first, sizeof(first), MPI_CHAR, 0, MPI_COMM_WORLD);
    int mine = strcmp(first, log_text) == 0;
    MPI_Allreduce(&mine, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
#endif
    if (rank == 0)
        printf("%s%s\n", log_text,
               same ? "every rank parsed the same" : "ranks differ");
#ifndef PLAIN
    MPI_Finalize();
#endif
    return 0;
}
