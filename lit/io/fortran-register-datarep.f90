! MPI_REGISTER_DATAREP from Fortran: the conversion and extent functions
! are Fortran subroutines (arguments by reference, IERROR last), called by
! the file accesses through a view in that representation; each INTEGER is
! stored xor Z'5A5A5A5A'.  MPI_CONVERSION_FN_NULL stores the bytes as they
! are.  A name registered twice is MPI_ERR_DUP_DATAREP.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif90 %s -o %t
! RUN: %t +vp 1 +p 1 %t.dat | FileCheck %s
! RUN: %t +vp 4 +p 2 %t.dat | FileCheck %s
! CHECK-NOT: FAIL
! CHECK: No Errors

      subroutine xor_write(userbuf, datatype, count, filebuf, position, &
                           extra_state, ierror)
      implicit none
      include 'mpif.h'
      integer userbuf(*), filebuf(*), datatype, count, ierror, i
      integer(kind=MPI_OFFSET_KIND) position
      integer(kind=MPI_ADDRESS_KIND) extra_state
      do i = 1, count
        filebuf(i) = ieor(userbuf(position + i), int(extra_state))
      end do
      ierror = MPI_SUCCESS
      end

      subroutine xor_read(userbuf, datatype, count, filebuf, position, &
                          extra_state, ierror)
      implicit none
      include 'mpif.h'
      integer userbuf(*), filebuf(*), datatype, count, ierror, i
      integer(kind=MPI_OFFSET_KIND) position
      integer(kind=MPI_ADDRESS_KIND) extra_state
      do i = 1, count
        userbuf(position + i) = ieor(filebuf(i), int(extra_state))
      end do
      ierror = MPI_SUCCESS
      end

      subroutine four(datatype, extent, extra_state, ierror)
      implicit none
      include 'mpif.h'
      integer datatype, ierror
      integer(kind=MPI_ADDRESS_KIND) extent, extra_state
      extent = 4
      ierror = MPI_SUCCESS
      end

      program datarep
      implicit none
      include 'mpif.h'
      external xor_read, xor_write, four
      integer me, ierr, fh, errs, cls, i
      integer v(3), back(3), raw(3)
      integer(kind=MPI_OFFSET_KIND) at
      integer(kind=MPI_ADDRESS_KIND) key
      character(len=256) name
      call MPI_INIT(ierr)
      call get_command_argument(1, name)
      call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
      errs = 0
      key = 1515870810
      call MPI_REGISTER_DATAREP('xorf', xor_read, xor_write, four, key, ierr)
      if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      call MPI_REGISTER_DATAREP('xorf', xor_read, xor_write, four, key, ierr)
      call MPI_ERROR_CLASS(ierr, cls, i)
      if (cls .ne. MPI_ERR_DUP_DATAREP) then
        print *, 'FAIL: second registration gave class', cls
        errs = errs + 1
      end if
      call MPI_REGISTER_DATAREP('asis', MPI_CONVERSION_FN_NULL, &
           MPI_CONVERSION_FN_NULL, four, key, ierr)
      if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      v = (/ 7, -9, 1048576 + me /)
      at = 3 * me
      call MPI_FILE_OPEN(MPI_COMM_WORLD, name, &
           MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
           MPI_INFO_NULL, fh, ierr)
      call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, &
           MPI_INTEGER, 'xorf', MPI_INFO_NULL, ierr)
      call MPI_FILE_WRITE_AT(fh, at, v, 3, MPI_INTEGER, MPI_STATUS_IGNORE, &
           ierr)
      call MPI_FILE_READ_AT(fh, at, back, 3, MPI_INTEGER, MPI_STATUS_IGNORE, &
           ierr)
      call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, &
           MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
      call MPI_FILE_READ_AT(fh, at, raw, 3, MPI_INTEGER, MPI_STATUS_IGNORE, &
           ierr)
      do i = 1, 3
        if (back(i) .ne. v(i) .or. raw(i) .ne. ieor(v(i), int(key))) then
          print *, 'FAIL: value', i, back(i), raw(i)
          errs = errs + 1
        end if
      end do
      call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, &
           MPI_INTEGER, 'asis', MPI_INFO_NULL, ierr)
      call MPI_FILE_READ_AT(fh, at, back, 3, MPI_INTEGER, MPI_STATUS_IGNORE, &
           ierr)
      do i = 1, 3
        if (back(i) .ne. raw(i)) errs = errs + 1
      end do
      call MPI_FILE_CLOSE(fh, ierr)
      call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, &
           MPI_COMM_WORLD, ierr)
      if (me .eq. 0 .and. errs .eq. 0) print '(a)', ' No Errors'
      if (me .eq. 0 .and. errs .ne. 0) print *, 'FAIL: errors', errs
      call MPI_FINALIZE(ierr)
      end
