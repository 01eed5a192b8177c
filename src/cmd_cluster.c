/* cmd_cluster.c: `tsketch cluster [options] INPUT...`: species clusters and their representatives
 * (docs/cluster.md).
 *
 * The inputs load as one set (genome_source.h or sketch_source.h), get ranked (quality file, then
 * length, then input order), and the distance runner (dist_run.h) streams every pair within -d,
 * a block of items at a time, into the clustering: single linkage takes each link into a
 * union-find as it comes; greedy holds the links by rank (io/link_runs.h, spilling sorted runs
 * past the memory budget) and visits the items in rank order (core/cluster.h). No N x N matrix
 * exists at any point. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/cluster.h"
#include "../core/tsk_knobs.h"
#include "../cpu/cpu_dist.h"
#include "../cpu/genome_sets.h"
#include "../io/atomic_file.h"
#include "../io/dist_out.h"
#include "../io/float_text.h"
#include "../io/link_runs.h"
#include "../io/quality.h"
#include "../io/tsk_file.h"
#include "cli.h"
#include "commands.h"
#include "dist_run.h"
#include "genome_source.h"
#include "sketch_opts.h"
#include "sketch_source.h"

#define DEFAULT_GENOME_DIST 0.05 /* 95 % ANI */
#define MAX_GENOME_DIST 0.5      /* a larger -d on genomes is ANI written as a fraction (0.95) */
#define DIST_HINT "-d is a distance, 1 - ANI: for 95 % ANI write -d 0.05 or --min-ani 95"

enum {
    OPT_METHOD = TSK_OPT_FIRST_FREE,
    OPT_QUALITY,
    OPT_MIN_AF,
    OPT_MIN_ANI,
    OPT_ANI,
    OPT_REPRESENTATIVES,
    OPT_HEADER,
    OPT_METRIC,
    OPT_PER_RECORD
};

typedef enum { METHOD_GREEDY = 0, METHOD_SINGLE = 1 } cluster_method;

/* The command line. */
typedef struct {
    double max_dist;
    int dist_given;
    cluster_method method;
    const char *quality, *output, *representatives;
    double min_af;
    int min_af_given, header;
    double min_ani;                  /* --min-ani, percent */
    int min_ani_given;
    int ani;                         /* --ani: the table adds ani and af of member vs representative */
    tsk_metric metric;
    int metric_given;
    int per_record;                  /* --per-record: a FASTA input's records are genomes */
    tsk_sketch_job job;
    int params_given;
    tsk_input *inputs;
    size_t n_inputs;
    tsk_input_kinds kinds;
    /* the outputs, opened before any work (a directory or an unwritable place fails at once) */
    tsk_atomic_file *table, *reps;
} cluster_cmd;

/* The items, whichever kind they are. */
typedef struct {
    int genomes;
    tsk_genome_source g;
    tsk_sketch_source v;
    tsk_params params;
    int64_t n;
    const char *const *names;
    const int64_t *length;
} cluster_items;

static void usage(FILE *f)
{
    fprintf(f, "Usage: tsketch cluster [options] INPUT...\n"
               "\n"
               "Clusters of the inputs' genomes (or records) and one representative each: every pair within\n"
               "-d is linked, and the links make clusters (docs/cluster.md). INPUT: what 'tsketch dist' takes,\n"
               "all inputs one set: genome .tsk files, FASTA files (a genome a file: its contigs are one\n"
               "genome), or .tsk files of vector sketches. Output: one line per item,\n"
               "'genome TAB cluster TAB representative TAB distance',\n"
               "by cluster (numbered from 1 in the rank of their representatives), the representative first.\n"
               "Genome sketches: the distance is 1 - ANI (ANI over the aligned part, estimated from segment\n"
               "anchors), and a link is ANI >= X and AF >= Y as GTDB writes it (default: 95 %% ANI, no AF bound).\n"
               "\n"
               "  -d, --max-dist D         link pairs at distance <= D (genome sketches: 1 - ANI, default 0.05,\n"
               "                           i.e. 95%% ANI; D above 0.5 is refused as ANI written as a fraction;\n"
               "                           vector sketches: required)\n"
               "      --min-ani X          genome sketches: link pairs of ANI >= X percent (0 < X <= 100; GTDB:\n"
               "                           95): the same as -d (100 - X) / 100\n"
               "      --method M           greedy (default: in rank order, an item joins the nearest earlier\n"
               "                           representative within D or becomes one; members then move to\n"
               "                           their nearest representative) or single (connected components)\n"
               "      --quality FILE       rank by CheckM2, CheckM1 or dRep quality tables, or NAME<TAB>SCORE lines\n"
               "                           (Completeness - 5 x Contamination), highest first; then longer\n"
               "                           first, then input order (without FILE: longer first)\n"
               "      --min-af F           genome sketches: link only pairs whose aligned fraction (of the genome\n"
               "                           with fewer segments) is >= F (0..1; GTDB: 0.5); a pair with a genome\n"
               "                           under 3 kb has no estimate and is not linked\n"
               "      --ani                genome sketches: the table adds 'ani' (percent) and 'af' of each\n"
               "                           genome against its representative\n"
               "      --representatives FILE  also write the representatives, one a line, in cluster order\n"
               "      --header             a header line\n"
               "      --metric M           vector sketches: l2 (default) or cosine\n"
               "      --per-record         FASTA inputs: each record is a genome (default: each file is one)\n"
               "  -o, --output FILE        write to FILE (via a temporary file; *.gz: BGZF) instead of stdout\n"
               "  -q, --quiet              no summary or notes on stderr\n"
               "  -h, --help               this help\n"
               "\n"
               "%s",
            tsk_sketch_options_help);
}

/* ---- options ---- */

static const struct option long_options[] = {
    TSK_SKETCH_LONG_OPTIONS,
    {"max-dist", required_argument, 0, 'd'},
    {"method", required_argument, 0, OPT_METHOD},
    {"quality", required_argument, 0, OPT_QUALITY},
    {"min-af", required_argument, 0, OPT_MIN_AF},
    {"min-ani", required_argument, 0, OPT_MIN_ANI},
    {"ani", no_argument, 0, OPT_ANI},
    {"representatives", required_argument, 0, OPT_REPRESENTATIVES},
    {"header", no_argument, 0, OPT_HEADER},
    {"metric", required_argument, 0, OPT_METRIC},
    {"per-record", no_argument, 0, OPT_PER_RECORD},
    {"output", required_argument, 0, 'o'},
    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

static int cluster_option(cluster_cmd *c, int opt, const char *arg)
{
    switch (opt) {
    case 'o': c->output = arg; return TSK_EXIT_OK;
    case 'q': tsk_quiet = 1; return TSK_EXIT_OK;
    case 'd': c->dist_given = 1; return tsk_parse_double("-d/--max-dist", arg, 0, INFINITY, &c->max_dist);
    case OPT_MIN_ANI: {
        c->min_ani_given = 1;
        const int rc = tsk_parse_double("--min-ani", arg, 0, 100, &c->min_ani);
        if (rc == TSK_EXIT_OK && !(c->min_ani > 0)) {
            tsk_error("option --min-ani: %s is not a percentage above 0 (95 is 95 %% ANI)", arg);
            return TSK_EXIT_USAGE;
        }
        return rc;
    }
    case OPT_ANI: c->ani = 1; return TSK_EXIT_OK;
    case OPT_MIN_AF: c->min_af_given = 1; return tsk_parse_double("--min-af", arg, 0, 1, &c->min_af);
    case OPT_QUALITY: c->quality = arg; return TSK_EXIT_OK;
    case OPT_REPRESENTATIVES: c->representatives = arg; return TSK_EXIT_OK;
    case OPT_HEADER: c->header = 1; return TSK_EXIT_OK;
    case OPT_METHOD:
        if (!strcmp(arg, "greedy")) c->method = METHOD_GREEDY;
        else if (!strcmp(arg, "single")) c->method = METHOD_SINGLE;
        else {
            tsk_error("option --method: '%s' is not greedy or single", arg);
            return TSK_EXIT_USAGE;
        }
        return TSK_EXIT_OK;
    case OPT_METRIC: c->metric_given = 1; return tsk_parse_metric(arg, &c->metric);
    case OPT_PER_RECORD: c->per_record = 1; return TSK_EXIT_OK;
    default: return tsk_usage_error("cluster");
    }
}

/* Parses argv into c: TSK_EXIT_OK, an exit code after the message, or -1 after -h. */
static int parse_options(cluster_cmd *c, int argc, char **argv)
{
    int opt, rc = TSK_EXIT_OK;
    optind = 1;
    while (rc == TSK_EXIT_OK && (opt = getopt_long(argc, argv, TSK_SKETCH_SHORT_OPTS "o:d:qh", long_options, NULL)) != -1) {
        const int used = tsk_sketch_option(&c->job, opt, optarg);
        if (used == 1) c->params_given |= tsk_sketch_param_option(opt);
        else if (used < 0) rc = -used;
        else if (opt == 'h') {
            usage(stdout);
            return -1;
        } else rc = cluster_option(c, opt, optarg);
    }
    return rc;
}

/* The inputs (dist's front end, sketch_source.h): what they hold settled before the sketch job is
 * finished, so that genome options on genome .tsk files mean what they mean to dist; FASTA inputs
 * are genomes, one a file unless --per-record. */
static int collect_inputs(cluster_cmd *c, int argc, char **argv, int *genomes)
{
    int rc = tsk_inputs_collect(argc, argv, optind, &c->job, &c->inputs, &c->n_inputs);
    if (rc == TSK_EXIT_OK && c->n_inputs == 0) {
        tsk_error("no inputs (try 'tsketch cluster -h')");
        rc = TSK_EXIT_USAGE;
    }
    if (rc == TSK_EXIT_OK && c->per_record && c->job.per_file) {
        tsk_error("--per-record and --per-file contradict each other: a FASTA input's records are genomes, or "
                  "the file is one");
        rc = TSK_EXIT_USAGE;
    }
    if (rc == TSK_EXIT_OK)
        rc = tsk_inputs_settle("cluster", c->inputs, c->n_inputs, 1, c->per_record, &c->job, &c->kinds, genomes);
    if (rc == TSK_EXIT_OK && c->per_record && (size_t)c->kinds.genome_files == c->n_inputs) {
        tsk_error("--per-record applies to FASTA inputs: these are genome .tsk files, whose genomes were chosen "
                  "when they were sketched");
        rc = TSK_EXIT_USAGE;
    }
    return rc;
}

/* What each kind of item allows. */
static int check_kind(cluster_cmd *c, int genomes)
{
    const char *why = NULL;
    if (genomes && c->metric_given)
        why = "genome sketches are compared by shared fingerprints: --metric does not apply";
    else if (!genomes && c->min_af_given)
        why = "--min-af applies to genome sketches (genome .tsk files or FASTA files)";
    else if (!genomes && c->min_ani_given)
        why = "--min-ani applies to genome sketches (genome .tsk files or FASTA files)";
    else if (!genomes && c->ani)
        why = "--ani applies to genome sketches (genome .tsk files or FASTA files)";
    else if (c->dist_given && c->min_ani_given)
        why = "-d and --min-ani set the same threshold (-d 0.05 is --min-ani 95): give one";
    else if (c->dist_given && (c->max_dist > 1 || (genomes && c->max_dist > MAX_GENOME_DIST)))
        why = DIST_HINT;
    else if (!genomes && c->per_record)
        why = "--per-record applies to FASTA inputs (genomes)";
    else if (!genomes && !c->dist_given && !c->kinds.unreadable) /* else: loading names the file (exit 3) */
        why = "vector sketches need -d: their distances have no unit that a default could fit (genome sketches: "
              "-d 0.05 is 95% ANI)";
    if (why) {
        tsk_error("%s", why);
        return TSK_EXIT_USAGE;
    }
    if (c->min_ani_given) c->max_dist = (100.0 - c->min_ani) / 100.0;
    else if (!c->dist_given) c->max_dist = DEFAULT_GENOME_DIST;
    return TSK_EXIT_OK;
}

/* Whether two outputs are one file: both standard output, the same existing file, or the same
 * name in the same directory ("c.tsv" and "./c.tsv" before either exists). */
static int same_output(const char *a, const char *b)
{
    const int a_out = !a || !strcmp(a, "-"), b_out = !b || !strcmp(b, "-");
    if (a_out || b_out) return a_out && b_out;
    if (tsk_same_file(a, b)) return 1;
    const char *an = strrchr(a, '/'), *bn = strrchr(b, '/');
    an = an ? an + 1 : a, bn = bn ? bn + 1 : b;
    if (strcmp(an, bn)) return 0;
    char *ad = strndup(a, (size_t)(an - a)), *bd = strndup(b, (size_t)(bn - b));
    char *ar = ad ? realpath(*ad ? ad : ".", NULL) : NULL, *br = bd ? realpath(*bd ? bd : ".", NULL) : NULL;
    const int same = ar && br && !strcmp(ar, br);
    free(ad), free(bd), free(ar), free(br);
    return same;
}

/* Opens the table and the representatives' file (io/atomic_file.h: a temporary file renamed into
 * place at the end, *.gz BGZF) before any work, so that an output that cannot be written fails at
 * once, not after the clustering. */
static int open_outputs(cluster_cmd *c)
{
    if (c->representatives && same_output(c->output, c->representatives)) {
        if (!c->output || !strcmp(c->output, "-"))
            tsk_error("--representatives and the table both go to standard output: give one of them a file (-o FILE)");
        else tsk_error("--representatives and -o name the same file '%s'", c->output);
        return TSK_EXIT_USAGE;
    }
    char err[TSK_ERRLEN];
    if (!(c->table = tsk_atomic_open(c->output ? c->output : "-", err, sizeof err)) ||
        (c->representatives && !(c->reps = tsk_atomic_open(c->representatives, err, sizeof err)))) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

/* ---- items and their ranks ---- */

static int load_items(const cluster_cmd *c, int genomes, cluster_items *it)
{
    int *group_of = calloc(c->n_inputs, sizeof *group_of);
    if (!group_of) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    it->genomes = genomes;
    int rc;
    if (genomes) {
        rc = tsk_genome_sources_load(c->inputs, c->n_inputs, group_of, &it->g, 1, &c->job, c->params_given,
                                     &it->params);
        it->n = it->g.set.n_items, it->names = it->g.names, it->length = it->g.length;
    } else {
        rc = tsk_sources_load(c->inputs, c->n_inputs, group_of, &it->v, 1, &c->job, c->params_given, &it->params);
        it->n = it->v.set.n_items, it->names = it->v.names, it->length = it->v.length;
    }
    free(group_of);
    if (rc == TSK_EXIT_OK && it->n > TSK_CLUSTER_MAX_ITEMS) {
        tsk_error("%lld items: cluster takes at most %lld", (long long)it->n, (long long)TSK_CLUSTER_MAX_ITEMS);
        rc = TSK_EXIT_USAGE;
    }
    return rc;
}

static void free_items(cluster_items *it)
{
    tsk_genome_source_free(&it->g);
    tsk_source_free(&it->v);
}

/* Every item's score from the quality file (exit 3 for an item without one; a note counts the
 * file's names that match no item, however often an input repeats). */
static int quality_scores(const char *path, const cluster_items *it, double *score)
{
    tsk_quality q;
    char err[TSK_ERRLEN];
    const int read = tsk_quality_read(path, &q, err, sizeof err);
    if (read) {
        tsk_error("%s", err);
        return read == -2 ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
    }
    unsigned char *used = calloc((size_t)(q.n ? q.n : 1), 1);
    int rc = used ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
    if (!used) tsk_error("out of memory");
    for (int64_t i = 0; i < it->n && rc == TSK_EXIT_OK; i++) {
        const int64_t e = tsk_quality_find(&q, it->names[i]);
        if (e >= 0) {
            score[i] = q.entry[e].score;
            used[e] = 1;
            continue;
        }
        tsk_error("%s: no score for '%s' (every input needs one; the %s has %lld names, matched without "
                  "directories and sequence extensions)",
                  path, it->names[i], tsk_quality_format_name(q.format), (long long)q.n);
        rc = TSK_EXIT_INPUT;
    }
    int64_t unused = 0;
    for (int64_t e = 0; rc == TSK_EXIT_OK && e < q.n; e++) unused += !used[e];
    if (unused) tsk_note("%s: %lld names not among the inputs", path, (long long)unused);
    free(used);
    tsk_quality_free(&q);
    return rc;
}

/* order[rank] = item, rank_of[item] = rank. */
static int rank_items(const cluster_cmd *c, const cluster_items *it, int64_t *order, uint32_t *rank_of)
{
    double *score = NULL;
    int rc = TSK_EXIT_OK;
    if (c->quality) {
        if (!(score = malloc((size_t)(it->n ? it->n : 1) * sizeof *score))) rc = TSK_EXIT_RUNTIME;
        else rc = quality_scores(c->quality, it, score);
    }
    if (rc == TSK_EXIT_OK && tsk_cluster_rank(it->n, score, it->length, order)) rc = TSK_EXIT_RUNTIME;
    if (rc == TSK_EXIT_RUNTIME) tsk_error("out of memory ranking the items");
    for (int64_t r = 0; rc == TSK_EXIT_OK && r < it->n; r++) rank_of[order[r]] = (uint32_t)r;
    free(score);
    return rc;
}

/* ---- links ---- */

/* Where the runner's pairs go: into links (greedy) or the union-find (single). */
typedef struct {
    const cluster_cmd *cmd;
    const cluster_items *it;
    const uint32_t *rank_of;
    tsk_link_runs *runs;       /* greedy */
    tsk_components *parts;     /* single */
    double min_af;             /* --min-af: a link needs the pair's AF (the runner's line) >= this */
    int min_af_given;
    tsk_cluster_link *buf;
    int64_t cap;
    int64_t n_pairs;           /* pairs within the distance */
    char err[TSK_ERRLEN];
} link_sink;



static int reserve(link_sink *s, int64_t n)
{
    if (n <= s->cap) return 0;
    tsk_cluster_link *b = realloc(s->buf, (size_t)n * sizeof *b);
    if (b) s->buf = b;
    if (!b) {
        snprintf(s->err, sizeof s->err, "out of memory holding the links");
        return -1;
    }
    s->cap = n;
    return 0;
}

/* One pair of items within the distance: a link between their ranks. */
static void add_link(link_sink *s, int64_t *n, int64_t a, int64_t b, float dist)
{
    const uint32_t ra = s->rank_of[a], rb = s->rank_of[b];
    if (ra == rb) return;
    if (s->parts) tsk_components_link(s->parts, ra, rb, NULL);
    else s->buf[(*n)++] = (tsk_cluster_link){ra > rb ? ra : rb, ra > rb ? rb : ra, dist};
}

static int flush_links(link_sink *s, int64_t n)
{
    return s->runs && n ? tsk_link_runs_add(s->runs, s->buf, n, s->err, sizeof s->err) : 0;
}

static int sink_lines(void *ctx, const tsk_genome_line *l, int64_t n)
{
    link_sink *s = ctx;
    if (reserve(s, n)) return -1;
    s->n_pairs += n;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) /* a NAN AF (no estimate) fails --min-af */
        if (!s->min_af_given || (double)l[i].af >= s->min_af) add_link(s, &m, l[i].query, l[i].ref, l[i].dist);
    return flush_links(s, m);
}

static int sink_pairs(void *ctx, const tsk_pair *p, int64_t n, int swap, double max_dist)
{
    (void)swap; /* a link has no direction */
    link_sink *s = ctx;
    if (reserve(s, n)) return -1;
    s->n_pairs += n;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (p[i].ref >= 0 && (double)p[i].dist <= max_dist) add_link(s, &m, p[i].query, p[i].ref, p[i].dist);
    return flush_links(s, m);
}

/* The links' memory budget: TSKETCH_CLUSTER_MEMORY, else a quarter of the machine's memory. */
static size_t links_budget(void)
{
    const long long knob = tsk_knobs_get()->cluster_memory;
    if (knob > 0) return (size_t)knob;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 4 : (size_t)1 << 30;
}

/* The items of genome sketches as the runner takes them: one set, the symmetric distance, 1 - ANI. */
static tsk_dist_items genome_items(const cluster_items *it)
{
    tsk_dist_items items = {0};
    items.keys_q = items.keys_r = &it->g.set;
    items.mode = TSK_GENOME_SYMMETRIC;
    items.window = it->params.window;
    items.ani_q = items.ani_r = &it->g.ani;
    items.anchor_k = it->params.anchor_k;
    return items;
}

/* Runs the threshold engine over every pair of the items into sink. */
static int find_links(const cluster_cmd *c, const cluster_items *it, link_sink *sink)
{
    tsk_dist_items items = {0};
    if (it->genomes) {
        items = genome_items(it);
    } else {
        items.rows_q = items.rows_r = &it->v.set;
        items.metric = c->metric;
    }
    tsk_dist_select s = {0};
    s.q_end = it->n;
    s.one_set = 1;
    s.symmetric = 1;
    s.max_dist = c->max_dist;
    s.threads = c->job.threads;
    const tsk_dist_sink out = {NULL, sink_pairs, sink_lines, sink};
    tsk_dist_engine *e;
    int rc = tsk_dist_engine_open(&items, &c->job, &e);
    /* a sink failure is reported by the runner as a failed write of "the links ...", then here */
    if (rc == TSK_EXIT_OK && (rc = tsk_dist_run(e, &s, &out, "the links held for clustering")) && sink->err[0])
        tsk_error("%s", sink->err);
    tsk_dist_engine_close(e);
    return rc;
}

/* ---- clustering ---- */

static int greedy_take(void *ctx, const tsk_cluster_link *l, int64_t n) { return tsk_greedy_add(ctx, l, n); }

static int cluster_greedy(const cluster_cmd *c, const cluster_items *it, link_sink *sink, tsk_clustering *out)
{
    char err[TSK_ERRLEN];
    if (!(sink->runs = tsk_link_runs_open(links_budget(), err, sizeof err))) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    int rc = find_links(c, it, sink);
    tsk_greedy *g = NULL;
    if (rc == TSK_EXIT_OK && !(g = tsk_greedy_open(out, NULL))) {
        tsk_error("out of memory clustering");
        rc = TSK_EXIT_RUNTIME;
    }
    if (rc == TSK_EXIT_OK) {
        if (tsk_link_runs_spilled(sink->runs) && !tsk_quiet)
            tsk_note("%lld links held as %lld sorted runs on disk (TSKETCH_CLUSTER_MEMORY)",
                     (long long)tsk_link_runs_count(sink->runs), (long long)tsk_link_runs_spilled(sink->runs));
        if (tsk_link_runs_read(sink->runs, greedy_take, g, err, sizeof err)) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        }
        tsk_greedy_finish(g);
    }
    tsk_link_runs_close(sink->runs);
    sink->runs = NULL;
    return rc;
}

/* Each genome against its representative, as the runner computes a pair (tsk_dist_genome_pair:
 * 1 - ANI, the same bytes whichever engine found the link): the distance into cl->dist (set_dist:
 * single linkage, whose links leave it open) and, when ani is not NULL, ANI and AF into ani[r] and
 * af[r] (--ani). On the -p threads, one scratch each. 0, or -1 out of memory. */
static int genome_members(const cluster_cmd *c, const cluster_items *it, const int64_t *order, tsk_clustering *cl,
                          int set_dist, float *ani, float *af)
{
    const tsk_dist_items items = genome_items(it);
    const tsk_key_sets *set = &it->g.set;
    int failed = 0;
#pragma omp parallel num_threads(c->job.threads) reduction(| : failed)
    {
        tsk_ani_work *w = tsk_ani_work_new();
        failed |= !w;
#pragma omp for schedule(dynamic, 16)
        for (int64_t r = 0; r < cl->n; r++) {
            const int is_rep = cl->rep[r] == (uint32_t)r;
            if (!w || (is_rep && !ani)) continue;
            const int64_t a = order[r], b = order[cl->rep[r]];
            const int64_t shared = tsk_cpu_genome_shared(set, a, set, b);
            tsk_genome_line line;
            if (tsk_dist_genome_pair(&items, w, a, b, shared, &line)) {
                failed = 1;
                continue;
            }
            if (set_dist && !is_rep) cl->dist[r] = line.dist;
            if (ani) ani[r] = line.ani, af[r] = line.af;
        }
        tsk_ani_work_free(w);
    }
    if (failed) tsk_error("out of memory estimating ANI");
    return failed ? -1 : 0;
}

/* The distance of each vector record to its representative, as the engines compute it. */
static void member_distances(const tsk_clustering *cl, const int64_t *order, tsk_cpu_dist *rows, float *dist)
{
    for (int64_t r = 0; r < cl->n; r++)
        if (cl->rep[r] != (uint32_t)r) tsk_cpu_dist_block(rows, order[r], 1, order[cl->rep[r]], 1, &dist[r], 1);
}

static int cluster_single(const cluster_cmd *c, const cluster_items *it, const int64_t *order, link_sink *sink,
                          tsk_clustering *out)
{
    tsk_components parts;
    if (tsk_components_init(&parts, it->n)) {
        tsk_error("out of memory clustering");
        return TSK_EXIT_RUNTIME;
    }
    sink->parts = &parts;
    int rc = find_links(c, it, sink);
    sink->parts = NULL;
    if (rc == TSK_EXIT_OK) tsk_components_finish(&parts, out);
    tsk_components_free(&parts);
    tsk_cpu_dist *rows = NULL;
    if (rc == TSK_EXIT_OK && !it->genomes) {
        char err[TSK_ERRLEN];
        if (!(rows = tsk_cpu_dist_open(&it->v.set, &it->v.set, c->metric, c->job.threads, err, sizeof err))) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        }
    }
    if (rc == TSK_EXIT_OK && it->genomes && genome_members(c, it, order, out, 1, NULL, NULL)) rc = TSK_EXIT_RUNTIME;
    else if (rc == TSK_EXIT_OK && !it->genomes) member_distances(out, order, rows, out->dist);
    tsk_cpu_dist_close(rows);
    return rc;
}

/* ---- output ---- */

/* Renames a written output into place. */
static int commit_output(tsk_atomic_file *f)
{
    char err[TSK_ERRLEN];
    if (!tsk_atomic_commit(f, err, sizeof err)) return TSK_EXIT_OK;
    tsk_error("%s", err);
    return TSK_EXIT_RUNTIME;
}

/* The table (and the representatives' names) in output order, into the outputs opened at the
 * start; both are committed or both removed. */
static int write_outputs(cluster_cmd *c, const cluster_items *it, const int64_t *order, const tsk_clustering *cl,
                         const int64_t *cluster_of, const int64_t *line, const float *ani, const float *af)
{
    FILE *t = tsk_atomic_stream(c->table);
    if (c->header) fputs(ani ? "genome\tcluster\trepresentative\tdistance\tani\taf\n" : "genome\tcluster\trepresentative\tdistance\n", t);
    char num[64 + TSK_DIST_ANI_TEXT];
    for (int64_t i = 0; i < cl->n && !ferror(t); i++) {
        const int64_t r = line[i];
        fputs(it->names[order[r]], t);
        fprintf(t, "\t%lld\t", (long long)cluster_of[r]);
        fputs(it->names[order[cl->rep[r]]], t);
        num[0] = '\t';
        size_t len = 1 + tsk_float_g9(num + 1, cl->dist[r]);
        if (ani) len += tsk_dist_format_ani(num + len, ani[r], af[r]);
        num[len] = '\n';
        fwrite(num, 1, len + 1, t);
    }
    int rc = ferror(t) ? tsk_dist_write_failed(c->output) : TSK_EXIT_OK;
    if (rc == TSK_EXIT_OK && c->reps) {
        FILE *f = tsk_atomic_stream(c->reps);
        for (int64_t i = 0; i < cl->n && !ferror(f); i++) {
            const int64_t r = line[i];
            if (cl->rep[r] == (uint32_t)r) fprintf(f, "%s\n", it->names[order[r]]);
        }
        if (ferror(f)) rc = tsk_dist_write_failed(c->representatives);
    }
    /* the representatives first: the table appears last, so a table means a complete run */
    if (rc == TSK_EXIT_OK && c->reps) rc = commit_output(c->reps);
    else tsk_atomic_abort(c->reps);
    c->reps = NULL;
    if (rc == TSK_EXIT_OK) rc = commit_output(c->table);
    else tsk_atomic_abort(c->table);
    c->table = NULL;
    return rc;
}

/* ---- the command ---- */

static void note_summary(const cluster_items *it, int64_t n_clusters, int64_t n_singletons)
{
    tsk_note("cluster: %lld %s, %lld clusters (%lld singletons)", (long long)it->n,
             it->genomes ? "genomes" : "records", (long long)n_clusters, (long long)n_singletons);
}

/* Loads, ranks, links, clusters and writes. */
static int run(cluster_cmd *c, int genomes)
{
    cluster_items it;
    memset(&it, 0, sizeof it);
    const int timing = tsk_timing_wanted();
    double t0 = tsk_seconds(), t_load = 0, t_links = 0;
    int rc = load_items(c, genomes, &it);
    int64_t *order = NULL, *cluster_of = NULL, *line = NULL;
    uint32_t *rank_of = NULL;
    tsk_clustering cl = {0};
    link_sink sink = {.cmd = c, .it = &it, .min_af = c->min_af, .min_af_given = c->min_af_given};
    float *ani = NULL, *af = NULL;
    if (rc == TSK_EXIT_OK) {
        t_load = tsk_seconds();
        tsk_timing_loaded(it.n, t0);
        const size_t n = (size_t)(it.n ? it.n : 1);
        order = malloc(n * sizeof *order), cluster_of = malloc(n * sizeof *cluster_of), line = malloc(n * sizeof *line);
        rank_of = malloc(n * sizeof *rank_of);
        if (!order || !cluster_of || !line || !rank_of || tsk_clustering_init(&cl, it.n)) {
            tsk_error("out of memory");
            rc = TSK_EXIT_RUNTIME;
        }
    }
    if (rc == TSK_EXIT_OK) rc = rank_items(c, &it, order, rank_of);
    sink.rank_of = rank_of;
    if (rc == TSK_EXIT_OK && it.n > 1)
        rc = c->method == METHOD_GREEDY ? cluster_greedy(c, &it, &sink, &cl) : cluster_single(c, &it, order, &sink, &cl);
    t_links = tsk_seconds();
    int64_t n_clusters = 0, n_singletons = 0;
    if (rc == TSK_EXIT_OK && tsk_clustering_order(&cl, cluster_of, line, &n_clusters, &n_singletons)) {
        tsk_error("out of memory");
        rc = TSK_EXIT_RUNTIME;
    }
    if (rc == TSK_EXIT_OK && c->ani) {
        const size_t n = (size_t)(it.n ? it.n : 1);
        if (!(ani = malloc(n * sizeof *ani)) || !(af = malloc(n * sizeof *af))) {
            tsk_error("out of memory");
            rc = TSK_EXIT_RUNTIME;
        } else if (genome_members(c, &it, order, &cl, 0, ani, af)) {
            rc = TSK_EXIT_RUNTIME;
        }
    }
    if (rc == TSK_EXIT_OK) rc = write_outputs(c, &it, order, &cl, cluster_of, line, ani, af);
    if (rc == TSK_EXIT_OK) note_summary(&it, n_clusters, n_singletons);
    if (rc == TSK_EXIT_OK && timing)
        fprintf(stderr,
                "tsketch: timing: load %.3f s, links and clustering %.3f s (%lld pairs), output %.3f s\n",
                t_load - t0, t_links - t_load, (long long)sink.n_pairs, tsk_seconds() - t_links);
    free(sink.buf);
    free(ani), free(af);
    tsk_clustering_free(&cl);
    free(order), free(cluster_of), free(line), free(rank_of);
    free_items(&it);
    return rc;
}

int tsk_cmd_cluster(int argc, char **argv)
{
    cluster_cmd c;
    memset(&c, 0, sizeof c);
    c.metric = TSK_METRIC_L2;
    tsk_sketch_job_init(&c.job);
    int rc = parse_options(&c, argc, argv), genomes = 0;
    if (rc < 0) {
        tsk_sketch_job_free(&c.job);
        return TSK_EXIT_OK; /* -h */
    }
    char *quality[] = {(char *)c.quality};
    if (rc == TSK_EXIT_OK)
        rc = tsk_sketch_job_check_output(&c.job, c.output, argv + optind, (size_t)(argc - optind));
    if (rc == TSK_EXIT_OK)
        rc = tsk_sketch_job_check_output(&c.job, c.representatives, argv + optind, (size_t)(argc - optind));
    if (rc == TSK_EXIT_OK && (c.output || c.representatives)) rc = tsk_check_output(c.output, (const char *const *)quality, 1);
    if (rc == TSK_EXIT_OK && c.representatives) rc = tsk_check_output(c.representatives, (const char *const *)quality, 1);
    if (rc == TSK_EXIT_OK) rc = collect_inputs(&c, argc, argv, &genomes);
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_finish(&c.job);
    if (rc == TSK_EXIT_OK) rc = check_kind(&c, genomes);
    if (rc == TSK_EXIT_OK) rc = open_outputs(&c);
    if (rc == TSK_EXIT_OK) rc = run(&c, genomes);
    tsk_atomic_abort(c.reps); /* what a failed run left open: nothing stays behind */
    tsk_atomic_abort(c.table);
    free(c.inputs);
    tsk_sketch_job_free(&c.job);
    return rc;
}
