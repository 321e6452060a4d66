/*
 * The mark of a program built for pie privatization: an ELF note that the
 * linker puts in a PT_NOTE segment, where the runtime finds it at startup
 * (pie/image.c) in the loaded program's headers.
 *
 * Part of libampi_main.a.  `ampicc -privatize=pie` links with
 * -Wl,--undefined=amp_pie_note, which pulls this object (and so the note)
 * into the program and keeps it under --gc-sections; other programs never
 * reference the symbol and do not carry the note.
 *
 *   +0   n_namesz  5            ("AMPI" and its NUL)
 *   +4   n_descsz  4
 *   +8   n_type    0x41500001   (AMP_PIE_NOTE_TYPE: 'A' 'P', 1)
 *   +12  name      "AMPI\0", padded to 4 bytes
 *   +20  desc      1            (AMP_PIE_NOTE_VERSION)
 */
        .section .note.ampi.pie, "a", @note
        .p2align 2
        .globl  amp_pie_note
        .hidden amp_pie_note
        .type   amp_pie_note, @object
amp_pie_note:
        .long   5               /* n_namesz */
        .long   4               /* n_descsz */
        .long   0x41500001      /* n_type */
        .asciz  "AMPI"          /* name */
        .p2align 2              /* pad the name to 4 bytes */
        .long   1               /* desc: the note's version */
        .size   amp_pie_note, . - amp_pie_note

        .section .note.GNU-stack, "", @progbits
