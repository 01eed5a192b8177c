#!/usr/bin/env bash
# CLI: bad input gets a clear message naming the file, its documented exit code, and no output file.
#   TSKETCH=path/to/tsketch TESTDATA=path/to/testdata bash test_errors.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
G=$TESTDATA/genomes/MT-human.fa

printf '>ok\nACGTACGTACGT\n' >"$WORK/good.fa"
: >"$WORK/empty.fa"
printf '\n\n\n' >"$WORK/blank.fa"
printf 'hello world\nthis is not a sequence file\n' >"$WORK/text.txt"
head -c 2048 /dev/urandom >"$WORK/garbage.bin"
printf '\x00\x01\x02\x03binary\x00\xff\xfe' >>"$WORK/garbage.bin"
gzip -c "$G" | head -c 3000 >"$WORK/truncated.fa.gz"
printf '@r1\nACGTACGT\n+\nIIII\n' >"$WORK/badqual.fq"
printf '@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nACG' >"$WORK/cutfq.fq"
printf '>crlf\r\nacgtNNacgt\r\nACGT\r\n' >"$WORK/crlf.fa"
printf '>crlf\nACGTACGTACGT\n' >"$WORK/crlf_clean.fa"
printf '>tiny\nAC\n>ok\nACGTACGTAC\n' >"$WORK/short.fa"

run_bad() { # code regex desc input...
    local code=$1 re=$2 desc=$3
    shift 3
    rm -f "$WORK/o.tsk"
    expect_exit "$code" "$re" "$desc" -- "$T" sketch -q "$@" -o "$WORK/o.tsk"
    if [ -e "$WORK/o.tsk" ] || ls "$WORK"/o.tsk.tmp* >/dev/null 2>&1; then
        not_ok "$desc: no output left behind" "$(ls "$WORK")"
    else
        ok "$desc: no output left behind"
    fi
}

run_bad 3 "missing\.fa" "missing file" "$WORK/missing.fa"
run_bad 3 "empty\.fa.*empty" "empty file" "$WORK/empty.fa"
run_bad 3 "blank\.fa.*no records" "file without records" "$WORK/blank.fa"
run_bad 3 "text\.txt.*not FASTA" "text that is not FASTA/FASTQ" "$WORK/text.txt"
run_bad 3 "garbage\.bin" "binary garbage" "$WORK/garbage.bin"
run_bad 3 "truncated\.fa\.gz" "truncated gzip" "$WORK/truncated.fa.gz"
run_bad 3 "badqual\.fq.*quality" "FASTQ quality length differs" "$WORK/badqual.fq"
run_bad 3 "cutfq\.fq" "FASTQ cut inside a record" "$WORK/cutfq.fq"
run_bad 3 "missing\.fa" "good input before a bad one" "$WORK/good.fa" "$WORK/missing.fa"
run_bad 3 "garbage\.bin" "good input before garbage" "$WORK/good.fa" "$WORK/garbage.bin"

# CRLF and lowercase are fine: same sketch as the clean upper-case record
expect_exit 0 "" "CRLF + lowercase accepted" -- "$T" sketch -q "$WORK/crlf.fa" -o "$WORK/crlf.tsk"
"$T" sketch -q "$WORK/crlf_clean.fa" -o "$WORK/clean.tsk"
"$T" export --format tsv "$WORK/crlf.tsk" >"$WORK/crlf.tsv"
"$T" export --format tsv "$WORK/clean.tsk" >"$WORK/clean.tsv"
expect_same "$WORK/clean.tsv" "$WORK/crlf.tsv" "CRLF + lowercase + N sketch equals the clean record"

# a record shorter than t: zero sketch and a warning, not an error
expect_exit 0 "tiny.*fewer than t=4" "short record warns" -- "$T" sketch "$WORK/short.fa" -o "$WORK/short.tsk"
"$T" export --format tsv "$WORK/short.tsk" | awk -F'\t' '$1=="tiny"{for(i=2;i<=NF;i++) if ($i+0 != 0) bad=1; print bad ? "nonzero" : "zero"}' >"$WORK/tiny"
expect_true "short record sketch is zero" -- grep -qx zero "$WORK/tiny"

# parameters
expect_exit 2 "tuple-len" "t = 0 refused" -- "$T" sketch -k 0 "$G" -o "$WORK/p.tsk"
expect_exit 2 "dim" "D = 0 refused" -- "$T" sketch -s 0 "$G" -o "$WORK/p.tsk"
expect_exit 2 "dim" "D beyond the engine refused" -- "$T" sketch -s 1000000 "$G" -o "$WORK/p.tsk"
expect_exit 2 "stride.*window" "stride > window refused" -- "$T" sketch --window 10 --stride 20 "$G" -o "$WORK/p.tsk"
expect_exit 2 "protein|alphabet" "unknown alphabet refused" -- "$T" sketch --alphabet rna "$G" -o "$WORK/p.tsk"
expect_exit 2 "" "no output refused" -- "$T" sketch "$G"
expect_exit 2 "" "unknown option refused" -- "$T" sketch --no-such-option "$G" -o "$WORK/p.tsk"
expect_exit 2 "unknown command" "unknown command" -- "$T" frobnicate
expect_exit 2 "nonexistent-dir.*does not exist" "an output in a missing directory refused before any work" -- "$T" sketch -q "$G" -o "$WORK/nonexistent-dir/x.tsk"
mkdir -p "$WORK/outdir"
expect_exit 1 "outdir: is a directory" "a directory as output refused before any work" -- "$T" sketch -q "$G" -o "$WORK/outdir"
expect_exit 5 "GPU|CUDA" "--device cuda without a GPU exits 5" -- env CUDA_VISIBLE_DEVICES= "$T" sketch -q --device cuda "$G" -o "$WORK/p.tsk"

# bad .tsk files
"$T" sketch -q "$G" -o "$WORK/g.tsk"
size=$(stat -c %s "$WORK/g.tsk")
head -c $((size - 100)) "$WORK/g.tsk" >"$WORK/cut.tsk"
expect_exit 3 "cut\.tsk.*truncated" "truncated .tsk (end cut)" -- "$T" info "$WORK/cut.tsk"
head -c 200 "$WORK/g.tsk" >"$WORK/cut2.tsk"
expect_exit 3 "cut2\.tsk.*truncated" "truncated .tsk (inside the header)" -- "$T" info "$WORK/cut2.tsk"
expect_exit 3 "good\.fa.*not a" "FASTA given as .tsk" -- "$T" info "$WORK/good.fa"
expect_exit 3 "g\.tsk: a tsketch sketch file" ".tsk given as sequences" -- "$T" sketch -q "$WORK/g.tsk" -o "$WORK/gg.tsk"
expect_exit 3 "missing\.tsk" "missing .tsk" -- "$T" info "$WORK/missing.tsk"
cp "$WORK/g.tsk" "$WORK/flip.tsk"
printf '\x55' | dd of="$WORK/flip.tsk" bs=1 seek=4200 conv=notrunc 2>/dev/null
expect_exit 3 "flip\.tsk.*checksum" "corrupted .tsk (checksum)" -- "$T" export --format tsv "$WORK/flip.tsk"

# -o to a pipe (or a device such as /dev/null) is written in place: a finished temporary file
# renamed over it would replace it (as root, /dev/null itself)
mkfifo "$WORK/fifo"
timeout 20 cat "$WORK/fifo" >"$WORK/from_fifo" &  # bounded: a replaced FIFO has no writer
"$T" export "$WORK/g.tsk" -o "$WORK/fifo"
wait
"$T" export "$WORK/g.tsk" >"$WORK/to_stdout"
[ -p "$WORK/fifo" ] && ok "-o FIFO: still a FIFO afterwards" || not_ok "-o FIFO: still a FIFO afterwards"
expect_same "$WORK/to_stdout" "$WORK/from_fifo" "-o FIFO: the reader gets the output"
ls "$WORK"/fifo.tmp.* >/dev/null 2>&1 && not_ok "-o FIFO: no temporary file" || ok "-o FIFO: no temporary file"

finish
