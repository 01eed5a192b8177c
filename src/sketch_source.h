/* sketch_source.h: the sketches `dist` and `triangle` compare, from .tsk files or FASTA/FASTQ.
 *
 * Inputs are told apart by content (the .tsk magic), not by name. Every input's parameters must
 * agree (exit 4 with every difference listed, naming both files). FASTA inputs are sketched on
 * the fly: with the sketch options given on the command line, or, when none were given and a
 * .tsk input exists, with that file's parameters and tables (as `mash dist` sketches a query
 * with the reference's parameters). All rows end up as one float32 matrix: memory O(N * D). */
#ifndef TSK_SKETCH_SOURCE_H
#define TSK_SKETCH_SOURCE_H

#include <stdint.h>

#include "../core/tsk_def.h"
#include "../io/tsk_file.h"
#include "sketch_opts.h"

/* One group of inputs (the references, or the union of the queries) as a sketch set. */
typedef struct {
    tsk_sketch_set set;      /* what the distance engines take */
    const char **names;      /* set.n_items record names */
    int64_t *length;         /* each record's cleaned length in letters (what cluster ranks by) */
    /* private: the storage behind set and names */
    float *rows;             /* the rows, copied (NULL when they are the file's) */
    tsk_file *file;          /* a group of one float .tsk: set.rows points into its mapping; closed by tsk_source_free */
    int64_t *first_row, *n_rows;
    int64_t n_total_rows, cap_rows, cap_items;
    char *name_arena;
    size_t arena_len, arena_cap;
} tsk_sketch_source;

/* Appends name (with its NUL) to the arena *arena of *len bytes used and *cap allocated, growing
 * it; *offset receives where it starts (an offset: the arena may move until the last name is in).
 * Returns 0 or -1 when memory runs out. The name store of both loaders (genome_source.c too). */
int tsk_name_arena_add(char **arena, size_t *len, size_t *cap, const char *name, size_t *offset);

/* Loads inputs[i] into groups[group_of[i]] (n_groups groups, zeroed by the caller), checking that
 * every input was made with the same parameters; *params receives them. params_given: the
 * command line set sketch parameters (then FASTA inputs use job->params, which must match any
 * .tsk input). job->inputs are ignored; its threads, device and --per-file settings are used for
 * sketching; consecutive FASTA inputs of one group are sketched in one pipeline run.
 * A group whose one input is a float .tsk uses the file's rows where they lie (no copy: loading
 * costs what checking the file costs, tsk_file_open_threads on job->threads); double rows are
 * converted to float on job->threads. Returns TSK_EXIT_OK or an exit code after printing the
 * message. */
int tsk_sources_load(const tsk_input *inputs, size_t n_inputs, const int *group_of, tsk_sketch_source *groups, int n_groups,
                     const tsk_sketch_job *job, int params_given, tsk_params *params);

void tsk_source_free(tsk_sketch_source *s);

/* What a loader does with each input (tsk_sources_walk): add_file takes the records of an open .tsk
 * *f of group `group`, alone = 1 when it is the group's only input; it may keep the file (to use
 * its mapping in place) by setting *f to NULL, and then closes it when the group is freed;
 * otherwise the walk closes it on return. sketch runs sub (a run of consecutive sequence inputs of
 * one group, with the settled parameters, which it may adjust) through the pipeline. Both return a
 * TSK_EXIT_* code, the message printed. */
typedef struct {
    int (*add_file)(void *ctx, int group, tsk_file **f, const char *path, int alone);
    int (*sketch)(void *ctx, int group, tsk_sketch_job *sub);
    void *ctx;
    int anchors_later; /* a genome .tsk alone in its group is opened by tsk_file_open_anchors_later:
                        * add_file has its anchors' checksum to check */
} tsk_source_loader;

/* What a command's inputs hold, told by content: each input is looked at once (tsk_file_kind). */
typedef struct {
    int64_t genome_files;   /* genome .tsk files */
    const char *row_file;   /* the first .tsk of sketch rows, or NULL */
    int64_t unreadable;     /* inputs that are no .tsk and cannot be read ("-" aside): loading names them */
} tsk_input_kinds;

void tsk_inputs_survey(const tsk_input *inputs, size_t n_inputs, tsk_input_kinds *k);

/* The inputs of a command that compares (dist, triangle, tree, plot, cluster): the positional
 * arguments argv[first..argc), then those of the job's -l lists. *inputs is calloc'd, the paths
 * borrowed. TSK_EXIT_OK, or TSK_EXIT_RUNTIME after the message. */
int tsk_inputs_collect(int argc, char **argv, int first, const tsk_sketch_job *job, tsk_input **inputs,
                       size_t *n_inputs);

/* Genome sketches or vector rows, settled alike by every command that compares, before
 * tsk_sketch_job_finish: surveys the inputs into *k; .tsk inputs of genome sketches (none of rows)
 * make the job a genome job, so that genome options (--scaled, --min-keys...) apply to them and are
 * checked against the files'; sequences_are_genomes (cluster) makes sequence inputs genomes too,
 * one a file unless per_record. --genome with a .tsk of rows is refused (exit 2, naming cmd).
 * Sets *genomes; TSK_EXIT_OK or TSK_EXIT_USAGE after the message. */
int tsk_inputs_settle(const char *cmd, const tsk_input *inputs, size_t n_inputs, int sequences_are_genomes,
                      int per_record, tsk_sketch_job *job, tsk_input_kinds *k, int *genomes);

/* Warns about empty and repeated names of group `group` of n_groups (cli.h, tsk_warn_name_problems:
 * the output tells such items apart only by their order). TSK_EXIT_OK, or TSK_EXIT_RUNTIME when
 * memory runs out (message printed). */
int tsk_sources_warn_names(const char *const *names, int64_t n, int group, int n_groups);

/* Opens every .tsk among inputs (checked on job->threads, tsk_file_open_threads) and settles the
 * common parameters into *params: the first .tsk's, unless params_given (then job->params, which
 * every .tsk must match); every .tsk must match them (exit 4, each difference listed). Then hands
 * the inputs, in order, to the loader. Returns TSK_EXIT_OK or an exit code after printing the
 * message. Serves tsk_sources_load and the genome-sketch loader (genome_source.h). */
int tsk_sources_walk(const tsk_input *inputs, size_t n_inputs, const int *group_of, const tsk_sketch_job *job,
                     int params_given, tsk_params *params, const tsk_source_loader *l);

#endif
