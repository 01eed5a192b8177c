/* ani_pairs.h: ANI and AF of genome pairs on the GPU, the twin of core/genome_ani.h's tsk_ani_pair.
 *
 * The same bytes as tsk_ani_pair for every pair it estimates: the hits are exact integers, and each
 * direction's fit (cells, likelihood rows, the start and the EM steps, the ANI and AF) runs the host
 * code's double operations in its order without fused multiply-add (__dmul_rn, __dadd_rn,
 * __ddiv_rn), from the host's own tables of powers (tsk_ani_grid_powers). A pair it cannot estimate
 * the host's way on the device (a genome of more than TSK_GPU_ANI_MAX_SEGMENTS segments or
 * TSK_GPU_ANI_MAX_ANCHORS anchors with the loose ones its pairs look up, a segment of 256 anchors
 * or more) is flagged for the host, which computes it with tsk_ani_pair.
 *
 * How (docs/gpu.md, "ANI"): every genome's anchors, with the loose ones its pairs look up
 * (tsk_ani_loose_used), go to the device once and are sorted by value, with their segments (the
 * loose ones a segment of their own, counted in none) and an index of their top 12 bits. One CUDA block a pair: the reference's sorted anchors
 * are merged with the query's (both cut to the sparser rate), counting both directions' hits per
 * segment in shared memory; each direction's (anchors, hits) codes are sorted
 * (bitonic) into cells; the rows, the start and the EM steps run with a thread a cell, then a
 * thread a grid point. */
#ifndef TSK_GPU_ANI_PAIRS_H
#define TSK_GPU_ANI_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_ani.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSK_GPU_ANI_MAX_SEGMENTS 4096  /* 12 Mbp: a segment's counts in shared memory */
#define TSK_GPU_ANI_MAX_ANCHORS 65536  /* with loose ones looked up: the query's hit bits in shared memory */

typedef struct tsk_gpu_ani tsk_gpu_ani;

/* Engines of the same items opened at once on several GPUs (a distance run's lanes): the genomes
 * are cut into 8n shares of about equal anchors; each member uploads and sorts the next share no
 * member took until none is left, then copies the others' from the GPUs that sorted them (NVLink
 * where the GPUs have it, else through the host; gpu/peer_group.cuh), so that n GPUs open in about
 * 1/n of the upload and the sort, a GPU that opens late taking fewer. A share whose member fails
 * is filled from the host by each member that needs it. Made before the members open; freed after
 * every member's engine is closed. */
typedef struct tsk_gpu_ani_peers tsk_gpu_ani_peers;
tsk_gpu_ani_peers *tsk_gpu_ani_peers_new(const tsk_ani_set *q, const tsk_ani_set *r, int n_members);
/* Member `member` will not open (its lane did not start). */
void tsk_gpu_ani_peers_leave(tsk_gpu_ani_peers *p, int member);
void tsk_gpu_ani_peers_free(tsk_gpu_ani_peers *p);

/* Takes device `device`'s memory for the anchors of q's and r's genomes (once when q == r), for
 * pairs of anchor_k-mer anchors of genome sketches of this window (the results' m_q and m_r, as a
 * work with tsk_ani_work_set_window(window); 0: none), and starts filling it on a thread of its own
 * (the copies and the sorts, seconds at 10^5 genomes), which the first tsk_gpu_ani_pairs waits
 * for: the caller compares keys meanwhile. Every device buffer is taken before it returns. peers:
 * NULL (the engine fills every genome itself), or the engines it opens among, as their member
 * `member` (a failed open leaves them). Returns NULL with a message when there is no usable device
 * or memory runs out. q and r are borrowed until close. */
tsk_gpu_ani *tsk_gpu_ani_open(const tsk_ani_set *q, const tsk_ani_set *r, int anchor_k, int window, int device,
                              tsk_gpu_ani_peers *peers, int member, char *err, size_t errlen);
void tsk_gpu_ani_close(tsk_gpu_ani *e);

/* Waits for what e does in the background (the fill of its anchors, which reads q's and r's)
 * and frees nothing: for an engine left to the process's end (tsk_dist_engine_leave), whose sets
 * are freed before the process ends. */
void tsk_gpu_ani_settle(tsk_gpu_ani *e);

/* About the device memory tsk_gpu_ani_open takes for q's and r's genomes (once when q == r). */
int64_t tsk_gpu_ani_bytes(const tsk_ani_set *q, const tsk_ani_set *r);
const char *tsk_gpu_ani_error(const tsk_gpu_ani *e);

/* out[i] = tsk_ani_pair of genomes query[i] of q and ref[i] of r, for the pairs with on_host[i] == 0;
 * on_host[i] = 1 for those left to the host. Returns 0, or -1 with the reason in tsk_gpu_ani_error;
 * after a failure the engine is given up: every later call returns -2 at once (its reason was the
 * failed call's), so that the caller says it once. */
int tsk_gpu_ani_pairs(tsk_gpu_ani *e, const int64_t *query, const int64_t *ref, int64_t n, tsk_ani_result *out,
                      uint8_t *on_host);

/* For tests: the anchors one sort call takes at most (2^30, which bounds the sort's scratch; 0: that
 * again). Opens after it sort the genomes in chunks of that many anchors. */
void tsk_gpu_ani_set_sort_chunk(int64_t anchors);

/* Where e's seconds went (TSKETCH_TIMING). */
typedef struct {
    double open_s;    /* tsk_gpu_ani_open: the layout and every device buffer taken */
    double upload_s;  /* the fill, on its own thread from the open on: its anchors from the host, sorted */
    double fill_s;    /* the whole fill */
    double waited_s;  /* what the first tsk_gpu_ani_pairs waited for it */
    int64_t pairs;    /* the pairs of all tsk_gpu_ani_pairs calls */
    double pairs_s;   /* and their seconds, less the wait */
    double others_s;  /* then the other peers' shares copied from their GPUs */
    int members;      /* the peers it opened among (1: alone) */
    double open_parts_s[4]; /* open_s's parts: the device buffers, the sort sized, the tables, the blocks' scratch */
} tsk_gpu_ani_times;
void tsk_gpu_ani_timing(const tsk_gpu_ani *e, tsk_gpu_ani_times *t);

#ifdef __cplusplus
}
#endif
#endif
