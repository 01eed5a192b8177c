/* engine.c: engine choice (see engine.h). */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/tsk_knobs.h"
#include "../cpu/cpu_sketch.h"
#include "../cpu/sketch_counts.h"
#include "../gpu/device.h"
#include "../io/seqio.h"
#include "cli.h"
#include "gpu_start.h"

static void use_cpu(tsk_engine *e)
{
    e->gpu = NULL;
    snprintf(e->name, sizeof e->name, "%s", e->cpu_name);
}

/* Whether this machine has an NVIDIA driver at all. A stat, where asking CUDA starts its driver. */
static int nvidia_present(void)
{
    return access("/dev/nvidiactl", F_OK) == 0 || access("/proc/driver/nvidia/version", F_OK) == 0;
}

int tsk_engine_may_use_gpu(const tsk_device_choice *d)
{
    return d->kind == TSK_DEVICE_CUDA || (d->kind == TSK_DEVICE_AUTO && nvidia_present());
}

/* Bases a byte of a gzip or BGZF genome holds: uncompressed bytes over compressed ones, measured
 * (zcat | wc -c against the file size) on the shared data set: the 9 Blochmannia genomes 3.48-3.56
 * (3.52 together), S. cerevisiae 3.27, human chr20 (BGZF) 3.49; their bases alone (headers and
 * newlines left out) 1.2-1.6 % fewer (docs/performance.md, "--device auto"). A file of many
 * near-identical genomes compresses far more (3,296 HIV-1 genomes: 17.1): its guess is low, and
 * auto errs towards the CPU. */
#define GZIP_BASES_PER_BYTE 3.5

int64_t tsk_engine_file_bases(const char *path)
{
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    const size_t len = strlen(path);
    const int gz = (len > 3 && !strcmp(path + len - 3, ".gz")) || (len > 4 && !strcmp(path + len - 4, ".bgz"));
    return gz ? (int64_t)((double)st.st_size * GZIP_BASES_PER_BYTE) : (int64_t)st.st_size;
}

int64_t tsk_engine_input_bases(const tsk_sketch_job *job)
{
    int64_t bases = 0;
    for (size_t f = 0; f < job->n_inputs; f++) {
        const int64_t b = tsk_engine_file_bases(job->inputs[f].path);
        if (b < 0) return -1;
        bases += b;
    }
    return bases;
}

/* --device auto on genomes a record: the GPU scans them above this many bases a -p thread (2.4 Gbp at
 * -p 16). Measured on the H100 machine (docs/performance.md, "Genome sketching"): 4.1 Gbp of
 * genomes in one plain file, -p 16, 1.00 s on the CPU threads and 0.78 s with the GPU, its start
 * included (about 0.35 s): the GPU's rate beyond its start is about 2.3 times the 16 threads', so
 * it pays from about 2.5 Gbp. --per-file stays on the CPU threads: there inflating and parsing the
 * files is most of the work, which the GPU does not take, and the copy into its batches costs more
 * than the scan it saves (1,000 gzipped genomes: 1.62 s on the CPU, 1.81 s with the GPU). */
#define GPU_GENOME_BASES_PER_THREAD 150e6

int tsk_engine_genome_device(const tsk_sketch_job *job, int threads)
{
    const tsk_device_choice *d = &job->device;
    if (d->kind == TSK_DEVICE_CPU) return -1;
    if (d->kind == TSK_DEVICE_AUTO) {
        const int64_t bases = job->per_file ? -1 : tsk_engine_input_bases(job);
        if ((double)bases < GPU_GENOME_BASES_PER_THREAD * threads || !tsk_engine_may_use_gpu(d)) return -1;
    }
    return d->kind == TSK_DEVICE_CUDA && d->n_devices > 0 ? d->devices[0] : 0;
}

int tsk_engine_dist_on_gpu(const tsk_device_choice *d)
{
    char why[256];
    return d->kind == TSK_DEVICE_CUDA || (d->kind == TSK_DEVICE_AUTO && tsk_gpu_device_count(why, sizeof why) > 0);
}

int tsk_engine_dist_devices(const tsk_device_choice *d, int max, int *devices, char *err, size_t errlen)
{
    char why[256];
    const int count = tsk_gpu_device_count(why, sizeof why);
    if (d->kind == TSK_DEVICE_CUDA && d->n_devices > 0) {
        const int n = d->n_devices < max ? d->n_devices : max;
        for (int i = 0; i < n; i++) {
            devices[i] = d->devices[i];
            if (count > 0 && d->devices[i] >= count) {
                snprintf(err, errlen, "--device: cuda:%d does not exist (%d CUDA device%s)", d->devices[i], count,
                         count > 1 ? "s" : "");
                return -1;
            }
        }
        return n;
    }
    const int n = d->kind != TSK_DEVICE_CUDA || count < 1 ? 1 : count < max ? count : max;
    for (int i = 0; i < n; i++) devices[i] = i;
    return n;
}

void tsk_engine_dist_warm(const tsk_device_choice *d)
{
    /* not through tsk_engine_dist_on_gpu: its device count is the driver's start, which the warm-up
     * makes beside the loading (auto on a machine without a GPU: a thread that finds none) */
    static const int first = 0;
    if (d->kind == TSK_DEVICE_CUDA) tsk_gpu_warm_start(d->devices, d->n_devices); /* those named, or every one */
    else if (d->kind == TSK_DEVICE_AUTO) tsk_gpu_warm_start(&first, 1);
}

void tsk_engine_dist_warm_end(void) { tsk_gpu_warm_wait(); }

/* Bases a thread past which --device auto lets every batch wait for the GPU (engine.h): the
 * break-even of the CPU against the GPU's opening plus its own time, measured on 16 cores
 * (docs/performance.md, "--device auto"). Whole records on the count path: 40 Mbp a thread for records
 * of 2 kbp and more (960-base records about 75, 150-base reads about 130). The sketch DP costs the
 * CPU about t D operations a base, so its break-even falls as t D grows (t=6 D=96: about 2.5 Mbp a
 * thread; protein t=3 D=96: about 6): DP_BREAK_EVEN / (t D), within 2..25. Slide rows the same by
 * their cost a base (tsk_cpu_dp_cost_per_base). Anchored windows keep the rule measured before, 25
 * Mbp a thread. */
#define GPU_FIRST_COUNTS_PER_THREAD 40e6
#define GPU_FIRST_WINDOWS_PER_THREAD 25e6
#define DP_BREAK_EVEN 1.5e9
#define GPU_FIRST_LONG_RECORD 2000.0 /* bytes of input a row from which records count as long */

/* The break-even a thread of CPU work costing `per_base` operations a base (2-25 Mbp). */
static double dp_break_even(double per_base)
{
    const double bases = DP_BREAK_EVEN / per_base;
    return bases < 2e6 ? 2e6 : bases > 25e6 ? 25e6 : bases;
}

int tsk_engine_gpu_first(const tsk_device_choice *d, const tsk_params *p, int windows, int64_t bases, int64_t rows,
                         int threads)
{
    if (d->kind == TSK_DEVICE_CUDA) return 1;
    if (!tsk_engine_may_use_gpu(d) || bases < 0) return 0;
    double per_thread = GPU_FIRST_WINDOWS_PER_THREAD;
    if (windows && p->window > 0) { /* slide rows (anchored windows reach the engine as records) */
        per_thread = dp_break_even(tsk_cpu_dp_cost_per_base(p));
    } else if (!windows) {
        per_thread = tsk_cpu_counts_used(p) ? GPU_FIRST_COUNTS_PER_THREAD : dp_break_even(tsk_cpu_dp_cost_per_base(p));
        /* each row costs both engines host work and output alike, so short records gain less from
         * the GPU: the break-even grows about as the square root of their shortness */
        const double mean = rows > 0 ? (double)bases / (double)rows : (double)bases;
        if (mean < GPU_FIRST_LONG_RECORD) per_thread *= sqrt(GPU_FIRST_LONG_RECORD / (mean > 1.0 ? mean : 1.0));
    }
    return (double)bases > per_thread * (threads > 0 ? threads : 1);
}

static tsk_engine_split split_knob(void)
{
    switch (tsk_knobs_get()->split) {
    case TSK_KNOB_SPLIT_CPU: return TSK_SPLIT_CPU;
    case TSK_KNOB_SPLIT_GPU: return TSK_SPLIT_GPU;
    case TSK_KNOB_SPLIT_ALTERNATE: return TSK_SPLIT_ALTERNATE;
    default: return TSK_SPLIT_READY;
    }
}

/* Takes the GPU's opening over once it is done, or, with wait, waits for it. */
static int collect_gpu(tsk_engine *e, int wait)
{
    if (!e->start || (!wait && !tsk_gpu_start_done(e->start))) return TSK_EXIT_OK;
    char why[TSK_ERRLEN], name[96];
    int no_device = 0;
    e->gpu = tsk_gpu_start_take(e->start, name, sizeof name, why, sizeof why, &no_device);
    e->start = NULL;
    if (e->gpu) {
        snprintf(e->name, sizeof e->name, "%s", name);
        return TSK_EXIT_OK;
    }
    if (no_device) {
        tsk_error("%s", why);
        return TSK_EXIT_NO_GPU;
    }
    if (e->kind == TSK_DEVICE_CUDA) {
        tsk_error("--device cuda: no usable GPU: %s", why);
        return TSK_EXIT_NO_GPU;
    }
    /* a GPU that is there but cannot take the job is news, once per process (dist may sketch
     * several groups); a machine or build without one is the normal CPU case */
    static int noted;
    if (!noted++) tsk_note("GPU not used (%s); sketching on the %s", why, e->name);
    return TSK_EXIT_OK;
}

int tsk_engine_open(tsk_engine *e, const tsk_params *p, const tsk_device_choice *d, int threads, int64_t bases,
                    int64_t rows, int gpu_first)
{
    memset(e, 0, sizeof *e);
    e->params = p;
    e->threads = threads;
    e->kind = d->kind;
    e->split = split_knob();
    e->gpu_first = gpu_first;
    snprintf(e->cpu_name, sizeof e->cpu_name, "CPU (%d thread%s)", threads, threads > 1 ? "s" : "");
    use_cpu(e);
    if (d->kind == TSK_DEVICE_CPU) return TSK_EXIT_OK;
    /* a small input of known size: the CPU is done before CUDA would be ready */
    if (d->kind == TSK_DEVICE_AUTO && bases >= 0 && !e->gpu_first && e->split == TSK_SPLIT_READY) return TSK_EXIT_OK;
    char why[256] = "";
    if (!nvidia_present() && tsk_gpu_device_count(why, sizeof why) == 0) {
        if (d->kind == TSK_DEVICE_CUDA) {
            tsk_error("--device cuda: no usable GPU: %s", why);
            return TSK_EXIT_NO_GPU;
        }
        return TSK_EXIT_OK; /* no GPU here: the normal CPU case, no note */
    }
    if (!(e->start = tsk_gpu_start_open(p, d, bases, rows, threads))) {
        tsk_error("cannot start a thread: out of resources");
        return TSK_EXIT_RUNTIME;
    }
    /* cuda, or auto on an input the GPU takes whole: every batch needs the GPU anyway (reading goes
     * on meanwhile) */
    return d->kind == TSK_DEVICE_CUDA || e->gpu_first ? collect_gpu(e, 1) : TSK_EXIT_OK;
}

/* Seconds of CPU sketching past which a batch rather waits for a GPU that is still opening (it
 * takes 0.3-0.5 s): a 2 Gbp chromosome set on a few cores would take far longer. */
#define CPU_BATCH_SECONDS 0.5
#define CPU_BASES_PER_THREAD_SECOND 1e8 /* count path: 1.5-3x this a core (performance.md "Sketching: CPU engine") */

/* Whether batch tag (of `bases` bases) runs on the GPU, waiting for it where it must. */
static int choose_gpu(tsk_engine *e, int64_t tag, int64_t bases, int *rc)
{
    int wait = e->split == TSK_SPLIT_GPU || (e->split == TSK_SPLIT_ALTERNATE && (tag & 1));
    if (e->split == TSK_SPLIT_READY && e->start)
        wait = e->gpu_first || bases > CPU_BATCH_SECONDS * CPU_BASES_PER_THREAD_SECOND * e->threads;
    *rc = collect_gpu(e, wait);
    if (!e->gpu || e->split == TSK_SPLIT_CPU) return 0;
    return e->split != TSK_SPLIT_ALTERNATE || (tag & 1);
}

int tsk_engine_gpu_ready(tsk_engine *e)
{
    collect_gpu(e, 0);
    return e->gpu != NULL && e->split != TSK_SPLIT_CPU;
}

/* The GPU engine's answer as an exit code, its message printed. */
static int gpu_result(int rc, const char *err)
{
    if (rc == 0) return TSK_EXIT_OK;
    tsk_error("GPU sketch failed: %s", err);
    return TSK_EXIT_RUNTIME;
}

int tsk_engine_begin(tsk_engine *e, const tsk_batch *b, void *out, int64_t tag)
{
    int rc;
    const int gpu = choose_gpu(e, tag, b->offset[b->n_records], &rc);
    if (rc) return rc;
    if (gpu) {
        char err[TSK_ERRLEN];
        e->gpu_batches++;
        return gpu_result(tsk_gpu_sketch_begin(e->gpu, b, out, tag, err, sizeof err), err);
    }
    if (tsk_cpu_sketch(e->params, b, out, e->threads)) {
        tsk_error("out of memory while sketching");
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

int tsk_engine_wait(tsk_engine *e, int64_t tag)
{
    if (!e->gpu) return TSK_EXIT_OK;
    char err[TSK_ERRLEN];
    return gpu_result(tsk_gpu_sketch_wait(e->gpu, tag, err, sizeof err), err);
}

void tsk_engine_close(tsk_engine *e)
{
    if (e->gpu) tsk_gpu_leave(e->gpu);
    if (e->start) tsk_gpu_start_abandon(e->start);
    e->gpu = NULL;
    e->start = NULL;
}

int64_t tsk_engine_batch_bases(int gpu)
{
    return gpu ? INT64_C(1) << 28 : INT64_C(1) << 24;
}

int64_t tsk_engine_batch_records(int gpu)
{
    return gpu ? INT64_C(1) << 18 : INT64_C(1) << 14;
}
