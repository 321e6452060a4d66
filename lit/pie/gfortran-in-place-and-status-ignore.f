! MPI_IN_PLACE and MPI_STATUS_IGNORE from mpif.h are COMMON blocks that
! gfortran defines in the program, so under pie privatization each rank's
! copy of the program has its own; the library still recognizes them.
! REQUIRES: gfortran, ampi-runtime
! RUN: %gfortran_env %ampif77 %s -o %t
! RUN: %t +vp 4 +p 2 | FileCheck %s

! CHECK: sum 6 count 4 received 1

      PROGRAM INPLACE
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP, IV(2), MSG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      IV(1) = ME
      IV(2) = 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, IV, 2, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      MSG = 0
      IF (ME .EQ. 1) CALL MPI_SEND(1, 1, MPI_INTEGER, 0, 5,
     &                             MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) CALL MPI_RECV(MSG, 1, MPI_INTEGER, 1, 5,
     &                   MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      IF (ME .EQ. 0) WRITE (*, '(A, I0, A, I0, A, I0)') 'sum ', IV(1),
     &   ' count ', IV(2), ' received ', MSG
      CALL MPI_FINALIZE(IERR)
      END
