#!/usr/bin/env python3
"""Checks that the runtime's includes follow the layers of runtime/README.md.

The drawing (the first fenced block of runtime/README.md) lists the folders
of runtime/ from the top layer down, one layer a line, folders of one layer
side by side; the table gives each folder's API headers (names in backquotes
in its second column, those inside parentheses being private; a header the
table does not name is private too).  A source or header of folder F may
include:
  - its own folder's headers ("F/x.h", or "x.h" beside it);
  - the API headers of a folder drawn in a layer under F's;
  - the installed headers (runtime/include: "mpi.h", "ampi.h"...);
  - the API headers of the components outside the runtime (OUTSIDE).
Anything else is reported, unless KNOWN lists it with its reason.

A folder with subfolders (mpi/) draws them the same way in its own
README.md, "./" standing for the folder's own files (check_parts): a file
of a part (a subfolder, or ./) may include the headers of its own part and
of the parts drawn under it, not those of a part drawn beside or above it.
SUB_BESIDE lists the files beside that drawing, with the reason; a folder's
header for the folders above it (SUB_OUTWARD) is included by no file of
the folder.

With --objects, the runtime's object files are checked the same way: a
runtime name (amp_*, MPI_*, PMPI_*, AMPI_*) that an object of folder F uses
must be defined in F or in a folder drawn under F's (mem/sys_alloc.c, beside
the drawing, may be used by every folder), and one that an object of a
part of F uses, in its part or a part drawn under it.  The C library's
names that the runtime defines for the whole process (malloc, free,
strerror, pthread_create...) are calls of the C library's API and are not
checked.

It also checks the style's "more than 8 parameters: pass a struct" (see
check_params): no function of the runtime, nor of the components beside it
(OUTSIDE, and wrappers/), is declared with more than MAX_PARAMS
parameters, function pointer types included, unless an outside standard
fixes its signature (FIXED_SIGNATURE: the MPI API, its public extensions,
the Fortran bindings) or PARAMS_KNOWN lists it with its reason.

With --objects, by the same names, no two files of the runtime may use
each other, directly or around a longer cycle (check_cycles), unless
KNOWN_CYCLES excuses their folder.

Usage: check_layers.py [ROOT]      check the tree at ROOT (default: ..)
       check_layers.py ROOT --objects OBJ...
                                   also check the objects of libampi
       check_layers.py --self-test check that violations are caught
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Components beside the runtime that the runtime's folders use, with their
# API headers; they sit on base/.
OUTSIDE = {"pie": {"pie.h"}, "tlsglobals": {"tls.h"}}

# Includes that break the layers and are known: (file under runtime/,
# included path) -> why it is tolerated.  Keep it short; fix rather than add.
KNOWN = {}

# Objects of generated sources, outside the runtime's folders, and the
# folder (and the part of it) they belong to.
GENERATED = {"mt_gen.c.o": "mpi/threads", "fortran_gen.c.o": "mpi/fortran",
             "large_gen.c.o": "mpi/large"}

# Files of a folder with parts that sit beside the drawing of its parts:
# (folder, file) -> why.  Their includes and the names they use are not
# checked, and every part may include them and use their names.  Keep it
# short; a file that no longer exists must leave it.
SUB_BESIDE = {}
# A folder's header for the folders above it, which includes its parts'
# headers: (folder, file) -> what it is.  No file of the folder includes it.
SUB_OUTWARD = {("mpi", "impl.h"): "the objects behind handles, for rank/"}
# Beside the drawing: defined for every folder.
EVERYWHERE = ("mem/sys_alloc.c.o",)
RUNTIME_NAME = re.compile(r"^(amp_|MPI_|PMPI_|AMPI_)")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# The parameters check: the most a function may take (more take a struct,
# const T *, as amp_xfer_t and amp_slot_desc_t do), the folders whose C
# sources it reads (runtime/include is the standard's), the names whose
# signature an outside standard fixes (MPI and PMPI, AMPI's public
# extensions, the Fortran bindings' mangled names), and the functions
# known to take more: (file under ROOT, name) -> why.  Keep it empty.
MAX_PARAMS = 8
PARAMS_DIRS = ("runtime", "pie", "tlsglobals", "wrappers")
FIXED_SIGNATURE = re.compile(r"^(P?MPI_\w+|AMPI_\w+|p?mpi_\w+_)$")
PARAMS_KNOWN = {}

# What check_params blanks before reading: comments, string and character
# literals, preprocessor lines (with their continuations and comments).
NOT_CODE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\""
                      r"|'(?:\\.|[^'\\\n])*'"
                      r"|^[ \t]*#(?:\\\n|/\*.*?\*/|[^\n])*", re.M | re.S)
# A parameter list: after a name (a function, a function type) or after a
# parenthesized pointer declarator ((*fn), (*table[4])); "int (*fn)(" is
# the second kind, not a list after "int".
DECLARATOR = re.compile(r"\b([A-Za-z_]\w*)\s*\((?!\s*\*)|"
                        r"\(\s*\*\s*([A-Za-z_]\w*)[^()]*\)\s*\(")
# What precedes the brace of a struct, union or enum body (a tag, macros).
BODY = re.compile(r"\b(?:struct|union|enum)(?:\s+\w+)*\s*$")
# Names followed by a parenthesized list that is no parameter list.
NOT_FUNCTION = {"__attribute__", "_Static_assert", "static_assert",
                "sizeof", "_Alignof", "_Alignas", "alignof", "typeof",
                "__typeof__", "__asm__", "asm", "_Generic"}


def parse_readme(text, folders):
    """Returns ({folder: layer index, 0 = bottom}, {folder: API headers})."""
    layer = parse_drawing(text, folders, "runtime/README.md")
    api = {}
    for m in re.finditer(r"^\| `([a-z0-9_]+)/` \| ([^|]*) \|", text, re.M):
        public = re.sub(r"\([^)]*\)", "", m.group(2))
        api[m.group(1)] = set(re.findall(r"`([^`]+)`", public))
    return layer, api


def parse_drawing(text, folders, where):
    """{name: layer index, 0 = bottom} of the first fenced block of text (a
    README, where), whose lines name folders side by side, top first."""
    block = re.search(r"^```\n(.*?)^```", text, re.M | re.S)
    if not block:
        raise SystemExit(f"{where}: no drawing of the layers")
    rows = []
    for line in block.group(1).splitlines():
        names = []
        for word in line.split():
            if word not in folders:
                break
            names.append(word)
        if names:
            rows.append(names)
    layer = {}
    for i, names in enumerate(reversed(rows)):
        for name in names:
            if name in layer:
                raise SystemExit(f"{where}: {name} drawn twice")
            layer[name] = i
    return layer


def check(root):
    """The list of problems found in the tree at root."""
    rt = os.path.join(root, "runtime")
    with open(os.path.join(rt, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    folders = sorted(d for d in os.listdir(rt)
                     if os.path.isdir(os.path.join(rt, d)) and d != "include")
    layer, api = parse_readme(readme, set(folders))
    installed = set(os.listdir(os.path.join(rt, "include")))
    problems = []
    for folder in folders:
        if folder not in layer:
            problems.append(f"runtime/{folder}/: not in runtime/README.md's "
                            "drawing of the layers")
            continue
        if folder not in api:
            problems.append(f"runtime/{folder}/: no row in runtime/"
                            "README.md's table of API headers")
            continue
        for rel in sources(rt, folder):
            with open(os.path.join(rt, rel), encoding="utf-8") as f:
                text = f.read()
            here = os.path.dirname(rel)
            for inc in INCLUDE.findall(text):
                why = verdict(folder, inc, layer, api, installed, rt, here)
                if why and (rel, inc) not in KNOWN:
                    problems.append(f'runtime/{rel}: #include "{inc}": {why}')
    for (rel, inc), reason in KNOWN.items():
        path = os.path.join(rt, rel)
        if not os.path.exists(path) or f'"{inc}"' not in open(path).read():
            problems.append(f'KNOWN lists runtime/{rel} including "{inc}" '
                            f"({reason}), which it no longer does: remove it")
    for folder in folders:
        if folder in layer:
            problems += check_parts(rt, folder)
    return problems


def subfolders(rt, folder):
    """The subfolders of runtime/folder (its parts, with "./")."""
    top = os.path.join(rt, folder)
    return sorted(d for d in os.listdir(top)
                  if os.path.isdir(os.path.join(top, d)))


def part_layers(rt, folder):
    """{part: layer index} of folder's drawing of its parts ({} when its
    README.md has none), or None when it has no subfolders."""
    subs = subfolders(rt, folder)
    if not subs:
        return None
    path = os.path.join(rt, folder, "README.md")
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if not re.search(r"^```\n", text, re.M):
        return {}
    return parse_drawing(text, set(subs) | {"./"},
                         f"runtime/{folder}/README.md")


def part_label(folder, part):
    """How a message names a part of folder."""
    return f"{folder}/'s own files" if part == "./" else f"{folder}/{part}/"


def part_of(rel):
    """The part of a path relative to its folder: its subfolder, or "./"
    for the folder's own files."""
    return rel.split("/", 1)[0] if "/" in rel else "./"


def check_parts(rt, folder):
    """The includes between the parts of folder that break its drawing
    (SUB_BESIDE and SUB_OUTWARD aside)."""
    layer = part_layers(rt, folder)
    if layer is None:
        return []
    if not layer:
        return [f"runtime/{folder}/: has subfolders, and its README.md "
                "draws no order of them"]
    problems = [f"runtime/{folder}/{sub}/: not in runtime/{folder}/"
                "README.md's drawing of its parts"
                for sub in subfolders(rt, folder) if sub not in layer]
    for (owner, name), reason in SUB_BESIDE.items():
        if owner == folder and not os.path.exists(os.path.join(rt, owner,
                                                               name)):
            problems.append(f"SUB_BESIDE lists runtime/{owner}/{name} "
                            f"({reason}), which is gone: remove it")
    for rel in sources(rt, folder):
        inner = rel.split("/", 1)[1]
        if (folder, inner) in SUB_BESIDE or (folder, inner) in SUB_OUTWARD:
            continue
        part = part_of(inner)
        if part not in layer:
            continue
        with open(os.path.join(rt, rel), encoding="utf-8") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            why = part_verdict(folder, part, inc, layer)
            if why:
                problems.append(f'runtime/{rel}: #include "{inc}": {why}')
    return problems


def part_verdict(folder, part, inc, layer):
    """None when a file of part of folder may include inc, else what is
    wrong."""
    if not inc.startswith(folder + "/"):
        return None  # beside it (its own part) or another folder's
    target = inc[len(folder) + 1:]
    if (folder, target) in SUB_BESIDE:
        return None
    if (folder, target) in SUB_OUTWARD:
        return (f"{folder}/{target} is for the folders above {folder}/ "
                f"({SUB_OUTWARD[(folder, target)]})")
    owner = part_of(target)
    if owner == part or owner not in layer:
        return None
    if layer[owner] >= layer[part]:
        where = "beside" if layer[owner] == layer[part] else "above"
        return (f"{part_label(folder, owner)} is drawn {where} "
                f"{part_label(folder, part)} in runtime/{folder}/README.md")
    return None


def sources(rt, folder):
    """The sources and headers of folder and its subfolders (a folder's
    subfolders are parts of it: mpi/pt2pt/ is mpi/), relative to rt."""
    found = []
    for d, subs, names in os.walk(os.path.join(rt, folder)):
        subs.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h", ".S")):
                found.append(os.path.relpath(os.path.join(d, name), rt))
    return found


def check_params(root):
    """The functions and function types of ROOT's PARAMS_DIRS declared with
    more than MAX_PARAMS parameters (a variadic ... not counted), but those
    FIXED_SIGNATURE or PARAMS_KNOWN excuses.  Read from the source, not the
    compiler: at file scope and in struct bodies every name followed by a
    parenthesized list declares a function or a function type (function
    bodies and initializers, where the calls are, are skipped); a function
    that only a macro's expansion declares is not seen."""
    problems, seen = [], set()
    for top in PARAMS_DIRS:
        for d, subs, names in os.walk(os.path.join(root, top)):
            subs[:] = sorted(s for s in subs if
                             os.path.join(d, s) !=
                             os.path.join(root, "runtime", "include"))
            for name in sorted(n for n in names if n.endswith((".c", ".h"))):
                path = os.path.join(d, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    code = declarations(f.read())
                for fn, n, line in parameter_lists(code):
                    if FIXED_SIGNATURE.match(fn):
                        continue
                    if (rel, fn) in PARAMS_KNOWN:
                        seen.add((rel, fn))
                        continue
                    problems.append(f"{rel}:{line}: {fn} takes {n} "
                                    f"parameters (more than {MAX_PARAMS}): "
                                    "pass the ones that describe one thing "
                                    "as a struct")
    for (rel, fn), reason in PARAMS_KNOWN.items():
        if (rel, fn) not in seen:
            problems.append(f"PARAMS_KNOWN lists {fn} of {rel} ({reason}), "
                            "which no longer takes more than "
                            f"{MAX_PARAMS} parameters: remove it")
    return problems


def declarations(text):
    """text without what is not code (NOT_CODE), and with all but file
    scope and struct, union and enum bodies blanked (function bodies,
    initializers, and all inside them).  Newlines stay, so lines keep their
    numbers."""
    code = NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    out, blank = [], []
    for i, ch in enumerate(code):
        if ch == "{":
            blank.append(bool(blank and blank[-1]) or
                         not BODY.search(code, max(0, i - 200), i))
        inside = bool(blank and blank[-1])
        if ch == "}" and blank:
            blank.pop()
        out.append(" " if inside and ch not in "{}\n" else ch)
    return "".join(out)


def parameter_lists(code):
    """(name, parameter count, line) of each parameter list in code (as
    declarations returns it) with more than MAX_PARAMS parameters."""
    found = []
    for m in DECLARATOR.finditer(code):
        fn = m.group(1) or m.group(2)
        if fn in NOT_FUNCTION:
            continue
        depth, start, params = 0, m.end(), []
        for i in range(m.end() - 1, len(code)):
            if code[i] in "([":
                depth += 1
            elif code[i] in ")]":
                depth -= 1
                if depth == 0:
                    params.append(code[start:i])
                    break
            elif code[i] == "," and depth == 1:
                params.append(code[start:i])
                start = i + 1
        params = [p.strip() for p in params]
        n = len([p for p in params if p not in ("", "void", "...")])
        if n > MAX_PARAMS:
            found.append((fn, n, code.count("\n", 0, m.start()) + 1))
    return found


def object_folder(path, layer):
    """The runtime folder (or component beside it) an object was built
    from, or None: the first of the directories above it that is one (an
    object of mpi/pt2pt/ is mpi/'s)."""
    return object_place(path, layer)[0]


def object_place(path, layer):
    """(folder, path of the source in it) of an object, as object_folder
    finds the folder; the path is the source's name alone when no
    directory follows the folder's (an object built beside the source)."""
    parts = os.path.normpath(path).split(os.sep)
    source = parts[-1][:-2] if parts[-1].endswith(".o") else parts[-1]
    parts = parts[:-1]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] in OUTSIDE and "runtime" not in parts[i:]:
            return parts[i], source
        if parts[i].endswith(".dir") and i + 1 < len(parts) and \
                (parts[i + 1] in layer or parts[i + 1] in OUTSIDE):
            return parts[i + 1], "/".join(parts[i + 2:] + [source])
    parent = parts[-1] if parts else ""
    if parent in layer or parent in OUTSIDE:
        return parent, source
    gen = GENERATED.get(os.path.basename(path))
    if gen is None:
        return None, source
    folder, _, part = gen.partition("/")
    return folder, (part + "/" if part else "") + source


def check_objects(root, objects):
    """The runtime names objects use from folders not under their own."""
    rt = os.path.join(root, "runtime")
    with open(os.path.join(rt, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    folders = {d for d in os.listdir(rt)
               if os.path.isdir(os.path.join(rt, d)) and d != "include"}
    layer, _ = parse_readme(readme, folders)
    defined, used = {}, {}
    for obj in objects:
        out = subprocess.run(["nm", "-P", obj], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) < 2 or not RUNTIME_NAME.match(fields[0]):
                continue
            if fields[1] == "U":
                used.setdefault(obj, set()).add(fields[0])
            elif fields[1] in "TDBRVWG":
                defined.setdefault(fields[0], []).append(obj)
    problems = []
    for obj in sorted(used):
        folder = object_folder(obj, layer)
        if folder is None:
            problems.append(f"{obj}: not built from a folder of the runtime")
            continue
        for name in sorted(used[obj]):
            for where in defined.get(name, []):
                owner = object_folder(where, layer)
                if owner in (folder, None) or owner in OUTSIDE or \
                        where.endswith(EVERYWHERE):
                    continue
                if folder in OUTSIDE and owner == "base":
                    continue
                if folder in OUTSIDE or layer[owner] >= layer[folder]:
                    problems.append(
                        f"{folder}/{os.path.basename(obj)} uses {name} of "
                        f"{owner}/{os.path.basename(where)}, which is not "
                        f"drawn under {folder}/")
    return problems + check_part_objects(rt, layer, defined, used)


def check_part_objects(rt, layer, defined, used):
    """The runtime names an object of a part of a folder uses from a part
    of that folder not drawn under its own (SUB_BESIDE aside)."""
    parts, problems = {}, []
    for obj in sorted(used):
        folder, src = object_place(obj, layer)
        if folder not in layer or (folder, src) in SUB_BESIDE:
            continue
        if folder not in parts:
            parts[folder] = part_layers(rt, folder)
        sub = parts[folder]
        if not sub or part_of(src) not in sub:
            continue
        part = part_of(src)
        for name in sorted(used[obj]):
            for where in defined.get(name, []):
                wfolder, wsrc = object_place(where, layer)
                if wfolder != folder or (folder, wsrc) in SUB_BESIDE or \
                        part_of(wsrc) not in sub:
                    continue
                owner = part_of(wsrc)
                if owner != part and sub[owner] >= sub[part]:
                    problems.append(
                        f"{folder}/{src} uses {name} of {folder}/{wsrc}, "
                        "which is not drawn under "
                        f"{part_label(folder, part)} in "
                        f"runtime/{folder}/README.md")
    return problems


# Cycles among files that are known (check_cycles): a folder -> why the
# cycles among its files are tolerated.  A cycle is excused when all its
# files belong to one such folder; an entry whose folder has no cycle left
# is reported.  Keep it short; remove an entry once its folder's files form
# a DAG.
KNOWN_CYCLES = {"mpi": "its parts form a DAG (mpi/README.md), but the files of "
                        "comm/, coll/ and file/ still use each other, and "
                        "pt2pt/device.c and coll/device.c run their "
                        "chapter's call again on host copies (a call "
                        "through itself)"}


def check_cycles(root, objects, known=None):
    """The cycles among the runtime's files, read from their objects: file
    A uses file B when A's object uses a runtime name (RUNTIME_NAME) that
    B's defines (EVERYWHERE aside, as in check_objects).  A strongly
    connected component of more than one file is a cycle; it is reported
    with its files and one name per use inside it, unless known (default
    KNOWN_CYCLES) excuses it."""
    known = KNOWN_CYCLES if known is None else known
    rt = os.path.join(root, "runtime")
    with open(os.path.join(rt, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    folders = {d for d in os.listdir(rt)
               if os.path.isdir(os.path.join(rt, d)) and d != "include"}
    layer, _ = parse_readme(readme, folders)
    defined, used = {}, {}
    # One nm for all: "OBJECT: NAME TYPE ..." a line.
    out = subprocess.run(["nm", "-P", "-A"] + list(objects),
                         capture_output=True, text=True,
                         check=True).stdout if objects else ""
    for line in out.splitlines():
        obj, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2 or not RUNTIME_NAME.match(fields[0]):
            continue
        if fields[1] == "U":
            used.setdefault(obj, set()).add(fields[0])
        elif fields[1] in "TDBRVWG" and not obj.endswith(EVERYWHERE):
            defined.setdefault(fields[0], []).append(obj)
    # edges[a][b]: the names object a uses of object b.
    edges = {obj: {} for obj in objects}
    for obj, names in used.items():
        for name in names:
            for where in defined.get(name, []):
                if where != obj:
                    edges[obj].setdefault(where, []).append(name)

    def file_of(obj):
        """The source an object was built from, as the build names it
        under its target's directory (p2p/p2p.c, tlsglobals/tls.c)."""
        rel = obj.split(".dir/", 1)[-1] if ".dir/" in obj else \
            os.path.basename(obj)
        rel = "/".join(p for p in rel.split("/") if p not in (".", "__"))
        return rel[:-2] if rel.endswith(".o") else rel

    problems, excused = [], set()
    for comp in strongly_connected(edges):
        if len(comp) < 2:
            continue
        owners = {object_folder(obj, layer) for obj in comp}
        if len(owners) == 1 and next(iter(owners)) in known:
            excused.add(next(iter(owners)))
            continue
        comp = sorted(comp, key=file_of)
        uses = [f"{file_of(a)} uses {min(edges[a][b])} of {file_of(b)}"
                for a in comp for b in sorted(edges[a], key=file_of)
                if b in comp]
        problems.append(f"cycle among {len(comp)} files: " +
                        ", ".join(file_of(o) for o in comp) +
                        " (" + "; ".join(uses) + ")")
    for folder, reason in sorted(known.items()):
        if folder not in excused:
            problems.append(f"KNOWN_CYCLES lists {folder}/ ({reason}), "
                            "whose files no longer form a cycle: remove it")
    return problems


def strongly_connected(edges):
    """The strongly connected components of the graph edges ({node:
    {successor: ...}}), by Tarjan's algorithm without recursion."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, succ = work[-1]
            for nxt in succ:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, {})))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    comps.append(comp)
    return comps


def verdict(folder, inc, layer, api, installed, rt, here=None):
    """None when folder may include inc (from a file in directory here,
    relative to rt), else what is wrong."""
    if "/" not in inc:
        if os.path.exists(os.path.join(rt, here or folder, inc)):
            return None
        if inc in installed:
            return None
        return "no such header beside it nor installed"
    owner, header = inc.split("/", 1)
    if owner == folder:
        return None
    if owner in OUTSIDE:
        if header in OUTSIDE[owner] and layer[folder] > 0:
            return None
        return f"{owner}/'s private header"
    if owner not in layer:
        return "not a folder of the runtime nor a component beside it"
    if layer[owner] >= layer[folder]:
        where = "beside" if layer[owner] == layer[folder] else "above"
        return f"{owner}/ is drawn {where} {folder}/"
    if header not in api.get(owner, set()):
        return f"a private header of {owner}/ (its API: " + \
            ", ".join(sorted(api.get(owner, set()))) + ")"
    return None


def self_test():
    """Builds small trees with one fault each; each must be reported."""
    readme = """# runtime
```
top        upper layer
  |
mid  side  middle layer
  |
base       bottom
```
| folder | API header | what |
| --- | --- | --- |
| `base/` | `base.h` | b |
| `mid/` | `mid.h` (`priv.h` private) | m |
| `side/` | `side.h` | s |
| `top/` | `top.h` | t |
"""
    # mid/ has parts: sub/ over low/ over its own files.
    parts = """# mid
```
sub        upper part
  |
low        lower part
  |
./         mid's own files
```
"""
    good = {"base/base.h": "", "mid/mid.h": '#include "base/base.h"\n',
            "mid/priv.h": '#include "mid.h"\n', "side/side.h": "",
            "top/top.h": '#include "mid/mid.h"\n#include "mpi.h"\n',
            "include/mpi.h": "", "mid/README.md": parts,
            "mid/low/low.h": '#include "mid/mid.h"\n',
            "mid/sub/sub.h": '#include "mid/low/low.h"\n#include "mid/mid.h"\n'}
    faults = {
        "upward": ("mid/x.c", '#include "top/top.h"\n', "drawn above"),
        "upward from a subfolder": ("mid/sub/x.c", '#include "top/top.h"\n',
                                    "drawn above"),
        "beside": ("mid/x.c", '#include "side/side.h"\n', "drawn beside"),
        "private": ("top/x.c", '#include "mid/priv.h"\n', "private header"),
        "unknown": ("top/x.c", '#include "nowhere.h"\n', "no such header"),
        "undrawn": ("extra/x.c", "", "not in runtime/README.md"),
        "part upward": ("mid/low/x.c", '#include "mid/sub/sub.h"\n',
                        "mid/sub/ is drawn above mid/low/"),
        "part's own files upward": ("mid/x.c", '#include "mid/low/low.h"\n',
                                    "mid/low/ is drawn above mid/'s own"),
        "part undrawn": ("mid/other/x.c", "",
                         "not in runtime/mid/README.md's drawing"),
    }
    failed = 0
    for label, fault in [("clean", None)] + list(faults.items()):
        tmp = tempfile.mkdtemp()
        try:
            files = dict(good)
            if fault:
                files[fault[0]] = fault[1]
            for rel, body in files.items():
                path = os.path.join(tmp, "runtime", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(body)
            with open(os.path.join(tmp, "runtime", "README.md"), "w") as f:
                f.write(readme)
            problems = check(tmp)
        finally:
            shutil.rmtree(tmp)
        ok = (not problems if fault is None else
              len(problems) == 1 and fault[2] in problems[0])
        print(f"self-test {label}: {'ok' if ok else 'FAILED'} {problems}")
        failed += not ok
    return failed + self_test_objects(readme, good) + \
        self_test_cycles(readme, good) + self_test_params()


def self_test_objects(readme, good):
    """Objects of a lower folder, or of a lower part of a folder, calling
    up must be reported, calls down not."""
    sources = {"base/b.c": "void amp_base_fn(void) {}\n",
               "top/t.c": "void amp_mid_fn(void);\n"
                          "void amp_top_fn(void) { amp_mid_fn(); }\n",
               "mid/o.c": "void amp_own_fn(void) {}\n"}
    low = "void amp_own_fn(void);\nvoid amp_low_fn(void) { amp_own_fn(); }\n"
    calls_low = "void amp_low_fn(void);\nvoid amp_base_fn(void);\n" \
                "void amp_mid_fn(void) { amp_base_fn(); amp_low_fn(); }\n"
    failed = 0
    for label, mid, low_c, name in [
            ("objects clean", calls_low, low, None),
            ("objects upward", "void amp_top_fn(void);\n"
             "void amp_mid_fn(void) { amp_top_fn(); }\n", low, "amp_top_fn"),
            ("objects part upward", calls_low,
             "void amp_mid_fn(void);\n"
             "void amp_low_fn(void) { amp_mid_fn(); }\n", "amp_mid_fn")]:
        tmp = tempfile.mkdtemp()
        try:
            for rel, body in good.items():
                path = os.path.join(tmp, "runtime", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(body)
            with open(os.path.join(tmp, "runtime", "README.md"), "w") as f:
                f.write(readme)
            objects = []
            # The build's layout: objects under a target's directory, some
            # in a subfolder of their folder (mid/sub/ is mid/, one of its
            # parts).
            for rel, body in dict(sources, **{"mid/sub/m.c": mid,
                                              "mid/low/l.c": low_c}).items():
                src = os.path.join(tmp, "objs", "lib.dir", rel)
                os.makedirs(os.path.dirname(src), exist_ok=True)
                with open(src, "w") as f:
                    f.write(body)
                subprocess.run(["cc", "-c", src, "-o", src + ".o"],
                               check=True)
                objects.append(src + ".o")
            problems = check_objects(tmp, objects)
        finally:
            shutil.rmtree(tmp)
        ok = (not problems if name is None else
              len(problems) == 1 and name in problems[0])
        print(f"self-test {label}: {'ok' if ok else 'FAILED'} {problems}")
        failed += not ok
    return failed


def self_test_cycles(readme, good):
    """Two files of one folder that use each other must be reported, with
    both names; one that only calls the other, or a cycle in a folder of
    known, must not; an entry of known without a cycle is reported."""
    a_calls_b = ("void amp_mid_b(void);\n"
                 "void amp_mid_a(void) { amp_mid_b(); }\n")
    b_calls_a = ("void amp_mid_a(void);\n"
                 "void amp_mid_b(void) { amp_mid_a(); }\n")
    b_alone = "void amp_mid_b(void) {}\n"
    # (label, b.c, known, what the one problem says; None: no problem)
    cases = [("cycles clean", b_alone, {}, None),
             ("cycles two files", b_calls_a, {},
              ("mid/a.c, mid/b.c", "amp_mid_a", "amp_mid_b")),
             ("cycles known", b_calls_a, {"mid": "a test"}, None),
             ("cycles known but gone", b_alone, {"mid": "a test"},
              ("KNOWN_CYCLES lists mid/",))]
    failed = 0
    for label, b, known, expect in cases:
        tmp = tempfile.mkdtemp()
        try:
            for rel, body in good.items():
                path = os.path.join(tmp, "runtime", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(body)
            with open(os.path.join(tmp, "runtime", "README.md"), "w") as f:
                f.write(readme)
            objects = []
            for rel, body in (("mid/a.c", a_calls_b), ("mid/b.c", b)):
                src = os.path.join(tmp, "objs", "lib.dir", rel)
                os.makedirs(os.path.dirname(src), exist_ok=True)
                with open(src, "w") as f:
                    f.write(body)
                subprocess.run(["cc", "-c", src, "-o", src + ".o"],
                               check=True)
                objects.append(src + ".o")
            problems = check_cycles(tmp, objects, known)
        finally:
            shutil.rmtree(tmp)
        ok = (not problems if expect is None else
              len(problems) == 1 and all(e in problems[0] for e in expect))
        print(f"self-test {label}: {'ok' if ok else 'FAILED'} {problems}")
        failed += not ok
    return failed


def self_test_params():
    """A tree of what is no function with too many parameters (comments,
    strings, calls, initializers, macros, the standard's names, a variadic
    one, a list of exactly MAX_PARAMS) reports nothing; each fault added to
    it is reported, once, by name."""
    nine = ", ".join(f"int {c}" for c in "abcdefghi")
    eight = ", ".join(f"int {c}" for c in "abcdefgh")
    clean = {
        "runtime/mid/ok.c":
            f"/* int amp_mid_fake({nine}); */\n"
            f"#define MAKE({', '.join('abcdefghi')}) \\\n"
            f"    static int a##b({nine})\n"
            f"int MPI_Big({nine});\nint PMPI_Big({nine});\n"
            f"void pmpi_big_({nine});\nint AMPI_Big({nine});\n"
            f"void amp_mid_eight({eight});\n"
            f"void amp_mid_log(int a, int b, int c, int d, int e, int f, "
            f"int g, int h, ...);\n"
            f'static const char *s = "f({nine});";\n'
            "static const int tbl[] = {F(1, 2, 3, 4, 5, 6, 7, 8, 9)};\n"
            "void amp_mid_call(void) AMP_COLD\n{\n"
            "    amp_mid_log(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);\n}\n",
        "runtime/include/mpi.h": f"int ompi_like({nine});\n",
    }
    faults = {
        "params definition": ("runtime/mid/x.c",
                              f"static int nine({nine})\n{{\n    return 0;"
                              "\n}\n", "nine"),
        "params declaration": ("runtime/mid/mid.h",
                               "AMP_MUST_USE int amp_mid_nine(\n    "
                               + nine.replace(", int e", ",\n    int e") +
                               ");\n", "amp_mid_nine"),
        "params member": ("runtime/mid/ops.h",
                          "typedef struct {\n    struct { int x; } in;\n"
                          f"    int (*send)({nine});\n}} ops_t;\n", "send"),
        "params type": ("runtime/mid/fn.h",
                        f"typedef void amp_mid_fn_t({nine});\n",
                        "amp_mid_fn_t"),
        "params parameter": ("pie/x.c",
                             f"void amp_pie_walk(void (*visit)({nine}));\n",
                             "visit"),
    }
    failed = 0
    for label, fault in [("params clean", None)] + list(faults.items()):
        tmp = tempfile.mkdtemp()
        try:
            files = dict(clean)
            if fault:
                files[fault[0]] = fault[1]
            for rel, body in files.items():
                path = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(body)
            problems = check_params(tmp)
        finally:
            shutil.rmtree(tmp)
        ok = (not problems if fault is None else
              len(problems) == 1 and f" {fault[2]} takes 9 " in problems[0])
        print(f"self-test {label}: {'ok' if ok else 'FAILED'} {problems}")
        failed += not ok
    return failed


def main():
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(1 if self_test() else 0)
    args = sys.argv[1:]
    objects = []
    if "--objects" in args:
        objects = [o for arg in args[args.index("--objects") + 1:]
                   for o in arg.split(";") if o]
        args = args[:args.index("--objects")]
    root = args[0] if args else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    if objects:
        problems += check_objects(root, objects)
        problems += check_cycles(root, objects)
    params = check_params(root)
    for p in problems + params:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) or name(s) break the layers of "
              "runtime/README.md or a folder's drawing of its parts")
    if params:
        print(f"{len(params)} declaration(s) take more than {MAX_PARAMS} "
              "parameters")
    if problems or params:
        sys.exit(1)
    print("every include of runtime/ follows the layers of runtime/README.md"
          " and the drawings of its folders' parts" +
          (f", and so do the names its {len(objects)} objects use"
           if objects else "") +
          f"; no function takes more than {MAX_PARAMS} parameters")


if __name__ == "__main__":
    main()
