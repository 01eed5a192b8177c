#!/usr/bin/env bash
# Localizes a GPU != CPU whole-record mismatch: N random records of L bp, one line or wrapped at 60.
B=${1:-.device/anch/bin}
for cfg in "298 1000 1" "298 1000 60" "1410 709 60" "298 709 60" "2000 1000 1" "298 1024 1" "298 992 1" "50 1000 1" "298 5000 1" "298 200 1"; do
    set -- $cfg
    python3 - "$1" "$2" "$3" >/tmp/s.fa <<'PY'
import random, sys
n, l, w = (int(x) for x in sys.argv[1:])
r = random.Random(7)
for i in range(n):
    s = ''.join(r.choice('ACGT') for _ in range(l))
    print('>r%d' % i)
    for j in range(0, l, w if w > 1 else l):
        print(s[j:j + (w if w > 1 else l)])
PY
    $B/tsketch sketch -q --device cuda /tmp/s.fa -o /tmp/g.tsk && $B/tsketch export /tmp/g.tsk >/tmp/g.tsv
    $B/tsketch sketch -q --device cpu /tmp/s.fa -o /tmp/c.tsk && $B/tsketch export /tmp/c.tsk >/tmp/c.tsv
    echo "N=$1 L=$2 line=$3: $($B/tsv_compare /tmp/c.tsv /tmp/g.tsv 1e-5 2>&1 | tail -1)"
done
