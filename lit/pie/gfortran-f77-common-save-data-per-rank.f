! A legacy Fortran 77 program built with gfortran keeps its state in
! COMMON blocks (named and blank, one initialized by BLOCK DATA), SAVEd and
! DATA-initialized local variables and main-program variables.  With
! gfortran, ampif77's default privatization is pie: every rank runs its
! own relocated copy of the program image, so each has its own copy of
! each: a rank writes its rank into all of them, lets the others run (a
! barrier) and reads its own values back.  Built with -privatize=none the
! ranks of a worker thread share them, which the test shows too.
! REQUIRES: gfortran, ampi-runtime
! RUN: %gfortran_env %ampif77 -w %s -o %t
! RUN: %t +vp 4 +p 1 | FileCheck %s --check-prefix=PRIVATE
! RUN: %t +vp 4 +p 2 | FileCheck %s --check-prefix=PRIVATE
! RUN: %t +vp 16 +p 2 | FileCheck %s --check-prefix=PRIVATE
! RUN: %gfortran_env %ampif77 -privatize=none -w %s -o %t.shared
! RUN: %t.shared +vp 4 +p 1 | FileCheck %s --check-prefix=SHARED

! PRIVATE: [[N:[0-9]+]] of [[N]] ranks saw the initial values; 0 saw
! SHARED: 4 of 4 ranks saw the initial values; 4 saw another rank's

      PROGRAM LEGACY
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP, NFRESH, NBAD, ICHECK, IFRESH
      INTEGER MINE, LOCAL(2)
      SAVE MINE
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      LOCAL(1) = IFRESH()
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      MINE = ME
      CALL SETALL(ME)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      LOCAL(2) = ICHECK(ME)
      IF (MINE .NE. ME) LOCAL(2) = 1
      CALL MPI_ALLREDUCE(LOCAL(1), NFRESH, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL MPI_ALLREDUCE(LOCAL(2), NBAD, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) WRITE (*, 100) NFRESH, NP, NBAD
  100 FORMAT (I0, ' of ', I0, ' ranks saw the initial values; ', I0,
     &        ' saw another rank''s')
      CALL MPI_FINALIZE(IERR)
      END

      BLOCK DATA INIT
      INTEGER ISTEP
      DOUBLE PRECISION XVAL(100)
      COMMON /STATE/ ISTEP, XVAL
      CHARACTER*16 LABEL
      COMMON /NAMES/ LABEL
      DATA ISTEP /42/, XVAL /100*1.5D0/
      DATA LABEL /'initial'/
      END

! 1 when every variable still holds its initial value.
      INTEGER FUNCTION IFRESH()
      INTEGER ISTEP
      DOUBLE PRECISION XVAL(100)
      COMMON /STATE/ ISTEP, XVAL
      CHARACTER*16 LABEL
      COMMON /NAMES/ LABEL
      INTEGER IWORK(10)
      COMMON IWORK
      INTEGER ITALLY
      IFRESH = 0
      IF (ISTEP .EQ. 42 .AND. XVAL(100) .EQ. 1.5D0 .AND.
     &    LABEL .EQ. 'initial' .AND. IWORK(10) .EQ. 0 .AND.
     &    ITALLY(0, 0) .EQ. 0) IFRESH = 1
      END

      SUBROUTINE SETALL(ME)
      INTEGER ME, I, IDUMMY, ITALLY
      INTEGER ISTEP
      DOUBLE PRECISION XVAL(100)
      COMMON /STATE/ ISTEP, XVAL
      CHARACTER*16 LABEL
      COMMON /NAMES/ LABEL
      INTEGER IWORK(10)
      COMMON IWORK
      ISTEP = ME
      DO 10 I = 1, 100
         XVAL(I) = ME + I
   10 CONTINUE
      DO 20 I = 1, 10
         IWORK(I) = ME * I
   20 CONTINUE
      WRITE (LABEL, '(A, I0)') 'rank-', ME
      IDUMMY = ITALLY(1, ME)
      END

! A SAVEd counter and a DATA-initialized variable (SAVEd implicitly).
! MODE 0: 0 when both hold their initial values; 1: store ME in them;
! 2: 0 when they hold what MODE 1 stored.
      INTEGER FUNCTION ITALLY(MODE, ME)
      INTEGER MODE, ME, NCALLS, LAST
      SAVE NCALLS
      DATA NCALLS /0/, LAST /-1/
      ITALLY = 0
      IF (MODE .EQ. 0 .AND. (NCALLS .NE. 0 .OR. LAST .NE. -1))
     &   ITALLY = 1
      IF (MODE .EQ. 1) THEN
         NCALLS = NCALLS + 1
         LAST = ME
      END IF
      IF (MODE .EQ. 2 .AND. (NCALLS .NE. 1 .OR. LAST .NE. ME))
     &   ITALLY = 1
      END

! 1 when any variable holds a value another rank wrote.
      INTEGER FUNCTION ICHECK(ME)
      INTEGER ME, I, ITALLY
      INTEGER ISTEP
      DOUBLE PRECISION XVAL(100)
      COMMON /STATE/ ISTEP, XVAL
      CHARACTER*16 LABEL
      COMMON /NAMES/ LABEL
      CHARACTER*16 WANT
      INTEGER IWORK(10)
      COMMON IWORK
      ICHECK = ITALLY(2, ME)
      IF (ISTEP .NE. ME) ICHECK = 1
      DO 10 I = 1, 100
         IF (XVAL(I) .NE. ME + I) ICHECK = 1
   10 CONTINUE
      DO 20 I = 1, 10
         IF (IWORK(I) .NE. ME * I) ICHECK = 1
   20 CONTINUE
      WRITE (WANT, '(A, I0)') 'rank-', ME
      IF (LABEL .NE. WANT) ICHECK = 1
      END
