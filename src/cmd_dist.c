/* cmd_dist.c: `tsketch dist [options] REF [QUERY...]` and the run shared with `triangle`.
 *
 * The sketches are loaded whole (O(N*D)); distances are then computed a block of query rows at a
 * time by the CPU or GPU engine and handed to the streaming writers, so no format ever holds an
 * N x N matrix (docs/distances.md). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/cpu_dist.h"
#include "../cpu/genome_dist.h"
#include "../cpu/genome_match.h"
#include "../gpu/gpu_genome.h"
#include "../gpu/gpu_dist.h"
#include "../io/dist_out.h"
#include "cli.h"
#include "gpu_start.h"
#include "matrix_cmd.h"
#include "pipeline.h"
#include "dist_run.h"
#include "sketch_source.h"

#define BLOCK_BYTES (64 << 20)     /* dense result rows held per block */
#define LARGE_RUN_PAIRS 1e7        /* a note on stderr above this */

enum { OPT_METRIC = TSK_OPT_FIRST_FREE, OPT_TOPK, OPT_WITH_SELF, OPT_HEADER, OPT_BLOCK, OPT_CONTAINMENT };

/* run_blocks' internal code for a failed write (reported there, with errno, as a runtime error). */
#define TSK_EXIT_WRITE 100

/* ---- one interface over the two engines ---- */

typedef struct {
    tsk_cpu_dist *cpu;
    tsk_gpu_dist *gpu;
    /* --genome: items are genomes whose slide rows are compared as sets. Anchored rows: the share
     * of shared windows (genome_match, cpu/genome_match.h). Plain windows: nearest-row searches
     * (cpu/genome_dist.h), on the GPU when genome_gpu is open (gpu/gpu_genome.h: the same values) */
    const tsk_sketch_set *genome_q, *genome_r;
    tsk_genome_opts genome_opts;
    tsk_gpu_genome *genome_gpu;
    tsk_genome_match *genome_match;
} engine;

/* Whether the job's --device asks for a GPU (auto: when one is usable). */
static int device_wants_gpu(const tsk_sketch_job *job)
{
    char why[256];
    return job->device.kind == TSK_DEVICE_CUDA ||
           (job->device.kind == TSK_DEVICE_AUTO && tsk_gpu_dist_device_count(why, sizeof why) > 0);
}

static int engine_open_genome(engine *e, const tsk_sketch_set *q, const tsk_sketch_set *r, const tsk_params *p,
                              const tsk_sketch_job *job)
{
    memset(e, 0, sizeof *e);
    e->genome_q = q;
    e->genome_r = r;
    if (p->anchor_k) {
        /* a sorted search, O(n log n) per pair: far cheaper than sketching, no GPU needed */
        char err[TSK_ERRLEN];
        if ((e->genome_match = tsk_genome_match_open(q, r, p->window, job->threads, err, sizeof err)))
            return TSK_EXIT_OK;
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    tsk_genome_opts_default(&e->genome_opts);
    e->genome_opts.summary = TSK_GENOME_ANCHORED;
    e->genome_opts.threads = job->threads;
    /* anchored windows are always whole: none to skip */
    e->genome_opts.skip_rows = p->anchor_k ? 0 : tsk_genome_partial_rows(p->window, p->stride);
    if (!device_wants_gpu(job)) return TSK_EXIT_OK;
    /* one GPU: the first one named (cuda:all and lists use device 0 or their first entry) */
    char err[TSK_ERRLEN];
    const int dev = job->device.n_devices > 0 ? job->device.devices[0] : 0;
    if ((e->genome_gpu = tsk_gpu_genome_open(q, r, &e->genome_opts, dev, err, sizeof err))) return TSK_EXIT_OK;
    if (job->device.kind == TSK_DEVICE_CUDA) {
        tsk_error("%s", err);
        return TSK_EXIT_NO_GPU;
    }
    tsk_warn("%s; computing genome distances on the CPU", err);
    return TSK_EXIT_OK;
}

static int engine_open(engine *e, const tsk_sketch_set *q, const tsk_sketch_set *r, tsk_metric m,
                       const tsk_sketch_job *job)
{
    char err[TSK_ERRLEN];
    memset(e, 0, sizeof *e);
    if (device_wants_gpu(job)) {
        e->gpu = tsk_gpu_dist_open(q, r, m, job->device.devices, job->device.n_devices, job->threads, err, sizeof err);
        if (e->gpu) return TSK_EXIT_OK;
        if (job->device.kind == TSK_DEVICE_CUDA) {
            tsk_error("%s", err);
            return TSK_EXIT_NO_GPU;
        }
        tsk_warn("%s; computing distances on the CPU", err);
    }
    if (!(e->cpu = tsk_cpu_dist_open(q, r, m, job->threads, err, sizeof err))) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

static void engine_close(engine *e)
{
    if (e->cpu) tsk_cpu_dist_close(e->cpu);
    if (e->gpu) tsk_gpu_dist_close(e->gpu);
    if (e->genome_gpu) tsk_gpu_genome_close(e->genome_gpu);
    if (e->gpu || e->genome_gpu) tsk_gpu_context_left();
    tsk_genome_match_close(e->genome_match);
}

static int engine_failed(const engine *e)
{
    if (e->genome_q) {
        tsk_error("genome distance computation failed: %s",
                  e->genome_gpu ? tsk_gpu_genome_error(e->genome_gpu) : "out of memory");
        return TSK_EXIT_RUNTIME;
    }
    tsk_error("distance computation failed: %s", e->gpu ? tsk_gpu_dist_error(e->gpu) : "out of memory");
    return TSK_EXIT_RUNTIME;
}

static int engine_block(engine *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    if (e->genome_match) return tsk_genome_match_block(e->genome_match, q0, nq, r0, nr, out, ld);
    if (e->genome_gpu) return tsk_gpu_genome_block(e->genome_gpu, q0, nq, r0, nr, out, ld);
    if (e->genome_q) return tsk_genome_distance_block(e->genome_q, q0, nq, e->genome_r, r0, nr, &e->genome_opts, out, ld);
    return e->gpu ? tsk_gpu_dist_block(e->gpu, q0, nq, r0, nr, out, ld) : tsk_cpu_dist_block(e->cpu, q0, nq, r0, nr, out, ld);
}

static int engine_topk(engine *e, int64_t q0, int64_t nq, int k, tsk_pair_filter f, tsk_pair *out)
{
    return e->gpu ? tsk_gpu_dist_topk(e->gpu, q0, nq, k, f, out) : tsk_cpu_dist_topk(e->cpu, q0, nq, k, f, out);
}

static int engine_within(engine *e, int64_t q0, int64_t nq, float max, tsk_pair_filter f, tsk_pair **p, int64_t *n,
                         int64_t *cap)
{
    return e->gpu ? tsk_gpu_dist_within(e->gpu, q0, nq, max, f, p, n, cap)
                  : tsk_cpu_dist_within(e->cpu, q0, nq, max, f, p, n, cap);
}

/* ---- the run ---- */

/* Pairs of query row q that a one-set run writes: the later rows (and itself with --with-self). */
static long double pairs_before(int64_t q, int64_t n, int with_self)
{
    long double lq = (long double)q;
    return lq * (long double)(n - 1) - lq * (lq - 1) / 2 + (with_self ? lq : 0);
}

void tsk_dist_block_rows(const dist_opts *o, int one_set, int64_t n, int64_t *begin, int64_t *end)
{
    int64_t bound[2];
    for (int side = 0; side < 2; side++) {
        int64_t part = o->block_i - 1 + side;
        if (part == 0 || part == o->block_n) {
            bound[side] = part == 0 ? 0 : n;
            continue;
        }
        if (!one_set || o->top_k > 0) {
            bound[side] = (int64_t)((long double)n * (long double)part / (long double)o->block_n);
            continue;
        }
        /* first row whose preceding pairs reach part/N of them all */
        long double target = pairs_before(n, n, o->with_self) * (long double)part / (long double)o->block_n;
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (pairs_before(mid, n, o->with_self) < target) lo = mid + 1;
            else hi = mid;
        }
        bound[side] = lo;
    }
    *begin = bound[0];
    *end = bound[1];
}

/* tsv lines of one query block. One set against itself writes "name_i TAB name_j" for i < j (the
 * oracle's and mash's order); otherwise "reference TAB query" for every query, then every ref. */
static int write_pair(tsk_dist_out *o, int one_set, int64_t q, int64_t r, float d)
{
    return one_set ? tsk_dist_out_pair(o, r, q, d) : tsk_dist_out_pair(o, q, r, d);
}

static int run_blocks(engine *e, tsk_dist_out *out, const dist_opts *o, int one_set, int64_t n_query, int64_t n_ref,
                      int threads)
{
    int64_t q_begin = 0, q_end = n_query;
    tsk_dist_block_rows(o, one_set, n_query, &q_begin, &q_end);
    const int streaming_pairs = o->fmt == TSK_DIST_TSV;
    tsk_pair_filter filter = !one_set ? TSK_PAIRS_ALL : o->with_self ? TSK_PAIRS_UPPER_SELF : TSK_PAIRS_UPPER;
    int rc = TSK_EXIT_OK;
    float *dense = NULL;
    tsk_pair *pairs = NULL;
    int64_t cap = 0;

    if (o->top_k > 0) {
        tsk_pair_filter f = one_set && !o->with_self ? TSK_PAIRS_NOT_SELF : TSK_PAIRS_ALL;
        int64_t block = 8192;
        int k = (int)o->top_k;
        if (!(pairs = malloc((size_t)block * (size_t)k * sizeof *pairs))) goto oom;
        for (int64_t q0 = q_begin; q0 < q_end && rc == TSK_EXIT_OK; q0 += block) {
            int64_t nq = q_end - q0 < block ? q_end - q0 : block;
            if (engine_topk(e, q0, nq, k, f, pairs)) {
                rc = engine_failed(e);
                break;
            }
            if (tsk_dist_out_pairs(out, pairs, nq * k, 0, o->max_dist, threads)) rc = TSK_EXIT_WRITE;
        }
    } else if (streaming_pairs && isfinite(o->max_dist) && !o->genome) {
        int64_t block = (int64_t)(256 << 20) / (16 * (n_ref > 0 ? n_ref : 1));
        if (block > 4096) block = 4096;
        if (block < 192 * (int64_t)threads) block = 192 * (int64_t)threads;
        for (int64_t q0 = q_begin; q0 < q_end && rc == TSK_EXIT_OK; q0 += block) {
            int64_t nq = q_end - q0 < block ? q_end - q0 : block, n = 0;
            if (engine_within(e, q0, nq, (float)o->max_dist, filter, &pairs, &n, &cap)) {
                rc = engine_failed(e);
                break;
            }
            if (tsk_dist_out_pairs(out, pairs, n, one_set, INFINITY, threads)) rc = TSK_EXIT_WRITE;
        }
    } else {
        /* Dense row blocks: all pairs (tsv) or the matrix formats. */
        int64_t ld = n_ref > 0 ? n_ref : 1;
        int64_t block = BLOCK_BYTES / (4 * ld);
        if (block < 1) block = 1;
        if (block > n_query) block = n_query > 0 ? n_query : 1;
        if (!(dense = malloc((size_t)block * (size_t)ld * sizeof *dense))) goto oom;
        for (int64_t q0 = q_begin; q0 < q_end && rc == TSK_EXIT_OK; q0 += block) {
            int64_t nq = q_end - q0 < block ? q_end - q0 : block;
            /* Only the columns the format shows: r >= q0 for the upper triangle, r < q0+nq for
             * phylip's lower one. */
            int64_t r0 = 0, r1 = n_ref;
            if (streaming_pairs && one_set) r0 = q0;
            if (o->fmt == TSK_DIST_PHYLIP || o->fmt == TSK_DIST_MATRIX) r1 = q0 + nq;
            if (r1 > r0 && engine_block(e, q0, nq, r0, r1 - r0, dense + r0, ld)) {
                rc = engine_failed(e);
                break;
            }
            if (!streaming_pairs) {
                if (tsk_dist_out_rows(out, q0, nq, dense, ld)) rc = TSK_EXIT_WRITE;
                continue;
            }
            for (int64_t i = 0; i < nq && rc == TSK_EXIT_OK; i++) {
                int64_t q = q0 + i;
                int64_t from = !one_set ? 0 : o->with_self ? q : q + 1;
                for (int64_t r = from; r < n_ref; r++)
                    if (dense[i * ld + r] <= o->max_dist && write_pair(out, one_set, q, r, dense[i * ld + r])) {
                        rc = TSK_EXIT_WRITE;
                        break;
                    }
            }
        }
    }
    if (rc == TSK_EXIT_WRITE) {
        tsk_error("%s: write failed: %s", o->output ? o->output : "stdout", strerror(errno));
        rc = TSK_EXIT_RUNTIME;
    }
    free(dense);
    free(pairs);
    return rc;
oom:
    tsk_error("out of memory for a block of distances");
    free(dense);
    free(pairs);
    return TSK_EXIT_RUNTIME;
}

static double mean_name_len(const tsk_sketch_source *s)
{
    double sum = 0;
    for (int64_t i = 0; i < s->set.n_items; i++) sum += (double)strlen(s->names[i]);
    return s->set.n_items ? sum / (double)s->set.n_items : 0;
}

static void note_large_run(const dist_opts *o, int one_set, int64_t n_query, int64_t n_ref, double name_len)
{
    double pairs = one_set ? (double)n_query * (double)(n_query - 1) / 2 + (o->with_self ? (double)n_query : 0)
                           : (double)n_query * (double)n_ref;
    if (o->fmt != TSK_DIST_TSV) pairs = (double)n_query * (double)n_ref;
    if (pairs <= LARGE_RUN_PAIRS) return;
    if (o->top_k > 0) {
        double lines = (double)n_query * (double)o->top_k;
        tsk_note("%.4g pairs to compare; at most %.4g top-%lld lines (~%.3g GB)", pairs, lines, (long long)o->top_k,
                 tsk_dist_out_estimate(TSK_DIST_TSV, (int64_t)lines, 0, name_len) / 1e9);
    } else if (o->fmt == TSK_DIST_TSV && isfinite(o->max_dist)) {
        tsk_note("%.4g pairs to compare; output size depends on -d %g (at most ~%.3g GB)", pairs, o->max_dist,
                 tsk_dist_out_estimate(TSK_DIST_TSV, (int64_t)pairs, 0, name_len) / 1e9);
    } else {
        double bytes = o->fmt == TSK_DIST_TSV ? tsk_dist_out_estimate(o->fmt, (int64_t)pairs, 0, name_len)
                                              : tsk_dist_out_estimate(o->fmt, n_query, n_ref, name_len);
        tsk_note("%.4g pairs to compare; estimated output ~%.3g GB", pairs, bytes / 1e9);
    }
}

static void usage(FILE *f, int triangle, const tsk_matrix_command *cmd)
{
    if (cmd)
        fputs(cmd->usage, f);
    else if (triangle)
        fprintf(f, "Usage: tsketch triangle [options] INPUT...\n"
                   "\n"
                   "Lower-triangle PHYLIP distance matrix of every record of the inputs (as `mash triangle`).\n"
                   "INPUT: .tsk sketch files or FASTA/FASTQ files (sketched with the options below).\n"
                   "\n");
    else
        fprintf(f, "Usage: tsketch dist [options] REF [QUERY...]\n"
                   "\n"
                   "One input: distances of all its pairs i < j. More: every query record (the QUERY inputs)\n"
                   "against every reference record. Inputs: .tsk sketch files or FASTA/FASTQ files (sketched\n"
                   "with the sketch options, or with a .tsk input's parameters when none are given).\n"
                   "\n"
                   "  -f, --format F        tsv (default: reference TAB query TAB distance), phylip, square\n"
                   "                        (labelled matrix) or npy (float32 matrix + OUT.names; needs -o)\n"
                   "  -d, --max-dist X      only pairs at distance <= X (tsv)\n"
                   "      --top-k K         only the K nearest references of each query (tsv)\n"
                   "      --with-self       one input: include the pairs of a record with itself\n"
                   "      --header          a header line (tsv)\n"
                   "      --block I/N       compute part I of N disjoint parts of the pairs (tsv): run the N\n"
                   "                        parts anywhere and concatenate their outputs in order\n");
    fprintf(f, "\n"
               "Genome distances (genome sketches: genome .tsk files from 'tsketch sketch --genome', or\n"
               "FASTA with --genome): 1 - f^(1/W), an estimate of 1 - ANI (the per-base divergence), with\n"
               "f the share of window fingerprints the two genomes have in common (the mean of both\n"
               "directions); 1 when nothing is shared. TSV lines add the shared and total fingerprint\n"
               "counts. Sketch rows: the l2 (or cosine) distance of the sketch vectors (below).\n"
               "      --genome          compare genomes (records, or files with --per-file); with .tsk files\n"
               "                        of slide rows, their rows compared as sets\n"
               "      --containment     genome sketches: f = the share of the query's fingerprints found in\n"
               "                        the reference (drafts and MAGs against references)\n");
    fprintf(f, "      --metric M        l2 (default) or cosine (what they mean: below)\n"
               "  -o, --output FILE     write to FILE (via a temporary file; *.gz: BGZF) instead of stdout\n"
               "  -q, --quiet           no notes or warnings on stderr\n"
               "  -h, --help            this help\n"
               "\n"
               "What a distance means (docs/distances.md): a record's sketch is its frequency profile of\n"
               "ordered t-letter subsequences (gapped tuples), count-sketched to D values. l2 is the\n"
               "Euclidean distance of two sketches, an estimate of the distance of the two profiles: 0\n"
               "for equal profiles, growing with edit distance; no unit, 0..2 for whole records (sketch\n"
               "norms are <= 1), comparable only between sketches of equal parameters; not an ANI or a\n"
               "Mash distance. cosine = 1 - cos of the two sketches (0..2). Genome distances (above) are\n"
               "1 - ANI estimates: 0.01 is about 99%% identity.\n"
               "\n"
               "%s",
            tsk_sketch_options_help);
}

/* --genome needs slide rows: whole-record sketches are one row per record, so there is no set to
 * compare (exit 4, naming the first input, whose parameters the others share). Genomes without a
 * row (shorter than the stride) get a warning: their distances are inf. */
static int genome_check(const tsk_input *inputs, size_t n_inputs, const tsk_sketch_source *groups, int n_groups,
                        const tsk_params *params)
{
    const char *first = n_inputs ? inputs[0].path : "input";
    if (params->window == 0) {
        tsk_error("%s: whole-record sketches (no --window): --genome compares slide rows; sketch with "
                  "--canonical --window W --stride S (or give dist --genome the FASTA files)",
                  first);
        return TSK_EXIT_INCOMPATIBLE;
    }
    if (!params->canonical && params->alphabet == TSK_DNA)
        tsk_warn("%s: rows are not --canonical: genomes on opposite strands will not match", first);
    for (int g = 0; g < n_groups; g++)
        for (int64_t i = 0; i < groups[g].set.n_items; i++)
            if (groups[g].set.n_rows[i] == 0) {
                if (params->anchor_k)
                    tsk_warn("%s: no anchored window (shorter than the window, %lld, or no anchor): its "
                             "genome distances are inf",
                             groups[g].names[i], (long long)params->window);
                else
                    tsk_warn("%s: shorter than the stride (%lld): no slide rows, its genome distances are inf",
                             groups[g].names[i], (long long)params->stride);
            }
    return TSK_EXIT_OK;
}

/* Sketch options that change the function (not -p, --device, -l, --per-file, -I). */
static int is_param_option(int opt)
{
    return opt == 'k' || opt == 's' || opt == 'S' || opt == TSK_OPT_ALPHABET || opt == TSK_OPT_CANONICAL ||
           opt == TSK_OPT_WINDOW || opt == TSK_OPT_STRIDE || opt == TSK_OPT_TABLES || opt == TSK_OPT_SLIDE ||
           opt == TSK_OPT_ANCHORED || opt == TSK_OPT_ANCHOR_K || opt == TSK_OPT_SCALED;
}

/* dist, triangle (triangle = 1) and, with cmd, the matrix commands (as triangle). */
static int distance_command(int argc, char **argv, int triangle, const tsk_matrix_command *cmd)
{
    const char *name = cmd ? cmd->name : triangle ? "triangle" : "dist"; /* for messages */
    static const struct option dist_options[] = {
        TSK_SKETCH_LONG_OPTIONS,
        {"output", required_argument, 0, 'o'},
        {"format", required_argument, 0, 'f'},
        {"max-dist", required_argument, 0, 'd'},
        {"metric", required_argument, 0, OPT_METRIC},
        {"top-k", required_argument, 0, OPT_TOPK},
        {"with-self", no_argument, 0, OPT_WITH_SELF},
        {"header", no_argument, 0, OPT_HEADER},
        {"block", required_argument, 0, OPT_BLOCK},
        {"containment", no_argument, 0, OPT_CONTAINMENT},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    /* a matrix command's own options come first, dist's after them */
    struct option long_options[sizeof dist_options / sizeof dist_options[0] + 16];
    size_t n_long = 0;
    for (const struct option *x = cmd && cmd->options ? cmd->options : NULL; x && x->name && n_long < 16; x++)
        long_options[n_long++] = *x;
    memcpy(long_options + n_long, dist_options, sizeof dist_options);
    dist_opts o = {cmd ? TSK_DIST_MATRIX : triangle ? TSK_DIST_PHYLIP : TSK_DIST_TSV, TSK_METRIC_L2, NULL, INFINITY, 0, 0, 0,
                   triangle, 0, 0, 1, 1, cmd};
    int metric_given = 0;
    tsk_sketch_job job;
    tsk_sketch_job_init(&job);
    int opt, rc = TSK_EXIT_OK, params_given = 0;
    const char *shorts = triangle ? TSK_SKETCH_SHORT_OPTS "o:qh" : TSK_SKETCH_SHORT_OPTS "o:f:d:qh";
    optind = 1;
    int long_index = -1;
    while (rc == TSK_EXIT_OK && (opt = getopt_long(argc, argv, shorts, long_options, &long_index)) != -1) {
        const char *long_name = long_index >= 0 ? long_options[long_index].name : NULL;
        long_index = -1;
        int used = tsk_sketch_option(&job, opt, optarg);
        if (used == 1) {
            params_given |= is_param_option(opt);
            continue;
        }
        if (used < 0) {
            rc = -used;
            break;
        }
        if (cmd && opt >= TSK_OPT_MATRIX_FIRST) {
            rc = cmd->option(cmd->ctx, opt, optarg);
            continue;
        }
        char *end;
        if (triangle && (opt == OPT_TOPK || opt == OPT_WITH_SELF || opt == OPT_HEADER || opt == OPT_BLOCK ||
                         opt == OPT_CONTAINMENT || opt == 'f' || opt == 'd')) {
            /* only the long forms reach here: -f and -d are not in triangle's short options */
            tsk_error("%s: --%s is a 'tsketch dist' option; %s always %s (for pair lists, parts, a header or "
                      "containment use dist)",
                      name, long_name ? long_name : "?", name,
                      cmd ? "takes the whole symmetric matrix" : "writes the whole lower-triangle PHYLIP matrix");
            rc = tsk_usage_error(name);
            break;
        }
        switch (opt) {
        case 'o': o.output = optarg; break;
        case 'q': tsk_quiet = 1; break;
        case 'h':
            usage(stdout, triangle, cmd);
            tsk_sketch_job_free(&job);
            return TSK_EXIT_OK;
        case 'f': {
            int f = tsk_dist_format_parse(optarg);
            if (f < 0) {
                tsk_error("option -f/--format: '%s' is not tsv, phylip, square or npy", optarg);
                rc = TSK_EXIT_USAGE;
            }
            o.fmt = (tsk_dist_format)f;
            break;
        }
        case 'd':
            o.max_dist = strtod(optarg, &end);
            if (end == optarg || *end || !(o.max_dist >= 0)) {
                tsk_error("option -d/--max-dist: '%s' is not a non-negative number", optarg);
                rc = TSK_EXIT_USAGE;
            }
            break;
        case OPT_METRIC:
            metric_given = 1;
            if (!strcmp(optarg, "l2")) o.metric = TSK_METRIC_L2;
            else if (!strcmp(optarg, "cosine")) o.metric = TSK_METRIC_COSINE;
            else {
                tsk_error("option --metric: '%s' is not l2 or cosine", optarg);
                rc = TSK_EXIT_USAGE;
            }
            break;
        case OPT_TOPK:
            if (tsk_parse_int64("--top-k", optarg, 1, 1 << 20, &o.top_k)) rc = TSK_EXIT_USAGE;
            break;
        case OPT_WITH_SELF: o.with_self = 1; break;
        case OPT_HEADER: o.header = 1; break;
        case OPT_CONTAINMENT: o.containment = 1; break;
        case OPT_BLOCK: {
            long long i, n;
            char tail;
            if (sscanf(optarg, "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 1 || i > n) {
                tsk_error("option --block: '%s' is not I/N with 1 <= I <= N", optarg);
                rc = TSK_EXIT_USAGE;
            }
            o.block_i = i, o.block_n = n;
            break;
        }
        default: rc = tsk_usage_error(name);
        }
    }
    o.genome = job.genome;
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_check_output(&job, o.output, argv + optind, (size_t)(argc - optind));
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_finish(&job);
    /* Inputs: the positional arguments, then those of -l lists. */
    size_t n_inputs = (size_t)(argc - optind) + job.n_inputs;
    tsk_input *inputs = calloc(n_inputs ? n_inputs : 1, sizeof *inputs);
    int *group_of = calloc(n_inputs ? n_inputs : 1, sizeof *group_of);
    if (rc == TSK_EXIT_OK && (!inputs || !group_of)) {
        tsk_error("out of memory");
        rc = TSK_EXIT_RUNTIME;
    }
    if (rc == TSK_EXIT_OK) {
        size_t n = 0;
        for (int i = optind; i < argc; i++) inputs[n++] = (tsk_input){argv[i], NULL};
        for (size_t i = 0; i < job.n_inputs; i++) inputs[n++] = job.inputs[i];
        for (size_t i = 1; i < n_inputs; i++) group_of[i] = triangle ? 0 : 1;
    }
    const int one_set = triangle || n_inputs == 1;
    /* Genome sketches: genome .tsk inputs, or --genome with sequences (a .tsk of sketch rows with
     * --genome is compared by its slide rows: cpu/genome_match.h, cpu/genome_dist.h) */
    int genome_files = 0, row_files = 0;
    for (size_t i = 0; rc == TSK_EXIT_OK && i < n_inputs; i++) {
        const int kind = tsk_file_kind(inputs[i].path);
        genome_files += kind == 1;
        row_files += kind == 0;
    }
    const int genome_sets = genome_files > 0 || (o.genome && row_files == 0);
    if (rc == TSK_EXIT_OK && o.containment && !genome_sets) {
        tsk_error("--containment applies to genome sketches (genome .tsk files, or --genome with FASTA)");
        rc = TSK_EXIT_USAGE;
    }
    if (rc == TSK_EXIT_OK) {
        const char *why = NULL;
        static char no_inputs[64];
        snprintf(no_inputs, sizeof no_inputs, "no inputs (try 'tsketch %s -h')", name);
        if (n_inputs == 0) why = no_inputs;
        else if (o.fmt == TSK_DIST_PHYLIP && !one_set)
            why = "-f phylip needs one set of sketches (one input, or use 'tsketch triangle')";
        else if (o.fmt != TSK_DIST_TSV && (o.top_k > 0 || isfinite(o.max_dist)))
            why = "--top-k and -d/--max-dist select pairs: they need -f tsv";
        else if (o.with_self && !one_set) why = "--with-self applies to one input compared with itself";
        else if (o.fmt == TSK_DIST_NPY && !o.output) why = "-f npy needs -o FILE";
        else if (o.block_n > 1 && o.fmt != TSK_DIST_TSV) why = "--block splits pair lists: it needs -f tsv";
        else if (o.genome && !genome_sets && o.top_k > 0)
            why = "--genome on slide rows and --top-k exclude each other (genome sketches take --top-k)";
        else if (o.genome && metric_given && o.metric != TSK_METRIC_L2)
            why = "--genome compares slide rows by l2: --metric cosine does not apply";
        if (why) {
            tsk_error("%s", why);
            rc = TSK_EXIT_USAGE;
        }
    }

    if (rc == TSK_EXIT_OK && genome_sets) {
        rc = tsk_dist_genome_run(inputs, n_inputs, group_of, one_set, &o, &job, params_given);
        free(inputs);
        free(group_of);
        tsk_sketch_job_free(&job);
        return rc;
    }

    tsk_sketch_source groups[2];
    memset(groups, 0, sizeof groups);
    tsk_params params;
    if (rc == TSK_EXIT_OK)
        rc = tsk_sources_load(inputs, n_inputs, group_of, groups, one_set ? 1 : 2, &job, params_given, &params);
    engine e = {0};
    tsk_dist_out *out = NULL;
    float *matrix = NULL;
    if (rc == TSK_EXIT_OK && o.genome) rc = genome_check(inputs, n_inputs, groups, one_set ? 1 : 2, &params);
    if (rc == TSK_EXIT_OK) {
        const tsk_sketch_source *ref = &groups[0], *query = one_set ? &groups[0] : &groups[1];
        if (query->set.n_items == 0 && !tsk_quiet) tsk_warn("no query sketches: the output has no distances");
        if (o.genome) rc = engine_open_genome(&e, &query->set, &ref->set, &params, &job);
        else rc = engine_open(&e, &query->set, &ref->set, o.metric, &job);
        char err[TSK_ERRLEN];
        if (rc == TSK_EXIT_OK && o.matrix) {
            if (!(out = tsk_dist_matrix_open(ref->set.n_items, &matrix))) rc = TSK_EXIT_RUNTIME;
        } else if (rc == TSK_EXIT_OK &&
            !(out = tsk_dist_out_open(o.output, o.fmt, query->names, query->set.n_items, ref->names, ref->set.n_items,
                                      o.header && o.block_i == 1, err, sizeof err))) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        }
        if (rc == TSK_EXIT_OK) {
            note_large_run(&o, one_set, query->set.n_items, ref->set.n_items, mean_name_len(ref));
            rc = run_blocks(&e, out, &o, one_set, query->set.n_items, ref->set.n_items, job.threads);
        }
        if (rc == TSK_EXIT_OK) {
            rc = tsk_dist_out_finish(out, err, sizeof err) ? TSK_EXIT_RUNTIME : TSK_EXIT_OK;
            out = NULL;
            if (rc) tsk_error("%s", err);
        }
        if (rc == TSK_EXIT_OK && o.matrix)
            rc = tsk_dist_matrix_deliver(&o, matrix, ref->set.n_items, ref->names,
                                         o.genome ? "genome distance" : o.metric == TSK_METRIC_COSINE ? "cosine distance" : "l2 distance",
                                         o.genome ? "1 - ANI, estimated from slide rows"
                                         : o.metric == TSK_METRIC_COSINE ? "1 - cos, sketch vectors" : "Euclidean, sketch vectors",
                                         job.threads);
    }
    free(matrix);
    tsk_dist_out_abort(out);
    engine_close(&e);
    tsk_source_free(&groups[0]);
    tsk_source_free(&groups[1]);
    free(inputs);
    free(group_of);
    tsk_sketch_job_free(&job);
    return rc;
}

int tsk_dist_main(int argc, char **argv, int triangle) { return distance_command(argc, argv, triangle, NULL); }

int tsk_matrix_main(int argc, char **argv, const tsk_matrix_command *cmd) { return distance_command(argc, argv, 1, cmd); }

int tsk_cmd_dist(int argc, char **argv) { return tsk_dist_main(argc, argv, 0); }
