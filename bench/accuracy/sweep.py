#!/usr/bin/python3
"""Parameter sweep of the paper's protocol with the harness sketcher (tss_rows).

  sweep.py --cache DIR --seeds 1,2 --out results.tsv CONFIG...

CONFIG is t:D:w:s (w = s = 0: whole-record sketch; append :c for canonical). For every config and
seed it sketches DIR/pairs_sSEED.fa with DIR/tss_rows, scores l2 and cosine against
testdata/accuracy/edit_seedSEED.tsv, and appends one line per (config, seed, metric) to the output
(configs already there are skipped, so an interrupted sweep resumes). run.sh builds tss_rows and
the pairs."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acclib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLS = ["t", "D", "window", "stride", "canonical", "seed", "metric", "spearman", "auroc0.1", "auroc0.2", "auroc0.5"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", required=True)
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", default="1")
    ap.add_argument("configs", nargs="+")
    args = ap.parse_args()
    done = set()
    if os.path.exists(args.out):
        for line in open(args.out):
            f = line.rstrip("\n").split("\t")
            if f[0] != "t":
                done.add(tuple(f[:6]))
    else:
        with open(args.out, "w") as fo:
            fo.write("\t".join(COLS) + "\n")
    for cfg in args.configs:
        parts = cfg.split(":")
        t, dim, w, s = (int(x) for x in parts[:4])
        canon = 1 if len(parts) > 4 and parts[4] == "c" else 0
        for seed in args.seeds.split(","):
            key = (str(t), str(dim), str(w), str(s), str(canon), seed)
            if key in done:
                continue
            # one scratch file per (config, seed): sweeps run side by side in one cache
            prefix = os.path.join(args.cache, "sw_" + "_".join(key))
            cmd = [os.path.join(args.cache, "tss_rows"), "-t", str(t), "-D", str(dim), "-p", args.threads]
            if w:
                cmd += ["-w", str(w), "-s", str(s)]
            if canon:
                cmd.append("-c")
            subprocess.run(cmd + [os.path.join(args.cache, f"pairs_s{seed}.fa"), prefix], check=True)
            rows = acclib.read_tss(prefix, dim)
            a, b, ed = acclib.read_edit(os.path.join(ROOT, "testdata", "accuracy", f"edit_seed{seed}.tsv"))
            with open(args.out, "a") as fo:
                for metric in ("l2", "cosine"):
                    sc = acclib.protocol_scores(acclib.pair_distances(rows, a, b, metric), ed)
                    vals = [sc["spearman"], sc["auroc0.1"], sc["auroc0.2"], sc["auroc0.5"]]
                    fo.write("\t".join(list(key) + [metric] + [f"{v:.4f}" for v in vals]) + "\n")
                    print(cfg, seed, metric, " ".join(f"{v:.4f}" for v in vals), flush=True)
            for ext in (".f32", ".idx"):
                os.remove(prefix + ext)


if __name__ == "__main__":
    main()
