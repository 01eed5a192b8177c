"""harness.py: what the Python tests share. Importing it skips the test (exit 77) without numpy,
puts python/ (tsketch_io) and tests/cli/ (tsk_patch: .tsk fields and checksum) on the path, and
gives check() and finish(): TAP-like lines "ok - ..." / "not ok - ...", then "N passed, N failed"
and the exit status."""
import os
import sys

try:
    import numpy  # noqa: F401  (tsketch_io needs it)
except ImportError:
    print("numpy missing: skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))

passed = failed = 0


def check(cond, desc, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok -", desc)
    else:
        failed += 1
        print("not ok -", desc, detail)


def finish():
    """Prints the counts and exits: 0 when every check passed."""
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
