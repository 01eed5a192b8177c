"""python/tsketch_io.py against `tsketch export` and `tsketch info --json` (an independent path:
the C reader): names, row names, every value bit for bit, parameters; genome sketches' keys; npy;
and bad files refused with a reason.

Usage: test_tsketch_io.py TSKETCH TESTDATA  (needs numpy; exit 77 = skipped without it)
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy missing: skipped")
    sys.exit(77)

TSKETCH, TESTDATA = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tsketch_io  # noqa: E402

passed = failed = 0


def check(cond, desc, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok -", desc)
    else:
        failed += 1
        print("not ok -", desc, detail)


def tsketch(*args):
    return subprocess.run([TSKETCH, *args], check=True, capture_output=True, text=True).stdout


G = os.path.join(TESTDATA, "genomes")
FASTA = [os.path.join(G, f) for f in ("MT-human.fa", "MT-orang.fa", "NC_001422_phiX174.fa", "sarscov2_6.fa")]
PROTEIN = os.path.join(TESTDATA, "golden", "protein.fa")
work = tempfile.mkdtemp(prefix="tsketch-py.")

CASES = {
    "whole records": ["-k", "3", "-s", "20"] + FASTA,
    "double precision": ["--precision", "double", "-s", "8"] + FASTA[:2],
    "slide rows": ["--window", "500", "--stride", "250", "-s", "8", "--canonical"] + FASTA[:3],
    "anchored windows": ["--anchored", "--window", "16", "--stride", "10", "-s", "16", "--canonical"] + FASTA[2:3],
    "per file": ["--per-file"] + FASTA,
    "protein": ["--alphabet", "protein", "-s", "12", PROTEIN],
}
for desc, args in CASES.items():
    path = os.path.join(work, desc.replace(" ", "_") + ".tsk")
    tsketch("sketch", "-q", *args, "-o", path)
    s = tsketch_io.load(path)
    info = json.loads(tsketch("info", "--json", path))
    lines = [l.split("\t") for l in tsketch("export", path).splitlines()]
    check(s.row_names() == [l[0] for l in lines], f"{desc}: row names = export's")
    dtype = np.float64 if info["precision"] == "double" else np.float32
    want = np.array([[dtype(float(v)) for v in l[1:]] for l in lines], dtype=dtype).reshape(len(lines), info["dim"])
    check(s.rows.dtype == dtype and s.rows.shape == want.shape and np.array_equal(s.rows, want),
          f"{desc}: {s.rows.shape[0]} x {s.rows.shape[1]} {dtype.__name__} rows = export's, bit for bit")
    check(isinstance(s.rows, np.memmap) or s.rows.size == 0, f"{desc}: rows memory-mapped")
    same = all(s.params[k] == info[k] for k in ("t", "dim", "seed", "alphabet", "canonical", "window", "stride",
                                                 "anchor_k", "precision", "tables", "tool_version", "command_line"))
    check(same and len(s.names) == info["records"] and s.rows.shape[0] == info["rows"], f"{desc}: parameters = info --json's")
    recs = json.loads(tsketch("info", "--json", "--records", path)).get("record_list") or []
    if recs:
        check([(r["name"], r["source"], r["raw_length"], r["clean_length"], r["dropped"], r["first_row"], r["rows"])
               for r in recs] == [tuple(r) for r in s.records], f"{desc}: records = info --records'")
    rows_sum = sum(len(s.record_rows(i)) for i in range(len(s)))
    check(rows_sum == s.rows.shape[0], f"{desc}: record_rows cover the rows")

# .npy export: the same float32 matrix
path = os.path.join(work, "whole_records.tsk")
tsketch("export", "-f", "npy", path, "-o", os.path.join(work, "w.npy"))
check(np.array_equal(np.load(os.path.join(work, "w.npy")), tsketch_io.load(path).rows), "npy export = rows")

# genome sketches (format version 2), when this tsketch makes them
gpath = os.path.join(work, "genomes.tsk")
made = subprocess.run([TSKETCH, "sketch", "-q", "--genome", *FASTA, "-o", gpath], capture_output=True)
if made.returncode == 0:
    s = tsketch_io.load(gpath)
    info = json.loads(tsketch("info", "--json", gpath))
    lines = [l.split("\t") for l in tsketch("export", gpath).splitlines()]
    check(s.is_genome and s.version == 2 and s.rows.dtype == np.uint64, "genome: version 2, uint64 keys")
    check([l[0] for l in lines] == s.names, "genome: names = export's")
    check(all(np.array_equal(s.keys(i), np.array([int(v) for v in l[1:]], dtype=np.uint64))
              for i, l in enumerate(lines)), f"genome: the keys of all {len(lines)} genomes = export's")
    check(all(np.all(np.diff(s.keys(i).astype(np.float64)) > 0) or len(s.keys(i)) < 2 for i in range(len(s))),
          "genome: keys ascending")
    check(s.params["scaled"] == info.get("scaled"), "genome: scaled = info --json's", f"{s.params['scaled']} {info.get('scaled')}")
else:
    print("# this tsketch has no 'sketch --genome': genome checks skipped")

# bad files: a reason, never a wrong answer
raw = open(path, "rb").read()
bad = {
    "not a sketch": (b"hello world\n" * 30, "not a tsketch sketch file"),
    "truncated": (raw[:-10], "truncated"),
    "flipped data byte": (raw[:5000] + bytes([raw[5000] ^ 1]) + raw[5001:], "checksum"),
    "future version": (raw[:8] + (9).to_bytes(4, "little") + raw[12:], "unsupported format version 9"),
}
for desc, (data, reason) in bad.items():
    p = os.path.join(work, "bad.tsk")
    open(p, "wb").write(data)
    try:
        tsketch_io.load(p)
        check(False, f"bad file ({desc}) refused", "loaded")
    except ValueError as e:
        check(reason in str(e) and p in str(e), f"bad file ({desc}) refused: {e}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
