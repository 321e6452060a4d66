/*
 * trace/'s private header: the communicators of a trace, put together by
 * otf2.c from the members' AMP_TRACE_COMM records (each rank records its
 * own place in each communicator it gets).  A context id is never used
 * twice by one rank, so (context, member's world rank) names one
 * communicator in a whole job, and (context, world rank of its member 0)
 * names it once.
 */
#ifndef AMP_TRACE_COMMS_H
#define AMP_TRACE_COMMS_H

#include "base/base.h"

#include <stddef.h>
#include <stdint.h>

/* An open-addressing map of 64-bit keys to 64-bit values. */
typedef struct amp_tmap {
    uint64_t *keys; /* key + 1; 0: empty */
    uint64_t *vals;
    size_t mask, used;
} amp_tmap_t;

typedef struct amp_tcomm {
    int ctx, first, size, filled;
    int inter;    /* a member said it is an inter-communicator */
    int *members; /* comm rank -> world rank, -1: no record */
    uint32_t id;  /* its OTF2 communicator (1, 2, ...), 0: not defined */
} amp_tcomm_t;

typedef struct amp_tcomms {
    amp_tcomm_t *v;
    int n, cap;
    uint32_t ndefined;
    amp_tmap_t by_member; /* (ctx, world) -> comm << 32 | its comm rank */
    amp_tmap_t by_first;  /* (ctx, world rank of member 0) -> comm */
} amp_tcomms_t;

/* World rank world is member index of the communicator of context ctx,
 * size members and member 0 first. */
AMP_MUST_USE amp_status_t amp_tcomms_member(amp_tcomms_t *t, int ctx, int world,
                                            int index, int size, int first);
/* ... which is an inter-communicator (left undefined). */
void amp_tcomms_inter(amp_tcomms_t *t, int ctx, int world);
/* After the last record: every intra-communicator whose members all
 * recorded gets its id. */
void amp_tcomms_seal(amp_tcomms_t *t);
/* The communicator of context ctx that world is a member of, or -1;
 * *me: world's rank in it. */
int amp_tcomms_find(const amp_tcomms_t *t, int ctx, int world, int *me);
void amp_tcomms_free(amp_tcomms_t *t);

#endif
