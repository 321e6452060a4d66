/* A rank's copy of the program under pie privatization: addresses
 * translated between it and the original that the program was loaded as
 * (error messages, debuggers, callbacks registered by one rank and called
 * in another).  Without pie every address is its own translation. */
#include "mpi/proc.h"

#include <stdint.h>

uintptr_t amp_pie_slot_base(int slot)
{
    return amp_pie_copy_base(&amp_proc.pie,
                             amp_mem_slot_image(&amp_proc.mem, slot));
}

void *amp_pie_to_original(const void *addr)
{
    const amp_pie_image_t *img = &amp_proc.pie;
    if (!img->active)
        return (void *)addr;
    int slot = amp_mem_slot_of(&amp_proc.mem, addr);
    if (slot < 0)
        return (void *)addr;
    return (void *)amp_pie_translate(img, amp_pie_slot_base(slot), img->bias,
                                     (uintptr_t)addr);
}

void *amp_pie_to_rank(const amp_rank_t *rank, const void *addr)
{
    const amp_pie_image_t *img = &amp_proc.pie;
    if (!img->active)
        return (void *)addr;
    uintptr_t orig = (uintptr_t)amp_pie_to_original(addr);
    return (void *)amp_pie_translate(img, img->bias,
                                     amp_pie_slot_base(rank->slot), orig);
}
