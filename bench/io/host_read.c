/* host_read.c: the reader thread's work alone (open, parse, clean into batches), no engine and
 * no writer, to measure the host side's ceiling. Built by bench/host_pipeline.sh against a build
 * directory's io/ and core/ libraries.
 * Usage: host_read [-t THREADS] [-r RANGE_BYTES] [-c] FILE...
 * prints bytes, records, bases, seconds and MB/s per file; with -c also a checksum of the batches
 * (records, lengths, names, codes and batch borders, in order: equal for every thread count; it
 * costs time on the ordering thread, so measure without it). THREADS (default 1) parse a plain
 * FASTA file as `tsketch sketch -p THREADS` does (io/feed.c), over ranges of RANGE_BYTES (default
 * io/fasta_par.h's); batches are handed over and emptied at once, with src/pipeline.c's limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../io/batcher.h"
#include "../../io/feed.h"
#include "../../io/seqio.h"
#include "../bench_clock.h"

typedef struct {
    tsk_batcher b;
    long long bases, records;
    unsigned long long sum;    /* FNV-1a over the batches' contents */
} bench_state;

static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

/* What the engine would get: the batch, then it is emptied. */
static int checksum;

static void consume(bench_state *st)
{
    tsk_batch batch = tsk_batcher_batch(&st->b);
    st->bases += batch.offset[batch.n_records];
    st->records += batch.n_records;
    if (!checksum) {
        tsk_batcher_reset(&st->b);
        return;
    }
    unsigned long long h = st->sum;
    for (int64_t r = 0; r < batch.n_records; r++) {
        const tsk_record_info *info = &st->b.info[r];
        h = fnv(h, info->name, strlen(info->name) + 1);
        h = fnv(h, &info->raw_len, sizeof info->raw_len);
        h = fnv(h, &info->clean_len, sizeof info->clean_len);
    }
    /* codes: a cheap word-wise sum (a byte loop would dominate the timing) */
    const unsigned long long *w = (const void *)batch.codes;
    size_t n = (size_t)batch.offset[batch.n_records], words = n / 8;
    unsigned long long s = 0;
    for (size_t i = 0; i < words; i++) s += w[i] * (i | 1);
    h = fnv(h, &s, sizeof s);
    h = fnv(h, batch.codes + words * 8, n - words * 8);
    h = fnv(h, &batch.n_records, sizeof batch.n_records); /* batch borders count too */
    st->sum = h;
    tsk_batcher_reset(&st->b);
}

static tsk_batcher *swap(void *ctx)
{
    bench_state *st = ctx;
    consume(st);
    return &st->b;
}

int main(int argc, char **argv)
{
    tsk_params p;
    tsk_params_default(&p);
    int threads = 1, first = 1;
    size_t range = 0;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "-c"))
            checksum = 1;
        else if (!strcmp(argv[first], "-t") && first + 1 < argc)
            threads = atoi(argv[++first]);
        else if (!strcmp(argv[first], "-r") && first + 1 < argc)
            range = (size_t)atoll(argv[++first]);
        else {
            fprintf(stderr, "usage: host_read [-t THREADS] [-r RANGE_BYTES] [-c] FILE...\n");
            return 2;
        }
    }
    for (int i = first; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) return 1;
        bench_state st = {0};
        tsk_batcher_init(&st.b, &p);
        st.b.max_bases = INT64_C(1) << 24; /* as src/pipeline.c */
        char err[TSK_ERRLEN];
        double t0 = bench_now();
        tsk_feed_opts opts = {threads, range, swap, NULL, &st};
        tsk_batcher *cur = &st.b;
        if (tsk_feed_file(argv[i], NULL, &opts, &cur, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        consume(&st);
        double dt = bench_now() - t0;
        printf("%s\t%d threads\t%lld bytes\t%lld records\t%lld bases\t%.3f s\t%.0f MB/s", argv[i], threads,
               (long long)sb.st_size, st.records, st.bases, dt, sb.st_size / dt / 1e6);
        if (checksum) printf("\tsum %016llx", st.sum);
        printf("\n");
        tsk_batcher_free(&st.b);
    }
    return 0;
}
