/* tsk_knobs.h: the environment variables that tune tsketch (its knobs), read in one place.
 *
 * Tests and benchmarks turn these; a user rarely needs them. Every knob is named TSKETCH_*, and the
 * knobs that choose a CPU kernel share one vocabulary: auto (the widest this CPU has), portable (the
 * kernel of a CPU without AVX2), avx2, avx512. A kernel the CPU lacks falls back as each engine
 * says. docs/testing.md, "Environment knobs", lists them all with their values and defaults.
 *
 * The environment is read once, at the first call of tsk_knobs_get() in the process (pthread_once: any
 * thread may be first), and the values are kept: setting a variable later has no effect (tests that
 * compare kernels in one process use the engines' force functions). A value that is not one of the
 * knob's words, or not a whole number in its range, is reported once on standard error (naming the
 * variable and what it takes) and the default is used; an empty value is the same as none.
 *
 * Standard variables that tsketch reads or sets but does not own are not here: OMP_WAIT_POLICY
 * (src/wait_policy.c) and TMPDIR (io/atomic_file.c). Plain C17, usable from CUDA. */
#ifndef TSK_KNOBS_H
#define TSK_KNOBS_H

#ifdef __cplusplus
extern "C" {
#endif

/* A CPU kernel choice (TSKETCH_CPU_KERNEL, TSKETCH_COUNTS_KERNEL, TSKETCH_DIST_KERNEL). */
typedef enum {
    TSK_KNOB_AUTO = 0,     /* the widest kernel this CPU runs (the default) */
    TSK_KNOB_PORTABLE = 1, /* the kernel a CPU without AVX2 runs */
    TSK_KNOB_AVX2 = 2,
    TSK_KNOB_AVX512 = 3
} tsk_knob_kernel;

/* Which engine takes a batch under --device auto (TSKETCH_SPLIT). */
typedef enum {
    TSK_KNOB_SPLIT_READY = 0, /* whichever is ready first (the default) */
    TSK_KNOB_SPLIT_CPU = 1,
    TSK_KNOB_SPLIT_GPU = 2,
    TSK_KNOB_SPLIT_ALTERNATE = 3
} tsk_knob_split;

/* The CPU engine of genome sketches (TSKETCH_GENOME_CPU_ENGINE). */
typedef enum {
    TSK_KNOB_GENOME_AUTO = 0,  /* by the cost model of cpu/genome_index.h (the default) */
    TSK_KNOB_GENOME_MERGE = 1, /* every pair's merge (cpu/genome_sets.h) */
    TSK_KNOB_GENOME_INDEX = 2  /* the inverted index (cpu/genome_index.h) */
} tsk_knob_genome_engine;

typedef enum {
    TSK_KNOB_SHARDS_AUTO = 0, /* shards when the references do not fit one GPU (src/dist_run.c) */
    TSK_KNOB_SHARDS_ON = 1,   /* always over several GPUs or CPU lanes (tests, benchmarks) */
    TSK_KNOB_SHARDS_OFF = 2   /* never */
} tsk_knob_shards;

typedef enum {
    TSK_KNOB_PIPELINE_AUTO = 0, /* two workers a GPU lane of genome sketches refined to ANI (src/dist_run.c) */
    TSK_KNOB_PIPELINE_ON = 1,   /* CPU lanes too (tests: the workers' locks without a GPU) */
    TSK_KNOB_PIPELINE_OFF = 2   /* one worker a lane */
} tsk_knob_pipeline;

typedef struct {
    int timing;                   /* TSKETCH_TIMING=1: sketch prints where the seconds went (0) */
    int detached_exit;            /* TSKETCH_DETACHED_EXIT=0 ends the process plainly (1) */
    tsk_knob_split split;         /* TSKETCH_SPLIT (ready) */
    long long parse_threads;      /* TSKETCH_PARSE_THREADS, 1..4096; 0: the pipeline's choice */
    long long batch_bases;        /* TSKETCH_BATCH_BASES, >= 1; 0: the engine's size */
    long long batch_records;      /* TSKETCH_BATCH_RECORDS, 1..2^18; 0: the engine's number */
    long long genome_piece;       /* TSKETCH_GENOME_PIECE: bases of a genome scanned as one task
                                   * (src/genome_sketch.c); 0: its default */
    long long cluster_memory;     /* TSKETCH_CLUSTER_MEMORY: bytes of links cluster holds before it
                                   * spills sorted runs to TMPDIR; 0: a quarter of the memory */
    long long dist_lanes;         /* TSKETCH_DIST_LANES, 1..16: CPU distance engines taking query
                                   * blocks at once, as GPUs do (src/dist_run.c); 0: one, inline */
    tsk_knob_shards dist_shards;  /* TSKETCH_DIST_SHARDS: auto, on, off: genome references sharded
                                   * over the GPUs (or TSKETCH_DIST_LANES CPU lanes) (auto) */
    tsk_knob_pipeline dist_pipeline; /* TSKETCH_DIST_PIPELINE: auto, on, off: a lane's next block's
                                   * keys beside this block's ANI refinement (auto) */
    long long dist_block;         /* TSKETCH_DIST_BLOCK, >= 1: queries per block of a distance run;
                                   * 0: the selection's own size */
    long long copy_threads;       /* TSKETCH_COPY_THREADS, 1..64: the most threads a GPU upload's copy
                                   * into pinned memory takes (gpu/host_pinned.h), at most -p; 0: 16 */
    tsk_knob_genome_engine genome_cpu_engine; /* TSKETCH_GENOME_CPU_ENGINE: auto, merge, index (auto) */
    long long cpu_levels_budget;  /* TSKETCH_CPU_LEVELS_BUDGET: bytes of chunk levels held (64 MiB) */
    int cpu_method_dp;            /* TSKETCH_CPU_METHOD=dp: the sketch DP where counts apply (0) */
    tsk_knob_kernel cpu_kernel;   /* TSKETCH_CPU_KERNEL: the sketch DP's kernel (auto) */
    tsk_knob_kernel counts_kernel;/* TSKETCH_COUNTS_KERNEL: the count path's kernel (auto) */
    tsk_knob_kernel dist_kernel;  /* TSKETCH_DIST_KERNEL: the CPU distance kernel (auto) */
    tsk_knob_kernel scan_kernel;  /* TSKETCH_SCAN_KERNEL: the genome scan's anchor loop (auto) */
} tsk_knobs;

/* The knobs of this process, read from the environment at the first call. Never NULL. */
const tsk_knobs *tsk_knobs_get(void);

#ifdef __cplusplus
}
#endif

#endif
