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
    return synthetic_segments(o, i) * (2 * (TSK_ANI_SEGMENT >> tsk_ani_rate_log2(o->length[i])) + 8);
}

int64_t synthetic_anchors(const owned_sets *o, int64_t i, uint16_t *seg_count, uint32_t *hash)
{
    const int64_t c = o->cluster[i], g = c / 5, n_seg = synthetic_segments(o, i);
    const int r = tsk_ani_rate_log2(o->length[i]);
    const int64_t per_seg = TSK_ANI_SEGMENT >> r; /* the mean anchors a segment; each varies by +-25 % */
    const double survive = pow(pow(o->keep[i], 1.0 / WINDOW), ANCHOR_K);
    const double gfrac = 0.02 + 0.18 * u01(T_GFRAC, (uint64_t)c, 0);
    int64_t m = 0;
    for (int64_t s = 0; s < n_seg; s++) {
        const int genus = (double)s < gfrac * (double)n_seg;
        const uint64_t owner = genus ? (uint64_t)g : (uint64_t)c, tag = genus ? T_GENUS : T_ANCHOR;
        const int64_t k = per_seg * 3 / 4 + (int64_t)(h3(tag, owner, (uint64_t)s << 20) % (uint64_t)(per_seg / 2 + 1));
        for (int64_t j = 0; j < k; j++) {
            const uint64_t slot = (uint64_t)s << 20 | (uint64_t)(j + 1);
            const int kept = u01(T_ASURV, (uint64_t)i, slot) < survive;
            hash[m++] = (uint32_t)(kept ? h3(tag, owner, slot) : h3(T_OWN, (uint64_t)i, slot | 1ull << 60));
        }
        seg_count[s] = (uint16_t)k;
    }
    return m;
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

