/* cluster_outputs.c: galah's and dRep's layouts of cluster's table (cluster_outputs.h). */
#include "cluster_outputs.h"

#include <math.h>
#include <string.h>

int tsk_cluster_format_parse(const char *word, tsk_cluster_format *f)
{
    static const char *const words[] = {"tsv", "galah", "cdb", "wdb"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(word, words[i])) {
            *f = (tsk_cluster_format)i;
            return 0;
        }
    return -1;
}

/* A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break, as the
 * readers of dRep's tables (pandas) expect. */
static void put_csv(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* dRep names secondary clusters PRIMARY_SECONDARY; tsketch clusters at one level, so each
 * cluster is its own primary cluster with one secondary cluster, C_1. */
static void put_secondary(FILE *out, int64_t cluster) { fprintf(out, "%lld_1", (long long)cluster); }

static void put_number(FILE *out, double x) { fprintf(out, "%.10g", x); }

int tsk_cluster_write_format(FILE *out, const tsk_cluster_view *v, tsk_cluster_format f)
{
    const tsk_clustering *cl = v->cl;
    if (f == TSK_CLUSTER_CDB) fputs("genome,secondary_cluster,threshold,cluster_method,comparison_algorithm,primary_cluster\n", out);
    if (f == TSK_CLUSTER_WDB) fputs("genome,cluster,score\n", out);
    for (int64_t i = 0; i < v->n_lines && !ferror(out); i++) {
        const int64_t r = v->line[i], item = v->order[r], rep = v->order[cl->rep[r]];
        switch (f) {
        case TSK_CLUSTER_GALAH:
            fprintf(out, "%s\t%s\n", v->names[rep], v->names[item]);
            break;
        case TSK_CLUSTER_CDB:
            put_csv(out, v->names[item]);
            fputc(',', out);
            put_secondary(out, v->cluster_of[r]);
            fputc(',', out);
            put_number(out, v->max_dist);
            fprintf(out, ",%s,tsketch,%lld\n", v->method, (long long)v->cluster_of[r]);
            break;
        case TSK_CLUSTER_WDB:
            if (cl->rep[r] != (uint32_t)r) break;
            put_csv(out, v->names[item]);
            fputc(',', out);
            put_secondary(out, v->cluster_of[r]);
            fputc(',', out);
            if (v->score && !isnan(v->score[item])) put_number(out, v->score[item]);
            fputc('\n', out);
            break;
        case TSK_CLUSTER_TSV: break;
        }
    }
    return ferror(out) ? -1 : 0;
}
