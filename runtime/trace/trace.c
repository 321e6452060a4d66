/*
 * The recording side of +trace: per-PE buffers, the flusher thread, the
 * raw files (trace.h).  otf2.c turns the raw files into the archive.
 *
 * A PE's raw file DIR/raw/p<process>-pe<PE>.bin is its records in the
 * order it made them; p<process>-pe<PE>.names lists "id name" for the
 * names its records refer to; p<process>.clock holds the process's cycle
 * counter and CLOCK_REALTIME (ns) at the start and at the end (while the
 * job runs: at the flusher's last look), from which the converter turns
 * cycles into time; process 0's "job" names the job's processes and
 * ranks.  The flusher rewrites the names and the clock as it goes, so the
 * raw files of a process that is killed can still be read.
 */
#include "trace/trace.h"
#include "trace/raw.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How long the flusher sleeps at most between looks at the PEs' halves
 * (a PE that fills one wakes it at once). */
#define FLUSH_NAP_NS 20000000L

int64_t amp_trace_realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static amp_status_t make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return AMP_OK;
    amp_log_error("+trace: cannot make the directory %s: %s", path,
                  strerror(errno));
    return AMP_ERR_SYS;
}

/* Writes size bytes at p to fd, whatever write takes at a time. */
static amp_status_t write_all(int fd, const void *p, size_t size)
{
    const char *at = p;
    while (size) {
        ssize_t n = write(fd, at, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return AMP_ERR_SYS;
        at += n;
        size -= (size_t)n;
    }
    return AMP_OK;
}

static void pe_write(amp_trace_pe_t *tp, int h, size_t n)
{
    if (write_all(tp->fd, tp->half[h], n * sizeof(amp_trace_rec_t)) != AMP_OK)
        __atomic_fetch_add(&tp->dropped, n, __ATOMIC_RELAXED);
}

static long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Writes a small file whole: into path.tmp, then renamed over path, so a
 * reader (or a process killed meanwhile) never sees half of it. */
static amp_status_t write_small(const char *path, const char *text)
{
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return AMP_ERR_SYS;
    amp_status_t st = write_all(fd, text, strlen(text));
    if (close(fd) != 0)
        st = AMP_ERR_SYS;
    if (st == AMP_OK && rename(tmp, path) != 0)
        st = AMP_ERR_SYS;
    return st;
}

/* PE tp's names so far (a PE adds names while the flusher reads them:
 * each is published before the records that use it). */
static amp_status_t write_names(const amp_trace_t *t, amp_trace_pe_t *tp)
{
    char path[4096];
    amp_trace_raw_path(path, sizeof(path), t->dir, t->proc, tp->id, "names");
    size_t cap = 64 + (size_t)AMP_TRACE_NAMES * 80, len = 0;
    char *text = malloc(cap);
    if (!text)
        return AMP_ERR_NOMEM;
    for (int s = 0; s < AMP_TRACE_NAMES; s++) {
        const char *name = __atomic_load_n(&tp->names[s], __ATOMIC_ACQUIRE);
        if (name && len + strlen(name) + 16 < cap)
            len +=
                (size_t)snprintf(text + len, cap - len, "%d %s\n", s + 1, name);
    }
    snprintf(text + len, cap - len, "dropped %" PRIu64 "\n",
             __atomic_load_n(&tp->dropped, __ATOMIC_RELAXED));
    amp_status_t st = write_small(path, text);
    free(text);
    return st;
}

static amp_status_t write_clock(amp_trace_t *t)
{
    char path[4096], text[160];
    snprintf(path, sizeof(path), "%s/raw/p%d.clock", t->dir, t->proc);
    uint64_t c1 = amp_trace_now();
    int64_t ns1 = amp_trace_realtime();
    snprintf(text, sizeof(text),
             "%" PRIu64 " %" PRId64 " %" PRIu64 " %" PRId64 " %d\n", t->c0,
             t->ns0, c1, ns1, t->npes);
    t->clock_written = mono_ns();
    return write_small(path, text);
}

/* After the flusher wrote records of tp: its names, if it has new ones. */
static void names_current(amp_trace_t *t, amp_trace_pe_t *tp)
{
    int n = __atomic_load_n(&tp->nnames, __ATOMIC_ACQUIRE);
    if (n != tp->names_written && write_names(t, tp) == AMP_OK)
        tp->names_written = n;
}

/* Whether a PE has handed over a half not yet written. */
static int any_full(amp_trace_t *t)
{
    for (int i = 0; i < t->npes; i++)
        if (atomic_load(&t->pes[i]->full[0]) ||
            atomic_load(&t->pes[i]->full[1]))
            return 1;
    return 0;
}

static void last_words(amp_trace_t *t);

/* The flusher: writes every half a PE handed over, until told to stop,
 * and keeps the names and the clock of what it wrote readable.  The
 * terminating signals go to other threads (amp_trace_signal waits for it). */
static void *flusher_main(void *arg)
{
    amp_trace_t *t = arg;
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigaddset(&term, SIGINT);
    pthread_sigmask(SIG_BLOCK, &term, NULL);
    for (;;) {
        int stop = atomic_load(&t->stop), wrote = 0;
        for (int i = 0; i < t->npes; i++) {
            amp_trace_pe_t *tp = t->pes[i];
            for (int h = 0; h < 2; h++) {
                size_t n =
                    atomic_load_explicit(&tp->full[h], memory_order_acquire);
                if (!n)
                    continue;
                pe_write(tp, h, n);
                atomic_store_explicit(&tp->full[h], 0, memory_order_release);
                names_current(t, tp);
                wrote = 1;
            }
        }
        if (stop)
            return NULL;
        if (atomic_load(&t->dying) == 1) {
            last_words(t);
            return NULL;
        }
        if (wrote || mono_ns() - t->clock_written > AMP_TRACE_CLOCK_NS)
            (void)write_clock(t);
        int seen = atomic_load(&t->kick);
        if (!any_full(t)) {
            struct timespec nap = {0, FLUSH_NAP_NS};
            syscall(SYS_futex, &t->kick, FUTEX_WAIT_PRIVATE, seen, &nap, NULL,
                    0);
        }
    }
}

/* Whether the flusher takes half h within AMP_TRACE_WAIT_NS, the PE
 * yielding its core meanwhile; once it did not, the PE no longer waits
 * until a half is free again. */
static int flusher_caught_up(amp_trace_pe_t *tp, int h)
{
    if (tp->behind)
        return 0;
    long until = mono_ns() + AMP_TRACE_WAIT_NS;
    while (atomic_load_explicit(&tp->full[h], memory_order_acquire)) {
        if (mono_ns() > until) {
            tp->behind = 1;
            return 0;
        }
        sched_yield();
    }
    return 1;
}

amp_trace_rec_t *amp_trace_swap(amp_trace_pe_t *tp)
{
    int other = !tp->filling;
    if (atomic_load_explicit(&tp->full[other], memory_order_acquire) &&
        !flusher_caught_up(tp, other)) {
        /* the flusher is behind: keep the half, lose this */
        __atomic_fetch_add(&tp->dropped, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    tp->behind = 0;
    atomic_store_explicit(&tp->full[tp->filling], AMP_TRACE_HALF_RECS,
                          memory_order_release);
    amp_trace_t *t = tp->trace; /* wake the flusher: once per half */
    atomic_fetch_add(&t->kick, 1);
    syscall(SYS_futex, &t->kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    tp->filling = other;
    tp->cur = tp->half[other];
    tp->end = tp->cur + AMP_TRACE_HALF_RECS;
    return tp->cur;
}

/* A pointer's slot in the names table: open addressing. */
static unsigned name_slot(const char *name)
{
    uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 40) % AMP_TRACE_NAMES;
}

int amp_trace_name_id(amp_trace_pe_t *tp, const char *name)
{
    if (!name)
        return 0;
    unsigned s = name_slot(name);
    for (int k = 0; k < AMP_TRACE_NAMES; k++) {
        if (tp->names[s] == name)
            return (int)s + 1;
        if (!tp->names[s]) {
            if (tp->nnames == AMP_TRACE_NAMES - 1)
                return 0; /* keep one slot free: lookups end */
            /* Published for the flusher (write_names) before any record
             * refers to it. */
            __atomic_store_n(&tp->names[s], name, __ATOMIC_RELEASE);
            __atomic_store_n(&tp->nnames, tp->nnames + 1, __ATOMIC_RELEASE);
            return (int)s + 1;
        }
        s = (s + 1) % AMP_TRACE_NAMES;
    }
    return 0;
}

static amp_status_t pe_init(amp_trace_t *t, int id)
{
    amp_trace_pe_t *tp = calloc(1, sizeof(*tp));
    if (!tp)
        return AMP_ERR_NOMEM;
    t->pes[id] = tp;
    tp->id = id;
    tp->trace = t;
    tp->fd = -1;
    for (int h = 0; h < 2; h++) {
        tp->half[h] = malloc(AMP_TRACE_HALF_RECS * sizeof(amp_trace_rec_t));
        if (!tp->half[h])
            return AMP_ERR_NOMEM;
    }
    tp->cur = tp->half[0];
    tp->end = tp->cur + AMP_TRACE_HALF_RECS;
    char path[4096];
    amp_trace_raw_path(path, sizeof(path), t->dir, t->proc, id, "bin");
    tp->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (tp->fd < 0) {
        amp_log_error("+trace: cannot create %s: %s", path, strerror(errno));
        return AMP_ERR_SYS;
    }
    return AMP_OK;
}

static void pe_free(amp_trace_pe_t *tp)
{
    if (!tp)
        return;
    if (tp->fd >= 0)
        close(tp->fd);
    free(tp->half[0]);
    free(tp->half[1]);
    free(tp);
}

/* Process 0's DIR/raw/job: the job's processes and ranks, for a
 * conversion after the job (amp_trace_convert_dir). */
static amp_status_t write_job(const amp_trace_t *t)
{
    char path[4096], text[64];
    snprintf(path, sizeof(path), "%s/raw/job", t->dir);
    snprintf(text, sizeof(text), "%d %d\n", t->nprocs, t->nranks);
    return write_small(path, text);
}

amp_status_t amp_trace_init(amp_trace_t *t, const char *dir, int proc,
                            int nprocs, int nranks, int npes)
{
    memset(t, 0, sizeof(*t));
    t->proc = proc;
    t->nprocs = nprocs;
    t->nranks = nranks;
    t->npes = npes;
    t->dir = strdup(dir);
    t->pes = calloc((size_t)npes, sizeof(*t->pes));
    if (!t->dir || !t->pes)
        goto err_nomem;
    char raw[4096];
    snprintf(raw, sizeof(raw), "%s/raw", dir);
    if (make_dir(dir) != AMP_OK || make_dir(raw) != AMP_OK)
        goto err_free;
    for (int i = 0; i < npes; i++) {
        amp_status_t st = pe_init(t, i);
        if (st == AMP_ERR_NOMEM)
            goto err_nomem;
        if (st != AMP_OK)
            goto err_free;
    }
    t->c0 = amp_trace_now();
    t->ns0 = amp_trace_realtime();
    if (proc == 0 && write_job(t) != AMP_OK) {
        amp_log_error("+trace: cannot write %s/raw/job: %s", dir,
                      strerror(errno));
        goto err_free;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, flusher_main, t) != 0) {
        amp_log_error("+trace: cannot start the thread that writes the "
                      "trace");
        goto err_free;
    }
    t->flusher = (unsigned long)th;
    t->flusher_on = 1;
    return AMP_OK;
err_nomem:
    amp_log_error("+trace: out of memory for the trace buffers");
err_free:
    for (int i = 0; t->pes && i < npes; i++)
        pe_free(t->pes[i]);
    free(t->pes);
    free(t->dir);
    memset(t, 0, sizeof(*t));
    return AMP_ERR_SYS;
}

/* What the PEs left in their buffers, once the flusher has stopped, less
 * the last `spare` records (a PE may still be writing the last one). */
static void pe_drain(amp_trace_pe_t *tp, size_t spare)
{
    size_t n = (size_t)(tp->cur - tp->half[tp->filling]);
    if (n > spare)
        pe_write(tp, tp->filling, n - spare);
}

static void stop_flusher(amp_trace_t *t)
{
    atomic_store(&t->stop, 1);
    atomic_fetch_add(&t->kick, 1);
    syscall(SYS_futex, &t->kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    if (t->flusher_on)
        pthread_join((pthread_t)t->flusher, NULL);
    t->flusher_on = 0;
}

/* This process's share: every record on disk (less spare a PE), the
 * names, the clock. */
static amp_status_t write_rest(amp_trace_t *t, size_t spare)
{
    amp_status_t st = AMP_OK;
    for (int i = 0; i < t->npes; i++) {
        pe_drain(t->pes[i], spare);
        if (write_names(t, t->pes[i]) != AMP_OK)
            st = AMP_ERR_SYS;
    }
    if (write_clock(t) != AMP_OK)
        st = AMP_ERR_SYS;
    if (st != AMP_OK)
        amp_log_error("+trace: cannot write the raw trace under %s/raw: %s",
                      t->dir, strerror(errno));
    return st;
}

static amp_status_t close_raw(amp_trace_t *t)
{
    stop_flusher(t);
    amp_status_t st = write_rest(t, 0);
    for (int i = 0; i < t->npes; i++) {
        pe_free(t->pes[i]);
        t->pes[i] = NULL;
    }
    return st;
}

/* The flusher, asked by amp_trace_signal: the rest, then it says so. */
static void last_words(amp_trace_t *t)
{
    (void)write_rest(t, 1);
    atomic_store(&t->dying, 2);
}

int amp_trace_signal(amp_trace_t *t)
{
    int idle = 0;
    if (!t->dir || !t->flusher_on || atomic_load(&t->abandoned) ||
        !atomic_compare_exchange_strong(&t->dying, &idle, 1))
        return 0;
    atomic_fetch_add(&t->kick, 1);
    syscall(SYS_futex, &t->kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < AMP_TRACE_SIGNAL_WAIT_MS; i++) {
        if (atomic_load(&t->dying) == 2)
            return 1;
        nanosleep(&ms, NULL);
    }
    return atomic_load(&t->dying) == 2;
}

void amp_trace_abandon(amp_trace_t *t)
{
    if (!t->dir || !t->pes || atomic_exchange(&t->abandoned, 1))
        return;
    stop_flusher(t);
    if (write_rest(t, 1) != AMP_OK)
        return;
    if (t->nprocs == 1) {
        if (amp_trace_convert(t->dir, 1, t->nranks) == AMP_OK)
            amp_log_error(
                "+trace: the run did not end normally; %s/traces.otf2 "
                "has what was recorded until then",
                t->dir);
        return;
    }
    amp_log_error("+trace: the job did not end normally; what process %d "
                  "recorded is under %s/raw: `ampitrace %s` makes the "
                  "archive of every process's records once the job is over",
                  t->proc, t->dir, t->dir);
}

amp_status_t amp_trace_finish(amp_trace_t *t, amp_boot_t *boot)
{
    amp_status_t st = close_raw(t);
    /* Every process's raw files are complete before process 0 reads. */
    amp_status_t fst = amp_boot_fence(boot);
    if (st == AMP_OK && fst != AMP_OK)
        st = fst;
    if (st == AMP_OK && t->proc == 0)
        st = amp_trace_convert(t->dir, t->nprocs, t->nranks);
    free(t->pes);
    free(t->dir);
    memset(t, 0, sizeof(*t));
    return st;
}
