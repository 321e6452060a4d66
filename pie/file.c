/* The program file as the loader reads it: the bytes behind a link-time
 * address (pie_impl.h).  Below both image.c, which reads the headers, and
 * reloc.c, which reads the relocation tables and the symbols. */
#include "pie/pie_impl.h"

#include <stdint.h>

const void *amp_pie_file_at(const amp_pie_image_t *img,
                            const amp_pie_file_t *file, uintptr_t vaddr,
                            size_t size)
{
    for (int i = 0; i < img->nsegments; i++) {
        const amp_pie_segment_t *s = &img->segments[i];
        if (vaddr < s->start || vaddr - s->start > s->file_size ||
            size > s->file_size - (vaddr - s->start))
            continue;
        size_t off = (size_t)s->offset + (vaddr - s->start);
        return off + size <= file->size ? file->data + off : NULL;
    }
    return NULL;
}
