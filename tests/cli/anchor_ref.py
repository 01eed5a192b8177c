#!/usr/bin/env python3
"""Reference of tsketch's anchored windows (core/tsk_def.h, tsk_anchor_windows), written from the
definition in docs/algorithm.md, for tests/cli/test_anchored.sh.

  anchor_ref.py FASTA K WINDOW STRIDE SEED > windows.fa

Writes every anchored window of every record as a record of its own, named RECORD:windowN, in
order; sketching that file whole-record must give the rows of `tsketch sketch --anchored`."""
import sys

MASK = (1 << 64) - 1


def mix(z):
    """SplitMix64's output for state z (the state is advanced by the golden gamma first)."""
    z = (z + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def records(path):
    name, seq = None, []
    for line in open(path):
        line = line.rstrip("\r\n")
        if line.startswith(">"):
            if name is not None:
                yield name, "".join(seq)
            name, seq = line[1:].split()[0], []
        else:
            seq.append(line)
    if name is not None:
        yield name, "".join(seq)


def main():
    path, k, w, s, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5], 0)
    code = {"A": 0, "C": 1, "G": 2, "T": 3, "U": 3}
    limit = MASK // s
    for name, raw in records(path):
        x = [code[c] for c in raw.upper() if c in code]
        n, row = len(x), 0
        for i in range(n - k + 1):
            kmer = x[i:i + k]
            fw = rc = 0
            for c in kmer:
                fw = fw * 4 + c
            for c in reversed(kmer):
                rc = rc * 4 + (3 - c)
            first = i + k // 2 - w // 2
            if first < 0 or first + w > n or mix(min(fw, rc) ^ seed) >= limit:
                continue
            row += 1
            print(">%s:window%d\n%s" % (name, row, "".join("ACGT"[c] for c in x[first:first + w])))


main()
