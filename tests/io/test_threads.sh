#!/bin/bash
# test_threads.sh: `tsketch sketch -p 1` and `-p 4` give the same .tsk (the parallel FASTA parser of
# io/fasta_par.c against the sequential reader, end to end), and the same error and no output on a
# bad file. Inputs are generated much larger than one parse range (256 KiB), so that 4 threads
# really split them. With the CPU engine (no GPU here) tsketch parses with one thread whatever -p
# says (src/pipeline.c), so the -p 4 runs set TSKETCH_PARSE_THREADS=4. The two files differ only in
# the command line they record ("-p 1" / "-p 4") and so in the checksum: both are masked before
# comparing. OMP_WAIT_POLICY=passive: the CPU engine's spinning threads would starve the parse
# threads on a small, busy machine (a matter of speed only).
# Usage: TSKETCH=... TESTDATA=... PYTHON3=... bash test_threads.sh
source "$(dirname "$0")/../cli/harness.sh"
T=$TSKETCH
export OMP_WAIT_POLICY=passive

"$PYTHON3" - "$WORK" <<'PY'
import random, sys
w = sys.argv[1]
rng = random.Random(5)
def seq(n):
    return ''.join(rng.choice('ACGTACGTACGTacgtNRY') for _ in range(n))
def wrap(s, width):
    return '\n'.join(s[i:i + width] for i in range(0, len(s), width)) if width else s
with open(w + '/big.fa', 'w') as f:          # ~9 MB: long and short records, wrapped and not
    for r in range(60):
        n = rng.choice([50, 300, 2000, 40000, 400000])
        f.write('>r%d some comment\n%s\n' % (r, wrap(seq(n), rng.choice([0, 60, 80, 61]))))
        if r % 7 == 0: f.write('\n')
    f.write('>long\n%s\n' % wrap(seq(3500000), 80))
    f.write('>unwrapped\n%s\n' % seq(2500000))
with open(w + '/crlf.fa', 'w', newline='') as f:  # ~5 MB, CRLF, empty records
    for r in range(2000):
        f.write('>c%d\r\n%s\r\n' % (r, wrap(seq(rng.choice([0, 10, 2500])), 70).replace('\n', '\r\n')))
    f.write('>tail\r\n' + wrap(seq(3000000), 70).replace('\n', '\r\n') + '\r\n')
with open(w + '/bad.fa', 'w') as f:           # a '+' line after 6 MB
    f.write('>a\n%s\n>b\n%s\n+\nIIII\n>c\nACGT\n' % (wrap(seq(6000000), 80), seq(1000)))
PY

# the .tsk bytes with the command line and the checksum zeroed
masked() {
    "$PYTHON3" - "$1" "$2" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
u64 = lambda o: struct.unpack_from('<Q', b, o)[0]
strings = u64(64) + u64(56) * 56 + u64(80) * 16
off, n = u64(112), u64(120)
b[strings + off:strings + off + n] = b'\0' * n
b[20:24] = b'\0' * 4
open(sys.argv[2], 'wb').write(b)
PY
}

same_tsk() { # DESCRIPTION -- sketch options (without -p and -o)...
    local desc=$1
    shift 2
    "$T" sketch -q -p 1 "$@" -o "$WORK/p1.tsk" && TSKETCH_PARSE_THREADS=4 "$T" sketch -q -p 4 "$@" -o "$WORK/p4.tsk" ||
        { not_ok "$desc" "sketch failed"; return; }
    masked "$WORK/p1.tsk" "$WORK/p1.m" && masked "$WORK/p4.tsk" "$WORK/p4.m"
    expect_same "$WORK/p1.m" "$WORK/p4.m" "$desc"
}

P="--device cpu -k 2 -s 8"
same_tsk "records of a large file, -p 1 = -p 4" -- $P "$WORK/big.fa"
same_tsk "CRLF and empty records, -p 1 = -p 4" -- $P "$WORK/crlf.fa"
same_tsk "several inputs in order, small ones too, -p 1 = -p 4" -- $P "$WORK/crlf.fa" "$TESTDATA/io/good.fa" "$WORK/big.fa"
same_tsk "--per-file, -p 1 = -p 4" -- $P --per-file "$WORK/big.fa" "$WORK/crlf.fa"
printf 'first\t%s\n%s\n' "$WORK/crlf.fa" "$WORK/big.fa" >"$WORK/list.txt"
same_tsk "-l list with names, --per-file, -p 1 = -p 4" -- $P --per-file -l "$WORK/list.txt"
same_tsk "slide rows, -p 1 = -p 4" -- --device cpu -k 2 -s 4 --window 20000 --stride 10000 "$WORK/big.fa"

# many small batches: each batch is begun on the engine before the previous one is written out
# (src/pipeline.c); the file must not change (but for the -o name in the recorded command line)
"$T" sketch -q $P "$WORK/big.fa" "$WORK/crlf.fa" -o "$WORK/bat_one.tsk"
TSKETCH_BATCH_BASES=300000 "$T" sketch -q $P "$WORK/big.fa" "$WORK/crlf.fa" -o "$WORK/bat_two.tsk"
masked "$WORK/bat_one.tsk" "$WORK/bat_one.m" && masked "$WORK/bat_two.tsk" "$WORK/bat_two.m"
expect_same "$WORK/bat_one.m" "$WORK/bat_two.m" "batches of 300 kbp give the same .tsk as one batch"
TSKETCH_BATCH_RECORDS=5 "$T" sketch -q $P "$WORK/big.fa" "$WORK/crlf.fa" -o "$WORK/bat_rec.tsk"
masked "$WORK/bat_rec.tsk" "$WORK/bat_rec.m"
expect_same "$WORK/bat_one.m" "$WORK/bat_rec.m" "batches of at most 5 records give the same .tsk as the engine's batches"
printf '>short\nAC\n' >"$WORK/short.fa"
TSKETCH_BATCH_BASES=1000 "$T" sketch -q $P "$WORK/short.fa" "$WORK/crlf.fa" "$WORK/short.fa" -o "$WORK/b1.tsk" 2>"$WORK/b1.err"
"$T" sketch -q $P "$WORK/short.fa" "$WORK/crlf.fa" "$WORK/short.fa" -o "$WORK/b0.tsk" 2>"$WORK/b0.err"
masked "$WORK/b0.tsk" "$WORK/b0.m" && masked "$WORK/b1.tsk" "$WORK/b1.m"
expect_same "$WORK/b0.m" "$WORK/b1.m" "batches of 1 kbp (most one record) give the same .tsk"
expect_same "$WORK/b0.err" "$WORK/b1.err" "the same warnings, in the same order, whatever the batch size"

for p in 1 4; do
    TSKETCH_PARSE_THREADS=$p "$T" sketch -q -p $p $P "$WORK/bad.fa" -o "$WORK/bad$p.tsk" 2>"$WORK/bad$p.err"
    echo $? >"$WORK/bad$p.rc"
    if [ -e "$WORK/bad$p.tsk" ] || ls "$WORK" | grep -q "bad$p.tsk.tmp"; then
        not_ok "a '+' line mid-file leaves no output (-p $p)"
    else
        ok "a '+' line mid-file leaves no output (-p $p)"
    fi
done
expect_same "$WORK/bad1.err" "$WORK/bad4.err" "a '+' line mid-file: the same message for -p 1 and -p 4"
expect_same "$WORK/bad1.rc" "$WORK/bad4.rc" "a '+' line mid-file: the same exit code for -p 1 and -p 4"
expect_true "the message names the record" -- grep -q "bad.fa: record 'b': FASTQ '+' line in a FASTA file" "$WORK/bad4.err"
expect_true "exit code 3 (bad input)" -- grep -qx 3 "$WORK/bad4.rc"

# a knob given a value it does not take (core/tsk_knobs.h) warns once, naming the variable and what
# it takes, and changes nothing: the old words (plain, generic) are gone
TSKETCH_COUNTS_KERNEL=plain TSKETCH_BATCH_BASES=lots "$T" sketch -q $P "$WORK/short.fa" "$WORK/crlf.fa" \
    "$WORK/short.fa" -o "$WORK/k0.tsk" 2>"$WORK/knob.err"
masked "$WORK/k0.tsk" "$WORK/knob.m"
expect_same "$WORK/b0.m" "$WORK/knob.m" "unknown knob values: the same .tsk as without them"
expect_true "an unknown kernel word: one warning naming the variable and the words" -- \
    test "$(grep -c 'warning: TSKETCH_COUNTS_KERNEL=plain is not one of auto|portable|avx2|avx512; using auto' \
        "$WORK/knob.err")" = 1
expect_true "a count knob that is no number: one warning naming the variable and what it takes" -- \
    test "$(grep -c 'warning: TSKETCH_BATCH_BASES=lots is not a whole number of 1 or more; ignored' "$WORK/knob.err")" = 1

finish
