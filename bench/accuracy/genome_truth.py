"""Truth tables for the genome-level accuracy bench ($TSK_DATA/truth; TSK_DATA defaults to
$TSK_SHARED/data, TSK_SHARED to ../shared beside the repository), as {(name_a, name_b): value} with
name_a < name_b, names as the FASTA record / file stem. DATA is the one place the accuracy scripts
find the genome data."""
import os
import sys

DATA = os.environ.get("TSK_DATA", os.path.join(
    os.environ.get("TSK_SHARED", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared")), "data"))
if not os.path.isdir(DATA):  # a clone of the repository has no ../shared
    sys.exit(f"{DATA} not found: set TSK_SHARED to the shared directory (TSK_DATA to its data/), bench/README.md")


def stem(path):
    base = os.path.basename(path)
    for ext in (".gz", ".fna", ".fa", ".fasta"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def blochmannia_fastani():
    """fastANI ANI (percent), averaged over the two directions where both were reported."""
    acc = {}
    for line in open(os.path.join(DATA, "truth", "blochmannia_fastani.tsv")):
        f = line.rstrip("\n").split("\t")
        if f[0] == "query":
            continue
        a, b = stem(f[0]), stem(f[1])
        if a == b:
            continue
        acc.setdefault(tuple(sorted((a, b))), []).append(float(f[2]))
    return {k: sum(v) / len(v) for k, v in acc.items()}


def blochmannia_mash():
    out = {}
    for line in open(os.path.join(DATA, "truth", "blochmannia_mash.tsv")):
        f = line.rstrip("\n").split("\t")
        if f[0] == "query":
            continue
        a, b = stem(f[0]), stem(f[1])
        if a != b:
            out[tuple(sorted((a, b)))] = float(f[2])
    return out


def blochmannia_anim(method="ANIm"):
    """pyani ANIm (or ANIb) percentage identity (6 genomes), averaged over the two directions."""
    sub = {"ANIm": "ANIm_mpl_Linux_3.1", "ANIb": "ANIb_mpl"}[method]
    path = os.path.join(DATA, "truth", "pyani_blochmannia", sub, f"{method}_percentage_identity.tab")
    lines = [line.rstrip("\n").split("\t") for line in open(path)]
    cols = lines[0][1:]
    acc = {}
    for row in lines[1:]:
        for c, v in zip(cols, row[1:]):
            if c != row[0]:
                acc.setdefault(tuple(sorted((stem(row[0]), stem(c)))), []).append(float(v))
    return {k: sum(v) / len(v) for k, v in acc.items()}


def sarscov2_snps():
    out = {}
    for line in open(os.path.join(DATA, "truth", "sarscov2_viralwasm100_mafft_snp_distances.tsv")):
        f = line.rstrip("\n").split("\t")
        if f[0] == "seq1":
            continue
        out[tuple(sorted((f[0], f[1])))] = float(f[2])
    return out
