/*
 * base: the status enum every module returns, logging, and internal
 * assertions.  Nothing here knows about MPI; the MPI layer translates
 * amp_status_t into error classes at the API boundary.
 */
#ifndef AMP_BASE_H
#define AMP_BASE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* X(name, value, description).  One list: the enum and the strings come
 * from it. */
#define AMP_STATUS_LIST(X)                                                     \
    X(AMP_OK, 0, "success")                                                    \
    X(AMP_ERR_NOMEM, -1, "out of memory")                                      \
    X(AMP_ERR_ARG, -2, "invalid argument")                                     \
    X(AMP_ERR_RANK, -3, "invalid rank")                                        \
    X(AMP_ERR_TAG, -4, "invalid tag")                                          \
    X(AMP_ERR_COUNT, -5, "invalid count")                                      \
    X(AMP_ERR_TYPE, -6, "invalid datatype")                                    \
    X(AMP_ERR_COMM, -7, "invalid communicator")                                \
    X(AMP_ERR_REQUEST, -8, "invalid request")                                  \
    X(AMP_ERR_BUFFER, -9, "invalid buffer")                                    \
    X(AMP_ERR_TRUNCATE, -10, "message truncated")                              \
    X(AMP_ERR_OP, -11, "invalid reduction operation")                          \
    X(AMP_ERR_ROOT, -12, "invalid root")                                       \
    X(AMP_ERR_SYS, -13, "operating system call failed")                        \
    X(AMP_ERR_UNSUPPORTED, -14, "operation not supported")                     \
    X(AMP_ERR_INTERN, -15, "internal error")                                   \
    X(AMP_ERR_OTHER, -16, "other error")                                       \
    X(AMP_ERR_NOENT, -17, "no such file or directory")                         \
    X(AMP_ERR_ACCESS, -18, "permission denied")                                \
    X(AMP_ERR_EXIST, -19, "file exists")                                       \
    X(AMP_ERR_READ_ONLY, -20, "read-only file or file system")                 \
    X(AMP_ERR_NOSPACE, -21, "no space left on device")                         \
    X(AMP_ERR_QUOTA, -22, "disk quota exceeded")                               \
    X(AMP_ERR_BADNAME, -23, "invalid file name")                               \
    X(AMP_ERR_INUSE, -24, "file in use")                                       \
    X(AMP_ERR_IO, -25, "input/output error")                                   \
    X(AMP_ERR_CONVERSION, -26, "data conversion failed")

/* A status must be looked at: every function that returns one is declared
 * AMP_MUST_USE (GCC takes warn_unused_result on functions only), and under
 * Clang the type itself carries the attribute, which also covers static
 * functions and calls through pointers.  A caller that has a reason to drop
 * a status says so with amp_status_ignore() and a comment: GCC does not let
 * a cast to void silence the warning. */
#define AMP_MUST_USE __attribute__((warn_unused_result))
#if defined(__clang__)
#define AMP_STATUS_TYPE_ATTR __attribute__((warn_unused_result))
#else
#define AMP_STATUS_TYPE_ATTR
#endif

typedef enum AMP_STATUS_TYPE_ATTR amp_status {
#define AMP_STATUS_ENUM(name, value, text) name = value,
    AMP_STATUS_LIST(AMP_STATUS_ENUM)
#undef AMP_STATUS_ENUM
} amp_status_t;

const char *amp_status_str(amp_status_t status);

/* Drops a status on purpose (the caller says why in a comment). */
static inline void amp_status_ignore(amp_status_t status)
{
    (void)status;
}

/* Prints "ampi: <message>" on stderr as one write. */
void amp_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints the message and ends the process with status 1, after
 * amp_fatal_last_words. */
_Noreturn void amp_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* What amp_fatal does before the process ends.  base.c's does nothing
 * (a weak symbol); a layer above that has something to keep defines its
 * own (mpi/proc.c: +trace's records), so that base/ calls no layer above
 * and holds no hook. */
void amp_fatal_last_words(void);

_Noreturn void amp_assert_fail(const char *expr, const char *file, int line);

/* Internal invariants only; user input is validated, never asserted. */
#define amp_assert(expr)                                                       \
    ((expr) ? (void)0 : amp_assert_fail(#expr, __FILE__, __LINE__))

/* A function an idle PE runs in its polling loop starts on a cache line:
 * where its loop falls otherwise follows the size of all the code linked
 * before it, which moved a 64-rank allreduce by 3-4% on this project's
 * AMD VM with no change on its path (docs/bench.md). */
#define AMP_POLL_PATH __attribute__((aligned(64)))

#define AMP_CONTAINER_OF(ptr, type, member)                                    \
    ((type *)((char *)(ptr) - offsetof(type, member)))

#define AMP_ROUND_UP(x, align) (((x) + (align) - 1) / (align) * (align))

/* What a thread spinning on a word does between two looks: lets the
 * other hardware thread of the core run. */
static inline void amp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* A lock held for a few instructions by the threads of the process (PEs,
 * helper threads), for sections that never yield: a holder runs to the
 * unlock without a context switch, so only threads of other PEs spin.  An
 * int that starts at 0; test and test-and-set: a waiter reads until the
 * lock looks free, then tries. */
static inline void amp_spin_lock(_Atomic int *lock)
{
    while (atomic_exchange_explicit(lock, 1, memory_order_acquire))
        while (atomic_load_explicit(lock, memory_order_relaxed))
            amp_cpu_relax();
}

static inline void amp_spin_unlock(_Atomic int *lock)
{
    atomic_store_explicit(lock, 0, memory_order_release);
}

/* A cheap, monotonic tick count: the time stamp counter where there is
 * one (the scheduler's load measurement and +trace's time stamps). */
static inline uint64_t amp_cycles(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

#endif
