/* cpu_counts.c: the CPU engine's count path (sketch_counts.h): DNA whole-record rows at t <= 4.
 *
 * Count states of neighbouring pieces merge exactly (tsk_counts_merge), so a long record needs no
 * split formula and no order among threads: the batch becomes items of about PIECE_BASES bases,
 * a run of short records or one piece of a long record, which one parallel region computes on a
 * dynamic schedule; a second loop of the same region merges each long record's pieces left to
 * right and projects them. Pieces sit at fixed positions that depend on the record's length only,
 * so the rows are the same bits for any thread count. */
#include "sketch_counts.h"
#include "sketch_short.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tsk_knobs.h"

#define PIECE_BASES (INT64_C(1) << 16) /* bases of work per item: a few hundred per 16 Mbp batch */
#define MAX_PIECES 4096                 /* per record; longer pieces beyond (a 2.4 Gbp chromosome set) */
#define RECORD_COST 512                 /* a short record's projection, in bases of counting */

int tsk_cpu_counts_used(const tsk_params *p)
{
    /* TSKETCH_CPU_METHOD=dp: the sketch DP everywhere (benches compare the two) */
    return !tsk_knobs_get()->cpu_method_dp && p->alphabet == TSK_DNA && p->t <= TSK_COUNT_MAX_T && p->window == 0;
}

/* Length of the pieces of a record of n bases: PIECE_BASES, or longer to keep MAX_PIECES; a
 * multiple of the block. */
static int64_t piece_length(int64_t n)
{
    int64_t len = (n + MAX_PIECES - 1) / MAX_PIECES;
    if (len < PIECE_BASES) len = PIECE_BASES;
    return (len + TSK_COUNTS_BLOCK - 1) / TSK_COUNTS_BLOCK * TSK_COUNTS_BLOCK;
}

/* Records [first, last) whole (piece < 0), or piece `piece` of record first into state `slot`. */
typedef struct {
    int64_t first, last, piece, slot;
} item;

/* A record cut into pieces: its states are slots first_slot .. first_slot + pieces - 1. */
typedef struct {
    int64_t rec, first_slot, pieces;
} long_record;

static void store_row(const tsk_params *p, void *out, int64_t row, const double *v)
{
    const size_t at = (size_t)row * (size_t)p->dim;
    if (p->precision == TSK_DOUBLE) {
        memcpy((double *)out + at, v, (size_t)p->dim * sizeof *v);
    } else {
        float *o = (float *)out + at;
        for (int l = 0; l < p->dim; l++) o[l] = (float)v[l];
    }
}

int tsk_cpu_sketch_counts(const tsk_params *p, const tsk_batch *b, void *out, int threads)
{
    const int t = p->t, size = tsk_counts_size(t);
    int64_t n_items = 0, n_long = 0, n_slots = 0;
    for (int64_t i = 0; i < b->n_records; i++) {
        const int64_t n = tsk_batch_len(b, i);
        if (n > PIECE_BASES) n_long++, n_slots += (n + piece_length(n) - 1) / piece_length(n);
    }
    /* at most one item per record plus one per piece */
    item *items = malloc((size_t)(b->n_records + n_slots + 1) * sizeof *items);
    long_record *longs = malloc((size_t)(n_long + 1) * sizeof *longs);
    double *states = malloc((size_t)(n_slots + 1) * (size_t)size * sizeof *states);
    tsk_counts_map *map = malloc(sizeof *map);
    int failed = !items || !longs || !states || !map;
    /* genome sketches' windows (short records at D = 16): the bin recurrence (sketch_short.h) */
    tsk_short_tables *st = tsk_short_tables_make(p);
    if (!failed) {
        tsk_counts_map_init(p, map);
        int64_t slot = 0, cost = 0;
        n_long = 0;
        for (int64_t i = 0; i < b->n_records; i++) {
            const int64_t n = tsk_batch_len(b, i);
            if (n > PIECE_BASES) {
                const int64_t pieces = (n + piece_length(n) - 1) / piece_length(n);
                longs[n_long++] = (long_record){i, slot, pieces};
                for (int64_t k = 0; k < pieces; k++) items[n_items++] = (item){i, i + 1, k, slot++};
                continue;
            }
            /* a run of short records grows until it holds PIECE_BASES of work */
            if (cost == 0) items[n_items++] = (item){i, i + 1, -1, -1};
            else items[n_items - 1].last = i + 1;
            cost += n + RECORD_COST;
            if (cost >= PIECE_BASES) cost = 0;
            if (i + 1 < b->n_records && tsk_batch_len(b, i + 1) > PIECE_BASES) cost = 0;
        }
    }
#pragma omp parallel num_threads(threads) if (!failed && (n_items > 1 || n_long > 0))
    {
        double *row = failed ? NULL : malloc((size_t)p->dim * sizeof *row);
        double state[341];
        if (!row) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < n_items; i++) {
            const item *it = &items[i];
            if (!row) continue;
            if (it->piece >= 0) {
                const int64_t n = tsk_batch_len(b, it->first), len = piece_length(n), at = it->piece * len;
                tsk_counts_scan_engine(t, b->codes + b->offset[it->first] + at, n - at < len ? n - at : len,
                                       states + (size_t)it->slot * (size_t)size);
                continue;
            }
            for (int64_t r = it->first; r < it->last; r++) {
                const int64_t n = tsk_batch_len(b, r);
                if (st && n <= TSK_SHORT_MAX_BASES) {
                    tsk_short_row(p, st, b->codes + b->offset[r], n, row);
                } else {
                    tsk_counts_scan_engine(t, b->codes + b->offset[r], n, state);
                    tsk_counts_row_engine(map, state, n, row);
                }
                store_row(p, out, b->row_offset[r], row);
            }
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t l = 0; l < n_long; l++) {
            if (!row) continue;
            double *whole = states + (size_t)longs[l].first_slot * (size_t)size;
            for (int64_t k = 1; k < longs[l].pieces; k++) tsk_counts_merge(t, whole, whole + (size_t)k * (size_t)size);
            tsk_counts_row_engine(map, whole, tsk_batch_len(b, longs[l].rec), row);
            store_row(p, out, b->row_offset[longs[l].rec], row);
        }
        free(row);
    }
    free(items);
    free(longs);
    free(states);
    free(map);
    tsk_short_tables_free(st);
    return failed ? -1 : 0;
}
