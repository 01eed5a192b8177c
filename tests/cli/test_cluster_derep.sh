#!/bin/bash
# test_cluster_derep.sh: `tsketch cluster` as a dRep or galah user dereplicates (docs/cluster.md),
# each block a behaviour the command lacked before this test:
#   - --format galah|cdb|wdb: the same clustering laid out as galah's cluster definition and dRep's
#     Cdb.csv and Wdb.csv (checked against the tsv table, rewritten here with awk);
#   - --representative-dir DIR (links to absolute paths, --copy: copies), --representatives --paths:
#     checked before any work, nothing left on failure, refused for .tsk inputs;
#   - --min-completeness, --max-contamination, --min-length, --missing-quality: filtered genomes
#     are left out, and the table is the one of clustering the kept genomes alone;
#   - a cluster's best-ranked genome represents it (greedy's reassignment only with --reassign);
#   - --reference FILE: earlier representatives kept as representatives, ranked first;
#   - notes: <(zcat x.gz) refused as a genome name, genomes without fingerprints counted;
#   - --genome-dir DIR [-x EXT]: a directory's genome files as inputs;
#   - without --quality, genomes rank by N50, then fewer contigs (dRep's default), not by length.
# Usage: TSKETCH=... TESTDATA=... bash test_cluster_derep.sh
source "$(dirname "$0")/harness.sh"
T=$(cd "$(dirname "$TSKETCH")" && pwd)/$(basename "$TSKETCH") # absolute: the checks run in $WORK
G=$(cd "$TESTDATA/genomes" && pwd)
cd "$WORK" || exit 1
export LC_ALL=C
mkdir bins
# ten genomes: six SARS-CoV-2 (one species with the reference NC_045512.2 at -d 0.0018), two
# mitochondria and phiX, each its own
awk '/^>/ { n++ } { print > ("bins/r" n ".fa") }' "$G/sarscov2_6.fa"
cp "$G/MT-human.fa" "$G/MT-orang.fa" "$G/NC_001422_phiX174.fa" "$G/NC_045512.2.fa" bins/
ALL=(bins/*.fa)
# CheckM2's report names a bin without its last extension; NC_001422_phiX174 is not in it
printf 'Name\tCompleteness\tContamination\tCompleteness_Model_Used\n' >q.tsv
printf '%s\t%s\t%s\tx\n' r1 98 1 r2 90 0.5 r3 60 2 r4 99 30 r5 95 1 r6 95 5 NC_045512.2 100 0 \
    MT-human 80 0 MT-orang 80 0 >>q.tsv
D=(-d 0.0018 --key-distance) # the derep logic on exact key distances (SARS-CoV-2 variants 0.1 % apart)
run() { "$T" cluster -q "${D[@]}" "$@"; }

# ---- a cluster's best-ranked genome represents it ----
run --quality q.tsv --missing-quality last "${ALL[@]}" -o table.tsv
# score = completeness - 5 x contamination; phiX (no line) last
awk -F'\t' 'NR > 1 { print $1 "\t" $2 - 5 * $3 }' q.tsv >score.tsv
expect_true "every representative has its cluster's best score (the greedy default)" -- awk -F'\t' '
    NR == FNR { s[$1] = $2; next }
    { if (!($3 in s)) next; if (s[$1] > s[$3]) bad = 1 }
    END { exit bad }' score.tsv table.tsv
expect_true "... and NC_045512.2 (score 100) represents the SARS-CoV-2 cluster of 7" -- \
    test "$(awk -F'\t' '$3 == "NC_045512.2"' table.tsv | wc -l)" -eq 7
expect_exit 0 "" "--reassign (greedy's old second pass) is still there" -- run --reassign --quality q.tsv --missing-quality last "${ALL[@]}"
expect_exit 2 "--reassign applies to --method greedy" "--reassign with single linkage: refused" -- \
    run --reassign --method single "${ALL[@]}"

# ---- --format ----
awk -F'\t' '{ print $3 "\t" $1 }' table.tsv >want.galah
run --quality q.tsv --missing-quality last --format galah "${ALL[@]}" -o got.galah
expect_same want.galah got.galah "--format galah: representative TAB member, the representative with itself first"
{ echo "genome,secondary_cluster,threshold,cluster_method,comparison_algorithm,primary_cluster"
  awk -F'\t' '{ print $1 "," $2 "_1,0.0018,greedy,tsketch," $2 }' table.tsv; } >want.cdb
run --quality q.tsv --missing-quality last --format cdb "${ALL[@]}" -o got.cdb
expect_same want.cdb got.cdb "--format cdb: dRep's Cdb.csv columns, a line a genome"
{ echo "genome,cluster,score"
  awk -F'\t' 'NR == FNR { s[$1] = $2; next } $1 == $3 { print $1 "," $2 "_1," s[$1] }' score.tsv table.tsv; } >want.wdb
run --quality q.tsv --missing-quality last --format wdb "${ALL[@]}" -o got.wdb
expect_same want.wdb got.wdb "--format wdb: dRep's Wdb.csv, the winners with their scores (none for phiX)"
run --format cdb --method single "${ALL[@]}" | sed -n 2p >got.single
expect_true "--format cdb --method single: cluster_method single" -- grep -q ',single,tsketch,' got.single
expect_exit 2 "not tsv, galah, cdb or wdb" "--format xml: refused" -- run --format xml "${ALL[@]}"
expect_exit 2 "--header applies to --format tsv" "--header with --format cdb: refused" -- run --header --format cdb "${ALL[@]}"

# ---- representatives as files ----
cut -f3 table.tsv | uniq >reps.want
run --quality q.tsv --missing-quality last "${ALL[@]}" -o t.tsv --representatives reps.paths --paths --representative-dir R
sed 's|^|bins/|; s|$|.fa|' reps.want >reps.paths.want
expect_same reps.paths.want reps.paths "--representatives --paths: the FASTA paths as given, in cluster order"
ls R >reps.dir
sed 's|$|.fa|' reps.want | sort >reps.dir.want
expect_same reps.dir.want reps.dir "--representative-dir: one entry a representative, named as its file"
bad=0
for f in R/*; do
    [ -L "$f" ] && [ "$(readlink "$f")" = "$WORK/bins/$(basename "$f")" ] || bad=1
done
expect_true "... each a link to the absolute path of the FASTA file" -- test $bad -eq 0
run --quality q.tsv --missing-quality last "${ALL[@]}" -o t.tsv --representative-dir C --copy
bad=0
for f in C/*; do [ ! -L "$f" ] && cmp -s "$f" "bins/$(basename "$f")" || bad=1; done
expect_true "--copy: copies, the same bytes" -- test $bad -eq 0 -a "$(ls C | wc -l)" -eq "$(wc -l <reps.want)"
mkdir Empty
expect_exit 0 "" "an existing empty directory is taken" -- run "${ALL[@]}" -o t.tsv --representative-dir Empty
expect_true "... and filled" -- test -L Empty/NC_045512.2.fa
# failures: at once (before any work) and nothing left
mkdir outs
check_fails() { # CODE REGEX DESC -- cluster args...
    local code=$1 re=$2 desc=$3
    shift 4
    expect_exit "$code" "$re" "$desc" -- "$T" cluster "$@"
    if [ -z "$(ls -A outs)" ]; then ok "$desc: nothing left"; else not_ok "$desc: nothing left" "$(ls -A outs)"; fi
}
check_fails 1 "R: exists and is not an empty directory" "--representative-dir of a directory with files" -- \
    "${ALL[@]}" -o outs/t.tsv --representative-dir R
"$T" sketch -q --genome --per-file "${ALL[@]}" -o all.tsk
check_fails 2 "need FASTA files as inputs" "--representative-dir with a .tsk input: refused" -- \
    all.tsk -o outs/t.tsv --representative-dir outs/R
check_fails 2 "need FASTA files as inputs" "--paths with a .tsk input: refused" -- \
    all.tsk -o outs/t.tsv --representatives outs/r.txt --paths
check_fails 2 "--copy applies to --representative-dir" "--copy alone: refused" -- "${ALL[@]}" -o outs/t.tsv --copy
mkdir -p twin/a twin/b
cp bins/MT-human.fa twin/a/x.fa
cp bins/NC_001422_phiX174.fa twin/b/x.fa
printf 'human\ttwin/a/x.fa\nphiX\ttwin/b/x.fa\n' >twins.txt
check_fails 1 "two representatives are files named 'x.fa'" "two representatives of one file name: refused, nothing left" -- \
    --representatives outs/r.txt -l twins.txt -o outs/t.tsv --representative-dir outs/R

# ---- filters and genomes missing from the quality file ----
expect_exit 3 "q.tsv: no score for 'NC_001422_phiX174'.*--missing-quality" "a genome not in the file: exit 3 (the default)" -- \
    run --quality q.tsv "${ALL[@]}"
run --quality q.tsv --missing-quality drop "${ALL[@]}" -o got.drop 2>/dev/null
run --quality q.tsv $(printf '%s\n' "${ALL[@]}" | grep -v phiX) -o want.drop 2>/dev/null
expect_same want.drop got.drop "--missing-quality drop: the table of the genomes in the file alone"
expect_true "--missing-quality last: phiX ranked last, its own cluster" -- test "$(tail -1 table.tsv)" = $'NC_001422_phiX174\t4\tNC_001422_phiX174\t0'
KEEP=($(printf '%s\n' "${ALL[@]}" | grep -v -e /r3.fa -e /r4.fa))
"$T" cluster "${D[@]}" --quality q.tsv --missing-quality last --min-completeness 75 --max-contamination 25 "${ALL[@]}" -o got.f 2>err.f
run --quality q.tsv --missing-quality last "${KEEP[@]}" -o want.f
expect_same want.f got.f "--min-completeness 75 --max-contamination 25: the table of the kept genomes alone (r3, r4 out)"
expect_true "... a note counts them by reason" -- grep -q "2 genomes filtered out.*1 below 75 % completeness, 1 above 25 % contamination" err.f
expect_true "... the summary counts the kept genomes" -- grep -q "cluster: 8 genomes" err.f
run --min-length 17000 "${ALL[@]}" -o got.l
run $(printf '%s\n' "${ALL[@]}" | grep -v -e MT- -e phiX) -o want.l
expect_same want.l got.l "--min-length 17000: the mitochondria and phiX left out"
run --min-length 17000 --format cdb "${ALL[@]}" -o got.lc
expect_true "... from every format" -- test "$(grep -c -e MT- -e phiX got.lc)" -eq 0
printf 'r1\t5\n' >scores.tsv
expect_exit 2 "need completeness and contamination columns" "--min-completeness with a NAME<TAB>SCORE file: refused" -- \
    run --quality scores.tsv --missing-quality last --min-completeness 50 "${ALL[@]}"
expect_exit 2 "need --quality FILE" "--max-contamination without --quality: refused" -- run --max-contamination 10 "${ALL[@]}"
expect_exit 2 "not error, last or drop" "--missing-quality maybe: refused" -- run --quality q.tsv --missing-quality maybe "${ALL[@]}"

# ---- --reference: an earlier dereplication's representatives kept ----
"$T" sketch -q --genome --per-file bins/r4.fa bins/MT-human.fa -o reps.tsk
NEW=($(printf '%s\n' "${ALL[@]}" | grep -v -e /r4.fa -e /MT-human.fa))
run --reference reps.tsk "${NEW[@]}" -o got.ref
# the same genomes with the references forced first: the best scores
printf 'r4\t100\nMT-human\t100\n' >forced.tsv
for f in "${NEW[@]}"; do printf '%s\t0\n' "$(basename "$f" .fa)"; done >>forced.tsv
run --quality forced.tsv "${ALL[@]}" -o want.ref
expect_same want.ref got.ref "--reference reps.tsk new...: the table of all with the references ranked first"
expect_true "... r4 represents its cluster (NC_045512.2 would without it)" -- \
    test "$(awk -F'\t' '$3 == "NC_045512.2"' got.ref | wc -l)" -eq 0 -a "$(head -1 got.ref)" = $'r4\t1\tr4\t0'
"$T" sketch -q --genome --per-file bins/r4.fa bins/r2.fa -o near.tsk
run --reference near.tsk $(printf '%s\n' "${NEW[@]}" | grep -v /r2.fa) -o got.near
expect_true "two references within -d of each other both stay representatives" -- \
    test "$(awk -F'\t' '$1 == $3 && ($1 == "r4" || $1 == "r2")' got.near | wc -l)" -eq 2
run --reference bins/r4.fa --reference bins/MT-human.fa "${NEW[@]}" -o got.ref2
expect_same want.ref got.ref2 "--reference with FASTA files, repeated: the same"
expect_exit 2 "--reference applies to --method greedy" "--reference with single linkage: refused" -- \
    run --method single --reference reps.tsk "${NEW[@]}"

# ---- ranking without --quality: N50, then fewer contigs, then length (dRep's default) ----
# cut_fa FASTA W PREFIX: FASTA's bases as contigs of W bases (the last shorter)
cut_fa() { grep -v '>' "$1" | tr -d '\n' | fold -w "$2" | awk -v p="$3" '{ print ">" p "_" NR; print }'; }
mkdir asm
# a draft of 769 contigs (r1 in 40-base pieces, phiX in 200-base ones), longer than two complete
# assemblies of its species (r2, r3: one contig each): "longer first" made it the representative
{ cut_fa bins/r1.fa 40 c; cut_fa "$G/NC_001422_phiX174.fa" 200 x; } >asm/draft.fa
# two drafts of N50 400: the one of fewer contigs (75) ranks above the longer one of 89
cut_fa bins/r1.fa 400 c >asm/fewer.fa
{ cut_fa bins/r4.fa 400 c; cut_fa "$G/NC_001422_phiX174.fa" 400 x; } >asm/more.fa
cat bins/r3.fa bins/r2.fa >asm/records.fa # r3 (29,674 bases) before the longer r2 (29,699)
printf 'draft\t50\nr2\t50\nr3\t50\n' >asm/tied.q
"$T" sketch -q --genome --per-file asm/draft.fa bins/r3.fa bins/r2.fa -o asm/drafts.tsk
# the representative each input set gets (the first line's), and why
while IFS='|' read -r want args desc; do
    # shellcheck disable=SC2086 # args: words without blanks
    "$T" cluster -q $args >asm/got 2>asm/err
    got=$(head -1 asm/got | cut -f3)
    [ "$got" = "$want" ] && [ "$(cut -f3 asm/got | sort -u)" = "$want" ] && ok "$desc" ||
        not_ok "$desc" "representative '$got', want '$want' (one cluster)" "$(head -c 300 asm/err)"
done <<'CASES'
r2|asm/draft.fa bins/r3.fa bins/r2.fa|a 769-contig draft, longer than the complete assemblies of its species, is no representative: r2 (the higher N50, then longer than r3)
r2|asm/drafts.tsk|... from a genome .tsk too (N50 and contigs kept in the file)
fewer|asm/more.fa asm/fewer.fa|equal N50 (400): fewer contigs (75) rank above a longer draft of 89
OP302815.1|--per-record asm/records.fa|genomes a record: longer first, as before (N50 = length, one contig)
draft|--quality asm/tied.q asm/draft.fa bins/r3.fa bins/r2.fa|--quality: ties in score go to the longer genome, as before (not to N50)
CASES

# ---- notes: a pipe's path as a genome name, genomes without fingerprints ----
expect_exit 2 "/dev/fd/[0-9]+: a pipe's path .* names no genome .*-I NAME" "cluster <(cat x.fa): refused, not a genome named '63'" -- \
    "$T" cluster -q bins/r1.fa <(cat bins/r2.fa)
expect_exit 2 "/dev/fd/[0-9]+: a pipe's path" "sketch --genome --per-file <(cat x.fa): refused too" -- \
    "$T" sketch -q --genome --per-file <(cat bins/r2.fa) -o outs/x.tsk
expect_exit 0 "" "... -I NAME names it" -- "$T" sketch -q --genome --per-file -I r2 <(cat bins/r2.fa) -o x.tsk
expect_exit 0 "" "--per-record <(cat x.fa): records are named by their headers, taken" -- \
    "$T" cluster -q --per-record bins/r1.fa <(cat bins/r2.fa)
printf '>n\n%s\n' NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN >allN.fa
printf '>s\nACGTACGTAC\n' >short.fa
expect_exit 0 "cluster: 2 genomes without a fingerprint \(no window of A/C/G/T\): each is its own cluster" \
    "genomes without fingerprints: one note with their number" -- "$T" cluster allN.fa short.fa bins/r1.fa bins/r2.fa
expect_true "... each a singleton" -- grep -qx $'allN\t3\tallN\t0' "$WORK/out"

# ---- --genome-dir DIR [-x EXT] ----
run "${ALL[@]}" -o want.dir
run --genome-dir bins -o got.dir
expect_same want.dir got.dir "--genome-dir bins: the table of bins/*.fa (sorted by name)"
mkdir mixed
cp bins/r1.fa mixed/A.FNA
gzip -c bins/r2.fa >mixed/b.fna.gz
cp bins/r3.fa mixed/c.fasta
echo notes >mixed/readme.txt
mkdir mixed/sub.fa
run --genome-dir mixed/ -o got.mixed
expect_true "... sequence extensions in any case, compressed or not; no other file, no directory" -- \
    test "$(cut -f1 got.mixed | sort | tr '\n' ' ')" = "A b c "
run --genome-dir mixed -x fna -o got.x
expect_true "-x fna: A.FNA alone (b.fna.gz ends in .gz)" -- test "$(cut -f1 got.x)" = A
run --genome-dir mixed -x fna.gz -o got.x
expect_true "-x fna.gz: b.fna.gz" -- test "$(cut -f1 got.x)" = b
expect_exit 3 "mixed: no file ending in .fsa" "-x fsa, no such file: refused" -- run --genome-dir mixed -x fsa
expect_exit 3 "nodir: cannot read the directory" "--genome-dir of no directory: refused" -- run --genome-dir nodir
expect_exit 2 "-x/--extension applies to --genome-dir" "-x alone: refused" -- run -x fna "${ALL[@]}"
finish
