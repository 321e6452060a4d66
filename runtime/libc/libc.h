/*
 * libc: the C library's hidden state, per rank.
 *
 * Under any other MPI each rank is a process with its own copy of the C
 * library's internal state: the random number generators, getopt's
 * position, strtok's, the static buffers that gmtime or strerror return.
 * Here ranks share one process, so libampi defines those functions itself
 * (its definitions come before the C library's in every lookup, for the
 * program and the shared libraries alike) and keeps their state in the
 * calling rank's memory, where it moves and is checkpointed with the rank.
 * Outside a rank (before the ranks start, other threads of the process)
 * the C library's own functions answer.
 *
 * getopt's variables (optind, optarg, opterr, optopt) are read by the
 * program directly, so each rank needs its own instance of them too:
 * libampi defines per-rank ones (thread-locals, of which every rank has its
 * own copy in its TLS block), the privatization plugin (-privatize=tls)
 * renames the program's references to them, and pie privatization points a
 * copy's references at them (or keeps the copy's own instance, for a
 * program that reads them through copy relocations).
 */
#ifndef AMP_LIBC_H
#define AMP_LIBC_H

#include "pie/pie.h"

#include <stdatomic.h>
#include <stdint.h>

/* The addresses of the getopt variables (indexed by amp_pie_var_t) in the
 * TLS copy whose thread pointer is tp. */
void amp_libc_getopt_vars(void *tp, uintptr_t vars[AMP_PIE_NVARS]);

/* The C library's definition of name, looked up once (cached in *cache)
 * past libampi's own; ends the process when there is none. */
void *amp_libc_real(_Atomic(void *) *cache, const char *name);

/* Gives back what a rank's C library state holds (its heap blocks); call
 * in the rank when it ends. */
void amp_libc_rank_end(void);

#endif
