# test_split: with --device auto the CPU engine takes the batches the GPU is not ready for; the
# rows must be those of --device cpu (within 1e-5) whichever engine took which batch. The test knob
# TSKETCH_SPLIT forces every split (all CPU, all GPU, alternating, by readiness) over many small
# batches (TSKETCH_BATCH_BASES), for the count path, the sketch DP, slide rows and protein.
# Skips (TAP skip_all) without a usable GPU: CI has none.
. "$(dirname "$0")/harness.sh"

"$TSKETCH" sketch --device cuda -o "$WORK/probe.tsk" "$TESTDATA/golden/acgt.fa" 2>/dev/null
if [ $? -eq 5 ]; then
    skip_all "no usable GPU"
fi

dna=("$TESTDATA"/genomes/*.fa "$TESTDATA/golden/mixed.fa" "$TESTDATA/golden/acgt.fa")
check_splits() { # DESCRIPTION -- sketch options and inputs...
    local desc=$1
    shift 2
    TSKETCH_BATCH_BASES=${BATCH:-20000} "$TSKETCH" sketch --device cpu -p 2 "$@" -o "$WORK/cpu.tsk" &&
        "$TSKETCH" export --format tsv "$WORK/cpu.tsk" >"$WORK/cpu.tsv" || { not_ok "$desc: CPU run"; return; }
    local split
    for split in cpu gpu alternate ready; do
        if ! TSKETCH_TIMING=1 TSKETCH_SPLIT=$split TSKETCH_BATCH_BASES=${BATCH:-20000} "$TSKETCH" sketch --device auto -p 2 "$@" \
            -o "$WORK/$split.tsk" 2>"$WORK/$split.err"; then
            not_ok "$desc, split $split: sketch failed" "$(head -c 400 "$WORK/$split.err")"
            continue
        fi
        "$TSKETCH" export --format tsv "$WORK/$split.tsk" >"$WORK/$split.tsv"
        local counts all gpu
        counts=$(sed -n 's/.*timing: \([0-9]*\) batches, \([0-9]*\) on the GPU.*/\1 \2/p' "$WORK/$split.err")
        read -r all gpu <<<"$counts"
        local want_ok=1
        case $split in
        cpu) [ "$gpu" = 0 ] || want_ok=0 ;;
        gpu) [ "$gpu" = "$all" ] || want_ok=0 ;;
        alternate) [ "$gpu" = $((all / 2)) ] || want_ok=0 ;;
        esac
        if [ "${all:-0}" -lt 4 ] || [ $want_ok = 0 ]; then
            not_ok "$desc, split $split: batches" "got '$counts' (all, on the GPU)"
        elif "$TSV_COMPARE" "$WORK/cpu.tsv" "$WORK/$split.tsv" 1e-5 >"$WORK/cmp" 2>&1; then
            ok "$desc, split $split ($gpu of $all batches on the GPU): rows = CPU rows"
        else
            not_ok "$desc, split $split: rows differ" "$(head -5 "$WORK/cmp")"
        fi
    done
}

check_splits "DNA t=4 (counts)" -- "${dna[@]}"
check_splits "DNA t=3 canonical D=64 double" -- -k 3 -s 64 --canonical --precision double "${dna[@]}"
check_splits "DNA t=6 (sketch DP)" -- -k 6 -s 32 "${dna[@]}"
check_splits "slide rows" -- -k 2 -s 32 --window 500 --stride 100 "${dna[@]}"
BATCH=100 check_splits "protein" -- --alphabet protein -k 3 -s 32 "$TESTDATA/golden/protein.fa" "$TESTDATA/golden/protein.fa" \
    "$TESTDATA/golden/protein.fa" "$TESTDATA/golden/protein.fa"
# --device auto's choice by size and record length (src/engine.h, tsk_engine_gpu_first), at -p 1:
# 60 MB of 5 kbp records is above the 40 Mbp a thread past which long records wait for the GPU;
# 60 MB of 150-base reads is below the 141 Mbp a thread that reads need (their rows cost both
# engines alike), so it stays on the CPU and never opens CUDA; on the sketch DP (t=6, D=96: 2.6 Mbp
# a thread) 5 MB of the long records goes to the GPU and 2 MB stays on the CPU
python3 - "$WORK" <<'PY'
import random, sys
acgt = bytes.maketrans(bytes(range(256)), bytes(b"ACGT"[i & 3] for i in range(256)))
rng = random.Random(5)
for name, length in (("long", 5000), ("reads", 150)):
    with open(f"{sys.argv[1]}/{name}.fa", "wb") as f:
        for i in range(60_000_000 // (length + 12)):
            f.write(b">r%d\n%s\n" % (i, rng.randbytes(length).translate(acgt)))
PY
head -c 5000000 "$WORK/long.fa" >"$WORK/long5.fa"
head -c 2000000 "$WORK/long.fa" >"$WORK/long2.fa"
auto_by_size() { # DESCRIPTION WANT (all or 0: batches on the GPU) -- sketch options and input
    local desc=$1 want=$2 all gpu
    shift 3
    if ! TSKETCH_TIMING=1 "$TSKETCH" sketch --device auto -p 1 "$@" -o "$WORK/auto.tsk" 2>"$WORK/auto.err"; then
        not_ok "auto by size, $desc: sketch failed" "$(head -c 400 "$WORK/auto.err")"
        return
    fi
    read -r all gpu <<<"$(sed -n 's/.*timing: \([0-9]*\) batches, \([0-9]*\) on the GPU.*/\1 \2/p' "$WORK/auto.err")"
    [ "$want" = all ] && want=$all
    if [ "${gpu:-x}" = "$want" ]; then
        ok "auto by size, $desc at -p 1: $gpu of $all batches on the GPU"
    else
        not_ok "auto by size, $desc" "$gpu of $all batches on the GPU, expected $want"
    fi
}
auto_by_size "60 MB of 5 kbp records" all -- "$WORK/long.fa"
auto_by_size "60 MB of 150-base reads" 0 -- "$WORK/reads.fa"
auto_by_size "t=6, 5 MB of 5 kbp records" all -- -k 6 "$WORK/long5.fa"
auto_by_size "t=6, 2 MB of 5 kbp records" 0 -- -k 6 "$WORK/long2.fa"
finish
