#!/usr/bin/env bash
# Docs that show files must show them as they are: docs/workflows.md's Snakefile and config.yaml
# blocks are the workflow's files, and .ci/run runs the README's quick-start test command word for
# word.   SOURCE_ROOT=... bash test_docs.sh
. "$(dirname "$0")/harness.sh"
cd "$SOURCE_ROOT" || exit 1

block_after() { # file, the line before the fence: the fenced block's body
    awk -v want="$2" 'found == 2 && /^```/ {exit} found == 2 {print} found == 1 && /^```/ {found = 2} $0 == want {found = 1}' "$1"
}
block_after docs/workflows.md '`workflows/snakemake/Snakefile` (this block is the file; tests/cli/test_docs.sh keeps them equal):' >"$WORK/snakefile"
expect_same workflows/snakemake/Snakefile "$WORK/snakefile" "docs/workflows.md shows workflows/snakemake/Snakefile as it is"
block_after docs/workflows.md '`workflows/snakemake/config.yaml`:' >"$WORK/config"
expect_same workflows/snakemake/config.yaml "$WORK/config" "docs/workflows.md shows workflows/snakemake/config.yaml as it is"

# the README's quick start: exactly two commands, the second of which .ci/run runs
awk '/^## Quick start/ {on = 1; next} on && /^## / {exit} on' README.md >"$WORK/quick"
awk '/^```sh/ {n++; getline; print n "\t" $0}' "$WORK/quick" >"$WORK/cmds"
if [ "$(wc -l <"$WORK/cmds")" -eq 2 ]; then ok "README quick start: two commands"; else not_ok "README quick start: two commands" "$(cat "$WORK/cmds")"; fi
second=$(awk -F'\t' '$1 == 2 {print $2}' "$WORK/cmds")
if [ -n "$second" ] && grep -qxF -- "$second" .ci/run; then ok ".ci/run runs the README's second command word for word"
else not_ok ".ci/run runs the README's second command word for word" "README: $second"; fi
for f in scripts/install-deps.sh; do
    if sh -n "$f"; then ok "$f parses"; else not_ok "$f parses"; fi
done

finish
