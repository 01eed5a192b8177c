/* genome_sets_none.c: the GPU genome-sketch engine in a build without CUDA: never available. */
#include "genome_sets.h"

#include <stdio.h>

tsk_gpu_genome_sets_peers *tsk_gpu_genome_sets_peers_new(const tsk_key_sets *r, int n_members)
{
    (void)r, (void)n_members;
    return NULL;
}

void tsk_gpu_genome_sets_peers_leave(tsk_gpu_genome_sets_peers *p, int member) { (void)p, (void)member; }

void tsk_gpu_genome_sets_peers_free(tsk_gpu_genome_sets_peers *p) { (void)p; }

tsk_gpu_genome_sets *tsk_gpu_genome_sets_open(const tsk_key_sets *q, const tsk_key_sets *r, int device,
                                              tsk_gpu_genome_sets_peers *peers, int member, char *err, size_t errlen)
{
    (void)q, (void)r, (void)device, (void)peers, (void)member;
    snprintf(err, errlen, "this tsketch was built without CUDA");
    return NULL;
}

tsk_gpu_genome_sets *tsk_gpu_genome_sets_open_shard(const tsk_key_sets *q, const tsk_key_sets *r, int64_t r_lo,
                                                    int64_t r_hi, int device, char *err, size_t errlen)
{
    (void)q, (void)r, (void)r_lo, (void)r_hi, (void)device;
    snprintf(err, errlen, "this tsketch was built without CUDA");
    return NULL;
}

void tsk_gpu_genome_sets_close(tsk_gpu_genome_sets *e) { (void)e; }

int64_t tsk_gpu_genome_sets_bytes(const tsk_key_sets *r, int64_t r_lo, int64_t r_hi)
{
    (void)r, (void)r_lo, (void)r_hi;
    return 0;
}

const char *tsk_gpu_genome_sets_error(const tsk_gpu_genome_sets *e)
{
    (void)e;
    return "this tsketch was built without CUDA";
}

int tsk_gpu_genome_sets_block(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr,
                              uint32_t *shared, int64_t ld)
{
    (void)e, (void)q0, (void)nq, (void)r0, (void)nr, (void)shared, (void)ld;
    return -1;
}

int tsk_gpu_genome_sets_topk(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                             tsk_pair_filter filter, tsk_genome_pair *out)
{
    (void)e, (void)q0, (void)nq, (void)k, (void)mode, (void)filter, (void)out;
    return -1;
}

int tsk_gpu_genome_sets_within(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, double min_share,
                               tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n,
                               int64_t *cap)
{
    (void)e, (void)q0, (void)nq, (void)min_share, (void)mode, (void)filter, (void)pairs, (void)cap;
    *n = 0;
    return -1;
}

void tsk_gpu_genome_sets_set_limits(tsk_gpu_genome_sets *e, int64_t max_part_keys, int64_t max_chunk_refs)
{
    (void)e, (void)max_part_keys, (void)max_chunk_refs;
}

void tsk_gpu_genome_sets_layout(const tsk_gpu_genome_sets *e, int64_t *n_parts, int64_t *largest_part)
{
    (void)e;
    *n_parts = 0, *largest_part = 0;
}

void tsk_gpu_genome_sets_timing(const tsk_gpu_genome_sets *e, tsk_gpu_genome_sets_times *t)
{
    (void)e;
    *t = (tsk_gpu_genome_sets_times){0, 0, 0, 0, 0, 1};
}
