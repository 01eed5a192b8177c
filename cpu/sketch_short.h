/* sketch_short.h: whole-record rows of short DNA records at D = 16, for genome sketches' windows.
 *
 * A genome sketch sketches every window of 20 bases on its own (core/genome_keys.h). The count
 * path (sketch_counts.h) spends most of such a record projecting 4^t tuple counts onto the bins;
 * here the bin recurrence of docs/spec.md runs instead, in exact integers on sixteen lanes (one
 * AVX-512 register, or two AVX2 ones, chosen at load time): t rotations and adds per base and
 * strand. Its rows are the exact integer sums divided by C(n, t) (twice that for canonical rows),
 * correctly rounded: within an ulp or two of the count path's, and the same integer sketches
 * (the keys of genome sketches are bit for bit the same). */
#ifndef TSK_CPU_SKETCH_SHORT_H
#define TSK_CPU_SKETCH_SHORT_H

#include <stdint.h>

#include "../core/tsk_def.h"

/* Records up to this length take the short path (|sums| <= C(64, 4) < 2^31). */
#define TSK_SHORT_MAX_BASES 64

typedef struct tsk_short_tables tsk_short_tables;

/* The tables of p as lanes, or NULL when the short path does not apply to p (not DNA, D != 16,
 * t > TSK_COUNT_MAX_T) or memory runs out. */
tsk_short_tables *tsk_short_tables_make(const tsk_params *p);
void tsk_short_tables_free(tsk_short_tables *st);

/* row[0..16) of the whole-record sketch of x[0..n), n <= TSK_SHORT_MAX_BASES (zero when n < t). */
void tsk_short_row(const tsk_params *p, const tsk_short_tables *st, const uint8_t *x, int64_t n, double *row);

#endif
