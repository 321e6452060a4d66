/*
 * MPI-4.1's memory allocation kinds (section 12.4.3, the info key
 * "mpi_memory_alloc_kinds"; docs/mpi-support.md): what a session asks
 * for, filtered to what this process supports.  Every kind here is memory
 * the ranks can load and store: "system" (malloc, the stack, static
 * data), "mpi" with any of its restrictors (MPI_Alloc_mem,
 * MPI_Win_allocate, MPI_Win_allocate_shared), and, in a process with a
 * CUDA device, "cuda:device" and "cuda:host" (gpu/: device buffers in MPI
 * calls; pinned host memory is host memory).  Managed memory
 * ("cuda:managed", and "cuda" alone, which includes it) is not claimed.
 */
#include "mpi/memkinds.h"
#include "mpi/proc.h"

#include <stdio.h>
#include <string.h>

static int word_in(const char *w, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && strncmp(w, *words, n) == 0)
            return 1;
    return 0;
}

/* Whether the kind k (n bytes: "kind[:restrictor]...") is supported. */
static int supported(const char *k, size_t n)
{
    static const char *const mpi_r[] = {"alloc_mem", "win_allocate",
                                        "win_allocate_shared", NULL};
    static const char *const cuda_r[] = {"device", "host", NULL};
    size_t kn = strcspn(k, ":");
    if (kn > n)
        kn = n;
    const char *const *restrictors;
    if (kn == 6 && strncmp(k, "system", 6) == 0)
        restrictors = NULL;
    else if (kn == 3 && strncmp(k, "mpi", 3) == 0)
        restrictors = mpi_r;
    else if (kn == 4 && strncmp(k, "cuda", 4) == 0 && amp_proc.gpu)
        restrictors = cuda_r;
    else
        return 0;
    if (kn == n) /* the kind alone: every restrictor of it */
        return restrictors != cuda_r;
    for (size_t at = kn; at < n;) {
        size_t r = at + 1, rn = strcspn(k + r, ":");
        if (r + rn > n)
            rn = n - r;
        if (!restrictors || !word_in(k + r, rn, restrictors))
            return 0;
        at = r + rn;
    }
    return 1;
}

/* Whether out (a comma-separated list) holds the n bytes at k already. */
static int listed(const char *out, const char *k, size_t n)
{
    for (const char *p = out; *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && strncmp(p, k, n) == 0)
            return 1;
        p += m + (p[m] == ',');
    }
    return 0;
}

void amp_memkinds_supported(const char *requested, char *out, size_t len)
{
    if (!requested)
        requested = "mpi,system";
    out[0] = '\0';
    size_t used = 0;
    for (const char *p = requested; *p;) {
        size_t n = strcspn(p, ",");
        const char *k = p;
        size_t kn = n;
        while (kn && (*k == ' ' || *k == '\t')) {
            k++;
            kn--;
        }
        while (kn && (k[kn - 1] == ' ' || k[kn - 1] == '\t'))
            kn--;
        if (kn && supported(k, kn) && !listed(out, k, kn) &&
            used + kn + 2 <= len) {
            used += (size_t)snprintf(out + used, len - used, "%s%.*s",
                                     used ? "," : "", (int)kn, k);
        }
        p += n + (p[n] == ',');
    }
}

const char *amp_memkinds_of(const amp_comm_t *comm)
{
    return comm && comm->session_memkinds ? comm->session_memkinds
                                          : "mpi,system";
}
