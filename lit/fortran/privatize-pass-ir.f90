! The pass plugin, loaded straight into flang: module variables, COMMON
! blocks and SAVEd variables become thread-local (initial-exec), constants
! and flang's own objects do not, mpif.h's COMMON blocks stay the MPI
! library's single copy, and every function is marked to reach TLS
! through %fs:0, which the assembly shows.
! REQUIRES: flang
! RUN: %flang -fpass-plugin=%ampi_pass -I %ampi_prefix/include -S -emit-llvm %s -o - | FileCheck %s
! RUN: %flang -fpass-plugin=%ampi_pass -I %ampi_prefix/include -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
! RUN: %flang -I %ampi_prefix/include -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PLAIN

! CHECK-DAG: @blk_ = common thread_local(initialexec) global [12 x i8]
! CHECK-DAG: @_QMcountersEhits = thread_local(initialexec) global i32 0
! CHECK-DAG: @_QMcountersEnames = thread_local(initialexec) global [2 x [8 x i8]]
! CHECK-DAG: @_QMcountersECmaxhits = constant i32 10
! CHECK-DAG: @_QFbumpEcalls = internal thread_local(initialexec) global i32 0
! CHECK-DAG: @_QFbumpElast = internal thread_local(initialexec) global i32 -1
! CHECK-DAG: @mpi_fortran_status_ignore_ = common global [32 x i8]
! CHECK-DAG: @_QQclX{{[0-9A-F]+}} = linkonce constant
! CHECK-DAG: @ampi.COMMON.blk_.size_differs_between_files = hidden constant i8 0, comdat($ampi.COMMON.blk_.12)
! CHECK-LABEL: define void @bump_(
! CHECK-SAME: #[[ATTRS:[0-9]+]]
! CHECK: attributes #[[ATTRS]] = {{{.*}}"indirect-tls-seg-refs"

! Each TLS access loads the thread pointer from %fs:0; none uses %fs:sym.
! ASM-LABEL: bump_:
! ASM: movq %fs:0, %r
! ASM-NOT: %fs:{{[_a-zA-Z]}}
! ASM-LABEL: .Lfunc_end

! Without the plugin nothing is thread-local.
! PLAIN-NOT: thread_local
! PLAIN-NOT: indirect-tls-seg-refs

module counters
  implicit none
  integer, parameter :: maxhits = 10
  integer :: hits = 0
  character(len=8) :: names(2)
end module counters

subroutine bump(status)
  use counters
  implicit none
  include 'mpif.h'
  integer :: status(MPI_STATUS_SIZE)
  integer :: i, j, k
  common /blk/ i, j, k
  integer, save :: calls = 0
  integer :: last
  data last /-1/
  calls = calls + 1
  last = i
  hits = min(hits + j + k, maxhits)
  names(1) = 'bumped'
  if (status(1) == MPI_STATUS_IGNORE(1)) print *, 'ignored', calls, last
end subroutine bump
