/* The migratable-memory range (runtime/mem/mem.c): the default slot sizes
 * (large for a few ranks, dense for many), and the first pages of a new
 * rank backed in one call. */
#include "unit.h"

#include "mem/mem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
#define TIB ((size_t)1 << 40)

/* A few ranks may each malloc hundreds of GiB; a thousand, gigabytes. */
UNIT_TEST(mem_default_slots_are_large_for_few_ranks)
{
    UNIT_EQ(amp_mem_default_slot_size(2, MIB), TIB);
    UNIT_EQ(amp_mem_default_slot_size(4, MIB), TIB);
    UNIT_EQ(amp_mem_default_slot_size(1000, MIB), 4 * TIB / 1000);
}

/* Many slots lie close together (page tables, docs/isomalloc.md): from
 * 32,768 slots 128 MiB each, a million 32 MiB, never below the fixed
 * parts and a 16 MiB heap. */
UNIT_TEST(mem_default_slots_are_dense_for_many_ranks)
{
    UNIT_EQ(amp_mem_default_slot_size(32768, MIB), 128 * MIB);
    UNIT_EQ(amp_mem_default_slot_size(100000, MIB), 128 * MIB);
    UNIT_EQ(amp_mem_default_slot_size(1 << 20, MIB), 32 * MIB);
    UNIT_EQ(amp_mem_default_slot_size(1 << 30, MIB), 17 * MIB);
}

/* Pages of [p, p + n) in memory. */
static int resident(const char *p, size_t n, size_t page)
{
    unsigned char v[64];
    UNIT_TRUE(n / page <= sizeof(v));
    UNIT_EQ(mincore((void *)p, n, v), 0);
    int count = 0;
    for (size_t i = 0; i < n / page; i++)
        count += v[i] & 1;
    return count;
}

/* The top of the stack asked for and the rank area are backed before the
 * rank touches them; the rest of its stack is not. */
UNIT_TEST(mem_populate_backs_the_first_pages)
{
    size_t page = (size_t)getpagesize();
    amp_mem_layout_t layout = {.stack_size = 16 * page, .rank_area = page};
    amp_mem_t mem;
    UNIT_EQ(amp_mem_init(&mem, 4, &layout), AMP_OK);
    UNIT_EQ(amp_mem_slot_commit(&mem, 2), AMP_OK);
    char *stack = amp_mem_slot_stack(&mem, 2);
    char *area = amp_mem_slot_rank_area(&mem, 2);
    UNIT_EQ(resident(stack, 16 * page + page, page), 0);
    amp_mem_slot_populate(&mem, 2, 2 * page);
    UNIT_EQ(resident(area - 2 * page, 3 * page, page), 3);
    UNIT_EQ(resident(stack, 14 * page, page), 0);
    amp_mem_cleanup(&mem);
}

/* Slots made ready ahead by several threads: each one's first pages
 * accessible and backed, the rest of its stack not, the slots outside the
 * range untouched; the rank's own commit and populate then skip them, and
 * a slot released must commit again.  Each slot of the range has its side
 * bytes, zeroed, backed and apart from the others'. */
UNIT_TEST(mem_slots_prepared_ahead_by_threads)
{
    size_t page = (size_t)getpagesize();
    amp_mem_layout_t layout = {.stack_size = 16 * page,
                               .rank_area = page,
                               .guard = 1};
    amp_mem_t mem;
    UNIT_EQ(amp_mem_init(&mem, 8, &layout), AMP_OK);
    UNIT_EQ(mem.flat, 0);
    amp_mem_slots_prepare(&mem, 1, 7, page, 1000, 3);
    UNIT_EQ(mem.ahead_lo, 1);
    UNIT_EQ(mem.ahead_hi, 7);
    UNIT_TRUE(amp_mem_slot_side(&mem, 0) == NULL);
    UNIT_TRUE(amp_mem_slot_side(&mem, 7) == NULL);
    char *first = amp_mem_slot_side(&mem, 1);
    UNIT_EQ(resident(first, 2 * page, page), 2); /* 6 x 1008 bytes */
    for (int i = 1; i < 7; i++) {
        unsigned char *side = amp_mem_slot_side(&mem, i);
        UNIT_EQ((size_t)((char *)side - first), (size_t)(i - 1) * 1008);
        UNIT_EQ((uintptr_t)side % 16, 0);
        for (int b = 0; b < 1000; b++)
            UNIT_EQ(side[b], 0);
        memset(side, i, 1000);
    }
    for (int i = 1; i < 7; i++)
        UNIT_EQ(((unsigned char *)amp_mem_slot_side(&mem, i))[999], i);
    for (int i = 1; i < 7; i++) {
        char *area = amp_mem_slot_rank_area(&mem, i);
        UNIT_EQ(resident(area - page, 2 * page, page), 2);
        UNIT_EQ(resident(amp_mem_slot_stack(&mem, i), 15 * page, page), 0);
        area[0] = (char)i; /* writable: committed */
        area[-1] = (char)i;
    }
    UNIT_EQ(resident(amp_mem_slot_rank_area(&mem, 0), page, page), 0);
    UNIT_EQ(resident(amp_mem_slot_rank_area(&mem, 7), page, page), 0);
    UNIT_EQ(amp_mem_slot_commit(&mem, 3), AMP_OK);
    UNIT_EQ(amp_mem_slot_release(&mem, 3, 0), AMP_OK);
    UNIT_EQ(mem.ahead_hi, 0);
    UNIT_EQ(amp_mem_slot_commit(&mem, 3), AMP_OK);
    amp_mem_slot_populate(&mem, 3, page);
    UNIT_EQ(resident(amp_mem_slot_rank_area(&mem, 3), page, page), 1);
    amp_mem_cleanup(&mem);
}

/* Each slot's two parts: its stack and state side by side with the other
 * slots', its heap in a slot of its own; an address of either names the
 * slot, a guard page only below a stack, and a range holds only within
 * one part. */
UNIT_TEST(mem_slot_parts_name_their_slot)
{
    size_t page = (size_t)getpagesize();
    amp_mem_layout_t layout = {.stack_size = 16 * page, .rank_area = page};
    amp_mem_t mem;
    UNIT_EQ(amp_mem_init(&mem, 4, &layout), AMP_OK);
    char *stack = amp_mem_slot_stack(&mem, 1);
    char *area = amp_mem_slot_rank_area(&mem, 1);
    char *heap = amp_mem_slot_heap(&mem, 1);
    UNIT_EQ((long)(mem.stack_slot / page % 2), 1);
    UNIT_EQ(area - stack, (long)(16 * page));
    UNIT_EQ((char *)amp_mem_slot_stack(&mem, 2) - stack, (long)mem.stack_slot);
    UNIT_EQ(amp_mem_slot_of(&mem, stack), 1);
    UNIT_EQ(amp_mem_slot_of(&mem, area + page - 1), 1);
    UNIT_EQ(amp_mem_slot_of(&mem, heap), 1);
    UNIT_EQ(amp_mem_slot_of(&mem, heap + mem.heap_size - 1), 1);
    UNIT_EQ(amp_mem_slot_of(&mem, heap + mem.heap_size), 2);
    UNIT_EQ(amp_mem_slot_of(&mem, (char *)mem.map_base - 1), -1);
    UNIT_EQ(amp_mem_guard_slot(&mem, stack - 1), 1);
    UNIT_EQ(amp_mem_guard_slot(&mem, stack), -1);
    UNIT_EQ(amp_mem_guard_slot(&mem, heap), -1);
    UNIT_EQ(amp_mem_slot_holds(&mem, 1, stack, 17 * page), 1);
    UNIT_EQ(amp_mem_slot_holds(&mem, 1, stack, 17 * page + 1), 0);
    UNIT_EQ(amp_mem_slot_holds(&mem, 1, heap, mem.heap_size), 1);
    UNIT_EQ(amp_mem_slot_holds(&mem, 2, heap, 1), 0);
    UNIT_EQ(amp_mem_slot_holds(&mem, 4, heap, 1), 0);
    amp_mem_cleanup(&mem);
}
