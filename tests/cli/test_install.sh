#!/usr/bin/env bash
# CLI: 'meson install' puts tsketch, tsketch(1) and the bash completion in place; the man page
# names every option that every subcommand's -h lists (in that command's section, or under SKETCH
# OPTIONS for the shared ones), and every subcommand 'tsketch help' lists has a section.
#   MESON=meson BUILD_DIR=build TSKETCH=... TESTDATA=... bash test_install.sh
. "$(dirname "$0")/harness.sh"

DEST=$WORK/root
if ! "$MESON" install -C "$BUILD_DIR" --no-rebuild --quiet --destdir "$DEST" >"$WORK/install.log" 2>&1; then
    not_ok "meson install" "$(tail -5 "$WORK/install.log")"
    finish
    exit 1
fi
ok "meson install --destdir"
BIN=$(find "$DEST" -path '*/bin/tsketch' -type f | head -1)
MAN=$(find "$DEST" -path '*/man1/tsketch.1' -type f | head -1)
COMP=$(find "$DEST" -path '*/bash-completion/completions/tsketch' -type f | head -1)
for f in BIN MAN COMP; do
    if [ -n "${!f}" ]; then ok "installed: ${!f#"$DEST"}"; else not_ok "installed: $f" "$(find "$DEST" -type f)"; fi
done
[ -n "$BIN" ] && [ -n "$MAN" ] && [ -n "$COMP" ] || { finish; exit 1; }
expect_true "the installed tsketch runs" -- "$BIN" --version

# ---- the man page against every -h ----
commands=$("$BIN" help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\f[BIRP]//g' "$MAN" >"$WORK/man.txt"
section() { # the man text from '.SS "name"' (or '.SH NAME') up to the next .SS/.SH
    awk -v head="$1" '$0 == head {on = 1; next} on && /^\.(SS|SH)/ {exit} on' "$WORK/man.txt"
}
tp_flags() { # the flags of the .TP entries of a man section: one per line, sorted
    awk '/^\.TP/ {getline; print}' "$1" | grep -oE -- '(^|, )--?[a-zA-Z][a-zA-Z-]*' | sed 's/^, //' | sort -u
}
help_flags() { # own|shared: the flags of a -h text's option lines (shared: after 'Sketch options:')
    awk -v want="$2" '/^Sketch options:/ {shared = 1} match($0, /^ +-/) && RLENGTH >= 3 && RLENGTH <= 7 && (shared ? "shared" : "own") == want {
        line = $0; sub(/^ +/, "", line); sub(/  .*/, "", line); n = split(line, w, /[ ,]+/)
        for (i = 1; i <= n; i++) if (w[i] ~ /^-/) print w[i] }' "$1" | sort -u
}
section ".SH SKETCH OPTIONS" >"$WORK/man.shared"
tp_flags "$WORK/man.shared" >"$WORK/man.shared.flags"
for cmd in $commands; do
    [ "$cmd" = help ] && continue
    section ".SS \"$cmd\"" >"$WORK/man.$cmd"
    if [ ! -s "$WORK/man.$cmd" ]; then
        not_ok "man page: a section for '$cmd'"
        continue
    fi
    "$BIN" "$cmd" -h >"$WORK/h.$cmd"
    tp_flags "$WORK/man.$cmd" >"$WORK/man.$cmd.flags"
    help_flags "$WORK/h.$cmd" own >"$WORK/h.$cmd.own"
    help_flags "$WORK/h.$cmd" shared >"$WORK/h.$cmd.shared"
    n=$(cat "$WORK/h.$cmd.own" "$WORK/h.$cmd.shared" | wc -l)
    if [ "$n" -lt 1 ]; then
        not_ok "man page: '$cmd -h' lists options" "$(head -3 "$WORK/h.$cmd")"
        continue
    fi
    expect_same "$WORK/h.$cmd.own" "$WORK/man.$cmd.flags" "man page: section '$cmd' has exactly the options of '$cmd -h'"
    missing=$(comm -23 "$WORK/h.$cmd.shared" "$WORK/man.shared.flags" | tr '\n' ' ')
    if [ -z "$missing" ]; then ok "man page: SKETCH OPTIONS has the shared options of '$cmd -h'"
    else not_ok "man page: shared options of '$cmd -h'" "missing: $missing"; fi
    if [ -s "$WORK/h.$cmd.shared" ] && ! grep -q "SKETCH OPTIONS" "$WORK/man.$cmd"; then
        not_ok "man page: section '$cmd' points to SKETCH OPTIONS"
    fi
done

# ---- the bash completion, from the installed files ----
complete_words() { # words... -> COMPREPLY of the last word, one line
    bash -c 'PATH=$1:$PATH; source "$2"; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tsketch; echo "${COMPREPLY[*]}"' \
        _ "$(dirname "$BIN")" "$COMP" "$@" 2>&1
}
got=$(complete_words tsketch "")
for cmd in $commands; do
    case " $got " in *" $cmd "*) ;; *) not_ok "completion: '$cmd' among the commands" "got: $got"; continue ;; esac
done
ok "completion: every command offered"
expect_same <(complete_words tsketch dist --gen) <(echo --genome) "completion: 'tsketch dist --gen' -> --genome"
expect_same <(complete_words tsketch dist --format "") <(echo tsv phylip square npy) "completion: format values"
expect_same <(complete_words tsketch help ex) <(echo export) "completion: 'tsketch help ex' -> export"
# cluster: its options from its -h, the values of --method, files after --quality
expect_same <(complete_words tsketch cluster --meth) <(echo --method) "completion: 'tsketch cluster --meth' -> --method"
expect_same <(complete_words tsketch cluster --method "") <(echo greedy single) "completion: --method values"
expect_same <(complete_words tsketch cluster --rep) <(echo --representative-dir --representatives) "completion: 'tsketch cluster --rep'"
expect_same <(complete_words tsketch cluster --min) <(echo --min-af --min-ani --min-completeness --min-keys --min-length) "completion: cluster's --min-af, --min-ani and the sketch options"
mkdir -p "$WORK/q" && : >"$WORK/q/quality_report.tsv"
expect_same <(complete_words tsketch cluster --quality "$WORK/q/qual") <(echo "$WORK/q/quality_report.tsv") \
    "completion: a file after --quality"
expect_same <(complete_words tsketch cluster -d "") <(echo) "completion: nothing after -d (a number)"

finish
