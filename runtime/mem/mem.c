#include "mem/mem.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Where the range is placed when the kernel lets us: far above the usual
 * program, heap and library addresses on x86-64 Linux. */
#define AMP_MEM_HINT ((void *)0x100000000000ULL)

/* Slots are aligned so that huge pages and later heap arenas line up. */
#define AMP_MEM_SLOT_ALIGN (2u << 20)

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* Reserves total bytes aligned to align: at the hint where the kernel lets
 * us (it is aligned), anywhere otherwise, then trimmed to the alignment. */
static amp_status_t reserve(amp_mem_t *mem, size_t total, size_t align)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *p = mmap(AMP_MEM_HINT, total, PROT_NONE, flags | MAP_FIXED_NOREPLACE,
                   -1, 0);
    size_t size = total;
    if (p == MAP_FAILED || (uintptr_t)p % align != 0) {
        if (p != MAP_FAILED)
            munmap(p, total);
        size = total + align;
        p = mmap(NULL, size, PROT_NONE, flags, -1, 0);
    }
    if (p == MAP_FAILED) {
        amp_log_error("cannot reserve %zu bytes for %d rank slots: %s", total,
                      mem->nslots, strerror(errno));
        return AMP_ERR_NOMEM;
    }
    mem->map_base = p;
    mem->map_size = size;
    mem->base = (char *)AMP_ROUND_UP((uintptr_t)p, align);
    return AMP_OK;
}

amp_status_t amp_mem_init(amp_mem_t *mem, int nslots,
                          const amp_mem_layout_t *layout)
{
    memset(mem, 0, sizeof(*mem));
    mem->page_size = (size_t)sysconf(_SC_PAGESIZE);
    size_t align = max_size(layout->image_align, mem->page_size);
    mem->stack_size = AMP_ROUND_UP(layout->stack_size, mem->page_size);
    mem->rank_area_size = AMP_ROUND_UP(layout->rank_area, mem->page_size);
    mem->image_offset = AMP_ROUND_UP(
        mem->page_size + mem->stack_size + mem->rank_area_size, align);
    mem->image_size = AMP_ROUND_UP(layout->image_size, mem->page_size);
    size_t slot_align = max_size(AMP_MEM_SLOT_ALIGN, align);
    mem->slot_size =
        AMP_ROUND_UP(mem->image_offset + mem->image_size, slot_align);
    mem->nslots = nslots;
    return reserve(mem, mem->slot_size * (size_t)nslots, slot_align);
}

void amp_mem_cleanup(amp_mem_t *mem)
{
    if (mem->map_base)
        munmap(mem->map_base, mem->map_size);
    mem->map_base = NULL;
    mem->base = NULL;
}

static char *slot_base(const amp_mem_t *mem, int i)
{
    return mem->base + (size_t)i * mem->slot_size;
}

amp_status_t amp_mem_slot_commit(amp_mem_t *mem, int i)
{
    char *start = slot_base(mem, i) + mem->page_size;
    size_t len = mem->stack_size + mem->rank_area_size;
    if (mprotect(start, len, PROT_READ | PROT_WRITE) != 0) {
        amp_log_error("cannot commit memory for rank slot %d: %s", i,
                      strerror(errno));
        return AMP_ERR_NOMEM;
    }
    return AMP_OK;
}

void *amp_mem_slot_stack(const amp_mem_t *mem, int i)
{
    return slot_base(mem, i) + mem->page_size;
}

void *amp_mem_slot_rank_area(const amp_mem_t *mem, int i)
{
    return slot_base(mem, i) + mem->page_size + mem->stack_size;
}

void *amp_mem_slot_image(const amp_mem_t *mem, int i)
{
    return slot_base(mem, i) + mem->image_offset;
}

int amp_mem_slot_of(const amp_mem_t *mem, const void *addr)
{
    const char *a = addr;
    if (!mem->base || a < mem->base)
        return -1;
    size_t off = (size_t)(a - mem->base);
    if (off >= mem->slot_size * (size_t)mem->nslots)
        return -1;
    return (int)(off / mem->slot_size);
}

int amp_mem_guard_slot(const amp_mem_t *mem, const void *addr)
{
    int i = amp_mem_slot_of(mem, addr);
    if (i < 0)
        return -1;
    size_t off = (size_t)((const char *)addr - slot_base(mem, i));
    return off < mem->page_size ? i : -1;
}
