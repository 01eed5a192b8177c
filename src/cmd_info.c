/* cmd_info.c: `tsketch info [--json] [--records] FILE.tsk` */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../core/genome_keys.h"
#include "../io/seqio.h"
#include "../io/tsk_file.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fputs("Usage: tsketch info [options] FILE.tsk\n"
          "\n"
          "Describes a sketch file: parameters, tool and command line, records.\n"
          "\n"
          "  -j, --json      JSON instead of text\n"
          "  -r, --records   also list every record (name, source, lengths, rows)\n"
          "  -h, --help      this help\n",
          f);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when s does not start one (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut short). */
static int utf8_length(const unsigned char *s)
{
    const unsigned c = s[0];
    int n;
    unsigned min, cp;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) n = 2, min = 0x80, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) n = 3, min = 0x800, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) n = 4, min = 0x10000, cp = c & 0x07;
    else return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0; /* the NUL terminator stops here too */
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

/* A JSON string. Names come from the input files as bytes: a byte that is not part of valid
 * UTF-8 becomes U+FFFD, so the output is always valid JSON. */
static void json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', out);
    while (*s) {
        unsigned char c = *s;
        int n = utf8_length(s);
        if (n == 0) fputs("\\ufffd", out), n = 1;
        else if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fwrite(s, 1, (size_t)n, out);
        s += n;
    }
    fputc('"', out);
}

typedef struct {
    long long raw, clean, dropped;
} totals;

static totals sum_records(const tsk_file *f)
{
    totals t = {0, 0, 0};
    for (int64_t i = 0; i < f->n_records; i++) {
        t.raw += f->records[i].raw_len;
        t.clean += f->records[i].clean_len;
        t.dropped += f->records[i].dropped;
    }
    return t;
}

static void print_json(FILE *out, const char *path, const tsk_file *f, int records)
{
    const tsk_params *p = &f->params;
    totals t = sum_records(f);
    fputs("{\n  \"file\": ", out);
    json_string(out, path);
    fprintf(out, ",\n  \"format_version\": %d,\n  \"tool_version\": ",
            p->scaled > 0 ? (int)TSK_GENOME_FORMAT_VERSION : TSK_FORMAT_VERSION);
    json_string(out, f->tool_version);
    fputs(",\n  \"command_line\": ", out);
    json_string(out, f->command_line);
    fprintf(out,
            ",\n  \"t\": %d,\n  \"dim\": %d,\n  \"seed\": %llu,\n  \"tables\": \"%s\",\n"
            "  \"alphabet\": \"%s\",\n  \"canonical\": %s,\n  \"window\": %lld,\n  \"stride\": %lld,\n"
            "  \"anchor_k\": %d,\n  \"kind\": \"%s\",\n  \"scaled\": %lld,\n  \"min_keys\": %lld,\n"
            "  \"floor_stride\": %lld,\n"
            "  \"precision\": \"%s\",\n  \"records\": %lld,\n  \"rows\": %lld,\n"
            "  \"raw_length\": %lld,\n  \"clean_length\": %lld,\n  \"dropped\": %lld",
            p->t, p->dim, (unsigned long long)p->seed, p->tables_from_file ? "file" : "splitmix64",
            p->alphabet == TSK_PROTEIN ? "protein" : "dna", p->canonical ? "true" : "false",
            (long long)p->window, (long long)p->stride, p->anchor_k, p->scaled > 0 ? "genome" : "rows",
            (long long)p->scaled, (long long)p->min_keys, (long long)(p->scaled > 0 ? tsk_genome_floor_stride(p) : 0),
            p->precision == TSK_DOUBLE ? "double" : "single", (long long)f->n_records, (long long)f->n_rows, t.raw, t.clean, t.dropped);
    if (records) {
        fputs(",\n  \"record_list\": [", out);
        for (int64_t i = 0; i < f->n_records; i++) {
            const tsk_record_info *r = &f->records[i];
            fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
            json_string(out, r->name);
            fputs(", \"source\": ", out);
            json_string(out, r->source);
            fprintf(out, ", \"raw_length\": %lld, \"clean_length\": %lld, \"dropped\": %lld, \"first_row\": %lld, \"rows\": %lld}",
                    (long long)r->raw_len, (long long)r->clean_len, (long long)r->dropped, (long long)r->first_row,
                    (long long)r->n_rows);
        }
        fputs("\n  ]", out);
    }
    fputs("\n}\n", out);
}

static void print_text(FILE *out, const char *path, const tsk_file *f, int records)
{
    const tsk_params *p = &f->params;
    totals t = sum_records(f);
    fprintf(out, "file\t%s\nformat version\t%d\ntool version\t%s\ncommand line\t%s\n", path,
            p->scaled > 0 ? (int)TSK_GENOME_FORMAT_VERSION : TSK_FORMAT_VERSION, f->tool_version, f->command_line);
    if (p->scaled > 0)
        fprintf(out, "kind\tgenome sketches (window fingerprints; rows are keys)\nscaled\t%lld (about one window in "
                     "%lld kept)\nmin keys\t%lld (size floor: smaller genomes sample more densely)\nfloor stride\t%lld "
                     "(the floor keeps at most one window in %lld)\n",
                (long long)p->scaled, (long long)p->scaled, (long long)p->min_keys,
                (long long)tsk_genome_floor_stride(p), (long long)tsk_genome_floor_stride(p));
    else
        fprintf(out, "kind\tsketch rows\n");
    fprintf(out, "tuple length t\t%d\ndimension D\t%d\n", p->t, p->dim);
    if (p->tables_from_file) fprintf(out, "tables\tread from a file (stored in the sketch)\n");
    else fprintf(out, "seed\t%llu\n", (unsigned long long)p->seed);
    fprintf(out, "alphabet\t%s\ncanonical\t%s\n", p->alphabet == TSK_PROTEIN ? "protein" : "dna",
            p->canonical ? "yes" : "no");
    if (p->window) {
        fprintf(out, "window\t%lld\nstride\t%lld\n", (long long)p->window, (long long)p->stride);
        if (p->anchor_k) fprintf(out, "anchored windows\tk=%d (stride: their mean spacing)\n", p->anchor_k);
    } else {
        fprintf(out, "window\tnone (one sketch per record)\n");
    }
    fprintf(out, "precision\t%s\nrecords\t%lld\nrows\t%lld\nraw length\t%lld\nclean length\t%lld\ndropped\t%lld\n",
            p->precision == TSK_DOUBLE ? "double" : "single", (long long)f->n_records, (long long)f->n_rows, t.raw,
            t.clean, t.dropped);
    if (f->anchors) { /* genome sketches: what ANI is estimated from */
        long long segments = 0, anchors = 0, loose = 0;
        for (int64_t i = 0; i < f->n_records; i++)
            segments += f->anchors[i].n_segments, anchors += f->anchors[i].n_anchors, loose += f->anchors[i].n_loose;
        fprintf(out, "segment anchors\t%lld in %lld segments of %d bases, %lld outside them (for ANI)\n", anchors,
                segments, TSK_ANI_SEGMENT, loose);
    }
    if (records) {
        fputs("#name\tsource\traw_length\tclean_length\tdropped\tfirst_row\trows\n", out);
        for (int64_t i = 0; i < f->n_records; i++) {
            const tsk_record_info *r = &f->records[i];
            fprintf(out, "%s\t%s\t%lld\t%lld\t%lld\t%lld\t%lld\n", r->name, r->source, (long long)r->raw_len,
                    (long long)r->clean_len, (long long)r->dropped, (long long)r->first_row, (long long)r->n_rows);
        }
    }
}

int tsk_cmd_info(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"json", no_argument, 0, 'j'}, {"records", no_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, records = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "jrh", long_options, NULL)) != -1) {
        switch (opt) {
        case 'j': json = 1; break;
        case 'r': records = 1; break;
        case 'h': usage(stdout); return TSK_EXIT_OK;
        default: return tsk_usage_error("info");
        }
    }
    if (optind != argc - 1) {
        tsk_error("info: give exactly one .tsk file");
        return tsk_usage_error("info");
    }
    if (!strcmp(argv[optind], "-")) {
        tsk_error("info: '-': info needs a .tsk file by name (sketch files are mapped: one through a pipe or stdin "
                  "is not read)");
        return TSK_EXIT_USAGE;
    }
    char err[TSK_ERRLEN];
    int why;
    tsk_file *f = tsk_file_open_code(argv[optind], &why, err, sizeof err);
    if (!f) {
        tsk_error("%s", err);
        return why == TSK_FILE_NO_MEMORY ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
    }
    if (json) print_json(stdout, argv[optind], f, records);
    else print_text(stdout, argv[optind], f, records);
    tsk_file_close(f);
    if (fflush(stdout) || ferror(stdout)) {
        tsk_error("info: cannot write to standard output");
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}
