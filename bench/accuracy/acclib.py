"""Shared pieces of the accuracy bench: reading sketch rows, pair distances, Spearman, AUROC.

numpy only (Debian's /usr/bin/python3 has it; scipy is not assumed). Rows come from
`tsketch export --format tsv` (name TAB v0 .. v(D-1), slide rows named record:start-end)."""
import numpy as np


class Rows:
    """All rows of a sketch run: rows[first[i] : first[i] + count[i]] belong to record names[i]."""

    def __init__(self, names, counts, rows):
        self.names = list(names)
        self.count = np.asarray(counts, dtype=np.int64)
        self.first = np.concatenate([[0], np.cumsum(self.count)[:-1]]).astype(np.int64)
        self.rows = np.ascontiguousarray(rows, dtype=np.float32)
        self.index = {n: i for i, n in enumerate(self.names)}

    def of(self, name):
        i = self.index[name]
        return self.rows[self.first[i]:self.first[i] + self.count[i]]


def read_tsv(path):
    """Rows of `tsketch export --format tsv`; a slide row `rec:a-b` belongs to record `rec`."""
    names, counts, vals = [], [], []
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        name = f[0]
        head, _, span = name.rpartition(":")
        if head and "-" in span and span.replace("-", "").isdigit():
            name = head
        if names and names[-1] == name:
            counts[-1] += 1
        else:
            names.append(name)
            counts.append(1)
        vals.append(np.array(f[1:], dtype=np.float64))
    return Rows(names, counts, np.vstack(vals))


def read_edit(path):
    """edit_distance.c output: name_a TAB name_b TAB distance."""
    a, b, d = [], [], []
    for line in open(path):
        f = line.split("\t")
        a.append(f[0])
        b.append(f[1])
        d.append(float(f[2]))
    return a, b, np.array(d)


def pair_distance(ra, rb, metric="l2"):
    """docs/spec.md: rows compared position by position over the first min(rows) rows, as one vector."""
    m = min(len(ra), len(rb))
    x = ra[:m].astype(np.float64).ravel()
    y = rb[:m].astype(np.float64).ravel()
    if metric == "l2":
        return float(np.sqrt(np.sum((x - y) ** 2)))
    nx, ny = np.linalg.norm(x), np.linalg.norm(y)
    if nx == 0 or ny == 0:
        return 1.0
    return float(1.0 - x.dot(y) / (nx * ny))


def pair_distances(rows, names_a, names_b, metric="l2"):
    return np.array([pair_distance(rows.of(a), rows.of(b), metric) for a, b in zip(names_a, names_b)])


def rankdata(x):
    """Average ranks (ties share their mean rank), as scipy.stats.rankdata."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    ranks = np.empty(len(x))
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = 0.5 * (i + j) + 1.0
        i = j + 1
    return ranks


def spearman(x, y):
    rx, ry = rankdata(x), rankdata(y)
    rx -= rx.mean()
    ry -= ry.mean()
    return float(rx.dot(ry) / np.sqrt(rx.dot(rx) * ry.dot(ry)))


def auroc(dist, is_close):
    """Probability that a close pair has a smaller distance than a far pair (ties count half)."""
    is_close = np.asarray(is_close, dtype=bool)
    npos, nneg = int(is_close.sum()), int((~is_close).sum())
    if npos == 0 or nneg == 0:
        return float("nan")
    r = rankdata(-np.asarray(dist, dtype=np.float64))
    return float((r[is_close].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def protocol_scores(dist, edit, length=10000, thresholds=(0.1, 0.2, 0.5)):
    """Spearman against edit distance, and AUROC for 'edit distance < th * length'."""
    out = {"spearman": spearman(dist, edit)}
    for th in thresholds:
        out[f"auroc{th}"] = auroc(dist, edit < th * length)
    return out
