#!/usr/bin/env bash
# Regenerates the seed corpus in tests/fuzz/corpus/ (committed; run again when the formats change):
#   bash tests/fuzz/make_corpus.sh build/src/tsketch
# seqio: the small files of testdata/io behind first bytes 0, 1, 2 (1, 2, 4 parse threads: fuzz_seqio.c);
# tsk: small .tsk files of every kind of row; tables: tables files behind t and D bytes;
# options: NUL-separated command lines; links: pair lines as dist writes them behind an AF byte.
set -euo pipefail
T=$(realpath "$1")
cd "$(dirname "$0")"
IO=../../testdata/io
rm -rf corpus
mkdir -p corpus/seqio corpus/tsk corpus/tables corpus/options corpus/links

for f in good.fa good.fa.gz good.fa.bgz good.fq good.fq.gz crlf.fa crlf.fq comment-first.fa multi-member.fa.gz \
         bad-qual.fq truncated.fq truncated-noplus.fq truncated.fa.gz binary-in-record.fa no-records.fa; do
    for mode in 0 1 2; do
        { printf "\\x0$mode"; cat "$IO/$f"; } >"corpus/seqio/$mode-$f"
    done
done
printf '\x00>a\n>b\nACGT\n' >corpus/seqio/0-empty-record.fa
printf '\x02>x y z\nACGTNNNNacgt\nAC\r\nGT\n>y\n\n>z\nA\n' >corpus/seqio/2-lines.fa
# inputs long runs found (tests/fuzz/found/TARGET/: a NUL byte inside a name), kept as seeds
for t in seqio tsk tables options links; do cp found/$t/* corpus/$t/ 2>/dev/null || true; done

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf '>r1 first\nACGTACGTTTGACCAGT\n>r2\nGGGATTACA\n>empty\n' >"$W/in.fa"
printf '>p1\nMKVLAAGIVGLLLAQW\n' >"$W/prot.fa"
# a genome of two contigs (4 kb and 3.3 kb): segments, and loose anchors in the tails and across
python3 -c "import random; random.seed(1); s = ''.join(random.choice('ACGT') for _ in range(7300)); print('>g1'); print(s[:4000]); print('>g2'); print(s[4000:])" >"$W/genome.fa"
"$T" sketch -q -s 4 "$W/in.fa" -o corpus/tsk/whole.tsk
"$T" sketch -q -s 3 -k 2 --precision double "$W/in.fa" -o corpus/tsk/double.tsk
"$T" sketch -q -s 2 -k 2 --window 8 --stride 4 "$W/in.fa" -o corpus/tsk/slide.tsk
"$T" sketch -q -s 2 -k 2 --canonical --anchored --anchor-k 2 --window 4 --stride 3 "$W/in.fa" -o corpus/tsk/anchored.tsk
"$T" sketch -q -s 2 -k 1 --alphabet protein "$W/prot.fa" -o corpus/tsk/protein.tsk
"$T" sketch -q -k 3 -s 16 --tables "$IO/tables_t3_D16_seed99.txt" "$W/in.fa" -o corpus/tsk/tables.tsk
"$T" sketch -q -s 1 --per-file -I g "$W/in.fa" -o corpus/tsk/perfile.tsk
"$T" sketch -q --genome --scaled 50 --min-keys 0 "$W/genome.fa" -o corpus/tsk/genome.tsk

{ printf '\x03\x10'; cat "$IO/tables_t3_D16_seed99.txt"; } >corpus/tables/t3_D16
{ printf '\x03\x10'; grep -v '^[At]' "$IO/tables_t3_D16_seed99.txt"; } >corpus/tables/t3_D16_bare
printf '\x02\x04# two levels\nA 4\nt 2\nD 4\nh 0 0 1 2 3\ns 0 1 -1 1 -1\nh 1 3 2 1 0\ns 1 -1 -1 1 1\n' >corpus/tables/t2_D4
printf '\x01\x82A 20\nh 0 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1\ns 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 -1\n' \
    >corpus/tables/protein_t1_D3

args() { local out=$1; shift; printf '%s\0' "$@" | head -c -1 >"corpus/options/$out"; }
args defaults in.fa
args dims -k 5 -s 128 -S 0x1234 in.fa
args slide --slide in.fa
args window --window 500 --stride 50 --canonical in.fa
args anchored --anchored --anchor-k 8 --window 16 --stride 10 in.fa
args protein --alphabet protein --precision double -k 3 a.faa b.faa
args device --device cuda:0,1 -p 8 --per-file -I name in.fa
args long_forms --tuple-len=3 --dim=7 --seed=9 --threads=2 --id=x --per-file in.fa

printf '\x01reference\tquery\tdistance\tshared\ttotal\tani\taf\ng1\tg2\t0.0123\t10\t20\t98.77\t0.5000\n\ng1\tx\t1\t0\t9\tNA\tNA\n' \
    >corpus/links/ani
printf '\x00g1\ta b\t2.5e-05\nx\tg2\t0.5\t3\t9\n' >corpus/links/plain
{ printf '\x00'; printf 'g2\tg1\t0.25\t1\t4\ng1\tx\t0.75\t3\t4\n' | gzip -nc; } >corpus/links/gzip
