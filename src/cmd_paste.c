/* cmd_paste.c: `tsketch paste OUT.tsk IN.tsk...`: one sketch file from several compatible ones.
 *
 * Records keep their names, sources and rows, in input order. Inputs must agree on every
 * parameter, precision included (one file has one element type): else exit 4 with each
 * difference. OUT is never overwritten (exit 2), and appears only when complete. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/tsk_file.h"
#include "cli.h"
#include "commands.h"
#include "tsk_config.h"

static void usage(FILE *f)
{
    fprintf(f, "Usage: tsketch paste [options] OUT.tsk IN.tsk...\n"
               "\n"
               "Concatenates compatible sketch files into OUT.tsk (which must not exist).\n"
               "\n"
               "  -q, --quiet           no notes or warnings on stderr\n"
               "  -h, --help            this help\n");
}

static const char *precision_name(tsk_precision p) { return p == TSK_DOUBLE ? "double" : "single"; }

int tsk_cmd_paste(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qh", long_options, NULL)) != -1) {
        switch (opt) {
        case 'q': tsk_quiet = 1; break;
        case 'h': usage(stdout); return TSK_EXIT_OK;
        default: return tsk_usage_error("paste");
        }
    }
    if (argc - optind < 2) {
        tsk_error("paste needs OUT.tsk and at least one IN.tsk (try 'tsketch paste -h')");
        return TSK_EXIT_USAGE;
    }
    const char *out_path = argv[optind];
    char **in_paths = argv + optind + 1;
    int n_in = argc - optind - 1;
    for (int i = 0; i < n_in; i++)
        if (!strcmp(in_paths[i], "-")) {
            tsk_error("paste: '-': paste needs .tsk files by name (sketch files are mapped: one through a pipe or "
                      "stdin is not read)");
            return TSK_EXIT_USAGE;
        }
    if (tsk_check_output(out_path, (const char *const *)in_paths, (size_t)n_in)) return TSK_EXIT_USAGE;
    struct stat st;
    if (stat(out_path, &st) == 0) {
        tsk_error("%s: already exists; paste does not overwrite (remove it first)", out_path);
        return TSK_EXIT_USAGE;
    }

    char err[1024], diff[4096];
    int rc = TSK_EXIT_OK;
    tsk_file **in = calloc((size_t)n_in, sizeof *in);
    if (!in) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    for (int i = 0; i < n_in && rc == TSK_EXIT_OK; i++) {
        int why;
        if (!(in[i] = tsk_file_open_code(in_paths[i], &why, err, sizeof err))) {
            tsk_error("%s", err);
            rc = why == TSK_FILE_NO_MEMORY ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
        } else if (i > 0) {
            const tsk_params *a = &in[0]->params, *b = &in[i]->params;
            int n = tsk_params_diff_shown(a, in_paths[0], b, in_paths[i], diff, sizeof diff);
            /* genome sketches hold uint64 keys whatever precision sketched them (the same keys) */
            if (a->precision != b->precision && a->scaled == 0) {
                size_t len = strlen(diff);
                snprintf(diff + len, sizeof diff - len, "%sprecision: %s in %s, %s in %s", n ? "; " : "",
                         precision_name(a->precision), in_paths[0], precision_name(b->precision), in_paths[i]);
                n++;
            }
            if (n) {
                tsk_error("incompatible sketches: %s", diff);
                rc = TSK_EXIT_INCOMPATIBLE;
            }
        }
    }

    tsk_writer *w = NULL;
    char *command_line = NULL;
    if (rc == TSK_EXIT_OK) {
        command_line = tsk_join_argv(argc, argv);
        if (!(w = tsk_writer_open(out_path, &in[0]->params, TSK_VERSION, command_line ? command_line : "paste", err,
                                  sizeof err))) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        }
    }
    int64_t records = 0;
    for (int i = 0; i < n_in && rc == TSK_EXIT_OK; i++)
        for (int64_t r = 0; r < in[i]->n_records && rc == TSK_EXIT_OK; r++) {
            const tsk_record_info *rec = &in[i]->records[r];
            /* genome sketches carry their segment anchors along */
            const int bad = in[i]->anchors ? tsk_writer_add_genome(w, rec, tsk_file_row(in[i], rec->first_row),
                                                                   &in[i]->anchors[r], err, sizeof err)
                                           : tsk_writer_add(w, rec, tsk_file_row(in[i], rec->first_row), err, sizeof err);
            if (bad) {
                tsk_error("%s", err);
                rc = TSK_EXIT_RUNTIME;
            }
            records++;
        }
    if (rc == TSK_EXIT_OK) {
        rc = tsk_writer_finish(w, err, sizeof err) ? TSK_EXIT_RUNTIME : TSK_EXIT_OK;
        w = NULL;
        if (rc) tsk_error("%s", err);
        else tsk_note("%s: %lld records from %d files", out_path, (long long)records, n_in);
    }
    tsk_writer_abort(w);
    free(command_line);
    for (int i = 0; i < n_in; i++)
        if (in[i]) tsk_file_close(in[i]);
    free(in);
    return rc;
}
