/*
 * The MPI layer's objects for the layers above it (rank/): every object
 * behind MPI handles and what the chapters do with them, their headers all
 * included:
 *   call.h            the layers below, aliases, errors, error handlers
 *                     and operations
 *   handles.h         communicators, windows, lookups, argument checks
 *   request.h         requests of every kind, statuses
 *   comm/comm.h       groups, inter-communicators, collectives' shares
 *   pt2pt/request.h   sending, persistent and partitioned requests
 *   win/win.h         windows' node memory
 *   attr/attr.h       attributes, info objects, error handlers
 *   file/fileio.h     data representations and file handles
 *   stage.h           CUDA device buffers of MPI calls
 * No file of the layer includes it: each includes the headers of its own
 * part and of those under it (README.md).  The process-wide and per-rank
 * structs, which the layers above use too, are in proc.h.
 */
#ifndef AMP_MPI_IMPL_H
#define AMP_MPI_IMPL_H

#include "mpi/call.h"
#include "mpi/handles.h"
#include "mpi/request.h"
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/win/win.h"
#include "mpi/attr/attr.h"
#include "mpi/file/fileio.h"
#include "mpi/stage.h"

#endif
