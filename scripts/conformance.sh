#!/usr/bin/env bash
# Runs the MPI test suite of MPICH 4.0.2 (test/mpi/ of Debian's source
# package) against this build's wrappers: builds the directories asked for
# and runs every entry of their test lists, each with a timeout, in one
# process (./prog +vp N +p 2) or, with --np2, across 2 processes
# (ampirun -n 2 ./prog +vp N +p 1; entries of one rank still run in one
# process), or with --cluster across 2 processes on 2 nodes of
# scripts/cluster.sh. Prints the failures and a count per directory, and ends with
#   conformance: P passed, F failed
# where F counts unexpected results only (failures not listed in
# scripts/conformance-xfail.txt, and listed ones that passed).
# docs/conformance.md says how entries are judged and what is not applicable.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: scripts/conformance.sh [--build-dir DIR] [--np2] [--both]
                              [--also-np2 DIR,...] [--procs N] [--repeat N]
                              [--only PATTERN] [--no-dtp] [--timeout S]
                              [--f08] [--cluster] [SUBDIR...]
  --build-dir DIR  the build whose bin/ampicc etc. are tested (default: build)
  --np2            run across 2 processes (ampirun -n 2 ... +vp N +p 1)
  --both           run in one process, then across 2 processes
  --cluster        run across 2 processes (--procs N: N) on the nodes of
                   scripts/cluster.sh, spread over them (--map-by node):
                   the cluster that is up, else one of 2 nodes brought up
                   for the run and taken down after (root only)
  --also-np2 LIST  run in one process, then the directories of LIST (comma-
                   separated, among SUBDIR) across 2 processes
  --procs N        across N processes instead of 2 (--np2, --both,
                   --also-np2; an entry of fewer ranks runs one per process)
  --repeat N       run every entry N times; it passes if every run does
                   (a stress run: a hang or a wrong answer that shows once
                   in a while)
  --only PATTERN   only the entries whose "DIR/PROG NP ARGS" matches the
                   bash pattern (e.g. 'rma/linked_list*')
  --no-dtp         leave out the datatype-pool lists (testlist.dtp): the
                   same programs over many generated types, most of the
                   run's time (what CI runs; the full run keeps them)
  --timeout S      time limit of an entry without a timeLimit of its own
                   (default 180 s, as MPICH's runner)
  --f08            the suite configured with every Fortran binding, use
                   mpi_f08 included (built apart, with gfortran: flang 19
                   cannot compile the suite's Fortran 2008 check); default
                   directory f08
  SUBDIR           directories of test/mpi (default: every one that applies)
Environment: AMPI_CONFORMANCE_CACHE (where MPICH's source and the built suite
are kept; default DIR/conformance), AMPI_CONFORMANCE_JOBS (build jobs).
EOF
}

# The directories that apply today, in MPICH's order (f77 and f90 hold
# their io subdirectories). threads, f08 and part join once their results
# have been gone through (docs/conformance.md).
default_dirs=(pt2pt coll datatype comm group topo attr info errhan init rma
    io mpi_t f77 f90)
mpich_version=4.0.2

repo=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$repo/build
modes=(np1)
np2_dirs=() # empty: every directory asked for
procs=2
repeat=1
only='*'
lists=(testlist testlist.dtp)
default_timeout=180
f08=
cluster=
dirs=()
while [ $# -gt 0 ]; do
    case $1 in
    --build-dir) build_dir=$(cd "$2" && pwd); shift 2 ;;
    --build-dir=*) build_dir=$(cd "${1#*=}" && pwd); shift ;;
    --np2) modes=(np2); shift ;;
    --both) modes=(np1 np2); shift ;;
    --also-np2) modes=(np1 np2); IFS=, read -r -a np2_dirs <<<"$2"; shift 2 ;;
    --procs) procs=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --no-dtp) lists=(testlist); shift ;;
    --timeout) default_timeout=$2; shift 2 ;;
    --f08) f08=1; shift ;;
    --cluster) cluster=1; modes=(np2); shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "conformance.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) dirs+=("$1"); shift ;;
    esac
done
if [ -n "$f08" ]; then
    [ ${#dirs[@]} -gt 0 ] || dirs=(f08)
    export AMPI_FC=gfortran AMPI_F77=gfortran
fi
[ ${#dirs[@]} -gt 0 ] || dirs=("${default_dirs[@]}")
[[ $procs =~ ^[0-9]+$ ]] && [ "$procs" -ge 2 ] ||
    { echo "conformance.sh: --procs takes a count of at least 2, not '$procs'" >&2; exit 2; }
[[ $repeat =~ ^[0-9]+$ ]] && [ "$repeat" -ge 1 ] ||
    { echo "conformance.sh: --repeat takes a count of at least 1, not '$repeat'" >&2; exit 2; }

bin=$build_dir/bin
cache=${AMPI_CONFORMANCE_CACHE:-$build_dir/conformance}
jobs=${AMPI_CONFORMANCE_JOBS:-$(nproc)}
xfail_file=$repo/scripts/conformance-xfail.txt
src=$cache/src/mpich-$mpich_version/test/mpi
suite=$cache/suite${f08:+-f08}
results=$cache/results${f08:+-f08}

die() {
    echo "conformance.sh: $*" >&2
    exit 1
}

for w in ampicc ampicxx ampif77 ampif90 ampirun; do
    [ -x "$bin/$w" ] || die "$bin/$w is missing: build first (cmake --build $build_dir), with flang-new-19 for the Fortran wrappers"
done

# ---------------------------------------------------------------- the source

# Writes a deb-src twin of every deb entry of the machine's own apt sources
# into directory $1: src.sources from the deb822 .sources files, src.list
# from the one-line .list files.
derive_deb_src() {
    local out=$1 f
    : >"$out/src.sources"
    : >"$out/src.list"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk 'BEGIN { RS = ""; ORS = "\n\n" }
             /(^|\n)Enabled: *no/ { next }
             /(^|\n)Types:[^\n]*deb([ \n]|$)/ {
                 sub(/Types:[^\n]*/, "Types: deb-src"); print }' \
            "$f" >>"$out/src.sources"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$out/src.list"
    done
    [ -s "$out/src.sources" ] || rm "$out/src.sources"
    [ -s "$out/src.list" ] || rm "$out/src.list"
    [ -n "$(ls "$out")" ]
}

fetch_source() {
    [ -x "$src/configure" ] && return 0
    command -v dpkg-source >/dev/null ||
        die "dpkg-source (package dpkg-dev) is needed by apt-get source: run scripts/setup.sh as root"
    # A private apt configuration: our own source list, package lists and
    # archive cache under $cache/apt; the system's apt state is untouched.
    local a=$cache/apt
    rm -rf "$a"
    mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial" \
        "$cache/src"
    derive_deb_src "$a/parts" ||
        die "no deb entry in /etc/apt/sources.list or /etc/apt/sources.list.d/ to derive a deb-src entry from"
    local opts=(-o Dir::Etc::SourceList=/dev/null
        -o Dir::Etc::SourceParts="$a/parts" -o Dir::State::Lists="$a/lists"
        -o Dir::Cache="$a/cache" -o APT::Sandbox::User="$(id -un)")
    echo "conformance: fetching MPICH $mpich_version's source (apt-get source mpich)"
    apt-get -q "${opts[@]}" update >"$a/update.log" 2>&1 ||
        die "apt-get update failed; see $a/update.log"
    local version
    version=$(apt-cache "${opts[@]}" showsrc mpich 2>/dev/null |
        sed -n 's/^Version: //p' | grep "^$mpich_version-" | head -1) || true
    [ -n "$version" ] || die "the apt sources offer no mpich $mpich_version source package"
    (cd "$cache/src" && apt-get -q "${opts[@]}" source "mpich=$version") \
        >"$a/source.log" 2>&1 ||
        die "apt-get source mpich=$version failed; see $a/source.log"
    [ -x "$src/configure" ] || die "no test/mpi/configure in $cache/src"
}

# ----------------------------------------------------------- configuration

# Configures test/mpi out of tree with this build's wrappers. The suite's
# standard-only mode (--enable-strictmpi) keeps MPICH's own extensions and
# expectations out; dynamic processes, fault tolerance and the C++ bindings
# (removed in MPI-3.0) are not part of this runtime. MPI I/O is (the
# suite's --enable-romio only says the MPI has it).
configure_suite() {
    local stamp=$suite/.configured-with configure=$src/configure
    local opts=(--enable-strictmpi --enable-fortran=f77,f90 --disable-spawn
        --disable-ft-tests --disable-cxx --disable-perftest
        --disable-checkpointing)
    if [ -n "$f08" ]; then
        # The suite builds f08/ only inside MPICH's own build (FROM_MPICH):
        # a copy of its configure without that condition.
        opts[1]=--enable-fortran=all
        configure=$src/configure-f08
        grep -q 'enable_f08" = "yes" -a "$FROM_MPICH" = "yes"' "$src/configure" ||
            die "MPICH's configure no longer has the f08 condition this script lifts"
        sed 's/\(enable_f08" = "yes"\) -a "$FROM_MPICH" = "yes"/\1/' \
            "$src/configure" >"$configure"
        chmod +x "$configure"
    fi
    local want="$bin $mpich_version ${opts[*]}"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    rm -rf "$suite"
    mkdir -p "$suite"
    echo "conformance: configuring the suite (log: $suite/configure.log)"
    (cd "$suite" && "$configure" \
        MPICC="$bin/ampicc" MPICXX="$bin/ampicxx" \
        MPIF77="$bin/ampif77" MPIFC="$bin/ampif90" MPIEXEC="$bin/ampirun" \
        --with-mpi="$build_dir" "${opts[@]}") \
        >"$suite/configure.log" 2>&1 ||
        die "configure failed; see $suite/configure.log"
    echo "$want" >"$stamp"
}

# Builds the suite's helpers and then every program of directory $1 that
# can be built (make -k); a program that fails is retried alone when its
# entry comes, for its log.
build_dir_programs() {
    local d=$1
    [ -d "$suite/$d" ] || return 0
    # Programs built against other headers or Fortran modules (the build
    # changed since) are built again: make does not know them.
    local heads
    heads=$(find "$build_dir/include" -type f \( -name '*.h' -o -name '*.mod' \) \
        -exec md5sum {} + | sort | md5sum)
    if [ "$(cat "$suite/$d/.headers" 2>/dev/null)" != "$heads" ]; then
        make -C "$suite/$d" clean >/dev/null 2>&1 || true
        echo "$heads" >"$suite/$d/.headers"
    fi
    for h in util dtpools; do
        [ -f "$suite/$h/.built" ] && continue
        make -C "$suite/$h" -j"$jobs" >"$suite/$h/build.log" 2>&1 ||
            die "building the suite's $h failed; see $suite/$h/build.log"
        touch "$suite/$h/.built"
    done
    make -C "$suite/$d" -k -j"$jobs" >"$suite/$d/build.log" 2>&1 || true
}

# ------------------------------------------------------------- test lists

# Prints the entries of directory $1 (recursing into subdirectories that its
# lists name), one per line: DIR PROG NP [key=value...]. The lists are the
# configured testlist (else the source's) and testlist.dtp (generated at
# configure time), as MPICH's runner reads them.
list_entries() {
    local d=$1 f line prog np rest
    for f in "${lists[@]}"; do
        local path=$suite/$d/$f
        [ -f "$path" ] || path=$src/$d/$f
        [ -f "$path" ] || continue
        while IFS= read -r line || [ -n "$line" ]; do
            line=${line%%#*}
            read -r prog np rest <<<"$line" || true
            [ -n "${prog:-}" ] || continue
            case $prog in '!'*) continue ;; esac
            if [ -d "$src/$d/$prog" ]; then
                list_entries "$d/$prog"
                continue
            fi
            echo "$d $prog ${np:-2} $rest"
        done <"$path"
    done
}

# ---------------------------------------------------------- expectations

# The expected-failure file: lines "PATTERN | MODE | REASON", PATTERN a
# bash pattern (extended: !(...) excludes) matched against
# "DIR/PROG NP ARGS", MODE np1, np2 or any.
shopt -s extglob
xfail_patterns=()
xfail_modes=()
load_xfails() {
    [ -f "$xfail_file" ] || return 0
    local line pat mode
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in '' | '#'*) continue ;; esac
        # The fields are separated by " | " (a pattern may hold "|" of
        # its own, in @(a|b)).
        pat=${line%% | *}
        mode=${line#* | }
        mode=${mode%% | *}
        case $mode in np1 | np2 | any) ;;
        *) die "$xfail_file: not PATTERN | MODE | REASON: $line" ;;
        esac
        xfail_patterns+=("$pat")
        xfail_modes+=("$mode")
    done <"$xfail_file"
}

is_xfail() {
    local id=$1 mode=$2 i
    for i in "${!xfail_patterns[@]}"; do
        # shellcheck disable=SC2053 # the pattern is a glob on purpose
        if [[ $id == ${xfail_patterns[$i]} ]] &&
            { [ "${xfail_modes[$i]}" = any ] || [ "${xfail_modes[$i]}" = "$mode" ]; }; then
            return 0
        fi
    done
    return 1
}

# ----------------------------------------------------------------- running

mem_total_gb=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
launcher_args=(--launcher-arg --oversubscribe)
[ "$(id -u)" -ne 0 ] || launcher_args+=(--launcher-arg --allow-run-as-root)

# --cluster: the processes of an entry go to the nodes in turn.
use_cluster() {
    local hosts
    if ! hosts=$(bash "$repo/scripts/cluster.sh" hostfile 2>/dev/null); then
        hosts=$(bash "$repo/scripts/cluster.sh" up 2 | tail -1) ||
            die "--cluster: cannot bring up the cluster (scripts/cluster.sh up 2)"
        trap 'bash "$repo/scripts/cluster.sh" down' EXIT
    fi
    export AMPIRUN_HOSTFILE=$hosts
    launcher_args+=(--launcher-arg --map-by --launcher-arg node)
    echo "conformance: on the nodes of $hosts"
}

# Judges an output file and exit status the way MPICH's runner does:
# default: status 0, a " No Errors" line and no other output;
# TestStatus: a non-zero status and no output; TestErrFatal: non-zero status.
# Prints nothing on success, else the reason.
judge() {
    local log=$1 rc=$2 how=$3 other
    case $rc in
    124 | 137) echo "timeout"; return ;;
    esac
    if [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
        echo "signal $((rc - 128))"
        return
    fi
    other=$(grep -Ev '^[[:space:]]*(No [Ee]rrors|Test Passed)[[:space:]]*$|FORTRAN STOP' "$log" | head -1) || true
    case $how in
    TestStatus)
        [ "$rc" -ne 0 ] || { echo "status 0 where the test expects failure"; return; }
        [ -z "$other" ] || echo "output: $other" ;;
    TestErrFatal)
        [ "$rc" -ne 0 ] || echo "status 0 where the test expects failure" ;;
    *)
        if [ "$rc" -ne 0 ]; then
            echo "exit status $rc${other:+: $other}"
        elif ! grep -Eq '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$log"; then
            echo "no 'No Errors'${other:+: $other}"
        elif [ -n "$other" ]; then
            echo "output: $other"
        fi ;;
    esac
}

# Counters of one directory and of the whole run.
declare -A count
reset_counts() { count=([pass]=0 [fail]=0 [xfail]=0 [xpass]=0 [na]=0 [merged]=0); }
declare -A total=([pass]=0 [fail]=0 [xfail]=0 [xpass]=0 [na]=0 [merged]=0)

record() {
    local kind=$1 id=$2 why=${3:-} logf=${4:-}
    count[$kind]=$((count[$kind] + 1))
    total[$kind]=$((total[$kind] + 1))
    case $kind in
    fail)
        echo "  FAIL  $id: $why${logf:+ ($logf)}"
        # The end of its output (a time limit's report of the ranks).
        [ -z "$logf" ] || [ ! -s "$logf" ] || tail -n 25 "$logf" | sed 's/^/        | /' ;;
    xpass) echo "  XPASS $id: listed in conformance-xfail.txt but passed" ;;
    xfail) [ -z "${CONFORMANCE_VERBOSE:-}" ] || echo "  xfail $id: $why" ;;
    na) echo "  n/a   $id: $why" ;;
    esac
}

# Whether the configured suite builds program $2 in directory $1 (its
# Makefile's PROGRAMS): entries of programs it leaves out (MPICH extensions,
# in the standard-only configuration) do not apply.
declare -A suite_programs
suite_builds() {
    local d=$1 prog=$2
    if [ -z "${suite_programs[$d]+set}" ]; then
        suite_programs[$d]=" $(make -s -C "$suite/$d" -f Makefile \
            -f <(printf 'conformance-programs:\n\t@echo $(PROGRAMS)\n') \
            conformance-programs 2>/dev/null) "
    fi
    [[ ${suite_programs[$d]} == *" $prog "* ]]
}

# Runs one entry: directory, program, process count, then key=value pairs.
run_entry() {
    local mode=$1 d=$2 prog=$3 np=$4
    shift 4
    local args=() how="" limit=$default_timeout mem="" kv
    for kv in "$@"; do
        case $kv in
        arg=*) args+=("${kv#arg=}") ;;
        timeLimit=*) limit=${kv#timeLimit=} ;;
        resultTest=*) how=${kv#resultTest=} ;;
        mem=*) mem=${kv#mem=} ;;
        esac
    done
    local id="$d/$prog $np${args[*]:+ ${args[*]}}"
    # shellcheck disable=SC2053 # a pattern on purpose
    [[ $id == $only ]] || return 0
    # A rank's heap is its isomalloc slot, 1 GiB by default; the suite's
    # datatype-pool tests reserve more than that per process, so every
    # entry gets 4 GiB (docs/isomalloc.md: raise the slot for ranks that
    # allocate more than 1 GiB). mem=GB, the suite's mark of an entry that
    # needs that much memory, does not apply on a machine with less, and
    # where it runs the slot is made as large.
    local slot=(+isomalloc_slot 4G)
    if [ -n "$mem" ]; then
        if awk -v m="$mem" -v t="$mem_total_gb" 'BEGIN { exit !(m > t) }'; then
            record na "$id" "needs ${mem} GB, the machine has $mem_total_gb"
            return
        fi
        slot=(+isomalloc_slot "$(awk -v m="$mem" 'BEGIN {
            g = 4; while (g < m) g *= 2; print g "G" }')")
    fi
    local dir=$suite/$d exe=$suite/$d/$prog
    if ! suite_builds "$d" "$prog"; then
        record na "$id" "not built by the suite in its standard-only configuration"
        return
    fi
    local logdir=$results/$mode/$d
    mkdir -p "$logdir"
    local logf
    logf=$logdir/$prog.$(echo "$id" | md5sum | cut -c1-8).log
    [ -x "$exe" ] || make -C "$dir" "$prog" >"$logf" 2>&1 || true
    local why rc=0
    if [ ! -x "$exe" ]; then
        why="build failed"
    else
        local cmd=(./"$prog" +vp "$np" +p 2 "${slot[@]}" "${args[@]}")
        if [ "$mode" = np2 ] && [ "$np" -ge 2 ]; then
            cmd=("$bin/ampirun" -n $((np < procs ? np : procs))
                "${launcher_args[@]}" -- ./"$prog" +vp "$np" +p 1
                "${slot[@]}" "${args[@]}")
        fi
        # The subshell outlives the command, so a report of its death by a
        # signal goes to the entry's log, not to ours. Its time (wall, user
        # and system seconds) goes to times.tsv. A time limit ends the
        # job with SIGTERM first: the runtime then logs what each rank was
        # doing (AMPI_TERM_REPORT), and the log keeps it.
        local TIMEFORMAT='%R %U %S' t run
        for ((run = 1; run <= repeat; run++)); do
            rc=0
            { time { (cd "$dir" && timeout -k 10 "$limit" "${cmd[@]}"; exit $?) \
                >"$logf" 2>&1 </dev/null; }; } 2>"$logf.time" || rc=$?
            why=$(judge "$logf" "$rc" "$how")
            read -r -a t <"$logf.time"
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$id" "${t[0]}" "${t[1]}" \
                "${t[2]}" "${why:-ok}" >>"$results/$mode/times.tsv"
            rm -f "$logf.time"
            if [ -n "$why" ]; then
                [ "$repeat" -eq 1 ] || why="run $run of $repeat: $why"
                break
            fi
        done
    fi
    if is_xfail "$id" "$mode"; then
        if [ -n "$why" ]; then record xfail "$id" "$why"; else record xpass "$id"; fi
    elif [ -n "$why" ]; then
        record fail "$id" "$why" "$logf"
    else
        record pass "$id"
    fi
}

# Runs directory $2's entries in mode $1. Entries that differ from an earlier
# one only in env= settings (all of them MPICH's own variables) run once.
run_dir() {
    local mode=$1 d=$2 line key t0=$SECONDS
    local -A seen=()
    reset_counts
    while read -r line; do
        # shellcheck disable=SC2086 # split the entry into its fields
        set -- $line
        key=$(printf '%s\n' "$@" | grep -v '^env=' | tr '\n' ' ')
        if [ -n "${seen[$key]:-}" ]; then
            count[merged]=$((count[merged] + 1))
            total[merged]=$((total[merged] + 1))
            continue
        fi
        seen[$key]=1
        run_entry "$mode" "$@"
    done < <(list_entries "$d")
    printf '%-9s %4d passed, %d failed, %d expected failures, %d unexpected passes, %d not applicable' \
        "$d:" "${count[pass]}" "${count[fail]}" "${count[xfail]}" "${count[xpass]}" "${count[na]}"
    [ "${count[merged]}" -eq 0 ] || printf ', %d MPICH setting variants merged' "${count[merged]}"
    printf ' (%d s)\n' $((SECONDS - t0))
}

# --------------------------------------------------------------------- main

fetch_source
configure_suite
load_xfails
[ -z "$cluster" ] || use_cluster
for d in ${np2_dirs[@]+"${np2_dirs[@]}"}; do
    [[ " ${dirs[*]} " == *" $d "* ]] || die "--also-np2: $d is not among the directories to run"
done
for d in "${dirs[@]}"; do
    [ -d "$src/$d" ] || die "no directory $d in MPICH's test/mpi"
    [ -d "$suite/$d" ] || die "$d is not configured in the suite (see $suite/configure.log)"
done
for d in "${dirs[@]}"; do
    t0=$SECONDS
    build_dir_programs "$d"
    echo "conformance: built $d ($((SECONDS - t0)) s)"
done
start=$SECONDS
times_note=
[ "$repeat" -eq 1 ] || times_note=", every entry $repeat times"
for mode in "${modes[@]}"; do
    mkdir -p "$results/$mode"
    : >"$results/$mode/times.tsv"
    case $mode in
    np1) echo "conformance: one process (./prog +vp N +p 2)$times_note" ;;
    np2) echo "conformance: $procs processes${cluster:+ on the nodes of the cluster} (ampirun -n $procs ./prog +vp N +p 1)$times_note" ;;
    esac
    for d in "${dirs[@]}"; do
        if [ "$mode" = np2 ] && [ ${#np2_dirs[@]} -gt 0 ] &&
            [[ " ${np2_dirs[*]} " != *" $d "* ]]; then
            continue
        fi
        run_dir "$mode" "$d"
    done
done
applies=$((total[pass] + total[fail] + total[xfail] + total[xpass]))
echo "total: ${total[pass]} of $applies entries that apply passed," \
    "${total[xfail]} expected failures, ${total[na]} not applicable," \
    "$((SECONDS - start)) s"
failed=$((total[fail] + total[xpass]))
echo "conformance: ${total[pass]} passed, $failed failed"
[ "$failed" -eq 0 ]
