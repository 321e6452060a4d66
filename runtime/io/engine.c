/*
 * The helper threads that make the file system calls, and the way their
 * jobs come back to the PEs (io.h).
 *
 * Jobs wait in one FIFO under a mutex (a job is a system call or a whole
 * transfer, never a hot path); a helper thread runs one, pushes it onto
 * the lock-free completions of the PE that submitted it and wakes that PE.
 * The PE's poll hook takes its completions and runs their done functions.
 */
#include "io/io.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

typedef struct io_pe {
    _Alignas(64) amp_inbox_t done;
} io_pe_t;

struct amp_io {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    amp_io_job_t *head, *tail;
    int stop;
    int nthreads;
    pthread_t *threads;
    amp_sched_t *sched;
    io_pe_t *pes; /* by PE id */
};

static amp_io_job_t *take_job(amp_io_t *io)
{
    pthread_mutex_lock(&io->lock);
    while (!io->head && !io->stop)
        pthread_cond_wait(&io->cond, &io->lock);
    amp_io_job_t *job = io->head;
    if (job) {
        io->head = job->next;
        if (!io->head)
            io->tail = NULL;
    }
    pthread_mutex_unlock(&io->lock);
    return job;
}

static void *helper_main(void *arg)
{
    amp_io_t *io = arg;
    amp_io_job_t *job;
    while ((job = take_job(io))) {
        job->run(job);
        /* Once pushed, the job is its PE's: it may be finished and freed
         * before the next line, so nothing of it is read after the push. */
        amp_pe_t *pe = job->pe;
        amp_inbox_push(&io->pes[pe->id].done, &job->item);
        amp_sched_notify(pe);
    }
    return NULL;
}

/* The helpers take no signals meant for the process's ranks. */
static int start_helpers(amp_io_t *io)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int started = 0;
    while (started < io->nthreads &&
           pthread_create(&io->threads[started], NULL, helper_main, io) == 0)
        started++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    io->nthreads = started;
    return started > 0;
}

amp_status_t amp_io_create(amp_sched_t *sched, int nthreads, amp_io_t **out)
{
    amp_io_t *io = calloc(1, sizeof(*io));
    if (!io)
        return AMP_ERR_NOMEM;
    io->sched = sched;
    io->nthreads = nthreads > 0 ? nthreads : 1;
    io->threads = calloc((size_t)io->nthreads, sizeof(*io->threads));
    io->pes = aligned_alloc(64, (size_t)sched->npes * sizeof(*io->pes));
    if (!io->threads || !io->pes) {
        free(io->threads);
        free(io->pes);
        free(io);
        return AMP_ERR_NOMEM;
    }
    for (int i = 0; i < sched->npes; i++)
        amp_inbox_init(&io->pes[i].done);
    pthread_mutex_init(&io->lock, NULL);
    pthread_cond_init(&io->cond, NULL);
    if (!start_helpers(io)) {
        amp_io_destroy(io);
        return AMP_ERR_SYS;
    }
    *out = io;
    return AMP_OK;
}

void amp_io_destroy(amp_io_t *io)
{
    if (!io)
        return;
    pthread_mutex_lock(&io->lock);
    io->stop = 1;
    pthread_cond_broadcast(&io->cond);
    pthread_mutex_unlock(&io->lock);
    for (int i = 0; i < io->nthreads; i++)
        pthread_join(io->threads[i], NULL);
    pthread_cond_destroy(&io->cond);
    pthread_mutex_destroy(&io->lock);
    free(io->threads);
    free(io->pes);
    free(io);
}

void amp_io_submit(amp_io_t *io, amp_io_job_t *job)
{
    job->pe = amp_pe_self();
    job->next = NULL;
    job->status = AMP_OK;
    job->err = 0;
    job->bytes = 0;
    amp_sched_outside_begin(io->sched);
    pthread_mutex_lock(&io->lock);
    if (io->tail)
        io->tail->next = job;
    else
        io->head = job;
    io->tail = job;
    pthread_cond_signal(&io->cond);
    pthread_mutex_unlock(&io->lock);
}

void amp_io_wait(amp_io_t *io, amp_io_job_t *job)
{
    amp_io_wait_all(io, &job, 1);
}

/* The jobs of amp_io_wait_all count down the first one's finished. */
static void count_down(amp_io_job_t *job)
{
    amp_io_job_t *first = job->arg2;
    if (--first->finished == 0)
        amp_sched_wake(first->waiter);
}

void amp_io_wait_all(amp_io_t *io, amp_io_job_t **jobs, int n)
{
    amp_io_job_t *first = jobs[0];
    first->waiter = amp_pe_self()->current;
    first->finished = n;
    for (int i = 0; i < n; i++) {
        jobs[i]->done = count_down;
        jobs[i]->arg2 = first;
        amp_io_submit(io, jobs[i]);
    }
    /* The thread cannot change PE while it waits here, so the done
     * functions run on its PE; other wake-ups (p2p's) may resume it
     * early. */
    while (first->finished > 0)
        amp_sched_block();
}

int amp_io_threads(const amp_io_t *io)
{
    return io->nthreads;
}

void amp_io_poll(amp_io_t *io, amp_pe_t *pe)
{
    amp_inbox_t *box = &io->pes[pe->id].done;
    if (amp_inbox_is_empty(box))
        return;
    amp_inbox_item_t *item = amp_inbox_take_all(box);
    while (item) {
        amp_inbox_item_t *next = item->next;
        amp_io_job_t *job = AMP_CONTAINER_OF(item, amp_io_job_t, item);
        if (job->done)
            job->done(job);
        amp_sched_outside_end(io->sched);
        item = next;
    }
}

AMP_POLL_PATH int amp_io_pending(amp_io_t *io, amp_pe_t *pe)
{
    return !amp_inbox_is_empty(&io->pes[pe->id].done);
}

amp_status_t amp_io_status_of_errno(int err)
{
    switch (err) {
    case 0: return AMP_OK;
    case ENOENT: return AMP_ERR_NOENT;
    case EACCES:
    case EPERM: return AMP_ERR_ACCESS;
    case EEXIST: return AMP_ERR_EXIST;
    case EROFS: return AMP_ERR_READ_ONLY;
    case ENOSPC: return AMP_ERR_NOSPACE;
    case EDQUOT: return AMP_ERR_QUOTA;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: return AMP_ERR_BADNAME;
    case ETXTBSY:
    case EBUSY: return AMP_ERR_INUSE;
    case ENOMEM: return AMP_ERR_NOMEM;
    default: return AMP_ERR_IO;
    }
}
