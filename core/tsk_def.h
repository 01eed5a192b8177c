/* tsk_def.h: the definition of the tsketch sketch that every engine computes
 * (docs/spec.md, mirrored in docs/algorithm.md).
 *
 * This is the one header the two engines (cpu/ and gpu/) share: parameters, hash/sign tables,
 * the alphabet encoding, the split weights for long sequences and the layout of a batch of
 * records. It knows no engine, no file format and no command line. Plain C17, usable from CUDA. */
#ifndef TSK_DEF_H
#define TSK_DEF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A small inline that host code and CUDA kernels both call (one definition for both engines):
 * __host__ __device__ under nvcc, nothing in C. */
#ifdef __CUDACC__
#define TSK_HOST_DEVICE __host__ __device__
#else
#define TSK_HOST_DEVICE
#endif

/* Size of the error buffers passed around (messages naming a file and the reason), every layer. */
#define TSK_ERRLEN 1024

#define TSK_MAX_T 16        /* longest tuple an engine must accept */
#define TSK_MAX_DIM 65536   /* largest sketch dimension any engine accepts */
#define TSK_MAX_ALPHA 20    /* protein alphabet size; DNA uses the first 4 codes */
/* Longest window and stride (4 Gbp, beyond any chromosome): the engines multiply them by row
 * counts (up to a batch's 2^26 bases) and by t + 1, which stays far inside int64_t. */
#define TSK_MAX_WINDOW (INT64_C(1) << 32)
#define TSK_CODE_SKIP 0xFF  /* encoding of a character outside the alphabet (dropped) */

#define TSK_DEFAULT_T 4
#define TSK_DEFAULT_DIM 96
#define TSK_DEFAULT_SEED UINT64_C(0x5EED)

typedef enum { TSK_DNA = 0, TSK_PROTEIN = 1 } tsk_alphabet;
typedef enum { TSK_SINGLE = 0, TSK_DOUBLE = 1 } tsk_precision;

/* Everything that determines the function: two sketches are comparable only when all of it
 * (tables included) is equal. */
typedef struct {
    int t;                    /* tuple length, 1..TSK_MAX_T */
    int dim;                  /* sketch dimension D, 1..TSK_MAX_DIM */
    uint64_t seed;            /* SplitMix64 seed of the tables (meaningless when tables_from_file) */
    tsk_alphabet alphabet;
    int canonical;            /* 1: mean of the sketch of x and of its reverse complement (DNA) */
    int64_t window, stride;   /* Tensor Slide Sketch; window 0 = one whole-record sketch */
    int anchor_k;             /* > 0: anchored windows (tsk_anchor_windows), stride their mean
                               * spacing; 0: a window every stride (docs/spec.md) */
    tsk_precision precision;  /* element type of the output rows: float32 or float64 */
    int64_t scaled;           /* 0: the sketches are the rows; >= 1: genome sketches, the keys of the
                               * anchored windows whose anchor hash is at most about 2^64 / scaled
                               * (genome_keys.h) */
    int64_t min_keys;         /* genome sketches: the size floor, keys kept at least per genome
                               * (0: none; genome_keys.h, "Size floor") */
    int64_t floor_stride;     /* genome sketches: the floor samples at most one anchor in this many
                               * (0 and 1: every anchor may be a candidate; genome_keys.h) */
    int tables_from_file;     /* 1 when the tables were read (--tables) rather than drawn */
    int32_t hash[TSK_MAX_T][TSK_MAX_ALPHA];  /* hash[k][c] in [0, dim): level k, code c */
    int8_t sign[TSK_MAX_T][TSK_MAX_ALPHA];   /* sign[k][c] in {-1, +1} */
} tsk_params;

/* Defaults of docs/spec.md (t=4, D=96, seed 0x5EED, DNA, whole record, single) with tables drawn. */
void tsk_params_default(tsk_params *p);

/* Draws hash/sign tables from p->seed with SplitMix64, in the order of docs/spec.md. */
void tsk_tables_draw(tsk_params *p);

/* Returns NULL when p is a function some engine can compute, else a static message naming the
 * offending parameter ("t must be 1..16", "stride must not exceed window", ...). */
const char *tsk_params_check(const tsk_params *p);

/* 4 for DNA, 20 for protein. */
int tsk_alphabet_size(tsk_alphabet a);
/* "ACGT" or "ACDEFGHIKLMNPQRSTVWY" */
const char *tsk_alphabet_letters(tsk_alphabet a);

/* 256-entry table: byte -> code in [0, A) or TSK_CODE_SKIP. Upper-cases; for DNA U reads as T. */
void tsk_encode_table(tsk_alphabet a, uint8_t lut[256]);

/* Cleans raw[0..len) into codes (caller provides len bytes); returns the cleaned length. */
size_t tsk_encode(const uint8_t lut[256], const char *raw, size_t len, uint8_t *codes);

/* Reverse complement of cleaned DNA codes (A<->T, C<->G): out[i] = 3 - codes[n-1-i].
 * Equal to cleaning the reverse complement of the raw record, as docs/spec.md defines it. */
void tsk_revcomp_codes(const uint8_t *codes, size_t n, uint8_t *out);

/* Split weight w(m, q, j, p) = C(m, j) C(q, p-j) / C(m+q, p): the hypergeometric probability
 * that a length-p subsequence of u v takes j characters from u (|u| = m, |v| = q).
 * Computed from falling factorials in double; 0 where j > m or p-j > q. */
double tsk_split_weight(int64_t m, int64_t q, int j, int p);

/* The tuple-count form of the sketch (docs/algorithm.md, "Tuple counts"). For DNA a sketch
 * depends on x only through C_t[tau], the number of index tuples i_1 < ... < i_t with
 * x_{i_1} .. x_{i_t} = tau, for the 4^t letter tuples tau: bin r of T[t] is
 * sum over tau with bin(tau) = r of sign(tau) C_t[tau] / C(n, t). Tuples are indexed base 4,
 * first letter most significant (A=0 C=1 G=2 T=3); TSK_COUNT_MAX_T bounds t (4^t counts). */
#define TSK_COUNT_MAX_T 4
/* Bin (hash sum mod D) and sign of the t-letter tuple tau under p's tables. */
void tsk_tuple_hash(const tsk_params *p, uint32_t tau, int *bin, int *sign);
/* The t-letter tuple that tau becomes on the reverse complement (reversed, A<->T, C<->G):
 * C_t of the reverse complement at tau is C_t of x at tsk_tuple_revcomp(t, tau). */
uint32_t tsk_tuple_revcomp(int t, uint32_t tau);

/* Rows a record of cleaned length n yields: 1 for a whole-record sketch, floor(n/stride) with
 * a window (possibly 0). */
int64_t tsk_rows_for_length(const tsk_params *p, int64_t n);

/* Anchored windows (a tsketch extension of the slide sketch, docs/algorithm.md): position i of
 * the cleaned DNA codes[0..n) is an anchor when the canonical k-mer at i (k = p->anchor_k, even;
 * the smaller of its 2-bit code and its reverse complement's, A=0 C=1 G=2 T=3, first letter most
 * significant) hashes below 2^64 / stride: h = SplitMix64's output function of (code XOR seed).
 * Its window is the W = p->window codes centred on the k-mer, [c - W/2, c - W/2 + W) with
 * c = i + k/2 (W/2 rounded down); windows that do not fit in [0, n) are skipped. Because the
 * centre of the reverse complement's k-mer is n - c, the windows of a record's reverse complement
 * are those of the record, mirrored (for even W), and a window's place depends only on the
 * sequence around it, never on where the record starts: the same stretch of two genomes gives the
 * same rows. Writes the start of every window, in order, to starts[0..cap) and returns how many
 * there are (call with cap 0 to count). */
int64_t tsk_anchor_windows(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t *starts, int64_t cap);

/* tsk_anchor_windows with the anchors chosen by an explicit bound: position i is an anchor when
 * its hash h is at most max_hash (tsk_anchor_windows is this with max_hash = floor((2^64 - 1) /
 * stride) - 1). When hashes is not NULL, the anchor's hash goes to hashes[j] beside starts[j]. */
int64_t tsk_anchor_windows_below(const tsk_params *p, const uint8_t *codes, int64_t n, uint64_t max_hash,
                                 int64_t *starts, uint64_t *hashes, int64_t cap);

/* Row r of a slide sketch covers cleaned positions [first, last] (0-based, inclusive):
 * last = (r+1)*stride - 1, first = max(0, last - window + 1). */
void tsk_slide_row_span(const tsk_params *p, int64_t r, int64_t *first, int64_t *last);

/* A batch of cleaned records handed to an engine. Records are laid end to end in codes; the
 * engine writes row_offset[n_records] rows of dim values (float or double, per precision),
 * row-major, record i's rows starting at row row_offset[i]. Records shorter than t give zero
 * rows. The batcher (io/) orders records so that neighbours have similar lengths. */
typedef struct {
    int64_t n_records;
    const uint8_t *codes;        /* codes[offset[i] .. offset[i+1]) is record i */
    const int64_t *offset;       /* n_records + 1 entries */
    const int64_t *row_offset;   /* n_records + 1 entries */
} tsk_batch;

/* Total length of record i in a batch. */
static inline int64_t tsk_batch_len(const tsk_batch *b, int64_t i) { return b->offset[i + 1] - b->offset[i]; }


/* ---- distances: what both distance engines take and give ---- */

typedef enum { TSK_METRIC_L2 = 0, TSK_METRIC_COSINE = 1 } tsk_metric;

/* Sketches to compare: item i owns rows first_row[i] .. first_row[i] + n_rows[i] - 1 of a
 * row-major float32 matrix (one row for whole-record sketches). Two items are compared over
 * their first min(n_rows) rows, as one long vector (docs/spec.md, Distances). */
typedef struct {
    int64_t n_items;
    int dim;
    const float *rows;
    const int64_t *first_row;
    const int64_t *n_rows;
} tsk_sketch_set;

/* One surviving pair of a top-k or threshold query: indices into the query and reference sets. */
typedef struct {
    int64_t query;
    int64_t ref;
    float dist;
} tsk_pair;

/* Which (query q, reference r) pairs of a block take part, by global item indices. The last three
 * are for one set compared with itself (query and reference are the same set). */
typedef enum {
    TSK_PAIRS_ALL = 0,        /* every q x r (two different sets) */
    TSK_PAIRS_UPPER = 1,      /* r > q: each unordered pair once, no self pair */
    TSK_PAIRS_UPPER_SELF = 2, /* r >= q: as above plus the self pairs (--with-self) */
    TSK_PAIRS_NOT_SELF = 3,   /* r != q: the neighbours of each item (top-k) */
} tsk_pair_filter;

/* Whether filter admits the pair (query q, reference r) (global indices): the one test of every
 * engine, on the host and in the kernels. */
static inline TSK_HOST_DEVICE int tsk_pair_admitted(tsk_pair_filter f, int64_t q, int64_t r)
{
    switch (f) {
    case TSK_PAIRS_UPPER: return r > q;
    case TSK_PAIRS_UPPER_SELF: return r >= q;
    case TSK_PAIRS_NOT_SELF: return r != q;
    default: return 1;
    }
}

/* Distance of two rows' worth of values, in float64, as docs/spec.md defines it, naively: the
 * oracle that both engines' tests compare with. */
double tsk_distance_naive(const float *a, const float *b, int64_t len, tsk_metric m);

/* tsk_distance_naive of item i of a and item j of b, over their first min(n_rows) rows. */
double tsk_item_distance_naive(const tsk_sketch_set *a, int64_t i, const tsk_sketch_set *b, int64_t j, tsk_metric m);

#ifdef __cplusplus
}
#endif
#endif
