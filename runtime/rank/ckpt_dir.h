/*
 * A checkpoint directory is replaced whole (checkpoint.c's private help).
 *
 * A checkpoint into DIR is written into DIR.next beside it: every rank's
 * file, then the manifest; only then does rank 0 swap the two directories
 * in one step (renameat2 with RENAME_EXCHANGE), so that DIR holds at
 * every moment one complete checkpoint (or none yet), never files of two.
 * A job that dies while it writes leaves DIR as it was and a torn DIR.next,
 * which the next checkpoint clears.  Once DIR is swapped, rank 0 notes its
 * absolute path in the file AMPI_CHECKPOINT_NOTE names, if set (ampirun
 * --restart-on-failure reads it).
 */
#ifndef AMP_RANK_CKPT_DIR_H
#define AMP_RANK_CKPT_DIR_H

#include <stddef.h>

/* DIR's staging directory, DIR.next (trailing slashes of DIR dropped). */
void amp_ckpt_dir_staging(const char *dir, char *out, size_t len);
/* Rank 0, before any rank writes: DIR and an empty DIR.next exist
 * (*made: DIR did not exist before).  An MPI class; why: the reason. */
int amp_ckpt_dir_prepare(const char *dir, int *made, char *why, size_t len);
/* Rank 0, once DIR.next holds the manifest: DIR.next becomes DIR, the
 * previous checkpoint is removed, the note written.  An MPI class. */
int amp_ckpt_dir_commit(const char *dir, char *why, size_t len);

/* Rank 0, after a checkpoint failed: DIR.next and what it holds removed
 * (DIR keeps the previous checkpoint); DIR too when prepare made it
 * (made) and it is still empty. */
void amp_ckpt_dir_abandon(const char *dir, int made);

/* Where the job's in-memory checkpoints go ("ampi_checkpoint" =
 * "in_memory"): AMPI_CHECKPOINT_MEMORY (ampirun sets it), else a
 * directory of /dev/shm named for the user and the job (its PMIx
 * namespace, or the process id of a job of one process).  The same in
 * every process of a job. */
void amp_ckpt_dir_memory(char *out, size_t len);
/* A job's end: the checkpoint in DIR and DIR.next removed (their
 * checkpoint files, then each directory if that empties it). */
void amp_ckpt_dir_remove(const char *dir);

#endif
