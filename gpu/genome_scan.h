/* genome_scan.h: the candidate keys of genome sketches straight from the genomes' codes, on a GPU.
 *
 * Twin of cpu/genome_scan.h: for every contig of a batch, the key of every anchored window whose
 * anchor hash is at most the contig's candidate bound, the same bits as tsk_genome_scan gives (the
 * window's exact integer Tensor Sketch, counted modulo 2^32 as there, fingerprinted and joined to
 * the anchor hash by tsk_genome_key_join). Only the order differs: a contig's keys come back in no
 * particular order (the caller sorts them, as it sorts the CPU engine's).
 *
 * How: the batch's codes go to the device through pinned staging (copies of one chunk overlap the
 * transfer of the last); one thread per 32 k-mer starts hashes their canonical k-mers and appends
 * the candidates (one atomic per warp); then a group of 2^j <= 32 lanes per candidate (one lane per
 * bin, two for D > 32) runs the counting DP of both strands in registers, a level's shift by the
 * hash being one warp shuffle, and the fingerprint chain; a radix sort by contig groups the keys.
 * The device needs about 1 byte per base of the batch and 24 per candidate.
 *
 * Limits (else open refuses and the caller uses the CPU engine): DNA; t <= 8; dim <= 64;
 * window <= 64 and t <= window; anchor k 1..32; a batch of fewer than 2^31 candidates. The default
 * genome parameters (t 4, dim 16, window 20, k 16) and every window tsk_genome_params_check admits
 * with t <= 8 and dim <= 64 are inside. */
#ifndef TSK_GPU_GENOME_SCAN_H
#define TSK_GPU_GENOME_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The limits above. */
#define TSK_GPU_GENOME_SCAN_MAX_T 8
#define TSK_GPU_GENOME_SCAN_MAX_DIM 64
#define TSK_GPU_GENOME_SCAN_MAX_WINDOW 64

/* 1 when the build has CUDA and a device is usable; else 0 with the reason in why (when not NULL). */
int tsk_gpu_genome_scan_available(char *why, size_t whylen);

typedef struct tsk_gpu_genome_scanner tsk_gpu_genome_scanner;

/* A scanner for p on device `device` (p is copied). NULL with the reason in err when the device
 * cannot be used ("built without CUDA", no device) or p is outside the limits above (then the
 * caller uses the CPU engine). */
tsk_gpu_genome_scanner *tsk_gpu_genome_scanner_open(const tsk_params *p, int device, char *err, size_t errlen);
void tsk_gpu_genome_scanner_close(tsk_gpu_genome_scanner *g);

/* The keys of a batch of n_contigs contigs: contig c is codes[offset[c] .. offset[c+1]) (cleaned
 * DNA codes 0..3; offset nondecreasing, n_contigs + 1 entries), its candidate bound max_hash[c]
 * (tsk_genome_candidate_limit of its genome's length). On return contig c's keys are
 * (*keys)[key_offset[c] .. key_offset[c+1]), in any order, key_offset[0] = 0 (n_contigs + 1
 * entries, the caller's); *keys is a malloc'ed array of *keys_cap entries that this grows with
 * realloc (NULL and 0 at first). Contigs shorter than the window or the anchor have none. Returns 0,
 * or -1 with the reason in err (a CUDA error, device or host memory exhausted, bad arguments). */
int tsk_gpu_genome_scan_batch(tsk_gpu_genome_scanner *g, const uint8_t *codes, const int64_t *offset,
                              const uint64_t *max_hash, int64_t n_contigs, uint64_t **keys, int64_t *keys_cap,
                              int64_t *key_offset, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
