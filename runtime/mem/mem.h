/*
 * mem: the migratable-memory range.  One large virtual range is reserved at
 * startup (at a fixed address, so that every process of a job can map a
 * rank's memory at the same place); each rank owns one slot of it.
 *
 * Slot layout (addresses grow to the right):
 *
 *   | guard page | stack (grows down) ... | rank area |
 *
 * The guard page stays inaccessible, so a stack overflow faults there and
 * amp_mem_guard_slot() can name the rank.  The rank area holds the rank's
 * own runtime state.  The rest of the slot beyond what is committed stays
 * reserved for the rank's heap (isomalloc).
 */
#ifndef AMP_MEM_H
#define AMP_MEM_H

#include "base/base.h"

typedef struct amp_mem {
    char *base;       /* start of the reserved range */
    size_t slot_size; /* bytes per slot, page aligned */
    size_t page_size;
    size_t stack_size;     /* usable stack bytes per slot */
    size_t rank_area_size; /* bytes after the stack for per-rank state */
    int nslots;
} amp_mem_t;

/* Reserves nslots slots, each with a stack_size-byte stack and a
 * rank_area-byte area for per-rank state. */
amp_status_t amp_mem_init(amp_mem_t *mem, int nslots, size_t stack_size,
                          size_t rank_area);
void amp_mem_cleanup(amp_mem_t *mem);

/* Makes slot i's stack and rank area accessible (pages are still only
 * backed when touched). */
amp_status_t amp_mem_slot_commit(amp_mem_t *mem, int i);

void *amp_mem_slot_stack(const amp_mem_t *mem, int i);
void *amp_mem_slot_rank_area(const amp_mem_t *mem, int i);

/* Slot whose guard page holds addr, or -1. */
int amp_mem_guard_slot(const amp_mem_t *mem, const void *addr);

/* Slot containing addr, or -1. */
int amp_mem_slot_of(const amp_mem_t *mem, const void *addr);

#endif
