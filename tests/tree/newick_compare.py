#!/usr/bin/env python3
"""Compares two Newick trees of the same leaves as unrooted trees.

    newick_compare.py OURS.nwk OTHER.nwk [--scale S] [--tol T]
    newick_compare.py --has-split TREE.nwk NAME1,NAME2    (leaves named by these prefixes: one side of an edge)

Prints the Robinson-Foulds distance (non-trivial splits in one tree and not the other) and the
largest difference of branch lengths over the edges both trees have (an edge is named by the
split it makes; OTHER's lengths are divided by S first). Exit 0 when RF = 0 and every length
agrees within T (default 1e-6); 1 otherwise. Reads quoted labels ('it''s') and quicktree's
multi-line layout; no recursion, so 100,000-deep trees are fine."""
import argparse
import sys


def parse(text):
    """Returns (leaf names, edges): edges maps frozenset(leaf indices below) -> length."""
    names, edges = [], []
    stack = [[]]  # per open node: the (leaf set, length) of its finished children
    i, n = 0, len(text)
    pending = None  # the node just finished: (leaf set), waiting for its length

    def finish(node_leaves, length):
        stack[-1].append(node_leaves)
        edges.append((node_leaves, length))

    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == '(':
            stack.append([])
            i += 1
        elif c in ',)':
            if pending is not None:
                finish(pending, 0.0)
                pending = None
            if c == ')':
                children = stack.pop()
                leaves = frozenset().union(*children) if children else frozenset()
                pending = leaves
            i += 1
        elif c == ':':
            j = i + 1
            while j < n and text[j] not in ',);' and not text[j].isspace():
                j += 1
            finish(pending, float(text[i + 1:j]))
            pending = None
            i = j
        elif c == ';':
            break
        else:  # a label
            if c == "'":
                j, label = i + 1, []
                while True:
                    if text[j] == "'" and j + 1 < n and text[j + 1] == "'":
                        label.append("'")
                        j += 2
                    elif text[j] == "'":
                        j += 1
                        break
                    else:
                        label.append(text[j])
                        j += 1
                name = ''.join(label)
            else:
                j = i
                while j < n and text[j] not in ':,);' and not text[j].isspace():
                    j += 1
                name = text[i:j]
            names.append(name)
            pending = frozenset([len(names) - 1])
            i = j
    if pending is not None and stack:
        stack[-1].append(pending)
    return names, edges


def splits(names, edges, order):
    """Edges keyed by the side of their split without leaf order[0] (so both trees agree), as
    name sets; lengths of edges of one split (the top's children of a 2-leaf tree) add up."""
    idx = [order[x] for x in names]
    total = frozenset(range(len(names)))
    out = {}
    for leaves, length in edges:
        side = frozenset(idx[x] for x in leaves)
        if 0 in side:
            side = frozenset(range(len(names))) - side
        if not side or len(side) == len(total):
            continue
        out[side] = out.get(side, 0.0) + length
    return out


def has_split(path, prefixes):
    """Whether the leaves named by prefixes (each the start of one leaf's name) are one side of an
    edge of the tree (a clade once rooted elsewhere: the root's trifurcation is no clade)."""
    names, edges = parse(open(path).read())
    want = frozenset(k for k, x in enumerate(names) if any(x.startswith(p) for p in prefixes))
    if len(want) != len(prefixes):
        return False
    rest = frozenset(range(len(names))) - want
    return any(frozenset(leaves) in (want, rest) for leaves, _ in edges)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--has-split':
        ok = has_split(sys.argv[2], sys.argv[3].split(','))
        print('split %s: %s' % (sys.argv[3], 'yes' if ok else 'no'))
        return 0 if ok else 1
    ap = argparse.ArgumentParser()
    ap.add_argument('ours')
    ap.add_argument('other')
    ap.add_argument('--scale', type=float, default=1.0)
    ap.add_argument('--tol', type=float, default=1e-6)
    a = ap.parse_args()
    na, ea = parse(open(a.ours).read())
    nb, eb = parse(open(a.other).read())
    if sorted(na) != sorted(nb) or len(set(na)) != len(na):
        print('leaf names differ or repeat: %d vs %d leaves' % (len(na), len(nb)))
        return 1
    order = {x: k for k, x in enumerate(sorted(na))}
    sa = splits(na, ea, order)
    sb = splits(nb, [(l, x / a.scale) for l, x in eb], order)
    n = len(na)
    nontrivial = lambda s: {k for k in s if 1 < len(k) < n - 1}
    rf = len(nontrivial(sa) ^ nontrivial(sb))
    common = set(sa) & set(sb)
    worst = max((abs(sa[k] - sb[k]) for k in common), default=0.0)
    print('leaves %d  RF %d  edges compared %d  max |length difference| %.3g' % (n, rf, len(common), worst))
    return 0 if rf == 0 and worst <= a.tol else 1


if __name__ == '__main__':
    sys.exit(main())
