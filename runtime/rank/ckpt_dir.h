/*
 * A checkpoint directory is replaced whole (checkpoint.c's private help).
 *
 * A checkpoint into DIR is written into DIR.next beside it: every rank's
 * file, then the manifest; only then does the directory's leader swap the
 * two directories in one step (renameat2 with RENAME_EXCHANGE), so that
 * DIR holds at every moment one complete checkpoint (or none yet), never
 * files of two.  A job that dies while it writes leaves DIR as it was and
 * a torn DIR.next, which the next checkpoint clears.  Once DIR is swapped,
 * the leader of rank 0's directory notes its absolute path in the file
 * AMPI_CHECKPOINT_NOTE names, if set (ampirun --restart-on-failure reads
 * it).  In-memory checkpoints of a job on several nodes have one such
 * directory on each node, of the same name (checkpoint.c, "Copies on
 * another node").
 */
#ifndef AMP_RANK_CKPT_DIR_H
#define AMP_RANK_CKPT_DIR_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* DIR's staging directory, DIR.next (trailing slashes of DIR dropped). */
void amp_ckpt_dir_staging(const char *dir, char *out, size_t len);
/* Every rank, before it writes checkpoint id: DIR and DIR.next exist,
 * DIR.next for this checkpoint (*made: this call created DIR).  The first
 * rank to get there, under a lock on DIR, clears what a torn checkpoint
 * left in DIR.next and records itself as its owner; *leader: that rank,
 * which writes the manifest.  Ranks that see the same directory (all of
 * them, on a file system every node shares) get the same leader; ranks of
 * nodes with a directory of their own (/dev/shm) get their node's.  An MPI
 * class; why: the reason. */
int amp_ckpt_dir_join(const char *dir, uint64_t id, int me, int *made,
                      int *leader, char *why, size_t len);
/* The leader, once DIR.next holds the manifest: DIR.next becomes DIR, the
 * previous checkpoint is removed (unless keep: then it stays in DIR.next
 * until amp_ckpt_dir_drop_previous), the note written if noted says so
 * (one directory of the job notes it; _NODES: of a job of nranks ranks
 * with copies on several nodes).  An MPI class. */
enum { AMP_CKPT_NOTE_NONE, AMP_CKPT_NOTE, AMP_CKPT_NOTE_NODES };
int amp_ckpt_dir_commit(const char *dir, int noted, int nranks, int keep,
                        char *why, size_t len);
void amp_ckpt_dir_drop_previous(const char *dir);
/* +ckptgather: when DIR's checkpoint is not id (by id_of, a manifest's
 * id) but DIR.next's is (a job that died while the directories of its
 * nodes were being swapped, each keeping the previous checkpoint until
 * all were), the two are swapped back, under DIR's lock.  1 if swapped. */
int amp_ckpt_dir_settle(const char *dir, uint64_t id,
                        uint64_t (*id_of)(const char *));

/* The leader, after a checkpoint failed: DIR.next and what it holds
 * removed (DIR keeps the previous checkpoint). */
void amp_ckpt_dir_abandon(const char *dir);

/* Checkpoint files sent between processes (ckpt_copy.c, ckpt_gather.c).
 * The file at path mapped for reading (*bytes long; munmap it), or NULL
 * with *err. */
void *amp_ckpt_file_map(const char *path, size_t *bytes, int *err);
/* A file of bytes bytes being received into mem: written at path.tmp and
 * renamed to path whole by amp_ckpt_incoming_end, which returns 0 or the
 * errno of what failed.  When the file cannot be made, mem is memory that
 * is dropped, so that the sender still finishes. */
typedef struct amp_ckpt_incoming {
    char *mem;
    size_t bytes;
    int fd, err;
    char path[PATH_MAX], tmp[PATH_MAX + 8];
} amp_ckpt_incoming_t;
void amp_ckpt_incoming_begin(amp_ckpt_incoming_t *in, const char *path,
                             size_t bytes);
int amp_ckpt_incoming_end(amp_ckpt_incoming_t *in);

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
