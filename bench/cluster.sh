#!/usr/bin/env bash
# bench/cluster.sh: `tsketch cluster` on the GPU machine: checks, then whole-process times and memory.
#
#   bash bench/cluster.sh BUNDLE      (BUNDLE: bin/tsketch and bin/genome_sets_bench, from
#                                      $TSK_SHARED/device/bundle.sh .device/NAME build-cuda/src/tsketch
#                                      build-cuda/bench/gpu/genome_sets_bench /usr/bin/time; TSK_SHARED:
#                                      the shared directory beside the repository, not in a clone)
#
# STEPS (default "gen check time"):
#   gen    genome sketches from bench/gpu/genome_sets_bench's generator (species-like clusters,
#          deterministic): 2,000, 10^4 and 10^5 genomes of ~10,000 keys (SIZES to change)
#   check  cluster --device cuda = --device cpu bytes on 2,000 and 10^4 genomes, greedy and single,
#          with and without --min-af 0.5; the links spilled to disk (TSKETCH_CLUSTER_MEMORY) = held
#   time   (NO_CPU=1: no CPU run) whole process, file in the page cache: cluster greedy and single at each size (RUNS
#          runs, the median), its peak memory (/usr/bin/time), the phases (TSKETCH_TIMING=1), and
#          `dist -d 0.05` of the same file (the engine's share of the work)
#   parts  cluster over machines (docs/cluster.md, "Clusters from distance parts"), at each size:
#          PARTS (4) parts `dist -d 0.05 --ani --block I/PARTS --device cuda`, then `cluster --links`
#          of them (the wait of PARTS machines: the slowest part, then the gather), each RUNS runs;
#          the tables = one `cluster` run's, byte for byte (greedy; single and --min-af 0.5)
# Results: $OUT (or ./cluster-out) /summary.txt and one log a step.
set -u
B=${1:?usage: bench/cluster.sh BUNDLE}
B=$(cd "$B" && pwd)
T=$B/bin/tsketch
GEN=$B/bin/genome_sets_bench
TIME=$B/bin/time
STEPS=${STEPS:-gen check time}
SIZES=${SIZES:-2000 10000 100000}
RUNS=${RUNS:-3}
W=${WORK:-/tmp/tsk-cluster}
out=${OUT:-$PWD/cluster-out}
mkdir -p "$W" "$out"
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
say() { echo "$*" | tee -a "$out/summary.txt"; }
status=0

if want gen; then
    for n in $SIZES; do
        [ -s "$W/g$n.tsk" ] || timeout 300 "$GEN" gen "$n" 10000 "$W/g$n.tsk" >/dev/null || { say "gen $n failed"; exit 1; }
        say "gen: $n genomes, $(du -h "$W/g$n.tsk" | cut -f1)"
    done
fi

# same DESCRIPTION FILE1 FILE2
same() {
    if cmp -s "$2" "$3"; then say "same bytes: $1 ($(wc -l <"$2") lines, $(cut -f2 "$2" | sort -u | wc -l) clusters)"
    else say "DIFFERENT: $1"; status=1; fi
}

if want check; then
    for n in ${CHECK_SIZES:-2000}; do
        f=$W/g$n.tsk
        [ -s "$f" ] || continue
        for m in greedy single; do
            for af in "" "--min-af 0.5"; do
                timeout 300 "$T" cluster -q --device cuda -p 16 --method $m $af "$f" -o "$W/gpu.tsv" || say "cuda exit $?"
                timeout 300 "$T" cluster -q --device cpu -p 16 --method $m $af "$f" -o "$W/cpu.tsv" || say "cpu exit $?"
                same "N=$n $m $af: cuda = cpu" "$W/gpu.tsv" "$W/cpu.tsv"
            done
        done
        TSKETCH_CLUSTER_MEMORY=100000 timeout 300 "$T" cluster -q --device cuda -p 16 "$f" -o "$W/spill.tsv"
        timeout 300 "$T" cluster -q --device cuda -p 16 "$f" -o "$W/gpu.tsv"
        same "N=$n greedy: links spilled = held" "$W/spill.tsv" "$W/gpu.tsv"
        timeout 300 "$T" cluster -q --device cuda -p 1 "$f" -o "$W/p1.tsv"
        same "N=$n greedy: -p 1 = -p 16" "$W/p1.tsv" "$W/gpu.tsv"
    done 2>&1 | tee "$out/check.log"
fi

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# timed LABEL COMMAND...: RUNS runs; the median seconds and the largest peak memory
timed() {
    local label=$1 s=() mem=0 i
    shift
    for i in $(seq "$RUNS"); do
        "$TIME" -f "%e %M" -o "$W/time.txt" timeout 300 "$@" 2>"$W/err.txt" >/dev/null || { say "$label: exit $?"; cat "$W/err.txt"; }
        s+=("$(cut -d' ' -f1 "$W/time.txt")")
        local m; m=$(cut -d' ' -f2 "$W/time.txt")
        [ "$m" -gt "$mem" ] && mem=$m
    done
    say "$label: $(printf '%s\n' "${s[@]}" | median) s (runs: ${s[*]}), peak memory $((mem / 1024)) MiB"
}

if want time; then
    for n in $SIZES; do
        f=$W/g$n.tsk
        [ -s "$f" ] || continue
        cat "$f" >/dev/null # into the page cache
        for m in greedy single; do
            for af in "" "--min-af 0.5"; do
                timed "N=$n cluster --method $m $af --device cuda -p 16" "$T" cluster -q -p 16 --method $m $af --device cuda "$f" -o "$W/c.tsv"
                say "  $(cut -f2 "$W/c.tsv" | sort -u | wc -l) clusters; $(TSKETCH_TIMING=1 "$T" cluster -q -p 16 --method $m $af --device cuda "$f" -o "$W/c.tsv" 2>&1 | grep timing)"
            done
        done
        timed "N=$n dist -d 0.05 --device cuda -p 16" "$T" dist -q -p 16 -d 0.05 --device cuda "$f" -o "$W/d.tsv"
        say "  $(wc -l <"$W/d.tsv") pairs within 0.05"
        if [ "$n" -le 10000 ] && [ -z "${NO_CPU:-}" ]; then
            RUNS=1 timed "N=$n cluster --device cpu -p 16" "$T" cluster -q --device cpu -p 16 "$f" -o "$W/c.tsv"
        fi
    done 2>&1 | tee "$out/time.log"
fi
if want parts; then
    np=${PARTS:-4}
    for n in $SIZES; do
        f=$W/g$n.tsk
        [ -s "$f" ] || continue
        cat "$f" >/dev/null
        links=()
        slowest=0
        for i in $(seq "$np"); do
            timed "N=$n part $i/$np: dist -d 0.05 --ani --block $i/$np --device cuda -p 16" \
                "$T" dist -q -p 16 -d 0.05 --ani --block "$i/$np" --device cuda "$f" -o "$W/links_$i.tsv"
            t=$(tail -1 "$out/summary.txt" | sed 's/.*: \([0-9.]*\) s (runs.*/\1/')
            slowest=$(echo "$t $slowest" | awk '{print ($1 > $2) ? $1 : $2}')
            links+=(--links "$W/links_$i.tsv")
        done
        say "  parts: $(cat "$W"/links_*.tsv | wc -l) pairs in $(du -ch "$W"/links_*.tsv | tail -1 | cut -f1); the slowest part $slowest s"
        timed "N=$n cluster --links (the $np parts) -p 16" "$T" cluster -q -p 16 "${links[@]}" "$f" -o "$W/l.tsv"
        timed "N=$n cluster --device cuda -p 16 (one run)" "$T" cluster -q -p 16 --device cuda "$f" -o "$W/c.tsv"
        same "N=$n greedy: cluster --links of $np parts = one run" "$W/l.tsv" "$W/c.tsv"
        for opt in "--method single" "--min-af 0.5 --ani"; do
            "$T" cluster -q -p 16 $opt "${links[@]}" "$f" -o "$W/l.tsv"
            "$T" cluster -q -p 16 $opt --device cuda "$f" -o "$W/c.tsv"
            same "N=$n $opt: cluster --links of $np parts = one run" "$W/l.tsv" "$W/c.tsv"
        done
        rm -f "$W"/links_*.tsv
    done 2>&1 | tee "$out/parts.log"
fi
exit $status
