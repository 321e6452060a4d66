/* The beginnings of flang's Fortran I/O statements that ampif90 wraps
 * (start/fortran_io.S, wrappers/ampicc.c): X(name) for each.  The list is
 * the _FortranAioBegin... functions of flang 19's runtime. */
#ifndef AMP_START_FORTRAN_IO_NAMES_H
#define AMP_START_FORTRAN_IO_NAMES_H

#define AMP_FORTRAN_IO_BEGINS(X) \
    X(_FortranAioBeginBackspace) \
    X(_FortranAioBeginClose) \
    X(_FortranAioBeginEndfile) \
    X(_FortranAioBeginExternalFormattedInput) \
    X(_FortranAioBeginExternalFormattedOutput) \
    X(_FortranAioBeginExternalListInput) \
    X(_FortranAioBeginExternalListOutput) \
    X(_FortranAioBeginFlush) \
    X(_FortranAioBeginInquireFile) \
    X(_FortranAioBeginInquireIoLength) \
    X(_FortranAioBeginInquireUnit) \
    X(_FortranAioBeginInternalArrayFormattedInput) \
    X(_FortranAioBeginInternalArrayFormattedOutput) \
    X(_FortranAioBeginInternalArrayListInput) \
    X(_FortranAioBeginInternalArrayListOutput) \
    X(_FortranAioBeginInternalFormattedInput) \
    X(_FortranAioBeginInternalFormattedOutput) \
    X(_FortranAioBeginInternalListInput) \
    X(_FortranAioBeginInternalListOutput) \
    X(_FortranAioBeginOpenNewUnit) \
    X(_FortranAioBeginOpenUnit) \
    X(_FortranAioBeginRewind) \
    X(_FortranAioBeginUnformattedInput) \
    X(_FortranAioBeginUnformattedOutput) \
    X(_FortranAioBeginWait) \
    X(_FortranAioBeginWaitAll)

#endif
