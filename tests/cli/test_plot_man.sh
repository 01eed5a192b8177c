#!/usr/bin/env bash
# CLI: the plot's canvas fits its colour bar caption and its labels at any count (1, 2, 6 items;
# 300-character names cut to 40 characters, the full name in a <title>), sizes read from the SVG's
# width/height and the embedded heatmap PNG's IHDR; and the man page's --block example, run word
# for word on small genomes, gives every pair once across its parts (issue #32, items 7 and 8).
#   TSKETCH=... TESTDATA=... bash test_plot_man.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
case $T in /*) ;; *) T=$PWD/$T ;; esac
MAN_IN=$TESTDATA/../docs/man/tsketch.1.in

# ---- plot layout ----
python3 - "$WORK" <<'EOF'
import random, sys
random.seed(7)
work = sys.argv[1]
def fasta(path, names):
    with open(path, 'w') as f:
        for name in names:
            f.write('>%s\n%s\n' % (name, ''.join(random.choice('ACGT') for _ in range(300))))
for n in (1, 2, 6):
    fasta('%s/n%d.fa' % (work, n), ['s%d' % i for i in range(n)])
fasta(work + '/long.fa', [('g%d_' % i + 'abcdefghij' * 30)[:300] for i in range(6)])
fasta(work + '/utf8.fa', ['é' * 60, 'ü' * 45 + 'x'])
EOF

# check_canvas SVG N WIDTHxHEIGHT: the svg's size is WIDTHxHEIGHT; the embedded PNG is N x N pixels;
# the caption (its anchor, its length at 0.62 em a character) and every label lie inside the canvas;
# labels have at most 40 characters, a cut one ends in an ellipsis and its <title> holds the name.
check_canvas() {
    python3 - "$@" <<'EOF'
import base64, struct, sys
import xml.etree.ElementTree as ET
svg, n, want = sys.argv[1], int(sys.argv[2]), sys.argv[3]
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(svg).getroot()
w, h = float(root.get('width')), float(root.get('height'))
bad = []
if '%gx%g' % (w, h) != want:
    bad.append('canvas %gx%g, expected %s' % (w, h, want))
img = [i for i in root.iter(NS + 'image') if i.get('id') == 'heatmap'][0]
png = base64.b64decode(img.get('href').split(',', 1)[1])
pw, ph = struct.unpack('>II', png[16:24])
if png[12:16] != b'IHDR' or (pw, ph) != (n, n):
    bad.append('heatmap PNG %dx%d, expected %dx%d' % (pw, ph, n, n))
def along(t):  # (x, y) of a rotate(90) text's origin
    x, y = t.get('transform').split('(')[1].split(')')[0].split()
    return float(x), float(y)
cap = [t for t in root.iter(NS + 'text') if t.get('class') == 'scale-label'][0]
x, y = along(cap)
length = len(cap.text) * float(cap.get('font-size')) * 0.62
y0 = y - length / 2 if cap.get('text-anchor') == 'middle' else y
if y0 < 0 or y0 + length > h or x + float(cap.get('font-size')) > w:
    bad.append('caption from y %.0f to %.0f at x %.0f: outside %gx%g' % (y0, y0 + length, x, w, h))
names = [l[1:] for l in open(sys.argv[4]).read().splitlines() if l.startswith('>')] if len(sys.argv) > 4 else None
font = float([g for g in root.iter(NS + 'g') if g.get('font-size')][0].get('font-size'))
for t in root.iter(NS + 'text'):
    if t.get('class') not in ('row-label', 'col-label'):
        continue
    title = t.find(NS + 'title')
    shown = t.text
    if len(shown) > 40 or (title is not None) != shown.endswith('\u2026'):
        bad.append('label %r (%d characters)' % (shown, len(shown)))
    if title is not None and (not title.text.startswith(shown[:-1]) or (names and title.text not in names)):
        bad.append('label %r with title %r' % (shown, title.text))
    extent = len(shown) * font * 0.62
    if t.get('class') == 'row-label' and float(t.get('x')) + extent > w:
        bad.append('row label %r ends at %.0f > %g' % (shown, float(t.get('x')) + extent, w))
    if t.get('class') == 'col-label' and along(t)[1] + extent > h:
        bad.append('column label %r ends at %.0f > %g' % (shown, along(t)[1] + extent, h))
print('\n'.join(bad) or 'canvas %gx%g, heatmap %dx%d' % (w, h, pw, ph))
sys.exit(1 if bad else 0)
EOF
}

# sizes: 1, 2, 6 items of short names; 6 of 300 characters (before: 3057 x 2725); 2 UTF-8 names
for c in "n1 1 438x322" "n2 2 462x322" "n6 6 558x322" "long 6 864x504" "utf8 2 768x408"; do
    set -- $c
    if "$T" plot -q "$WORK/$1.fa" -o "$WORK/$1.svg" 2>"$WORK/err" &&
        check_canvas "$WORK/$1.svg" "$2" "$3" "$WORK/$1.fa" >"$WORK/check"; then
        ok "plot of $2 ($1): $(cat "$WORK/check")"
    else
        not_ok "plot of $2 ($1)" "$(cat "$WORK/err" "$WORK/check")"
    fi
done
# the cut keeps whole UTF-8 characters: 39 of them, then the ellipsis
grep -q ">$(printf 'é%.0s' $(seq 39))…<title>" "$WORK/utf8.svg" && ok "a UTF-8 name is cut between characters" ||
    not_ok "a UTF-8 name is cut between characters" "$(grep -o 'row-label[^<]*' "$WORK/utf8.svg")"
# one genome, a caption of 36 characters and an 80-character title: 16 + 80 x 16 x 0.62 + 16 wide,
# 44 + 36 x 12 x 0.62 + 16 high
"$T" plot -q --genome "$TESTDATA/genomes/NC_001422_phiX174.fa" --title "$(printf 'T%.0s' $(seq 80))" -o "$WORK/g1.svg"
check_canvas "$WORK/g1.svg" 1 826x328 >"$WORK/check" && ok "plot --genome of 1 with an 80-character title: $(cat "$WORK/check")" ||
    not_ok "plot --genome of 1 with a title" "$(cat "$WORK/check")"

# ---- the man page's --block example, word for word ----
# its commands: the lines of the EXAMPLES block that holds '--block', troff escapes removed
awk '/^\.SH EXAMPLES/ {on = 1} /^\.SH SEE ALSO/ {on = 0} on' "$MAN_IN" | sed 's/\\-/-/g' |
    awk '/^\.nf/ {blk = ""; next} /^\.fi/ {if (blk ~ /--block/) printf "%s", blk; next} {blk = blk $0 "\n"}' >"$WORK/example"
if grep -q '^tsketch dist --block 2/4 ' "$WORK/example" && grep -q '^tsketch sketch ' "$WORK/example"; then
    ok "man page: the --block example is $(wc -l <"$WORK/example") commands"
else
    not_ok "man page: a --block example" "$(cat "$WORK/example")"
fi
mkdir -p "$WORK/ex/genomes"
cp "$TESTDATA"/genomes/*.fa "$WORK/ex/genomes/"
n=$(ls "$WORK"/ex/genomes/*.fa | wc -l)
(
    cd "$WORK/ex" || exit 1
    PATH="$(cd "$(dirname "$T")" && pwd):$PATH"
    # the sketch line as written, the dist line for each part (the example shows part 2), then the cat
    grep '^tsketch sketch ' ../example | sed 's/^tsketch sketch /tsketch sketch -q /' | bash || exit 1
    for i in 1 2 3 4; do
        grep '^tsketch dist --block 2/4 ' ../example | sed "s|2/4|$i/4|; s|part2|part$i|" | bash || exit 1
    done
    grep '^cat ' ../example | bash
) 2>"$WORK/ex.err"
tsk=$(grep -o -- '-o [^ ]*\.tsk' "$WORK/example" | head -1 | cut -c4-)
out=$(grep '^cat ' "$WORK/example" | sed 's/.*> *//')
if [ -s "$WORK/ex/$out" ]; then
    "$T" dist "$WORK/ex/$tsk" >"$WORK/ex/single.tsv"
    expect_same "$WORK/ex/single.tsv" "$WORK/ex/$out" "the example's 4 parts concatenated = one dist of $tsk"
    pairs=$(cut -f1,2 "$WORK/ex/$out" | awk '{print ($1 < $2) ? $1 " " $2 : $2 " " $1}' | sort -u | wc -l)
    [ "$pairs" -eq $((n * (n - 1) / 2)) ] && [ "$(wc -l <"$WORK/ex/$out")" -eq "$pairs" ] &&
        ok "the example gives all $pairs pairs of $n genomes, each once" ||
        not_ok "the example's pairs" "$pairs distinct pairs in $(wc -l <"$WORK/ex/$out") lines, $n genomes"
else
    not_ok "the man page's --block example runs" "$(cat "$WORK/ex.err")"
fi
# what the old example did: several FASTA inputs are references x queries, not all pairs
: >"$WORK/old.tsv"
for i in 1 2 3 4; do "$T" dist -q --genome --per-file "$WORK"/ex/genomes/*.fa --block "$i/4" >>"$WORK/old.tsv"; done
[ "$(wc -l <"$WORK/old.tsv")" -eq $((n - 1)) ] && ok "(the old example: $((n - 1)) of $((n * (n - 1) / 2)) pairs)" ||
    not_ok "the old example's pair count" "$(wc -l <"$WORK/old.tsv") lines"

finish
