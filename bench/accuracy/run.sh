#!/bin/sh
# The accuracy bench of docs/accuracy.md, end to end. From the repository root:
#   bench/accuracy/run.sh [BUILD_DIR]          (default build-acc; needs BUILD_DIR/src/tsketch)
# Sections (ACC_SECTIONS, default "protocol mash genomes genome_cli"; add "sweep" for the tuning grid).
# Caches generated pairs and tools in BUILD_DIR/acc-cache; exact edit distances are cached in
# testdata/accuracy/edit_seedN.tsv (recomputed with /work/shared/eval/edit_distance.c when missing).
# Results go to bench/accuracy/results/*.tsv. Uses Debian's /usr/bin/python3 (numpy).
set -eu
BUILD=${1:-build-acc}
SHARED=${TSK_SHARED:-/work/shared}
PY=/usr/bin/python3
HERE=bench/accuracy
RES=$HERE/results
C=$BUILD/acc-cache
T=$BUILD/src/tsketch
SECTIONS=${ACC_SECTIONS:-protocol mash genomes genome_cli}
TUNE_SEEDS="1 2"
HELD_SEEDS="3 4 5 6"
mkdir -p "$C" "$RES"
CC=${CC:-cc}

tool() {  # build a harness tool once
    [ -x "$C/$1" ] || { shift; "$CC" "$@"; }
}
tool edit_distance -O3 -o "$C/edit_distance" "$SHARED/eval/edit_distance.c"
tool tss_rows -std=c17 -O3 -fopenmp -D_GNU_SOURCE -Icore -o "$C/tss_rows" $HERE/tss_rows.c core/tsk_def.c -lz -lm
[ "$C/genome_matrix" -nt bench/accuracy/genome_matrix.c ] || rm -f "$C/genome_matrix"
tool genome_matrix -std=c17 -O3 -fopenmp -D_GNU_SOURCE -Icore -Icpu -o "$C/genome_matrix" \
    $HERE/genome_matrix.c cpu/genome_dist.c core/tsk_def.c -lm

for s in $TUNE_SEEDS $HELD_SEEDS; do
    [ -s "$C/pairs_s$s.fa" ] || $PY "$SHARED/eval/gen_pairs.py" --seed "$s" > "$C/pairs_s$s.fa"
    if [ ! -s "testdata/accuracy/edit_seed$s.tsv" ]; then
        "$C/edit_distance" "$C/pairs_s$s.fa" > "$C/edit_s$s.tmp"
        mv "$C/edit_s$s.tmp" "testdata/accuracy/edit_seed$s.tsv"
    fi
    [ -s "$C/a_s$s.fa" ] || awk -v a="$C/a_s$s.fa" -v b="$C/b_s$s.fa" \
        '/^>/{f = ($0 ~ /_a$/) ? a : b} {print > f}' "$C/pairs_s$s.fa"
done

# The paper's protocol with tsketch itself: sketch the a and b sides, `tsketch dist` of every a
# against every b, keep the matching pairs, score against edit distance.
protocol_row() {  # label seed metric sketch-options...
    label=$1 seed=$2 metric=$3; shift 3
    $T sketch -q "$@" "$C/a_s$seed.fa" -o "$C/pa.tsk"
    $T sketch -q "$@" "$C/b_s$seed.fa" -o "$C/pb.tsk"
    $T dist -q --metric "$metric" "$C/pa.tsk" "$C/pb.tsk" |
        awk -F'\t' '{pa = $1; sub(/_a$/, "", pa); pb = $2; sub(/_b$/, "", pb); if (pa == pb) print}' > "$C/pd.tsv"
    echo "$label	$seed	$metric	$($PY $HERE/score_pairs.py "testdata/accuracy/edit_seed$seed.tsv" "$C/pd.tsv")"
}

if echo "$SECTIONS" | grep -qw protocol; then
    out=$RES/protocol.tsv
    echo "config	seed	metric	spearman	auroc0.1	auroc0.2	auroc0.5" > "$out.tmp"
    for s in $TUNE_SEEDS $HELD_SEEDS; do
        for m in l2 cosine; do
            protocol_row "slide t=2 D=32 w=500 s=50 (new --slide)" "$s" $m -k 2 -s 32 --window 500 --stride 50
            protocol_row "slide t=3 D=64 w=1000 s=100 (old --slide)" "$s" $m -k 3 -s 64 --window 1000 --stride 100
            protocol_row "slide t=3 D=8 w=1000 s=100 (authors' anchor)" "$s" $m -k 3 -s 8 --window 1000 --stride 100
            protocol_row "whole t=4 D=96 (spec default)" "$s" $m -k 4 -s 96
            protocol_row "whole t=6 D=256" "$s" $m -k 6 -s 256
            protocol_row "whole t=6 D=512" "$s" $m -k 6 -s 512
        done
    done >> "$out.tmp"
    mv "$out.tmp" "$out"
fi

if echo "$SECTIONS" | grep -qw mash; then
    out=$RES/mash.tsv
    echo "config	seed	metric	spearman	auroc0.1	auroc0.2	auroc0.5" > "$out.tmp"
    # k and sketch size were tuned on seeds 1-2 (k 8..21, s 1000 and 10000: docs/accuracy.md)
    for s in $HELD_SEEDS; do
        for ks in "10 10000" "12 1000"; do
            set -- $ks
            $HERE/mash_pairs.sh "$C/pairs_s$s.fa" "$1" "$2" "$C/mash.tsv"
            echo "mash k=$1 s=$2	$s	mash	$($PY $HERE/score_pairs.py "testdata/accuracy/edit_seed$s.tsv" "$C/mash.tsv")"
        done
    done >> "$out.tmp"
    mv "$out.tmp" "$out"
fi

if echo "$SECTIONS" | grep -qw sweep; then
    # the tuning grid on seeds 1 and 2 with the harness sketcher (tss_rows; equal to tsketch's
    # rows bit for bit, checked below)
    CFGS=""
    for t in 2 3 4 5; do for w in 250 500 1000 2000; do CFGS="$CFGS $t:64:$w:$((w / 10))"; done; done
    for t in 2 3 4; do for w in 400 500 700; do for D in 16 32 64; do CFGS="$CFGS $t:$D:$w:$((w / 10))"; done; done; done
    for t in 2 3; do for s in 25 100 250; do CFGS="$CFGS $t:32:500:$s"; done; done
    CFGS="$CFGS 3:8:1000:100 3:8:500:50 2:8:500:50"
    for t in 2 3 4 5 6; do for D in 32 96 256 512; do CFGS="$CFGS $t:$D:0:0"; done; done
    $PY $HERE/sweep.py --cache "$C" --seeds 1,2 --out $RES/sweep.tsv $CFGS
fi

if echo "$SECTIONS" | grep -qw genomes; then
    # Genome sets: whole-record (positional) sketches with `tsketch dist`, and slide rows compared
    # as sets with cpu/genome_dist.c (genome_matrix).
    [ -s "$C/bloch.fa" ] || for f in "$SHARED"/data/bacteria/blochmannia/*.fna.gz; do
        zcat "$f" | sed "1s/.*/>$(basename "$f" .fna.gz)/"
    done > "$C/bloch.fa"
    cp "$SHARED/data/viral/viralwasm_example_sc2_seqs_100.fas" "$C/sc2.fa"
    out=$RES/genomes.tsv
    echo "set	method	truth	pairs	spearman" > "$out.tmp"
    for set in bloch sc2; do
        $T dist -q -k 4 -s 96 --canonical "$C/$set.fa" > "$C/g.tsv"
        $PY $HERE/score_genomes.py $set "$C/g.tsv" | sed "s/^/$set	whole t=4 D=96 canonical, l2	/" >> "$out.tmp"
        $T dist -q -k 4 -s 96 --canonical --window 2000 --stride 400 "$C/$set.fa" > "$C/g.tsv"
        $PY $HERE/score_genomes.py $set "$C/g.tsv" | sed "s/^/$set	slide t=4 D=96 w=2000 s=400 canonical, positional l2	/" >> "$out.tmp"
        cfgs='4 64 2000 400,3 64 1000 200'
        # a fine stride (rows 50 bp apart) is affordable on 30 kb genomes
        [ $set = sc2 ] && cfgs="$cfgs,4 64 2000 50"
        echo "$cfgs" | tr , '\n' | while read -r cfg; do
            set -- $cfg
            $T sketch -q -p 2 --canonical -k "$1" -s "$2" --window "$3" --stride "$4" "$C/$set.fa" -o "$C/g.tsk"
            $T export --format tsv "$C/g.tsk" -o "$C/g_rows.tsv"
            $PY $HERE/rows_tsv2f32.py "$C/g_rows.tsv" "$C/g_rows"
            for mode in chord nochord; do
                flag=; [ $mode = chord ] && flag=-c
                [ "$4" = 50 ] && [ $mode = nochord ] && continue
                "$C/genome_matrix" -p 2 $flag "$C/g_rows" "$2" > "$C/g.tsv"
                $PY $HERE/score_genomes.py $set "$C/g.tsv" |
                    sed "s/^/$set	set: mean nearest-row l2 ($mode) t=$1 D=$2 w=$3 s=$4 canonical	/" >> "$out.tmp"
            done
        done
    done
    mv "$out.tmp" "$out"
fi
if echo "$SECTIONS" | grep -qw genome_cli; then
    # `tsketch dist --genome` (defaults: --canonical --anchored -k 4 -s 16 --window 16 --stride 10,
    # chosen on the tuning sets: Blochmannia/fastANI and tune_near/far/mid) and Mash (k=21,
    # s=10000) on the same genomes. Held out: SARS-CoV-2 SNPs, and two synthetic sets with known ANI
    # (genome_synth.py: one real ancestor, rearranged, reverse-complemented, cut into contigs;
    # genomes are files, --per-file).
    [ -s "$C/bloch.fa" ] || for f in "$SHARED"/data/bacteria/blochmannia/*.fna.gz; do
        zcat "$f" | sed "1s/.*/>$(basename "$f" .fna.gz)/"
    done > "$C/bloch.fa"
    cp "$SHARED/data/viral/viralwasm_example_sc2_seqs_100.fas" "$C/sc2.fa"
    ANC="$SHARED/data/bacteria/blochmannia/GCF_000011745.1_ASM1174v1_genomic.fna.gz"
    [ -s "$C/synth_near/truth.tsv" ] ||
        $PY $HERE/genome_synth.py "$ANC" "$C/synth_near" --seed 101 --min-rate 0 --max-rate 0.05
    [ -s "$C/synth_far/truth.tsv" ] ||
        $PY $HERE/genome_synth.py "$ANC" "$C/synth_far" --seed 102 --min-rate 0.05 --max-rate 0.35 --indel-share 0.667
    out=$RES/genome_cli.tsv
    echo "set	split	method	truth	pairs	spearman" > "$out.tmp"
    mash_set() {  # label FASTA... -> pairs in $C/m.tsv
        mash sketch -p 2 -k 21 -s 10000 -o "$C/m" "$@" > /dev/null 2>&1
        mash dist "$C/m.msh" "$C/m.msh" | awk -F'\t' -v OFS='\t' '{print $1, $2, $3}' > "$C/m.tsv"
    }
    # tuning sets (another ancestor, B. floridanus; seeds 201-203); 101/102 held out
    ANC2="$SHARED/data/bacteria/blochmannia/GCF_000043285.1_ASM4328v1_genomic.fna.gz"
    [ -s "$C/tune_near/truth.tsv" ] ||
        $PY $HERE/genome_synth.py "$ANC2" "$C/tune_near" --seed 201 --min-rate 0 --max-rate 0.05 --indel-share 0.1
    [ -s "$C/tune_far/truth.tsv" ] ||
        $PY $HERE/genome_synth.py "$ANC2" "$C/tune_far" --seed 202 --min-rate 0.05 --max-rate 0.35 --indel-share 0.667
    [ -s "$C/tune_mid/truth.tsv" ] ||
        $PY $HERE/genome_synth.py "$ANC2" "$C/tune_mid" --seed 203 --min-rate 0 --max-rate 0.2 --indel-share 0.3
    # three row kinds per set: the defaults (anchored 16-base windows, shared-window share; what
    # `dist --genome` uses for FASTA, tests/cli/test_genome.sh checks that), the earlier default
    # (plain 1000-base windows, nearest rows with chains) and anchored 1000-base windows
    # (shared-window share); sketched first (genomes are records of bloch.fa and sc2.fa, files of
    # the synthetic sets), then `dist --genome` on the .tsk
    ROWS_DEFAULT="--canonical --anchored -k 4 -s 16 --window 16 --stride 10"
    ROWS_PLAIN1000="--canonical -k 3 -s 64 --window 1000 --stride 100"
    ROWS_ANCH1000="--canonical --anchored -k 3 -s 64 --window 1000 --stride 100"
    genome_rows() {  # set split per-file? inputs...
        set_=$1 split=$2 pf=$3
        shift 3
        for kind in DEFAULT PLAIN1000 ANCH1000; do
            eval "opts=\$ROWS_$kind"
            $T sketch -q -p 2 $pf $opts "$@" -o "$C/g.tsk"
            $T dist -q -p 2 --genome "$C/g.tsk" > "$C/g.tsv"
            label="tsketch --genome $opts"
            [ $kind = DEFAULT ] && label="$label (the defaults)"
            case $set_ in
                bloch | sc2) $PY $HERE/score_genomes.py "$set_" "$C/g.tsv" | sed "s/^/$set_	$split	$label	/" >> "$out.tmp" ;;
                *) echo "$set_	$split	$label	ANI	$($PY $HERE/score_truth.py "$C/$set_/truth.tsv" "$C/g.tsv")" >> "$out.tmp" ;;
            esac
        done
    }
    genome_rows bloch tuned "" "$C/bloch.fa"
    mash_set "$SHARED"/data/bacteria/blochmannia/*.fna.gz
    sed -e 's#[^\t]*/##g' -e 's/\.fna\.gz//g' "$C/m.tsv" > "$C/m2.tsv"
    $PY $HERE/score_genomes.py bloch "$C/m2.tsv" | sed "s/^/bloch	-	mash k=21 s=10000	/" >> "$out.tmp"
    genome_rows sc2 held-out "" "$C/sc2.fa"
    mash sketch -i -p 2 -k 21 -s 10000 -o "$C/m" "$C/sc2.fa" > /dev/null 2>&1
    mash dist "$C/m.msh" "$C/m.msh" | awk -F'\t' -v OFS='\t' '{print $1, $2, $3}' > "$C/m.tsv"
    $PY $HERE/score_genomes.py sc2 "$C/m.tsv" | sed "s/^/sc2	-	mash k=21 s=10000	/" >> "$out.tmp"
    for set in tune_near tune_far tune_mid synth_near synth_far; do
        split=held-out
        case $set in tune_*) split=tuned ;; esac
        genome_rows $set $split --per-file "$C/$set"/g*.fa
        mash_set "$C/$set"/g*.fa
        echo "$set	-	mash k=21 s=10000	ANI	$($PY $HERE/score_truth.py "$C/$set/truth.tsv" "$C/m.tsv")" >> "$out.tmp"
    done
    mv "$out.tmp" "$out"
fi
echo "results in $RES/"
