/* gpu_sketch.cu: the CUDA sketch engine's host side (design in docs/gpu.md). Kernels: the
 * tuple-count kernels for DNA at t <= 4 (count_kernels.cuh), the sketch-DP kernels for the rest
 * (sketch_kernels.cuh).
 *
 * A batch is cut into parts (whole records, bounded bases and output bytes). Each part goes to a
 * slot (a device, a stream, pinned and device buffers; two slots per device), so one part's
 * copies and host packing overlap another's kernels. Inside a part every output row (a record,
 * or a slide window) becomes one work item, or, when long, pieces whose states are merged in a
 * tree on the GPU (count states; or, for the sketch DP, split-formula vectors per strand). */
#include "gpu_sketch.h"
#include "count_kernels.cuh"
#include "cuda_util.cuh"
#include "host_pinned.h"
#include "sketch_kernels.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define SK_MAX_DIM 1024                 /* tsk_gpu_max_dim: the generic kernel's shared memory */
#define SK_SLOTS_PER_DEVICE 2
#define SK_PART_BASES (128LL << 20)     /* most bases per part; a batch is cut into equal parts */
#define SK_PART_OUT (512LL << 20)       /* output bytes per part */
#define SK_MIN_SPLIT 16384              /* rows shorter than this are never split */
#define SK_MAX_SPLIT (1LL << 20)        /* ... and longer ones always (float accuracy, balance) */
/* sketch-DP kernels (protein, t > 4): warps per SM the work is cut for, rows longer than
 * total / (SMs x this) are split. 16 measured best on the H100 when DNA at t = 4 still ran here
 * (NEWS.md, 2026-11-21: seed-heterogeneous 3.8 -> 5.2 Gbp/s against 8) */
#define SK_WARPS_PER_SM_TARGET 16
/* Smallest capacities of a slot's plan, row and node buffers: enough for most parts, so they do
 * not grow (and stall the device in cudaFree) when a batch with split rows follows one without */
#define SK_MIN_PLAN_BYTES ((size_t)4 << 20)
#define SK_MIN_OUT_BYTES ((size_t)4 << 20)
#define SK_MIN_NODE_BYTES ((size_t)64 << 20)
/* The count kernels (DNA, t <= 4): every base of a piece costs what a base of a whole row does and
 * a merge is a few hundred double operations, so rows are cut finely: into pieces of about
 * total / (SMs x this) bases, no shorter than SKC_MIN_SPLIT */
#define SKC_WARPS_PER_SM_TARGET 32
#define SKC_MIN_SPLIT 4096

typedef void (*sk_fast_fn)(sk_tables, const uint8_t *, const sk_item *, int, int *, void *, int);
/* [dna][t - 1][D / 32 - 1]: the fast kernel's instances (whole rows). DNA at t <= 4 runs on the
 * count kernels, so it has none. */
#define SK_ROW(T, A) {sk_fast_kernel<T, 1, A>, sk_fast_kernel<T, 2, A>, sk_fast_kernel<T, 3, A>, sk_fast_kernel<T, 4, A>}
#define SK_NONE {nullptr, nullptr, nullptr, nullptr}
static const sk_fast_fn SK_FAST[2][8][4] = {
    {SK_ROW(1, false), SK_ROW(2, false), SK_ROW(3, false), SK_ROW(4, false), SK_ROW(5, false), SK_ROW(6, false),
     SK_ROW(7, false), SK_ROW(8, false)},
    {SK_NONE, SK_NONE, SK_NONE, SK_NONE, SK_ROW(5, true), SK_ROW(6, true), SK_ROW(7, true), SK_ROW(8, true)}};

/* A device buffer and its pinned host twin of the same capacity. */
struct sk_buf {
    void *d = nullptr, *h = nullptr;
    size_t cap = 0;
    size_t h_mapped = 0;   /* tsk_pinned_free's size of h */
};

struct sk_slot {
    int dev = 0, sms = 0;
    size_t smem_optin = 0;
    cudaStream_t st = nullptr;
    cudaStream_t st_rows = nullptr;  /* whole rows, beside the pieces of split rows on st */
    cudaEvent_t ev0 = nullptr, ev1 = nullptr;
    cudaEvent_t rows_done = nullptr;
    sk_buf codes, plan, out;
    sk_buf nodes;          /* device only: the pieces' vectors and the merge tree (double) */
    void *count_map = nullptr;  /* device: the count kernels' tuple-to-bin map (skc_map) */
    int *counter = nullptr;
    bool busy = false;
    int64_t tag = 0;       /* the caller's batch the part belongs to (tsk_gpu_sketch_begin) */
    char *dst = nullptr;   /* where the part's rows go in the caller's buffer */
    size_t out_bytes = 0;
    int64_t bases = 0;
};

struct tsk_gpu_sketcher {
    tsk_params p;
    sk_tables tab;
    std::vector<sk_slot> slots;
    size_t elt;            /* bytes per output value */
    bool fast_whole, can_split;
    bool counts;           /* DNA at t <= 4: the tuple-count kernels (count_kernels.cuh) */
    bool exclusive;        /* a device in an exclusive compute mode: one context at a time */
    std::vector<char> count_map;  /* host image of the map: 2 (dim + 1) starts, then the terms */
    size_t count_map_terms;       /* byte offset of the terms in it */
    int64_t part_bases, part_out;
    size_t next_slot;      /* parts go round-robin over the slots, across calls */
    double kernel_ms;
    int64_t bases;
    tsk_gpu_host_times host;
    /* host planning scratch */
    std::vector<sk_item> items, tmp;
    std::vector<sk_pair> pairs;
    std::vector<sk_final> finals;
    std::vector<skc_final> count_finals;
    std::vector<int> level_start;
    size_t n_mid;          /* middle-chunk items of the last plan (they need all t(t+1)/2 vectors) */
};

#define SK_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

extern "C" int tsk_gpu_max_dim(void) { return SK_MAX_DIM; }

extern "C" void tsk_gpu_sketch_host_times(const tsk_gpu_sketcher *g, tsk_gpu_host_times *t)
{
    *t = g ? g->host : tsk_gpu_host_times{};
}

extern "C" void tsk_gpu_sketch_stats(const tsk_gpu_sketcher *g, double *kernel_ms, int64_t *bases)
{
    if (kernel_ms) *kernel_ms = g ? g->kernel_ms : 0.0;
    if (bases) *bases = g ? g->bases : 0;
}

static void buf_free(sk_buf &b)
{
    cudaFree(b.d);
    tsk_pinned_free(b.h, b.h_mapped);
    b.d = b.h = nullptr;
    b.cap = b.h_mapped = 0;
}

/* Frees a slot's part buffers (they grow again with the next part). */
static void slot_drop_buffers(sk_slot &s)
{
    for (sk_buf *b : {&s.codes, &s.plan, &s.out, &s.nodes}) buf_free(*b);
}

static void slot_free(sk_slot &s)
{
    cudaSetDevice(s.dev);
    slot_drop_buffers(s);
    cudaFree(s.counter);
    cudaFree(s.count_map);
    if (s.ev0) cudaEventDestroy(s.ev0);
    if (s.ev1) cudaEventDestroy(s.ev1);
    if (s.rows_done) cudaEventDestroy(s.rows_done);
    if (s.st) cudaStreamDestroy(s.st);
    if (s.st_rows) cudaStreamDestroy(s.st_rows);
    s = sk_slot();
}

extern "C" int tsk_gpu_sketcher_exclusive(const tsk_gpu_sketcher *g) { return g && g->exclusive; }

extern "C" void tsk_gpu_sketcher_close(tsk_gpu_sketcher *g)
{
    /* the prefaulted region's lock is the one thing here that may throw (std::system_error) */
    tsk_cuda_entry("closing the GPU sketch engine", nullptr, 0, 0, [] {
        tsk_pinned_prefault_release();
        return 0;
    });
    if (!g) return;
    for (sk_slot &s : g->slots)
        if (s.st) slot_free(s);
    delete g;
}

static size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }

/* Bytes of shared memory one warp of the generic kernel needs for nv vectors. */
static size_t generic_bytes(const tsk_gpu_sketcher *g, int nv)
{
    return g->p.precision == TSK_DOUBLE ? (size_t)nv * g->p.dim * 8 : (size_t)nv * g->p.dim * 4 * 2;
}

/* The count kernels' map from top-level tuple counts to bins (skc_map): for each bin, the tuples
 * that hash there with their signs; then the same for canonical rows, where each tuple also
 * counts, with its own sign, at the bin of its reverse complement's image (cpu/sketch_counts.c,
 * tsk_counts_row), all coefficients halved. */
static void build_count_map(tsk_gpu_sketcher *g)
{
    const tsk_params *p = &g->p;
    const int dim = p->dim, ntau = 1 << (2 * p->t);
    std::vector<std::vector<skc_term>> bins[2];
    for (int canon = 0; canon < 2; canon++) {
        bins[canon].resize(dim);
        for (int tau = 0; tau < ntau; tau++) {
            int bin, sign;
            tsk_tuple_hash(p, (uint32_t)tau, &bin, &sign);
            const float coef = canon ? 0.5f * sign : (float)sign;
            bins[canon][bin].push_back({tau, coef});
            if (canon) bins[canon][bin].push_back({(int32_t)tsk_tuple_revcomp(p->t, (uint32_t)tau), coef});
        }
    }
    std::vector<int32_t> start;
    std::vector<skc_term> terms;
    for (int canon = 0; canon < 2; canon++) {
        for (int b = 0; b < dim; b++) {  /* indices into the one terms array */
            start.push_back((int32_t)terms.size());
            terms.insert(terms.end(), bins[canon][b].begin(), bins[canon][b].end());
        }
        start.push_back((int32_t)terms.size());
    }
    g->count_map_terms = align16(start.size() * sizeof(int32_t));
    g->count_map.assign(g->count_map_terms + terms.size() * sizeof(skc_term), 0);
    memcpy(g->count_map.data(), start.data(), start.size() * sizeof(int32_t));
    memcpy(g->count_map.data() + g->count_map_terms, terms.data(), terms.size() * sizeof(skc_term));
}

static tsk_gpu_sketcher *sketcher_open(const tsk_params *p, const int *devices, int n_devices, char *err,
                                       size_t errlen)
{
    const char *bad = tsk_params_check(p);
    if (bad) {
        snprintf(err, errlen, "%s", bad);
        return NULL;
    }
    if (p->dim > SK_MAX_DIM) {
        snprintf(err, errlen, "D=%d exceeds the GPU engine's maximum %d", p->dim, SK_MAX_DIM);
        return NULL;
    }
    char why[160];
    int count = tsk_cuda_device_count(why, sizeof why);
    if (count == 0) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    int dflt = 0;
    if (!devices || n_devices <= 0) devices = &dflt, n_devices = 1;
    tsk_gpu_sketcher *g = new tsk_gpu_sketcher();
    g->p = *p;
    memset(&g->tab, 0, sizeof g->tab);
    g->tab.t = p->t;
    g->tab.dim = p->dim;
    for (int k = 0; k < p->t; k++)
        for (int c = 0; c < TSK_MAX_ALPHA; c++) {
            g->tab.hash[k][c] = p->hash[k][c];
            g->tab.sign[k][c] = p->sign[k][c] < 0 ? -1.f : 1.f;
        }
    g->elt = p->precision == TSK_DOUBLE ? 8 : 4;
    g->fast_whole = p->precision == TSK_SINGLE && p->dim % 32 == 0 && p->dim <= 128 && p->t <= 8;
    g->counts = p->alphabet == TSK_DNA && p->t <= SKC_MAX_T;
    if (g->counts) build_count_map(g);
    g->part_bases = SK_PART_BASES;
    g->part_out = SK_PART_OUT;
    size_t min_optin = SIZE_MAX;
    for (int i = 0; i < n_devices; i++) {
        if (devices[i] < 0 || devices[i] >= count) {
            snprintf(err, errlen, "CUDA device %d does not exist (%d found)", devices[i], count);
            tsk_gpu_sketcher_close(g);
            return NULL;
        }
        cudaDeviceProp prop;
        cudaError_t e = cudaGetDeviceProperties(&prop, devices[i]);
        if (e == cudaSuccess) e = cudaSetDevice(devices[i]);
        int mode = cudaComputeModeDefault;
        if (e == cudaSuccess) e = cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, devices[i]);
        if (e == cudaSuccess && mode != cudaComputeModeDefault) g->exclusive = true;
        for (int k = 0; k < SK_SLOTS_PER_DEVICE && e == cudaSuccess; k++) {
            g->slots.emplace_back();
            sk_slot &s = g->slots.back();
            s.dev = devices[i];
            s.sms = prop.multiProcessorCount;
            s.smem_optin = prop.sharedMemPerBlockOptin;
            e = cudaStreamCreateWithFlags(&s.st, cudaStreamNonBlocking);
            if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s.st_rows, cudaStreamNonBlocking);
            if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s.rows_done, cudaEventDisableTiming);
            if (e == cudaSuccess) e = cudaEventCreate(&s.ev0);
            if (e == cudaSuccess) e = cudaEventCreate(&s.ev1);
            if (e == cudaSuccess) e = cudaMalloc(&s.counter, 2 * sizeof(int));
            if (e == cudaSuccess && g->counts) e = cudaMalloc(&s.count_map, g->count_map.size());
            if (e == cudaSuccess && g->counts)
                e = cudaMemcpy(s.count_map, g->count_map.data(), g->count_map.size(), cudaMemcpyHostToDevice);
        }
        if (e == cudaSuccess) {
            int optin = (int)prop.sharedMemPerBlockOptin;
            min_optin = std::min(min_optin, (size_t)optin);
            e = cudaFuncSetAttribute(sk_generic_kernel<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
            if (e == cudaSuccess)
                e = cudaFuncSetAttribute(sk_generic_kernel<double>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
        }
        if (e != cudaSuccess) {
            snprintf(err, errlen, "CUDA device %d: %s", devices[i], cudaGetErrorString(e));
            cudaGetLastError();
            tsk_gpu_sketcher_close(g);
            return NULL;
        }
    }
    if (generic_bytes(g, p->t) > min_optin) {
        snprintf(err, errlen, "t=%d, D=%d needs more shared memory than the GPU has", p->t, p->dim);
        tsk_gpu_sketcher_close(g);
        return NULL;
    }
    g->can_split = g->counts || generic_bytes(g, sk_nvec(p->t)) <= min_optin;
    /* the fast kernel keeps the first level as float counts, exact below 2^24 characters a row:
     * rows that long are always split (SK_MAX_SPLIT), which needs can_split */
    if (!g->can_split) g->fast_whole = false;
    return g;
}

/* Grows a device buffer (tsk_cuda_grow: a quarter to spare, at least min_cap) and its pinned twin
 * of the same size when `pinned`. Returns the CUDA error; the old contents are dropped. Growing is
 * rare by design: cudaFree and unpinning wait for the whole device, so a buffer that grows in
 * mid-run stalls the other slot's kernels (small buffers start at min_cap for that reason). */
static cudaError_t grow(sk_buf &b, size_t need, bool pinned, size_t min_cap = 0)
{
    if (b.cap >= need) return cudaSuccess;
    buf_free(b);
    size_t cap = 0;
    cudaError_t e = tsk_cuda_grow(&b.d, &cap, need, min_cap);
    if (e == cudaSuccess && pinned) e = tsk_pinned_alloc(cap, &b.h, &b.h_mapped);
    if (e != cudaSuccess) {
        cudaFree(b.d);
        b.d = nullptr;
        return e;
    }
    b.cap = cap;
    return cudaSuccess;
}

/* What tsk_gpu_sketcher_reserve asks each slot for: a batch is cut into parts of at most
 * part_bases that go round the slots, so a small input fills one part, and only the first slot
 * gets codes and rows sized for it. */
struct sk_reserve {
    int64_t parts, part_bases;
    size_t codes, plan, out;  /* bytes asked of grow */
};

static sk_reserve reserve_sizes(const tsk_params *p, int64_t max_part_bases, int64_t max_part_out, int64_t bases,
                                int64_t rows)
{
    sk_reserve r;
    bases = std::max<int64_t>(bases, 0);  /* -1: unknown (stdin), the smallest buffers */
    r.parts = std::max<int64_t>(1, (bases + max_part_bases - 1) / max_part_bases);
    r.part_bases = std::min<int64_t>(bases, max_part_bases);
    const int64_t part_rows = (rows + r.parts - 1) / r.parts;
    const size_t elt = p->precision == TSK_DOUBLE ? 8 : 4;
    r.codes = (size_t)r.part_bases + 64;
    r.plan = 16;
    r.out = std::min<size_t>((size_t)part_rows * p->dim * elt, (size_t)max_part_out) + 16;
    return r;
}

extern "C" tsk_gpu_sketcher *tsk_gpu_sketcher_open(const tsk_params *p, const int *devices, int n_devices,
                                                   char *err, size_t errlen)
{
    return tsk_cuda_entry("opening the GPU sketch engine", err, errlen, (tsk_gpu_sketcher *)nullptr,
                          [&] { return sketcher_open(p, devices, n_devices, err, errlen); });
}

static void sketcher_prefault(const tsk_params *p, int n_devices, int64_t bases, int64_t rows, int threads)
{
    const sk_reserve r = reserve_sizes(p, SK_PART_BASES, SK_PART_OUT, bases, rows);
    const size_t slots = (size_t)std::min<int64_t>(r.parts, SK_SLOTS_PER_DEVICE * std::max(1, n_devices));
    auto rounded = [](size_t need, size_t min_cap) { return tsk_pinned_bytes(tsk_cuda_grown_size(need, min_cap)); };
    tsk_pinned_prefault(slots * (rounded(r.codes, 0) + rounded(r.plan, SK_MIN_PLAN_BYTES) + rounded(r.out, SK_MIN_OUT_BYTES)),
                        threads);
}

/* Best effort: a region that could not be prefaulted is only slower to pin later, so a failure
 * here is no error. */
extern "C" void tsk_gpu_sketcher_prefault(const tsk_params *p, int n_devices, int64_t bases, int64_t rows,
                                          int threads)
{
    tsk_cuda_entry("prefaulting pinned memory", nullptr, 0, 0, [&] {
        sketcher_prefault(p, n_devices, bases, rows, threads);
        return 0;
    });
}

static int sketcher_reserve(tsk_gpu_sketcher *g, int64_t bases, int64_t rows, char *err, size_t errlen)
{
    if (!g) SK_FAIL("no GPU sketcher");
    const sk_reserve r = reserve_sizes(&g->p, g->part_bases, g->part_out, bases, rows);
    const double t0 = tsk_cuda_seconds();
    for (size_t k = 0; k < g->slots.size() && (int64_t)k < r.parts; k++) {
        sk_slot &s = g->slots[k];
        const tsk_cuda_site at = {s.dev, err, errlen};
        TSK_CUDA_CHECK(at, cudaSetDevice(s.dev));
        /* the sizes slot_start asks for, so that it finds them big enough */
        TSK_CUDA_CHECK(at, grow(s.codes, r.codes, true));
        TSK_CUDA_CHECK(at, grow(s.plan, r.plan, true, SK_MIN_PLAN_BYTES));
        TSK_CUDA_CHECK(at, grow(s.out, r.out, true, SK_MIN_OUT_BYTES));
        TSK_CUDA_CHECK(at, grow(s.nodes, 1, false, SK_MIN_NODE_BYTES));
    }
    tsk_pinned_prefault_release();  /* what the estimate left over */
    g->host.alloc_s += tsk_cuda_seconds() - t0;
    return 0;
}

extern "C" int tsk_gpu_sketcher_reserve(tsk_gpu_sketcher *g, int64_t bases, int64_t rows, char *err, size_t errlen)
{
    return tsk_cuda_entry("reserving GPU sketch buffers", err, errlen, -1,
                          [&] { return sketcher_reserve(g, bases, rows, err, errlen); });
}

/* Cost of an item in "base steps", for largest-first ordering (a first or last piece costs what a
 * whole row of its length does). */
static inline int64_t item_cost(const sk_item &w, int t, bool counts)
{
    if (counts) return w.len;  /* pieces and canonical rows cost what a plain row of their length does */
    if (w.flags & SK_FLAG_CHUNK) return (int64_t)w.len * (t + 1) / 2;
    return (int64_t)w.len * ((w.flags & SK_FLAG_CANON) ? 2 : 1);
}

/* Orders items by decreasing cost, by powers of two (a counting sort: O(n) for a million reads). */
static void sort_items(tsk_gpu_sketcher *g, size_t lo, size_t hi)
{
    int cnt[67] = {0};
    auto key = [&](const sk_item &w) {
        int64_t c = item_cost(w, g->p.t, g->counts);
        return 64 - (c > 0 ? 63 - __builtin_clzll((unsigned long long)c) : -1);
    };
    for (size_t i = lo; i < hi; i++) cnt[key(g->items[i]) + 1]++;
    for (int k = 1; k < 67; k++) cnt[k] += cnt[k - 1];
    g->tmp.resize(hi - lo);
    for (size_t i = lo; i < hi; i++) g->tmp[cnt[key(g->items[i])]++] = g->items[i];
    std::copy(g->tmp.begin(), g->tmp.end(), g->items.begin() + lo);
}

/* Bases the rows of records [r0, r1) cover, one strand: each slide row counts its window. */
static int64_t part_bases(const tsk_params *p, const tsk_batch *b, int64_t r0, int64_t r1)
{
    int64_t total = 0;
    for (int64_t i = r0; i < r1; i++) {
        int64_t n = tsk_batch_len(b, i), rows = b->row_offset[i + 1] - b->row_offset[i];
        total += p->window > 0 ? rows * std::min<int64_t>(p->window, n) : n;
    }
    return total;
}

/* Builds the work of records [r0, r1): items, the merge tree of split rows, the split rows' finals.
 * Returns the number of nodes. */
static int64_t plan_part(tsk_gpu_sketcher *g, const tsk_batch *b, int64_t r0, int64_t r1, int sms)
{
    const tsk_params *p = &g->p;
    const int strands = p->canonical ? 2 : 1;
    const int64_t base = b->offset[r0], row_base = b->row_offset[r0];
    g->items.clear();
    g->pairs.clear();
    g->finals.clear();
    g->level_start.clear();

    /* total work decides the split length: enough pieces for every SM, none so long that one
     * warp finishes last by far */
    const int64_t total = part_bases(p, b, r0, r1) * strands;
    int64_t split = total / ((int64_t)sms * SK_WARPS_PER_SM_TARGET);
    split = std::max<int64_t>(SK_MIN_SPLIT, std::min<int64_t>(split, SK_MAX_SPLIT));
    if (!g->can_split) split = INT64_MAX;
    const int64_t chunk = std::max<int64_t>(SK_MIN_SPLIT / 4, split / 2);

    std::vector<std::vector<int32_t>> segs;  /* node lists of split strands, left to right */
    std::vector<int64_t> node_len;
    std::vector<uint8_t> node_ends;          /* SK_PAIR_LEFT_HEAD: begins its strand; _RIGHT_TAIL: ends it */
    g->n_mid = 0;
    for (int64_t i = r0; i < r1; i++) {
        int64_t n = tsk_batch_len(b, i), rows = b->row_offset[i + 1] - b->row_offset[i];
        for (int64_t r = 0; r < rows; r++) {
            int64_t first = 0, last = n - 1;
            if (p->window > 0) tsk_slide_row_span(p, r, &first, &last);
            const int64_t a = b->offset[i] - base + first, len = last - first + 1;
            const int64_t row = b->row_offset[i] - row_base + r;
            if (len <= split || len < p->t) {
                g->items.push_back({a, row, (int32_t)len, p->canonical ? SK_FLAG_CANON : 0u});
                continue;
            }
            /* a first and a last piece (the cost of a whole row), and between them, when the row
             * is longer than two of them, middle chunks ((t+1)/2 times the cost, so half as long) */
            /* (a row of odd length up to two splits is cut into len/2 and the rest: a 1-base middle
             * chunk there once put every such row through the chunk code and an extra merge) */
            const int64_t end = len <= 2 * split ? len / 2 : split, end_last = len <= 2 * split ? len - end : split;
            const int64_t mid = len - end - end_last, nm = (mid + chunk - 1) / chunk;
            sk_final f = {row, -1, -1};
            for (int s = 0; s < strands; s++) {
                segs.emplace_back();
                (s ? f.rev : f.fwd) = (int32_t)segs.size() - 1;  /* segment id until resolved */
                for (int64_t c = 0; c < nm + 2; c++) {
                    const bool first = c == 0, last = c == nm + 1;
                    /* piece [lo, hi) on this strand */
                    const int64_t lo = first ? 0 : last ? len - end_last : end + mid * (c - 1) / nm;
                    const int64_t hi = first ? end : last ? len : end + mid * c / nm;
                    const int64_t off = s ? a + (len - hi) : a + lo;
                    const uint32_t kind = first ? SK_FLAG_HEAD : last ? SK_FLAG_TAIL : SK_FLAG_CHUNK;
                    const int32_t node = (int32_t)node_len.size();
                    node_len.push_back(hi - lo);
                    node_ends.push_back(first ? SK_PAIR_LEFT_HEAD : last ? SK_PAIR_RIGHT_TAIL : 0);
                    segs.back().push_back(node);
                    g->items.push_back({off, node, (int32_t)(hi - lo), kind | (s ? SK_FLAG_REV : 0u)});
                    g->n_mid += !first && !last;
                }
            }
            g->finals.push_back(f);
        }
    }
    /* merge tree: each level pairs neighbours of every segment; all segments share the launches */
    for (bool more = true; more;) {
        more = false;
        g->level_start.push_back((int)g->pairs.size());
        for (auto &sg : segs) {
            if (sg.size() < 2) continue;
            std::vector<int32_t> next;
            for (size_t k = 0; k + 1 < sg.size(); k += 2) {
                const int32_t dest = (int32_t)node_len.size();
                const int ends = (node_ends[sg[k]] & SK_PAIR_LEFT_HEAD) | (node_ends[sg[k + 1]] & SK_PAIR_RIGHT_TAIL);
                node_len.push_back(node_len[sg[k]] + node_len[sg[k + 1]]);
                node_ends.push_back((uint8_t)ends);
                g->pairs.push_back({sg[k], sg[k + 1], dest, ends, node_len[sg[k]], node_len[sg[k + 1]]});
                next.push_back(dest);
            }
            if (sg.size() % 2) next.push_back(sg.back());
            sg.swap(next);
            more |= sg.size() > 1;
        }
    }
    g->level_start.push_back((int)g->pairs.size());
    for (sk_final &f : g->finals) {
        f.fwd = segs[f.fwd][0];
        if (f.rev >= 0) f.rev = segs[f.rev][0];
    }
    /* With the fast kernel, the pieces of split rows get their own launch (the generic kernel),
     * beside the whole rows' launch on another stream (docs/gpu.md); largest first within each. */
    size_t n_node = 0;
    if (g->fast_whole && !node_len.empty()) {
        const uint32_t piece = SK_FLAG_CHUNK | SK_FLAG_HEAD | SK_FLAG_TAIL;
        std::stable_partition(g->items.begin(), g->items.end(),
                              [=](const sk_item &w) { return (w.flags & piece) != 0; });
        for (const sk_item &w : g->items) n_node += (w.flags & piece) != 0;
        sort_items(g, 0, n_node);
    }
    sort_items(g, n_node, g->items.size());
    g->level_start.insert(g->level_start.begin(), (int)n_node);  /* [0]: piece items kept apart */
    return (int64_t)node_len.size();
}


/* The count kernels' plan of records [r0, r1): rows up to the split length are items; longer ones
 * are cut into equal pieces (one item each, any strand: canonical rows need no second pass) whose
 * count states merge in a tree, then a final per split row. Returns the number of nodes. */
static int64_t plan_part_counts(tsk_gpu_sketcher *g, const tsk_batch *b, int64_t r0, int64_t r1, int sms)
{
    const tsk_params *p = &g->p;
    const int64_t base = b->offset[r0], row_base = b->row_offset[r0];
    g->items.clear();
    g->pairs.clear();
    g->count_finals.clear();
    g->level_start.clear();
    const int64_t total = part_bases(p, b, r0, r1);
    const int64_t split = std::max<int64_t>(SKC_MIN_SPLIT, std::min<int64_t>(total / ((int64_t)sms * SKC_WARPS_PER_SM_TARGET),
                                                                             SK_MAX_SPLIT));
    std::vector<std::vector<int32_t>> segs;  /* node lists of split rows, left to right */
    int64_t n_nodes = 0;
    for (int64_t i = r0; i < r1; i++) {
        int64_t n = tsk_batch_len(b, i), rows = b->row_offset[i + 1] - b->row_offset[i];
        for (int64_t r = 0; r < rows; r++) {
            int64_t first = 0, last = n - 1;
            if (p->window > 0) tsk_slide_row_span(p, r, &first, &last);
            const int64_t a = b->offset[i] - base + first, len = last - first + 1;
            const int64_t row = b->row_offset[i] - row_base + r;
            if (len <= split) {
                g->items.push_back({a, row, (int32_t)len, p->canonical ? SK_FLAG_CANON : 0u});
                continue;
            }
            const int64_t np = (len + split - 1) / split;
            segs.emplace_back();
            for (int64_t c = 0; c < np; c++) {
                const int64_t lo = len * c / np, hi = len * (c + 1) / np;
                segs.back().push_back((int32_t)n_nodes);
                g->items.push_back({a + lo, n_nodes++, (int32_t)(hi - lo), SK_FLAG_CHUNK});
            }
            g->count_finals.push_back({row, len, (int32_t)segs.size() - 1, p->canonical});
        }
    }
    /* merge tree: each level pairs neighbours of every split row; all rows share the launches */
    for (bool more = !segs.empty(); more;) {
        more = false;
        g->level_start.push_back((int)g->pairs.size());
        for (auto &sg : segs) {
            std::vector<int32_t> next;
            for (size_t k = 0; k + 1 < sg.size(); k += 2) {
                g->pairs.push_back({sg[k], sg[k + 1], (int32_t)n_nodes, 0, 0, 0});
                next.push_back((int32_t)n_nodes++);
            }
            if (sg.size() % 2) next.push_back(sg.back());
            sg.swap(next);
            more |= sg.size() > 1;
        }
    }
    g->level_start.push_back((int)g->pairs.size());
    for (skc_final &f : g->count_finals) f.node = segs[f.node][0];
    sort_items(g, 0, g->items.size());
    g->level_start.insert(g->level_start.begin(), 0);  /* [0]: no piece items kept apart */
    g->n_mid = 0;
    return n_nodes;
}

/* Launches n items on stream st: the fast kernel (whole rows) or the generic one, with room for
 * all t(t+1)/2 vectors when middle chunks are among the items (all_vectors), else for t. */
static int launch_work(tsk_gpu_sketcher *g, sk_slot &s, cudaStream_t st, const sk_item *d_items, int n,
                       int *counter, bool fast, bool all_vectors, char *err, size_t errlen)
{
    if (n == 0) return 0;
    const tsk_cuda_site at = {s.dev, err, errlen};
    int per_sm = 0;
    if (fast) {
        const int wpb = SK_WARPS_PER_BLOCK, threads = 32 * wpb;
        sk_fast_fn k = SK_FAST[g->p.alphabet == TSK_DNA][g->p.t - 1][g->p.dim / 32 - 1];
        TSK_CUDA_CHECK(at, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, 0));
        int blocks = std::max(1, std::min(per_sm * s.sms, (n + wpb - 1) / wpb));
        k<<<blocks, threads, 0, st>>>(g->tab, (const uint8_t *)s.codes.d, d_items, n, counter, s.out.d,
                                      g->p.precision == TSK_DOUBLE);
    } else {
        const int nv = all_vectors ? sk_nvec(g->p.t) : g->p.t;
        const size_t per_warp = generic_bytes(g, nv);
        const int wpb = (int)std::max<size_t>(1, std::min<size_t>(SK_WARPS_PER_BLOCK, s.smem_optin / per_warp));
        const size_t smem = per_warp * wpb;
        if (g->p.precision == TSK_DOUBLE) {
            TSK_CUDA_CHECK(at, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sk_generic_kernel<double>, 32 * wpb,
                                                                             smem));
            int blocks = std::max(1, std::min(per_sm * s.sms, (n + wpb - 1) / wpb));
            sk_generic_kernel<double><<<blocks, 32 * wpb, smem, st>>>(g->tab, (const uint8_t *)s.codes.d, d_items,
                                                                       n, counter, s.out.d, 1, (double *)s.nodes.d, nv);
        } else {
            TSK_CUDA_CHECK(at, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sk_generic_kernel<float>, 32 * wpb,
                                                                             smem));
            int blocks = std::max(1, std::min(per_sm * s.sms, (n + wpb - 1) / wpb));
            sk_generic_kernel<float><<<blocks, 32 * wpb, smem, st>>>(g->tab, (const uint8_t *)s.codes.d, d_items,
                                                                      n, counter, s.out.d, 0, (double *)s.nodes.d, nv);
        }
    }
    TSK_CUDA_CHECK(at, cudaGetLastError());
    return 0;
}

typedef void (*skc_count_fn)(const uint8_t *, const sk_item *, int, int *, skc_map, int, void *, int, double *);
static const skc_count_fn SKC_COUNT[SKC_MAX_T] = {skc_count_kernel<1>, skc_count_kernel<2>, skc_count_kernel<3>,
                                                  skc_count_kernel<4>};

/* The count kernels' work of a part on the slot's stream: all items in one launch (pieces and
 * whole rows cost the same per base), the merge tree level by level, the split rows' finals. */
static int launch_counts(tsk_gpu_sketcher *g, sk_slot &s, const sk_item *d_items, int n_items, const sk_pair *d_pairs,
                         const skc_final *d_fin, char *err, size_t errlen)
{
    const int t = g->p.t, dim = g->p.dim, out_double = g->p.precision == TSK_DOUBLE;
    const skc_map map = {(const int32_t *)s.count_map,
                         (const skc_term *)((const char *)s.count_map + g->count_map_terms)};
    const tsk_cuda_site at = {s.dev, err, errlen};
    if (n_items > 0) {
        const int wpb = SK_WARPS_PER_BLOCK, threads = 32 * wpb;
        const skc_count_fn k = SKC_COUNT[t - 1];
        int per_sm = 0;
        TSK_CUDA_CHECK(at, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, 0));
        const int blocks = std::max(1, std::min(per_sm * s.sms, (n_items + wpb - 1) / wpb));
        k<<<blocks, threads, 0, s.st>>>((const uint8_t *)s.codes.d, d_items, n_items, s.counter, map, dim, s.out.d,
                                         out_double, (double *)s.nodes.d);
        TSK_CUDA_CHECK(at, cudaGetLastError());
    }
    for (size_t l = 1; l + 1 < g->level_start.size(); l++) {
        const int lo = g->level_start[l], n = g->level_start[l + 1] - lo;
        if (n == 0) continue;
        skc_merge_kernel<<<std::min(n, 65535), 128, 0, s.st>>>(t, d_pairs + lo, n, (double *)s.nodes.d);
        TSK_CUDA_CHECK(at, cudaGetLastError());
    }
    if (!g->count_finals.empty()) {
        const int n = (int)g->count_finals.size();
        skc_final_kernel<<<std::min(n, 65535), 128, 0, s.st>>>(t, dim, d_fin, n, map, (const double *)s.nodes.d,
                                                               s.out.d, out_double);
        TSK_CUDA_CHECK(at, cudaGetLastError());
    }
    return 0;
}

/* Waits for the slot's part and hands its rows to the caller. */
static int slot_finish(tsk_gpu_sketcher *g, sk_slot &s, char *err, size_t errlen)
{
    if (!s.busy) return 0;
    s.busy = false;
    const tsk_cuda_site at = {s.dev, err, errlen};
    TSK_CUDA_CHECK(at, cudaSetDevice(s.dev));
    const double t0 = tsk_cuda_seconds();
    TSK_CUDA_CHECK(at, cudaStreamSynchronize(s.st));
    const double t1 = tsk_cuda_seconds();
    g->host.slot_wait_s += t1 - t0;
    float ms = 0.f;
    TSK_CUDA_CHECK(at, cudaEventElapsedTime(&ms, s.ev0, s.ev1));
    g->kernel_ms += ms;
    g->bases += s.bases;
    tsk_pinned_copy(s.dst, s.out.h, s.out_bytes);
    g->host.unpack_s += tsk_cuda_seconds() - t1;
    return 0;
}

/* Plans records [r0, r1) and queues all its work on slot s. Returns 0, -1 (error), or 1 when the
 * GPU ran out of memory (nothing queued; the caller shrinks the part). */
static int slot_start(tsk_gpu_sketcher *g, sk_slot &s, const tsk_batch *b, int64_t r0, int64_t r1, char *out,
                      char *err, size_t errlen)
{
    const tsk_cuda_site at = {s.dev, err, errlen};
    TSK_CUDA_CHECK(at, cudaSetDevice(s.dev));
    const int64_t n_nodes = g->counts ? plan_part_counts(g, b, r0, r1, s.sms) : plan_part(g, b, r0, r1, s.sms);
    const int n_node_sep = g->level_start[0];
    const int64_t bases = b->offset[r1] - b->offset[r0];
    const int64_t rows = b->row_offset[r1] - b->row_offset[r0];
    const size_t out_bytes = (size_t)rows * g->p.dim * g->elt;
    const size_t items_b = align16(g->items.size() * sizeof(sk_item));
    const size_t pairs_b = align16(g->pairs.size() * sizeof(sk_pair));
    const size_t fin_b = g->counts ? align16(g->count_finals.size() * sizeof(skc_final))
                                   : align16(g->finals.size() * sizeof(sk_final));
    const size_t nodes_bytes = (size_t)n_nodes * sizeof(double) *
                               (g->counts ? (size_t)skc_size(g->p.t) : (size_t)sk_nvec(g->p.t) * g->p.dim);
    if (g->items.size() > (size_t)INT32_MAX) SK_FAIL("too many rows in one part");

    const double t0 = tsk_cuda_seconds();
    const size_t caps = s.codes.cap + s.plan.cap + s.out.cap + s.nodes.cap;
    cudaError_t e = grow(s.codes, (size_t)bases + 64, true);
    if (e == cudaSuccess) e = grow(s.plan, items_b + pairs_b + fin_b + 16, true, SK_MIN_PLAN_BYTES);
    if (e == cudaSuccess) e = grow(s.out, out_bytes + 16, true, SK_MIN_OUT_BYTES);
    if (e == cudaSuccess) e = grow(s.nodes, nodes_bytes, false, SK_MIN_NODE_BYTES);
    if (s.codes.cap + s.plan.cap + s.out.cap + s.nodes.cap != caps) g->host.allocs++;
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        return 1;
    }
    TSK_CUDA_CHECK(at, e);
    const double t1 = tsk_cuda_seconds();
    g->host.alloc_s += t1 - t0;

    tsk_pinned_copy(s.codes.h, b->codes + b->offset[r0], (size_t)bases);
    memset((char *)s.codes.h + bases, 0, 64);
    char *plan = (char *)s.plan.h;
    memcpy(plan, g->items.data(), g->items.size() * sizeof(sk_item));
    memcpy(plan + items_b, g->pairs.data(), g->pairs.size() * sizeof(sk_pair));
    if (g->counts) memcpy(plan + items_b + pairs_b, g->count_finals.data(), g->count_finals.size() * sizeof(skc_final));
    else memcpy(plan + items_b + pairs_b, g->finals.data(), g->finals.size() * sizeof(sk_final));
    g->host.pack_s += tsk_cuda_seconds() - t1;
    TSK_CUDA_CHECK(at, cudaMemcpyAsync(s.codes.d, s.codes.h, (size_t)bases + 64, cudaMemcpyHostToDevice, s.st));
    TSK_CUDA_CHECK(at, cudaMemcpyAsync(s.plan.d, s.plan.h, items_b + pairs_b + fin_b, cudaMemcpyHostToDevice, s.st));
    TSK_CUDA_CHECK(at, cudaMemsetAsync(s.counter, 0, 2 * sizeof(int), s.st));

    const sk_item *d_items = (const sk_item *)s.plan.d;
    const sk_pair *d_pairs = (const sk_pair *)((char *)s.plan.d + items_b);
    const sk_final *d_fin = (const sk_final *)((char *)s.plan.d + items_b + pairs_b);
    const int n_items = (int)g->items.size();
    TSK_CUDA_CHECK(at, cudaEventRecord(s.ev0, s.st));
    if (g->counts) {
        if (launch_counts(g, s, d_items, n_items, d_pairs, (const skc_final *)d_fin, err, errlen)) return -1;
    } else if (n_node_sep > 0) {
        /* pieces of split rows (generic kernel) on st, whole rows (fast kernel) beside them on
         * st_rows: the few long pieces alone would leave most of the GPU idle */
        if (launch_work(g, s, s.st, d_items, n_node_sep, s.counter, false, g->n_mid > 0, err, errlen)) return -1;
        if (n_items > n_node_sep) {
            TSK_CUDA_CHECK(at, cudaStreamWaitEvent(s.st_rows, s.ev0, 0));
            if (launch_work(g, s, s.st_rows, d_items + n_node_sep, n_items - n_node_sep, s.counter + 1, true, false,
                            err, errlen))
                return -1;
            TSK_CUDA_CHECK(at, cudaEventRecord(s.rows_done, s.st_rows));
            TSK_CUDA_CHECK(at, cudaStreamWaitEvent(s.st, s.rows_done, 0));
        }
    } else if (launch_work(g, s, s.st, d_items, n_items, s.counter, g->fast_whole, g->n_mid > 0, err, errlen)) {
        return -1;
    }
    for (size_t l = 1; !g->counts && l + 1 < g->level_start.size(); l++) {
        int lo = g->level_start[l], n = g->level_start[l + 1] - lo;
        if (n == 0) continue;
        sk_combine_kernel<<<std::min(n, 65535), 128, 0, s.st>>>(g->p.t, g->p.dim, d_pairs + lo, n, (double *)s.nodes.d);
        TSK_CUDA_CHECK(at, cudaGetLastError());
    }
    if (!g->counts && !g->finals.empty()) {
        sk_final_kernel<<<std::min((int)g->finals.size(), 65535), 128, 0, s.st>>>(
            g->p.t, g->p.dim, d_fin, (int)g->finals.size(), (double *)s.nodes.d, s.out.d, g->p.precision == TSK_DOUBLE);
        TSK_CUDA_CHECK(at, cudaGetLastError());
    }
    TSK_CUDA_CHECK(at, cudaEventRecord(s.ev1, s.st));
    TSK_CUDA_CHECK(at, cudaMemcpyAsync(s.out.h, s.out.d, out_bytes, cudaMemcpyDeviceToHost, s.st));
    s.busy = true;
    s.dst = out + (size_t)b->row_offset[r0] * g->p.dim * g->elt;
    s.out_bytes = out_bytes;
    s.bases = bases;
    return 0;
}

/* Finishes every busy slot (all of them, or with only_tag those of batches up to tag). */
static int finish_slots(tsk_gpu_sketcher *g, bool only_tag, int64_t tag, char *err, size_t errlen)
{
    int rc = 0;
    for (sk_slot &s : g->slots) {
        if (only_tag && s.tag > tag) continue;
        char e2[256];
        if (slot_finish(g, s, rc ? e2 : err, rc ? sizeof e2 : errlen) != 0 && rc == 0) rc = -1;
    }
    return rc;
}

static int sketch_begin(tsk_gpu_sketcher *g, const tsk_batch *b, void *out, int64_t tag, char *err, size_t errlen)
{
    if (!g) SK_FAIL("no GPU sketcher");
    const size_t row_bytes = (size_t)g->p.dim * g->elt;
    int64_t r0 = 0;
    int rc = 0;
    while (r0 < b->n_records && rc == 0) {
        /* the part: whole records while both limits hold (at least one record); the bases left
         * are cut into equal parts, so that no part is a small tail that leaves the GPU idle */
        const int64_t left = b->offset[b->n_records] - b->offset[r0];
        const int64_t target = (left + (left + g->part_bases - 1) / g->part_bases - 1) /
                               std::max<int64_t>(1, (left + g->part_bases - 1) / g->part_bases);
        int64_t r1 = r0 + 1;
        while (r1 < b->n_records && b->offset[r1 + 1] - b->offset[r0] <= target &&
               (int64_t)((b->row_offset[r1 + 1] - b->row_offset[r0]) * row_bytes) <= g->part_out)
            r1++;
        sk_slot &s = g->slots[g->next_slot % g->slots.size()];
        if ((rc = slot_finish(g, s, err, errlen)) != 0) break;
        s.tag = tag;
        rc = slot_start(g, s, b, r0, r1, (char *)out, err, errlen);
        if (rc == 1) {  /* out of device memory: free the idle slot's buffers, then cut the part */
            rc = 0;
            slot_drop_buffers(s);
            if (r1 - r0 == 1 && g->part_bases < 1024) {
                snprintf(err, errlen, "record %lld does not fit in GPU memory", (long long)r0);
                rc = -1;
                break;
            }
            g->part_bases = std::max<int64_t>(g->part_bases / 2, 512);
            g->part_out = std::max<int64_t>(g->part_out / 2, (int64_t)row_bytes);
            if (r1 - r0 == 1) g->part_bases = 512;  /* next failure on a lone record is final */
            continue;
        }
        r0 = r1;
        g->next_slot++;
    }
    if (rc) {  /* nothing may still write into the caller's buffers after a failure */
        char e2[256];
        finish_slots(g, false, 0, e2, sizeof e2);
    }
    return rc;
}

extern "C" int tsk_gpu_sketch_begin(tsk_gpu_sketcher *g, const tsk_batch *b, void *out, int64_t tag, char *err,
                                    size_t errlen)
{
    return tsk_cuda_entry("GPU sketch", err, errlen, -1, [&] { return sketch_begin(g, b, out, tag, err, errlen); });
}

extern "C" int tsk_gpu_sketch_wait(tsk_gpu_sketcher *g, int64_t tag, char *err, size_t errlen)
{
    if (!g) SK_FAIL("no GPU sketcher");
    return tsk_cuda_entry("GPU sketch", err, errlen, -1, [&] { return finish_slots(g, true, tag, err, errlen); });
}

extern "C" int tsk_gpu_sketch(tsk_gpu_sketcher *g, const tsk_batch *b, void *out, char *err, size_t errlen)
{
    if (tsk_gpu_sketch_begin(g, b, out, 0, err, errlen)) return -1;
    return tsk_cuda_entry("GPU sketch", err, errlen, -1, [&] { return finish_slots(g, false, 0, err, errlen); });
}
