/*
 * What every file of the MPI layer needs: the layers below, the MPI_
 * names as weak aliases of the PMPI_ ones, handles' kind and index, the
 * error handlers and operations behind handles, and errors (errors.c).
 * The process-wide and per-rank structs are in proc.h; the objects the
 * chapters share, their lookups and the argument checks in handles.h,
 * requests in request.h; each chapter has its own header beside.
 */
#ifndef AMP_MPI_CALL_H
#define AMP_MPI_CALL_H

#include "mpi.h"
#include "mpi/proc.h"

#include "base/base.h"
#include "base/table.h"
#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/hier.h"
#include "coll/inter.h"
#include "coll/shm.h"
#include "dt/dt.h"
#include "gpu/gpu.h"
#include "io/io.h"
#include "lb/lb.h"
#include "mem/mem.h"
#include "p2p/p2p.h"
#include "pie/pie.h"
#include "rma/rma.h"
#include "sched/sched.h"
#include "topo/topo.h"

#include <pthread.h>
#include <stdatomic.h>

/* Makes MPI_name a weak alias of PMPI_name, defined just before.  Not for
 * the calls whose exported entry points scripts/gen_threads.py generates
 * (its header, forced into the runtime's sources, defines
 * AMP_MT_WRAPPED_name): the entry point and its alias are made there, and
 * PMPI_name here is renamed to its implementation. */
#define AMP_WEAK_ALIAS(name)                                                   \
    AMP_ALIAS_IF(AMP_ALIAS_PROBE(AMP_MT_WRAPPED_##name), name)
#define AMP_ALIAS_PROBE(...) AMP_ALIAS_SECOND(__VA_ARGS__, 1, ~)
#define AMP_ALIAS_SECOND(a, b, ...) b
#define AMP_ALIAS_IF(on, name) AMP_ALIAS_IF_(on, name)
#define AMP_ALIAS_IF_(on, name) AMP_ALIAS_##on(name)
#define AMP_ALIAS_1(name) AMP_ALIAS_DEF(name)
/* The alias itself, exported: Clang would make a "#pragma weak" alias
 * hidden under -fvisibility=hidden. */
#define AMP_ALIAS_DEF(name)                                                    \
    extern __typeof__(PMPI_##name) MPI_##name                                  \
        __attribute__((weak, alias("PMPI_" #name)));
#define AMP_ALIAS_0(name)

#define AMP_HANDLE_KIND(h) ((unsigned)(h) >> AMPI_HANDLE_SHIFT)
#define AMP_HANDLE_INDEX(h) ((int)((unsigned)(h) & 0xffffffu))

/* Which objects a user error handler is for (attr/errhandler.c). */
enum amp_errh_kind {
    AMP_ERRH_COMM,
    AMP_ERRH_WIN,
    AMP_ERRH_FILE,
    AMP_ERRH_SESSION
};

typedef struct amp_errh {
    amp_obj_t obj;
    MPI_Comm_errhandler_function *fn; /* the same type for windows, files */
    int kind;                         /* enum amp_errh_kind */
} amp_errh_t;

typedef struct amp_op_obj {
    amp_obj_t obj;
    MPI_User_function *fn; /* an MPI_User_function_c when large */
    int commute;
    int large; /* made by MPI_Op_create_c */
} amp_op_obj_t;

/* ---- errors (errors.c) ---- */

int amp_mpi_class_of(amp_status_t st);
_Noreturn void amp_mpi_abort_job(int code);
int amp_mpi_unsupported(const char *call); /* see unsupported.c */
/* The error class of code (predefined, recorded or added by the program),
 * or -1 when code is no error code. */
int amp_mpi_class_of_code(amp_rank_t *rank, int code);
/* Records an error of a call on window win and applies handler eh (the
 * window's) to it; detail says what is wrong.  Returns the code. */
int amp_mpi_error_win(amp_rank_t *rank, MPI_Errhandler eh, MPI_Win win,
                      int errclass, const char *call, const char *detail);
/* Records an error of a call on file fh (MPI_FILE_NULL too) and applies
 * handler eh (the file's) to it; msg says what is wrong (call included).
 * Returns the code. */
int amp_mpi_error_file(amp_rank_t *rank, MPI_Errhandler eh, MPI_File fh,
                       int errclass, const char *msg);
/* eh applied to an error of errclass (raw: the program's error code as it
 * is) of the object handle (a session, a file...), detail saying what is
 * wrong; returns the MPI code. */
int amp_errh_apply(amp_rank_t *rank, MPI_Errhandler eh, int handle,
                   int errclass, int raw, const char *call, const char *detail);
/* What MPI_LASTUSEDCODE points to. */
const int *amp_mpi_lastusedcode(amp_rank_t *rank);

#endif
