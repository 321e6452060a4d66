/*
 * mem: the migratable-memory range.  One large virtual range is reserved at
 * startup (at a fixed address, so that every process of a job can map a
 * rank's memory at the same place); each rank owns one slot of it.
 *
 * Slot layout (addresses grow to the right):
 *
 *   | guard page | stack (grows down) ... | rank area | image area |
 *
 * The guard page stays inaccessible, so a stack overflow faults there and
 * amp_mem_guard_slot() can name the rank.  The rank area holds the rank's
 * own runtime state.  The image area (empty unless the program was built
 * with -privatize=pie) is where pie/ maps the rank's copy of the program
 * image; it starts aligned as the image needs and stays reserved until
 * pie/ maps into it.  The rest of the slot beyond what is committed stays
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
    size_t image_offset;   /* image area, from the slot's start */
    size_t image_size;     /* bytes of the image area (0: none) */
    void *map_base;        /* the reservation, as mmap returned it */
    size_t map_size;
    int nslots;
} amp_mem_t;

/* What each slot holds besides its guard page. */
typedef struct amp_mem_layout {
    size_t stack_size;  /* usable stack bytes */
    size_t rank_area;   /* bytes for per-rank state */
    size_t image_size;  /* bytes for a program image copy, or 0 */
    size_t image_align; /* alignment of the image area (power of two) */
} amp_mem_layout_t;

/* Reserves nslots slots laid out as described. */
amp_status_t amp_mem_init(amp_mem_t *mem, int nslots,
                          const amp_mem_layout_t *layout);
void amp_mem_cleanup(amp_mem_t *mem);

/* Makes slot i's stack and rank area accessible (pages are still only
 * backed when touched). */
amp_status_t amp_mem_slot_commit(amp_mem_t *mem, int i);

void *amp_mem_slot_stack(const amp_mem_t *mem, int i);
void *amp_mem_slot_rank_area(const amp_mem_t *mem, int i);
/* Start of slot i's image area (reserved, inaccessible until mapped). */
void *amp_mem_slot_image(const amp_mem_t *mem, int i);

/* Slot whose guard page holds addr, or -1. */
int amp_mem_guard_slot(const amp_mem_t *mem, const void *addr);

/* Slot containing addr, or -1. */
int amp_mem_slot_of(const amp_mem_t *mem, const void *addr);

#endif
