! gfortran's STOP prints its code or text and calls exit(), which would end
! all the ranks of the process at once.  Under AMPI it ends the calling
! rank only, like returning from a C main: STOP n is return n, and the
! job's status is the first non-zero one; the other ranks reach their END
! REQUIRES: gfortran, ampi-runtime
! RUN: %gfortran_env %ampif90 %s -o %t
! RUN: %status %t +vp 4 +p 1 2>&1 | FileCheck %s
! RUN: %status %t +vp 4 +p 2 2>&1 | FileCheck %s

! CHECK-DAG: rank 0 reached END
! CHECK-DAG: rank 3 reached END
! CHECK-DAG: STOP 3
! CHECK-DAG: STOP rank one is done
! CHECK: exit status 3

program stops
  implicit none
  include 'mpif.h'
  integer :: ierr, me
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
  if (me == 1) stop 'rank one is done'
  if (me == 2) stop 3
  print '(a, i0, a)', 'rank ', me, ' reached END'
end program stops
