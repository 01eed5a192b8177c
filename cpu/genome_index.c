/* genome_index.c: the inverted-index CPU engine for genome sketches (genome_index.h).
 *
 * Every key of a shared pair is in both sketches, so the postings a query's keys walk count
 * |Q n R| for every reference R at once, exactly as the merge counts it; sizes and shares then
 * follow tsk_genome_pair_sizes and tsk_genome_share as in cpu/genome_sets.c, and the top-k order
 * (larger share, then smaller reference) is a total order, so the order references are met in
 * does not change the list. */
#include "genome_index.h"
#include "genome_sets.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SINGLE UINT32_C(0x80000000) /* field of a key of one reference: that reference, no posting */
#define BUCKET_POSTINGS 16          /* postings per bucket the directory aims at */
#define ROUND_MIN (INT64_C(1) << 22) /* sets of fewer postings are indexed in one round */
#define SLICE_BITS 12               /* slices of a round: sorted one per thread at a time */
#define MIN_BITS 16                 /* buckets hold h's top 16 bits at least: a key stores the other 48 */
#define ENT_BYTES 10                /* a distinct key: h's low 48 bits, field */

struct tsk_cpu_genome_index {
    const tsk_key_sets *q, *r;
    int threads;
    int bits;           /* 2^bits buckets, picked by the top bits of h */
    uint64_t *dir;      /* bucket b: distinct keys [dir[2b], dir[2b + 2]), first posting dir[2b + 1] */
    uint8_t *ent;       /* distinct key d at ent + ENT_BYTES d: h's low 48 bits, field (genome_index.h) */
    uint32_t *post;     /* postings of keys of several references, ascending per key */
    int64_t n_distinct, n_post;
    char err[256];
};

/* (h, reference) while building */
typedef struct {
    uint64_t h;
    uint32_t ref;
} posting;

static inline uint64_t top(uint64_t h, int nbits) { return nbits ? h >> (64 - nbits) : 0; }

/* A distinct key's record: h's low 32 bits, its bits 32..47 (the bucket holds the rest), field. */
static inline void ent_put(uint8_t *x, uint64_t h, uint32_t field)
{
    const uint32_t lo = (uint32_t)h;
    const uint16_t mid = (uint16_t)(h >> 32);
    memcpy(x, &lo, 4);
    memcpy(x + 4, &mid, 2);
    memcpy(x + 6, &field, 4);
}

static inline int ent_is(const uint8_t *x, uint64_t h)
{
    uint32_t lo;
    uint16_t mid;
    memcpy(&lo, x, 4);
    memcpy(&mid, x + 4, 2);
    return lo == (uint32_t)h && mid == (uint16_t)(h >> 32);
}

static inline uint32_t ent_field(const uint8_t *x)
{
    uint32_t f;
    memcpy(&f, x + 6, 4);
    return f;
}

/* Where key's postings are: 0 when no reference holds it; 1 when one does, *ref; 2 when several
 * do, post[*p0 .. *p1). */
static inline int lookup(const tsk_cpu_genome_index *e, uint64_t key, uint64_t *p0, uint64_t *p1, uint32_t *ref)
{
    const uint64_t h = tsk_mix64(key), b = top(h, e->bits);
    const uint64_t d1 = e->dir[2 * b + 2], base = e->dir[2 * b + 1];
    uint64_t p = base;
    for (uint64_t d = e->dir[2 * b]; d < d1; d++) {
        const uint8_t *x = e->ent + ENT_BYTES * d;
        const uint32_t f = ent_field(x);
        if (ent_is(x, h)) {
            if (f & SINGLE) {
                *ref = f & ~SINGLE;
                return 1;
            }
            *p0 = p, *p1 = base + f;
            return 2;
        }
        if (!(f & SINGLE)) p = base + f;
    }
    return 0;
}

const char *tsk_cpu_genome_index_error(const tsk_cpu_genome_index *e)
{
    return e ? e->err : "no CPU genome index";
}

int64_t tsk_cpu_genome_index_bytes(const tsk_cpu_genome_index *e)
{
    return ((INT64_C(2) << e->bits) + 2) * 8 + e->n_distinct * ENT_BYTES + e->n_post * 4;
}

void tsk_cpu_genome_index_close(tsk_cpu_genome_index *e)
{
    if (!e) return;
    free(e->dir);
    free(e->ent);
    free(e->post);
    free(e);
}

static int cmp_posting(const void *a, const void *b)
{
    const posting *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return (x->ref > y->ref) - (x->ref < y->ref);
}

/* Sorts one bucket's postings by (h, reference): insertion for the usual few, qsort for a bucket
 * that holds a key of many references. */
static void sort_bucket(posting *p, int64_t n)
{
    if (n > 32) {
        qsort(p, (size_t)n, sizeof *p, cmp_posting);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        const posting x = p[i];
        int64_t j = i;
        while (j > 0 && cmp_posting(&p[j - 1], &x) > 0) p[j] = p[j - 1], j--;
        p[j] = x;
    }
}

/* What one slice of a round holds once sorted. */
typedef struct {
    int64_t distinct, postings;
} slice_total;

/* Indexes the keys of round rd (top round_bits of h) into e, appending to ent and post. */
static int build_round(tsk_cpu_genome_index *e, int rd, int round_bits, int slice_bits, posting *tmp, int64_t *hist,
                       slice_total *tot, int64_t *soff)
{
    const tsk_key_sets *r = e->r;
    const int64_t nr = r->n_items, n_slices = INT64_C(1) << slice_bits;
    const int local_bits = e->bits - round_bits - slice_bits;
    const int64_t n_local = INT64_C(1) << local_bits;
    int T = e->threads, failed = 0;
    /* scatter (h, ref) to the round's slices: thread t takes references [nr t / T, nr (t + 1) / T),
     * so that each slice's postings come in ascending reference order */
#pragma omp parallel num_threads(e->threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single
        T = nt;
        int64_t *h_t = hist + (int64_t)t * n_slices;
        memset(h_t, 0, sizeof *h_t * (size_t)n_slices);
        const int64_t i0 = nr * t / nt, i1 = nr * (t + 1) / nt;
        for (int64_t i = i0; i < i1; i++)
            for (int64_t j = r->offset[i]; j < r->offset[i + 1]; j++) {
                const uint64_t h = tsk_mix64(r->keys[j]);
                if ((int)top(h, round_bits) == rd) h_t[top(h, round_bits + slice_bits) & (uint64_t)(n_slices - 1)]++;
            }
#pragma omp barrier
#pragma omp single
        {
            int64_t at = 0;
            for (int64_t s = 0; s < n_slices; s++) {
                soff[s] = at;
                for (int u = 0; u < T; u++) {
                    const int64_t c = hist[(int64_t)u * n_slices + s];
                    hist[(int64_t)u * n_slices + s] = at;
                    at += c;
                }
            }
            soff[n_slices] = at;
        }
        for (int64_t i = i0; i < i1; i++)
            for (int64_t j = r->offset[i]; j < r->offset[i + 1]; j++) {
                const uint64_t h = tsk_mix64(r->keys[j]);
                if ((int)top(h, round_bits) == rd)
                    tmp[h_t[top(h, round_bits + slice_bits) & (uint64_t)(n_slices - 1)]++] = (posting){h, (uint32_t)i};
            }
    }
    /* per slice: a stable counting sort by bucket, then each bucket by h; the counts it will emit */
    int64_t max_slice = 0;
    for (int64_t s = 0; s < n_slices; s++)
        if (soff[s + 1] - soff[s] > max_slice) max_slice = soff[s + 1] - soff[s];
#pragma omp parallel num_threads(e->threads) reduction(| : failed)
    {
        posting *scratch = malloc(sizeof *scratch * (size_t)(max_slice ? max_slice : 1));
        int64_t *cnt = malloc(sizeof *cnt * (size_t)(n_local + 1));
        if (!scratch || !cnt) failed = 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t s = 0; s < n_slices; s++) {
            if (failed) continue;
            posting *p = tmp + soff[s];
            const int64_t n = soff[s + 1] - soff[s];
            memset(cnt, 0, sizeof *cnt * (size_t)(n_local + 1));
            for (int64_t i = 0; i < n; i++) cnt[(top(p[i].h, e->bits) & (uint64_t)(n_local - 1)) + 1]++;
            for (int64_t b = 0; b < n_local; b++) cnt[b + 1] += cnt[b];
            for (int64_t i = 0; i < n; i++) scratch[cnt[top(p[i].h, e->bits) & (uint64_t)(n_local - 1)]++] = p[i];
            memcpy(p, scratch, sizeof *p * (size_t)n);
            slice_total st = {0, 0};
            for (int64_t a = 0; a < n;) {
                const uint64_t b = top(p[a].h, e->bits);
                int64_t z = a + 1, in_bucket = 0;
                while (z < n && top(p[z].h, e->bits) == b) z++;
                sort_bucket(p + a, z - a);
                for (int64_t x = a; x < z;) {
                    int64_t y = x + 1;
                    while (y < z && p[y].h == p[x].h) y++;
                    st.distinct++;
                    if (y - x > 1) in_bucket += y - x;
                    x = y;
                }
                if (in_bucket >= (int64_t)SINGLE) failed = 1; /* a bucket's relative ends must fit 31 bits */
                st.postings += in_bucket;
                a = z;
            }
            tot[s] = st;
        }
        free(scratch);
        free(cnt);
    }
    if (failed) {
        snprintf(e->err, sizeof e->err,
                 "out of memory sorting a slice of %lld postings (or a bucket of 2^31 postings) of the genome index",
                 (long long)max_slice);
        return -1;
    }
    /* room for the round's distinct keys and postings, then each slice writes its own */
    int64_t d = e->n_distinct, np = e->n_post;
    for (int64_t s = 0; s < n_slices; s++) {
        const slice_total st = tot[s];
        tot[s] = (slice_total){d, np};
        d += st.distinct, np += st.postings;
    }
    uint8_t *ent = realloc(e->ent, (size_t)(ENT_BYTES * d + ENT_BYTES));
    if (ent) e->ent = ent;
    uint32_t *post = ent ? realloc(e->post, sizeof *post * (size_t)(np + 1)) : NULL;
    if (post) e->post = post;
    if (!ent || !post) {
        snprintf(e->err, sizeof e->err, "out of memory: %lld bytes for the genome index's %lld keys and %lld postings",
                 (long long)(ENT_BYTES * d + 4 * np), (long long)d, (long long)np);
        return -1;
    }
    const int64_t first_bucket = (int64_t)rd << (e->bits - round_bits);
#pragma omp parallel for schedule(dynamic, 1) num_threads(e->threads)
    for (int64_t s = 0; s < n_slices; s++) {
        const posting *p = tmp + soff[s];
        const int64_t n = soff[s + 1] - soff[s];
        int64_t dd = tot[s].distinct, pp = tot[s].postings, a = 0;
        const int64_t b0 = first_bucket + (s << local_bits);
        for (int64_t b = b0; b < b0 + n_local; b++) {
            e->dir[2 * b] = (uint64_t)dd, e->dir[2 * b + 1] = (uint64_t)pp;
            const int64_t base = pp;
            while (a < n && (int64_t)top(p[a].h, e->bits) == b) {
                int64_t y = a + 1;
                while (y < n && p[y].h == p[a].h) y++;
                if (y - a > 1)
                    for (int64_t j = a; j < y; j++) e->post[pp++] = p[j].ref;
                ent_put(e->ent + ENT_BYTES * dd++, p[a].h, y - a == 1 ? SINGLE | p[a].ref : (uint32_t)(pp - base));
                a = y;
            }
        }
    }
    e->n_distinct = d, e->n_post = np;
    return 0;
}

static int build(tsk_cpu_genome_index *e)
{
    const tsk_key_sets *r = e->r;
    const int64_t n_keys = r->n_items ? r->offset[r->n_items] - r->offset[0] : 0;
    int bits = MIN_BITS;
    while (bits < 48 && (INT64_C(2) << bits) * BUCKET_POSTINGS <= n_keys) bits++; /* 16 to 32 a bucket */
    /* rounds bound the build's (hash, reference) pairs, 16 bytes a posting of the round: a quarter
     * of the postings a round, a sixteenth past 2^28 (10^5 genomes: 0.9 GB, not 3.8 GB, of a peak
     * that must stay under twice the sketch file; each round costs one more pass over the keys) */
    const int round_bits = n_keys > (ROUND_MIN << 6) ? 4 : n_keys > ROUND_MIN ? 2 : 0;
    if (bits < round_bits + 1) bits = round_bits + 1;
    const int slice_bits = bits - round_bits < SLICE_BITS ? bits - round_bits : SLICE_BITS;
    e->bits = bits;
    const int64_t n_buckets = INT64_C(1) << bits, n_slices = INT64_C(1) << slice_bits;
    /* hashes spread the postings evenly over the rounds */
    int64_t round_max = 0;
    e->dir = malloc(sizeof *e->dir * (size_t)(2 * n_buckets + 2));
    int64_t *hist = malloc(sizeof *hist * (size_t)(e->threads * n_slices));
    slice_total *tot = malloc(sizeof *tot * (size_t)n_slices);
    int64_t *soff = malloc(sizeof *soff * (size_t)(n_slices + 1));
    int64_t *per_round = calloc((size_t)1 << round_bits, sizeof *per_round);
    posting *tmp = NULL;
    int rc = -1;
    if (!e->dir || !hist || !tot || !soff || !per_round) {
        snprintf(e->err, sizeof e->err, "out of memory: %lld bytes for the genome index's directory of %lld buckets",
                 (long long)(16 * n_buckets), (long long)n_buckets);
        goto done;
    }
    if (round_bits) {
#pragma omp parallel for schedule(static) num_threads(e->threads)
        for (int64_t i = 0; i < r->n_items; i++) {
            int64_t c[4] = {0, 0, 0, 0};
            for (int64_t j = r->offset[i]; j < r->offset[i + 1]; j++) c[top(tsk_mix64(r->keys[j]), 2)]++;
            for (int u = 0; u < 4; u++) {
#pragma omp atomic
                per_round[u] += c[u];
            }
        }
    } else {
        per_round[0] = n_keys;
    }
    for (int u = 0; u < 1 << round_bits; u++) round_max = per_round[u] > round_max ? per_round[u] : round_max;
    tmp = malloc(sizeof *tmp * (size_t)(round_max ? round_max : 1));
    if (!tmp) {
        snprintf(e->err, sizeof e->err, "out of memory: %lld bytes for a round of %lld postings of the genome index",
                 (long long)(round_max * (int64_t)sizeof *tmp), (long long)round_max);
        goto done;
    }
    for (int rd = 0; rd < 1 << round_bits; rd++)
        if (build_round(e, rd, round_bits, slice_bits, tmp, hist, tot, soff)) goto done;
    e->dir[2 * n_buckets] = (uint64_t)e->n_distinct, e->dir[2 * n_buckets + 1] = (uint64_t)e->n_post;
    rc = 0;
done:
    free(tmp);
    free(hist);
    free(tot);
    free(soff);
    free(per_round);
    return rc;
}

tsk_cpu_genome_index *tsk_cpu_genome_index_open(const tsk_key_sets *q, const tsk_key_sets *r, int threads, char *err,
                                                size_t errlen)
{
    if (r->n_items >= (int64_t)SINGLE) {
        snprintf(err, errlen, "%lld reference genome sketches: the index holds at most 2^31 - 1",
                 (long long)r->n_items);
        return NULL;
    }
    tsk_cpu_genome_index *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->q = q, e->r = r;
    e->threads = threads > 0 ? threads : 1;
    if (build(e)) {
        snprintf(err, errlen, "%s", e->err);
        tsk_cpu_genome_index_close(e);
        return NULL;
    }
    return e;
}

/* ---- queries ---- */

/* A thread's counters: shared keys per reference, and the references touched (count > 0). */
typedef struct {
    uint32_t *count;
    int32_t *touched;
    int64_t n_touched;
} counters;

static int counters_init(counters *c, int64_t nr)
{
    c->count = calloc((size_t)(nr ? nr : 1), sizeof *c->count);
    c->touched = malloc(sizeof *c->touched * (size_t)(nr ? nr : 1));
    c->n_touched = 0;
    return c->count && c->touched ? 0 : -1;
}

static void counters_free(counters *c)
{
    free(c->count);
    free(c->touched);
}

static inline void count_ref(counters *c, uint32_t r)
{
    if (c->count[r]++ == 0) c->touched[c->n_touched++] = (int32_t)r;
}

/* The lookups of an index beyond the caches wait on memory: the directory line of the key AHEAD
 * places on is fetched early, and its bucket's records and postings (two lines of each: a bucket
 * holds 16 to 32 postings) half that far ahead, once that line is in. */
#define AHEAD 32
/* GCC 12 drops __builtin_prefetch whose address comes from a load that only prefetches use (its
 * dead-code pass: none of this function's prefetches survived -O1); an asm statement stays. */
#if defined(__x86_64__) || defined(__i386__)
#define PREFETCH(p) __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)(p)))
#else
#define PREFETCH(p) __builtin_prefetch(p)
#endif
static inline void prefetch_ahead(const tsk_cpu_genome_index *e, const uint64_t *keys, int64_t i, int64_t n)
{
    if (i + AHEAD < n) PREFETCH(e->dir + 2 * top(tsk_mix64(keys[i + AHEAD]), e->bits));
    if (i + AHEAD / 2 < n) {
        const uint64_t *dir = e->dir + 2 * top(tsk_mix64(keys[i + AHEAD / 2]), e->bits);
        const uint8_t *x = e->ent + ENT_BYTES * dir[0];
        PREFETCH(x);
        PREFETCH(x + 64);
        PREFETCH(e->post + dir[1]);
        PREFETCH(e->post + dir[1] + 16);
    }
}

/* Counts query q's shared keys with every reference into c (touched: in the order first met). */
static void count_query(const tsk_cpu_genome_index *e, int64_t q, counters *c)
{
    const uint64_t *keys = e->q->keys + e->q->offset[q];
    const int64_t n = tsk_key_set_size(e->q, q);
    c->n_touched = 0;
    for (int64_t i = 0; i < n; i++) {
        prefetch_ahead(e, keys, i, n);
        uint64_t p0, p1;
        uint32_t ref;
        const int found = lookup(e, keys[i], &p0, &p1, &ref);
        if (found == 1) count_ref(c, ref);
        else if (found == 2)
            for (const uint32_t *r = e->post + p0, *end = e->post + p1; r < end; r++) count_ref(c, *r);
    }
}

int64_t tsk_cpu_genome_index_walk(const tsk_cpu_genome_index *e, int64_t q0, int64_t nq)
{
    if (q0 < 0 || nq < 0 || q0 > e->q->n_items || nq > e->q->n_items - q0) return -1;
    int64_t walked = 0;
#pragma omp parallel for schedule(dynamic, 16) num_threads(e->threads) reduction(+ : walked)
    for (int64_t q = q0; q < q0 + nq; q++) {
        const uint64_t *keys = e->q->keys + e->q->offset[q];
        const int64_t n = tsk_key_set_size(e->q, q);
        for (int64_t i = 0; i < n; i++) {
            prefetch_ahead(e, keys, i, n);
            uint64_t p0, p1;
            uint32_t ref;
            const int found = lookup(e, keys[i], &p0, &p1, &ref);
            walked += found == 1 ? 1 : found == 2 ? (int64_t)(p1 - p0) : 0;
        }
    }
    return walked;
}

static int in_range(const tsk_key_sets *s, int64_t i0, int64_t n)
{
    return i0 >= 0 && n >= 0 && i0 <= s->n_items && n <= s->n_items - i0;
}

/* a before b in top-k order: larger share, then smaller reference */
static int ranks_before(const tsk_genome_pair *a, const tsk_genome_pair *b)
{
    return a->share > b->share || (a->share == b->share && a->ref < b->ref);
}

int tsk_cpu_genome_index_topk(tsk_cpu_genome_index *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                              tsk_pair_filter filter, tsk_genome_pair *out)
{
    if (!in_range(e->q, q0, nq) || k < 1) {
        snprintf(e->err, sizeof e->err, "bad top-k query: queries %lld + %lld of %lld, k %d", (long long)q0,
                 (long long)nq, (long long)e->q->n_items, k);
        return -1;
    }
    const int64_t nr = e->r->n_items;
    int failed = 0;
#pragma omp parallel num_threads(e->threads) reduction(| : failed)
    {
        counters c;
        if (counters_init(&c, nr)) failed = 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < nq; i++) {
            if (failed) continue;
            const int64_t q = q0 + i;
            tsk_genome_pair *best = out + i * k;
            int have = 0;
            count_query(e, q, &c);
            for (int64_t t = 0; t < c.n_touched; t++) {
                const int64_t r = c.touched[t];
                const int64_t s = c.count[r];
                c.count[r] = 0;
                if (!tsk_pair_admitted(filter, q, r)) continue;
                int64_t n_q, n_r;
                tsk_genome_pair_sizes(e->q, q, e->r, r, &n_q, &n_r);
                const tsk_genome_pair p = {q, r, s, tsk_genome_share(s, n_q, n_r, mode)};
                if (have == k && !ranks_before(&p, &best[k - 1])) continue;
                int at = have < k ? have++ : k - 1;
                while (at > 0 && ranks_before(&p, &best[at - 1])) {
                    best[at] = best[at - 1];
                    at--;
                }
                best[at] = p;
            }
            for (int j = have; j < k; j++) best[j] = (tsk_genome_pair){q, -1, 0, 0.0};
        }
        counters_free(&c);
    }
    if (failed)
        snprintf(e->err, sizeof e->err, "out of memory: %lld bytes of counters per thread",
                 (long long)(8 * (nr ? nr : 1)));
    return failed ? -1 : 0;
}

static int cmp_int32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Puts c's touched references in ascending order: a sort of few, a scan of the counters for many. */
static void touched_in_order(counters *c, int64_t nr)
{
    if (c->n_touched * 16 < nr) {
        qsort(c->touched, (size_t)c->n_touched, sizeof *c->touched, cmp_int32);
        return;
    }
    int64_t m = 0;
    for (int64_t r = 0; r < nr; r++)
        if (c->count[r]) c->touched[m++] = (int32_t)r;
}

/* Appends pair p to the row (mine, got, room); -1 when out of memory. */
static int append(tsk_genome_pair **mine, int64_t *got, int64_t *room, tsk_genome_pair p)
{
    if (*got == *room) {
        const int64_t grow = *room ? 2 * *room : 16;
        tsk_genome_pair *grown = realloc(*mine, (size_t)grow * sizeof **mine);
        if (!grown) return -1;
        *mine = grown, *room = grow;
    }
    (*mine)[(*got)++] = p;
    return 0;
}

int tsk_cpu_genome_index_within(tsk_cpu_genome_index *e, int64_t q0, int64_t nq, double min_share,
                                tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n,
                                int64_t *cap)
{
    *n = 0;
    if (!in_range(e->q, q0, nq)) {
        snprintf(e->err, sizeof e->err, "bad threshold query: queries %lld + %lld of %lld", (long long)q0,
                 (long long)nq, (long long)e->q->n_items);
        return -1;
    }
    const int64_t nr = e->r->n_items;
    /* a pair sharing nothing has share 0: listed only when 0 reaches min_share, and then every
     * admitted reference is, as the merge engine lists them */
    const int every = 0.0 >= min_share;
    tsk_genome_pair **rows = calloc((size_t)(nq ? nq : 1), sizeof *rows);
    int64_t *counts = calloc((size_t)(nq ? nq : 1), sizeof *counts);
    int failed = !rows || !counts;
#pragma omp parallel num_threads(e->threads) reduction(| : failed)
    {
        counters c;
        if (counters_init(&c, nr)) failed = 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < nq; i++) {
            if (failed) continue;
            const int64_t q = q0 + i;
            int64_t got = 0, room = 0;
            tsk_genome_pair *mine = NULL;
            count_query(e, q, &c);
            if (every) {
                for (int64_t r = 0; r < nr && !failed; r++) {
                    if (!tsk_pair_admitted(filter, q, r)) continue;
                    int64_t n_q, n_r;
                    tsk_genome_pair_sizes(e->q, q, e->r, r, &n_q, &n_r);
                    const int64_t s = c.count[r];
                    const double f = tsk_genome_share(s, n_q, n_r, mode);
                    if (f >= min_share && append(&mine, &got, &room, (tsk_genome_pair){q, r, s, f})) failed = 1;
                }
            } else {
                touched_in_order(&c, nr);
                for (int64_t t = 0; t < c.n_touched && !failed; t++) {
                    const int64_t r = c.touched[t];
                    if (!tsk_pair_admitted(filter, q, r)) continue;
                    int64_t n_q, n_r;
                    tsk_genome_pair_sizes(e->q, q, e->r, r, &n_q, &n_r);
                    const int64_t s = c.count[r];
                    const double f = tsk_genome_share(s, n_q, n_r, mode);
                    if (f >= min_share && append(&mine, &got, &room, (tsk_genome_pair){q, r, s, f})) failed = 1;
                }
            }
            for (int64_t t = 0; t < c.n_touched; t++) c.count[c.touched[t]] = 0;
            rows[i] = mine;
            counts[i] = got;
        }
        counters_free(&c);
    }
    int64_t total = 0;
    for (int64_t i = 0; !failed && i < nq; i++) total += counts[i];
    failed = tsk_genome_pair_rows_join(rows, counts, nq, failed, pairs, n, cap);
    free(rows);
    free(counts);
    if (failed) {
        snprintf(e->err, sizeof e->err, "out of memory: counters of %lld references per thread, or %lld pairs found",
                 (long long)nr, (long long)total);
        *n = 0;
    }
    return failed ? -1 : 0;
}

/* References a walk estimate merges with each sampled query. */
#define WALK_REF_SAMPLES 512

double tsk_genome_walk_estimate(const tsk_key_sets *q, int64_t q0, int64_t nq, const tsk_key_sets *r, int samples,
                                int threads)
{
    if (!in_range(q, q0, nq) || samples < 1) return -1.0;
    if (nq == 0 || r->n_items == 0) return 0.0;
    if (samples > nq) samples = (int)nq;
    /* references evenly spread too: 10^5 of them merged with every sampled query would cost
     * seconds, more than the choice is worth */
    const int64_t refs = r->n_items < WALK_REF_SAMPLES ? r->n_items : WALK_REF_SAMPLES;
    char err[256];
    tsk_cpu_genome_sets *m = tsk_cpu_genome_sets_open(q, r, threads, err, sizeof err);
    double sum = 0.0;
    int rc = m ? 0 : -1;
    for (int s = 0; s < samples && !rc; s++) {
        const int64_t i = q0 + (2 * (int64_t)s + 1) * nq / (2 * (int64_t)samples);
        for (int64_t t = 0; t < refs && !rc; t++) {
            uint32_t shared;
            const int64_t j = (2 * t + 1) * r->n_items / (2 * refs);
            rc = tsk_cpu_genome_sets_block(m, i, 1, j, 1, &shared, 1);
            sum += shared;
        }
    }
    tsk_cpu_genome_sets_close(m);
    return rc ? -1.0 : sum * (double)nq / (double)samples * (double)r->n_items / (double)refs;
}
