/*
 * libc's private header: a rank's C library state, and the C library's
 * own functions for callers that are not ranks.
 */
#ifndef AMP_LIBC_STATE_H
#define AMP_LIBC_STATE_H

#define _GNU_SOURCE 1
#include "libc/libc.h"
#include "mpi/proc.h"

#include <grp.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* getopt's position in the rank's argument vector (getopt.c). */
typedef struct amp_getopt {
    int initialized;
    int ordering; /* enum in getopt.c */
    char *nextchar;
    int first_nonopt, last_nonopt;
    int located;                 /* at is filled in */
    uintptr_t at[AMP_PIE_NVARS]; /* where the rank's code reads each variable */
} amp_getopt_t;

/* Buffers that only some ranks use, allocated on first use. */
typedef struct amp_libc_buffers {
    char strerror[1024];
    char strsignal[256];
    char login[256];
    char inet[16];
    char ttyname[4096];
    struct passwd pw;
    char *pw_buf;
    size_t pw_len;
    struct group gr;
    char *gr_buf;
    size_t gr_len;
} amp_libc_buffers_t;

/* A rank's state, in its heap (allocated on the first call that needs
 * it). */
typedef struct amp_libc_rank {
    struct random_data random; /* random(), rand() */
    int32_t random_tbl[32];    /* the default state buffer (TYPE_3) */
    struct drand48_data rand48;
    amp_getopt_t getopt;
    char *strtok_save;
    struct tm tm;      /* gmtime, localtime */
    char asctime[114]; /* asctime, ctime: room for any year */
    amp_libc_buffers_t *buffers;
} amp_libc_rank_t;

/* Allocates rank's state, in its heap; NULL when out of memory. */
amp_libc_rank_t *amp_libc_create(amp_rank_t *rank);

/* The calling rank's state, or NULL outside a rank (or when the rank's
 * heap is full: then the C library's own functions answer). */
static inline amp_libc_rank_t *amp_libc_self(void)
{
    amp_rank_t *rank = amp_rank_self();
    if (!rank)
        return NULL;
    if (__builtin_expect(rank->libc != NULL, 1))
        return rank->libc;
    return amp_libc_create(rank);
}

/* The calling rank's buffers, or NULL as above. */
amp_libc_buffers_t *amp_libc_buffers(void);

/* realloc in the calling rank's heap (a rank's state is freed there). */
void *amp_libc_realloc(void *p, size_t size);

/* Declares fn_t real_name(void) returning the C library's name. */
#define AMP_LIBC_REAL_FN(fn_t, name)                                           \
    static fn_t real_##name(void)                                              \
    {                                                                          \
        static _Atomic(void *) cache;                                          \
        void *p = amp_libc_real(&cache, #name);                                \
        fn_t fn;                                                               \
        memcpy(&fn, &p, sizeof(fn));                                           \
        return fn;                                                             \
    }

#define AMP_LIBC_EXPORT __attribute__((visibility("default")))

#endif
