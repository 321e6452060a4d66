# gdb commands for programs built with `ampicc -privatize=pie`, where each
# rank runs its own copy of the program image at another address, which gdb
# knows no symbols for.  Load with
#
#     (gdb) source <prefix>/share/ampi/ampi-pie-gdb.py
#
# (pie/ampi-pie-gdb.py in the source tree).  The commands read the runtime's
# own state (amp_proc in libampi, which needs libampi's debug information),
# so they work on a live process and on a core file alike.
#
#   ampi-pie-where ADDR    where ADDR (a copy's address, or any other) is in
#                          the program: its original address, symbol, line
#   ampi-pie-bt            the current thread's backtrace with every frame's
#                          address moved to the original (`info symbol`,
#                          `info line`)
#   ampi-pie-symbols RANK  load the program's symbols once more, at RANK's
#                          copy (add-symbol-file -o), so that breakpoints,
#                          `bt` and `list` work in that rank's copy
#
# The computation is the runtime's amp_pie_to_original(), which a live
# process can also call: `info symbol amp_pie_to_original($pc)`.

import gdb


def _pie():
    proc = gdb.parse_and_eval("amp_proc")
    return proc, proc["pie"], proc["mem"]


def _copy_base(mem, pie, slot):
    start = int(mem["base"]) + slot * int(mem["slot_size"])
    return start + int(mem["image_offset"]) - int(pie["lo"])


def to_original(addr):
    """addr moved from a rank's copy to the loaded original (else as is)."""
    _, pie, mem = _pie()
    if not int(pie["active"]):
        return addr
    base, size = int(mem["base"]), int(mem["slot_size"])
    if addr < base or addr >= base + size * int(mem["nslots"]):
        return addr
    copy = _copy_base(mem, pie, (addr - base) // size)
    if copy + int(pie["lo"]) <= addr <= copy + int(pie["end"]):
        return addr - copy + int(pie["bias"])
    return addr


def _describe(addr):
    orig = to_original(addr)
    symbol = gdb.execute("info symbol 0x%x" % orig, to_string=True).strip()
    line = gdb.execute("info line *0x%x" % orig, to_string=True).strip()
    moved = " (original 0x%x)" % orig if orig != addr else ""
    return "0x%x%s: %s; %s" % (addr, moved, symbol, line)


class Where(gdb.Command):
    """ampi-pie-where ADDR: ADDR moved to the original program image."""

    def __init__(self):
        super().__init__("ampi-pie-where", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        print(_describe(int(gdb.parse_and_eval(arg))))


class Backtrace(gdb.Command):
    """ampi-pie-bt: the backtrace with copy addresses moved to the original."""

    def __init__(self):
        super().__init__("ampi-pie-bt", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        frame, level = gdb.newest_frame(), 0
        while frame is not None:
            print("#%-3d %s" % (level, _describe(frame.pc())))
            frame, level = frame.older(), level + 1


class Symbols(gdb.Command):
    """ampi-pie-symbols RANK: the program's symbols at RANK's copy."""

    def __init__(self):
        super().__init__("ampi-pie-symbols", gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        proc, pie, mem = _pie()
        rank = int(gdb.parse_and_eval(arg))
        slot = int(proc["ranks"][rank]["slot"])
        path = pie["path"].string()
        base = _copy_base(mem, pie, slot)
        gdb.execute("add-symbol-file %s -o 0x%x" % (path, base), from_tty)


Where()
Backtrace()
Symbols()
