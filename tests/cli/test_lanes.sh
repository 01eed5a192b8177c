#!/usr/bin/env bash
# CLI: the distance runner's lanes (src/dist_run.c), the scheduler that runs one engine per GPU
# and delivers blocks in query order. Without a GPU the same scheduler runs CPU lanes
# (TSKETCH_DIST_LANES=N), and TSKETCH_DIST_BLOCK=B cuts a small input into many blocks, so that
# lanes finish blocks out of order and the writer must put them back; TSKETCH_DIST_PIPELINE=on
# gives each lane two workers that take its engines in turn (a GPU lane's keys beside its ANI
# refinement); TSKETCH_DIST_SHARDS=on cuts
# genome references into shards over those lanes instead (src/dist_shards.h), whose answers are
# merged, as over GPUs that each hold a part of the references. Every output of `dist`,
# `triangle`, `tree`, `plot` and `cluster` (vector rows and genome sketches; top-k, thresholds, dense TSV, PHYLIP,
# square, npy; one set and queries against references; --block parts) must equal the plain run's
# byte for byte under every lane count and block size; a failed write stops every lane (exit 1,
# no hang, no output left).
#   TSKETCH=... TESTDATA=... [GENOME_GEN=...] bash test_lanes.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
GEN=${GENOME_GEN:-$(dirname "$T")/../bench/genome/genome_gen}
export LC_ALL=C

# ---- inputs: reads (vector rows, whole records and slides) and synthetic genome families ----
# 300 reads of 150-400 bases from the bundled genomes, some repeated with a letter changed, so that
# ties and near pairs occur
python3 - "$TESTDATA/genomes" "$WORK" <<'EOF'
import glob, random, sys
src, out = sys.argv[1], sys.argv[2]
seq = ""
for path in sorted(glob.glob(src + "/*.fa")):
    seq += "".join(l.strip() for l in open(path) if not l.startswith(">"))
seq = "".join(c for c in seq.upper() if c in "ACGT")
rng = random.Random(11)
reads = []
for i in range(300):
    n = rng.randint(150, 400)
    p = rng.randint(0, len(seq) - n)
    reads.append(seq[p:p + n])
for i in range(0, 300, 17):  # near copies: one letter changed
    r = list(reads[i])
    j = rng.randrange(len(r))
    r[j] = "A" if r[j] != "A" else "C"
    reads.append("".join(r))
reads += reads[:5]  # exact duplicates: tied distances
with open(out + "/reads.fa", "w") as f:
    for i, r in enumerate(reads):
        f.write(">r%d\n%s\n" % (i, r))
with open(out + "/queries.fa", "w") as f:
    for i in range(40):
        n = rng.randint(150, 400)
        p = rng.randint(0, len(seq) - n)
        f.write(">q%d\n%s\n" % (i, seq[p:p + n]))
EOF
"$T" sketch -p 2 "$WORK/reads.fa" -o "$WORK/reads.tsk" 2>/dev/null
"$T" sketch -p 2 "$WORK/queries.fa" -o "$WORK/queries.tsk" 2>/dev/null
"$T" sketch -p 2 --window 100 --stride 50 "$WORK/reads.fa" -o "$WORK/slides.tsk" 2>/dev/null
"$T" sketch -p 2 --window 100 --stride 50 "$WORK/queries.fa" -o "$WORK/qslides.tsk" 2>/dev/null
have_genomes=0
if [ -x "$GEN" ]; then
    "$GEN" -n 90 -f 6 -L 20000-40000 -d 0.02 -s 5 -p 2 --one-file "$WORK/g.fa" >/dev/null 2>&1 &&
        "$T" sketch --genome -p 2 "$WORK/g.fa" -o "$WORK/g.tsk" 2>/dev/null && have_genomes=1
    # queries: every third genome of the references (their families' members are near)
    awk '/^>/ { keep = (n++ % 3 == 0) } keep' "$WORK/g.fa" >"$WORK/gq.fa"
    "$T" sketch --genome -p 2 "$WORK/gq.fa" -o "$WORK/gq.tsk" 2>/dev/null || have_genomes=0
    # two references: most of 3 or 16 shards hold none
    awk '/^>/ { n++ } n <= 2' "$WORK/g.fa" >"$WORK/g2.fa"
    "$T" sketch --genome -p 2 "$WORK/g2.fa" -o "$WORK/g2.tsk" 2>/dev/null || have_genomes=0
fi
for f in reads queries slides qslides; do
    [ -s "$WORK/$f.tsk" ] && ok "input $f.tsk made" || not_ok "input $f.tsk made"
done
[ "$have_genomes" = 1 ] && ok "synthetic genomes sketched (bench/genome/genome_gen)" ||
    not_ok "synthetic genomes sketched" "$GEN: not found or failed (GENOME_GEN=... names it)"

# same DESC CMD...: the command's stdout (and its -o file, named $WORK/o.*) under every lane count
# and block size equals the plain run's
SETTINGS=("TSKETCH_DIST_BLOCK=5" "TSKETCH_DIST_LANES=2 TSKETCH_DIST_BLOCK=7" "TSKETCH_DIST_LANES=3 TSKETCH_DIST_BLOCK=1"
          "TSKETCH_DIST_LANES=16 TSKETCH_DIST_BLOCK=13" "TSKETCH_DIST_LANES=3"
          "TSKETCH_DIST_LANES=3 TSKETCH_DIST_SHARDS=on TSKETCH_DIST_BLOCK=5" "TSKETCH_DIST_LANES=16 TSKETCH_DIST_SHARDS=on"
          "TSKETCH_DIST_PIPELINE=on TSKETCH_DIST_BLOCK=3" "TSKETCH_DIST_LANES=3 TSKETCH_DIST_PIPELINE=on TSKETCH_DIST_BLOCK=2")
run_out() { # OUTFILE ENV... -- CMD...: stdout and any $WORK/o.* files, concatenated
    local out=$1
    shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    rm -f "$WORK"/o.*
    env "${envs[@]}" timeout 120 "$@" >"$out" 2>"$WORK/err"
    local rc=$?
    [ "$rc" = 0 ] || echo "exit $rc: $(head -c 300 "$WORK/err")" >>"$out"
    for f in "$WORK"/o.*; do [ -e "$f" ] && { echo "== $(basename "$f")"; cat "$f"; } >>"$out"; done
    return "$rc"
}
same() {
    local desc=$1
    shift
    if ! run_out "$WORK/plain" TSKETCH_DIST_LANES=1 -- "$@" || [ ! -s "$WORK/plain" ]; then
        not_ok "$desc: the plain run succeeds and prints something" "$(tail -c 300 "$WORK/plain")"
        return
    fi
    local bad=""
    for s in "${SETTINGS[@]}"; do
        # shellcheck disable=SC2086 # one setting is several words
        run_out "$WORK/lanes" $s -- "$@"
        cmp -s "$WORK/plain" "$WORK/lanes" || bad="$bad [$s]"
    done
    [ -z "$bad" ] && ok "$desc: the same bytes on every lane count and block size" ||
        not_ok "$desc: differs under$bad" "$(diff "$WORK/plain" "$WORK/lanes" | head -4)"
}

R=$WORK/reads.tsk Q=$WORK/queries.tsk S=$WORK/slides.tsk QS=$WORK/qslides.tsk
same "vector top-k, one set" "$T" dist --top-k 5 "$R"
same "vector top-k 70, queries against references" "$T" dist --top-k 70 "$R" "$Q"
same "vector top-k, cosine, --with-self" "$T" dist --metric cosine --with-self --top-k 3 "$R"
same "vector -d, one set" "$T" dist -d 0.3 "$R"
same "vector -d, queries against references, -p 2" "$T" dist -p 2 -d 0.5 "$R" "$Q"
same "vector, every pair (TSV)" "$T" dist "$R"
same "vector, --format square, queries" "$T" dist -f square "$R" "$Q"
same "vector, --format phylip" "$T" dist -f phylip "$R"
same "vector, --format npy" "$T" dist -f npy -o "$WORK/o.npy" "$R"
same "vector, --block 2/3" "$T" dist --block 2/3 -d 0.4 "$R"
same "slides, queries against references, top-k" "$T" dist --top-k 4 "$S" "$QS"
same "slides, -d" "$T" dist -d 0.6 "$S"
same "triangle" "$T" triangle "$R"
same "tree" "$T" tree "$R"
same "plot" "$T" plot "$R" -o "$WORK/o.svg"
same "cluster, vector rows" "$T" cluster -d 0.3 "$R"
if [ "$have_genomes" = 1 ]; then
    G=$WORK/g.tsk GQ=$WORK/gq.tsk
    same "genome top-k, one set" "$T" dist --top-k 4 "$G"
    same "genome top-k, queries, --containment" "$T" dist --containment --top-k 7 "$G" "$GQ"
    same "genome -d, one set" "$T" dist -d 0.05 "$G"
    same "genome -d, queries against references" "$T" dist -d 0.1 "$G" "$GQ"
    same "genome, every pair (TSV)" "$T" dist "$G"
    same "genome, --format square" "$T" dist -f square "$G" "$GQ"
    same "genome top-k against 2 references (empty shards)" "$T" dist --top-k 3 "$WORK/g2.tsk" "$GQ"
    same "genome square against 2 references" "$T" dist -f square "$WORK/g2.tsk" "$GQ"
    same "genome triangle" "$T" triangle "$G"
    same "genome, --block 3/4" "$T" dist --block 3/4 -d 0.08 "$G"
    same "cluster greedy" "$T" cluster "$G" --representatives "$WORK/o.reps"
    same "cluster single, -p 2" "$T" cluster -p 2 --method single -d 0.03 "$G"
    same "cluster greedy --min-af 0.5 -p 4" "$T" cluster -p 4 --min-af 0.5 "$G"
fi

# the shards are used: 3 of them, and none without the knob
if [ "$have_genomes" = 1 ]; then
    n=$(TSKETCH_TIMING=1 TSKETCH_DIST_LANES=3 TSKETCH_DIST_SHARDS=on "$T" dist --top-k 3 "$G" 2>&1 >/dev/null |
        grep -c "references in 3 shards on CPU lanes")
    [ "$n" = 1 ] && ok "TSKETCH_DIST_SHARDS=on: the references in 3 shards" || not_ok "TSKETCH_DIST_SHARDS=on: 3 shards" "got $n"
    n=$(TSKETCH_TIMING=1 TSKETCH_DIST_LANES=3 "$T" dist --top-k 3 "$G" 2>&1 >/dev/null | grep -c "shards")
    [ "$n" = 0 ] && ok "CPU lanes without the knob: no shards" || not_ok "CPU lanes without the knob: no shards" "got $n"
    # two workers a lane: with the knob on CPU lanes, and not without it (a GPU lane's default)
    n=$(TSKETCH_TIMING=1 TSKETCH_DIST_PIPELINE=on TSKETCH_DIST_BLOCK=3 "$T" dist --top-k 3 "$G" 2>&1 >/dev/null |
        grep -c "on 1 lane, 2 workers each")
    [ "$n" = 1 ] && ok "TSKETCH_DIST_PIPELINE=on: two workers on a CPU lane" || not_ok "TSKETCH_DIST_PIPELINE=on: two workers" "got $n"
    n=$(TSKETCH_TIMING=1 TSKETCH_DIST_BLOCK=3 "$T" dist --top-k 3 "$G" 2>&1 >/dev/null | grep -c "workers")
    [ "$n" = 0 ] && ok "CPU lanes: one worker each without the knob" || not_ok "CPU lanes: one worker each" "got $n"
fi

# lanes deliver every block once: the line count of a top-k is k per query
n=$(TSKETCH_DIST_LANES=3 TSKETCH_DIST_BLOCK=4 "$T" dist --top-k 3 "$R" "$Q" | wc -l)
[ "$n" = 120 ] && ok "40 queries, top-3 on 3 lanes: 120 lines" || not_ok "40 queries, top-3 on 3 lanes: 120 lines" "got $n"

# a failed write stops the lanes: exit 1 with the reason, no hang
if [ -w /dev/full ]; then
    expect_exit 1 "write failed" "stdout full, 3 lanes: exit 1 naming the write" -- \
        env TSKETCH_DIST_LANES=3 TSKETCH_DIST_BLOCK=2 timeout 60 sh -c "'$T' dist '$R' >/dev/full"
    expect_exit 1 "write failed" "stdout full, 3 lanes, genome -d: exit 1" -- \
        env TSKETCH_DIST_LANES=3 TSKETCH_DIST_BLOCK=1 timeout 60 sh -c "'$T' dist -d 1 '${G:-$R}' >/dev/full"
fi
# the knobs' bad values are warned about and ignored
expect_exit 0 "TSKETCH_DIST_LANES=0 .*ignored" "TSKETCH_DIST_LANES=0: a warning, one lane" -- \
    env TSKETCH_DIST_LANES=0 "$T" dist --top-k 1 "$R" "$Q"
expect_exit 0 "TSKETCH_DIST_LANES=17 .*ignored" "TSKETCH_DIST_LANES=17: a warning" -- \
    env TSKETCH_DIST_LANES=17 "$T" dist --top-k 1 "$R" "$Q"
finish
