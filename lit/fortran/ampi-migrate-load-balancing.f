! AMPI's load-balancing calls from a legacy Fortran program (mpif.h, a
! COMMON block privatized per rank): every rank registers callbacks that
! count its departures and arrivals in its COMMON block, gives its load
! with AMPI_LOAD_SET_VALUE (10 on PE 0, 1 elsewhere, so GreedyLB must
! move a rank off PE 0 when there are several PEs) and calls
! AMPI_MIGRATE(AMPI_INFO_LB_SYNC), then AMPI_MIGRATE_TO_PE to the next
! PE.  Each rank checks that its callbacks ran exactly when its PE
! (AMPI_MY_WTH) changed, on its own COMMON block, and the error paths:
! AMPI_MIGRATE_TO_PE(-5), a negative load and an in-memory checkpoint.
! REQUIRES: flang, ampi-runtime
! RUN: %ampif77 %s -o %t
! RUN: %t +vp 4 +p 2 +balancer GreedyLB \
! RUN:   | FileCheck %s --check-prefix=MOVE
! RUN: %t +vp 8 +p 2 +balancer GreedyLB \
! RUN:   | FileCheck %s --check-prefix=MOVE
! RUN: %t +vp 1 +p 1 +balancer GreedyLB \
! RUN:   | FileCheck %s --check-prefix=STAY
! gfortran: ampi-migrate-load-balancing-gfortran.test, same program.

! MOVE: balanced: [[N:[1-9][0-9]*]] ranks moved, [[N]] arrivals,
! MOVE-SAME: [[N]] departures
! MOVE: to next PE: [[M:[1-9][0-9]*]] ranks moved, [[M]] arrivals
! STAY: balanced: 0 ranks moved, 0 arrivals, 0 departures
! STAY: to next PE: 0 ranks moved, 0 arrivals
! MOVE: {{^}}0 failed checks
! STAY: {{^}}0 failed checks

      PROGRAM LBF77
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP, NPES, PE0, PE1, PE2, MYPE, ICLASS
      INTEGER LOCAL(4), TOTAL(4)
      INTEGER NARRIV, NLEAVE, LASTPE
      COMMON /MIGR/ NARRIV, NLEAVE, LASTPE
      EXTERNAL ARRIVE, LEAVE
      DOUBLE PRECISION LOAD
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      NARRIV = 0
      NLEAVE = 0
      LASTPE = -1
      LOCAL(1) = 0
      NPES = MYPE(AMPI_NUM_WTHS)
      CALL AMPI_REGISTER_JUST_MIGRATED(ARRIVE, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'register arrive', LOCAL)
      CALL AMPI_REGISTER_ABOUT_TO_MIGRATE(LEAVE, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'register leave', LOCAL)

! A barrier only: nobody moves.
      PE0 = MYPE(AMPI_MY_WTH)
      CALL AMPI_MIGRATE(MPI_INFO_NULL, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'migrate null', LOCAL)
      CALL CHECK(MYPE(AMPI_MY_WTH) .EQ. PE0, 'null moved', LOCAL)

! Balance by the loads given.
      CALL AMPI_LOAD_STOP_MEASURE(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'stop measure', LOCAL)
      CALL AMPI_LOAD_START_MEASURE(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'start measure', LOCAL)
      LOAD = 1.0D0
      IF (PE0 .EQ. 0) LOAD = 10.0D0
      CALL AMPI_LOAD_SET_VALUE(LOAD, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'set value', LOCAL)
      CALL AMPI_MIGRATE(AMPI_INFO_LB_SYNC, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'migrate sync', LOCAL)
      PE1 = MYPE(AMPI_MY_WTH)
      LOCAL(2) = 0
      IF (PE1 .NE. PE0) LOCAL(2) = 1
      CALL CHECK(NARRIV .EQ. LOCAL(2), 'arrivals', LOCAL)
      CALL CHECK(NLEAVE .EQ. LOCAL(2), 'departures', LOCAL)
      IF (LOCAL(2) .EQ. 1)
     &   CALL CHECK(LASTPE .EQ. PE1, 'arrival PE', LOCAL)
      LOCAL(3) = NARRIV
      LOCAL(4) = NLEAVE
      CALL MPI_REDUCE(LOCAL(2), TOTAL(2), 3, MPI_INTEGER, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) WRITE (*, 100) TOTAL(2), TOTAL(3), TOTAL(4)
  100 FORMAT ('balanced: ', I0, ' ranks moved, ', I0, ' arrivals, ',
     &        I0, ' departures')

! Every rank to the next PE.
      CALL AMPI_MIGRATE_TO_PE(MOD(PE1 + 1, NPES), IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'migrate to pe', LOCAL)
      PE2 = MYPE(AMPI_MY_WTH)
      CALL CHECK(PE2 .EQ. MOD(PE1 + 1, NPES), 'to pe', LOCAL)
      LOCAL(2) = 0
      IF (PE2 .NE. PE1) LOCAL(2) = 1
      LOCAL(3) = NARRIV - LOCAL(3)
      CALL CHECK(LOCAL(3) .EQ. LOCAL(2), 'arrivals 2', LOCAL)
      CALL CHECK(NLEAVE - LOCAL(4) .EQ. LOCAL(2), 'departures 2',
     &           LOCAL)
      IF (LOCAL(2) .EQ. 1)
     &   CALL CHECK(LASTPE .EQ. PE2, 'arrival PE 2', LOCAL)
      CALL MPI_REDUCE(LOCAL(2), TOTAL(2), 2, MPI_INTEGER, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) WRITE (*, 200) TOTAL(2), TOTAL(3)
  200 FORMAT ('to next PE: ', I0, ' ranks moved, ', I0, ' arrivals')

! Errors.
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             IERR)
      CALL AMPI_MIGRATE_TO_PE(-5, IERR)
      CALL CHECK(IERR .NE. MPI_SUCCESS, 'pe -5 accepted', LOCAL)
      CALL MPI_ERROR_CLASS(IERR, ICLASS, IERR)
      CALL CHECK(ICLASS .EQ. MPI_ERR_ARG, 'pe -5 class', LOCAL)
      CALL AMPI_LOAD_SET_VALUE(-1.0D0, IERR)
      CALL CHECK(IERR .NE. MPI_SUCCESS, 'load -1 accepted', LOCAL)
      CALL MPI_ERROR_CLASS(IERR, ICLASS, IERR)
      CALL CHECK(ICLASS .EQ. MPI_ERR_ARG, 'load -1 class', LOCAL)
      CALL AMPI_MIGRATE(AMPI_INFO_CHKPT_IN_MEMORY, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'in-memory checkpoint', LOCAL)
      CALL AMPI_YIELD(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'yield', LOCAL)

      CALL MPI_REDUCE(LOCAL(1), TOTAL(1), 1, MPI_INTEGER, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) WRITE (*, 300) TOTAL(1)
  300 FORMAT (I0, ' failed checks')
      CALL MPI_FINALIZE(IERR)
      END

! The value of the predefined attribute KEY (AMPI_MY_WTH ...).
      INTEGER FUNCTION MYPE(KEY)
      INCLUDE 'mpif.h'
      INTEGER KEY, IERR
      INTEGER(KIND=MPI_ADDRESS_KIND) VAL
      LOGICAL FLAG
      CALL MPI_COMM_GET_ATTR(MPI_COMM_WORLD, KEY, VAL, FLAG, IERR)
      MYPE = -1
      IF (FLAG) MYPE = INT(VAL)
      END

      SUBROUTINE CHECK(OK, WHAT, LOCAL)
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER LOCAL(4)
      IF (.NOT. OK) THEN
         WRITE (*, '(A, A)') 'FAIL: ', WHAT
         LOCAL(1) = LOCAL(1) + 1
      END IF
      END

! The callbacks: they run in the rank that moves, on its COMMON block.
      SUBROUTINE ARRIVE
      INCLUDE 'mpif.h'
      INTEGER MYPE
      INTEGER NARRIV, NLEAVE, LASTPE
      COMMON /MIGR/ NARRIV, NLEAVE, LASTPE
      NARRIV = NARRIV + 1
      LASTPE = MYPE(AMPI_MY_WTH)
      END

      SUBROUTINE LEAVE
      INTEGER NARRIV, NLEAVE, LASTPE
      COMMON /MIGR/ NARRIV, NLEAVE, LASTPE
      NLEAVE = NLEAVE + 1
      END
