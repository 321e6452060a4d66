! Fortran code that calls the C library's generators (through bind(C))
! draws, in every rank, the numbers a process of its own draws: each rank
! starts from glibc's initial state, with other ranks drawing in between.
! flang with the privatization pass, and gfortran (pie privatization).
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 4 +p 2 | FileCheck %s
! RUN: %ampirun -n 2 --allow-run-as-root --launcher-arg --oversubscribe %t +vp 4 | FileCheck %s
! RUN: %if gfortran %{ %gfortran_env %ampif90 %s -o %t.gf %}
! RUN: %if gfortran %{ %t.gf +vp 4 +p 2 | FileCheck %s %}

! CHECK: 0 of 4 ranks drew another sequence

program draw
  use, intrinsic :: iso_c_binding, only: c_int, c_long, c_double
  implicit none
  include 'mpif.h'
  interface
    function c_rand() bind(C, name='rand')
      import :: c_int
      integer(c_int) :: c_rand
    end function
    subroutine c_srandom(seed) bind(C, name='srandom')
      import :: c_int
      integer(c_int), value :: seed
    end subroutine
    function c_random() bind(C, name='random')
      import :: c_long
      integer(c_long) :: c_random
    end function
  end interface
  integer :: ierr, me, np, bad, nbad
  integer(c_int) :: a, b
  integer(c_long) :: r

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  bad = 0
  a = c_rand()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  b = c_rand()
  if (a /= 1804289383 .or. b /= 846930886) bad = 1
  call c_srandom(7)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  r = c_random()
  if (r /= 1045618677_c_long) bad = 1
  call MPI_Reduce(bad, nbad, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (me == 0) print '(I0, A, I0, A)', nbad, ' of ', np, ' ranks drew another sequence'
  call MPI_Finalize(ierr)
end program
