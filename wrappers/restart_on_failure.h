/*
 * ampirun --restart-on-failure[=N]: runs the job, and when it fails after
 * it wrote a complete checkpoint, runs it again from there (+restart DIR),
 * at most N times (docs/checkpoint.md).  Without the option, the same for
 * the job's in-memory checkpoints only, at most 3 times, and silently when
 * there is none (--no-restart-on-failure: ampirun execs the job instead).
 *
 * The runtime's rank 0 writes the absolute path of each checkpoint
 * directory it completed into the file AMPI_CHECKPOINT_NOTE names;
 * ampirun creates that file, exports the variable to the processes, and
 * reads it after a failed run.
 */
#ifndef AMPIRUN_RESTART_ON_FAILURE_H
#define AMPIRUN_RESTART_ON_FAILURE_H

/* The command that runs the job: from its start (dir NULL), or from the
 * checkpoint in dir (+restart DIR); or, with gather > 0, the job that
 * brings an in-memory checkpoint kept on several nodes to the processes
 * that restart from it (+ckptgather DIR +vp gather); NULL-terminated,
 * argv[0] run through PATH. */
typedef const char *const *(*ampirun_command_fn_t)(void *ctx, const char *dir,
                                                   long gather);

#include <stdbool.h>

/* What a failed run is restarted from. */
typedef struct ampirun_recovery {
    long max_restarts;
    /* --restart-on-failure: from any complete checkpoint, saying why not
     * when it is not restarted; else from an in-memory one only. */
    bool asked;
    /* AMPI_CHECKPOINT_MEMORY: where the job's in-memory checkpoints go,
     * removed when ampirun is done with the job. */
    const char *memory;
} ampirun_recovery_t;

/* The restarts allowed by --restart-on-failure's value, or -1 when text is
 * not a positive count. */
long ampirun_restarts_parse(const char *text);
/* Creates the note file and sets AMPI_CHECKPOINT_NOTE to its path
 * (returned, malloc'd); when it cannot, exits with one line if the user
 * asked for restarts, else returns NULL.  first, if not NULL, is the
 * checkpoint the job starts from (+restart DIR): the one to restart from
 * until the job writes another. */
char *ampirun_note_create(const char *first, bool asked);
/* AMPI_CHECKPOINT_MEMORY, set to a directory of /dev/shm named for the
 * user and this ampirun when it is not set. */
const char *ampirun_memory_dir(void);
/* Runs the job, restarting it as r says; removes the note and the
 * in-memory checkpoint; returns the wait status of its last run. */
int ampirun_supervise(const char *note, const ampirun_recovery_t *r,
                      ampirun_command_fn_t command, void *ctx);
/* ampirun's end with the last run's wait status: its exit status, or,
 * for a run ended by a signal, 128 + the signal (as_signal false) or
 * the same signal (as_signal true: as if ampirun had exec'd the job). */
int ampirun_exit(int status, bool as_signal);

#endif
