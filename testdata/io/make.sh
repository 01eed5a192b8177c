#!/bin/sh
# Regenerates the small input files of tests/io (run from anywhere: sh testdata/io/make.sh).
# Needs gzip and bgzip (htslib's tabix package) or python3 for the BGZF file.
set -eu
cd "$(dirname "$0")"

# A small valid FASTA: two records, multi-line, lowercase and N kept as they are.
printf '>seq1 first record\nACGTACGTAC\nGTNNacgt\n>seq2\nTTTTGGGGCCCCAAAA\n\n>empty\n>seq3 last\nACGU\n' > good.fa
gzip -9nc good.fa > good.fa.gz
cat good.fa.gz good.fa.gz > multi-member.fa.gz     # concatenated gzip members (as `cat a.gz b.gz`)
# BGZF: bgzip if present, else htslib's own format through python (one block + EOF block).
if command -v bgzip >/dev/null 2>&1; then
  bgzip -c good.fa > good.fa.bgz
else
  python3 - <<'PY'
import struct, zlib
data = open('good.fa', 'rb').read()
def block(payload):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    cdata = c.compress(payload) + c.flush()
    bsize = 18 + len(cdata) + 8 - 1
    head = b'\x1f\x8b\x08\x04' + b'\0\0\0\0' + b'\0\xff' + struct.pack('<H', 6) + b'BC' + struct.pack('<HH', 2, bsize)
    return head + cdata + struct.pack('<II', zlib.crc32(payload) & 0xffffffff, len(payload))
open('good.fa.bgz', 'wb').write(block(data) + block(b''))
PY
fi
# The same records with CRLF line endings.
sed 's/$/\r/' good.fa > crlf.fa
# FASTQ: two records, the second with a quality line starting with '@'.
printf '@r1 desc\nACGTN\n+\nIIIII\n@r2\nGGCC\n+r2\n@III\n' > good.fq
sed 's/$/\r/' good.fq > crlf.fq
gzip -9nc good.fq > good.fq.gz

# Bad inputs, one reason each.
: > empty.fa                                           # 0 bytes
printf '' | gzip -9nc > empty.fa.gz                    # empty after decompression
printf '\n\n   \n\t\n' > no-records.fa                 # only blank lines
printf 'hello world\nthis is text\n' > not-fasta.txt   # text, not FASTA/FASTQ
printf '\000\001\002\003binary\377\376\000garbage' > garbage.bin
head -c 40 good.fa.gz > truncated.fa.gz                # gzip cut short
# gzip with a flipped byte in the deflate stream
python3 -c "
import sys; d = bytearray(open('good.fa.gz','rb').read()); d[len(d)//2] ^= 0xFF
open('corrupt.fa.gz','wb').write(bytes(d))"
head -c 30 good.fa.bgz > truncated.fa.bgz              # BGZF cut inside its first block
printf '@r1\nACGT\n+\nIIIII\n@r2\nAC\n+\nII\n' > bad-qual.fq  # quality 5, sequence 4
printf '>x\nAC\000\001GT\n' > binary-in-record.fa     # starts like FASTA, binary within the first KB
printf '@r1\nACGT\n+\nIIII\n@r2\nACGTACGT\n+\nIII' > truncated.fq   # ends inside the quality
printf '@r1\nACGT\n+\nIIII\n@r2\nACGT\n' > truncated-noplus.fq     # ends before the '+' line
printf '#not a header\n>x\nACGT\n' > comment-first.fa  # comment before the first header

# Input lists.
printf '# inputs\n\ngood.fa\n  good.fq  \nnamed\tgood.fa.gz\n' > list.txt
printf 'name\t\n' > bad-list.txt

# tables_t3_D16_seed99.txt is a copy of ../shared/spec/vectors/tables_t3_D16_seed99.txt (the
# SplitMix64 tables of seed 99, t=3, D=16), kept here so the tests run without ../shared.
