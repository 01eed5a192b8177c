#!/usr/bin/env bash
# bench/load.sh: what loading a genome .tsk costs `tsketch dist`, against reading the file.
#
#   [STEPS="gen time"] [SIZES="10000 30000"] [KEYS=10000] [RUNS=5] [THREADS=2] [WORK=/tmp/tsk-load] \
#       [GEN=build-cuda/bench/gpu/genome_sets_bench] bash bench/load.sh OLD_TSKETCH NEW_TSKETCH [FILE.tsk...]
#
# STEPS:
#   gen   genome sketches from genome_sets_bench's generator (deterministic; species-like sets), SIZES
#         genomes of KEYS keys each (10^4 genomes: 730 MB), into $WORK/gN.tsk, unless there already.
#         FILE arguments are loaded instead of (not besides) these.
#   time  each file from a warm page cache (it is read once first): RUNS times, the binaries and
#         `cat` alternating, the median of each of
#           cat   `cat FILE >/dev/null`, wall seconds: the page-cache ceiling
#           old   the "items loaded in X s" line of OLD_TSKETCH (TSKETCH_TIMING=1) running
#                 `cluster -d 0.0001 --device cpu -p THREADS FILE`, stopped once that line is out
#                 (the clustering itself takes minutes). cluster, not dist: dist prints the line
#                 only since the loader of issue 33, and both load through tsk_genome_sources_load
#                 (CMD="dist --top-k 10" to time dist's, new binaries only)
#           new   the same of NEW_TSKETCH
#         and the ratios old / cat and new / cat.
# Prints one line per file; the machine's free memory must hold the file (check `free -g`).
set -u
OLD=${1:?usage: bench/load.sh OLD_TSKETCH NEW_TSKETCH [FILE.tsk...]}
NEW=${2:?usage: bench/load.sh OLD_TSKETCH NEW_TSKETCH [FILE.tsk...]}
shift 2
STEPS=${STEPS:-gen time}
SIZES=${SIZES:-10000 30000}
KEYS=${KEYS:-10000}
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
CMD=${CMD:-cluster -d 0.0001}
W=${WORK:-/tmp/tsk-load}
GEN=${GEN:-build-cuda/bench/gpu/genome_sets_bench}
export LC_ALL=C
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    mkdir -p "$W"
    for n in $SIZES; do
        f=$W/g$n.tsk
        if want gen && [ ! -s "$f" ]; then
            "$GEN" gen "$n" "$KEYS" "$f" >/dev/null || { echo "load.sh: $GEN gen $n $KEYS failed" >&2; exit 1; }
        fi
        files+=("$f")
    done
fi
want time || exit 0

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# cat_seconds FILE: wall seconds of cat FILE >/dev/null
cat_seconds() {
    local t0 t1
    t0=$(date +%s%N)
    cat "$1" >/dev/null
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
}

# load_seconds TSKETCH FILE: the seconds of its "items loaded" line; the run is stopped after it
load_seconds() {
    local log=$W/load.err pid
    : >"$log"
    # shellcheck disable=SC2086 # CMD is words
    TSKETCH_TIMING=1 "$1" $CMD --device cpu -p "$THREADS" "$2" -o /dev/null 2>"$log" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && ! grep -q 'items loaded in' "$log"; do sleep 0.02; done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    sed -n 's/.*items loaded in \([0-9.]*\) s.*/\1/p' "$log" | head -1 | grep . || { echo "load.sh: no load line from $1:" >&2; cat "$log" >&2; exit 1; }
}

mkdir -p "$W"
printf '%-28s %8s %8s %8s %8s %9s %9s\n' file MB cat old new old/cat new/cat
for f in "${files[@]}"; do
    cat "$f" >/dev/null # warm
    : >"$W/cat.t"; : >"$W/old.t"; : >"$W/new.t"
    for _ in $(seq "$RUNS"); do
        cat_seconds "$f" >>"$W/cat.t"
        load_seconds "$OLD" "$f" >>"$W/old.t"
        load_seconds "$NEW" "$f" >>"$W/new.t"
    done
    c=$(median <"$W/cat.t") o=$(median <"$W/old.t") n=$(median <"$W/new.t")
    mb=$(( $(stat -c %s "$f") / 1000000 ))
    awk -v f="$(basename "$f")" -v mb="$mb" -v c="$c" -v o="$o" -v n="$n" \
        'BEGIN { printf "%-28s %8d %8.3f %8.3f %8.3f %9.1f %9.1f\n", f, mb, c, o, n, o / c, n / c }'
done
