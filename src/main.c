/* main.c: tsketch's entry point: dispatches to the subcommands. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../io/atomic_file.h"
#include "cli.h"
#include "commands.h"
#include "detached_exit.h"
#include "wait_policy.h"
#include "tsk_config.h"

static const char USAGE[] =
    "tsketch " TSK_VERSION ": Tensor Sketch vectors of DNA/protein sequences, on the GPU or CPU\n"
    "\n"
    "Usage: tsketch <command> [options]\n"
    "\n"
    "Commands:\n"
    "  sketch    sketch FASTA/FASTQ records into a .tsk file\n"
    "  dist      distances between sketches (all pairs, queries x references, top-k, threshold)\n"
    "  triangle  lower-triangle PHYLIP distance matrix (as mash triangle)\n"
    "  tree      neighbour-joining tree of the distances, in Newick\n"
    "  plot      SVG heatmap of the distances, ordered by the tree drawn beside it\n"
    "  cluster   species clusters and their representatives (dereplication at 95% ANI)\n"
    "  paste     concatenate compatible .tsk files\n"
    "  info      describe a .tsk file (--json)\n"
    "  export    write a .tsk file's rows as TSV or .npy\n"
    "  help      this message; 'tsketch <command> -h' for a command's options\n"
    "\n"
    "Exit codes: 0 ok, 1 runtime error, 2 usage, 3 bad input, 4 incompatible sketches,\n"
    "5 GPU requested but unavailable.\n";

/* An interrupted run must not leave temporary outputs behind: remove them, then die of the
 * signal as the caller expects. */
static void on_signal(int sig)
{
    tsk_tmp_unlink_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    tsk_clock_start();
    tsk_sleeping_waits(argv);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    if (argc < 2) {
        fputs(USAGE, stderr);
        return TSK_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("tsketch %s\n", TSK_VERSION);
        return TSK_EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {
        {"sketch", tsk_cmd_sketch}, {"dist", tsk_cmd_dist},   {"triangle", tsk_cmd_triangle},
        {"paste", tsk_cmd_paste},   {"info", tsk_cmd_info},   {"export", tsk_cmd_export},
        {"tree", tsk_cmd_tree},     {"plot", tsk_cmd_plot},   {"cluster", tsk_cmd_cluster},
    };
    const int is_help = !strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help");
    if (is_help && argc < 3) {
        fputs(USAGE, stdout);
        return TSK_EXIT_OK;
    }
    /* 'tsketch help CMD' is 'tsketch CMD -h' (argv[-1] stays valid: the commands read it) */
    char *help_argv[] = {argv[0], argv[2], "-h", NULL};
    if (is_help) {
        argc = 3;
        argv = help_argv;
        cmd = argv[1];
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(cmd, commands[i].name)) continue;
        const int rc = commands[i].run(argc - 1, argv + 1);
        if (tsk_timing_wanted()) /* what the exit takes after it is the caller's wall time less this */
            fprintf(stderr, "tsketch: timing: done at %.3f s after the start\n", tsk_since_start(tsk_seconds()));
        /* a GPU engine left open, or still opening, when the work was done (gpu_start.h), or a
         * replaced output held open (atomic_file.h): exit's teardown of CUDA would race with an
         * opening, and all of it costs time the caller would wait for; the process ends here, its
         * output flushed, and a helper frees the rest where it may (detached_exit.h) */
        if (tsk_exit_work_left()) tsk_exit_detached(rc);
        return rc;
    }
    tsk_error("unknown command '%s' (try 'tsketch help')", cmd);
    return TSK_EXIT_USAGE;
}
