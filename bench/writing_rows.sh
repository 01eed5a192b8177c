#!/bin/sh
# writing_rows.sh: what writing a million rows costs `tsketch sketch`, whole process.
#
#   [READS=1000000] [RUNS=5] [THREADS=2] [DEVICE=cpu] [WORKLOAD=reads.fa] \
#       bench/writing_rows.sh [TSKETCH] [BASELINE_TSKETCH]
#
# Sketches READS reads of 150 bp (the short-reads workload of ../shared/bench/make_workloads.py:
# one record per read, D=96 floats a row: 384 MB of rows and 64 MB of record table in a 448 MB
# .tsk) with `sketch --device DEVICE -p THREADS`, RUNS times per binary (the binaries alternate),
# once into a fresh output and once over the output of the run before (a rename over an existing
# file costs more). Prints the medians of
#   whole    : the whole process, wall seconds;
#   pipeline : the pipeline's own TSKETCH_TIMING total;
#   after    : whole - pipeline: start-up (a few ms), then after the last batch the table write,
#              rename and exit;
#   writing  : TSKETCH_TIMING's "writing rows", the main thread handing rows to the writer;
#   waiting  : its "waiting for the writer", the main thread waiting for the writer's thread to let
#              go of a row buffer (0 for builds without one);
#   cpu      : user + system CPU seconds (with GNU time), what a busy machine disturbs least.
# Before timing it checks that the output opens (checksum, layout: `tsketch info`) with READS
# records, and with BASELINE_TSKETCH that both binaries write byte-identical files (each binary is
# copied to one path and writes to one output name: the command line stored in the file names
# both). WORKLOAD reuses a reads file instead of generating one.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NEW=${1:-$ROOT/build/src/tsketch}
OLD=${2:-}
READS=${READS:-1000000}
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
DEVICE=${DEVICE:-cpu}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/bin"

reads=${WORKLOAD:-$TMP/reads.fa}
if [ -z "${WORKLOAD:-}" ]; then
    python3 - "$reads" "$READS" <<'EOF'
import random, sys
ACGT = bytes.maketrans(bytes(range(256)), bytes(b"ACGT"[i & 3] for i in range(256)))
rng = random.Random(20241120)
with open(sys.argv[1], "wb") as f:
    for i in range(int(sys.argv[2])):
        s = rng.randbytes(150).translate(ACGT)
        f.write(b">r%d\n%s\n%s\n" % (i, s[:80], s[80:]))
EOF
fi
cat "$reads" >/dev/null

TIME=$(command -v /usr/bin/time || true) # GNU time, for the CPU seconds (a dash without it)
run() { # binary output: one sketch, its TSKETCH_TIMING lines in $TMP/timing, CPU seconds in $TMP/cpu
    cp "$1" "$TMP/bin/tsketch"
    echo - >"$TMP/cpu"
    if [ -n "$TIME" ]; then
        TSKETCH_TIMING=1 "$TIME" -o "$TMP/cpu" -f '%U %S' "$TMP/bin/tsketch" sketch --device "$DEVICE" -p "$THREADS" \
            "$reads" -o "$2" 2>"$TMP/timing"
    else
        TSKETCH_TIMING=1 "$TMP/bin/tsketch" sketch --device "$DEVICE" -p "$THREADS" "$reads" -o "$2" 2>"$TMP/timing"
    fi
}
field() { # name: its value in the last run's timing line ("writing rows 0.123" -> 0.123; 0 when absent)
    v=$(sed -n "s/.*$1 \([0-9.]*\).*/\1/p" "$TMP/timing" | head -1)
    echo "${v:-0}"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---- validation ----
for b in $NEW $OLD; do
    name=$( [ "$b" = "$NEW" ] && echo new || echo baseline )
    run "$b" "$TMP/out.tsk" # one output name: the command line stored in the file names it
    mv "$TMP/out.tsk" "$TMP/$name.tsk"
    records=$("$NEW" info --json "$TMP/$name.tsk" | sed -n 's/.*"records": \([0-9]*\).*/\1/p')
    if [ "$records" != "$READS" ]; then
        echo "writing_rows: $name: $TMP/$name.tsk holds ${records:-no} records, not $READS" >&2
        exit 1
    fi
done
if [ -n "$OLD" ] && ! cmp -s "$TMP/new.tsk" "$TMP/baseline.tsk"; then
    echo "writing_rows: $NEW and $OLD write different files" >&2
    exit 1
fi
rm -f "$TMP/new.tsk" "$TMP/baseline.tsk"

# ---- timing ----
: >"$TMP/results"
for _ in $(seq "$RUNS"); do
    for b in $NEW $OLD; do
        name=$( [ "$b" = "$NEW" ] && echo new || echo baseline )
        for output in fresh replace; do
            [ $output = fresh ] && rm -f "$TMP/out.tsk"
            s=$(date +%s.%N)
            run "$b" "$TMP/out.tsk"
            e=$(date +%s.%N)
            total=$(sed -n 's/^tsketch: timing: \([0-9.]*\) s for.*/\1/p' "$TMP/timing")
            echo "$name $output $(awk -v s="$s" -v e="$e" -v t="$total" 'BEGIN { print e - s, t, e - s - t }') \
$(field 'writing rows') $(field 'waiting for the writer') $(awk 'NF == 2 { print $1 + $2 } NF != 2 { print "-" }' "$TMP/cpu")" >>"$TMP/results"
        done
    done
done
echo "# $READS reads x 150 bp, sketch --device $DEVICE -p $THREADS, medians of $RUNS runs (seconds)"
printf '%-9s %-8s %8s %8s %8s %8s %8s %8s\n' binary output whole pipeline after writing waiting cpu
for name in new baseline; do
    for output in fresh replace; do
        grep -q "^$name $output " "$TMP/results" || continue
        printf '%-9s %-8s' $name $output
        for col in 3 4 5 6 7 8; do
            printf ' %8s' "$(awk -v n=$name -v o=$output -v c=$col '$1 == n && $2 == o { print $c }' "$TMP/results" |
                median | awk '{ printf "%.3f", $1 }')"
        done
        echo
    done
done
