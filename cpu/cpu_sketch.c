/* cpu_sketch.c: the CPU engine's scheduler (cpu_sketch.h). Splits a batch into tasks that
 * sketch_dp.c and sketch_slide.c compute, and runs them on OpenMP threads.
 *
 * 1. Whole-record sketches of records longer than the chunk length: one record at a time, its
 *    fixed-position chunks spread over all threads; each chunk is folded into the running state
 *    in chunk order (omp ordered), so the sum is the same for any thread count.
 * 2. Everything else (shorter records, groups of slide rows): one task each, longest first,
 *    dynamic schedule. A task writes only its own rows.
 * No result depends on which thread ran what: bit-identical for any thread count. */
#include "cpu_sketch.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "sketch_dp.h"

int tsk_cpu_max_dim(void) { return TSK_MAX_DIM; }

/* A unit of phase 2: record rec, whole sketch (group < 0) or slide rows of group `group`. */
typedef struct {
    int64_t rec, group, cost;
} task;

static int task_longest_first(const void *a, const void *b)
{
    const task *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    return (x->group > y->group) - (x->group < y->group);
}

static void store_rows(const tsk_params *p, void *out, int64_t row, const double *v, int64_t rows)
{
    const size_t count = (size_t)rows * (size_t)p->dim, at = (size_t)row * (size_t)p->dim;
    if (p->precision == TSK_DOUBLE) {
        memcpy((double *)out + at, v, count * sizeof *v);
    } else {
        float *o = (float *)out + at;
        for (size_t i = 0; i < count; i++) o[i] = (float)v[i];
    }
}

/* Codes of strand `strand` of x[0..n) from position a to b: x itself, or its reverse complement
 * (whose [a, b) is the reverse complement of x[n-b, n-a)) written into buf. */
static const uint8_t *strand_slice(const uint8_t *x, int64_t n, int strand, int64_t a, int64_t b, uint8_t *buf)
{
    if (strand == 0) return x + a;
    tsk_revcomp_codes(x + (n - b), (size_t)(b - a), buf);
    return buf;
}

/* Phase 1: the whole sketch of one long record (n > chunk) into acc (dim doubles, added with weight
 * f), every thread on its chunks. */
static int sketch_long_record(const tsk_params *p, const uint8_t *x, int64_t n, int strand, int64_t chunk,
                              int in_double, int threads, double f, double *acc)
{
    const int t = p->t, dim = p->dim;
    const int64_t n_chunks = (n + chunk - 1) / chunk;
    const size_t state_values = (size_t)(t + 1) * (size_t)dim;
    double *const alloc = malloc(2 * state_values * sizeof *alloc);
    if (!alloc) return -1;
    double *state = alloc, *next = alloc + state_values;
    int failed = 0;
#pragma omp parallel num_threads(threads)
    {
        void *scratch = aligned_alloc(64, tsk_cpu_chunk_scratch(p, t));
        double *levels = malloc((size_t)levels_rows(t, t) * (size_t)dim * sizeof *levels);
        uint8_t *buf = strand ? malloc((size_t)chunk) : NULL;
        const int ok = scratch && levels && (!strand || buf);
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for ordered schedule(dynamic, 1)
        for (int64_t k = 0; k < n_chunks; k++) {
            const int64_t m = k * chunk, q = n - m < chunk ? n - m : chunk;
            if (ok) tsk_cpu_chunk_levels(p, strand_slice(x, n, strand, m, m + q, buf), q, k == 0 ? 1 : t, in_double,
                                         scratch, levels);
#pragma omp ordered
            if (ok) {
                if (k == 0) {
                    memcpy(state, levels, state_values * sizeof *state);
                } else {
                    tsk_cpu_combine(p, m, q, state, levels, next);
                    double *swap = state;
                    state = next;
                    next = swap;
                }
            }
        }
        free(scratch);
        free(levels);
        free(buf);
    }
    if (!failed)
        for (int l = 0; l < dim; l++) acc[l] += f * state[(size_t)t * dim + l];
    free(alloc);
    return failed ? -1 : 0;
}

/* Phase 2 task: a whole record of n <= chunk, or a group of slide rows. */
static int run_task(const tsk_params *p, const tsk_batch *b, const task *tk, int in_double,
                    void *out, double *rows, uint8_t *rcbuf, void *scratch, double *levels)
{
    const int t = p->t, dim = p->dim;
    const uint8_t *x = b->codes + b->offset[tk->rec];
    const int64_t n = tsk_batch_len(b, tk->rec), row = b->row_offset[tk->rec];
    if (tk->group >= 0) {
        const int64_t g = tsk_cpu_slide_group(p), r0 = tk->group * g;
        int64_t r1 = r0 + g;
        if (r1 > b->row_offset[tk->rec + 1] - row) r1 = b->row_offset[tk->rec + 1] - row;
        const size_t elem = p->precision == TSK_DOUBLE ? sizeof(double) : sizeof(float);
        return tsk_cpu_slide_rows(p, x, n, r0, r1, TSK_SLIDE_AUTO, p->precision,
                                  (char *)out + (size_t)(row + r0) * (size_t)dim * elem);
    }
    memset(rows, 0, (size_t)dim * sizeof *rows);
    if (n >= t) {
        const int strands = p->canonical ? 2 : 1;
        for (int s = 0; s < strands; s++) {
            tsk_cpu_chunk_levels(p, strand_slice(x, n, s, 0, n, rcbuf), n, 1, in_double, scratch, levels);
            const double f = strands == 2 ? 0.5 : 1.0;
            for (int l = 0; l < dim; l++) rows[l] += f * levels[(size_t)t * dim + l];
        }
    }
    store_rows(p, out, row, rows, 1);
    return 0;
}

int tsk_cpu_sketch(const tsk_params *p, const tsk_batch *b, void *out, int threads)
{
    if (threads < 1) threads = 1;
    const int t = p->t, dim = p->dim;
    const int64_t chunk = tsk_cpu_chunk_length(p);
    const int in_double = tsk_cpu_counts_in_double(p, p->precision);
    const int slide = p->window > 0;

    /* phase 1: long records, longest first */
    int64_t n_long = 0, n_tasks = 0;
    const int64_t group = slide ? tsk_cpu_slide_group(p) : 0;
    for (int64_t i = 0; i < b->n_records; i++) {
        const int64_t n = tsk_batch_len(b, i), rows = b->row_offset[i + 1] - b->row_offset[i];
        if (slide) n_tasks += (rows + group - 1) / group;
        else if (n > chunk) n_long++;
        else n_tasks++;
    }
    task *tasks = malloc((size_t)(n_long + n_tasks + 1) * sizeof *tasks);
    if (!tasks) return -1;
    task *longs = tasks + n_tasks;
    int64_t nt = 0, nl = 0;
    for (int64_t i = 0; i < b->n_records; i++) {
        const int64_t n = tsk_batch_len(b, i), rows = b->row_offset[i + 1] - b->row_offset[i];
        if (slide) {
            for (int64_t g = 0; g * group < rows; g++) {
                const int64_t r_end = (g + 1) * group < rows ? (g + 1) * group : rows;
                int64_t first, last, first_end, last_end;
                tsk_slide_row_span(p, g * group, &first, &last);
                tsk_slide_row_span(p, r_end - 1, &first_end, &last_end);
                tasks[nt++] = (task){i, g, last_end - first + 1};
            }
        } else if (n > chunk) {
            longs[nl++] = (task){i, -1, n};
        } else {
            tasks[nt++] = (task){i, -1, n};
        }
    }
    qsort(longs, (size_t)nl, sizeof *longs, task_longest_first);
    qsort(tasks, (size_t)nt, sizeof *tasks, task_longest_first);

    int failed = 0;
    double *acc = malloc((size_t)dim * sizeof *acc);
    if (!acc) failed = 1;
    for (int64_t i = 0; i < nl && !failed; i++) {
        const int64_t rec = longs[i].rec, n = longs[i].cost;
        const uint8_t *x = b->codes + b->offset[rec];
        const int strands = p->canonical ? 2 : 1;
        memset(acc, 0, (size_t)dim * sizeof *acc);
        for (int s = 0; s < strands && !failed; s++)
            if (sketch_long_record(p, x, n, s, chunk, in_double, threads, strands == 2 ? 0.5 : 1.0, acc)) failed = 1;
        if (!failed) store_rows(p, out, b->row_offset[rec], acc, 1);
    }
    free(acc);

    /* phase 2: scratch per thread sized for the largest task */
    int64_t max_len = 0;
    for (int64_t i = 0; i < nt; i++)
        if (tasks[i].group < 0 && tasks[i].cost > max_len) max_len = tasks[i].cost;
#pragma omp parallel num_threads(threads) if (nt > 1)
    {
        double *rows = malloc((size_t)dim * sizeof *rows);
        double *levels = malloc((size_t)levels_rows(t, 1) * (size_t)dim * sizeof *levels);
        void *scratch = aligned_alloc(64, tsk_cpu_chunk_scratch(p, 1));
        uint8_t *rcbuf = p->canonical && max_len > 0 ? malloc((size_t)max_len) : NULL;
        const int ok = rows && levels && scratch && (!p->canonical || max_len == 0 || rcbuf);
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < nt; i++) {
            if (!ok) continue;
            if (run_task(p, b, &tasks[i], in_double, out, rows, rcbuf, scratch, levels)) {
#pragma omp atomic write
                failed = 1;
            }
        }
        free(rows);
        free(levels);
        free(scratch);
        free(rcbuf);
    }
    free(tasks);
    return failed ? -1 : 0;
}
