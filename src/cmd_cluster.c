/* cmd_cluster.c: `tsketch cluster [options] INPUT...`: species clusters and their representatives
 * (docs/cluster.md).
 *
 * The inputs load as one set (genome_source.h or sketch_source.h), get ranked (quality file, then
 * length, then input order), and the distance runner (dist_run.h) streams every pair within -d,
 * a block of items at a time, into the clustering: single linkage takes each link into a
 * union-find as it comes; greedy holds the links by rank (io/link_runs.h, spilling sorted runs
 * past the memory budget) and visits the items in rank order (core/cluster.h). No N x N matrix
 * exists at any point. With --links the links are read instead, from the pair lines that `dist -d D
 * --block I/N` wrote on other machines (cluster_links.h). */
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
#include "../io/tsk_file.h"
#include "cli.h"
#include "cluster_links.h"
#include "cluster_outputs.h"
#include "cluster_quality.h"
#include "commands.h"
#include "dist_run.h"
#include "engine.h"
#include "genome_dir.h"
#include "genome_source.h"
#include "progress_line.h"
#include "representative_dir.h"
#include "sketch_opts.h"
#include "sketch_source.h"

#define DEFAULT_GENOME_DIST 0.05 /* 95 % ANI */
#define MAX_GENOME_DIST 0.5      /* a larger -d on genomes is ANI written as a fraction (0.95) */
#define DIST_HINT "-d is a distance, 1 - ANI: for 95 % ANI write -d 0.05 or --min-ani 95"

enum { OPT_METHOD = TSK_OPT_FIRST_FREE, OPT_QUALITY, OPT_MIN_AF, OPT_MIN_ANI, OPT_ANI, OPT_KEY_DISTANCE, OPT_REPRESENTATIVES, OPT_HEADER,
       OPT_METRIC, OPT_PER_RECORD, OPT_FORMAT, OPT_REP_DIR, OPT_COPY, OPT_PATHS, OPT_MIN_COMPLETENESS,
       OPT_MAX_CONTAMINATION, OPT_MIN_LENGTH, OPT_MISSING_QUALITY, OPT_REASSIGN, OPT_REFERENCE, OPT_GENOME_DIR, OPT_LINKS };

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
    int key_distance;                /* --key-distance: genome sketches linked by 1 - f^(1/W) of their keys */
    tsk_metric metric;
    int metric_given;
    int per_record;                  /* --per-record: a FASTA input's records are genomes */
    tsk_cluster_format format;       /* --format */
    const char *rep_dir;             /* --representative-dir DIR */
    int copy, paths, reassign;       /* --copy, --paths, --reassign */
    tsk_quality_rules rules;         /* --quality, filters, --missing-quality */
    const char **references;         /* --reference FILE...: representatives kept, inputs first */
    size_t n_references;
    const char **links;              /* --links FILE...: the links read from dist's pair lines */
    size_t n_links;
    const char *genome_dir, *extension; /* --genome-dir DIR, -x EXT: DIR's files as inputs */
    char **dir_paths;                /* their paths (owned) */
    size_t n_dir_paths;
    tsk_sketch_job job;
    int params_given;
    tsk_input *inputs;
    size_t n_inputs;
    tsk_input_kinds kinds;
    /* the outputs, opened before any work (a directory or an unwritable place fails at once) */
    tsk_atomic_file *table, *reps;
    tsk_rep_dir *dir;
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
               "                           representative within D or becomes one) or single (connected\n"
               "                           components)\n"
               "      --quality FILE       rank by CheckM2, CheckM1 or dRep quality tables, or NAME<TAB>SCORE lines\n"
               "                           (Completeness - 5 x Contamination), highest first; then longer\n"
               "                           first, then input order. Without FILE, as dRep's default score:\n"
               "                           higher N50 first, then fewer contigs, then longer, then input order\n"
               "      --min-af F           genome sketches: link only pairs whose aligned fraction (of the genome\n"
               "                           with fewer segments) is >= F (0..1; GTDB: 0.5); a pair with a genome\n"
               "                           without a contig of 3 kb has no estimate and is not linked\n"
               "      --key-distance       genome sketches: link by 1 - f^(1/W) of the shared fingerprints alone\n"
               "                           (the Mash-grade distance; no ANI refinement, no --min-af)\n"
               "      --ani                genome sketches: the table adds 'ani' (percent) and 'af' of each\n"
               "                           genome against its representative\n"
               "      --min-completeness C  with --quality (CheckM2, CheckM1, dRep): leave out genomes below C %%\n"
               "                           completeness\n"
               "      --max-contamination X  with --quality: leave out genomes above X %% contamination\n"
               "      --min-length L       leave out genomes of fewer than L bases\n"
               "      --missing-quality P  genomes the quality file lacks: error (default), last (ranked after\n"
               "                           the others) or drop (left out)\n"
               "      --reassign           greedy: members then move to their nearest representative, also one\n"
               "                           ranked below them (default: a cluster's best-ranked genome represents it)\n"
               "      --genome-dir DIR     DIR's FASTA files as inputs (.fa, .fna, .fasta..., compressed or not),\n"
               "                           sorted by name\n"
               "  -x, --extension EXT      --genome-dir: the files ending in .EXT instead (any case)\n"
               "      --reference FILE     genomes of an earlier dereplication (a genome .tsk or FASTA): kept as\n"
               "                           representatives, ranked first; the inputs join them or make new\n"
               "                           clusters (greedy; may be repeated)\n"
               "      --format F           tsv (default), galah (representative TAB member), cdb or wdb (dRep's\n"
               "                           Cdb.csv and Wdb.csv)\n"
               "      --links FILE         the links from FILE, pairs as 'tsketch dist -d D' writes them (with --ani\n"
               "                           for --min-af; D >= this -d; all --block I/N parts, each given once), instead\n"
               "                           of computing them: the clusters of one run, over machines (may be repeated)\n"
               );
    fprintf(f,
               "      --representatives FILE  also write the representatives, one a line, in cluster order\n"
               "      --paths              --representatives: their FASTA paths instead of names\n"
               "      --representative-dir DIR  a new directory of links to the representatives' FASTA files\n"
               "      --copy               --representative-dir: copies instead of links\n"
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
    {"key-distance", no_argument, 0, OPT_KEY_DISTANCE},
    {"representatives", required_argument, 0, OPT_REPRESENTATIVES},
    {"header", no_argument, 0, OPT_HEADER},
    {"metric", required_argument, 0, OPT_METRIC},
    {"per-record", no_argument, 0, OPT_PER_RECORD},
    {"format", required_argument, 0, OPT_FORMAT},
    {"representative-dir", required_argument, 0, OPT_REP_DIR},
    {"copy", no_argument, 0, OPT_COPY},
    {"paths", no_argument, 0, OPT_PATHS},
    {"min-completeness", required_argument, 0, OPT_MIN_COMPLETENESS},
    {"max-contamination", required_argument, 0, OPT_MAX_CONTAMINATION},
    {"min-length", required_argument, 0, OPT_MIN_LENGTH},
    {"missing-quality", required_argument, 0, OPT_MISSING_QUALITY},
    {"reassign", no_argument, 0, OPT_REASSIGN},
    {"reference", required_argument, 0, OPT_REFERENCE},
    {"genome-dir", required_argument, 0, OPT_GENOME_DIR},
    {"links", required_argument, 0, OPT_LINKS},
    {"extension", required_argument, 0, 'x'},
    {"output", required_argument, 0, 'o'},
    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* One more value of a repeated option. */
static int append_path(const char ***paths, size_t *n, const char *arg)
{
    const char **p = realloc(*paths, (*n + 1) * sizeof *p);
    if (!p) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    *paths = p;
    p[(*n)++] = arg;
    return TSK_EXIT_OK;
}

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
    case OPT_KEY_DISTANCE: c->key_distance = 1; return TSK_EXIT_OK;
    case OPT_MIN_AF: c->min_af_given = 1; return tsk_parse_double("--min-af", arg, 0, 1, &c->min_af);
    case OPT_QUALITY: c->quality = c->rules.path = arg; return TSK_EXIT_OK;
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
    case OPT_REP_DIR: c->rep_dir = arg; return TSK_EXIT_OK;
    case OPT_COPY: c->copy = 1; return TSK_EXIT_OK;
    case OPT_PATHS: c->paths = 1; return TSK_EXIT_OK;
    case OPT_REASSIGN: c->reassign = 1; return TSK_EXIT_OK;
    case OPT_GENOME_DIR: c->genome_dir = arg; return TSK_EXIT_OK;
    case 'x': c->extension = arg; return TSK_EXIT_OK;
    case OPT_REFERENCE: return append_path(&c->references, &c->n_references, arg);
    case OPT_LINKS: return append_path(&c->links, &c->n_links, arg);
    case OPT_MIN_COMPLETENESS:
        c->rules.have_min_completeness = 1;
        return tsk_parse_double("--min-completeness", arg, 0, 100, &c->rules.min_completeness);
    case OPT_MAX_CONTAMINATION:
        c->rules.have_max_contamination = 1;
        return tsk_parse_double("--max-contamination", arg, 0, INFINITY, &c->rules.max_contamination);
    case OPT_MIN_LENGTH: return tsk_parse_int64("--min-length", arg, 0, INT64_MAX, &c->rules.min_length);
    case OPT_FORMAT:
        if (!tsk_cluster_format_parse(arg, &c->format)) return TSK_EXIT_OK;
        tsk_error("option --format: '%s' is not tsv, galah, cdb or wdb", arg);
        return TSK_EXIT_USAGE;
    case OPT_MISSING_QUALITY:
        if (!tsk_missing_policy_parse(arg, &c->rules.missing)) return TSK_EXIT_OK;
        tsk_error("option --missing-quality: '%s' is not error, last or drop", arg);
        return TSK_EXIT_USAGE;
    default: return tsk_usage_error("cluster");
    }
}

/* Parses argv into c: TSK_EXIT_OK, an exit code after the message, or -1 after -h. */
static int parse_options(cluster_cmd *c, int argc, char **argv)
{
    int opt, rc = TSK_EXIT_OK;
    optind = 1;
    while (rc == TSK_EXIT_OK && (opt = getopt_long(argc, argv, TSK_SKETCH_SHORT_OPTS "o:d:x:qh", long_options, NULL)) != -1) {
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

/* --genome-dir: the directory's genome files after the other inputs, sorted by name. */
static int append_genome_dir(cluster_cmd *c)
{
    char err[TSK_ERRLEN];
    if (tsk_genome_dir_list(c->genome_dir, c->extension, &c->dir_paths, &c->n_dir_paths, err, sizeof err)) {
        tsk_error("%s", err);
        return TSK_EXIT_INPUT;
    }
    tsk_input *in = realloc(c->inputs, (c->n_inputs + c->n_dir_paths) * sizeof *in);
    if (!in) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < c->n_dir_paths; i++) in[c->n_inputs + i] = (tsk_input){c->dir_paths[i], NULL};
    c->inputs = in, c->n_inputs += c->n_dir_paths;
    return TSK_EXIT_OK;
}

/* --reference files go first among the inputs: their genomes get the first items. */
static int prepend_references(cluster_cmd *c)
{
    const size_t n = c->n_references + c->n_inputs;
    tsk_input *in = calloc(n, sizeof *in);
    if (!in) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < c->n_references; i++) in[i].path = (char *)c->references[i];
    if (c->n_inputs) memcpy(in + c->n_references, c->inputs, c->n_inputs * sizeof *in);
    free(c->inputs);
    c->inputs = in, c->n_inputs = n;
    return TSK_EXIT_OK;
}

/* The genomes of the --reference files: a genome .tsk's records, one a FASTA file. */
static int count_reference_items(const cluster_cmd *c, int64_t *n)
{
    *n = 0;
    for (size_t i = 0; i < c->n_references; i++) {
        if (!tsk_file_is_sketch(c->references[i])) {
            (*n)++;
            continue;
        }
        char err[TSK_ERRLEN];
        tsk_file *f = tsk_file_open(c->references[i], err, sizeof err);
        if (!f) {
            tsk_error("%s", err);
            return TSK_EXIT_INPUT;
        }
        *n += f->n_records;
        tsk_file_close(f);
    }
    return TSK_EXIT_OK;
}

/* The inputs (dist's front end, sketch_source.h): what they hold settled before the sketch job is
 * finished, so that genome options on genome .tsk files mean what they mean to dist; FASTA inputs
 * are genomes, one a file unless --per-record. */
static int collect_inputs(cluster_cmd *c, int argc, char **argv, int *genomes)
{
    int rc = tsk_inputs_collect(argc, argv, optind, &c->job, &c->inputs, &c->n_inputs);
    if (rc == TSK_EXIT_OK && c->genome_dir) rc = append_genome_dir(c);
    if (rc == TSK_EXIT_OK && c->extension && !c->genome_dir) {
        tsk_error("-x/--extension applies to --genome-dir");
        rc = TSK_EXIT_USAGE;
    }
    if (rc == TSK_EXIT_OK && c->n_references) rc = prepend_references(c);
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
    if (rc == TSK_EXIT_OK && tsk_inputs_check_fd_names(&c->job, c->inputs, c->n_inputs)) rc = TSK_EXIT_USAGE;
    if (rc == TSK_EXIT_OK && c->per_record && (size_t)c->kinds.genome_files == c->n_inputs) {
        tsk_error("--per-record applies to FASTA inputs: these are genome .tsk files, whose genomes were chosen "
                  "when they were sketched");
        rc = TSK_EXIT_USAGE;
    }
    return rc;
}

/* The options of outputs and filters that need one another or files behind the genomes: why they
 * cannot be, or NULL. */
static const char *check_outputs_kind(const cluster_cmd *c, int genomes)
{
    if ((c->rules.have_min_completeness || c->rules.have_max_contamination) && !c->quality)
        return "--min-completeness and --max-contamination need --quality FILE (CheckM2, CheckM1 or dRep's genomeInfo)";
    if (c->rules.missing != TSK_MISSING_ERROR && !c->quality) return "--missing-quality needs --quality FILE";
    if (c->copy && !c->rep_dir) return "--copy applies to --representative-dir";
    if (c->paths && !c->representatives) return "--paths applies to --representatives";
    if (c->reassign && c->method != METHOD_GREEDY) return "--reassign applies to --method greedy";
    if (c->n_references && c->method != METHOD_GREEDY)
        return "--reference applies to --method greedy (single linkage would join representatives)";
    if (c->n_references && !genomes) return "--reference applies to genome sketches";
    if (c->n_references && c->per_record)
        return "--reference with --per-record: give the earlier representatives as a genome .tsk";
    if (c->header && c->format != TSK_CLUSTER_TSV)
        return "--header applies to --format tsv (galah's file has no header; Cdb and Wdb always have theirs)";
    if (!c->rep_dir && !c->paths) return NULL;
    /* a genome a FASTA file: then the items are the inputs, in order */
    int files = genomes && !c->per_record && !c->kinds.genome_files && !c->kinds.row_file;
    for (size_t i = 0; files && i < c->n_inputs; i++) files = strcmp(c->inputs[i].path, "-") != 0;
    if (!files)
        return "--representative-dir and --paths need FASTA files as inputs, a genome a file (a .tsk holds no "
               "paths to its genomes' files; standard input has none)";
    return NULL;
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
    else if (!genomes && c->key_distance)
        why = "--key-distance applies to genome sketches (genome .tsk files or FASTA files)";
    else if (c->key_distance && (c->ani || c->min_af_given))
        why = "--key-distance links by shared fingerprints alone: it has no ANI or AF for --ani or --min-af";
    else if (c->dist_given && c->min_ani_given)
        why = "-d and --min-ani set the same threshold (-d 0.05 is --min-ani 95): give one";
    else if (c->dist_given && (c->max_dist > 1 || (genomes && c->max_dist > MAX_GENOME_DIST)))
        why = DIST_HINT;
    else if (!genomes && c->per_record)
        why = "--per-record applies to FASTA inputs (genomes)";
    else if (!genomes && !c->dist_given && !c->kinds.unreadable) /* else: loading names the file (exit 3) */
        why = "vector sketches need -d: their distances have no unit that a default could fit (genome sketches: "
              "-d 0.05 is 95% ANI)";
    else why = check_outputs_kind(c, genomes);
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
        (c->representatives && !(c->reps = tsk_atomic_open(c->representatives, err, sizeof err))) ||
        (c->rep_dir && !(c->dir = tsk_rep_dir_open(c->rep_dir, c->copy, err, sizeof err)))) {
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
        /* with ANI from the engine, a GPU run on few threads checks the anchors beside its uploads */
        const int anchors_later = !c->key_distance && !c->n_links && tsk_genome_anchors_later_pays(&c->job);
        rc = tsk_genome_sources_load(c->inputs, c->n_inputs, group_of, &it->g, 1, &c->job, c->params_given,
                                     anchors_later, &it->params);
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

/* order[rank] = item, rank_of[item] = rank, score[item] (NULL without --quality); *n_ranked = the
 * items not filtered out, ranks 0..*n_ranked (cluster_quality.h): scored items first, then those
 * the quality file lacks (--missing-quality last), then the filtered ones, each tier in the order
 * tsk_cluster_rank gives. The n_reference first items (--reference) come before all, whatever their
 * tier: they are never left out. */
static int rank_items(const cluster_cmd *c, const cluster_items *it, int64_t n_reference, int64_t *order,
                      uint32_t *rank_of, double *score, int64_t *n_ranked)
{
    const size_t n = (size_t)(it->n ? it->n : 1);
    unsigned char *tier = calloc(n, 1);
    int64_t *tiered = malloc(n * sizeof *tiered);
    int rc = tier && tiered ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
    if (rc == TSK_EXIT_OK && (c->quality || c->rules.min_length))
        rc = tsk_cluster_quality(&c->rules, it->n, it->names, it->length, score, tier);
    /* without a quality file, genomes rank by their assembly (N50, contigs) as dRep's default
     * score does; vector sketches, which have none, by length */
    if (rc == TSK_EXIT_OK && (c->quality || !it->genomes ? tsk_cluster_rank(it->n, c->quality ? score : NULL, it->length, order)
                                                         : tsk_cluster_rank_assembly(it->n, it->g.n50, it->g.n_contigs,
                                                                                     it->length, order)))
        rc = TSK_EXIT_RUNTIME;
    int64_t m = 0;
    for (int64_t r = 0; rc == TSK_EXIT_OK && r < it->n; r++)
        if (order[r] < n_reference) tiered[m++] = order[r], tier[order[r]] = TSK_TIER_SCORED;
    for (unsigned char t = TSK_TIER_SCORED; rc == TSK_EXIT_OK && t <= TSK_TIER_FILTERED; t++) {
        if (t == TSK_TIER_FILTERED) *n_ranked = m;
        for (int64_t r = 0; r < it->n; r++)
            if (order[r] >= n_reference && tier[order[r]] == t) tiered[m++] = order[r];
    }
    if (rc == TSK_EXIT_OK) memcpy(order, tiered, (size_t)it->n * sizeof *order);
    for (int64_t i = 0; rc == TSK_EXIT_OK && score && i < it->n; i++)
        if (tier[i] != TSK_TIER_SCORED) score[i] = NAN; /* no score to write (Wdb) */
    if (rc == TSK_EXIT_RUNTIME) tsk_error("out of memory ranking the items");
    for (int64_t r = 0; rc == TSK_EXIT_OK && r < it->n; r++) rank_of[order[r]] = (uint32_t)r;
    free(tier);
    free(tiered);
    return rc;
}

/* ---- links ---- */

/* Where the runner's pairs go: into links (greedy) or the union-find (single). */
typedef struct {
    const cluster_cmd *cmd;
    const cluster_items *it;
    const uint32_t *rank_of;
    int64_t n_ranked;          /* ranks from n_ranked on are filtered out: linked to nothing */
    int64_t n_reference;       /* ranks below it are --reference genomes: never linked together */
    tsk_link_runs *runs;       /* greedy */
    tsk_components *parts;     /* single */
    double min_af;             /* --min-af: a link needs the pair's AF (the runner's line) >= this */
    int min_af_given;
    tsk_cluster_link *buf;
    int64_t cap, n_buf;        /* n_buf: links read (--links) held in buf until a chunk is full */
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
    if (ra == rb || (int64_t)ra >= s->n_ranked || (int64_t)rb >= s->n_ranked) return;
    if ((int64_t)ra < s->n_reference && (int64_t)rb < s->n_reference) return; /* both stay representatives */
    if (s->parts) tsk_components_link(s->parts, ra, rb, NULL);
    else s->buf[(*n)++] = (tsk_cluster_link){ra > rb ? ra : rb, ra > rb ? rb : ra, dist};
}

static int flush_links(link_sink *s, int64_t n)
{
    return s->runs && n ? tsk_link_runs_add(s->runs, s->buf, n, s->err, sizeof s->err) : 0;
}

/* --min-af on the AF as dist --ani writes it (4 decimals), so that links read from dist's lines
 * (--links) decide alike; the text is made only near the bound. A NAN AF (no estimate) fails. */
static int af_holds(const tsk_genome_line *l, double min_af)
{
    if (isnan(l->ani) || isnan(l->af)) return 0;
    if ((double)l->af >= min_af + 1e-3) return 1;
    if ((double)l->af < min_af - 1e-3) return 0;
    return tsk_dist_af_as_written(l->ani, l->af) >= min_af;
}

static int sink_lines(void *ctx, const tsk_genome_line *l, int64_t n)
{
    link_sink *s = ctx;
    if (reserve(s, n)) return -1;
    s->n_pairs += n;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (!s->min_af_given || af_holds(&l[i], s->min_af)) add_link(s, &m, l[i].query, l[i].ref, l[i].dist);
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

/* The items of genome sketches as the runner takes them: one set, the symmetric distance, 1 - ANI
 * (--key-distance: the keys' distance alone). */
static tsk_dist_items genome_items(const cluster_cmd *c, const cluster_items *it)
{
    tsk_dist_items items = {0};
    items.keys_q = items.keys_r = &it->g.set;
    items.mode = TSK_GENOME_SYMMETRIC;
    items.window = it->params.window;
    items.ani_q = items.ani_r = c->key_distance ? NULL : &it->g.ani;
    items.anchor_k = it->params.anchor_k;
    return items;
}

/* ---- links read from dist's lines (--links) ---- */

#define READ_CHUNK 4096

/* A link read from a file: into the sink as the runner's would go. */
static int add_read_link(void *ctx, int64_t a, int64_t b, float dist)
{
    link_sink *s = ctx;
    if (reserve(s, READ_CHUNK)) return -1;
    s->n_pairs++;
    add_link(s, &s->n_buf, a, b, dist);
    if (s->n_buf < READ_CHUNK) return 0;
    const int rc = flush_links(s, s->n_buf);
    s->n_buf = 0;
    return rc;
}

/* The distance of items a and b as a run of this command computes it. 0, or -1 out of memory. */
static int pair_distance(const cluster_cmd *c, const cluster_items *it, int64_t a, int64_t b, float *dist)
{
    if (it->genomes) {
        /* a pair's estimate takes its lower item as the query, as the runner's does */
        const int64_t lo = a < b ? a : b, hi = a < b ? b : a;
        const tsk_dist_items items = genome_items(c, it);
        tsk_ani_work *w = tsk_ani_work_new();
        tsk_genome_line line;
        const int failed = !w || tsk_dist_genome_pair(&items, w, lo, hi,
                                                      tsk_cpu_genome_shared(&it->g.set, lo, &it->g.set, hi), &line);
        tsk_ani_work_free(w);
        *dist = line.dist;
        return failed ? -1 : 0;
    }
    char err[TSK_ERRLEN];
    tsk_cpu_dist *rows = tsk_cpu_dist_open(&it->v.set, &it->v.set, c->metric, 1, err, sizeof err);
    if (!rows) return -1;
    const int failed = tsk_cpu_dist_block(rows, a, 1, b, 1, dist, 1) != 0;
    tsk_cpu_dist_close(rows);
    return failed ? -1 : 0;
}

typedef struct {
    const cluster_cmd *c;
    const cluster_items *it;
} link_check_ctx;

/* A file's first line against the inputs: links of other sketches or options are refused. Genome
 * distances agree to the bit (GPU = CPU); vector distances within rounding (cosine differs between
 * the engines in the last bits), far closer than l2 and cosine of one pair. */
static int check_read_link(void *ctx, int64_t a, int64_t b, float dist, const char *where)
{
    const link_check_ctx *k = ctx;
    float here;
    if (pair_distance(k->c, k->it, a, b, &here)) {
        tsk_error("out of memory checking the links");
        return TSK_EXIT_RUNTIME;
    }
    /* cosine's engines differ by float rounding of 1 - cos: about 1e-7 absolute */
    const int same = k->it->genomes ? here == dist : fabsf(here - dist) <= 1e-6f + 1e-4f * fabsf(here);
    if (same) return TSK_EXIT_OK;
    char x[32], y[32];
    tsk_float_g9(x, dist);
    tsk_float_g9(y, here);
    tsk_error("%s: '%s' and '%s' are at distance %s there but %s from these inputs: the links were computed from other "
              "sketches, or by dist with other options (%s)",
              where, k->it->names[a], k->it->names[b], x, y,
              k->it->genomes ? "--key-distance and sketch parameters as cluster's; not --containment" : "--metric as cluster's");
    return TSK_EXIT_INCOMPATIBLE;
}

static int read_links(const cluster_cmd *c, const cluster_items *it, link_sink *sink)
{
    link_check_ctx k = {c, it};
    const tsk_links_input in = {c->links, c->n_links, c->max_dist, c->min_af_given, c->min_af, it->names, it->n,
                                check_read_link, &k};
    tsk_links_count count;
    sink->n_buf = 0;
    int rc = tsk_cluster_links_read(&in, add_read_link, sink, &count);
    if (rc == TSK_EXIT_OK && flush_links(sink, sink->n_buf)) rc = TSK_EXIT_RUNTIME;
    if (rc == TSK_EXIT_RUNTIME && sink->err[0]) tsk_error("%s", sink->err);
    if (rc == TSK_EXIT_OK && !tsk_quiet)
        tsk_note("cluster: %lld pairs read from %zu file%s, %lld within the threshold", (long long)count.lines,
                 c->n_links, c->n_links == 1 ? "" : "s", (long long)count.within);
    return rc;
}

/* tsk_dist_items' inputs_checked: the group's anchor checksum (load_items' anchors_later). */
static int genomes_checked(void *ctx) { return tsk_genome_source_checked(ctx); }

/* Runs the threshold engine over every pair of the items into sink (--links: reads them). */
static int find_links(const cluster_cmd *c, const cluster_items *it, link_sink *sink)
{
    if (c->n_links) return read_links(c, it, sink);
    tsk_dist_items items = {0};
    if (it->genomes) {
        items = genome_items(c, it);
        items.inputs_checked = genomes_checked;
        items.inputs_checked_ctx = (void *)&it->g;
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
    tsk_dist_engine_leave(e);
    return rc;
}

/* ---- clustering ---- */

/* The links read back into the greedy clustering, with a progress line on a terminal (the reading
 * of many links spilled to disk is the long wait after the engine's own line). */
typedef struct {
    tsk_greedy *g;
    tsk_progress line;
    int64_t done, total;
    /* one pair in two lines (--links files that overlap): taken once when the distances agree */
    tsk_cluster_link last;
    int have_last;
    int64_t twice;
    const cluster_items *it;
    const int64_t *order;
    char err[TSK_ERRLEN];
} greedy_feed;

static int greedy_take(void *ctx, const tsk_cluster_link *l, int64_t n)
{
    greedy_feed *f = ctx;
    f->done += n;
    tsk_progress_show(&f->line, 0, "tsketch: clustering: %lld of %lld links (%.0f %%) ", (long long)f->done,
                      (long long)f->total, 100.0 * (double)f->done / (double)(f->total ? f->total : 1));
    int64_t from = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!f->have_last || l[i].worse != f->last.worse || l[i].better != f->last.better) {
            f->last = l[i], f->have_last = 1;
            continue;
        }
        if (l[i].dist != f->last.dist) {
            snprintf(f->err, sizeof f->err,
                     "the pair '%s', '%s' is given twice at different distances (%.9g and %.9g): the --links files "
                     "come from different runs",
                     f->it->names[f->order[l[i].worse]], f->it->names[f->order[l[i].better]], (double)f->last.dist,
                     (double)l[i].dist);
            return -1;
        }
        if (tsk_greedy_add(f->g, l + from, i - from)) return -1;
        from = i + 1;
        f->twice++;
    }
    return tsk_greedy_add(f->g, l + from, n - from);
}

static int cluster_greedy(const cluster_cmd *c, const cluster_items *it, const int64_t *order, link_sink *sink,
                          tsk_clustering *out)
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
    if (g) tsk_greedy_set_reassign(g, c->reassign);
    if (rc == TSK_EXIT_OK) {
        if (tsk_link_runs_spilled(sink->runs) && !tsk_quiet)
            tsk_note("%lld links held as %lld sorted runs on disk (TSKETCH_CLUSTER_MEMORY)",
                     (long long)tsk_link_runs_count(sink->runs), (long long)tsk_link_runs_spilled(sink->runs));
        greedy_feed feed = {.g = g, .total = tsk_link_runs_count(sink->runs), .it = it, .order = order};
        tsk_progress_start(&feed.line, c->output || !isatty(STDOUT_FILENO), 0.25);
        if (tsk_link_runs_read(sink->runs, greedy_take, &feed, err, sizeof err)) {
            tsk_error("%s", feed.err[0] ? feed.err : err);
            rc = feed.err[0] ? TSK_EXIT_INPUT : TSK_EXIT_RUNTIME;
        }
        tsk_progress_end(&feed.line, 0);
        if (rc == TSK_EXIT_OK && feed.twice && !tsk_quiet)
            tsk_note("cluster: %lld pairs given twice in the --links files, each taken once", (long long)feed.twice);
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
    const tsk_dist_items items = genome_items(c, it);
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

/* The representatives' names (or FASTA paths) one a line, and their files in --representative-dir
 * (with these, items are the inputs in order: check_outputs_kind). */
static int write_representatives(cluster_cmd *c, const tsk_cluster_view *v)
{
    FILE *f = c->reps ? tsk_atomic_stream(c->reps) : NULL;
    char err[TSK_ERRLEN];
    for (int64_t i = 0; i < v->n_lines; i++) {
        const int64_t r = v->line[i];
        if (v->cl->rep[r] != (uint32_t)r) continue;
        const int64_t item = v->order[r];
        if (f) fprintf(f, "%s\n", c->paths ? c->inputs[item].path : v->names[item]);
        if (c->dir && tsk_rep_dir_add(c->dir, c->inputs[item].path, err, sizeof err)) {
            tsk_error("%s", err);
            return TSK_EXIT_RUNTIME;
        }
    }
    return f && ferror(f) ? tsk_dist_write_failed(c->representatives) : TSK_EXIT_OK;
}

/* The table (and the representatives' names and files) in output order, into the outputs opened at
 * the start; all are committed or all removed. */
static int write_outputs(cluster_cmd *c, const cluster_items *it, const tsk_cluster_view *v, const float *ani,
                         const float *af)
{
    const int64_t *order = v->order, *cluster_of = v->cluster_of, *line = v->line;
    const tsk_clustering *cl = v->cl;
    FILE *t = tsk_atomic_stream(c->table);
    if (c->header && c->format == TSK_CLUSTER_TSV)
        fputs(ani ? "genome\tcluster\trepresentative\tdistance\tani\taf\n" : "genome\tcluster\trepresentative\tdistance\n", t);
    char num[64 + TSK_DIST_ANI_TEXT];
    if (c->format != TSK_CLUSTER_TSV) tsk_cluster_write_format(t, v, c->format);
    for (int64_t i = 0; c->format == TSK_CLUSTER_TSV && i < v->n_lines && !ferror(t); i++) {
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
    if (rc == TSK_EXIT_OK) rc = write_representatives(c, v);
    /* the representatives first, their directory (a rename that may fail) before their names: the
     * table appears last, so a table means a complete run */
    char err[TSK_ERRLEN];
    if (rc == TSK_EXIT_OK && c->dir && tsk_rep_dir_commit(c->dir, err, sizeof err)) {
        tsk_error("%s", err);
        rc = TSK_EXIT_RUNTIME;
    } else if (rc != TSK_EXIT_OK) tsk_rep_dir_abort(c->dir);
    c->dir = NULL;
    if (rc == TSK_EXIT_OK && c->reps) rc = commit_output(c->reps);
    else tsk_atomic_abort(c->reps);
    c->reps = NULL;
    if (rc == TSK_EXIT_OK) rc = commit_output(c->table);
    else tsk_atomic_abort(c->table);
    c->table = NULL;
    return rc;
}

/* ---- the command ---- */

static void note_summary(const cluster_items *it, int64_t n_ranked, int64_t n_clusters, int64_t n_singletons)
{
    tsk_note("cluster: %lld %s, %lld clusters (%lld singletons)", (long long)n_ranked,
             it->genomes ? "genomes" : "records", (long long)n_clusters, (long long)n_singletons);
}

/* Genomes without a fingerprint (shorter than a window, or no A/C/G/T) link to nothing: each is a
 * singleton, said once with their number (the sketcher warns about each). */
static void note_empty_genomes(const cluster_items *it)
{
    int64_t empty = 0;
    for (int64_t i = 0; it->genomes && i < it->n; i++) empty += tsk_key_set_size(&it->g.set, i) == 0;
    if (empty)
        tsk_note("cluster: %lld genome%s without a fingerprint (no window of A/C/G/T): each is its own cluster",
                 (long long)empty, empty == 1 ? "" : "s");
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
    double *score = NULL;
    tsk_clustering cl = {0};
    link_sink sink = {.cmd = c, .it = &it, .min_af = c->min_af, .min_af_given = c->min_af_given};
    float *ani = NULL, *af = NULL;
    if (rc == TSK_EXIT_OK) {
        t_load = tsk_seconds();
        tsk_timing_loaded(it.n, t0);
        note_empty_genomes(&it);
        const size_t n = (size_t)(it.n ? it.n : 1);
        order = malloc(n * sizeof *order), cluster_of = malloc(n * sizeof *cluster_of), line = malloc(n * sizeof *line);
        rank_of = malloc(n * sizeof *rank_of);
        if (!order || !cluster_of || !line || !rank_of || tsk_clustering_init(&cl, it.n)) {
            tsk_error("out of memory");
            rc = TSK_EXIT_RUNTIME;
        }
    }
    int64_t n_ranked = it.n, n_reference = 0;
    if (rc == TSK_EXIT_OK) rc = count_reference_items(c, &n_reference);
    if (rc == TSK_EXIT_OK && (c->quality || c->rules.min_length) && !(score = malloc((size_t)(it.n ? it.n : 1) * sizeof *score))) {
        tsk_error("out of memory");
        rc = TSK_EXIT_RUNTIME;
    }
    if (rc == TSK_EXIT_OK) rc = rank_items(c, &it, n_reference, order, rank_of, score, &n_ranked);
    sink.rank_of = rank_of;
    sink.n_ranked = n_ranked;
    sink.n_reference = n_reference;
    if (rc == TSK_EXIT_OK && it.n > 1)
        rc = c->method == METHOD_GREEDY ? cluster_greedy(c, &it, order, &sink, &cl) : cluster_single(c, &it, order, &sink, &cl);
    t_links = tsk_seconds();
    int64_t n_clusters = 0, n_singletons = 0;
    if (rc == TSK_EXIT_OK && tsk_clustering_order(&cl, cluster_of, line, &n_clusters, &n_singletons)) {
        tsk_error("out of memory");
        rc = TSK_EXIT_RUNTIME;
    }
    /* the filtered items rank last, each alone: the last clusters, left out */
    n_clusters -= it.n - n_ranked, n_singletons -= it.n - n_ranked;
    if (rc == TSK_EXIT_OK && c->ani) {
        const size_t n = (size_t)(it.n ? it.n : 1);
        if (!(ani = malloc(n * sizeof *ani)) || !(af = malloc(n * sizeof *af))) {
            tsk_error("out of memory");
            rc = TSK_EXIT_RUNTIME;
        } else if (genome_members(c, &it, order, &cl, 0, ani, af)) {
            rc = TSK_EXIT_RUNTIME;
        }
    }
    const tsk_cluster_view view = {n_ranked, it.names, order, &cl, cluster_of, line, c->quality ? score : NULL, c->max_dist,
                                   c->method == METHOD_GREEDY ? "greedy" : "single"};
    if (rc == TSK_EXIT_OK && genomes) rc = tsk_genome_source_checked(&it.g); /* no engine for one genome */
    if (rc == TSK_EXIT_OK) rc = write_outputs(c, &it, &view, ani, af);
    if (rc == TSK_EXIT_OK) note_summary(&it, n_ranked, n_clusters, n_singletons);
    if (rc == TSK_EXIT_OK && timing)
        fprintf(stderr,
                "tsketch: timing: load %.3f s, links and clustering %.3f s (%lld pairs), output %.3f s\n",
                t_load - t0, t_links - t_load, (long long)sink.n_pairs, tsk_seconds() - t_links);
    free(sink.buf);
    free(ani), free(af);
    tsk_clustering_free(&cl);
    free(order), free(cluster_of), free(line), free(rank_of), free(score);
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
        free(c.references);
        free(c.links);
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
    if (rc == TSK_EXIT_OK && !c.n_links) tsk_engine_dist_warm(&c.job.device); /* made while the inputs load */
    if (rc == TSK_EXIT_OK) rc = run(&c, genomes);
    tsk_engine_dist_warm_end();
    tsk_atomic_abort(c.reps); /* what a failed run left open: nothing stays behind */
    tsk_rep_dir_abort(c.dir);
    tsk_atomic_abort(c.table);
    free(c.inputs);
    free(c.references);
    free(c.links);
    tsk_genome_dir_free(c.dir_paths, c.n_dir_paths);
    tsk_sketch_job_free(&c.job);
    return rc;
}
