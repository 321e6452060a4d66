/*
 * The restart side of checkpoint/restart (mpi/checkpoint.h): the process
 * runs without address-space randomization (executed once more at
 * startup), so that a rank's saved stack, whose return addresses point
 * into the program, libampi and the C library, fits the restarted process;
 * +restart DIR reads the manifest, checks that this program, its
 * libraries and the reserved range are where they were, and brings every
 * rank back from its file into its slot, to resume where it stopped.  In a
 * job of several processes each process does so for the ranks start/
 * gives it, whatever number of processes wrote the checkpoint: every
 * process has the program, the libraries and the range at the same
 * addresses.
 *
 * Every problem with the directory ends the process with one line naming
 * the directory and what is wrong, before any of its ranks runs.
 */
#define _GNU_SOURCE 1
#include "mpi/checkpoint.h"
#include "start/start.h"

#include "mem/heap.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

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

void amp_restart_reexec(char **argv, char **envp)
{
    (void)envp; /* environ: what constructors may have set since */
    if (getenv("AMPI_NO_REEXEC"))
        return;
    int p = personality(0xffffffff);
    if (p == -1 || (p & ADDR_NO_RANDOMIZE))
        return;
    if (personality((unsigned long)p | ADDR_NO_RANDOMIZE) == -1)
        return;
    execve("/proc/self/exe", argv, environ);
    personality((unsigned long)p); /* not executed: go on as we are */
}

/* ---- the manifest ---- */

static _Noreturn void bad_dir(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static _Noreturn void bad_dir(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    amp_fatal("+restart %s: %s", amp_proc.opts.restart, text);
}

/* One "key value" line of the manifest into m; 0: unknown or bad. */
static int manifest_line(amp_ckpt_manifest_t *m, const char *key,
                         const char *value)
{
    static const struct {
        const char *key;
        size_t off;
    } u64s[] = {
        {"id", offsetof(amp_ckpt_manifest_t, id)},
        {"range_base", offsetof(amp_ckpt_manifest_t, range_base)},
        {"slot_size", offsetof(amp_ckpt_manifest_t, slot_size)},
        {"stack_size", offsetof(amp_ckpt_manifest_t, stack_size)},
        {"rank_area", offsetof(amp_ckpt_manifest_t, rank_area)},
        {"heap_offset", offsetof(amp_ckpt_manifest_t, heap_offset)},
        {"addr_main", offsetof(amp_ckpt_manifest_t, ident.addr_main)},
        {"addr_libampi", offsetof(amp_ckpt_manifest_t, ident.addr_libampi)},
        {"addr_libc", offsetof(amp_ckpt_manifest_t, ident.addr_libc)},
    };
    if (strcmp(key, "program") == 0) {
        snprintf(m->ident.program, sizeof(m->ident.program), "%s", value);
        return 1;
    }
    char *end;
    errno = 0;
    int *count = strcmp(key, "ranks") == 0       ? &m->nranks
                 : strcmp(key, "processes") == 0 ? &m->nprocs
                 : strcmp(key, "pes") == 0       ? &m->npes
                                                 : NULL;
    if (count) {
        long v = strtol(value, &end, 10);
        if (end == value || *end || errno || v <= 0 || v > 10000000)
            return 0;
        *count = (int)v;
        return 1;
    }
    for (size_t i = 0; i < sizeof(u64s) / sizeof(*u64s); i++) {
        if (strcmp(key, u64s[i].key) != 0)
            continue;
        unsigned long long v =
            strtoull(value, &end, strcmp(key, "id") == 0 ? 16 : 0);
        if (end == value || *end || errno)
            return 0;
        uint64_t u = v;
        memcpy((char *)m + u64s[i].off, &u, sizeof(u));
        return 1;
    }
    return 0;
}

static void read_manifest(const char *dir, amp_ckpt_manifest_t *m)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/manifest", dir);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        bad_dir("no such checkpoint directory");
    FILE *f = fopen(path, "re");
    if (!f)
        bad_dir("cannot read its manifest: %s", strerror(errno));
    char line[512];
    int n = 0, ended = 0;
    memset(m, 0, sizeof(*m));
    while (fgets(line, sizeof(line), f)) {
        n++;
        if (!strchr(line, '\n'))
            bad_dir("the manifest is truncated");
        line[strcspn(line, "\n")] = '\0';
        char *value = strchr(line, ' ');
        if (value)
            *value++ = '\0';
        if (n == 1) {
            if (strcmp(line, AMP_CKPT_MANIFEST_MAGIC) != 0 || !value)
                bad_dir("the manifest is not an AMPI checkpoint's (bad "
                        "magic)");
            m->version = atoi(value);
            if (m->version != AMP_CKPT_VERSION)
                bad_dir("checkpoint format %s; this runtime reads %d", value,
                        AMP_CKPT_VERSION);
        } else if (strcmp(line, "end") == 0) {
            ended = 1;
            break;
        } else if (!value || !manifest_line(m, line, value)) {
            bad_dir("manifest line %d is damaged: '%s'", n, line);
        }
    }
    fclose(f);
    if (n == 0)
        bad_dir("the manifest is empty");
    if (!ended || !m->nranks || !m->slot_size || !m->stack_size ||
        !m->rank_area || !m->heap_offset || !m->ident.program[0])
        bad_dir("the manifest is truncated");
}

static void check_identity(const amp_ckpt_manifest_t *m)
{
    amp_ckpt_ident_t me;
    amp_ckpt_ident(&me);
    if (strcmp(me.program, m->ident.program) != 0)
        bad_dir("written by another program (%s; this one is %s)",
                m->ident.program, me.program);
    if (me.addr_main == m->ident.addr_main &&
        me.addr_libampi == m->ident.addr_libampi &&
        me.addr_libc == m->ident.addr_libc)
        return;
    if (!amp_ckpt_aslr_off())
        bad_dir("address-space randomization is on in this process "
                "(AMPI_NO_REEXEC set?), so the program cannot be loaded "
                "where it was; unset AMPI_NO_REEXEC");
    bad_dir("the program or its libraries are loaded elsewhere than when "
            "the checkpoint was written (main %#llx, was %#llx; libampi "
            "%#llx, was %#llx): libampi or the C library changed, or the "
            "stack size limit (ulimit -s) is not the one it was written "
            "with",
            (unsigned long long)me.addr_main,
            (unsigned long long)m->ident.addr_main,
            (unsigned long long)me.addr_libampi,
            (unsigned long long)m->ident.addr_libampi);
}

void amp_restart_prepare(amp_opts_t *o)
{
    amp_ckpt_manifest_t *m = calloc(1, sizeof(*m));
    if (!m)
        amp_fatal("out of memory reading the checkpoint");
    read_manifest(o->restart, m);
    check_identity(m);
    if (o->vp && o->vp != m->nranks)
        bad_dir("the checkpoint has %d ranks, but +vp asks for %d", m->nranks,
                o->vp);
    o->vp = m->nranks;
    o->stacksize = m->stack_size;
    o->isomalloc_slot = m->slot_size;
    amp_proc.restart = m;
}

void amp_restart_check_layout(void)
{
    const amp_ckpt_manifest_t *m = amp_proc.restart;
    const amp_mem_t *mem = &amp_proc.mem;
    if ((uintptr_t)mem->base != m->range_base)
        bad_dir("the isomalloc range is at %p, not at %#llx as when the "
                "checkpoint was written",
                (void *)mem->base, (unsigned long long)m->range_base);
    if (mem->slot_size != m->slot_size || mem->stack_size != m->stack_size ||
        mem->rank_area_size != m->rank_area ||
        mem->heap_offset != m->heap_offset)
        bad_dir("the ranks' slots are laid out differently (slot %zu bytes, "
                "was %llu; rank area %zu, was %llu)",
                mem->slot_size, (unsigned long long)m->slot_size,
                mem->rank_area_size, (unsigned long long)m->rank_area);
}

/* ---- a rank's file ---- */

typedef struct in {
    int fd;
    int r;
    uint64_t hash;
} in_t;

static void in_read(in_t *in, void *p, size_t n)
{
    char *c = p;
    size_t left = n;
    while (left > 0) {
        ssize_t k = read(in->fd, c, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            bad_dir("rank-%d.ckpt: %s", in->r, strerror(errno));
        if (k == 0)
            bad_dir("rank-%d.ckpt is truncated", in->r);
        c += k;
        left -= (size_t)k;
    }
    in->hash = amp_ckpt_hash(in->hash, p, n);
}

/* Base of rank r's program copy in this process (pie), or 0. */
static uintptr_t pie_base_of(int r)
{
    const amp_pie_image_t *img = &amp_proc.pie;
    return img->active
               ? amp_pie_copy_base(img, amp_mem_slot_image(&amp_proc.mem, r))
               : 0;
}

/* The header's ranges of the rank's program copy, checked against the
 * ones this process computes for it (the same program: the same ranges);
 * their bytes. */
static uint64_t check_pie(const amp_ckpt_rank_hdr_t *h, int r)
{
    amp_pie_range_t want[AMP_START_PIE_MAX_RANGES];
    uintptr_t base = pie_base_of(r);
    int n = amp_start_pie_ranges(base, want);
    uint64_t bytes = 0;
    int ok = h->pie_base == base && h->pie_nranges == (uint32_t)n;
    for (int i = 0; ok && i < n; i++) {
        ok = h->pie[i].addr == (uintptr_t)want[i].addr &&
             h->pie[i].len == want[i].len;
        bytes += want[i].len;
    }
    if (!ok)
        bad_dir("rank-%d.ckpt does not fit the rank's copy of the program "
                "(damaged, or written %s -privatize=pie)",
                r, base ? "without" : "with");
    return bytes;
}

/* The header of rank r's file, checked against this process's slot. */
static void check_header(const amp_ckpt_rank_hdr_t *h, int r, off_t size)
{
    const amp_mem_t *mem = &amp_proc.mem;
    uintptr_t stack = (uintptr_t)amp_mem_slot_stack(mem, r);
    uintptr_t area = (uintptr_t)amp_mem_slot_rank_area(mem, r);
    if (memcmp(h->magic, AMP_CKPT_RANK_MAGIC, sizeof(h->magic)) != 0)
        bad_dir("rank-%d.ckpt is not a rank file of an AMPI checkpoint "
                "(bad magic)",
                r);
    if (h->version != AMP_CKPT_VERSION || h->world_rank != r)
        bad_dir("rank-%d.ckpt holds rank %d, format %u", r, h->world_rank,
                h->version);
    if (h->id != amp_proc.restart->id)
        bad_dir("rank-%d.ckpt belongs to another checkpoint than the "
                "manifest",
                r);
    if (h->area != area || h->area_bytes != mem->rank_area_size ||
        h->sp < stack || h->sp >= area || h->stack_bytes != area - h->sp ||
        h->heap != (uintptr_t)amp_mem_slot_heap(mem, r) ||
        h->heap_extent > h->heap_committed ||
        h->heap_committed > mem->heap_size)
        bad_dir("rank-%d.ckpt does not fit the rank's slot (damaged)", r);
    uint64_t want = sizeof(*h) + h->stack_bytes + h->area_bytes +
                    h->heap_extent + check_pie(h, r) + sizeof(uint64_t);
    if ((uint64_t)size != want)
        bad_dir("rank-%d.ckpt has %lld bytes, not %llu (truncated or "
                "damaged)",
                r, (long long)size, (unsigned long long)want);
}

/* Reads rank r's file into its slot. */
static amp_rank_t *load_rank(int r, void **sp)
{
    amp_mem_t *mem = &amp_proc.mem;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/rank-%d.ckpt", amp_proc.opts.restart, r);
    in_t in = {
        .fd = open(path, O_RDONLY | O_CLOEXEC), .r = r, .hash = AMP_CKPT_FNV0};
    struct stat st;
    if (in.fd < 0 || fstat(in.fd, &st) != 0)
        bad_dir("cannot read rank-%d.ckpt: %s", r, strerror(errno));
    amp_ckpt_rank_hdr_t h;
    in_read(&in, &h, sizeof(h));
    check_header(&h, r, st.st_size);
    if (amp_mem_slot_commit(mem, r) != AMP_OK ||
        amp_heap_restore_commit((void *)(uintptr_t)h.heap, h.heap_committed) !=
            AMP_OK)
        bad_dir("cannot map the memory of rank %d", r);
    /* Its program copy, mapped and relocated as when it was made; its
     * writable ranges then take what they held. */
    if (h.pie_base && amp_start_pie_map(r) != AMP_OK)
        bad_dir("cannot map the copy of the program of rank %d", r);
    in_read(&in, (void *)(uintptr_t)h.sp, h.stack_bytes);
    in_read(&in, (void *)(uintptr_t)h.area, h.area_bytes);
    in_read(&in, (void *)(uintptr_t)h.heap, h.heap_extent);
    for (uint32_t i = 0; i < h.pie_nranges; i++)
        in_read(&in, (void *)(uintptr_t)h.pie[i].addr, h.pie[i].len);
    uint64_t hash = in.hash, saved;
    in_read(&in, &saved, sizeof(saved));
    close(in.fd);
    if (hash != saved)
        bad_dir("rank-%d.ckpt is damaged (checksum mismatch)", r);
    amp_rank_t *rank = (amp_rank_t *)(uintptr_t)h.area;
    if (!amp_heap_restore_check((void *)(uintptr_t)h.heap, mem->heap_size,
                                h.heap_extent, h.heap_committed) ||
        rank->world_rank != r || rank->slot != r ||
        (uintptr_t)rank->heap != h.heap || rank->pie_base != h.pie_base)
        bad_dir("rank-%d.ckpt is damaged (its rank state is inconsistent)", r);
    *sp = (void *)(uintptr_t)h.sp;
    return rank;
}

void amp_restart_revive(amp_rank_t *rank, amp_pe_t *pe, void *sp)
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

void amp_restart_rank(int r, amp_pe_t *pe)
{
    void *sp;
    amp_rank_t *rank = load_rank(r, &sp);
    amp_restart_revive(rank, pe, sp);
    amp_sched_spawn(&rank->thr);
}
