/*
 * The relocation plan: every dynamic relocation of the program turned, once
 * at startup, into a fix-up that each copy applies.
 *
 *   R_X86_64_RELATIVE        B + A: the image's own address A, in the copy
 *   RELR entries             the same, A being the word the file holds
 *   R_X86_64_64, GLOB_DAT,   what the loaded original's slot holds (ld.so
 *   JUMP_SLOT, IRELATIVE     resolved it, preemption and all); moved into
 *                            the copy when it points into the original
 *                            image, kept when it points elsewhere (a shared
 *                            library)
 *   TPOFF64, DTPMOD64,       the original's value: the program's TLS block
 *   DTPOFF64, TLSDESC        has the same place in every rank's TLS copy
 *   NONE                     nothing
 *
 *   COPY                     the original's bytes, copied into each
 *                            copy (a snapshot), for a variable the library
 *                            never changes after startup; the getopt
 *                            variables (each rank has its own)
 *
 * Anything else cannot be applied exactly: each such relocation is reported
 * (type, offset, symbol) and the image is refused.  So are lazily bound
 * PLT slots (the original's slot may still point at its resolver stub) and
 * copy relocations of variables a library may change later (a copy would
 * keep reading its snapshot).  GOT slots and data words naming a getopt
 * variable point at the rank's own (per_rank fixups).
 */
#define _GNU_SOURCE 1
#include "pie/pie_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct planner {
    amp_pie_image_t *img;
    const amp_pie_file_t *file;
    const amp_pie_dynamic_t *dyn;
    int problems;
    size_t lazy;           /* JUMP_SLOTs of a lazily bound program */
    const char *lazy_name; /* the first one's symbol */
} planner_t;

static const char *const type_names[R_X86_64_NUM] = {
    [R_X86_64_NONE] = "R_X86_64_NONE",
    [R_X86_64_64] = "R_X86_64_64",
    [R_X86_64_PC32] = "R_X86_64_PC32",
    [R_X86_64_GOT32] = "R_X86_64_GOT32",
    [R_X86_64_PLT32] = "R_X86_64_PLT32",
    [R_X86_64_COPY] = "R_X86_64_COPY",
    [R_X86_64_GLOB_DAT] = "R_X86_64_GLOB_DAT",
    [R_X86_64_JUMP_SLOT] = "R_X86_64_JUMP_SLOT",
    [R_X86_64_RELATIVE] = "R_X86_64_RELATIVE",
    [R_X86_64_GOTPCREL] = "R_X86_64_GOTPCREL",
    [R_X86_64_32] = "R_X86_64_32",
    [R_X86_64_32S] = "R_X86_64_32S",
    [R_X86_64_16] = "R_X86_64_16",
    [R_X86_64_PC16] = "R_X86_64_PC16",
    [R_X86_64_8] = "R_X86_64_8",
    [R_X86_64_PC8] = "R_X86_64_PC8",
    [R_X86_64_DTPMOD64] = "R_X86_64_DTPMOD64",
    [R_X86_64_DTPOFF64] = "R_X86_64_DTPOFF64",
    [R_X86_64_TPOFF64] = "R_X86_64_TPOFF64",
    [R_X86_64_TLSGD] = "R_X86_64_TLSGD",
    [R_X86_64_TLSLD] = "R_X86_64_TLSLD",
    [R_X86_64_DTPOFF32] = "R_X86_64_DTPOFF32",
    [R_X86_64_GOTTPOFF] = "R_X86_64_GOTTPOFF",
    [R_X86_64_TPOFF32] = "R_X86_64_TPOFF32",
    [R_X86_64_PC64] = "R_X86_64_PC64",
    [R_X86_64_GOTOFF64] = "R_X86_64_GOTOFF64",
    [R_X86_64_GOTPC32] = "R_X86_64_GOTPC32",
    [R_X86_64_SIZE32] = "R_X86_64_SIZE32",
    [R_X86_64_SIZE64] = "R_X86_64_SIZE64",
    [R_X86_64_TLSDESC] = "R_X86_64_TLSDESC",
    [R_X86_64_IRELATIVE] = "R_X86_64_IRELATIVE",
    [R_X86_64_RELATIVE64] = "R_X86_64_RELATIVE64",
};

static const char *type_name(unsigned type)
{
    if (type < R_X86_64_NUM && type_names[type])
        return type_names[type];
    return "an unknown relocation type";
}

static const char *symbol_name(const planner_t *p, uint32_t sym)
{
    const amp_pie_dynamic_t *d = p->dyn;
    if (sym == 0 || !d->symtab || !d->strtab)
        return NULL;
    const Elf64_Sym *s = amp_pie_file_at(
        p->img, p->file, d->symtab + sym * sizeof(Elf64_Sym), sizeof(*s));
    const char *names = amp_pie_file_at(p->img, p->file, d->strtab, d->strsz);
    if (!s || !names || s->st_name >= d->strsz)
        return "?";
    return names + s->st_name;
}

/* The symbol's size (st_size), 0 when unknown. */
static uint64_t symbol_size(const planner_t *p, uint32_t sym)
{
    const amp_pie_dynamic_t *d = p->dyn;
    if (sym == 0 || !d->symtab)
        return 0;
    const Elf64_Sym *s = amp_pie_file_at(
        p->img, p->file, d->symtab + sym * sizeof(Elf64_Sym), sizeof(*s));
    return s ? s->st_size : 0;
}

/* The getopt variable a symbol names, or -1. */
static int getopt_var(const char *name)
{
    static const char *const names[AMP_PIE_NVARS] = {
        [AMP_PIE_VAR_OPTIND] = "optind",
        [AMP_PIE_VAR_OPTARG] = "optarg",
        [AMP_PIE_VAR_OPTERR] = "opterr",
        [AMP_PIE_VAR_OPTOPT] = "optopt",
    };
    for (int i = 0; name && i < AMP_PIE_NVARS; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* Library variables that hold the same value from startup on: the
 * standard streams (C and C++) and the program's name. */
static int never_changes(const char *name)
{
    static const char *const names[] = {
        "stdin",      "stdout",          "stderr",
        "_ZSt3cin",   "_ZSt4cout",       "_ZSt4cerr",
        "_ZSt4clog",  "_ZSt4wcin",       "_ZSt5wcout",
        "_ZSt5wcerr", "_ZSt5wclog",      "program_invocation_name",
        "__progname", "__progname_full", "program_invocation_short_name",
    };
    for (size_t i = 0; name && i < sizeof(names) / sizeof(*names); i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static void report(planner_t *p, const Elf64_Rela *r, const char *why)
{
    unsigned type = (unsigned)ELF64_R_TYPE(r->r_info);
    const char *sym = symbol_name(p, (uint32_t)ELF64_R_SYM(r->r_info));
    amp_log_error("pie: %s: %s (type %u) at offset %#lx%s%s%s: %s",
                  p->img->path, type_name(type), type,
                  (unsigned long)r->r_offset, sym ? " against '" : "",
                  sym ? sym : "", sym ? "'" : "", why);
    p->problems++;
}

static amp_status_t push(amp_pie_fixups_t *f, uint64_t where, uint64_t value)
{
    if (f->count == f->capacity) {
        size_t cap = f->capacity ? 2 * f->capacity : 64;
        amp_pie_fixup_t *items = realloc(f->items, cap * sizeof(*items));
        if (!items)
            return AMP_ERR_NOMEM;
        f->items = items;
        f->capacity = cap;
    }
    f->items[f->count++] = (amp_pie_fixup_t){where, value};
    return AMP_OK;
}

/* Whether [where, where + size) lies in a writable segment. */
static int writable(const amp_pie_image_t *img, uint64_t where, size_t size)
{
    for (int i = 0; i < img->nsegments; i++) {
        const amp_pie_segment_t *s = &img->segments[i];
        if ((s->prot & PROT_WRITE) && where >= s->start &&
            where - s->start + size <= s->mem_size)
            return 1;
    }
    return 0;
}

/* What the loaded original holds at link-time address where. */
static uint64_t original_word(const amp_pie_image_t *img, uint64_t where)
{
    uint64_t v;
    memcpy(&v, (const void *)(img->bias + where), sizeof(v));
    return v;
}

/* The original's resolved value: into the copy when it is the image's own
 * address, unchanged otherwise; a slot naming a getopt variable points at
 * the rank's own. */
static amp_status_t plan_resolved(planner_t *p, const Elf64_Rela *r)
{
    amp_pie_image_t *img = p->img;
    uint64_t where = r->r_offset;
    int var = getopt_var(symbol_name(p, (uint32_t)ELF64_R_SYM(r->r_info)));
    if (var >= 0 && r->r_addend == 0)
        return push(&img->per_rank, where, (uint64_t)var);
    uint64_t v = original_word(img, where);
    if (amp_pie_in_image(img, img->bias, v))
        return push(&img->based, where, v - img->bias);
    return push(&img->absolute, where, v);
}

static amp_status_t plan_tls(planner_t *p, const Elf64_Rela *r)
{
    amp_pie_image_t *img = p->img;
    uint64_t where = r->r_offset;
    amp_status_t st = push(&img->absolute, where, original_word(img, where));
    if (st == AMP_OK && ELF64_R_TYPE(r->r_info) == R_X86_64_TLSDESC)
        st = push(&img->absolute, where + 8, original_word(img, where + 8));
    return st;
}

/* Whether [where, where + size) lies in the RELRO range: read-only once
 * relocated, so a library cannot change it either. */
static int in_relro(const amp_pie_image_t *img, uint64_t where, uint64_t size)
{
    return where >= img->relro_start && where + size <= img->relro_end;
}

/*
 * A copy relocation: the program holds its own instance of a library's
 * variable, which every reference in the process uses except a copy's own
 * code.  Each copy starts from the original's bytes; that is exact for a
 * variable nobody changes after startup, and gives each rank its own
 * getopt variables.
 */
static amp_status_t plan_copy(planner_t *p, const Elf64_Rela *r)
{
    uint32_t sym = (uint32_t)ELF64_R_SYM(r->r_info);
    const char *name = symbol_name(p, sym);
    uint64_t size = symbol_size(p, sym);
    int var = getopt_var(name);
    if (var >= 0)
        p->img->var_copy[var] = r->r_offset;
    if (size > 0 && (var >= 0 || never_changes(name) ||
                     in_relro(p->img, r->r_offset, size)))
        return push(&p->img->snapshots, r->r_offset, size);
    report(p, r,
           "the program reads a shared library's variable through a copy "
           "relocation, and the library may change it later, which a copy "
           "of the program would not see; compile with "
           "-mno-direct-extern-access with GCC or gfortran (the wrappers "
           "add it for -privatize=pie), without "
           "-fdirect-access-external-data with clang");
    return AMP_OK;
}

static amp_status_t plan_rela(planner_t *p, const Elf64_Rela *r)
{
    unsigned type = (unsigned)ELF64_R_TYPE(r->r_info);
    size_t size = type == R_X86_64_TLSDESC ? 16 : 8;
    if (type == R_X86_64_NONE)
        return AMP_OK;
    if (!writable(p->img, r->r_offset, size)) {
        report(p, r,
               "it patches a read-only segment (a text relocation); "
               "compile every object with -fPIE");
        return AMP_OK;
    }
    switch (type) {
    case R_X86_64_RELATIVE:
        return push(&p->img->based, r->r_offset, (uint64_t)r->r_addend);
    case R_X86_64_JUMP_SLOT:
        if (!p->dyn->bind_now) {
            if (p->lazy++ == 0)
                p->lazy_name = symbol_name(p, (uint32_t)ELF64_R_SYM(r->r_info));
            return AMP_OK;
        }
        return plan_resolved(p, r);
    case R_X86_64_64:
    case R_X86_64_GLOB_DAT:
    case R_X86_64_IRELATIVE: return plan_resolved(p, r);
    case R_X86_64_TPOFF64:
    case R_X86_64_DTPMOD64:
    case R_X86_64_DTPOFF64:
    case R_X86_64_TLSDESC: return plan_tls(p, r);
    case R_X86_64_COPY: return plan_copy(p, r);
    default:
        report(p, r, "the pie loader does not support this relocation type");
        return AMP_OK;
    }
}

static amp_status_t plan_table(planner_t *p, uintptr_t table, size_t bytes,
                               const char *what)
{
    if (!table || !bytes)
        return AMP_OK;
    const Elf64_Rela *r = amp_pie_file_at(p->img, p->file, table, bytes);
    if (!r) {
        amp_log_error("pie: %s: the %s relocation table lies outside the file",
                      p->img->path, what);
        p->problems++;
        return AMP_OK;
    }
    amp_status_t st = AMP_OK;
    for (size_t i = 0; i < bytes / sizeof(*r) && st == AMP_OK; i++)
        st = plan_rela(p, &r[i]);
    return st;
}

/* One RELR-encoded relative relocation at where: base plus the link-time
 * address the file holds there. */
static amp_status_t plan_relr_slot(planner_t *p, uint64_t where)
{
    const void *v = amp_pie_file_at(p->img, p->file, where, 8);
    if (!v || !writable(p->img, where, 8)) {
        amp_log_error("pie: %s: a packed relative relocation (DT_RELR) at "
                      "offset %#lx is outside the writable data",
                      p->img->path, (unsigned long)where);
        p->problems++;
        return AMP_OK;
    }
    uint64_t value;
    memcpy(&value, v, sizeof(value));
    return push(&p->img->based, where, value);
}

/* DT_RELR: an even word is an address to relocate; an odd word is a bitmap
 * of the 63 words following the last address (bit i: word i - 1). */
static amp_status_t plan_relr(planner_t *p)
{
    const amp_pie_dynamic_t *d = p->dyn;
    if (!d->relr || !d->relrsz)
        return AMP_OK;
    const uint64_t *t = amp_pie_file_at(p->img, p->file, d->relr, d->relrsz);
    if (!t || (d->relrent && d->relrent != 8)) {
        amp_log_error("pie: %s: cannot read its DT_RELR table", p->img->path);
        p->problems++;
        return AMP_OK;
    }
    uint64_t next = 0;
    amp_status_t st = AMP_OK;
    for (size_t i = 0; i < d->relrsz / 8 && st == AMP_OK; i++) {
        if ((t[i] & 1) == 0) {
            st = plan_relr_slot(p, t[i]);
            next = t[i] + 8;
            continue;
        }
        for (int bit = 1; bit < 64 && st == AMP_OK; bit++)
            if ((t[i] >> bit) & 1)
                st = plan_relr_slot(p, next + (uint64_t)(bit - 1) * 8);
        next += 63 * 8;
    }
    return st;
}

/* Problems of the program as a whole, each reported once. */
static void check_program(planner_t *p)
{
    const amp_pie_dynamic_t *d = p->dyn;
    if (d->textrel) {
        amp_log_error("pie: %s has text relocations (DT_TEXTREL): code that "
                      "was not compiled with -fPIE; each is listed below",
                      p->img->path);
        p->problems++;
    }
    if (d->rel && d->relsz) {
        amp_log_error("pie: %s has DT_REL relocations, which x86-64 programs "
                      "do not use; the pie loader supports DT_RELA only",
                      p->img->path);
        p->problems++;
    }
    if (d->jmprel && d->pltrelsz && d->pltrel != DT_RELA) {
        amp_log_error("pie: %s: its PLT relocations are not DT_RELA",
                      p->img->path);
        p->problems++;
    }
    if (d->relaent && d->relaent != sizeof(Elf64_Rela)) {
        amp_log_error("pie: %s: relocation entries of %zu bytes", p->img->path,
                      d->relaent);
        p->problems++;
    }
}

static void report_lazy(planner_t *p)
{
    if (p->lazy == 0)
        return;
    amp_log_error("pie: %s: %zu PLT slots (the first for '%s') are bound "
                  "lazily, so the program's own slots do not say yet what "
                  "they resolve to; link with -Wl,-znow (ampicc "
                  "-privatize=pie does)",
                  p->img->path, p->lazy, p->lazy_name ? p->lazy_name : "?");
    p->problems++;
}

amp_status_t amp_pie_plan_relocations(amp_pie_image_t *img,
                                      const amp_pie_file_t *file,
                                      const amp_pie_dynamic_t *dyn)
{
    planner_t p = {img, file, dyn, 0, 0, NULL};
    check_program(&p);
    amp_status_t st = plan_table(&p, dyn->rela, dyn->relasz, "DT_RELA");
    if (st == AMP_OK && dyn->pltrel == DT_RELA)
        st = plan_table(&p, dyn->jmprel, dyn->pltrelsz, "DT_JMPREL");
    if (st == AMP_OK)
        st = plan_relr(&p);
    if (st != AMP_OK) {
        amp_log_error("pie: out of memory planning the relocations of %s",
                      img->path);
        return st;
    }
    report_lazy(&p);
    if (p.problems == 0)
        return AMP_OK;
    amp_log_error("pie: %s cannot be copied per rank: %d problem%s above",
                  img->path, p.problems, p.problems == 1 ? "" : "s");
    return AMP_ERR_UNSUPPORTED;
}
