/*
 * The large-count "_c" calls of MPI-4.0 (counts as MPI_Count, displacements
 * as MPI_Aint), private to the mpi module.
 *
 * Each _c call runs its int form.  scripts/gen_large.py writes most of them
 * (large_gen.c in the build tree) from the two prototypes, with these
 * helpers; large.c writes by hand those whose results differ in type, and
 * defines the helpers.  A count beyond INT_MAX that comes with a datatype
 * (the buffers of point-to-point, collective and one-sided calls) becomes
 * one element of a derived type that holds that many elements, so the int
 * form moves all of it; a user reduction still sees the program's datatype
 * and the whole count (coll/coll.h).  Other values beyond what an int holds
 * (the arrays of the v and w collectives, datatype constructor arguments)
 * fail with MPI_ERR_UNSUPPORTED_OPERATION naming the argument.
 *
 * An error the int form reports names the _c call (amp_call_ctx_t.alias).
 */
#ifndef AMP_MPI_LARGE_H
#define AMP_MPI_LARGE_H

#include "mpi/comm/comm.h"

#define AMP_LARGE_MAX_BIG 4
#define AMP_LARGE_MAX_MEM 8

typedef struct amp_large {
    amp_rank_t *rank;
    amp_comm_t *comm; /* whose handler reports (NULL: MPI_COMM_WORLD's) */
    const char *call; /* the _c call */
    int rc;           /* the first failure, or MPI_SUCCESS */
    int nbig, nmem;
    MPI_Datatype big[AMP_LARGE_MAX_BIG]; /* types made here, to free */
    void *mem[AMP_LARGE_MAX_MEM];        /* converted arrays, to free */
    const char *saved_of, *saved_alias;  /* the call state's alias before */
    int ran;                             /* amp_large_run was called */
    char base[64];                       /* the int form's name */
    int empty;                           /* what an empty array points to */
} amp_large_t;

/* How many elements an array argument of a collective has (comm_h's). */
enum amp_large_len {
    AMP_LARGE_GROUP,  /* the group's size (the remote group's: inter) */
    AMP_LARGE_LOCAL,  /* the local group's size */
    AMP_LARGE_ROOT,   /* AMP_LARGE_GROUP at the root (MPI_ROOT: inter), 0 */
    AMP_LARGE_INDEG,  /* neighbors received from (topology) */
    AMP_LARGE_OUTDEG, /* neighbors sent to */
};

/* Enters call (its errors go through comm_h's handler, MPI_COMM_NULL:
 * MPI_COMM_WORLD's); the rest does nothing once L->rc is an error. */
void amp_large_begin(amp_large_t *L, const char *call, MPI_Comm comm_h);
/* count of datatype *dt: *c = count, or 1 and *dt a new type of count
 * elements of it when count > INT_MAX; a negative count stays negative. */
void amp_large_count_dt(amp_large_t *L, MPI_Count count, int *c,
                        MPI_Datatype *dt, const char *arg);
/* A value without a datatype that must fit an int. */
void amp_large_int(amp_large_t *L, long long v, int *c, const char *arg);
/* The n values of an array (NULL stays NULL) as ints, each of which must
 * fit; the copy lives until amp_large_end. */
const int *amp_large_counts_int(amp_large_t *L, const MPI_Count *a, int n,
                                const char *arg);
const int *amp_large_aints_int(amp_large_t *L, const MPI_Aint *a, int n,
                               const char *arg);
/* n MPI_Counts as MPI_Aints (the datatype constructors' displacements). */
const MPI_Aint *amp_large_counts_aint(amp_large_t *L, const MPI_Count *a, int n,
                                      const char *arg);
/* The length of an array argument of a collective on comm_h (root: the
 * call's root, for AMP_LARGE_ROOT); 0 for an invalid communicator, which
 * the int form then reports. */
int amp_large_len(amp_large_t *L, MPI_Comm comm_h, int kind, int root);
/* Makes the int form's errors name the _c call; amp_large_end undoes it. */
void amp_large_run(amp_large_t *L);
/* Frees what L made and returns L->rc if it is an error, else rc. */
int amp_large_end(amp_large_t *L, int rc);

#endif
