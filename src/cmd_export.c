/* cmd_export.c: `tsketch export --format tsv|npy FILE.tsk [-o OUT]` */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/atomic_file.h"
#include "../io/float_text.h"
#include "../io/npy.h"
#include "../io/seqio.h"
#include "../io/tsk_file.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fputs("Usage: tsketch export [options] FILE.tsk\n"
          "\n"
          "Writes the rows of a sketch file.\n"
          "  tsv: one line per row, 'name TAB v0 .. v(D-1)' (%.9g; %.17g for double sketches);\n"
          "       slide rows are named record:start-end (1-based, inclusive, on the cleaned sequence),\n"
          "       anchored rows (--anchored) record:windowN\n"
          "  npy: a float32 rows x D matrix that numpy.load reads, and OUT.names with one row name\n"
          "       per line beside it\n"
          "\n"
          "  -f, --format F    tsv (default) or npy\n"
          "  -o, --output FILE output file (default: standard output; required for npy)\n"
          "  -h, --help        this help\n",
          f);
}

/* Writes the name of row r of record rec: the record name, or record:start-end for slide rows.
 * Straight to the stream, whole, however long the name is. */
static void put_row_name(const tsk_file *f, const tsk_record_info *rec, int64_t r, FILE *out)
{
    fputs(rec->name, out);
    if (f->params.window == 0) return;
    if (f->params.anchor_k) { /* anchored windows: their places are not stored, only their order */
        fprintf(out, ":window%" PRId64, r + 1);
        return;
    }
    int64_t first, last;
    tsk_slide_row_span(&f->params, r, &first, &last);
    fprintf(out, ":%" PRId64 "-%" PRId64, first + 1, last + 1);
}

/* Genome sketches: one line per genome, its name and then its keys in ascending order. */
static int write_genome_tsv(const tsk_file *f, FILE *out)
{
    for (int64_t i = 0; i < f->n_records; i++) {
        const tsk_record_info *rec = &f->records[i];
        const uint64_t *keys = (const uint64_t *)f->data + rec->first_row;
        fputs(rec->name, out);
        for (int64_t j = 0; j < rec->n_rows; j++) fprintf(out, "\t%" PRIu64, keys[j]);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

static int write_tsv(const tsk_file *f, FILE *out)
{
    if (f->params.scaled > 0) return write_genome_tsv(f, out);
    const int dim = f->params.dim;
    const int is_double = f->elem_size == sizeof(double);
    for (int64_t i = 0; i < f->n_records; i++) {
        const tsk_record_info *rec = &f->records[i];
        for (int64_t r = 0; r < rec->n_rows; r++) {
            put_row_name(f, rec, r, out);
            const void *row = tsk_file_row(f, rec->first_row + r);
            for (int k = 0; k < dim; k++) {
                if (is_double) fprintf(out, "\t%.17g", ((const double *)row)[k]);
                else {
                    char num[33] = "\t"; /* %.9g, as tsk_float_g9 writes it */
                    fwrite(num, 1, 1 + tsk_float_g9(num + 1, ((const float *)row)[k]), out);
                }
            }
            fputc('\n', out);
            if (ferror(out)) return -1; /* errno is still the failed write's */
        }
    }
    return 0;
}

static int write_npy(const tsk_file *f, const char *path, char *err, size_t errlen)
{
    const int dim = f->params.dim;
    tsk_npy_writer *w = tsk_npy_open(path, f->n_rows, dim, (int)sizeof(float), err, errlen);
    if (!w) return -1;
    float *row = malloc((size_t)dim * sizeof *row);
    int rc = row ? 0 : -1;
    if (!row) snprintf(err, errlen, "%s: out of memory", path);
    for (int64_t r = 0; rc == 0 && r < f->n_rows; r++) {
        const void *src = tsk_file_row(f, r);
        if (f->elem_size == sizeof(double))
            for (int k = 0; k < dim; k++) row[k] = (float)((const double *)src)[k];
        else
            memcpy(row, src, (size_t)dim * sizeof *row);
        rc = tsk_npy_append(w, row, 1, err, errlen);
    }
    free(row);
    if (rc) {
        tsk_npy_abort(w);
        return -1;
    }
    /* names beside the matrix, one per row */
    size_t plen = strlen(path);
    char *names_path = malloc(plen + 7);
    if (!names_path) {
        tsk_npy_abort(w);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    memcpy(names_path, path, plen);
    memcpy(names_path + plen, ".names", 7);
    tsk_atomic_file *nf = tsk_atomic_open(names_path, err, errlen);
    if (!nf) {
        tsk_npy_abort(w);
        free(names_path);
        return -1;
    }
    for (int64_t i = 0; i < f->n_records; i++)
        for (int64_t r = 0; r < f->records[i].n_rows; r++) {
            put_row_name(f, &f->records[i], r, tsk_atomic_stream(nf));
            fputc('\n', tsk_atomic_stream(nf));
        }
    free(names_path);
    if (tsk_atomic_commit(nf, err, errlen)) {
        tsk_npy_abort(w);
        return -1;
    }
    return tsk_npy_finish(w, err, errlen);
}

int tsk_cmd_export(int argc, char **argv)
{
    static const struct option long_options[] = {{"format", required_argument, 0, 'f'},
                                                 {"output", required_argument, 0, 'o'},
                                                 {"help", no_argument, 0, 'h'},
                                                 {0, 0, 0, 0}};
    const char *format = "tsv", *output = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "f:o:h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'f': format = optarg; break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return TSK_EXIT_OK;
        default: return tsk_usage_error("export");
        }
    }
    if (strcmp(format, "tsv") && strcmp(format, "npy")) {
        tsk_error("export: format '%s' is not tsv or npy", format);
        return TSK_EXIT_USAGE;
    }
    if (optind != argc - 1) {
        tsk_error("export: give exactly one .tsk file");
        return TSK_EXIT_USAGE;
    }
    if (!strcmp(format, "npy") && !output) {
        tsk_error("export: --format npy needs -o OUT.npy");
        return TSK_EXIT_USAGE;
    }
    if (output && strcmp(output, "-")) {
        /* npy writes OUT and OUT.names */
        char *names = malloc(strlen(output) + 7);
        if (!names) {
            tsk_error("out of memory");
            return TSK_EXIT_RUNTIME;
        }
        strcat(strcpy(names, output), ".names");
        const char *in[1] = {argv[optind]};
        int bad = tsk_check_output(output, in, 1) || (!strcmp(format, "npy") && tsk_check_output(names, in, 1));
        free(names);
        if (bad) return TSK_EXIT_USAGE;
    }
    if (!strcmp(argv[optind], "-")) {
        tsk_error("export: '-': export needs a .tsk file by name (sketch files are mapped: one through a pipe or "
                  "stdin is not read)");
        return TSK_EXIT_USAGE;
    }
    char err[TSK_ERRLEN] = "";
    int why;
    tsk_file *f = tsk_file_open_code(argv[optind], &why, err, sizeof err);
    if (!f) {
        tsk_error("%s", err);
        return why == TSK_FILE_NO_MEMORY ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
    }
    int rc = TSK_EXIT_OK;
    if (!strcmp(format, "npy") && f->params.scaled > 0) {
        /* the file is fine and so is the format: the two do not go together (a usage error) */
        tsk_error("%s: genome sketches are key sets of different sizes, not a matrix: --format npy does not apply "
                  "(export them with --format tsv: a genome's name, then its keys)", argv[optind]);
        tsk_file_close(f);
        return TSK_EXIT_USAGE;
    }
    if (!strcmp(format, "npy")) {
        if (write_npy(f, output, err, sizeof err)) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        }
    } else if (output) {
        tsk_atomic_file *af = tsk_atomic_open(output, err, sizeof err);
        if (!af) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        } else if (write_tsv(f, tsk_atomic_stream(af))) {
            tsk_error("%s: write failed: %s", output, strerror(errno));
            tsk_atomic_abort(af);
            rc = TSK_EXIT_RUNTIME;
        } else if (tsk_atomic_commit(af, err, sizeof err)) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        }
    } else if (write_tsv(f, stdout) || fflush(stdout)) {
        tsk_error("export: cannot write to standard output: %s", strerror(errno));
        rc = TSK_EXIT_RUNTIME;
    }
    tsk_file_close(f);
    return rc;
}
