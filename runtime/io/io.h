/*
 * io: files for MPI-IO, without blocking a PE.
 *
 * A rank is a user-level thread, many to a core: a system call that waits
 * for the disk would stop every rank of its PE.  So every system call on a
 * file runs on one of the process's helper threads (kernel threads outside
 * the PEs, `+iothreads`), handed over as a job; the rank that waits for it
 * blocks as a user-level thread and its PE runs the other ranks meanwhile.
 * When the job is done its completion is posted back to the PE that
 * submitted it, which runs the job's done function in its poll hook (a
 * nonblocking request completes there, a waiting rank is woken there).
 * While a job is under way the scheduler knows that an idle process is
 * waiting for it, not deadlocked (amp_sched_outside_begin).
 *
 * The pieces:
 *  - the engine (engine.c): helper threads, jobs, completions;
 *  - files (file.c): one open file per process, shared by the ranks of
 *    the process that opened it together: its descriptor, the shared file
 *    pointer when this process owns it, the lock of atomic mode;
 *  - views (view.c): a file view (displacement, etype, filetype) as the
 *    map from the view's data stream to file offsets, walked by cursors
 *    that yield the file's contiguous pieces in order;
 *  - transfers (rw.c): a stream of pieces (file offset, length, memory),
 *    in nondecreasing file order, read or written with as few system calls
 *    as the pieces allow (runs of adjacent pieces become one preadv or
 *    pwritev; many small pieces go through one bounce buffer), and the
 *    merge of several such streams (the ranks of a process in a
 *    collective call) into one.
 * What MPI makes of them (handles, errors, collective algorithms, shared
 * file pointers across processes) is mpi/'s (mpi/file/).
 */
#ifndef AMP_IO_H
#define AMP_IO_H

#include "base/base.h"
#include "dt/dt.h"
#include "p2p/p2p.h"
#include "sched/sched.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the engine (engine.c) ---- */

typedef struct amp_io amp_io_t;
typedef struct amp_io_job amp_io_job_t;
typedef void (*amp_io_job_fn_t)(amp_io_job_t *job);

struct amp_io_job {
    amp_inbox_item_t item; /* in its PE's completions once run */
    amp_io_job_t *next;    /* in the engine's queue */
    amp_io_job_fn_t run;   /* on a helper thread */
    amp_io_job_fn_t done;  /* then on pe, in its poll hook; may be NULL */
    amp_pe_t *pe;          /* where done runs (set by amp_io_submit) */
    amp_thread_t *waiter;  /* amp_io_wait's thread */
    int finished;          /* amp_io_wait: jobs whose done has not run */
    amp_io_job_t *arg2;    /* amp_io_wait_all: the first of the jobs */
    /* What run reports. */
    amp_status_t status;
    int err;      /* errno of the failed system call, or 0 */
    size_t bytes; /* transferred */
    int64_t value;
    void *arg;
};

/* The process's engine with nthreads helper threads, for the PEs of
 * sched (their ids index the completions). */
AMP_MUST_USE amp_status_t amp_io_create(amp_sched_t *sched, int nthreads,
                                        amp_io_t **out);
/* After every PE has stopped: stops and joins the helper threads. */
void amp_io_destroy(amp_io_t *io);

/* From a PE (amp_pe_self()): job->run runs on a helper thread, then
 * job->done on this PE.  The job must stay valid until done has run. */
void amp_io_submit(amp_io_t *io, amp_io_job_t *job);
/* From a rank: submits job and waits for it as a user-level thread (its
 * PE runs the other ranks meanwhile).  job->done must be NULL. */
void amp_io_wait(amp_io_t *io, amp_io_job_t *job);
/* The same for n jobs at once (their done functions are the engine's),
 * which the helper threads may run side by side. */
void amp_io_wait_all(amp_io_t *io, amp_io_job_t **jobs, int n);
/* The number of helper threads. */
int amp_io_threads(const amp_io_t *io);

/* Scheduler hooks: runs the done functions of pe's finished jobs / says
 * whether there are any (from any PE). */
void amp_io_poll(amp_io_t *io, amp_pe_t *pe);
int amp_io_pending(amp_io_t *io, amp_pe_t *pe);

/* The status of a failed system call's errno. */
AMP_MUST_USE amp_status_t amp_io_status_of_errno(int err);

/* ---- files (file.c) ---- */

/* A file as one process holds it.  Made by one rank of the process
 * (amp_io_file_open), shared by the ranks of the process that opened it
 * together (each holds a reference), closed with the last reference. */
typedef struct amp_io_file {
    int fd;
    int sequential; /* read(2)/write(2) at the descriptor's position */
    _Atomic int refs;
    /* The shared file pointer, in etypes of the view, when this process
     * owns it (mpi/file/file_shared.c). */
    _Atomic int64_t shared_fp;
    /* Atomic mode: accesses of the process's ranks exclude each other
     * (held by the helper thread during a transfer); locks of the file's
     * byte ranges (fcntl) exclude other processes when lock_procs. */
    pthread_rwlock_t atomic_lock;
    int lock_procs;
    char *path;
} amp_io_file_t;

/* Opens path with open(2)'s flags and mode on a helper thread (the rank
 * waits as a user-level thread): *out holds one reference.  A file that
 * cannot seek (a pipe, a terminal) is read and written in order.  A
 * directory is refused (EISDIR).  On failure *err is errno. */
AMP_MUST_USE amp_status_t amp_io_file_open(amp_io_t *io, const char *path,
                                           int flags, int mode,
                                           amp_io_file_t **out, int *err);
/* Takes one more reference. */
void amp_io_file_hold(amp_io_file_t *f);
/* Drops one reference; the last closes the descriptor (on a helper
 * thread; the rank waits) and frees f.  Returns what close(2) said. */
AMP_MUST_USE amp_status_t amp_io_file_release(amp_io_t *io, amp_io_file_t *f,
                                              int *err);

/* The operations on a whole file, each on a helper thread while the
 * calling rank waits.  *err: errno on failure. */
enum amp_io_op {
    AMP_IO_SIZE,     /* *value: the file's size */
    AMP_IO_TRUNCATE, /* to value bytes */
    AMP_IO_ALLOCATE, /* at least value bytes, data unchanged */
    AMP_IO_SYNC,     /* fsync */
};
AMP_MUST_USE amp_status_t amp_io_file_op(amp_io_t *io, amp_io_file_t *f, int op,
                                         int64_t *value, int *err);
/* unlink(2) of path on a helper thread. */
AMP_MUST_USE amp_status_t amp_io_unlink(amp_io_t *io, const char *path,
                                        int *err);

/* ---- views (view.c) ---- */

/* A file view: the file is tiled with copies of filetype from byte disp
 * on, and the data bytes of the tiles, in order, are the view's data
 * stream (bytes of etypes).  The types must stay valid while the view is
 * used (the MPI layer holds them). */
typedef struct amp_io_view {
    int64_t disp;
    const amp_dt_t *etype, *filetype;
    int dense;    /* the stream is the file from disp on, byte for byte */
    size_t fsize; /* data bytes of one tile */
    ptrdiff_t fextent;
    int nblocks;
    const amp_dt_block_t *blocks; /* of one tile, nondecreasing */
    amp_dt_block_t one;           /* the block of a type without a list */
    size_t *before;               /* data bytes before each block */
    /* A regular filetype (dt.h) repeats its blocks reps times in a tile,
     * each repetition of esize data bytes (amp_io_view_rep_at). */
    long long reps;
    size_t esize;
} amp_io_view_t;

/* What is wrong with the typemap of etype or filetype as the standard
 * requires it in a view (displacements nonnegative and nondecreasing;
 * no overlaps when the file may be written), or NULL when nothing is. */
const char *amp_io_view_problem(const amp_dt_t *dt, int writable);
/* Sets v up; AMP_ERR_NOMEM when out of memory. */
AMP_MUST_USE amp_status_t amp_io_view_init(amp_io_view_t *v, int64_t disp,
                                           const amp_dt_t *etype,
                                           const amp_dt_t *filetype);
void amp_io_view_cleanup(amp_io_view_t *v);
/* The file offset of byte pos of the data stream. */
int64_t amp_io_view_offset(const amp_io_view_t *v, int64_t pos);
/* Bytes of the data stream that lie in the file below offset off (the
 * stream from byte 0 on). */
int64_t amp_io_view_stream_below(const amp_io_view_t *v, int64_t off);

/* One piece of a transfer: len bytes at file offset off, in memory at mem;
 * src says whose it is (the index of a collective part). */
typedef struct amp_io_seg {
    int64_t off;
    size_t len;
    char *mem;
    int src;
} amp_io_seg_t;

/* The pieces of bytes bytes of a view's data stream from byte start on,
 * in memory from mem on: each call of next yields the next largest piece
 * that is contiguous in the file. */
typedef struct amp_io_cursor {
    const amp_io_view_t *v;
    int64_t tile;   /* current tile */
    long long rep;  /* repetition of the blocks in it */
    int64_t rep_at; /* where that repetition lies in the tile */
    int blk;        /* block in it */
    size_t in_blk;  /* bytes of the block already yielded */
    size_t left;    /* bytes still to yield */
    char *mem;
    int src;
} amp_io_cursor_t;

void amp_io_cursor_init(amp_io_cursor_t *c, const amp_io_view_t *v,
                        int64_t start, size_t bytes, char *mem, int src);
/* 1 and the next piece in *seg, or 0 at the end. */
int amp_io_cursor_next(amp_io_cursor_t *c, amp_io_seg_t *seg);

/* ---- transfers (rw.c) ---- */

/* A source of pieces in nondecreasing file order: fills *seg and returns
 * 1, or 0 at the end. */
typedef int (*amp_io_next_fn_t)(void *src, amp_io_seg_t *seg);

/* How a transfer runs (on a helper thread). */
typedef struct amp_io_xfer {
    amp_io_file_t *file;
    int write;
    amp_io_next_fn_t next;
    void *src;
    size_t bounce;  /* bytes of the bounce buffer for small pieces (0: none) */
    int atomic;     /* hold the file's atomic lock (and a byte-range lock) */
    int64_t lo, hi; /* atomic: the file range the transfer touches */
    /* Reads: bytes read for each src (nsrc of them) up to the end of the
     * file (a piece beyond it reads nothing); writes: bytes written. */
    size_t *done;
    int nsrc;
} amp_io_xfer_t;

/* Runs the transfer; returns its status and *err (errno).  Pieces of a
 * read beyond the end of the file are left as they were. */
AMP_MUST_USE amp_status_t amp_io_xfer_run(amp_io_xfer_t *x, int *err);

/* The merge of n cursors (each nondecreasing) into one nondecreasing
 * source for amp_io_xfer_run; heap is room for n entries. */
typedef struct amp_io_merge {
    amp_io_cursor_t *cur;
    amp_io_seg_t *head; /* each cursor's next piece */
    int *heap;          /* cursors with a next piece, by offset */
    int n;
} amp_io_merge_t;

/* Sets the merge up over cur[0 .. n-1] (started); head and heap have room
 * for n entries. */
void amp_io_merge_init(amp_io_merge_t *m, amp_io_cursor_t *cur, int n,
                       amp_io_seg_t *head, int *heap);
int amp_io_merge_next(void *m, amp_io_seg_t *seg);

/* ---- the shared file pointer across processes (shared.c) ---- */

/* Registers the handler of io/'s active messages (once, before any rank
 * runs; jobs of several processes). */
void amp_io_remote_init(amp_p2p_world_t *world);

/* What one asks of the shared file pointer of another process's file. */
typedef struct amp_io_shared_rec {
    amp_p2p_req_t *req; /* completed when the answer is in */
    int64_t result;     /* the pointer's value before the operation */
} amp_io_shared_rec_t;

/* From a rank on pe: adds value to (set: replaces with value) the shared
 * file pointer of file, an amp_io_file_t of process proc reached through
 * its PE rpe; rec->req completes on pe with rec->result. */
void amp_io_shared_remote(amp_pe_t *pe, int proc, int rpe, uint64_t file,
                          int set, int64_t value, amp_io_shared_rec_t *rec);

#endif
