#!/usr/bin/env bash
# CLI: the genome distance is 1 - ANI (#38), ANI and AF from the segment anchors (core/genome_ani.h),
# on planted genomes (tests/cli/ani_gen.py, a fixed seed, stdlib only):
#   1. the table of planted pairs: ANI and AF within the planted bounds (dist --ani)
#   2. what the columns mean: 1 - ANI is the distance; unrelated genomes 1, ANI 0, AF 0
#   3. cluster: -d values that look like ANI refused with the hint; --min-ani 95 = -d 0.05; strains at
#      97 % and 93 % split at 95 %; the --ani columns of member vs representative
#   4. candidates: -d and --top-k give the lines of all pairs that they select, as all pairs rank them
#   5. GPU = CPU bytes (dist all pairs, -d, --top-k, triangle, cluster) where a GPU is usable
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
G=$WORK/g
mkdir -p "$G"
python3 "$(dirname "$0")/ani_gen.py" "$G" || { not_ok "ani_gen.py writes the planted genomes"; finish; }
NAMES="A A2 M E P25 P50 C20 C5 E5H U X0 X1 Y0 Y1"
FILES=()
for n in $NAMES; do FILES+=("$G/$n.fa"); done
"$T" sketch -q --genome --per-file -p 2 "${FILES[@]}" -o "$WORK/all.tsk" ||
    { not_ok "sketch --genome --per-file of the planted genomes"; finish; }
"$T" dist -q --ani --header -p 2 "$WORK/all.tsk" >"$WORK/all.tsv"
note "$(head -1 "$WORK/all.tsv")"

# pair_line A B: the all-pairs line of genomes A and B, whichever comes first
pair_line() { awk -F'\t' -v a="$1" -v b="$2" '($1 == a && $2 == b) || ($1 == b && $2 == a)' "$WORK/all.tsv"; }

# ---- 1. the planted pairs ----
# genome  other  ani_min ani_max  af_min af_max   what
while read -r a b lo hi aflo afhi what; do
    case $a in '#'* | '') continue ;; esac
    line=$(pair_line "$a" "$b")
    if [ -z "$line" ]; then
        not_ok "$what ($a, $b): a line" "$(head -3 "$WORK/all.tsv")"
        continue
    fi
    if echo "$line" | awk -F'\t' -v lo="$lo" -v hi="$hi" -v aflo="$aflo" -v afhi="$afhi" \
        'NF == 7 && $6 != "NA" && $6 + 0 >= lo && $6 + 0 <= hi && $7 + 0 >= aflo && $7 + 0 <= afhi {ok = 1} END {exit !ok}'; then
        ok "$what ($a, $b): ANI $lo..$hi, AF $aflo..$afhi"
    else
        not_ok "$what ($a, $b): ANI $lo..$hi, AF $aflo..$afhi" "$line"
    fi
done <<'TABLE'
# ANI on fastANI's scale, the mean of 1 + 1.025 ln I over the aligned part (docs/algorithm.md): 3 % is 96.88
# genome other  ani_min ani_max  af_min af_max  what
A  M     98.7   99.3    0.95  1     a 60 kb block at 90 % in 600 kb (uneven divergence; 98.92)
A  E     96.7   97.2    0.95  1     even divergence 3 % (96.88)
A  P25   99.5   100     0.95  1     a 25 % piece against its source (the piece's AF)
A  P50   99.5   100     0.95  1     a 50 % piece against its source
A  C20   99.0   100     0.95  1     20 kb contigs against the complete genome (below 100: its tails, under a tenth of it, are not looked up; docs/distances.md)
A  C5    99.9   100     0.95  1     5 kb contigs (40 % in tails: their loose anchors looked up) against the complete genome
E  C5    96.5   97.2    0.95  1     a strain at 3 % against the other's 5 kb contigs (96.88)
C5 E5H   96.5   97.2    0.95  1     the 5 kb contigs of two strains at 3 %, half of one (96.88)
A  A2    100    100     1     1     a genome against an identical one
X0 X1    96.5   97.4    0.95  1     strains at 3 % (96.88)
X0 Y0    92.4   93.1    0.95  1     strains at 7 % (92.56)
A  U     0      0       0     0     unrelated genomes
TABLE

# ---- 2. the columns ----
if awk -F'\t' 'NR > 1 && ($6 == "NA" || $7 == "NA") {bad = 1} END {exit bad}' "$WORK/all.tsv"; then
    ok "every pair of genomes over 3 kb has an estimate (no NA)"
else not_ok "every pair of genomes over 3 kb has an estimate (no NA)" "$(grep -m3 NA "$WORK/all.tsv")"; fi
# distance = 1 - ANI (float32 of 1 - ani, printed %.9g; ani printed to 2 decimals): within 5e-5
if awk -F'\t' 'NR > 1 && $6 != "NA" { d = $3 - (1 - $6 / 100); if (d < 0) d = -d; if (d > 5.01e-5) { print; bad = 1 } }
    END { exit bad }' "$WORK/all.tsv" >"$WORK/bad"; then ok "distance = 1 - ANI on every line"
else not_ok "distance = 1 - ANI on every line" "$(head -3 "$WORK/bad")"; fi
line=$(pair_line A U)
if [ "$(echo "$line" | cut -f3,6,7)" = "$(printf '1\t0.00\t0.0000')" ]; then ok "unrelated genomes: distance 1, ANI 0.00, AF 0.0000"
else not_ok "unrelated genomes: distance 1, ANI 0.00, AF 0.0000" "$line"; fi
# without --ani the same lines without the two columns
"$T" dist -q -p 2 "$WORK/all.tsk" >"$WORK/plain.tsv"
tail -n +2 "$WORK/all.tsv" | cut -f1-5 >"$WORK/cut.tsv"
expect_same "$WORK/cut.tsv" "$WORK/plain.tsv" "dist without --ani: the same lines, five columns"
# triangle (and so tree and plot, which take its matrix) holds the same distances
"$T" triangle -q -p 2 "$WORK/all.tsk" >"$WORK/tri.phylip"
awk -F'\t' 'NR == 1 { next } { name[NR - 1] = $1; for (j = 2; j <= NF; j++) print name[j - 1] "\t" $1 "\t" $j }' \
    "$WORK/tri.phylip" | sort >"$WORK/tri.pairs"
tail -n +2 "$WORK/all.tsv" | cut -f1-3 | sort >"$WORK/all.pairs"
expect_same "$WORK/all.pairs" "$WORK/tri.pairs" "triangle's matrix = dist's distances, pair for pair"
expect_exit 2 "--ani" "--ani with --containment is refused" -- "$T" dist --ani --containment "$WORK/all.tsk"
expect_exit 2 "--ani" "--ani with -f square is refused" -- "$T" dist --ani -f square "$WORK/all.tsk"

# ---- 3. cluster ----
for d in 95 0.95 0.6; do
    expect_exit 2 "-d is a distance, 1 - ANI: for 95 % ANI write -d 0.05 or --min-ani 95" \
        "cluster -d $d is refused with the hint" -- "$T" cluster -q -d "$d" "$WORK/all.tsk"
done
expect_exit 2 "give one" "cluster -d with --min-ani is refused" -- "$T" cluster -q -d 0.05 --min-ani 95 "$WORK/all.tsk"
expect_exit 2 "" "cluster --min-ani 0 is refused" -- "$T" cluster -q --min-ani 0 "$WORK/all.tsk"
"$T" cluster -q --min-ani 95 --min-af 0.5 "$WORK/all.tsk" >"$WORK/c.ani"
"$T" cluster -q -d 0.05 --min-af 0.5 "$WORK/all.tsk" >"$WORK/c.d"
expect_same "$WORK/c.d" "$WORK/c.ani" "cluster --min-ani 95 --min-af 0.5 = -d 0.05 --min-af 0.5"
"$T" cluster -q "$WORK/all.tsk" >"$WORK/c.default"
expect_same "$WORK/c.d" "$WORK/c.default" "cluster's default is 95 % ANI (and the AF of these pairs is above 0.5)"
# cluster_of NAME: its cluster number
cluster_of() { awk -F'\t' -v n="$1" '$1 == n {print $2}' "$WORK/c.ani"; }
x0=$(cluster_of X0) x1=$(cluster_of X1) y0=$(cluster_of Y0) y1=$(cluster_of Y1)
if [ -n "$x0" ] && [ "$x0" = "$x1" ] && [ "$y0" = "$y1" ] && [ "$x0" != "$y0" ]; then
    ok "strains at 97 % and 93 %: {X0, X1} and {Y0, Y1} at 95 %"
else not_ok "strains at 97 % and 93 %: {X0, X1} and {Y0, Y1} at 95 %" "$(cat "$WORK/c.ani")"; fi
a=$(cluster_of A)
for n in A2 M E P25 P50 C20; do
    if [ "$(cluster_of $n)" = "$a" ]; then ok "$n is in A's cluster"; else not_ok "$n is in A's cluster" "$(cat "$WORK/c.ani")"; fi
done
if [ "$(cluster_of U)" != "$a" ]; then ok "U is not in A's cluster"; else not_ok "U is not in A's cluster"; fi
# --ani: ani and af of each genome against its representative are dist's for the pair
"$T" cluster -q --ani --min-ani 95 --min-af 0.5 "$WORK/all.tsk" >"$WORK/c.cols"
cut -f1-4 "$WORK/c.cols" >"$WORK/c.cut"
expect_same "$WORK/c.ani" "$WORK/c.cut" "cluster --ani: the same four columns first"
bad=0
while IFS=$'\t' read -r g _ rep dist ani af; do
    if [ "$g" = "$rep" ]; then
        [ "$dist	$ani	$af" = "0	100.00	1.0000" ] || { bad=1; note "representative $g: $dist $ani $af"; }
        continue
    fi
    want=$(pair_line "$g" "$rep" | cut -f3,6,7)
    [ "$dist	$ani	$af" = "$want" ] || { bad=1; note "$g vs $rep: $dist $ani $af, dist says $want"; }
done <"$WORK/c.cols"
if [ $bad = 0 ]; then ok "cluster --ani: distance, ani, af of each genome = dist's for it and its representative"
else not_ok "cluster --ani: distance, ani, af of each genome = dist's for it and its representative"; fi
"$T" cluster -q --method single --ani "$WORK/all.tsk" >"$WORK/c.single"
"$T" cluster -q --ani "$WORK/all.tsk" >"$WORK/c.greedy"
expect_same "$WORK/c.greedy" "$WORK/c.single" "single linkage: the same clusters and member distances here (no chains)"

# ---- 4. candidates ----
# -d D: exactly the all-pairs lines within D; --top-k 3: each genome's 3 nearest of all pairs
for d in 0.01 0.05 0.2; do
    "$T" dist -q --ani -d "$d" -p 2 "$WORK/all.tsk" >"$WORK/d.tsv"
    tail -n +2 "$WORK/all.tsv" | awk -F'\t' -v d="$d" '$3 + 0 <= d + 0' >"$WORK/d.want"
    expect_same "$WORK/d.want" "$WORK/d.tsv" "dist -d $d: the all-pairs lines within $d"
done
"$T" dist -q --ani --top-k 3 -p 2 "$WORK/all.tsk" >"$WORK/top.tsv"
for n in A E X0 Y1 P25; do
    # its lines are all-pairs lines, and their distances the 3 smallest of its pairs below 1 (ties
    # between equal distances go by the keys, so which of them is not checked here)
    awk -F'\t' -v n="$n" '$2 == n' "$WORK/top.tsv" >"$WORK/top.got"
    bad=0
    while IFS=$'\t' read -r r q rest; do
        [ "$(pair_line "$r" "$q" | cut -f3-)" = "$rest" ] || { bad=1; note "$r $q $rest: not dist's line"; }
    done <"$WORK/top.got"
    cut -f3 "$WORK/top.got" >"$WORK/top.d"
    tail -n +2 "$WORK/all.tsv" | awk -F'\t' -v n="$n" '$3 < 1 && ($1 == n || $2 == n) {print $3}' | sort -g | head -3 >"$WORK/top.want"
    if [ $bad = 0 ] && cmp -s "$WORK/top.d" "$WORK/top.want"; then ok "dist --top-k 3: $n's 3 nearest by 1 - ANI, nearest first"
    else not_ok "dist --top-k 3: $n's 3 nearest by 1 - ANI, nearest first" "$(cat "$WORK/top.got")" "want distances $(cat "$WORK/top.want" | tr '\n' ' ')"; fi
done

# ---- 4b. near identity: the level from the keys ----
# A 60 kb genome and copies with 6, 12, 24 and 48 substitutions (ANI 99.99 .. 99.92): a segment
# keeps ~47 anchors, so the anchors alone cannot order them; the keys (one window in 8) can, and
# each estimate is within 0.03 points of the truth (tsk_ani_level_from_keys)
python3 - "$WORK/snp" <<'PY'
import os, random, sys
rng = random.Random(38)
os.makedirs(sys.argv[1], exist_ok=True)
base = [rng.choice("ACGT") for _ in range(60000)]
for n in (0, 6, 12, 24, 48):
    s = base[:]
    for i in rng.sample(range(len(s)), n):
        s[i] = rng.choice([b for b in "ACGT" if b != s[i]])
    with open(os.path.join(sys.argv[1], "snp%d.fa" % n), "w") as f:
        f.write(">snp%d\n%s\n" % (n, "".join(s)))
PY
"$T" sketch -q --genome --per-file "$WORK"/snp/snp{0,6,12,24,48}.fa -o "$WORK/snp.tsk"
"$T" dist -q --ani "$WORK/snp.tsk" | awk -F'\t' '$1 == "snp0"' >"$WORK/snp.tsv"
if awk -F'\t' 'BEGIN { prev = 101 } { n = substr($2, 4) + 0; truth = 100 * (1 - n / 60000); d = $6 - truth
        if (d < -0.03 || d > 0.03 || $6 + 0 >= prev) bad = 1; prev = $6 + 0 } END { exit bad || NR != 4 }' "$WORK/snp.tsv"; then
    ok "6-48 substitutions in 60 kb: ANI in their order, each within 0.03 points ($(cut -f6 "$WORK/snp.tsv" | tr '\n' ' '))"
else
    not_ok "6-48 substitutions in 60 kb: ANI in their order, each within 0.03 points" "$(cat "$WORK/snp.tsv")"
fi

# ---- 4c. a damaged anchor section ----
# A byte of the anchors (most of a genome sketch) flipped without a new checksum: refused by every
# command that compares, on either engine, with exit 3, the message once, and no output. (A run
# that may use a GPU checks the anchors beside the engines' opening, tsk_file_open_anchors_later.)
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-64] ^= 1; open(sys.argv[2], "wb").write(b)' \
    "$WORK/all.tsk" "$WORK/flip.tsk"
DEVICES="auto cpu"
"$T" dist -q --device cuda "$WORK/all.tsk" >/dev/null 2>&1 && DEVICES="$DEVICES cuda"
for dev in $DEVICES; do
    for cmd in "dist" "dist --top-k 3" "dist --key-distance" "cluster" "cluster --ani"; do
        rm -f "$WORK/flip.out"
        # shellcheck disable=SC2086
        expect_exit 3 "flip\.tsk: checksum mismatch \(the file is corrupt\)" "$cmd --device $dev of a damaged anchor section: exit 3" \
            -- "$T" $cmd -q --device "$dev" "$WORK/flip.tsk" -o "$WORK/flip.out"
        if [ -e "$WORK/flip.out" ] || [ "$(grep -c checksum "$WORK/err")" != 1 ]; then
            not_ok "$cmd --device $dev of a damaged anchor section: no output, the message once" "$(cat "$WORK/err")"
        fi
    done
    # the damaged file as the queries, then as the references, of a sound one
    expect_exit 3 "flip\.tsk: checksum mismatch" "dist --device $dev, damaged queries: exit 3" \
        -- "$T" dist -q --top-k 3 --device "$dev" "$WORK/all.tsk" "$WORK/flip.tsk"
    expect_exit 3 "flip\.tsk: checksum mismatch" "dist --device $dev, damaged references: exit 3" \
        -- "$T" dist -q --top-k 3 --device "$dev" "$WORK/flip.tsk" "$WORK/all.tsk"
    # shellcheck disable=SC2086
    "$T" dist -q --top-k 3 --device "$dev" "$WORK/flip.tsk" >"$WORK/flip.stdout" 2>/dev/null
    if [ -s "$WORK/flip.stdout" ]; then not_ok "dist --device $dev to stdout: no line of a damaged file"; else ok "dist --device $dev to stdout: no line of a damaged file"; fi
done

# ---- 5. GPU = CPU ----
if "$T" dist -q --device cuda "$WORK/all.tsk" >/dev/null 2>&1; then
    for args in "--ani" "--ani -d 0.05" "--ani --top-k 3" "-f square"; do
        # shellcheck disable=SC2086
        "$T" dist -q $args --device cpu "$WORK/all.tsk" >"$WORK/cpu.out"
        # shellcheck disable=SC2086
        "$T" dist -q $args --device cuda "$WORK/all.tsk" >"$WORK/gpu.out"
        expect_same "$WORK/cpu.out" "$WORK/gpu.out" "dist $args: GPU = CPU bytes"
    done
    "$T" cluster -q --ani --device cpu "$WORK/all.tsk" >"$WORK/cpu.out"
    "$T" cluster -q --ani --device cuda "$WORK/all.tsk" >"$WORK/gpu.out"
    expect_same "$WORK/cpu.out" "$WORK/gpu.out" "cluster --ani: GPU = CPU bytes"
else
    skip "no usable GPU: GPU = CPU bytes of the ANI distance not checked here"
fi
finish
