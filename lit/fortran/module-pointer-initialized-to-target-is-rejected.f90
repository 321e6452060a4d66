! A module pointer initialized to a privatized target (p => t) would need
! a different address in every rank, which no static initializer can
! hold, and other files cannot tell it must be set per rank.  The pass
! rejects it with a message naming both variables (and, with -g, the
! line), instead of miscompiling it.
! REQUIRES: flang
! RUN: not %flang -fpass-plugin=%ampi_pass -c %s -o %t.o 2>&1 | FileCheck %s
! RUN: not %flang -g -fpass-plugin=%ampi_pass -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=LINE
! RUN: %flang -c %s -o %t.o

! CHECK: ampi-privatize: variable 'p' of module 'targets' is initialized with the address of variable 't' of module 'targets', which each rank has its own copy of

module targets
  implicit none
  integer, target, save :: t = 5
  ! LINE: ampi-privatize: variable 'p' of module 'targets' ({{.*}}module-pointer-initialized-to-target-is-rejected.f90:[[@LINE+1]]) is initialized
  integer, pointer :: p => t
end module targets
