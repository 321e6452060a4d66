/*
 * node: the processes of the job that run on this node, the memory they
 * share, and copies between their address spaces.
 *
 * The transport (p2p/net.c) fills in amp_node_t at startup from what every
 * process published: its host name (processes with the same one share a
 * node), its process id, and a nonce of the node's first process.  Objects
 * shared by the node's processes (the rings between their PEs, windows)
 * are POSIX shared-memory objects named
 *
 *     /ampi-<pid of the node's first process>-<nonce>-<tag>
 *
 * so that no two jobs meet, even with a stale object of a crashed one
 * left in /dev/shm.  One process creates an object (zero-filled), the others
 * open it by name; the name is removed once every process that is to open
 * it has (amp_node_open counts them), or when its creator drops it.  Each
 * process maps an object at its own address.
 *
 * Copies straight between two processes' memory use Linux's cross-memory
 * attach (process_vm_readv, process_vm_writev): one copy, no staging.  The
 * kernel allows it where ptrace would be allowed (same user, and Yama's
 * ptrace_scope 0, or CAP_SYS_PTRACE); whether it works between two
 * processes of the node is probed at startup (amp_node_t.cma).
 */
#ifndef AMP_NODE_H
#define AMP_NODE_H

#include "base/base.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AMP_NODE_NAME_MAX 80

typedef struct amp_node {
    int nprocs;      /* the job's processes on this node (1: this alone) */
    int index;       /* this process's among them */
    int *procs;      /* node index -> job process */
    int *of_proc;    /* job process -> node index; -1: another node */
    pid_t *pids;     /* node index -> process id */
    uint8_t *cma;    /* node index -> this process reads its memory */
    char prefix[48]; /* "/ampi-<pid>-<nonce>" */
    _Atomic unsigned serial; /* objects this process created so far */
} amp_node_t;

/* The node of a job of one process: this process alone. */
AMP_MUST_USE amp_status_t amp_node_init_alone(amp_node_t *n);
/* The node's processes from the job's (nprocs of them): proc_node[q] is
 * the first process on q's node, pids[q] its process id; this process is
 * proc; nonce comes from the node's first process.  Then probes the
 * cross-memory copies: probe[q] is the address of a word in process q
 * that holds AMP_NODE_PROBE. */
#define AMP_NODE_PROBE 0x414d504950524f42ull /* "AMPIPROB" */
AMP_MUST_USE amp_status_t amp_node_init(amp_node_t *n, int nprocs, int proc,
                                        const int *proc_node, const int *pids,
                                        const uint64_t *probe, uint64_t nonce);
void amp_node_cleanup(amp_node_t *n);

/* The name of this job's node object tag (at most 24 characters). */
void amp_node_name(const amp_node_t *n, const char *tag,
                   char out[AMP_NODE_NAME_MAX]);

/* Creates object tag of bytes bytes (zero-filled), maps it at *out, and
 * leaves its name for users other processes to open (0: removes it at
 * once).  AMP_ERR_EXIST when the name is taken, AMP_ERR_SYS (logged) when
 * the system refuses. */
AMP_MUST_USE amp_status_t amp_node_create(const amp_node_t *n, const char *tag,
                                          size_t bytes, int users, void **out);
/* Opens and maps object tag of bytes bytes, which another process of the
 * node created or will create: waits at most wait_ms milliseconds for it
 * to appear (0: looks once, without sleeping).  The last of its users to
 * open it removes its name.  AMP_ERR_NOENT when it did not appear in time. */
AMP_MUST_USE amp_status_t amp_node_open(const amp_node_t *n, const char *tag,
                                        size_t bytes, int wait_ms, void **out);
/* Removes the name of an object this process created (no error when it is
 * gone already). */
void amp_node_drop(const amp_node_t *n, const char *tag);
/* The job ends abnormally (MPI_Abort, a fatal error, a terminating
 * signal): removes the name of every object of this job's node, so that
 * none that a process would have removed after its peers opened it stays
 * in /dev/shm.  Async-signal-safe. */
void amp_node_abandon(const amp_node_t *n);
/* Unmaps an object of bytes bytes mapped at p. */
void amp_node_unmap(void *p, size_t bytes);

/* The bytes an object of the node keeps ahead of what amp_node_create and
 * amp_node_open return (the open count): one page, so that the rest
 * starts page-aligned.  Its last AMP_NODE_USER bytes (zero at creation)
 * are the object's users' (amp_node_head): locks, flags. */
#define AMP_NODE_HDR 4096
#define AMP_NODE_USER (AMP_NODE_HDR - 64)
static inline void *amp_node_head(void *p)
{
    return (char *)p - AMP_NODE_USER;
}

/* Cross-memory copies with process pid: n bytes from remote to local
 * (read) or local to remote (write), or along lists of pieces (the two
 * lists hold the same bytes in all).  AMP_ERR_SYS when the kernel
 * refuses or copies less. */
typedef struct amp_node_iov {
    void *base;
    size_t len;
} amp_node_iov_t;
AMP_MUST_USE amp_status_t amp_node_cma_read(pid_t pid, void *local,
                                            uint64_t remote, size_t n);
AMP_MUST_USE amp_status_t amp_node_cma_write(pid_t pid, const void *local,
                                             uint64_t remote, size_t n);
AMP_MUST_USE amp_status_t amp_node_cma_readv(pid_t pid,
                                             const amp_node_iov_t *local,
                                             int nlocal,
                                             const amp_node_iov_t *remote,
                                             int nremote);
AMP_MUST_USE amp_status_t amp_node_cma_writev(pid_t pid,
                                              const amp_node_iov_t *local,
                                              int nlocal,
                                              const amp_node_iov_t *remote,
                                              int nremote);

#endif
