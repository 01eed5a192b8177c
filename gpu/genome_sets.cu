/* genome_sets.cu: the GPU genome-sketch engine, host side (genome_sets.h; kernels in
 * genome_sets_kernels.cuh).
 *
 * The reference set is cut into index parts of consecutive references whose postings fit the
 * device (usually one part, indexed once at open). A call runs, per part, batches of consecutive
 * queries: their keys are uploaded, looked up in the part's sorted keys, and counted by one CUDA
 * block per (query, chunk of references). Top-k lists of several chunks or parts are merged on the
 * host (each is exact within its references, so the best k of their union is the answer);
 * threshold hits come back in (query, chunk) order, which is (query, reference) order within a
 * part.
 *
 * A part is bounded by device memory alone: its postings are counted and sorted with 64-bit
 * positions (CUB's radix sort takes an int64_t count), so one part holds 2x10^5 genomes (1.9x10^9
 * postings) on an 80 GB GPU. The 32-bit quantities are per-reference (ids, key counts, counters),
 * and tsk_gpu_genome_sets_open refuses a set of more than 2^31 - 1 genomes.
 *
 * Every extern "C" entry catches C++ exceptions (new and std::vector throw std::bad_alloc), which
 * must not cross into C: the entry returns its failure with the reason in the engine's message. */
#include "genome_sets.h"
#include "genome_sets_kernels.cuh"

#include <cub/device/device_radix_sort.cuh>
#include "cuda_util.cuh"
#include "host_pinned.h"
#include "peer_group.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#define GKS_BATCH_KEYS (1LL << 26)          /* query keys per batch (24 bytes each on the device) */
#define GKS_BATCH_OUT (256LL << 20)         /* bytes of counts or top-k lists per batch */
#define GKS_DEFAULT_CHUNK 16384             /* references counted at once: 64 KB of counters */

struct gks_part {
    int64_t r0, r1;  /* references [r0, r1) */
    int64_t keys;    /* their postings */
};

/* The peers (peer_group.cuh): their shares are runs of references. */
struct tsk_gpu_genome_sets_peers : tsk_peer_group {
    using tsk_peer_group::tsk_peer_group;
};

struct tsk_gpu_genome_sets {
    const tsk_key_sets *q = nullptr, *r = nullptr;
    int64_t r_lo = 0, r_hi = 0;         /* the references it indexes and answers for: all, or a shard */
    /* the engines it opens among: the open's index, of every reference, is uploaded in shares */
    tsk_gpu_genome_sets_peers *peers = nullptr;
    int member = 0;
    bool announced = false;             /* it announced a share: the peers may copy from its keys */
    bool opening = true;                /* only the index made at the open is shared (the peers' buffers
                                         * are sorted over after it) */
    tsk_gpu_genome_sets_times times = {0, 0, 0, 0, 0, 1}; /* the open's index's seconds (TSKETCH_TIMING) */
    int dev = 0, sms = 0;
    cudaStream_t st = nullptr;
    int64_t chunk_max = GKS_DEFAULT_CHUNK;
    int64_t part_cap = 0;               /* postings per part (0: from free memory) */
    std::vector<gks_part> parts;
    int built = -1;                     /* the part indexed on the device, -1: none */
    /* the index: postings sorted by key; cur says which of the two buffers holds the result */
    uint64_t *pkeys[2] = {nullptr, nullptr};
    int32_t *pref[2] = {nullptr, nullptr};
    size_t pkeys_cap = 0, pref_cap = 0;  /* bytes of each buffer */
    int cur = 0;
    tsk_upload_stage stage;             /* the keys' uploads from the mapped file */
    void *sort_tmp = nullptr;
    size_t sort_tmp_cap = 0;
    int64_t *poff_d = nullptr;          /* part-relative offsets of the part's references */
    size_t poff_cap = 0;
    int32_t *rsize_d = nullptr;         /* keys of every reference */
    /* thresholds, when the sets have them (a size floor): per query and reference, and the indexed
     * part's keys as stored, for the sizes of pairs of different thresholds */
    bool floor = false;
    uint64_t *qtau_d = nullptr, *rtau_d = nullptr, *rkeys_d = nullptr;
    size_t rkeys_cap = 0;
    /* per batch */
    uint64_t *bkeys_d = nullptr;
    gks_run *range_d = nullptr;
    int64_t *qoff_d = nullptr;
    void *out_d = nullptr;              /* counts or hits */
    gks_rec *recs_d = nullptr;
    unsigned long long *n_hits_d = nullptr;
    size_t bkeys_cap = 0, range_cap = 0, qoff_cap = 0, out_cap = 0, recs_cap = 0;
    std::vector<int64_t> qoff;
    std::vector<gks_hit> hits;
    std::vector<gks_rec> recs;
    char err[256] = "";
};

/* Where TSK_CUDA_CHECK reports a failure: the engine's message (tsk_gpu_genome_sets_error). */
static tsk_cuda_site site(tsk_gpu_genome_sets *e) { return {e->dev, e->err, sizeof e->err}; }

extern "C" const char *tsk_gpu_genome_sets_error(const tsk_gpu_genome_sets *e)
{
    return e ? e->err : "no GPU genome-sketch engine";
}

/* An entry's body under tsk_cuda_entry (cuda_util.cuh), the reason of a failure in e's message. */
template <class Body> static int guarded(tsk_gpu_genome_sets *e, const char *entry, Body body)
{
    return tsk_cuda_entry(entry, e->err, sizeof e->err, -1, body);
}

extern "C" void tsk_gpu_genome_sets_close(tsk_gpu_genome_sets *e)
{
    if (!e) return;
    if (e->peers) {
        e->peers->finish(e->member);
        if (e->announced) e->peers->wait_finished(); /* the peers copy from its keys */
    }
    cudaSetDevice(e->dev);
    tsk_stage_free(e->stage);
    for (int i = 0; i < 2; i++) cudaFree(e->pkeys[i]), cudaFree(e->pref[i]);
    cudaFree(e->sort_tmp);
    cudaFree(e->poff_d);
    cudaFree(e->rsize_d);
    cudaFree(e->qtau_d);
    cudaFree(e->rtau_d);
    cudaFree(e->rkeys_d);
    cudaFree(e->bkeys_d);
    cudaFree(e->range_d);
    cudaFree(e->qoff_d);
    cudaFree(e->out_d);
    cudaFree(e->recs_d);
    cudaFree(e->n_hits_d);
    if (e->st) cudaStreamDestroy(e->st);
    delete e;
}

/* Cuts its references [r_lo, r_hi) into parts of at most cap postings (consecutive references). */
static int plan_parts(tsk_gpu_genome_sets *e, int64_t cap)
{
    e->parts.clear();
    e->built = -1;
    const tsk_key_sets *r = e->r;
    gks_part p = {e->r_lo, e->r_lo, 0};
    for (int64_t i = e->r_lo; i < e->r_hi; i++) {
        const int64_t n = tsk_key_set_size(r, i);
        if (n > cap) {
            snprintf(e->err, sizeof e->err, "reference %lld has %lld keys, more than the %lld an index part holds",
                     (long long)i, (long long)n, (long long)cap);
            return -1;
        }
        if (p.keys + n > cap) e->parts.push_back(p), p = {i, i, 0};
        p.r1 = i + 1, p.keys += n;
    }
    if (p.r1 > p.r0) e->parts.push_back(p);
    return 0;
}

/* Device bytes a posting takes while the index is sorted (24, 8 more with thresholds, the radix
 * sort's scratch about 2 more), and what the batches take beside the index. */
#define GKS_POSTING_BYTES(floor) ((floor) ? 34 : 26)
#define GKS_BATCH_BYTES ((8 + (int64_t)sizeof(gks_run)) * GKS_BATCH_KEYS + 2 * GKS_BATCH_OUT)

/* Postings one part may hold: what 80 % of the free device memory allows, the batches set aside. */
static int64_t part_capacity(tsk_gpu_genome_sets *e)
{
    if (e->part_cap > 0) return e->part_cap;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
    const int64_t avail = (int64_t)(free_b / 10 * 8) - GKS_BATCH_BYTES;
    return std::max<int64_t>(1 << 20, avail / GKS_POSTING_BYTES(e->floor));
}

/* Whether the sets' thresholds differ (the pairs' sizes then need the stored keys: a size floor). */
static bool thresholds_differ(const tsk_key_sets *s, uint64_t tau0)
{
    for (int64_t i = 0; i < s->n_items; i++)
        if ((s->tau ? s->tau[i] : UINT64_MAX) != tau0) return true;
    return false;
}

extern "C" int64_t tsk_gpu_genome_sets_bytes(const tsk_key_sets *r, int64_t r_lo, int64_t r_hi)
{
    if (!tsk_key_sets_holds(r, r_lo, r_hi - r_lo)) return 0;
    const bool floor = r->n_items > 0 && thresholds_differ(r, r->tau ? r->tau[0] : UINT64_MAX);
    const int64_t postings = r->offset[r_hi] - r->offset[r_lo];
    return (postings * GKS_POSTING_BYTES(floor) + GKS_BATCH_BYTES) / 8 * 10;
}

/* Grows the two buffers of a double-buffered sort together (tsk_cuda_grow each): each holds at
 * least need bytes. Both are freed first, so that the old pair and the new never coexist. */
static cudaError_t grow_pair(void **a, void **b, size_t *cap, size_t need)
{
    if (*cap >= need) return cudaSuccess;
    size_t ca = 0, cb = 0;
    cudaFree(*a), cudaFree(*b);
    *a = *b = nullptr;
    *cap = 0;
    cudaError_t err = tsk_cuda_grow(a, &ca, need);
    if (err == cudaSuccess) err = tsk_cuda_grow(b, &cb, need);
    if (err == cudaSuccess) *cap = std::min(ca, cb);
    return err;
}

/* The keys of every reference, as stored, into pkeys[0] (the open's index, of one part), in shares
 * with the peers: the shares it claims from the host, the others copied from the GPUs that took
 * them (or from the host, where that peer failed); then it waits until no peer copies from its
 * buffer any more, since the sort writes over it. */
static int share_keys(tsk_gpu_genome_sets *e, int64_t base)
{
    tsk_gpu_genome_sets_peers *P = e->peers;
    const tsk_key_sets *r = e->r;
    auto range = [&](int m, int64_t *at, int64_t *n) {
        *at = r->offset[P->bound[(size_t)m]] - base, *n = r->offset[P->bound[(size_t)m + 1]] - base - *at;
    };
    int64_t at, n;
    const double t0 = tsk_cuda_seconds();
    for (int m; (m = P->claim(e->member)) >= 0;) {
        range(m, &at, &n);
        if (n > 0)
            TSK_CUDA_CHECK(site(e), tsk_stage_upload(e->stage, e->pkeys[0] + at, r->keys + base + at, (size_t)n * 8, e->st));
        TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
        e->announced = true;
        P->ready(m, e);
    }
    const double t1 = tsk_cuda_seconds();
    e->times.upload_s = t1 - t0;
    for (int m = 0; m < P->shares; m++) {
        const tsk_gpu_genome_sets *src = (const tsk_gpu_genome_sets *)P->wait_share(m);
        range(m, &at, &n);
        if (src == e || n == 0) continue;
        uint64_t *to = e->pkeys[0] + at;
        TSK_CUDA_CHECK(site(e), src ? tsk_peer_copy(to, e->dev, src->pkeys[0] + at, src->dev, (size_t)n * 8, e->st)
                                    : tsk_stage_upload(e->stage, to, r->keys + base + at, (size_t)n * 8, e->st));
    }
    TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
    P->finish(e->member);
    P->wait_finished();
    e->times.peers_s = tsk_cuda_seconds() - t1;
    e->times.members = P->members;
    return 0;
}

/* Indexes part pi on the device: its keys with their references, sorted by key (stably: references
 * stay ascending within a key). */
static int build(tsk_gpu_genome_sets *e, int pi)
{
    if (e->built == pi) return 0;
    e->built = -1;
    const double t0 = tsk_cuda_seconds();
    const gks_part &p = e->parts[(size_t)pi];
    const tsk_key_sets *r = e->r;
    const int64_t n = p.keys, nr = p.r1 - p.r0, base = r->offset[p.r0];
    const size_t kb = (size_t)std::max<int64_t>(n, 1) * 8, rb = (size_t)std::max<int64_t>(n, 1) * 4;
    TSK_CUDA_CHECK(site(e), grow_pair((void **)&e->pkeys[0], (void **)&e->pkeys[1], &e->pkeys_cap, kb));
    TSK_CUDA_CHECK(site(e), grow_pair((void **)&e->pref[0], (void **)&e->pref[1], &e->pref_cap, rb));
    std::vector<int64_t> off((size_t)nr + 1);
    uint64_t max_key = 0;
    for (int64_t i = 0; i <= nr; i++) off[(size_t)i] = r->offset[p.r0 + i] - base;
    for (int64_t i = p.r0; i < p.r1; i++)
        if (tsk_key_set_size(r, i) > 0) max_key = std::max(max_key, r->keys[r->offset[i + 1] - 1]);
    TSK_CUDA_CHECK(site(e), tsk_cuda_grow((void **)&e->poff_d, &e->poff_cap, off.size() * sizeof(int64_t)));
    TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->poff_d, off.data(), off.size() * sizeof(int64_t),
                                            cudaMemcpyHostToDevice, e->st));
    const double t1 = tsk_cuda_seconds();
    if (e->peers && e->opening && p.r0 == 0 && p.r1 == r->n_items) { /* the open's index, of every reference */
        if (share_keys(e, base)) return -1;
    } else if (n > 0) {
        TSK_CUDA_CHECK(site(e), tsk_stage_upload(e->stage, e->pkeys[0], r->keys + base, (size_t)n * 8, e->st));
        if (e->opening) {
            TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
            e->times.upload_s = tsk_cuda_seconds() - t1;
        }
    }
    const double t2 = tsk_cuda_seconds();
    if (e->floor) {
        TSK_CUDA_CHECK(site(e), tsk_cuda_grow((void **)&e->rkeys_d, &e->rkeys_cap, kb));
        if (n > 0) TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->rkeys_d, e->pkeys[0], (size_t)n * 8,
                                                           cudaMemcpyDeviceToDevice, e->st));
    }
    if (nr > 0) gks_refs_kernel<<<(unsigned)nr, 128, 0, e->st>>>(e->poff_d, e->pref[0]);
    TSK_CUDA_CHECK(site(e), cudaGetLastError());
    e->cur = 0;
    if (n > 1) {
        /* without a floor keys are at most about UINT64_MAX / scaled: only their low bits need sorting */
        int end_bit = 1;
        while (end_bit < 64 && (max_key >> end_bit)) end_bit++;
        cub::DoubleBuffer<uint64_t> keys(e->pkeys[0], e->pkeys[1]);
        cub::DoubleBuffer<int32_t> refs(e->pref[0], e->pref[1]);
        size_t tmp = 0;
        TSK_CUDA_CHECK(site(e), cub::DeviceRadixSort::SortPairs(nullptr, tmp, keys, refs, n, 0, end_bit, e->st));
        TSK_CUDA_CHECK(site(e), tsk_cuda_grow(&e->sort_tmp, &e->sort_tmp_cap, tmp));
        TSK_CUDA_CHECK(site(e), cub::DeviceRadixSort::SortPairs(e->sort_tmp, tmp, keys, refs, n, 0, end_bit,
                                                                e->st));
        e->cur = keys.selector;
        if (refs.selector != keys.selector) {  /* never seen, but cheap to make certain */
            TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->pref[keys.selector], refs.Current(), (size_t)n * 4,
                                                    cudaMemcpyDeviceToDevice, e->st));
        }
    }
    TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
    e->built = pi;
    if (e->opening) e->times.alloc_s = t1 - t0, e->times.index_s = tsk_cuda_seconds() - t2;
    return 0;
}

static tsk_gpu_genome_sets *open_engine(const tsk_key_sets *q, const tsk_key_sets *r, int64_t r_lo, int64_t r_hi,
                                       int device, tsk_gpu_genome_sets_peers *peers, int member, char *err,
                                       size_t errlen)
{
    if (q->n_items > INT32_MAX || r->n_items > INT32_MAX) {
        snprintf(err, errlen, "more than 2^31 - 1 genome sketches in one set");
        return NULL;
    }
    const double t0 = tsk_cuda_seconds();
    if (tsk_cuda_device_usable(device, err, errlen)) return NULL;
    /* closed on every way out but the last, an exception's too */
    std::unique_ptr<tsk_gpu_genome_sets, void (*)(tsk_gpu_genome_sets *)> owned(new tsk_gpu_genome_sets(),
                                                                                tsk_gpu_genome_sets_close);
    tsk_gpu_genome_sets *e = owned.get();
    e->q = q, e->r = r, e->r_lo = r_lo, e->r_hi = r_hi, e->dev = device;
    if (peers && peers->bound.back() == r->n_items && r_lo == 0 && r_hi == r->n_items) e->peers = peers, e->member = member;
    std::vector<int32_t> rsize((size_t)r->n_items + 1, 0);
    for (int64_t i = 0; i < r->n_items; i++) rsize[(size_t)i] = (int32_t)std::min<int64_t>(tsk_key_set_size(r, i), INT32_MAX);
    int smem_optin = 0;
    cudaError_t c = cudaSetDevice(device);
    if (c == cudaSuccess) c = cudaDeviceGetAttribute(&e->sms, cudaDevAttrMultiProcessorCount, device);
    if (c == cudaSuccess) c = cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (c == cudaSuccess) c = cudaStreamCreateWithFlags(&e->st, cudaStreamNonBlocking);
    if (c == cudaSuccess) c = cudaMalloc((void **)&e->rsize_d, rsize.size() * sizeof(int32_t));
    if (c == cudaSuccess)
        c = cudaMemcpy(e->rsize_d, rsize.data(), rsize.size() * sizeof(int32_t), cudaMemcpyHostToDevice);
    if (c == cudaSuccess) c = cudaMalloc((void **)&e->n_hits_d, sizeof(unsigned long long));
    /* thresholds: only when some pair has two different ones do sizes need the searches */
    std::vector<uint64_t> qtau((size_t)q->n_items), rtau((size_t)r->n_items);
    for (int64_t i = 0; i < q->n_items; i++) qtau[(size_t)i] = q->tau ? q->tau[i] : UINT64_MAX;
    for (int64_t i = 0; i < r->n_items; i++) rtau[(size_t)i] = r->tau ? r->tau[i] : UINT64_MAX;
    const uint64_t tau0 = q->n_items ? qtau[0] : r->n_items ? rtau[0] : 0;
    e->floor = thresholds_differ(q, tau0) || thresholds_differ(r, tau0);
    if (e->floor && c == cudaSuccess) c = cudaMalloc((void **)&e->qtau_d, std::max<size_t>(qtau.size(), 1) * 8);
    if (e->floor && c == cudaSuccess) c = cudaMalloc((void **)&e->rtau_d, std::max<size_t>(rtau.size(), 1) * 8);
    if (e->floor && c == cudaSuccess && !qtau.empty())
        c = cudaMemcpy(e->qtau_d, qtau.data(), qtau.size() * 8, cudaMemcpyHostToDevice);
    if (e->floor && c == cudaSuccess && !rtau.empty())
        c = cudaMemcpy(e->rtau_d, rtau.data(), rtau.size() * 8, cudaMemcpyHostToDevice);
    /* the counters of a chunk may use the opt-in shared memory less the kernels' own */
    const int smem_max = smem_optin - 4096;
    if (c == cudaSuccess) c = cudaFuncSetAttribute(gks_count_kernel<GKS_COUNT>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max);
    if (c == cudaSuccess) c = cudaFuncSetAttribute(gks_count_kernel<GKS_TOPK>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max);
    if (c == cudaSuccess) c = cudaFuncSetAttribute(gks_count_kernel<GKS_WITHIN>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max);
    if (c != cudaSuccess) {
        snprintf(err, errlen, "CUDA device %d: %s", device, cudaGetErrorString(c));
        cudaGetLastError();
        return NULL;
    }
    e->chunk_max = std::min<int64_t>(GKS_DEFAULT_CHUNK, smem_max / 4);
    e->times.setup_s = tsk_cuda_seconds() - t0;
    if (plan_parts(e, part_capacity(e)) || (e->parts.size() == 1 && build(e, 0))) {
        snprintf(err, errlen, "%s", e->err);
        return NULL;
    }
    return owned.release();
}

extern "C" tsk_gpu_genome_sets *tsk_gpu_genome_sets_open(const tsk_key_sets *q, const tsk_key_sets *r, int device,
                                                         tsk_gpu_genome_sets_peers *peers, int member, char *err,
                                                         size_t errlen)
{
    if (peers && (member < 0 || member >= peers->members)) {
        snprintf(err, errlen, "member %d of %d peers", member, peers->members);
        return NULL;
    }
    tsk_gpu_genome_sets *e = tsk_cuda_entry("tsk_gpu_genome_sets_open", err, errlen, (tsk_gpu_genome_sets *)NULL, [&] {
        return open_engine(q, r, 0, r->n_items, device, peers, member, err, errlen);
    });
    if (peers) peers->finish(member); /* opened (its share copied, if it had one), or not: either way done */
    if (e) e->opening = false;
    return e;
}

extern "C" tsk_gpu_genome_sets *tsk_gpu_genome_sets_open_shard(const tsk_key_sets *q, const tsk_key_sets *r,
                                                               int64_t r_lo, int64_t r_hi, int device, char *err,
                                                               size_t errlen)
{
    if (!tsk_key_sets_holds(r, r_lo, r_hi - r_lo)) {
        snprintf(err, errlen, "references [%lld, %lld) are not in a set of %lld genomes", (long long)r_lo,
                 (long long)r_hi, (long long)r->n_items);
        return NULL;
    }
    tsk_gpu_genome_sets *e = tsk_cuda_entry("tsk_gpu_genome_sets_open_shard", err, errlen, (tsk_gpu_genome_sets *)NULL,
                                            [&] { return open_engine(q, r, r_lo, r_hi, device, NULL, 0, err, errlen); });
    if (e) e->opening = false;
    return e;
}

extern "C" tsk_gpu_genome_sets_peers *tsk_gpu_genome_sets_peers_new(const tsk_key_sets *r, int n_members)
{
    if (n_members < 1) return NULL;
    return tsk_cuda_entry("tsk_gpu_genome_sets_peers_new", (char *)NULL, 0, (tsk_gpu_genome_sets_peers *)NULL, [&] {
        /* shares of about equal keys, references in order */
        return new tsk_gpu_genome_sets_peers(n_members, r->n_items, [&](int64_t i) { return r->offset[i] - r->offset[0]; });
    });
}

extern "C" void tsk_gpu_genome_sets_peers_leave(tsk_gpu_genome_sets_peers *p, int member)
{
    if (p && member >= 0 && member < p->members) p->finish(member);
}

extern "C" void tsk_gpu_genome_sets_peers_free(tsk_gpu_genome_sets_peers *p) { delete p; }

extern "C" void tsk_gpu_genome_sets_set_limits(tsk_gpu_genome_sets *e, int64_t max_part_keys, int64_t max_chunk_refs)
{
    if (!e) return;
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, e->dev);
    e->chunk_max = max_chunk_refs > 0 ? std::min<int64_t>(max_chunk_refs, (optin - 4096) / 4) : GKS_DEFAULT_CHUNK;
    e->part_cap = max_part_keys > 0 ? max_part_keys : 0;
    /* calls then fail with e->err */
    if (guarded(e, "tsk_gpu_genome_sets_set_limits", [&] { return plan_parts(e, part_capacity(e)); })) e->parts.clear();
}

extern "C" void tsk_gpu_genome_sets_timing(const tsk_gpu_genome_sets *e, tsk_gpu_genome_sets_times *t)
{
    *t = e ? e->times : tsk_gpu_genome_sets_times{0, 0, 0, 0, 0, 1};
}

extern "C" void tsk_gpu_genome_sets_layout(const tsk_gpu_genome_sets *e, int64_t *n_parts, int64_t *largest_part)
{
    *n_parts = e ? (int64_t)e->parts.size() : 0, *largest_part = 0;
    if (e)
        for (const gks_part &p : e->parts) *largest_part = std::max(*largest_part, p.keys);
}

/* ---- calls ---- */

/* What one call asks for; results go to the caller's arrays as batches finish. */
struct gks_call {
    int mode_kind;                /* GKS_COUNT, GKS_TOPK, GKS_WITHIN */
    int64_t q0, nq, w0, w1;       /* queries, references [w0, w1) */
    int k;
    tsk_genome_mode mode;
    tsk_pair_filter filter;
    double min_share;
    uint32_t *counts;             /* GKS_COUNT */
    int64_t ld;
    tsk_genome_pair *best;        /* GKS_TOPK: nq * k, kept sorted across chunks and parts */
    std::vector<tsk_genome_pair> *found;  /* GKS_WITHIN */
};

/* Merges the sorted list in[0..n) into best[0..k) (ref -1: its end), through tmp (k entries). */
static void merge_best(tsk_genome_pair *best, const tsk_genome_pair *in, int n, int k, tsk_genome_pair *tmp)
{
    int a = 0, b = 0, m = 0;
    while (m < k) {
        const bool ha = a < k && best[a].ref >= 0, hb = b < n;
        if (!ha && !hb) break;
        if (ha && (!hb || tsk_genome_ranks_before(&best[a], &in[b]))) tmp[m++] = best[a++];
        else tmp[m++] = in[b++];
    }
    const int64_t q = best[0].query;
    for (int j = 0; j < k; j++) best[j] = j < m ? tmp[j] : tsk_genome_pair{q, -1, 0, 0.0};
}

/* Runs queries [b0, b1) of the call against chunks of part pi. */
static int run_batch(tsk_gpu_genome_sets *e, const gks_call &c, int pi, int64_t b0, int64_t b1, int64_t lo, int64_t hi,
                     int n_chunks, int64_t clen)
{
    const tsk_key_sets *q = e->q, *r = e->r;
    const gks_part &p = e->parts[(size_t)pi];
    const int64_t nb = b1 - b0, kbase = q->offset[b0], nk = q->offset[b1] - kbase;
    e->qoff.resize((size_t)nb + 1);
    for (int64_t i = 0; i <= nb; i++) e->qoff[(size_t)i] = q->offset[b0 + i] - kbase;
    TSK_CUDA_CHECK(site(e), tsk_cuda_grow((void **)&e->bkeys_d, &e->bkeys_cap, (size_t)std::max<int64_t>(nk, 1) * 8));
    TSK_CUDA_CHECK(site(e),
                   tsk_cuda_grow((void **)&e->range_d, &e->range_cap, (size_t)std::max<int64_t>(nk, 1) * sizeof(gks_run)));
    TSK_CUDA_CHECK(site(e), tsk_cuda_grow((void **)&e->qoff_d, &e->qoff_cap, e->qoff.size() * sizeof(int64_t)));
    if (nk > 0) TSK_CUDA_CHECK(site(e), tsk_stage_upload(e->stage, e->bkeys_d, q->keys + kbase, (size_t)nk * 8, e->st));
    TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->qoff_d, e->qoff.data(), e->qoff.size() * sizeof(int64_t),
                                            cudaMemcpyHostToDevice, e->st));
    if (nk > 0) {
        const int blocks = (int)std::min<int64_t>((nk + 255) / 256, (int64_t)e->sms * 16);
        gks_lookup_kernel<<<blocks, 256, 0, e->st>>>(e->bkeys_d, nk, e->pkeys[e->cur], p.keys, e->range_d);
        TSK_CUDA_CHECK(site(e), cudaGetLastError());
    }
    gks_launch L;
    memset(&L, 0, sizeof L);
    L.pkeys = e->pkeys[e->cur], L.pref = e->pref[e->cur], L.range = e->range_d, L.qoff = e->qoff_d;
    L.rsize = e->rsize_d, L.qbase = b0, L.part0 = (int32_t)p.r0;
    if (e->floor) L.qtau = e->qtau_d + b0, L.rtau = e->rtau_d, L.qkeys = e->bkeys_d, L.rkeys = e->rkeys_d, L.roff = e->poff_d;
    L.lo = (int32_t)(lo - p.r0), L.hi = (int32_t)(hi - p.r0), L.clen = (int32_t)clen, L.n_chunks = n_chunks;
    L.mode = (int)c.mode, L.filter = (int)c.filter, L.k = c.k, L.min_share = c.min_share;
    const int64_t n_blocks = nb * n_chunks;
    const size_t smem = (size_t)clen * 4;
    if (c.mode_kind == GKS_COUNT) {
        const int64_t ncols = c.w1 - c.w0;
        TSK_CUDA_CHECK(site(e), tsk_cuda_grow(&e->out_d, &e->out_cap, (size_t)(nb * ncols) * 4 + 4));
        L.counts = (uint32_t *)e->out_d, L.ncols = ncols, L.col0 = c.w0;
        gks_count_kernel<GKS_COUNT><<<(unsigned)n_blocks, GKS_THREADS, smem, e->st>>>(L);
        TSK_CUDA_CHECK(site(e), cudaGetLastError());
        /* this part's columns [lo, hi) of rows b0 .. b1 */
        TSK_CUDA_CHECK(site(e), cudaMemcpy2DAsync(c.counts + (b0 - c.q0) * c.ld + (lo - c.w0), (size_t)c.ld * 4,
                                                  (uint32_t *)e->out_d + (lo - c.w0), (size_t)ncols * 4,
                                                  (size_t)(hi - lo) * 4, (size_t)nb, cudaMemcpyDeviceToHost, e->st));
        TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
        return 0;
    }
    if (c.mode_kind == GKS_TOPK) {
        const size_t n_hits = (size_t)(n_blocks * c.k);
        TSK_CUDA_CHECK(site(e), tsk_cuda_grow(&e->out_d, &e->out_cap, n_hits * sizeof(gks_hit)));
        L.hits = (gks_hit *)e->out_d;
        gks_count_kernel<GKS_TOPK><<<(unsigned)n_blocks, GKS_THREADS, smem, e->st>>>(L);
        TSK_CUDA_CHECK(site(e), cudaGetLastError());
        e->hits.resize(n_hits);
        TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->hits.data(), e->out_d, n_hits * sizeof(gks_hit),
                                                cudaMemcpyDeviceToHost, e->st));
        TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
        /* each chunk's list is sorted: its entries count only until one ranks after the k-th best */
        std::vector<tsk_genome_pair> list((size_t)c.k), tmp((size_t)c.k);
        for (int64_t i = 0; i < nb; i++) {
            const int64_t qg = b0 + i;
            tsk_genome_pair *best = c.best + (qg - c.q0) * c.k;
            for (int ch = 0; ch < n_chunks; ch++) {
                const gks_hit *h = &e->hits[(size_t)((i * n_chunks + ch) * c.k)];
                int n = 0;
                for (int j = 0; j < c.k && h[j].ref >= 0; j++) {
                    int64_t n_q, n_r;
                    tsk_genome_pair_sizes(q, qg, r, h[j].ref, &n_q, &n_r);
                    const tsk_genome_pair p = {qg, h[j].ref, h[j].shared, tsk_genome_share(h[j].shared, n_q, n_r, c.mode)};
                    if (best[c.k - 1].ref >= 0 && !tsk_genome_ranks_before(&p, &best[c.k - 1])) break;
                    list[(size_t)n++] = p;
                }
                if (n > 0) merge_best(best, list.data(), n, c.k, tmp.data());
            }
        }
        return 0;
    }
    /* GKS_WITHIN: hits reserved block by block; when they overflow the buffer, grow it and rerun */
    TSK_CUDA_CHECK(site(e), tsk_cuda_grow((void **)&e->recs_d, &e->recs_cap, (size_t)n_blocks * sizeof(gks_rec)));
    TSK_CUDA_CHECK(site(e), tsk_cuda_grow(&e->out_d, &e->out_cap, (size_t)n_blocks * 64 * sizeof(gks_hit)));
    for (;;) {
        const unsigned long long cap = e->out_cap / sizeof(gks_hit);
        L.hits = (gks_hit *)e->out_d, L.n_hits = e->n_hits_d, L.hit_cap = cap, L.recs = e->recs_d;
        TSK_CUDA_CHECK(site(e), cudaMemsetAsync(e->n_hits_d, 0, sizeof(unsigned long long), e->st));
        gks_count_kernel<GKS_WITHIN><<<(unsigned)n_blocks, GKS_THREADS, smem, e->st>>>(L);
        TSK_CUDA_CHECK(site(e), cudaGetLastError());
        unsigned long long total = 0;
        TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(&total, e->n_hits_d, sizeof total, cudaMemcpyDeviceToHost, e->st));
        TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
        if (total > cap) {
            TSK_CUDA_CHECK(site(e), tsk_cuda_grow(&e->out_d, &e->out_cap, (size_t)total * sizeof(gks_hit)));
            continue;
        }
        e->hits.resize((size_t)total);
        e->recs.resize((size_t)n_blocks);
        if (total) TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->hits.data(), e->out_d, (size_t)total * sizeof(gks_hit),
                                                           cudaMemcpyDeviceToHost, e->st));
        TSK_CUDA_CHECK(site(e), cudaMemcpyAsync(e->recs.data(), e->recs_d, (size_t)n_blocks * sizeof(gks_rec),
                                                cudaMemcpyDeviceToHost, e->st));
        TSK_CUDA_CHECK(site(e), cudaStreamSynchronize(e->st));
        break;
    }
    for (int64_t i = 0; i < nb; i++) {
        const int64_t qg = b0 + i;
        for (int ch = 0; ch < n_chunks; ch++) {
            const gks_rec &rc = e->recs[(size_t)(i * n_chunks + ch)];
            for (uint32_t j = 0; j < rc.n; j++) {
                const gks_hit &h = e->hits[(size_t)(rc.off + j)];
                int64_t n_q, n_r;
                tsk_genome_pair_sizes(q, qg, r, h.ref, &n_q, &n_r);
                c.found->push_back({qg, h.ref, h.shared, tsk_genome_share(h.shared, n_q, n_r, c.mode)});
            }
        }
    }
    return 0;
}

static int run_call(tsk_gpu_genome_sets *e, const gks_call &c)
{
    if (e->parts.empty() && e->r_hi > e->r_lo) return -1;  /* set_limits failed: e->err says why */
    TSK_CUDA_CHECK(site(e), cudaSetDevice(e->dev));
    const tsk_key_sets *q = e->q;
    for (int pi = 0; pi < (int)e->parts.size(); pi++) {
        const gks_part &p = e->parts[(size_t)pi];
        const int64_t lo = std::max(c.w0, p.r0), hi = std::min(c.w1, p.r1);
        if (lo >= hi) continue;
        if (build(e, pi)) return -1;
        const int n_chunks = (int)((hi - lo + e->chunk_max - 1) / e->chunk_max);
        const int64_t clen = (hi - lo + n_chunks - 1) / n_chunks;
        /* per batch: at most GKS_BATCH_KEYS query keys and GKS_BATCH_OUT bytes of output (at least
         * one query) */
        int64_t per_query_out = c.mode_kind == GKS_COUNT ? (c.w1 - c.w0) * 4
                              : c.mode_kind == GKS_TOPK ? (int64_t)n_chunks * c.k * (int64_t)sizeof(gks_hit)
                                                       : (int64_t)n_chunks * (int64_t)sizeof(gks_rec);
        const int64_t max_queries = std::max<int64_t>(1, std::min<int64_t>(GKS_BATCH_OUT / std::max<int64_t>(per_query_out, 1),
                                                                          INT32_MAX / n_chunks));
        for (int64_t b0 = c.q0; b0 < c.q0 + c.nq;) {
            int64_t b1 = b0 + 1;
            while (b1 < c.q0 + c.nq && b1 - b0 < max_queries && q->offset[b1 + 1] - q->offset[b0] <= GKS_BATCH_KEYS) b1++;
            if (run_batch(e, c, pi, b0, b1, lo, hi, n_chunks, clen)) return -1;
            b0 = b1;
        }
    }
    return 0;
}

extern "C" int tsk_gpu_genome_sets_block(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr,
                                         uint32_t *shared, int64_t ld)
{
    if (!e) return -1;
    if (!tsk_key_sets_holds(e->q, q0, nq) || !tsk_key_sets_holds(e->r, r0, nr) || ld < nr || r0 < e->r_lo ||
        r0 + nr > e->r_hi) {
        snprintf(e->err, sizeof e->err, "bad block");
        return -1;
    }
    if (nq == 0 || nr == 0) return 0;
    gks_call c = {};
    c.mode_kind = GKS_COUNT, c.q0 = q0, c.nq = nq, c.w0 = r0, c.w1 = r0 + nr, c.counts = shared, c.ld = ld;
    return guarded(e, "tsk_gpu_genome_sets_block", [&] { return run_call(e, c); });
}

/* Every admitted pair of the call's queries with share >= min_share, in (query, reference) order. */
static int collect(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, double min_share, tsk_genome_mode mode,
                   tsk_pair_filter filter, std::vector<tsk_genome_pair> &found)
{
    gks_call c = {};
    c.mode_kind = GKS_WITHIN, c.q0 = q0, c.nq = nq, c.w0 = e->r_lo, c.w1 = e->r_hi;
    c.mode = mode, c.filter = filter, c.min_share = min_share, c.found = &found;
    if (run_call(e, c)) return -1;
    /* several parts each appended their (query, reference)-ordered hits */
    if (e->parts.size() > 1)
        std::sort(found.begin(), found.end(), [](const tsk_genome_pair &a, const tsk_genome_pair &b) {
            return a.query < b.query || (a.query == b.query && a.ref < b.ref);
        });
    return 0;
}

extern "C" int tsk_gpu_genome_sets_topk(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                                        tsk_pair_filter filter, tsk_genome_pair *out)
{
    if (!e) return -1;
    if (!tsk_key_sets_holds(e->q, q0, nq) || k < 1) {
        snprintf(e->err, sizeof e->err, "bad top-k query");
        return -1;
    }
    for (int64_t i = 0; i < nq; i++)
        for (int j = 0; j < k; j++) out[i * k + j] = tsk_genome_pair{q0 + i, -1, 0, 0.0};
    if (nq == 0 || e->r_hi == e->r_lo) return 0;
    if (k <= GKS_MAX_K) {
        gks_call c = {};
        c.mode_kind = GKS_TOPK, c.q0 = q0, c.nq = nq, c.w0 = e->r_lo, c.w1 = e->r_hi, c.k = k;
        c.mode = mode, c.filter = filter, c.best = out;
        return guarded(e, "tsk_gpu_genome_sets_topk", [&] { return run_call(e, c); });
    }
    /* k beyond the device lists: every sharing pair (share > 0, as the smallest positive double
     * admits exactly those), ranked here */
    return guarded(e, "tsk_gpu_genome_sets_topk", [&] {
        std::vector<tsk_genome_pair> found;
        if (collect(e, q0, nq, 4.9406564584124654e-324, mode, filter, found)) return -1;
        size_t a = 0;
        while (a < found.size()) {
            size_t b = a;
            while (b < found.size() && found[b].query == found[a].query) b++;
            const size_t keep = std::min<size_t>(b - a, (size_t)k);
            std::partial_sort(found.begin() + (long)a, found.begin() + (long)(a + keep), found.begin() + (long)b,
                              [](const tsk_genome_pair &x, const tsk_genome_pair &y) {
                                  return tsk_genome_ranks_before(&x, &y) != 0;
                              });
            std::copy(found.begin() + (long)a, found.begin() + (long)(a + keep), out + (found[a].query - q0) * k);
            a = b;
        }
        return 0;
    });
}

extern "C" int tsk_gpu_genome_sets_within(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, double min_share,
                                          tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs,
                                          int64_t *n, int64_t *cap)
{
    *n = 0;
    if (!e) return -1;
    if (!tsk_key_sets_holds(e->q, q0, nq)) {
        snprintf(e->err, sizeof e->err, "bad threshold query");
        return -1;
    }
    if (nq == 0 || e->r_hi == e->r_lo) return 0;
    return guarded(e, "tsk_gpu_genome_sets_within", [&] {
        std::vector<tsk_genome_pair> found;
        if (collect(e, q0, nq, min_share, mode, filter, found)) return -1;
        if ((int64_t)found.size() > *cap) {
            void *grown = realloc(*pairs, found.size() * sizeof **pairs);
            if (!grown) {
                snprintf(e->err, sizeof e->err, "out of host memory");
                return -1;
            }
            *pairs = (tsk_genome_pair *)grown, *cap = (int64_t)found.size();
        }
        if (!found.empty()) memcpy(*pairs, found.data(), found.size() * sizeof **pairs);
        *n = (int64_t)found.size();
        return 0;
    });
}
