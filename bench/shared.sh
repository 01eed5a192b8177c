# bench/shared.sh: sourced by the bench scripts of bench/*/ that read the shared directory
# (workloads, eval/, data/). Sets SHARED (TSK_SHARED, default ../shared beside the repository) and
# DATA (TSK_DATA, default $SHARED/data); need_shared PATH... stops the script (exit 2) with a
# message naming the variables when a path is missing: a clone of the repository has no ../shared.
SHARED=${TSK_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}
DATA=${TSK_DATA:-$SHARED/data}
need_shared() {
    for p in "$@"; do
        [ -e "$p" ] && continue
        echo "$0: $p not found: set TSK_SHARED to the shared directory (TSK_DATA to its data/), bench/README.md" >&2
        exit 2
    done
}
