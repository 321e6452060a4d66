/*
 * Linked into every program (libampi_main.a) together with
 * -Wl,--wrap=main: the C runtime's call to main lands here, and each rank
 * runs the program's entry.
 *
 * The entry is main (__real_main), or, in a program written for Charm++'s
 * AMPI, MPI_Main or AMPI_Main (C, C++: int (int argc, char **argv)) or a
 * Fortran subroutine MPI_Main with no main program (mpi_main_ to the
 * linker).  Those are AMPI's own entries, so they win over a main the
 * program also has, as in Charm++'s AMPI, which never runs a Fortran main
 * program beside subroutine MPI_Main (docs/user-guide.md).
 *
 * A program without main still links: the weak main below stands in for
 * it (a program's own main, even from an archive, takes precedence), and
 * reports at run time that the program has no entry at all.
 */
#include <stdio.h>

typedef int (*amp_main_fn_t)(int argc, char **argv, char **envp);

int __real_main(int argc, char **argv, char **envp);
int amp_start_main(int argc, char **argv, char **envp, amp_main_fn_t main_fn);
int __wrap_main(int argc, char **argv, char **envp);
int main(int argc, char **argv, char **envp);

int MPI_Main(int argc, char **argv) __attribute__((weak));
int AMPI_Main(int argc, char **argv) __attribute__((weak));
void mpi_main_(void) __attribute__((weak));
/* The command line into the Fortran runtime (start/fortran_main.c,
 * gfortran_main.c): the one of the compiler that linked the program. */
void amp_flang_args(int argc, char **argv, char **envp) __attribute__((weak));
void amp_gfortran_args(int argc, char **argv, char **envp)
    __attribute__((weak));

#include "base/sanitize.h"
#ifdef AMP_ASAN
/* The sanitizer build's defaults (sanitize.c) come into every program. */
extern const char amp_sanitize_defaults[];
__attribute__((used)) static const char *const sanitize_defaults =
    amp_sanitize_defaults;
#endif

/* Only when the program has no main of its own (it is weak). */
__attribute__((weak)) int main(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)envp;
    fprintf(stderr,
            "ampi: %s has no entry: define main, MPI_Main or AMPI_Main "
            "(C, C++), or a Fortran main program or subroutine MPI_Main\n",
            argv && argv[0] ? argv[0] : "the program");
    return 1;
}

/* A Fortran subroutine returns nothing: each rank's status is 0, or
 * STOP's (start/fortran_main.c, gfortran_main.c).  Without a main program
 * nothing else tells the Fortran runtime the command line
 * (get_command_argument). */
static int fortran_entry(int argc, char **argv, char **envp)
{
    if (amp_flang_args)
        amp_flang_args(argc, argv, envp);
    else if (amp_gfortran_args)
        amp_gfortran_args(argc, argv, envp);
    mpi_main_();
    return 0;
}

static amp_main_fn_t program_entry(void)
{
    if (MPI_Main)
        return (amp_main_fn_t)(void (*)(void))MPI_Main;
    if (AMPI_Main)
        return (amp_main_fn_t)(void (*)(void))AMPI_Main;
    if (mpi_main_)
        return fortran_entry;
    return __real_main;
}

int __wrap_main(int argc, char **argv, char **envp)
{
    return amp_start_main(argc, argv, envp, program_entry());
}
