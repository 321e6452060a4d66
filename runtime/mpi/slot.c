/*
 * What checkpoints (checkpoint.c, read back by start/restart.c) and moves
 * to another process (move.c) both need of a rank's slot and of the
 * process: the identity that must match where a rank comes back, the
 * writable ranges of a rank's program copy (pie), addresses between the
 * copies, and a rank set up again from the memory of its slot.
 */
#define _GNU_SOURCE 1
#include "mpi/checkpoint.h"
#include "mpi/impl.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>

/* ---- the process's identity ---- */

typedef struct build_id {
    char hex[2 * 40 + 1];
} build_id_t;

/* The GNU build-id note of the program itself (the first object). */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    build_id_t *id = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const unsigned char *desc = (const unsigned char *)p + sizeof(*n) +
                                        AMP_ROUND_UP(n->n_namesz, 4);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                memcmp(p + sizeof(*n), "GNU", 4) == 0 && n->n_descsz <= 40) {
                for (unsigned k = 0; k < n->n_descsz; k++)
                    snprintf(id->hex + 2 * k, 3, "%02x", desc[k]);
                return 1;
            }
            p = (const char *)desc + AMP_ROUND_UP(n->n_descsz, 4);
        }
    }
    return 1; /* only the first object: the program */
}

void amp_ckpt_ident(amp_ckpt_ident_t *id)
{
    memset(id, 0, sizeof(*id));
    build_id_t b = {{0}};
    dl_iterate_phdr(find_build_id, &b);
    struct stat st;
    if (b.hex[0])
        snprintf(id->program, sizeof(id->program), "build-id %s", b.hex);
    else if (stat("/proc/self/exe", &st) == 0)
        snprintf(id->program, sizeof(id->program), "size %lld mtime %lld",
                 (long long)st.st_size, (long long)st.st_mtime);
    id->addr_main = (uintptr_t)amp_proc.main_fn;
    id->addr_libampi = (uintptr_t)&AMPI_Migrate;
    id->addr_libc = (uintptr_t)&strtol;
}

int amp_ckpt_aslr_off(void)
{
    int p = personality(0xffffffff);
    if (p != -1 && (p & ADDR_NO_RANDOMIZE))
        return 1;
    FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "re");
    int level = -1;
    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = -1;
        fclose(f);
    }
    return level == 0;
}

/* ---- the program copy of a rank (pie) ---- */

uintptr_t amp_pie_slot_base(int slot)
{
    return amp_pie_copy_base(&amp_proc.pie,
                             amp_mem_slot_image(&amp_proc.mem, slot));
}

int amp_ckpt_pie_ranges(uintptr_t base, amp_pie_range_t *out)
{
    const amp_pie_image_t *img = &amp_proc.pie;
    uintptr_t rs = img->relro_start, re = img->relro_end;
    int n = 0;
    if (!img->active)
        return 0;
    for (int i = 0; i < img->nsegments; i++) {
        const amp_pie_segment_t *g = &img->segments[i];
        uintptr_t a = g->start, b = g->start + g->mem_size;
        if (!(g->prot & PROT_WRITE))
            continue;
        if (re > rs && rs < b && re > a) { /* cut RELRO out */
            if (rs > a)
                out[n++] = (amp_pie_range_t){(char *)(base + a), rs - a};
            a = re > a ? re : a;
        }
        if (b > a)
            out[n++] = (amp_pie_range_t){(char *)(base + a), b - a};
    }
    return n;
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

/* ---- a rank revived from its slot ---- */

void amp_ckpt_revive(amp_rank_t *rank, amp_pe_t *pe, void *sp)
{
    int r = rank->world_rank;
    /* What the slot kept that the fresh tables below would overwrite. */
    int next_ctx = rank->next_ctx, idup_blocks = rank->idup_blocks;
    MPI_Errhandler file_errh = rank->file_errh;
    void *tls = rank->thr.tls;
    /* A thread that resumes where the rank stopped, on its new PE (as
     * amp_sched_thread_init, with the saved context instead of a new). */
    memset(&rank->thr, 0, sizeof(rank->thr));
    rank->thr.pe = pe;
    rank->thr.tls = tls;
    rank->thr.state = AMP_THREAD_READY;
    amp_ult_ctx_resume(&rank->thr.ctx, sp,
                       amp_mem_slot_stack(&amp_proc.mem, rank->slot),
                       amp_proc.mem.stack_size);
    rank->thr.owner = rank;
    rank->thr.upper = &rank->ctx;
    memset(&rank->ctx, 0, sizeof(rank->ctx));
    rank->lb.mark = 0;
    rank->lb.acc = 0;
    /* Its MPI objects: fresh tables, refilled by the rank itself when it
     * resumes (mpi/checkpoint.c). */
    if (amp_rank_objects_init(rank) != AMP_OK)
        amp_fatal("out of memory setting up rank %d", r);
    rank->next_ctx = next_ctx;
    rank->idup_blocks = idup_blocks;
    rank->file_errh = file_errh;
    /* libgcc's record of the copy's unwind tables is the old process's:
     * they are registered in this one afresh. */
    const amp_pie_image_t *img = &amp_proc.pie;
    if (rank->pie_base && img->register_frame) {
        memset(rank->pie_frames, 0, sizeof(rank->pie_frames));
        img->register_frame((const void *)(rank->pie_base + img->eh_frame),
                            rank->pie_frames);
    }
    amp_p2p_ep_init(&rank->ep, &amp_proc.world, r, &rank->thr);
    amp_proc.world.eps[r] = &rank->ep;
    amp_proc.ranks[r] = rank;
}
