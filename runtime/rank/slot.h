/*
 * A rank's life in its memory slot (slot.c): a rank created, stopped on a
 * writer's stack while its memory is copied, and revived from a copy of
 * its slot, in this process or another.
 *
 * A stopped rank is the memory of its slot in use, at fixed addresses:
 *   - its stack, from the stack pointer of its saved context up, and the
 *     rank area right above it (amp_rank_t, its TLS copy);
 *   - its heap, up to its extent (none before its first allocation);
 *   - with -privatize=pie, the writable part of its program copy, less
 *     RELRO (the rest a process maps and relocates itself at the same
 *     address, amp_move_map_fn_t).
 * amp_slot_desc_t says where they are, amp_slot_ranges lists them: the one
 * description the checkpoint files (checkpoint.c, start/restart.c) and the
 * ranks shipped to another process (move.c) carry.  A range added here
 * travels both ways; it changes the checkpoint files' format
 * (AMP_CKPT_VERSION).  A field added to amp_rank_t is in the rank area and
 * travels as it is; amp_slot_revive sets afresh what belongs to the
 * process (thread, endpoint, tables of MPI objects: their contents travel
 * as a description, checkpoint.h).
 */
#ifndef AMP_RANK_SLOT_H
#define AMP_RANK_SLOT_H

#include "mpi/proc.h"

#include <stdint.h>

/* Maps and relocates the copy of the program of the rank in slot (pie;
 * AMP_OK without): start/'s amp_start_pie_map. */
typedef amp_status_t (*amp_move_map_fn_t)(int slot);

/* The ranges of a stopped rank: its stack with its rank area, its heap,
 * and at most two per segment of its program copy. */
#define AMP_SLOT_MAX_RANGES (3 + 2 * AMP_PIE_MAX_SEGMENTS)

typedef struct amp_slot_range {
    char *addr;
    size_t len;
} amp_slot_range_t;

/* Where a stopped rank's memory lies in its slot; the same layout in
 * every process of a build (a checkpoint file's header holds it as is). */
typedef struct amp_slot_desc {
    uint64_t sp;          /* its saved context's stack pointer */
    uint64_t stack_bytes; /* from sp up to the stack's top: the rank area */
    uint64_t area, area_bytes;
    uint64_t heap, heap_extent, heap_committed;
    /* Offsets from heap of a part of the extent that does not travel
     * (amp_heap_unused; both 0: none). */
    uint64_t heap_gap, heap_gap_end;
    uint64_t pie_base; /* base of its program copy, or 0 (no pie) */
} amp_slot_desc_t;

/* The ranges of the rank d describes, in the order they travel; returns
 * their count (at most AMP_SLOT_MAX_RANGES). */
int amp_slot_ranges(const amp_slot_desc_t *d, amp_slot_range_t *out);
/* How many of them come before those of its program copy (pie): its stack
 * and rank area, then its heap in one range or two. */
int amp_slot_pie_first(const amp_slot_desc_t *d);

/* Whether d fits world rank r's slot in this process; checked before
 * anything is written into the slot. */
typedef enum amp_slot_fit {
    AMP_SLOT_FITS,
    AMP_SLOT_MISFIT,     /* the stack, rank area or heap are elsewhere */
    AMP_SLOT_MISFIT_PIE, /* the program copy is elsewhere, or none */
} amp_slot_fit_t;
amp_slot_fit_t amp_slot_fit(const amp_slot_desc_t *d, int r);

/* Slot r made ready for the ranges of d: its pages committed, its heap's
 * committed pages restored, its program copy mapped and relocated (map,
 * start/'s amp_start_pie_map).  AMP_OK, or what failed. */
AMP_MUST_USE amp_status_t amp_slot_prepare(const amp_slot_desc_t *d, int r,
                                           amp_move_map_fn_t map);
/* The same for a slot whose pages this process kept since its rank left
 * (move.h): its stack and rank area are accessible, and heap_open bytes of
 * its heap. */
AMP_MUST_USE amp_status_t amp_slot_prepare_kept(const amp_slot_desc_t *d,
                                                int r, amp_move_map_fn_t map,
                                                size_t heap_open);

/* ---- stopping a rank on a writer's stack ---- */

typedef struct amp_slot_stop amp_slot_stop_t;
typedef void (*amp_slot_stop_fn_t)(amp_slot_stop_t *s);

/* On the stopped rank's stack: every copy of it holds this as it was when
 * the rank stopped. */
struct amp_slot_stop {
    amp_rank_t *rank;
    amp_slot_desc_t desc; /* the stopped rank */
    amp_slot_range_t ranges[AMP_SLOT_MAX_RANGES];
    int nranges;
    amp_slot_stop_fn_t fn;
    void *arg;
    int sys_alloc;     /* the rank's count before it stopped */
    volatile int here; /* set by amp_slot_resume, after every copy */
};

/* Stops the calling rank (its thread aside, sched.h) and runs fn(s) on
 * [stack, stack + size) with the rank's memory still and described; fn
 * ends with amp_slot_resume, or leaves the PE (amp_slot_gone, then
 * amp_sched_vanish).  Meanwhile the rank's allocations go to the C
 * library.  Returns 1 when the rank resumed through amp_slot_resume, 0
 * when it resumed as a copy revived from its slot's memory (a restart,
 * another process): then stack is another process's. */
int amp_slot_stop(amp_rank_t *rank, void *stack, size_t size,
                  amp_slot_stop_fn_t fn, void *arg);
/* In fn: the rank resumes here. */
_Noreturn void amp_slot_resume(amp_slot_stop_t *s);
/* In fn, before amp_sched_vanish: the process forgets world rank r
 * (endpoint, rank table), whose memory is no longer its. */
void amp_slot_gone(int r);

/* ---- creating and reviving ---- */

/* The first pages of the new ranks of slots [lo, hi), which
 * amp_slot_create touches, made ready ahead by nthreads threads at once
 * (mem.h, amp_mem_slots_prepare), with the first chunks of their tables of
 * MPI objects beside the slots. */
void amp_slot_create_ahead(int lo, int hi, int nthreads);

/* World rank r created in its slot to run entry(rank) on pe: its memory,
 * heap, TLS copy, program copy (map), tables of MPI objects, thread,
 * endpoint; not yet spawned.  Ends the process when out of memory. */
amp_rank_t *amp_slot_create(int r, amp_pe_t *pe, amp_move_map_fn_t map,
                            amp_ult_entry_fn_t entry);
/* The rank whose slot holds the memory d describes (restored from its
 * file by start/restart.c, or arrived from another process, move.c) set
 * up in this process to resume on pe where it stopped (amp_slot_stop
 * returns 0): its thread, fresh tables for the MPI objects it rebuilds
 * itself, its endpoint, its unwind tables (pie); not yet spawned. */
amp_rank_t *amp_slot_revive(const amp_slot_desc_t *d, int r, amp_pe_t *pe);

/* Where the TLS copy of the rank in slot starts (its rank area, after its
 * struct). */
void *amp_slot_tls_area(int slot);

/* At startup in jobs of several processes, after the world is set up;
 * map_copy serves the ranks that arrive (move.c). */
void amp_move_init(amp_move_map_fn_t map_copy);

/* Runs the per-rank initializers (AMPI_Register_rank_init, rank_init.c)
 * in the calling rank, before its main. */
void amp_rank_run_inits(void);

#endif
