#!/bin/bash
# test_genome_index.sh: the CPU engines of genome sketches give the same bytes (src/dist_run.c,
# cpu/genome_index.h): the inverted index and every pair's merge (TSKETCH_GENOME_CPU_ENGINE=index,
# merge; auto chooses by cost), for every output that selects pairs (top-k, thresholds,
# --containment, cluster greedy and single, --min-af, --block parts), at -p 1, 2 and 16, one set and
# queries against references, and under a memory cap. Synthetic families (bench/genome/genome_gen)
# share keys within a family and almost none across; planted sets: a genome with itself, a
# reference of one genome, genomes sharing nothing.
# Usage: TSKETCH=... TESTDATA=... GENOME_GEN=... bash test_genome_index.sh
source "$(dirname "$0")/harness.sh"
T=$TSKETCH
GEN=${GENOME_GEN:-}
[ -x "$GEN" ] || skip_all "bench/genome/genome_gen not built (GENOME_GEN names it)"
"$GEN" -n 120 -f 8 -L 20000-60000 -d 0.02 -s 11 -p 2 --one-file "$WORK/g.fa" >/dev/null 2>&1
"$T" sketch -q --genome -p 2 "$WORK/g.fa" -o "$WORK/g.tsk"
awk '/^>/ { keep = (n++ % 4 == 1) } keep' "$WORK/g.fa" >"$WORK/gq.fa"
"$T" sketch -q --genome -p 2 "$WORK/gq.fa" -o "$WORK/gq.tsk"
awk '/^>/ { n++ } n == 1' "$WORK/g.fa" >"$WORK/one.fa"
"$T" sketch -q --genome "$WORK/one.fa" -o "$WORK/one.tsk"
"$T" sketch -q --genome "$TESTDATA/genomes/MT-human.fa" "$TESTDATA/genomes/NC_001422_phiX174.fa" -o "$WORK/far.tsk"
G=$WORK/g.tsk GQ=$WORK/gq.tsk
[ -s "$G" ] && [ -s "$GQ" ] && ok "synthetic genomes sketched" || not_ok "synthetic genomes sketched"

# same DESC CMD...: the output of the merge at -p 2 equals the index's and auto's at -p 1, 2, 16
# (EMPTY=1: and it is empty)
same() {
    local desc=$1
    shift
    TSKETCH_GENOME_CPU_ENGINE=merge "$@" -q --device cpu -p 2 >"$WORK/want" 2>"$WORK/want.err" || {
        not_ok "$desc" "the merge run failed: $(head -c 300 "$WORK/want.err")"
        return
    }
    local e p bad=""
    for e in index auto; do
        for p in 1 2 16; do
            TSKETCH_GENOME_CPU_ENGINE=$e "$@" -q --device cpu -p $p >"$WORK/got" 2>"$WORK/got.err" || bad="$bad $e/-p$p:failed"
            cmp -s "$WORK/want" "$WORK/got" || bad="$bad $e/-p$p"
        done
    done
    if [ "${EMPTY:-0}" = 1 ] && [ -s "$WORK/want" ]; then bad="$bad (not empty)"
    elif [ "${EMPTY:-0}" = 0 ] && [ ! -s "$WORK/want" ]; then bad="$bad (empty)"; fi
    if [ -z "$bad" ]; then ok "$desc: index = auto = merge ($(wc -l <"$WORK/want") lines)"
    else not_ok "$desc: index = auto = merge" "differ:$bad"; fi
}
same "top-10, one set" "$T" dist --top-k 10 "$G"
same "top-3, queries against references" "$T" dist --top-k 3 "$G" "$GQ"
same "top-70 (past the device lists' k)" "$T" dist --top-k 70 "$G"
same "-d 0.05, one set" "$T" dist -d 0.05 "$G"
same "-d 0.2, queries against references" "$T" dist -d 0.2 "$G" "$GQ"
same "--containment --top-k 5" "$T" dist --containment --top-k 5 "$GQ" "$G"
same "--containment -d 0.1" "$T" dist --containment -d 0.1 "$G" "$GQ"
same "--block 2/3 -d 0.08" "$T" dist --block 2/3 -d 0.08 "$G"
same "cluster greedy" "$T" cluster "$G"
same "cluster single -d 0.03" "$T" cluster --method single -d 0.03 "$G"
same "cluster --min-af 0.5" "$T" cluster --min-af 0.5 "$G"
same "a reference of one genome" "$T" dist --top-k 5 "$WORK/one.tsk" "$G"
same "a genome against itself (--with-self)" "$T" dist --with-self -d 0.5 "$WORK/one.tsk"
EMPTY=1 same "genomes that share nothing: no neighbour" "$T" dist --top-k 3 "$WORK/far.tsk" "$GQ"
EMPTY=1 same "genomes that share nothing: no pair within 0.5" "$T" dist -d 0.5 "$WORK/far.tsk" "$GQ"
# the same bytes when the index must fit 600 MB of address space (it holds ~10 bytes a key)
if { (ulimit -v 600000 && "$T" --version) >/dev/null 2>&1; } 2>/dev/null; then # the shell's "Aborted" too
    (ulimit -v 600000 && TSKETCH_GENOME_CPU_ENGINE=index "$T" dist -q --device cpu -p 2 --top-k 10 "$G" >"$WORK/capped")
    TSKETCH_GENOME_CPU_ENGINE=merge "$T" dist -q --device cpu -p 2 --top-k 10 "$G" >"$WORK/merge"
    expect_same "$WORK/merge" "$WORK/capped" "top-10 under ulimit -v 600000: index = merge"
else
    skip "ulimit -v: this binary does not start under it (a sanitizer build)"
fi
TSKETCH_GENOME_CPU_ENGINE=fast "$T" dist -q --top-k 3 "$G" >/dev/null 2>"$WORK/err"
expect_true "TSKETCH_GENOME_CPU_ENGINE=fast is refused naming the knob" -- grep -q TSKETCH_GENOME_CPU_ENGINE "$WORK/err"
finish
