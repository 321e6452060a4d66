/*
 * The Fortran binding's private header: the argument conversions that
 * runtime/mpi/fortran/fortran.c defines and both it and the generated wrappers
 * (scripts/gen_fortran.py, fortran_gen.c in the build tree) use.
 */
#ifndef AMP_MPI_FORTRAN_H
#define AMP_MPI_FORTRAN_H

#include "mpi/handles.h"

#include <stddef.h>

/* INTEGER STATUS(MPI_STATUS_SIZE) is an MPI_Status. */
#define AMP_F_STATUS_SIZE 8

/* Declares mpi_name_, exported, as a weak alias of pmpi_name_ (defined
 * just before). */
#define AMP_FORTRAN_ALIAS(name)                                                \
    AMPI_API __typeof__(pmpi_##name##_) mpi_##name##_                          \
        __attribute__((weak, alias("pmpi_" #name "_")));

/* A choice buffer as the C binding takes it: MPI_BOTTOM and MPI_IN_PLACE
 * become the C values. */
void *amp_f_buf(const void *buf);

/* The C status for Fortran's status f: MPI_STATUS_IGNORE, or *local, a
 * copy of f whether the call reads it (copy_in) or only writes it, so that
 * the fields a call leaves alone (MPI_ERROR) keep the program's values. */
MPI_Status *amp_f_status_in(const MPI_Fint *f, MPI_Status *local, int copy_in);
/* Copies c back into f unless f is MPI_STATUS(ES)_IGNORE. */
void amp_f_status_out(const MPI_Status *c, MPI_Fint *f);

/* An array of statuses converted for the C binding: c is
 * MPI_STATUSES_IGNORE, stack or heap memory. */
#define AMP_F_STACK_STATUSES 8
typedef struct {
    MPI_Status *c;
    int n;
    MPI_Status stack[AMP_F_STACK_STATUSES];
} amp_f_statuses_t;
/* Sets s up for the n statuses at f; 0 (with *ierror set) when there is
 * no memory for them. */
int amp_f_statuses_in(amp_f_statuses_t *s, const MPI_Fint *f, int n,
                      const char *call, MPI_Fint *ierror);
/* Copies s back into f and frees what s allocated. */
void amp_f_statuses_out(amp_f_statuses_t *s, MPI_Fint *f);

/* A LOGICAL result: the C int made .TRUE. (1) or .FALSE. (0). */
void amp_f_logical_out(MPI_Fint *flag);
/* n C indices (0-based, or MPI_UNDEFINED) made Fortran ones (1-based). */
void amp_f_index_out(MPI_Fint *index, int n);
/* MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY. */
int *amp_f_errcodes(MPI_Fint *codes);
const int *amp_f_weights(const MPI_Fint *weights);

/* A CHARACTER*(len) argument as a new NUL-terminated C string without the
 * trailing blanks (free it), or NULL when there is no memory. */
char *amp_f_cstring(const char *f, size_t len);
/* The same without the leading blanks either (info keys and values). */
char *amp_f_cstring_trim(const char *f, size_t len);
/* The MPI_ERR_NO_MEM error of call, for a failed amp_f_cstring. */
int amp_f_no_mem(const char *call);
/* Copies the C string c into the blank-padded CHARACTER*(flen) f and
 * returns the number of characters copied. */
MPI_Fint amp_f_string_out(char *f, size_t flen, const char *c);

#endif
