#define _GNU_SOURCE 1
#include "tlsglobals/tls.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

typedef struct scan {
    amp_tls_image_t *img;
    char *tp;
    amp_status_t status;
} scan_t;

static const ElfW(Phdr) * tls_phdr(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS)
            return &info->dlpi_phdr[i];
    return NULL;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    scan_t *s = arg;
    const ElfW(Phdr) *ph = tls_phdr(info);
    /* Only blocks in static TLS (below tp) are in every thread at a fixed
     * offset; modules loaded later use dynamic TLS and stay shared. */
    if (!ph || !info->dlpi_tls_data || (char *)info->dlpi_tls_data >= s->tp)
        return 0;
    if (s->img->nmodules == AMP_TLS_MAX_MODULES) {
        s->status = AMP_ERR_UNSUPPORTED;
        return 1;
    }
    amp_tls_module_t *m = &s->img->modules[s->img->nmodules++];
    m->init = (const void *)(info->dlpi_addr + ph->p_vaddr);
    m->filesz = ph->p_filesz;
    m->memsz = ph->p_memsz;
    m->off = (char *)info->dlpi_tls_data - s->tp;
    if ((size_t)-m->off > s->img->below)
        s->img->below = (size_t)-m->off;
    if (ph->p_align > s->img->align)
        s->img->align = ph->p_align;
    return 0;
}

amp_status_t amp_tls_image_init(amp_tls_image_t *img)
{
    memset(img, 0, sizeof(*img));
    img->align = 64;
    scan_t s = {img, amp_tls_get(), AMP_OK};
    dl_iterate_phdr(add_module, &s);
    if (s.status != AMP_OK)
        amp_log_error("more than %d modules with thread-local storage; "
                      "globals privatization cannot cover them all",
                      AMP_TLS_MAX_MODULES);
    return s.status;
}

/* Room for the blocks, the word at tp, and aligning tp. */
size_t amp_tls_copy_size(const amp_tls_image_t *img)
{
    return img->below + img->align + 64;
}

void *amp_tls_copy_tp(const amp_tls_image_t *img, void *mem)
{
    uintptr_t tp = ((uintptr_t)mem + img->below + img->align - 1) &
                   ~(uintptr_t)(img->align - 1);
    return (void *)tp;
}

void *amp_tls_copy_init(const amp_tls_image_t *img, void *mem)
{
    char *t = amp_tls_copy_tp(img, mem);
    for (int i = 0; i < img->nmodules; i++) {
        const amp_tls_module_t *m = &img->modules[i];
        memcpy(t + m->off, m->init, m->filesz);
        memset(t + m->off + m->filesz, 0, m->memsz - m->filesz);
    }
    *(void **)t = t; /* the TCB's self pointer, as at a real tp */
    return t;
}
