/*
 * ampirun --restart-on-failure[=N]: runs the job, and when it fails after
 * it wrote a complete checkpoint, runs it again from there (+restart DIR),
 * at most N times (docs/checkpoint.md).
 *
 * The runtime's rank 0 writes the absolute path of each checkpoint
 * directory it completed into the file AMPI_CHECKPOINT_NOTE names;
 * ampirun creates that file, exports the variable to the processes, and
 * reads it after a failed run.
 */
#ifndef AMPIRUN_RESTART_ON_FAILURE_H
#define AMPIRUN_RESTART_ON_FAILURE_H

/* The command that runs the job: from its start (dir NULL), or from the
 * checkpoint in dir; NULL-terminated, argv[0] run through PATH. */
typedef const char *const *(*ampirun_command_fn_t)(void *ctx, const char *dir);

/* The restarts allowed by --restart-on-failure's value, or -1 when text is
 * not a positive count. */
long ampirun_restarts_parse(const char *text);
/* Creates the note file and sets AMPI_CHECKPOINT_NOTE to its path
 * (returned, malloc'd); exits with one line when it cannot.  first, if not
 * NULL, is the checkpoint the job starts from (+restart DIR): the one to
 * restart from until the job writes another. */
char *ampirun_note_create(const char *first);
/* Runs the job, restarting it up to max_restarts times; removes the note;
 * returns the exit status of its last run (128 + the signal that ended
 * it). */
int ampirun_supervise(const char *note, long max_restarts,
                      ampirun_command_fn_t command, void *ctx);

#endif
