#include "mem/mem.h"

#include <errno.h>
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

amp_status_t amp_mem_init(amp_mem_t *mem, int nslots, size_t stack_size,
                          size_t rank_area)
{
    memset(mem, 0, sizeof(*mem));
    mem->page_size = (size_t)sysconf(_SC_PAGESIZE);
    mem->stack_size = AMP_ROUND_UP(stack_size, mem->page_size);
    mem->rank_area_size = AMP_ROUND_UP(rank_area, mem->page_size);
    mem->slot_size =
        AMP_ROUND_UP(mem->page_size + mem->stack_size + mem->rank_area_size,
                     AMP_MEM_SLOT_ALIGN);
    mem->nslots = nslots;

    size_t total = mem->slot_size * (size_t)nslots;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *p = mmap(AMP_MEM_HINT, total, PROT_NONE, flags | MAP_FIXED_NOREPLACE,
                   -1, 0);
    if (p == MAP_FAILED)
        p = mmap(NULL, total, PROT_NONE, flags, -1, 0);
    if (p == MAP_FAILED) {
        amp_log_error("cannot reserve %zu bytes for %d rank slots: %s", total,
                      nslots, strerror(errno));
        return AMP_ERR_NOMEM;
    }
    mem->base = p;
    return AMP_OK;
}

void amp_mem_cleanup(amp_mem_t *mem)
{
    if (mem->base)
        munmap(mem->base, mem->slot_size * (size_t)mem->nslots);
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
