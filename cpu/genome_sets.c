/* genome_sets.c: shared-key counts of genome sketches by sorted merges (genome_sets.h).
 *
 * A shared key is below both sketches' thresholds, so merging the whole lists counts |A' n B'|;
 * only the sizes of a pair with different thresholds need a search (tsk_genome_pair_sizes). */
#include "genome_sets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tsk_cpu_genome_sets {
    const tsk_key_sets *q, *r;
    int64_t r_lo, r_hi; /* the references it answers for */
    int threads;
    char err[160]; /* why the last call failed (tsk_cpu_genome_sets_error) */
};

tsk_cpu_genome_sets *tsk_cpu_genome_sets_open(const tsk_key_sets *q, const tsk_key_sets *r, int threads, char *err,
                                              size_t errlen)
{
    tsk_cpu_genome_sets *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->q = q;
    e->r = r;
    e->r_lo = 0, e->r_hi = r->n_items;
    e->threads = threads > 0 ? threads : 1;
    return e;
}

tsk_cpu_genome_sets *tsk_cpu_genome_sets_open_shard(const tsk_key_sets *q, const tsk_key_sets *r, int64_t r_lo,
                                                    int64_t r_hi, int threads, char *err, size_t errlen)
{
    if (!tsk_key_sets_holds(r, r_lo, r_hi - r_lo)) {
        snprintf(err, errlen, "references [%lld, %lld) are not in a set of %lld genomes", (long long)r_lo,
                 (long long)r_hi, (long long)r->n_items);
        return NULL;
    }
    tsk_cpu_genome_sets *e = tsk_cpu_genome_sets_open(q, r, threads, err, errlen);
    if (e) e->r_lo = r_lo, e->r_hi = r_hi;
    return e;
}

void tsk_cpu_genome_sets_close(tsk_cpu_genome_sets *e) { free(e); }

const char *tsk_cpu_genome_sets_error(const tsk_cpu_genome_sets *e) { return e->err; }

/* -1, with why in e->err. */
static int fail(tsk_cpu_genome_sets *e, const char *why)
{
    snprintf(e->err, sizeof e->err, "%s", why);
    return -1;
}

/* Whether queries [q0, q0 + nq) are items of the query set: -1 with the reason when not. */
static int check_queries(tsk_cpu_genome_sets *e, int64_t q0, int64_t nq)
{
    if (tsk_key_sets_holds(e->q, q0, nq)) return 0;
    snprintf(e->err, sizeof e->err, "queries [%lld, %lld) are not in a set of %lld genomes", (long long)q0,
             (long long)(q0 + nq), (long long)e->q->n_items);
    return -1;
}

/* |A n B| of two strictly ascending lists, four keys of each at a time: the four of A against
 * the four of B in all rotations (16 comparisons in 4 vector compares), then the block with the
 * smaller last key moves on (both when equal). Each pair of blocks meets at most once, and two
 * equal keys' blocks always meet (a block moves on only past keys the other list's block already
 * exceeds or equals), so every shared key is counted once; an element of A equals at most one of
 * B, so OR-ing the four compares counts it once. The lists' ends go through the plain merge from
 * where the blocks stopped. The scalar merge (tsk_genome_shared_naive) waited on a load and a
 * compare for every key, about 8 cycles each: 98 % of all pairs of 1410 small genomes. */
typedef uint64_t u64x4 __attribute__((vector_size(32)));

__attribute__((target_clones("avx2", "default")))
static int64_t shared_count(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb)
{
    int64_t i = 0, j = 0, shared = 0;
    while (i + 4 <= na && j + 4 <= nb) {
        u64x4 va, vb;
        memcpy(&va, a + i, sizeof va);
        memcpy(&vb, b + j, sizeof vb);
        __typeof__(va == vb) m = va == vb; /* lanes of -1 where equal */
        vb = __builtin_shufflevector(vb, vb, 1, 2, 3, 0);
        m |= va == vb;
        vb = __builtin_shufflevector(vb, vb, 1, 2, 3, 0);
        m |= va == vb;
        vb = __builtin_shufflevector(vb, vb, 1, 2, 3, 0);
        m |= va == vb;
        shared -= m[0] + m[1] + m[2] + m[3];
        const uint64_t last_a = a[i + 3], last_b = b[j + 3];
        i += (int64_t)(last_a <= last_b) << 2;
        j += (int64_t)(last_b <= last_a) << 2;
    }
    while (i < na && j < nb) {
        const uint64_t x = a[i], y = b[j];
        shared += x == y;
        i += x <= y;
        j += y <= x;
    }
    return shared;
}

int64_t tsk_cpu_genome_shared(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j)
{
    return shared_count(q->keys + q->offset[i], tsk_key_set_size(q, i), r->keys + r->offset[j], tsk_key_set_size(r, j));
}

static int64_t shared_of(const tsk_cpu_genome_sets *e, int64_t q, int64_t r) { return tsk_cpu_genome_shared(e->q, q, e->r, r); }

int tsk_cpu_genome_sets_block(tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr,
                              uint32_t *shared, int64_t ld)
{
    if (check_queries(e, q0, nq)) return -1;
    if (!tsk_key_sets_holds(e->r, r0, nr) || ld < nr || r0 < e->r_lo || r0 + nr > e->r_hi)
        return fail(e, "a block of references beyond the set (or shard) or its rows");
    const int64_t n = nq * nr;
#pragma omp parallel for schedule(dynamic, 16) num_threads(e->threads)
    for (int64_t p = 0; p < n; p++) {
        const int64_t i = p / nr, j = p % nr;
        shared[i * ld + j] = (uint32_t)shared_of(e, q0 + i, r0 + j);
    }
    return 0;
}

int tsk_cpu_genome_sets_topk(tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                             tsk_pair_filter filter, tsk_genome_pair *out)
{
    if (check_queries(e, q0, nq)) return -1;
    if (k < 1) return fail(e, "top-k needs k of at least 1");
#pragma omp parallel for schedule(dynamic, 1) num_threads(e->threads)
    for (int64_t i = 0; i < nq; i++) {
        const int64_t q = q0 + i;
        tsk_genome_pair *best = out + i * k;
        int have = 0;
        for (int64_t r = e->r_lo; r < e->r_hi; r++) {
            if (!tsk_pair_admitted(filter, q, r)) continue;
            const int64_t s = shared_of(e, q, r);
            if (s == 0) continue;
            int64_t n_q, n_r;
            tsk_genome_pair_sizes(e->q, q, e->r, r, &n_q, &n_r);
            tsk_genome_pair c = {q, r, s, tsk_genome_share(s, n_q, n_r, mode)};
            if (have == k && !tsk_genome_ranks_before(&c, &best[k - 1])) continue;
            /* insertion into the sorted list of the best so far */
            int at = have < k ? have++ : k - 1;
            while (at > 0 && tsk_genome_ranks_before(&c, &best[at - 1])) {
                best[at] = best[at - 1];
                at--;
            }
            best[at] = c;
        }
        for (int j = have; j < k; j++) best[j] = (tsk_genome_pair){q, -1, 0, 0.0};
    }
    return 0;
}

int tsk_genome_pair_rows_join(tsk_genome_pair **rows, const int64_t *counts, int64_t nq, int failed,
                              tsk_genome_pair **pairs, int64_t *n, int64_t *cap)
{
    int64_t total = 0;
    for (int64_t i = 0; !failed && i < nq; i++) total += counts[i];
    if (!failed && total > *cap) {
        tsk_genome_pair *grown = realloc(*pairs, (size_t)total * sizeof **pairs);
        if (grown) *pairs = grown, *cap = total;
        else failed = 1;
    }
    for (int64_t i = 0; rows && i < nq; i++) {
        if (!failed && counts[i]) memcpy(*pairs + *n, rows[i], (size_t)counts[i] * sizeof **pairs);
        if (!failed) *n += counts[i];
        free(rows[i]);
    }
    return failed;
}

int tsk_cpu_genome_sets_within(tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, double min_share,
                               tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n,
                               int64_t *cap)
{
    *n = 0;
    if (check_queries(e, q0, nq)) return -1;
    /* one pass of counts per query row, kept per row, then gathered in order */
    tsk_genome_pair **rows = calloc((size_t)(nq ? nq : 1), sizeof *rows);
    int64_t *counts = calloc((size_t)(nq ? nq : 1), sizeof *counts);
    int failed = !rows || !counts;
#pragma omp parallel for schedule(dynamic, 1) num_threads(e->threads) reduction(| : failed)
    for (int64_t i = 0; i < nq; i++) {
        if (!rows || !counts) continue;
        const int64_t q = q0 + i;
        int64_t got = 0, room = 0;
        tsk_genome_pair *mine = NULL;
        for (int64_t r = e->r_lo; r < e->r_hi && !failed; r++) {
            if (!tsk_pair_admitted(filter, q, r)) continue;
            const int64_t s = shared_of(e, q, r);
            int64_t n_q, n_r;
            tsk_genome_pair_sizes(e->q, q, e->r, r, &n_q, &n_r);
            const double f = tsk_genome_share(s, n_q, n_r, mode);
            if (!(f >= min_share)) continue;
            if (got == room) {
                room = room ? 2 * room : 16;
                tsk_genome_pair *grown = realloc(mine, (size_t)room * sizeof *mine);
                if (!grown) {
                    failed = 1;
                    break;
                }
                mine = grown;
            }
            mine[got++] = (tsk_genome_pair){q, r, s, f};
        }
        rows[i] = mine;
        counts[i] = got;
    }
    failed = tsk_genome_pair_rows_join(rows, counts, nq, failed, pairs, n, cap);
    free(rows);
    free(counts);
    return failed ? fail(e, "out of memory for the pairs within the distance") : 0;
}
