/* tsk_knobs.c: reads the TSKETCH_* environment variables once (tsk_knobs.h). */
#include "tsk_knobs.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tsk_knobs knobs;
static pthread_once_t knobs_once = PTHREAD_ONCE_INIT;

static const char *const kernel_words[] = {"auto", "portable", "avx2", "avx512"};
static const char *const split_words[] = {"ready", "cpu", "gpu", "alternate"};
static const char *const genome_engine_words[] = {"auto", "merge", "index"};
static const char *const method_words[] = {"auto", "dp"};
static const char *const switch_words[] = {"0", "1"};
static const char *const shards_words[] = {"auto", "on", "off"}; /* and TSKETCH_DIST_PIPELINE's */

#define N_WORDS(w) ((int)(sizeof(w) / sizeof *(w)))

/* The variable's value, or NULL when it is unset or empty (an empty value is no value). */
static const char *value_of(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* The index of the variable's value among words; fallback when unset or not one of them, with a
 * warning in the second case: a misspelt knob would otherwise change nothing, silently. */
static int word_knob(const char *name, const char *const *words, int n, int fallback)
{
    const char *v = value_of(name);
    if (!v) return fallback;
    for (int i = 0; i < n; i++)
        if (!strcmp(v, words[i])) return i;
    char list[128] = "";
    for (int i = 0; i < n; i++) {
        strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    fprintf(stderr, "tsketch: warning: %s=%s is not one of %s; using %s\n", name, v, list, words[fallback]);
    return fallback;
}

/* A whole number in [1, max]; 0 when unset, and 0 with a warning when it is something else. */
static long long count_knob(const char *name, long long max)
{
    const char *v = value_of(name);
    if (!v) return 0;
    char *end;
    errno = 0;
    const long long n = strtoll(v, &end, 10);
    if (!*end && !errno && n >= 1 && n <= max) return n;
    if (max == INT64_MAX)
        fprintf(stderr, "tsketch: warning: %s=%s is not a whole number of 1 or more; ignored\n", name, v);
    else
        fprintf(stderr, "tsketch: warning: %s=%s is not a whole number from 1 to %lld; ignored\n", name, v, max);
    return 0;
}

static void read_knobs(void)
{
    knobs.timing = word_knob("TSKETCH_TIMING", switch_words, N_WORDS(switch_words), 0);
    knobs.detached_exit = word_knob("TSKETCH_DETACHED_EXIT", switch_words, N_WORDS(switch_words), 1);
    knobs.split =
        (tsk_knob_split)word_knob("TSKETCH_SPLIT", split_words, N_WORDS(split_words), TSK_KNOB_SPLIT_READY);
    knobs.parse_threads = count_knob("TSKETCH_PARSE_THREADS", 4096);
    knobs.batch_bases = count_knob("TSKETCH_BATCH_BASES", INT64_MAX);
    knobs.batch_records = count_knob("TSKETCH_BATCH_RECORDS", INT64_C(1) << 18);
    knobs.genome_piece = count_knob("TSKETCH_GENOME_PIECE", INT64_MAX);
    knobs.cluster_memory = count_knob("TSKETCH_CLUSTER_MEMORY", INT64_MAX);
    knobs.dist_lanes = count_knob("TSKETCH_DIST_LANES", 16);
    knobs.dist_shards =
        (tsk_knob_shards)word_knob("TSKETCH_DIST_SHARDS", shards_words, N_WORDS(shards_words), TSK_KNOB_SHARDS_AUTO);
    knobs.dist_pipeline = (tsk_knob_pipeline)word_knob("TSKETCH_DIST_PIPELINE", shards_words, N_WORDS(shards_words),
                                                       TSK_KNOB_PIPELINE_AUTO);
    knobs.genome_cpu_engine = (tsk_knob_genome_engine)word_knob("TSKETCH_GENOME_CPU_ENGINE", genome_engine_words,
                                                                N_WORDS(genome_engine_words), TSK_KNOB_GENOME_AUTO);
    knobs.dist_block = count_knob("TSKETCH_DIST_BLOCK", INT64_MAX);
    knobs.copy_threads = count_knob("TSKETCH_COPY_THREADS", 64);
    const long long budget = count_knob("TSKETCH_CPU_LEVELS_BUDGET", INT64_MAX);
    knobs.cpu_levels_budget = budget ? budget : INT64_C(64) << 20;
    knobs.cpu_method_dp = word_knob("TSKETCH_CPU_METHOD", method_words, N_WORDS(method_words), 0);
    knobs.cpu_kernel =
        (tsk_knob_kernel)word_knob("TSKETCH_CPU_KERNEL", kernel_words, N_WORDS(kernel_words), TSK_KNOB_AUTO);
    knobs.counts_kernel =
        (tsk_knob_kernel)word_knob("TSKETCH_COUNTS_KERNEL", kernel_words, N_WORDS(kernel_words), TSK_KNOB_AUTO);
    knobs.dist_kernel =
        (tsk_knob_kernel)word_knob("TSKETCH_DIST_KERNEL", kernel_words, N_WORDS(kernel_words), TSK_KNOB_AUTO);
    knobs.scan_kernel =
        (tsk_knob_kernel)word_knob("TSKETCH_SCAN_KERNEL", kernel_words, N_WORDS(kernel_words), TSK_KNOB_AUTO);
}

const tsk_knobs *tsk_knobs_get(void)
{
    pthread_once(&knobs_once, read_knobs);
    return &knobs;
}
