/*
 * The reduction operations (ops.c): the predefined ones on every type
 * they are defined for, and user functions of either binding.  Below the
 * collectives, which apply them; nothing here communicates.
 */
#ifndef AMP_COLL_OPS_H
#define AMP_COLL_OPS_H

#include "dt/dt.h"

#include <stddef.h>

/* A reduction: a predefined operation (op_id) or a user function, of the
 * int binding or (large) of the large-count one, whose len is a long long
 * (MPI_Op_create_c). */
typedef void (*amp_coll_user_fn_t)(void *in, void *inout, int *len, int *dt);
typedef void (*amp_coll_user_fn_c_t)(void *in, void *inout, long long *len,
                                     int *dt);
typedef struct amp_coll_op {
    int op_id;               /* predefined id, or 0 for user */
    amp_coll_user_fn_t user; /* user function */
    int large;               /* user is an amp_coll_user_fn_c_t */
    int dt_handle;           /* handed to the user function */
    /* The user function sees elements of dt_handle: unit of them (extent
     * unit_extent each) per element of the type the collective moves (1
     * unless a large count was made one element of a bigger type);
     * an int-binding function gets at most INT_MAX at a time. */
    long long unit;
    ptrdiff_t unit_extent;
} amp_coll_op_t;

/* Applies inout[i] = in[i] op inout[i] for count elements of dt. */
void amp_coll_apply(const amp_coll_op_t *op, const amp_dt_t *dt, int count,
                    const void *in, void *inout);
/* 1 if the predefined operation op_id is defined on dt: dt's basic values
 * are all of one predefined type (with or without gaps between them), or
 * it has none (size zero: there is nothing to combine). */
int amp_op_defined(int op_id, const amp_dt_t *dt);
const char *amp_op_name(int op_id);

#endif
