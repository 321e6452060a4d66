/*
 * Linked into gfortran programs from libampi_main.a: ampif90 and ampif77
 * with gfortran link with -Wl,--wrap= for the two symbols below.
 *
 * gfortran's STOP calls _gfortran_stop_numeric (STOP n) or
 * _gfortran_stop_string (STOP, STOP 'text'), which print the code or text
 * and call exit(), ending every rank of the process.  Here STOP ends the
 * calling rank only, as returning from a C main does: STOP n is return n,
 * and the job's exit status is the first non-zero one.  END of the main
 * program needs nothing: gfortran's main returns 0.  ERROR STOP still ends
 * the job, as an error termination of one MPI process does.
 *
 * The messages are the ones gfortran prints.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

_Noreturn void amp_start_rank_exit(int status);

void _gfortran_set_args(int argc, char **argv);
void amp_gfortran_args(int argc, char **argv, char **envp);

/* A program whose entry is a subroutine MPI_Main has no main program, whose
 * start would have handed gfortran's runtime the command line: each rank
 * does it before entering MPI_Main (start/main_wrap.c), with the arguments
 * the runtime options left.  The wrappers make the linker take it
 * (-Wl,--undefined=amp_gfortran_args). */
void amp_gfortran_args(int argc, char **argv, char **envp)
{
    (void)envp;
    _gfortran_set_args(argc, argv);
}

_Noreturn void __wrap__gfortran_stop_numeric(int code, bool quiet);
_Noreturn void __wrap__gfortran_stop_string(const char *text, size_t len,
                                            bool quiet);

void __wrap__gfortran_stop_numeric(int code, bool quiet)
{
    if (!quiet)
        fprintf(stderr, "STOP %d\n", code);
    amp_start_rank_exit(code);
}

void __wrap__gfortran_stop_string(const char *text, size_t len, bool quiet)
{
    if (!quiet && text)
        fprintf(stderr, "STOP %.*s\n", (int)len, text);
    amp_start_rank_exit(0);
}
