/* sketch_opts.h: the sketch job (what `sketch` sketches, and how), its command-line options shared
 * by sketch/dist/triangle/cluster, and the defaults of --genome, --anchored and --device.
 *
 * A command fills a job through getopt_long with TSK_SKETCH_SHORT_OPTS / TSK_SKETCH_LONG_OPTIONS and
 * tsk_sketch_option, then tsk_sketch_job_finish; the job is run by tsk_pipeline_run (pipeline.h:
 * sketch rows) or tsk_genome_sketch_run (genome_sketch.h: genome sketches). */
#ifndef TSK_SKETCH_OPTS_H
#define TSK_SKETCH_OPTS_H

#include <stddef.h>

#include "../core/tsk_def.h"
#include "../io/seqio.h"

typedef enum { TSK_DEVICE_AUTO = 0, TSK_DEVICE_CPU, TSK_DEVICE_CUDA } tsk_device_kind;

/* --device: auto, cpu, cuda, cuda:N, cuda:0,1, cuda:all */
typedef struct {
    tsk_device_kind kind;
    int n_devices;          /* 0 with kind CUDA = all */
    int devices[16];
} tsk_device_choice;

/* getopt_long codes of the shared sketch options without a short form. */
enum {
    TSK_OPT_ALPHABET = 1000, TSK_OPT_CANONICAL, TSK_OPT_WINDOW, TSK_OPT_STRIDE, TSK_OPT_TABLES,
    TSK_OPT_PRECISION, TSK_OPT_DEVICE, TSK_OPT_PER_FILE, TSK_OPT_SLIDE, TSK_OPT_ANCHORED, TSK_OPT_ANCHOR_K,
    TSK_OPT_GENOME, TSK_OPT_SCALED, TSK_OPT_MIN_KEYS, TSK_OPT_FLOOR_STRIDE,
    TSK_OPT_FIRST_FREE = 1100 /* subcommands number their own long-only options from here */
};
#define TSK_SKETCH_SHORT_OPTS "k:s:S:p:l:I:"
#define TSK_SKETCH_LONG_OPTIONS \
    {"tuple-len", required_argument, 0, 'k'}, {"dim", required_argument, 0, 's'}, \
    {"seed", required_argument, 0, 'S'}, {"threads", required_argument, 0, 'p'}, \
    {"list", required_argument, 0, 'l'}, {"id", required_argument, 0, 'I'}, \
    {"alphabet", required_argument, 0, TSK_OPT_ALPHABET}, {"canonical", no_argument, 0, TSK_OPT_CANONICAL}, \
    {"window", required_argument, 0, TSK_OPT_WINDOW}, {"stride", required_argument, 0, TSK_OPT_STRIDE}, \
    {"tables", required_argument, 0, TSK_OPT_TABLES}, {"precision", required_argument, 0, TSK_OPT_PRECISION}, \
    {"device", required_argument, 0, TSK_OPT_DEVICE}, {"per-file", no_argument, 0, TSK_OPT_PER_FILE}, \
    {"slide", no_argument, 0, TSK_OPT_SLIDE}, {"anchored", no_argument, 0, TSK_OPT_ANCHORED}, \
    {"anchor-k", required_argument, 0, TSK_OPT_ANCHOR_K}, {"genome", no_argument, 0, TSK_OPT_GENOME}, \
    {"scaled", required_argument, 0, TSK_OPT_SCALED}, {"min-keys", required_argument, 0, TSK_OPT_MIN_KEYS}, \
    {"floor-stride", required_argument, 0, TSK_OPT_FLOOR_STRIDE}
/* Help text of the shared sketch options, for the subcommands' usage messages. */
extern const char tsk_sketch_options_help[];

/* Everything `tsketch sketch` needs besides the output. */
typedef struct {
    tsk_params params;
    tsk_input *inputs;
    size_t n_inputs;
    int per_file;              /* one sketch per input file (records joined in order) */
    const char *per_file_name; /* -I NAME: name of the single per-file sketch */
    int threads;
    tsk_device_choice device;
    const char *tables_path;   /* --tables FILE, or NULL */
    int slide;                 /* --slide: Tensor Slide Sketch with the tuned defaults */
    int genome;                /* --genome: genome sketches (key sets, core/genome_keys.h; run by
                                * tsk_genome_sketch_run, never by the pipeline) */
    unsigned given;            /* TSK_GIVEN_* bits: parameters set on the command line */
    char **owned;              /* strings the job allocated (list files), freed with it */
    size_t n_owned;
    const char **lists;        /* -l list files (argv strings), inputs too for the output check */
    size_t n_lists;
} tsk_sketch_job;

enum {
    TSK_GIVEN_T = 1, TSK_GIVEN_DIM = 2, TSK_GIVEN_WINDOW = 4, TSK_GIVEN_STRIDE = 8, TSK_GIVEN_SEED = 16,
    TSK_GIVEN_ANCHOR = 32, /* --anchored or --anchor-k */
    TSK_GIVEN_SCALED = 64, TSK_GIVEN_CANONICAL = 128, TSK_GIVEN_MIN_KEYS = 256,
    TSK_GIVEN_FLOOR_STRIDE = 512
};

/* Defaults of --genome (docs/accuracy.md, "Genome sketches": chosen on the tuning sets): windows of
 * GENOME_WINDOW bases centred on anchor k-mers; a genome keeps the windows of about one anchor in
 * GENOME_SCALED, and at least GENOME_MIN_KEYS (the size floor: small genomes sample more densely,
 * core/genome_keys.h); t and D only need to tell windows apart. 20 bases: shorter windows rank
 * diverged pairs better but share windows between unrelated genomes by chance; scaled 500: 16 KB
 * of .tsk per Mbp; a floor of 12,000 keys (96 KB, the most within 100 KB; Mash's default sketch
 * holds 10,000) brings viruses and small genomes to Mash's accuracy and leaves genomes of 12 Mbp
 * and more as they were; but the floor takes at most one anchor in GENOME_FLOOR_STRIDE, so a genome
 * under 120 kb keeps about one window in 8 (a 20 kb phage: 2,500 keys, 20 KB, about its FASTA's
 * size, where all its windows made 96 KB and cost 4x Mash's sketching time). */
#define TSK_GENOME_T 4
#define TSK_GENOME_DIM 16
#define TSK_GENOME_WINDOW 20
#define TSK_GENOME_ANCHOR_K 16
#define TSK_GENOME_SCALED 500
#define TSK_GENOME_MIN_KEYS 12000
#define TSK_GENOME_FLOOR_STRIDE 8

/* k-mer length of --anchored windows when --anchor-k is not given (docs/accuracy.md, section 3) */
#define TSK_DEFAULT_ANCHOR_K 8

/* Adds a positional input path (strdup'd). Returns 0 or -1 (out of memory). */
int tsk_sketch_job_add_input(tsk_sketch_job *job, const char *path);

/* --per-file sketches are named by their files; a process's file descriptor (/dev/fd/63 of
 * <(zcat x.gz), /proc/self/fd/N) would name one "63". Refuses such an input of inputs[0..n) that
 * has no name of its own (a list's NAME, -I): -1 after the message (exit 2), else 0. */
int tsk_inputs_check_fd_names(const tsk_sketch_job *job, const tsk_input *inputs, size_t n);

/* Parses the sketch options shared by sketch/dist/triangle (-k -s -S --alphabet --canonical
 * --window --stride --tables --precision -p --device -l --per-file -I). Used through getopt_long:
 * returns 1 if opt was one of them (consumed), 0 if not, or minus an exit code when its value is bad
 * (-TSK_EXIT_USAGE; -TSK_EXIT_INPUT for an unreadable -l list), the message printed.
 * Call tsk_sketch_job_finish after the options to draw or read tables and check parameters. */
int tsk_sketch_option(tsk_sketch_job *job, int opt, const char *arg);
/* Whether opt (a getopt code tsk_sketch_option took) sets a parameter of the sketch function (not
 * -p, --device, -l, --per-file or -I): commands that sketch FASTA beside .tsk inputs use the
 * command line's parameters only when one was given, the first .tsk's otherwise. */
int tsk_sketch_param_option(int opt);
/* --metric's value: l2 or cosine into *m. TSK_EXIT_OK, or TSK_EXIT_USAGE after the message. */
int tsk_parse_metric(const char *arg, tsk_metric *m);
void tsk_sketch_job_init(tsk_sketch_job *job);
int tsk_sketch_job_finish(tsk_sketch_job *job); /* TSK_EXIT_OK or an exit code, message printed */
void tsk_sketch_job_free(tsk_sketch_job *job);

/* With --per-file, every input's sketch name (its list name, -I, or its file stem) must be unique:
 * s1/contigs.fa and s2/contigs.fa would both be 'contigs'. Prints the clash naming both files
 * and returns TSK_EXIT_INPUT; else TSK_EXIT_OK (also without --per-file). */
int tsk_sketch_job_check_names(const tsk_sketch_job *job);

/* With --per-file, every input's sketch name (its list name, -I, or its file stem) must be one that
 * the outputs can hold: no TAB, CR or LF (tsk_name_problem). Prints the refusal naming the input
 * (or -I) and returns TSK_EXIT_USAGE for -I, TSK_EXIT_INPUT for a file or list name; else
 * TSK_EXIT_OK. Record names read from FASTA/FASTQ end at the first blank: they never hold one.
 * Checked by tsk_pipeline_run and tsk_genome_sketch_run before anything is read. */
int tsk_sketch_job_check_name_chars(const tsk_sketch_job *job);

/* tsk_check_output over every file the job reads (inputs, list files, --tables) and more[0..n_more).
 * TSK_EXIT_OK or TSK_EXIT_USAGE (message printed). */
int tsk_sketch_job_check_output(const tsk_sketch_job *job, const char *output, char *const *more, size_t n_more);

#endif
