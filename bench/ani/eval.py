#!/usr/bin/env python3
"""eval.py: ANI and AF estimates against fastANI on sets of gen_ani_set.py (#38).

  eval.py [--tsketch BIN] [--est NAME]... SET_DIR...

Each SET_DIR holds what gen_ani_set.py and run_fastani.sh wrote (genomes.tsv, genomes.txt,
truth.tsv, fastani.tsv). Estimates compared:

  --tsketch BIN  runs BIN sketch --genome --per-file on the set (-> tsketch.tsk), BIN dist --ani (ANI =
                 100 (1 - d), and AF) and BIN cluster --min-ani 95 --min-af 0.5 --reassign --quality Q (its
                 partition, as a GTDB user gets it: Q ranks the genomes as the greedy below does);
                 name "tsketch".
  --est NAME     reads SET_DIR/est_NAME.tsv (query, reference, ani in %, af: the aligned fraction of
                 the smaller genome; one line per unordered pair, either order; a missing pair is
                 unrelated: ANI 0, AF 0); its partition is the greedy below on its values.
  --fastani FL   fastANI itself at fragment length FL (SET_DIR/fastani_FL.tsv, run_fastani.sh's third
                 argument), named "fastaniFL": how far fastANI's own setting moves what is measured.

The reference: fastANI's ANI of a pair is the mean of both directions (one if it reports only one);
its AF is mapped / total fragments of the genome with fewer fragments (the smaller genome). GTDB-style
greedy: genomes ranked longer first (GTDB ranks by a quality score; tsketch is given this rank as
its --quality table, since its default is dRep's score), each joins the nearest
(highest ANI) earlier representative it is linked to (ANI >= 95 and AF >= 0.5), else becomes one;
then every member moves to its nearest linked representative.

Reported per set and as the median over sets of one mode (even/uneven):
  mae_9397_all / _complete / _draft   mean |est - fastANI| in ANI points over the pairs with fastANI
                                      in [93, 97] (complete: both genomes complete; draft: either not)
  bias_9397   mean (est - fastANI) over the same pairs
  side95      the share of pairs with fastANI more than 0.2 points from 95 on the same side of 95
  partition   1 when the partition equals GTDB-style greedy on fastANI, else 0 (counted over the sets
              after the table, also with fastANI's ANI and the estimate's AF, and the other way round:
              which of the two values decides where they differ)
  mae_af      mean |AF - fastANI AF| over pairs fastANI maps (when the estimate has AF)
  mae_any     mean |est - fastANI| over every pair fastANI reports (below 99.99 %)
  unrel_ok    pairs fastANI does not report (unrelated, below ~80 %) that the estimate calls < 80 %
Also the truth columns, over the same pairs at 93-97 %: mae_truth (|fastANI - fani_like|) shows how
near fastANI is to the generator's fastANI-like truth, est_truth (|est - fani_like|) the estimate's.
"""
import argparse
import gzip
import os
import statistics
import subprocess
import sys


def read_tsv(path):
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def base(path):
    n = os.path.basename(path)
    for ext in (".gz", ".fa", ".fna", ".fasta"):
        if n.endswith(ext):
            n = n[: -len(ext)]
    return n


def load_set(d):
    genomes = read_tsv(os.path.join(d, "genomes.tsv"))
    info = {g["name"]: g for g in genomes}
    lengths = {}
    for p in open(os.path.join(d, "genomes.txt")).read().split():
        n = base(p)
        with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
            lengths[n] = sum(len(l.strip()) for l in f if not l.startswith(">"))
    fa = {}
    frags = {}
    for line in open(os.path.join(d, "fastani.tsv")):
        q, r, ani, mapped, total = line.split()
        q, r = base(q), base(r)
        fa[(q, r)] = (float(ani), int(mapped) / int(total))
        frags[q] = int(total)
    truth = {(t["query"], t["reference"]): t for t in read_tsv(os.path.join(d, "truth.tsv"))}
    return info, lengths, fa, frags, truth


def fastani_pair(fa, frags, a, b):
    """(ANI mean of both directions, AF of the smaller genome) or None."""
    x, y = fa.get((a, b)), fa.get((b, a))
    if not x and not y:
        return None
    anis = [v[0] for v in (x, y) if v]
    small, other = (a, b) if frags.get(a, 0) <= frags.get(b, 0) else (b, a)
    af = fa.get((small, other)) or fa.get((other, small))
    return sum(anis) / len(anis), af[1]


def greedy(names, lengths, link):
    """GTDB-style greedy (module docstring); link(a, b) -> ANI or None when not linked."""
    order = sorted(names, key=lambda n: (-lengths[n], names.index(n)))
    reps, assign = [], {}
    for n in order:
        best = None
        for r in reps:
            v = link(n, r)
            if v is not None and (best is None or v > best[0]):
                best = (v, r)
        if best:
            assign[n] = best[1]
        else:
            reps.append(n)
            assign[n] = n
    for n in order:
        if n in reps:
            continue
        best = None
        for r in reps:
            v = link(n, r)
            if v is not None and (best is None or v > best[0]):
                best = (v, r)
        assign[n] = best[1]
    return partition_of(assign)


def partition_of(assign):
    groups = {}
    for n, r in assign.items():
        groups.setdefault(r, set()).add(n)
    return sorted(sorted(g) for g in groups.values())


def run_tsketch(binary, d):
    paths = open(os.path.join(d, "genomes.txt")).read().split()
    tsk = os.path.join(d, "tsketch.tsk")
    subprocess.run([binary, "sketch", "-q", "--genome", "--per-file", "-p", "1", *paths, "-o", tsk + ".tmp"],
                   check=True)
    os.replace(tsk + ".tmp", tsk)
    out = subprocess.run([binary, "dist", "--ani", "-p", "1", tsk], check=True, capture_output=True, text=True).stdout
    est = {}
    for line in out.splitlines():
        q, r, dist, _, _, _, af = line.split("\t")[:7]
        est[(q, r)] = (100.0 * (1.0 - float(dist)), None if af == "NA" else float(af))
    rank = os.path.join(d, "length_rank.tsv")  # NAME TAB SCORE: longer first, as greedy() ranks
    lengths = load_set(d)[1]
    with open(rank, "w") as f:
        for g, n in lengths.items():
            f.write("%s\t%d\n" % (g, n))
    cl = subprocess.run([binary, "cluster", "-q", "-p", "1", "--min-ani", "95", "--min-af", "0.5", "--reassign",
                         "--quality", rank, tsk], check=True, capture_output=True, text=True).stdout
    assign = {}
    for line in cl.splitlines():
        g, _, rep = line.split("\t")[:3]
        assign[g] = rep
    return est, partition_of(assign)


def read_est(d, name):
    est = {}
    for t in read_tsv(os.path.join(d, f"est_{name}.tsv")):
        af = float(t["af"]) if t.get("af") not in (None, "", "NA") else None
        est[(t["query"], t["reference"])] = (float(t["ani"]), af)
    return est


def read_fastani_variant(d, fraglen):
    """fastANI run at another fragment length (run_fastani.sh SET_DIR THREADS FRAGLEN), as an estimate."""
    fa, frags = {}, {}
    for line in open(os.path.join(d, "fastani_%d.tsv" % fraglen)):
        q, r, ani, mapped, total = line.split()
        fa[(base(q), base(r))] = (float(ani), int(mapped) / int(total))
        frags[base(q)] = int(total)
    return {(a, b): fastani_pair(fa, frags, a, b) for (a, b) in fa}


def evaluate(d, name, est, partition):
    info, lengths, fa, frags, truth = load_set(d)
    names = list(info)

    def get(a, b):
        return est.get((a, b)) or est.get((b, a)) or (0.0, 0.0)

    err_all, err_c, err_d, err_af, err_truth, err_any, signed = [], [], [], [], [], [], []
    err_est_truth = []
    side_n = side_ok = unrel_n = unrel_ok = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ref = fastani_pair(fa, frags, a, b)
            e_ani, e_af = get(a, b)
            if ref is None:
                unrel_n += 1
                unrel_ok += e_ani < 80
                continue
            r_ani, r_af = ref
            if 93 <= r_ani <= 97:
                err = abs(e_ani - r_ani)
                err_all.append(err)
                signed.append(e_ani - r_ani)
                complete = float(info[a]["completeness"]) >= 1 and float(info[b]["completeness"]) >= 1
                (err_c if complete else err_d).append(err)
                t = [float(truth[k]["fani_like"]) for k in ((a, b), (b, a)) if k in truth]
                if t:
                    err_truth.append(abs(r_ani - sum(t) / len(t)))
                    err_est_truth.append(abs(e_ani - sum(t) / len(t)))
            if r_ani < 99.99:
                err_any.append(abs(e_ani - r_ani))
            if abs(r_ani - 95) > 0.2:
                side_n += 1
                side_ok += (e_ani >= 95) == (r_ani >= 95)
            if e_af is not None:
                err_af.append(abs(e_af - r_af))

    def link_fa(a, b):
        ref = fastani_pair(fa, frags, a, b)
        return ref[0] if ref and ref[0] >= 95 and ref[1] >= 0.5 else None

    def link_est(a, b):
        v = get(a, b)
        return v[0] if v[0] >= 95 and (v[1] is None or v[1] >= 0.5) else None

    def link_mixed(ani_of_fastani):  # one of the two values fastANI's, the other the estimate's
        def link(a, b):
            ref, v = fastani_pair(fa, frags, a, b) or (0.0, 0.0), get(a, b)
            ani, af = (ref[0], v[1]) if ani_of_fastani else (v[0], ref[1])
            return ani if ani >= 95 and (af is None or af >= 0.5) else None
        return link

    part_ref = greedy(names, lengths, link_fa)
    part = partition if partition is not None else greedy(names, lengths, link_est)
    mean = lambda v: sum(v) / len(v) if v else float("nan")
    return {
        "set": os.path.basename(d.rstrip("/")), "mode": next(iter(info.values()))["mode"], "est": name,
        "n9397": len(err_all), "mae_9397_all": mean(err_all), "mae_9397_complete": mean(err_c),
        "mae_9397_draft": mean(err_d), "bias_9397": mean(signed), "side95": side_ok / side_n if side_n else float("nan"),
        "partition": int(part == part_ref), "mae_af": mean(err_af),
        "part_fa_ani": int(greedy(names, lengths, link_mixed(True)) == part_ref),
        "part_fa_af": int(greedy(names, lengths, link_mixed(False)) == part_ref),
        "unrel_ok": f"{unrel_ok}/{unrel_n}", "mae_truth": mean(err_truth), "est_truth": mean(err_est_truth), "mae_any": mean(err_any),
    }


COLS = ["set", "mode", "est", "n9397", "mae_9397_all", "mae_9397_complete", "mae_9397_draft", "bias_9397", "side95", "partition",
        "mae_af", "mae_any", "unrel_ok", "mae_truth", "est_truth"]


def fmt(v):
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tsketch")
    ap.add_argument("--est", action="append", default=[])
    ap.add_argument("--fastani", action="append", default=[], type=int, metavar="FRAGLEN")
    ap.add_argument("sets", nargs="+")
    a = ap.parse_args()
    rows = []
    for d in a.sets:
        if a.tsketch:
            est, part = run_tsketch(a.tsketch, d)
            rows.append(evaluate(d, "tsketch", est, part))
        for name in a.est:
            rows.append(evaluate(d, name, read_est(d, name), None))
        for fl in a.fastani:
            rows.append(evaluate(d, "fastani%d" % fl, read_fastani_variant(d, fl), None))
    print("\t".join(COLS))
    for r in rows:
        print("\t".join(fmt(r[c]) for c in COLS))
    print("# partitions equal to fastANI's: the estimate's; with fastANI's ANI and the estimate's AF; with the")
    print("# estimate's ANI and fastANI's AF")
    for name in dict.fromkeys(r["est"] for r in rows):
        sel = [r for r in rows if r["est"] == name]
        print("%s\t%d of %d\t%d\t%d" % (name, sum(r["partition"] for r in sel), len(sel),
                                       sum(r["part_fa_ani"] for r in sel), sum(r["part_fa_af"] for r in sel)))
    print("# median over sets")
    print("\t".join(["sets", "mode", "est"] + COLS[4:12] + ["mae_truth", "est_truth"]))
    for mode in sorted({r["mode"] for r in rows}):
        for name in dict.fromkeys(r["est"] for r in rows):
            sel = [r for r in rows if r["mode"] == mode and r["est"] == name]
            if not sel:
                continue
            med = [statistics.median([r[c] for r in sel if r[c] == r[c]] or [float("nan")])
                   for c in COLS[4:12] + ["mae_truth", "est_truth"]]
            print("\t".join([str(len(sel)), mode, name] + [fmt(float(v)) for v in med]))


if __name__ == "__main__":
    sys.exit(main())
