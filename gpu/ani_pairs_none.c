/* ani_pairs_none.c: the GPU ANI engine in a build without CUDA: never available. */
#include "ani_pairs.h"

#include <stdio.h>

tsk_gpu_ani_peers *tsk_gpu_ani_peers_new(const tsk_ani_set *q, const tsk_ani_set *r, int n_members)
{
    (void)q, (void)r, (void)n_members;
    return NULL;
}

void tsk_gpu_ani_peers_leave(tsk_gpu_ani_peers *p, int member) { (void)p, (void)member; }

void tsk_gpu_ani_peers_free(tsk_gpu_ani_peers *p) { (void)p; }

tsk_gpu_ani *tsk_gpu_ani_open(const tsk_ani_set *q, const tsk_ani_set *r, int anchor_k, int window, int device,
                              tsk_gpu_ani_peers *peers, int member, char *err, size_t errlen)
{
    (void)q, (void)r, (void)anchor_k, (void)window, (void)device, (void)peers, (void)member;
    snprintf(err, errlen, "this tsketch was built without CUDA");
    return NULL;
}

void tsk_gpu_ani_close(tsk_gpu_ani *e) { (void)e; }

void tsk_gpu_ani_settle(tsk_gpu_ani *e) { (void)e; }

const char *tsk_gpu_ani_error(const tsk_gpu_ani *e)
{
    (void)e;
    return "this tsketch was built without CUDA";
}

int tsk_gpu_ani_pairs(tsk_gpu_ani *e, const int64_t *query, const int64_t *ref, int64_t n, tsk_ani_result *out,
                      uint8_t *on_host)
{
    (void)e, (void)query, (void)ref, (void)n, (void)out, (void)on_host;
    return -1;
}

void tsk_gpu_ani_timing(const tsk_gpu_ani *e, tsk_gpu_ani_times *t)
{
    (void)e;
    *t = (tsk_gpu_ani_times){.members = 1};
}

void tsk_gpu_ani_set_sort_chunk(int64_t anchors) { (void)anchors; }

int64_t tsk_gpu_ani_bytes(const tsk_ani_set *q, const tsk_ani_set *r)
{
    (void)q, (void)r;
    return 0;
}
