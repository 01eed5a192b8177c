# harness.sh: sourced by the CLI tests. Usage: TSKETCH=... TESTDATA=... bash test_x.sh
# The scripts speak TAP (tests/cli/meson.build says protocol 'tap', so meson counts checks, not
# scripts): each check prints "ok - ..." or "not ok - ..." with its details as "#" lines, and
# finish prints the plan "1..N" last and "# N passed, N failed"; skip_all skips a whole script.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tsketch-cli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# one line a check, so that checks run in subshells (pipelines, $(...)) count too
RESULTS=$WORK/.results
: >"$RESULTS"

ok() { echo ok >>"$RESULTS"; echo "ok - $1"; }
not_ok() {
    echo "not ok" >>"$RESULTS"
    echo "not ok - $1"
    shift
    local l
    for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#     /'; done
}
# skip REASON: one check that cannot run here, counted as TAP's skipped check
skip() { echo skip >>"$RESULTS"; echo "ok - # SKIP $1"; }
# note TEXT: a line for the reader of the log, not a check
note() { printf '%s\n' "$*" | sed 's/^/# /'; }
# skip_all REASON: the script cannot run here (a tool or a GPU missing): TAP's skipped plan
skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

# expect_exit CODE 'stderr regex' DESCRIPTION -- command...
expect_exit() {
    local code=$1 pattern=$2 desc=$3
    shift 4
    "$@" >"$WORK/out" 2>"$WORK/err"
    local got=$?
    if [ "$got" -ne "$code" ]; then
        not_ok "$desc" "exit $got, expected $code" "stderr: $(head -c 400 "$WORK/err")"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$WORK/err"; then
        not_ok "$desc" "stderr does not match /$pattern/" "stderr: $(head -c 400 "$WORK/err")"
    else
        ok "$desc"
    fi
}

# expect_same FILE1 FILE2 DESCRIPTION
expect_same() {
    if cmp -s "$1" "$2"; then ok "$3"; else not_ok "$3" "$1 and $2 differ" "$(diff "$1" "$2" | head -5)"; fi
}

# expect_true DESCRIPTION -- command... (passes when the command exits 0)
expect_true() {
    local desc=$1
    shift 2
    if "$@" >"$WORK/out.t" 2>&1; then ok "$desc"; else not_ok "$desc" "$(head -c 400 "$WORK/out.t")"; fi
}

# check_parts DESCRIPTION N DIST-ARGS...: the outputs of `tsketch dist --block i/N DIST-ARGS` for
# i = 1..N, concatenated in order, are the single run's output byte for byte
check_parts() {
    local desc=$1 n=$2
    shift 2
    "$TSKETCH" dist "$@" >"$WORK/single.tsv"
    : >"$WORK/parts.tsv"
    for i in $(seq 1 "$n"); do "$TSKETCH" dist --block "$i/$n" "$@" >>"$WORK/parts.tsv"; done
    expect_same "$WORK/single.tsv" "$WORK/parts.tsv" "--block x/$n: $desc"
}

# golden_match WANT GOT DESC (genome TSV): the same lines in the same order; names, shared and
# total equal, distances within 1e-6 relative (the reference's pow is not the C library's)
golden_match() {
    if awk -F'\t' 'NR == FNR { want[++n] = $0; next }
        { m++; split(want[m], w, "\t")
          if ($1 != w[1] || $2 != w[2] || $4 != w[4] || $5 != w[5] || NF != 5) { print "line " m ": " $0 " want " want[m]; bad = 1; next }
          d = $3 - w[3]; if (d < 0) d = -d
          if (d > 1e-6 * w[3] + 1e-12) { print "line " m ": " $0 " want " want[m]; bad = 1 } }
        END { if (m != n) { print m " lines, want " n; bad = 1 } exit bad }' "$1" "$2" >"$WORK/gm" 2>&1; then
        ok "$3"
    else
        not_ok "$3" "$(head -5 "$WORK/gm")"
    fi
}

finish() {
    local passed failed skipped
    passed=$(grep -c '^ok' "$RESULTS")
    failed=$(grep -c '^not ok' "$RESULTS")
    skipped=$(grep -c '^skip' "$RESULTS")
    echo "1..$((passed + failed + skipped))"
    echo "# $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}
