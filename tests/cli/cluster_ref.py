#!/usr/bin/env python3
"""cluster_ref.py: a brute-force reference of `tsketch cluster` (docs/cluster.md), written from the
contract alone, for tests/cli/test_cluster.sh. Standard library only.

    cluster_ref.py --info INFO.json --links LINKS.tsv [--pairs PAIRS.tsv] [--method greedy|single]
                   [--reassign]
                   [--quality FILE] [--header] [--representatives FILE] [--min-af F]
                   [--assembly FILE]

INFO.json: `tsketch info --json --records` of one .tsk holding every item in input order (names,
cleaned lengths). LINKS.tsv: `tsketch dist -d D --header` of that .tsk (reference, query, distance
[, shared, total[, ani, af]]): the pairs within D; with --min-af, `dist -d D --ani --header`, whose
af column (the ANI estimator's aligned fraction, 4 decimals; NA: none) decides. PAIRS.tsv: `tsketch dist --header` of all pairs, for the
distance of a single-linkage member that is not linked to its representative. Distances are kept
as the strings dist printed and compared as floats (Python's float of '%.9g' of a float32 is that
float32 exactly). ASSEMBLY: `name TAB contigs TAB N50` lines, counted from the genomes' FASTA files,
for the ranking without --quality (N50 descending, then fewer contigs, then longer, then input
order); a genome it does not name is one contig (N50 = its length). Prints the expected table on stdout and the summary line on stderr.

Everything is the most obvious O(N^2) code: a list of visited representatives for greedy, a
breadth-first search for the components of single linkage.
"""

import argparse
import json
import math
import re
import sys

NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")  # a finite decimal number


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


def read_pairs(path, index, min_af=None):
    """{(i, j) with i < j: distance string} from a dist TSV (with or without its header line); with
    min_af, only the pairs whose af column (the 7th, dist --ani) is a number >= min_af."""
    pairs = {}
    with open(path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[:3] == ["reference", "query", "distance"]:
                continue
            i, j = index[cols[0]], index[cols[1]]
            if i == j:
                continue
            if min_af is not None:
                if len(cols) < 7:
                    fail(f"{path}: --min-af needs the af column of dist --ani", 2)
                if cols[6] == "NA" or float(cols[6]) < min_af:
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


def read_assembly(path, names):
    """[(contigs, N50)] of each item: from the file's lines, or (1, None: its length)."""
    got = {}
    if path:
        with open(path) as f:
            for line in f:
                name, contigs, n50 = line.split()
                got[name] = (int(contigs), int(n50))
    return [got.get(n, (1, None)) for n in names]


def ranking(names, lengths, scores, assembly):
    """rank[i]: 0 for the best item. Highest score, then longest, then earliest in the input;
    without scores, highest N50, then fewest contigs, then longest, then earliest."""
    if scores is None:
        def key(i):
            contigs, n50 = assembly[i]
            return (-(lengths[i] if n50 is None else n50), contigs, -lengths[i], i)
    else:
        key = lambda i: (-scores[i], -lengths[i], i)
    order = sorted(range(len(names)), key=key)
    rank = [0] * len(names)
    for r, i in enumerate(order):
        rank[i] = r
    return order, rank


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
    ap.add_argument("--assembly")
    a = ap.parse_args()

    names, lengths = read_items(a.info)
    n = len(names)
    index = {nm: i for i, nm in enumerate(names)}
    links = read_pairs(a.links, index, a.min_af)
    all_pairs = read_pairs(a.pairs, index) if a.pairs else {}
    scores = read_quality(a.quality, names) if a.quality else None
    order, rank = ranking(names, lengths, scores, read_assembly(a.assembly, names))

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
