#!/usr/bin/env bash
# CLI: genome sketches (`sketch --genome`, `dist`/`triangle` on them). Keys and distances equal the
# independent integer reference testdata/genome/genome_keys_ref.py (golden files of make.sh, and the
# reference run here for the windows around breaks); strands, rotations and contig splits change
# only the windows the reference places across a break; every output form, --top-k, -d, --block,
# threads, FASTA inputs and paste agree with the all-pairs TSV; mismatched inputs are refused.
# The size floor (section 7): small genomes at the defaults, a genome beyond 5/4 min_keys scaled,
# --per-file lengths, pair bounds, options and format version 2, against the reference too.
#   TSKETCH=... TESTDATA=... bash test_genome_sets.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
D=$TESTDATA/genome
PY=$(command -v python3)
REF=$D/genome_keys_ref.py
export LC_ALL=C
G=("$D"/g00.fa "$D"/g01.fa "$D"/g02.fa "$D"/g03.fa)
# the golden files' parameters (make.sh), as tsketch and the reference spell them
# (the size floor active: --min-keys above the ~6 kb genomes' L / scaled)
P=(--genome -k 4 -s 16 --window 20 --anchor-k 12 --scaled 40 --min-keys 200)
P2=(--genome -k 3 -s 12 -S 7 --window 24 --anchor-k 8 --scaled 30 --min-keys 150)
W=20

# keys_of TSK: every key of every genome of TSK, one per line, sorted as text (for comm)
keys_of() { "$T" export "$1" | cut -f2- | tr '\t' '\n' | sed '/^$/d' | sort -u; }

# ---- 1. CLI = the reference's golden files ----
"$T" sketch -q --per-file "${P[@]}" "${G[@]}" -o "$WORK/sets.tsk"
"$T" export "$WORK/sets.tsk" >"$WORK/sets.keys"
expect_same "$D/sets.keys.tsv" "$WORK/sets.keys" "per-file genome keys = reference (export)"
"$T" dist --key-distance "$WORK/sets.tsk" >"$WORK/sets.dist"
golden_match "$D/sets.dist.tsv" "$WORK/sets.dist" "per-file genome distances, shared, total = reference"
"$T" dist --key-distance --containment "$WORK/sets.tsk" >"$WORK/sets.cont"
golden_match "$D/sets.containment.tsv" "$WORK/sets.cont" "--containment distances, shared, |query| = reference"
"$T" sketch -q "${P2[@]}" -p 2 "${G[0]}" "${G[1]}" -o "$WORK/rec.tsk"
"$T" export "$WORK/rec.tsk" >"$WORK/rec.keys"
expect_same "$D/records.keys.tsv" "$WORK/rec.keys" "per-record genome keys (seed 7, -p 2) = reference"
"$T" sketch -q "${P2[@]}" "${G[0]}" "${G[1]}" -o "$WORK/rec32.tsk"
"$T" export "$WORK/rec32.tsk" >"$WORK/rec32.keys"
expect_same "$D/records.keys.tsv" "$WORK/rec32.keys" "per-record genome keys (float32 rows) = reference"
"$T" dist --key-distance "$WORK/rec.tsk" >"$WORK/rec.dist"
golden_match "$D/records.dist.tsv" "$WORK/rec.dist" "per-record genome distances = reference"
# the floor stride: 3 raises the contigs' strides 1-2 and keeps 3-5 (the default 8 raised them all)
"$T" sketch -q "${P2[@]}" --floor-stride 3 "${G[0]}" "${G[1]}" -o "$WORK/rec3.tsk"
expect_same "$D/records.f3.keys.tsv" <("$T" export "$WORK/rec3.tsk") "per-record genome keys, --floor-stride 3 = reference"
golden_match "$D/records.f3.dist.tsv" <("$T" dist --key-distance "$WORK/rec3.tsk") "per-record distances, --floor-stride 3 = reference"
expect_exit 4 "floor stride: 3 in .*rec3\.tsk, 8 in .*rec\.tsk" "genome files of another --floor-stride" -- "$T" dist "$WORK/rec3.tsk" "$WORK/rec.tsk"
# a file written before the floor stride (its header field 0) reads as floor stride 1: every
# candidate window of a small genome, the reference's thresholds at F = 1
"$T" sketch -q "${P2[@]}" --floor-stride 1 "${G[0]}" "${G[1]}" -o "$WORK/rec1.tsk"
printf '\0\0\0\0\0\0\0\0' | dd of="$WORK/rec1.tsk" bs=1 seek=248 conv=notrunc status=none
"$PY" "$(dirname "$0")/tsk_patch.py" "$WORK/rec1.tsk" "$WORK/rec1.tsk" crc
expect_same <("$PY" "$REF" -k 3 -s 12 --seed 7 --window 24 --anchor-k 8 --scaled 30 --min-keys 150 --floor-stride 1 dist "${G[0]}" "${G[1]}") \
    <("$T" dist --key-distance "$WORK/rec1.tsk") "a file without the floor stride field: floor stride 1 (reference)"
[ "$("$T" info "$WORK/rec1.tsk" | grep '^floor stride')" = "floor stride	1 (the floor keeps at most one window in 1)" ] &&
    ok "info: a file without the floor stride field says 1" || not_ok "info: a file without the floor stride field says 1"

# genomes with no key (shorter than a window, empty, all N) beside real ones: the reference, run here
RP=(-k 4 -s 16 --window 20 --anchor-k 12 --scaled 40 --min-keys 200)
{ cat "${G[1]}"; printf '>tiny\nACGTACGTAC\n>empty\n\n>nn\nNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN\n'; } >"$WORK/mix.fa"
"$T" sketch -q "${P[@]}" "$WORK/mix.fa" -o "$WORK/mix.tsk"
expect_same <("$PY" "$REF" "${RP[@]}" keys "$WORK/mix.fa") <("$T" export "$WORK/mix.tsk") "keys of genomes with no window kept = reference (names alone)"
expect_same <("$PY" "$REF" "${RP[@]}" dist "$WORK/mix.fa") <("$T" dist --key-distance "$WORK/mix.tsk") "empty genome sketches: distance 1, shared 0 = reference"
expect_same <("$PY" "$REF" "${RP[@]}" containment "$WORK/mix.fa") <("$T" dist --key-distance --containment "$WORK/mix.tsk") \
    "empty genome sketches, --containment = reference"
[ "$("$T" dist --key-distance --top-k 3 "$WORK/mix.tsk" | wc -l)" -eq 0 ] && ok "--top-k: genomes sharing nothing have no neighbours" ||
    not_ok "--top-k: genomes sharing nothing have no neighbours"

# ---- 2. strands, rotations and contig splits ----
# one genome as one record, its reverse complement, a rotation, and the same split into 3 contigs
awk '!/^>/ { s = s $0 } END { print s }' "${G[3]}" >"$WORK/g.seq"
N=$(tr -d '\n' <"$WORK/g.seq" | wc -c)
J=2490 A=1520 B=3950 # breaks that windows cross (2, 2 and 4 of them)
{ echo ">g"; cat "$WORK/g.seq"; } >"$WORK/g.fa"
{ echo ">rc"; rev "$WORK/g.seq" | tr ACGT TGCA; } >"$WORK/rc.fa"
{ echo ">rot"; cut -c$((J + 1))- "$WORK/g.seq" | tr -d '\n'; cut -c1-$J "$WORK/g.seq"; } >"$WORK/rot.fa"
{ echo ">c1"; cut -c1-$A "$WORK/g.seq"; echo ">c2"; cut -c$((A + 1))-$B "$WORK/g.seq"
  echo ">c3"; cut -c$((B + 1))- "$WORK/g.seq"; } >"$WORK/split.fa"
for f in g rc rot split; do "$T" sketch -q --per-file "${P[@]}" "$WORK/$f.fa" -o "$WORK/$f.tsk"; done
expect_same <(keys_of "$WORK/g.tsk") <(keys_of "$WORK/rc.tsk") "a genome and its reverse complement: the same keys"
"$T" dist --key-distance "$WORK/g.tsk" "$WORK/rc.tsk" | cut -f3-5 >"$WORK/rc.d"
[ "$(cat "$WORK/rc.d")" = "0	$(keys_of "$WORK/g.tsk" | wc -l)	$(keys_of "$WORK/g.tsk" | wc -l)" ] &&
    ok "reverse complement at distance 0, every key shared" || not_ok "reverse complement at distance 0" "$(cat "$WORK/rc.d")"
"$T" sketch -q --genome "$WORK/g.fa" -o "$WORK/gd.tsk"
"$T" sketch -q --genome "$WORK/rc.fa" -o "$WORK/rcd.tsk"
expect_same <(keys_of "$WORK/gd.tsk") <(keys_of "$WORK/rcd.tsk") "defaults: a genome and its reverse complement, the same keys"

# Every window kept (no floor: tau = T, anchors at stride scaled): the reference's windows of the genome, those crossing a
# break (start < b < start + W), and of the rotation those crossing its junction (at N - J).
K=(--genome -k 4 -s 16 --window $W --anchor-k 12 --scaled 20 --min-keys 0)
RK=(-k 4 -s 16 --window $W --anchor-k 12 --scaled 20 --min-keys 0)
"$PY" "$REF" "${RK[@]}" windows "$WORK/g.fa" >"$WORK/g.win"
"$PY" "$REF" "${RK[@]}" windows "$WORK/rot.fa" >"$WORK/rot.win"
spanning() { # WINDOWS BREAK...: keys of the windows crossing any break, sorted
    awk -F'\t' -v w=$W -v breaks="${*:2}" 'BEGIN { n = split(breaks, b, " ") }
        { for (i = 1; i <= n; i++) if ($3 < b[i] && b[i] < $3 + w) { print $4; next } }' "$1" | sort -u
}
inside() { # WINDOWS BREAK...: keys of the windows crossing none
    awk -F'\t' -v w=$W -v breaks="${*:2}" 'BEGIN { n = split(breaks, b, " ") }
        { for (i = 1; i <= n; i++) if ($3 < b[i] && b[i] < $3 + w) next; print $4 }' "$1" | sort -u
}
for f in g rot split; do "$T" sketch -q --per-file "${K[@]}" "$WORK/$f.fa" -o "$WORK/k$f.tsk"; keys_of "$WORK/k$f.tsk" >"$WORK/k$f.keys"; done
cut -f4 "$WORK/g.win" | sort -u | expect_same - "$WORK/kg.keys" "every window kept: the genome's keys = the reference's windows"
# rotation: what the genome loses crosses J; what the rotation gains crosses its junction N - J
spanning "$WORK/g.win" $J >"$WORK/span.g"
spanning "$WORK/rot.win" $((N - J)) >"$WORK/span.rot"
comm -23 "$WORK/kg.keys" "$WORK/krot.keys" >"$WORK/lost"
comm -13 "$WORK/kg.keys" "$WORK/krot.keys" >"$WORK/gained"
[ -s "$WORK/span.g" ] && [ -z "$(comm -23 "$WORK/lost" "$WORK/span.g")" ] && [ -z "$(comm -23 "$WORK/gained" "$WORK/span.rot")" ] &&
    [ -z "$(comm -23 <(inside "$WORK/g.win" $J) "$WORK/krot.keys")" ] &&
    ok "rotation: loses only keys of windows across the start ($(wc -l <"$WORK/lost") of $(wc -l <"$WORK/span.g")), gains only keys across the junction ($(wc -l <"$WORK/gained"))" ||
    not_ok "rotation: only windows across the break change" "lost $(wc -l <"$WORK/lost"), crossing $(wc -l <"$WORK/span.g"), gained $(wc -l <"$WORK/gained")"
# contigs: nothing gained, and what is lost crosses A or B
spanning "$WORK/g.win" $A $B >"$WORK/span.ab"
comm -23 "$WORK/kg.keys" "$WORK/ksplit.keys" >"$WORK/lost.ab"
[ -s "$WORK/span.ab" ] && [ -z "$(comm -13 "$WORK/kg.keys" "$WORK/ksplit.keys")" ] &&
    [ -z "$(comm -23 "$WORK/lost.ab" "$WORK/span.ab")" ] && [ -z "$(comm -23 <(inside "$WORK/g.win" $A $B) "$WORK/ksplit.keys")" ] &&
    ok "3 contigs (--per-file): lose only keys of windows across the 2 breaks ($(wc -l <"$WORK/lost.ab") of $(wc -l <"$WORK/span.ab"))" ||
    not_ok "3 contigs: only windows across the breaks are lost" "lost $(wc -l <"$WORK/lost.ab"), crossing $(wc -l <"$WORK/span.ab")"

# ---- 3. every output form against the all-pairs TSV ----
# 9 genomes (the contigs of g00..g03 as records): some pairs share nothing
"$T" sketch -q "${P[@]}" "${G[@]}" -o "$WORK/r9.tsk"
"$T" export "$WORK/r9.tsk" >"$WORK/r9.keys"
"$T" info --records "$WORK/r9.tsk" | awk -F'\t' -v OFS='\t' '/^#name/ { on = 1; next } on { print $1, $3 }' >"$WORK/r9.len"
"$T" dist --key-distance "$WORK/r9.tsk" >"$WORK/all.tsv"
"$T" dist --key-distance --containment "$WORK/r9.tsk" >"$WORK/allc.tsv"
[ "$(wc -l <"$WORK/all.tsv")" -eq 36 ] && [ "$(wc -l <"$WORK/allc.tsv")" -eq 72 ] && grep -q "	1	0	" "$WORK/all.tsv" &&
    ok "all pairs: 36 lines, 72 with --containment, some at distance 1" || not_ok "all pairs: line counts"
"$T" dist --key-distance --header "$WORK/r9.tsk" >"$WORK/hdr.tsv"
[ "$(head -1 "$WORK/hdr.tsv")" = "reference	query	distance	shared	total" ] && expect_same <(tail -n +2 "$WORK/hdr.tsv") "$WORK/all.tsv" "--header: the header line, then the same lines" ||
    not_ok "--header line" "$(head -1 "$WORK/hdr.tsv")"

# expected_topk ALLPAIRS K MAX MODE: the k references of largest share per query (ties to the
# smaller index; none sharing nothing), within MAX, from the all-pairs lines and the pair sizes
# (each set's keys below the pair's smaller threshold: the reference's threshold and pair)
expected_topk() {
    "$PY" - "$D" "$WORK/r9.keys" "$WORK/r9.len" "$@" <<'EOF'
import sys, types
sys.dont_write_bytecode = True  # no __pycache__ in testdata
sys.path.insert(0, sys.argv[1])
from genome_keys_ref import pair, threshold
keys_path, len_path, pairs_path, k, max_d, mode = sys.argv[2:4] + [sys.argv[4], int(sys.argv[5]), float(sys.argv[6]), sys.argv[7]]
a = types.SimpleNamespace(scaled=40, min_keys=200, floor_stride=8)  # P's (and tsketch's default floor stride)
names, keys, tau = [], {}, {}
for line, ln in zip(open(keys_path), open(len_path)):
    f = line.rstrip("\n").split("\t")
    n, length = ln.rstrip("\n").split("\t")
    assert n == f[0], (n, f[0])
    names.append(n)
    keys[n] = [int(x) for x in f[1:] if x]
    tau[n] = threshold(keys[n], int(length), a)
def sizes(q, r):
    return pair(keys[q], tau[q], keys[r], tau[r])[1:]
index = {n: i for i, n in enumerate(names)}
cand = {n: [] for n in names}
for line in open(pairs_path):
    a, b, d, s, tot = line.rstrip("\n").split("\t")
    if int(s) == 0:
        continue
    if mode == "containment":  # a: reference, b: query; f = s / |query|
        cand[b].append((int(s) / sizes(b, a)[0], index[a], line.rstrip("\n")))
    else:  # one line per unordered pair; f = (s/|q| + s/|r|) / 2
        for q, r in ((a, b), (b, a)):
            nq, nr = sizes(q, r)
            f = (int(s) / nq + int(s) / nr) * 0.5
            cand[q].append((f, index[r], "\t".join([r, q, d, s, tot])))
for q in names:
    for f, r, line in sorted(cand[q], key=lambda c: (-c[0], c[1]))[:k]:
        if float(line.split("\t")[2]) <= max_d:
            print(line)
EOF
}
for k in 1 2 3 20 1048576; do  # the largest k: blocks of fewer queries, the same lines
    "$T" dist --key-distance --top-k $k "$WORK/r9.tsk" >"$WORK/top.tsv"
    expected_topk "$WORK/all.tsv" $k inf symmetric | expect_same - "$WORK/top.tsv" "--top-k $k = the all-pairs TSV ranked"
    "$T" dist --key-distance --top-k $k --containment "$WORK/r9.tsk" >"$WORK/topc.tsv"
    expected_topk "$WORK/allc.tsv" $k inf containment | expect_same - "$WORK/topc.tsv" "--top-k $k --containment = the all-pairs TSV ranked"
done
"$T" dist --key-distance --top-k 2 -d 0.07 "$WORK/r9.tsk" >"$WORK/topd.tsv"
expected_topk "$WORK/all.tsv" 2 0.07 symmetric | expect_same - "$WORK/topd.tsv" "--top-k 2 -d 0.07 = the all-pairs TSV ranked and cut"
X=$(awk -F'\t' '$3 > 0 && $3 < 1 { print $3 }' "$WORK/all.tsv" | sort -g | head -1) # a distance printed: the bound is inclusive
for x in 0 "$X" 0.05 0.08 0.999 1; do
    "$T" dist --key-distance -d $x "$WORK/r9.tsk" >"$WORK/d.tsv"
    awk -F'\t' -v x=$x '$3 <= x' "$WORK/all.tsv" | expect_same - "$WORK/d.tsv" "-d $x = the all-pairs lines within $x"
    "$T" dist --key-distance -d $x --containment "$WORK/r9.tsk" >"$WORK/dc.tsv"
    awk -F'\t' -v x=$x '$3 <= x' "$WORK/allc.tsv" | expect_same - "$WORK/dc.tsv" "-d $x --containment = the all-pairs lines within $x"
done

"$T" dist --key-distance --with-self "$WORK/r9.tsk" >"$WORK/self.tsv"
"$T" dist --key-distance --with-self --containment "$WORK/r9.tsk" >"$WORK/selfc.tsv"
[ "$(awk -F'\t' '$1 == $2 && $3 == 0' "$WORK/self.tsv" | wc -l)" -eq 9 ] && expect_same <(awk -F'\t' '$1 != $2' "$WORK/self.tsv") "$WORK/all.tsv" \
    "--with-self: the 9 self pairs at 0, then the same pairs" || not_ok "--with-self: 9 self pairs at distance 0"
for x in 0 0.05; do
    expect_same <(awk -F'\t' -v x=$x '$3 <= x' "$WORK/self.tsv") <("$T" dist --key-distance --with-self -d $x "$WORK/r9.tsk") "--with-self -d $x = the lines within $x"
    expect_same <(awk -F'\t' -v x=$x '$3 <= x' "$WORK/selfc.tsv") <("$T" dist --key-distance --with-self --containment -d $x "$WORK/r9.tsk") \
        "--with-self --containment -d $x = the lines within $x"
done

# matrices: phylip (lower triangle), square (rows: queries, columns: references), npy (float32)
"$T" dist --key-distance -f phylip "$WORK/r9.tsk" >"$WORK/m.phy"
"$T" triangle --key-distance "$WORK/r9.tsk" >"$WORK/t.phy"
expect_same "$WORK/m.phy" "$WORK/t.phy" "triangle = dist -f phylip"
awk -F'\t' 'NR == 1 { next } { for (j = 2; j <= NF; j++) print name[j - 1] "\t" $1 "\t" $j; name[NR - 1] = $1 }' "$WORK/m.phy" | sort >"$WORK/phy.pairs"
cut -f1-3 "$WORK/all.tsv" | sort >"$WORK/all.pairs"
expect_same "$WORK/all.pairs" "$WORK/phy.pairs" "-f phylip: every distance of the TSV"
square_pairs() { # SQUARE: "column TAB row TAB value" off the diagonal, and the diagonal must be 0
    awk -F'\t' 'NR == 1 { for (j = 2; j <= NF; j++) c[j] = $j; next }
        { for (j = 2; j <= NF; j++) if (c[j] != $1) print c[j] "\t" $1 "\t" $j; else if ($j != 0) print "diagonal " $1 " " $j }' "$1" | sort
}
"$T" dist --key-distance -f square "$WORK/r9.tsk" >"$WORK/m.sq"
square_pairs "$WORK/m.sq" >"$WORK/sq.pairs"
awk -F'\t' -v OFS='\t' '{ print $1, $2, $3; print $2, $1, $3 }' "$WORK/all.tsv" | sort | expect_same - "$WORK/sq.pairs" "-f square: symmetric, 0 on the diagonal, the TSV's distances"
"$T" dist --key-distance -f square --containment "$WORK/r9.tsk" >"$WORK/mc.sq"
square_pairs "$WORK/mc.sq" >"$WORK/sqc.pairs"
cut -f1-3 "$WORK/allc.tsv" | sort | expect_same - "$WORK/sqc.pairs" "-f square --containment: row = query, column = reference, the TSV's values"
"$T" dist --key-distance -f npy -o "$WORK/m.npy" "$WORK/r9.tsk"
expect_true "-f npy: float32 matrix = -f square" -- "$PY" - "$WORK/m.npy" "$WORK/m.sq" <<'EOF'
import ast, struct, sys
raw = open(sys.argv[1], "rb").read()
assert raw[:6] == b"\x93NUMPY", "not npy"
hlen = struct.unpack("<H", raw[8:10])[0] if raw[6] == 1 else struct.unpack("<I", raw[8:12])[0]
start = 10 if raw[6] == 1 else 12
head = ast.literal_eval(raw[start:start + hlen].decode())
assert head["descr"] == "<f4" and not head["fortran_order"], head
rows = [l.rstrip("\n").split("\t")[1:] for l in open(sys.argv[2])][1:]
assert tuple(head["shape"]) == (len(rows), len(rows)), head
vals = struct.unpack("<%df" % (len(rows) ** 2), raw[start + hlen:])
for i, row in enumerate(rows):
    for j, v in enumerate(row):
        want = struct.unpack("<f", struct.pack("<f", float(v)))[0]
        assert vals[i * len(rows) + j] == want, (i, j, vals[i * len(rows) + j], v)
EOF

# ---- 4. --block parts, threads, FASTA inputs, paste ----
"$T" sketch -q --per-file "${P[@]}" "${G[0]}" "${G[1]}" -o "$WORK/refs.tsk"
"$T" sketch -q --per-file "${P[@]}" "${G[2]}" "${G[3]}" -o "$WORK/qs.tsk"
for n in 1 2 3 4; do
    check_parts "all pairs + header" $n --header "$WORK/r9.tsk"
    check_parts "top-k 2" $n --top-k 2 "$WORK/r9.tsk"
    check_parts "-d 0.08" $n -d 0.08 "$WORK/r9.tsk"
    check_parts "--containment, --top-k 3" $n --containment --top-k 3 "$WORK/r9.tsk"
    check_parts "--containment" $n --containment "$WORK/r9.tsk"
    check_parts "--with-self" $n --with-self "$WORK/r9.tsk"
    check_parts "references x queries" $n "$WORK/refs.tsk" "$WORK/qs.tsk"
    check_parts "references x queries, top-k 1" $n --top-k 1 "$WORK/refs.tsk" "$WORK/qs.tsk"
done
"$T" sketch -q -p 3 "${P[@]}" "${G[@]}" -o "$WORK/r9p3.tsk"
expect_same <("$T" export "$WORK/r9.tsk") <("$T" export "$WORK/r9p3.tsk") "sketch -p 3 = -p 1 (keys)"
for args in "" "--top-k 3" "-d 0.08" "--containment" "-f square"; do
    # shellcheck disable=SC2086
    expect_same <("$T" dist --key-distance -p 1 $args "$WORK/r9.tsk") <("$T" dist --key-distance -p 3 $args "$WORK/r9.tsk") "dist -p 3 = -p 1 ($args)"
done
# (dist REF QUERY...: the first input holds the references, the others the queries)
"$T" sketch -q --per-file "${P[@]}" "${G[0]}" -o "$WORK/g0.tsk"
"$T" sketch -q --per-file "${P[@]}" "${G[1]}" "${G[2]}" "${G[3]}" -o "$WORK/g123.tsk"
"$T" dist --key-distance --per-file "${P[@]}" "${G[@]}" >"$WORK/fa.tsv"
expect_same <("$T" dist --key-distance "$WORK/g0.tsk" "$WORK/g123.tsk") "$WORK/fa.tsv" "FASTA given to dist --genome --per-file = sketch then dist"
"$T" sketch -q "${P[@]}" "${G[0]}" -o "$WORK/g0r.tsk"
"$T" sketch -q "${P[@]}" "${G[1]}" "${G[2]}" "${G[3]}" -o "$WORK/g123r.tsk"
"$T" dist --key-distance "${P[@]}" --top-k 2 "${G[@]}" >"$WORK/fa_top.tsv"
expect_same <("$T" dist --key-distance --top-k 2 "$WORK/g0r.tsk" "$WORK/g123r.tsk") "$WORK/fa_top.tsv" "FASTA records given to dist --genome --top-k = sketch then dist"
"$T" dist --key-distance "${P[@]}" --containment -d 0.09 "${G[@]}" >"$WORK/fa_cd.tsv"
expect_same <("$T" dist --key-distance --containment -d 0.09 "$WORK/g0r.tsk" "$WORK/g123r.tsk") "$WORK/fa_cd.tsv" "FASTA records given to dist --genome --containment -d = sketch then dist"
cat "${G[@]}" >"$WORK/all.fa"
expect_same <("$T" dist --key-distance "$WORK/r9.tsk") <("$T" dist --key-distance "${P[@]}" "$WORK/all.fa") "one FASTA given to dist --genome: all pairs of its records = sketch then dist"
"$T" dist --key-distance "${P[@]}" "$WORK/refs.tsk" "${G[2]}" "${G[3]}" --per-file >"$WORK/mixed.tsv"
expect_same <("$T" dist --key-distance "$WORK/refs.tsk" "$WORK/qs.tsk") "$WORK/mixed.tsv" "genome .tsk references x FASTA queries = both sketched"
"$T" triangle --per-file "${P[@]}" "${G[@]}" >"$WORK/fa.phy"
expect_same <("$T" triangle "$WORK/sets.tsk") "$WORK/fa.phy" "triangle --genome on FASTA = triangle of the sketch"
printf 'A\t%s\nB\t%s\nC\t%s\nD\t%s\n' "${G[0]}" "${G[0]}" "${G[1]}" "${G[0]}" >"$WORK/list.txt"
"$T" sketch -q --per-file "${P[@]}" -l "$WORK/list.txt" -o "$WORK/list.tsk"
"$T" export "$WORK/sets.tsk" | awk -F'\t' -v OFS='\t' '{ k[$1] = $0 } END {
    split("A g00 B g00 C g01 D g00", m, " "); for (i = 1; i < 8; i += 2) { l = k[m[i + 1]]; sub(/^[^\t]*/, m[i], l); print l } }' >"$WORK/list.want"
expect_same "$WORK/list.want" <("$T" export "$WORK/list.tsk") "-l with one file under two names in a row: two genomes, each the file's sketch"
"$T" paste -q "$WORK/pasted.tsk" "$WORK/refs.tsk" "$WORK/qs.tsk"
expect_same <("$T" export "$WORK/sets.tsk") <("$T" export "$WORK/pasted.tsk") "paste of two genome files = one sketch of all (keys)"
expect_same "$WORK/sets.dist" <("$T" dist --key-distance "$WORK/pasted.tsk") "paste of two genome files = one sketch of all (distances)"
expect_same <("$T" dist --ani "$WORK/sets.tsk") <("$T" dist --ani "$WORK/pasted.tsk") "paste of two genome files = one sketch of all (ANI and AF)"
expect_same <("$T" info "$WORK/sets.tsk" | grep '^segment anchors') <("$T" info "$WORK/pasted.tsk" | grep '^segment anchors') \
    "paste of two genome files = one sketch of all (segment and loose anchors)"
"$T" paste -q "$WORK/pasted2.tsk" "$WORK/rec32.tsk" "$WORK/rec.tsk"
expect_same <(cat "$WORK/rec32.keys" "$WORK/rec.keys") <("$T" export "$WORK/pasted2.tsk") "paste of two genome files of the same records (the keys of both, in order)"

# ---- 5. refused inputs ----
bad_run() { # code regex desc command args...
    local code=$1 re=$2 desc=$3
    shift 3
    rm -f "$WORK/o.out" "$WORK"/o.out.tmp*
    expect_exit "$code" "$re" "$desc" -- "$T" "$@" -o "$WORK/o.out"
    if ls "$WORK"/o.out* >/dev/null 2>&1; then not_ok "$desc: no output left behind"; else ok "$desc: no output left behind"; fi
}
"$T" sketch -q --canonical -k 4 -s 16 --window 20 --stride 20 "${G[0]}" -o "$WORK/rows.tsk"
bad_run 4 "kind: genome sketches in .*sets\.tsk, sketch rows in .*rows\.tsk" "genome file with a file of sketch rows" dist "$WORK/sets.tsk" "$WORK/rows.tsk"
bad_run 4 "kind: sketch rows in .*rows\.tsk, genome sketches in .*sets\.tsk" "file of sketch rows with a genome file" dist "$WORK/rows.tsk" "$WORK/sets.tsk"
"$T" sketch -q --per-file "${P[@]}" --scaled 60 "${G[0]}" -o "$WORK/s60.tsk"
bad_run 4 "scaled: 40 in .*sets\.tsk, 60 in .*s60\.tsk" "genome files of another --scaled" dist "$WORK/sets.tsk" "$WORK/s60.tsk"
"$T" sketch -q --per-file "${P[@]}" --window 24 -S 9 "${G[0]}" -o "$WORK/w24.tsk"
bad_run 4 "seed: 24301 in .*sets\.tsk, 9 in .*w24\.tsk.*window: 20 in .*sets\.tsk, 24 in .*w24\.tsk|window: 20 in .*sets\.tsk, 24 in .*w24\.tsk.*seed" \
    "genome files of another window and seed: both listed" dist "$WORK/sets.tsk" "$WORK/w24.tsk"
bad_run 4 "scaled" "genome file with FASTA sketched with another --scaled" dist --genome --scaled 60 "$WORK/sets.tsk" "${G[2]}"
rm -f "$WORK/p.tsk"
expect_exit 4 "scaled: 40 in .*sets\.tsk, 60 in .*s60\.tsk" "paste of genome files of another --scaled" -- "$T" paste "$WORK/p.tsk" "$WORK/sets.tsk" "$WORK/s60.tsk"
[ -e "$WORK/p.tsk" ] && not_ok "paste refused: no output left behind" || ok "paste refused: no output left behind"
expect_exit 4 "kind" "paste of a genome file and sketch rows" -- "$T" paste "$WORK/p.tsk" "$WORK/sets.tsk" "$WORK/rows.tsk"
bad_run 2 "PHYLIP" "--containment -f phylip" dist --containment -f phylip "$WORK/r9.tsk"
bad_run 2 "" "triangle --containment" triangle --containment "$WORK/r9.tsk"
bad_run 2 "--scaled.*--genome" "sketch --scaled without --genome" sketch --scaled 40 "${G[0]}"
bad_run 2 "--scaled.*--genome" "dist --scaled without --genome" dist --scaled 40 "${G[0]}"
bad_run 2 "t-tuples.*float32" "sketch --genome --window 48 -k 5 (2 C(W, t) over 1.6e6)" sketch --genome --window 48 -k 5 "${G[0]}"
bad_run 2 "--genome.*--slide" "sketch --genome --slide" sketch --genome --slide "${G[0]}"
bad_run 2 "--genome.*--slide" "dist --genome --slide" dist --genome --slide "${G[0]}"

# ---- 6. info, and the defaults ----
"$T" info "$WORK/sets.tsk" >"$WORK/info.txt"
grep -q "^kind	genome sketches" "$WORK/info.txt" && grep -q "^scaled	40 " "$WORK/info.txt" && grep -q "^min keys	200" "$WORK/info.txt" &&
    grep -q "^format version	5$" "$WORK/info.txt" && ok "info: kind, scaled, min keys, format version 5" ||
    not_ok "info: kind, scaled, min keys, format version 5" "$(head -12 "$WORK/info.txt")"
for f in "${G[@]}"; do printf '%s\t%s\t%s\n' "$(basename "$f" .fa)" "$f" "$(grep -v '^>' "$f" | tr -d '\n\r' | wc -c)"; done >"$WORK/rec.want"
"$T" info --records "$WORK/sets.tsk" | awk -F'\t' -v OFS='\t' '/^#name/ { on = 1; next } on { print $1, $2, $3 }' >"$WORK/rec.got"
expect_same "$WORK/rec.want" "$WORK/rec.got" "info --records: each per-file genome's name, source (its input) and length"
"$T" info --json "$WORK/sets.tsk" >"$WORK/info.json"
expect_true "info --json: kind genome, scaled 40, min_keys 200, format_version 5, the window parameters" -- "$PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
want = {"kind": "genome", "scaled": 40, "min_keys": 200, "format_version": 5, "t": 4, "dim": 16, "window": 20, "stride": 40,
        "anchor_k": 12, "canonical": True, "records": 4}
bad = {k: (j.get(k), v) for k, v in want.items() if j.get(k) != v}
sys.exit(str(bad) if bad else 0)' "$WORK/info.json"
"$T" sketch -q --genome --per-file "${G[@]}" -o "$WORK/def.tsk"
"$T" info --json "$WORK/def.tsk" >"$WORK/def.json"
EXPLICIT=$("$PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["kind"] == "genome" and j["canonical"] and j["alphabet"] == "dna" and j["anchor_k"] > 0
print("--genome -k %d -s %d -S %d --window %d --stride %d --anchor-k %d --scaled %d --min-keys %d --canonical" % (
    j["t"], j["dim"], j["seed"], j["window"], j["stride"], j["anchor_k"], j["scaled"], j["min_keys"]))' "$WORK/def.json")
# shellcheck disable=SC2086
"$T" sketch -q --per-file $EXPLICIT "${G[@]}" -o "$WORK/expl.tsk"
expect_same <("$T" export "$WORK/def.tsk") <("$T" export "$WORK/expl.tsk") "the --genome defaults = the explicit options info reports ($EXPLICIT)"
expect_same <("$T" info "$WORK/def.tsk" | sed 1,4d) <("$T" info "$WORK/expl.tsk" | sed 1,4d) "info: defaults and explicit options, the same parameters"
expect_same <("$T" dist --key-distance -q --genome "$WORK/all.fa") <("$T" sketch -q $EXPLICIT "$WORK/all.fa" -o "$WORK/expl9.tsk" && "$T" dist --key-distance "$WORK/expl9.tsk") \
    "dist --genome on FASTA uses the same defaults"

# names: genome distances warn about repeated names as sketch-row distances do (README, "Names")
printf '>a\nACGTACGTACGGATCGATCGATCGTTTACGACGATCG\n>a\nACGTACGTACGGATCGATCGATCGTTTACGACGATCG\n' >"$WORK/dupnames.fa"
expect_exit 0 "1 record repeats a name of another \(e\.g\. 'a'\)" "dist --genome warns about a repeated name" -- \
    "$T" dist --key-distance --genome --scaled 1 --stride 1 "$WORK/dupnames.fa"

# ---- 7. the size floor (core/genome_keys.h, "Size floor") against the reference ----
# export_of WINDOWS: the reference's windows turned into `export` lines (each genome's kept keys,
# ascending), in the genomes' order
export_of() {
    "$PY" -c 'import sys
order, keys = [], {}
for line in open(sys.argv[1]):
    name, _, _, key, kept = line.rstrip("\n").split("\t")
    if name not in keys:
        order.append(name)
        keys[name] = set()
    if kept == "1":
        keys[name].add(int(key))
for n in order:
    print("\t".join([n] + [str(k) for k in sorted(keys[n])]))' "$1"
}
# a small genome at the defaults: SARS-CoV-2 (29,903 bases: 4 L / (5 min keys) = 1, raised to the
# floor stride 8: its ~3,700 candidates are fewer than min keys, all kept) and its first 6,000
# bases (~750); --floor-stride 1: every window a candidate, 12,000 of SARS-CoV-2's kept, all of
# the 6 kb piece's
SARS=$TESTDATA/genomes/NC_045512.2.fa
RD=(-k 4 -s 16 --window 20 --anchor-k 16 --scaled 500) # the --genome defaults (section 6 checks them)
{ cat "$SARS"; echo ">sars6k"; grep -v '^>' "$SARS" | tr -d '\n\r' | cut -c1-6000; } >"$WORK/small.fa"
for F in 8 1; do
    "$PY" "$REF" "${RD[@]}" --floor-stride $F windows "$WORK/small.fa" >"$WORK/small$F.win"
    if [ $F = 8 ]; then "$T" sketch -q --genome "$WORK/small.fa" -o "$WORK/small$F.tsk"
    else "$T" sketch -q --genome --floor-stride $F "$WORK/small.fa" -o "$WORK/small$F.tsk"; fi
    expect_same <(export_of "$WORK/small$F.win") <("$T" export "$WORK/small$F.tsk") "small genomes, floor stride $F: keys = reference"
    "$T" export "$WORK/small$F.tsk" | awk -F'\t' '{ print $1 "\t" NF - 1 }' >"$WORK/small$F.n"
    cut -f1,4 "$WORK/small$F.win" | sort -u | cut -f1 | uniq -c | awk -v OFS='\t' '{ print $2, $1 }' >"$WORK/small$F.cand" # distinct candidate keys
done
[ "$(cat "$WORK/small8.n")" = "$(cat "$WORK/small8.cand")" ] &&
    awk -F'\t' 'NR == 1 && ($2 < 3400 || $2 > 4100) { exit 1 } NR == 2 && ($2 < 650 || $2 > 850) { exit 1 }' "$WORK/small8.n" &&
    ok "defaults: small genomes keep every candidate, about one window in 8: $(tr '\n\t' '; ' <"$WORK/small8.n")" ||
    not_ok "defaults: small genomes keep every candidate, about one window in 8" "$(cat "$WORK/small8.n")" "candidates: $(cat "$WORK/small8.cand")"
[ "$(sed -n 1p "$WORK/small1.n")" = "NC_045512.2	12000" ] &&
    [ "$(sed -n 2p "$WORK/small1.n")" = "sars6k	$(awk -F'\t' '$1 == "sars6k" { print $2 }' "$WORK/small1.cand")" ] &&
    [ "$(awk -F'\t' '$1 == "sars6k" { print $2 }' "$WORK/small1.cand")" -gt 5900 ] &&
    ok "--floor-stride 1: small genomes keep min(min keys, their windows): $(tr '\n\t' '; ' <"$WORK/small1.n")" ||
    not_ok "--floor-stride 1: small genomes keep min(min keys, their windows)" "$(cat "$WORK/small1.n")" "candidates: $(cat "$WORK/small1.cand")"
# the sketch of small genomes is about the size of their FASTA (at most 1.25x; every window's
# fingerprint made it 4x)
B8=$(stat -c %s "$WORK/small8.tsk") B1=$(stat -c %s "$WORK/small1.tsk") BF=$(stat -c %s "$WORK/small.fa")
[ $((B8 * 4)) -le $((BF * 5)) ] && [ $((B1 * 2)) -gt $((BF * 5)) ] &&
    ok "small genomes: .tsk $B8 bytes for $BF of FASTA (floor stride 1: $B1)" ||
    not_ok "small genomes: .tsk at most 1.25x the FASTA" "$B8 (floor stride 1: $B1) for $BF"
"$T" sketch -q --genome --min-keys 0 "$WORK/small.fa" -o "$WORK/small0.tsk"
expect_same <("$PY" "$REF" "${RD[@]}" --min-keys 0 keys "$WORK/small.fa") <("$T" export "$WORK/small0.tsk") "--min-keys 0: keys = reference (one in scaled)"
N0=$("$T" export "$WORK/small0.tsk" | awk -F'\t' 'NR == 1 { print NF - 1 }')
[ "$N0" -ge 30 ] && [ "$N0" -le 120 ] && ok "--min-keys 0: SARS-CoV-2 keeps the scaled count ($N0, about 29903 / 500)" ||
    not_ok "--min-keys 0: the scaled count" "$N0"

# a genome longer than 5/4 min_keys scaled (7.5 Mb at the defaults; this one 12 Mb): the floor changes nothing
"$PY" -c 'import random
random.seed(5)
print(">big")
s = "".join(random.choices("ACGT", k=12100000))
print("\n".join(s[i:i + 80000] for i in range(0, len(s), 80000)))' >"$WORK/big.fa"
"$T" sketch -q --genome "$WORK/big.fa" -o "$WORK/big.tsk"
"$T" sketch -q --genome --min-keys 0 "$WORK/big.fa" -o "$WORK/big0.tsk"
NB=$("$T" export "$WORK/big.tsk" | awk -F'\t' '{ print NF - 1 }')
expect_same <("$T" export "$WORK/big0.tsk") <("$T" export "$WORK/big.tsk") "12.1 Mb genome: default keys = --min-keys 0 keys ($NB)"
[ "$NB" -ge 22000 ] && [ "$NB" -le 26500 ] && ok "12.1 Mb genome: about L / scaled keys ($NB)" || not_ok "12.1 Mb genome: about L / scaled keys" "$NB"
rm -f "$WORK/big.fa"

# --per-file: the file's length sets the stride (--min-keys 100 --scaled 40: floor length 8,000).
# split.fa: g03 (5,996 bases) in 3 contigs, s_g = 29 (each contig alone: 7 to 12); multi.fa: 8
# contigs of g00..g02 (18,000 bases) crossing 5,000 (5/4 min_keys scaled), s_g = scaled
PF=(-k 4 -s 16 --window 20 --anchor-k 12 --scaled 40 --min-keys 100)
cat "${G[0]}" "${G[1]}" "${G[2]}" >"$WORK/multi.fa"
for f in split multi; do
    "$T" sketch -q --genome --per-file "${PF[@]}" "$WORK/$f.fa" -o "$WORK/pf$f.tsk"
    expect_same <("$PY" "$REF" "${PF[@]}" --per-file keys "$WORK/$f.fa") <("$T" export "$WORK/pf$f.tsk") "--per-file $f.fa (small params): keys = reference"
done
"$T" sketch -q --genome "${PF[@]}" "$WORK/split.fa" -o "$WORK/pfrec.tsk"
[ "$(keys_of "$WORK/pfrec.tsk")" != "$(keys_of "$WORK/pfsplit.tsk")" ] && ok "--per-file of contigs differs from the contigs sketched alone (their own strides)" ||
    not_ok "--per-file of contigs differs from the contigs sketched alone"
"$T" sketch -q -p 3 --genome --per-file "${PF[@]}" "$WORK/multi.fa" "$WORK/split.fa" -o "$WORK/pf2.tsk"
expect_same <("$PY" "$REF" "${PF[@]}" --per-file keys "$WORK/multi.fa" "$WORK/split.fa") <("$T" export "$WORK/pf2.tsk") "--per-file, two files, -p 3: keys = reference"

# a small and a large genome compared below the smaller threshold (the large one's T): the sizes
# in total are their keys at most that bound
{ echo ">large"; grep -hv '^>' "${G[3]}" "${G[2]}"; echo ">small"; grep -v '^>' "${G[3]}" | tr -d '\n' | cut -c1-3000; } >"$WORK/pair.fa"
"$T" sketch -q --genome "${PF[@]}" "$WORK/pair.fa" -o "$WORK/pair.tsk"
expect_same <("$PY" "$REF" "${PF[@]}" keys "$WORK/pair.fa") <("$T" export "$WORK/pair.tsk") "a small and a large genome: keys = reference"
"$T" dist --key-distance "$WORK/pair.tsk" >"$WORK/pair.d"
"$PY" "$REF" "${PF[@]}" dist "$WORK/pair.fa" >"$WORK/pair.want"
golden_match "$WORK/pair.want" "$WORK/pair.d" "small vs large genome: distance, shared, total = reference (pair bound)"
"$T" dist --key-distance --containment "$WORK/pair.tsk" >"$WORK/pairc.d"
"$PY" "$REF" "${PF[@]}" containment "$WORK/pair.fa" >"$WORK/pairc.want"
golden_match "$WORK/pairc.want" "$WORK/pairc.d" "small vs large genome, --containment: distance, shared, |query'| = reference"
read -r NL NS < <("$T" export "$WORK/pair.tsk" | awk -F'\t' '{ printf "%d ", NF - 1 }')
read -r _ _ _ SH TOT <"$WORK/pair.d"
[ "$SH" -gt 0 ] && [ "$TOT" -lt $((NL + NS - SH)) ] && ok "the pair bound is in play: total $TOT < |large| + |small| - shared = $((NL + NS - SH))" ||
    not_ok "the pair bound is in play" "large $NL small $NS shared $SH total $TOT"
[ "$("$T" dist --key-distance --genome "${PF[@]}" "$WORK/pair.fa")" = "$(cat "$WORK/pair.d")" ] && ok "dist --genome on the FASTA = sketch then dist (pair bound)" ||
    not_ok "dist --genome on the FASTA = sketch then dist (pair bound)"

# options and files
"$T" info "$WORK/def.tsk" | grep -q "^min keys	12000 " && ok "info: min keys 12000 at the defaults" || not_ok "info: min keys 12000 at the defaults" "$("$T" info "$WORK/def.tsk" | grep -i "min")"
bad_run 2 "--stride.*--scaled" "sketch --genome --stride 20 --scaled 40" sketch --genome --stride 20 --scaled 40 "${G[0]}"
bad_run 2 "--stride.*--scaled" "dist --genome --stride 20 --scaled 40" dist --genome --stride 20 --scaled 40 "${G[0]}" "${G[1]}"
bad_run 2 "--stride" "sketch --genome --stride 20 (default --scaled 500)" sketch --genome --stride 20 "${G[0]}"
"$T" sketch -q --per-file "${P[@]}" --stride 40 "${G[@]}" -o "$WORK/st40.tsk" &&
    expect_same <("$T" export "$WORK/sets.tsk") <("$T" export "$WORK/st40.tsk") "--stride equal to --scaled: accepted, the same keys" ||
    not_ok "--stride equal to --scaled: accepted"
bad_run 2 "--min-keys.*--genome" "sketch --min-keys without --genome" sketch --min-keys 10 "${G[0]}"
bad_run 2 "--min-keys" "sketch --genome --min-keys -1" sketch --genome --min-keys -1 "${G[0]}"
"$T" sketch -q --per-file "${P[@]}" --min-keys 100 "${G[0]}" -o "$WORK/mk100.tsk"
bad_run 4 "min keys \(size floor\): 200 in .*sets\.tsk, 100 in .*mk100\.tsk" "dist: genome files of another --min-keys" dist "$WORK/sets.tsk" "$WORK/mk100.tsk"
bad_run 4 "min keys \(size floor\)" "dist: genome file with FASTA sketched with another --min-keys" dist --genome "${P[@]}" --min-keys 0 "$WORK/sets.tsk" "${G[2]}"
rm -f "$WORK/p.tsk"
expect_exit 4 "min keys \(size floor\): 200 in .*sets\.tsk, 100 in .*mk100\.tsk" "paste of genome files of another --min-keys" -- "$T" paste "$WORK/p.tsk" "$WORK/sets.tsk" "$WORK/mk100.tsk"
[ -e "$WORK/p.tsk" ] && not_ok "paste refused (min keys): no output left behind" || ok "paste refused (min keys): no output left behind"
# a format-version-2 genome file (an earlier key layout): the version field (u32 at offset 8)
# patched; its CRC no longer matches, but the version is checked first
cp "$WORK/sets.tsk" "$WORK/v2.tsk"
printf '\002\000\000\000' | dd of="$WORK/v2.tsk" bs=1 seek=8 conv=notrunc status=none
bad_run 3 "v2\.tsk: genome sketches of an older tsketch \(format version 2.*sketch the genomes again" "dist: a format-version-2 genome file" dist "$WORK/v2.tsk"
expect_exit 3 "format version 2.*sketch the genomes again" "info: a format-version-2 genome file" -- "$T" info "$WORK/v2.tsk"
grep -qi "crc\|checksum" "$WORK/err" && not_ok "version 2: the version message, not the checksum" "$(cat "$WORK/err")" || ok "version 2: the version message, not the checksum"

finish
