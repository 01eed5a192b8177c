/* cpu_sketch.c: the CPU engine's scheduler (cpu_sketch.h). DNA whole-record rows at t <= 4 go to
 * the count path (cpu_counts.c); everything else is split here into tasks that sketch_dp.c and
 * sketch_slide.c compute, on the threads of one parallel region per batch:
 *
 * 1. Whole-record sketches of records longer than the chunk length: the fixed-position chunks of
 *    all such records of the batch (both strands when canonical) are one list of items, computed
 *    on all threads a window of items at a time (the levels of a window bounded, levels_budget());
 *    then each record's strand folds its chunks of the window into its running state in chunk
 *    order, records on different threads. So many records of a few chunks each keep every thread
 *    busy (one record at a time, a 70 kbp record's five chunks left eleven of sixteen threads
 *    idle), and the sum is the same for any thread count.
 * 2. Everything else (shorter records, groups of slide rows): one task each, longest first,
 *    dynamic schedule. A task writes only its own rows.
 * No result depends on which thread ran what: bit-identical for any thread count. */
#include "cpu_sketch.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tsk_knobs.h"
#include "sketch_counts.h"
#include "sketch_dp.h"


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

/* Bytes of chunk levels computed before they are folded: 64 MB, or TSKETCH_CPU_LEVELS_BUDGET
 * (tests: 1 makes every item a window of its own, so sequences span windows). */
static int64_t levels_budget(void) { return tsk_knobs_get()->cpu_levels_budget; }

/* Phase 1's plan: the chunk items of the long records, a sequence per record and strand (items
 * seq_first[q] .. seq_first[q + 1] - 1, chunk k of sequence q at item seq_first[q] + k), and the
 * running state of each sequence. */
typedef struct {
    int64_t n_seq, n_items, window;   /* window: items whose levels are held at once */
    int64_t *seq_first;               /* n_seq + 1 */
    double *states, *slots;           /* n_seq states of (t+1) dim; window levels of levels_rows(t, t) dim */
    size_t state_values, slot_values;
} long_plan;

/* The sequence in lo .. hi - 1 that holds item i. */
static int64_t sequence_of(const long_plan *lp, int64_t i, int64_t lo, int64_t hi)
{
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (lp->seq_first[mid] <= i) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Phase 1 on every thread of the region: computes the chunk items a window at a time, folds each
 * window into the sequences' states, then writes each long record's row (the mean of its strands'
 * rows when canonical, summed as the one-thread path sums them). */
static void long_records(const tsk_params *p, const tsk_batch *b, const task *longs, int64_t nl, int64_t chunk,
                         int in_double, const long_plan *lp, thread_buffers *w, double *next, void *out)
{
    const int t = p->t, dim = p->dim, strands = p->canonical ? 2 : 1;
    for (int64_t w0 = 0; w0 < lp->n_items; w0 += lp->window) {
        const int64_t w1 = w0 + lp->window < lp->n_items ? w0 + lp->window : lp->n_items;
        /* the sequences this window touches: q_lo .. q_hi - 1 */
        const int64_t q_lo = sequence_of(lp, w0, 0, lp->n_seq), q_hi = sequence_of(lp, w1 - 1, q_lo, lp->n_seq) + 1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = w0; i < w1; i++) {
            const int64_t q = sequence_of(lp, i, q_lo, q_hi);
            const task *lr = &longs[q / strands];
            const int64_t k = i - lp->seq_first[q], at = k * chunk, n = lr->cost;
            const int64_t len = n - at < chunk ? n - at : chunk;
            const uint8_t *codes =
                strand_slice(b->codes + b->offset[lr->rec], n, (int)(q % strands), at, at + len, w->rcbuf);
            tsk_cpu_chunk_levels(p, codes, len, k == 0 ? 1 : t, in_double, w->scratch,
                                 lp->slots + (size_t)(i - w0) * lp->slot_values);
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t q = q_lo; q < q_hi; q++) {
            double *state = lp->states + (size_t)q * lp->state_values;
            const int64_t first = lp->seq_first[q], n = longs[q / strands].cost;
            for (int64_t i = first > w0 ? first : w0; i < lp->seq_first[q + 1] && i < w1; i++) {
                const double *levels = lp->slots + (size_t)(i - w0) * lp->slot_values;
                const int64_t k = i - first, at = k * chunk;
                if (k == 0) {
                    memcpy(state, levels, lp->state_values * sizeof *state);
                } else {
                    tsk_cpu_combine(p, at, n - at < chunk ? n - at : chunk, state, levels, next);
                    memcpy(state, next, lp->state_values * sizeof *state);
                }
            }
        }
    }
#pragma omp for schedule(dynamic, 1)
    for (int64_t l = 0; l < nl; l++) {
        memset(w->rows, 0, (size_t)dim * sizeof *w->rows);
        for (int s = 0; s < strands; s++) {
            const double *state = lp->states + (size_t)(l * strands + s) * lp->state_values;
            for (int v = 0; v < dim; v++) w->rows[v] += (strands == 2 ? 0.5 : 1.0) * state[(size_t)t * dim + v];
        }
        store_rows(p, out, b->row_offset[longs[l].rec], w->rows, 1);
    }
}

/* The plan of phase 1 for the long records longs[0..nl): 0, or -1 when memory runs out. */
static int long_plan_make(const tsk_params *p, const task *longs, int64_t nl, int64_t chunk, long_plan *lp)
{
    const int strands = p->canonical ? 2 : 1;
    memset(lp, 0, sizeof *lp);
    lp->n_seq = nl * strands;
    lp->state_values = (size_t)(p->t + 1) * (size_t)p->dim;
    lp->slot_values = (size_t)levels_rows(p->t, p->t) * (size_t)p->dim;
    lp->seq_first = malloc((size_t)(lp->n_seq + 1) * sizeof *lp->seq_first);
    if (!lp->seq_first) return -1;
    for (int64_t q = 0; q < lp->n_seq; q++) {
        lp->seq_first[q] = lp->n_items;
        lp->n_items += (longs[q / strands].cost + chunk - 1) / chunk;
    }
    lp->seq_first[lp->n_seq] = lp->n_items;
    lp->window = levels_budget() / (int64_t)(lp->slot_values * sizeof(double));
    if (lp->window < 1) lp->window = 1;
    if (lp->window > lp->n_items) lp->window = lp->n_items;
    lp->states = malloc((size_t)lp->n_seq * lp->state_values * sizeof *lp->states);
    lp->slots = malloc((size_t)lp->window * lp->slot_values * sizeof *lp->slots);
    return lp->states && lp->slots ? 0 : -1;
}

static void long_plan_free(long_plan *lp)
{
    free(lp->seq_first);
    free(lp->states);
    free(lp->slots);
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
    long_plan lp;
    int failed = nl > 0 && long_plan_make(p, longs, nl, chunk, &lp);
#pragma omp parallel num_threads(threads) if (!failed && (nt > 1 || nl > 0))
    {
        thread_buffers w = buffers_make(p, nl > 0 ? t : 1, max_len);
        double *next = nl > 0 ? malloc((size_t)(t + 1) * (size_t)dim * sizeof *next) : NULL;
        if (!w.ok || (nl > 0 && !next)) {
#pragma omp atomic write
            failed = 1;
        }
        /* every thread must meet the same worksharing loops: all decide on one value of failed */
#pragma omp barrier
        const int all_ok = !failed;
        /* phase 1: the long records' chunks on all threads */
        if (all_ok && nl > 0) long_records(p, b, longs, nl, chunk, in_double, &lp, &w, next, out);
        free(next);
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
    if (nl > 0) long_plan_free(&lp);
    free(tasks);
    return failed ? -1 : 0;
}
