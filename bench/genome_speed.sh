#!/usr/bin/env bash
# genome_speed.sh BUNDLE: genome sketching as users wait for it, whole process, on the GPU machine
# (docs/performance.md, "Genome sketching"). Makes its genomes there (bench/genome/genome_gen).
#
# Bundle (from the repository root, with a CUDA build in build-cuda/ and the binary before a change
# as tsketch_main):
#   ../shared/device/bundle.sh .device/gs build-cuda/src/tsketch tsketch_main build-cuda/bench/genome/genome_gen \
#       build-cuda/tests/gpu/test_gpu_genome_scan_test build-cuda/bench/gpu/genome_scan_bench /usr/bin/mash \
#       -- bench/genome_speed.sh
# Device call (carry .device/gs):  STEPS="gen check files" bash .device/gs/genome_speed.sh .device/gs
#
# Steps (STEPS, in this order):
#   gen       1,000 gzipped genomes of 2-6 Mbp (files/, 4 Gbp), the same as one plain FASTA of a
#             genome a record (one.fa)
#   genbig    10,000 gzipped genomes of 2-4 Mbp (big/, 30 Gbp)
#   check     GPU scanner test and bench (GPU keys = CPU keys), compute-sanitizer memcheck, and
#             sketches byte for byte: -p 1 = -p 16 = the old binary, --per-file = one file per genome
#   files     --per-file -l over files/: -p 1, -p 16 (RUNS), the old binary, mash sketch -p 16, and
#             the ceiling (16 copies of -p 1 on a sixteenth each, at once)
#   one       one.fa: -p 16 (RUNS), the old binary, vector sketches of the same file
#   headline  big/: sketch -p 16 then dist --top-k 10, whole; mash sketch -p 16 of the same files
#             and mash dist of 1,000 x 1,000 (scaled to 10,000^2 on paper)
# Every time is whole process (command line to file), wall seconds; medians of RUNS.
set -uo pipefail
B=$(cd "${1:?usage: genome_speed.sh BUNDLE}" && pwd)
T=$B/bin/tsketch
OLD=$B/bin/tsketch_main
GEN=$B/bin/genome_gen
MASH=$B/bin/mash
W=${GENOME_SPEED_WORK:-${TMPDIR:-/tmp}/genome_speed_work}
STEPS=${STEPS:-"gen check files one genbig headline"}
RUNS=${RUNS:-5}
P=${P:-$(nproc)}
mkdir -p "$W"
cd "$W" || exit 1
fails=0

say() { printf '%s\n' "$*"; }
# secs CMD...: runs CMD (output discarded), prints its wall seconds; a failure is reported
secs() {
    local s e
    s=$(date +%s.%N)
    if ! timeout "${TMO:-150}" "$@" >/dev/null 2>>"$W/stderr.log"; then say "FAILED (or over ${TMO:-150} s): $*" >&2; fails=$((fails + 1)); fi
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}
# median_of N CMD...: the median wall seconds of N runs
median_of() {
    local n=$1
    shift
    for _ in $(seq "$n"); do secs "$@"; done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
rate() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.2f", b / s / 1e9 }'; }
bases_of() { "$T" info "$1" | awk -F'\t' '$1 == "clean length" { print $2 }'; }
same() { # same LABEL A.tsk B.tsk [BINARY]: the names and keys of two sketch files (export), byte for
    # byte; B exported by BINARY (the old binary for its own files, whose format may be older)
    if cmp -s <("$T" export "$2" 2>&1) <("${4:-$T}" export "$3" 2>&1); then
        say "ok - $1"
    else
        say "not ok - $1"
        fails=$((fails + 1))
    fi
}

for step in $STEPS; do
    case $step in
    gen)
        [ -s files/list.tsv ] || secs "$GEN" -n 1000 -L 2000000-6000000 -s 1 files >/dev/null
        [ -s one.fa ] || secs "$GEN" -n 1000 -L 2000000-6000000 -s 1 --one-file one.fa >/dev/null
        say "gen: files $(du -sh files | cut -f1), one.fa $(du -sh one.fa | cut -f1)"
        ;;
    genbig)
        [ -s big/list.tsv ] || say "genbig: $(TMO=200 secs "$GEN" -n 10000 -L 2000000-4000000 -s 2 big) s, $(du -sh big | cut -f1)"
        ;;
    check)
        "$B/bin/test_gpu_genome_scan_test" && say "ok - GPU scanner test" || { say "not ok - GPU scanner test"; fails=$((fails + 1)); }
        "$B/bin/test_cpu_genome_scan" >cpu_scan.log 2>&1 && say "ok - CPU scanner test ($(grep 'kernels checked' cpu_scan.log))" ||
            { say "not ok - CPU scanner test"; tail -20 cpu_scan.log; fails=$((fails + 1)); }
        if [ -x "$B/bin/genome_scan_bench" ]; then
        "$B/bin/genome_scan_bench" 200 3 500 0 || fails=$((fails + 1))
        TSKETCH_SCAN_KERNEL=portable "$B/bin/genome_scan_bench" 200 3 500 0 | sed 's/cpu_1_thread/cpu_1_thread_portable/' | grep cpu_ ||
            fails=$((fails + 1))
        SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
        "$SAN" --tool memcheck --leak-check full --error-exitcode 9 "$B/libexec/genome_scan_bench" 5 1 500 0 >san.log 2>&1 &&
            say "ok - compute-sanitizer memcheck (genome_scan_bench)" ||
            { say "not ok - memcheck"; tail -20 san.log; fails=$((fails + 1)); }
        fi
        head -100 files/list.tsv >l100.tsv
        "$T" sketch -q --genome --per-file -p 1 -l l100.tsv -o c1.tsk
        "$T" sketch -q --genome --per-file -p "$P" -l l100.tsv -o c16.tsk
        "$OLD" sketch -q --genome --per-file -p "$P" -l l100.tsv -o cold.tsk
        same "--per-file: -p 1 = -p $P" c1.tsk c16.tsk
        same "--per-file: new = old binary" c16.tsk cold.tsk "$OLD"
        head -c 400000000 one.fa | awk '/^>/ { n++ } n <= 100' >o100.fa
        "$T" sketch -q --genome -p 1 o100.fa -o o1.tsk
        "$T" sketch -q --genome -p "$P" o100.fa -o o16.tsk
        "$OLD" sketch -q --genome -p "$P" o100.fa -o oold.tsk
        same "records: -p 1 = -p $P" o1.tsk o16.tsk
        same "records: new = old binary" o16.tsk oold.tsk "$OLD"
        "$T" sketch -q --genome -p "$P" - <o100.fa -o ostdin.tsk
        same "records: stdin = file" o16.tsk ostdin.tsk
        TSKETCH_SCAN_KERNEL=portable "$T" sketch -q --genome -p "$P" o100.fa -o oport.tsk
        same "records: TSKETCH_SCAN_KERNEL=portable = auto" o16.tsk oport.tsk
        "$T" sketch -q --genome --device cuda -p "$P" o100.fa -o ogpu.tsk
        same "records: --device cuda = cpu" o16.tsk ogpu.tsk
        gpu_per_file=1
        for p in "$P" 2 1; do
            if timeout 60 "$T" sketch -q --genome --device cuda --per-file -p "$p" -l l100.tsv -o cgpu.tsk; then
                same "--per-file: --device cuda -p $p = cpu" c16.tsk cgpu.tsk
            else
                say "not ok - --per-file --device cuda -p $p failed or took over 60 s"
                fails=$((fails + 1))
                gpu_per_file=0
                break
            fi
        done
        ;;
    files)
        n=$(bases_of c16.tsk 2>/dev/null)
        "$T" sketch -q --genome --per-file -p "$P" -l files/list.tsv -o f.tsk
        n=$(bases_of f.tsk)
        cat files/*.fa.gz >/dev/null
        s=$(median_of "$RUNS" "$T" sketch -q --genome --per-file -p "$P" -l files/list.tsv -o f.tsk)
        say "files -p $P: $s s, $(rate "$n" "$s") Gbp/s ($n bases)"
        if [ "${gpu_per_file:-1}" = 1 ]; then
            sg=$(TMO=60 median_of "$RUNS" "$T" sketch -q --genome --per-file --device cuda -p "$P" -l files/list.tsv -o fg.tsk)
            say "files --device cuda -p $P: $sg s, $(rate "$n" "$sg") Gbp/s"
            same "files: --device cuda = cpu" f.tsk fg.tsk
        fi
        [ -n "${QUICK:-}" ] || {
        s1=$(secs "$T" sketch -q --genome --per-file -p 1 -l files/list.tsv -o f1.tsk)
        say "files -p 1: $s1 s, $(rate "$n" "$s1") Gbp/s; -p $P / -p 1 = $(awk -v a="$s1" -v b="$s" 'BEGIN { printf "%.1f", a / b }')x"
        same "files: -p 1 = -p $P" f1.tsk f.tsk; }
        # the ceiling: P copies of -p 1, each on a P-th of the files, at once
        split -n l/"$P" -d files/list.tsv part.
        s0=$(date +%s.%N)
        for part in part.*; do "$T" sketch -q --genome --per-file -p 1 -l "$part" -o "$part.tsk" & done
        wait
        sc=$(awk -v s="$s0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
        say "files ceiling ($P x -p 1 at once): $sc s; -p $P reaches $(awk -v c="$sc" -v s="$s" 'BEGIN { printf "%.0f", 100 * c / s }') % of it"
        [ -n "${QUICK:-}" ] || {
        so=$(median_of "$RUNS" "$OLD" sketch -q --genome --per-file -p "$P" -l files/list.tsv -o fold.tsk)
        say "files old binary -p $P: $so s"
        same "files: new = old binary" f.tsk fold.tsk "$OLD"; }
        if [ -x "$MASH" ]; then
            sm=$(median_of "${MASH_RUNS:-3}" "$MASH" sketch -p "$P" -k 21 -s 10000 -o m files/*.fa.gz)
            say "files mash sketch -p $P -k 21 -s 10000: $sm s; tsketch is $(awk -v m="$sm" -v s="$s" 'BEGIN { printf "%.1f", m / s }')x faster"
        fi
        ;;
    one)
        n=$(bases_of o16.tsk 2>/dev/null)
        "$T" sketch -q --genome -p "$P" one.fa -o one.tsk
        n=$(bases_of one.tsk)
        s=$(median_of "$RUNS" "$T" sketch -q --genome -p "$P" one.fa -o one.tsk)
        say "one.fa -p $P: $s s, $(rate "$n" "$s") Gbp/s ($n bases)"
        [ -n "${QUICK:-}" ] || {
        so=$(secs "$OLD" sketch -q --genome -p "$P" one.fa -o oneold.tsk)
        say "one.fa old binary -p $P: $so s"
        same "one.fa: new = old binary" one.tsk oneold.tsk "$OLD"; }
        sg=$(median_of "$RUNS" "$T" sketch -q --genome --device cuda -p "$P" one.fa -o oneg.tsk)
        say "one.fa --device cuda -p $P: $sg s, $(rate "$n" "$sg") Gbp/s"
        same "one.fa: --device cuda = cpu" one.tsk oneg.tsk
        [ -n "${QUICK:-}" ] || {
        s1=$(secs "$T" sketch -q --genome -p 1 one.fa -o one1.tsk)
        say "one.fa -p 1: $s1 s, $(rate "$n" "$s1") Gbp/s; -p $P / -p 1 = $(awk -v a="$s1" -v b="$s" 'BEGIN { printf "%.1f", a / b }')x"
        sv=$(median_of 3 "$T" sketch -q -p "$P" one.fa -o onev.tsk)
        say "one.fa vector sketches -p $P: $sv s"; }
        ;;
    headline)
        cat big/*.fa.gz >/dev/null
        devs="cpu cuda"
        [ "${gpu_per_file:-1}" = 1 ] || devs=cpu
        for dev in $devs; do
            s0=$(date +%s.%N)
            timeout 200 "$T" sketch -q --genome --per-file --device $dev -p "$P" -l big/list.tsv -o big_$dev.tsk
            s1=$(date +%s.%N)
            timeout 100 "$T" dist -q --top-k 10 --device $dev -p "$P" big_$dev.tsk -o top10_$dev.tsv
            s2=$(date +%s.%N)
            n=$(bases_of big_$dev.tsk)
            awk -v a="$s0" -v b="$s1" -v c="$s2" -v n="$n" -v d=$dev 'BEGIN { printf "headline --device %s: 10,000 genomes (%.1f Gbp): sketch %.2f s (%.2f Gbp/s) + dist --top-k 10 %.2f s = %.2f s\n", d, n / 1e9, b - a, n / (b - a) / 1e9, c - b, c - a }'
        done
        [ "$devs" = cpu ] || same "headline: cuda = cpu sketches" big_cpu.tsk big_cuda.tsk
        [ "$devs" = cpu ] || cmp -s top10_cpu.tsv top10_cuda.tsv && say "ok - headline: top-10 cuda = cpu ($(wc -l <top10_cpu.tsv) lines)" || { say "not ok - top-10 differ"; fails=$((fails + 1)); }
        if [ -x "$MASH" ] && [ -z "${QUICK:-}" ]; then
            sm=$(secs "$MASH" sketch -p "$P" -k 21 -s 10000 -o mbig big/*.fa.gz)
            say "headline mash sketch -p $P: $sm s"
            ls big/g00[0-9]*.fa.gz | head -1000 >m1000.txt
            "$MASH" sketch -p "$P" -k 21 -s 10000 -o m1000 -l m1000.txt >/dev/null 2>&1
            sd=$(secs "$MASH" dist -p "$P" m1000.msh m1000.msh)
            say "headline mash dist 1000 x 1000: $sd s (x100 for 10,000^2: $(awk -v d="$sd" 'BEGIN { printf "%.0f", d * 100 }') s)"
        fi
        ;;
    *) say "unknown step $step" ;;
    esac
done
say "$fails failures"
exit $((fails > 0))
