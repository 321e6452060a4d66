#include "mem/mem.h"
#include "base/sanitize.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Where the range is placed when the kernel lets us: far above the usual
 * program, heap and library addresses on x86-64 Linux.  AddressSanitizer's
 * shadow memory holds that address (it ends at 0x10007fff8000): there the
 * range goes above it and below its allocator (0x500000000000). */
#ifdef AMP_ASAN
#define AMP_MEM_HINT ((void *)0x200000000000ULL)
#else
#define AMP_MEM_HINT ((void *)0x100000000000ULL)
#endif

/* Slots are aligned so that huge pages and later heap arenas line up. */
#define AMP_MEM_SLOT_ALIGN (2u << 20)

/* Slot sizes: by default the range (32 TiB, less under ulimit -v) shared out
 * among the slots, at most 1 TiB a slot (a few ranks may each malloc
 * hundreds of GiB, a million get 32 MiB each); but many slots take no more
 * than 128 MiB each, over no less than 4 TiB in all.  The kernel's page
 * tables hold a page for every GiB of slots a rank touches: 100,000 ranks
 * in slots of 330 MiB ran a barrier 36 times slower than in slots of 128
 * MiB (docs/isomalloc.md).  The least heap a slot may have (asked for, by
 * default). */
#define AMP_MEM_DEFAULT_SLOT ((size_t)1 << 40)
#define AMP_MEM_DEFAULT_RANGE ((size_t)1 << 45)
#define AMP_MEM_DENSE_SLOT ((size_t)128 << 20)
#define AMP_MEM_DENSE_RANGE ((size_t)1 << 42)
#define AMP_MEM_MIN_HEAP ((size_t)1 << 20)
#define AMP_MEM_DEFAULT_MIN_HEAP ((size_t)16 << 20)

/* Kernel memory mappings a rank's slot takes: its stack and state apart
 * from its guard, and its heap's accessible pages apart from the
 * inaccessible rest; and the mappings left to the program and the
 * libraries beside the slots. */
#define AMP_MEM_MAPS_PER_SLOT 4
#define AMP_MEM_MAPS_SPARE 4096

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* The first number in file path, or -1. */
static long read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* The process's memory mappings (lines of /proc/self/maps), or -1. */
static long count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long lines = 0;
    int c;
    while ((c = getc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines;
}

/* Whether nslots slots with a guard page each would take more mappings
 * than the kernel allows a process (vm.max_map_count), with what the
 * process has already. */
static int beyond_map_count(int nslots)
{
    long max = read_number("/proc/sys/vm/max_map_count");
    long maps = count_mappings();
    return max > 0 && maps >= 0 &&
           (long)nslots * AMP_MEM_MAPS_PER_SLOT + maps + AMP_MEM_MAPS_SPARE >
               max;
}

/* Bytes of the stacks part: nslots stack slots, up to the alignment of
 * the heaps part that follows. */
static size_t stacks_bytes(const amp_mem_t *mem, int nslots, size_t align)
{
    return AMP_ROUND_UP(mem->stack_slot * (size_t)nslots, align);
}

/* The range's bytes: its stacks part and its heaps part. */
static size_t range_bytes(const amp_mem_t *mem, int nslots, size_t align)
{
    return stacks_bytes(mem, nslots, align) + mem->slot_size * (size_t)nslots;
}

/* The range as one mapping, aligned to align, at the hint where the
 * kernel lets us (it is aligned), anywhere otherwise (then trimmed to the
 * alignment); MAP_FAILED when the kernel refuses. */
static void *map_range(amp_mem_t *mem, int nslots, size_t align, int prot)
{
    size_t total = range_bytes(mem, nslots, align);
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *p = mmap(AMP_MEM_HINT, total, prot, flags | MAP_FIXED_NOREPLACE,
                   -1, 0);
    mem->map_size = total;
    if (p == MAP_FAILED || (uintptr_t)p % align != 0) {
        if (p != MAP_FAILED)
            munmap(p, total);
        mem->map_size = total + align;
        p = mmap(NULL, mem->map_size, prot, flags, -1, 0);
    }
    return p;
}

/* Reserves nslots slots aligned to align: inaccessible, each slot's pages
 * made accessible as its rank needs them.  When that would take more
 * mappings than the kernel allows, the whole range is accessible at once
 * (flat: one mapping, pages backed only when touched, no guard pages),
 * unless guard asks for them or the kernel refuses so much memory not
 * backed by swap (strict overcommit). */
static amp_status_t reserve(amp_mem_t *mem, int nslots, size_t align,
                            int guard)
{
    size_t total = range_bytes(mem, nslots, align);
    void *p = MAP_FAILED;
    if (!guard && beyond_map_count(nslots)) {
        p = map_range(mem, nslots, align, PROT_READ | PROT_WRITE);
        mem->flat = p != MAP_FAILED;
    }
    if (p == MAP_FAILED)
        p = map_range(mem, nslots, align, PROT_NONE);
    if (p == MAP_FAILED) {
        struct rlimit rl;
        int limited = getrlimit(RLIMIT_AS, &rl) == 0 &&
                      rl.rlim_cur != RLIM_INFINITY;
        amp_log_error("cannot reserve %zu bytes of address space for %d rank "
                      "slots of %zu bytes: %s%s%s",
                      total, nslots, mem->slot_size, strerror(errno),
                      limited ? "; the process's address space is limited "
                                "(ulimit -v)"
                              : "",
                      "; set a smaller slot with +isomalloc_slot BYTES");
        return AMP_ERR_NOMEM;
    }
    mem->map_base = p;
    mem->stacks = (char *)AMP_ROUND_UP((uintptr_t)p, align);
    mem->base = mem->stacks + stacks_bytes(mem, nslots, align);
    return AMP_OK;
}

/* A rank's stack slot, and the parts of a slot before its heap area, into
 * mem.  A stack slot is an odd number of pages (the guard takes one more
 * where it would be even): a power of two apart, the same place of every
 * rank (its stack's top, its state) would fall in the same cache and TLB
 * sets, which made same-PE messages half again as slow. */
static void lay_out(amp_mem_t *mem, const amp_mem_layout_t *layout)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    mem->page_size = page;
    mem->stack_size = AMP_ROUND_UP(layout->stack_size, page);
    mem->rank_area_size = AMP_ROUND_UP(layout->rank_area, page);
    mem->guard_size = page;
    mem->stack_slot = page + mem->stack_size + mem->rank_area_size;
    if (mem->stack_slot / page % 2 == 0) {
        mem->guard_size += page;
        mem->stack_slot += page;
    }
    /* The image area starts the slot, aligned as the image needs. */
    mem->image_size = AMP_ROUND_UP(layout->image_size, page);
    mem->heap_offset = mem->image_size;
}

static size_t slot_align(const amp_mem_layout_t *layout)
{
    return max_size(AMP_MEM_SLOT_ALIGN, layout->image_align);
}

size_t amp_mem_min_slot_size(const amp_mem_layout_t *layout)
{
    amp_mem_t mem;
    lay_out(&mem, layout);
    return AMP_ROUND_UP(mem.heap_offset + AMP_MEM_MIN_HEAP, slot_align(layout));
}

/* The address space the default slots may take: 32 TiB, or half the
 * process's limit (ulimit -v) when that is lower. */
static size_t default_range(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur / 2 < AMP_MEM_DEFAULT_RANGE)
        return (size_t)(rl.rlim_cur / 2);
    return AMP_MEM_DEFAULT_RANGE;
}

size_t amp_mem_default_slot_size(int nslots, size_t fixed)
{
    size_t range = default_range();
    size_t dense = (size_t)nslots * AMP_MEM_DENSE_SLOT;
    if (dense < AMP_MEM_DENSE_RANGE)
        dense = AMP_MEM_DENSE_RANGE;
    if (range > dense)
        range = dense;
    size_t size = range / (size_t)nslots;
    if (size > AMP_MEM_DEFAULT_SLOT)
        size = AMP_MEM_DEFAULT_SLOT;
    return max_size(size, fixed + AMP_MEM_DEFAULT_MIN_HEAP);
}

amp_status_t amp_mem_init(amp_mem_t *mem, int nslots,
                          const amp_mem_layout_t *layout)
{
    memset(mem, 0, sizeof(*mem));
    lay_out(mem, layout);
    size_t align = slot_align(layout);
    size_t size = layout->slot_size;
    if (size == 0)
        size = amp_mem_default_slot_size(nslots, mem->heap_offset);
    else if (size < amp_mem_min_slot_size(layout))
        return AMP_ERR_ARG;
    /* An odd multiple of the alignment: slots a power of two apart put the
     * same place of every rank (its stack, its state) in the same cache
     * and TLB sets, which made same-PE messages half again as slow. */
    mem->slot_size = AMP_ROUND_UP(size, align);
    if (mem->slot_size / align % 2 == 0)
        mem->slot_size += align;
    if (mem->slot_size / align > SIZE_MAX / 2 / align / (size_t)nslots ||
        mem->stack_slot > SIZE_MAX / 2 / (size_t)nslots) {
        amp_log_error("%d rank slots of %zu bytes and stacks of %zu do not "
                      "fit in the address space",
                      nslots, mem->slot_size, mem->stack_size);
        return AMP_ERR_NOMEM;
    }
    mem->heap_size = mem->slot_size - mem->heap_offset;
    /* nslots stays 0 until the range exists: no address is in a slot. */
    amp_status_t status = reserve(mem, nslots, align, layout->guard);
    if (status == AMP_OK)
        mem->nslots = nslots;
    return status;
}

void amp_mem_cleanup(amp_mem_t *mem)
{
    if (mem->map_base)
        munmap(mem->map_base, mem->map_size);
    if (mem->side)
        munmap(mem->side,
               (size_t)(mem->side_hi - mem->side_lo) * mem->side_per);
    mem->side = NULL;
    mem->map_base = NULL;
    mem->base = NULL;
    mem->stacks = NULL;
}

static char *slot_base(const amp_mem_t *mem, int i)
{
    return mem->base + (size_t)i * mem->slot_size;
}

static char *stack_slot_base(const amp_mem_t *mem, int i)
{
    return mem->stacks + (size_t)i * mem->stack_slot;
}

/* Says why slot i's memory could not be made accessible (errno err): the
 * kernel's limit on mappings, with how to raise it, or the error with what
 * each rank takes. */
static void explain_commit(const amp_mem_t *mem, int i, int err)
{
    long max = read_number("/proc/sys/vm/max_map_count");
    long maps = count_mappings();
    if (err == ENOMEM && max > 0 && maps >= max - 64) {
        long want = maps + AMP_MEM_MAPS_PER_SLOT * (long)(mem->nslots - i);
        amp_log_error("cannot set up rank slot %d: the process has %ld "
                      "memory mappings, the kernel's limit vm.max_map_count "
                      "is %ld, and each rank takes up to %d with guard "
                      "pages (AMPI_ISOMALLOC_GUARD=1, or the kernel's strict "
                      "overcommit, vm.overcommit_memory=2); raise it (as "
                      "root: sysctl -w vm.max_map_count=%ld) or run fewer "
                      "ranks per process",
                      i, maps, max, AMP_MEM_MAPS_PER_SLOT,
                      (want + 65536) / 65536 * 65536);
        return;
    }
    amp_log_error("cannot commit memory for rank slot %d (%zu bytes of stack "
                  "with +stacksize, %zu of rank state): %s",
                  i, mem->stack_size, mem->rank_area_size, strerror(err));
}

/* Whether slot i was made ready by amp_mem_slots_prepare. */
static int ahead(const amp_mem_t *mem, int i)
{
    return i >= mem->ahead_lo && i < mem->ahead_hi;
}

/* Makes slot i's stack and rank area accessible; nonzero (errno) when
 * refused. */
static int open_slot(const amp_mem_t *mem, int i)
{
    return mprotect(amp_mem_slot_stack(mem, i),
                    mem->stack_size + mem->rank_area_size,
                    PROT_READ | PROT_WRITE) != 0;
}

amp_status_t amp_mem_slot_commit(amp_mem_t *mem, int i)
{
    /* Accessible already (flat: a system call a rank saved). */
    if (mem->flat || ahead(mem, i))
        return AMP_OK;
    if (open_slot(mem, i)) {
        explain_commit(mem, i, errno);
        return AMP_ERR_NOMEM;
    }
    return AMP_OK;
}

/* Backs [start, start + len) with pages now, or leaves it. */
static void populate(char *start, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    (void)madvise(start, len, MADV_POPULATE_WRITE);
#else
    (void)start;
    (void)len;
#endif
}

void amp_mem_slot_populate(const amp_mem_t *mem, int i, size_t stack_bytes)
{
    if (ahead(mem, i))
        return;
    char *area = amp_mem_slot_rank_area(mem, i);
    stack_bytes = AMP_ROUND_UP(stack_bytes, mem->page_size);
    if (stack_bytes > mem->stack_size)
        stack_bytes = mem->stack_size;
    populate(area - stack_bytes, stack_bytes + mem->rank_area_size);
}

/* One thread's share of amp_mem_slots_prepare. */
typedef struct prepare_share {
    amp_mem_t *mem;
    int lo, hi;
    size_t stack_bytes;
    int done; /* the whole share */
} prepare_share_t;

/* Reads a byte of each page of [start, start + len): the first access, not
 * the backing, is what a virtual machine makes slow. */
static void touch_pages(const char *start, size_t len, size_t page)
{
    for (size_t off = 0; off < len; off += page)
        (void)*(const volatile char *)(start + off);
}

static void *prepare_slots(void *arg)
{
    prepare_share_t *s = arg;
    amp_mem_t *mem = s->mem;
    size_t stack_bytes = AMP_ROUND_UP(s->stack_bytes, mem->page_size);
    if (stack_bytes > mem->stack_size)
        stack_bytes = mem->stack_size;
    if (mem->side && s->hi > s->lo) { /* the pages of its side bytes */
        char *side = amp_mem_slot_side(mem, s->lo);
        size_t cut = (uintptr_t)side % mem->page_size;
        size_t len = (size_t)(s->hi - s->lo) * mem->side_per + cut;
        populate(side - cut, len);
        touch_pages(side - cut, len, mem->page_size);
    }
    for (int i = s->lo; i < s->hi; i++) {
        if (!mem->flat && open_slot(mem, i))
            return NULL; /* the rank's own commit says why */
        amp_mem_slot_populate(mem, i, stack_bytes);
        touch_pages((char *)amp_mem_slot_rank_area(mem, i) - stack_bytes,
                    stack_bytes + mem->rank_area_size, mem->page_size);
    }
    s->done = 1;
    return NULL;
}

void *amp_mem_slot_side(const amp_mem_t *mem, int i)
{
    if (!mem->side || i < mem->side_lo || i >= mem->side_hi)
        return NULL;
    return mem->side + (size_t)(i - mem->side_lo) * mem->side_per;
}

/* The side bytes of slots [lo, hi), side_bytes each (none where the
 * system refuses: the ranks allocate theirs). */
static void map_side(amp_mem_t *mem, int lo, int hi, size_t side_bytes)
{
    if (!side_bytes || mem->side)
        return;
    size_t per = AMP_ROUND_UP(side_bytes, 16);
    void *side = mmap(NULL, (size_t)(hi - lo) * per, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (side == MAP_FAILED)
        return;
    mem->side = side;
    mem->side_per = per;
    mem->side_lo = lo;
    mem->side_hi = hi;
}

void amp_mem_slots_prepare(amp_mem_t *mem, int lo, int hi, size_t stack_bytes,
                           size_t side_bytes, int nthreads)
{
    enum { MAX_HELPERS = 63 };
    map_side(mem, lo, hi, side_bytes);
    if (nthreads > MAX_HELPERS + 1)
        nthreads = MAX_HELPERS + 1;
    prepare_share_t share[MAX_HELPERS + 1];
    pthread_t helper[MAX_HELPERS];
    int n = hi - lo, started = 0;
    for (int t = 0; t < nthreads; t++)
        share[t] = (prepare_share_t){mem, lo + (int)((long)n * t / nthreads),
                                     lo + (int)((long)n * (t + 1) / nthreads),
                                     stack_bytes, 0};
    /* Helpers take the later shares; a helper not started leaves its share
     * to the rank's own commit and populate. */
    while (started + 1 < nthreads &&
           pthread_create(&helper[started], NULL, prepare_slots,
                          &share[started + 1]) == 0)
        started++;
    prepare_slots(&share[0]);
    int all = 1;
    for (int t = 0; t < nthreads; t++) {
        if (t >= 1 && t <= started)
            pthread_join(helper[t - 1], NULL);
        all &= share[t].done;
    }
    if (all) {
        mem->ahead_lo = lo;
        mem->ahead_hi = hi;
    }
}

/* Gives [start, start + len) back: inaccessible again, or, flat, one
 * mapping still, only its pages gone.  Nonzero (errno) when refused. */
static int give_back(const amp_mem_t *mem, char *start, size_t len)
{
    if (mem->flat)
        return madvise(start, len, MADV_DONTNEED) != 0;
    return mmap(start, len, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
                0) == MAP_FAILED;
}

void amp_mem_slot_unpoison(const amp_mem_t *mem, int i)
{
    amp_asan_unpoison(amp_mem_slot_stack(mem, i),
                      mem->stack_size + mem->rank_area_size);
    amp_asan_unpoison(amp_mem_slot_image(mem, i), mem->image_size);
}

amp_status_t amp_mem_slot_release(amp_mem_t *mem, int i, size_t used)
{
    mem->ahead_lo = mem->ahead_hi = 0; /* slot i is to commit again */
    used = AMP_ROUND_UP(used, mem->page_size);
    if (used > mem->slot_size)
        used = mem->slot_size;
    if (give_back(mem, amp_mem_slot_stack(mem, i),
                  mem->stack_size + mem->rank_area_size) ||
        (used && give_back(mem, slot_base(mem, i), used))) {
        amp_log_error("cannot release the memory of rank slot %d: %s", i,
                      strerror(errno));
        return AMP_ERR_NOMEM;
    }
    amp_mem_slot_unpoison(mem, i);
    return AMP_OK;
}

void *amp_mem_slot_stack(const amp_mem_t *mem, int i)
{
    return stack_slot_base(mem, i) + mem->guard_size;
}

void *amp_mem_slot_rank_area(const amp_mem_t *mem, int i)
{
    return stack_slot_base(mem, i) + mem->guard_size + mem->stack_size;
}

void *amp_mem_slot_image(const amp_mem_t *mem, int i)
{
    return slot_base(mem, i);
}

void *amp_mem_slot_heap(const amp_mem_t *mem, int i)
{
    return slot_base(mem, i) + mem->heap_offset;
}

/* Offset of a in [start, start + len), or len when outside. */
static size_t offset_in(const char *start, size_t len, const void *a)
{
    size_t off = (size_t)((uintptr_t)a - (uintptr_t)start);
    return start && off < len ? off : len;
}

int amp_mem_slot_of(const amp_mem_t *mem, const void *addr)
{
    size_t n = (size_t)mem->nslots;
    size_t heaps = mem->slot_size * n, stacks = mem->stack_slot * n;
    size_t off = offset_in(mem->base, heaps, addr);
    if (off < heaps)
        return (int)(off / mem->slot_size);
    off = offset_in(mem->stacks, stacks, addr);
    return off < stacks ? (int)(off / mem->stack_slot) : -1;
}

int amp_mem_guard_slot(const amp_mem_t *mem, const void *addr)
{
    size_t stacks = mem->stack_slot * (size_t)mem->nslots;
    size_t off = offset_in(mem->stacks, stacks, addr);
    if (off >= stacks || off % mem->stack_slot >= mem->guard_size)
        return -1;
    return (int)(off / mem->stack_slot);
}

int amp_mem_slot_holds(const amp_mem_t *mem, int i, const void *addr,
                       size_t len)
{
    if (i < 0 || i >= mem->nslots)
        return 0;
    size_t stack_len = mem->stack_size + mem->rank_area_size;
    size_t off = offset_in(amp_mem_slot_stack(mem, i), stack_len, addr);
    if (off < stack_len)
        return len <= stack_len - off;
    off = offset_in(slot_base(mem, i), mem->slot_size, addr);
    return off < mem->slot_size && len <= mem->slot_size - off;
}
