#!/bin/sh
# host_pipeline.sh: throughput of tsketch's host side (read + clean + batch + write .tsk).
#
#   bench/host_pipeline.sh [BUILD_DIR] [WORKLOAD_DIR] [OLD_BUILD_DIR]
#
# For each uncompressed FASTA of WORKLOAD_DIR (python3 /work/shared/bench/make_workloads.py DIR)
# prints MB/s of FASTA (file bytes / wall seconds) for
#   reader : bench/io/host_read.c, the reader thread's work alone (parse + clean into batches);
#   host   : `tsketch sketch -q --device cpu -k 1 -s 1 FILE -o X.tsk`, where the engine does almost
#            nothing and the host side dominates (best of 3);
#   cpu    : the same at default parameters (CPU engine; one run).
# With OLD_BUILD_DIR (a build of an older tree) the same for it, for before/after tables. Files
# come from the page cache (each is read once before timing).
set -eu
BUILD=${1:-build-fast}
WL=${2:-/tmp/wfull}
OLD=${3:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

build_reader() { # build_dir out [cflags]
    cc -O2 -std=c17 -D_GNU_SOURCE ${3:-} -o "$2" "$ROOT/bench/io/host_read.c" \
        "$1/io/libtsk_io.a" "$1/libtsk_core.a" -lhts -lz -lm -lpthread
}
seconds() { # command...: wall seconds of one run
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l
}
best3() {
    b=999999
    for _ in 1 2 3; do t=$(seconds "$@"); b=$(echo "if ($t < $b) $t else $b" | bc -l); done
    echo "$b"
}
mbps() { echo "scale=0; $1 / $2 / 1000000" | bc -l; }

report() { # label build_dir reader_flags
    label=$1 dir=$2
    build_reader "$dir" "$TMP/host_read_$label" "${3:-}"
    printf '%-8s %-22s %9s %9s %9s\n' "$label" file "reader" "host" "cpu"
    for f in "$WL"/*.fa; do
        cat "$f" >/dev/null
        bytes=$(stat -c %s "$f")
        r=$(best3 "$TMP/host_read_$label" "$f")
        h=$(best3 "$dir/src/tsketch" sketch -q --device cpu -k 1 -s 1 "$f" -o "$TMP/x.tsk")
        c=$(seconds "$dir/src/tsketch" sketch -q --device cpu "$f" -o "$TMP/x.tsk")
        printf '%-8s %-22s %6s MB/s %4s MB/s %4s MB/s\n' "$label" "$(basename "$f")" \
            "$(mbps "$bytes" "$r")" "$(mbps "$bytes" "$h")" "$(mbps "$bytes" "$c")"
    done
}

[ -n "$OLD" ] && report before "$OLD" -DHOST_READ_OLD_API
report after "$BUILD"
