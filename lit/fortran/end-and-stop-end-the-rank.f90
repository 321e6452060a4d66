! flang ends a main program (END) and STOP by closing every unit and
! calling exit(), which would end all the ranks of the process at once.
! Under AMPI, END and STOP end the calling rank only, like returning from
! a C main: STOP n is return n, and the job's status is the first non-zero
! one.  ERROR STOP ends the job at once, with its code.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %status %t +vp 4 +p 1 stop 2>&1 | FileCheck %s --check-prefix=STOPPED
! RUN: %status %t +vp 4 +p 2 stop 2>&1 | FileCheck %s --check-prefix=STOPPED
! RUN: %status %t +vp 4 +p 1 end 2>&1 | FileCheck %s --check-prefix=ENDED
! RUN: %status %t +vp 4 +p 2 error 2>&1 | FileCheck %s --check-prefix=ABORTED

! STOPPED-DAG: rank 0 reached END
! STOPPED-DAG: Fortran STOP: code 3
! STOPPED-DAG: Fortran STOP: rank one is done
! STOPPED-DAG: Fortran STOP{{$}}
! STOPPED: exit status 3

! ENDED-COUNT-4: reached END
! ENDED: exit status 0

! ABORTED: Fortran ERROR STOP: code 5
! ABORTED-NOT: reached END
! ABORTED: exit status 5

program stops
  use mpi
  implicit none
  integer :: ierr, me
  character(len=8) :: mode
  call get_command_argument(1, mode)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (mode == 'error') then
    if (me == 1) error stop 5
    call MPI_BARRIER(MPI_COMM_WORLD, ierr) ! rank 1 never arrives
  end if
  call MPI_FINALIZE(ierr)
  if (mode == 'stop') then
    if (me == 1) stop 'rank one is done'
    if (me == 2) stop 3
    if (me == 3) stop
  end if
  print '(a, i0, a)', 'rank ', me, ' reached END'
end program stops
