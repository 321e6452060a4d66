/*
 * The runtime's side of pie privatization (pie/ does the ELF work): set up
 * the image once, give each rank its copy in its memory slot's image area,
 * run the copy's initializers and main as that rank, its finalizers when
 * the rank ends, and map addresses between copies.
 *
 * The copy is made by the rank itself, on its first run: the PEs build
 * their ranks' copies in parallel, and each copy's pages are first touched
 * by the PE that uses them.
 */
#include "start/start.h"

#include "rank/slot.h"
#include "libc/libc.h"

#include <stdlib.h>
#include <sys/mman.h>

void amp_start_pie_setup(void)
{
    if (amp_pie_image_init(&amp_proc.pie) != AMP_OK)
        amp_fatal("cannot privatize the program's globals (it was built "
                  "with -privatize=pie); see the messages above");
}

amp_status_t amp_start_pie_map(int slot)
{
    const amp_pie_image_t *img = &amp_proc.pie;
    if (!img->active)
        return AMP_OK;
    /* The getopt variables of the rank's TLS block, which its copy's GOT
     * slots for them point at (libc/libc.h). */
    uintptr_t vars[AMP_PIE_NVARS];
    amp_libc_getopt_vars(
        amp_tls_copy_tp(&amp_proc.tls, amp_slot_tls_area(slot)), vars);
    return amp_pie_copy_map(img, amp_pie_slot_base(slot), vars);
}

amp_main_fn_t amp_start_pie_rank_enter(amp_rank_t *rank)
{
    const amp_pie_image_t *img = &amp_proc.pie;
    uintptr_t base = rank->pie_base;
    uintptr_t main_fn = (uintptr_t)amp_proc.main_fn;
    if (!amp_pie_in_image(img, img->bias, main_fn))
        amp_fatal("pie: the program's main (%p) is not in the program "
                  "image; it cannot run one copy per rank",
                  (void *)main_fn);
    amp_pie_copy_tls_init(img, base, &amp_proc.tls, rank->thr.tls);
    amp_pie_copy_init(img, base, amp_proc.argc, rank->argv, amp_proc.envp,
                      rank->pie_frames);
    return (amp_main_fn_t)amp_pie_translate(img, img->bias, base, main_fn);
}

void amp_start_pie_rank_exit(amp_rank_t *rank)
{
    uintptr_t base = rank->pie_base;
    if (!base)
        return;
    rank->pie_base = 0; /* a finalizer that ends the rank ends it for good */
    amp_pie_copy_fini(&amp_proc.pie, base);
}

uintptr_t amp_pie_rank_base(int world_rank)
{
    if (!amp_proc.pie.active || world_rank < 0 ||
        world_rank >= amp_proc.nranks || !amp_proc.ranks[world_rank])
        return 0;
    return amp_pie_slot_base(amp_proc.ranks[world_rank]->slot);
}
