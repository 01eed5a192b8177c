/* genome_scan.h: the candidate keys of a genome sketch straight from the genome's codes, on the CPU.
 *
 * A genome sketch (core/genome_keys.h, docs/algorithm.md "Genome sketches") keeps the keys of
 * anchored windows: the window of W codes centred on every canonical anchor k-mer whose hash is at
 * most the genome's candidate bound, keyed by that hash and by the fingerprint of the window's
 * exact integer Tensor Sketch (canonical: the signed t-tuple counts of the window plus those of its
 * reverse complement). The sketch engines compute that sketch as a float row for every window and
 * the key is recovered from the row; this computes the integers directly, in the counting form of
 * the DP (docs/spec.md), for the few windows that are candidates (about one position in 133-500),
 * while it walks the anchors. The keys are the same bits (tests/cpu/test_genome_scan.c compares
 * them with the rows' keys and with the Python reference of testdata/genome).
 *
 * Twin of gpu/genome_scan.h. Work is split by anchor position, so a contig can be scanned in
 * pieces by many threads and the union of the pieces' keys is the contig's. Knows no file or
 * command line. */
#ifndef TSK_GENOME_SCAN_H
#define TSK_GENOME_SCAN_H

#include <stdint.h>

#include "../core/genome_ani.h"
#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A growing array of keys. */
typedef struct {
    uint64_t *keys;
    int64_t n, cap;
} tsk_key_vec;

/* Makes room for extra more keys; -1 when memory runs out. */
int tsk_key_vec_reserve(tsk_key_vec *v, int64_t extra);
void tsk_key_vec_free(tsk_key_vec *v);

/* Segment anchors (core/genome_ani.h) as a scan finds them: the genome's segment of each
 * (TSK_ANCHOR_LOOSE for a loose anchor) and its full 64-bit anchor hash, in position order. The
 * hash is kept whole because the genome's rate may only be known later (a --per-file genome
 * scanned before its last contig is read): the sketcher keeps those below its final bound
 * (tsk_anchor_vec_finish, src/genome_sketch.c). */
typedef struct {
    int64_t *segment;
    uint64_t *hash;
    int64_t n, cap;
} tsk_anchor_vec;

int tsk_anchor_vec_reserve(tsk_anchor_vec *v, int64_t extra);
void tsk_anchor_vec_free(tsk_anchor_vec *v);

/* What a scan collects of a contig's anchors for ANI: every anchor k-mer whose hash is at most
 * max_hash; one wholly inside one of the contig's full segments (TSK_ANI_SEGMENT bases from its
 * start; a shorter tail is none) has that segment, numbered first_segment + (its position /
 * TSK_ANI_SEGMENT), any other (in the tail, or across two segments) is loose. */
#define TSK_ANCHOR_LOOSE (-1)
typedef struct {
    uint64_t max_hash;
    int64_t first_segment;   /* the genome's segments before this contig */
    tsk_anchor_vec *out;
} tsk_anchor_request;

/* One thread's scratch (the DP state of a window, D x (t + 1) counts). */
typedef struct tsk_genome_scanner tsk_genome_scanner;

/* A scanner for p (genome sketch parameters: tsk_genome_params_check(p) == NULL); NULL when
 * memory runs out. */
tsk_genome_scanner *tsk_genome_scanner_new(const tsk_params *p);
void tsk_genome_scanner_free(tsk_genome_scanner *s);

/* Appends to out the key of every anchored window of the contig codes[0..n) (cleaned DNA codes,
 * 0..3) whose anchor k-mer starts at a position in [from, to) and whose anchor hash is at most
 * max_hash (tsk_genome_candidate_limit of the genome's length), in position order: exactly the
 * windows tsk_anchor_windows_below places there. Pieces [0, a), [a, b), .. [.., n) give the
 * contig's keys together. Returns 0, or -1 when memory runs out. */
int tsk_genome_scan(tsk_genome_scanner *s, const uint8_t *codes, int64_t n, int64_t from, int64_t to,
                    uint64_t max_hash, tsk_key_vec *out);

/* tsk_genome_scan that also collects the segment anchors ani asks for (NULL: none) from the same
 * anchor loop; out NULL: the anchors alone, no keys (a genome whose keys the GPU finds). Pieces
 * [from, to) of a contig give its anchors together as they give its keys. */
int tsk_genome_scan_with_anchors(tsk_genome_scanner *s, const uint8_t *codes, int64_t n, int64_t from, int64_t to,
                                 uint64_t max_hash, tsk_key_vec *out, const tsk_anchor_request *ani);

/* The anchor loop: portable (any CPU), or eight k-mers at a time with AVX-512 (F, DQ) and BMI2 for
 * anchor k <= 25. Both find the same anchors. A scanner starts with the widest this CPU runs, or the
 * one TSKETCH_SCAN_KERNEL names (portable, avx512; docs/testing.md). */
typedef enum { TSK_GENOME_SCAN_PORTABLE = 0, TSK_GENOME_SCAN_AVX512 = 1 } tsk_genome_scan_kernel;
/* Switches s to kernel; -1 (and no change) when this CPU or the anchor k cannot run it. */
int tsk_genome_scanner_use_kernel(tsk_genome_scanner *s, tsk_genome_scan_kernel kernel);
tsk_genome_scan_kernel tsk_genome_scanner_kernel(const tsk_genome_scanner *s);

/* The integer sketch of one window, as tsk_genome_scan fingerprints it: out[0..dim) = the signed
 * t-tuple counts of codes[0..w) per bin, plus those of its reverse complement when p->canonical.
 * For tests and benches. */
void tsk_genome_window_counts(tsk_genome_scanner *s, const uint8_t *codes, int64_t w, int32_t *out);

#ifdef __cplusplus
}
#endif
#endif
