#!/usr/bin/python3
"""Writes docs/accuracy_sweep.svg from bench/accuracy/results/sweep.tsv: Spearman (mean of the
tuning seeds, l2) against the window, one line per t (D=64, stride = window/10). Plain SVG,
no plotting library.

  plot_svg.py [SWEEP.tsv] [OUT.svg]"""
import collections
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "bench/accuracy/results/sweep.tsv"
dst = sys.argv[2] if len(sys.argv) > 2 else "docs/accuracy_sweep.svg"
acc = collections.defaultdict(list)
for line in open(src):
    f = line.rstrip("\n").split("\t")
    if f[0] == "t" or f[6] != "l2" or f[1] != "64" or f[2] == "0" or int(f[3]) * 10 != int(f[2]):
        continue
    acc[(int(f[0]), int(f[2]))].append(float(f[7]))
series = collections.defaultdict(list)
for (t, w), v in sorted(acc.items()):
    series[t].append((w, sum(v) / len(v)))
windows = sorted({w for (_, w) in acc})
W, H, L, R, T, B = 560, 340, 60, 120, 20, 50
ylo, yhi = 0.90, 0.97


def x(w):
    return L + (W - L - R) * windows.index(w) / max(1, len(windows) - 1)


def y(v):
    return T + (H - T - B) * (yhi - max(ylo, min(yhi, v))) / (yhi - ylo)


colors = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"]
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<rect width="{W}" height="{H}" fill="white"/>']
for k in range(8):
    v = ylo + k * 0.01
    out.append(f'<line x1="{L}" y1="{y(v):.1f}" x2="{W - R}" y2="{y(v):.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
for w in windows:
    out.append(f'<text x="{x(w):.1f}" y="{H - B + 18}" text-anchor="middle">{w}</text>')
out.append(f'<text x="{(L + W - R) / 2}" y="{H - 10}" text-anchor="middle">window (stride = window / 10), D = 64</text>')
out.append(f'<text transform="translate(16,{(T + H - B) / 2}) rotate(-90)" text-anchor="middle">Spearman vs edit distance</text>')
for i, (t, pts) in enumerate(sorted(series.items())):
    c = colors[i % len(colors)]
    path = " ".join(f"{x(w):.1f},{y(v):.1f}" for w, v in pts)
    out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
    for w, v in pts:
        out.append(f'<circle cx="{x(w):.1f}" cy="{y(v):.1f}" r="3" fill="{c}"/>')
    out.append(f'<text x="{W - R + 10}" y="{T + 20 + 18 * i}" fill="{c}">t = {t}</text>')
out.append("</svg>")
open(dst, "w").write("\n".join(out) + "\n")
