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
#include "host_pinned.h"
#include "peer_group.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#define ANI_THREADS 256
/* Blocks an SM the registers must allow: 3 (80 registers, some spilled) beat 2 (128, none): the
 * pairs of a top-10 of 10^4 took 0.283 s against 0.340 s on the H200; 128 threads a block were
 * slower still. fit_direction out of line cuts the kernel's spills (712 -> 28 bytes stored) but
 * took those pairs 0.265 -> 0.282 s: the spills are not what bounds it (Nsight Compute: a third of
 * the issue slots busy, 0.5 warps eligible of 6, the L1 at 65 %). */
#ifndef ANI_MIN_BLOCKS
#define ANI_MIN_BLOCKS 3
#endif
#define ANI_GRID 32                        /* the default grid: the atom and 0.70, 0.71, ..., 1.00 */
#define ANI_INDEX_BITS 12                  /* a genome's sorted anchors indexed by their top 12 bits */
#define ANI_INDEX (1 << ANI_INDEX_BITS)
#define ANI_BATCH_PAIRS (1 << 20)
/* The hits are a merge of the two genomes' sorted anchors in shared memory, a tile at a time: the
 * reference's next ANI_TILE_R kept anchors (4 a thread), against the query's values their ranges
 * cover, ANI_TILE_Q at a time. */
#define ANI_TILE_R 1024
#define ANI_TILE_Q 2048
#define ANI_TILES (TSK_GPU_ANI_MAX_ANCHORS / ANI_TILE_R)
#define ANI_TILE_BYTES (ANI_TILE_R * 4 + ANI_TILE_Q * 4 + ANI_TILE_R * 2 + ANI_TILE_Q)
static_assert(ANI_THREADS >= 4 * ANI_GRID, "a warp a stripe of the EM sums");
static_assert(ANI_TILE_R % ANI_THREADS == 0 && ANI_TILE_Q == 8 * ANI_THREADS && ANI_THREADS >= ANI_TILES,
              "a tile's anchors shared out evenly, 8 hit bytes a thread, a thread a tile's range");
/* The segment of a genome's loose anchors (genome_ani.h: in no segment; on the device only those
 * its pairs look up, tsk_ani_loose_used) in sseg: the host's n_segments, as a value no real segment
 * has. They sort and merge with the others (another genome's segments find their values among
 * them) but count in no segment. */
#define ANI_LOOSE 0xFFFF
static_assert(TSK_GPU_ANI_MAX_SEGMENTS <= ANI_LOOSE, "the loose anchors' segment is no real one");

struct ani_genome_d {
    int64_t anchor0;       /* its anchors in sval and sseg (and the fill's hash_d, seg_d): n_all, then
                            * the loose ones left out (copied with the rest of its hash, never read) */
    int64_t seg0;          /* its n_segments counts in the fill's counts_d */
    int64_t length;
    int32_t n_anchors;     /* its segments' anchors (what its self rate is over) */
    int32_t n_all;         /* and its loose ones looked up (tsk_ani_loose_used), after the segments' */
    int32_t n_segments, rate_log2;
    int32_t on_device;     /* within the limits: its pairs are estimated here */
    int64_t repeats;       /* tsk_ani_repeats' count, by repeats_kernel */
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

/* A stretch of host memory copied as one: n bytes from host to the device buffer at byte `device`. */
struct ani_run {
    const char *host;
    int64_t device, n;
    int share;             /* the share of the genomes it lies in */
};

/* What the fill needs and leaves: the copies, the sort's chunks and ranges, the scratch freed when
 * it is done, its thread and its result. */
struct ani_fill {
    std::vector<ani_run> hash_runs, count_runs;
    std::vector<int> seg_begin, seg_end, chunk_first, chunk_share;
    std::vector<int64_t> chunk_base;
    uint32_t *hash_d = nullptr;   /* the anchors in segment order: the sort's input */
    uint16_t *seg_d = nullptr;    /* their segments */
    uint16_t *counts_d = nullptr; /* the segments' anchor counts */
    int *begin_d = nullptr, *end_d = nullptr;
    void *sort_d = nullptr;
    size_t sort_bytes = 0;
    std::thread thread;
    int rc = 0;
    bool published = false;       /* it announced a share to the peers, who may copy from it */
    double upload_s = 0, seconds = 0, waited_s = 0, others_s = 0;
};

struct tsk_gpu_ani {
    const tsk_ani_set *q = nullptr, *r = nullptr;
    int64_t r_offset = 0;  /* r's genome i is genome r_offset + i on the device */
    int dev = 0, sms = 0, anchor_k = 0, window = 0;
    cudaStream_t st = nullptr;
    std::vector<ani_genome_d> genomes;
    ani_genome_d *genomes_d = nullptr;
    uint32_t *sval_d = nullptr, *index_d = nullptr;
    uint16_t *sseg_d = nullptr;
    double *reported_d = nullptr, *pw_p_d = nullptr, *pw_q_d = nullptr, *gw_d = nullptr;
    int slots = 0;
    double *slot_rows_d = nullptr, *slot_ratio_d = nullptr, *slot_m_d = nullptr;
    uint32_t *slot_code_d = nullptr;
    uint8_t *slot_band_d = nullptr;
    int32_t *pairs_d = nullptr;
    ani_out_d *out_d = nullptr;
    size_t pairs_cap = 0, out_cap = 0;
    ani_fill fill;
    /* the shares: device genomes [bound[s], bound[s + 1]) (alone: one share, all of them), whose
     * anchors are [share_anchor[s], share_anchor[s + 1]) */
    tsk_gpu_ani_peers *peers = nullptr;
    int member = 0;
    std::vector<int64_t> bound, share_anchor;
    double open_s = 0, pairs_s = 0;
    double open_parts_s[4] = {0, 0, 0, 0}; /* lay_out's: buffers, the sort sized, tables, blocks' scratch */
    int64_t pairs_done = 0;
    bool failed = false; /* a call failed: the engine is given up (a failed fill or CUDA error stays) */
    char err[512] = "";
};

/* The peers (peer_group.cuh): their shares are runs of the device genomes. */
struct tsk_gpu_ani_peers : tsk_peer_group {
    using tsk_peer_group::tsk_peer_group;
};

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

/* The first i in [lo, hi) with val[i] >= x, or hi: val[lo..hi) sorted (global or shared memory). */
__device__ static uint32_t first_at_least(const uint32_t *val, uint32_t lo, uint32_t hi, uint64_t x)
{
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (val[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The first of a genome's n sorted values (with its index of their top bits) that is >= x. */
__device__ static uint32_t lower_bound_d(const uint32_t *val, const uint32_t *index, uint32_t n, uint64_t x)
{
    if (x >> 32) return n;
    return first_at_least(val, index[x >> (32 - ANI_INDEX_BITS)], index[(x >> (32 - ANI_INDEX_BITS)) + 1], x);
}

struct ani_shared {
    uint32_t cnt_q[TSK_GPU_ANI_MAX_SEGMENTS], cnt_r[TSK_GPU_ANI_MAX_SEGMENTS]; /* n << 16 | hits */
    uint32_t qbits[TSK_GPU_ANI_MAX_ANCHORS / 32];                            /* the query's anchors hit */
    double atom_p[TSK_ANI_POWER_ROWS], atom_q[TSK_ANI_POWER_ROWS];
    double x0[ANI_GRID], x1[ANI_GRID], part[4][ANI_GRID];
    uint32_t tile_qa[ANI_TILES], tile_qb[ANI_TILES]; /* each tile's query values [qa, qb) */
    int warp_sum[ANI_THREADS / 32];
    int used, max_n, n_cells, flag, all, tiles;
    unsigned long long kept;
};

/* The sum of v over the threads before this one, and over all (*total); every thread of the block
 * calls it (blockDim.x a multiple of 32). */
__device__ static int block_exclusive_sum(ani_shared &sh, int v, int *total)
{
    const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
    int x = v;
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(0xFFFFFFFFu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) sh.warp_sum[warp] = x;
    __syncthreads();
    int before = 0, all = 0;
    for (int w = 0; w < (int)blockDim.x >> 5; w++) {
        const int t = sh.warp_sum[w];
        before += w < warp ? t : 0;
        all += t;
    }
    *total = all;
    __syncthreads();
    return before + x - v;
}

/* tsk_ani_self_rate, in its order of operations (over the genome's segments' anchors, as the host's) */
__device__ static double self_rate_d(int64_t repeats, int64_t n_anchors, int64_t length_q, int64_t length_r)
{
    if (repeats <= 0 || n_anchors <= 0 || length_q <= 0) return 0.0;
    return __ddiv_rn(__dmul_rn(__ddiv_rn((double)repeats, (double)n_anchors), (double)length_r), (double)length_q);
}

/* genome_ani.c's direction(): cnt[0..n_seg) (n << 16 | a a segment; sorted here in place), the other
 * genome's length and kept anchors, at value_bits. Returns 1 when the host must do the pair. */
__device__ static int fit_direction(ani_shared &sh, uint32_t *cnt, int n_seg, int64_t length_r, int64_t anchors_r,
                                    int value_bits, double self_rate, int anchor_k, const double *reported, const double *pw_p,
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
    {
        /* the sorted codes with anchors, [first, n_seg), cut into a run a thread: a cell starts
         * where the code changes; its index is the starts before it (a block scan), its
         * multiplicity the distance to the next start (the host's sum of ones, exactly) */
        const int first = n_seg - used, run = (used + (int)blockDim.x - 1) / (int)blockDim.x;
        const int s0 = first + (int)threadIdx.x * run, s1 = min(n_seg, s0 + run);
        int starts = 0;
        for (int s = s0; s < s1; s++) starts += s == first || cnt[s] != cnt[s - 1];
        int total;
        int c = block_exclusive_sum(sh, starts, &total);
        for (int s = s0; s < s1; s++)
            if (s == first || cnt[s] != cnt[s - 1]) {
                slot.cell_code[c] = cnt[s];
                slot.ratio[c] = (double)s; /* where it starts, until its multiplicity is known */
                c++;
            }
        if (threadIdx.x == 0) sh.n_cells = total;
        __syncthreads();
        for (int i = threadIdx.x; i < total; i += blockDim.x)
            slot.cell_m[i] = __dadd_rn(i + 1 < total ? slot.ratio[i + 1] : (double)n_seg, -slot.ratio[i]);
    }
    if (threadIdx.x == 0 || threadIdx.x == 32) {
        /* the atom's p (tsk_ani_atom) and its powers (direction()'s column 0): p's on one warp, 1 - p's
         * on the next */
        double four_k = 1.0;
        for (int t = 0; t < anchor_k; t++) four_k = __dmul_rn(four_k, 4.0);
        double chance = __ddiv_rn(__dmul_rn(2.0, (double)length_r), four_k);
        if (self_rate > chance) chance = self_rate;
        double eps = __dadd_rn(chance, __ddiv_rn((double)anchors_r, (double)(1ULL << value_bits)));
        if (eps > 0.5) eps = 0.5;
        const double f = threadIdx.x == 0 ? eps : __dadd_rn(1.0, -eps);
        double *pw = threadIdx.x == 0 ? sh.atom_p : sh.atom_q;
        pw[0] = 1.0;
        for (int e = 1; e <= sh.max_n; e++) pw[e] = __dmul_rn(pw[e - 1], f);
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

    /* the start (fit_weights): the share start_uniform even, the rest on the cells' peaks. One warp,
     * a lane a grid entry: 32 cells at a time, each lane computes its cell's share, and the
     * shares go round the warp in cell order, each added by the lane of its peak (the host's
     * order for every entry). */
    const double n_used = (double)used;
    if (threadIdx.x < 32) {
        static_assert(ANI_GRID == 32, "a lane a grid entry");
        const int j = (int)threadIdx.x;
        const double rest = __dadd_rn(1.0, -TSK_ANI_START_UNIFORM);
        double x = __ddiv_rn(TSK_ANI_START_UNIFORM, (double)ANI_GRID);
        for (int i0 = 0; i0 < c; i0 += 32) {
            const int i = i0 + j;
            const int pk = i < c ? slot.peak[i] : -1;
            const double share = i < c ? __ddiv_rn(__dmul_rn(rest, slot.cell_m[i]), n_used) : 0.0;
            const int n = min(32, c - i0);
            for (int k = 0; k < n; k++) {
                const int pk_k = __shfl_sync(0xFFFFFFFFu, pk, k);
                const double share_k = __shfl_sync(0xFFFFFFFFu, share, k);
                if (pk_k == j) x = __dadd_rn(x, share_k);
            }
        }
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
            int i = k;
            for (; i + 12 < c; i += 16) { /* four cells' loads in flight, then their products in order */
                const double r0 = slot.rows[(int64_t)i * ANI_GRID + j], r1 = slot.rows[(int64_t)(i + 4) * ANI_GRID + j],
                             r2 = slot.rows[(int64_t)(i + 8) * ANI_GRID + j], r3 = slot.rows[(int64_t)(i + 12) * ANI_GRID + j];
                const double a0 = slot.ratio[i], a1 = slot.ratio[i + 4], a2 = slot.ratio[i + 8], a3 = slot.ratio[i + 12];
                part = __dadd_rn(part, __dmul_rn(r0, a0));
                part = __dadd_rn(part, __dmul_rn(r1, a1));
                part = __dadd_rn(part, __dmul_rn(r2, a2));
                part = __dadd_rn(part, __dmul_rn(r3, a3));
            }
            for (; i < c; i += 4) part = __dadd_rn(part, __dmul_rn(slot.rows[(int64_t)i * ANI_GRID + j], slot.ratio[i]));
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
                mean = __dadd_rn(mean, __dmul_rn(sh.x0[j], reported[j]));
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

__global__ static void __launch_bounds__(ANI_THREADS, ANI_MIN_BLOCKS)
    ani_pairs_kernel(const ani_genome_d *genomes, const uint32_t *sval, const uint16_t *sseg, const uint32_t *index,
                     const double *reported, const double *pw_p, const double *pw_q, const double *gw, int window,
                     int anchor_k, const int32_t *pairs, int64_t n_pairs, ani_slot_d slots, ani_out_d *out)
{
    __shared__ ani_shared sh;
    extern __shared__ __align__(16) unsigned char ani_dyn[]; /* ANI_TILE_BYTES: the merge's tiles */
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

        /* query_hits as a merge of the two genomes' sorted anchors. The reference's kept anchors (a
         * prefix of its sorted values) go in tiles of ANI_TILE_R; a tile's query values are those
         * from its first anchor's range to its last's ([qa, qb), found for all tiles at once), in
         * chunks of ANI_TILE_Q. Both come into shared memory with coalesced loads; against each
         * chunk every thread merges its 4 anchors: a binary search for the first, a walk for the
         * others (a value's range of query values grows with the value). Both genomes' loose
         * anchors are among their sorted ones: a segment's anchor hits a value the other genome
         * holds anywhere. Every kept anchor of r adds 1 << 16, with 1 when the query holds a value
         * in its range, to its segment's count (a loose one to none); the query's values hit are
         * marked. Then each kept query anchor adds the same to its segment's. Loose or not, each
         * kept anchor counts in its genome's kept anchors (the host's kept_q, kept_r: the values a
         * segment's anchor may meet by chance). The integers are the host's, whatever the order. */
        const uint32_t *r_val = sval + r.anchor0, *q_val = sval + q.anchor0;
        const uint16_t *r_seg = sseg + r.anchor0, *q_seg = sseg + q.anchor0;
        const uint32_t *q_index = index + (int64_t)pairs[2 * p] * (ANI_INDEX + 1);
        const uint32_t n_q = (uint32_t)q.n_all;
        if (threadIdx.x == 0) sh.kept = 0, sh.tiles = 0;
        for (int i = threadIdx.x; i < (q.n_all + 31) / 32; i += blockDim.x) sh.qbits[i] = 0;
        for (int s = threadIdx.x; s < q.n_segments; s += blockDim.x) sh.cnt_q[s] = 0;
        for (int s = threadIdx.x; s < r.n_segments; s += blockDim.x) sh.cnt_r[s] = 0;
        __syncthreads();
        const int n_tiles = (r.n_all + ANI_TILE_R - 1) / ANI_TILE_R;
        if ((int)threadIdx.x < n_tiles) {
            const int k = (int)threadIdx.x, t0 = k * ANI_TILE_R;
            int last = min(r.n_all, t0 + ANI_TILE_R) - 1;
            uint32_t qa = 0, qb = 0;
            if (r_val[t0] < limit_r) {
                atomicMax(&sh.tiles, k + 1);
                if (r_val[last] >= limit_r) /* the tile's last kept anchor */
                    last = (int)first_at_least(r_val, (uint32_t)t0, (uint32_t)last, limit_r) - 1;
                const uint64_t from = ((uint64_t)r_val[t0] >> shift_r) << shift_q;
                uint64_t to = (((uint64_t)r_val[last] >> shift_r) << shift_q) + (1ULL << shift_q) - 1;
                if (to >= limit_q) to = limit_q - 1;
                if (from <= to) qa = lower_bound_d(q_val, q_index, n_q, from), qb = lower_bound_d(q_val, q_index, n_q, to + 1);
            }
            sh.tile_qa[k] = qa, sh.tile_qb[k] = qb;
        }
        __syncthreads();
        unsigned long long kept_r = 0;
        uint32_t *tile_r = (uint32_t *)ani_dyn, *tile_q = tile_r + ANI_TILE_R;
        uint16_t *tile_seg = (uint16_t *)(tile_q + ANI_TILE_Q);
        uint8_t *tile_hit = (uint8_t *)(tile_seg + ANI_TILE_R);
        constexpr int per_thread = ANI_TILE_R / ANI_THREADS;
        for (int k = 0; k < sh.tiles; k++) {
            const int t0 = k * ANI_TILE_R, tn = min(ANI_TILE_R, r.n_all - t0);
            {
                uint32_t v[per_thread];
                uint16_t g[per_thread];
#pragma unroll
                for (int u = 0; u < per_thread; u++) {
                    const int j = (int)threadIdx.x + u * ANI_THREADS;
                    v[u] = j < tn ? r_val[t0 + j] : 0xFFFFFFFFu, g[u] = j < tn ? r_seg[t0 + j] : 0;
                }
#pragma unroll
                for (int u = 0; u < per_thread; u++) {
                    const int j = (int)threadIdx.x + u * ANI_THREADS;
                    tile_r[j] = v[u], tile_seg[j] = g[u];
                }
            }
            const int j0 = (int)threadIdx.x * per_thread;
            uint32_t found = 0; /* bit u: the thread's anchor u hit */
            /* chunks start on a word of the hit bits (values before qa are below every range) */
            for (uint32_t c0 = sh.tile_qa[k] & ~31u, qb = sh.tile_qb[k]; c0 < qb; c0 += ANI_TILE_Q) {
                const uint32_t cn = min((uint32_t)ANI_TILE_Q, qb - c0);
                __syncthreads(); /* the chunk before is merged (and the r tile is in) */
                ((uint2 *)tile_hit)[threadIdx.x] = make_uint2(0, 0);
                {
                    uint32_t w[ANI_TILE_Q / ANI_THREADS];
#pragma unroll
                    for (int u = 0; u < ANI_TILE_Q / ANI_THREADS; u++) {
                        const uint32_t j = threadIdx.x + u * ANI_THREADS;
                        w[u] = j < cn ? q_val[c0 + j] : 0;
                    }
#pragma unroll
                    for (int u = 0; u < ANI_TILE_Q / ANI_THREADS; u++) tile_q[threadIdx.x + u * ANI_THREADS] = w[u];
                }
                __syncthreads();
                uint32_t at = 0; /* in the chunk: the first value >= the current from */
                bool started = false;
                for (int u = 0; u < per_thread && j0 + u < tn; u++) {
                    const uint64_t v = tile_r[j0 + u];
                    if (v >= limit_r) break;
                    const uint64_t from = (v >> shift_r) << shift_q;
                    uint64_t to = from + (1ULL << shift_q) - 1;
                    if (to >= limit_q) to = limit_q - 1;
                    if (from > to) break; /* and so for the anchors after it */
                    if (!started) at = first_at_least(tile_q, 0, cn, from), started = true;
                    while (at < cn && tile_q[at] < from) at++;
                    for (uint32_t m = at; m < cn && tile_q[m] <= to; m++) {
                        tile_hit[m] = 1; /* a byte each: no atomics, every writer writes 1 */
                        found |= 1u << u;
                    }
                }
                __syncthreads();
                if (threadIdx.x < ANI_TILE_Q / 32 && c0 + 32 * threadIdx.x < qb) { /* the chunk's bytes into words */
                    const uint32_t *b = (const uint32_t *)(tile_hit + 32 * threadIdx.x);
                    uint32_t bits = 0;
#pragma unroll
                    for (int i = 0; i < 8; i++)
                        bits |= ((b[i] & 1) | (b[i] >> 7 & 2) | (b[i] >> 14 & 4) | (b[i] >> 21 & 8)) << (4 * i);
                    if (bits) sh.qbits[(c0 >> 5) + threadIdx.x] |= bits;
                }
            }
            __syncthreads(); /* the r tile is read by its owners only from here on */
            for (int u = 0; u < per_thread && j0 + u < tn; u++) {
                if (tile_r[j0 + u] >= limit_r) break;
                kept_r++;
                if (tile_seg[j0 + u] != ANI_LOOSE) atomicAdd(&sh.cnt_r[tile_seg[j0 + u]], 1u << 16 | (found >> u & 1));
            }
            __syncthreads(); /* before the next tile overwrites it */
        }
        atomicAdd(&sh.kept, kept_r);
        __syncthreads();
        const int64_t anchors_r = (int64_t)sh.kept;
        unsigned long long kept_q = 0;
        for (int i0 = threadIdx.x; i0 < q.n_all; i0 += 4 * ANI_THREADS) { /* four loads in flight */
            uint32_t v[4];
            uint16_t g[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int i = i0 + u * ANI_THREADS;
                v[u] = i < q.n_all ? q_val[i] : 0xFFFFFFFFu, g[u] = i < q.n_all ? q_seg[i] : 0;
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int i = i0 + u * ANI_THREADS;
                if (i < q.n_all && v[u] < limit_q) {
                    kept_q++;
                    if (g[u] != ANI_LOOSE) atomicAdd(&sh.cnt_q[g[u]], 1u << 16 | (sh.qbits[i >> 5] >> (i & 31) & 1));
                }
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) sh.kept = 0;
        __syncthreads();
        atomicAdd(&sh.kept, kept_q);
        __syncthreads();
        const int64_t anchors_q = (int64_t)sh.kept;

        ani_out_d o;
        o.on_host = fit_direction(sh, sh.cnt_q, q.n_segments, r.length, anchors_r, value_bits,
                                  self_rate_d(q.repeats, q.n_anchors, q.length, r.length), anchor_k, reported, pw_p,
                                  pw_q, gw, window, slot, &o.q);
        __syncthreads();
        if (!o.on_host)
            o.on_host = fit_direction(sh, sh.cnt_r, r.n_segments, q.length, anchors_q, value_bits,
                                      self_rate_d(r.repeats, r.n_anchors, r.length, q.length), anchor_k, reported,
                                      pw_p, pw_q, gw, window, slot, &o.r);
        if (threadIdx.x == 0) out[p] = o;
        __syncthreads();
    }
}

/* A block a genome: tsk_ani_repeats' count into its repeats, from its anchors sorted by value (a
 * run of one value recurs when its segments differ, the loose anchors' ANI_LOOSE one of them, as
 * the host's n_segments is; per segment at most TSK_ANI_REPEAT_CAP, and the loose anchors count in
 * none). The thread at a run's first anchor reads the run once, as the host's loop does. The
 * integers are the host's, whatever the order. */
__global__ static void __launch_bounds__(256) repeats_kernel(ani_genome_d *genomes, int64_t n_genomes,
                                                            const uint32_t *sval, const uint16_t *sseg)
{
    __shared__ uint32_t hist[TSK_GPU_ANI_MAX_SEGMENTS];
    __shared__ unsigned long long total;
    const int64_t g = blockIdx.x;
    if (g >= n_genomes) return;
    const ani_genome_d G = genomes[g];
    if (!G.on_device) return; /* the whole block: its pairs are the host's */
    for (int s = threadIdx.x; s < G.n_segments; s += blockDim.x) hist[s] = 0;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    const uint32_t *v = sval + G.anchor0;
    const uint16_t *sg = sseg + G.anchor0;
    for (int i = threadIdx.x; i < G.n_all; i += blockDim.x) {
        if (i > 0 && v[i - 1] == v[i]) continue; /* not a run's first */
        int end = i + 1, lo = sg[i], hi = sg[i];
        for (; end < G.n_all && v[end] == v[i]; end++) lo = min(lo, (int)sg[end]), hi = max(hi, (int)sg[end]);
        if (lo != hi)
            for (int j = i; j < end; j++)
                if (sg[j] != ANI_LOOSE) atomicAdd(&hist[sg[j]], 1u);
    }
    __syncthreads();
    unsigned long long part = 0;
    for (int s = threadIdx.x; s < G.n_segments; s += blockDim.x) part += min(hist[s], (uint32_t)TSK_ANI_REPEAT_CAP);
    atomicAdd(&total, part);
    __syncthreads();
    if (threadIdx.x == 0) genomes[g].repeats = (int64_t)total;
}

/* Per sorted anchor: where each index bucket of its genome starts (buckets past the last anchor
 * start at n_all). */
__global__ static void index_kernel(const ani_genome_d *genomes, int64_t n_genomes, const uint32_t *sval,
                                    uint32_t *index)
{
    const int64_t g = blockIdx.x;
    if (g >= n_genomes) return;
    const ani_genome_d G = genomes[g];
    uint32_t *ix = index + g * (ANI_INDEX + 1);
    if (!G.on_device || G.n_all == 0) {
        for (int b = threadIdx.x; b <= ANI_INDEX; b += blockDim.x) ix[b] = 0;
        return;
    }
    const uint32_t *v = sval + G.anchor0;
    for (int i = threadIdx.x; i < G.n_all; i += blockDim.x) {
        const int b = (int)(v[i] >> (32 - ANI_INDEX_BITS)), prev = i ? (int)(v[i - 1] >> (32 - ANI_INDEX_BITS)) : -1;
        for (int bb = prev + 1; bb <= b; bb++) ix[bb] = (uint32_t)i;
        if (i == G.n_all - 1)
            for (int bb = b + 1; bb <= ANI_INDEX; bb++) ix[bb] = (uint32_t)G.n_all;
    }
}

/* Per anchor, in segment order: its segment, from the segments' counts (a block a genome: each
 * thread sums a run of segments, the runs' sums scanned in shared memory, then each thread writes
 * its run's ids); ANI_LOOSE for the loose ones looked up after them. */
#define ANI_IDS_THREADS 128
__global__ static void __launch_bounds__(ANI_IDS_THREADS)
    segment_ids_kernel(const ani_genome_d *genomes, int64_t n_genomes, const uint16_t *counts, uint16_t *seg)
{
    __shared__ uint32_t run_sum[ANI_IDS_THREADS];
    const int64_t g = blockIdx.x;
    if (g >= n_genomes || !genomes[g].on_device) return;
    const ani_genome_d G = genomes[g];
    const uint16_t *cnt = counts + G.seg0;
    const int run = (G.n_segments + ANI_IDS_THREADS - 1) / ANI_IDS_THREADS;
    const int s0 = (int)threadIdx.x * run, s1 = min(G.n_segments, s0 + run);
    uint32_t sum = 0;
    for (int s = s0; s < s1; s++) sum += cnt[s];
    run_sum[threadIdx.x] = sum;
    __syncthreads();
    for (int o = 1; o < ANI_IDS_THREADS; o <<= 1) { /* inclusive scan of the runs' sums */
        const uint32_t add = threadIdx.x >= (unsigned)o ? run_sum[threadIdx.x - o] : 0;
        __syncthreads();
        run_sum[threadIdx.x] += add;
        __syncthreads();
    }
    uint32_t at = run_sum[threadIdx.x] - sum;
    for (int s = s0; s < s1; s++)
        for (uint32_t j = 0; j < cnt[s]; j++) seg[G.anchor0 + at++] = (uint16_t)s;
    for (int j = G.n_anchors + (int)threadIdx.x; j < G.n_all; j += ANI_IDS_THREADS) seg[G.anchor0 + j] = ANI_LOOSE;
}

/* ---- host ---- */

static const tsk_ani_genome *genome_of(const tsk_gpu_ani *e, int64_t i)
{
    return i < e->r_offset ? &e->q->genome[i] : &e->r->genome[i - e->r_offset];
}

/* Lays the genomes within the limits out on the device (anchor0, seg0), finds the host runs of
 * their anchors (all of hash: the segments', the loose ones) and counts that lie one after the
 * other in memory (a file's genomes do: one copy a run), the sort's chunks, and allocates every
 * device buffer, the fill's scratch included, so that what the engine holds is taken before the
 * caller sizes anything else on the device. */
static int lay_out(tsk_gpu_ani *e)
{
    const int64_t n = (int64_t)e->genomes.size();
    int64_t anchors = 0, segs = 0;
    ani_fill &f = e->fill;
    const int n_shares = (int)e->bound.size() - 1;
    int m = 0; /* the share genome i is in: a chunk or a run lies in one share */
    e->share_anchor.assign((size_t)n_shares + 1, 0);
    for (int64_t i = 0; i < n; i++) {
        while (m + 1 < n_shares && i >= e->bound[(size_t)m + 1]) e->share_anchor[(size_t)++m] = anchors;
        const tsk_ani_genome *g = genome_of(e, i);
        /* the anchors the host's pairs look up, sorted; and all of hash, copied: a genome's loose
         * anchors left out must not cut a file's run in two (a copy a genome: the upload and sort of
         * genome_sets_bench's 10^5 genomes took 1.26 s against 0.39 s on the H200) */
        const int64_t n_all = g->n_anchors + tsk_ani_loose_used(g), held = g->n_anchors + g->n_loose;
        ani_genome_d &d = e->genomes[i];
        d = ani_genome_d{anchors, segs, g->length, (int32_t)std::min<int64_t>(g->n_anchors, INT32_MAX),
                         (int32_t)std::min<int64_t>(n_all, INT32_MAX),
                         (int32_t)std::min<int64_t>(g->n_segments, INT32_MAX), g->rate_log2, 0, 0};
        d.on_device = g->n_anchors > 0 && g->n_loose >= 0 && n_all <= TSK_GPU_ANI_MAX_ANCHORS &&
                      g->n_segments > 0 && g->n_segments <= TSK_GPU_ANI_MAX_SEGMENTS &&
                      g->rate_log2 >= TSK_ANI_MIN_RATE_LOG2 && g->rate_log2 <= TSK_ANI_MAX_RATE_LOG2;
        if (!d.on_device) continue;
        /* the genome's sort range, relative to its chunk's first anchor: a chunk holds at most
         * sort_chunk_anchors (CUB's counts are int) */
        if (f.chunk_base.empty() || f.chunk_share.back() != m ||
            anchors + held - f.chunk_base.back() > sort_chunk_anchors)
            f.chunk_base.push_back(anchors), f.chunk_first.push_back((int)f.seg_begin.size()), f.chunk_share.push_back(m);
        f.seg_begin.push_back((int)(anchors - f.chunk_base.back()));
        f.seg_end.push_back((int)(anchors + n_all - f.chunk_base.back()));
        if (!f.hash_runs.empty() && f.hash_runs.back().share == m &&
            f.hash_runs.back().host + f.hash_runs.back().n == (const void *)g->hash)
            f.hash_runs.back().n += held * 4;
        else
            f.hash_runs.push_back(ani_run{(const char *)g->hash, anchors * 4, held * 4, m});
        if (!f.count_runs.empty() && f.count_runs.back().share == m &&
            f.count_runs.back().host + f.count_runs.back().n == (const void *)g->seg_count)
            f.count_runs.back().n += g->n_segments * 2;
        else
            f.count_runs.push_back(ani_run{(const char *)g->seg_count, segs * 2, g->n_segments * 2, m});
        anchors += held;
        segs += g->n_segments;
    }
    while (m + 1 < n_shares) e->share_anchor[(size_t)++m] = anchors;
    e->share_anchor[(size_t)n_shares] = anchors;
    f.chunk_first.push_back((int)f.seg_begin.size());
    f.chunk_base.push_back(anchors);
    const size_t na = (size_t)std::max<int64_t>(anchors, 1), n_sorted = std::max<size_t>(f.seg_begin.size(), 1);
    double t = tsk_cuda_seconds();
    const auto part_done = [&](int i) {
        const double now = tsk_cuda_seconds();
        e->open_parts_s[i] = now - t;
        t = now;
    };
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->genomes_d, (size_t)std::max<int64_t>(n, 1) * sizeof(ani_genome_d)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->sval_d, na * 4));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->sseg_d, na * 2));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->index_d, (size_t)std::max<int64_t>(n, 1) * (ANI_INDEX + 1) * 4));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&f.hash_d, na * 4));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&f.seg_d, na * 2));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&f.counts_d, (size_t)std::max<int64_t>(segs, 1) * 2));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&f.begin_d, n_sorted * sizeof(int)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&f.end_d, n_sorted * sizeof(int)));
    part_done(0);
    /* the largest chunk's sort scratch (CUB only sizes it here: nothing is read) */
    for (size_t k = 0; k + 1 < f.chunk_base.size(); k++) {
        size_t bytes = 0;
        const int first = f.chunk_first[k];
        TSK_CUDA_CHECK(site(e), cub::DeviceSegmentedSort::SortPairs(
                                    nullptr, bytes, f.hash_d, e->sval_d, f.seg_d, e->sseg_d,
                                    (int)(f.chunk_base[k + 1] - f.chunk_base[k]), f.chunk_first[k + 1] - first,
                                    f.begin_d + first, f.end_d + first, e->st));
        f.sort_bytes = std::max(f.sort_bytes, bytes);
    }
    TSK_CUDA_CHECK(site(e), cudaMalloc(&f.sort_d, std::max<size_t>(f.sort_bytes, 1)));
    if (n > 0)
        TSK_CUDA_CHECK(site(e), cudaMemcpy(e->genomes_d, e->genomes.data(), (size_t)n * sizeof(ani_genome_d),
                                           cudaMemcpyHostToDevice));
    part_done(1);

    /* the host's grid, powers and reported identities (tsk_ani_grid_powers, tsk_ani_grid_reported),
     * read as they are */
    std::vector<double> grid(ANI_GRID), p(ANI_GRID), pw_p((size_t)TSK_ANI_POWER_ROWS * ANI_GRID),
        pw_q((size_t)TSK_ANI_POWER_ROWS * ANI_GRID);
    if (tsk_ani_grid_powers(e->anchor_k, TSK_ANI_GRID_DIV, grid.data(), p.data(), pw_p.data(), pw_q.data()) != ANI_GRID) {
        snprintf(e->err, sizeof e->err, "the ANI grid is not the GPU's (%d entries)", ANI_GRID);
        return -1;
    }
    std::vector<double> reported(ANI_GRID);
    tsk_ani_grid_reported(grid.data(), ANI_GRID, reported.data());
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->reported_d, ANI_GRID * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->pw_p_d, pw_p.size() * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->pw_q_d, pw_q.size() * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->reported_d, reported.data(), ANI_GRID * sizeof(double), cudaMemcpyHostToDevice));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->pw_p_d, pw_p.data(), pw_p.size() * sizeof(double), cudaMemcpyHostToDevice));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->pw_q_d, pw_q.data(), pw_q.size() * sizeof(double), cudaMemcpyHostToDevice));
    std::vector<double> gw(ANI_GRID);
    tsk_ani_grid_window_powers(grid.data(), ANI_GRID, e->window, gw.data());
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->gw_d, ANI_GRID * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMemcpy(e->gw_d, gw.data(), ANI_GRID * sizeof(double), cudaMemcpyHostToDevice));
    part_done(2);

    /* the blocks' scratch: as many blocks as fit on the device at once */
    int per_sm = 0;
    TSK_CUDA_CHECK(site(e), cudaFuncSetAttribute(ani_pairs_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ANI_TILE_BYTES));
    TSK_CUDA_CHECK(site(e), cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ani_pairs_kernel, ANI_THREADS,
                                                                          ANI_TILE_BYTES));
    e->slots = std::max(1, per_sm) * std::max(1, e->sms);
    const size_t cells = (size_t)e->slots * TSK_GPU_ANI_MAX_SEGMENTS;
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_rows_d, cells * ANI_GRID * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_ratio_d, cells * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_m_d, cells * sizeof(double)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_code_d, cells * sizeof(uint32_t)));
    TSK_CUDA_CHECK(site(e), cudaMalloc(&e->slot_band_d, cells * 3));
    part_done(3);
    return 0;
}

static void free_fill_scratch(ani_fill &f)
{
    cudaFree(f.hash_d), cudaFree(f.seg_d), cudaFree(f.counts_d), cudaFree(f.begin_d), cudaFree(f.end_d);
    cudaFree(f.sort_d);
    f.hash_d = nullptr, f.seg_d = nullptr, f.counts_d = nullptr, f.begin_d = f.end_d = nullptr, f.sort_d = nullptr;
}

/* Share m on e's device from the host: its runs of anchors and counts copied, each anchor's
 * segment, its genomes' anchors sorted by value with their segments (its chunks), the index of the
 * sorted values and the repeats. Queued on e's stream. */
static int fill_share(tsk_gpu_ani *e, tsk_upload_stage &stage, int m)
{
    ani_fill &f = e->fill;
    for (const ani_run &r : f.hash_runs)
        if (r.share == m)
            TSK_CUDA_CHECK(site(e), tsk_stage_upload(stage, (char *)f.hash_d + r.device, r.host, (size_t)r.n, e->st));
    for (const ani_run &r : f.count_runs)
        if (r.share == m)
            TSK_CUDA_CHECK(site(e), tsk_stage_upload(stage, (char *)f.counts_d + r.device, r.host, (size_t)r.n, e->st));
    const int64_t g0 = e->bound[(size_t)m], ng = e->bound[(size_t)m + 1] - g0;
    if (ng <= 0) return 0;
    segment_ids_kernel<<<(unsigned)ng, ANI_IDS_THREADS, 0, e->st>>>(e->genomes_d + g0, ng, f.counts_d, f.seg_d);
    TSK_CUDA_CHECK(site(e), cudaGetLastError());
    for (size_t k = 0; k + 1 < f.chunk_base.size(); k++) {
        if (f.chunk_share[k] != m) continue;
        const int64_t base = f.chunk_base[k];
        const int first = f.chunk_first[k];
        size_t bytes = f.sort_bytes;
        TSK_CUDA_CHECK(site(e), cub::DeviceSegmentedSort::SortPairs(
                                    f.sort_d, bytes, f.hash_d + base, e->sval_d + base, f.seg_d + base,
                                    e->sseg_d + base, (int)(f.chunk_base[k + 1] - base),
                                    f.chunk_first[k + 1] - first, f.begin_d + first, f.end_d + first, e->st));
    }
    index_kernel<<<(unsigned)ng, 256, 0, e->st>>>(e->genomes_d + g0, ng, e->sval_d, e->index_d + g0 * (ANI_INDEX + 1));
    repeats_kernel<<<(unsigned)ng, 256, 0, e->st>>>(e->genomes_d + g0, ng, e->sval_d, e->sseg_d);
    TSK_CUDA_CHECK(site(e), cudaGetLastError());
    return 0;
}

/* Share m, ready on src's device, copied to e's: its sorted anchors and segments, its genomes'
 * indexes and records (their repeats). */
static int copy_share(tsk_gpu_ani *e, const tsk_gpu_ani *src, int m)
{
    const int64_t g0 = e->bound[(size_t)m], ng = e->bound[(size_t)m + 1] - g0;
    const int64_t a0 = e->share_anchor[(size_t)m], na = e->share_anchor[(size_t)m + 1] - a0;
    TSK_CUDA_CHECK(site(e), tsk_peer_copy(e->sval_d + a0, e->dev, src->sval_d + a0, src->dev, (size_t)na * 4, e->st));
    TSK_CUDA_CHECK(site(e), tsk_peer_copy(e->sseg_d + a0, e->dev, src->sseg_d + a0, src->dev, (size_t)na * 2, e->st));
    TSK_CUDA_CHECK(site(e), tsk_peer_copy(e->genomes_d + g0, e->dev, src->genomes_d + g0, src->dev,
                                          (size_t)ng * sizeof(ani_genome_d), e->st));
    TSK_CUDA_CHECK(site(e), tsk_peer_copy(e->index_d + g0 * (ANI_INDEX + 1), e->dev, src->index_d + g0 * (ANI_INDEX + 1),
                                          src->dev, (size_t)ng * (ANI_INDEX + 1) * 4, e->st));
    return 0;
}

/* The fill, on a thread of its own while the caller's keys are compared: alone, every genome from
 * the host; among peers, the shares it claims from the host, then every other share copied from
 * the device of the peer that filled it (or from the host, where that peer failed); then the
 * scratch is freed. */
static int fill(tsk_gpu_ani *e)
{
    const double t0 = tsk_cuda_seconds();
    ani_fill &f = e->fill;
    TSK_CUDA_CHECK(site(e), cudaSetDevice(e->dev));
    /* the stage is freed (its copies waited for) however the fill ends */
    std::unique_ptr<tsk_upload_stage, void (*)(tsk_upload_stage *)> stage(new tsk_upload_stage,
                                                                          [](tsk_upload_stage *s) { tsk_stage_free(*s); delete s; });
    const int n_sorted = (int)f.seg_begin.size();
    if (n_sorted > 0) {
        TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(f.begin_d, f.seg_begin.data(), (size_t)n_sorted * sizeof(int),
                                                cudaMemcpyHostToDevice, e->st));
        TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(f.end_d, f.seg_end.data(), (size_t)n_sorted * sizeof(int),
                                                cudaMemcpyHostToDevice, e->st));
    }
    if (!e->peers) {
        if (fill_share(e, *stage, 0)) return -1;
        TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
        f.upload_s = tsk_cuda_seconds() - t0;
    } else {
        for (int m; (m = e->peers->claim(e->member)) >= 0;) {
            if (fill_share(e, *stage, m)) return -1;
            TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
            e->fill.published = true;
            e->peers->ready(m, e);
        }
        f.upload_s = tsk_cuda_seconds() - t0;
    }
    const double t1 = tsk_cuda_seconds();
    for (int m = 0; e->peers && m < e->peers->shares; m++) {
        const tsk_gpu_ani *src = (const tsk_gpu_ani *)e->peers->wait_share(m);
        if (src != e && (src ? copy_share(e, src, m) : fill_share(e, *stage, m))) return -1;
    }
    TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
    f.others_s = tsk_cuda_seconds() - t1;
    free_fill_scratch(f);
    f.seconds = tsk_cuda_seconds() - t0;
    return 0;
}

/* Waits for the fill; its result (0, or -1 with the reason in e->err). */
static int fill_done(tsk_gpu_ani *e)
{
    if (e->fill.thread.joinable()) {
        const double t0 = tsk_cuda_seconds();
        e->fill.thread.join();
        e->fill.waited_s += tsk_cuda_seconds() - t0;
    }
    return e->fill.rc;
}

static void free_engine(tsk_gpu_ani *e)
{
    if (!e) return;
    fill_done(e);
    if (e->peers && e->fill.published) e->peers->wait_finished(); /* the peers copy from its buffers */
    cudaSetDevice(e->dev);
    free_fill_scratch(e->fill);
    cudaFree(e->genomes_d), cudaFree(e->sval_d), cudaFree(e->index_d);
    cudaFree(e->sseg_d), cudaFree(e->reported_d), cudaFree(e->pw_p_d), cudaFree(e->pw_q_d), cudaFree(e->gw_d);
    cudaFree(e->slot_rows_d), cudaFree(e->slot_ratio_d), cudaFree(e->slot_m_d), cudaFree(e->slot_code_d);
    cudaFree(e->slot_band_d), cudaFree(e->pairs_d), cudaFree(e->out_d);
    if (e->st) cudaStreamDestroy(e->st);
    delete e;
}

static tsk_gpu_ani *open_engine(const tsk_ani_set *q, const tsk_ani_set *r, int anchor_k, int window, int device,
                                tsk_gpu_ani_peers *peers, int member, char *err, size_t errlen)
{
    if (window < 0 || window > TSK_ANI_MAX_WINDOW) {
        snprintf(err, errlen, "window %d out of 0..%d", window, TSK_ANI_MAX_WINDOW);
        return NULL;
    }
    if (tsk_cuda_device_usable(device, err, errlen)) return NULL;
    const double t0 = tsk_cuda_seconds();
    tsk_gpu_ani *e = new tsk_gpu_ani;
    e->q = q, e->r = r, e->dev = device, e->anchor_k = anchor_k, e->window = window;
    e->r_offset = q == r ? 0 : q->n_items;
    e->genomes.resize((size_t)(e->r_offset + r->n_items));
    if (peers) e->peers = peers, e->member = member, e->bound = peers->bound;
    else e->bound = {0, (int64_t)e->genomes.size()};
    int ok = cudaSetDevice(device) == cudaSuccess && cudaStreamCreateWithFlags(&e->st, cudaStreamNonBlocking) == cudaSuccess &&
             cudaDeviceGetAttribute(&e->sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess;
    if (!ok) snprintf(e->err, sizeof e->err, "CUDA device %d: %s", device, cudaGetErrorString(cudaGetLastError()));
    if (ok && lay_out(e)) ok = 0;
    if (ok) { /* a thread that cannot start throws: the entry's guard reports it */
        e->fill.thread = std::thread([e] {
            e->fill.rc = tsk_cuda_entry("the ANI engine's fill", e->err, sizeof e->err, -1, [e] { return fill(e); });
            if (e->peers) e->peers->finish(e->member); /* a share it claimed and did not announce: given up */
        });
    }
    if (!ok) {
        snprintf(err, errlen, "%s", e->err);
        e->peers = nullptr; /* nothing announced: the caller's entry finishes it among the peers */
        free_engine(e);
        return NULL;
    }
    e->open_s = tsk_cuda_seconds() - t0;
    return e;
}

static int run_pairs(tsk_gpu_ani *e, const int64_t *query, const int64_t *ref, int64_t n, tsk_ani_result *out,
                     uint8_t *on_host)
{
    if (fill_done(e)) return -1;
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
        ani_pairs_kernel<<<blocks, ANI_THREADS, ANI_TILE_BYTES, e->st>>>(e->genomes_d, e->sval_d, e->sseg_d, e->index_d, e->reported_d, e->pw_p_d, e->pw_q_d,
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
                                         int device, tsk_gpu_ani_peers *peers, int member, char *err, size_t errlen)
{
    if (peers && (member < 0 || member >= peers->members)) {
        snprintf(err, errlen, "member %d of %d peers", member, peers->members);
        return NULL;
    }
    tsk_gpu_ani *e = tsk_cuda_entry("tsk_gpu_ani_open", err, errlen, (tsk_gpu_ani *)NULL,
                                    [&] { return open_engine(q, r, anchor_k, window, device, peers, member, err, errlen); });
    if (!e && peers) peers->finish(member);
    return e;
}

extern "C" tsk_gpu_ani_peers *tsk_gpu_ani_peers_new(const tsk_ani_set *q, const tsk_ani_set *r, int n_members)
{
    if (n_members < 1) return NULL;
    return tsk_cuda_entry("tsk_gpu_ani_peers_new", (char *)NULL, 0, (tsk_gpu_ani_peers *)NULL, [&] {
        /* shares of about equal anchors (loose ones too: they are copied alike, those looked up
         * sorted alike), in the engines' genome order (q's, then r's) */
        const int64_t n_q = q == r ? 0 : q->n_items, n = n_q + r->n_items;
        std::vector<int64_t> before((size_t)n + 1, 0);
        for (int64_t i = 0; i < n; i++) {
            const tsk_ani_genome &g = i < n_q ? q->genome[i] : r->genome[i - n_q];
            before[(size_t)i + 1] = before[(size_t)i] + g.n_anchors + g.n_loose;
        }
        return new tsk_gpu_ani_peers(n_members, n, [&](int64_t i) { return before[(size_t)i]; });
    });
}

extern "C" void tsk_gpu_ani_peers_leave(tsk_gpu_ani_peers *p, int member)
{
    if (p && member >= 0 && member < p->members) p->finish(member);
}

extern "C" void tsk_gpu_ani_peers_free(tsk_gpu_ani_peers *p) { delete p; }

extern "C" void tsk_gpu_ani_close(tsk_gpu_ani *e) { free_engine(e); }

extern "C" void tsk_gpu_ani_settle(tsk_gpu_ani *e)
{
    if (e) tsk_cuda_entry("tsk_gpu_ani_settle", e->err, sizeof e->err, 0, [e] { return fill_done(e); });
}

extern "C" int64_t tsk_gpu_ani_bytes(const tsk_ani_set *q, const tsk_ani_set *r)
{
    /* lay_out's buffers: a genome's record and index; an anchor's sorted value and segment, and
     * the fill's copies of both and the sort's scratch (about as much again), for its segments'
     * anchors and its loose ones alike (all are copied); a segment's count; the blocks' scratch,
     * under 1 GB */
    int64_t bytes = INT64_C(1) << 30;
    for (int set = 0; set < (q == r ? 1 : 2); set++) {
        const tsk_ani_set *s = set ? r : q;
        for (int64_t i = 0; i < s->n_items; i++) {
            const tsk_ani_genome &g = s->genome[i];
            bytes += (int64_t)sizeof(ani_genome_d) + (ANI_INDEX + 1) * 4 + (g.n_anchors + g.n_loose) * 18 +
                     g.n_segments * 2;
        }
    }
    return bytes;
}

extern "C" const char *tsk_gpu_ani_error(const tsk_gpu_ani *e) { return e ? e->err : "no GPU ANI engine"; }

extern "C" int tsk_gpu_ani_pairs(tsk_gpu_ani *e, const int64_t *query, const int64_t *ref, int64_t n,
                                 tsk_ani_result *out, uint8_t *on_host)
{
    if (!e) return -1;
    if (e->failed) return -2;
    const double t0 = tsk_cuda_seconds(), waited = e->fill.waited_s;
    const int rc = tsk_cuda_entry("tsk_gpu_ani_pairs", e->err, sizeof e->err, -1,
                                  [&] { return run_pairs(e, query, ref, n, out, on_host); });
    e->failed = rc != 0;
    e->pairs_s += tsk_cuda_seconds() - t0 - (e->fill.waited_s - waited);
    e->pairs_done += n;
    return rc;
}

extern "C" void tsk_gpu_ani_timing(const tsk_gpu_ani *e, tsk_gpu_ani_times *t)
{
    *t = tsk_gpu_ani_times{0, 0, 0, 0, 0, 0, 0, 1};
    if (e)
        *t = tsk_gpu_ani_times{e->open_s,    e->fill.upload_s, e->fill.seconds, e->fill.waited_s,
                               e->pairs_done, e->pairs_s, e->fill.others_s, e->peers ? e->peers->members : 1,
                               {e->open_parts_s[0], e->open_parts_s[1], e->open_parts_s[2], e->open_parts_s[3]}};
}
