#!/usr/bin/env python3
"""cluster_ref.py: a brute-force reference of `tsketch cluster` (docs/cluster.md), written from the
contract alone, for tests/cli/test_cluster.sh. Standard library only, except --min-af and --af,
which read the keys with python/tsketch_io.py (numpy).

    cluster_ref.py --info INFO.json --links LINKS.tsv [--pairs PAIRS.tsv] [--method greedy|single]
                   [--reassign]
                   [--quality FILE] [--header] [--representatives FILE] [--min-af F --tsk FILE.tsk]
    cluster_ref.py --af --tsk FILE.tsk      every pair's aligned fraction: NAME TAB NAME TAB repr(AF)

INFO.json: `tsketch info --json --records` of one .tsk holding every item in input order (names,
cleaned lengths). LINKS.tsv: `tsketch dist -d D --header` of that .tsk (reference, query, distance
[, shared, total]): the pairs within D. PAIRS.tsv: `tsketch dist --header` of all pairs, for the
distance of a single-linkage member that is not linked to its representative. Distances are kept
as the strings dist printed and compared as floats (Python's float of '%.9g' of a float32 is that
float32 exactly). Prints the expected table on stdout and the summary line on stderr.

Everything is the most obvious O(N^2) code: a list of visited representatives for greedy, a
breadth-first search for the components of single linkage.
"""

import argparse
import json
import math
import os
import re
import sys

NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")  # a finite decimal number
FP_BITS = 24  # TSK_GENOME_FP_BITS: a key's low bits are its window's fingerprint, the rest its anchor's hash


def fail(msg, code=3):
    print(f"cluster_ref.py: {msg}", file=sys.stderr)
    sys.exit(code)


def read_items(info_path):
    with open(info_path) as f:
        info = json.load(f)
    names = [r["name"] for r in info["record_list"]]
    lengths = [r["clean_length"] for r in info["record_list"]]
    if len(set(names)) != len(names):
        fail("duplicate item names: the dist output could not tell them apart", 2)
    return names, lengths


def read_pairs(path, index):
    """{(i, j) with i < j: distance string} from a dist TSV (with or without its header line)."""
    pairs = {}
    with open(path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[:3] == ["reference", "query", "distance"]:
                continue
            i, j = index[cols[0]], index[cols[1]]
            if i == j:
                continue
            pairs[(min(i, j), max(i, j))] = cols[2]
    return pairs


def read_quality(path, names):
    """Score per item (a list in input order): NAME<TAB>SCORE lines or CheckM2's quality_report.tsv
    (score = Completeness - 5 x Contamination)."""
    with open(path) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    first = lines[0].split("\t") if lines else []
    scores = {}
    if all(c in first for c in ("Name", "Completeness", "Contamination")):
        name_col, comp_col, cont_col = first.index("Name"), first.index("Completeness"), first.index("Contamination")
        for no, line in enumerate(lines[1:], start=2):
            if line == "" or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != len(first) or not NUMBER.match(cols[comp_col]) or not NUMBER.match(cols[cont_col]):
                fail(f"{path}: line {no}: not a CheckM2 row")
            if cols[name_col] in scores:
                fail(f"{path}: line {no}: {cols[name_col]} given twice")
            scores[cols[name_col]] = float(cols[comp_col]) - 5 * float(cols[cont_col])
    else:
        for no, line in enumerate(lines, start=1):
            if line == "" or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 2 or not NUMBER.match(cols[1]) or not math.isfinite(float(cols[1])):
                fail(f"{path}: line {no}: not NAME<TAB>number")
            if cols[0] in scores:
                fail(f"{path}: line {no}: {cols[0]} given twice")
            scores[cols[0]] = float(cols[1])
    for n in names:
        if n not in scores:
            fail(f"{path}: no score for {n}")
    return [scores[n] for n in names]


def ranking(names, lengths, scores):
    """rank[i]: 0 for the best item. Highest score, then longest, then earliest in the input."""
    if scores is None:
        key = lambda i: (-lengths[i], i)
    else:
        key = lambda i: (-scores[i], -lengths[i], i)
    order = sorted(range(len(names)), key=key)
    rank = [0] * len(names)
    for r, i in enumerate(order):
        rank[i] = r
    return order, rank


def aligned_fraction(sk, i, j):
    """docs/cluster.md, 'The aligned fraction': below the pair's common threshold, a = shared anchors,
    s = shared keys, n = anchors of the genome with fewer keys; I = (s/a)^(1/(W-k)),
    AF = min(1, (a/n) / I^k); 0 when no anchor is shared."""
    tau = min(sk.threshold(i), sk.threshold(j))
    ki = {int(x) for x in sk.keys(i) if int(x) <= tau}
    kj = {int(x) for x in sk.keys(j) if int(x) <= tau}
    ai = {x >> FP_BITS for x in ki}
    aj = {x >> FP_BITS for x in kj}
    a = len(ai & aj)
    s = len(ki & kj)
    if len(ki) != len(kj):
        n = len(ai) if len(ki) < len(kj) else len(aj)
    else:  # equal key counts: the fewer anchors (docs/cluster.md)
        n = min(len(ai), len(aj))
    if s == 0:  # no window shared (a == 0 too, or anchors without their windows): AF = 0
        return 0.0
    w, k = sk.params["window"], sk.params["anchor_k"]
    ident = (s / a) ** (1 / (w - k))
    return min(1.0, (a / n) / ident ** k)


def load_sketches(path):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import tsketch_io  # numpy: only here

    return tsketch_io.load(path)


def greedy(n, order, rank, dist_of, reassign=False):
    """dist_of(i, j): the float distance of a linked pair, None when not linked. reassign: the
    second pass of --reassign."""
    reps, rep_of = [], {}

    def nearest(i, among):
        best = None
        for r in among:
            d = dist_of(i, r)
            if d is not None and (best is None or (d, rank[r]) < (best[0], rank[best[1]])):
                best = (d, r)
        return best

    for i in order:
        best = nearest(i, reps)
        if best is None:
            reps.append(i)
            rep_of[i] = i
        else:
            rep_of[i] = best[1]
    for i in order:  # the second pass: the nearest linked representative, ranked below or not
        if reassign and rep_of[i] != i:
            rep_of[i] = nearest(i, reps)[1]
    return rep_of


def single(n, order, rank, dist_of):
    neighbours = [[j for j in range(n) if j != i and dist_of(i, j) is not None] for i in range(n)]
    rep_of = {}
    for i in order:  # rank order: the first item met of a component is its best-ranked
        if i in rep_of:
            continue
        rep_of[i] = i
        queue = [i]
        while queue:
            x = queue.pop()
            for y in neighbours[x]:
                if y not in rep_of:
                    rep_of[y] = i
                    queue.append(y)
    return rep_of


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--info")
    ap.add_argument("--links")
    ap.add_argument("--pairs")
    ap.add_argument("--method", default="greedy", choices=["greedy", "single"])
    ap.add_argument("--reassign", action="store_true")
    ap.add_argument("--quality")
    ap.add_argument("--header", action="store_true")
    ap.add_argument("--representatives")
    ap.add_argument("--min-af", type=float)
    ap.add_argument("--tsk")
    ap.add_argument("--af", action="store_true")
    a = ap.parse_args()

    if a.af:
        sk = load_sketches(a.tsk)
        for i in range(len(sk)):
            for j in range(i + 1, len(sk)):
                print(f"{sk.names[i]}\t{sk.names[j]}\t{aligned_fraction(sk, i, j)!r}")
        return

    names, lengths = read_items(a.info)
    n = len(names)
    index = {nm: i for i, nm in enumerate(names)}
    links = read_pairs(a.links, index)
    if a.min_af is not None:
        sk = load_sketches(a.tsk)
        if sk.names != names:
            fail("--tsk and --info name other items", 2)
        links = {p: d for p, d in links.items() if aligned_fraction(sk, *p) >= a.min_af}
    all_pairs = read_pairs(a.pairs, index) if a.pairs else {}
    scores = read_quality(a.quality, names) if a.quality else None
    order, rank = ranking(names, lengths, scores)

    def dist_of(i, j):
        s = links.get((min(i, j), max(i, j)))
        return None if s is None else float(s)

    if a.method == "greedy":
        rep_of = greedy(n, order, rank, dist_of, a.reassign)
    else:
        rep_of = single(n, order, rank, dist_of)

    reps = [i for i in order if rep_of[i] == i]
    out = ["genome\tcluster\trepresentative\tdistance\n"] if a.header else []
    singletons = 0
    for c, r in enumerate(reps, start=1):
        # the representative first, then the rest in rank order (greedy's --reassign may give a
        # representative members ranked above it)
        members = [r] + [i for i in order if rep_of[i] == r and i != r]
        singletons += len(members) == 1
        for i in members:
            if i == r:
                d = "0"
            else:
                p = (min(i, r), max(i, r))
                d = links.get(p) or all_pairs.get(p)
                if d is None:
                    fail(f"no distance for {names[i]} and {names[r]}: give --pairs", 2)
            out.append(f"{names[i]}\t{c}\t{names[r]}\t{d}\n")
    sys.stdout.write("".join(out))
    if a.representatives:
        with open(a.representatives, "w") as f:
            f.write("".join(names[r] + "\n" for r in reps))
    with open(a.info) as f:
        noun = "genomes" if json.load(f).get("kind") == "genome" else "records"
    print(f"cluster: {n} {noun}, {len(reps)} clusters ({singletons} singletons)", file=sys.stderr)


if __name__ == "__main__":
    main()
