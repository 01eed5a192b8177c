#!/bin/bash
# test_pipes_names.sh: inputs that are not regular files, names the outputs cannot hold, and the
# messages and exit codes around them (issue #32, items 1, 2, 5, 9, 10, 11, 13).
#   - a FIFO, /dev/fd/N of a process substitution or stdin is a sequence input read once (never
#     probed for the .tsk magic first, which would block or eat its start); a .tsk through one is
#     refused (sketch files are mapped: exit 3);
#   - a name with a TAB, CR or LF (-I, a --per-file file name, a list name, a .tsk record) is
#     refused: exit 2 for -I, 3 for inputs;
#   - running out of memory mapping a .tsk is exit 1 (the file is fine), export -f npy of genome
#     sketches exit 2; -f npy -o x.npy.gz is the .npy BGZF-compressed; a full disk under a .gz
#     output is one tsketch line (no htslib lines); protein given to --genome is warned about.
# Usage: TSKETCH=... TESTDATA=... bash test_pipes_names.sh
source "$(dirname "$0")/harness.sh"
T=$(realpath "$TSKETCH")
TESTDATA=$(realpath "$TESTDATA")
PATCH=$(realpath "$(dirname "$0")/tsk_patch.py")
cd "$WORK" || exit 1

# err_lacks REGEX DESCRIPTION: the last expect_exit's stderr says something, but nothing matching REGEX
err_lacks() {
    if [ ! -s "$WORK/err" ] || grep -Eq -- "$1" "$WORK/err"; then not_ok "$2" "stderr: $(head -c 300 "$WORK/err")"
    else ok "$2"; fi
}
cp "$TESTDATA/genomes/NC_045512.2.fa" S.fa
head -c 30000 "$TESTDATA/genomes/sarscov2_6.fa" >S_m1.fa # two SARS-CoV-2 genomes, the second cut short

# ---- 1. pipes, FIFOs and process substitution: read once, as the regular file ----
"$T" dist -q --genome S_m1.fa S.fa >ref.tsv
mkfifo f.fa
cat S.fa >f.fa &
writer=$!
timeout 20 "$T" dist -q --genome S_m1.fa f.fa >fifo.tsv 2>fifo.err
rc=$?
kill "$writer" 2>/dev/null # still blocked only when tsketch never opened the FIFO
wait "$writer" 2>/dev/null
if [ "$rc" -eq 0 ] && [ -s ref.tsv ] && cmp -s ref.tsv fifo.tsv; then ok "1: dist --genome reads a FIFO once: the regular file's output"
else not_ok "1: dist --genome reads a FIFO once: the regular file's output" "exit $rc" "$(head -c 300 fifo.err)"; fi

for cmd in dist triangle tree; do
    "$T" "$cmd" -q --genome S_m1.fa S.fa >"ref.$cmd"
    timeout 20 "$T" "$cmd" -q --genome S_m1.fa <(cat S.fa) >"sub.$cmd" 2>sub.err
    rc=$?
    if [ "$rc" -eq 0 ] && [ -s "ref.$cmd" ] && cmp -s "ref.$cmd" "sub.$cmd"; then ok "1: $cmd --genome reads <(cat S.fa)"
    else not_ok "1: $cmd --genome reads <(cat S.fa)" "exit $rc" "$(head -c 300 sub.err)"; fi
done
"$T" dist -q -k 3 -s 16 S_m1.fa S.fa >ref.rows
timeout 20 "$T" dist -q -k 3 -s 16 S_m1.fa <(cat S.fa) >sub.rows
expect_same ref.rows sub.rows "1: dist (sketch rows) reads <(cat S.fa)"
"$T" sketch -q --genome S.fa -o file.tsk && "$T" export file.tsk | cut -f2- >file.keys
timeout 20 "$T" sketch -q --genome <(cat S.fa) -o sub.tsk && "$T" export sub.tsk | cut -f2- >sub.keys
[ -s file.keys ] && expect_same file.keys sub.keys "1: sketch --genome reads <(cat S.fa)" ||
    not_ok "1: sketch --genome reads <(cat S.fa)" "no keys"
cat S.fa | timeout 20 "$T" sketch -q --genome - -o stdin.tsk && "$T" export stdin.tsk | cut -f2- >stdin.keys
expect_same file.keys stdin.keys "1: sketch --genome reads stdin"

# a .tsk through a pipe or stdin: refused (it is mapped), exit 3, and never "give it to dist" to dist
"$T" sketch -q --genome S_m1.fa -o one.tsk
expect_exit 3 'stdin: a \.tsk sketch file through a pipe or stdin: give sketch files as files' \
    "1/10: cat G.tsk | dist - one.tsk: refused (exit 3)" -- sh -c 'cat "$1" | timeout 20 "$2" dist - "$3"' sh file.tsk "$T" one.tsk
err_lacks "give it to dist" "10: the refusal does not tell dist to give it to dist"
expect_exit 3 '/dev/fd/[0-9]+: a \.tsk sketch file through a pipe or stdin: give sketch files as files' \
    "1: dist one.tsk <(cat G.tsk): refused (exit 3)" -- timeout 20 "$T" dist one.tsk <(cat file.tsk)
expect_exit 3 'stdin: a \.tsk sketch file through a pipe' "1: dist - < G.tsk (a regular file on stdin): refused as well" \
    -- timeout 20 "$T" dist - <file.tsk
expect_exit 2 "info needs a \.tsk file by name" "10: info - says that info needs a file (exit 2)" -- "$T" info -
err_lacks "no such file" "10: info - does not say 'no such file'"
expect_exit 3 "/dev/fd/[0-9]+: a \.tsk sketch file is mapped, not read through a pipe or stdin" \
    "1: info <(cat G.tsk): refused, naming it (exit 3)" -- timeout 20 "$T" info <(cat file.tsk)

# ---- 2. duplicate --per-file names: exit 3 (fixed before; kept) ----
mkdir -p s1 s2 && cp S.fa s1/contigs.fasta && cp S_m1.fa s2/contigs.fasta
expect_exit 3 "s1/contigs.fasta and s2/contigs.fasta would both be named 'contigs'" \
    "2: sketch --genome --per-file s1/contigs.fasta s2/contigs.fasta: exit 3" -- \
    "$T" sketch --genome --per-file s1/contigs.fasta s2/contigs.fasta -o dup.tsk
expect_exit 3 "S.fa and S.fa would both be named 'S'" "2: the same file twice: exit 3" -- \
    "$T" sketch --genome --per-file S.fa S.fa -o dup.tsk
printf 'a\tS.fa\na\tS_m1.fa\n' >dup.txt
expect_exit 3 "would both be named 'a'" "2: a -l list repeating a name: exit 3" -- \
    "$T" sketch --genome --per-file -l dup.txt -o dup.tsk
[ -e dup.tsk ] && not_ok "2: no output left by the refusals" || ok "2: no output left by the refusals"

# ---- 5. names with a tab or newline: refused everywhere ----
expect_exit 2 "-I/--id 'x\\\\ny': name contains a tab or newline" "5: sketch --genome --per-file -I 'x<LF>y': exit 2" -- \
    "$T" sketch --genome --per-file -I "$(printf 'x\ny')" S.fa -o nl.tsk
expect_exit 2 "-I/--id 'x\\\\ty': name contains a tab or newline" "5: sketch --per-file -I 'x<TAB>y' (sketch rows): exit 2" -- \
    "$T" sketch --per-file -I "$(printf 'x\ty')" S.fa -o nl.tsk
expect_exit 2 "name contains a tab or newline" "5: dist --genome --per-file -I 'x<CR>y': exit 2" -- \
    "$T" dist --genome --per-file -I "$(printf 'x\ry')" S.fa
cp S.fa "tab	here.fa"
expect_exit 3 "tab\\\\there\.fa: .*name contains a tab or newline" "5: sketch --genome --per-file 'tab<TAB>here.fa': exit 3, naming it" -- \
    "$T" sketch --genome --per-file "tab	here.fa" -o nl.tsk
expect_exit 3 "tab\\\\there\.fa: .*name contains a tab or newline" "5: dist --per-file 'tab<TAB>here.fa' (sketch rows): exit 3" -- \
    "$T" dist --per-file S_m1.fa "tab	here.fa"
expect_exit 3 "tab\\\\there\.fa: .*name contains a tab or newline" "5: triangle --genome --per-file 'tab<TAB>here.fa': exit 3" -- \
    "$T" triangle --genome --per-file S_m1.fa "tab	here.fa"
printf 'a\rb\tS.fa\n' >cr.txt
expect_exit 3 "cr\.txt:1: name contains a tab or newline" "5: a list name with a CR: exit 3, naming the list" -- \
    "$T" sketch --genome --per-file -l cr.txt -o nl.tsk
[ -e nl.tsk ] && not_ok "5: no output left by the refusals" || ok "5: no output left by the refusals"
# a .tsk holding such a name (a CRC-valid file of another writer): refused by every reader
"$T" sketch -q --genome --per-file -I tabXname S.fa -o tn.tsk
python3 -c "import sys; b = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(b.replace(b'tabXname', b'tab\tname'))" \
    tn.tsk tabname.tsk && python3 "$PATCH" tabname.tsk tabname.tsk crc
for cmd in "dist" "info" "export" "paste pasted.tsk one.tsk"; do
    expect_exit 3 "tabname\.tsk: record 1: name contains a tab or newline" "5: $cmd of a .tsk with a tab in a name: exit 3" -- \
        "$T" $cmd tabname.tsk
done

# ---- 9. exit codes ----
expect_exit 2 "genome sketches are key sets .*--format npy does not apply" "9: export -f npy of genome sketches: exit 2" -- \
    "$T" export -f npy file.tsk -o g.npy
# a .tsk larger than the address space left (a sparse file): out of memory (1), not a bad file (3)
cp file.tsk huge.tsk && truncate -s 200M huge.tsk
expect_exit 3 "huge\.tsk: corrupt" "9: the sparse file is refused as corrupt with memory enough" -- "$T" dist huge.tsk
if { (ulimit -v 100000 && "$T" --version) >/dev/null 2>&1; } 2>/dev/null; then # the shell's "Aborted" too
    for cmd in dist tree info; do
        expect_exit 1 "huge\.tsk: out of memory" "9: $cmd under ulimit -v 100000: exit 1, out of memory" -- \
            sh -c 'ulimit -v 100000 && exec "$@"' sh "$T" $cmd huge.tsk
    done
else
    skip "ulimit -v: this binary does not start under it (a sanitizer build)"
fi

# ---- 10. messages ----
"$T" sketch -q --genome --scaled 100 S.fa -o s100.tsk
expect_exit 4 "incompatible sketches: scaled: 500 in file\.tsk, 100 in s100\.tsk" "10: genome sketches of another scale: exit 4" -- \
    "$T" dist file.tsk s100.tsk
err_lacks "stride" "10: the genome difference names no stride"
"$T" sketch -q S.fa -o vec.tsk
expect_exit 4 "kind: sketch rows in vec\.tsk, genome sketches in file\.tsk .*'tsketch sketch --genome'" \
    "10: sketch rows against genome sketches: the kind, and how to make genome sketches" -- "$T" dist vec.tsk file.tsk
err_lacks "stride|window|dimension" "10: ... and nothing that follows from the kind"
expect_exit 2 "'tsketch sketch --genome'" "10: dist --genome vec.tsk points to sketch --genome" -- "$T" dist --genome vec.tsk
err_lacks "--stride" "10: ... not to --window/--stride"
printf '>one\nACG\n' >short.fa
expect_exit 0 "fewer than t=4, the tuple length \(-k 4\)" "10: a record shorter than t names the option" -- "$T" sketch short.fa -o short.tsk
printf '>one\nA\n' >onebase.fa
expect_exit 0 "\(1 base; windows of 20 bases" "10: genome warnings in English (1 base)" -- "$T" sketch --genome onebase.fa -o ob.tsk
# a full disk under a .gz output: one tsketch line naming the file, none of htslib's
python3 -c "
import random
random.seed(5)
for i in range(400): print('>r%d\n%s' % (i, ''.join(random.choice('ACGT') for _ in range(60))))" >many.fa
"$T" sketch -q -s 16 many.fa -o many.tsk
FULL=$WORK/full
mkdir -p "$FULL"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k tsketch-full "$FULL" 2>/dev/null; then
    trap 'umount "$FULL" 2>/dev/null; rm -rf "$WORK"' EXIT
    reason="No space left on device"
    limit=()
else # not root: a file size limit (SIGXFSZ ignored: the write fails with EFBIG)
    reason="File too large"
    limit=(sh -c 'trap "" XFSZ; ulimit -f 64 && exec "$@"' sh)
fi
for out in d.tsv.gz t.phylip.gz; do
    cmd=dist
    [ "$out" = t.phylip.gz ] && cmd=triangle
    expect_exit 1 "^tsketch: .*full/$out: write failed: $reason" "10: $cmd -o $out on a full disk: exit 1, the reason" -- \
        "${limit[@]}" "$T" "$cmd" -q many.tsk -o "$FULL/$out"
    if [ "$(wc -l <"$WORK/err")" -ne 1 ]; then not_ok "10: $cmd -o $out on a full disk: one line" "$(head -c 300 "$WORK/err")"
    else err_lacks '^\[E::' "10: $cmd -o $out on a full disk: one line, no htslib lines"; fi
    [ -n "$(ls -A "$FULL")" ] && not_ok "10: $cmd -o $out leaves nothing behind" "$(ls -A "$FULL")" && rm -f "$FULL"/* "$FULL"/.[!.]*
done

# ---- 11. -f npy -o x.npy.gz: the .npy, BGZF-compressed; its names as they were ----
"$T" dist -q -f npy many.tsk -o plain.npy
"$T" dist -q -f npy many.tsk -o comp.npy.gz
if gzip -dc comp.npy.gz >comp.npy 2>/dev/null && [ -s plain.npy ]; then expect_same plain.npy comp.npy "11: gzip -dc x.npy.gz is the plain -o x.npy"
else not_ok "11: gzip -dc x.npy.gz is the plain -o x.npy" "not gzip data: $(head -c 8 comp.npy.gz | od -c | head -1)"; fi
expect_same plain.npy.names comp.npy.gz.names "11: the names file of x.npy.gz is the plain run's"
"$T" dist -q -f npy many.tsk S.fa -o q.npy.gz 2>/dev/null; "$T" dist -q -f npy many.tsk S.fa -o q.npy 2>/dev/null
gzip -dc q.npy.gz 2>/dev/null | cmp -s - q.npy && ok "11: queries x references as .npy.gz" || not_ok "11: queries x references as .npy.gz"
"$T" export -f npy many.tsk -o e.npy && "$T" export -f npy many.tsk -o e.npy.gz
gzip -dc e.npy.gz 2>/dev/null | cmp -s - e.npy && ok "11: export -f npy -o x.npy.gz as well" || not_ok "11: export -f npy -o x.npy.gz as well"

# ---- 13. protein given to --genome: warned, once per input, naming it ----
python3 -c "
import random
random.seed(7)
for i in range(3): print('>prot%d\n%s' % (i, ''.join(random.choice('ACDEFGHIKLMNPQRSTVWY') for _ in range(2000))))" >prot.fa
cp prot.fa prot2.fa
expect_exit 0 "prot\.fa: [0-9]+ of the 2000 letters of 'prot0' are not A, C, G or T .*protein" \
    "13: sketch --genome of protein: a warning naming the input" -- "$T" sketch --genome prot.fa S.fa -o p.tsk
n=$(grep -c "not A, C, G or T" "$WORK/err")
[ "$n" = 1 ] && ok "13: once per input (3 protein records, 1 DNA genome)" || not_ok "13: once per input" "$n warnings"
expect_exit 0 "prot2\.fa: .*protein" "13: --per-file: each protein file named" -- \
    "$T" sketch --genome --per-file prot.fa S.fa prot2.fa -o p.tsk
n=$(grep -c "not A, C, G or T" "$WORK/err")
[ "$n" = 2 ] && ok "13: --per-file: one warning per protein file, none for DNA" || not_ok "13: --per-file: one warning per protein file" "$n warnings"
"$T" sketch --genome S.fa S_m1.fa -o p.tsk 2>dna.err && [ -e p.tsk ] && ! grep -q "not A, C, G or T" dna.err &&
    ok "13: DNA alone: no warning" || not_ok "13: DNA alone: no warning" "$(cat dna.err)"
# a genome of no A, C, G or T at all (a gap, all N) is no protein: warned about as what it is
cp "$TESTDATA/golden/protein.fa" protein.fa
printf '>gap\n%s\n' "$(printf 'N%.0s' $(seq 300))" >allN.fa
printf '>odd\n%s\n' "$(printf 'XN-*%.0s' $(seq 50))" >noacgt.fa
# FILE|sketch options|the warning it must give (ERE)|a warning it must not give (ERE)
while IFS='|' read -r file opts want unwanted; do
    desc="13: $file ($opts): /$want/"
    # shellcheck disable=SC2086 # opts: words without blanks
    "$T" sketch $opts "$file" S.fa -o p.tsk 2>case.err
    if ! grep -Eq -- "$want" case.err; then not_ok "$desc" "$(head -c 300 case.err)"
    elif grep -Eq -- "$unwanted" case.err; then not_ok "$desc: and not /$unwanted/" "$(head -c 300 case.err)"
    else ok "$desc, not /$unwanted/"; fi
done <<'CASES'
allN.fa|--genome --per-file|allN\.fa: 'allN' holds no A, C, G or T \(its 300 letters|protein
allN.fa|--genome|allN\.fa: 'gap' holds no A, C, G or T|protein
noacgt.fa|--genome --per-file|noacgt\.fa: 'noacgt' holds no A, C, G or T \(its 200 letters|protein
protein.fa|--genome --per-file|protein\.fa: [0-9]+ of the [0-9]+ letters of 'protein' are not A, C, G or T .*protein|holds no A, C, G or T
protein.fa|--genome|protein\.fa: [0-9]+ of the [0-9]+ letters of 'p1' are not A, C, G or T .*protein|holds no A, C, G or T
CASES

finish
