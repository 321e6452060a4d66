/*
 * pie: privatization by relocated copies of the program image.
 *
 * A program linked with `ampicc -privatize=pie` is a position-independent
 * executable that carries an AMPI note (see note.S).  At startup
 * amp_pie_image_init() finds the loaded executable, reads its program
 * headers and dynamic section from the file, and turns its dynamic
 * relocations into a plan of fix-ups, reporting every relocation it cannot
 * apply.  For each rank, amp_pie_copy_map() maps one copy of all loadable
 * segments at a rank-specific base: code and read-only data are mapped from
 * the file (the page cache's pages, shared by every copy), writable data
 * privately from the file (so each copy starts from the file's initial
 * values, and only the pages written are copied), .bss as fresh zero
 * pages; it then applies the plan to the copy and write-protects its RELRO
 * range.  The copy's initializers and main then run as that rank.
 *
 * Addresses: a copy is described by its base, the address where link-time
 * address 0 of the image lands in the copy (copy of vaddr v = base + v).
 * The loaded original has base img->bias.
 *
 * All state lives in one amp_pie_image_t per program; a copy needs nothing
 * but its base.
 */
#ifndef AMP_PIE_PIE_H
#define AMP_PIE_PIE_H

#include "base/base.h"
#include "tlsglobals/tls.h"

#include <stdint.h>
#include <sys/types.h>

#define AMP_PIE_MAX_SEGMENTS 16

/* The note a program built for pie privatization carries (note.S). */
#define AMP_PIE_NOTE_NAME "AMPI"
#define AMP_PIE_NOTE_TYPE 0x41500001u
#define AMP_PIE_NOTE_VERSION 1u

/* One PT_LOAD segment, widened to whole pages. */
typedef struct amp_pie_segment {
    uintptr_t start;  /* link-time address, page aligned */
    size_t file_size; /* bytes from the file, from start */
    size_t mem_size;  /* bytes in memory, from start (page multiple) */
    int zero_fill;    /* memory past the file contents (p_memsz > p_filesz) */
    off_t offset;     /* file offset of start */
    int prot;         /* PROT_* the segment asks for */
} amp_pie_segment_t;

/* One relocation slot of a copy: *(base + where) = value, plus base for
 * the image's own addresses. */
typedef struct amp_pie_fixup {
    uint64_t where;
    uint64_t value;
} amp_pie_fixup_t;

typedef struct amp_pie_fixups {
    amp_pie_fixup_t *items;
    size_t count, capacity;
} amp_pie_fixups_t;

/*
 * The C library's getopt variables, which each rank has its own of
 * (start/libc_getopt.c).  A program reads them through its GOT (slots that
 * each copy points at the rank's own variable, given to amp_pie_copy_map)
 * or, built by GCC without -mno-direct-extern-access, through a copy
 * relocation (then each copy's own instance is the rank's).
 */
typedef enum amp_pie_var {
    AMP_PIE_VAR_OPTIND,
    AMP_PIE_VAR_OPTARG,
    AMP_PIE_VAR_OPTERR,
    AMP_PIE_VAR_OPTOPT,
    AMP_PIE_NVARS
} amp_pie_var_t;

/* A table of function pointers (DT_INIT_ARRAY and friends), link-time. */
typedef struct amp_pie_array {
    uintptr_t start;
    size_t count;
} amp_pie_array_t;

typedef struct amp_pie_image {
    int active; /* the program asks for pie privatization */
    int fd;     /* the program file, open for mapping copies */
    char path[256];
    uintptr_t bias; /* base of the loaded original */
    uintptr_t lo;   /* lowest link-time address, page aligned */
    uintptr_t hi;   /* end of the highest segment, page aligned */
    uintptr_t end;  /* end of the highest segment, exact */
    size_t align;   /* alignment a copy's base needs */
    size_t page_size;
    int nsegments;
    amp_pie_segment_t segments[AMP_PIE_MAX_SEGMENTS];
    /* What a copy maps: the segments, with runs of adjacent read-only
     * ones that are contiguous in the file merged into one mapping (their
     * protections combined), which saves a copy two of its mappings. */
    int nmaps;
    amp_pie_segment_t maps[AMP_PIE_MAX_SEGMENTS];
    uintptr_t relro_start, relro_end; /* page-rounded, link-time */
    amp_pie_fixups_t based;           /* value is a link-time address */
    amp_pie_fixups_t absolute;        /* value is stored as it is */
    /* Copy relocations of variables that never change after startup, or
     * that each rank has its own of: each copy starts with the original's
     * bytes (value: the size). */
    amp_pie_fixups_t snapshots;
    amp_pie_fixups_t per_rank; /* value: the amp_pie_var_t the slot names */
    uintptr_t var_copy[AMP_PIE_NVARS]; /* the program's own, or 0 */
    uintptr_t init, fini;              /* DT_INIT, DT_FINI, or 0 */
    amp_pie_array_t preinit_array, init_array, fini_array;
    uintptr_t tls_start; /* PT_TLS initialization image, link-time */
    size_t tls_file_size;
    uintptr_t eh_frame; /* .eh_frame, link-time, or 0 */
    /* libgcc's frame registration, when the process has it (for C++
     * exceptions thrown through a copy's code). */
    void (*register_frame)(const void *begin, void *object);
    void *(*deregister_frame)(const void *begin);
} amp_pie_image_t;

/* Bytes libgcc's frame registration needs per copy (struct object). */
#define AMP_PIE_FRAME_OBJECT_SIZE 128

/* Looks for the main program's pie note.  Without it, sets img->active to
 * 0 and returns AMP_OK.  With it, reads the program and plans its
 * relocations; on an image it cannot copy exactly (every unsupported
 * relocation is reported) returns an error. */
amp_status_t amp_pie_image_init(amp_pie_image_t *img);
void amp_pie_image_cleanup(amp_pie_image_t *img);

/* Bytes of address space a copy needs, and the alignment of their start. */
size_t amp_pie_copy_size(const amp_pie_image_t *img);
size_t amp_pie_copy_align(const amp_pie_image_t *img);

/* The base of the copy that is mapped at area (amp_pie_copy_size bytes of
 * reserved address space). */
static inline uintptr_t amp_pie_copy_base(const amp_pie_image_t *img,
                                          void *area)
{
    return (uintptr_t)area - img->lo;
}

/* Maps and relocates a copy at base; its GOT slots for the getopt
 * variables point at vars[AMP_PIE_VAR_...], the rank's own. */
amp_status_t amp_pie_copy_map(const amp_pie_image_t *img, uintptr_t base,
                              const uintptr_t vars[AMP_PIE_NVARS]);

/* Where the copy at base keeps variable var when the program has its own
 * instance (a copy relocation), else 0. */
static inline uintptr_t amp_pie_var_at(const amp_pie_image_t *img,
                                       uintptr_t base, amp_pie_var_t var)
{
    return img->var_copy[var] ? base + img->var_copy[var] : 0;
}

/* Initializes the program's own block in a TLS copy (thread pointer tp)
 * from the copy's relocated initialization image. */
void amp_pie_copy_tls_init(const amp_pie_image_t *img, uintptr_t base,
                           const amp_tls_image_t *tls, void *tp);

/* Runs the copy's initializers (DT_PREINIT_ARRAY, DT_INIT, DT_INIT_ARRAY)
 * as the C library runs a program's, and registers its unwind tables in
 * frame_object (AMP_PIE_FRAME_OBJECT_SIZE bytes, zeroed, kept until
 * amp_pie_copy_fini).  Call in the rank's context. */
void amp_pie_copy_init(const amp_pie_image_t *img, uintptr_t base, int argc,
                       char **argv, char **envp, void *frame_object);

/* Runs the copy's finalizers (DT_FINI_ARRAY backwards, DT_FINI), which
 * also run the C++ destructors the copy registered, and unregisters its
 * unwind tables. */
void amp_pie_copy_fini(const amp_pie_image_t *img, uintptr_t base);

/* Whether addr lies in the image whose base is base. */
static inline int amp_pie_in_image(const amp_pie_image_t *img, uintptr_t base,
                                   uintptr_t addr)
{
    return addr >= base + img->lo && addr <= base + img->end;
}

/* addr moved from the image at base from to the image at base to;
 * addresses outside the image are returned unchanged. */
static inline uintptr_t amp_pie_translate(const amp_pie_image_t *img,
                                          uintptr_t from, uintptr_t to,
                                          uintptr_t addr)
{
    return amp_pie_in_image(img, from, addr) ? addr - from + to : addr;
}

#endif
