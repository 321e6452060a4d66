/*
 * charm-api.h: the macros that programs and libraries written for
 * Charm++'s AMPI use to declare their C entry points and the routines their
 * Fortran code calls.  Installed beside mpi.h; it needs nothing else.
 *
 *   CLINKAGE, CDECL        C linkage (extern "C" in C++, nothing in C)
 *   FLINKAGE, FDECL        the same, for a routine Fortran calls
 *   FTN_NAME(CAPS, lower)  the linker's name of Fortran routine lower:
 *                          lower_ (gfortran and flang both add one
 *                          underscore to the lower-case name)
 *   FORTRAN_AS_C(CAPS, c_fn, lower, (params), (args))
 *                          defines Fortran routine lower, which calls
 *                          c_fn args
 *   FORTRAN_AS_C_RETURN(type, CAPS, c_fn, lower, (params), (args))
 *                          the same for a Fortran function returning type
 */
#ifndef AMPI_CHARM_API_H
#define AMPI_CHARM_API_H

#ifdef __cplusplus
#define CLINKAGE extern "C"
#else
#define CLINKAGE
#endif
#define FLINKAGE CLINKAGE

#undef CDECL
#define CDECL CLINKAGE
#define FDECL FLINKAGE

#define FTN_NAME(caps, nocaps) nocaps##_

#define FORTRAN_AS_C(CAPITALNAME, Cname, lowername, routine_args, c_args)      \
    FLINKAGE void FTN_NAME(CAPITALNAME, lowername) routine_args                \
    {                                                                          \
        Cname c_args;                                                          \
    }

#define FORTRAN_AS_C_RETURN(returnType, CAPITALNAME, Cname, lowername,         \
                            routine_args, c_args)                              \
    FLINKAGE returnType FTN_NAME(CAPITALNAME, lowername) routine_args          \
    {                                                                          \
        return Cname c_args;                                                   \
    }

#endif
