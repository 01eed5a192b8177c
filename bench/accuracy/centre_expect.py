#!/usr/bin/python3
"""Composition part of a Tensor Sketch row, exactly (research prototype, not used by tsketch).

A sketch (docs/spec.md) is the mean over index tuples i_1 < ... < i_t of
u_1(x_{i_1}) (*) u_2(x_{i_2}) (*) ... (*) u_t(x_{i_t}),   u_k(c) = sign[k-1][c] e_{hash[k-1][c]},
(*) = circular convolution mod D (the product of signs at the bin sum of hashes mod D).

* i.i.d. letters with probabilities q:  E = U_1 (*) ... (*) U_t,  U_k = sum_c q_c u_k(c)
  (positions of a tuple are distinct, hence independent).
* a window with fixed base counts n_c (all orderings equally likely): the letters of a tuple are a
  draw without replacement, P(c_1..c_t) = prod_k (n_{c_k} - #{j<k: c_j = c_k}) / (n - k + 1);
  E = sum over the A^t letter tuples of P(c) u_1(c_1) (*) ... (*) u_t(c_t).   (exact; 'hyper')
* canonical rows (mean of the sketch of x and of its reverse complement): the reverse complement
  has the complemented counts (A<->T, C<->G), so E_can = (E(n) + E(comp n)) / 2.

  centre_expect.py check      numerical checks against ../shared/oracle/tsketch_oracle.py
"""
import itertools
import os
import sys

import numpy as np

ORACLE = os.environ.get("TSK_ORACLE", "/work/shared/oracle")
sys.path.insert(0, ORACLE)
import tsketch_oracle as orc  # noqa: E402

COMP = [3, 2, 1, 0]  # A C G T -> T G C A


def tables(t, dim, seed=0x5EED):
    h, s = orc.tables(t, dim, seed, 4)
    return np.array(h, dtype=np.int64), np.array(s, dtype=np.float64)


class Expect:
    """E[row | counts] for many windows at once, D-dim, t levels, DNA."""

    def __init__(self, t, dim, seed=0x5EED):
        self.t, self.dim = t, dim
        self.h, self.s = tables(t, dim, seed)
        # for each letter tuple: its bin and sign
        self.tuples = np.array(list(itertools.product(range(4), repeat=t)), dtype=np.int64)  # (4^t, t)
        lv = np.arange(t)
        self.bin = self.h[lv[None, :], self.tuples].sum(1) % dim
        self.sign = self.s[lv[None, :], self.tuples].prod(1)
        # basis matrix: tuple -> signed one-hot (4^t, D)
        self.M = np.zeros((len(self.tuples), dim))
        self.M[np.arange(len(self.tuples)), self.bin] = self.sign

    def prob_hyper(self, counts):
        """counts (W, 4) -> P(letter tuple) (W, 4^t), sampling without replacement."""
        counts = np.asarray(counts, dtype=np.float64)
        n = counts.sum(1)
        P = np.ones((len(counts), len(self.tuples)))
        for k in range(self.t):
            ck = self.tuples[:, k]
            prior = (self.tuples[:, :k] == ck[:, None]).sum(1) if k else np.zeros(len(ck), dtype=np.int64)
            num = counts[:, ck] - prior[None, :]
            P *= np.maximum(num, 0.0) / np.maximum(n - k, 1.0)[:, None]
        P[n < self.t] = 0.0
        return P

    def prob_iid(self, counts):
        counts = np.asarray(counts, dtype=np.float64)
        q = counts / np.maximum(counts.sum(1, keepdims=True), 1.0)
        P = np.ones((len(counts), len(self.tuples)))
        for k in range(self.t):
            P *= q[:, self.tuples[:, k]]
        return P

    def expect(self, counts, canonical=True, iid=False):
        counts = np.asarray(counts, dtype=np.float64)
        pf = self.prob_iid if iid else self.prob_hyper
        E = pf(counts) @ self.M
        if canonical:
            E = 0.5 * (E + pf(counts[:, COMP]) @ self.M)
        return E


def sketch_np(codes, t, dim, h, s):
    """numpy copy of the oracle DP (float64)."""
    T = np.zeros((t + 1, dim))
    T[0, 0] = 1.0
    for i, c in enumerate(codes):
        for p in range(min(i + 1, t), 0, -1):
            z = p / (i + 1.0)
            T[p] = (1 - z) * T[p] + z * s[p - 1, c] * np.roll(T[p - 1], h[p - 1, c])
    return T[t] if len(codes) >= t else np.zeros(dim)


def sketch_can_np(codes, t, dim, h, s):
    codes = np.asarray(codes)
    rc = [COMP[c] for c in codes[::-1]]
    return 0.5 * (sketch_np(codes, t, dim, h, s) + sketch_np(rc, t, dim, h, s))


def check():
    t, dim = 3, 64
    ex = Expect(t, dim)
    h, s = ex.h, ex.s
    hl, sl = h.tolist(), s.astype(int).tolist()
    rng = np.random.default_rng(7)
    # 0. numpy DP == oracle DP
    codes = rng.integers(0, 4, 300).tolist()
    a = np.array(orc.sketch_dp(codes, t, dim, hl, sl))
    print(f"numpy DP vs oracle DP, n=300: max |diff| = {np.abs(a - sketch_np(codes, t, dim, h, s)).max():.2e}")
    # 1. exact: all distinct orderings of a small multiset, oracle brute force (closed form)
    for counts in ([3, 2, 2, 1], [4, 1, 0, 3], [2, 2, 2, 2]):
        base = sum(([c] * k for c, k in enumerate(counts)), [])
        perms = sorted(set(itertools.permutations(base)))
        mean = np.zeros(dim)
        mean_can = np.zeros(dim)
        for p in perms:
            v = np.array(orc.sketch_brute(list(p), t, dim, hl, sl))
            rc = [COMP[c] for c in p[::-1]]
            w = np.array(orc.sketch_brute(rc, t, dim, hl, sl))
            mean += v
            mean_can += 0.5 * (v + w)
        mean /= len(perms)
        mean_can /= len(perms)
        e = ex.expect([counts], canonical=False)[0]
        ec = ex.expect([counts], canonical=True)[0]
        ei = ex.expect([counts], canonical=True, iid=True)[0]
        print(f"counts {counts}: {len(perms)} orderings; |mean - E_hyper| = {np.abs(mean - e).max():.2e}, "
              f"canonical {np.abs(mean_can - ec).max():.2e}; (iid formula off by {np.abs(mean_can - ei).max():.2e}, "
              f"|E| = {np.linalg.norm(ec):.3f})")
    # 2. Monte Carlo, 1000-base windows (oracle DP, canonical), skewed composition
    for q in ([0.35, 0.15, 0.15, 0.35], [0.25, 0.25, 0.25, 0.25]):
        n, reps = 1000, 60
        counts = np.round(np.array(q) * n).astype(int)
        base = np.repeat(np.arange(4), counts)
        rows = []
        for _ in range(reps):
            x = rng.permutation(base).tolist()
            v = np.array(orc.sketch_dp(x, t, dim, hl, sl))
            w = np.array(orc.sketch_dp([COMP[c] for c in x[::-1]], t, dim, hl, sl))
            rows.append(0.5 * (v + w))
        rows = np.array(rows)
        ec = ex.expect([counts])[0]
        ei = ex.expect([counts], iid=True)[0]
        mean = rows.mean(0)
        se = rows.std(0, ddof=1).max() / np.sqrt(reps)
        print(f"q={q}, n={n}, {reps} random windows: |E| = {np.linalg.norm(ec):.4f}, mean row norm "
              f"{np.linalg.norm(rows, axis=1).mean():.4f}; ||mean - E_hyper|| = {np.linalg.norm(mean - ec):.4f} "
              f"(noise ~ {np.linalg.norm(rows - ec, axis=1).mean() / np.sqrt(reps):.4f}; max bin s.e. {se:.4f}); "
              f"||E_hyper - E_iid|| = {np.linalg.norm(ec - ei):.2e}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "check":
        check()
