/*
 * pup_c.h: the C pupper interface of Charm++'s AMPI, for programs written
 * for it (included by mpi.h too).
 *
 * AMPI_Register_pup registers a rank's data with its pack/unpack routine;
 * AMPI_Get_pup_data gives the data's pointer back.  Every rank's memory is
 * isomalloc here, so migration and checkpoints carry the data without
 * running the routine (docs/load-balancing.md); a program may run its
 * routines itself on a pupper from AMPI_Pupper_init: sizing (counts the
 * bytes in pos), packing into buf, or unpacking from it.
 */
#ifndef AMPI_PUP_C_H
#define AMPI_PUP_C_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMPI_PUP_API __attribute__((visibility("default")))

typedef void *pup_er;
typedef void (*MPI_PupFn)(pup_er p, void *data);

AMPI_PUP_API int AMPI_Register_pup(MPI_PupFn fn, void *data, int *idx);
/* *(void **)data = the data registered under idx. */
AMPI_PUP_API int AMPI_Get_pup_data(int idx, void *data);

enum { AMPI_PUP_SIZING, AMPI_PUP_PACKING, AMPI_PUP_UNPACKING };
typedef struct AMPI_Pupper {
    int mode;     /* AMPI_PUP_* */
    int overflow; /* a call did not fit in size bytes and was left out */
    char *buf;
    size_t size, pos; /* pos: bytes sized, packed or unpacked so far */
} AMPI_Pupper;
/* MPI_ERR_ARG for a bad mode, or no buffer to pack or unpack. */
AMPI_PUP_API int AMPI_Pupper_init(AMPI_Pupper *p, int mode, void *buf,
                                  size_t size);

AMPI_PUP_API int pup_isSizing(pup_er p);
AMPI_PUP_API int pup_isPacking(pup_er p);
AMPI_PUP_API int pup_isUnpacking(pup_er p);
AMPI_PUP_API int pup_isDeleting(pup_er p);
AMPI_PUP_API int pup_isUserlevel(pup_er p);
AMPI_PUP_API void pup_bytes(pup_er p, void *ptr, size_t nbytes);

#define AMPI_PUP_DECLARE(name, type)                                           \
    AMPI_PUP_API void pup_##name(pup_er p, type *v);                           \
    AMPI_PUP_API void pup_##name##s(pup_er p, type *v, size_t n);
AMPI_PUP_DECLARE(char, char)
AMPI_PUP_DECLARE(short, short)
AMPI_PUP_DECLARE(int, int)
AMPI_PUP_DECLARE(long, long)
AMPI_PUP_DECLARE(longlong, long long)
AMPI_PUP_DECLARE(uchar, unsigned char)
AMPI_PUP_DECLARE(ushort, unsigned short)
AMPI_PUP_DECLARE(uint, unsigned int)
AMPI_PUP_DECLARE(ulong, unsigned long)
AMPI_PUP_DECLARE(ulonglong, unsigned long long)
AMPI_PUP_DECLARE(float, float)
AMPI_PUP_DECLARE(double, double)
AMPI_PUP_DECLARE(pointer, void *)
#undef AMPI_PUP_DECLARE

#ifdef __cplusplus
}
#endif

#endif
