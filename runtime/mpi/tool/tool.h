/*
 * tool/: the MPI tool information interface (private to the part).  The
 * variables are fixed tables (cvar.c, pvar.c); what a rank opens of them
 * (handles, sessions) hangs off its amp_rank_t (rank->tool), from its
 * first MPI_T_init_thread to its last MPI_T_finalize.
 */
#ifndef AMP_MPI_TOOL_TOOL_H
#define AMP_MPI_TOOL_TOOL_H

#include "mpi/call.h"

/* The categories (tool.c), by index. */
enum amp_tool_cat {
    AMP_TOOL_CAT_RUNTIME,
    AMP_TOOL_CAT_P2P,
    AMP_TOOL_CAT_SCHED,
    AMP_TOOL_CAT_LB,
    AMP_TOOL_CAT_GPU,
    AMP_TOOL_NCATS
};

/* The enumerations (tool.c): handle AMPI_HANDLE(AMPI_HANDLE_T_ENUM, i). */
enum amp_tool_enum { AMP_TOOL_ENUM_NONE, AMP_TOOL_ENUM_BALANCER };

/* A control variable: one value of type dt (MPI_INT, MPI_UNSIGNED_LONG or
 * MPI_DOUBLE), read into and written from a buffer of that type. */
typedef struct amp_tool_cvar {
    const char *name, *desc;
    MPI_Datatype dt;
    int scope; /* MPI_T_SCOPE_* */
    int cat;   /* enum amp_tool_cat */
    int enumtype;
    void (*read)(void *buf);
    /* NULL: never set (scope CONSTANT or READONLY); else MPI_SUCCESS or
     * MPI_T_ERR_INVALID for a value out of range */
    int (*write)(const void *buf);
} amp_tool_cvar_t;

extern const amp_tool_cvar_t amp_tool_cvars[];
extern const int amp_tool_ncvars;

/* One element of a performance variable. */
typedef union amp_tool_val {
    unsigned long long u; /* MPI_UNSIGNED_LONG_LONG */
    double d;             /* MPI_DOUBLE */
} amp_tool_val_t;

/* How many elements a performance variable has. */
enum amp_tool_count { AMP_TOOL_ONE, AMP_TOOL_PER_PE, AMP_TOOL_PER_ROUTE };

typedef struct amp_tool_pvar {
    const char *name, *desc;
    int cls;        /* MPI_T_PVAR_CLASS_* */
    int is_dbl;     /* MPI_DOUBLE, else MPI_UNSIGNED_LONG_LONG */
    int per;        /* enum amp_tool_count */
    int cat;        /* enum amp_tool_cat */
    int continuous; /* always on: no start or stop */
    /* The values now, of this process (n elements). */
    void (*read)(amp_tool_val_t *out, int n);
} amp_tool_pvar_t;

extern const amp_tool_pvar_t amp_tool_pvars[];
extern const int amp_tool_npvars;

/* The elements of pvar p. */
int amp_tool_pvar_count(const amp_tool_pvar_t *p);

/* A rank's handles and sessions. */
typedef struct amp_tool {
    int inits;            /* MPI_T_init_thread less MPI_T_finalize */
    amp_table_t cvars;    /* amp_tool_chandle_t */
    amp_table_t sessions; /* amp_tool_session_t */
    amp_table_t phandles; /* amp_tool_phandle_t */
} amp_tool_t;

typedef struct amp_tool_chandle {
    amp_obj_t obj;
    int cvar;
} amp_tool_chandle_t;

typedef struct amp_tool_session {
    amp_obj_t obj;
} amp_tool_session_t;

/* A performance variable's handle: its values as last stopped (acc),
 * where the counts stood at the last start (base), and room for a read
 * (now): count elements each, in one block at acc. */
typedef struct amp_tool_phandle {
    amp_obj_t obj;
    int session; /* its index */
    int pvar;
    int count;
    int started;
    amp_tool_val_t *acc, *base, *now;
} amp_tool_phandle_t;

/* Enters MPI_T call: the caller is a rank that has called
 * MPI_T_init_thread more often than MPI_T_finalize
 * (MPI_T_ERR_NOT_INITIALIZED otherwise). */
int amp_tool_enter(amp_rank_t **rank, amp_tool_t **tool, const char *call);

/* The standard's way of returning a string: when len is NULL nothing;
 * when buf is NULL or *len is 0, the length needed (NUL included) in
 * *len; else s cut to *len - 1 characters, and the characters written
 * (NUL included) in *len. */
void amp_tool_put_str(const char *s, char *buf, int *len);

/* Frees the handles of session s (pvar.c, at the session's end and at
 * the last MPI_T_finalize). */
void amp_tool_session_drop(amp_tool_t *tool, int s);

#endif
