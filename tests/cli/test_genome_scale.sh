#!/usr/bin/env bash
# CLI: genome sketches are a contract whatever the machine does (src/genome_sketch.c): the same
# keys for -p 1..16, for every input form (one FASTA of a genome a record, a file per genome with
# --per-file, -l lists, stdin; plain, gzip, BGZF), for any batching (TSKETCH_BATCH_BASES forces
# tiny batches, TSKETCH_GENOME_PIECE tiny pieces of long genomes, so genomes stream through in
# parts and are scanned by many tasks); a genome cut into contigs against the independent reference
# (testdata/genome/genome_keys_ref.py); 10,000 genomes streamed through stdin under a memory cap
# far below the input's size; errors name the file and leave no output.
#   TSKETCH=... TESTDATA=... bash test_genome_scale.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
REF=$TESTDATA/genome/genome_keys_ref.py
PY=$(command -v python3)
export LC_ALL=C
# parameters with a small floor (floor length 5/4 x 200 x 40 = 10 kbp): genomes on both sides of it
P=(--genome -k 4 -s 16 --window 20 --anchor-k 12 --scaled 40 --min-keys 200)
RP=(-k 4 -s 16 --window 20 --anchor-k 12 --scaled 40 --min-keys 200)

# 40 genomes of 1-60 kbp (one of 400 kbp), a few repeats, lowercase and N runs; each in a file of
# its own (plain, gzip or BGZF), all as records of one file, and a list
"$PY" - "$WORK" <<'PY'
import gzip, os, random, struct, sys, zlib
work = sys.argv[1]
rnd = random.Random(7)
def bgzf(path, data):
    def block(payload):
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        cdata = c.compress(payload) + c.flush()
        head = b'\x1f\x8b\x08\x04\0\0\0\0\0\xff' + struct.pack('<H', 6) + b'BC' + struct.pack('<HH', 2, 25 + len(cdata))
        return head + cdata + struct.pack('<II', zlib.crc32(payload) & 0xffffffff, len(payload))
    with open(path, 'wb') as f:
        for i in range(0, len(data), 30000):
            f.write(block(data[i:i + 30000]))
        f.write(block(b''))
one = open(os.path.join(work, 'all.fa'), 'w')
lst = open(os.path.join(work, 'list.tsv'), 'w')
for i in range(40):
    n = 400000 if i == 17 else rnd.randint(1000, 60000)
    s = ''.join(rnd.choice('ACGT') for _ in range(n))
    if i % 5 == 0:  # a repeat, lowercase, an N run
        s = s[:n // 2] + s[:300] + s[n // 2:]
        s = s[:100] + s[100:400].lower() + 'N' * 50 + s[400:]
    name = 'g%02d' % i
    text = '>%s\n%s\n' % (name, '\n'.join(s[j:j + 70] for j in range(0, len(s), 70)))
    one.write(text)
    ext = ['fa', 'fa.gz', 'fa.bgz'][i % 3]
    path = os.path.join(work, '%s.%s' % (name, ext))
    if ext == 'fa':
        open(path, 'w').write(text)
    elif ext == 'fa.gz':
        with gzip.open(path, 'wt') as f:
            f.write(text)
    else:
        bgzf(path, text.encode())
    lst.write('%s\t%s\n' % (name, path))
# a genome of five contigs, its parts of 3-40 kbp, in one file
s = ''.join(rnd.choice('ACGT') for _ in range(90000))
cuts = [0, 3000, 20000, 21000, 61000, 90000]
with open(os.path.join(work, 'contigs.fa'), 'w') as f:
    for j in range(5):
        f.write('>c%d\n%s\n' % (j, s[cuts[j]:cuts[j + 1]]))
PY
mapfile -t FILES < <(cut -f2 "$WORK/list.tsv")
keys() { "$T" export "$1" >"$2"; }

# ---- threads ----
"$T" sketch -q "${P[@]}" -p 1 "$WORK/all.fa" -o "$WORK/r1.tsk"
keys "$WORK/r1.tsk" "$WORK/r1.keys"
for p in 2 3 4 8 16; do
    "$T" sketch -q "${P[@]}" -p $p "$WORK/all.fa" -o "$WORK/r$p.tsk"
    keys "$WORK/r$p.tsk" "$WORK/r$p.keys"
    expect_same "$WORK/r1.keys" "$WORK/r$p.keys" "a genome a record: -p $p = -p 1"
done
"$T" sketch -q "${P[@]}" --per-file -p 1 -l "$WORK/list.tsv" -o "$WORK/f1.tsk"
keys "$WORK/f1.tsk" "$WORK/f1.keys"
for p in 2 5 16; do
    "$T" sketch -q "${P[@]}" --per-file -p $p -l "$WORK/list.tsv" -o "$WORK/f$p.tsk"
    keys "$WORK/f$p.tsk" "$WORK/f$p.keys"
    expect_same "$WORK/f1.keys" "$WORK/f$p.keys" "--per-file -l: -p $p = -p 1"
done

# ---- input forms: one file, a file per genome (plain, gzip, BGZF), stdin, the reference ----
expect_same "$WORK/r1.keys" "$WORK/f1.keys" "--per-file over plain, gzip and BGZF files = records of one file"
"$T" sketch -q "${P[@]}" --per-file -p 4 "${FILES[@]}" -o "$WORK/fa.tsk"
keys "$WORK/fa.tsk" "$WORK/fa.keys"
expect_same "$WORK/r1.keys" "$WORK/fa.keys" "--per-file with the files named on the command line"
# --device cuda --per-file: the CPU threads scan (the per-file GPU path is gone), with a note; without
# a usable GPU it exits 5 as every --device cuda does
"$T" sketch "${P[@]}" --device cuda --per-file -p 2 "${FILES[@]}" -o "$WORK/fc.tsk" 2>"$WORK/fc.err"
rc=$?
if [ "$rc" -eq 0 ]; then
    expect_true "--device cuda --per-file: a note says the CPU threads scan" -- \
        grep -q -- "--genome --per-file sketches on the CPU threads" "$WORK/fc.err"
    keys "$WORK/fc.tsk" "$WORK/fc.keys"
    expect_same "$WORK/r1.keys" "$WORK/fc.keys" "--device cuda --per-file = the CPU's keys"
elif [ "$rc" -eq 5 ]; then
    expect_true "--device cuda --per-file without a usable GPU: exit 5 naming why, no output" -- \
        sh -c 'grep -q -- "--device cuda: no usable GPU" "$1" && test ! -e "$2"' sh "$WORK/fc.err" "$WORK/fc.tsk"
else
    not_ok "--device cuda --per-file: exit $rc (0, or 5 without a GPU)" "$(head -c 400 "$WORK/fc.err")"
fi
"$T" sketch -q "${P[@]}" -p 4 - <"$WORK/all.fa" -o "$WORK/stdin.tsk"
keys "$WORK/stdin.tsk" "$WORK/stdin.keys"
expect_same "$WORK/r1.keys" "$WORK/stdin.keys" "stdin = the file"
gzip -c "$WORK/all.fa" >"$WORK/all.fa.gz"
"$T" sketch -q "${P[@]}" -p 4 - <"$WORK/all.fa.gz" -o "$WORK/stdingz.tsk"
keys "$WORK/stdingz.tsk" "$WORK/stdingz.keys"
expect_same "$WORK/r1.keys" "$WORK/stdingz.keys" "gzipped stdin = the file"
"$PY" "$REF" "${RP[@]}" keys "$WORK/all.fa" >"$WORK/ref.keys"
expect_same "$WORK/ref.keys" "$WORK/r1.keys" "40 genomes (1-400 kbp, both sides of the floor) = the reference"

# ---- batching: tiny batches stream genomes through in parts, tiny pieces make many tasks ----
for env in "TSKETCH_BATCH_BASES=1000" "TSKETCH_GENOME_PIECE=500" "TSKETCH_BATCH_BASES=20000 TSKETCH_GENOME_PIECE=1000"; do
    env $env "$T" sketch -q "${P[@]}" -p 3 "$WORK/all.fa" -o "$WORK/b.tsk"
    keys "$WORK/b.tsk" "$WORK/b.keys"
    expect_same "$WORK/r1.keys" "$WORK/b.keys" "records with $env = one batch"
    env $env "$T" sketch -q "${P[@]}" --per-file -p 3 -l "$WORK/list.tsv" -o "$WORK/bf.tsk"
    keys "$WORK/bf.tsk" "$WORK/bf.keys"
    expect_same "$WORK/r1.keys" "$WORK/bf.keys" "--per-file with $env = one batch"
done

# ---- a genome in contigs: windows within contigs, its threshold from the whole length ----
"$PY" "$REF" "${RP[@]}" --per-file keys "$WORK/contigs.fa" >"$WORK/cref.keys"
for env in "" "TSKETCH_BATCH_BASES=5000" "TSKETCH_GENOME_PIECE=700"; do
    env $env "$T" sketch -q "${P[@]}" --per-file -p 4 "$WORK/contigs.fa" -o "$WORK/c.tsk"
    keys "$WORK/c.tsk" "$WORK/c.keys"
    expect_same "$WORK/cref.keys" "$WORK/c.keys" "a genome of five contigs ${env:-(one batch)} = the reference"
done

# ---- 10,000 genomes through stdin under a memory cap far below the input (500 Mbp) ----
# (a sanitizer build reserves terabytes of address space for its shadow: no cap there, and fewer genomes)
N_STREAM=10000
CAP=1
if ldd "$T" 2>/dev/null | grep -q 'libasan\|libtsan'; then N_STREAM=1000 CAP=0; fi
stream() { # N_STREAM genomes of 50 kbp, slices of a random 2 Mbp
    "$PY" -c '
import random, sys
r = random.Random(3)
pool = "".join(r.choice("ACGT") for _ in range(2000000))
out = sys.stdout
for i in range(int(sys.argv[1])):
    a = r.randrange(0, 2000000 - 50000)
    out.write(">s%05d\n%s\n" % (i, pool[a:a + 50000]))
' "$N_STREAM"
}
stream | "$T" sketch -q --genome --min-keys 0 -p 2 - -o "$WORK/stream_free.tsk"
if [ "$CAP" = 1 ]; then
    (ulimit -v 600000 && stream | TSKETCH_BATCH_BASES=4000000 "$T" sketch -q --genome --min-keys 0 -p 2 - \
        -o "$WORK/stream.tsk")
    desc="10,000 genomes (500 Mbp) through stdin under ulimit -v 600 MB"
else
    stream | TSKETCH_BATCH_BASES=4000000 "$T" sketch -q --genome --min-keys 0 -p 2 - -o "$WORK/stream.tsk"
    desc="$N_STREAM genomes through stdin in batches of 4 Mbp (sanitizer build: no memory cap)"
fi
expect_true "$desc" -- \
    test "$("$T" info "$WORK/stream.tsk" | awk -F'\t' '$1 == "records" { print $2 }')" = "$N_STREAM"
expect_true "the streamed sketches in small batches = one run's" -- \
    cmp -s <("$T" export "$WORK/stream.tsk") <("$T" export "$WORK/stream_free.tsk")

# ---- errors: the file named, no output, the documented code ----
printf '>x\nACGT\n+\nIIII\n' >"$WORK/bad.fa"
expect_exit 3 "bad.fa" "--per-file: a bad file among good ones exits 3 naming it" -- \
    "$T" sketch -q "${P[@]}" --per-file -p 4 "${FILES[@]:0:5}" "$WORK/bad.fa" "${FILES[@]:5}" -o "$WORK/bad.tsk"
expect_true "... and leaves no output" -- test ! -e "$WORK/bad.tsk"
expect_exit 3 "missing.fa" "--per-file: a missing file exits 3 naming it" -- \
    "$T" sketch -q "${P[@]}" --per-file -p 4 "${FILES[@]}" "$WORK/missing.fa" -o "$WORK/bad.tsk"
cat "$WORK/all.fa" "$WORK/bad.fa" >"$WORK/allbad.fa"
expect_exit 3 "allbad.fa" "records: a bad record after good ones exits 3 naming the file" -- \
    "$T" sketch -q "${P[@]}" -p 4 "$WORK/allbad.fa" -o "$WORK/bad.tsk"
expect_true "... and leaves no output" -- test ! -e "$WORK/bad.tsk"

# two files that would get one name (README: refused, exit 3, both named), in genome mode too
mkdir -p "$WORK/s1" "$WORK/s2"
cp "${FILES[0]}" "$WORK/s1/contigs.fa"
cp "${FILES[3]}" "$WORK/s2/contigs.fa"
expect_exit 3 "s1/contigs.fa.*s2/contigs.fa.*'contigs'" "--per-file: two files named 'contigs' are refused, both named" -- \
    "$T" sketch -q "${P[@]}" --per-file "$WORK/s1/contigs.fa" "$WORK/s2/contigs.fa" -o "$WORK/dup.tsk"
expect_true "... and leave no output" -- test ! -e "$WORK/dup.tsk"

finish
