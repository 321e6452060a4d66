/*
 * The MPI layer's private header: every object behind MPI handles and the
 * calls between the layer's files, one header per object, all included.
 * A file may include just the ones it uses:
 *   call.h     what every file needs: the layers below, aliases, errors,
 *              argument checks, error handlers and operations
 *   comm.h     communicators, groups, inter-communicators, collectives
 *   request.h  requests, persistent and partitioned ones, sending
 *   win.h      windows
 *   attr.h     attributes and info objects
 *   fileio.h   data representations and file handles
 *   stage.h    CUDA device buffers of MPI calls
 * The process-wide and per-rank structs, which the layers above use too,
 * are in proc.h.
 */
#ifndef AMP_MPI_IMPL_H
#define AMP_MPI_IMPL_H

#include "mpi/call.h"
#include "mpi/comm/comm.h"
#include "mpi/pt2pt/request.h"
#include "mpi/win/win.h"
#include "mpi/attr/attr.h"
#include "mpi/file/fileio.h"
#include "mpi/stage.h"

#endif
