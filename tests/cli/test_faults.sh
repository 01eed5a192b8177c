#!/usr/bin/env bash
# CLI fault tests: every writer on a full filesystem (a 64 KiB tmpfs, mounted when root; skipped
# with a message otherwise) fails with exit 1 and the reason and leaves nothing behind; a run
# killed by SIGKILL leaves no file under the final name.
#   TSKETCH=path/to/tsketch TESTDATA=path/to/testdata bash test_faults.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
cd "$WORK" || exit 1

# 400 records of 200 bases: tables of 80k pairs, a 400 x 400 matrix, rows of D=4096 (6.4 MB)
python3 - "$WORK/many.fa" <<'EOF'
import random, sys
random.seed(17)
with open(sys.argv[1], "w") as f:
    for i in range(400):
        f.write(">r%d\n%s\n" % (i, "".join(random.choice("ACGT") for _ in range(200))))
EOF
"$T" sketch -q -s 16 "$WORK/many.fa" -o "$WORK/small.tsk"
"$T" sketch -q -s 4096 "$WORK/many.fa" -o "$WORK/wide.tsk"

# ---- full filesystem ----
FULL=$WORK/full
mkdir -p "$FULL"
mounted=0
if [ "$(id -u)" -ne 0 ]; then
    skip "full-filesystem tests: not root (they mount a 64 KiB tmpfs)"
elif ! mount -t tmpfs -o size=64k tsketch-full "$FULL" 2>"$WORK/mount.err"; then
    skip "full-filesystem tests: cannot mount a tmpfs: $(cat "$WORK/mount.err")"
else
    mounted=1
    trap 'umount "$FULL" 2>/dev/null; rm -rf "$WORK"' EXIT
fi

full_fails() { # desc final-name command...
    local desc=$1 final=$2
    shift 2
    expect_exit 1 "No space left on device" "full disk: $desc fails with the reason" -- "$@"
    if [ -n "$(ls -A "$FULL")" ]; then
        not_ok "full disk: $desc leaves nothing behind" "$(ls -A "$FULL")"
        rm -f "$FULL"/* "$FULL"/.[!.]* 2>/dev/null
    else
        ok "full disk: $desc leaves nothing behind"
    fi
    [ -e "$final" ] && not_ok "full disk: $desc: $final exists"
}

if [ "$mounted" -eq 1 ]; then
    full_fails "sketch" "$FULL/x.tsk" "$T" sketch -q -s 4096 "$WORK/many.fa" -o "$FULL/x.tsk"
    full_fails "dist (tsv)" "$FULL/d.tsv" "$T" dist -q "$WORK/small.tsk" -o "$FULL/d.tsv"
    full_fails "dist -f npy" "$FULL/d.npy" "$T" dist -q -f npy "$WORK/small.tsk" -o "$FULL/d.npy"
    full_fails "dist --top-k" "$FULL/k.tsv" "$T" dist -q --top-k 100 "$WORK/small.tsk" "$WORK/small.tsk" -o "$FULL/k.tsv"
    full_fails "triangle" "$FULL/t.phylip" "$T" triangle -q "$WORK/small.tsk" -o "$FULL/t.phylip"
    full_fails "paste" "$FULL/p.tsk" "$T" paste -q "$FULL/p.tsk" "$WORK/wide.tsk" "$WORK/wide.tsk"
    full_fails "export (tsv)" "$FULL/e.tsv" "$T" export "$WORK/wide.tsk" -o "$FULL/e.tsv"
    full_fails "export -f npy" "$FULL/e.npy" "$T" export -f npy "$WORK/wide.tsk" -o "$FULL/e.npy"
    # the .npy fits, its names file does not: neither stays
    python3 -c "print('>' + 'n' * 300 + '\n' + 'ACGT' * 10)" >"$WORK/longname.fa"
    for i in $(seq 1 300); do cat "$WORK/longname.fa"; done >"$WORK/longnames.fa"
    "$T" sketch -q -s 1 "$WORK/longnames.fa" -o "$WORK/longnames.tsk"
    full_fails "export -f npy (names file full)" "$FULL/n.npy" "$T" export -f npy "$WORK/longnames.tsk" -o "$FULL/n.npy"
    expect_exit 0 "" "full disk: a small output still fits" -- "$T" dist -q "$WORK/small.tsk" -o "$FULL/fits.tsv" --top-k 1
fi

# ---- SIGKILL: the final name never holds a partial file ----
# sketch: one 1 Mbp record at t=8, D=4096 (minutes of work; the kill comes within 50 ms of the
# temporary file). dist: 3000 records, 4.5M pairs (100 MB of TSV, seconds to write).
python3 - "$WORK/big.fa" "$WORK/m3k.fa" <<'EOF'
import random, sys
random.seed(3)
s = "".join(random.choice("ACGT") for _ in range(1 << 20))
open(sys.argv[1], "w").write(">g\n" + "\n".join(s[j:j + 80] for j in range(0, len(s), 80)) + "\n")
with open(sys.argv[2], "w") as f:
    for i in range(3000):
        f.write(">r%d\n%s\n" % (i, "".join(random.choice("ACGT") for _ in range(64))))
EOF
"$T" sketch -q -s 8 "$WORK/m3k.fa" -o "$WORK/m3k.tsk"

# kill_midway desc output command...: starts the command, kills it with SIGKILL once its temporary
# output exists, and checks that no file took the final name.
kill_midway() {
    local desc=$1 final=$2
    shift 2
    "$@" 2>/dev/null &
    local pid=$! i
    for i in $(seq 1 200); do
        ls "$final".tmp.* >/dev/null 2>&1 && break
        sleep 0.05
    done
    local midway=0
    ls "$final".tmp.* >/dev/null 2>&1 && kill -0 "$pid" 2>/dev/null && midway=1
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if [ "$midway" -eq 0 ]; then
        not_ok "SIGKILL: $desc was killed while writing" "no temporary file seen, or it ended first"
    elif [ -e "$final" ]; then
        not_ok "SIGKILL: $desc leaves no $final" "$(ls -l "$final")"
    else
        ok "SIGKILL: $desc leaves no $final"
    fi
    rm -f "$final".tmp.*
}
kill_midway "sketch" "$WORK/killed.tsk" "$T" sketch -q -s 4096 -k 8 "$WORK/big.fa" -o "$WORK/killed.tsk"
kill_midway "dist" "$WORK/killed.tsv" "$T" dist -q "$WORK/m3k.tsk" -o "$WORK/killed.tsv"

[ "$mounted" -eq 1 ] && umount "$FULL"
finish
