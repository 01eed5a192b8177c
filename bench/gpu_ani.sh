#!/usr/bin/env bash
# bench/gpu_ani.sh BUNDLE: genome distances as ANI over the aligned part (docs/distances.md) on the
# GPU machine: GPU = CPU bytes on real and generated genomes, the GPU tests of the genome and
# vector engines under compute-sanitizer, and the whole-process times the ANI second stage adds,
# against the binary before it (BUNDLE/bin/tsketch_main with its own generator) in the same call.
#
# Bundle (repository root, CUDA build in build/, the binaries before the change in OLD/):
#   ../shared/device/bundle.sh .device/ani build/src/tsketch OLD/tsketch_main build/bench/gpu/genome_sets_bench \
#       OLD/genome_sets_bench_old build/tests/gpu/test_gpu_genome_sets_test build/tests/gpu/test_gpu_dist_test \
#       build/tests/gpu/test_gpu_ani_pairs_test [PREV/tsketch_prev] \
#       -- bench/gpu_ani.sh testdata
# (an sm_90-only build, meson setup -Dgpu_arch=90, keeps the bundle under the carry limit)
# Device call: STEPS="tests real time" bash .device/ani/gpu_ani.sh .device/ani
# STEPS: tests (GPU Criterion tests, memcheck of the quick ones); real (testdata genomes and, when
# present, FASTA genomes under BUNDLE/genomes: sketched as records on the GPU and the CPU, then
# dist all pairs as lines and as square and phylip matrices, --top-k, -d and cluster on both
# engines, byte for byte); time (generated sets:
# GENOMES (10^4) generated genomes: top-10 (TOPK=0: not) and cluster, ANI and --key-distance against the
# binary before ANI, medians of 3, cuda = cpu (CPU=0: not), one TSKETCH_TIMING run
# each; with BUNDLE/bin/tsketch_prev, an ANI binary before a change, timed interleaved on the same
# file and compared byte for byte, or with PREV_SAME=0 (a change meant to move the estimates) the
# lines that differ counted). Without BUNDLE/bin/tsketch_main and genome_sets_bench_old the
# binary before ANI is left out.
set -uo pipefail
B=$(cd "${1:?usage: gpu_ani.sh BUNDLE}" && pwd)
T=$B/bin/tsketch
OLD=$B/bin/tsketch_main
[ -x "$OLD" ] && [ -x "$B/bin/genome_sets_bench_old" ] || OLD=
out=${OUT:-${TMPDIR:-/tmp}/gpu_ani}
W=${GPU_ANI_WORK:-${TMPDIR:-/tmp}/gpu_ani_work}
STEPS=${STEPS:-tests real time}
P=$(nproc)
mkdir -p "$out" "$W"
fail=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
want() { [[ " $STEPS " == *" $1 "* ]]; }
check() { # desc cmd...
    local d=$1
    shift
    if "$@" >>"$out/checks.log" 2>&1; then say "PASS $d"; else say "FAIL $d"; fail=1; fi
}
secs() { # cmd...: wall seconds of one whole run
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>>"$out/stderr.log" || { say "FAILED: $*"; fail=1; }
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}
median3() { for _ in 1 2 3; do secs "$@"; done | sort -g | sed -n 2p; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee -a "$out/summary.txt"

if want tests; then
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for t in "$B"/bin/test_gpu_*; do
        [ -x "$t" ] || continue
        check "$(basename "$t")" timeout 300 "$t" --jobs 4
        case " ${MEMCHECK:-test_gpu_dist_bytes_test test_gpu_genome_sets_test test_gpu_ani_pairs_test} " in *" $(basename "$t") "*)
            check "memcheck $(basename "$t") (quick)" env TSKETCH_TEST_QUICK=1 timeout 240 "$san" --tool memcheck \
                --error-exitcode 9 "$t" --jobs 1 ;;
        esac
    done
fi

same_engines() { # label args...: dist/cluster on cuda and cpu, the same bytes
    local label=$1
    shift
    "$T" "$@" -q --device cuda -o "$W/g.out" && "$T" "$@" -q --device cpu -p "$P" -o "$W/c.out" &&
        check "$label: cuda = cpu ($(wc -l <"$W/c.out") lines)" cmp "$W/g.out" "$W/c.out"
}
if want real; then
    say "== real genomes: GPU = CPU"
    ls "$B"/testdata/genomes/*.fa "$B"/testdata/genome/*.fa "$B"/genomes/*.f*a* 2>/dev/null | grep -v '\.fai$' >"$W/real.txt"
    # genomes as records of one file: the GPU scanner and the CPU scanner give the same sketch
    while read -r f; do
        case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac | awk -v n="$(basename "$f")" '/^>/ { print ">" n "_" (++i); next } 1'
    done <"$W/real.txt" >"$W/records.fa"
    "$T" sketch -q --genome --device cuda "$W/records.fa" -o "$W/rg.tsk" && "$T" sketch -q --genome --device cpu -p "$P" "$W/records.fa" -o "$W/rc.tsk" &&
        check "records sketched: cuda = cpu, keys ($(grep -c '>' "$W/records.fa") records)" cmp <("$T" export "$W/rg.tsk") <("$T" export "$W/rc.tsk") &&
        check "records sketched: cuda = cpu, anchors (every pair's ANI and AF)" cmp <("$T" dist --ani -p "$P" "$W/rg.tsk") <("$T" dist --ani -p "$P" "$W/rc.tsk")
    "$T" sketch -q --genome --per-file -p "$P" -l "$W/real.txt" -o "$W/files.tsk"
    for G in "$W/rc.tsk" "$W/files.tsk"; do
        n=$(basename "$G")
        same_engines "$n dist all pairs" dist --ani "$G"
        same_engines "$n dist --top-k 3" dist --ani --top-k 3 "$G"
        same_engines "$n dist -d 0.1" dist --ani -d 0.1 "$G"
        same_engines "$n dist -f square" dist -f square "$G"
        same_engines "$n dist -f phylip" dist -f phylip "$G"
        same_engines "$n cluster" cluster "$G"
        same_engines "$n cluster --min-ani 95 --min-af 0.5" cluster --min-ani 95 --min-af 0.5 "$G"
    done
fi

if want time; then
    n=${GENOMES:-10000}
    say "== generated genome sketches ($n): ANI (new) against the key distance (old), whole process"
    if [ "${SMALL:-1}" = 1 ]; then
        "$B/bin/genome_sets_bench" gen 500 10000 "$W/g500.tsk" >/dev/null
        same_engines "generated 500 top-10" dist --ani --top-k 10 "$W/g500.tsk"
        same_engines "generated 500 -d 0.05" dist --ani -d 0.05 "$W/g500.tsk"
        same_engines "generated 500 cluster" cluster "$W/g500.tsk"
        same_engines "generated 500 -f npy" dist -f npy "$W/g500.tsk"
        a=$(secs "$T" dist -q --device cuda -f npy "$W/g500.tsk" -o "$W/n.npy")
        c=$(secs "$T" dist -q --device cpu -p "$P" -f npy "$W/g500.tsk" -o "$W/c.npy")
        say "dist -f npy of 500 (every pair's ANI): cuda $a s, cpu -p $P $c s"
    fi
    s=$(date +%s.%N)
    "$B/bin/genome_sets_bench" gen "$n" 10000 "$W/new$n.tsk" >/dev/null || fail=1
    say "gen $n with anchors: $(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
    if [ -n "$OLD" ]; then
        "$B/bin/genome_sets_bench_old" gen "$n" 10000 "$W/old$n.tsk" >/dev/null || fail=1
        say "sizes $n: new $(du -h "$W/new$n.tsk" | cut -f1), old $(du -h "$W/old$n.tsk" | cut -f1)"
        cat "$W/old$n.tsk" >/dev/null
    fi
    cat "$W/new$n.tsk" >/dev/null
    # PREV (BUNDLE/bin/tsketch_prev, when bundled): the ANI binary before a change, on the same file:
    # the same bytes, and its time beside this one's (interleaved)
    PREV=$B/bin/tsketch_prev
    [ -x "$PREV" ] || PREV=
    timing() { # label cmd...: one run's TSKETCH_TIMING lines into the summary
        local label=$1
        shift
        TSKETCH_TIMING=1 "$@" 2>&1 >/dev/null | sed "s/^tsketch: timing: /timing $label: /" | tee -a "$out/summary.txt"
    }
    ani_median() { # label args...: this binary's median of 3 seconds (a; output $W/n.tsv), and with
        # tsketch_prev its median too (pv), runs interleaved, outputs compared
        local label=$1
        shift
        pv=-
        if [ -z "$PREV" ]; then
            a=$(median3 timeout 200 "$T" "$@" -o "$W/n.tsv")
            return
        fi
        for _ in 1 2 3; do
            secs timeout 200 "$T" "$@" -o "$W/n.tsv" >>"$W/a.t"
            secs timeout 200 "$PREV" "$@" -o "$W/p.tsv" >>"$W/p.t"
        done
        a=$(sort -g "$W/a.t" | sed -n 2p) pv=$(sort -g "$W/p.t" | sed -n 2p)
        rm -f "$W/a.t" "$W/p.t"
        if [ "${PREV_SAME:-1}" = 1 ]; then
            check "ANI $label: this binary = tsketch_prev" cmp "$W/n.tsv" "$W/p.tsv"
        else
            say "ANI $label: $(paste -d'|' "$W/n.tsv" "$W/p.tsv" | awk -F'|' '$1 != $2' | wc -l) of $(wc -l <"$W/n.tsv") lines differ from tsketch_prev (PREV_SAME=0)"
        fi
    }
    if [ "${TOPK:-1}" = 1 ]; then
        ani_median "top-10 of $n" dist -q --device cuda --top-k 10 "$W/new$n.tsk"
        k=$(median3 "$T" dist -q --device cuda --key-distance --top-k 10 "$W/new$n.tsk" -o "$W/k.tsv")
        b=-
        [ -n "$OLD" ] && b=$(median3 "$OLD" dist -q --device cuda --top-k 10 "$W/old$n.tsk" -o "$W/o.tsv")
        say "dist --top-k 10 of $n, cuda (medians of 3): ANI $a s (tsketch_prev $pv s), --key-distance $k s, old $b s"
        if [ "${CPU:-1}" = 1 ]; then
            c=$(TMO=300 secs timeout 300 "$T" dist -q --device cpu -p "$P" --top-k 10 "$W/new$n.tsk" -o "$W/c.tsv")
            say "dist --top-k 10 of $n, cpu -p $P: ANI $c s"
            check "ANI top-10 of $n: cuda = cpu" cmp "$W/n.tsv" "$W/c.tsv"
        fi
        [ -z "$OLD" ] || check "--key-distance top-10 of $n = the old binary's distance (distance columns)" cmp <(cut -f1-3 "$W/k.tsv") <(cut -f1-3 "$W/o.tsv")
        timing "top-10 $n" "$T" dist -q --device cuda --top-k 10 "$W/new$n.tsk" -o "$W/n.tsv"
    fi
    ani_median "cluster of $n" cluster -q --device cuda "$W/new$n.tsk"
    k=$(median3 "$T" cluster -q --device cuda --key-distance "$W/new$n.tsk" -o "$W/k.tsv")
    b=-
    [ -n "$OLD" ] && b=$(median3 "$OLD" cluster -q --device cuda "$W/old$n.tsk" -o "$W/o.tsv")
    say "cluster of $n, cuda (medians of 3): ANI $a s (tsketch_prev $pv s), --key-distance $k s, old $b s"
    say "clusters of $n: ANI $(cut -f2 "$W/n.tsv" | sort -u | wc -l), keys $(cut -f2 "$W/k.tsv" | sort -u | wc -l)$([ -n "$OLD" ] && echo ", old $(cut -f2 "$W/o.tsv" | sort -u | wc -l)")"
    if [ "${CPU:-1}" = 1 ]; then
        "$T" cluster -q --device cpu -p "$P" "$W/new$n.tsk" -o "$W/c.tsv"
        check "ANI cluster of $n: cuda = cpu" cmp "$W/n.tsv" "$W/c.tsv"
    fi
    timing "cluster $n" "$T" cluster -q --device cuda "$W/new$n.tsk" -o "$W/n.tsv"
    rm -f "$W/new$n.tsk" "$W/old$n.tsk"
fi
say "== done: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"
exit $fail
