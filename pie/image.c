/*
 * Setting up the image: find the loaded executable, check that it asks for
 * pie privatization, and read what copies need from its file.
 *
 * The program file (/proc/self/exe) is the reference for everything a copy
 * starts from: its program headers, its dynamic section (ld.so rewrites
 * some entries of the loaded one in place; the file's are pristine), its
 * relocation tables and the initial contents of its data.  The loaded
 * original is the reference for what each symbolic relocation resolved to.
 */
#define _GNU_SOURCE 1
#include "pie/pie_impl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE_DOWN(x, page) ((x) & ~(uintptr_t)((page) - 1))

/* The loaded executable: the first object dl_iterate_phdr reports. */
typedef struct loaded {
    uintptr_t bias;
    const Elf64_Phdr *phdr;
    int phnum;
    int found;
} loaded_t;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    loaded_t *l = arg;
    l->bias = info->dlpi_addr;
    l->phdr = info->dlpi_phdr;
    l->phnum = info->dlpi_phnum;
    l->found = 1;
    return 1;
}

/* Whether the notes in [p, p + size), padded to align bytes (4, or 8 in a
 * segment aligned to 8), hold the AMPI pie note. */
static int has_pie_note(const unsigned char *p, size_t size, size_t align)
{
    size_t off = 0;
    while (off + sizeof(Elf64_Nhdr) <= size) {
        Elf64_Nhdr n;
        memcpy(&n, p + off, sizeof(n));
        size_t name_off = off + sizeof(n);
        if (n.n_type == AMP_PIE_NOTE_TYPE &&
            n.n_namesz == sizeof(AMP_PIE_NOTE_NAME) &&
            name_off + n.n_namesz <= size &&
            memcmp(p + name_off, AMP_PIE_NOTE_NAME, n.n_namesz) == 0)
            return 1;
        off = name_off + AMP_ROUND_UP(n.n_namesz, align);
        off += AMP_ROUND_UP(n.n_descsz, align);
    }
    return 0;
}

static int wants_pie(const loaded_t *l)
{
    for (int i = 0; i < l->phnum; i++) {
        const Elf64_Phdr *ph = &l->phdr[i];
        if (ph->p_type == PT_NOTE &&
            has_pie_note((const unsigned char *)(l->bias + ph->p_vaddr),
                         ph->p_memsz, ph->p_align == 8 ? 8 : 4))
            return 1;
    }
    return 0;
}

static amp_status_t open_program(amp_pie_image_t *img, amp_pie_file_t *file)
{
    ssize_t n = readlink("/proc/self/exe", img->path, sizeof(img->path) - 1);
    img->path[n > 0 ? n : 0] = '\0';
    img->fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (img->fd < 0 || fstat(img->fd, &st) != 0) {
        amp_log_error("pie: cannot open the program file (/proc/self/exe): "
                      "%s",
                      strerror(errno));
        return AMP_ERR_SYS;
    }
    file->size = (size_t)st.st_size;
    void *p = mmap(NULL, file->size, PROT_READ, MAP_PRIVATE, img->fd, 0);
    if (p == MAP_FAILED) {
        amp_log_error("pie: cannot map %s: %s", img->path, strerror(errno));
        return AMP_ERR_SYS;
    }
    file->data = p;
    return AMP_OK;
}

/* The file's ELF header, checked to describe the program that is loaded. */
static const Elf64_Ehdr *check_header(const amp_pie_image_t *img,
                                      const amp_pie_file_t *file,
                                      const loaded_t *l)
{
    const Elf64_Ehdr *eh = (const void *)file->data;
    const char *why = NULL;
    if (file->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        why = "it is not an ELF file";
    else if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64)
        why = "it is not an x86-64 ELF file";
    else if (eh->e_type != ET_DYN)
        why = "it is not a position-independent executable (link it with "
              "ampicc -privatize=pie, which adds -pie)";
    else if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
             eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) >
                 file->size ||
             eh->e_phnum != l->phnum ||
             memcmp(file->data + eh->e_phoff, l->phdr,
                    (size_t)l->phnum * sizeof(Elf64_Phdr)) != 0)
        why = "its program headers differ from the loaded program's";
    if (why)
        amp_log_error("pie: cannot copy the program %s: %s", img->path, why);
    return why ? NULL : eh;
}

static amp_status_t add_segment(amp_pie_image_t *img, const Elf64_Phdr *ph)
{
    uintptr_t page = img->page_size;
    if (img->nsegments == AMP_PIE_MAX_SEGMENTS ||
        ph->p_vaddr % page != ph->p_offset % page) {
        amp_log_error("pie: %s has a loadable segment at %#lx the loader "
                      "cannot map",
                      img->path, (unsigned long)ph->p_vaddr);
        return AMP_ERR_UNSUPPORTED;
    }
    uintptr_t start = PAGE_DOWN(ph->p_vaddr, page);
    if (img->nsegments > 0 && start < img->hi) {
        amp_log_error("pie: %s has loadable segments that share a page or "
                      "are out of order (at %#lx); the loader maps each on "
                      "its own pages",
                      img->path, (unsigned long)ph->p_vaddr);
        return AMP_ERR_UNSUPPORTED;
    }
    amp_pie_segment_t *s = &img->segments[img->nsegments++];
    s->start = start;
    s->offset = (off_t)PAGE_DOWN(ph->p_offset, page);
    s->file_size = ph->p_vaddr + ph->p_filesz - s->start;
    s->mem_size = AMP_ROUND_UP(ph->p_vaddr + ph->p_memsz, page) - s->start;
    s->zero_fill = ph->p_memsz > ph->p_filesz;
    s->prot = (ph->p_flags & PF_R ? PROT_READ : 0) |
              (ph->p_flags & PF_W ? PROT_WRITE : 0) |
              (ph->p_flags & PF_X ? PROT_EXEC : 0);
    if (img->nsegments == 1 || s->start < img->lo)
        img->lo = s->start;
    if (s->start + s->mem_size > img->hi)
        img->hi = s->start + s->mem_size;
    if (ph->p_vaddr + ph->p_memsz > img->end)
        img->end = ph->p_vaddr + ph->p_memsz;
    if (ph->p_align > img->align)
        img->align = ph->p_align;
    return AMP_OK;
}

/* Reads .eh_frame's address from .eh_frame_hdr (its second field, encoded
 * as the first byte says: pc-relative or absolute, 4 or 8 bytes). */
static void find_eh_frame(amp_pie_image_t *img, const amp_pie_file_t *file,
                          uintptr_t hdr)
{
    const unsigned char *p = amp_pie_file_at(img, file, hdr, 12);
    if (!p || p[0] != 1)
        return;
    unsigned enc = p[1];
    uintptr_t field = hdr + 4, base = (enc & 0x70) == 0x10 ? field : 0;
    int32_t s4;
    uint32_t u4;
    uint64_t u8;
    switch (enc & 0x0f) {
    case 0x0b: /* sdata4 */
        memcpy(&s4, p + 4, 4);
        img->eh_frame = base + (uintptr_t)(intptr_t)s4;
        break;
    case 0x03: /* udata4 */
        memcpy(&u4, p + 4, 4);
        img->eh_frame = base + u4;
        break;
    case 0x00: /* absptr */
    case 0x04: /* udata8 */
    case 0x0c: /* sdata8 */
        memcpy(&u8, p + 4, 8);
        img->eh_frame = base + (uintptr_t)u8;
        break;
    }
    if ((enc & 0x70) != 0x10 && (enc & 0x70) != 0)
        img->eh_frame = 0; /* an encoding compilers do not use here */
}

/* Whether b can join mapping a: both read-only and fully backed by the
 * file, adjacent in memory and in the file. */
static int mergeable(const amp_pie_segment_t *a, const amp_pie_segment_t *b)
{
    return !((a->prot | b->prot) & PROT_WRITE) && !a->zero_fill &&
           !b->zero_fill && a->start + a->mem_size == b->start &&
           a->offset + (off_t)a->mem_size == b->offset;
}

static void plan_mappings(amp_pie_image_t *img)
{
    for (int i = 0; i < img->nsegments; i++) {
        const amp_pie_segment_t *s = &img->segments[i];
        amp_pie_segment_t *last =
            img->nmaps > 0 ? &img->maps[img->nmaps - 1] : NULL;
        if (last && mergeable(last, s)) {
            last->file_size = s->start - last->start + s->file_size;
            last->mem_size += s->mem_size;
            last->prot |= s->prot;
        } else {
            img->maps[img->nmaps++] = *s;
        }
    }
}

static amp_status_t read_segments(amp_pie_image_t *img,
                                  const amp_pie_file_t *file,
                                  const Elf64_Ehdr *eh, const Elf64_Phdr **dyn)
{
    const Elf64_Phdr *ph = (const void *)(file->data + eh->e_phoff);
    *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++) {
        amp_status_t st = AMP_OK;
        if (ph[i].p_type == PT_LOAD)
            st = add_segment(img, &ph[i]);
        else if (ph[i].p_type == PT_DYNAMIC)
            *dyn = &ph[i];
        if (st != AMP_OK)
            return st;
    }
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_GNU_RELRO) {
            img->relro_start = PAGE_DOWN(ph[i].p_vaddr, img->page_size);
            img->relro_end =
                PAGE_DOWN(ph[i].p_vaddr + ph[i].p_memsz, img->page_size);
        } else if (ph[i].p_type == PT_TLS) {
            img->tls_start = ph[i].p_vaddr;
            img->tls_file_size = ph[i].p_filesz;
        } else if (ph[i].p_type == PT_GNU_EH_FRAME) {
            find_eh_frame(img, file, ph[i].p_vaddr);
        }
    }
    plan_mappings(img);
    if (img->nsegments == 0 || !*dyn) {
        amp_log_error("pie: %s has no %s", img->path,
                      img->nsegments ? "dynamic section" : "loadable segment");
        return AMP_ERR_UNSUPPORTED;
    }
    return AMP_OK;
}

static void set_array(amp_pie_array_t *a, uintptr_t start, size_t bytes)
{
    if (start)
        a->start = start;
    if (bytes)
        a->count = bytes / sizeof(void *);
}

static void read_flags(amp_pie_dynamic_t *d, const Elf64_Dyn *e)
{
    if (e->d_tag == DT_TEXTREL)
        d->textrel = 1;
    else if (e->d_tag == DT_BIND_NOW)
        d->bind_now = 1;
    else if (e->d_tag == DT_FLAGS) {
        d->textrel |= (e->d_un.d_val & DF_TEXTREL) != 0;
        d->bind_now |= (e->d_un.d_val & DF_BIND_NOW) != 0;
    } else if (e->d_tag == DT_FLAGS_1) {
        d->bind_now |= (e->d_un.d_val & DF_1_NOW) != 0;
    }
}

/* One dynamic entry; the relocation tables go into d, the initializers and
 * finalizers into img. */
static void read_entry(amp_pie_image_t *img, amp_pie_dynamic_t *d,
                       const Elf64_Dyn *e)
{
    uintptr_t v = e->d_un.d_ptr;
    switch (e->d_tag) {
    case DT_RELA: d->rela = v; break;
    case DT_RELASZ: d->relasz = v; break;
    case DT_RELAENT: d->relaent = v; break;
    case DT_JMPREL: d->jmprel = v; break;
    case DT_PLTRELSZ: d->pltrelsz = v; break;
    case DT_PLTREL: d->pltrel = v; break;
    case DT_RELR: d->relr = v; break;
    case DT_RELRSZ: d->relrsz = v; break;
    case DT_RELRENT: d->relrent = v; break;
    case DT_REL: d->rel = v; break;
    case DT_RELSZ: d->relsz = v; break;
    case DT_SYMTAB: d->symtab = v; break;
    case DT_STRTAB: d->strtab = v; break;
    case DT_STRSZ: d->strsz = v; break;
    case DT_INIT: img->init = v; break;
    case DT_FINI: img->fini = v; break;
    case DT_PREINIT_ARRAY: set_array(&img->preinit_array, v, 0); break;
    case DT_PREINIT_ARRAYSZ: set_array(&img->preinit_array, 0, v); break;
    case DT_INIT_ARRAY: set_array(&img->init_array, v, 0); break;
    case DT_INIT_ARRAYSZ: set_array(&img->init_array, 0, v); break;
    case DT_FINI_ARRAY: set_array(&img->fini_array, v, 0); break;
    case DT_FINI_ARRAYSZ: set_array(&img->fini_array, 0, v); break;
    default: read_flags(d, e); break;
    }
}

static amp_status_t read_dynamic(amp_pie_image_t *img,
                                 const amp_pie_file_t *file,
                                 const Elf64_Phdr *ph, amp_pie_dynamic_t *d)
{
    memset(d, 0, sizeof(*d));
    if (ph->p_offset + ph->p_filesz > file->size) {
        amp_log_error("pie: %s: the dynamic section lies outside the file",
                      img->path);
        return AMP_ERR_UNSUPPORTED;
    }
    const Elf64_Dyn *e = (const void *)(file->data + ph->p_offset);
    size_t n = ph->p_filesz / sizeof(*e);
    for (size_t i = 0; i < n && e[i].d_tag != DT_NULL; i++)
        read_entry(img, d, &e[i]);
    /* ld.so binds everything at startup with LD_BIND_NOW set, too. */
    const char *now = getenv("LD_BIND_NOW");
    if (now && *now)
        d->bind_now = 1;
    return AMP_OK;
}

/* libgcc's frame registration, if the process has it: C++ exceptions
 * thrown through a copy's code need the copy's unwind tables. */
static void find_frame_registration(amp_pie_image_t *img)
{
    void *reg = dlsym(RTLD_DEFAULT, "__register_frame_info");
    void *dereg = dlsym(RTLD_DEFAULT, "__deregister_frame_info");
    if (!reg || !dereg || !img->eh_frame)
        return;
    memcpy(&img->register_frame, &reg, sizeof(reg));
    memcpy(&img->deregister_frame, &dereg, sizeof(dereg));
}

static amp_status_t read_program(amp_pie_image_t *img,
                                 const amp_pie_file_t *file, const loaded_t *l)
{
    const Elf64_Ehdr *eh = check_header(img, file, l);
    if (!eh)
        return AMP_ERR_UNSUPPORTED;
    const Elf64_Phdr *dyn_ph;
    amp_status_t st = read_segments(img, file, eh, &dyn_ph);
    amp_pie_dynamic_t dyn;
    if (st == AMP_OK)
        st = read_dynamic(img, file, dyn_ph, &dyn);
    if (st == AMP_OK)
        st = amp_pie_plan_relocations(img, file, &dyn);
    if (st == AMP_OK)
        find_frame_registration(img);
    return st;
}

amp_status_t amp_pie_image_init(amp_pie_image_t *img)
{
    memset(img, 0, sizeof(*img));
    img->fd = -1;
    img->page_size = (size_t)sysconf(_SC_PAGESIZE);
    img->align = img->page_size;
    loaded_t l = {0};
    dl_iterate_phdr(first_object, &l);
    if (!l.found || !wants_pie(&l))
        return AMP_OK;
    img->active = 1;
    img->bias = l.bias;
    amp_pie_file_t file = {0};
    amp_status_t st = open_program(img, &file);
    if (st == AMP_OK)
        st = read_program(img, &file, &l);
    if (file.data)
        munmap((void *)file.data, file.size);
    if (st != AMP_OK)
        amp_pie_image_cleanup(img);
    return st;
}

void amp_pie_image_cleanup(amp_pie_image_t *img)
{
    if (img->fd >= 0)
        close(img->fd);
    free(img->based.items);
    free(img->absolute.items);
    free(img->snapshots.items);
    free(img->per_rank.items);
    memset(img, 0, sizeof(*img));
    img->fd = -1;
}

size_t amp_pie_copy_size(const amp_pie_image_t *img)
{
    return img->active ? img->hi - img->lo : 0;
}

size_t amp_pie_copy_align(const amp_pie_image_t *img)
{
    return img->active ? img->align : 0;
}
