#!/usr/bin/env bash
# bench/speed.sh [BUNDLE]: what users wait for when they sketch (issue 16), whole process, on a GPU
# machine, against the binary before the change in the same call: the four standard workloads and a
# 2.4 Gbp file from the page cache, a 12-base input, 1,000 gzipped 5 Mbp genomes through
# --per-file -l, the CPU engine's thread scaling (idle and on a loaded machine), the seed kernel;
# then the GPU sketch tests and compute-sanitizer memcheck of the paths it touches. Logs and a
# summary go to $OUT.
#
# Bundle (build machine, CUDA build in build-cuda/, the old binary copied to tsketch_main):
#   ../shared/device/bundle.sh .device/speed build-cuda/src/tsketch tsketch_main build-cuda/tests/cli/tsv_compare \
#       build-cuda/tests/gpu/test_gpu_sketch_test -- ../shared/bench/make_workloads.py \
#       ../shared/bench/seed_numba.py testdata tests/cli/harness.sh tests/cli/test_split.sh bench/speed.sh
# Device call: bash .device/speed/speed.sh .device/speed   (carry: [".device/speed"])
# STEPS (default "tests e2e cpu files seed san") picks the parts; they run in the script's order.
# Others: ceiling (the machine's own limit on -p scaling), ab and abdist (old against new, or the new binary under environment variants,
# interleaved: see the steps), batch, timing, detach, reads.
set -uo pipefail
STEPS=${STEPS:-tests e2e cpu files seed san}
want() { [[ " $STEPS " == *" $1 "* ]]; }
old() { [ "${OLD_TOO:-1}" = 1 ]; } # OLD_TOO=0: the new binary only (a second call)
B=${1:-.device/speed}
NEW=$B/bin/tsketch
OLD=$B/bin/tsketch_main
CMP=$B/bin/tsv_compare
out=${OUT:-${TMPDIR:-/tmp}/speed}
W=${SPEED_WORK:-${TMPDIR:-/tmp}/speed_work}
P=$(nproc)
mkdir -p "$out" "$W"
say() { echo "$*" | tee -a "$out/summary.txt"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; } # elapsed START END: seconds
# median_runs "RUNS...": "MEDIAN (runs: RUNS...)" of a space-separated list of seconds
median_runs() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1; all = all " " $1 } END { printf "%.3f (runs:%s)", v[int((NR + 1) / 2)], all }'; }
# say_medians NAME [sort]: "KEY: median ..." for each KEY of the associative array NAME of runs
say_medians() {
    local -n runs=$1
    local k
    for k in "${!runs[@]}"; do say "   $k: median $(median_runs "${runs[$k]}")"; done | if [ "${2:-}" = sort ]; then sort; else cat; fi
}
# med N CMD...: runs CMD N times, prints the median wall seconds (and every run)
med() {
    local n=$1 ts=() s e
    shift
    for _ in $(seq "$n"); do
        # each run writes a new file: the last run's output removed and synced first (a run over
        # the last 448 MB output waits on the page cache's release of it, and the disk's state
        # would differ from run to run)
        local a prev=
        for a in "$@"; do
            [ "$prev" = -o ] && rm -f "$a"
            prev=$a
        done
        sync
        s=$(now)
        timeout 120 "$@" >/dev/null 2>>"$out/errors.log" || echo "FAILED: $*" >>"$out/errors.log"
        e=$(now)
        ts+=("$(elapsed "$s" "$e")")
    done
    median_runs "${ts[*]}"
}
bases() { grep -v '^>' "$1" | tr -d '\n' | wc -c; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$out/summary.txt"
say "cpu cores: $P; $(grep -m1 'model name' /proc/cpuinfo)"

# the workloads, made once per machine (several calls of this script in one device call share them)
[ -s "$W/full/short-reads.fa" ] || python3 "$B/make_workloads.py" "$W/full" >/dev/null
if [ ! -s "$W/big.fa" ]; then
    for k in $(seq 16); do cat "$W/full/seed-homogeneous.fa"; done >"$W/big.fa"
    for k in 1 2 3 4; do cat "$W/full/long-records.fa"; done >>"$W/big.fa"
fi
printf '>tiny\nACGTACGTACGT\n' >"$W/tiny.fa"

# 1,000 gzipped genomes of 5 Mbp (gzip -1) in $W/gz, listed in $W/list (the first 200 in $W/list200)
make_gz() {
    [ -s "$W/list" ] && return
    mkdir -p "$W/gz"
    python3 - "$W/gz" <<'PY'
import gzip, os, random, sys
from multiprocessing import Pool
ACGT = bytes.maketrans(bytes(range(256)), bytes(b"ACGT"[i & 3] for i in range(256)))
def one(i):
    rng = random.Random(i)
    s = rng.randbytes(5_000_000).translate(ACGT)
    with gzip.open(os.path.join(sys.argv[1], "g%04d.fa.gz" % i), "wb", compresslevel=1) as f:
        f.write(b">g%d\n" % i + b"\n".join(s[j:j + 80] for j in range(0, len(s), 80)) + b"\n")
with Pool(os.cpu_count()) as p:
    p.map(one, range(1000))
PY
    ls "$W"/gz/*.fa.gz >"$W/list"
    head -n 200 "$W/list" >"$W/list200"
    cat "$W"/gz/*.gz >/dev/null
}

# dist's inputs: sh.tsk (the 1410 rows of seed-homogeneous), g.tsk (genome sketches of the bundled
# genomes), and the CPU engine's distances of each (dc.tsv, gc.tsv) to check the GPU's against
dist_inputs() {
    "$NEW" sketch -q -p "$P" "$W/full/seed-homogeneous.fa" -o "$W/sh.tsk"
    "$NEW" sketch -q --genome --per-file -p "$P" "$B"/testdata/genomes/*.fa -o "$W/g.tsk"
    "$NEW" dist -q --device cpu -p "$P" "$W/sh.tsk" -o "$W/dc.tsv"
    "$NEW" dist -q --device cpu -p "$P" "$W/g.tsk" -o "$W/gc.tsv"
}
# compute-sanitizer memcheck of dist --device cuda on both inputs
memcheck_dist() {
    local san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for g in sh g; do
        timeout 120 "$san" --tool memcheck --error-exitcode 9 "$NEW" dist -q --device cuda "$W/$g.tsk" -o "$W/m$g.tsv" >>"$out/memcheck.log" 2>&1 &&
            say "   PASS memcheck dist --device cuda $g.tsk" || say "   FAIL memcheck dist --device cuda $g.tsk"
    done
}

if want tests; then
    say "== GPU tests"
    [ "${UNIT_TESTS:-1}" = 1 ] && if TESTDATA=$B/testdata timeout 180 "$B/bin/test_gpu_sketch_test" >"$out/gpu_sketch_test.log" 2>&1; then say "PASS gpu sketch tests"; else say "FAIL gpu sketch tests"; fi
    TSKETCH=$NEW TESTDATA=$B/testdata TSV_COMPARE=$CMP timeout 180 bash "$B/test_split.sh" >"$out/split.log" 2>&1
    say "split test (rows of every CPU/GPU split = CPU rows): $(tail -1 "$out/split.log")"
fi

if want batch; then
    # records per CPU batch (TSKETCH_BATCH_RECORDS) on a million reads, each run into a new file
    # (the last output removed and synced first: the disk's state then is the same for each)
    say "== 1M reads, records per batch, -p $P, new output file each run, 7 rounds interleaved"
    declare -A b
    for _ in 1 2 3 4 5 6 7; do
        for dev in cpu auto; do
            for r in ${BATCH_RECORDS:-262144 32768 16384 8192}; do
                rm -f "$W/b.tsk" && sync
                s=$(now)
                TSKETCH_BATCH_RECORDS=$r "$NEW" sketch -q --device $dev -p "$P" "$W/full/short-reads.fa" -o "$W/b.tsk" 2>>"$out/errors.log"
                e=$(now)
                b[$dev $r]+=" $(elapsed "$s" "$e")"
            done
        done
    done
    say_medians b sort
    for r in ${BATCH_RECORDS:-262144 32768 16384 8192}; do
        rm -f "$W/b.tsk" && sync
        TSKETCH_BATCH_RECORDS=$r TSKETCH_TIMING=1 "$NEW" sketch -q --device cpu -p "$P" "$W/full/short-reads.fa" -o "$W/b.tsk" 2>"$W/timing.txt"
        say "   timing, $r records a batch:"
        sed 's/^/      /' "$W/timing.txt" | tee -a "$out/summary.txt"
    done
fi

# set_input WORKLOAD: the arguments that read it into the array `in` (big: the 2.4 Gbp file;
# gzlist: the gzipped genomes, --per-file -l; else a file of make_workloads.py)
set_input() {
    case $1 in
    big) in=("$W/big.fa") ;;
    gzlist) make_gz && in=(--per-file -l "$W/list") ;;
    *) in=("$W/full/$1.fa") ;;
    esac
}

if want ab; then
    # old against new, interleaved round by round, each run into a new file. AB_FILES: workloads
    # (default: big short-reads; gzlist: the 1,000 gzipped genomes, --per-file -l); AB_RUNS: rounds (default 5); AB_VARIANTS: "old new" by default,
    # a variant NAME:VAR=VALUE runs the new binary with that environment setting; AB_DEVICE (default
    # auto) and AB_THREADS (default all cores) set --device and -p
    rounds=${AB_RUNS:-5}
    ab_dev=${AB_DEVICE:-auto}
    ab_p=${AB_THREADS:-$P}
    say "== old against new, --device $ab_dev -p $ab_p, medians of $rounds interleaved rounds, new output file each run"
    declare -A ab ab_seen
    for _ in $(seq "$rounds"); do
        for f in ${AB_FILES:-big short-reads}; do
            set_input "$f"
            for v in ${AB_VARIANTS:-old new}; do
                bin=$NEW
                envs=()
                [ "${v%%:*}" = old ] && bin=$OLD
                [[ $v == *:* ]] && envs=("${v#*:}")
                rm -f "$W/ab.tsk" && sync
                s=$(now)
                env "${envs[@]}" "$bin" sketch -q --device "$ab_dev" -p "$ab_p" "${in[@]}" -o "$W/ab.tsk" 2>>"$out/errors.log" ||
                    echo "FAILED: $v $f" >>"$out/errors.log"
                e=$(now)
                ab[$f $v]+=" $(elapsed "$s" "$e")"
                # rows of every variant, first round, small outputs: the same bytes as the first's
                if [ $f != short-reads ] && [ -z "${ab_seen[$f $v]:-}" ]; then
                    ab_seen[$f $v]=1
                    "$NEW" export "$W/ab.tsk" >"$W/ab.tsv"
                    [ -e "$W/ab_$f.tsv" ] || cp "$W/ab.tsv" "$W/ab_$f.tsv"
                    cmp -s "$W/ab.tsv" "$W/ab_$f.tsv" && say "   $f $v: rows = the first variant's" ||
                        say "   $f $v: ROWS DIFFER from the first variant's"
                fi
            done
        done
    done
    say_medians ab sort
    for f in ${AB_FILES:-big short-reads}; do
        set_input "$f"
        rm -f "$W/ab.tsk" && sync
        TSKETCH_TIMING=1 "$NEW" sketch -q --device "$ab_dev" -p "$ab_p" "${in[@]}" -o "$W/ab.tsk" 2>"$W/timing.txt"
        say "   timing, new, $f:"
        sed 's/^/      /' "$W/timing.txt" | tee -a "$out/summary.txt"
    done
fi

if want abdist; then
    # dist --device cuda, old against new, interleaved (medians of 5), with GPU = CPU checks
    say "== dist --device cuda -p $P, old against new, medians of 5 interleaved rounds"
    dist_inputs
    declare -A abd
    for _ in 1 2 3 4 5; do
        for v in old new; do
            bin=$NEW
            [ $v = old ] && bin=$OLD
            for g in sh g; do
                rm -f "$W/ad$v$g.tsv" && sync
                s=$(now)
                "$bin" dist -q --device cuda -p "$P" "$W/$g.tsk" -o "$W/ad$v$g.tsv" 2>>"$out/errors.log"
                e=$(now)
                abd[dist $g.tsk $v]+=" $(elapsed "$s" "$e")"
            done
        done
    done
    say_medians abd sort
    say "   (sh.tsk: 1410 rows of seed-homogeneous; g.tsk: $(ls "$B"/testdata/genomes/*.fa | wc -l) genome sketches)"
    say "   new dist rows, GPU = CPU (1e-5): $("$CMP" "$W/dc.tsv" "$W/adnewsh.tsv" 1e-5 2>&1 | tail -1)"
    cmp -s "$W/gc.tsv" "$W/adnewg.tsv" && say "   PASS new dist --genome: GPU bytes = CPU bytes" ||
        say "   FAIL new dist --genome: GPU bytes differ from CPU"
    memcheck_dist
fi

if want timing; then
    say "== where the time goes, --device cpu, -p 1 and -p $P, new output file (TSKETCH_TIMING)"
    for f in seed-homogeneous seed-heterogeneous long-records short-reads; do
        for p in 1 "$P"; do
            rm -f "$W/t.tsk" && sync
            s=$(now)
            TSKETCH_TIMING=1 "$NEW" sketch -q --device cpu -p $p "$W/full/$f.fa" -o "$W/t.tsk" 2>"$W/timing.txt"
            e=$(now)
            say "   $f -p $p: whole process $(elapsed "$s" "$e") s"
            sed 's/^/      /' "$W/timing.txt" | tee -a "$out/summary.txt"
        done
    done
fi

if want detach; then
    # the detached exit (src/detached_exit.h) against TSKETCH_DETACHED_EXIT=0, interleaved: the
    # 2.4 Gbp file through the GPU, and a million reads over the last run's output
    say "== detached exit (1, the default) or not (0), -p $P, medians of 5 interleaved"
    declare -A d
    for _ in 1 2 3 4 5; do
        for f in big short-reads; do
            in=$W/full/$f.fa
            [ $f = big ] && in=$W/big.fa
            for x in 1 0; do
                s=$(now)
                TSKETCH_DETACHED_EXIT=$x "$NEW" sketch -q -p "$P" "$in" -o "$W/d.tsk" 2>>"$out/errors.log"
                e=$(now)
                d[$f detached=$x]+=" $(elapsed "$s" "$e")"
                m=$(stat -c %.9Y "$W/d.tsk")
                d[$f detached=$x last write to shell]+=" $(elapsed "$m" "$e")"
            done
        done
    done
    say_medians d sort
    # dist: its GPU engines closed, the context left to the exit as well
    dist_inputs
    declare -A dd
    for _ in 1 2 3 4 5; do
        for x in 1 0; do
            s=$(now)
            TSKETCH_DETACHED_EXIT=$x "$NEW" dist -q --device cuda -p "$P" "$W/sh.tsk" -o "$W/dd$x.tsv" 2>>"$out/errors.log"
            e=$(now)
            dd[dist 1410 x 1410 rows detached=$x]+=" $(elapsed "$s" "$e")"
            s=$(now)
            TSKETCH_DETACHED_EXIT=$x "$NEW" dist -q --device cuda -p "$P" "$W/g.tsk" -o "$W/gd$x.tsv" 2>>"$out/errors.log"
            e=$(now)
            dd[dist genome sketches detached=$x]+=" $(elapsed "$s" "$e")"
        done
    done
    say_medians dd sort
    for x in 1 0; do
        say "   dist rows, detached=$x, GPU = CPU (1e-5): $("$CMP" "$W/dc.tsv" "$W/dd$x.tsv" 1e-5 2>&1 | tail -1)"
        cmp -s "$W/gc.tsv" "$W/gd$x.tsv" && say "   PASS dist --genome, detached=$x: GPU bytes = CPU bytes" ||
            say "   FAIL dist --genome, detached=$x: GPU bytes differ from CPU"
    done
    memcheck_dist
    sleep 1
    say "   tsketch processes left 1 s after the last run: $(pgrep -c -x tsketch || true)"
fi

if want e2e; then
    say "== end to end, page-cached FASTA -> .tsk, t=4 D=96, -p $P: median wall s (old = the binary before, same call)"
    for f in seed-homogeneous seed-heterogeneous long-records short-reads big; do
        in=$W/full/$f.fa
        [ $f = big ] && in=$W/big.fa
        cat "$in" >/dev/null
        bp=$(bases "$in")
        r=3
        [ $f = big ] && r=1
        say "$f ($((bp / 1000000)) Mbp):"
        old && say "   old GPU   $(med $r "$OLD" sketch -q --device cuda -p "$P" "$in" -o "$W/o.tsk")"
        say "   new auto  $(med $r "$NEW" sketch -q --device auto -p "$P" "$in" -o "$W/n.tsk")"
        say "   new cpu   $(med $r "$NEW" sketch -q --device cpu -p "$P" "$in" -o "$W/c.tsk")"
        [ $f = big ] || ! old || say "   old cpu   $(med 1 "$OLD" sketch -q --device cpu -p "$P" "$in" -o "$W/oc.tsk")"
        "$NEW" export "$W/n.tsk" >"$W/n.tsv" && "$NEW" export "$W/c.tsk" >"$W/c.tsv" &&
            say "   new auto rows = new cpu rows (1e-5): $("$CMP" "$W/c.tsv" "$W/n.tsv" 1e-5 2>&1 | tail -1)"
        TSKETCH_TIMING=1 "$NEW" sketch -q --device auto -p "$P" "$in" -o "$W/n.tsk" 2>"$W/timing.txt"
        e=$(now)
        m=$(stat -c %.9Y "$W/n.tsk")
        sed 's/^/      /' "$W/timing.txt" | tee -a "$out/summary.txt"
        say "      (from the .tsk's last write to the shell: $(elapsed "$m" "$e") s)"
    done
    old && say "12-base input, --device auto, old: $(med 5 "$OLD" sketch -q -p "$P" "$W/tiny.fa" -o "$W/o.tsk")"
    say "12-base input, --device auto, new: $(med 5 "$NEW" sketch -q -p "$P" "$W/tiny.fa" -o "$W/n.tsk")"
    rm -f "$W/big.fa"
fi

if want cpu; then
    say "== CPU engine, --device cpu, median of ${SCALING_RUNS:-3} (1 for the old binary)"
    for f in seed-homogeneous seed-heterogeneous long-records short-reads; do
        line="$f new:"
        for p in 1 2 4 8 16; do line="$line -p$p $(med "${SCALING_RUNS:-3}" "$NEW" sketch -q --device cpu -p $p "$W/full/$f.fa" -o "$W/c.tsk" | cut -d' ' -f1)"; done
        say "$line"
    done
    for f in seed-homogeneous long-records; do
        old || continue
        say "$f old -p1 $(med 1 "$OLD" sketch -q --device cpu -p 1 "$W/full/$f.fa" -o "$W/c.tsk")"
    done
    head -c 20000000 "$W/full/seed-homogeneous.fa" >"$W/sub.fa"
    say "loaded machine ($P busy processes), 20 MB of seed-homogeneous, --device cpu:"
    hogs=()
    for _ in $(seq "$P"); do (while :; do :; done) & hogs+=($!); done
    for p in 1 2 16; do
        old && say "   -p $p, old: $(med 1 "$OLD" sketch -q --device cpu -p $p "$W/sub.fa" -o "$W/c.tsk")"
        say "   -p $p, new: $(med 1 "$NEW" sketch -q --device cpu -p $p "$W/sub.fa" -o "$W/c.tsk")"
    done
    kill "${hogs[@]}" 2>/dev/null
    wait 2>/dev/null
fi

# cpu_seconds CMD...: user + system seconds of one run (bash's time: no GNU time needed)
cpu_seconds() {
    local TIMEFORMAT='%U %S'
    { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}
mean_mhz() { awk '/MHz/ { s += $4; n++ } END { if (n) printf "%.0f", s / n }' /proc/cpuinfo; } # the cores' mean clock now
if want ceiling; then
    # what this machine allows a -p 1 -> -p P speed-up to be: P independent `-p 1` processes at
    # once do the same work per process with no sharing in the program at all, so P x (one run
    # alone) / (the group's wall) is the most any threading of that work can reach here (cores
    # that slow down when all are busy, shared caches and memory bandwidth)
    say "== the machine's ceiling for -p 1 -> -p $P: $P copies of --device cpu -p 1 at once, medians of ${CEILING_RUNS:-3}"
    for f in ${CEILING_FILES:-seed-homogeneous seed-heterogeneous long-records short-reads}; do
        in=$W/full/$f.fa
        t1=$(med "${CEILING_RUNS:-3}" "$NEW" sketch -q --device cpu -p 1 "$in" -o "$W/c.tsk" | cut -d' ' -f1)
        tp=$(med "${CEILING_RUNS:-3}" "$NEW" sketch -q --device cpu -p "$P" "$in" -o "$W/c.tsk" | cut -d' ' -f1)
        groups=() pinned=()
        for _ in $(seq "${CEILING_RUNS:-3}"); do
            rm -f "$W"/g_*.tsk && sync
            s=$(now)
            for k in $(seq "$P"); do "$NEW" sketch -q --device cpu -p 1 "$in" -o "$W/g_$k.tsk" 2>>"$out/errors.log" & done
            sleep 0.05
            mhz=$(mean_mhz)
            wait
            e=$(now)
            groups+=("$(elapsed "$s" "$e")")
            # the same with each copy held to a core of its own (taskset): its reader and engine
            # threads share that core, so no copy borrows another's
            if command -v taskset >/dev/null; then
                rm -f "$W"/g_*.tsk && sync
                s=$(now)
                for k in $(seq "$P"); do taskset -c $((k - 1)) "$NEW" sketch -q --device cpu -p 1 "$in" -o "$W/g_$k.tsk" 2>>"$out/errors.log" & done
                wait
                e=$(now)
                pinned+=("$(elapsed "$s" "$e")")
            fi
        done
        rm -f "$W"/g_*.tsk
        g=$(median_runs "${groups[*]}" | cut -d' ' -f1)
        say "   $f: -p 1 alone $t1 s; $P copies at once $(median_runs "${groups[*]}") (mean MHz while they ran: $mhz); -p $P $tp s"
        say "      ceiling $P x $t1 / $g = $(awk -v a="$t1" -v g="$g" -v p="$P" 'BEGIN { printf "%.1f", p * a / g }')x; reached $(awk -v a="$t1" -v b="$tp" 'BEGIN { printf "%.1f", a / b }')x"
        if [ ${#pinned[@]} -gt 0 ]; then
            g=$(median_runs "${pinned[*]}" | cut -d' ' -f1)
            say "      each copy on a core of its own: $(median_runs "${pinned[*]}"), ceiling $(awk -v a="$t1" -v g="$g" -v p="$P" 'BEGIN { printf "%.1f", p * a / g }')x"
        fi
        say "      CPU seconds (user + sys) of one run: -p 1 $(cpu_seconds "$NEW" sketch -q --device cpu -p 1 "$in" -o "$W/c.tsk"), -p $P $(cpu_seconds "$NEW" sketch -q --device cpu -p "$P" "$in" -o "$W/c.tsk")"
    done
    say "   idle mean MHz: $(mean_mhz)"
fi

if want ready; then
    # when the GPU is ready (--device cuda: the engine's opening is waited for, "engine open" of
    # TSKETCH_TIMING): alone (12 bases) against beside the reader's threads (the 2.4 Gbp file),
    # interleaved; READY_VARIANTS: environment settings of the big runs
    say "== the GPU's opening (driver start + context + buffers), --device cuda -p $P, 5 interleaved rounds"
    declare -A rd
    for _ in 1 2 3 4 5; do
        for v in tiny ${READY_VARIANTS:-default}; do
            in=$W/big.fa
            [ $v = tiny ] && in=$W/tiny.fa
            envs=()
            [[ $v == *=* ]] && envs=("$v")
            rm -f "$W/r.tsk" && sync
            s=$(now)
            env "${envs[@]}" TSKETCH_TIMING=1 "$NEW" sketch -q --device cuda -p "$P" "$in" -o "$W/r.tsk" 2>"$W/timing.txt"
            e=$(now)
            rd[$v engine open]+=" $(sed -n 's/.*engine open \([0-9.]*\),.*/\1/p' "$W/timing.txt" | head -1)"
            rd[$v whole]+=" $(elapsed "$s" "$e")"
        done
    done
    say_medians rd sort
fi

if want files; then
    say "== 1,000 gzipped genomes of 5 Mbp (gzip -1), --per-file -l, -p $P"
    make_gz
    say "   new auto (5 Gbp)    $(med 1 "$NEW" sketch -q --per-file -p "$P" -l "$W/list" -o "$W/f.tsk")"
    say "   new cpu (5 Gbp)     $(med 1 "$NEW" sketch -q --device cpu --per-file -p "$P" -l "$W/list" -o "$W/fc.tsk")"
    old && say "   old GPU (first 200 files, 1 Gbp) $(med 1 "$OLD" sketch -q --device cuda --per-file -p "$P" -l "$W/list200" -o "$W/fo.tsk")"
    "$NEW" export "$W/f.tsk" >"$W/f.tsv" && "$NEW" export "$W/fc.tsk" >"$W/fc.tsv" &&
        say "   auto rows = cpu rows (1e-5): $("$CMP" "$W/fc.tsv" "$W/f.tsv" 1e-5 2>&1 | tail -1)"
    TSKETCH_TIMING=1 "$NEW" sketch -q --per-file -p "$P" -l "$W/list" -o "$W/f.tsk" 2>"$W/timing.txt"
    sed 's/^/      /' "$W/timing.txt" | tee -a "$out/summary.txt"
    rm -rf "$W/gz" "$W/list"
fi

if want reads; then
    # where a million reads' time goes: the 448 MB output to the disk's file system (/tmp) or to
    # tmpfs (/dev/shm), into a new file (the last output removed and synced first) or over the last
    say "== 1M x 150 bp reads, -p $P, medians of 5 interleaved: output file system and state"
    df -T "$W" /dev/shm | tail -2 | tee -a "$out/summary.txt"
    say "vm.dirty_ratio $(cat /proc/sys/vm/dirty_ratio) background $(cat /proc/sys/vm/dirty_background_ratio) bytes $(cat /proc/sys/vm/dirty_bytes)"
    in=$W/full/short-reads.fa
    cat "$in" >/dev/null
    S=/dev/shm/tsk_reads
    mkdir -p "$S"
    declare -A t
    for _ in 1 2 3 4 5; do
        for dev in auto cpu; do
            for dest in "$W" "$S"; do
                for mode in fresh over; do
                    [ $mode = fresh ] && rm -f "$dest/r.tsk" && sync
                    s=$(now)
                    "$NEW" sketch -q --device $dev -p "$P" "$in" -o "$dest/r.tsk" 2>>"$out/errors.log"
                    e=$(now)
                    t[$dev$dest$mode]+=" $(elapsed "$s" "$e")"
                done
            done
        done
    done
    say_medians t
    rm -f "$W/x" && sync
    s=$(now); dd if="$W/r.tsk" of="$W/x" bs=8M 2>/dev/null; e=$(now)
    say "   dd of the .tsk into a new file on $W: $(elapsed "$s" "$e") s"
    s=$(now); dd if="$W/r.tsk" of="$S/x" bs=8M 2>/dev/null; e=$(now)
    say "   dd of the .tsk into a new file on /dev/shm: $(elapsed "$s" "$e") s"
    for dest in "$W" "$S"; do
        for dev in auto cpu; do
            rm -f "$dest/r.tsk" && sync
            TSKETCH_TIMING=1 "$NEW" sketch -q --device $dev -p "$P" "$in" -o "$dest/r.tsk" 2>"$W/timing.txt"
            say "   timing, $dev, fresh file on $dest:"
            sed 's/^/      /' "$W/timing.txt" | tee -a "$out/summary.txt"
        done
    done
    rm -rf "$S" "$W/x"
fi

if want seed; then
    say "== seed kernel (Numba) in the same call"
    for f in seed-homogeneous seed-heterogeneous; do
        python3 "$B/seed_numba.py" --repeats 1 "$W/full/$f.fa" 2>&1 | grep Gbp | tail -1 | tee -a "$out/summary.txt"
    done
fi
if want san; then
    say "== compute-sanitizer memcheck"
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    memcheck() { # desc env... -- tsketch args
        local d=$1
        shift
        if timeout 120 env "$@" >>"$out/memcheck.log" 2>&1; then say "PASS memcheck $d"; else say "FAIL memcheck $d"; fi
    }
    memcheck "sketch --device cuda" "$san" --tool memcheck --error-exitcode 9 "$NEW" sketch -q --device cuda \
        "$B/testdata/golden/mixed.fa" "$B/testdata/genomes/MT-human.fa" -o "$W/m1.tsk"
    memcheck "auto, alternating CPU/GPU batches" TSKETCH_SPLIT=alternate TSKETCH_BATCH_BASES=20000 "$san" --tool memcheck \
        --error-exitcode 9 "$NEW" sketch -q --device auto "$B"/testdata/genomes/*.fa -o "$W/m2.tsk"
    memcheck "auto, slide rows, GPU only" TSKETCH_SPLIT=gpu "$san" --tool memcheck --error-exitcode 9 "$NEW" sketch -q \
        --device auto --canonical --window 500 --stride 70 "$B/testdata/genomes/NC_045512.2.fa" -o "$W/m3.tsk"
    # done before the GPU opened: no CUDA call is ever checked, which the sanitizer says as an error
    timeout 120 "$san" --tool memcheck "$NEW" sketch -q --device auto "$W/tiny.fa" -o "$W/m4.tsk" >"$W/m4.log" 2>&1
    grep -q "terminated before first instrumented API call" "$W/m4.log" &&
        say "PASS 12 bases with --device auto: the process ended before its first CUDA call"
fi

cp "$out/summary.txt" "$out/summary_copy.txt" 2>/dev/null
