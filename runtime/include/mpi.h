/*
 * mpi.h: the C binding of this MPI implementation.
 *
 * Handles are ints.  The top bits say what kind of object a handle names
 * (so passing a datatype where a communicator belongs is caught), the low
 * bits index a per-rank table or the predefined table.  The null handles
 * are all 0.
 */
#ifndef AMPI_MPI_H
#define AMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Existing AMPI programs test for this macro to use the extensions. */
#define AMPI 1

#define MPI_VERSION 4
#define MPI_SUBVERSION 1

#define AMPI_API __attribute__((visibility("default")))

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Request;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Message;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Win;
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

/* The standard's fields, then the library's, then two that programs
 * written for Charm++'s AMPI read (#ifdef AMPI): MPI_COMM, the
 * communicator of the message (MPI_COMM_NULL when there is none: an empty
 * status, a file operation), and MPI_LENGTH, its size in bytes (INT_MAX
 * when larger).  Every call that fills a status sets them.  The size is
 * MPI_STATUS_SIZE integers (mpif.h). */
typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int amp_cancelled;
    long long amp_bytes;
    MPI_Comm MPI_COMM;
    int MPI_LENGTH;
} MPI_Status;

/* Handle kinds (top six bits).  Internal, but fixed: they are ABI. */
#define AMPI_HANDLE_SHIFT 24
#define AMPI_HANDLE_COMM 0x44
#define AMPI_HANDLE_DATATYPE 0x4c
#define AMPI_HANDLE_DATATYPE_DERIVED 0x4d
#define AMPI_HANDLE_REQUEST 0x58
#define AMPI_HANDLE_OP 0x18
#define AMPI_HANDLE_OP_USER 0x19
#define AMPI_HANDLE_ERRHANDLER 0x54
#define AMPI_HANDLE_MESSAGE 0x6c
#define AMPI_HANDLE_GROUP 0x48
#define AMPI_HANDLE_INFO 0x6e
#define AMPI_HANDLE_WIN 0x57
#define AMPI_HANDLE_FILE 0x46
#define AMPI_HANDLE(kind, index) ((int)(((unsigned)(kind) << 24) | (index)))

/* Null handles. */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_WIN_NULL ((MPI_Win)0)

/* Predefined communicators. */
#define MPI_COMM_WORLD ((MPI_Comm)AMPI_HANDLE(AMPI_HANDLE_COMM, 0))
#define MPI_COMM_SELF ((MPI_Comm)AMPI_HANDLE(AMPI_HANDLE_COMM, 1))

#define MPI_MESSAGE_NO_PROC ((MPI_Message)AMPI_HANDLE(AMPI_HANDLE_MESSAGE, 0xffffff))

/* Error handlers. */
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)AMPI_HANDLE(AMPI_HANDLE_ERRHANDLER, 1))
#define MPI_ERRORS_RETURN ((MPI_Errhandler)AMPI_HANDLE(AMPI_HANDLE_ERRHANDLER, 2))
#define MPI_ERRORS_ABORT ((MPI_Errhandler)AMPI_HANDLE(AMPI_HANDLE_ERRHANDLER, 3))

/* Predefined datatypes.  The ids index the runtime's table of them. */
#define AMPI_DATATYPE_LIST(X)                                                  \
    X(MPI_CHAR, 1) X(MPI_SIGNED_CHAR, 2) X(MPI_UNSIGNED_CHAR, 3)               \
    X(MPI_BYTE, 4) X(MPI_WCHAR, 5) X(MPI_SHORT, 6)                             \
    X(MPI_UNSIGNED_SHORT, 7) X(MPI_INT, 8) X(MPI_UNSIGNED, 9)                  \
    X(MPI_LONG, 10) X(MPI_UNSIGNED_LONG, 11) X(MPI_LONG_LONG_INT, 12)          \
    X(MPI_UNSIGNED_LONG_LONG, 13) X(MPI_FLOAT, 14) X(MPI_DOUBLE, 15)           \
    X(MPI_LONG_DOUBLE, 16) X(MPI_C_BOOL, 17) X(MPI_INT8_T, 18)                 \
    X(MPI_INT16_T, 19) X(MPI_INT32_T, 20) X(MPI_INT64_T, 21)                   \
    X(MPI_UINT8_T, 22) X(MPI_UINT16_T, 23) X(MPI_UINT32_T, 24)                 \
    X(MPI_UINT64_T, 25) X(MPI_C_FLOAT_COMPLEX, 26)                             \
    X(MPI_C_DOUBLE_COMPLEX, 27) X(MPI_C_LONG_DOUBLE_COMPLEX, 28)               \
    X(MPI_AINT, 29) X(MPI_OFFSET, 30) X(MPI_COUNT, 31) X(MPI_PACKED, 32)       \
    X(MPI_FLOAT_INT, 33) X(MPI_DOUBLE_INT, 34) X(MPI_LONG_INT, 35)             \
    X(MPI_2INT, 36) X(MPI_SHORT_INT, 37) X(MPI_LONG_DOUBLE_INT, 38)            \
    X(MPI_CXX_BOOL, 39) X(MPI_CXX_FLOAT_COMPLEX, 40)                           \
    X(MPI_CXX_DOUBLE_COMPLEX, 41) X(MPI_CXX_LONG_DOUBLE_COMPLEX, 42)           \
    X(MPI_INTEGER, 43) X(MPI_REAL, 44) X(MPI_DOUBLE_PRECISION, 45)             \
    X(MPI_COMPLEX, 46) X(MPI_DOUBLE_COMPLEX, 47) X(MPI_LOGICAL, 48)            \
    X(MPI_CHARACTER, 49) X(MPI_INTEGER1, 50) X(MPI_INTEGER2, 51)               \
    X(MPI_INTEGER4, 52) X(MPI_INTEGER8, 53) X(MPI_REAL4, 54)                   \
    X(MPI_REAL8, 55) X(MPI_2INTEGER, 56) X(MPI_2REAL, 57)                      \
    X(MPI_2DOUBLE_PRECISION, 58) X(MPI_LB, 59) X(MPI_UB, 60)                \
    X(MPI_REAL16, 61) X(MPI_COMPLEX8, 62) X(MPI_COMPLEX16, 63)                 \
    X(MPI_COMPLEX32, 64) X(MPI_INTEGER16, 65)

enum {
#define AMPI_DATATYPE_ID(name, id) AMPI_DTID_##name = id,
    AMPI_DATATYPE_LIST(AMPI_DATATYPE_ID)
#undef AMPI_DATATYPE_ID
    AMPI_DTID_COUNT
};

#define AMPI_PREDEFINED_DATATYPE(id) \
    ((MPI_Datatype)AMPI_HANDLE(AMPI_HANDLE_DATATYPE, id))
#define MPI_CHAR AMPI_PREDEFINED_DATATYPE(1)
#define MPI_SIGNED_CHAR AMPI_PREDEFINED_DATATYPE(2)
#define MPI_UNSIGNED_CHAR AMPI_PREDEFINED_DATATYPE(3)
#define MPI_BYTE AMPI_PREDEFINED_DATATYPE(4)
#define MPI_WCHAR AMPI_PREDEFINED_DATATYPE(5)
#define MPI_SHORT AMPI_PREDEFINED_DATATYPE(6)
#define MPI_UNSIGNED_SHORT AMPI_PREDEFINED_DATATYPE(7)
#define MPI_INT AMPI_PREDEFINED_DATATYPE(8)
#define MPI_UNSIGNED AMPI_PREDEFINED_DATATYPE(9)
#define MPI_LONG AMPI_PREDEFINED_DATATYPE(10)
#define MPI_UNSIGNED_LONG AMPI_PREDEFINED_DATATYPE(11)
#define MPI_LONG_LONG_INT AMPI_PREDEFINED_DATATYPE(12)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG AMPI_PREDEFINED_DATATYPE(13)
#define MPI_FLOAT AMPI_PREDEFINED_DATATYPE(14)
#define MPI_DOUBLE AMPI_PREDEFINED_DATATYPE(15)
#define MPI_LONG_DOUBLE AMPI_PREDEFINED_DATATYPE(16)
#define MPI_C_BOOL AMPI_PREDEFINED_DATATYPE(17)
#define MPI_INT8_T AMPI_PREDEFINED_DATATYPE(18)
#define MPI_INT16_T AMPI_PREDEFINED_DATATYPE(19)
#define MPI_INT32_T AMPI_PREDEFINED_DATATYPE(20)
#define MPI_INT64_T AMPI_PREDEFINED_DATATYPE(21)
#define MPI_UINT8_T AMPI_PREDEFINED_DATATYPE(22)
#define MPI_UINT16_T AMPI_PREDEFINED_DATATYPE(23)
#define MPI_UINT32_T AMPI_PREDEFINED_DATATYPE(24)
#define MPI_UINT64_T AMPI_PREDEFINED_DATATYPE(25)
#define MPI_C_FLOAT_COMPLEX AMPI_PREDEFINED_DATATYPE(26)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX AMPI_PREDEFINED_DATATYPE(27)
#define MPI_C_LONG_DOUBLE_COMPLEX AMPI_PREDEFINED_DATATYPE(28)
#define MPI_AINT AMPI_PREDEFINED_DATATYPE(29)
#define MPI_OFFSET AMPI_PREDEFINED_DATATYPE(30)
#define MPI_COUNT AMPI_PREDEFINED_DATATYPE(31)
#define MPI_PACKED AMPI_PREDEFINED_DATATYPE(32)
#define MPI_FLOAT_INT AMPI_PREDEFINED_DATATYPE(33)
#define MPI_DOUBLE_INT AMPI_PREDEFINED_DATATYPE(34)
#define MPI_LONG_INT AMPI_PREDEFINED_DATATYPE(35)
#define MPI_2INT AMPI_PREDEFINED_DATATYPE(36)
#define MPI_SHORT_INT AMPI_PREDEFINED_DATATYPE(37)
#define MPI_LONG_DOUBLE_INT AMPI_PREDEFINED_DATATYPE(38)
#define MPI_CXX_BOOL AMPI_PREDEFINED_DATATYPE(39)
#define MPI_CXX_FLOAT_COMPLEX AMPI_PREDEFINED_DATATYPE(40)
#define MPI_CXX_DOUBLE_COMPLEX AMPI_PREDEFINED_DATATYPE(41)
#define MPI_CXX_LONG_DOUBLE_COMPLEX AMPI_PREDEFINED_DATATYPE(42)
#define MPI_INTEGER AMPI_PREDEFINED_DATATYPE(43)
#define MPI_REAL AMPI_PREDEFINED_DATATYPE(44)
#define MPI_DOUBLE_PRECISION AMPI_PREDEFINED_DATATYPE(45)
#define MPI_COMPLEX AMPI_PREDEFINED_DATATYPE(46)
#define MPI_DOUBLE_COMPLEX AMPI_PREDEFINED_DATATYPE(47)
#define MPI_LOGICAL AMPI_PREDEFINED_DATATYPE(48)
#define MPI_CHARACTER AMPI_PREDEFINED_DATATYPE(49)
#define MPI_INTEGER1 AMPI_PREDEFINED_DATATYPE(50)
#define MPI_INTEGER2 AMPI_PREDEFINED_DATATYPE(51)
#define MPI_INTEGER4 AMPI_PREDEFINED_DATATYPE(52)
#define MPI_INTEGER8 AMPI_PREDEFINED_DATATYPE(53)
#define MPI_REAL4 AMPI_PREDEFINED_DATATYPE(54)
#define MPI_REAL8 AMPI_PREDEFINED_DATATYPE(55)
#define MPI_2INTEGER AMPI_PREDEFINED_DATATYPE(56)
#define MPI_2REAL AMPI_PREDEFINED_DATATYPE(57)
#define MPI_2DOUBLE_PRECISION AMPI_PREDEFINED_DATATYPE(58)
#define MPI_LB AMPI_PREDEFINED_DATATYPE(59)
#define MPI_UB AMPI_PREDEFINED_DATATYPE(60)
/* Fortran REAL(16) (IEEE binary128), COMPLEX(4), COMPLEX(8), COMPLEX(16),
 * INTEGER(16); REAL16, COMPLEX32 and INTEGER16 are invalid types
 * (MPI_ERR_TYPE) on a platform whose C compiler lacks __float128 or
 * __int128. */
#define MPI_REAL16 AMPI_PREDEFINED_DATATYPE(61)
#define MPI_COMPLEX8 AMPI_PREDEFINED_DATATYPE(62)
#define MPI_COMPLEX16 AMPI_PREDEFINED_DATATYPE(63)
#define MPI_COMPLEX32 AMPI_PREDEFINED_DATATYPE(64)
#define MPI_INTEGER16 AMPI_PREDEFINED_DATATYPE(65)

/* Predefined reduction operations. */
#define AMPI_OP_LIST(X)                                                        \
    X(MPI_MAX, 1) X(MPI_MIN, 2) X(MPI_SUM, 3) X(MPI_PROD, 4) X(MPI_LAND, 5)    \
    X(MPI_BAND, 6) X(MPI_LOR, 7) X(MPI_BOR, 8) X(MPI_LXOR, 9) X(MPI_BXOR, 10)  \
    X(MPI_MINLOC, 11) X(MPI_MAXLOC, 12) X(MPI_REPLACE, 13) X(MPI_NO_OP, 14)
#define AMPI_OP_COUNT 15
#define MPI_MAX ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 1))
#define MPI_MIN ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 2))
#define MPI_SUM ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 3))
#define MPI_PROD ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 4))
#define MPI_LAND ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 5))
#define MPI_BAND ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 6))
#define MPI_LOR ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 7))
#define MPI_BOR ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 8))
#define MPI_LXOR ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 9))
#define MPI_BXOR ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 10))
#define MPI_MINLOC ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 11))
#define MPI_MAXLOC ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 12))
#define MPI_REPLACE ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 13))
#define MPI_NO_OP ((MPI_Op)AMPI_HANDLE(AMPI_HANDLE_OP, 14))

/* Special ranks, tags and values. */
#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB_VALUE 1073741823
#define MPI_BSEND_OVERHEAD 256
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_KEYVAL_INVALID 0

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)

/* Thread levels. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Results of MPI_Comm_compare. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Predefined attribute keys (MPI_Comm_get_attr). */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_APPNUM 5
#define MPI_UNIVERSE_SIZE 6
#define MPI_LASTUSEDCODE 7

/* Datatype combiners (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_CONTIGUOUS 2

/* Error classes. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_FILE 38
#define MPI_ERR_NOT_SAME 39
#define MPI_ERR_AMODE 40
#define MPI_ERR_UNSUPPORTED_DATAREP 41
#define MPI_ERR_UNSUPPORTED_OPERATION 42
#define MPI_ERR_NO_SUCH_FILE 43
#define MPI_ERR_FILE_EXISTS 44
#define MPI_ERR_BAD_FILE 45
#define MPI_ERR_ACCESS 46
#define MPI_ERR_NO_SPACE 47
#define MPI_ERR_QUOTA 48
#define MPI_ERR_READ_ONLY 49
#define MPI_ERR_FILE_IN_USE 50
#define MPI_ERR_DUP_DATAREP 51
#define MPI_ERR_CONVERSION 52
#define MPI_ERR_IO 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_LASTCODE 0x3fffffff

typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);

/* The function list: AMPI_FN(return, name, parameters).  Each is declared
 * as MPI_name and PMPI_name. */
#define AMPI_DECLARE(ret, name, params)                                        \
    AMPI_API ret MPI_##name params;                                            \
    AMPI_API ret PMPI_##name params;

/* Environment. */
AMPI_DECLARE(int, Init, (int *argc, char ***argv))
AMPI_DECLARE(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
AMPI_DECLARE(int, Initialized, (int *flag))
AMPI_DECLARE(int, Finalize, (void))
AMPI_DECLARE(int, Finalized, (int *flag))
AMPI_DECLARE(int, Abort, (MPI_Comm comm, int errorcode))
AMPI_DECLARE(int, Query_thread, (int *provided))
AMPI_DECLARE(int, Is_thread_main, (int *flag))
AMPI_DECLARE(double, Wtime, (void))
AMPI_DECLARE(double, Wtick, (void))
AMPI_DECLARE(int, Get_processor_name, (char *name, int *resultlen))
AMPI_DECLARE(int, Get_version, (int *version, int *subversion))
AMPI_DECLARE(int, Get_library_version, (char *version, int *resultlen))
AMPI_DECLARE(int, Error_string, (int errorcode, char *string, int *resultlen))
AMPI_DECLARE(int, Error_class, (int errorcode, int *errorclass))
AMPI_DECLARE(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
AMPI_DECLARE(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
AMPI_DECLARE(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler))
AMPI_DECLARE(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
AMPI_DECLARE(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* Communicators. */
AMPI_DECLARE(int, Comm_rank, (MPI_Comm comm, int *rank))
AMPI_DECLARE(int, Comm_size, (MPI_Comm comm, int *size))
AMPI_DECLARE(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
AMPI_DECLARE(int, Comm_free, (MPI_Comm *comm))
AMPI_DECLARE(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
AMPI_DECLARE(int, Comm_get_attr, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
AMPI_DECLARE(int, Comm_set_name, (MPI_Comm comm, const char *name))
AMPI_DECLARE(int, Comm_get_name, (MPI_Comm comm, char *name, int *resultlen))

/* Point-to-point. */
AMPI_DECLARE(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
AMPI_DECLARE(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
AMPI_DECLARE(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
AMPI_DECLARE(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
AMPI_DECLARE(int, Buffer_attach, (void *buffer, int size))
AMPI_DECLARE(int, Buffer_detach, (void *buffer_addr, int *size))
AMPI_DECLARE(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
AMPI_DECLARE(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
AMPI_DECLARE(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
AMPI_DECLARE(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
AMPI_DECLARE(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
AMPI_DECLARE(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
AMPI_DECLARE(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
AMPI_DECLARE(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
AMPI_DECLARE(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
AMPI_DECLARE(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
AMPI_DECLARE(int, Start, (MPI_Request *request))
AMPI_DECLARE(int, Startall, (int count, MPI_Request array_of_requests[]))
AMPI_DECLARE(int, Request_free, (MPI_Request *request))
AMPI_DECLARE(int, Cancel, (MPI_Request *request))
AMPI_DECLARE(int, Test_cancelled, (const MPI_Status *status, int *flag))
AMPI_DECLARE(int, Wait, (MPI_Request *request, MPI_Status *status))
AMPI_DECLARE(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]))
AMPI_DECLARE(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status))
AMPI_DECLARE(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]))
AMPI_DECLARE(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
AMPI_DECLARE(int, Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]))
AMPI_DECLARE(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status))
AMPI_DECLARE(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]))
AMPI_DECLARE(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
AMPI_DECLARE(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
AMPI_DECLARE(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
AMPI_DECLARE(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))

/* Datatypes. */
AMPI_DECLARE(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
AMPI_DECLARE(int, Type_commit, (MPI_Datatype *datatype))
AMPI_DECLARE(int, Type_free, (MPI_Datatype *datatype))
AMPI_DECLARE(int, Type_size, (MPI_Datatype datatype, int *size))
AMPI_DECLARE(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
AMPI_DECLARE(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
AMPI_DECLARE(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))

/* Collectives. */
AMPI_DECLARE(int, Barrier, (MPI_Comm comm))
AMPI_DECLARE(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
AMPI_DECLARE(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
AMPI_DECLARE(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
AMPI_DECLARE(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
AMPI_DECLARE(int, Op_free, (MPI_Op *op))
AMPI_DECLARE(int, Op_commutative, (MPI_Op op, int *commute))

#undef AMPI_DECLARE

#include "mpi_more.h"
#include "mpi4.h"
#include "mpi_t.h"
#include "ampi.h"
#include "pup_c.h"

#ifdef __cplusplus
}
#endif

#endif
