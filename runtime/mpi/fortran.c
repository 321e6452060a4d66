/*
 * The Fortran binding (mpif.h and `use mpi`): mpi_xxx_ entry points, as
 * flang and gfortran name external procedures, each a weak alias of
 * pmpi_xxx_ for profiling tools.  Every argument comes by reference and
 * ierror is last; a CHARACTER argument adds its length as a hidden size_t
 * after all of them.  Fortran INTEGER handles are the C handles unchanged.
 *
 * MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are
 * Fortran variables (mpif.h puts each in a COMMON block named after the
 * objects below), recognized here by their address.  The privatization
 * pass leaves names starting with mpi_fortran_ shared, so the program's
 * references and these definitions are the same object.  Under pie
 * privatization each rank's copy of the program has its own COMMON blocks
 * (gfortran defines them in the program, and these definitions bind to the
 * original's), so an address is first moved back to the original image.
 */
#include "mpi/impl.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define F_STATUS_SIZE 6
_Static_assert(sizeof(MPI_Status) == F_STATUS_SIZE * sizeof(MPI_Fint),
               "mpif.h's MPI_STATUS_SIZE is the size of MPI_Status in ints");

/* Declares mpi_name_, exported, as a weak alias of pmpi_name_ (defined
 * just before). */
#define AMP_FORTRAN_ALIAS(name)                                                \
    AMPI_API __typeof__(pmpi_##name##_) mpi_##name##_                          \
        __attribute__((weak, alias("pmpi_" #name "_")));

/* The special addresses.  Nothing reads or writes them: only their
 * addresses mean something, so they are not per-rank state. */
AMPI_API MPI_Fint mpi_fortran_bottom_;
AMPI_API MPI_Fint mpi_fortran_in_place_;
AMPI_API MPI_Fint mpi_fortran_status_ignore_[F_STATUS_SIZE];
AMPI_API MPI_Fint mpi_fortran_statuses_ignore_[F_STATUS_SIZE];

/* Statuses Waitall converts without allocating. */
#define STACK_STATUSES 16

/* A Fortran buffer argument as the C binding takes it. */
static void *c_buf(void *buf)
{
    const void *orig = amp_pie_to_original(buf);
    if (orig == &mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (orig == &mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    return buf;
}

static bool ignores_status(const MPI_Fint *f)
{
    const void *orig = amp_pie_to_original(f);
    return orig == mpi_fortran_status_ignore_ ||
           orig == mpi_fortran_statuses_ignore_;
}

/* The C status to hand the C binding for Fortran's status argument f:
 * local storage, or MPI_STATUS_IGNORE.  (The Fortran array may be less
 * aligned than MPI_Status, so it is copied rather than cast.) */
static MPI_Status *c_status(const MPI_Fint *f, MPI_Status *local)
{
    memset(local, 0, sizeof(*local));
    return ignores_status(f) ? MPI_STATUS_IGNORE : local;
}

static void f_status(const MPI_Status *c, MPI_Fint *f)
{
    if (!ignores_status(f))
        memcpy(f, c, sizeof(*c));
}

static MPI_Fint f_logical(int flag)
{
    return flag ? 1 : 0;
}

/* Copies a C string into a blank-padded CHARACTER*(flen) and returns the
 * number of characters copied. */
static MPI_Fint f_string(char *f, size_t flen, const char *c, int clen)
{
    size_t n = clen < 0 ? 0 : (size_t)clen;
    if (n > flen)
        n = flen;
    memcpy(f, c, n);
    memset(f + n, ' ', flen - n);
    return (MPI_Fint)n;
}

/* ---- environment ---- */

AMPI_API void pmpi_init_(MPI_Fint *ierror)
{
    *ierror = PMPI_Init(NULL, NULL);
}
AMP_FORTRAN_ALIAS(init)

AMPI_API void pmpi_init_thread_(const MPI_Fint *required, MPI_Fint *provided,
                                MPI_Fint *ierror)
{
    int c_provided = MPI_THREAD_SINGLE;
    *ierror = PMPI_Init_thread(NULL, NULL, *required, &c_provided);
    *provided = c_provided;
}
AMP_FORTRAN_ALIAS(init_thread)

AMPI_API void pmpi_finalize_(MPI_Fint *ierror)
{
    *ierror = PMPI_Finalize();
}
AMP_FORTRAN_ALIAS(finalize)

AMPI_API void pmpi_initialized_(MPI_Fint *flag, MPI_Fint *ierror)
{
    int c_flag = 0;
    *ierror = PMPI_Initialized(&c_flag);
    *flag = f_logical(c_flag);
}
AMP_FORTRAN_ALIAS(initialized)

AMPI_API void pmpi_finalized_(MPI_Fint *flag, MPI_Fint *ierror)
{
    int c_flag = 0;
    *ierror = PMPI_Finalized(&c_flag);
    *flag = f_logical(c_flag);
}
AMP_FORTRAN_ALIAS(finalized)

AMPI_API void pmpi_abort_(const MPI_Fint *comm, const MPI_Fint *errorcode,
                          MPI_Fint *ierror)
{
    *ierror = PMPI_Abort(*comm, *errorcode);
}
AMP_FORTRAN_ALIAS(abort)

AMPI_API double pmpi_wtime_(void)
{
    return PMPI_Wtime();
}
AMP_FORTRAN_ALIAS(wtime)

AMPI_API double pmpi_wtick_(void)
{
    return PMPI_Wtick();
}
AMP_FORTRAN_ALIAS(wtick)

AMPI_API void pmpi_get_processor_name_(char *name, MPI_Fint *resultlen,
                                       MPI_Fint *ierror, size_t name_len)
{
    char c_name[MPI_MAX_PROCESSOR_NAME];
    int c_len = 0;
    *ierror = PMPI_Get_processor_name(c_name, &c_len);
    if (*ierror == MPI_SUCCESS)
        *resultlen = f_string(name, name_len, c_name, c_len);
}
AMP_FORTRAN_ALIAS(get_processor_name)

AMPI_API void pmpi_error_string_(const MPI_Fint *errorcode, char *string,
                                 MPI_Fint *resultlen, MPI_Fint *ierror,
                                 size_t string_len)
{
    char c_string[MPI_MAX_ERROR_STRING];
    int c_len = 0;
    *ierror = PMPI_Error_string(*errorcode, c_string, &c_len);
    if (*ierror == MPI_SUCCESS)
        *resultlen = f_string(string, string_len, c_string, c_len);
}
AMP_FORTRAN_ALIAS(error_string)

AMPI_API void pmpi_error_class_(const MPI_Fint *errorcode, MPI_Fint *errorclass,
                                MPI_Fint *ierror)
{
    int c_class = MPI_SUCCESS;
    *ierror = PMPI_Error_class(*errorcode, &c_class);
    *errorclass = c_class;
}
AMP_FORTRAN_ALIAS(error_class)

/* ---- communicators and datatypes ---- */

AMPI_API void pmpi_comm_rank_(const MPI_Fint *comm, MPI_Fint *rank,
                              MPI_Fint *ierror)
{
    *ierror = PMPI_Comm_rank(*comm, rank);
}
AMP_FORTRAN_ALIAS(comm_rank)

AMPI_API void pmpi_comm_size_(const MPI_Fint *comm, MPI_Fint *size,
                              MPI_Fint *ierror)
{
    *ierror = PMPI_Comm_size(*comm, size);
}
AMP_FORTRAN_ALIAS(comm_size)

AMPI_API void pmpi_comm_dup_(const MPI_Fint *comm, MPI_Fint *newcomm,
                             MPI_Fint *ierror)
{
    *ierror = PMPI_Comm_dup(*comm, newcomm);
}
AMP_FORTRAN_ALIAS(comm_dup)

AMPI_API void pmpi_comm_free_(MPI_Fint *comm, MPI_Fint *ierror)
{
    *ierror = PMPI_Comm_free(comm);
}
AMP_FORTRAN_ALIAS(comm_free)

AMPI_API void pmpi_type_size_(const MPI_Fint *datatype, MPI_Fint *size,
                              MPI_Fint *ierror)
{
    *ierror = PMPI_Type_size(*datatype, size);
}
AMP_FORTRAN_ALIAS(type_size)

/* ---- point-to-point ---- */

AMPI_API void pmpi_send_(void *buf, const MPI_Fint *count,
                         const MPI_Fint *datatype, const MPI_Fint *dest,
                         const MPI_Fint *tag, const MPI_Fint *comm,
                         MPI_Fint *ierror)
{
    *ierror = PMPI_Send(c_buf(buf), *count, *datatype, *dest, *tag, *comm);
}
AMP_FORTRAN_ALIAS(send)

AMPI_API void pmpi_ssend_(void *buf, const MPI_Fint *count,
                          const MPI_Fint *datatype, const MPI_Fint *dest,
                          const MPI_Fint *tag, const MPI_Fint *comm,
                          MPI_Fint *ierror)
{
    *ierror = PMPI_Ssend(c_buf(buf), *count, *datatype, *dest, *tag, *comm);
}
AMP_FORTRAN_ALIAS(ssend)

AMPI_API void pmpi_rsend_(void *buf, const MPI_Fint *count,
                          const MPI_Fint *datatype, const MPI_Fint *dest,
                          const MPI_Fint *tag, const MPI_Fint *comm,
                          MPI_Fint *ierror)
{
    *ierror = PMPI_Rsend(c_buf(buf), *count, *datatype, *dest, *tag, *comm);
}
AMP_FORTRAN_ALIAS(rsend)

AMPI_API void pmpi_bsend_(void *buf, const MPI_Fint *count,
                          const MPI_Fint *datatype, const MPI_Fint *dest,
                          const MPI_Fint *tag, const MPI_Fint *comm,
                          MPI_Fint *ierror)
{
    *ierror = PMPI_Bsend(c_buf(buf), *count, *datatype, *dest, *tag, *comm);
}
AMP_FORTRAN_ALIAS(bsend)

AMPI_API void pmpi_buffer_attach_(void *buffer, const MPI_Fint *size,
                                  MPI_Fint *ierror)
{
    *ierror = PMPI_Buffer_attach(buffer, *size);
}
AMP_FORTRAN_ALIAS(buffer_attach)

/* Fortran cannot use the address; the buffer argument only names the
 * buffer, as in the standard's Fortran binding. */
AMPI_API void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size,
                                  MPI_Fint *ierror)
{
    void *c_addr = NULL;
    int c_size = 0;
    (void)buffer_addr;
    *ierror = PMPI_Buffer_detach(&c_addr, &c_size);
    *size = c_size;
}
AMP_FORTRAN_ALIAS(buffer_detach)

AMPI_API void pmpi_isend_(void *buf, const MPI_Fint *count,
                          const MPI_Fint *datatype, const MPI_Fint *dest,
                          const MPI_Fint *tag, const MPI_Fint *comm,
                          MPI_Fint *request, MPI_Fint *ierror)
{
    *ierror =
        PMPI_Isend(c_buf(buf), *count, *datatype, *dest, *tag, *comm, request);
}
AMP_FORTRAN_ALIAS(isend)

AMPI_API void pmpi_irecv_(void *buf, const MPI_Fint *count,
                          const MPI_Fint *datatype, const MPI_Fint *source,
                          const MPI_Fint *tag, const MPI_Fint *comm,
                          MPI_Fint *request, MPI_Fint *ierror)
{
    *ierror = PMPI_Irecv(c_buf(buf), *count, *datatype, *source, *tag, *comm,
                         request);
}
AMP_FORTRAN_ALIAS(irecv)

AMPI_API void pmpi_recv_(void *buf, const MPI_Fint *count,
                         const MPI_Fint *datatype, const MPI_Fint *source,
                         const MPI_Fint *tag, const MPI_Fint *comm,
                         MPI_Fint *status, MPI_Fint *ierror)
{
    MPI_Status st;
    *ierror = PMPI_Recv(c_buf(buf), *count, *datatype, *source, *tag, *comm,
                        c_status(status, &st));
    f_status(&st, status);
}
AMP_FORTRAN_ALIAS(recv)

AMPI_API void pmpi_sendrecv_(void *sendbuf, const MPI_Fint *sendcount,
                             const MPI_Fint *sendtype, const MPI_Fint *dest,
                             const MPI_Fint *sendtag, void *recvbuf,
                             const MPI_Fint *recvcount,
                             const MPI_Fint *recvtype, const MPI_Fint *source,
                             const MPI_Fint *recvtag, const MPI_Fint *comm,
                             MPI_Fint *status, MPI_Fint *ierror)
{
    MPI_Status st;
    *ierror = PMPI_Sendrecv(c_buf(sendbuf), *sendcount, *sendtype, *dest,
                            *sendtag, c_buf(recvbuf), *recvcount, *recvtype,
                            *source, *recvtag, *comm, c_status(status, &st));
    f_status(&st, status);
}
AMP_FORTRAN_ALIAS(sendrecv)

AMPI_API void pmpi_probe_(const MPI_Fint *source, const MPI_Fint *tag,
                          const MPI_Fint *comm, MPI_Fint *status,
                          MPI_Fint *ierror)
{
    MPI_Status st;
    *ierror = PMPI_Probe(*source, *tag, *comm, c_status(status, &st));
    f_status(&st, status);
}
AMP_FORTRAN_ALIAS(probe)

AMPI_API void pmpi_iprobe_(const MPI_Fint *source, const MPI_Fint *tag,
                           const MPI_Fint *comm, MPI_Fint *flag,
                           MPI_Fint *status, MPI_Fint *ierror)
{
    MPI_Status st;
    int c_flag = 0;
    *ierror = PMPI_Iprobe(*source, *tag, *comm, &c_flag, c_status(status, &st));
    *flag = f_logical(c_flag);
    if (c_flag)
        f_status(&st, status);
}
AMP_FORTRAN_ALIAS(iprobe)

AMPI_API void pmpi_get_count_(const MPI_Fint *status, const MPI_Fint *datatype,
                              MPI_Fint *count, MPI_Fint *ierror)
{
    MPI_Status st;
    memcpy(&st, status, sizeof(st));
    *ierror = PMPI_Get_count(&st, *datatype, count);
}
AMP_FORTRAN_ALIAS(get_count)

/* ---- completion ---- */

AMPI_API void pmpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierror)
{
    MPI_Status st;
    *ierror = PMPI_Wait(request, c_status(status, &st));
    f_status(&st, status);
}
AMP_FORTRAN_ALIAS(wait)

AMPI_API void pmpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status,
                         MPI_Fint *ierror)
{
    MPI_Status st;
    int c_flag = 0;
    *ierror = PMPI_Test(request, &c_flag, c_status(status, &st));
    *flag = f_logical(c_flag);
    if (c_flag)
        f_status(&st, status);
}
AMP_FORTRAN_ALIAS(test)

/* Statuses go through a C array (MPI_Status may need more alignment than
 * the Fortran array has), on the stack when there are few. */
AMPI_API void pmpi_waitall_(const MPI_Fint *count, MPI_Fint *requests,
                            MPI_Fint *statuses, MPI_Fint *ierror)
{
    MPI_Status stack[STACK_STATUSES];
    MPI_Status *st = stack;
    int n = *count;

    if (ignores_status(statuses) || n <= 0) {
        *ierror = PMPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
        return;
    }
    if (n > STACK_STATUSES) {
        st = calloc((size_t)n, sizeof(*st));
        if (!st) {
            *ierror =
                amp_mpi_error(amp_rank_self(), NULL, MPI_ERR_NO_MEM,
                              "MPI_Waitall", "no memory for %d statuses", n);
            return;
        }
    }
    *ierror = PMPI_Waitall(n, requests, st);
    memcpy(statuses, st, (size_t)n * sizeof(*st));
    if (st != stack)
        free(st);
}
AMP_FORTRAN_ALIAS(waitall)

AMPI_API void pmpi_request_free_(MPI_Fint *request, MPI_Fint *ierror)
{
    *ierror = PMPI_Request_free(request);
}
AMP_FORTRAN_ALIAS(request_free)

AMPI_API void pmpi_cancel_(MPI_Fint *request, MPI_Fint *ierror)
{
    *ierror = PMPI_Cancel(request);
}
AMP_FORTRAN_ALIAS(cancel)

/* ---- collectives ---- */

AMPI_API void pmpi_barrier_(const MPI_Fint *comm, MPI_Fint *ierror)
{
    *ierror = PMPI_Barrier(*comm);
}
AMP_FORTRAN_ALIAS(barrier)

AMPI_API void pmpi_bcast_(void *buffer, const MPI_Fint *count,
                          const MPI_Fint *datatype, const MPI_Fint *root,
                          const MPI_Fint *comm, MPI_Fint *ierror)
{
    *ierror = PMPI_Bcast(c_buf(buffer), *count, *datatype, *root, *comm);
}
AMP_FORTRAN_ALIAS(bcast)

AMPI_API void pmpi_reduce_(void *sendbuf, void *recvbuf, const MPI_Fint *count,
                           const MPI_Fint *datatype, const MPI_Fint *op,
                           const MPI_Fint *root, const MPI_Fint *comm,
                           MPI_Fint *ierror)
{
    *ierror = PMPI_Reduce(c_buf(sendbuf), c_buf(recvbuf), *count, *datatype,
                          *op, *root, *comm);
}
AMP_FORTRAN_ALIAS(reduce)

AMPI_API void pmpi_allreduce_(void *sendbuf, void *recvbuf,
                              const MPI_Fint *count, const MPI_Fint *datatype,
                              const MPI_Fint *op, const MPI_Fint *comm,
                              MPI_Fint *ierror)
{
    *ierror = PMPI_Allreduce(c_buf(sendbuf), c_buf(recvbuf), *count, *datatype,
                             *op, *comm);
}
AMP_FORTRAN_ALIAS(allreduce)
