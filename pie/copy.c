/*
 * One copy of the program image: map, relocate, initialize, finalize.
 *
 * Each segment is mapped from the program file at base + its link-time
 * address, privately: pages nobody writes (all the code, the read-only
 * data, data pages without relocations) stay the page cache's pages,
 * shared by the original and every copy; the pages that relocations or
 * the rank write are copied on first write.  Memory past a segment's file
 * contents (.bss) is zero: the rest of its last file page is cleared and
 * whole pages are fresh anonymous memory.
 */
#define _GNU_SOURCE 1
#include "pie/pie.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

typedef void (*init_fn_t)(int argc, char **argv, char **envp);
typedef void (*fini_fn_t)(void);

static amp_status_t map_failed(const amp_pie_image_t *img, uintptr_t addr,
                               const char *what)
{
    amp_log_error("pie: cannot map %s of a copy of %s at %#lx: %s", what,
                  img->path, (unsigned long)addr, strerror(errno));
    return AMP_ERR_NOMEM;
}

static amp_status_t map_segment(const amp_pie_image_t *img, uintptr_t base,
                                const amp_pie_segment_t *s)
{
    uintptr_t addr = base + s->start;
    size_t file_pages = AMP_ROUND_UP(s->file_size, img->page_size);
    /* Writable segments stay writable until their relocations are in. */
    int prot = s->prot | (s->prot & PROT_WRITE ? PROT_READ : 0);
    if (file_pages > s->mem_size)
        file_pages = s->mem_size;
    if (file_pages &&
        mmap((void *)addr, file_pages, prot, MAP_PRIVATE | MAP_FIXED, img->fd,
             s->offset) == MAP_FAILED)
        return map_failed(img, addr, "a segment");
    if (s->zero_fill && file_pages > s->file_size)
        memset((void *)(addr + s->file_size), 0, file_pages - s->file_size);
    if (s->mem_size > file_pages &&
        mmap((void *)(addr + file_pages), s->mem_size - file_pages, prot,
             MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
        return map_failed(img, addr + file_pages, "the zero-filled part");
    return AMP_OK;
}

static void apply(const amp_pie_fixups_t *f, uintptr_t base, uint64_t add)
{
    for (size_t i = 0; i < f->count; i++) {
        uint64_t v = f->items[i].value + add;
        memcpy((void *)(base + f->items[i].where), &v, sizeof(v));
    }
}

/* The original's bytes of each snapshot variable, into the copy. */
static void apply_snapshots(const amp_pie_image_t *img, uintptr_t base)
{
    const amp_pie_fixups_t *f = &img->snapshots;
    for (size_t i = 0; i < f->count; i++)
        memcpy((void *)(base + f->items[i].where),
               (const void *)(img->bias + f->items[i].where),
               f->items[i].value);
}

static void apply_per_rank(const amp_pie_fixups_t *f, uintptr_t base,
                           const uintptr_t vars[AMP_PIE_NVARS])
{
    for (size_t i = 0; i < f->count; i++) {
        uint64_t v = vars[f->items[i].value];
        memcpy((void *)(base + f->items[i].where), &v, sizeof(v));
    }
}

amp_status_t amp_pie_copy_map(const amp_pie_image_t *img, uintptr_t base,
                              const uintptr_t vars[AMP_PIE_NVARS])
{
    for (int i = 0; i < img->nmaps; i++) {
        amp_status_t st = map_segment(img, base, &img->maps[i]);
        if (st != AMP_OK)
            return st;
    }
    apply(&img->based, base, base);
    apply(&img->absolute, base, 0);
    apply_snapshots(img, base);
    apply_per_rank(&img->per_rank, base, vars);
    if (img->relro_end > img->relro_start &&
        mprotect((void *)(base + img->relro_start),
                 img->relro_end - img->relro_start, PROT_READ) != 0) {
        amp_log_error("pie: cannot write-protect the RELRO range of a copy "
                      "of %s: %s",
                      img->path, strerror(errno));
        return AMP_ERR_SYS;
    }
    return AMP_OK;
}

void amp_pie_copy_tls_init(const amp_pie_image_t *img, uintptr_t base,
                           const amp_tls_image_t *tls, void *tp)
{
    const void *original = (const void *)(img->bias + img->tls_start);
    if (!img->tls_file_size)
        return;
    for (int i = 0; i < tls->nmodules; i++) {
        const amp_tls_module_t *m = &tls->modules[i];
        if (m->init == original)
            memcpy((char *)tp + m->off, (const void *)(base + img->tls_start),
                   img->tls_file_size);
    }
}

/* Entry i of a function table in the copy (already relocated). */
static uintptr_t entry(uintptr_t base, const amp_pie_array_t *a, size_t i)
{
    uintptr_t fn;
    memcpy(&fn, (const void *)(base + a->start + i * sizeof(fn)), sizeof(fn));
    return fn;
}

static void run_array(uintptr_t base, const amp_pie_array_t *a, int argc,
                      char **argv, char **envp)
{
    for (size_t i = 0; i < a->count; i++) {
        uintptr_t fn = entry(base, a, i);
        if (fn != 0 && fn != (uintptr_t)-1)
            ((init_fn_t)fn)(argc, argv, envp);
    }
}

void amp_pie_copy_init(const amp_pie_image_t *img, uintptr_t base, int argc,
                       char **argv, char **envp, void *frame_object)
{
    if (img->register_frame)
        img->register_frame((const void *)(base + img->eh_frame), frame_object);
    run_array(base, &img->preinit_array, argc, argv, envp);
    if (img->init)
        ((init_fn_t)(base + img->init))(argc, argv, envp);
    run_array(base, &img->init_array, argc, argv, envp);
}

void amp_pie_copy_fini(const amp_pie_image_t *img, uintptr_t base)
{
    for (size_t i = img->fini_array.count; i-- > 0;) {
        uintptr_t fn = entry(base, &img->fini_array, i);
        if (fn != 0 && fn != (uintptr_t)-1)
            ((fini_fn_t)fn)();
    }
    if (img->fini)
        ((fini_fn_t)(base + img->fini))();
    if (img->deregister_frame)
        img->deregister_frame((const void *)(base + img->eh_frame));
}
