/* ani_pairs.cu: ANI and AF of genome pairs on the GPU (ani_pairs.h), the twin of core/genome_ani.c.
 *
 * Each step below mirrors a step of genome_ani.c (named in its comment) operation for operation:
 * products, sums and quotients of doubles in the same order, written with __dmul_rn, __dadd_rn and
 * __ddiv_rn so that nvcc fuses nothing, and the tables of powers copied from the host's
 * tsk_ani_grid_powers. Where the host's loops skip entries that are exactly 0 (a row's band), the
 * device adds +0.0, which leaves a sum of non-negative terms as it is.
 *
 * Every extern "C" entry catches C++ exceptions (new and std::vector throw std::bad_alloc): the
 * entry returns its failure with the reason in the engine's message. */
#include "ani_pairs.h"

#include <cub/device/device_segmented_sort.cuh>
#include "cuda_util.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#define ANI_THREADS 256                   /* at most 80 registers (3 blocks an SM): 0.93 s for the pairs of a top-10 of 10^4 on
                                           * the H200, against 1.2-1.4 s with 128 threads and no bound */
#define ANI_GRID 32                        /* the default grid: the atom and 0.70, 0.71, ..., 1.00 */
#define ANI_INDEX_BITS 12                  /* a genome's sorted anchors indexed by their top 12 bits */
#define ANI_INDEX (1 << ANI_INDEX_BITS)
#define ANI_BATCH_PAIRS (1 << 20)
static_assert(ANI_THREADS >= 4 * ANI_GRID, "a warp a stripe of the EM sums");

struct ani_genome_d {
    int64_t anchor0;       /* its anchors in hash, sval, sseg */
    int64_t seg0;          /* its n_segments + 1 offsets in segoff */
    int64_t length;
    int32_t n_anchors, n_segments, rate_log2;
    int32_t on_device;     /* within the limits: its pairs are estimated here */
};

struct ani_dir_d {         /* one direction, as genome_ani.c's direction() ends */
    double ani, af;
    int64_t with_anchors;
    double m;              /* the mean of I^W over the aligned weight (0 without a window) */
};

struct ani_out_d {
    ani_dir_d q, r;
    int32_t on_host;       /* the pair needs the host's way (a segment of 256 anchors or more) */
};

/* a block's scratch in global memory: rows, ratios, cells */
struct ani_slot_d {
    double *rows;          /* TSK_GPU_ANI_MAX_SEGMENTS x ANI_GRID */
    double *ratio, *cell_m;
    uint32_t *cell_code;
    uint8_t *band_lo, *band_hi, *peak;
};

struct tsk_gpu_ani {
    const tsk_ani_set *q = nullptr, *r = nullptr;
    int64_t r_offset = 0;  /* r's genome i is genome r_offset + i on the device */
    int dev = 0, sms = 0, anchor_k = 0, window = 0;
    cudaStream_t st = nullptr;
    std::vector<ani_genome_d> genomes;
    ani_genome_d *genomes_d = nullptr;
    uint32_t *hash_d = nullptr, *segoff_d = nullptr, *sval_d = nullptr, *index_d = nullptr;
    uint16_t *sseg_d = nullptr;
    double *grid_d = nullptr, *pw_p_d = nullptr, *pw_q_d = nullptr, *gw_d = nullptr;
    int slots = 0;
    double *slot_rows_d = nullptr, *slot_ratio_d = nullptr, *slot_m_d = nullptr;
    uint32_t *slot_code_d = nullptr;
    uint8_t *slot_band_d = nullptr;
    int32_t *pairs_d = nullptr;
    ani_out_d *out_d = nullptr;
    size_t pairs_cap = 0, out_cap = 0;
    double open_s = 0, pairs_s = 0;
    int64_t pairs_done = 0;
    char err[512] = "";
};

static double now_s()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static tsk_cuda_site site(tsk_gpu_ani *e) { return tsk_cuda_site{e->dev, e->err, sizeof e->err}; }

/* The anchors sorted by one call of CUB's segmented sort (whose counts are int): 2^30, or the tests'. */
static int64_t sort_chunk_anchors = INT64_C(1) << 30;

extern "C" void tsk_gpu_ani_set_sort_chunk(int64_t anchors)
{
    sort_chunk_anchors = anchors > 0 && anchors <= (INT64_C(1) << 30) ? anchors : INT64_C(1) << 30;
}

/* ---- device: one pair a block ---- */

/* genome_ani.c's compare_form: the anchors of a genome of rate `rate` kept for a pair of rates
 * lo <= hi are those with value below *limit, compared as value >> *shift. */
__device__ static void compare_form_d(int rate, int lo, int hi, uint64_t *limit, int *shift)
{
    const int drop = hi - lo;
    *limit = rate == lo ? 1ULL << (32 - drop) : 1ULL << 32;
    *shift = rate == lo ? 0 : drop;
}

/* Sorts s[0..n) ascending in shared memory (n a power of two, at most TSK_GPU_ANI_MAX_SEGMENTS). */
__device__ static void bitonic_sort(uint32_t *s, int n)
{
    for (int size = 2; size <= n; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int t = threadIdx.x; t < n / 2; t += blockDim.x) {
                const int i = 2 * t - (t & (stride - 1)), j = i + stride;
                const bool up = (i & size) == 0;
                const uint32_t a = s[i], b = s[j];
                if ((a > b) == up) s[i] = b, s[j] = a;
            }
            __syncthreads();
        }
}

struct ani_shared {
    uint32_t cnt_q[TSK_GPU_ANI_MAX_SEGMENTS], cnt_r[TSK_GPU_ANI_MAX_SEGMENTS]; /* n << 16 | hits */
    uint32_t qbits[TSK_GPU_ANI_MAX_ANCHORS / 32];                            /* the query's anchors hit */
    double atom_p[TSK_ANI_POWER_ROWS], atom_q[TSK_ANI_POWER_ROWS];
    double x0[ANI_GRID], x1[ANI_GRID], part[4][ANI_GRID];
    int used, max_n, n_cells, flag, all;
    unsigned long long kept;
};

/* genome_ani.c's direction(): cnt[0..n_seg) (n << 16 | a a segment; sorted here in place), the other
 * genome's length and kept anchors, at value_bits. Returns 1 when the host must do the pair. */
__device__ static int fit_direction(ani_shared &sh, uint32_t *cnt, int n_seg, int64_t length_r, int64_t anchors_r,
                                    int value_bits, int anchor_k, const double *grid, const double *pw_p,
                                    const double *pw_q, const double *gw, int window, const ani_slot_d &slot,
                                    ani_dir_d *out)
{
    /* the segments with anchors, and whether every one hits all its anchors */
    if (threadIdx.x == 0) sh.used = 0, sh.max_n = 0, sh.flag = 0, sh.all = 1;
    __syncthreads();
    int used = 0, all = 1, max_n = 0;
    for (int s = threadIdx.x; s < n_seg; s += blockDim.x) {
        const uint32_t n = cnt[s] >> 16, a = cnt[s] & 0xFFFF;
        used += n > 0;
        all &= n == 0 || a == n;
        max_n = max(max_n, (int)n);
    }
    atomicAdd(&sh.used, used);
    atomicMax(&sh.max_n, max_n);
    if (!all) sh.all = 0;
    __syncthreads();
    used = sh.used;
    all = sh.all;
    if (threadIdx.x == 0) *out = ani_dir_d{0.0, 0.0, used, 0.0};
    if (used == 0) return 0;
    if (all) { /* every cell is likeliest at identity 1 */
        if (threadIdx.x == 0) {
            double af = __ddiv_rn((double)used, (double)n_seg);
            double ani = 1.0, m = window > 0 ? 1.0 : 0.0;
            if (af < TSK_ANI_MIN_AF) ani = af = m = 0.0;
            *out = ani_dir_d{ani, af, used, m};
        }
        return 0;
    }
    if (sh.max_n >= TSK_ANI_POWER_ROWS) return 1; /* the host's scaled powers */

    /* cells: the codes sorted, those with anchors (after the n = 0 ones) grouped with multiplicities */
    int padded = 1;
    while (padded < n_seg) padded <<= 1;
    for (int s = n_seg + threadIdx.x; s < padded; s += blockDim.x) cnt[s] = 0xFFFFFFFFu;
    __syncthreads();
    bitonic_sort(cnt, padded);
    if (threadIdx.x == 0) {
        int c = 0;
        for (int s = n_seg - used; s < n_seg; s++) {
            if (s == n_seg - used || cnt[s] != cnt[s - 1]) {
                slot.cell_code[c] = cnt[s];
                slot.cell_m[c] = 0.0;
                c++;
            }
            slot.cell_m[c - 1] = __dadd_rn(slot.cell_m[c - 1], 1.0);
        }
        sh.n_cells = c;
        /* the atom's p and its powers (tsk_ani_atom, then direction()'s column 0) */
        double four_k = 1.0;
        for (int t = 0; t < anchor_k; t++) four_k = __dmul_rn(four_k, 4.0);
        double eps = __dadd_rn(__ddiv_rn(__dmul_rn(2.0, (double)length_r), four_k),
                               __ddiv_rn((double)anchors_r, (double)(1ULL << value_bits)));
        if (eps > 0.5) eps = 0.5;
        const double not_eps = __dadd_rn(1.0, -eps);
        sh.atom_p[0] = 1.0, sh.atom_q[0] = 1.0;
        for (int e = 1; e <= sh.max_n; e++) {
            sh.atom_p[e] = __dmul_rn(sh.atom_p[e - 1], eps);
            sh.atom_q[e] = __dmul_rn(sh.atom_q[e - 1], not_eps);
        }
    }
    __syncthreads();
    const int c = sh.n_cells;

    /* the rows p^a (1 - p)^(n - a), scaled to their largest entry, floored, with their bands */
    for (int i = threadIdx.x; i < c; i += blockDim.x) {
        const uint32_t nn = slot.cell_code[i] >> 16, aa = slot.cell_code[i] & 0xFFFF;
        double *row = slot.rows + (int64_t)i * ANI_GRID;
        double top = 0.0;
        row[0] = __dmul_rn(sh.atom_p[aa], sh.atom_q[nn - aa]);
        for (int j = 1; j < ANI_GRID; j++) row[j] = __dmul_rn(pw_p[aa * ANI_GRID + j], pw_q[(nn - aa) * ANI_GRID + j]);
        for (int j = 0; j < ANI_GRID; j++) top = row[j] > top ? row[j] : top;
        if (!(top > 0x1p-600)) { /* the host's scaled powers */
            sh.flag = 1;
            continue;
        }
        int lo = ANI_GRID, hi = 0;
        for (int j = 0; j < ANI_GRID; j++) {
            row[j] = __ddiv_rn(row[j], top);
            if (row[j] < TSK_ANI_ROW_FLOOR) row[j] = 0.0;
            else lo = min(lo, j), hi = j + 1;
        }
        int peak = lo;
        for (int j = lo; j < hi; j++) peak = row[j] > row[peak] ? j : peak;
        slot.band_lo[i] = (uint8_t)lo, slot.band_hi[i] = (uint8_t)hi, slot.peak[i] = (uint8_t)peak;
    }
    __syncthreads();
    if (sh.flag) return 1;

    /* the start (fit_weights): the share start_uniform even, the rest on the cells' peaks */
    const double n_used = (double)used;
    if (threadIdx.x < ANI_GRID) sh.x0[threadIdx.x] = __ddiv_rn(TSK_ANI_START_UNIFORM, (double)ANI_GRID);
    __syncthreads();
    uint8_t *peak = (uint8_t *)sh.qbits; /* the hit bits are counted already */
    for (int i = threadIdx.x; i < c; i += blockDim.x) peak[i] = slot.peak[i];
    __syncthreads();
    if (threadIdx.x < ANI_GRID) { /* grid entry j: the cells peaking there, in order */
        const int j = threadIdx.x;
        const double rest = __dadd_rn(1.0, -TSK_ANI_START_UNIFORM);
        double x = sh.x0[j];
        for (int i = 0; i < c; i++)
            if (peak[i] == j) x = __dadd_rn(x, __ddiv_rn(__dmul_rn(rest, slot.cell_m[i]), n_used));
        sh.x0[j] = x;
    }
    __syncthreads();

    /* the EM steps (em_step): a thread a cell for its denominator, then a thread a grid entry */
    for (int step = 0; step < TSK_ANI_EM_STEPS; step++) {
        for (int i = threadIdx.x; i < c; i += blockDim.x) {
            const double *row = slot.rows + (int64_t)i * ANI_GRID;
            double d = 0.0;
#pragma unroll 4
            for (int j = slot.band_lo[i]; j < slot.band_hi[i]; j++) d = __dadd_rn(d, __dmul_rn(row[j], sh.x0[j]));
            d = d > 0.0 ? d : 0x1p-1000;
            slot.ratio[i] = __ddiv_rn(slot.cell_m[i], d);
        }
        __syncthreads();
        if (threadIdx.x < 4 * ANI_GRID) { /* a warp a stripe of cells (i mod 4), as em_step sums */
            const int j = threadIdx.x % ANI_GRID, k = threadIdx.x / ANI_GRID;
            double part = 0.0;
            for (int i = k; i < c; i += 4) part = __dadd_rn(part, __dmul_rn(slot.rows[(int64_t)i * ANI_GRID + j], slot.ratio[i]));
            sh.part[k][j] = part;
        }
        __syncthreads();
        if (threadIdx.x < ANI_GRID) {
            const int j = threadIdx.x;
            const double acc = __dadd_rn(__dadd_rn(__dadd_rn(sh.part[0][j], sh.part[1][j]), sh.part[2][j]), sh.part[3][j]);
            sh.x1[j] = __ddiv_rn(__dmul_rn(sh.x0[j], acc), n_used);
        }
        __syncthreads();
        if (threadIdx.x < ANI_GRID) sh.x0[threadIdx.x] = sh.x1[threadIdx.x];
        __syncthreads();
    }

    /* ANI and AF over the weight at or above the cutoff */
    if (threadIdx.x == 0) {
        const int div = TSK_ANI_GRID_DIV, first = (int)(TSK_ANI_GRID_LOW * div + 0.5);
        double hi = 0.0, mean = 0.0, mean_w = 0.0;
        for (int j = 1; j < ANI_GRID; j++)
            if (first + j - 1 >= TSK_ANI_CUTOFF * div - 1e-9) {
                hi = __dadd_rn(hi, sh.x0[j]);
                mean = __dadd_rn(mean, __dmul_rn(sh.x0[j], grid[j]));
                if (window > 0) mean_w = __dadd_rn(mean_w, __dmul_rn(sh.x0[j], gw[j]));
            }
        double af = __ddiv_rn(__dmul_rn(hi, n_used), (double)n_seg), ani = 0.0, m = 0.0;
        if (af < TSK_ANI_MIN_AF || !(hi > 0.0)) af = 0.0;
        else {
            ani = __ddiv_rn(mean, hi);
            if (window > 0) m = __ddiv_rn(mean_w, hi);
        }
        *out = ani_dir_d{ani, af, used, m};
    }
    __syncthreads();
    return 0;
}

__global__ static void __launch_bounds__(ANI_THREADS, 3)
    ani_pairs_kernel(const ani_genome_d *genomes, const uint32_t *hash, const uint32_t *segoff, const uint32_t *sval,
                     const uint16_t *sseg, const uint32_t *index, const double *grid, const double *pw_p,
                     const double *pw_q, const double *gw, int window, int anchor_k, const int32_t *pairs,
                     int64_t n_pairs, ani_slot_d slots, ani_out_d *out)
{
    __shared__ ani_shared sh;
    const ani_slot_d slot = {slots.rows + (int64_t)blockIdx.x * TSK_GPU_ANI_MAX_SEGMENTS * ANI_GRID,
                             slots.ratio + (int64_t)blockIdx.x * TSK_GPU_ANI_MAX_SEGMENTS,
                             slots.cell_m + (int64_t)blockIdx.x * TSK_GPU_ANI_MAX_SEGMENTS,
                             slots.cell_code + (int64_t)blockIdx.x * TSK_GPU_ANI_MAX_SEGMENTS,
                             slots.band_lo + (int64_t)blockIdx.x * TSK_GPU_ANI_MAX_SEGMENTS * 3,
                             slots.band_lo + (int64_t)blockIdx.x * TSK_GPU_ANI_MAX_SEGMENTS * 3 + TSK_GPU_ANI_MAX_SEGMENTS,
                             slots.band_lo + (int64_t)blockIdx.x * TSK_GPU_ANI_MAX_SEGMENTS * 3 + 2 * TSK_GPU_ANI_MAX_SEGMENTS};
    for (int64_t p = blockIdx.x; p < n_pairs; p += gridDim.x) {
        const ani_genome_d q = genomes[pairs[2 * p]], r = genomes[pairs[2 * p + 1]];
        const int hi_rate = max(q.rate_log2, r.rate_log2), lo_rate = min(q.rate_log2, r.rate_log2);
        const int value_bits = 32 - (hi_rate - lo_rate);
        uint64_t limit_q, limit_r;
        int shift_q, shift_r;
        compare_form_d(q.rate_log2, lo_rate, hi_rate, &limit_q, &shift_q);
        compare_form_d(r.rate_log2, lo_rate, hi_rate, &limit_r, &shift_r);
        const uint32_t *q_off = segoff + q.seg0, *r_off = segoff + r.seg0;
        const uint32_t *q_hash = hash + q.anchor0, *r_hash = hash + r.anchor0;
        const uint32_t *q_val = sval + q.anchor0, *q_index = index + (int64_t)pairs[2 * p] * (ANI_INDEX + 1);
        const uint16_t *q_seg = sseg + q.anchor0;

        /* query_hits: the query's anchors per segment, then each kept anchor of r looked up */
        if (threadIdx.x == 0) sh.kept = 0;
        for (int i = threadIdx.x; i < (q.n_anchors + 31) / 32; i += blockDim.x) sh.qbits[i] = 0;
        for (int s = threadIdx.x; s < q.n_segments; s += blockDim.x) {
            uint32_t n = 0;
            for (uint32_t j = q_off[s]; j < q_off[s + 1]; j++) n += q_hash[j] < limit_q;
            sh.cnt_q[s] = n << 16;
        }
        __syncthreads();
        unsigned long long kept_r = 0;
        for (int s = threadIdx.x; s < r.n_segments; s += blockDim.x) {
            uint32_t n = 0, a = 0;
            for (uint32_t j = r_off[s]; j < r_off[s + 1]; j++) {
                const uint64_t v = r_hash[j];
                if (v >= limit_r) continue;
                n++;
                const uint64_t from = (v >> shift_r) << shift_q;
                uint64_t to = from + (1ULL << shift_q) - 1;
                if (to >= limit_q) to = limit_q - 1;
                if (from > to) continue;
                uint32_t lo = q_index[from >> (32 - ANI_INDEX_BITS)], hi = q_index[(to >> (32 - ANI_INDEX_BITS)) + 1];
                while (lo < hi) { /* the first value >= from */
                    const uint32_t mid = lo + (hi - lo) / 2;
                    if (q_val[mid] < from) lo = mid + 1;
                    else hi = mid;
                }
                int found = 0;
                for (uint32_t i = lo; i < (uint32_t)q.n_anchors && q_val[i] <= to; i++) {
                    atomicOr(&sh.qbits[i >> 5], 1u << (i & 31));
                    found = 1;
                }
                a += found;
            }
            sh.cnt_r[s] = n << 16 | a;
            kept_r += n;
        }
        atomicAdd(&sh.kept, kept_r);
        __syncthreads();
        for (int i = threadIdx.x; i < q.n_anchors; i += blockDim.x)
            if (sh.qbits[i >> 5] >> (i & 31) & 1) atomicAdd(&sh.cnt_q[q_seg[i]], 1u);
        __syncthreads();
        const int64_t anchors_r = (int64_t)sh.kept;
        unsigned long long kept_q = 0;
        for (int s = threadIdx.x; s < q.n_segments; s += blockDim.x) kept_q += sh.cnt_q[s] >> 16;
        __syncthreads();
        if (threadIdx.x == 0) sh.kept = 0;
        __syncthreads();
        atomicAdd(&sh.kept, kept_q);
        __syncthreads();
        const int64_t anchors_q = (int64_t)sh.kept;

        ani_out_d o;
        o.on_host = fit_direction(sh, sh.cnt_q, q.n_segments, r.length, anchors_r, value_bits, anchor_k, grid, pw_p,
                                  pw_q, gw, window, slot, &o.q);
        __syncthreads();
        if (!o.on_host)
            o.on_host = fit_direction(sh, sh.cnt_r, r.n_segments, q.length, anchors_q, value_bits, anchor_k, grid,
                                      pw_p, pw_q, gw, window, slot, &o.r);
        if (threadIdx.x == 0) out[p] = o;
        __syncthreads();
    }
}

/* Per sorted anchor: where each index bucket of its genome starts (buckets past the last anchor
 * start at n_anchors). */
__global__ static void index_kernel(const ani_genome_d *genomes, int64_t n_genomes, const uint32_t *sval,
                                    uint32_t *index)
{
    const int64_t g = blockIdx.x;
    if (g >= n_genomes) return;
    const ani_genome_d G = genomes[g];
    uint32_t *ix = index + g * (ANI_INDEX + 1);
    if (!G.on_device || G.n_anchors == 0) {
        for (int b = threadIdx.x; b <= ANI_INDEX; b += blockDim.x) ix[b] = 0;
        return;
    }
    const uint32_t *v = sval + G.anchor0;
    for (int i = threadIdx.x; i < G.n_anchors; i += blockDim.x) {
        const int b = (int)(v[i] >> (32 - ANI_INDEX_BITS)), prev = i ? (int)(v[i - 1] >> (32 - ANI_INDEX_BITS)) : -1;
        for (int bb = prev + 1; bb <= b; bb++) ix[bb] = (uint32_t)i;
        if (i == G.n_anchors - 1)
            for (int bb = b + 1; bb <= ANI_INDEX; bb++) ix[bb] = (uint32_t)G.n_anchors;
    }
}

/* Per anchor: its segment, from the segments' offsets. */
__global__ static void segment_ids_kernel(const ani_genome_d *genomes, int64_t n_genomes, const uint32_t *segoff,
                                          uint16_t *seg)
{
    const int64_t g = blockIdx.x;
    if (g >= n_genomes || !genomes[g].on_device) return;
    const ani_genome_d G = genomes[g];
    for (int s = threadIdx.x; s < G.n_segments; s += blockDim.x)
        for (uint32_t j = segoff[G.seg0 + s]; j < segoff[G.seg0 + s + 1]; j++) seg[G.anchor0 + j] = (uint16_t)s;
}

/* ---- host ---- */

static const tsk_ani_genome *genome_of(const tsk_gpu_ani *e, int64_t i)
{
    return i < e->r_offset ? &e->q->genome[i] : &e->r->genome[i - e->r_offset];
}

static int upload(tsk_gpu_ani *e)
{
    const int64_t n = (int64_t)e->genomes.size();
    int64_t anchors = 0, segs = 0;
    for (int64_t i = 0; i < n; i++) {
        const tsk_ani_genome *g = genome_of(e, i);
        ani_genome_d &d = e->genomes[i];
        d = ani_genome_d{anchors, segs, g->length, (int32_t)std::min<int64_t>(g->n_anchors, INT32_MAX),
                         (int32_t)std::min<int64_t>(g->n_segments, INT32_MAX), g->rate_log2, 0};
        d.on_device = g->n_anchors > 0 && g->n_anchors <= TSK_GPU_ANI_MAX_ANCHORS && g->n_segments > 0 &&
                      g->n_segments <= TSK_GPU_ANI_MAX_SEGMENTS && g->rate_log2 >= TSK_ANI_MIN_RATE_LOG2 &&
                      g->rate_log2 <= TSK_ANI_MAX_RATE_LOG2;
        if (!d.on_device) continue;
        anchors += g->n_anchors;
        segs += g->n_segments + 1;
    }
    std::vector<uint32_t> segoff((size_t)std::max<int64_t>(segs, 1));
    /* the genomes' anchor ranges for the segmented sort, relative to their chunk's first anchor: a
     * chunk holds at most sort_chunk_anchors (CUB's counts are int) */
    std::vector<int> seg_begin, seg_end, chunk_first;
    std::vector<int64_t> chunk_base;
    seg_begin.reserve((size_t)n), seg_end.reserve((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        const ani_genome_d &d = e->genomes[i];
        if (!d.on_device) continue;
        const tsk_ani_genome *g = genome_of(e, i);
        uint32_t at = 0;
        for (int64_t s = 0; s < g->n_segments; s++) {
            segoff[(size_t)(d.seg0 + s)] = at;
            at += g->seg_count[s];
        }
        segoff[(size_t)(d.seg0 + g->n_segments)] = at;
        if (chunk_base.empty() || d.anchor0 + d.n_anchors - chunk_base.back() > sort_chunk_anchors)
            chunk_base.push_back(d.anchor0), chunk_first.push_back((int)seg_begin.size());
        seg_begin.push_back((int)(d.anchor0 - chunk_base.back()));
        seg_end.push_back((int)(d.anchor0 + d.n_anchors - chunk_base.back()));
    }
    chunk_first.push_back((int)seg_begin.size());
    chunk_base.push_back(anchors);
    const size_t na = (size_t)std::max<int64_t>(anchors, 1);
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->genomes_d, (size_t)std::max<int64_t>(n, 1) * sizeof(ani_genome_d)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->hash_d, na * 4));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->sval_d, na * 4));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->sseg_d, na * 2));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->segoff_d, segoff.size() * 4));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->index_d, (size_t)std::max<int64_t>(n, 1) * (ANI_INDEX + 1) * 4));
    if (n > 0)
        TSK_CUDA_CHECK(site(e), cudaMemcpy(e->genomes_d, e->genomes.data(), (size_t)n * sizeof(ani_genome_d),
                                           cudaMemcpyHostToDevice));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->segoff_d, segoff.data(), segoff.size() * 4, cudaMemcpyHostToDevice));
    for (int64_t i = 0; i < n; i++)
        if (e->genomes[i].on_device)
            TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->hash_d + e->genomes[i].anchor0, genome_of(e, i)->hash,
                                                    (size_t)e->genomes[i].n_anchors * 4, cudaMemcpyHostToDevice, e->st));
    /* each genome's anchors sorted by value, with their segments */
    uint16_t *seg_d = nullptr;
    int *begin_d = nullptr, *end_d = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    const int n_sorted = (int)seg_begin.size();
    int rc = 0;
    auto check = [&](cudaError_t c, const char *what) {
        if (c != cudaSuccess && !rc) rc = tsk_cuda_fail(site(e), c, what, __FILE__, __LINE__);
    };
    check(cudaMalloc(&seg_d, na * 2), "cudaMalloc(segments)");
    check(cudaMalloc(&begin_d, (size_t)std::max(n_sorted, 1) * sizeof(int)), "cudaMalloc(begin)");
    check(cudaMalloc(&end_d, (size_t)std::max(n_sorted, 1) * sizeof(int)), "cudaMalloc(end)");
    if (!rc && n_sorted > 0) {
        check(cudaMemcpyAsync(begin_d, seg_begin.data(), (size_t)n_sorted * sizeof(int), cudaMemcpyHostToDevice, e->st),
              "cudaMemcpyAsync(begin)");
        check(cudaMemcpyAsync(end_d, seg_end.data(), (size_t)n_sorted * sizeof(int), cudaMemcpyHostToDevice, e->st),
              "cudaMemcpyAsync(end)");
        if (!rc) segment_ids_kernel<<<(unsigned)std::max<int64_t>(n, 1), 128, 0, e->st>>>(e->genomes_d, n, e->segoff_d, seg_d);
        check(cudaGetLastError(), "segment_ids_kernel");
        const size_t n_chunks = chunk_base.size() - 1;
        for (int pass = 0; pass < 2 && !rc; pass++) { /* the largest chunk's scratch, then the sorts */
            if (pass == 1) check(cudaMalloc(&tmp, std::max<size_t>(tmp_bytes, 1)), "cudaMalloc(sort)");
            for (size_t k = 0; k < n_chunks && !rc; k++) {
                const int64_t base = chunk_base[k];
                const int count = (int)(chunk_base[k + 1] - base), first = chunk_first[k];
                const int genomes = chunk_first[k + 1] - first;
                size_t bytes = pass ? tmp_bytes : 0;
                check(cub::DeviceSegmentedSort::SortPairs(pass ? tmp : nullptr, bytes, e->hash_d + base,
                                                          e->sval_d + base, seg_d + base, e->sseg_d + base, count,
                                                          genomes, begin_d + first, end_d + first, e->st),
                      "SortPairs");
                if (!pass) tmp_bytes = std::max(tmp_bytes, bytes);
            }
        }
    }
    if (!rc && n > 0) index_kernel<<<(unsigned)n, 256, 0, e->st>>>(e->genomes_d, n, e->sval_d, e->index_d);
    check(cudaGetLastError(), "index_kernel");
    check(cudaStreamSynchronize(e->st), "cudaStreamSynchronize(upload)");
    cudaFree(tmp), cudaFree(seg_d), cudaFree(begin_d), cudaFree(end_d);
    if (rc) return rc;

    /* the host's grid and powers (tsk_ani_grid_powers), read as they are */
    std::vector<double> grid(ANI_GRID), p(ANI_GRID), pw_p((size_t)TSK_ANI_POWER_ROWS * ANI_GRID),
        pw_q((size_t)TSK_ANI_POWER_ROWS * ANI_GRID);
    if (tsk_ani_grid_powers(e->anchor_k, TSK_ANI_GRID_DIV, grid.data(), p.data(), pw_p.data(), pw_q.data()) != ANI_GRID) {
        snprintf(e->err, sizeof e->err, "the ANI grid is not the GPU's (%d entries)", ANI_GRID);
        return -1;
    }
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->grid_d, ANI_GRID * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->pw_p_d, pw_p.size() * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->pw_q_d, pw_q.size() * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->grid_d, grid.data(), ANI_GRID * sizeof(double), cudaMemcpyHostToDevice));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->pw_p_d, pw_p.data(), pw_p.size() * sizeof(double), cudaMemcpyHostToDevice));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->pw_q_d, pw_q.data(), pw_q.size() * sizeof(double), cudaMemcpyHostToDevice));
    std::vector<double> gw(ANI_GRID);
    tsk_ani_grid_window_powers(grid.data(), ANI_GRID, e->window, gw.data());
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->gw_d, ANI_GRID * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->gw_d, gw.data(), ANI_GRID * sizeof(double), cudaMemcpyHostToDevice));

    /* the blocks' scratch: as many blocks as fit on the device at once */
    int per_sm = 0;
    TSK_CUDA_CHECK(site(e), cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ani_pairs_kernel, ANI_THREADS, 0));
    e->slots = std::max(1, per_sm) * std::max(1, e->sms);
    const size_t cells = (size_t)e->slots * TSK_GPU_ANI_MAX_SEGMENTS;
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_rows_d, cells * ANI_GRID * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_ratio_d, cells * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_m_d, cells * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_code_d, cells * sizeof(uint32_t)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_band_d, cells * 3));
    return 0;
}

static void free_engine(tsk_gpu_ani *e)
{
    if (!e) return;
    cudaSetDevice(e->dev);
    cudaFree(e->genomes_d), cudaFree(e->hash_d), cudaFree(e->segoff_d), cudaFree(e->sval_d), cudaFree(e->index_d);
    cudaFree(e->sseg_d), cudaFree(e->grid_d), cudaFree(e->pw_p_d), cudaFree(e->pw_q_d), cudaFree(e->gw_d);
    cudaFree(e->slot_rows_d), cudaFree(e->slot_ratio_d), cudaFree(e->slot_m_d), cudaFree(e->slot_code_d);
    cudaFree(e->slot_band_d), cudaFree(e->pairs_d), cudaFree(e->out_d);
    if (e->st) cudaStreamDestroy(e->st);
    delete e;
}

static tsk_gpu_ani *open_engine(const tsk_ani_set *q, const tsk_ani_set *r, int anchor_k, int window, int device,
                                char *err, size_t errlen)
{
    if (window < 0 || window > TSK_ANI_MAX_WINDOW) {
        snprintf(err, errlen, "window %d out of 0..%d", window, TSK_ANI_MAX_WINDOW);
        return NULL;
    }
    if (tsk_cuda_device_usable(device, err, errlen)) return NULL;
    const double t0 = now_s();
    tsk_gpu_ani *e = new tsk_gpu_ani;
    e->q = q, e->r = r, e->dev = device, e->anchor_k = anchor_k, e->window = window;
    e->r_offset = q == r ? 0 : q->n_items;
    e->genomes.resize((size_t)(e->r_offset + r->n_items));
    int ok = cudaSetDevice(device) == cudaSuccess && cudaStreamCreateWithFlags(&e->st, cudaStreamNonBlocking) == cudaSuccess &&
             cudaDeviceGetAttribute(&e->sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess;
    if (!ok) snprintf(e->err, sizeof e->err, "CUDA device %d: %s", device, cudaGetErrorString(cudaGetLastError()));
    if (ok && upload(e)) ok = 0;
    if (!ok) {
        snprintf(err, errlen, "%s", e->err);
        free_engine(e);
        return NULL;
    }
    e->open_s = now_s() - t0;
    return e;
}

static int run_pairs(tsk_gpu_ani *e, const int64_t *query, const int64_t *ref, int64_t n, tsk_ani_result *out,
                     uint8_t *on_host)
{
    TSK_CUDA_CHECK(site(e), cudaSetDevice(e->dev));
    std::vector<int32_t> pairs;
    std::vector<int64_t> which;
    std::vector<ani_out_d> got;
    for (int64_t b0 = 0; b0 < n; b0 += ANI_BATCH_PAIRS) {
        const int64_t b1 = std::min(n, b0 + ANI_BATCH_PAIRS);
        pairs.clear(), which.clear();
        for (int64_t i = b0; i < b1; i++) {
            const int64_t gq = query[i], gr = e->r_offset + ref[i];
            on_host[i] = !(query[i] >= 0 && query[i] < e->q->n_items && ref[i] >= 0 && ref[i] < e->r->n_items &&
                           e->genomes[(size_t)gq].on_device && e->genomes[(size_t)gr].on_device);
            if (on_host[i]) continue;
            pairs.push_back((int32_t)gq), pairs.push_back((int32_t)gr);
            which.push_back(i);
        }
        const int64_t m = (int64_t)which.size();
        if (m == 0) continue;
        TSK_CUDA_CHECK(site(e), tsk_cuda_grow((void **)&e->pairs_d, &e->pairs_cap, pairs.size() * sizeof(int32_t)));
        TSK_CUDA_CHECK(site(e), tsk_cuda_grow((void **)&e->out_d, &e->out_cap, (size_t)m * sizeof(ani_out_d)));
        TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->pairs_d, pairs.data(), pairs.size() * sizeof(int32_t),
                                                cudaMemcpyHostToDevice, e->st));
        const ani_slot_d slots = {e->slot_rows_d, e->slot_ratio_d, e->slot_m_d, e->slot_code_d, e->slot_band_d,
                                  nullptr, nullptr};
        const unsigned blocks = (unsigned)std::min<int64_t>(m, e->slots);
        ani_pairs_kernel<<<blocks, ANI_THREADS, 0, e->st>>>(e->genomes_d, e->hash_d, e->segoff_d, e->sval_d,
                                                           e->sseg_d, e->index_d, e->grid_d, e->pw_p_d, e->pw_q_d,
                                                           e->gw_d, e->window, e->anchor_k, e->pairs_d, m, slots,
                                                           e->out_d);
        TSK_CUDA_CHECK(site(e), cudaGetLastError());
        got.resize((size_t)m);
        TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(got.data(), e->out_d, (size_t)m * sizeof(ani_out_d),
                                                cudaMemcpyDeviceToHost, e->st));
        TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
        for (int64_t k = 0; k < m; k++) {
            const int64_t i = which[(size_t)k];
            if (got[(size_t)k].on_host) {
                on_host[i] = 1;
                continue;
            }
            const ani_dir_d &gq = got[(size_t)k].q, &gr = got[(size_t)k].r;
            const tsk_ani_direction dq = {gq.ani, gq.af, gq.with_anchors, gq.m};
            const tsk_ani_direction dr = {gr.ani, gr.af, gr.with_anchors, gr.m};
            tsk_ani_pair_finish(&e->q->genome[query[i]], &e->r->genome[ref[i]], &dq, &dr, &out[i]);
        }
    }
    return 0;
}

extern "C" tsk_gpu_ani *tsk_gpu_ani_open(const tsk_ani_set *q, const tsk_ani_set *r, int anchor_k, int window,
                                         int device, char *err, size_t errlen)
{
    return tsk_cuda_entry("tsk_gpu_ani_open", err, errlen, (tsk_gpu_ani *)NULL,
                          [&] { return open_engine(q, r, anchor_k, window, device, err, errlen); });
}

extern "C" void tsk_gpu_ani_close(tsk_gpu_ani *e) { free_engine(e); }

extern "C" const char *tsk_gpu_ani_error(const tsk_gpu_ani *e) { return e ? e->err : "no GPU ANI engine"; }

extern "C" int tsk_gpu_ani_pairs(tsk_gpu_ani *e, const int64_t *query, const int64_t *ref, int64_t n,
                                 tsk_ani_result *out, uint8_t *on_host)
{
    if (!e) return -1;
    const double t0 = now_s();
    const int rc = tsk_cuda_entry("tsk_gpu_ani_pairs", e->err, sizeof e->err, -1,
                                  [&] { return run_pairs(e, query, ref, n, out, on_host); });
    e->pairs_s += now_s() - t0;
    e->pairs_done += n;
    return rc;
}

extern "C" void tsk_gpu_ani_timing(const tsk_gpu_ani *e, double *open_s, int64_t *pairs, double *pairs_s)
{
    *open_s = e ? e->open_s : 0, *pairs = e ? e->pairs_done : 0, *pairs_s = e ? e->pairs_s : 0;
}
