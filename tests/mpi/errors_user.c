/*
 * errors_user: error classes, codes and strings the program adds, and the
 * error handlers of windows and files.
 *   - MPI_Add_error_class / MPI_Add_error_code give values above
 *     MPI_ERR_LASTCODE; MPI_LASTUSEDCODE follows the largest;
 *     MPI_Error_class of a code gives its class (added or predefined);
 *     MPI_Error_string gives the string set with MPI_Add_error_string, ""
 *     before; bad arguments are MPI_ERR_ARG;
 *   - MPI_Comm_call_errhandler hands a user handler the code unchanged;
 *   - MPI_File_*_errhandler on MPI_FILE_NULL: MPI_ERRORS_RETURN at first,
 *     a file handler can be set and is called; other file handles are
 *     MPI_ERR_FILE; a file handler is refused on a communicator;
 *   - window error handlers exist, every window call is MPI_ERR_WIN;
 *   - a handle that is no error handler is MPI_ERR_ERRHANDLER (MPI-4.1);
 *   - MPI_Alloc_mem / MPI_Free_mem.
 */
#include "mpitest.h"

#include <stdint.h>

typedef struct seen {
    int calls, code, handle;
} seen_t;

/* The handlers keep what they saw in the name of MPI_COMM_SELF, where the
 * test reads it back (no globals needed). */
static void read_seen(seen_t *s)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    memset(s, 0, sizeof(*s));
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    sscanf(name, "calls=%d code=%d handle=%d", &s->calls, &s->code, &s->handle);
}

static void handler(int handle, int code)
{
    char name[MPI_MAX_OBJECT_NAME];
    seen_t s;
    read_seen(&s);
    snprintf(name, sizeof(name), "calls=%d code=%d handle=%d", s.calls + 1,
             code, handle);
    MPI_Comm_set_name(MPI_COMM_SELF, name);
}

static void reset_seen(void)
{
    MPI_Comm_set_name(MPI_COMM_SELF, "calls=0 code=0 handle=0");
}

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    handler(*comm, *code);
}

static void file_handler(MPI_File *file, int *code, ...)
{
    handler(*file, *code);
}

static void win_handler(MPI_Win *win, int *code, ...)
{
    handler(*win, *code);
}

static void classes_and_codes(void)
{
    int cls, cls2, code, code2, got, len, *last = NULL, flag;
    char msg[MPI_MAX_ERROR_STRING];
    MT_CHECK_MPI(MPI_Add_error_class(&cls));
    MT_CHECK(cls > MPI_ERR_LASTCODE);
    MT_CHECK_MPI(
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    MT_CHECK(flag && *last >= cls);
    MT_CHECK_MPI(MPI_Error_class(cls, &got));
    MT_CHECK_INT_EQ(got, cls);
    MT_CHECK_MPI(MPI_Error_string(cls, msg, &len));
    MT_CHECK_INT_EQ(len, 0);

    MT_CHECK_MPI(MPI_Add_error_code(cls, &code));
    MT_CHECK(code != cls && code > MPI_ERR_LASTCODE);
    MT_CHECK_MPI(
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    MT_CHECK(*last >= code && *last >= cls);
    MT_CHECK_MPI(MPI_Error_class(code, &got));
    MT_CHECK_INT_EQ(got, cls);

    MT_CHECK_MPI(MPI_Add_error_code(MPI_ERR_TAG, &code2));
    MT_CHECK_MPI(MPI_Error_class(code2, &got));
    MT_CHECK_INT_EQ(got, MPI_ERR_TAG);
    MT_CHECK(code2 != code);
    MT_CHECK_MPI(MPI_Add_error_class(&cls2));
    MT_CHECK(cls2 != cls);
    MT_CHECK_MPI(
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    MT_CHECK(*last >= cls2 && *last >= code2);

    MT_CHECK_MPI(MPI_Add_error_string(cls, "my class"));
    MT_CHECK_MPI(MPI_Add_error_string(code, "my code"));
    MT_CHECK_MPI(MPI_Error_string(cls, msg, &len));
    MT_CHECK(strcmp(msg, "my class") == 0 && len == 8);
    MT_CHECK_MPI(MPI_Error_string(code, msg, &len));
    MT_CHECK(strcmp(msg, "my code") == 0 && len == 7);
    MT_CHECK_MPI(MPI_Add_error_string(code, "changed"));
    MT_CHECK_MPI(MPI_Error_string(code, msg, &len));
    MT_CHECK(strcmp(msg, "changed") == 0);

    MT_CHECK_ERR_CLASS(MPI_Add_error_string(MPI_ERR_TAG, "no"), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Add_error_code(code, &got), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Add_error_code(cls2 + 1, &got), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Error_class(cls2 + 1, &got), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Add_error_class(NULL), MPI_ERR_ARG);
}

static void call_handler(void)
{
    MPI_Errhandler eh;
    MPI_Comm dup;
    seen_t s;
    int cls, code;
    MT_CHECK_MPI(MPI_Add_error_class(&cls));
    MT_CHECK_MPI(MPI_Add_error_code(cls, &code));
    MT_CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &eh));
    MT_CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    MT_CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
    reset_seen();
    MT_CHECK_MPI(MPI_Comm_call_errhandler(dup, code));
    read_seen(&s);
    MT_CHECK_INT_EQ(s.calls, 1);
    MT_CHECK_INT_EQ(s.code, code);
    MT_CHECK(s.handle == dup);
    /* Under MPI_ERRORS_RETURN the call just returns. */
    MT_CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code));
    read_seen(&s);
    MT_CHECK_INT_EQ(s.calls, 1);
    MT_CHECK_MPI(MPI_Comm_free(&dup));
    MT_CHECK_MPI(MPI_Errhandler_free(&eh));
    MT_CHECK(eh == MPI_ERRHANDLER_NULL);
    eh = MPI_ERRORS_RETURN;
    MT_CHECK_MPI(MPI_Errhandler_free(&eh));
}

static void files(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, fh_eh, got;
    seen_t s;
    MT_CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    MT_CHECK(eh == MPI_ERRORS_RETURN);
    MT_CHECK_ERR_CLASS(MPI_File_get_errhandler(1234, &eh), MPI_ERR_FILE);
    MT_CHECK_ERR_CLASS(MPI_File_set_errhandler(1234, MPI_ERRORS_RETURN),
                       MPI_ERR_FILE);
    MT_CHECK_ERR_CLASS(MPI_File_call_errhandler(1234, MPI_ERR_IO),
                       MPI_ERR_FILE);

    MT_CHECK_MPI(MPI_File_create_errhandler(file_handler, &fh_eh));
    /* A file handler is not for communicators, nor the other way. */
    MT_CHECK_ERR_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, fh_eh),
                       MPI_ERR_ARG);
    MT_CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, fh_eh));
    MT_CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    MT_CHECK(got == fh_eh);
    reset_seen();
    MPI_Comm_set_name(MPI_COMM_SELF, "calls=0 code=0 handle=-1");
    MT_CHECK_MPI(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
    read_seen(&s);
    MT_CHECK_INT_EQ(s.calls, 1);
    MT_CHECK_INT_EQ(s.code, MPI_ERR_IO);
    MT_CHECK(s.handle == MPI_FILE_NULL);
    /* Errors of file calls go to it too. */
    MT_CHECK_ERR_CLASS(MPI_File_get_errhandler(99, &got), MPI_ERR_FILE);
    read_seen(&s);
    MT_CHECK_INT_EQ(s.calls, 2);
    MT_CHECK_ERR_CLASS(s.code, MPI_ERR_FILE);
    MT_CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MT_CHECK_MPI(MPI_Errhandler_free(&fh_eh));
}

static void windows(void)
{
    MPI_Errhandler eh, got;
    MT_CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
    MT_CHECK_ERR_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh),
                       MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Win_set_errhandler(MPI_WIN_NULL, eh), MPI_ERR_WIN);
    /* Not an error handler at all: MPI-4.1's MPI_ERR_ERRHANDLER. */
    MPI_Errhandler bogus = (MPI_Errhandler)12345;
    MT_CHECK_ERR_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, bogus),
                       MPI_ERR_ERRHANDLER);
    MT_CHECK_ERR_CLASS(MPI_Errhandler_free(&bogus), MPI_ERR_ERRHANDLER);
    MT_CHECK_ERR_CLASS(MPI_File_set_errhandler(MPI_FILE_NULL, bogus),
                       MPI_ERR_ERRHANDLER);
    MT_CHECK_ERR_CLASS(MPI_Win_get_errhandler(MPI_WIN_NULL, &got), MPI_ERR_WIN);
    MT_CHECK_ERR_CLASS(MPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_OTHER),
                       MPI_ERR_WIN);
    MT_CHECK_MPI(MPI_Errhandler_free(&eh));
}

static void alloc_mem(void)
{
    char *p = NULL;
    MPI_Info info;
    MT_CHECK_MPI(MPI_Alloc_mem(1000, MPI_INFO_NULL, &p));
    if (MT_CHECK(p != NULL)) {
        memset(p, 7, 1000);
        MT_CHECK_INT_EQ(((uintptr_t)p) % 16, 0);
        MT_CHECK_MPI(MPI_Free_mem(p));
    }
    MT_CHECK_MPI(MPI_Info_create(&info));
    MT_CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    MT_CHECK_MPI(MPI_Alloc_mem(0, info, &p));
    MT_CHECK_MPI(MPI_Free_mem(p));
    MT_CHECK_MPI(MPI_Info_free(&info));
    MT_CHECK_ERR_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Alloc_mem(8, MPI_COMM_WORLD, &p), MPI_ERR_INFO);
#if !MT_ASAN
    /* More than any machine has (AddressSanitizer would abort instead). */
    MT_CHECK_ERR_CLASS(
        MPI_Alloc_mem((MPI_Aint)(PTRDIFF_MAX / 2), MPI_INFO_NULL, &p),
        MPI_ERR_NO_MEM);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    classes_and_codes();
    call_handler();
    files();
    windows();
    alloc_mem();
    return mt_finish_and_finalize();
}
