/*
 * Control variables: the read-only ones give the job's shape (ranks, PEs,
 * a positive stack size), a writable one reads back what was written, and
 * the balancer a rank writes is the one AMPI_Migrate then uses: RotateLB,
 * set through MPI_T in a job started without +balancer, moves every rank
 * to the next PE, and lb_ranks_moved and lb_steps count it.
 */
#include "mpitest.h"

#include <string.h>

static MPI_T_cvar_handle cvar(const char *name)
{
    int i = -1, count = 0;
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    MT_CHECK_MPI(MPI_T_cvar_get_index(name, &i));
    MT_CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    MT_CHECK_INT_EQ(count, 1);
    return h;
}

static int read_int(const char *name)
{
    MPI_T_cvar_handle h = cvar(name);
    int v = -1;
    MT_CHECK_MPI(MPI_T_cvar_read(h, &v));
    MT_CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return v;
}

static int attr(int key)
{
    int *v, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    MT_CHECK(flag);
    return flag ? *v : -1;
}

/* The value of the balancer enumeration's item called name. */
static int balancer_value(const char *name)
{
    int i = -1, num = 0;
    MPI_T_enum e = MPI_T_ENUM_NULL;
    MT_CHECK_MPI(MPI_T_cvar_get_index("balancer", &i));
    MT_CHECK_MPI(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, &e, NULL, NULL,
                                     NULL, NULL));
    MT_CHECK_MPI(MPI_T_enum_get_info(e, &num, NULL, NULL));
    for (int k = 0; k < num; k++) {
        char item[64];
        int len = sizeof(item), value = -1;
        MT_CHECK_MPI(MPI_T_enum_get_item(e, k, &value, item, &len));
        if (strcmp(item, name) == 0)
            return value;
    }
    MT_FAIL("no balancer called %s", name);
    return -1;
}

/* A started handle of counter name. */
static MPI_T_pvar_handle counter(MPI_T_pvar_session s, const char *name)
{
    int i = -1, count = 0;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    MT_CHECK_MPI(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i));
    MT_CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    MT_CHECK_MPI(MPI_T_pvar_start(s, h));
    return h;
}

static unsigned long long read_counter(MPI_T_pvar_session s,
                                       MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    MT_CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

static void check_write_back(void)
{
    MPI_T_cvar_handle h = cvar("lbdebug");
    int old = -1, v = 0, in = 0;
    MT_CHECK_MPI(MPI_T_cvar_read(h, &old));
    MT_CHECK_INT_EQ(old, 0); /* not given */
    MT_CHECK_MPI(MPI_T_cvar_write(h, &v));
    MT_CHECK_MPI(MPI_T_cvar_read(h, &in));
    MT_CHECK_INT_EQ(in, v);
    MT_CHECK_MPI(MPI_T_cvar_handle_free(&h));
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int npes = attr(AMPI_NUM_WTHS);
    MT_CHECK_INT_EQ(read_int("vp"), size);
    MT_CHECK_INT_EQ(read_int("p"), npes);
    MPI_T_cvar_handle h = cvar("stacksize");
    unsigned long stack = 0;
    MT_CHECK_MPI(MPI_T_cvar_read(h, &stack));
    MT_CHECK(stack >= 64 * 1024);
    MT_CHECK_MPI(MPI_T_cvar_handle_free(&h));
    check_write_back();

    /* Started without +balancer: none; every rank sets RotateLB (each
     * process has its own copy, the same everywhere). */
    MT_CHECK_INT_EQ(read_int("balancer"), balancer_value("none"));
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has read it */
    int rotate = balancer_value("RotateLB");
    h = cvar("balancer");
    MT_CHECK_MPI(MPI_T_cvar_write(h, &rotate));
    MT_CHECK_MPI(MPI_T_cvar_handle_free(&h));
    MT_CHECK_INT_EQ(read_int("balancer"), rotate);

    MPI_T_pvar_session s;
    MT_CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle moved = counter(s, "lb_ranks_moved");
    MPI_T_pvar_handle steps = counter(s, "lb_steps");
    int pe0 = attr(AMPI_MY_WTH);
    /* Every rank has set the balancer and started its counters. */
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_MPI(AMPI_Migrate(AMPI_INFO_LB_SYNC));
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK_INT_EQ(read_counter(s, steps), 1);
    if (mt_nprocs() == 1 && npes > 1) {
        MT_CHECK_INT_EQ(attr(AMPI_MY_WTH), (pe0 + 1) % npes);
        MT_CHECK_INT_EQ(read_counter(s, moved), size);
    }
    MT_CHECK_MPI(MPI_T_pvar_session_free(&s));
    MT_CHECK_MPI(MPI_T_finalize());
    return mt_finish_and_finalize();
}
