#!/usr/bin/env python3
"""planted.py: planted inputs of tests/cli/test_cluster.sh (standard library only; the same bytes
for the same arguments).

  planted.py genomes L N OUT.fa   genomes of L bases whose distances are known exactly when sketched
                                  with --genome --scaled 1 --min-keys 0 (every window kept): a
                                  genome differs from its base by N isolated substitutions (100
                                  bases apart), each changing the 20 windows over it, so two
                                  genomes with as many substitutions against a third are exactly
                                  equally far from it. Groups (unrelated to each other):
      chainA chainB chainC   A and C have N substitutions each against B, at other sites: A-B and
                             B-C are near, A-C twice as far (single linkage joins all three, greedy
                             makes C its own representative)
      tieR1 tieR2 tieM       the same shape: M is exactly as near R1 as R2, and R1-R2 twice as far
      moveR1 moveM moveR2    R1 has 4N/3 substitutions against M, R2 2N/3: M joins R1 first and
                             moves to R2, ranked below it, in greedy's second pass
      dupA dupB              identical (distance 0)
      lenA lenB              lenA is lenB's first 90 %: lenB is longer, ranks first though later
      solo1 solo2            unrelated to everything
  planted.py af SEED L OUT.fa     genome A (L random bases) and B30 B50 B80 B100: B_F is A's first
                                  F % with 1 % substitutions, then unrelated bases (L in all)
  planted.py vectors OUT.fa       records for vector sketches: 6 families of 5 mutated copies of a
                                  random ancestor (800-3000 bases), and 3 unrelated records
  planted.py empty-tsk IN.tsk OUT.tsk   IN (one genome without keys) with its record removed: a
                                  valid .tsk of no records (tsketch makes none itself)
"""

import random
import struct
import sys
import zlib

BASES = "ACGT"


def substitute(r, seq, sites):
    s = list(seq)
    for p in sites:
        s[p] = r.choice([c for c in BASES if c != s[p]])
    return "".join(s)


def sites(n, offset, length):
    """n substitution sites 100 bases apart from 60 + offset: the 20 windows over each are disjoint
    from any other site's for two sets of different offsets (0 and 50)."""
    out = [60 + offset + 100 * i for i in range(n)]
    if out and out[-1] >= length - 60:
        sys.exit(f"planted.py: {n} sites do not fit in {length} bases")
    return out


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n")
            for i in range(0, len(seq), 80):
                f.write(seq[i:i + 80] + "\n")


def genomes(length, n, out):
    r = random.Random(31 * length + n)
    rnd = lambda k: "".join(r.choices(BASES, k=k))
    recs = []
    x = rnd(length)
    recs += [("chainA", substitute(r, x, sites(n, 0, length))), ("chainB", x),
             ("chainC", substitute(r, x, sites(n, 50, length)))]
    y = rnd(length)
    recs += [("tieR1", substitute(r, y, sites(n, 0, length))), ("tieR2", substitute(r, y, sites(n, 50, length))),
             ("tieM", y)]
    z = rnd(length)
    recs += [("moveR1", substitute(r, z, sites(4 * n // 3, 0, length))), ("moveM", z),
             ("moveR2", substitute(r, z, sites(2 * n // 3, 50, length)))]
    u = rnd(length)
    recs += [("dupA", u), ("dupB", u)]
    v = rnd(length)
    recs += [("lenA", v[:length * 9 // 10]), ("lenB", v)]
    recs += [("solo1", rnd(length)), ("solo2", rnd(length))]
    write_fasta(out, recs)


def af(seed, length, out):
    r = random.Random(seed)
    rnd = lambda k: "".join(r.choices(BASES, k=k))
    a = rnd(length)
    recs = [("A", a)]
    for f in (30, 50, 80, 100):
        m = length * f // 100
        part = a[:m]
        recs.append((f"B{f}", substitute(r, part, r.sample(range(m), m // 100)) + rnd(length - m)))
    write_fasta(out, recs)


def mutate(r, seq, rate):
    """substitutions and 1-base indels, each at rate / 3"""
    out = []
    for c in seq:
        x = r.random()
        if x < rate / 3:
            out.append(r.choice([b for b in BASES if b != c]))
        elif x < 2 * rate / 3:
            continue
        elif x < rate:
            out.append(c + r.choice(BASES))
        else:
            out.append(c)
    return "".join(out)


def vectors(out):
    r = random.Random(7)
    recs = []
    for fam in range(6):
        anc = "".join(r.choices(BASES, k=r.randint(800, 3000)))
        for m in range(5):
            recs.append((f"f{fam}m{m}", mutate(r, anc, 0.01 + 0.01 * m)))
    for k in range(3):
        recs.append((f"other{k}", "".join(r.choices(BASES, k=r.randint(800, 3000)))))
    r.shuffle(recs)
    write_fasta(out, recs)


def empty_tsk(src, dst):
    """Removes the only record of a genome .tsk whose record has no rows; fixes sizes and CRC
    (docs/format.md: header with its CRC zeroed, tables, data, trailer)."""
    b = bytearray(open(src, "rb").read())
    u32 = lambda off: struct.unpack_from("<I", b, off)[0]
    u64 = lambda off: struct.unpack_from("<Q", b, off)[0]
    if u64(48) != 0 or u64(56) != 1:
        sys.exit(f"planted.py: {src}: not one record without rows")
    toff = u64(64)
    del b[toff:toff + 56]
    struct.pack_into("<Q", b, 56, 0)
    struct.pack_into("<Q", b, 72, u64(72) - 56)
    if u32(8) == 5:  # the anchor section of no genome: empty, at the trailer's end rounded up to 8
        end = toff + u64(72)
        del b[end:]
        b.extend(b"\0" * (-end % 8))
        for off in (216, 224, 232, 240):
            struct.pack_into("<Q", b, off, len(b) if off == 216 else 0)
    struct.pack_into("<Q", b, 24, len(b))
    head = bytearray(b[:u32(16)])
    head[20:24] = b"\0\0\0\0"
    crc = zlib.crc32(bytes(head))
    crc = zlib.crc32(bytes(b[u64(32):u64(32) + u64(40)]), crc)
    crc = zlib.crc32(bytes(b[u64(64):u64(64) + u64(72)]), crc)
    if u32(8) == 5:
        crc = zlib.crc32(bytes(b[u64(216):u64(216) + u64(224)]), crc)
    struct.pack_into("<I", b, 20, crc)
    open(dst, "wb").write(b)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "genomes":
        genomes(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif cmd == "af":
        af(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif cmd == "vectors":
        vectors(sys.argv[2])
    elif cmd == "empty-tsk":
        empty_tsk(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
