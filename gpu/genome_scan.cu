/* genome_scan.cu: the GPU genome scanner (genome_scan.h): kernels and host side.
 *
 * A call runs on one stream:
 *   1. the batch's codes are copied into pinned staging (tsk_pinned_copy, several threads) a chunk
 *      at a time and sent to the device, the copy of one chunk overlapping the transfer of the last;
 *   2. gsc_anchor_kernel: a thread takes 32 consecutive k-mer starts of the batch (64 codes read
 *      as four 16-byte loads, packed to 2 bits), hashes each canonical k-mer and notes in a bit mask
 *      those whose window fits in their contig and whose hash is at most the contig's bound; a
 *      warp adds its candidates to the list with one atomic and writes (anchor hash, window start,
 *      contig). The list is sized from the bounds (the expected count plus a margin); a batch that
 *      finds more runs this step again with the exact count;
 *   3. gsc_window_kernel: a group of P lanes per candidate (P the power of two >= D, at most 32;
 *      lane l holds bin l, and bin l + 32 too when D > 32) runs the counting DP of the window and of
 *      its reverse complement with the levels in registers (a level's shift by hash[q][c] is one
 *      shuffle), sums both strands, and chains the fingerprint over the D bins; the key replaces
 *      the anchor hash in the list;
 *   4. with several contigs, a radix sort of (contig, key) on the contig's bits and a binary search
 *      per contig give the keys grouped by contig and their offsets; both come back.
 * The counts wrap modulo 2^32 as cpu/genome_scan.c's do (the last level is exact, see there). */
#include "genome_scan.h"

#include <cub/device/device_radix_sort.cuh>
#include "cuda_util.cuh"
#include "host_pinned.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#define GSC_SEG 32                         /* k-mer starts a thread of gsc_anchor_kernel takes */
#define GSC_PAD 128                        /* zero bytes after the codes (its loads run 63 past) */
#define GSC_STAGE_MAX ((size_t)64 << 20)   /* bytes of one pinned staging buffer (two of them) */
#define GSC_STAGE_MIN ((size_t)1 << 20)
#define GSC_FULL 0xFFFFFFFFu

/* Level q's table for the four letters: byte c = hash[q][c] (bits 0-6) | 0x80 when sign[q][c] < 0. */
struct gsc_tables {
    uint32_t tab[TSK_GPU_GENOME_SCAN_MAX_T];
};

__device__ __forceinline__ uint64_t gsc_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The anchor hash of the k-mer at j (0..31) of the 64 codes packed in w0:w1 (2 bits each, the first
 * code most significant): splitmix64 of the canonical k-mer (min of the forward code and its
 * reverse complement's, first letter most significant) xor seed, as cpu/genome_scan.c. */
__device__ __forceinline__ uint64_t gsc_anchor_hash(uint64_t w0, uint64_t w1, int j, int k, uint64_t seed)
{
    const uint64_t hi = j == 0 ? w0 : (w0 << (2 * j)) | (w1 >> (64 - 2 * j));
    const uint64_t fw = hi >> (64 - 2 * k);
    /* the complement of a code is its bits inverted; reversing the 2-bit groups of ~hi puts the
     * complement of the k-mer's last letter at 2(k - 1), its first at 0 */
    uint64_t r = __brevll(~hi);
    r = ((r >> 1) & 0x5555555555555555ull) | ((r & 0x5555555555555555ull) << 1);
    const uint64_t rc = k == 32 ? r : r & ((1ull << (2 * k)) - 1);
    const uint64_t canon = fw < rc ? fw : rc;
    return gsc_mix64((canon ^ seed) + 0x9E3779B97F4A7C15ull);
}

/* The last contig c with off[c] <= g (g < off[n]): the contig of position g, empty ones skipped. */
__device__ __forceinline__ int64_t gsc_contig_of(const int64_t *__restrict__ off, int64_t n, int64_t g)
{
    int64_t lo = 0, hi = n; /* off[lo] <= g < off[hi] */
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= g) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* A contig's anchors with a window inside it: relative starts [from, to). */
__device__ __forceinline__ int64_t gsc_anchor_end(int64_t len, int64_t w, int64_t lead, int k)
{
    const int64_t a = len - w + lead + 1, b = len - k + 1;
    return a < b ? a : b;
}

/* Step 2 (see the top): candidates of positions [0, total) of the batch (codes relative to the
 * batch, off[0..n] its contigs, off[n] = total). Writes the first cap candidates; *count ends as
 * the number found. */
__global__ void __launch_bounds__(256) gsc_anchor_kernel(const uint8_t *__restrict__ codes, int64_t total,
                                                         const int64_t *__restrict__ off, int64_t n,
                                                         const uint64_t *__restrict__ max_hash, int k, int64_t w,
                                                         int64_t lead, uint64_t seed,
                                                         unsigned long long *__restrict__ count, int64_t cap,
                                                         uint64_t *__restrict__ c_hash, int64_t *__restrict__ c_start,
                                                         uint32_t *__restrict__ c_contig)
{
    const int lane = threadIdx.x & 31;
    const int64_t nseg = (total + GSC_SEG - 1) / GSC_SEG;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t from = lead > 0 ? lead : 0;
    /* the loop's bound is the warp's first segment: every lane runs the shuffles below */
    for (int64_t wbase = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); wbase < nseg; wbase += stride) {
        const int64_t seg = wbase + lane;
        const int64_t s0 = seg * GSC_SEG;
        uint32_t mask = 0;
        uint64_t w0 = 0, w1 = 0;
        int64_t c0 = 0;
        if (seg < nseg) {
            const uint4 *src = reinterpret_cast<const uint4 *>(codes + s0);
            uint32_t word[16];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const uint4 v = __ldg(src + i);
                word[4 * i] = v.x, word[4 * i + 1] = v.y, word[4 * i + 2] = v.z, word[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int b = 0; b < 32; b++) {
                w0 |= (uint64_t)((word[b >> 2] >> (8 * (b & 3))) & 3) << (62 - 2 * b);
                w1 |= (uint64_t)((word[8 + (b >> 2)] >> (8 * (b & 3))) & 3) << (62 - 2 * b);
            }
            c0 = gsc_contig_of(off, n, s0);
            int64_t c = c0, cstart = off[c], cend = off[c + 1];
            int64_t to = gsc_anchor_end(cend - cstart, w, lead, k);
            uint64_t bound = max_hash[c];
#pragma unroll
            for (int j = 0; j < GSC_SEG; j++) {
                const int64_t g = s0 + j;
                if (g >= total) break;
                while (g >= cend) {
                    c++;
                    cstart = cend;
                    cend = off[c + 1];
                    to = gsc_anchor_end(cend - cstart, w, lead, k);
                    bound = max_hash[c];
                }
                const int64_t a = g - cstart;
                if (a >= from && a < to && gsc_anchor_hash(w0, w1, j, k, seed) <= bound) mask |= 1u << j;
            }
        }
        /* the warp's candidates: an inclusive scan of the lanes' counts, one atomic */
        const int mine = __popc(mask);
        int incl = mine;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int y = __shfl_up_sync(GSC_FULL, incl, d);
            if (lane >= d) incl += y;
        }
        unsigned long long at = 0;
        if (lane == 31 && incl > 0) at = atomicAdd(count, (unsigned long long)incl);
        at = __shfl_sync(GSC_FULL, at, 31);
        int64_t idx = (int64_t)at + incl - mine;
        if (mask) {
            int64_t c = c0, cend = off[c + 1];
            while (mask) {
                const int j = __ffs(mask) - 1;
                mask &= mask - 1;
                const int64_t g = s0 + j;
                while (g >= cend) cend = off[++c + 1];
                if (idx < cap) {
                    c_hash[idx] = gsc_anchor_hash(w0, w1, j, k, seed);
                    c_start[idx] = g - lead;
                    c_contig[idx] = (uint32_t)c;
                }
                idx++;
            }
        }
    }
}

/* Step 3 (see the top) for t = T, NR registers of bins a lane (1: D <= 32, P the power of two >= D;
 * 2: 32 < D <= 64, P = 32). c_hash[i]: the anchor hash of candidate i in, its key out. */
template <int T, int NR>
__global__ void __launch_bounds__(256) gsc_window_kernel(const uint8_t *__restrict__ codes, int64_t n_cand,
                                                         const int64_t *__restrict__ c_start,
                                                         uint64_t *__restrict__ c_hash, gsc_tables tb, int D, int P,
                                                         int w, int canonical, uint64_t seed)
{
    const int lane = threadIdx.x & 31;
    const int sub = lane & (P - 1); /* the group's lane: bin sub (and sub + 32) */
    const int per_warp = 32 / P;
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t n_warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t first = warp * per_warp; first < n_cand; first += n_warps * per_warp) {
        const int64_t i = first + lane / P;
        const bool valid = i < n_cand;
        const uint8_t *x = codes + c_start[valid ? i : n_cand - 1];
        uint32_t acc[NR];
#pragma unroll
        for (int r = 0; r < NR; r++) acc[r] = 0;
        for (int strand = 0; strand <= canonical; strand++) {
            uint32_t lv[T + 1][NR]; /* lv[q]: level q (level 0 = e_0 is implicit) */
#pragma unroll
            for (int q = 0; q <= T; q++)
#pragma unroll
                for (int r = 0; r < NR; r++) lv[q][r] = 0;
            for (int at = 0; at < w; at++) {
                const int c = strand ? 3 - (__ldg(x + w - 1 - at) & 3) : (__ldg(x + at) & 3);
                /* level q gains sign x level q-1 shifted by hash, from the top down (the DP of
                 * cpu/genome_scan.c; levels above at + 1 read zeros, so they need no limit) */
#pragma unroll
                for (int q = T; q >= 2; q--) {
                    const uint32_t e = (tb.tab[q - 1] >> (8 * c)) & 0xFF;
                    const int h = (int)(e & 0x7F);
                    const bool neg = (e & 0x80) != 0;
                    if (NR == 1) {
                        int s = sub - h;
                        if (s < 0) s += D;
                        const uint32_t v = __shfl_sync(GSC_FULL, lv[q - 1][0], s, P);
                        lv[q][0] += neg ? 0u - v : v;
                    } else {
                        int s0 = sub - h, s1 = sub + 32 - h; /* source bins of bins sub, sub + 32 */
                        if (s0 < 0) s0 += D;
                        if (s1 < 0) s1 += D;
                        const uint32_t a0 = __shfl_sync(GSC_FULL, lv[q - 1][0], s0 & 31);
                        const uint32_t a1 = __shfl_sync(GSC_FULL, lv[q - 1][NR - 1], s0 & 31);
                        const uint32_t b0 = __shfl_sync(GSC_FULL, lv[q - 1][0], s1 & 31);
                        const uint32_t b1 = __shfl_sync(GSC_FULL, lv[q - 1][NR - 1], s1 & 31);
                        const uint32_t v0 = s0 >= 32 ? a1 : a0, v1 = s1 >= 32 ? b1 : b0;
                        lv[q][0] += neg ? 0u - v0 : v0;
                        lv[q][NR - 1] += neg ? 0u - v1 : v1;
                    }
                }
                const uint32_t e = (tb.tab[0] >> (8 * c)) & 0xFF;
                const int h = (int)(e & 0x7F);
                const uint32_t unit = (e & 0x80) ? 0xFFFFFFFFu : 1u;
                if (sub == h) lv[1][0] += unit;
                if (NR == 2 && sub + 32 == h) lv[1][NR - 1] += unit;
            }
#pragma unroll
            for (int r = 0; r < NR; r++) acc[r] += lv[T][r];
        }
        /* the fingerprint chain over the bins, every lane of the group alike */
        uint64_t fp = seed;
        for (int r = 0; r < D; r++) {
            uint32_t s;
            if (NR == 1) {
                s = __shfl_sync(GSC_FULL, acc[0], r, P);
            } else {
                const uint32_t a = __shfl_sync(GSC_FULL, acc[0], r & 31), b = __shfl_sync(GSC_FULL, acc[NR - 1], r & 31);
                s = r >= 32 ? b : a;
            }
            fp = gsc_mix64(fp ^ ((uint64_t)(uint32_t)r << 32 | (uint64_t)s));
        }
        if (valid && sub == 0) {
            const uint64_t fp_mask = (1ull << 24) - 1; /* TSK_GENOME_FP_BITS (core/genome_keys.h) */
            c_hash[i] = (c_hash[i] & ~fp_mask) | (fp & fp_mask);
        }
    }
}

/* Step 4: koff[c] = the first of the sorted candidates of contig c or later, c = 0..n. */
__global__ void gsc_offsets_kernel(const uint32_t *__restrict__ contig, int64_t n_cand, int64_t n,
                                   int64_t *__restrict__ koff)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c <= n; c += stride) {
        int64_t lo = 0, hi = n_cand;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if ((int64_t)contig[mid] < c) lo = mid + 1;
            else hi = mid;
        }
        koff[c] = lo;
    }
}

struct tsk_gpu_genome_scanner {
    tsk_params p;
    int dev = 0, sms = 1;
    cudaStream_t st = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr};
    gsc_tables tb;
    /* pinned staging of the codes */
    void *stage[2] = {nullptr, nullptr};
    size_t stage_mapped[2] = {0, 0};
    size_t stage_cap = 0;
    /* device buffers (capacities in bytes) */
    uint8_t *codes_d = nullptr;
    int64_t *off_d = nullptr, *koff_d = nullptr;
    uint64_t *maxh_d = nullptr;
    unsigned long long *count_d = nullptr;
    uint64_t *hash_d = nullptr;   /* candidates: anchor hash, then key; sorted keys (one of two) */
    int64_t *start_d = nullptr;   /* window start; the sort's other key buffer */
    uint32_t *contig_d[2] = {nullptr, nullptr};
    void *sort_tmp = nullptr;
    size_t codes_cap = 0, off_cap = 0, koff_cap = 0, maxh_cap = 0, hash_cap = 0, start_cap = 0, contig_cap[2] = {0, 0},
           sort_tmp_cap = 0;
    std::vector<int64_t> off;     /* the batch's offsets, relative to its first code */
};

extern "C" int tsk_gpu_genome_scan_available(char *why, size_t whylen)
{
    return tsk_cuda_device_count(why, whylen) > 0;
}

extern "C" void tsk_gpu_genome_scanner_close(tsk_gpu_genome_scanner *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    if (g->st) cudaStreamSynchronize(g->st);
    cudaFree(g->codes_d);
    cudaFree(g->off_d);
    cudaFree(g->koff_d);
    cudaFree(g->maxh_d);
    cudaFree(g->count_d);
    cudaFree(g->hash_d);
    cudaFree(g->start_d);
    cudaFree(g->contig_d[0]);
    cudaFree(g->contig_d[1]);
    cudaFree(g->sort_tmp);
    for (int b = 0; b < 2; b++) {
        tsk_pinned_free(g->stage[b], g->stage_mapped[b]);
        if (g->ev[b]) cudaEventDestroy(g->ev[b]);
    }
    if (g->st) cudaStreamDestroy(g->st);
    cudaGetLastError();
    delete g;
}

/* Why p is outside this engine, or NULL. */
static const char *params_refused(const tsk_params *p)
{
    if (p->alphabet != TSK_DNA) return "the GPU genome scanner needs the DNA alphabet";
    if (p->t < 1 || p->t > TSK_GPU_GENOME_SCAN_MAX_T) return "the GPU genome scanner takes t <= 8";
    if (p->dim < 1 || p->dim > TSK_GPU_GENOME_SCAN_MAX_DIM) return "the GPU genome scanner takes dim <= 64";
    if (p->window < 1 || p->window > TSK_GPU_GENOME_SCAN_MAX_WINDOW || p->t > p->window)
        return "the GPU genome scanner takes windows of t..64 bases";
    if (p->anchor_k < 1 || p->anchor_k > 32) return "the GPU genome scanner needs an anchor k of 1..32";
    for (int q = 0; q < p->t; q++)
        for (int c = 0; c < 4; c++)
            if (p->hash[q][c] < 0 || p->hash[q][c] >= p->dim || (p->sign[q][c] != 1 && p->sign[q][c] != -1))
                return "the GPU genome scanner got tables out of range";
    return NULL;
}

static tsk_gpu_genome_scanner *scanner_open(const tsk_params *p, int device, char *err, size_t errlen)
{
    const char *why = params_refused(p);
    if (why) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    if (tsk_cuda_device_usable(device, err, errlen)) return NULL;
    tsk_gpu_genome_scanner *g = new (std::nothrow) tsk_gpu_genome_scanner;
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->p = *p;
    g->dev = device;
    memset(&g->tb, 0, sizeof g->tb);
    for (int q = 0; q < p->t; q++)
        for (int c = 0; c < 4; c++)
            g->tb.tab[q] |= ((uint32_t)p->hash[q][c] | (p->sign[q][c] < 0 ? 0x80u : 0u)) << (8 * c);
    const tsk_cuda_site site = {device, err, errlen};
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking);
    for (int b = 0; b < 2 && e == cudaSuccess; b++) e = cudaEventCreateWithFlags(&g->ev[b], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaMalloc((void **)&g->count_d, sizeof(unsigned long long));
    if (e != cudaSuccess) {
        tsk_cuda_fail(site, e, "opening the GPU genome scanner", __FILE__, __LINE__);
        tsk_gpu_genome_scanner_close(g);
        return NULL;
    }
    if (g->sms < 1) g->sms = 1;
    return g;
}

/* Pinned staging of at least min(need, GSC_STAGE_MAX) bytes each. */
static int grow_stage(tsk_gpu_genome_scanner *g, size_t need, const tsk_cuda_site &site)
{
    need = std::min(std::max(need, GSC_STAGE_MIN), GSC_STAGE_MAX);
    if (g->stage_cap >= need) return 0;
    for (int b = 0; b < 2; b++) {
        tsk_pinned_free(g->stage[b], g->stage_mapped[b]);
        g->stage[b] = nullptr, g->stage_mapped[b] = 0;
    }
    g->stage_cap = 0;
    for (int b = 0; b < 2; b++) TSK_CUDA_CHECK(site, tsk_pinned_alloc(need, &g->stage[b], &g->stage_mapped[b]));
    g->stage_cap = need;
    return 0;
}

/* Candidate buffers for cap candidates. */
static int grow_candidates(tsk_gpu_genome_scanner *g, int64_t cap, const tsk_cuda_site &site)
{
    const size_t n = (size_t)std::max<int64_t>(cap, 1);
    TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->hash_d, &g->hash_cap, n * sizeof(uint64_t)));
    TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->start_d, &g->start_cap, n * sizeof(int64_t)));
    TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->contig_d[0], &g->contig_cap[0], n * sizeof(uint32_t)));
    TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->contig_d[1], &g->contig_cap[1], n * sizeof(uint32_t)));
    return 0;
}

template <int T>
static void launch_windows(tsk_gpu_genome_scanner *g, int64_t n_cand)
{
    const int D = g->p.dim;
    int P = 1;
    while (P < D && P < 32) P *= 2;
    const int64_t per_warp = 32 / P;
    const int64_t warps = (n_cand + per_warp - 1) / per_warp;
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((warps + 7) / 8, (int64_t)g->sms * 32));
    const int w = (int)g->p.window, canonical = g->p.canonical ? 1 : 0;
    if (D > 32)
        gsc_window_kernel<T, 2><<<(unsigned)blocks, 256, 0, g->st>>>(g->codes_d, n_cand, g->start_d, g->hash_d, g->tb,
                                                                      D, P, w, canonical, g->p.seed);
    else
        gsc_window_kernel<T, 1><<<(unsigned)blocks, 256, 0, g->st>>>(g->codes_d, n_cand, g->start_d, g->hash_d, g->tb,
                                                                      D, P, w, canonical, g->p.seed);
}

static void launch_windows_t(tsk_gpu_genome_scanner *g, int64_t n_cand)
{
    switch (g->p.t) {
    case 1: launch_windows<1>(g, n_cand); break;
    case 2: launch_windows<2>(g, n_cand); break;
    case 3: launch_windows<3>(g, n_cand); break;
    case 4: launch_windows<4>(g, n_cand); break;
    case 5: launch_windows<5>(g, n_cand); break;
    case 6: launch_windows<6>(g, n_cand); break;
    case 7: launch_windows<7>(g, n_cand); break;
    default: launch_windows<8>(g, n_cand); break;
    }
}

static int scan_batch(tsk_gpu_genome_scanner *g, const uint8_t *codes, const int64_t *offset, const uint64_t *max_hash,
                      int64_t n, uint64_t **keys, int64_t *keys_cap, int64_t *key_offset, const tsk_cuda_site &site)
{
    char *err = site.err;
    const size_t errlen = site.errlen;
    key_offset[0] = 0;
    if (n == 0) return 0;
    if (n >= INT32_MAX) {
        snprintf(err, errlen, "a GPU genome scan batch takes fewer than 2^31 contigs");
        return -1;
    }
    const int64_t base = offset[0], total = offset[n] - base;
    const int k = g->p.anchor_k;
    const int64_t w = g->p.window, lead = w / 2 - k / 2, from = std::max<int64_t>(lead, 0);
    /* the offsets, relative; the candidates to expect and the most there can be */
    try {
        g->off.resize((size_t)n + 1);
    } catch (...) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    double expect = 0;
    int64_t most = 0;
    for (int64_t c = 0; c <= n; c++) {
        g->off[(size_t)c] = offset[c] - base;
        if (c == 0) continue;
        const int64_t len = offset[c] - offset[c - 1];
        if (len < 0 || base < 0) {
            snprintf(err, errlen, "contig %lld has a negative length", (long long)(c - 1));
            return -1;
        }
        const int64_t anchors = std::min(len - w + lead + 1, len - k + 1) - from;
        if (anchors <= 0) continue;
        most += anchors;
        expect += (double)anchors * ((double)max_hash[c - 1] * 0x1p-64);
    }
    if (most == 0) {
        for (int64_t c = 1; c <= n; c++) key_offset[c] = 0;
        return 0;
    }
    int64_t cap = std::min<int64_t>(most, (int64_t)(expect * 1.05 + 8.0 * std::sqrt(expect)) + 4096);

    TSK_CUDA_CHECK(site, cudaSetDevice(g->dev));
    /* 1: codes, through pinned staging, a chunk's copy overlapping the last one's transfer */
    TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->codes_d, &g->codes_cap, (size_t)total + GSC_PAD));
    TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->off_d, &g->off_cap, ((size_t)n + 1) * sizeof(int64_t)));
    TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->maxh_d, &g->maxh_cap, (size_t)n * sizeof(uint64_t)));
    if (grow_stage(g, (size_t)total, site)) return -1;
    int64_t chunk_i = 0;
    for (int64_t pos = 0; pos < total; pos += (int64_t)g->stage_cap, chunk_i++) {
        const size_t len = (size_t)std::min<int64_t>((int64_t)g->stage_cap, total - pos);
        const int b = (int)(chunk_i & 1);
        if (chunk_i >= 2) TSK_CUDA_CHECK(site, cudaEventSynchronize(g->ev[b]));
        tsk_pinned_copy(g->stage[b], codes + base + pos, len);
        TSK_CUDA_CHECK(site, cudaMemcpyAsync(g->codes_d + pos, g->stage[b], len, cudaMemcpyHostToDevice, g->st));
        TSK_CUDA_CHECK(site, cudaEventRecord(g->ev[b], g->st));
    }
    TSK_CUDA_CHECK(site, cudaMemsetAsync(g->codes_d + total, 0, GSC_PAD, g->st));
    TSK_CUDA_CHECK(site, cudaMemcpyAsync(g->off_d, g->off.data(), ((size_t)n + 1) * sizeof(int64_t),
                                         cudaMemcpyHostToDevice, g->st));
    TSK_CUDA_CHECK(site, cudaMemcpyAsync(g->maxh_d, max_hash, (size_t)n * sizeof(uint64_t), cudaMemcpyHostToDevice,
                                         g->st));

    /* 2: the candidates; again with the exact count when the estimate was short */
    unsigned long long found = 0;
    const int64_t nseg = (total + GSC_SEG - 1) / GSC_SEG;
    const int64_t blocks1 = std::max<int64_t>(1, std::min<int64_t>((nseg + 255) / 256, (int64_t)g->sms * 64));
    for (int pass = 0; pass < 2; pass++) {
        if (grow_candidates(g, cap, site)) return -1;
        TSK_CUDA_CHECK(site, cudaMemsetAsync(g->count_d, 0, sizeof(unsigned long long), g->st));
        gsc_anchor_kernel<<<(unsigned)blocks1, 256, 0, g->st>>>(g->codes_d, total, g->off_d, n, g->maxh_d, k, w, lead,
                                                                 g->p.seed, g->count_d, cap, g->hash_d, g->start_d,
                                                                 g->contig_d[0]);
        TSK_CUDA_CHECK(site, cudaGetLastError());
        TSK_CUDA_CHECK(site, cudaMemcpyAsync(&found, g->count_d, sizeof found, cudaMemcpyDeviceToHost, g->st));
        TSK_CUDA_CHECK(site, cudaStreamSynchronize(g->st));
        if ((int64_t)found <= cap) break;
        cap = (int64_t)found;
    }
    const int64_t n_cand = (int64_t)found;
    if (n_cand > cap) { /* cannot be: a second pass finds what the first found */
        snprintf(err, errlen, "the GPU genome scanner found %lld candidates, then more", (long long)cap);
        return -1;
    }
    if (n_cand > INT32_MAX) {
        snprintf(err, errlen, "a GPU genome scan batch found %lld candidate windows, more than 2^31: smaller batches",
                 (long long)n_cand);
        return -1;
    }
    if (n_cand == 0) {
        for (int64_t c = 1; c <= n; c++) key_offset[c] = 0;
        return 0;
    }

    /* 3: the keys */
    launch_windows_t(g, n_cand);
    TSK_CUDA_CHECK(site, cudaGetLastError());

    /* 4: grouped by contig */
    const uint64_t *sorted = g->hash_d;
    if (n > 1) {
        int end_bit = 1;
        while (end_bit < 32 && ((uint64_t)(n - 1) >> end_bit)) end_bit++;
        cub::DoubleBuffer<uint32_t> kb(g->contig_d[0], g->contig_d[1]);
        cub::DoubleBuffer<uint64_t> vb(g->hash_d, reinterpret_cast<uint64_t *>(g->start_d));
        size_t tmp = 0;
        TSK_CUDA_CHECK(site, cub::DeviceRadixSort::SortPairs(nullptr, tmp, kb, vb, (int)n_cand, 0, end_bit, g->st));
        TSK_CUDA_CHECK(site, tsk_cuda_grow(&g->sort_tmp, &g->sort_tmp_cap, tmp));
        TSK_CUDA_CHECK(site, cub::DeviceRadixSort::SortPairs(g->sort_tmp, tmp, kb, vb, (int)n_cand, 0, end_bit, g->st));
        sorted = vb.Current();
        TSK_CUDA_CHECK(site, tsk_cuda_grow((void **)&g->koff_d, &g->koff_cap, ((size_t)n + 1) * sizeof(int64_t)));
        const int64_t blocks4 = std::max<int64_t>(1, std::min<int64_t>((n + 1 + 255) / 256, (int64_t)g->sms * 16));
        gsc_offsets_kernel<<<(unsigned)blocks4, 256, 0, g->st>>>(kb.Current(), n_cand, n, g->koff_d);
        TSK_CUDA_CHECK(site, cudaGetLastError());
        TSK_CUDA_CHECK(site, cudaMemcpyAsync(key_offset, g->koff_d, ((size_t)n + 1) * sizeof(int64_t),
                                             cudaMemcpyDeviceToHost, g->st));
    } else {
        key_offset[1] = n_cand;
    }
    if (*keys_cap < n_cand) {
        uint64_t *grown = (uint64_t *)realloc(*keys, (size_t)n_cand * sizeof(uint64_t));
        if (!grown) {
            TSK_CUDA_CHECK(site, cudaStreamSynchronize(g->st));
            snprintf(err, errlen, "out of memory for %lld keys", (long long)n_cand);
            return -1;
        }
        *keys = grown;
        *keys_cap = n_cand;
    }
    TSK_CUDA_CHECK(site, cudaMemcpyAsync(*keys, sorted, (size_t)n_cand * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                                         g->st));
    TSK_CUDA_CHECK(site, cudaStreamSynchronize(g->st));
    return 0;
}

extern "C" tsk_gpu_genome_scanner *tsk_gpu_genome_scanner_open(const tsk_params *p, int device, char *err,
                                                               size_t errlen)
{
    return tsk_cuda_entry("opening the GPU genome scanner", err, errlen, (tsk_gpu_genome_scanner *)nullptr,
                          [&] { return scanner_open(p, device, err, errlen); });
}

static int scan_batch_checked(tsk_gpu_genome_scanner *g, const uint8_t *codes, const int64_t *offset,
                              const uint64_t *max_hash, int64_t n_contigs, uint64_t **keys, int64_t *keys_cap,
                              int64_t *key_offset, char *err, size_t errlen)
{
    if (!g || n_contigs < 0 || !offset || !keys || !keys_cap || !key_offset || (n_contigs > 0 && (!max_hash || (!codes && offset[n_contigs] > offset[0])))) {
        snprintf(err, errlen, "tsk_gpu_genome_scan_batch: bad arguments");
        return -1;
    }
    const tsk_cuda_site site = {g->dev, err, errlen};
    if (scan_batch(g, codes, offset, max_hash, n_contigs, keys, keys_cap, key_offset, site) == 0) return 0;
    /* leave the stream idle for the next call (what failed may have left work queued) */
    cudaStreamSynchronize(g->st);
    cudaGetLastError();
    return -1;
}

extern "C" int tsk_gpu_genome_scan_batch(tsk_gpu_genome_scanner *g, const uint8_t *codes, const int64_t *offset,
                                         const uint64_t *max_hash, int64_t n_contigs, uint64_t **keys,
                                         int64_t *keys_cap, int64_t *key_offset, char *err, size_t errlen)
{
    return tsk_cuda_entry("GPU genome scan", err, errlen, -1, [&] {
        return scan_batch_checked(g, codes, offset, max_hash, n_contigs, keys, keys_cap, key_offset, err, errlen);
    });
}
