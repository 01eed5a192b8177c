/* genome_source.h: the genome sketches `dist` and `triangle` compare, from genome .tsk files or
 * FASTA/FASTQ sketched on the fly (genome_sketch.h).
 *
 * Inputs are told apart by content. Every input's parameters must agree (exit 4 with every
 * difference listed); a .tsk of sketch rows among genome inputs is refused the same way. FASTA
 * inputs are sketched with the command line's options, or, when none were given and a genome .tsk
 * input exists, with that file's parameters. Keys are held in memory: 8 bytes each. A group whose
 * one input is a genome .tsk uses the file's keys where they lie in its mapping: loading 10^5
 * genomes (7 GB) then costs what checking the file costs (tsk_file_open_threads), no copy. */
#ifndef TSK_GENOME_SOURCE_H
#define TSK_GENOME_SOURCE_H

#include <pthread.h>
#include <stdint.h>

#include "../core/genome_ani.h"
#include "../core/genome_keys.h"
#include "../io/tsk_file.h"
#include "sketch_opts.h"

/* One group of inputs (the references, or the union of the queries) as key sets. */
typedef struct {
    tsk_key_sets set;        /* what the genome engines take */
    const char **names;      /* set.n_items genome names */
    /* set.n_items genomes' segment anchors (core/genome_ani.h), item i as in set: for a group of
     * one genome .tsk their arrays lie in the file's mapping (no copy, as the keys); otherwise
     * they are copies (other .tsk inputs) or the sketcher's (FASTA), held by the group */
    tsk_ani_set ani;
    int64_t *n_contigs;      /* each genome's contigs (records of its FASTA) */
    int64_t *n50;            /* each genome's N50 of cleaned contig lengths */
    /* private: the storage behind set and names */
    uint64_t *keys;          /* the keys, copied (NULL when they are the file's) */
    tsk_file *file;          /* a group of one genome .tsk: set.keys points into its mapping; closed on free */
    int64_t *offset;
    int64_t *length;         /* each genome's cleaned length (its threshold depends on it) */
    uint64_t *tau;           /* each genome's threshold tau_g (set.tau, unless all are equal) */
    int64_t n_keys, cap_keys, cap_items;
    tsk_ani_genome *ani_genome;  /* ani.genome; its arrays set by finalize */
    int64_t *repeats;            /* each genome's tsk_ani_repeats count, -1 until an estimate counts it */
    int64_t *seg_at, *hash_at;   /* where genome i's copied arrays start in seg_counts, ani_hashes */
    uint16_t *seg_counts;
    uint32_t *ani_hashes;
    int64_t n_seg, cap_seg, n_hash, cap_hash;
    char *name_arena;
    size_t arena_len, arena_cap;
    /* the anchor section's checksum of the group's .tsk (tsk_file_open_anchors_later), checked on a
     * thread of its own from the load to tsk_genome_source_checked */
    pthread_t check_thread;
    int check_running, check_rc, check_threads;
    const char *check_path;
    double check_from, check_to; /* tsk_seconds */
    char check_err[TSK_ERRLEN];
} tsk_genome_source;

/* Loads inputs[i] into groups[group_of[i]] (n_groups groups, zeroed by the caller); *params
 * receives the common parameters. params_given: the command line set sketch parameters (then
 * FASTA inputs use job->params, which every .tsk input must match). anchors_later: a genome .tsk
 * that is its group's only input leaves its anchor section's checksum to a thread of its own,
 * started here on job->threads (for a GPU run: it runs beside the engines' uploads, which begin
 * when the GPU's context is ready, 0.1-0.3 s after the start); the caller must then have
 * tsk_genome_source_checked return TSK_EXIT_OK before any result reaches an output. Returns
 * TSK_EXIT_OK or an exit code after printing the message. */
int tsk_genome_sources_load(const tsk_input *inputs, size_t n_inputs, const int *group_of, tsk_genome_source *groups,
                            int n_groups, const tsk_sketch_job *job, int params_given, int anchors_later,
                            tsk_params *params);

/* Whether a command that compares genome sketches with ANI gains by tsk_genome_sources_load's
 * anchors_later: a run that may use a GPU, on at most 4 threads. There the load's check of a
 * 10^4-genome file took 0.33 s on one thread, before the GPU's uploads could begin (H200 node: top-10
 * 1.16 -> 1.07 s at -p 1). On 16 threads it takes 0.2 s of 19 GB, and beside the uploads it only
 * competes with their copies for memory (cluster of 10^5 4.28 -> 4.41 s). */
int tsk_genome_anchors_later_pays(const tsk_sketch_job *job);

/* Waits for the group's anchor checksum (tsk_genome_sources_load's anchors_later), if one was
 * left: TSK_EXIT_OK, or TSK_EXIT_INPUT after "g.tsk: checksum mismatch (the file is corrupt)".
 * The same answer on every call. */
int tsk_genome_source_checked(tsk_genome_source *s);

void tsk_genome_source_free(tsk_genome_source *s);

#endif
