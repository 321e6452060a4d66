/*
 * info_basic: MPI_Info objects.
 *   - set/get/get_valuelen/get_string round trips; overwriting keeps a
 *     key's position; get_nthkey in order of first setting; delete shifts
 *     the later keys down; dup copies, free nulls the handle;
 *   - MPI_Info_get with a short buffer cuts the value, get_string reports
 *     the length it needs;
 *   - limits: empty or MPI_MAX_INFO_KEY-character keys are
 *     MPI_ERR_INFO_KEY, empty or MPI_MAX_INFO_VAL-character values
 *     MPI_ERR_INFO_VALUE, deleting a missing key MPI_ERR_INFO_NOKEY,
 *     MPI_INFO_NULL MPI_ERR_INFO, a bad key number MPI_ERR_ARG;
 *   - MPI_INFO_ENV holds maxprocs (the world size), command and
 *     thread_level, and cannot be freed; MPI_Info_create_env likewise.
 */
#include "mpitest.h"

#include <stdlib.h>

static void check_value(MPI_Info info, const char *key, const char *want)
{
    char value[64];
    int flag = -1, len = -1;
    MT_CHECK_MPI(MPI_Info_get(info, key, (int)sizeof(value) - 1, value, &flag));
    if (!MT_CHECK_INT_EQ(flag, 1))
        return;
    if (!MT_CHECK(strcmp(value, want) == 0))
        MT_FAIL("key %s: value \"%s\", expected \"%s\"", key, value, want);
    MT_CHECK_MPI(MPI_Info_get_valuelen(info, key, &len, &flag));
    MT_CHECK_INT_EQ(len, strlen(want));
}

static void check_keys(MPI_Info info, int n, const char *const *keys)
{
    char key[MPI_MAX_INFO_KEY];
    int nkeys = -1;
    MT_CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
    if (!MT_CHECK_INT_EQ(nkeys, n))
        return;
    for (int i = 0; i < n; i++) {
        MT_CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
        if (!MT_CHECK(strcmp(key, keys[i]) == 0))
            MT_FAIL("key %d is \"%s\", expected \"%s\"", i, key, keys[i]);
    }
}

static void round_trips(void)
{
    MPI_Info info, dup;
    char value[16];
    int flag = -1, buflen;
    MT_CHECK_MPI(MPI_Info_create(&info));
    check_keys(info, 0, NULL);
    MT_CHECK_MPI(MPI_Info_get(info, "absent", 15, value, &flag));
    MT_CHECK_INT_EQ(flag, 0);

    MT_CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
    MT_CHECK_MPI(MPI_Info_set(info, "beta", "two"));
    MT_CHECK_MPI(MPI_Info_set(info, "gamma", "three"));
    MT_CHECK_MPI(MPI_Info_set(info, "alpha", "uno")); /* keeps position */
    check_keys(info, 3, (const char *const[]){"alpha", "beta", "gamma"});
    check_value(info, "alpha", "uno");
    check_value(info, "beta", "two");

    /* A short buffer: valuelen 2 gives 2 characters and the NUL. */
    memset(value, 'x', sizeof(value));
    MT_CHECK_MPI(MPI_Info_get(info, "gamma", 2, value, &flag));
    MT_CHECK(flag == 1 && strcmp(value, "th") == 0);
    /* get_string: buflen counts the NUL, and comes back as needed. */
    buflen = 0;
    MT_CHECK_MPI(MPI_Info_get_string(info, "gamma", &buflen, NULL, &flag));
    MT_CHECK_INT_EQ(flag, 1);
    MT_CHECK_INT_EQ(buflen, 6);
    buflen = 3;
    MT_CHECK_MPI(MPI_Info_get_string(info, "gamma", &buflen, value, &flag));
    MT_CHECK(strcmp(value, "th") == 0);
    MT_CHECK_INT_EQ(buflen, 6);
    buflen = (int)sizeof(value);
    MT_CHECK_MPI(MPI_Info_get_string(info, "gamma", &buflen, value, &flag));
    MT_CHECK(strcmp(value, "three") == 0);

    MT_CHECK_MPI(MPI_Info_dup(info, &dup));
    MT_CHECK_MPI(MPI_Info_delete(info, "alpha"));
    check_keys(info, 2, (const char *const[]){"beta", "gamma"});
    /* The dup is independent. */
    check_keys(dup, 3, (const char *const[]){"alpha", "beta", "gamma"});
    check_value(dup, "alpha", "uno");
    MT_CHECK_MPI(MPI_Info_set(dup, "delta", "4"));
    check_keys(info, 2, (const char *const[]){"beta", "gamma"});

    MT_CHECK_MPI(MPI_Info_free(&info));
    MT_CHECK(info == MPI_INFO_NULL);
    MT_CHECK_MPI(MPI_Info_free(&dup));
}

static void limits(void)
{
    MPI_Info info;
    char *big = malloc(MPI_MAX_INFO_VAL + 1);
    char key[MPI_MAX_INFO_KEY], value[8];
    int flag, n;
    if (!MT_CHECK(big != NULL))
        return;
    MT_CHECK_MPI(MPI_Info_create(&info));
    /* The longest key and value that fit their buffers are fine. */
    memset(big, 'k', MPI_MAX_INFO_KEY - 1);
    big[MPI_MAX_INFO_KEY - 1] = '\0';
    MT_CHECK_MPI(MPI_Info_set(info, big, "v"));
    MT_CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
    MT_CHECK_INT_EQ(strlen(key), MPI_MAX_INFO_KEY - 1);
    big[MPI_MAX_INFO_KEY - 1] = 'k';
    big[MPI_MAX_INFO_KEY] = '\0';
    MT_CHECK_ERR_CLASS(MPI_Info_set(info, big, "v"), MPI_ERR_INFO_KEY);
    MT_CHECK_ERR_CLASS(MPI_Info_get(info, big, 7, value, &flag),
                       MPI_ERR_INFO_KEY);
    MT_CHECK_ERR_CLASS(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);

    memset(big, 'v', MPI_MAX_INFO_VAL - 1);
    big[MPI_MAX_INFO_VAL - 1] = '\0';
    MT_CHECK_MPI(MPI_Info_set(info, "long", big));
    MT_CHECK_MPI(MPI_Info_get_valuelen(info, "long", &n, &flag));
    MT_CHECK_INT_EQ(n, MPI_MAX_INFO_VAL - 1);
    big[MPI_MAX_INFO_VAL - 1] = 'v';
    big[MPI_MAX_INFO_VAL] = '\0';
    MT_CHECK_ERR_CLASS(MPI_Info_set(info, "long", big), MPI_ERR_INFO_VALUE);
    MT_CHECK_ERR_CLASS(MPI_Info_set(info, "empty", ""), MPI_ERR_INFO_VALUE);

    MT_CHECK_ERR_CLASS(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY);
    MT_CHECK_ERR_CLASS(MPI_Info_get_nthkey(info, 2, key), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
    MT_CHECK_ERR_CLASS(MPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Info_get_nkeys(MPI_COMM_WORLD, &n), MPI_ERR_INFO);
    MT_CHECK_MPI(MPI_Info_free(&info));
    MT_CHECK_ERR_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
    free(big);
}

static void env(int size)
{
    char value[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Info info = MPI_INFO_ENV;
    MT_CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1,
                              value, &flag));
    MT_CHECK(flag == 1 && atoi(value) == size);
    MT_CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL - 1,
                              value, &flag));
    MT_CHECK(flag == 1 && strstr(value, "info_basic") != NULL);
    MT_CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "thread_level",
                              MPI_MAX_INFO_VAL - 1, value, &flag));
    MT_CHECK(flag == 1 && strncmp(value, "MPI_THREAD_", 11) == 0);
    MT_CHECK_ERR_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
    MT_CHECK_ERR_CLASS(MPI_Info_set(MPI_INFO_ENV, "k", "v"), MPI_ERR_INFO);

    char *argv[] = {"prog", "-x", "7", NULL};
    MT_CHECK_MPI(MPI_Info_create_env(3, argv, &info));
    check_value(info, "command", "prog");
    check_value(info, "argv", "-x 7");
    MT_CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    round_trips();
    limits();
    env(size);
    return mt_finish_and_finalize();
}
