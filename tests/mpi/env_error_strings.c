/*
 * env_error_strings: every predefined error class lies in
 * 0 = MPI_SUCCESS < class <= MPI_ERR_LASTCODE, is its own class under
 * MPI_Error_class, is distinct from the others, and has a non-empty
 * MPI_Error_string of the reported length.
 */
#include "mpitest.h"

#define CLASS(c) c, #c

static const struct {
    int code;
    const char *name;
} classes[] = {
    {CLASS(MPI_ERR_BUFFER)},
    {CLASS(MPI_ERR_COUNT)},
    {CLASS(MPI_ERR_TYPE)},
    {CLASS(MPI_ERR_TAG)},
    {CLASS(MPI_ERR_COMM)},
    {CLASS(MPI_ERR_RANK)},
    {CLASS(MPI_ERR_REQUEST)},
    {CLASS(MPI_ERR_ROOT)},
    {CLASS(MPI_ERR_GROUP)},
    {CLASS(MPI_ERR_OP)},
    {CLASS(MPI_ERR_TOPOLOGY)},
    {CLASS(MPI_ERR_DIMS)},
    {CLASS(MPI_ERR_ARG)},
    {CLASS(MPI_ERR_UNKNOWN)},
    {CLASS(MPI_ERR_TRUNCATE)},
    {CLASS(MPI_ERR_OTHER)},
    {CLASS(MPI_ERR_INTERN)},
    {CLASS(MPI_ERR_PENDING)},
    {CLASS(MPI_ERR_IN_STATUS)},
    {CLASS(MPI_ERR_ACCESS)},
    {CLASS(MPI_ERR_AMODE)},
    {CLASS(MPI_ERR_ASSERT)},
    {CLASS(MPI_ERR_BAD_FILE)},
    {CLASS(MPI_ERR_BASE)},
    {CLASS(MPI_ERR_CONVERSION)},
    {CLASS(MPI_ERR_DISP)},
    {CLASS(MPI_ERR_DUP_DATAREP)},
    {CLASS(MPI_ERR_FILE_EXISTS)},
    {CLASS(MPI_ERR_FILE_IN_USE)},
    {CLASS(MPI_ERR_FILE)},
    {CLASS(MPI_ERR_INFO_KEY)},
    {CLASS(MPI_ERR_INFO_NOKEY)},
    {CLASS(MPI_ERR_INFO_VALUE)},
    {CLASS(MPI_ERR_INFO)},
    {CLASS(MPI_ERR_IO)},
    {CLASS(MPI_ERR_KEYVAL)},
    {CLASS(MPI_ERR_LOCKTYPE)},
    {CLASS(MPI_ERR_NAME)},
    {CLASS(MPI_ERR_NO_MEM)},
    {CLASS(MPI_ERR_NOT_SAME)},
    {CLASS(MPI_ERR_NO_SPACE)},
    {CLASS(MPI_ERR_NO_SUCH_FILE)},
    {CLASS(MPI_ERR_PORT)},
    {CLASS(MPI_ERR_QUOTA)},
    {CLASS(MPI_ERR_READ_ONLY)},
    {CLASS(MPI_ERR_RMA_ATTACH)},
    {CLASS(MPI_ERR_RMA_CONFLICT)},
    {CLASS(MPI_ERR_RMA_RANGE)},
    {CLASS(MPI_ERR_RMA_SHARED)},
    {CLASS(MPI_ERR_RMA_SYNC)},
    {CLASS(MPI_ERR_RMA_FLAVOR)},
    {CLASS(MPI_ERR_SERVICE)},
    {CLASS(MPI_ERR_SIZE)},
    {CLASS(MPI_ERR_SPAWN)},
    {CLASS(MPI_ERR_UNSUPPORTED_DATAREP)},
    {CLASS(MPI_ERR_UNSUPPORTED_OPERATION)},
    {CLASS(MPI_ERR_WIN)},
};

#define NCLASSES ((int)(sizeof(classes) / sizeof(classes[0])))

static void check_string(int code, const char *name)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = -1;
    memset(msg, 'x', sizeof(msg));
    if (!MT_CHECK_MPI(MPI_Error_string(code, msg, &len)))
        return;
    if (!MT_CHECK(len > 0 && len < MPI_MAX_ERROR_STRING)) {
        MT_FAIL("MPI_Error_string(%s): length %d", name, len);
        return;
    }
    MT_CHECK_INT_EQ(msg[len], '\0');
    MT_CHECK_INT_EQ(strlen(msg), len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int cls = -1;
    MT_CHECK_INT_EQ(MPI_SUCCESS, 0);
    MT_CHECK_MPI(MPI_Error_class(MPI_SUCCESS, &cls));
    MT_CHECK_INT_EQ(cls, MPI_SUCCESS);
    check_string(MPI_SUCCESS, "MPI_SUCCESS");

    int last = MPI_ERR_LASTCODE;
    for (int i = 0; i < NCLASSES; i++) {
        int code = classes[i].code;
        if (!MT_CHECK(code > MPI_SUCCESS && code <= last))
            MT_FAIL("%s = %d, MPI_ERR_LASTCODE = %d", classes[i].name, code,
                    last);
        cls = -1;
        MT_CHECK_MPI(MPI_Error_class(code, &cls));
        if (!MT_CHECK_INT_EQ(cls, code))
            MT_FAIL("class of %s", classes[i].name);
        check_string(code, classes[i].name);
        for (int j = 0; j < i; j++)
            if (classes[j].code == code)
                MT_FAIL("%s and %s are both %d", classes[j].name,
                        classes[i].name, code);
    }

    return mt_finish_and_finalize();
}
