/*
 * Copies of an in-memory checkpoint on another node (checkpoint.c's
 * private help; docs/checkpoint.md, "In-memory checkpoints").
 *
 * Every rank writes its file into the checkpoint directory as its process
 * sees it (ckpt_dir.h).  Ranks that see the same directory form one
 * *directory*, named by its leader (the rank that prepared it for this
 * checkpoint): the whole job, when every process shares it; each node's
 * own, for /dev/shm on several nodes.  With several, the directories are
 * ordered by their leaders, and each keeps, besides its own ranks' files,
 * a copy of those of the directory before it (cyclically): each rank sends
 * its file to the leader of the next directory, which writes it under the
 * same name.  So the loss of one node's memory loses no rank's file, and a
 * restart gathers what each process needs (amp_ckpt_gather_main,
 * checkpoint.h).
 */
#ifndef AMP_RANK_CKPT_COPY_H
#define AMP_RANK_CKPT_COPY_H

#include "mpi/proc.h"

#include <stddef.h>

typedef struct amp_ckpt_dirs {
    int n;          /* directories of the job's processes */
    int first;      /* leader of rank 0's */
    int next;       /* leader of the one after this rank's */
    long from_prev; /* ranks of the one before this rank's */
} amp_ckpt_dirs_t;

/* Collective over MPI_COMM_WORLD: the directories, from each rank's
 * leader (-1: its directory could not be prepared).  An MPI error code
 * (of the collective). */
int amp_ckpt_dirs_find(int leader, amp_ckpt_dirs_t *d);

/* Collective over MPI_COMM_WORLD, with d->n > 1 and every rank's file in
 * stage: sends this rank's file to the next directory's leader; a leader
 * also receives the files of the directory before its own into stage.  An
 * MPI class (MPI_ERR_IO, with why), or MPI_SUCCESS. */
int amp_ckpt_copy_to_next(amp_rank_t *rank, const char *stage, int leader,
                          const amp_ckpt_dirs_t *d, char *why, size_t len);

#endif
