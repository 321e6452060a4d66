! The mpi_f08 module (use mpi_f08), a template: scripts/gen_fortran_f08.py
! replaces !@TYPES@ with the handle types, !@CONSTANTS@ with mpif.h's
! constants (handles as values of their types), !@CALLBACKS@ with the
! abstract interfaces of the attribute and error handler callbacks,
! !@GENERICS@ with a generic
! interface per call and !@PROCEDURES@ with the calls' procedures, all from
! the classification of the C prototypes that makes the Fortran binding's
! wrappers (scripts/gen_fortran.py).  Each procedure calls the wrapper
! (pmpi_xxx_, arguments by reference) through an interface of its own;
! handles and statuses have the C bits, and a choice buffer goes as its
! address (runtime/mpi/fortran/fortran_f08.c).
module mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_char
  implicit none
  private :: c_int, c_char
  private :: amp_f08_buf, amp_f08_buf_end, amp_f08_buffer_detach

!@TYPES@

  type, bind(C) :: MPI_Status
    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR
    integer :: amp_internal(5)
  end type MPI_Status

!@CONSTANTS@

  ! Array sections are taken by blocking calls (copied in and out), not
  ! by nonblocking ones (MPI_ERR_BUFFER): not full subarray support.
  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.
  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.

  ! Special addresses: the COMMON blocks of mpif.h, which the library
  ! recognizes by address.
  integer :: MPI_BOTTOM, MPI_IN_PLACE
  type(MPI_Status) :: MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE(1)
  integer :: MPI_ERRCODES_IGNORE(1)
  integer :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)
  character(len=1) :: MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1, 1)
  integer :: MPI_BUFFER_AUTOMATIC
  common /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM
  common /MPI_FORTRAN_IN_PLACE/ MPI_IN_PLACE
  common /MPI_FORTRAN_STATUS_IGNORE/ MPI_STATUS_IGNORE
  common /MPI_FORTRAN_STATUSES_IGNORE/ MPI_STATUSES_IGNORE
  common /MPI_FORTRAN_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE
  common /MPI_FORTRAN_UNWEIGHTED/ MPI_UNWEIGHTED
  common /MPI_FORTRAN_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY
  common /MPI_FORTRAN_ARGV_NULL/ MPI_ARGV_NULL
  common /MPI_FORTRAN_ARGVS_NULL/ MPI_ARGVS_NULL
  common /MPI_FORTRAN_BUFFER_AUTOMATIC/ MPI_BUFFER_AUTOMATIC
  save /MPI_FORTRAN_BOTTOM/, /MPI_FORTRAN_IN_PLACE/
  save /MPI_FORTRAN_STATUS_IGNORE/, /MPI_FORTRAN_STATUSES_IGNORE/
  save /MPI_FORTRAN_ERRCODES_IGNORE/, /MPI_FORTRAN_UNWEIGHTED/
  save /MPI_FORTRAN_WEIGHTS_EMPTY/, /MPI_FORTRAN_ARGV_NULL/
  save /MPI_FORTRAN_ARGVS_NULL/, /MPI_FORTRAN_BUFFER_AUTOMATIC/

  ! The callbacks, as MPI-4.0 19.1.2 declares them (not BIND(C): flang
  ! refuses a BIND(C) procedure for them).  The library calls them with
  ! the C calling convention: VALUE pointers, everything else by
  ! reference, as a Fortran procedure takes them.
  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import :: c_ptr, MPI_Datatype
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function
    subroutine MPI_User_function_c(invec, inoutvec, len, datatype)
      import :: c_ptr, MPI_Datatype, MPI_COUNT_KIND
      type(c_ptr), value :: invec, inoutvec
      integer(kind=MPI_COUNT_KIND) :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function_c
!@CALLBACKS@
    subroutine MPI_Grequest_query_function(extra_state, status, ierror)
      import :: MPI_Status, MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      type(MPI_Status) :: status
      integer :: ierror
    end subroutine MPI_Grequest_query_function
    subroutine MPI_Grequest_free_function(extra_state, ierror)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine MPI_Grequest_free_function
    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
      import :: MPI_ADDRESS_KIND
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierror
    end subroutine MPI_Grequest_cancel_function
    subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, &
                                           ierror)
      import :: MPI_Datatype, MPI_ADDRESS_KIND
      type(MPI_Datatype) :: datatype
      integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
      integer :: ierror
    end subroutine MPI_Datarep_extent_function
    subroutine MPI_Datarep_conversion_function(userbuf, datatype, count, &
                                               filebuf, position, &
                                               extra_state, ierror)
      import :: c_ptr, MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND
      type(c_ptr), value :: userbuf, filebuf
      type(MPI_Datatype) :: datatype
      integer :: count, ierror
      integer(kind=MPI_OFFSET_KIND) :: position
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
    end subroutine MPI_Datarep_conversion_function
    subroutine MPI_Datarep_conversion_function_c(userbuf, datatype, count, &
                                                 filebuf, position, &
                                                 extra_state, ierror)
      import :: c_ptr, MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND, &
                MPI_COUNT_KIND
      type(c_ptr), value :: userbuf, filebuf
      type(MPI_Datatype) :: datatype
      integer(kind=MPI_COUNT_KIND) :: count
      integer(kind=MPI_OFFSET_KIND) :: position
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine MPI_Datarep_conversion_function_c
  end interface

  ! The predefined attribute callbacks (runtime/mpi/fortran/fortran_attr.c).
  procedure(MPI_Comm_copy_attr_function) :: MPI_COMM_NULL_COPY_FN
  procedure(MPI_Comm_copy_attr_function) :: MPI_COMM_DUP_FN
  procedure(MPI_Comm_delete_attr_function) :: MPI_COMM_NULL_DELETE_FN
  procedure(MPI_Type_copy_attr_function) :: MPI_TYPE_NULL_COPY_FN
  procedure(MPI_Type_copy_attr_function) :: MPI_TYPE_DUP_FN
  procedure(MPI_Type_delete_attr_function) :: MPI_TYPE_NULL_DELETE_FN
  procedure(MPI_Win_copy_attr_function) :: MPI_WIN_NULL_COPY_FN
  procedure(MPI_Win_copy_attr_function) :: MPI_WIN_DUP_FN
  procedure(MPI_Win_delete_attr_function) :: MPI_WIN_NULL_DELETE_FN

  ! A choice buffer's address for a call (its mode: 1 the call reads it,
  ! 2 writes it, 4 keeps it after returning), and the end of its use.
  interface
    function amp_f08_buf(buf, mode, tmp, ierror) bind(C, name="amp_f08_buf")
      import :: c_ptr, c_int
      type(*), dimension(..) :: buf
      integer(c_int), value :: mode
      type(c_ptr) :: tmp
      integer :: ierror
      type(c_ptr) :: amp_f08_buf
    end function amp_f08_buf
    subroutine amp_f08_buf_end(buf, mode, tmp) bind(C, name="amp_f08_buf_end")
      import :: c_ptr, c_int
      type(*), dimension(..) :: buf
      integer(c_int), value :: mode
      type(c_ptr), value :: tmp
    end subroutine amp_f08_buf_end
    subroutine amp_f08_buffer_detach(buffer_addr, size, ierror) &
        bind(C, name="amp_f08_buffer_detach")
      import :: c_ptr
      type(c_ptr) :: buffer_addr
      integer :: size, ierror
    end subroutine amp_f08_buffer_detach
  end interface

  interface MPI_Status_f2f08
    module procedure MPI_Status_f2f08_f08
  end interface
  interface MPI_Status_f082f
    module procedure MPI_Status_f082f_f08
  end interface
  interface MPI_Buffer_detach
    module procedure MPI_Buffer_detach_f08
  end interface

!@GENERICS@

contains

!@OPERATORS@

  ! Statuses of mpif.h and use mpi (MPI_STATUS_SIZE integers) and of
  ! mpi_f08 have the same bits.
  subroutine MPI_Status_f2f08_f08(f_status, f08_status, ierror)
    integer, intent(in) :: f_status(MPI_STATUS_SIZE)
    type(MPI_Status), intent(out) :: f08_status
    integer, optional, intent(out) :: ierror
    f08_status%MPI_SOURCE = f_status(MPI_SOURCE)
    f08_status%MPI_TAG = f_status(MPI_TAG)
    f08_status%MPI_ERROR = f_status(MPI_ERROR)
    f08_status%amp_internal(1) = f_status(4)
    f08_status%amp_internal(2) = f_status(5)
    f08_status%amp_internal(3) = f_status(6)
    f08_status%amp_internal(4) = f_status(7)
    f08_status%amp_internal(5) = f_status(8)
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine MPI_Status_f2f08_f08

  subroutine MPI_Status_f082f_f08(f08_status, f_status, ierror)
    type(MPI_Status), intent(in) :: f08_status
    integer, intent(out) :: f_status(MPI_STATUS_SIZE)
    integer, optional, intent(out) :: ierror
    f_status(MPI_SOURCE) = f08_status%MPI_SOURCE
    f_status(MPI_TAG) = f08_status%MPI_TAG
    f_status(MPI_ERROR) = f08_status%MPI_ERROR
    f_status(4) = f08_status%amp_internal(1)
    f_status(5) = f08_status%amp_internal(2)
    f_status(6) = f08_status%amp_internal(3)
    f_status(7) = f08_status%amp_internal(4)
    f_status(8) = f08_status%amp_internal(5)
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine MPI_Status_f082f_f08

  ! BUFFER_ADDR gets the address of the buffer detached.
  subroutine MPI_Buffer_detach_f08(buffer_addr, size, ierror)
    type(c_ptr), intent(out) :: buffer_addr
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    integer :: ierr
    call amp_f08_buffer_detach(buffer_addr, size, ierr)
    if (present(ierror)) ierror = ierr
  end subroutine MPI_Buffer_detach_f08

!@PROCEDURES@

end module mpi_f08
