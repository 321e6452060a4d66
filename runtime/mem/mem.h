/*
 * mem: the migratable-memory range.  One large virtual range is reserved at
 * startup (at a fixed address, so that every process of a job can map a
 * rank's memory at the same place); each rank owns one slot of it, in two
 * parts.
 *
 * The stacks part, the ranks' stacks and states side by side:
 *
 *   | guard | stack (grows down) ... | rank area | guard | stack ... |
 *
 * The heaps part, one slot of slot_size bytes a rank:
 *
 *   | image area | heap ...                      | image area | heap ...
 *
 * The guard pages stay inaccessible, so a stack overflow faults there and
 * amp_mem_guard_slot() can name the rank.  The rank area holds the rank's
 * own runtime state.  Side by side, the pages a rank touches at every
 * switch (its stack's top, its state) of many ranks share a page of the
 * kernel's page tables (one covers 2 MiB), where a slot of their own each
 * took one per rank.  The image area (empty unless the program was built
 * with -privatize=pie) is where pie/ maps the rank's copy of the program
 * image; it starts aligned as the image needs and stays reserved until
 * pie/ maps into it.  The heap area, the rest of the slot, is the rank's
 * heap (mem/heap.h), which commits its pages as it grows.
 */
#ifndef AMP_MEM_H
#define AMP_MEM_H

#include "base/base.h"

typedef struct amp_mem {
    char *base;        /* start of the heaps part */
    size_t slot_size;  /* bytes per slot of the heaps part, page aligned */
    char *stacks;      /* start of the stacks part */
    size_t stack_slot; /* bytes per rank there: guard, stack, rank area */
    size_t guard_size; /* bytes of the guard below each stack */
    size_t page_size;
    size_t stack_size;     /* usable stack bytes per slot */
    size_t rank_area_size; /* bytes after the stack for per-rank state */
    size_t image_size;     /* bytes of the image area, at the slot's start */
    size_t heap_offset;    /* heap area, from the slot's start */
    size_t heap_size;      /* bytes of the heap area */
    void *map_base;        /* the reservation, as mmap returned it */
    size_t map_size;
    int nslots;
    /* The whole range accessible as one mapping, without guard pages:
     * more slots than the kernel's vm.max_map_count allows otherwise
     * (docs/isomalloc.md, "How many ranks fit"). */
    int flat;
    /* Slots [ahead_lo, ahead_hi) committed and populated ahead
     * (amp_mem_slots_prepare) and not released since. */
    int ahead_lo, ahead_hi;
    /* Slot i's side bytes (amp_mem_slot_side) for i in [side_lo,
     * side_hi): side_per each from side, or side NULL. */
    char *side;
    size_t side_per;
    int side_lo, side_hi;
} amp_mem_t;

/* What each rank's slot holds besides its guard page. */
typedef struct amp_mem_layout {
    size_t stack_size;  /* usable stack bytes */
    size_t rank_area;   /* bytes for per-rank state */
    size_t image_size;  /* bytes for a program image copy, or 0 */
    size_t image_align; /* alignment of the image area (power of two) */
    /* Bytes of the slot in the heaps part (image area and heap), or 0 for
     * the default (amp_mem_default_slot_size).  Rounded up to an odd
     * multiple of 2 MiB (or of image_align, if larger). */
    size_t slot_size;
    /* Keep each slot's guard page even where the kernel's limit on
     * mappings then limits the slots (never flat). */
    int guard;
} amp_mem_layout_t;

/* The default size of each of nslots slots of the heaps part whose image
 * area takes fixed bytes: 32 TiB shared out (half the address space the process
 * may have, when that is less), at most 1 TiB a slot, and, for many slots,
 * no more than 128 MiB each over no less than 4 TiB in all (the fewer page
 * tables); never less than fixed and a 16 MiB heap. */
size_t amp_mem_default_slot_size(int nslots, size_t fixed);

/* The least slot size that holds the image area of layout and a 1 MiB
 * heap. */
size_t amp_mem_min_slot_size(const amp_mem_layout_t *layout);

/* Reserves nslots slots laid out as described.  AMP_ERR_ARG: the slot size
 * asked for is below amp_mem_min_slot_size(). */
AMP_MUST_USE amp_status_t amp_mem_init(amp_mem_t *mem, int nslots,
                                       const amp_mem_layout_t *layout);
void amp_mem_cleanup(amp_mem_t *mem);

/* Makes slot i's stack and rank area accessible (pages are still only
 * backed when touched). */
AMP_MUST_USE amp_status_t amp_mem_slot_commit(amp_mem_t *mem, int i);

/* Backs, in one call, the pages a new rank of slot i touches first: the
 * top stack_bytes of its stack and its rank area (accessible; the heap
 * backs its header itself when it is made).  One fault a page costs far
 * more than the call (13 us a fault against 0.7 us a page in a virtual
 * machine); where the kernel cannot (before Linux 5.14), the pages stay to
 * be faulted in. */
void amp_mem_slot_populate(const amp_mem_t *mem, int i, size_t stack_bytes);

/* amp_mem_slot_commit and amp_mem_slot_populate for slots [lo, hi), and
 * each of their pages touched once, shared among nthreads threads (the
 * caller and nthreads - 1 it starts and joins): a page's first touch is
 * what costs (7 to 14 us a page in a virtual machine, in the thread that
 * touches it), and the ranks are then created in one thread.  Slots whose
 * commit fails are left as they were (amp_mem_slot_commit says why when
 * the rank is created).  Their amp_mem_slot_commit and
 * amp_mem_slot_populate then return at once.  With side_bytes, each slot
 * also gets that many zeroed bytes outside the slots, made ready the same
 * way, for what its rank's creation would otherwise allocate
 * (amp_mem_slot_side). */
void amp_mem_slots_prepare(amp_mem_t *mem, int lo, int hi, size_t stack_bytes,
                           size_t side_bytes, int nthreads);
/* Slot i's side bytes of amp_mem_slots_prepare (16-byte aligned; this
 * process's until it ends, not the slot's: they do not move with the
 * rank), or NULL. */
void *amp_mem_slot_side(const amp_mem_t *mem, int i);

/* Gives slot i's pages back to the system (its rank moved to another
 * process): its stack part, and the first `used` bytes of its slot (its
 * program copy and the part of its heap committed; the rest was never
 * made accessible).  The slot is reserved and inaccessible again, as
 * before its first commit. */
AMP_MUST_USE amp_status_t amp_mem_slot_release(amp_mem_t *mem, int i,
                                               size_t used);
/* What AddressSanitizer poisoned in slot i must not outlive its rank onto
 * the next: the red zones of the frames a rank that left stopped in, and
 * those of its program copy's globals (pie).  Nothing without it. */
void amp_mem_slot_unpoison(const amp_mem_t *mem, int i);

void *amp_mem_slot_stack(const amp_mem_t *mem, int i);
void *amp_mem_slot_rank_area(const amp_mem_t *mem, int i);
/* Start of slot i's image area (reserved, inaccessible until mapped). */
void *amp_mem_slot_image(const amp_mem_t *mem, int i);

/* Start and size (mem->heap_size) of slot i's heap area (reserved,
 * inaccessible until the heap commits it). */
void *amp_mem_slot_heap(const amp_mem_t *mem, int i);

/* Slot whose guard page holds addr, or -1. */
int amp_mem_guard_slot(const amp_mem_t *mem, const void *addr);

/* Slot containing addr (in either part), or -1. */
int amp_mem_slot_of(const amp_mem_t *mem, const void *addr);

/* Whether [addr, addr + len) lies in slot i's stack and rank area, or in
 * its part of the heaps. */
int amp_mem_slot_holds(const amp_mem_t *mem, int i, const void *addr,
                       size_t len);

#endif
