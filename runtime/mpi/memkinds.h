/*
 * MPI-4.1's memory allocation kinds (section 12.4.3, the info key
 * "mpi_memory_alloc_kinds"): which a session asked for and this process
 * supports, and the value each communicator, window and file reports
 * (memkinds.c).
 */
#ifndef AMP_MPI_MEMKINDS_H
#define AMP_MPI_MEMKINDS_H

#include "mpi/handles.h"

#include <stddef.h>

/* Room for a value of "mpi_memory_alloc_kinds". */
#define AMP_MEMKINDS_LEN 160

/* Of the comma-separated kinds requested (NULL: the default,
 * "mpi,system"), those this process supports, comma-separated into out
 * (len at least AMP_MEMKINDS_LEN), each once, in the order asked. */
void amp_memkinds_supported(const char *requested, char *out, size_t len);
/* The value of "mpi_memory_alloc_kinds" for a communicator (and the
 * windows and files made from it): its session's, or the World Model's. */
const char *amp_memkinds_of(const amp_comm_t *comm);

#endif
