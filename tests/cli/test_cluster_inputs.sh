#!/bin/bash
# test_cluster_inputs.sh: `tsketch cluster` takes its inputs and outputs as dRep and galah users
# give them (docs/cluster.md, "Inputs"), each row a defect that the code before this test had:
#   - FASTA files are genomes, one a file (its contigs one genome), as `sketch --genome --per-file`
#     makes them; --per-record makes each record a genome;
#   - outputs that cannot be written (a directory), or one file named twice (-o c.tsv with
#     --representatives ./c.tsv, both on standard output), fail before any work, leaving nothing;
#   - genome options on a genome .tsk are taken as dist takes them.
# Usage: TSKETCH=... TESTDATA=... bash test_cluster_inputs.sh
source "$(dirname "$0")/harness.sh"
T=$(cd "$(dirname "$TSKETCH")" && pwd)/$(basename "$TSKETCH") # absolute: the checks run in $WORK
G=$(cd "$TESTDATA/genomes" && pwd)
cd "$WORK" || exit 1
# six SARS-CoV-2 genomes; genome 1 in three contigs (a draft), the others whole
awk '/^>/ { n++ } { print > ("r" n ".fa") }' "$G/sarscov2_6.fa"
awk 'NR == 1 { next } { s = s $0 } END { l = length(s); print ">c1"; print substr(s, 1, 9000);
     print ">c2"; print substr(s, 9001, 11000); print ">c3"; print substr(s, 20001) }' r1.fa >draft1.fa
FILES=(draft1.fa r2.fa r3.fa r4.fa r5.fa r6.fa)
"$T" sketch -q --genome --per-file "${FILES[@]}" -o perfile.tsk
"$T" cluster -q perfile.tsk -o want.tsv

# ---- FASTA inputs are genomes, one a file ----
expect_exit 0 "" "FASTA files without --genome: genome sketches" -- "$T" cluster -q "${FILES[@]}" -o got.tsv
expect_same want.tsv got.tsv "... the same table as 'sketch --genome --per-file' then cluster"
expect_exit 0 "" "--genome FASTA files: one genome a file too" -- "$T" cluster -q --genome "${FILES[@]}" -o got.tsv
expect_same want.tsv got.tsv "... the same table"
expect_true "a draft in three contigs is one genome (6 lines)" -- test "$(wc -l <got.tsv)" -eq 6
expect_exit 0 "" "-d with FASTA files: genomes too, not vector sketches" -- "$T" cluster -q -d 0.05 "${FILES[@]}" -o got.tsv
expect_same want.tsv got.tsv "... the same table"
"$T" sketch -q --genome draft1.fa r2.fa -o records.tsk
"$T" cluster -q records.tsk -o want_records.tsv
expect_exit 0 "" "--per-record: each record a genome" -- "$T" cluster -q --per-record draft1.fa r2.fa -o got.tsv
expect_same want_records.tsv got.tsv "... as 'sketch --genome' (a genome a record) then cluster (4 lines)"
expect_exit 2 "--per-record applies to FASTA inputs" "--per-record with genome .tsk files alone is refused" -- \
    "$T" cluster --per-record perfile.tsk
expect_exit 2 "contradict" "--per-record with --per-file is refused" -- "$T" cluster --per-record --per-file r2.fa r3.fa
"$T" sketch -q r2.fa r3.fa -o rows.tsk
expect_exit 2 "rows.tsk: a .tsk of sketch rows.*sketch --genome" "vector rows with FASTA genomes: refused, naming the file" -- \
    "$T" cluster -d 0.05 --genome rows.tsk
expect_exit 0 "" "vector sketch rows as a .tsk: still clustered as vectors with -d" -- "$T" cluster -q -d 0.5 rows.tsk -o got.tsv

# ---- outputs checked before any work ----
mkdir D outs
check_fails_at_once() { # CODE REGEX DESC -- cluster args...
    local code=$1 re=$2 desc=$3
    shift 4
    local s e
    s=$(date +%s%N)
    expect_exit "$code" "$re" "$desc" -- "$T" cluster "$@"
    e=$(date +%s%N)
    if [ $(((e - s) / 1000000)) -lt 2000 ] && [ -z "$(ls -A outs)" ] && [ ! -e c.tsv ]; then ok "$desc: at once, nothing left"
    else not_ok "$desc: at once, nothing left" "$(((e - s) / 1000000)) ms; $(ls -A outs)"; fi
}
check_fails_at_once 1 "D: is a directory" "-o DIR" -- "${FILES[@]}" -o D
check_fails_at_once 1 "D: is a directory" "--representatives DIR" -- "${FILES[@]}" -o outs/c.tsv --representatives D
check_fails_at_once 2 "name the same file 'c.tsv'" "-o c.tsv --representatives ./c.tsv" -- \
    "${FILES[@]}" -o c.tsv --representatives ./c.tsv
check_fails_at_once 2 "both go to standard output" "--representatives - without -o" -- \
    "${FILES[@]}" --representatives -
check_fails_at_once 2 "nodir/c.tsv: the directory nodir does not exist" "-o in a directory that does not exist" -- "${FILES[@]}" -o nodir/c.tsv
expect_exit 0 "" "--representatives - with -o FILE: the names on standard output" -- \
    "$T" cluster -q "${FILES[@]}" -o outs/c.tsv --representatives -
expect_true "... the representatives alone on standard output" -- test "$(cat "$WORK/out")" = "$(cut -f3 outs/c.tsv | sort -u)"
rm -f outs/c.tsv

# ---- genome options on a genome .tsk: as dist takes them ----
same_as_dist() { # DESC -- options
    local desc=$1
    shift 2
    "$T" dist -q "$@" perfile.tsk >/dev/null 2>dist.err
    local d=$?
    "$T" cluster -q "$@" perfile.tsk >/dev/null 2>cluster.err
    local c=$?
    if [ $d -eq $c ] && diff -q dist.err cluster.err >/dev/null; then ok "$desc: exit $d in both, the same message"
    else not_ok "$desc: as dist" "dist $d: $(cat dist.err)" "cluster $c: $(cat cluster.err)"; fi
}
same_as_dist "--scaled 500 (the file's)" -- --scaled 500
same_as_dist "-S 24301 (the file's seed)" -- -S 24301
same_as_dist "--min-keys 5 (not the file's)" -- --min-keys 5
same_as_dist "-S 7 (not the file's)" -- -S 7
same_as_dist "--window 20 --anchor-k 16 (the file's)" -- --window 20 --anchor-k 16
finish
