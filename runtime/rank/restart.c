/*
 * A rank brought back from its checkpoint file (rank/checkpoint.h): the
 * file's header checked against the rank's slot here, the slot prepared
 * (its program copy mapped as when it was written), the ranges read into
 * it, the checksum compared, and the rank revived on its PE.  The process's
 * part of a restart (no address-space randomization, the manifest) is
 * start/restart.c's.  Every problem ends the process with one line naming
 * the directory (amp_restart_fail).
 */
#include "rank/checkpoint.h"
#include "rank/slot.h"
#include "mpi/impl.h"

#include "mem/heap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void amp_restart_fail(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    amp_fatal("+restart %s: %s", amp_proc.opts.restart, text);
}

/* ---- a rank's file ---- */

typedef struct in {
    int fd;
    int r;
    amp_ckpt_sum_t sum;
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
            amp_restart_fail("rank-%d.ckpt: %s", in->r, strerror(errno));
        if (k == 0)
            amp_restart_fail("rank-%d.ckpt is truncated", in->r);
        c += k;
        left -= (size_t)k;
    }
    amp_ckpt_sum_add(&in->sum, p, n);
}

/* The header of rank r's file, checked against this process's slot and
 * the file's size; the ranges its data fills, as slot.h computes them
 * here from the header's description. */
static int check_header(const amp_ckpt_rank_hdr_t *h, int r, off_t size,
                        amp_slot_range_t *ranges)
{
    if (memcmp(h->magic, AMP_CKPT_RANK_MAGIC, sizeof(h->magic)) != 0)
        amp_restart_fail(
            "rank-%d.ckpt is not a rank file of an AMPI checkpoint "
            "(bad magic)",
            r);
    if (h->version != AMP_CKPT_VERSION || h->world_rank != r)
        amp_restart_fail("rank-%d.ckpt holds rank %d, format %u", r,
                         h->world_rank, h->version);
    if (h->id != amp_proc.restart->id)
        amp_restart_fail("rank-%d.ckpt belongs to another checkpoint than the "
                         "manifest",
                         r);
    amp_slot_fit_t fit = amp_slot_fit(&h->slot, r);
    if (fit == AMP_SLOT_MISFIT)
        amp_restart_fail("rank-%d.ckpt does not fit the rank's slot (damaged)",
                         r);
    int n = amp_slot_ranges(&h->slot, ranges);
    uint64_t want = sizeof(*h) + sizeof(uint64_t);
    int first = amp_slot_pie_first(&h->slot);
    int ok = fit == AMP_SLOT_FITS && h->pie_nranges == (uint32_t)(n - first);
    for (int i = 0; i < n; i++) {
        want += ranges[i].len;
        ok = ok && (i < first ||
                    (h->pie[i - first].addr == (uintptr_t)ranges[i].addr &&
                     h->pie[i - first].len == ranges[i].len));
    }
    if (!ok)
        amp_restart_fail(
            "rank-%d.ckpt does not fit the rank's copy of the program "
            "(damaged, or written %s -privatize=pie)",
            r, amp_proc.pie.active ? "without" : "with");
    if ((uint64_t)size != want)
        amp_restart_fail("rank-%d.ckpt has %lld bytes, not %llu (truncated or "
                         "damaged)",
                         r, (long long)size, (unsigned long long)want);
    return n;
}

/* Reads rank r's file into its slot; its description into d. */
static void load_rank(int r, amp_slot_desc_t *d, amp_move_map_fn_t map)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/rank-%d.ckpt", amp_proc.opts.restart, r);
    in_t in = {.fd = open(path, O_RDONLY | O_CLOEXEC), .r = r};
    amp_ckpt_sum_init(&in.sum);
    struct stat st;
    if (in.fd < 0 || fstat(in.fd, &st) != 0)
        amp_restart_fail("cannot read rank-%d.ckpt: %s", r, strerror(errno));
    amp_ckpt_rank_hdr_t h;
    amp_slot_range_t ranges[AMP_SLOT_MAX_RANGES];
    in_read(&in, &h, sizeof(h));
    int n = check_header(&h, r, st.st_size, ranges);
    /* Its slot, and its program copy mapped and relocated as when it was
     * made; the ranges then take what they held. */
    if (amp_slot_prepare(&h.slot, r, map) != AMP_OK)
        amp_restart_fail("cannot map the memory of rank %d", r);
    for (int i = 0; i < n; i++)
        in_read(&in, ranges[i].addr, ranges[i].len);
    uint64_t hash = amp_ckpt_sum_end(&in.sum), saved;
    in_read(&in, &saved, sizeof(saved));
    close(in.fd);
    if (hash != saved)
        amp_restart_fail("rank-%d.ckpt is damaged (checksum mismatch)", r);
    const amp_rank_t *rank = (const amp_rank_t *)(uintptr_t)h.slot.area;
    /* A rank that allocated nothing has no heap yet. */
    int heap_ok =
        h.slot.heap_extent
            ? amp_heap_restore_check((void *)(uintptr_t)h.slot.heap,
                                     amp_proc.mem.heap_size, h.slot.heap_extent,
                                     h.slot.heap_committed) &&
                  (uintptr_t)rank->heap == h.slot.heap
            : !rank->heap && !h.slot.heap_committed;
    if (!heap_ok || rank->world_rank != r || rank->slot != r ||
        rank->pie_base != h.slot.pie_base)
        amp_restart_fail(
            "rank-%d.ckpt is damaged (its rank state is inconsistent)", r);
    *d = h.slot;
}

void amp_restart_rank(int r, amp_pe_t *pe, amp_move_map_fn_t map)
{
    amp_slot_desc_t d;
    load_rank(r, &d, map);
    amp_sched_spawn(&amp_slot_revive(&d, r, pe)->thr);
}
