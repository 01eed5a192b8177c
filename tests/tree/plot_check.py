#!/usr/bin/env python3
"""Checks a `tsketch plot` SVG against the tree and the distances it was drawn from.

    plot_check.py PLOT.svg TREE.nwk MATRIX.phylip [--labels | --no-labels]

- the file parses as XML (an SVG root);
- with labels: the row labels top to bottom and the column labels left to right are the tree's
  leaves in its written order, every name once;
- the colour bar: data-min 0, data-max the largest distance, a gradient of stops from 0 to 1,
  a caption naming the distance;
- the heatmap PNG (decoded here: zlib, unfiltered rows) has data-cells pixels a side, and when it
  has a pixel per pair, pixel (x, y) is the gradient's colour of the distance between the y-th
  and the x-th leaf (within 2 per channel: rounding of the interpolation).
Exit 0 when all hold; prints what failed otherwise."""
import base64
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from newick_compare import parse  # noqa: E402

NS = '{http://www.w3.org/2000/svg}'


def read_phylip(path):
    lines = open(path).read().splitlines()
    n = int(lines[0].split()[0])
    names, d = [], {}
    for i, line in enumerate(lines[1:n + 1]):
        f = line.split('\t')
        names.append(f[0])
        for j, v in enumerate(f[1:]):
            d[(i, j)] = d[(j, i)] = float(v)
    return names, d


def decode_png(data):
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    at, idat, w, h = 8, b'', 0, 0
    while at < len(data):
        n, kind = struct.unpack('>I4s', data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        assert zlib.crc32(data[at + 4:at + 8 + n]) == struct.unpack('>I', data[at + 8 + n:at + 12 + n])[0], 'bad CRC'
        if kind == b'IHDR':
            w, h, depth, colour = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and colour == 2, 'not 8-bit RGB'
        elif kind == b'IDAT':
            idat += body
        at += 12 + n
    raw = zlib.decompress(idat)
    rows = []
    for y in range(h):
        row = raw[y * (3 * w + 1):(y + 1) * (3 * w + 1)]
        assert row[0] == 0, 'filtered row'
        rows.append([tuple(row[1 + 3 * x:4 + 3 * x]) for x in range(w)])
    return w, h, rows


def main():
    svg, nwk, phy = sys.argv[1:4]
    labels = '--no-labels' not in sys.argv
    bad = []
    root = ET.parse(svg).getroot()
    if root.tag != NS + 'svg':
        bad.append('root is %s, not svg' % root.tag)
    leaves, _ = parse(open(nwk).read())
    names, dist = read_phylip(phy)
    index = {x: i for i, x in enumerate(names)}
    rows = [t.text for t in root.iter(NS + 'text') if t.get('class') == 'row-label']
    cols = [t.text for t in root.iter(NS + 'text') if t.get('class') == 'col-label']
    if labels and (rows != leaves or cols != leaves):
        bad.append('labels are not the tree order: rows %s.. cols %s.. tree %s..' % (rows[:3], cols[:3], leaves[:3]))
    if not labels and (rows or cols):
        bad.append('%d labels where none were expected' % len(rows))
    bar = [g for g in root.iter(NS + 'g') if g.get('id') == 'colour-bar']
    if len(bar) != 1:
        return print('no colour bar') or 1
    vmax = max(dist.values()) if dist else 0
    if float(bar[0].get('data-min')) != 0 or abs(float(bar[0].get('data-max')) - vmax) > 1e-6 * max(vmax, 1e-30):
        bad.append('colour bar range %s..%s, largest distance %g' % (bar[0].get('data-min'), bar[0].get('data-max'), vmax))
    stops = [(float(s.get('offset')), s.get('stop-color')) for s in root.iter(NS + 'stop')]
    if len(stops) < 2 or stops[0][0] != 0 or stops[-1][0] != 1:
        bad.append('gradient stops %s' % stops)
    caption = [t.text for t in bar[0].iter(NS + 'text') if t.get('class') == 'scale-label']
    if not caption or 'distance' not in caption[0]:
        bad.append('colour bar caption %s' % caption)
    image = [i for i in root.iter(NS + 'image') if i.get('id') == 'heatmap']
    if len(image) != 1:
        return print('no heatmap image') or 1
    cells = int(image[0].get('data-cells'))
    w, h, pixels = decode_png(base64.b64decode(image[0].get('href').split(',', 1)[1]))
    if (w, h) != (cells, cells):
        bad.append('image %dx%d, data-cells %d' % (w, h, cells))
    if cells == len(leaves):
        rgb = [(o, tuple(int(c[k:k + 2], 16) for k in (1, 3, 5))) for o, c in stops]

        def colour(t):
            t = min(max(t, 0.0), 1.0)
            for (o0, c0), (o1, c1) in zip(rgb, rgb[1:]):
                if t <= o1:
                    f = (t - o0) / (o1 - o0)
                    return tuple(a + f * (b - a) for a, b in zip(c0, c1))
            return rgb[-1][1]

        order = [index[x] for x in leaves]
        worst = 0
        for y in range(cells):
            for x in range(cells):
                d = 0.0 if x == y else dist[(order[y], order[x])]
                want = colour(d / (vmax if vmax > 0 else 1))
                worst = max(worst, max(abs(a - b) for a, b in zip(want, pixels[y][x])))
        if worst > 2:
            bad.append('a heatmap pixel is %d off its distance\'s colour' % worst)
    for b in bad:
        print(b)
    print('%d leaves, %d cells, %s' % (len(leaves), cells, 'ok' if not bad else 'FAILED'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
