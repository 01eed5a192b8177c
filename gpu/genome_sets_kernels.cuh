/* genome_sets_kernels.cuh: the kernels of the GPU genome-sketch engine (genome_sets.h).
 *
 * The reference keys of an index part are sorted with their (part-local) reference ids, key
 * first, references ascending within a key (a stable sort of the sets laid end to end): each key's
 * postings are one run. gks_lookup_kernel finds, for every key of a batch of queries, its run
 * [lo, hi) (a binary search in the sorted keys). gks_count_kernel is one CUDA block per (query,
 * chunk of references): it adds 1 per posting into per-reference counters in shared memory (the
 * runs are ascending, so a chunk's part of a run is found by a binary search and left at its end),
 * then finishes on the device:
 *   GKS_COUNT  writes the counts (the count block);
 *   GKS_TOPK   keeps the k best references by share (a bound from the threads' best ones, then
 *              per thread a sorted list of the pairs within it while the counters are scanned,
 *              then k rounds of a block-wide arg-max over the lists' heads);
 *   GKS_WITHIN writes the references whose share reaches the floor, in reference order (a block
 *              scan), at an offset reserved with one atomic add per block.
 * The share is tsk_genome_share's (core/genome_keys.h) with its operations spelled out in IEEE
 * round-to-nearest intrinsics, so no multiply-add is contracted: the same double as the CPU's. A
 * pair of different thresholds (the size floor) takes its sizes as tsk_genome_pair_sizes does, by
 * a binary search in the query's keys or the reference's (kept unsorted beside the index).
 *
 * Positions in a part are int64_t and every search is core/key_search.h's, shared with the host:
 * a part of 2x10^5 genomes holds about 2x10^9 postings, and int positions with (a + b) >> 1
 * midpoints broke at 2^30. Reference ids stay int32_t (part-local, at most 2^31 - 1 genomes a
 * set: tsk_gpu_genome_sets_open refuses more), and so do a chunk's bounds. */
#ifndef TSK_GPU_GENOME_SETS_KERNELS_CUH
#define TSK_GPU_GENOME_SETS_KERNELS_CUH

#include <cub/block/block_scan.cuh>
#include <stdint.h>

#include "../core/genome_keys.h"
#include "../core/key_search.h"

#define GKS_THREADS 256
#define GKS_MAX_K 64  /* largest k reduced on the device (larger: every sharing pair, chosen on the host) */

enum { GKS_COUNT = 0, GKS_TOPK = 1, GKS_WITHIN = 2 };

/* A result of the top-k and threshold kernels: a reference (global index; -1 = none) and its count. */
struct gks_hit {
    int32_t ref;
    uint32_t shared;
};

/* A batch key's postings [lo, hi) in the part (lo == hi: none). */
struct gks_run {
    int64_t lo, hi;
};

/* Where a (query, chunk) block of GKS_WITHIN put its hits. */
struct gks_rec {
    unsigned long long off;
    uint32_t n;
};

/* One launch: a batch of queries against the chunks of one index part. */
struct gks_launch {
    const uint64_t *pkeys;      /* the part's postings: keys ascending ... */
    const int32_t *pref;        /* ... and their references (part-local ids), ascending per key */
    const gks_run *range;       /* per batch key: its postings */
    const int64_t *qoff;        /* batch query i's keys: [qoff[i], qoff[i+1]) of the batch's keys */
    const int32_t *rsize;       /* keys of every reference (global index) */
    /* thresholds (NULL: all equal, sizes as they are) */
    const uint64_t *qtau;       /* batch query i's threshold */
    const uint64_t *rtau;       /* every reference's (global index) */
    const uint64_t *qkeys;      /* the batch's keys (qoff) */
    const uint64_t *rkeys;      /* the part's keys per reference, as stored: part-local reference j's are */
    const int64_t *roff;        /* rkeys[roff[j] .. roff[j + 1]) */
    int64_t qbase;              /* global index of batch query 0 */
    int32_t part0;              /* global index of part-local reference 0 */
    int32_t lo, clen;           /* chunks: part-local [lo + c * clen, min(+clen, hi)) */
    int32_t hi, n_chunks;
    int mode, filter, k;        /* tsk_genome_mode, tsk_pair_filter, top-k size */
    double min_share;
    uint32_t *counts;           /* GKS_COUNT: counts[i * ncols + (global ref - col0)] */
    int64_t ncols, col0;
    gks_hit *hits;              /* GKS_TOPK: [(i * n_chunks + c) * k + j]; GKS_WITHIN: from recs */
    unsigned long long *n_hits; /* GKS_WITHIN: hits reserved so far (may pass hit_cap: then rerun) */
    unsigned long long hit_cap;
    gks_rec *recs;              /* GKS_WITHIN: [i * n_chunks + c] */
};

/* tsk_genome_share, operation for operation. */
__device__ static inline double gks_share(int64_t shared, int64_t n_query, int64_t n_ref, int mode)
{
    if (n_query <= 0 || (mode == TSK_GENOME_SYMMETRIC && n_ref <= 0)) return 0.0;
    const double sq = __ddiv_rn((double)shared, (double)n_query);
    if (mode == TSK_GENOME_CONTAINMENT) return sq;
    const double sr = __ddiv_rn((double)shared, (double)n_ref);
    return __dmul_rn(__dadd_rn(sq, sr), 0.5);
}

/* The share of batch query qi (keys [k0, k0 + nk) of the batch) and reference r (global) sharing s
 * keys: tsk_genome_pair_sizes, then tsk_genome_share. */
__device__ static inline double gks_pair_share(const gks_launch &L, int64_t qi, int64_t k0, int64_t nk, int32_t r,
                                               uint32_t s)
{
    int64_t nq = nk, nr = L.rsize[r];
    if (L.qtau) {
        const uint64_t tq = L.qtau[qi], tr = L.rtau[r];
        if (tr < tq) {
            nq = tsk_keys_at_most(L.qkeys + k0, nk, tr);
        } else if (tq < tr) {
            const int32_t j = r - L.part0;
            nr = tsk_keys_at_most(L.rkeys + L.roff[j], L.roff[j + 1] - L.roff[j], tq);
        }
    }
    return gks_share(s, nq, nr, L.mode);
}

/* Top-k order: larger share, then smaller reference. */
__device__ static inline bool gks_before(double fa, int32_t ra, double fb, int32_t rb)
{
    return fa > fb || (fa == fb && ra < rb);
}

__global__ void gks_refs_kernel(const int64_t *off, int32_t *ref)
{
    const int32_t r = (int32_t)blockIdx.x;
    for (int64_t j = off[r] + threadIdx.x; j < off[r + 1]; j += blockDim.x) ref[j] = r;
}

__global__ void gks_lookup_kernel(const uint64_t *keys, int64_t n, const uint64_t *pkeys, int64_t n_post, gks_run *range)
{
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
        const uint64_t key = keys[t];
        const int64_t lo = tsk_first_key_at_least(pkeys, 0, n_post, key);
        if (lo == n_post || pkeys[lo] != key) range[t] = gks_run{0, 0};
        else range[t] = gks_run{lo, tsk_key_run_end(pkeys, lo, n_post)};
    }
}

template <int MODE>
__global__ void __launch_bounds__(GKS_THREADS) gks_count_kernel(gks_launch L)
{
    extern __shared__ uint32_t cnt[];
    const int64_t qi = blockIdx.x / L.n_chunks;
    const int c = (int)(blockIdx.x % L.n_chunks);
    const int32_t c0 = L.lo + c * L.clen, c1 = min(c0 + L.clen, L.hi), m = c1 - c0;
    const int tid = threadIdx.x;
    for (int j = tid; j < m; j += GKS_THREADS) cnt[j] = 0;
    __syncthreads();

    const int64_t k0 = L.qoff[qi], nk = L.qoff[qi + 1] - k0;
    for (int64_t j = tid; j < nk; j += GKS_THREADS) {
        const gks_run rg = L.range[k0 + j];
        int64_t p = rg.lo;
        const int64_t e = rg.hi;
        if (p < e && L.pref[p] < c0) p = tsk_first_ref_at_least(L.pref, p, e, c0);  /* this chunk's first */
        for (; p < e; p++) {
            const int32_t r = L.pref[p];
            if (r >= c1) break;
            atomicAdd(&cnt[r - c0], 1u);
        }
    }
    __syncthreads();

    const int64_t q = L.qbase + qi;
    const int32_t g0 = L.part0 + c0;  /* global index of counter 0 */
    if (MODE == GKS_COUNT) {
        uint32_t *row = L.counts + qi * L.ncols + (g0 - L.col0);
        for (int j = tid; j < m; j += GKS_THREADS) row[j] = cnt[j];
        return;
    }

    if (MODE == GKS_TOPK) {
        double lf[GKS_MAX_K];
        int32_t lr[GKS_MAX_K];
        uint32_t lc[GKS_MAX_K];
        int have = 0;
        const int k = L.k;
        /* A bound first: each thread's best, and the k-th best of those (the k threads' bests are
         * k pairs ranking at or before it, so no pair ranking after it is among the k best). The
         * lists then take few pairs: most of a chunk's counters are chance matches of a few keys. */
        __shared__ double mf[GKS_THREADS];
        __shared__ int32_t mr[GKS_THREADS];
        __shared__ double cut_f;
        __shared__ int32_t cut_r;
        double my_f = -1.0;
        int32_t my_r = INT32_MAX;
        for (int j = tid; j < m; j += GKS_THREADS) {
            const uint32_t s = cnt[j];
            const int32_t r = g0 + j;
            if (s == 0 || !tsk_pair_admitted((tsk_pair_filter)L.filter, q, r)) continue;
            const double f = gks_pair_share(L, qi, k0, nk, r, s);
            if (gks_before(f, r, my_f, my_r)) my_f = f, my_r = r;
        }
        mf[tid] = my_f, mr[tid] = my_r;
        if (tid == 0) cut_f = -1.0, cut_r = INT32_MAX;
        __syncthreads();
        if (my_r != INT32_MAX && k <= GKS_THREADS) {
            int rank = 0;
            for (int t = 0; t < GKS_THREADS; t++) rank += gks_before(mf[t], mr[t], my_f, my_r);
            if (rank == k - 1) cut_f = my_f, cut_r = my_r;
        }
        __syncthreads();
        const double bound_f = cut_f;
        const int32_t bound_r = cut_r;
        for (int j = tid; j < m; j += GKS_THREADS) {
            const uint32_t s = cnt[j];
            const int32_t r = g0 + j;
            if (s == 0 || !tsk_pair_admitted((tsk_pair_filter)L.filter, q, r)) continue;
            const double f = gks_pair_share(L, qi, k0, nk, r, s);
            if (bound_r != INT32_MAX && gks_before(bound_f, bound_r, f, r)) continue;
            if (have == k && !gks_before(f, r, lf[k - 1], lr[k - 1])) continue;
            int at = have < k ? have++ : k - 1;
            while (at > 0 && gks_before(f, r, lf[at - 1], lr[at - 1])) {
                lf[at] = lf[at - 1], lr[at] = lr[at - 1], lc[at] = lc[at - 1];
                at--;
            }
            lf[at] = f, lr[at] = r, lc[at] = s;
        }
        /* k rounds: the best head of all threads' lists is the next of the block */
        __shared__ double wf[GKS_THREADS / 32];
        __shared__ int32_t wr[GKS_THREADS / 32];
        __shared__ double best_f;
        __shared__ int32_t best_r;
        gks_hit *out = L.hits + (qi * L.n_chunks + c) * (int64_t)k;
        int head = 0;
        for (int round = 0; round < k; round++) {
            double f = head < have ? lf[head] : -1.0;
            int32_t r = head < have ? lr[head] : INT32_MAX;
            for (int o = 16; o > 0; o >>= 1) {
                const double of = __shfl_down_sync(0xffffffffu, f, o);
                const int32_t orr = __shfl_down_sync(0xffffffffu, r, o);
                if (gks_before(of, orr, f, r)) f = of, r = orr;
            }
            if ((tid & 31) == 0) wf[tid >> 5] = f, wr[tid >> 5] = r;
            __syncthreads();
            if (tid == 0) {
                for (int w = 1; w < GKS_THREADS / 32; w++)
                    if (gks_before(wf[w], wr[w], f, r)) f = wf[w], r = wr[w];
                best_f = f, best_r = r;
            }
            __syncthreads();
            if (best_r == INT32_MAX) {  /* every list is spent: pad */
                for (int j = round + tid; j < k; j += GKS_THREADS) out[j] = gks_hit{-1, 0};
                break;
            }
            if (head < have && lr[head] == best_r) out[round] = gks_hit{best_r, lc[head]}, head++;
        }
        return;
    }

    /* GKS_WITHIN: count the survivors, reserve their room, write them in reference order */
    typedef cub::BlockScan<int, GKS_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage scan_tmp;
    __shared__ int total;
    __shared__ unsigned long long at;
    if (tid == 0) total = 0;
    __syncthreads();
    int mine = 0;
    for (int j = tid; j < m; j += GKS_THREADS) {
        const uint32_t s = cnt[j];
        const int32_t r = g0 + j;
        mine += tsk_pair_admitted((tsk_pair_filter)L.filter, q, r) && (s ? gks_pair_share(L, qi, k0, nk, r, s) : 0.0) >= L.min_share;
    }
    if (mine) atomicAdd(&total, mine);
    __syncthreads();
    if (tid == 0) {
        at = total ? atomicAdd(L.n_hits, (unsigned long long)total) : 0;
        L.recs[blockIdx.x] = gks_rec{at, (uint32_t)total};
    }
    __syncthreads();
    if (total == 0 || at + (unsigned long long)total > L.hit_cap) return;  /* no room: the host reruns */
    int64_t run = 0;
    for (int base = 0; base < m; base += GKS_THREADS) {
        const int j = base + tid;
        int keep = 0;
        uint32_t s = 0;
        if (j < m) {
            s = cnt[j];
            const int32_t r = g0 + j;
            keep = tsk_pair_admitted((tsk_pair_filter)L.filter, q, r) && (s ? gks_pair_share(L, qi, k0, nk, r, s) : 0.0) >= L.min_share;
        }
        int pos, sum;
        scan_t(scan_tmp).ExclusiveSum(keep, pos, sum);
        if (keep) L.hits[at + run + pos] = gks_hit{g0 + j, s};
        run += sum;
        __syncthreads();
    }
}

#endif
