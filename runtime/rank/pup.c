/*
 * AMPI_Register_pup and the C pupper calls that Charm++'s AMPI programs use.
 *
 * In Charm++'s AMPI a rank whose memory is not isomalloc'd registers its
 * data with a pack/unpack ("pup") routine, which the runtime runs to size,
 * pack and unpack the data when the rank migrates or is checkpointed.  Here
 * every rank's memory is isomalloc: its stack, heap, globals and program
 * copy move and are checkpointed whole, at the same addresses, so the
 * runtime never needs to run a pup routine and does not (running one that
 * frees what it packs, as they do, would lose the data).  What the
 * registration promises still holds: AMPI_Get_pup_data gives back the
 * registered pointer after any migration or restart, its data intact.
 *
 * The pupper calls (pup_int, pup_doubles, pup_isUnpacking, ...) work on a
 * pupper a caller sets up with AMPI_Pupper_init: sizing (counts bytes),
 * packing into a buffer, or unpacking from one.
 */
#include "mpi/impl.h"
#include "mem/heap.h"

#include <string.h>

struct amp_pup_entry {
    MPI_PupFn fn;
    void *data;
};

int AMPI_Register_pup(MPI_PupFn fn, void *data, int *idx)
{
    static const char call[] = "AMPI_Register_pup";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!fn || !idx)
        return amp_mpi_error(
            rank, NULL, MPI_ERR_ARG, call, "the %s is NULL (argument %s)",
            fn ? "registration index" : "pup routine", fn ? "idx" : "fn");
    /* In the rank's heap: it moves and is checkpointed with the rank. */
    size_t bytes = (size_t)(rank->npups + 1) * sizeof(struct amp_pup_entry);
    struct amp_pup_entry *more =
        rank->pups ? amp_heap_realloc(rank->heap, rank->pups, bytes)
                   : amp_heap_alloc(amp_rank_heap(rank), bytes, 16);
    if (!more)
        return amp_mpi_error(rank, NULL, MPI_ERR_NO_MEM, call,
                             "out of memory in the rank's heap");
    more[rank->npups] = (struct amp_pup_entry){fn, data};
    rank->pups = more;
    *idx = rank->npups++;
    return MPI_SUCCESS;
}

int AMPI_Get_pup_data(int idx, void *data)
{
    static const char call[] = "AMPI_Get_pup_data";
    amp_rank_t *rank;
    int rc = amp_mpi_enter(&rank, call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (idx < 0 || idx >= rank->npups)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "no registration %d: this rank made %d "
                             "(argument idx)",
                             idx, rank->npups);
    if (!data)
        return amp_mpi_error(rank, NULL, MPI_ERR_ARG, call,
                             "the place for the pointer is NULL (argument "
                             "data)");
    memcpy(data, &rank->pups[idx].data, sizeof(void *));
    return MPI_SUCCESS;
}

/* ---- the pupper ---- */

int AMPI_Pupper_init(AMPI_Pupper *p, int mode, void *buf, size_t size)
{
    if (!p ||
        (mode != AMPI_PUP_SIZING && mode != AMPI_PUP_PACKING &&
         mode != AMPI_PUP_UNPACKING) ||
        (mode != AMPI_PUP_SIZING && !buf && size > 0))
        return MPI_ERR_ARG;
    *p = (AMPI_Pupper){mode, 0, (char *)buf, size, 0};
    return MPI_SUCCESS;
}

int pup_isSizing(pup_er p)
{
    return ((AMPI_Pupper *)p)->mode == AMPI_PUP_SIZING;
}

int pup_isPacking(pup_er p)
{
    return ((AMPI_Pupper *)p)->mode == AMPI_PUP_PACKING;
}

int pup_isUnpacking(pup_er p)
{
    return ((AMPI_Pupper *)p)->mode == AMPI_PUP_UNPACKING;
}

/* Packing leaves the data in place here (a pupper is never run for a
 * migration), so the caller must not free it. */
int pup_isDeleting(pup_er p)
{
    (void)p;
    return 0;
}

int pup_isUserlevel(pup_er p)
{
    (void)p;
    return 1;
}

void pup_bytes(pup_er er, void *ptr, size_t nbytes)
{
    AMPI_Pupper *p = er;
    if (p->mode != AMPI_PUP_SIZING && p->pos + nbytes > p->size) {
        p->overflow = 1; /* the rest is left out; AMPI_Pupper says */
        return;
    }
    if (p->mode == AMPI_PUP_PACKING)
        memcpy(p->buf + p->pos, ptr, nbytes);
    else if (p->mode == AMPI_PUP_UNPACKING)
        memcpy(ptr, p->buf + p->pos, nbytes);
    p->pos += nbytes;
}

#define AMP_PUP_TYPE(name, type)                                               \
    void pup_##name(pup_er p, type *v)                                         \
    {                                                                          \
        pup_bytes(p, v, sizeof(*v));                                           \
    }                                                                          \
    void pup_##name##s(pup_er p, type *v, size_t n)                            \
    {                                                                          \
        pup_bytes(p, v, n * sizeof(*v));                                       \
    }

AMP_PUP_TYPE(char, char)
AMP_PUP_TYPE(short, short)
AMP_PUP_TYPE(int, int)
AMP_PUP_TYPE(long, long)
AMP_PUP_TYPE(longlong, long long)
AMP_PUP_TYPE(uchar, unsigned char)
AMP_PUP_TYPE(ushort, unsigned short)
AMP_PUP_TYPE(uint, unsigned int)
AMP_PUP_TYPE(ulong, unsigned long)
AMP_PUP_TYPE(ulonglong, unsigned long long)
AMP_PUP_TYPE(float, float)
AMP_PUP_TYPE(double, double)
AMP_PUP_TYPE(pointer, void *)
