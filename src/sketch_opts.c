/* sketch_opts.c: the sketch options shared by sketch, dist and triangle. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "../io/tables_file.h"
#include "../io/tsk_file.h"
#include "cli.h"
#include "sketch_opts.h"
#include "../core/genome_keys.h"

/* Defaults of --slide: the Tensor Slide Sketch parameters chosen in docs/accuracy.md (tuned on
 * generator seeds 1-2 of the paper's protocol; Spearman 0.964 on held-out seeds 3-6). */
#define SLIDE_T 2
#define SLIDE_DIM 32
#define SLIDE_WINDOW 500
#define SLIDE_STRIDE 50

/* A dimension above this is almost surely Mash's habit (-s 10000 sketch hashes), not a wanted D:
 * every row costs time and space linear in D, and the GPU engine stops at 1024. */
#define LARGE_DIM 1024

/* Bounds of genome sketch parameters (docs/algorithm.md, "Genome sketches"), for genomes up to
 * BIG_GENOME bases. A window's key stands for its W letters: a genome of L bases holds about L of
 * the 4^W / 2 canonical windows of W bases, so a window of another, unrelated genome is met by
 * chance with probability ~2 L / 4^W; below GENOME_MIN_WINDOW that is near 1 on 10 Gbp (unrelated
 * genomes share most keys, distance ~0), and above WEAK_SHARE on 1 Gbp a warning says so.
 * Anchors are sampled by their hash, one sequence in --scaled: 4^k / 2 canonical k-mers give
 * 4^k / (2 scaled) sampled sequences: below GENOME_MIN_ANCHOR_K (32,768 of them, 65 sampled at
 * the default --scaled 500; k = 6 leaves 4, k = 2 none) small genomes find no sampled anchor and
 * large ones repeat a handful thousands of times (their windows sampled together, not
 * independently); where 4^k / 2 is below COMMON_GENOME anchors recur in such genomes: a warning. */
#define BIG_GENOME 1e10
#define COMMON_GENOME 1e9
#define WEAK_SHARE 0.01
#define GENOME_MIN_WINDOW 18
#define GENOME_MIN_ANCHOR_K 8
/* The fingerprint of a window hashes its D sketch values into 24 bits of the key: values beyond
 * GENOME_MAX_DIM only cost time (a window row is D values), below GENOME_MIN_DIM too few tell
 * windows apart. */
#define GENOME_MIN_DIM 8
#define GENOME_MAX_DIM 64

/* Bits of tsk_sketch_job.given of this file's own, above sketch_opts.h's TSK_GIVEN_*: --anchor-k
 * itself (TSK_GIVEN_ANCHOR is also --anchored) and --precision. */
#define GIVEN_ANCHOR_K (1u << 24)
#define GIVEN_PRECISION (1u << 25)

const char tsk_sketch_options_help[] =
    "Sketch options:\n"
    "  -k, --tuple-len T     subsequence length t (default 4)\n"
    "  -s, --dim D           sketch dimension: values per row (default 96; not Mash's -s:\n"
    "                        above 1024 a warning, time grows with D)\n"
    "  -S, --seed N          seed of the hash/sign tables (default 24301 = 0x5EED)\n"
    "      --alphabet A      dna (default) or protein\n"
    "      --canonical       strand-invariant sketch (DNA)\n"
    "      --window W        Tensor Slide Sketch: one row per stride for the window ending there\n"
    "      --stride S        stride of the slide rows, at most W (default: the window); with\n"
    "                        --anchored the mean spacing of the windows, any length\n"
    "      --slide           Tensor Slide Sketch with tuned defaults (t=2, D=32, W=500, S=50;\n"
    "                        each still overridable; docs/accuracy.md)\n"
    "      --anchored        windows centred on anchor k-mers picked by their sequence (one per\n"
    "                        stride on average), not one every stride: the same stretch of two\n"
    "                        genomes gives the same rows wherever it lies (docs/algorithm.md)\n"
    "      --anchor-k K      k-mer length of the anchors, even, 2..32 (default 8; implies --anchored)\n"
    "      --genome          genome sketches: a sampled set of window fingerprints per genome\n"
    "                        (record, or file with --per-file), compared as Mash compares k-mer\n"
    "                        sets; implies --canonical --anchor-k 16 -k 4 -s 16 --window 20\n"
    "                        --scaled 500 --min-keys 12000 --floor-stride 8 (docs/algorithm.md,\n"
    "                        'Genome sketches'; 16 KB per Mbp, 96 KB at least from 120 kb, about\n"
    "                        the FASTA's size below; chosen in docs/accuracy.md)\n"
    "      --scaled N        genome sketches: keep about one window in N (default 500;\n"
    "                        1..4294967296)\n"
    "      --min-keys N      genome sketches: keep at least N windows per genome, sampling small\n"
    "                        genomes more densely (default 12000; 0: one in --scaled for all)\n"
    "      --floor-stride N  genome sketches: the size floor keeps at most one window in N, so a\n"
    "                        genome under 5/4 N min-keys bases keeps about length / N (default\n"
    "                        8; 1: every window of a small genome)\n"
    "                        Genome sketches take --window 18..64, even (shorter windows recur\n"
    "                        by chance in large genomes: unrelated genomes would share keys; a\n"
    "                        warning below 20), --anchor-k 8..32 (fewer distinct anchors cannot\n"
    "                        be sampled one in --scaled; a warning below 16), -s 8..64 and\n"
    "                        single precision (their keys are the same in both)\n"
    "      --tables FILE     hash/sign tables from FILE instead of the seed\n"
    "      --precision P     single (default) or double\n"
    "  -p, --threads N       CPU threads (default 1; capped at the online CPUs); with a GPU,\n"
    "                        threads parsing plain FASTA\n"
    "      --device DEV      auto (default), cpu, cuda, cuda:N, cuda:0,1 or cuda:all;\n"
    "                        --genome --per-file scans on the CPU threads under any DEV\n"
    "                        (faster there; cuda notes it, and still needs a usable GPU)\n"
    "  -l, --list FILE       read input paths from FILE (one per line, or NAME<TAB>PATH)\n"
    "      --per-file        one sketch per input file (its records joined in order)\n"
    "  -I, --id NAME         name of the --per-file sketch (one input only)\n";

int tsk_sketch_param_option(int opt)
{
    return opt == 'k' || opt == 's' || opt == 'S' || opt == TSK_OPT_ALPHABET || opt == TSK_OPT_CANONICAL ||
           opt == TSK_OPT_WINDOW || opt == TSK_OPT_STRIDE || opt == TSK_OPT_TABLES || opt == TSK_OPT_SLIDE ||
           opt == TSK_OPT_ANCHORED || opt == TSK_OPT_ANCHOR_K || opt == TSK_OPT_SCALED || opt == TSK_OPT_MIN_KEYS ||
           opt == TSK_OPT_FLOOR_STRIDE;
}

int tsk_parse_metric(const char *arg, tsk_metric *m)
{
    if (!strcmp(arg, "l2")) *m = TSK_METRIC_L2;
    else if (!strcmp(arg, "cosine")) *m = TSK_METRIC_COSINE;
    else {
        tsk_error("option --metric: '%s' is not l2 or cosine", arg);
        return TSK_EXIT_USAGE;
    }
    return TSK_EXIT_OK;
}

void tsk_sketch_job_init(tsk_sketch_job *job)
{
    memset(job, 0, sizeof *job);
    tsk_params_default(&job->params);
    job->threads = 1;
    job->device.kind = TSK_DEVICE_AUTO;
}

void tsk_sketch_job_free(tsk_sketch_job *job)
{
    free(job->lists);
    job->lists = NULL;
    job->n_lists = 0;
    tsk_inputs_free(job->inputs, job->n_inputs);
    job->inputs = NULL;
    job->n_inputs = 0;
}

int tsk_sketch_job_add_input(tsk_sketch_job *job, const char *path)
{
    tsk_input *in = realloc(job->inputs, (job->n_inputs + 1) * sizeof *in);
    if (!in) return -1;
    job->inputs = in;
    in[job->n_inputs].path = strdup(path);
    in[job->n_inputs].name = NULL;
    if (!in[job->n_inputs].path) return -1;
    job->n_inputs++;
    return 0;
}

static int parse_device(tsk_device_choice *d, const char *arg)
{
    memset(d, 0, sizeof *d);
    if (!strcmp(arg, "auto")) return d->kind = TSK_DEVICE_AUTO, 0;
    if (!strcmp(arg, "cpu")) return d->kind = TSK_DEVICE_CPU, 0;
    if (strncmp(arg, "cuda", 4)) goto bad;
    d->kind = TSK_DEVICE_CUDA;
    if (arg[4] == '\0') { /* plain "cuda": the first device */
        d->n_devices = 1;
        d->devices[0] = 0;
        return 0;
    }
    if (arg[4] != ':') goto bad;
    if (!strcmp(arg + 5, "all")) return 0; /* n_devices 0 = all */
    for (const char *s = arg + 5;;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 255 || d->n_devices == 16) goto bad;
        for (int i = 0; i < d->n_devices; i++)
            if (d->devices[i] == v) goto bad;
        d->devices[d->n_devices++] = (int)v;
        if (*end == '\0') return 0;
        if (*end != ',') goto bad;
        s = end + 1;
    }
bad:
    tsk_error("option --device: '%s' is not auto, cpu, cuda, cuda:N, cuda:N,M,... or cuda:all", arg);
    return -1;
}

int tsk_sketch_option(tsk_sketch_job *job, int opt, const char *arg)
{
    tsk_params *p = &job->params;
    int64_t v;
    char err[TSK_ERRLEN];
    switch (opt) {
    case 'k':
        if (tsk_parse_int64("-k/--tuple-len", arg, 1, TSK_MAX_T, &v)) return -TSK_EXIT_USAGE;
        p->t = (int)v, job->given |= TSK_GIVEN_T;
        return 1;
    case 's':
        if (tsk_parse_int64("-s/--dim", arg, 1, TSK_MAX_DIM, &v)) return -TSK_EXIT_USAGE;
        p->dim = (int)v, job->given |= TSK_GIVEN_DIM;
        return 1;
    case 'S': {
        char *end;
        unsigned long long u = strtoull(arg, &end, 0);
        if (end == arg || *end || arg[0] == '-') {
            tsk_error("option -S/--seed: '%s' is not a non-negative integer", arg);
            return -TSK_EXIT_USAGE;
        }
        p->seed = u, job->given |= TSK_GIVEN_SEED;
        return 1;
    }
    case 'p':
        if (tsk_parse_int64("-p/--threads", arg, 1, 4096, &v)) return -TSK_EXIT_USAGE;
        job->threads = (int)v;
        return 1;
    case 'l': {
        const char **lists = realloc(job->lists, (job->n_lists + 1) * sizeof *lists);
        if (!lists) {
            tsk_error("out of memory");
            return -TSK_EXIT_RUNTIME;
        }
        job->lists = lists;
        job->lists[job->n_lists++] = arg;
        size_t n = job->n_inputs;
        int rc = tsk_input_list_read(arg, &job->inputs, &n, err, sizeof err);
        job->n_inputs = n;
        if (rc) {
            tsk_error("%s", err);
            return -TSK_EXIT_INPUT; /* the list file is bad input, not bad usage */
        }
        return 1;
    }
    case 'I':
        job->per_file_name = arg;
        return 1;
    case TSK_OPT_ALPHABET:
        if (!strcmp(arg, "dna")) p->alphabet = TSK_DNA;
        else if (!strcmp(arg, "protein")) p->alphabet = TSK_PROTEIN;
        else {
            tsk_error("option --alphabet: '%s' is not dna or protein", arg);
            return -TSK_EXIT_USAGE;
        }
        return 1;
    case TSK_OPT_CANONICAL:
        p->canonical = 1, job->given |= TSK_GIVEN_CANONICAL;
        return 1;
    case TSK_OPT_GENOME:
        job->genome = 1;
        return 1;
    case TSK_OPT_SCALED:
        /* anchors are placed one per scaled bases: a stride, at most TSK_MAX_WINDOW */
        if (tsk_parse_int64("--scaled", arg, 1, TSK_MAX_WINDOW, &v)) return -TSK_EXIT_USAGE;
        p->scaled = v, job->given |= TSK_GIVEN_SCALED;
        return 1;
    case TSK_OPT_MIN_KEYS:
        if (tsk_parse_int64("--min-keys", arg, 0, TSK_GENOME_MAX_MIN_KEYS, &v)) return -TSK_EXIT_USAGE;
        p->min_keys = v, job->given |= TSK_GIVEN_MIN_KEYS;
        return 1;
    case TSK_OPT_FLOOR_STRIDE:
        if (tsk_parse_int64("--floor-stride", arg, 1, TSK_GENOME_MAX_FLOOR_STRIDE, &v)) return -TSK_EXIT_USAGE;
        p->floor_stride = v, job->given |= TSK_GIVEN_FLOOR_STRIDE;
        return 1;
    case TSK_OPT_WINDOW:
        if (tsk_parse_int64("--window", arg, 1, TSK_MAX_WINDOW, &v)) return -TSK_EXIT_USAGE;
        p->window = v, job->given |= TSK_GIVEN_WINDOW;
        return 1;
    case TSK_OPT_STRIDE:
        if (tsk_parse_int64("--stride", arg, 1, TSK_MAX_WINDOW, &v)) return -TSK_EXIT_USAGE;
        p->stride = v, job->given |= TSK_GIVEN_STRIDE;
        return 1;
    case TSK_OPT_SLIDE:
        job->slide = 1;
        return 1;
    case TSK_OPT_ANCHORED:
        if (!p->anchor_k) p->anchor_k = TSK_DEFAULT_ANCHOR_K;
        job->given |= TSK_GIVEN_ANCHOR;
        return 1;
    case TSK_OPT_ANCHOR_K:
        if (tsk_parse_int64("--anchor-k", arg, 2, 32, &v)) return -TSK_EXIT_USAGE;
        if (v % 2) {
            tsk_error("option --anchor-k: %lld is odd; anchors need an even k (the window's centre)", (long long)v);
            return -TSK_EXIT_USAGE;
        }
        p->anchor_k = (int)v, job->given |= TSK_GIVEN_ANCHOR | GIVEN_ANCHOR_K;
        return 1;
    case TSK_OPT_TABLES:
        job->tables_path = arg;
        return 1;
    case TSK_OPT_PRECISION:
        job->given |= GIVEN_PRECISION;
        if (!strcmp(arg, "single")) p->precision = TSK_SINGLE;
        else if (!strcmp(arg, "double")) p->precision = TSK_DOUBLE;
        else {
            tsk_error("option --precision: '%s' is not single or double", arg);
            return -TSK_EXIT_USAGE;
        }
        return 1;
    case TSK_OPT_DEVICE:
        return parse_device(&job->device, arg) ? -TSK_EXIT_USAGE : 1;
    case TSK_OPT_PER_FILE:
        job->per_file = 1;
        return 1;
    default:
        return 0;
    }
}

/* The genome sketch parameters the command line gave, against the bounds above: refused (-1,
 * after the message) where sketches would be meaningless or the value has no effect, a warning
 * where they are legal but weak on genomes of COMMON_GENOME bases. */
static int genome_bounds(const tsk_sketch_job *job)
{
    const tsk_params *p = &job->params;
    if (job->given & TSK_GIVEN_WINDOW) {
        const double chance = 2 * COMMON_GENOME / pow(4.0, (double)p->window);
        if (p->window < GENOME_MIN_WINDOW) {
            tsk_error("--window %lld is too short for genome sketches: at least %d bases (a window is found by chance "
                      "in a 10 Gbp genome with probability 2 L / 4^W = %.2g; below %d unrelated genomes share most "
                      "of their keys)",
                      (long long)p->window, GENOME_MIN_WINDOW, fmin(1.0, 2 * BIG_GENOME / pow(4.0, (double)p->window)),
                      GENOME_MIN_WINDOW);
            return -1;
        }
        if (p->window % 2 == 0 && chance > WEAK_SHARE)
            tsk_warn("--window %lld is short for large genomes: on a 1 Gbp genome a window matches by chance with "
                     "probability %.2g (distances of unrelated genomes fall below 1)",
                     (long long)p->window, chance);
    }
    if ((job->given & GIVEN_ANCHOR_K) && p->anchor_k < GENOME_MIN_ANCHOR_K) {
        tsk_error("--anchor-k %d is too short for genome sketches: at least %d (4^k/2 = %.3g distinct anchors; "
                  "sampling one in --scaled of them needs many more: short genomes would keep no window, large "
                  "ones the same few anchors thousands of times)",
                  p->anchor_k, GENOME_MIN_ANCHOR_K, pow(4.0, p->anchor_k) / 2);
        return -1;
    }
    if ((job->given & GIVEN_ANCHOR_K) && pow(4.0, p->anchor_k) / 2 < COMMON_GENOME)
        tsk_warn("--anchor-k %d is small for genomes above %.2g bases: anchors recur in them (4^k/2 = %.3g distinct "
                 "k-mers) and windows around one anchor are sampled together",
                 p->anchor_k, pow(4.0, p->anchor_k) / 2, pow(4.0, p->anchor_k) / 2);
    if ((job->given & TSK_GIVEN_DIM) && (p->dim < GENOME_MIN_DIM || p->dim > GENOME_MAX_DIM)) {
        tsk_error("-s/--dim %d does not fit genome sketches: %d..%d (a window's fingerprint hashes its D values "
                  "into 24 bits: fewer tell windows apart less well, more only cost time)",
                  p->dim, GENOME_MIN_DIM, GENOME_MAX_DIM);
        return -1;
    }
    if ((job->given & GIVEN_PRECISION) && p->precision == TSK_DOUBLE) {
        tsk_error("--precision double has no effect on genome sketches: their keys are the same bit for bit in "
                  "single precision (docs/algorithm.md), double only costs time");
        return -1;
    }
    return 0;
}

/* --genome: the genome defaults, each only where the command line left it alone. */
static int genome_defaults(tsk_sketch_job *job)
{
    tsk_params *p = &job->params;
    if (job->slide) {
        tsk_error("--genome and --slide exclude each other (genome sketches use short anchored windows)");
        return TSK_EXIT_USAGE;
    }
    if (p->alphabet != TSK_DNA) {
        tsk_error("--genome needs the dna alphabet");
        return TSK_EXIT_USAGE;
    }
    if (genome_bounds(job)) return TSK_EXIT_USAGE;
    if (!(job->given & TSK_GIVEN_T)) p->t = TSK_GENOME_T;
    if (!(job->given & TSK_GIVEN_DIM)) p->dim = TSK_GENOME_DIM;
    if (!(job->given & TSK_GIVEN_WINDOW)) p->window = TSK_GENOME_WINDOW;
    /* --anchored alone sets the slide windows' anchor k (8), too short for genomes (genome_bounds) */
    if (!(job->given & GIVEN_ANCHOR_K) || !p->anchor_k) p->anchor_k = TSK_GENOME_ANCHOR_K;
    if (p->anchor_k > p->window) p->anchor_k = (int)(p->window / 2 * 2);
    if (!(job->given & TSK_GIVEN_SCALED)) p->scaled = TSK_GENOME_SCALED;
    if (!(job->given & TSK_GIVEN_MIN_KEYS)) p->min_keys = TSK_GENOME_MIN_KEYS;
    if (!(job->given & TSK_GIVEN_FLOOR_STRIDE)) p->floor_stride = TSK_GENOME_FLOOR_STRIDE;
    /* anchors are sampled by --scaled and the size floor (core/genome_keys.h): a --stride of its
     * own would be a second, conflicting rate */
    if ((job->given & TSK_GIVEN_STRIDE) && p->stride != p->scaled) {
        tsk_error("--stride does not apply to genome sketches (their anchors follow --scaled and --min-keys; "
                  "give --scaled %lld alone)", (long long)p->stride);
        return TSK_EXIT_USAGE;
    }
    p->stride = p->scaled;
    p->canonical = 1;
    return TSK_EXIT_OK;
}

/* More threads than online CPUs only take turns (and cost their start and memory): -p is capped,
 * with a note. */
static void cap_threads(tsk_sketch_job *job)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1 || job->threads <= cpus) return;
    tsk_note("-p %d: capped at the %ld online CPUs", job->threads, cpus);
    job->threads = (int)cpus;
}

/* Whether path is a process's file descriptor (/dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N): its
 * last component is a number, not a name for a --per-file sketch. */
static int fd_path(const char *path)
{
    const char *n = NULL;
    if (!strncmp(path, "/dev/fd/", 8)) n = path + 8;
    else if (!strncmp(path, "/proc/", 6)) {
        const char *fd = strstr(path + 6, "/fd/");
        n = fd && fd == strchr(path + 6, '/') ? fd + 4 : NULL; /* /proc/X/fd/, X one component */
    }
    if (!n || !*n) return 0;
    for (; *n; n++)
        if (*n < '0' || *n > '9') return 0;
    return 1;
}

int tsk_inputs_check_fd_names(const tsk_sketch_job *job, const tsk_input *inputs, size_t n)
{
    for (size_t i = 0; job->per_file && !job->per_file_name && i < n; i++)
        if (!inputs[i].name && fd_path(inputs[i].path)) {
            tsk_error("%s: a pipe's path (a process substitution such as <(zcat x.gz)) names no genome (it would be "
                      "'%s'): give the file itself (x.gz is read as it is), or name it with -I NAME",
                      inputs[i].path, strrchr(inputs[i].path, '/') + 1);
            return -1;
        }
    return 0;
}

int tsk_sketch_job_finish(tsk_sketch_job *job)
{
    tsk_params *p = &job->params;
    cap_threads(job);
    if ((job->given & (TSK_GIVEN_SCALED | TSK_GIVEN_MIN_KEYS | TSK_GIVEN_FLOOR_STRIDE)) && !job->genome) {
        tsk_error("--%s applies to genome sketches: add --genome", job->given & TSK_GIVEN_SCALED ? "scaled"
                                                                   : job->given & TSK_GIVEN_MIN_KEYS ? "min-keys"
                                                                                                      : "floor-stride");
        return TSK_EXIT_USAGE;
    }
    if (job->genome) {
        int rc = genome_defaults(job);
        if (rc != TSK_EXIT_OK) return rc;
    }
    if (job->slide) {
        if (!(job->given & TSK_GIVEN_T)) p->t = SLIDE_T;
        if (!(job->given & TSK_GIVEN_DIM)) p->dim = SLIDE_DIM;
        if (!(job->given & TSK_GIVEN_WINDOW)) p->window = SLIDE_WINDOW;
        if (!(job->given & TSK_GIVEN_STRIDE)) p->stride = p->window < SLIDE_STRIDE ? p->window : SLIDE_STRIDE;
    }
    if ((job->given & TSK_GIVEN_STRIDE) && p->window == 0) {
        tsk_error("--stride needs --window (or --slide)");
        return TSK_EXIT_USAGE;
    }
    if (p->window > 0 && p->stride == 0) p->stride = p->window;
    if (p->anchor_k && p->window == 0) {
        tsk_error("--anchored places slide windows: add --window W (or --slide)");
        return TSK_EXIT_USAGE;
    }
    if (p->stride > p->window && !p->anchor_k) {
        tsk_error("--stride %lld exceeds --window %lld", (long long)p->stride, (long long)p->window);
        return TSK_EXIT_USAGE;
    }
    if (job->per_file_name && !job->per_file) {
        tsk_error("-I/--id names a --per-file sketch: add --per-file");
        return TSK_EXIT_USAGE;
    }
    if (job->per_file_name && job->n_inputs > 1) {
        tsk_error("-I/--id names one sketch, but there are %zu inputs", job->n_inputs);
        return TSK_EXIT_USAGE;
    }
    if (tsk_inputs_check_fd_names(job, job->inputs, job->n_inputs)) return TSK_EXIT_USAGE;
    if (job->tables_path) {
        char err[TSK_ERRLEN];
        if (job->given & TSK_GIVEN_SEED) {
            tsk_error("--seed and --tables exclude each other");
            return TSK_EXIT_USAGE;
        }
        if (tsk_tables_read(p, job->tables_path, err, sizeof err)) {
            tsk_error("%s", err);
            return TSK_EXIT_INPUT;
        }
    } else {
        tsk_tables_draw(p);
    }
    if ((job->given & TSK_GIVEN_DIM) && p->dim > LARGE_DIM)
        tsk_warn("-s/--dim %d: D is the number of values in each sketch row (default 96), not a Mash-style "
                 "sketch size; time and output grow with D (%.0fx the default here) and the GPU engine "
                 "takes D <= %d",
                 p->dim, p->dim / 96.0, LARGE_DIM);
    const char *why = tsk_params_check(p);
    if (why) {
        tsk_error("invalid parameters: %s", why);
        return TSK_EXIT_USAGE;
    }
    return TSK_EXIT_OK;
}

int tsk_sketch_job_check_output(const tsk_sketch_job *job, const char *output, char *const *more, size_t n_more)
{
    size_t n = job->n_inputs + job->n_lists + 1 + n_more;
    const char **paths = malloc(n * sizeof *paths);
    if (!paths) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    size_t k = 0;
    for (size_t i = 0; i < job->n_inputs; i++) paths[k++] = job->inputs[i].path;
    for (size_t i = 0; i < job->n_lists; i++) paths[k++] = job->lists[i];
    paths[k++] = job->tables_path;
    for (size_t i = 0; i < n_more; i++) paths[k++] = more[i];
    int rc = tsk_check_output(output, paths, k);
    free(paths);
    return rc;
}

typedef struct {
    char *name; /* malloc'd */
    const char *path;
} named_input;

static int compare_named(const void *a, const void *b)
{
    const named_input *x = a, *y = b;
    return strcmp(x->name, y->name);
}

int tsk_sketch_job_check_names(const tsk_sketch_job *job)
{
    if (!job->per_file || job->n_inputs < 2) return TSK_EXIT_OK;
    named_input *v = calloc(job->n_inputs, sizeof *v);
    int rc = v ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
    for (size_t i = 0; rc == TSK_EXIT_OK && i < job->n_inputs; i++) {
        const tsk_input *in = &job->inputs[i];
        v[i].path = in->path;
        v[i].name = in->name ? strdup(in->name) : tsk_path_stem(in->path);
        if (!v[i].name) rc = TSK_EXIT_RUNTIME;
    }
    if (rc == TSK_EXIT_RUNTIME) tsk_error("out of memory");
    if (rc == TSK_EXIT_OK) qsort(v, job->n_inputs, sizeof *v, compare_named);
    for (size_t i = 1; rc == TSK_EXIT_OK && i < job->n_inputs; i++)
        if (!strcmp(v[i].name, v[i - 1].name)) {
            tsk_error("--per-file: %s and %s would both be named '%s': give every file its own name in a list "
                      "file (-l, lines 'name<TAB>path')", v[i - 1].path, v[i].path, v[i].name);
            rc = TSK_EXIT_INPUT;
        }
    for (size_t i = 0; v && i < job->n_inputs; i++) free(v[i].name);
    free(v);
    return rc;
}

/* s with tabs, CRs and LFs written as \t, \r, \n, into buf (cut to its size): a name that is
 * refused for holding them is shown on one line. */
static const char *shown_escaped(const char *s, char *buf, size_t size)
{
    size_t j = 0;
    for (; *s && j + 3 < size; s++) {
        const char *e = *s == '\t' ? "\\t" : *s == '\r' ? "\\r" : *s == '\n' ? "\\n" : NULL;
        if (e) buf[j++] = e[0], buf[j++] = e[1];
        else buf[j++] = *s;
    }
    buf[j] = '\0';
    return buf;
}

int tsk_sketch_job_check_name_chars(const tsk_sketch_job *job)
{
    char shown[512], shown_path[512];
    if (!job->per_file) return TSK_EXIT_OK;
    if (job->per_file_name && tsk_name_problem(job->per_file_name)) {
        tsk_error("-I/--id '%s': %s: a sketch's name is a field of every output (TSV, PHYLIP, export, .npy.names)",
                  shown_escaped(job->per_file_name, shown, sizeof shown), tsk_name_problem(job->per_file_name));
        return TSK_EXIT_USAGE;
    }
    for (size_t f = 0; f < job->n_inputs; f++) {
        const tsk_input *in = &job->inputs[f];
        if (in->name || job->per_file_name) { /* -I is checked above */
            if (in->name && tsk_name_problem(in->name)) {
                tsk_error("%s: its name '%s' (from the list): %s",
                          shown_escaped(in->path, shown_path, sizeof shown_path),
                          shown_escaped(in->name, shown, sizeof shown), tsk_name_problem(in->name));
                return TSK_EXIT_INPUT;
            }
            continue;
        }
        char *stem = tsk_path_stem(in->path);
        if (!stem) {
            tsk_error("%s: out of memory", in->path);
            return TSK_EXIT_RUNTIME;
        }
        const char *why = tsk_name_problem(stem);
        if (why)
            tsk_error("%s: its file name names the --per-file sketch, and that %s: rename the file, or name it with a "
                      "'name<TAB>path' line of a -l list", shown_escaped(in->path, shown_path, sizeof shown_path), why);
        free(stem);
        if (why) return TSK_EXIT_INPUT;
    }
    return TSK_EXIT_OK;
}
