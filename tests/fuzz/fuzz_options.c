/* fuzz_options.c: the sketch option parser shared by sketch, dist and triangle (src/sketch_opts.c:
 * getopt_long over TSK_SKETCH_LONG_OPTIONS, tsk_sketch_option, tsk_sketch_job_finish) on any
 * command line: the input is split at NUL bytes into argv. -l and --tables, which read files,
 * are skipped (tables files have their own target). Whatever is accepted must pass
 * tsk_params_check; whatever is refused must be a usage or input error, never a crash. */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli.h"
#include "../../src/sketch_opts.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct option long_options[] = {TSK_SKETCH_LONG_OPTIONS, {0, 0, 0, 0}};
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "sketch";
    for (size_t i = 0; i <= size && argc < MAX_ARGS + 1;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;

    tsk_sketch_job job;
    tsk_sketch_job_init(&job);
    int rc = TSK_EXIT_OK, opt;
    optind = 0; /* glibc: start over, forgetting the last run's state */
    opterr = 0;
    while (rc == TSK_EXIT_OK && (opt = getopt_long(argc, argv, TSK_SKETCH_SHORT_OPTS, long_options, NULL)) != -1) {
        if (opt == 'l' || opt == TSK_OPT_TABLES || opt == '?' || opt == ':') continue;
        int used = tsk_sketch_option(&job, opt, optarg);
        if (used < 0) rc = -used;
        else if (used == 0) abort(); /* every option of the table is the shared parser's */
    }
    for (int i = optind; rc == TSK_EXIT_OK && i < argc; i++)
        if (tsk_sketch_job_add_input(&job, argv[i])) rc = TSK_EXIT_RUNTIME;
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_finish(&job);
    if (rc == TSK_EXIT_OK && tsk_params_check(&job.params)) abort();
    if (rc != TSK_EXIT_OK && rc != TSK_EXIT_USAGE && rc != TSK_EXIT_INPUT) abort();
    tsk_sketch_job_free(&job);
    free(buf);
    return 0;
}
