! The Fortran form of legacy-array-same-file-as-openmpi.c, through mpif.h
! with its state in a COMMON block (privatized per rank): a header in rank
! order through the shared file pointer, a 3-D array of REAL(8) distributed
! in blocks written collectively through a subarray view (Fortran order),
! a trailer, then everything read back with slabs of z planes and checked.
! Built with ampif90 and with Open MPI's mpif90, the files are the same
! byte for byte.
! REQUIRES: flang, ampi-runtime, openmpi-fortran
! RUN: rm -f %t.one.dat %t.two.dat %t.ompi.dat
! RUN: %ampif90 %s -o %t
! RUN: %openmpi_mpif90 %s -o %t.ompi
! RUN: %t +vp 4 +p 2 %t.one.dat | FileCheck %s
! RUN: %mpirun -np 2 %t +vp 4 +p 1 %t.two.dat | FileCheck %s
! RUN: %mpirun -np 4 %t.ompi %t.ompi.dat | FileCheck %s
! RUN: cmp %t.one.dat %t.ompi.dat
! RUN: cmp %t.two.dat %t.ompi.dat
! CHECK: rank 0 of 4 wrote 6552 values
! CHECK: No Errors

      subroutine decompose(n, p, c, start, len)
      integer n, p, c, start, len
      len = n / p
      if (c .lt. mod(n, p)) len = len + 1
      start = c * (n / p) + min(c, mod(n, p))
      end

      double precision function value(i, j, k)
      integer i, j, k
      value = i * 10000.0d0 + j * 100.0d0 + k + 0.25d0
      end

      subroutine write_all_parts(fh, hdrbytes)
      implicit none
      include 'mpif.h'
      integer fh, nx, ny, nz
      parameter (nx = 36, ny = 28, nz = 26)
      integer(kind=MPI_OFFSET_KIND) hdrbytes, disp
      integer me, np, errs
      common /state/ me, np, errs
      integer dims(3), gsizes(3), lsizes(3), starts(3), coords(3)
      integer filetype, ierr, i, j, k, n, status(MPI_STATUS_SIZE)
      character(len=32) line
      double precision value
      double precision, allocatable :: a(:)
      write (line, '(a,i4,a,i4,a)') 'rank ', me, ' of ', np, &
           '  (block data)'
      line(32:32) = char(10)
      call MPI_FILE_WRITE_ORDERED(fh, line, 32, MPI_CHARACTER, status, ierr)
      call MPI_FILE_GET_POSITION_SHARED(fh, hdrbytes, ierr)
      dims = 0
      call MPI_DIMS_CREATE(np, 3, dims, ierr)
      coords(1) = mod(me, dims(1))
      coords(2) = mod(me / dims(1), dims(2))
      coords(3) = me / (dims(1) * dims(2))
      gsizes = (/ nx, ny, nz /)
      do i = 1, 3
        call decompose(gsizes(i), dims(i), coords(i), starts(i), lsizes(i))
      end do
      allocate(a(lsizes(1) * lsizes(2) * lsizes(3)))
      n = 0
      do k = 0, lsizes(3) - 1
        do j = 0, lsizes(2) - 1
          do i = 0, lsizes(1) - 1
            n = n + 1
            a(n) = value(starts(1) + i, starts(2) + j, starts(3) + k)
          end do
        end do
      end do
      call MPI_TYPE_CREATE_SUBARRAY(3, gsizes, lsizes, starts, &
           MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, filetype, ierr)
      call MPI_TYPE_COMMIT(filetype, ierr)
      call MPI_FILE_SET_VIEW(fh, hdrbytes, MPI_DOUBLE_PRECISION, filetype, &
           'native', MPI_INFO_NULL, ierr)
      call MPI_FILE_WRITE_ALL(fh, a, n, MPI_DOUBLE_PRECISION, status, ierr)
      call MPI_TYPE_FREE(filetype, ierr)
      if (me .eq. 0) print '(a,i2,a,i5,a)', 'rank 0 of', np, ' wrote', n, &
           ' values'
      disp = hdrbytes + 8_MPI_OFFSET_KIND * nx * ny * nz
      call MPI_FILE_SET_VIEW(fh, disp, MPI_BYTE, MPI_BYTE, 'native', &
           MPI_INFO_NULL, ierr)
      line(1:8) = 'the end' // char(10)
      if (me .eq. 0) then
        call MPI_FILE_WRITE_ORDERED(fh, line, 8, MPI_CHARACTER, status, ierr)
      else
        call MPI_FILE_WRITE_ORDERED(fh, line, 0, MPI_CHARACTER, status, ierr)
      end if
      deallocate(a)
      end

      subroutine check_all_parts(fh, hdrbytes)
      implicit none
      include 'mpif.h'
      integer fh, nx, ny, nz
      parameter (nx = 36, ny = 28, nz = 26)
      integer(kind=MPI_OFFSET_KIND) hdrbytes
      integer me, np, errs
      common /state/ me, np, errs
      integer gsizes(3), sizes(3), starts(3), filetype, ierr, i, j, k, n
      integer status(MPI_STATUS_SIZE)
      character(len=32) line, want
      double precision value
      double precision, allocatable :: s(:)
      call MPI_FILE_READ_ORDERED(fh, line, 32, MPI_CHARACTER, status, ierr)
      write (want, '(a,i4,a,i4)') 'rank ', me, ' of ', np
      if (line(1:17) .ne. want(1:17)) errs = errs + 1
      gsizes = (/ nx, ny, nz /)
      sizes = (/ nx, ny, 0 /)
      starts = 0
      call decompose(nz, np, me, starts(3), sizes(3))
      allocate(s(nx * ny * sizes(3) + 1))
      call MPI_TYPE_CREATE_SUBARRAY(3, gsizes, sizes, starts, &
           MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, filetype, ierr)
      call MPI_TYPE_COMMIT(filetype, ierr)
      call MPI_FILE_SET_VIEW(fh, hdrbytes, MPI_DOUBLE_PRECISION, filetype, &
           'native', MPI_INFO_NULL, ierr)
      call MPI_FILE_READ_ALL(fh, s, nx * ny * sizes(3), &
           MPI_DOUBLE_PRECISION, status, ierr)
      n = 0
      do k = 0, sizes(3) - 1
        do j = 0, ny - 1
          do i = 0, nx - 1
            n = n + 1
            if (s(n) .ne. value(i, j, starts(3) + k)) errs = errs + 1
          end do
        end do
      end do
      call MPI_TYPE_FREE(filetype, ierr)
      deallocate(s)
      end

      program legacy
      implicit none
      include 'mpif.h'
      integer me, np, errs
      common /state/ me, np, errs
      integer fh, ierr, total
      integer(kind=MPI_OFFSET_KIND) hdrbytes
      character(len=256) name
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
      errs = 0
      name = 'legacy-array-fortran.dat'
      if (command_argument_count() .ge. 1) call get_command_argument(1, name)
      call MPI_FILE_OPEN(MPI_COMM_WORLD, name, &
           MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
      call write_all_parts(fh, hdrbytes)
      call MPI_FILE_CLOSE(fh, ierr)
      call MPI_FILE_OPEN(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, &
           MPI_INFO_NULL, fh, ierr)
      call check_all_parts(fh, hdrbytes)
      call MPI_FILE_CLOSE(fh, ierr)
      call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, &
           MPI_COMM_WORLD, ierr)
      if (me .eq. 0) then
        if (total .eq. 0) then
          print '(a)', ' No Errors'
        else
          print '(a,i8,a)', ' Found', total, ' errors'
        end if
      end if
      call MPI_FINALIZE(ierr)
      end
