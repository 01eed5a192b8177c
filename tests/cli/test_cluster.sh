#!/usr/bin/env bash
# CLI: `tsketch cluster` (docs/cluster.md) against tests/cli/cluster_ref.py, a brute-force reference
# written from the contract alone, fed with what `tsketch dist` prints for the same items (the
# links: `dist -d D`; all pairs for single linkage's chains), byte for byte:
#   1. planted genome sets whose distances are exact (testdata/cluster/planted.py, every window kept):
#      chains where greedy and single differ, ties in rank and in distance, greedy's --reassign,
#      identical genomes, a longer genome ranked first; --quality both ways; -p, FASTA vs .tsk,
#      two .tsk inputs, links spilled to disk (TSKETCH_CLUSTER_MEMORY)
#   2. outputs: --header, --representatives, -o (plain, BGZF), -q, the summary line
#   3. the golden files of testdata/cluster (made once by the reference: they do not move with it)
#   4. synthetic species (bench/genome/genome_gen): families recovered exactly by both methods
#   5. --quality: CheckM2's quality_report.tsv, and bad files (exit 3 naming the file and line)
#   6. vector sketches (-d required, l2 and cosine)
#   7. edge cases: empty input, one genome, all singletons
#   8. --min-af: the ANI estimator's aligned fraction (dist --ani) on genomes with planted shared
#      fractions
#   9. usage errors (exit 2); a failed run leaves no output
#   TSKETCH=... TESTDATA=... bash test_cluster.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
C=$TESTDATA/cluster
REF=$(dirname "$0")/cluster_ref.py
PLANT=$C/planted.py
GEN=${GENOME_GEN:-$(dirname "$T")/../bench/genome/genome_gen}
export LC_ALL=C
PY=$(command -v python3)
EXACT=(--genome --scaled 1 --min-keys 0) # every window kept: planted distances are exact

# prepare CASE D TSK: the reference's view of the items of TSK (in order) at -d D
prepare() {
    local c=$1 d=$2 tsk=$3
    [ "$tsk" -ef "$WORK/$c.tsk" ] || cp "$tsk" "$WORK/$c.tsk"
    "$T" info --json --records "$tsk" >"$WORK/$c.json"
    # key distances: the reference is a key oracle (--min-af runs use the ANI links below)
    "$T" dist -q --header --key-distance -d "$d" "$tsk" >"$WORK/$c.links" 2>/dev/null || "$T" dist -q --header -d "$d" "$tsk" >"$WORK/$c.links"
    "$T" dist -q --header --key-distance "$tsk" >"$WORK/$c.pairs" 2>/dev/null || "$T" dist -q --header "$tsk" >"$WORK/$c.pairs"
    # genome sketches: the links with their ANI and AF, for --min-af (vector sketches: none)
    "$T" dist -q --header --ani -d "$d" "$tsk" >"$WORK/$c.links_ani" 2>/dev/null || :
    "$T" dist -q --header "$tsk" >"$WORK/$c.pairs_ani" 2>/dev/null || :
}

# ref CASE OPTS...: the reference's table on stdout, its summary line on stderr
ref() {
    local c=$1 links=$WORK/$1.links pairs=$WORK/$1.pairs
    shift
    case " $* " in *" --min-af "*) links=$WORK/$c.links_ani pairs=$WORK/$c.pairs_ani ;; esac
    local asm=()
    [ -f "$WORK/$c.assembly" ] && asm=(--assembly "$WORK/$c.assembly")
    "$PY" "$REF" --info "$WORK/$c.json" --links "$links" --pairs "$pairs" "${asm[@]}" "$@"
}

# check CASE DESC OPTS... -- ARGS...: `tsketch cluster OPTS ARGS` exits 0, prints the reference's
# table (given OPTS) byte for byte and its summary line on stderr
check() {
    local c=$1 desc=$2 opts=()
    shift 2
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    if ! ref "$c" "${opts[@]}" >"$WORK/want" 2>"$WORK/want.err"; then
        not_ok "$desc" "the reference failed: $(head -c 300 "$WORK/want.err")"
        return
    fi
    # --key-distance (the reference's links are key distances) unless --min-af (ANI links)
    local kd=(--key-distance)
    case "$c ${opts[*]} $* " in v*|*" --min-af "*) kd=() ;; esac
    "$T" cluster "${kd[@]}" "${opts[@]}" "$@" >"$WORK/got" 2>"$WORK/got.err"
    local rc=$?
    if [ $rc -ne 0 ]; then
        not_ok "$desc" "exit $rc" "stderr: $(head -c 400 "$WORK/got.err")"
    elif ! cmp -s "$WORK/want" "$WORK/got"; then
        not_ok "$desc" "the table differs from the reference's (< reference, > cluster)" "$(diff "$WORK/want" "$WORK/got" | head -8)"
    elif ! grep -qF -- "$(cat "$WORK/want.err")" "$WORK/got.err"; then
        not_ok "$desc" "no summary '$(cat "$WORK/want.err")'" "stderr: $(head -c 300 "$WORK/got.err")"
    else
        ok "$desc"
    fi
}

# expect_lines DESC FILE LINE...: FILE holds exactly these lines
expect_lines() {
    local desc=$1 f=$2
    shift 2
    printf '%s\n' "$@" >"$WORK/lines.want"
    if cmp -s "$WORK/lines.want" "$f"; then ok "$desc"; else not_ok "$desc" "$(diff "$WORK/lines.want" "$f" | head -8)"; fi
}

# names a quality file's line: FILE:N or FILE ... line N
line_re() { echo "$(basename "$1" | sed 's/\./\\./g')(:$2([^0-9]|\$)|.*line $2([^0-9]|\$))"; }

if ! "$T" cluster -h >/dev/null 2>&1; then
    not_ok "tsketch cluster exists" "$("$T" cluster -h 2>&1 | head -3)"
fi

# ---- 1. planted genomes: exact distances ----
# 20 kb genomes, 90 substitutions: near pairs 0.0047 (0.0031, 0.0064 for move*), far ones 0.0099;
# -d 0.008 links the near ones only. Equal lengths but lenA: ties in rank go to input order.
"$PY" "$PLANT" genomes 20000 90 "$WORK/pl.fa"
"$T" sketch -q "${EXACT[@]}" "$WORK/pl.fa" -o "$WORK/pl.tsk"
prepare pl 0.008 "$WORK/pl.tsk"
d_of() { awk -F'\t' -v a="$1" -v b="$2" '($1 == a && $2 == b) || ($1 == b && $2 == a) { print $3 }' "$WORK/pl.pairs"; }
# the plants are what the cases need (else the checks below would test less than they say)
[ "$(d_of tieM tieR1)" = "$(d_of tieM tieR2)" ] && [ "$(d_of chainA chainB)" = "$(d_of chainB chainC)" ] &&
    [ "$(d_of dupA dupB)" = 0 ] && awk "BEGIN { exit !($(d_of chainA chainC) > 0.008 && $(d_of chainA chainB) <= 0.008 &&
        $(d_of moveM moveR2) < $(d_of moveM moveR1) && $(d_of moveR1 moveR2) > 0.008 && $(d_of moveM moveR1) <= 0.008) }" &&
    ok "planted: exact ties (tieM-tieR1 = tieM-tieR2 = $(d_of tieM tieR1)), a chain, a move, identical genomes" ||
    not_ok "planted: exact ties, a chain, a move, identical genomes" "$(awk '$3 < 1' "$WORK/pl.pairs")"

check pl "planted, greedy" -- -d 0.008 "$WORK/pl.tsk"
cp "$WORK/got" "$WORK/pl.greedy"
check pl "planted, single" --method single -- -d 0.008 "$WORK/pl.tsk"
cp "$WORK/got" "$WORK/pl.single"
check pl "planted, greedy spelled out" --method greedy -- -d 0.008 "$WORK/pl.tsk"
check pl "planted, greedy --reassign" --reassign -- -d 0.008 "$WORK/pl.tsk"
grep '^move' "$WORK/got" >"$WORK/pl.reassign"
# what the contract says of these plants, independently of the reference
expect_lines "greedy: chain split (chainC its own), tieM to the better-ranked tieR1, moveM stays with moveR1 (ranked above moveR2), lenB first" \
    "$WORK/pl.greedy" \
    $'chainA\t1\tchainA\t0' $'chainB\t1\tchainA\t'"$(d_of chainA chainB)" $'chainC\t2\tchainC\t0' \
    $'tieR1\t3\ttieR1\t0' $'tieM\t3\ttieR1\t'"$(d_of tieM tieR1)" $'tieR2\t4\ttieR2\t0' $'moveR1\t5\tmoveR1\t0' \
    $'moveM\t5\tmoveR1\t'"$(d_of moveM moveR1)" $'moveR2\t6\tmoveR2\t0' $'dupA\t7\tdupA\t0' $'dupB\t7\tdupA\t0' \
    $'lenB\t8\tlenB\t0' $'lenA\t8\tlenB\t'"$(d_of lenA lenB)" $'solo1\t9\tsolo1\t0' $'solo2\t10\tsolo2\t0'
expect_lines "greedy --reassign: moveM moved to moveR2, its nearest representative, ranked below it" \
    "$WORK/pl.reassign" \
    $'moveR1\t5\tmoveR1\t0' $'moveR2\t6\tmoveR2\t0' $'moveM\t6\tmoveR2\t'"$(d_of moveM moveR2)"
expect_lines "single: chains whole (chainC at its distance to chainA, beyond -d), representatives best-ranked" \
    "$WORK/pl.single" \
    $'chainA\t1\tchainA\t0' $'chainB\t1\tchainA\t'"$(d_of chainA chainB)" $'chainC\t1\tchainA\t'"$(d_of chainA chainC)" \
    $'tieR1\t2\ttieR1\t0' $'tieR2\t2\ttieR1\t'"$(d_of tieR1 tieR2)" $'tieM\t2\ttieR1\t'"$(d_of tieM tieR1)" \
    $'moveR1\t3\tmoveR1\t0' $'moveM\t3\tmoveR1\t'"$(d_of moveM moveR1)" $'moveR2\t3\tmoveR1\t'"$(d_of moveR1 moveR2)" \
    $'dupA\t4\tdupA\t0' $'dupB\t4\tdupA\t0' $'lenB\t5\tlenB\t0' $'lenA\t5\tlenB\t'"$(d_of lenA lenB)" \
    $'solo1\t6\tsolo1\t0' $'solo2\t7\tsolo2\t0'

# ranks from a quality file: chainB first (greedy then keeps the chain whole), tieR2 before tieR1
# (tieM follows it); equal scores fall back to length, then input order; comments, empty lines and
# a name not among the inputs are skipped
{
    printf '# scores\n\n'
    for n in chainA chainB chainC tieR1 tieR2 tieM moveR1 moveM moveR2 dupA dupB lenA lenB solo1 solo2; do
        case $n in chainB) s=95 ;; tieR2) s=90.5 ;; solo2) s=-1e1 ;; *) s=50 ;; esac
        printf '%s\t%s\n' "$n" "$s"
    done
    printf 'ghost\t99\n'
} >"$WORK/pl.q"
check pl "planted, greedy --quality NAME<TAB>SCORE" --quality "$WORK/pl.q" -- -d 0.008 "$WORK/pl.tsk"
grep -q $'^chainA\t1\tchainB\t' "$WORK/got" && grep -q $'^tieM\t2\ttieR2\t' "$WORK/got" &&
    ok "--quality: chainB ranks first and keeps the chain, tieM joins tieR2 (now better-ranked)" ||
    not_ok "--quality: chainB ranks first and keeps the chain, tieM joins tieR2 (now better-ranked)" "$(head -5 "$WORK/got")"
grep -v 'cluster: ' "$WORK/got.err" | grep -Eq '(^|[^0-9.])1([^0-9.]|$)' &&
    ok "--quality: a note counts the names not among the inputs" ||
    not_ok "--quality: a note counts the names not among the inputs" "stderr: $(cat "$WORK/got.err")"
check pl "planted, single --quality" --method single --quality "$WORK/pl.q" -- -d 0.008 "$WORK/pl.tsk"

# the same bytes for -p, FASTA inputs, two .tsk inputs, spilled links
check pl "planted, greedy -p 2" -- -d 0.008 -p 2 "$WORK/pl.tsk"
check pl "planted, greedy from the FASTA (--genome --per-record ...)" -- -d 0.008 -p 2 "${EXACT[@]}" --per-record "$WORK/pl.fa"
check pl "planted, single from the FASTA" --method single -- -d 0.008 "${EXACT[@]}" --per-record "$WORK/pl.fa"
awk '/^>/ { n++ } n <= 7' "$WORK/pl.fa" >"$WORK/pl1.fa"
awk '/^>/ { n++ } n > 7' "$WORK/pl.fa" >"$WORK/pl2.fa"
"$T" sketch -q "${EXACT[@]}" "$WORK/pl1.fa" -o "$WORK/pl1.tsk"
"$T" sketch -q "${EXACT[@]}" "$WORK/pl2.fa" -o "$WORK/pl2.tsk"
check pl "planted, greedy of two .tsk inputs (one set)" --quality "$WORK/pl.q" -- -d 0.008 "$WORK/pl1.tsk" "$WORK/pl2.tsk"
check pl "planted, single of two .tsk inputs" --method single -- -d 0.008 "$WORK/pl1.tsk" "$WORK/pl2.tsk"
TSKETCH_CLUSTER_MEMORY=1 check pl "planted, greedy, TSKETCH_CLUSTER_MEMORY=1" -- -d 0.008 "$WORK/pl.tsk"

# ---- 2. outputs ----
check pl "planted, --header" --header -- -d 0.008 "$WORK/pl.tsk"
[ "$(head -1 "$WORK/got")" = $'genome\tcluster\trepresentative\tdistance' ] && ok "--header: the documented header line" ||
    not_ok "--header: the documented header line" "$(head -1 "$WORK/got")"
"$T" cluster -q --key-distance -d 0.008 "$WORK/pl.tsk" --representatives "$WORK/reps.txt" -o "$WORK/pl.out.tsv" 2>"$WORK/q.err"
expect_same "$WORK/pl.greedy" "$WORK/pl.out.tsv" "-o FILE: the table of stdout"
cut -f3 "$WORK/pl.greedy" | awk '!seen[$0]++' >"$WORK/reps.want"
expect_same "$WORK/reps.want" "$WORK/reps.txt" "--representatives: the representatives column's distinct names in cluster order"
[ ! -s "$WORK/q.err" ] && ok "-q: nothing on stderr" || not_ok "-q: nothing on stderr" "$(head -c 300 "$WORK/q.err")"
"$T" cluster -q --key-distance --method single -d 0.008 "$WORK/pl.tsk" --representatives "$WORK/reps1.txt" >/dev/null
ref pl --method single --representatives "$WORK/reps1.want" >/dev/null 2>&1
expect_same "$WORK/reps1.want" "$WORK/reps1.txt" "--representatives with single linkage = the reference's"
"$T" cluster -q --key-distance -d 0.008 "$WORK/pl.tsk" -o "$WORK/pl.out.tsv.gz"
if "$PY" - "$WORK/pl.out.tsv.gz" <<'EOF'; then ok "-o x.tsv.gz: BGZF (BC extra field, the EOF block)"; else not_ok "-o x.tsv.gz: BGZF (BC extra field, the EOF block)"; fi
import sys
b = open(sys.argv[1], "rb").read()
eof = bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")
sys.exit(not (b[:4] == b"\x1f\x8b\x08\x04" and b[12:14] == b"BC" and b.endswith(eof)))
EOF
gzip -dc "$WORK/pl.out.tsv.gz" >"$WORK/pl.out.gz.tsv"
expect_same "$WORK/pl.greedy" "$WORK/pl.out.gz.tsv" "-o x.tsv.gz decompresses to the plain table"

# ---- 3. golden files (testdata/cluster/make.sh; the reference made them once) ----
"$T" sketch -q "${EXACT[@]}" "$C/genomes.fa.gz" -o "$WORK/golden.tsk"
for m in greedy single; do
    "$T" cluster -q --key-distance --header --method $m --quality "$C/quality.tsv" -d 0.006 "$WORK/golden.tsk" >"$WORK/golden.$m"
    expect_same "$C/$m.tsv" "$WORK/golden.$m" "golden: $m with testdata/cluster/quality.tsv"
    "$T" cluster -q --key-distance --header --method $m --quality "$C/quality.tsv" -d 0.006 "${EXACT[@]}" --per-record "$C/genomes.fa.gz" >"$WORK/golden.fa.$m"
    expect_same "$C/$m.tsv" "$WORK/golden.fa.$m" "golden: $m from the FASTA"
done
"$T" cluster -q --key-distance --header --reassign --quality "$C/quality.tsv" -d 0.006 "$WORK/golden.tsk" >"$WORK/golden.reassign"
expect_same "$C/greedy_reassign.tsv" "$WORK/golden.reassign" "golden: greedy --reassign"
prepare golden 0.006 "$WORK/golden.tsk"
ref golden --header --quality "$C/quality.tsv" >"$WORK/golden.ref" 2>/dev/null
expect_same "$C/greedy.tsv" "$WORK/golden.ref" "golden: the reference still makes greedy.tsv"
ref golden --header --reassign --quality "$C/quality.tsv" >"$WORK/golden.ref" 2>/dev/null
expect_same "$C/greedy_reassign.tsv" "$WORK/golden.ref" "golden: the reference still makes greedy_reassign.tsv"

mkdir "$WORK/outs" # outputs of runs that fail: it stays empty
# ---- 4. synthetic species: 60 genomes of 150-250 kb (the same length within a family) in 12
# families, genomes 2 % from their family's ancestor (about 0.04 apart), families unrelated ----
# families_recovered F DESC: in the last table, genome g<i> (family i % F) and the clusters match
# one to one: every cluster is one whole family
families_recovered() {
    awk -F'\t' -v F="$1" '{ f = (substr($1, 2, 6) + 0) % F; if (!(f in fc)) fc[f] = $2; if (fc[f] != $2) bad++
            if (($2 in cf) && cf[$2] != f) bad++; cf[$2] = f }
        END { nf = 0; nc = 0; for (x in fc) nf++; for (x in cf) nc++; exit !(nf == F && nc == F && !bad) }' "$WORK/got" &&
        ok "$2" || not_ok "$2" "$(cut -f1,2 "$WORK/got" | tr '\n' ' ' | head -c 600)"
}
if [ -x "$GEN" ]; then
    "$GEN" -n 60 -f 12 -L 150000-250000 -d 0.02 -s 31 -p 2 --one-file "$WORK/sp.fa"
    "$T" sketch -q --genome -p 2 "$WORK/sp.fa" -o "$WORK/sp.tsk"
    prepare sp 0.05 "$WORK/sp.tsk"
    for m in greedy single; do
        check sp "species: $m at the default -d" --method $m -- -p 2 "$WORK/sp.tsk"
        families_recovered 12 "species: $m recovers the 12 families exactly"
    done
    check sp "species: greedy from the FASTA, -p 1" -- --per-record "$WORK/sp.fa"
    # CheckM2's report: extra columns, its columns in another order (Completeness_Model_Used is not
    # Completeness); ties in score (100 - 5 x 0) go to the longer genome, then input order
    awk 'BEGIN { srand(5); print "Contamination\tCompleteness_Model_Used\tName\tGenome_Size\tCompleteness\tAdditional_Notes" }
        /^>/ { n = substr($1, 2); i++
               if (i % 4 == 0) { comp = 100; cont = 0 } else { comp = sprintf("%.2f", 70 + 30 * rand()); cont = sprintf("%.2f", 5 * rand()) }
               print cont "\tGradient Boost (General Model)\t" n "\t123\t" comp "\tNone" }' "$WORK/sp.fa" >"$WORK/quality_report.tsv"
    for m in greedy single; do
        check sp "species: $m, --quality CheckM2 quality_report.tsv" --method $m --quality "$WORK/quality_report.tsv" -- "$WORK/sp.tsk"
    done
    awk -F'\t' 'NR > 1 { print $3 "\t" $5 - 5 * $1 }' "$WORK/quality_report.tsv" >"$WORK/sp.q"
    check sp "species: greedy, --quality with CheckM2's scores as NAME<TAB>SCORE" --quality "$WORK/sp.q" -- "$WORK/sp.tsk"
    # 80 genomes in 4 families (contigs, one .fa.gz each, -l list --per-file): 760 links of 12 bytes,
    # more than TSKETCH_CLUSTER_MEMORY=4096 holds: sorted runs on disk, merged
    "$GEN" -n 80 -f 4 -L 40000-80000 -d 0.02 -c 3 -s 7 -p 2 "$WORK/sp4"
    "$T" sketch -q --genome --per-file -l "$WORK/sp4/list.tsv" -o "$WORK/sp4.tsk"
    # each genome's contigs and N50, counted here from its FASTA (the reference ranks by them)
    "$PY" - "$WORK/sp4/list.tsv" >"$WORK/sp4.assembly" <<'PYEOF'
import gzip, sys
for line in open(sys.argv[1]):
    name, path = line.split()
    lens = []
    for row in gzip.open(path, "rt"):
        if row.startswith(">"): lens.append(0)
        else: lens[-1] += sum(row.upper().count(b) for b in "ACGT")
    lens.sort(reverse=True)
    total, run = sum(lens), 0
    n50 = next(l for l in lens if 2 * (run := run + l) >= total)
    print(f"{name}\t{len(lens)}\t{n50}")
PYEOF
    prepare sp4 0.05 "$WORK/sp4.tsk"
    check sp4 "species, 4 families: greedy" -- "$WORK/sp4.tsk"
    families_recovered 4 "species, 4 families: greedy recovers them exactly"
    TSKETCH_CLUSTER_MEMORY=4096 check sp4 "species, 4 families: greedy, TSKETCH_CLUSTER_MEMORY=4096 (spilled)" -- -p 2 "$WORK/sp4.tsk"
    TSKETCH_CLUSTER_MEMORY=4096 check sp4 "species, 4 families: greedy, spilled, -p 1, --per-file -l" -- --genome --per-file -l "$WORK/sp4/list.tsv"
    TSKETCH_CLUSTER_MEMORY=1 check sp4 "species, 4 families: greedy, TSKETCH_CLUSTER_MEMORY=1 (many runs merged)" -- "$WORK/sp4.tsk"
    TSKETCH_CLUSTER_MEMORY=4096 check sp4 "species, 4 families: single, spilled" --method single -- "$WORK/sp4.tsk"
    # the runs are temporary files in TMPDIR: without one, the spilled run fails (exit 1, no output)
    # and the same run within the memory budget does not
    expect_exit 1 "" "spilled links need TMPDIR: exit 1 without one" -- env TMPDIR="$WORK/no-such-dir" TSKETCH_CLUSTER_MEMORY=4096 \
        "$T" cluster "$WORK/sp4.tsk" -o "$WORK/outs/sp4.tsv" --representatives "$WORK/outs/sp4.reps"
    [ -z "$(ls -A "$WORK/outs")" ] && ok "a failed spill leaves no output" || not_ok "a failed spill leaves no output" "$(ls -A "$WORK/outs")"
    expect_exit 0 "" "links within the memory budget need no TMPDIR" -- env TMPDIR="$WORK/no-such-dir" "$T" cluster "$WORK/sp4.tsk"
    rm -f "$WORK/outs/"*
else
    not_ok "bench/genome/genome_gen built (synthetic species)" "$GEN: not found (GENOME_GEN=... names it)"
fi

# ---- 5. --quality: bad files (exit 3 naming the file and the line), nothing left at -o ----
bad_quality() { # DESC LINE-NUMBER-or-NAME-REGEX FILE-CONTENT
    local f=$WORK/bad_$((++nbad)).tsv
    printf '%s' "$3" >"$f"
    expect_exit 3 "$2" "--quality, $1: exit 3" -- "$T" cluster -d 0.008 --quality "$f" "$WORK/pl.tsk" \
        -o "$WORK/outs/out.tsv" --representatives "$WORK/outs/reps.txt"
    [ -z "$(ls -A "$WORK/outs")" ] && ok "--quality, $1: nothing left at -o or --representatives" ||
        not_ok "--quality, $1: nothing left at -o or --representatives" "$(ls -A "$WORK/outs")"
    rm -f "$WORK/outs/"*
}
nbad=0
good_q=$(grep -v ghost "$WORK/pl.q" | grep -v '^#' | grep -v '^$')
q_without() { printf '%s\n' "$good_q" | grep -v "^$1"$'\t'; }
insert_at() { awk -v n="$1" -v l="$2" 'NR == n { print l } { print }'; } # N LINE: LINE becomes line N
bad_quality "a genome missing" "bad_1\\.tsv.*tieM|tieM.*bad_1\\.tsv" "$(q_without tieM)"$'\n'
bad_quality "a non-number (line 3)" "$(line_re bad_2.tsv 3)" "$(q_without tieR1 | insert_at 3 $'tieR1\tabc')"$'\n'
bad_quality "an infinite score (line 4)" "$(line_re bad_3.tsv 4)" "$(q_without tieR1 | insert_at 4 $'tieR1\tinf')"$'\n'
bad_quality "a NaN score (line 5)" "$(line_re bad_4.tsv 5)" "$(q_without tieR1 | insert_at 5 $'tieR1\tnan')"$'\n'
bad_quality "a name given twice (line 6)" "$(line_re bad_5.tsv 6)" "$(printf '%s\n' "$good_q" | insert_at 6 $'chainA\t1')"$'\n'
bad_quality "a line without a tab (line 2)" "$(line_re bad_6.tsv 2)" "$(q_without tieR1 | insert_at 2 'tieR1 7')"$'\n'
bad_quality "a score with trailing text (line 7)" "$(line_re bad_7.tsv 7)" "$(q_without tieR1 | insert_at 7 $'tieR1\t7x')"$'\n'
bad_quality "CheckM2 without a number (line 3)" "$(line_re bad_8.tsv 3)" \
    "$(printf 'Name\tCompleteness\tContamination\n'; printf '%s\n' "$good_q" | awk -F'\t' 'NR == 2 { print $1 "\tn/a\t1"; next } { print $1 "\t90\t1" }')"$'\n'
expect_exit 3 "nope\\.tsv" "--quality, a missing file: exit 3 naming it" -- "$T" cluster -d 0.008 --quality "$WORK/nope.tsv" "$WORK/pl.tsk" -o "$WORK/outs/out.tsv"
[ -z "$(ls -A "$WORK/outs")" ] && ok "a failed run leaves no output" || not_ok "a failed run leaves no output" "$(ls -A "$WORK/outs")"

# ---- 6. vector sketches: 33 records, 6 families of mutated copies; l2 and cosine ----
"$PY" "$PLANT" vectors "$WORK/v.fa"
"$T" sketch -q "$WORK/v.fa" -o "$WORK/v.tsk"
for d in 0.0015 0.003; do
    prepare v$d $d "$WORK/v.tsk"
    check v$d "vectors -d $d: greedy" -- -d $d "$WORK/v.tsk"
    check v$d "vectors -d $d: single" --method single -- -d $d -p 2 "$WORK/v.tsk"
done
# FASTA inputs are genomes (one a file): vector sketches are clustered from their .tsk
expect_true "vectors: a FASTA given to cluster is one genome, not 33 vector sketches" -- \
    test "$("$T" cluster -q -d 0.003 "$WORK/v.fa" | wc -l)" -eq 1
TSKETCH_CLUSTER_MEMORY=100 check v0.003 "vectors: greedy, spilled links (TSKETCH_CLUSTER_MEMORY=100)" -- -d 0.003 "$WORK/v.tsk"
cp "$WORK/v.tsk" "$WORK/vc.tsk"
"$T" info --json --records "$WORK/v.tsk" >"$WORK/vc.json"
"$T" dist -q --header --metric cosine -d 0.0004 "$WORK/v.tsk" >"$WORK/vc.links"
"$T" dist -q --header --metric cosine "$WORK/v.tsk" >"$WORK/vc.pairs"
check vc "vectors --metric cosine -d 0.0004: greedy" -- --metric cosine -d 0.0004 "$WORK/v.tsk"
check vc "vectors --metric cosine: single" --method single -- --metric cosine -d 0.0004 "$WORK/v.tsk"

# ---- 7. empty input, one genome, all singletons ----
printf '>x\n' >"$WORK/nokeys.fa"
"$T" sketch -q --genome "$WORK/nokeys.fa" -o "$WORK/nokeys.tsk" 2>/dev/null
"$PY" "$PLANT" empty-tsk "$WORK/nokeys.tsk" "$WORK/empty.tsk"
"$T" info "$WORK/empty.tsk" | grep -q $'^records\t0$' && ok "an empty genome .tsk (tsketch reads it)" || not_ok "an empty genome .tsk (tsketch reads it)"
expect_exit 0 "" "empty .tsk: exit 0" -- "$T" cluster "$WORK/empty.tsk"
[ ! -s "$WORK/out" ] && ok "empty .tsk: an empty table" || not_ok "empty .tsk: an empty table" "$(head -3 "$WORK/out")"
"$T" cluster -q --header --method single "$WORK/empty.tsk" --representatives "$WORK/empty.reps" >"$WORK/empty.out"
expect_lines "empty .tsk --header: the header line alone" "$WORK/empty.out" $'genome\tcluster\trepresentative\tdistance'
[ -f "$WORK/empty.reps" ] && [ ! -s "$WORK/empty.reps" ] && ok "empty .tsk: an empty --representatives file" || not_ok "empty .tsk: an empty --representatives file"
# a FASTA without records is bad input for every command (README: exit 3), cluster too
expect_exit 3 "no-records.fa" "a FASTA with no records: exit 3 naming it" -- "$T" cluster --genome "$TESTDATA/io/no-records.fa"
awk '/^>/ { n++ } n == 1' "$WORK/pl.fa" >"$WORK/one.fa"
"$T" sketch -q "${EXACT[@]}" "$WORK/one.fa" -o "$WORK/one.tsk"
prepare one 0.05 "$WORK/one.tsk"
check one "one genome: greedy" -- "$WORK/one.tsk"
expect_lines "one genome: its own cluster" "$WORK/got" $'chainA\t1\tchainA\t0'
check one "one genome: single" --method single -- "$WORK/one.tsk"
awk '/^>/ { keep = ($1 ~ /^>(solo1|solo2|tieR1|chainA|moveR1|dupA|lenB)$/) } keep' "$WORK/pl.fa" >"$WORK/apart.fa"
"$T" sketch -q "${EXACT[@]}" "$WORK/apart.fa" -o "$WORK/apart.tsk"
prepare apart 0.008 "$WORK/apart.tsk"
check apart "all singletons: greedy" -- -d 0.008 "$WORK/apart.tsk"
[ "$(cut -f2 "$WORK/got" | sort -u | wc -l)" = 7 ] && [ "$(wc -l <"$WORK/got")" = 7 ] && grep -q '7 clusters (7 singletons)' "$WORK/got.err" &&
    ok "all singletons: 7 clusters of one" || not_ok "all singletons: 7 clusters of one" "$(cat "$WORK/got" "$WORK/got.err")"
check apart "all singletons: single" --method single -- -d 0.008 "$WORK/apart.tsk"

# ---- 8. --min-af: B_F = A's first F with 1 % substitutions, then unrelated bases (300 kb each) ----
# The AF is the ANI estimator's (docs/cluster.md; dist --ani prints it): near F, and cluster links
# the pairs whose AF is at least --min-af, as the reference does from dist --ani's af column.
AF_TOL=0.05
for seed in 1 2; do
    "$PY" "$PLANT" af $seed 300000 "$WORK/af$seed.fa"
    "$T" sketch -q --genome "$WORK/af$seed.fa" -o "$WORK/af$seed.tsk"
    "$T" dist -q --ani "$WORK/af$seed.tsk" >"$WORK/af$seed.est"
    for F in 30 50 80 100; do
        est=$(awk -F'\t' -v b=B$F '($1 == "A" && $2 == b) || ($1 == b && $2 == "A") { print $7 }' "$WORK/af$seed.est")
        awk -v e="$est" -v f=$F -v t=$AF_TOL 'BEGIN { d = e - f / 100; exit !(e != "" && d <= t && -d <= t) }' &&
            ok "seed $seed: the AF of A and B$F, $est, is within $AF_TOL of $(awk -v f=$F 'BEGIN { print f / 100 }')" ||
            not_ok "seed $seed: the AF of A and B$F is within $AF_TOL of $F %" "estimate '$est'"
    done
    prepare af$seed 0.1 "$WORK/af$seed.tsk"
    for m in greedy single; do
        check af$seed "seed $seed: $m -d 0.1 --min-af 0.5" --method $m --min-af 0.5 -- -d 0.1 "$WORK/af$seed.tsk"
        check af$seed "seed $seed: $m -d 0.1 --min-af 0.5 -p 4" --method $m --min-af 0.5 -- -d 0.1 -p 4 "$WORK/af$seed.tsk"
    done
    check af$seed "seed $seed: greedy -d 0.1, no --min-af" -- -d 0.1 "$WORK/af$seed.tsk"
    # with only the pair A-B80 and A-B30: --min-af 0.5 links the first, not the second
    awk '/^>/ { keep = ($1 == ">A" || $1 == ">B30") } keep' "$WORK/af$seed.fa" >"$WORK/af30.fa"
    awk '/^>/ { keep = ($1 == ">A" || $1 == ">B80") } keep' "$WORK/af$seed.fa" >"$WORK/af80.fa"
    for F in 30 80; do
        "$T" cluster -q -d 0.1 "$WORK/af$F.fa" --per-record >"$WORK/af$F.plain"
        "$T" cluster -q -d 0.1 --min-af 0.5 --per-record "$WORK/af$F.fa" >"$WORK/af$F.min"
        echo "$(cut -f2 "$WORK/af$F.plain" | sort -u | wc -l) $(cut -f2 "$WORK/af$F.min" | sort -u | wc -l)" >"$WORK/af$F.n"
    done
    [ "$(cat "$WORK/af80.n")" = "1 1" ] && [ "$(cat "$WORK/af30.n")" = "1 2" ] &&
        ok "seed $seed: -d 0.1 links A-B30 and A-B80; --min-af 0.5 keeps A-B80 and drops A-B30" ||
        not_ok "seed $seed: --min-af 0.5 keeps A-B80 and drops A-B30" "clusters (without, with --min-af): B80 $(cat "$WORK/af80.n"), B30 $(cat "$WORK/af30.n")"
done
# the aligned fraction is the smaller genome's: lenA is lenB's first 90 %, so its AF is 1 (lenB's
# would be 0.9) and --min-af 0.95 keeps the pair; identical genomes have AF 1
check pl "planted, greedy --min-af 0.95: lenA-lenB kept (AF of the smaller genome)" --min-af 0.95 -- -d 0.008 "$WORK/pl.tsk"
grep -q $'^lenA\t[0-9]*\tlenB\t' "$WORK/got" && grep -q $'^dupB\t[0-9]*\tdupA\t0$' "$WORK/got" &&
    ok "--min-af 0.95: lenA stays with lenB, dupB with dupA" || not_ok "--min-af 0.95: lenA stays with lenB, dupB with dupA" "$(cat "$WORK/got")"
check pl "planted, single --min-af 1" --method single --min-af 1 -- -d 0.008 "$WORK/pl.tsk"

# ---- 9. usage errors (exit 2) ----
expect_exit 2 "method" "--method x: exit 2" -- "$T" cluster --method x "$WORK/pl.tsk" -o "$WORK/outs/out.tsv" --representatives "$WORK/outs/r.txt"
expect_exit 2 "min-af" "--min-af 1.5: exit 2" -- "$T" cluster --min-af 1.5 "$WORK/pl.tsk"
expect_exit 2 "min-af" "--min-af -0.1: exit 2" -- "$T" cluster --min-af -0.1 "$WORK/pl.tsk"
expect_exit 2 "min-af" "--min-af x: exit 2" -- "$T" cluster --min-af x "$WORK/pl.tsk"
expect_exit 2 "min-af" "--min-af with vector sketches: exit 2" -- "$T" cluster -d 0.003 --min-af 0.5 "$WORK/v.tsk"
expect_exit 2 "-d|max-dist" "vector sketches without -d: exit 2" -- "$T" cluster "$WORK/v.tsk"
expect_exit 2 "" "-d -1: exit 2" -- "$T" cluster -d -1 "$WORK/pl.tsk"
expect_exit 2 "" "no input: exit 2" -- "$T" cluster
"$T" sketch -q --genome "$WORK/one.fa" -o "$WORK/one_default.tsk"
expect_exit 4 "" "inputs of different parameters: exit 4" -- "$T" cluster "$WORK/pl.tsk" "$WORK/one_default.tsk"
expect_exit 4 "" "genome and vector sketches together: exit 4" -- "$T" cluster -d 0.003 "$WORK/v.tsk" "$WORK/one_default.tsk"
expect_exit 3 "missing\\.tsk" "a missing input: exit 3 naming it" -- "$T" cluster -d 0.05 "$WORK/missing.tsk" -o "$WORK/outs/out.tsv"
[ -z "$(ls -A "$WORK/outs")" ] && ok "usage and input errors leave no output" || not_ok "usage and input errors leave no output" "$(ls -A "$WORK/outs")"

finish
