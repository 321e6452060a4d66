/*
 * pie's private header: what image.c learns from the program file and
 * hands to reloc.c while the image is set up.
 */
#ifndef AMP_PIE_PIE_IMPL_H
#define AMP_PIE_PIE_IMPL_H

#include "pie/pie.h"

#include <elf.h>
#include <link.h>

/* The program file, mapped read-only while the image is set up. */
typedef struct amp_pie_file {
    const unsigned char *data;
    size_t size;
} amp_pie_file_t;

/* The dynamic section's entries the loader uses (link-time addresses). */
typedef struct amp_pie_dynamic {
    uintptr_t rela, jmprel, relr, rel, symtab, strtab;
    size_t relasz, relaent, pltrelsz, pltrel, relrsz, relrent, relsz;
    size_t strsz;
    int textrel;  /* DT_TEXTREL or DF_TEXTREL */
    int bind_now; /* DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW */
} amp_pie_dynamic_t;

/* The bytes of the file behind link-time address vaddr, when the file
 * holds size bytes there; NULL otherwise. */
const void *amp_pie_file_at(const amp_pie_image_t *img,
                            const amp_pie_file_t *file, uintptr_t vaddr,
                            size_t size);

/* Builds img->based and img->absolute from the dynamic relocations, or
 * reports every relocation it cannot apply and fails. */
amp_status_t amp_pie_plan_relocations(amp_pie_image_t *img,
                                      const amp_pie_file_t *file,
                                      const amp_pie_dynamic_t *dyn);

#endif
