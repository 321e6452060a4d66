/*
 * A rank's life in its slot (slot.h): created, stopped and described,
 * revived from a copy; and what checkpoints (checkpoint.c, read back by
 * start/restart.c) and moves to another process (move.c) both need of the
 * process: the identity that must match where a rank comes back, and
 * addresses between the program copies (pie).
 */
#define _GNU_SOURCE 1
#include "rank/slot.h"
#include "rank/checkpoint.h"
#include "mpi/impl.h"

#include "base/sanitize.h"
#include "mem/heap.h"

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
    /* Where libampi's code lies: the address of this function. */
    id->addr_libampi = (uintptr_t)&amp_ckpt_ident;
    id->addr_libc = (uintptr_t)&strtol;
}

static int ask_aslr_off(void)
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

/* Asked once a process: every rank of a checkpoint asks (four system
 * calls each). */
int amp_ckpt_aslr_off(void)
{
    int known = atomic_load_explicit(&amp_proc.aslr_off, memory_order_relaxed);
    if (known)
        return known == 1;
    int off = ask_aslr_off();
    atomic_store_explicit(&amp_proc.aslr_off, off ? 1 : 2,
                          memory_order_relaxed);
    return off;
}

/* ---- the program copy of a rank (pie) ---- */

/* The writable part of the program copy at base, less its RELRO range
 * (which amp_pie_copy_map relocates to the same contents in any process):
 * at most 2 * AMP_PIE_MAX_SEGMENTS ranges into out; their count (0 without
 * pie). */
static int pie_ranges(uintptr_t base, amp_slot_range_t *out)
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
                out[n++] = (amp_slot_range_t){(char *)(base + a), rs - a};
            a = re > a ? re : a;
        }
        if (b > a)
            out[n++] = (amp_slot_range_t){(char *)(base + a), b - a};
    }
    return n;
}

/* ---- the description of a stopped rank ---- */

void *amp_slot_tls_area(int slot)
{
    return (char *)amp_mem_slot_rank_area(&amp_proc.mem, slot) +
           AMP_ROUND_UP(sizeof(amp_rank_t), 64);
}

/* The heap's ranges: none before the rank's first allocation; two when a
 * part of it does not travel. */
static int heap_ranges(const amp_slot_desc_t *d, amp_slot_range_t *out)
{
    char *heap = (char *)(uintptr_t)d->heap;
    if (!d->heap_extent)
        return 0;
    if (d->heap_gap_end <= d->heap_gap) {
        out[0] = (amp_slot_range_t){heap, (size_t)d->heap_extent};
        return 1;
    }
    out[0] = (amp_slot_range_t){heap, (size_t)d->heap_gap};
    if (d->heap_gap_end == d->heap_extent)
        return 1;
    out[1] = (amp_slot_range_t){heap + d->heap_gap_end,
                                (size_t)(d->heap_extent - d->heap_gap_end)};
    return 2;
}

int amp_slot_pie_first(const amp_slot_desc_t *d)
{
    amp_slot_range_t heap[2];
    return 1 + heap_ranges(d, heap);
}

int amp_slot_ranges(const amp_slot_desc_t *d, amp_slot_range_t *out)
{
    out[0] = (amp_slot_range_t){(char *)(uintptr_t)d->sp,
                                (size_t)(d->stack_bytes + d->area_bytes)};
    int n = 1 + heap_ranges(d, out + 1);
    return n + pie_ranges((uintptr_t)d->pie_base, out + n);
}

/* Rank's description, stopped at sp. */
static void describe(const amp_rank_t *rank, void *sp, amp_slot_desc_t *d)
{
    const amp_mem_t *mem = &amp_proc.mem;
    char *area = amp_mem_slot_rank_area(mem, rank->slot);
    amp_heap_t *heap = rank->heap; /* NULL: the rank allocated nothing */
    size_t gap = 0, gap_end = 0;
    if (heap) {
        amp_heap_trim(heap); /* its kept free pages go back first */
        amp_heap_unused(heap, &gap, &gap_end);
    }
    *d =
        (amp_slot_desc_t){.sp = (uintptr_t)sp,
                          .stack_bytes = (uintptr_t)area - (uintptr_t)sp,
                          .area = (uintptr_t)area,
                          .area_bytes = mem->rank_area_size,
                          .heap = (uintptr_t)amp_mem_slot_heap(mem, rank->slot),
                          .heap_extent = heap ? amp_heap_extent(heap) : 0,
                          .heap_committed = heap ? amp_heap_committed(heap) : 0,
                          .heap_gap = gap,
                          .heap_gap_end = gap_end,
                          .pie_base = rank->pie_base};
}

amp_slot_fit_t amp_slot_fit(const amp_slot_desc_t *d, int r)
{
    const amp_mem_t *mem = &amp_proc.mem;
    if (r < 0 || r >= amp_proc.nranks)
        return AMP_SLOT_MISFIT;
    uintptr_t stack = (uintptr_t)amp_mem_slot_stack(mem, r);
    uintptr_t area = (uintptr_t)amp_mem_slot_rank_area(mem, r);
    if (d->area != area || d->area_bytes != mem->rank_area_size ||
        d->sp < stack || d->sp >= area || d->stack_bytes != area - d->sp ||
        d->heap != (uintptr_t)amp_mem_slot_heap(mem, r) ||
        d->heap_extent > d->heap_committed ||
        (d->heap_gap_end > d->heap_gap &&
         (d->heap_gap == 0 || d->heap_gap_end > d->heap_extent)) ||
        d->heap_committed > mem->heap_size)
        return AMP_SLOT_MISFIT;
    uintptr_t base = amp_proc.pie.active ? amp_pie_slot_base(r) : 0;
    return d->pie_base == base ? AMP_SLOT_FITS : AMP_SLOT_MISFIT_PIE;
}

amp_status_t amp_slot_prepare(const amp_slot_desc_t *d, int r,
                              amp_move_map_fn_t map)
{
    amp_status_t st = amp_mem_slot_commit(&amp_proc.mem, r);
    return st == AMP_OK ? amp_slot_prepare_kept(d, r, map, 0) : st;
}

/* Only the system calls the kept slot still needs: each call is a trip
 * into the kernel that takes the process's address-space lock for
 * writing, for pages whose access did not change. */
amp_status_t amp_slot_prepare_kept(const amp_slot_desc_t *d, int r,
                                   amp_move_map_fn_t map, size_t heap_open)
{
    amp_status_t st = AMP_OK;
    if (d->heap_committed > heap_open)
        st = amp_heap_restore_commit((void *)(uintptr_t)d->heap,
                                     d->heap_committed);
    if (st == AMP_OK && d->pie_base)
        st = map(r);
    return st;
}

/* ---- stopping a rank on a writer's stack ---- */

/* On the writer's stack, the rank stopped: its description, then fn. */
static void stopped(void *arg)
{
    amp_slot_stop_t *s = arg;
    amp_rank_t *rank = s->rank;
    describe(rank, amp_sched_saved_sp(&rank->thr), &s->desc);
    s->nranges = amp_slot_ranges(&s->desc, s->ranges);
    /* Its ranges are copied whole, what AddressSanitizer marked in them
     * too: the red zones of the stack's frames and between the globals of
     * the program copy. */
    for (int i = 0; i < s->nranges; i++)
        amp_asan_unpoison(s->ranges[i].addr, s->ranges[i].len);
    s->fn(s);
    amp_fatal("rank %d: the writer of its slot returned", rank->world_rank);
}

int amp_slot_stop(amp_rank_t *rank, void *stack, size_t size,
                  amp_slot_stop_fn_t fn, void *arg)
{
    amp_slot_stop_t s = {.rank = rank, .fn = fn, .arg = arg};
    /* Nothing may allocate in the rank's heap while it is copied: the
     * writer's calls and the scheduler's hooks it runs go to the C
     * library.  The count in a copy is amp_slot_revive's. */
    s.sys_alloc = rank->sys_alloc++;
    amp_sched_aside(stack, size, stopped, &s);
    amp_rank_t *back = amp_rank_self();
    back->sys_alloc = s.sys_alloc;
    return s.here;
}

void amp_slot_resume(amp_slot_stop_t *s)
{
    s->here = 1;
    amp_sched_aside_end();
}

void amp_slot_gone(int r)
{
    amp_p2p_ep_detach(&amp_proc.world, r);
    amp_proc.ranks[r] = NULL;
    amp_proc.nhere--;
}

/* Idle PEs run other PEs' ranks (stealing, unless +nosteal) once the
 * process holds more ranks than PEs; with one rank a PE there is nothing
 * to take, and the calls skip stealing's bookkeeping. */
static void steal_when_crowded(void)
{
    amp_sched_t *sched = &amp_proc.sched;
    if (amp_proc.opts.steal && !sched->steal && amp_proc.nhere > sched->npes)
        amp_sched_set_steal(sched, 1, amp_proc.opts.steal_idle_ns);
}

/* ---- creating and reviving ---- */

/* The top of a new rank's stack that its first calls touch (MPI_Init's
 * frames and the scheduler's), backed at once with its state. */
#define AMP_SLOT_FIRST_STACK (4u << 10)

/* What a rank created or revived has of this process: its thread's owner,
 * its endpoint in the world's table, its place in the rank table. */
static void attach(amp_rank_t *rank)
{
    int r = rank->world_rank;
    rank->thr.owner = rank;
    rank->thr.upper = &rank->ctx;
    rank->thr.trace_id = r + 1; /* +trace: its location */
    rank->thr.trace_why = &rank->call;
    amp_p2p_ep_init(&rank->ep, &amp_proc.world, r, &rank->thr);
    amp_p2p_ep_attach(&rank->ep);
    amp_proc.ranks[r] = rank;
    amp_proc.nhere++;
    steal_when_crowded();
}

void amp_slot_create_ahead(int lo, int hi, int nthreads)
{
    /* Beside each slot, the first chunks of its rank's tables of MPI
     * objects (mpi/proc.h): they would take each rank its own allocations
     * of the C library, made and first touched one by one. */
    amp_mem_slots_prepare(&amp_proc.mem, lo, hi, AMP_SLOT_FIRST_STACK,
                          amp_rank_objects_space(), nthreads);
}

amp_rank_t *amp_slot_create(int r, amp_pe_t *pe, amp_move_map_fn_t map,
                            amp_ult_entry_fn_t entry)
{
    amp_mem_t *mem = &amp_proc.mem;
    if (amp_mem_slot_commit(mem, r) != AMP_OK)
        amp_fatal("cannot set up rank %d (the line above says why)", r);
    amp_mem_slot_populate(mem, r, AMP_SLOT_FIRST_STACK);
    amp_rank_t *rank = amp_mem_slot_rank_area(mem, r);
    memset(rank, 0, sizeof(*rank)); /* its heap comes at its first malloc */
    /* The rank's copy of the static TLS block follows its struct. */
    void *tls = amp_tls_copy_init(&amp_proc.tls, amp_slot_tls_area(r));
    rank->world_rank = r;
    rank->slot = r;
    if (amp_proc.pie.active) {
        if (map(r) != AMP_OK)
            amp_fatal("rank %d: cannot map its copy of the program; try "
                      "fewer ranks (+vp)",
                      r);
        rank->pie_base = amp_pie_slot_base(r);
    }
    if (amp_rank_objects_init(rank, amp_mem_slot_side(mem, r)) != AMP_OK)
        amp_fatal("out of memory setting up rank %d", r);
    amp_sched_thread_init(&rank->thr, pe, amp_mem_slot_stack(mem, r),
                          mem->stack_size, tls, entry, rank);
    attach(rank);
    return rank;
}

amp_rank_t *amp_slot_revive(const amp_slot_desc_t *d, int r, amp_pe_t *pe)
{
    amp_rank_t *rank = (amp_rank_t *)(uintptr_t)d->area;
    /* What the slot kept that the fresh tables below would overwrite. */
    int next_ctx = rank->next_ctx, idup_blocks = rank->idup_blocks;
    MPI_Errhandler file_errh = rank->file_errh;
    /* A thread that resumes where the rank stopped, on its new PE. */
    amp_sched_thread_resume(&rank->thr, pe, (void *)(uintptr_t)d->sp,
                            amp_mem_slot_stack(&amp_proc.mem, r),
                            amp_proc.mem.stack_size, rank->thr.tls);
    /* Stopped (amp_slot_stop): its allocations go to the C library until
     * it resumes, whatever count the copy was taken with. */
    rank->sys_alloc = 1;
    memset(&rank->ctx, 0, sizeof(rank->ctx));
    rank->lb.mark = 0;
    rank->lb.acc = 0;
    /* Its MPI objects: fresh tables, refilled by the rank itself when it
     * resumes (rank/checkpoint.c). */
    if (amp_rank_objects_init(rank, NULL) != AMP_OK)
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
    attach(rank);
    return rank;
}
