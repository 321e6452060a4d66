// Runtime options: what the program sees of argv, the environment
// equivalents, one-line errors naming the option for bad values, and a
// one-line warning for an unknown option (Charm++'s runtime has many).
// REQUIRES: ampi-runtime
// RUN: %ampicc %s -o %t
// RUN: %t +vp 3 +p 2 alpha +stacksize 2M beta +mapping rr | FileCheck %s --check-prefix=ARGS
// RUN: %t +vp3 -x ++ +vp 9 | FileCheck %s --check-prefix=PLUSPLUS
// RUN: env AMPI_VP=5 AMPI_P=2 %t | FileCheck %s --check-prefix=ENV
// RUN: env AMPI_VP=5 %t +vp 2 | FileCheck %s --check-prefix=OVERRIDE
// RUN: not %t +vp abc 2>&1 | FileCheck %s --check-prefix=BADVP --implicit-check-not={{.}}
// RUN: not %t +vp 2>&1 | FileCheck %s --check-prefix=NOVAL --implicit-check-not={{.}}
// RUN: %t +pv 4 2>&1 | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not={{.}}
// RUN: %t +ampiEnableMigrateToPe +vp 2 2>&1 | FileCheck %s --check-prefix=CHARM --implicit-check-not={{.}}
// RUN: not %t +mapping diagonal 2>&1 | FileCheck %s --check-prefix=MAPPING --implicit-check-not={{.}}
// RUN: %t +vp 4 +p 2 +mapping random:5 delta | FileCheck %s --check-prefix=RANDOM
// RUN: env AMPI_MAPPING=list:1,0 %t +vp 3 +p 2 | FileCheck %s --check-prefix=LIST
// RUN: not %t +vp 4 +p 2 +mapping list:0,2 2>&1 | FileCheck %s --check-prefix=LISTPE --implicit-check-not={{.}}
// RUN: not %t +mapping list:0,,1 2>&1 | FileCheck %s --check-prefix=LISTBAD --implicit-check-not={{.}}
// RUN: not %t +stacksize 1K 2>&1 | FileCheck %s --check-prefix=SMALL --implicit-check-not={{.}}
// RUN: env AMPI_P=zero not %t 2>&1 | FileCheck %s --check-prefix=ENVBAD --implicit-check-not={{.}}
// RUN: %ampirun -n 1 %t +vp 2 gamma | FileCheck %s --check-prefix=LAUNCHER
// RUN: not %t +showmap=foo 2>&1 | FileCheck %s --check-prefix=FLAGVALUE --implicit-check-not={{.}}
// RUN: env AMPI_SHOWMAP=foo not %t 2>&1 | FileCheck %s --check-prefix=ENVFLAG --implicit-check-not={{.}}

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        printf("size=%d argc=%d", size, argc);
        for (int i = 1; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}

// ARGS: size=3 argc=3 [alpha] [beta]
// PLUSPLUS: size=3 argc=4 [-x] [+vp] [9]
// ENV: size=5 argc=1
// OVERRIDE: size=2 argc=1
// BADVP: ampi: +vp: expected a positive integer, got 'abc'
// NOVAL: ampi: +vp: missing value
// UNKNOWN: ampi: warning: unknown runtime option '+pv' ignored; runtime options: +vp N, +p N, {{.*}} (see docs/runtime-options.md)
// UNKNOWN-NEXT: size=1 argc=2 [4]
// CHARM: ampi: +ampiEnableMigrateToPe has no effect here: AMPI_Migrate_to_pe is always allowed
// CHARM-NEXT: size=2 argc=1
// MAPPING: ampi: +mapping: expected block, rr, random[:SEED] or list:PE,PE,..., got 'diagonal'
// RANDOM: size=4 argc=2 [delta]
// LIST: size=3 argc=1
// LISTPE: ampi: +mapping: PE 2 (for rank 1) does not exist; there are 2 PEs (+p)
// LISTBAD: ampi: +mapping: expected block, rr, random[:SEED] or list:PE,PE,..., got 'list:0,,1'
// SMALL: ampi: +stacksize: 1K is too small; the minimum is 65536 bytes
// ENVBAD: ampi: AMPI_P: expected a positive integer, got 'zero'
// LAUNCHER: size=2 argc=2 [gamma]
// FLAGVALUE: ampi: +showmap: takes no value, got '+showmap=foo'
// ENVFLAG: ampi: AMPI_SHOWMAP: expected 0 or 1, got 'foo'
