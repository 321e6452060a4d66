/*
 * Checkpoint/restart of a job of one process or several
 * (docs/checkpoint.md).
 *
 * AMPI_Migrate with "ampi_checkpoint" = "to_file=DIR" writes DIR/manifest
 * and one file per rank, DIR/rank-R.ckpt, each by the process that runs
 * rank R, holding what the rank's slot
 * holds in use: its stack from the point where it stopped, its rank area
 * (amp_rank_t and its TLS copy), the used part of its heap and, with
 * -privatize=pie, the writable part of its program copy.  Nothing in
 * the slot is fixed up: a restart maps it back at the same addresses, so
 * the program, libampi and the C library must be loaded where they were
 * (the runtime turns address-space randomization off by re-executing
 * itself once, start/restart.c; every process of a job then has them at
 * the same addresses, and a rank may come back in any process of a
 * restarted job, with as many processes as the restart is given).
 *
 * The rank's MPI objects live in the C library's heap and are not in the
 * slot: before it stops, the rank describes them (handle, kind, contents)
 * in a block of its own heap, which the files carry; after a restart the
 * rank rebuilds them from it under the same handles (rank/checkpoint.c).
 * Process-level state (PEs, queues, shared collective state) is built
 * fresh.
 *
 * A program built with -privatize=pie runs each rank in its own copy of
 * the program image (start/image.c); the file also holds the writable part
 * of the rank's copy, less its RELRO range (the header lists the ranges).
 * A restart maps and relocates the copy at the same address, then reads
 * those ranges over it, and registers the copy's unwind tables anew.
 *
 * A rank file:
 *
 *   | amp_ckpt_rank_hdr_t | stack | rank area | heap | pie ranges |
 *   | 64-bit checksum (amp_ckpt_sum_t) |
 *
 * the last word being the hash of everything before it: the header, then
 * the ranges of the rank's slot as rank/slot.h describes them.
 */
#ifndef AMP_RANK_CHECKPOINT_H
#define AMP_RANK_CHECKPOINT_H

#include "mpi/proc.h"
#include "rank/slot.h"

#include <stdint.h>

/* 3: the files' checksum is amp_ckpt_sum_t; 4: a datatype holds its loop
 * nest (amp_dt.dims); 5: a rank's stack and state lie apart from its heap
 * (mem/mem.h); 6: a heap's unused part is left out (amp_slot_desc_t's
 * heap_gap); 7: what a rank's senders read of its endpoint starts a
 * cache line (amp_rank_t's layout); 8: +lbearly's mark (amp_rank_t) */
#define AMP_CKPT_VERSION 8
#define AMP_CKPT_MANIFEST_MAGIC "ampi-checkpoint"
#define AMP_CKPT_RANK_MAGIC "AMPICKR1" /* 8 bytes, no terminator kept */
/* Ranges a rank file holds after its stack, rank area and heap: those of
 * its pie program copy (slot.h). */
#define AMP_CKPT_PIE_RANGES (AMP_SLOT_MAX_RANGES - 3)

typedef struct amp_ckpt_rank_hdr {
    char magic[8];
    uint32_t version;
    int32_t world_rank;
    uint64_t id;          /* the checkpoint's, also in the manifest */
    amp_slot_desc_t slot; /* where the stopped rank's memory lies */
    uint32_t pie_nranges, pad;
    struct {
        uint64_t addr, len;
    } pie[AMP_CKPT_PIE_RANGES]; /* the ranges after the heap, in order */
} amp_ckpt_rank_hdr_t;

/* What must be the same in the process that restarts. */
typedef struct amp_ckpt_ident {
    char program[128]; /* "build-id HEX" or "size N mtime T" */
    /* Addresses of the program's main, of a function of libampi
     * (amp_ckpt_ident) and of the C library (strtol). */
    uint64_t addr_main, addr_libampi, addr_libc;
} amp_ckpt_ident_t;

/* The manifest, as start/restart.c reads it. */
typedef struct amp_ckpt_manifest {
    int version;
    int nranks;
    int nprocs; /* processes that wrote it, for information (0: not said) */
    int npes;   /* +p of rank 0's process then, for information */
    uint64_t id;
    uint64_t range_base, slot_size, stack_size, rank_area, heap_offset;
    amp_ckpt_ident_t ident;
} amp_ckpt_manifest_t;

/* This process's identity (slot.c; start/restart.c compares it). */
void amp_ckpt_ident(amp_ckpt_ident_t *id);
/* 1 when address-space randomization is off in this process. */
int amp_ckpt_aslr_off(void);

/* 64-bit FNV-1a over n bytes, continuing from h (start: AMP_CKPT_FNV0). */
#define AMP_CKPT_FNV0 0xcbf29ce484222325ull
uint64_t amp_ckpt_hash(uint64_t h, const void *p, size_t n);

/* The checksum of a rank file: 64 bits over a stream of bytes, the same
 * however the stream is cut into amp_ckpt_sum_add calls.  Four lanes of
 * 64-bit words, each word mixed in by a multiply and a rotation, so that
 * it runs at memory speed (a checkpoint hashes every byte it writes, and a
 * restart every byte it reads); the lanes and the length are folded at
 * the end. */
typedef struct amp_ckpt_sum {
    uint64_t lane[4];
    uint64_t len;
    unsigned char buf[32]; /* bytes of an unfinished block */
    unsigned nbuf;
} amp_ckpt_sum_t;

void amp_ckpt_sum_init(amp_ckpt_sum_t *s);
void amp_ckpt_sum_add(amp_ckpt_sum_t *s, const void *p, size_t n);
uint64_t amp_ckpt_sum_end(const amp_ckpt_sum_t *s);

/* The checkpoint step of AMPI_Migrate (migrate.c), after every rank of
 * the process has arrived and the process is quiet: writes the calling
 * rank's file into dir, the manifest once all are written; returns on the
 * same path after a restart (MPI_SUCCESS there).  in_memory: dir is the
 * job's in-memory one, which may be each node's own (a copy of each file
 * then goes to the next node: ckpt_copy.h); else every process must share
 * dir.  Collective over MPI_COMM_WORLD. */
int amp_ckpt_write(amp_rank_t *rank, const char *dir, int in_memory,
                   const char *call);

/* +ckptgather DIR (ampirun runs it before restarting a job whose
 * in-memory checkpoint is on several nodes): each rank's main instead of
 * the program's.  Brings into DIR, as each process of this job sees it,
 * the manifest and the files of the ranks the process holds (the same
 * ranks as in the job restarted with the same options), from whatever
 * process's DIR has them.  Status 0; 1 with one line on stderr when a
 * rank's file is on no node. */
int amp_ckpt_gather_main(int argc, char **argv, char **envp);

/* The process's end, once every process's ranks are done (start.c): a
 * job that checkpointed in memory and ended well removes the checkpoint,
 * unless ampirun (AMPI_CHECKPOINT_NOTE set) is there to do it. */
void amp_ckpt_job_end(void);

/* Startup with +restart (start/restart.c), in every process of the job:
 * reads and checks dir's manifest and sets opts (+vp, +stacksize,
 * +isomalloc_slot) from it; every problem ends the process with one line
 * naming dir. */
void amp_restart_prepare(amp_opts_t *opts);
/* Checks the reserved range against the manifest (after amp_mem_init). */
void amp_restart_check_layout(void);
/* Brings world rank r back from its file, ready to resume on pe (called
 * for each rank this process is given, whichever process wrote it); map
 * maps its program copy (pie; see amp_slot_prepare).  rank/restart.c. */
void amp_restart_rank(int r, amp_pe_t *pe, amp_move_map_fn_t map);
/* Ends the process with one line: +restart DIR: what fmt says. */
_Noreturn void amp_restart_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Turns address-space randomization off by executing the program again
 * (unless AMPI_NO_REEXEC is set); returns when nothing is to be done. */
void amp_restart_reexec(char **argv, char **envp);

/* ---- for ranks that move to another process (rank/move.c) ---- */

/* MPI_SUCCESS when everything rank holds can be described, else the class
 * and, in why, the reason. */
int amp_ckpt_check(amp_rank_t *rank, char *why, size_t len);

/* The description of a rank's MPI objects, in its own heap. */
typedef struct amp_ckpt_blob {
    char *p;
    size_t len;
} amp_ckpt_blob_t;

/* Describes rank's objects into b (MPI_ERR_NO_MEM: its heap is full). */
int amp_ckpt_describe(amp_rank_t *rank, amp_ckpt_blob_t *b);
/* In the rank, in its new process: its objects back from b, which is
 * freed; ends the process when out of memory. */
void amp_ckpt_rebuild(amp_rank_t *rank, const amp_ckpt_blob_t *b,
                      const char *call);
/* Frees a description's block p (NULL: none) in rank's heap; a block the
 * heap does not know is logged, nothing else can be done about it. */
void amp_ckpt_blob_free(amp_rank_t *rank, void *p);

#endif
