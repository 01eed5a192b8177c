#!/usr/bin/env python3
"""Writes the golden-test inputs (deterministic): mixed.fa (DNA with N runs, IUPAC codes, lowercase,
U, CRLF line ends, multi-line records, records shorter than t, an empty record) and protein.fa."""
import random

rng = random.Random(1234)


def dna(n, extra=""):
    return "".join(rng.choice("ACGT" * 8 + extra) for _ in range(n))


def wrap(s, width):
    return [s[i:i + width] for i in range(0, len(s), width)] or [""]


records = [
    ("plain", dna(300), 60, "\n"),
    ("lower_mixed", dna(200).lower()[:100] + dna(100), 50, "\n"),
    ("with_N_runs", dna(150) + "N" * 40 + dna(150) + "nnnn" + dna(30), 70, "\n"),
    ("iupac", dna(400, extra="RYKMSWBDHVN-. "), 80, "\n"),
    ("crlf_multiline", dna(500), 33, "\r\n"),
    ("rna_U", dna(120).replace("T", "U"), 40, "\n"),
    ("short2", "AC", 60, "\n"),
    ("short3_with_N", "ANCNG", 60, "\n"),
    ("empty", "", 60, "\n"),
    ("only_N", "NNNNNNNN", 60, "\n"),
    ("long", dna(2500), 100, "\n"),
    ("homopolymer", "A" * 90, 60, "\n"),
]
with open("mixed.fa", "w", newline="") as f:
    for name, seq, width, eol in records:
        f.write(">" + name + " description words" + eol)
        for line in wrap(seq, width):
            if line:
                f.write(line + eol)

AA = "ACDEFGHIKLMNPQRSTVWY"
prot = [
    ("p1", "".join(rng.choice(AA) for _ in range(250))),
    ("p2_lower_X", "".join(rng.choice(AA + "X*") for _ in range(180)).lower()),
    ("p3_short", "MK"),
    ("p4", "".join(rng.choice(AA) for _ in range(90))),
]
with open("protein.fa", "w") as f:
    for name, seq in prot:
        f.write(">" + name + "\n")
        for line in wrap(seq, 60):
            if line:
                f.write(line + "\n")
