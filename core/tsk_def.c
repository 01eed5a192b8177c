/* tsk_def.c: tables, encoding and split weights of the tsketch sketch (see tsk_def.h). */
#include "tsk_def.h"

#include "genome_keys.h"

#include <math.h>
#include <string.h>

static const char DNA_LETTERS[] = "ACGT";
static const char PROTEIN_LETTERS[] = "ACDEFGHIKLMNPQRSTVWY";

void tsk_params_default(tsk_params *p)
{
    memset(p, 0, sizeof *p);
    p->t = TSK_DEFAULT_T;
    p->dim = TSK_DEFAULT_DIM;
    p->seed = TSK_DEFAULT_SEED;
    p->alphabet = TSK_DNA;
    p->precision = TSK_SINGLE;
    tsk_tables_draw(p);
}

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void tsk_tables_draw(tsk_params *p)
{
    uint64_t state = p->seed;
    int a = tsk_alphabet_size(p->alphabet);
    memset(p->hash, 0, sizeof p->hash);
    memset(p->sign, 0, sizeof p->sign);
    for (int k = 0; k < p->t && k < TSK_MAX_T; k++)
        for (int c = 0; c < a; c++) {
            p->hash[k][c] = (int32_t)(splitmix64_next(&state) % (uint64_t)p->dim);
            p->sign[k][c] = (splitmix64_next(&state) >> 63) ? -1 : 1;
        }
    p->tables_from_file = 0;
}

const char *tsk_params_check(const tsk_params *p)
{
    if (p->t < 1 || p->t > TSK_MAX_T) return "tuple length t must be between 1 and 16";
    if (p->dim < 1 || p->dim > TSK_MAX_DIM) return "dimension D must be between 1 and 65536";
    if (p->alphabet != TSK_DNA && p->alphabet != TSK_PROTEIN) return "alphabet must be dna or protein";
    if (p->canonical && p->alphabet != TSK_DNA) return "canonical sketches need the dna alphabet";
    if (p->window < 0 || p->stride < 0) return "window and stride must be positive";
    if (p->window > TSK_MAX_WINDOW || p->stride > TSK_MAX_WINDOW) return "window and stride must be at most 2^32";
    if (p->window == 0 && p->stride != 0) return "stride needs a window";
    if (p->window > 0 && p->stride <= 0) return "stride must be positive";
    if (p->stride > p->window && p->anchor_k == 0) return "stride must not exceed window";
    if (p->anchor_k != 0) {
        if (p->anchor_k < 2 || p->anchor_k > 32 || p->anchor_k % 2) return "anchor k must be even, 2..32";
        if (p->window == 0) return "anchored windows need a window";
        if (p->alphabet != TSK_DNA) return "anchored windows need the dna alphabet";
        if (p->window < p->anchor_k) return "window must not be shorter than the anchor k-mer";
    }
    if (p->scaled < 0) return "scaled must be positive";
    if (p->scaled > 0) {
        const char *why = tsk_genome_params_check(p);
        if (why) return why;
    }
    int a = tsk_alphabet_size(p->alphabet);
    for (int k = 0; k < p->t; k++)
        for (int c = 0; c < a; c++) {
            if (p->hash[k][c] < 0 || p->hash[k][c] >= p->dim) return "hash table value outside [0, D)";
            if (p->sign[k][c] != 1 && p->sign[k][c] != -1) return "sign table value other than +1 or -1";
        }
    return NULL;
}

int tsk_alphabet_size(tsk_alphabet a) { return a == TSK_PROTEIN ? 20 : 4; }

const char *tsk_alphabet_letters(tsk_alphabet a) { return a == TSK_PROTEIN ? PROTEIN_LETTERS : DNA_LETTERS; }

void tsk_encode_table(tsk_alphabet a, uint8_t lut[256])
{
    const char *letters = tsk_alphabet_letters(a);
    memset(lut, TSK_CODE_SKIP, 256);
    for (int c = 0; letters[c]; c++) {
        lut[(uint8_t)letters[c]] = (uint8_t)c;
        lut[(uint8_t)(letters[c] | 0x20)] = (uint8_t)c;
    }
    if (a == TSK_DNA) {
        lut['U'] = lut['T'];
        lut['u'] = lut['T'];
    }
}

size_t tsk_encode(const uint8_t lut[256], const char *raw, size_t len, uint8_t *codes)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = lut[(uint8_t)raw[i]];
        codes[n] = c;
        n += c != TSK_CODE_SKIP; /* branch-free: the write is harmless when the code is dropped */
    }
    return n;
}

void tsk_revcomp_codes(const uint8_t *codes, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(3 - codes[n - 1 - i]);
}

double tsk_split_weight(int64_t m, int64_t q, int j, int p)
{
    if (j < 0 || j > p || j > m || p - j > q) return 0.0;
    /* C(p, j) * m^(j) * q^(p-j) / (m+q)^(p), with x^(k) the falling factorial: every factor
     * is a ratio of moderate numbers, so no overflow for any length. */
    double w = 1.0;
    for (int i = 0; i < j; i++) w *= (double)(m - i) / (double)(m + q - i) * (double)(p - i) / (double)(j - i);
    for (int i = 0; i < p - j; i++) w *= (double)(q - i) / (double)(m + q - j - i);
    return w;
}

void tsk_tuple_hash(const tsk_params *p, uint32_t tau, int *bin, int *sign)
{
    int64_t h = 0;
    int s = 1;
    for (int k = 0; k < p->t; k++) {  /* level k takes the k-th letter, the first most significant */
        const int c = (int)(tau >> (2 * (p->t - 1 - k))) & 3;
        h += p->hash[k][c];
        s *= p->sign[k][c];
    }
    *bin = (int)(h % p->dim);
    *sign = s;
}

uint32_t tsk_tuple_revcomp(int t, uint32_t tau)
{
    uint32_t r = 0;
    for (int k = 0; k < t; k++, tau >>= 2) r = (r << 2) | (3u - (tau & 3u));
    return r;
}

int64_t tsk_rows_for_length(const tsk_params *p, int64_t n)
{
    return p->window > 0 ? n / p->stride : 1;
}

static uint64_t splitmix64_mix(uint64_t z)
{
    return splitmix64_next(&z);
}

int64_t tsk_anchor_windows(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t *starts, int64_t cap)
{
    /* below 2^64 / stride: floor((2^64 - 1) / stride), exclusive */
    return tsk_anchor_windows_below(p, codes, n, UINT64_MAX / (uint64_t)p->stride - 1, starts, NULL, cap);
}

int64_t tsk_anchor_windows_below(const tsk_params *p, const uint8_t *codes, int64_t n, uint64_t max_hash,
                                 int64_t *starts, uint64_t *hashes, int64_t cap)
{
    const int k = p->anchor_k;
    const int64_t w = p->window;
    if (k <= 0 || n < k || n < w) return 0;
    const uint64_t mask = k == 32 ? UINT64_MAX : (UINT64_C(1) << (2 * k)) - 1;
    const int rc_shift = 2 * (k - 1);
    uint64_t fw = 0, rc = 0;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint64_t c = codes[i] & 3;
        fw = ((fw << 2) | c) & mask;
        rc = (rc >> 2) | ((3 - c) << rc_shift);
        if (i + 1 < k) continue;
        const int64_t at = i + 1 - k;                 /* the k-mer codes[at .. i] */
        const int64_t first = at + k / 2 - w / 2;
        if (first < 0) continue;
        if (first + w > n) break;                     /* every later window ends later */
        const uint64_t h = splitmix64_mix((fw < rc ? fw : rc) ^ p->seed);
        if (h > max_hash) continue;
        if (count < cap) {
            starts[count] = first;
            if (hashes) hashes[count] = h;
        }
        count++;
    }
    return count;
}

void tsk_slide_row_span(const tsk_params *p, int64_t r, int64_t *first, int64_t *last)
{
    *last = (r + 1) * p->stride - 1;
    *first = *last - p->window + 1 > 0 ? *last - p->window + 1 : 0;
}

double tsk_distance_naive(const float *a, const float *b, int64_t len, tsk_metric m)
{
    double aa = 0, bb = 0, ab = 0, dd = 0;
    for (int64_t i = 0; i < len; i++) {
        double x = a[i], y = b[i];
        aa += x * x;
        bb += y * y;
        ab += x * y;
        dd += (x - y) * (x - y);
    }
    if (m == TSK_METRIC_L2) return sqrt(dd);
    if (aa == 0.0 || bb == 0.0) return 1.0;
    return 1.0 - ab / (sqrt(aa) * sqrt(bb));
}

double tsk_item_distance_naive(const tsk_sketch_set *a, int64_t i, const tsk_sketch_set *b, int64_t j, tsk_metric m)
{
    const int64_t rows = a->n_rows[i] < b->n_rows[j] ? a->n_rows[i] : b->n_rows[j];
    return tsk_distance_naive(a->rows + a->first_row[i] * a->dim, b->rows + b->first_row[j] * b->dim, rows * a->dim, m);
}
