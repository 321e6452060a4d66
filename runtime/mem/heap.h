/*
 * heap: a rank's heap, in the heap area of its isomalloc slot (mem.h).
 *
 * Everything the heap knows lives inside its region: a header at the
 * region's start, and free lists threaded through the free blocks.  Copying
 * the region's first amp_heap_extent() bytes to the same addresses in
 * another process moves the heap whole, with no pointer to fix.
 *
 *   | header | spans ... | top: unused, committed | reserved ... | end
 *
 * Every block handed out follows a 16-byte header (its size and kind), so
 * user pointers are 16-byte aligned:
 * - small blocks (up to 8 KiB): 32 size classes, 16 bytes apart up to 128,
 *   then four per power of two; carved from 256 KiB spans, and kept on one
 *   free list per class once freed;
 * - large blocks: spans of whole pages, taken first fit from the list of
 *   free spans or from the top; a freed span merges with free neighbours,
 *   and one that reaches the top lowers it; freed pages are kept for the
 *   next allocations up to a budget that follows the largest span freed
 *   (twice it, 1 to 64 MiB, as glibc's trim threshold follows its largest
 *   freed mapping), and all are given back to the system once they pass
 *   it, or at amp_heap_trim (they stay committed and read as zero);
 * - blocks aligned beyond 16 bytes: an ordinary block with room to spare,
 *   and a header before the aligned pointer saying how far back it starts.
 * The region's pages are committed (mprotect) as the top grows, 1 MiB at a
 * time.
 *
 * Threads: only the owner (the rank, on whichever PE it runs) calls
 * amp_heap_alloc, amp_heap_realloc and amp_heap_free.  Any other thread
 * gives a block back with amp_heap_free_remote, which pushes it on a
 * lock-free list that the owner empties at its next call.
 * amp_heap_usable_size may be called from anywhere on a live block.
 */
#ifndef AMP_MEM_HEAP_H
#define AMP_MEM_HEAP_H

#include "base/base.h"

#include <stddef.h>

typedef struct amp_heap amp_heap_t;

/* Makes a heap in [base, base + size): page aligned, reserved and not yet
 * accessible.  NULL when the region is too small or cannot be committed. */
amp_heap_t *amp_heap_create(void *base, size_t size, size_t page_size);

/* size bytes aligned to align (a power of two), or NULL when the region is
 * full.  Owner only. */
void *amp_heap_alloc(amp_heap_t *heap, size_t size, size_t align);
/* The C library's realloc on a block of this heap (p not NULL, size not
 * 0): NULL when the region is full (p stays valid).  Owner only. */
void *amp_heap_realloc(amp_heap_t *heap, void *p, size_t size);
/* Gives p back.  AMP_ERR_ARG: p is no block of the heap or was already
 * freed (nothing changes).  Owner only. */
AMP_MUST_USE amp_status_t amp_heap_free(amp_heap_t *heap, void *p);
/* Gives p back from a thread that is not the owner; AMP_ERR_ARG as
 * amp_heap_free (freeing twice is seen only by the owner, later). */
AMP_MUST_USE amp_status_t amp_heap_free_remote(amp_heap_t *heap, void *p);

/* Gives every free page the heap keeps for reuse back to the system
 * (before the heap is copied or saved).  Owner only. */
void amp_heap_trim(amp_heap_t *heap);

/* Bytes of the live block p that the caller may use (0: not a block). */
size_t amp_heap_usable_size(const void *p);

/* Whether p lies in the heap's region, past its header (any thread). */
int amp_heap_contains(const amp_heap_t *heap, const void *p);

/* Bytes from the region's start that hold the heap's header and blocks
 * (what must be copied to move the heap). */
size_t amp_heap_extent(const amp_heap_t *heap);
/* The part of the extent nothing was carved from yet (the end of the span
 * small blocks are carved from, whole pages), as offsets from the region's
 * start into *from and *to (equal when there is none): it need not be
 * copied with the rest, its contents mean nothing. */
void amp_heap_unused(const amp_heap_t *heap, size_t *from, size_t *to);
/* Bytes from the region's start that are accessible now. */
size_t amp_heap_committed(const amp_heap_t *heap);

/* Checkpoint/restart (rank/checkpoint.h): makes the first committed bytes
 * of the region [base, base + size) accessible again, for a saved heap to
 * be copied back in. */
AMP_MUST_USE amp_status_t amp_heap_restore_commit(void *base, size_t committed);
/* The heap copied back into [base, base + size), or NULL when its header
 * does not describe a heap of that region (a damaged copy). */
amp_heap_t *amp_heap_restore_check(void *base, size_t size, size_t extent,
                                   size_t committed);

#endif
