#!/bin/bash
# test_quality_names.sh: `cluster --quality` reads the quality tables of the field's tools and
# matches their names to genomes as users write them (docs/cluster.md, "Quality"). Six SARS-CoV-2
# genomes, one a file, in one cluster: each table makes another genome the best, and that genome
# must be the representative. The files are named as bins are (bin_1.fna.gz, gam.fsa, c.FNA, ...);
# CheckM2 writes bin_1.fna.gz as "bin_1.fna", users write paths or full file names.
# Usage: TSKETCH=... TESTDATA=... bash test_quality_names.sh
source "$(dirname "$0")/harness.sh"
T=$(cd "$(dirname "$TSKETCH")" && pwd)/$(basename "$TSKETCH") # absolute: the checks run in $WORK
SC2=$(cd "$TESTDATA/genomes" && pwd)/sarscov2_6.fa
cd "$WORK" || exit 1
awk '/^>/ { n++ } { print > ("r" n ".fa") }' "$SC2"
mkdir bins
gzip -c r1.fa >bins/bin_1.fna.gz
cp r2.fa bins/gam.fsa
cp r3.fa bins/c.FNA
cp r4.fa bins/d.fa
cp r5.fa bins/e.fasta
cp r6.fa bins/f.fa
"$T" sketch -q --genome --per-file bins/* -o G.tsk
expect_true "genomes named without their extensions (.fsa and upper case too)" -- \
    test "$("$T" info --records G.tsk | awk -F'\t' 'f { print $1 } /^#name/ { f = 1 }' | sort | tr '\n' ' ')" = "bin_1 c d e f gam "

# representative_is WANT DESC QUALITY-TEXT: cluster with that quality file; WANT is the one representative
representative_is() {
    printf '%s' "$3" >q.txt
    "$T" cluster -q --quality q.txt G.tsk -o c.tsv --representatives reps.txt 2>err.txt
    local rc=$?
    if [ $rc -eq 0 ] && [ "$(cat reps.txt)" = "$1" ] && [ ! -s err.txt ]; then
        ok "$2: $1 represents"
    else
        not_ok "$2: $1 represents" "exit $rc, representatives: $(tr '\n' ' ' <reps.txt 2>/dev/null)" "$(head -c 300 err.txt)"
    fi
}
# CheckM2 names bins/bin_1.fna.gz "bin_1.fna", keeps the rest but their last extension
representative_is gam "CheckM2 quality_report.tsv, names as CheckM2 writes them" "$(printf '%s\n' \
    $'Name\tCompleteness\tContamination\tCompleteness_Model_Used\tTranslation_Table_Used' \
    $'bin_1.fna\t90\t1\tNeural Network (Specific Model)\t11' $'gam\t99\t0\tNeural Network (Specific Model)\t11' \
    $'c\t80\t0\tx\t11' $'d\t80\t0\tx\t11' $'e\t80\t0\tx\t11' $'f\t80\t0\tx\t11')"
representative_is c "NAME<TAB>SCORE with full file names" "$(printf '%s\n' \
    $'bin_1.fna.gz\t1' $'gam.fsa\t2' $'c.FNA\t9' $'d.fa\t3' $'e.fasta\t4' $'f.fa\t5')"
representative_is e "NAME<TAB>SCORE with paths" "$(printf '%s\n' \
    $'/data/bins/bin_1.fna.gz\t1' $'bins/gam.fsa\t2' $'./bins/c.FNA\t3' $'bins/d.fa\t4' $'bins/e.fasta\t9' $'bins/f.fa\t5')"
representative_is d "NAME<TAB>SCORE with a byte order mark, a header line, CRLF and trailing blanks" \
    "$(printf '\xef\xbb\xbfgenome\tscore\r\nbin_1 \t1\r\ngam\t 2\r\nc\t3\r\nd\t9 \r\ne\t4\r\nf\t5\r\n')"
representative_is f "CheckM1 qa --tab_table" "$(printf '%s\n' \
    $'Bin Id\tMarker lineage\t# genomes\t# markers\t# marker sets\tCompleteness\tContamination\tStrain heterogeneity' \
    $'bin_1\tk__Viruses\t1\t1\t1\t80\t0\t0' $'gam\tk__Viruses\t1\t1\t1\t80\t0\t0' $'c\tk__Viruses\t1\t1\t1\t80\t0\t0' \
    $'d\tk__Viruses\t1\t1\t1\t80\t0\t0' $'e\tk__Viruses\t1\t1\t1\t80\t1\t0' $'f\tk__Viruses\t1\t1\t1\t99\t0\t0')"
representative_is bin_1 "CheckM2 --allmodels (the model it used)" "$(printf '%s\n' \
    $'Name\tCompleteness_General\tContamination\tCompleteness_Specific\tCompleteness_Model_Used' \
    $'bin_1.fna\t50\t0\t99\tNeural Network (Specific Model)' $'gam\t98\t0\t10\tGradient Boost (General Model)' \
    $'c\t80\t0\t80\tx' $'d\t80\t0\t80\tx' $'e\t80\t0\t80\tx' $'f\t80\t0\t80\tx')"
representative_is gam "dRep genomeInfo CSV" "$(printf '%s\n' 'genome,completeness,contamination,length,N50' \
    'bin_1.fna.gz,90,1,29903,29903' 'gam.fsa,99,0,29903,29903' 'c.FNA,80,0,1,1' 'd.fa,80,0,1,1' 'e.fasta,80,0,1,1' \
    'f.fa,80,0,1,1')"

# names of the file that match no genome: counted once, however often an input repeats
printf '%s\n' $'bin_1\t1' $'gam\t2' $'c\t3' $'d\t4' $'e\t5' $'f\t6' $'ghost\t7' $'ghost2.fa\t8' >q.txt
expect_exit 0 "q.txt: 2 names not among the inputs" "a note counts the names that match no genome" -- \
    "$T" cluster --quality q.txt G.tsk -o c.tsv
expect_exit 0 "q.txt: 2 names not among the inputs" "... the same when an input repeats" -- \
    "$T" cluster --quality q.txt G.tsk G.tsk -o c.tsv
printf '%s\n' $'bin_1.fna\t1' $'bin_1.fa\t2' >q.txt
expect_exit 3 "q.txt: line 2: 'bin_1.fa' and 'bin_1.fna' \(line 1\) both name the genome 'bin_1'" \
    "two names of one genome are refused" -- "$T" cluster --quality q.txt G.tsk -o c.tsv
printf '%s\n' $'Name\tCompleteness\tPurity' $'bin_1\t1\t1' >q.txt
expect_exit 3 "q.txt: line 1: a header without the columns of a CheckM2, CheckM1 or dRep table" \
    "a table header without contamination is refused, saying what it lacks" -- "$T" cluster --quality q.txt G.tsk -o c.tsv
finish
