/* synthetic_sets.c: synthetic genome sketches for the genome-engine benchmarks (synthetic_sets.h). */
#include "synthetic_sets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LSD radix sort of n keys (8-bit digits; digits that every key shares are skipped). */
static void radix_sort(uint64_t *a, uint64_t *tmp, int64_t n)
{
    for (int shift = 0; shift < 64; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) count[((a[i] >> shift) & 255) + 1]++;
        int64_t most = 0;
        for (int d = 1; d <= 256; d++) most = count[d] > most ? count[d] : most;
        if (most == n) continue;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++) tmp[count[(a[i] >> shift) & 255]++] = a[i];
        memcpy(a, tmp, sizeof *a * (size_t)n);
    }
}

/* The parameters of the sketches: the genome defaults with a floor of min_keys. */
tsk_params genome_params(int64_t min_keys)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = GENOME_T;
    p.dim = GENOME_DIM;
    tsk_tables_draw(&p);
    p.canonical = 1;
    p.window = WINDOW;
    p.stride = STRIDE;
    p.anchor_k = ANCHOR_K;
    p.scaled = SCALED;
    p.min_keys = min_keys;
    return p;
}

void free_sets(owned_sets *o)
{
    free(o->keys);
    free(o->offset);
    free(o->tau);
    free(o->length);
    free(o->cluster);
    free(o->keep);
}

int64_t synthetic_segments(const owned_sets *o, int64_t i) { return o->length[i] / TSK_ANI_SEGMENT; }

int64_t synthetic_anchor_cap(const owned_sets *o, int64_t i)
{
    /* a segment's at most 1.25 x the mean, a boundary's at most 1, the tail's as a segment's */
    return (synthetic_segments(o, i) + 1) * (2 * (TSK_ANI_SEGMENT >> tsk_ani_rate_log2(o->length[i])) + 8);
}

/* The centre's part that slot s (a segment, or the tail past the last) of genome i of o has: the
 * genus's for the first gfrac of its segments, else its cluster's. */
static void slot_owner(const owned_sets *o, int64_t i, int64_t s, uint64_t *owner, uint64_t *tag)
{
    const int64_t c = o->cluster[i], n_seg = synthetic_segments(o, i);
    const double gfrac = 0.02 + 0.18 * u01(T_GFRAC, (uint64_t)c, 0);
    const int genus = (double)s < gfrac * (double)n_seg;
    *owner = genus ? (uint64_t)(c / 5) : (uint64_t)c, *tag = genus ? T_GENUS : T_ANCHOR;
}

/* The centre's anchor at slot when genome i keeps it (survive), else one of its own. */
static uint32_t anchor_at(int64_t i, uint64_t owner, uint64_t tag, uint64_t slot, double survive)
{
    const int kept = u01(T_ASURV, (uint64_t)i, slot) < survive;
    return (uint32_t)(kept ? h3(tag, owner, slot) : h3(T_OWN, (uint64_t)i, slot | 1ull << 60));
}

/* The centre's anchors in segment s (of any member long enough to have it). */
static int64_t segment_anchors(uint64_t owner, uint64_t tag, int64_t s, int64_t per_seg)
{
    return per_seg * 3 / 4 + (int64_t)(h3(tag, owner, (uint64_t)s << 20) % (uint64_t)(per_seg / 2 + 1));
}

static int by_length_down(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x > y ? -1 : x < y;
}

synthetic_shape synthetic_anchors(const owned_sets *o, int64_t i, uint16_t *seg_count, uint32_t *hash)
{
    const int64_t n_seg = synthetic_segments(o, i);
    const int r = tsk_ani_rate_log2(o->length[i]);
    const int64_t per_seg = TSK_ANI_SEGMENT >> r; /* the mean anchors a segment; each varies by +-25 % */
    const double survive = pow(pow(o->keep[i], 1.0 / WINDOW), ANCHOR_K);
    const int first = i == 0 || o->cluster[i - 1] != o->cluster[i];
    const int draft = !first && u01(T_DRAFT, (uint64_t)i, 0) < SYNTHETIC_DRAFTS;
    synthetic_shape shape = {0, 0, 0, 1, o->length[i]};
    int64_t m = 0;
    for (int pass = 0; pass < 2; pass++) { /* the segments' anchors, then the breaks' (loose) */
        for (int64_t s = 0; s < n_seg; s++) {
            const int broken = draft && u01(T_DRAFT, (uint64_t)i, (uint64_t)s + 1) < SYNTHETIC_BREAKS;
            if (broken != pass) continue;
            uint64_t owner, tag;
            slot_owner(o, i, s, &owner, &tag);
            const int64_t k = segment_anchors(owner, tag, s, per_seg);
            for (int64_t j = 0; j < k; j++)
                hash[m++] = anchor_at(i, owner, tag, (uint64_t)s << 20 | (uint64_t)(j + 1), survive);
            if (!pass) seg_count[shape.n_segments++] = (uint16_t)k;
        }
        if (!pass) shape.n_anchors = m;
    }
    /* the other loose anchors: the ANCHOR_K - 1 k-mers across each segment's start but the first
     * keep (ANCHOR_K - 1) / 2^r on average (0 or 1, as the centre's); the tail, length mod
     * TSK_ANI_SEGMENT bases, is the start of the centre's segment n_seg and keeps that share of its
     * anchors, the first ones, so that a longer member's segment n_seg finds them here */
    const double per_boundary = (double)(ANCHOR_K - 1) / (double)(INT64_C(1) << r);
    for (int64_t s = 1; s < n_seg; s++) {
        uint64_t owner, tag;
        slot_owner(o, i, s, &owner, &tag);
        const int64_t k = (int64_t)(per_boundary + u01(T_LOOSE, owner, (uint64_t)s));
        for (int64_t j = 0; j < k; j++)
            hash[m++] = anchor_at(i, owner, tag, (uint64_t)s << 20 | 1ull << 19 | (uint64_t)(j + 1), survive);
    }
    const int64_t tail = o->length[i] - n_seg * TSK_ANI_SEGMENT;
    if (tail > 0) {
        uint64_t owner, tag;
        slot_owner(o, i, n_seg, &owner, &tag);
        const int64_t full = segment_anchors(owner, tag, n_seg, per_seg);
        int64_t k = (int64_t)((double)full * (double)tail / TSK_ANI_SEGMENT +
                              u01(T_LOOSE, owner, (uint64_t)n_seg << 20));
        k = k < full ? k : full;
        for (int64_t j = 0; j < k; j++)
            hash[m++] = anchor_at(i, owner, tag, (uint64_t)n_seg << 20 | (uint64_t)(j + 1), survive);
    }
    shape.n_loose = m - shape.n_anchors;
    int64_t *contig = draft && shape.n_segments < n_seg
                          ? malloc(sizeof(int64_t) * (size_t)(n_seg - shape.n_segments + 1)) : NULL;
    if (contig) { /* the contigs meet in the middle of each break's place */
        int64_t n = 0, run = 0; /* contigs, and segments since the last break */
        for (int64_t s = 0; s < n_seg; s++) {
            if (u01(T_DRAFT, (uint64_t)i, (uint64_t)s + 1) >= SYNTHETIC_BREAKS) {
                run++;
                continue;
            }
            contig[n] = run * TSK_ANI_SEGMENT + (n > 0 ? TSK_ANI_SEGMENT : TSK_ANI_SEGMENT / 2);
            n++, run = 0;
        }
        contig[n++] = run * TSK_ANI_SEGMENT + TSK_ANI_SEGMENT / 2 + tail;
        qsort(contig, (size_t)n, sizeof *contig, by_length_down);
        int64_t sum = 0, c = 0;
        while (2 * (sum += contig[c]) < o->length[i]) c++;
        shape.n_contigs = n, shape.n50 = contig[c];
        free(contig);
    }
    return shape;
}

owned_sets make_genomes(int64_t n, int64_t keys)
{
    const int64_t min_keys = keys / 2 > 0 ? keys / 2 : 1;
    const tsk_params p = genome_params(min_keys);
    const int64_t floor_len = tsk_genome_floor_length(&p);
    uint64_t *tau = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    int64_t *length = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *cluster = malloc(sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0, c = 0; i < n; c++) {  /* cluster sizes 1 + floor(-15 ln u), at most 200 */
        int64_t size = 1 + (int64_t)(-15.0 * log(1.0 - u01(T_CSIZE, (uint64_t)c, 0)));
        if (size > 200) size = 200;
        for (int64_t j = 0; j < size && i < n; j++) cluster[i++] = c;
    }
    uint64_t **own = malloc(sizeof(uint64_t *) * (size_t)n);
    int64_t *len = malloc(sizeof(int64_t) * (size_t)(n + 1));
    const uint64_t max_key = tsk_genome_max_key(&p); /* T */
#pragma omp parallel
    {
        uint64_t *buf = malloc(sizeof(uint64_t) * (size_t)(3 * keys + 64)), *tmp = malloc(sizeof(uint64_t) * (size_t)(3 * keys + 64));
#pragma omp for schedule(dynamic, 16)
        for (int64_t i = 0; i < n; i++) {
            const int64_t c = cluster[i], g = c / 5;
            /* a cluster of small genomes: the centre's keys are its candidates at the cluster's
             * stride s_c, a member's at its own s_c + 0..2 (a bound C_g at most the centre's) */
            const int small = u01(T_SMALL, (uint64_t)c, 0) < 0.12;
            const int64_t s_c = 1 + (int64_t)(u01(T_STRIDE, (uint64_t)c, 0) * (SCALED / 4 - 1));
            const int64_t s_i = s_c + (int64_t)(h3(T_STRIDE, (uint64_t)i, 1) % 3);
            /* s_i = floor(4 L / (5 min_keys)): L from ceil(5 min_keys s_i / 4), less than 5 min_keys / 4 more */
            const int64_t step = 5 * min_keys / 4 > 1 ? 5 * min_keys / 4 - 1 : 1;
            const int64_t len_i = small ? (5 * min_keys * s_i + 3) / 4 + (int64_t)(h3(T_LEN, (uint64_t)i, 0) % (uint64_t)step)
                                        : 0; /* long genomes: set from their keys below */
            const uint64_t centre_key = small ? (UINT64_MAX / (uint64_t)s_c | TSK_GENOME_FP_MASK) : max_key;
            const uint64_t bound = small ? tsk_genome_candidate_limit(&p, len_i) : max_key;
            /* small: about the 5/4 min_keys candidates of their stride */
            const int64_t kc = small ? (int64_t)(1.25 * (double)min_keys * (1.0 + 0.3 * u01(T_SIZE, (uint64_t)c, 0)))
                                     : (int64_t)((double)keys * (0.6 + 0.8 * u01(T_SIZE, (uint64_t)c, 0)));
            const double gfrac = small ? 0.0 : 0.02 + 0.18 * u01(T_GFRAC, (uint64_t)c, 0);
            const int first = i == 0 || cluster[i - 1] != c;
            const double keep = first ? 0.95 : 0.3 + 0.65 * u01(T_KEEP, (uint64_t)i, 0);
            int64_t m = 0;
            for (int64_t j = 0; j < kc; j++) {
                if (u01(T_KEEP, (uint64_t)i, (uint64_t)j + 1) >= keep) continue;
                const uint64_t k = (double)j < gfrac * (double)kc ? h3(T_GENUS, (uint64_t)g, (uint64_t)j)
                                                                  : h3(T_CLUSTER, (uint64_t)c, (uint64_t)j);
                const uint64_t key = centre_key == UINT64_MAX ? k : k % (centre_key + 1);
                if (key <= bound) buf[m++] = key;
            }
            for (int64_t j = 0, extra = (int64_t)((double)kc * (1.0 - keep)); j < extra; j++) {
                const uint64_t k = h3(T_OWN, (uint64_t)i, (uint64_t)j);
                buf[m++] = bound == UINT64_MAX ? k : k % (bound + 1);
            }
            for (int t = 0; t < 20; t++)
                buf[m++] = h3(T_POOL, 0, h3(T_POOL, (uint64_t)i, (uint64_t)t) % 2000) % max_key;
            radix_sort(buf, tmp, m);
            int64_t u = m ? 1 : 0;
            for (int64_t j = 1; j < m; j++)
                if (buf[j] != buf[u - 1]) buf[u++] = buf[j];
            /* long genomes: about one window in scaled of at least the floor length */
            length[i] = small ? len_i : (u * SCALED > floor_len ? u * SCALED : floor_len);
            /* the sketch: the candidates at most the genome's threshold */
            tau[i] = tsk_genome_threshold(&p, length[i], buf, u);
            u = tsk_keys_at_most(buf, u, tau[i]);
            own[i] = malloc(sizeof(uint64_t) * (size_t)(u + 1));
            memcpy(own[i], buf, sizeof(uint64_t) * (size_t)u);
            len[i] = u;
        }
        free(buf);
        free(tmp);
    }
    owned_sets o;
    o.tau = tau;
    o.length = length;
    o.cluster = cluster;
    o.keep = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        o.keep[i] = i == 0 || cluster[i - 1] != cluster[i] ? 0.95 : 0.3 + 0.65 * u01(T_KEEP, (uint64_t)i, 0);
    o.min_keys = min_keys;
    o.offset = malloc(sizeof(int64_t) * (size_t)(n + 1));
    o.offset[0] = 0;
    for (int64_t i = 0; i < n; i++) o.offset[i + 1] = o.offset[i] + len[i];
    o.keys = malloc(sizeof(uint64_t) * (size_t)(o.offset[n] + 1));
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < n; i++) {
        memcpy(o.keys + o.offset[i], own[i], sizeof(uint64_t) * (size_t)len[i]);
        free(own[i]);
    }
    free(own);
    free(len);
    o.s = (tsk_key_sets){n, o.keys, o.offset, o.tau};
    return o;
}

