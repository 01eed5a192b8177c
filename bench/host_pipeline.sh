#!/bin/sh
# host_pipeline.sh: throughput of tsketch's host side (read + clean + batch + write .tsk).
#
#   [THREADS="1 2"] [COLUMNS="reader host cpu"] bench/host_pipeline.sh [BUILD_DIR] [WORKLOAD_DIR]
#
# For each uncompressed FASTA of WORKLOAD_DIR (python3 ../shared/bench/make_workloads.py DIR)
# and each thread count T of THREADS, prints MB/s of FASTA (file bytes / wall seconds) for
#   reader : bench/io/host_read.c -t T, the reader's work alone (parse + clean into batches, T
#            threads parsing as `sketch -p T` does), best of 3: the right measure of the host side;
#   host   : `tsketch sketch -q -p T --device cpu -k 1 -s 1 FILE -o X.tsk`, best of 3, with
#            TSKETCH_PARSE_THREADS=T (with the CPU engine tsketch parses with one thread otherwise)
#            and OMP_WAIT_POLICY=passive (the engine's spinning threads would starve the parse
#            threads where cores are few). Not a pure host measure: the CPU engine still sketches;
#   cpu    : the same at default parameters (one run);
#   gpu    : `tsketch sketch -q -p T --device cuda FILE -o X.tsk`, end to end, best of 3 (a CUDA
#            build on a GPU machine).
# COLUMNS picks the columns (default "reader host cpu").
# Files come from the page cache (each is read once before timing).
set -eu
BUILD=${1:-build-fast}
WL=${2:-${TMPDIR:-/tmp}/wfull}
THREADS=${THREADS:-1 2}
COLUMNS=${COLUMNS:-reader host cpu}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

seconds() { # command...: wall seconds of one run
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'
}
best3() {
    b=999999
    for _ in 1 2 3; do t=$(seconds "$@"); b=$(awk -v t="$t" -v b="$b" 'BEGIN { print t < b ? t : b }'); done
    echo "$b"
}
mbps() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%d", n / s / 1e6 }'; }
has() { case " $COLUMNS " in *" $1 "*) return 0 ;; esac; return 1; }

READER=$BUILD/bench/io/host_read  # ninja -C BUILD bench/io/host_read
printf '%-24s %3s' file T
for c in $COLUMNS; do printf ' %9s' "$c"; done
echo
for f in "$WL"/*.fa; do
    cat "$f" >/dev/null
    bytes=$(stat -c %s "$f")
    for t in $THREADS; do
        printf '%-24s %3s' "$(basename "$f")" "$t"
        if has reader; then printf ' %4s MB/s' "$(mbps "$bytes" "$(best3 "$READER" -t "$t" "$f")")"; fi
        if has host; then
            printf ' %4s MB/s' "$(mbps "$bytes" "$(TSKETCH_PARSE_THREADS=$t OMP_WAIT_POLICY=passive best3 \
                "$BUILD/src/tsketch" sketch -q -p "$t" --device cpu -k 1 -s 1 "$f" -o "$TMP/x.tsk")")"
        fi
        if has cpu; then
            printf ' %4s MB/s' "$(mbps "$bytes" "$(seconds "$BUILD/src/tsketch" sketch -q -p "$t" --device cpu "$f" -o "$TMP/x.tsk")")"
        fi
        if has gpu; then
            printf ' %4s MB/s' "$(mbps "$bytes" "$(best3 "$BUILD/src/tsketch" sketch -q -p "$t" --device cuda "$f" -o "$TMP/x.tsk")")"
        fi
        echo
    done
done
