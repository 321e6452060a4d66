/*
 * MPI-IO (chapter 13): the file objects behind MPI_File handles, private
 * to the file*.c files of the MPI layer (docs/mpi-io.md).
 *
 * A rank's file object holds what is the rank's own: its view, its
 * individual file pointer, its error handler, and the private
 * communicators of the file: a duplicate of the opening communicator, the
 * members in this process (local) and the first member of each process
 * (leaders).  The file itself, one descriptor per process, is io/'s
 * (amp_io_file_t), shared by the process's members.
 *
 *   file.c             handles, errors, open/close/delete, size, info,
 *                      hints, atomicity, sync
 *   file_view.c        views, data representations, positions
 *   file_rw.c          independent reads and writes, blocking and not
 *   file_coll.c        collective reads and writes, split collectives
 *   file_shared.c      the shared file pointer, ordered reads and writes
 *   file_errhandler.c  the files' error handlers
 *   datarep.c          MPI_Register_datarep (the registry: ../datatype/)
 */
#ifndef AMP_MPI_FILE_H
#define AMP_MPI_FILE_H

#include "mpi/file/fileio.h"
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/attr/attr.h"

/* Data representations of a view. */
enum amp_file_rep {
    AMP_REP_NATIVE,
    AMP_REP_INTERNAL, /* the same bytes as native here */
    AMP_REP_EXTERNAL32,
    AMP_REP_USER, /* registered with MPI_Register_datarep */
};

/* romio_cb_read / romio_cb_write. */
enum { AMP_CB_AUTO, AMP_CB_ENABLE, AMP_CB_DISABLE };

/* The hints the runtime uses (file.c), the same on every member. */
typedef struct amp_file_hints {
    long long cb_buffer_size;     /* bytes an aggregator moves per round */
    int cb_nodes;                 /* aggregating processes */
    int cb_read, cb_write;        /* AMP_CB_*: collective buffering */
    long long ind_rd_buffer_size; /* bounce buffer of independent reads */
    long long ind_wr_buffer_size; /* and writes */
} amp_file_hints_t;

typedef struct amp_file {
    amp_obj_t obj;
    amp_io_file_t *io; /* this process's open file */
    MPI_Comm comm;     /* duplicate of the opening communicator */
    MPI_Comm local;    /* the members in this process */
    MPI_Comm leaders;  /* the first member of each process, else NULL */
    int rank, size;    /* in comm */
    int nprocs;        /* processes with members */
    int amode;
    int atomic;
    MPI_Errhandler errh;
    amp_file_hints_t hints;
    /* The view (file_view.c): the types as the file keeps them (its own
     * handles, MPI_File_get_view hands out copies), and the map. */
    MPI_Datatype etype_h, filetype_h;
    const amp_dt_t *etype, *filetype;
    amp_io_view_t view;
    int rep; /* enum amp_file_rep */
    struct amp_datarep *user_rep;
    char datarep[MPI_MAX_DATAREP_STRING];
    int64_t fp; /* individual file pointer, in etypes */
    /* The shared file pointer's owner (file_shared.c): the process of
     * member 0, its PE, and its amp_io_file_t there. */
    int owner_proc, owner_pe;
    uint64_t owner_file;
    /* A split collective begun and not yet ended (file_coll.c). */
    int split; /* 0, or which begin call (enum in file_coll.c) */
    const void *split_buf;
    MPI_Status split_status;
    int split_rc;
    /* Nonblocking accesses of this handle under way (file_rw.c), freed
     * requests' included: MPI_File_close waits for them. */
    _Atomic int pending;
} amp_file_t;

/* ---- file.c ---- */

/* Enters call with file handle fh: *f is its object.  An invalid handle
 * is MPI_ERR_FILE through MPI_FILE_NULL's handler. */
int amp_file_enter(MPI_File fh, const char *call, amp_rank_t **rank,
                   amp_file_t **f);
/* An error of a call on f (NULL: MPI_FILE_NULL) through its handler; the
 * message names the call, says what is wrong and, for a file, its path. */
int amp_file_error(amp_rank_t *rank, amp_file_t *f, int errclass,
                   const char *call, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The error of a failed operation of io/ (status st, errno err: 0 when
 * there is none) while doing what. */
int amp_file_io_error(amp_rank_t *rank, amp_file_t *f, amp_status_t st, int err,
                      const char *call, const char *what);
/* The same error on every member of f: each passes its own (rc, and for
 * a failure the status and errno that caused it); when any member
 * failed, every one returns through the handler (those that did not fail
 * name the member that did).  Collective over f->comm. */
int amp_file_agree(amp_rank_t *rank, amp_file_t *f, amp_status_t st, int err,
                   const char *call, const char *what);
/* The handle of f. */
MPI_File amp_file_handle(const amp_file_t *f);
/* Member 0's hints in info (MPI_INFO_NULL: none) become every member's
 * (collective over f->comm); returns the MPI code. */
int amp_file_hints_apply(amp_file_t *f, MPI_Info info);

/* ---- file_view.c ---- */

/* Sets the view of a newly opened file: bytes from 0, native. */
int amp_file_view_default(amp_rank_t *rank, amp_file_t *f);
/* Releases the view's types and map. */
void amp_file_view_release(amp_rank_t *rank, amp_file_t *f);
/* Bytes of the view's data stream that count elements of dt take, in the
 * file's representation; -1 when dt has no such form (the caller reports
 * it; *why says what). */
long long amp_file_stream_bytes(amp_rank_t *rank, amp_file_t *f,
                                const amp_dt_t *dt, int count,
                                const char **why);
/* The view's end of the file, in etypes (the etypes below its size). */
int amp_file_view_end(amp_rank_t *rank, amp_file_t *f, int64_t *end,
                      const char *call);
/* The position whence + offset (MPI_SEEK_*) in etypes, current being the
 * pointer's; an error through f's handler when it is negative or whence
 * is none. */
int amp_file_seek_target(amp_rank_t *rank, amp_file_t *f, int64_t current,
                         MPI_Offset offset, int whence, int64_t *to,
                         const char *call);

/* ---- file_rw.c: one rank's part of a data access ---- */

/* The memory side of an access: count elements of dt at buf, as the
 * data stream (stream, bytes long) in the view's representation: buf
 * itself when that is the same, else temp. */
typedef struct amp_file_mem {
    void *buf;
    int count;
    MPI_Datatype dtype;
    const amp_dt_t *dt;
    size_t mbytes; /* data bytes in memory */
    size_t bytes;  /* in the file's representation */
    char *stream;
    void *temp;
    int rep;
    struct amp_datarep *user_rep;
    int unpacked; /* a read's data is in the buffer */
} amp_file_mem_t;

/* Checks a data access (mode: whether f's access mode allows it, the
 * datatype, count, buffer, that the data is whole etypes) and sets m up:
 * for a write, the data is in m->stream when it returns.  Errors go
 * through f's handler. */
int amp_file_mem_begin(amp_rank_t *rank, amp_file_t *f, int write, void *buf,
                       int count, MPI_Datatype dtype, amp_file_mem_t *m,
                       const char *call);
/* After a read of got bytes of the stream: converts and unpacks them
 * into the buffer (not in the rank's context unless user is set: then
 * user conversion functions may run). */
int amp_file_mem_unpack(amp_file_mem_t *m, size_t got, int user_ok);
/* Frees what m allocated. */
void amp_file_mem_end(amp_file_mem_t *m);
/* Memory bytes for got bytes of the stream (whole basic values). */
size_t amp_file_mem_bytes(const amp_file_mem_t *m, size_t got);

/* One data access of a file call named call: count elements of dtype at
 * buf read or written (write) at etype offset offset of the view (at) or
 * at a file pointer; blocking (the status, which counts memory bytes) or
 * nonblocking (handing out *request). */
typedef struct amp_file_access {
    MPI_File fh;
    int at;
    MPI_Offset offset; /* with at */
    void *buf;
    int count;
    MPI_Datatype dtype;
    MPI_Status *status;
    int nonblocking;
    MPI_Request *request;
    int write;
    const char *call;
} amp_file_access_t;

/* Reads or writes m's stream at stream byte start of f's view for the
 * access a (of f), independently (blocking unless a is nonblocking:
 * *moved, the stream bytes moved, and a's status); takes m's temporary
 * over (the caller does not end m). */
int amp_file_independent(amp_rank_t *rank, amp_file_t *f,
                         const amp_file_access_t *a, int64_t start,
                         amp_file_mem_t *m, size_t *moved);

/* The byte of the view's data stream where etype offset off starts. */
int64_t amp_file_stream_pos(const amp_file_t *f, int64_t off);
/* Fills status for bytes bytes of data (memory side). */
void amp_file_status(MPI_Status *status, size_t bytes);
/* Whether f's access mode allows reading (write 0) or writing, else the
 * error through f's handler. */
int amp_file_check_mode(amp_rank_t *rank, amp_file_t *f, int write,
                        const char *call);
/* Waits (as a user-level thread) until f's nonblocking accesses are done. */
void amp_file_wait_pending(amp_rank_t *rank, amp_file_t *f, const char *call);

/* ---- file_coll.c ---- */

/* The collective read or write of m's stream at stream byte start by every
 * member (each with its own start and data); *moved: the stream bytes
 * moved.  Ends m. */
int amp_file_collective(amp_rank_t *rank, amp_file_t *f, int write,
                        int64_t start, amp_file_mem_t *m, size_t *moved,
                        MPI_Status *status, const char *call);

/* An independent access a (MPI_File_iread_all and the like: nonblocking)
 * at an explicit offset (a->at) or the individual file pointer
 * (file_rw.c). */
int amp_file_access(const amp_file_access_t *a);

/* ---- file_shared.c ---- */

/* MPI_File_read/write_ordered (collective) as call. */
int amp_file_ordered(MPI_File fh, void *buf, int count, MPI_Datatype dtype,
                     MPI_Status *status, int write, const char *call);

/* Adds delta etypes to the shared file pointer and returns its value from
 * before in *old. */
int amp_file_shared_add(amp_rank_t *rank, amp_file_t *f, int64_t delta,
                        int64_t *old, const char *call);
/* Sets the shared file pointer (on its owner). */
int amp_file_shared_set(amp_rank_t *rank, amp_file_t *f, int64_t value,
                        const char *call);

/* A (status, errno) pair as one int64_t, the status in the high half, so
 * that the minimum over the members is the most negative status (with its
 * errno); a multiplication, as a negative status may not be shifted. */
static inline int64_t amp_file_pair(amp_status_t st, int err)
{
    return (int64_t)st * ((int64_t)1 << 32) + (uint32_t)err;
}

#endif
