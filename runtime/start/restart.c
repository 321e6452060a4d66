/*
 * The process's side of a restart (rank/checkpoint.h; each rank's file is
 * rank/restart.c's): the process
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
#include "rank/checkpoint.h"
#include "rank/slot.h"
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
        amp_restart_fail("no such checkpoint directory");
    FILE *f = fopen(path, "re");
    if (!f)
        amp_restart_fail("cannot read its manifest: %s", strerror(errno));
    char line[512];
    int n = 0, ended = 0;
    memset(m, 0, sizeof(*m));
    while (fgets(line, sizeof(line), f)) {
        n++;
        if (!strchr(line, '\n'))
            amp_restart_fail("the manifest is truncated");
        line[strcspn(line, "\n")] = '\0';
        char *value = strchr(line, ' ');
        if (value)
            *value++ = '\0';
        if (n == 1) {
            if (strcmp(line, AMP_CKPT_MANIFEST_MAGIC) != 0 || !value)
                amp_restart_fail(
                    "the manifest is not an AMPI checkpoint's (bad "
                    "magic)");
            m->version = atoi(value);
            if (m->version != AMP_CKPT_VERSION)
                amp_restart_fail("checkpoint format %s; this runtime reads %d",
                                 value, AMP_CKPT_VERSION);
        } else if (strcmp(line, "end") == 0) {
            ended = 1;
            break;
        } else if (!value || !manifest_line(m, line, value)) {
            amp_restart_fail("manifest line %d is damaged: '%s'", n, line);
        }
    }
    fclose(f);
    if (n == 0)
        amp_restart_fail("the manifest is empty");
    /* heap_offset is 0 without a program copy (mem/mem.h). */
    if (!ended || !m->nranks || !m->slot_size || !m->stack_size ||
        !m->rank_area || !m->ident.program[0])
        amp_restart_fail("the manifest is truncated");
}

static void check_identity(const amp_ckpt_manifest_t *m)
{
    amp_ckpt_ident_t me;
    amp_ckpt_ident(&me);
    if (strcmp(me.program, m->ident.program) != 0)
        amp_restart_fail("written by another program (%s; this one is %s)",
                         m->ident.program, me.program);
    if (me.addr_main == m->ident.addr_main &&
        me.addr_libampi == m->ident.addr_libampi &&
        me.addr_libc == m->ident.addr_libc)
        return;
    if (!amp_ckpt_aslr_off())
        amp_restart_fail(
            "address-space randomization is on in this process "
            "(AMPI_NO_REEXEC set?), so the program cannot be loaded "
            "where it was; unset AMPI_NO_REEXEC");
    amp_restart_fail(
        "the program or its libraries are loaded elsewhere than when "
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
        amp_restart_fail("the checkpoint has %d ranks, but +vp asks for %d",
                         m->nranks, o->vp);
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
        amp_restart_fail(
            "the isomalloc range is at %p, not at %#llx as when the "
            "checkpoint was written",
            (void *)mem->base, (unsigned long long)m->range_base);
    if (mem->slot_size != m->slot_size || mem->stack_size != m->stack_size ||
        mem->rank_area_size != m->rank_area ||
        mem->heap_offset != m->heap_offset)
        amp_restart_fail(
            "the ranks' slots are laid out differently (slot %zu bytes, "
            "was %llu; rank area %zu, was %llu)",
            mem->slot_size, (unsigned long long)m->slot_size,
            mem->rank_area_size, (unsigned long long)m->rank_area);
}
