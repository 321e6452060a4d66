/*
 * Linked into Fortran programs from libampi_main.a: ampif90 and ampif77 link
 * with -Wl,--wrap= for the three symbols below.
 *
 * flang ends the main program with _FortranAProgramEndStatement, and STOP
 * with _FortranAStopStatement or _FortranAStopStatementText; all of them
 * close every Fortran unit and call exit(), which would end every rank of
 * the process when the first one reaches END.  Here END and STOP end the
 * calling rank only, as returning from a C main does: STOP n is return n,
 * and the job's exit status is the first non-zero one.  ERROR STOP still
 * ends the job, as an error termination of one MPI process does.  Units
 * are flushed when the process exits.
 *
 * The messages are the ones flang prints.
 *
 * Fortran I/O statements run one at a time in the process (their
 * beginnings are wrapped in fortran_io.S, which takes the lock that the
 * end of each statement, below, gives back: start/fortran_io.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

_Noreturn void amp_start_rank_exit(int status);

struct EnvironmentDefaultList;
void _FortranAProgramStart(int argc, const char *argv[], const char *envp[],
                           const struct EnvironmentDefaultList *defaults);
void amp_flang_args(int argc, char **argv, char **envp);

/* A program whose entry is a subroutine MPI_Main has no main program, whose
 * start would have handed flang's runtime the command line: each rank does
 * it before entering MPI_Main (start/main_wrap.c), with the arguments the
 * runtime options left, as a main program's start does per rank.  The
 * wrappers make the linker take it (-Wl,--undefined=amp_flang_args). */
void amp_flang_args(int argc, char **argv, char **envp)
{
    _FortranAProgramStart(argc, (const char **)argv, (const char **)envp, NULL);
}

_Noreturn void __real__FortranAStopStatement(int code, bool error_stop,
                                             bool quiet);
_Noreturn void __real__FortranAStopStatementText(const char *text, size_t len,
                                                 bool error_stop, bool quiet);

_Noreturn void __wrap__FortranAProgramEndStatement(void);
_Noreturn void __wrap__FortranAStopStatement(int code, bool error_stop,
                                             bool quiet);
_Noreturn void __wrap__FortranAStopStatementText(const char *text, size_t len,
                                                 bool error_stop, bool quiet);

void amp_fortran_io_unlock(void);
int __real__FortranAioEndIoStatement(void *cookie);
int __wrap__FortranAioEndIoStatement(void *cookie);

/* The statement's end: its status (flang's enum Iostat), then the lock. */
int __wrap__FortranAioEndIoStatement(void *cookie)
{
    int status = __real__FortranAioEndIoStatement(cookie);
    amp_fortran_io_unlock();
    return status;
}

void __wrap__FortranAProgramEndStatement(void)
{
    amp_start_rank_exit(0);
}

void __wrap__FortranAStopStatement(int code, bool error_stop, bool quiet)
{
    if (error_stop)
        __real__FortranAStopStatement(code, error_stop, quiet);
    if (!quiet && code == 0)
        fputs("Fortran STOP\n", stderr);
    else if (!quiet)
        fprintf(stderr, "Fortran STOP: code %d\n\n", code);
    amp_start_rank_exit(code);
}

void __wrap__FortranAStopStatementText(const char *text, size_t len,
                                       bool error_stop, bool quiet)
{
    if (error_stop)
        __real__FortranAStopStatementText(text, len, error_stop, quiet);
    if (!quiet)
        fprintf(stderr, "Fortran STOP: %.*s\n", (int)len, text);
    amp_start_rank_exit(0);
}
