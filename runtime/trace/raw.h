/* trace/'s private header: the raw files between trace.c and otf2.c. */
#ifndef AMP_TRACE_RAW_H
#define AMP_TRACE_RAW_H

#include "base/base.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* DIR/raw/p<proc>-pe<pe>.<ext> into buf. */
static inline void amp_trace_raw_path(char *buf, size_t size, const char *dir,
                                      int proc, int pe, const char *ext)
{
    snprintf(buf, size, "%s/raw/p%d-pe%d.%s", dir, proc, pe, ext);
}

/* CLOCK_REALTIME in ns. */
int64_t amp_trace_realtime(void);

/* Reads the raw files of nprocs processes under dir/raw, writes the OTF2
 * archive dir/traces.otf2 (replacing one there) and removes them. */
AMP_MUST_USE amp_status_t amp_trace_convert(const char *dir, int nprocs,
                                            int nranks);

/* The same for the job whose raw files are under dir/raw, as its file
 * "job" names it (nprocs and nranks); a process without its clock file
 * (killed before the flusher wrote one) is left out. */
AMP_MUST_USE amp_status_t amp_trace_convert_dir(const char *dir);

#endif
