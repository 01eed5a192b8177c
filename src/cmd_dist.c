/* cmd_dist.c: the command line of `tsketch dist [options] REF [QUERY...]`, of `triangle` and of the
 * matrix commands (`tree`, `plot`: cmd_dist.h).
 *
 * It parses the options, checks what they ask for, loads the inputs (sketch_source.h for vector
 * rows, genome_source.h for genome sketches), opens the output and hands the rest to the distance
 * runner (dist_run.h): distances are computed a block of query items at a time and streamed to
 * the writers, so no file format ever holds an N x N matrix (docs/distances.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/dist_out.h"
#include "cli.h"
#include "commands.h"
#include "cmd_dist.h"
#include "dist_matrix.h"
#include "dist_run.h"
#include "engine.h"
#include "genome_source.h"
#include "sketch_opts.h"
#include "sketch_source.h"

#define LARGE_RUN_PAIRS 1e7 /* a note on stderr above this */
#define MAX_MATRIX_OPTIONS 16

enum { OPT_METRIC = TSK_OPT_FIRST_FREE, OPT_TOPK, OPT_WITH_SELF, OPT_HEADER, OPT_BLOCK, OPT_CONTAINMENT, OPT_ANI, OPT_KEY_DISTANCE };

/* One run of a distance command: its command line, then its inputs. */
typedef struct {
    const char *name;                /* "dist", "triangle", "tree"...: for messages */
    int triangle;                    /* triangle and the matrix commands: all inputs as one set */
    const tsk_matrix_command *matrix; /* tree, plot: fmt is TSK_DIST_MATRIX, the matrix goes here */
    tsk_dist_format fmt;
    tsk_metric metric;
    int metric_given;
    const char *output;              /* -o; NULL: stdout */
    double max_dist;                 /* -d; INFINITY when not given */
    int64_t top_k;                   /* 0 when not given */
    int with_self, header, containment;
    int ani;                         /* --ani: genome tsv lines add ani and af */
    int key_distance;                /* --key-distance: genome sketches by 1 - f^(1/W) of their keys alone */
    int64_t block_i, block_n;        /* --block I/N: this run computes part I of N; 1/1 = all */
    tsk_sketch_job job;              /* the sketch options, --genome, -p, --device, -l lists */
    int params_given;                /* the command line set sketch parameters */
    /* the inputs: the positional arguments, then those of -l lists */
    tsk_input *inputs;
    int *group_of;                   /* 0: reference, 1: query */
    size_t n_inputs;
    tsk_input_kinds kinds;           /* what they hold, looked at once */
    int one_set;                     /* all inputs form one set compared with itself */
} dist_cmd;

/* ---- help ---- */

static void usage(FILE *f, const dist_cmd *d)
{
    if (d->matrix)
        fputs(d->matrix->usage, f);
    else if (d->triangle)
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
               "FASTA with --genome): 1 - ANI, ANI over the aligned part (fastANI's definition, the mean of\n"
               "both directions) estimated from the genomes' segment anchors, for pairs found by their\n"
               "shared window fingerprints; 1 for unrelated genomes. A genome without a contig of 3 kb has no\n"
               "estimate: its pairs keep 1 - f^(1/W), f the share of fingerprints in common.%s\n"
               "      --genome          compare genomes (records, or files with --per-file) by genome\n"
               "                        sketches of the FASTA inputs (.tsk files of sketch rows are refused)\n",
            d->triangle ? "" : " TSV lines add the shared and total fingerprint\ncounts.");
    if (!d->triangle)
        fputs("      --ani             tsv lines of genome sketches add 'ani' (percent, 2 decimals) and 'af'\n"
              "                        (aligned fraction of the genome with fewer segments, 4 decimals); NA\n"
              "                        where a genome has no contig of 3 kb (no estimate)\n",
              f);
    fputs("      --key-distance    genome sketches: 1 - f^(1/W) of the shared fingerprints alone (the\n"
          "                        Mash-grade distance: exact counts, no ANI refinement)\n",
          f);
    if (!d->triangle)
        fputs("      --containment     genome sketches: f = the share of the query's fingerprints found in\n"
              "                        the reference (drafts and MAGs against references)\n",
              f);
    fprintf(f, "\n"
               "Sketch row distances (.tsk files of sketch rows, or FASTA without --genome):\n"
               "      --metric M        l2 (default) or cosine (what they mean: below; refused with genome\n"
               "                        sketches)\n"
               "\n"
               "Output:\n"
               "  -o, --output FILE     write to FILE (via a temporary file; *.gz: BGZF) instead of stdout;\n"
               "                        its directory must exist (checked before any work)\n"
               "  -q, --quiet           no notes, warnings or progress on stderr\n"
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

/* ---- options ---- */

static const struct option dist_long_options[] = {
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
    {"ani", no_argument, 0, OPT_ANI},
    {"key-distance", no_argument, 0, OPT_KEY_DISTANCE},
    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};
#define N_DIST_LONG_OPTIONS (sizeof dist_long_options / sizeof dist_long_options[0])

/* A matrix command's own long options first, dist's after them, into out (room for
 * MAX_MATRIX_OPTIONS + N_DIST_LONG_OPTIONS). */
static void long_options_of(const tsk_matrix_command *cmd, struct option *out)
{
    size_t n = 0;
    for (const struct option *x = cmd && cmd->options ? cmd->options : NULL; x && x->name && n < MAX_MATRIX_OPTIONS;
         x++)
        out[n++] = *x;
    memcpy(out + n, dist_long_options, sizeof dist_long_options);
}

/* Whether opt belongs to dist alone (refused by triangle and the matrix commands). */
static int is_dist_only_option(int opt)
{
    return opt == OPT_TOPK || opt == OPT_WITH_SELF || opt == OPT_HEADER || opt == OPT_BLOCK ||
           opt == OPT_CONTAINMENT || opt == OPT_ANI || opt == 'f' || opt == 'd';
}

static int parse_format(dist_cmd *d, const char *arg)
{
    const int f = tsk_dist_format_parse(arg);
    if (f < 0) {
        tsk_error("option -f/--format: '%s' is not tsv, phylip, square or npy", arg);
        return TSK_EXIT_USAGE;
    }
    d->fmt = (tsk_dist_format)f;
    return TSK_EXIT_OK;
}

static int parse_block(dist_cmd *d, const char *arg)
{
    long long i, n;
    char tail;
    if (sscanf(arg, "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 1 || i > n) {
        tsk_error("option --block: '%s' is not I/N with 1 <= I <= N", arg);
        return TSK_EXIT_USAGE;
    }
    d->block_i = i, d->block_n = n;
    return TSK_EXIT_OK;
}

/* One of dist's own options (not a sketch option). Returns TSK_EXIT_OK or an exit code after the
 * message. */
static int dist_option(dist_cmd *d, int opt, const char *arg, const char *long_name)
{
    if (d->triangle && is_dist_only_option(opt)) {
        /* only the long forms reach here: -f and -d are not in triangle's short options */
        tsk_error("%s: --%s is a 'tsketch dist' option; %s always %s (for pair lists, parts, a header or "
                  "containment use dist)",
                  d->name, long_name ? long_name : "?", d->name,
                  d->matrix ? "takes the whole symmetric matrix" : "writes the whole lower-triangle PHYLIP matrix");
        return tsk_usage_error(d->name);
    }
    switch (opt) {
    case 'o': d->output = arg; return TSK_EXIT_OK;
    case 'q': tsk_quiet = 1; return TSK_EXIT_OK;
    case 'f': return parse_format(d, arg);
    case 'd': return tsk_parse_double("-d/--max-dist", arg, 0, INFINITY, &d->max_dist);
    case OPT_METRIC: d->metric_given = 1; return tsk_parse_metric(arg, &d->metric);
    case OPT_TOPK: return tsk_parse_int64("--top-k", arg, 1, 1 << 20, &d->top_k) ? TSK_EXIT_USAGE : TSK_EXIT_OK;
    case OPT_WITH_SELF: d->with_self = 1; return TSK_EXIT_OK;
    case OPT_HEADER: d->header = 1; return TSK_EXIT_OK;
    case OPT_CONTAINMENT: d->containment = 1; return TSK_EXIT_OK;
    case OPT_ANI: d->ani = 1; return TSK_EXIT_OK;
    case OPT_KEY_DISTANCE: d->key_distance = 1; return TSK_EXIT_OK;
    case OPT_BLOCK: return parse_block(d, arg);
    default: return tsk_usage_error(d->name);
    }
}

/* Parses argv into d. Returns TSK_EXIT_OK, an exit code after the message, or -1 when -h printed
 * the help (the command then exits 0). */
static int parse_options(dist_cmd *d, int argc, char **argv)
{
    struct option long_options[MAX_MATRIX_OPTIONS + N_DIST_LONG_OPTIONS];
    long_options_of(d->matrix, long_options);
    const char *shorts = d->triangle ? TSK_SKETCH_SHORT_OPTS "o:qh" : TSK_SKETCH_SHORT_OPTS "o:f:d:qh";
    int opt, rc = TSK_EXIT_OK, long_index = -1;
    optind = 1;
    while (rc == TSK_EXIT_OK && (opt = getopt_long(argc, argv, shorts, long_options, &long_index)) != -1) {
        const char *long_name = long_index >= 0 ? long_options[long_index].name : NULL;
        long_index = -1;
        const int used = tsk_sketch_option(&d->job, opt, optarg);
        if (used == 1) d->params_given |= tsk_sketch_param_option(opt);
        else if (used < 0) rc = -used;
        else if (d->matrix && opt >= TSK_OPT_MATRIX_FIRST) rc = d->matrix->option(d->matrix->ctx, opt, optarg);
        else if (opt == 'h') {
            usage(stdout, d);
            return -1;
        } else rc = dist_option(d, opt, optarg, long_name);
    }
    return rc;
}

/* The inputs: the positional arguments argv[optind..), then those of -l lists; the first is the
 * reference set, the others queries (triangle: all one set). */
static int collect_inputs(dist_cmd *d, int argc, char **argv)
{
    const int rc = tsk_inputs_collect(argc, argv, optind, &d->job, &d->inputs, &d->n_inputs);
    if (rc != TSK_EXIT_OK) return rc;
    if (!(d->group_of = calloc(d->n_inputs ? d->n_inputs : 1, sizeof *d->group_of))) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    for (size_t i = 1; i < d->n_inputs; i++) d->group_of[i] = d->triangle ? 0 : 1;
    d->one_set = d->triangle || d->n_inputs == 1;
    return TSK_EXIT_OK;
}

/* ---- checks ---- */

/* What --containment needs: genome sketches. */
static int check_containment(const dist_cmd *d, int genomes)
{
    if (!d->containment || genomes) return TSK_EXIT_OK;
    tsk_error("--containment applies to genome sketches (genome .tsk files, or --genome with FASTA)");
    return TSK_EXIT_USAGE;
}

/* Combinations of options and inputs that are refused before anything is read; NULL if none. */
static const char *usage_problem(const dist_cmd *d, int genomes)
{
    static char no_inputs[64];
    snprintf(no_inputs, sizeof no_inputs, "no inputs (try 'tsketch %s -h')", d->name);
    if (d->n_inputs == 0) return no_inputs;
    if (d->fmt == TSK_DIST_PHYLIP && !d->one_set)
        return "-f phylip needs one set of sketches (one input, or use 'tsketch triangle')";
    if (d->fmt != TSK_DIST_TSV && (d->top_k > 0 || isfinite(d->max_dist)))
        return "--top-k and -d/--max-dist select pairs: they need -f tsv";
    if (d->with_self && !d->one_set) return "--with-self applies to one input compared with itself";
    if (d->fmt == TSK_DIST_NPY && !d->output) return "-f npy needs -o FILE";
    if (d->block_n > 1 && d->fmt != TSK_DIST_TSV) return "--block splits pair lists: it needs -f tsv";
    if (genomes && d->containment && d->fmt == TSK_DIST_PHYLIP)
        return "--containment is not symmetric: PHYLIP needs a symmetric matrix (use -f square or tsv)";
    if (d->ani && !genomes) return "--ani applies to genome sketches (genome .tsk files, or --genome with FASTA)";
    if (d->ani && d->containment)
        return "--ani and --containment: ANI is the symmetric genome distance's, containment keeps the key share";
    if (d->ani && d->fmt != TSK_DIST_TSV) return "--ani adds columns to tsv lines: it needs -f tsv";
    if (d->key_distance && !genomes)
        return "--key-distance applies to genome sketches (genome .tsk files, or --genome with FASTA)";
    if (d->key_distance && d->ani) return "--ani and --key-distance: the key distance has no ANI or AF to print";
    if (genomes && d->metric_given)
        return "genome sketches are compared by shared fingerprints: --metric (l2 or cosine of sketch vectors) "
               "does not apply";
    return NULL;
}

/* ---- output ---- */

/* Where the runner's results go: a writer of io/dist_out.h (a file, or the matrix in memory). */
typedef struct {
    tsk_dist_out *out;
    float *matrix;   /* matrix commands: the n x n matrix the writer fills */
    int threads;     /* to format lines on */
} dist_output;

static int sink_rows(void *ctx, int64_t q0, int64_t nq, const float *d, int64_t ld)
{
    return tsk_dist_out_rows(((dist_output *)ctx)->out, q0, nq, d, ld);
}

static int sink_pairs(void *ctx, const tsk_pair *p, int64_t n, int swap, double max_dist)
{
    const dist_output *o = ctx;
    return tsk_dist_out_pairs(o->out, p, n, swap, max_dist, o->threads);
}

static int sink_lines(void *ctx, const tsk_genome_line *l, int64_t n)
{
    const dist_output *o = ctx;
    return tsk_dist_out_genome_lines(o->out, l, n, o->threads);
}

/* Opens the output of a table of queries x references: the matrix in memory for the matrix
 * commands, else the file (header: a tsv header line, header_text: or that one instead). */
static int output_open(const dist_cmd *d, dist_output *o, const char *const *q_names, int64_t n_q,
                       const char *const *r_names, int64_t n_r, const char *header_text)
{
    char err[TSK_ERRLEN];
    memset(o, 0, sizeof *o);
    o->threads = d->job.threads;
    if (d->matrix) return (o->out = tsk_dist_matrix_open(n_r, &o->matrix)) ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
    const int header = d->fmt == TSK_DIST_TSV && d->header && d->block_i == 1;
    if (!(o->out = tsk_dist_out_open(d->output, d->fmt, q_names, n_q, r_names, n_r, header && !header_text, err,
                                     sizeof err))) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    tsk_dist_out_genome_ani(o->out, d->ani);
    if (header && header_text && tsk_dist_out_text(o->out, header_text)) return tsk_dist_write_failed(d->output);
    return TSK_EXIT_OK;
}

/* Finishes the output (files moved into place) and, for a matrix command, hands the matrix on.
 * distance and meaning name the distance for legends. */
static int output_finish(const dist_cmd *d, dist_output *o, int64_t n, const char *const *names,
                         const char *distance, const char *meaning)
{
    char err[TSK_ERRLEN];
    const int failed = tsk_dist_out_finish(o->out, err, sizeof err);
    o->out = NULL;
    if (failed) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    if (!d->matrix) return TSK_EXIT_OK;
    return tsk_dist_matrix_deliver(d->matrix, o->matrix, n, names, distance, meaning, d->output, d->job.threads);
}

static void output_free(dist_output *o)
{
    tsk_dist_out_abort(o->out);
    free(o->matrix);
}

/* ---- the runs ---- */

/* The runner's selection for this command line over n_query query items. */
static tsk_dist_select selection(const dist_cmd *d, int symmetric, int64_t n_query)
{
    tsk_dist_select s = {0};
    s.one_set = d->one_set;
    s.symmetric = symmetric;
    s.with_self = d->with_self;
    s.top_k = d->top_k;
    s.max_dist = d->max_dist;
    s.dense = d->fmt != TSK_DIST_TSV;
    s.lower_only = d->fmt == TSK_DIST_PHYLIP || d->fmt == TSK_DIST_MATRIX;
    s.threads = d->job.threads;
    tsk_dist_block_rows(d->block_i, d->block_n, symmetric && d->top_k == 0, d->with_self, n_query, &s.q_begin,
                        &s.q_end);
    return s;
}

/* The table a run writes: its query and reference names, a tsv header of its own (or NULL for
 * the usual one) and, for vector rows, the mean name length for the note before a large run
 * (negative: no note). */
typedef struct {
    const char *const *q_names, *const *r_names;
    int64_t n_q, n_r;
    const char *header_text;
    double note_name_len;
} dist_table;

static double mean_name_len(const char *const *names, int64_t n)
{
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += (double)strlen(names[i]);
    return n ? sum / (double)n : 0;
}

/* A note before a run of vector rows with many pairs: how large the output will be. */
static void note_large_run(const dist_cmd *d, int64_t n_query, int64_t n_ref, double name_len)
{
    double pairs = d->one_set ? (double)n_query * (double)(n_query - 1) / 2 + (d->with_self ? (double)n_query : 0)
                              : (double)n_query * (double)n_ref;
    if (d->fmt != TSK_DIST_TSV) pairs = (double)n_query * (double)n_ref;
    if (pairs <= LARGE_RUN_PAIRS) return;
    if (d->top_k > 0) {
        double lines = (double)n_query * (double)d->top_k;
        tsk_note("%.4g pairs to compare; at most %.4g top-%lld lines (~%.3g GB)", pairs, lines, (long long)d->top_k,
                 tsk_dist_out_estimate(TSK_DIST_TSV, (int64_t)lines, 0, name_len) / 1e9);
    } else if (d->fmt == TSK_DIST_TSV && isfinite(d->max_dist)) {
        tsk_note("%.4g pairs to compare; output size depends on -d %g (at most ~%.3g GB)", pairs, d->max_dist,
                 tsk_dist_out_estimate(TSK_DIST_TSV, (int64_t)pairs, 0, name_len) / 1e9);
    } else {
        double bytes = d->fmt == TSK_DIST_TSV ? tsk_dist_out_estimate(d->fmt, (int64_t)pairs, 0, name_len)
                                              : tsk_dist_out_estimate(d->fmt, n_query, n_ref, name_len);
        tsk_note("%.4g pairs to compare; estimated output ~%.3g GB", pairs, bytes / 1e9);
    }
}

/* Opens the engine for items (first: a missing GPU is reported before any output exists), then
 * the output of table t into o, and runs the selection s into it. */
static int run_items(const dist_cmd *d, const tsk_dist_items *items, const dist_table *t, const tsk_dist_select *s,
                     dist_output *o)
{
    tsk_dist_engine *e;
    tsk_dist_items sized = *items;
    sized.run_queries = s->q_end > s->q_begin ? s->q_end - s->q_begin : -1; /* a --block part's: whether more GPUs pay */
    int rc = tsk_dist_engine_open(&sized, &d->job, &e);
    if (rc == TSK_EXIT_OK) rc = output_open(d, o, t->q_names, t->n_q, t->r_names, t->n_r, t->header_text);
    if (rc == TSK_EXIT_OK) {
        if (t->note_name_len >= 0) note_large_run(d, t->n_q, t->n_r, t->note_name_len);
        const tsk_dist_sink sink = {sink_rows, sink_pairs, sink_lines, o};
        rc = tsk_dist_run(e, s, &sink, d->output);
    }
    tsk_dist_engine_leave(e);
    return rc;
}

/* Vector rows: the l2 or cosine distance of the sketch vectors. */
static int run_rows(const dist_cmd *d)
{
    tsk_sketch_source groups[2];
    memset(groups, 0, sizeof groups);
    tsk_params params;
    dist_output o = {0};
    const double t0 = tsk_seconds();
    int rc = tsk_sources_load(d->inputs, d->n_inputs, d->group_of, groups, d->one_set ? 1 : 2, &d->job,
                              d->params_given, &params);
    const tsk_sketch_source *ref = &groups[0], *query = d->one_set ? &groups[0] : &groups[1];
    if (rc == TSK_EXIT_OK) {
        tsk_timing_loaded(ref->set.n_items + (d->one_set ? 0 : query->set.n_items), t0);
        if (query->set.n_items == 0 && !tsk_quiet) tsk_warn("no query sketches: the output has no distances");
        const tsk_dist_items items = {.rows_q = &query->set, .rows_r = &ref->set, .metric = d->metric};
        const dist_table t = {query->names, ref->names, query->set.n_items, ref->set.n_items, NULL,
                              mean_name_len(ref->names, ref->set.n_items)};
        const tsk_dist_select s = selection(d, d->one_set, query->set.n_items);
        rc = run_items(d, &items, &t, &s, &o);
    }
    const int cosine = d->metric == TSK_METRIC_COSINE;
    if (rc == TSK_EXIT_OK)
        rc = output_finish(d, &o, ref->set.n_items, ref->names, cosine ? "cosine distance" : "l2 distance",
                           cosine ? "1 - cos, sketch vectors" : "Euclidean, sketch vectors");
    output_free(&o);
    tsk_source_free(&groups[0]);
    tsk_source_free(&groups[1]);
    return rc;
}

/* tsk_dist_items' inputs_checked: both groups' anchor checksums (tsk_genome_sources_load's anchors_later). */
static int genomes_checked(void *ctx)
{
    tsk_genome_source *groups = ctx;
    const int rc = tsk_genome_source_checked(&groups[0]);
    return rc != TSK_EXIT_OK ? rc : tsk_genome_source_checked(&groups[1]);
}

/* Genome sketches: 1 - ANI from segment anchors, candidates found by shared keys (--containment:
 * 1 - f^(1/W) of the keys alone), with the shared and total counts in tsv lines (and --ani's). */
static int run_genomes(const dist_cmd *d)
{
    tsk_genome_source groups[2];
    memset(groups, 0, sizeof groups);
    tsk_params params;
    dist_output o = {0};
    const double t0 = tsk_seconds();
    /* with ANI, a GPU run on few threads checks the anchors beside its uploads (most of the file) */
    const int anchors_later = !d->key_distance && !d->containment && tsk_genome_anchors_later_pays(&d->job);
    int rc = tsk_genome_sources_load(d->inputs, d->n_inputs, d->group_of, groups, d->one_set ? 1 : 2, &d->job,
                                     d->params_given, anchors_later, &params);
    const tsk_genome_source *ref = &groups[0], *query = d->one_set ? &groups[0] : &groups[1];
    if (rc == TSK_EXIT_OK) {
        tsk_timing_loaded(ref->set.n_items + (d->one_set ? 0 : query->set.n_items), t0);
        if (query->set.n_items == 0) tsk_warn("no query genomes: the output has no distances");
        const tsk_dist_items items = {.keys_q = &query->set, .keys_r = &ref->set,
                                      .mode = d->containment ? TSK_GENOME_CONTAINMENT : TSK_GENOME_SYMMETRIC,
                                      .window = params.window,
                                      .ani_q = d->key_distance ? NULL : &query->ani,
                                      .ani_r = d->key_distance ? NULL : &ref->ani,
                                      .anchor_k = params.anchor_k,
                                      .inputs_checked = genomes_checked,
                                      .inputs_checked_ctx = groups};
        const dist_table t = {query->names, ref->names, query->set.n_items, ref->set.n_items,
                              d->ani ? "reference\tquery\tdistance\tshared\ttotal\tani\taf\n"
                                     : "reference\tquery\tdistance\tshared\ttotal\n",
                              -1};
        /* containment is not symmetric: one set lists every ordered pair, each with its own value */
        const tsk_dist_select s = selection(d, d->one_set && !d->containment, query->set.n_items);
        rc = run_items(d, &items, &t, &s, &o);
    }
    if (rc == TSK_EXIT_OK)
        rc = output_finish(d, &o, ref->set.n_items, ref->names, "genome distance", "1 - ANI, estimated");
    output_free(&o);
    tsk_genome_source_free(&groups[0]);
    tsk_genome_source_free(&groups[1]);
    return rc;
}

/* ---- the command ---- */

static void dist_cmd_init(dist_cmd *d, int triangle, const tsk_matrix_command *cmd)
{
    memset(d, 0, sizeof *d);
    d->name = cmd ? cmd->name : triangle ? "triangle" : "dist";
    d->triangle = triangle;
    d->matrix = cmd;
    d->fmt = cmd ? TSK_DIST_MATRIX : triangle ? TSK_DIST_PHYLIP : TSK_DIST_TSV;
    d->metric = TSK_METRIC_L2;
    d->max_dist = INFINITY;
    d->block_i = d->block_n = 1;
    tsk_sketch_job_init(&d->job);
}

static void dist_cmd_free(dist_cmd *d)
{
    free(d->inputs);
    free(d->group_of);
    tsk_sketch_job_free(&d->job);
}

/* dist, triangle (triangle = 1) and, with cmd, the matrix commands (as triangle). */
static int distance_command(int argc, char **argv, int triangle, const tsk_matrix_command *cmd)
{
    dist_cmd d;
    dist_cmd_init(&d, triangle, cmd);
    int rc = parse_options(&d, argc, argv), genomes = 0;
    if (rc < 0) {
        dist_cmd_free(&d);
        return TSK_EXIT_OK; /* -h */
    }
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_check_output(&d.job, d.output, argv + optind, (size_t)(argc - optind));
    if (rc == TSK_EXIT_OK) rc = collect_inputs(&d, argc, argv);
    if (rc == TSK_EXIT_OK) rc = tsk_inputs_settle(d.name, d.inputs, d.n_inputs, 0, 0, &d.job, &d.kinds, &genomes);
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_finish(&d.job);
    if (rc == TSK_EXIT_OK) rc = check_containment(&d, genomes);
    const char *why = rc == TSK_EXIT_OK ? usage_problem(&d, genomes) : NULL;
    if (why) {
        tsk_error("%s", why);
        rc = TSK_EXIT_USAGE;
    }
    if (rc == TSK_EXIT_OK) {
        tsk_engine_dist_warm(&d.job.device); /* the GPU's context is made while the inputs load */
        rc = genomes ? run_genomes(&d) : run_rows(&d);
        tsk_engine_dist_warm_end();
    }
    dist_cmd_free(&d);
    return rc;
}

int tsk_dist_main(int argc, char **argv, int triangle) { return distance_command(argc, argv, triangle, NULL); }

int tsk_matrix_main(int argc, char **argv, const tsk_matrix_command *cmd)
{
    return distance_command(argc, argv, 1, cmd);
}

int tsk_cmd_dist(int argc, char **argv) { return tsk_dist_main(argc, argv, 0); }
