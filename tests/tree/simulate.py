#!/usr/bin/env python3
"""Writes N related DNA sequences to stdout: a random root of L bases, then each new sequence a
copy of a random earlier one with about M point mutations (a random recursive tree), so the
distances have tree structure. Deterministic for a seed.

    simulate.py N L M SEED [PREFIX]"""
import random
import sys


def main():
    n, length, mutations, seed = (int(x) for x in sys.argv[1:5])
    prefix = sys.argv[5] if len(sys.argv) > 5 else 'seq'
    rnd = random.Random(seed)
    seqs = [bytearray(rnd.choice(b'ACGT') for _ in range(length))]
    out = sys.stdout
    for i in range(1, n):
        s = bytearray(seqs[rnd.randrange(len(seqs))])
        for _ in range(max(1, int(rnd.expovariate(1.0 / mutations)))):
            s[rnd.randrange(length)] = rnd.choice(b'ACGT')
        seqs.append(s)
    for i, s in enumerate(seqs):
        out.write('>%s%d\n%s\n' % (prefix, i, s.decode()))


if __name__ == '__main__':
    main()
