/* cpu_sketch.c: the CPU engine's scheduler (cpu_sketch.h). DNA whole-record rows at t <= 4 go to
 * the count path (cpu_counts.c); everything else is split here into tasks that sketch_dp.c and
 * sketch_slide.c compute, on the threads of one parallel region per batch:
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

#include "sketch_counts.h"
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

/* Per-thread buffers: for phase 1 when there are long records (chunk levels of every start), else
 * for phase 2 alone. */
typedef struct {
    double *rows, *levels;
    void *scratch;
    uint8_t *rcbuf;
    int ok;
} thread_buffers;

static thread_buffers buffers_make(const tsk_params *p, int starts, int64_t rc_len)
{
    thread_buffers w;
    w.rows = malloc((size_t)p->dim * sizeof *w.rows);
    w.levels = malloc((size_t)levels_rows(p->t, starts) * (size_t)p->dim * sizeof *w.levels);
    w.scratch = aligned_alloc(64, tsk_cpu_chunk_scratch(p, starts));
    w.rcbuf = p->canonical && rc_len > 0 ? malloc((size_t)rc_len) : NULL;
    w.ok = w.rows && w.levels && w.scratch && (!p->canonical || rc_len == 0 || w.rcbuf);
    return w;
}

static void buffers_free(thread_buffers *w)
{
    free(w->rows);
    free(w->levels);
    free(w->scratch);
    free(w->rcbuf);
}

/* The running state of phase 1's record, shared by the threads: only the thread in the ordered
 * region touches it. */
typedef struct {
    double *state, *next, *acc;
} long_state;

/* Phase 1, run by every thread of the region: strand `strand` of the long record x[0..n), its chunks
 * on all threads, folded in order into s->state; then one thread adds it to s->acc with weight f. */
static void long_record_strand(const tsk_params *p, const uint8_t *x, int64_t n, int strand, int64_t chunk,
                               int in_double, double f, long_state *s, thread_buffers *w)
{
    const int t = p->t, dim = p->dim;
    const int64_t n_chunks = (n + chunk - 1) / chunk;
    const size_t state_values = (size_t)(t + 1) * (size_t)dim;
#pragma omp for ordered schedule(dynamic, 1)
    for (int64_t k = 0; k < n_chunks; k++) {
        const int64_t m = k * chunk, q = n - m < chunk ? n - m : chunk;
        if (w->ok)
            tsk_cpu_chunk_levels(p, strand_slice(x, n, strand, m, m + q, w->rcbuf), q, k == 0 ? 1 : t, in_double,
                                 w->scratch, w->levels);
#pragma omp ordered
        if (w->ok) {
            if (k == 0) {
                memcpy(s->state, w->levels, state_values * sizeof *s->state);
            } else {
                tsk_cpu_combine(p, m, q, s->state, w->levels, s->next);
                double *swap = s->state;
                s->state = s->next;
                s->next = swap;
            }
        }
    }
#pragma omp single
    for (int l = 0; l < dim; l++) s->acc[l] += f * s->state[(size_t)t * dim + l];
}

int tsk_cpu_sketch(const tsk_params *p, const tsk_batch *b, void *out, int threads)
{
    if (threads < 1) threads = 1;
    if (tsk_cpu_counts_used(p)) return tsk_cpu_sketch_counts(p, b, out, threads);
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

    /* phase 2 scratch is sized for the largest task; phase 1 reverse-complements whole chunks */
    int64_t max_len = 0;
    for (int64_t i = 0; i < nt; i++)
        if (tasks[i].group < 0 && tasks[i].cost > max_len) max_len = tasks[i].cost;
    if (nl > 0 && chunk > max_len) max_len = chunk;
    const size_t state_values = (size_t)(t + 1) * (size_t)dim;
    double *state_alloc = nl > 0 ? malloc((2 * state_values + (size_t)dim) * sizeof *state_alloc) : NULL;
    int failed = nl > 0 && !state_alloc;
    long_state ls = {NULL, NULL, NULL};
    if (state_alloc) {
        ls = (long_state){state_alloc, state_alloc + state_values, state_alloc + 2 * state_values};
        memset(ls.acc, 0, (size_t)dim * sizeof *ls.acc);
    }
#pragma omp parallel num_threads(threads) if (!failed && (nt > 1 || nl > 0))
    {
        thread_buffers w = buffers_make(p, nl > 0 ? t : 1, max_len);
        if (!w.ok) {
#pragma omp atomic write
            failed = 1;
        }
        /* every thread must meet the same worksharing loops: all decide on one value of failed */
#pragma omp barrier
        const int all_ok = !failed;
        /* phase 1: long records, longest first, all threads on each one's chunks */
        for (int64_t i = 0; i < nl && all_ok; i++) {
            const int64_t rec = longs[i].rec, n = longs[i].cost;
            const int strands = p->canonical ? 2 : 1;
            for (int s = 0; s < strands; s++)
                long_record_strand(p, b->codes + b->offset[rec], n, s, chunk, in_double, strands == 2 ? 0.5 : 1.0,
                                   &ls, &w);
#pragma omp single
            {
                store_rows(p, out, b->row_offset[rec], ls.acc, 1);
                memset(ls.acc, 0, (size_t)dim * sizeof *ls.acc);
            }
        }
        /* phase 2 */
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < nt; i++) {
            if (!w.ok) continue;
            if (run_task(p, b, &tasks[i], in_double, out, w.rows, w.rcbuf, w.scratch, w.levels)) {
#pragma omp atomic write
                failed = 1;
            }
        }
        buffers_free(&w);
    }
    free(state_alloc);
    free(tasks);
    return failed ? -1 : 0;
}
