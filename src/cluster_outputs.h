/* cluster_outputs.h: cluster's table in the layouts dRep and galah users read (`--format`,
 * docs/cluster.md, "Output formats"): galah's cluster definition and dRep's Cdb.csv and Wdb.csv.
 * The default layout (tsv) stays with the command; these take the same clustering and its output
 * order and only lay it out otherwise. */
#ifndef TSK_CLUSTER_OUTPUTS_H
#define TSK_CLUSTER_OUTPUTS_H

#include <stdint.h>
#include <stdio.h>

#include "../core/cluster.h"

typedef enum {
    TSK_CLUSTER_TSV = 0, /* genome TAB cluster TAB representative TAB distance (the command's own) */
    TSK_CLUSTER_GALAH,   /* representative TAB member, a line a genome (the representative with itself) */
    TSK_CLUSTER_CDB,     /* dRep's Cdb.csv: genome,secondary_cluster,threshold,cluster_method,
                            comparison_algorithm,primary_cluster */
    TSK_CLUSTER_WDB,     /* dRep's Wdb.csv: genome,cluster,score, a line a representative */
} tsk_cluster_format;

/* "tsv", "galah", "cdb" or "wdb" into *f: 0, or -1 for any other word. */
int tsk_cluster_format_parse(const char *word, tsk_cluster_format *f);

/* A finished clustering as the command writes it. */
typedef struct {
    int64_t n_lines;           /* the lines written: line[0..n_lines) */
    const char *const *names;  /* by item (input index) */
    const int64_t *order;      /* rank -> item */
    const tsk_clustering *cl;  /* by rank */
    const int64_t *cluster_of; /* by rank: the 1-based cluster number */
    const int64_t *line;       /* ranks in output order (by cluster, the representative first) */
    const double *score;       /* by item: the quality score, NAN or NULL for none (Wdb's column empty) */
    double max_dist;           /* -d: Cdb's threshold column */
    const char *method;        /* "greedy" or "single": Cdb's cluster_method column */
} tsk_cluster_view;

/* Writes v in format f (not TSK_CLUSTER_TSV) to out; header: Cdb and Wdb always have theirs (dRep
 * writes one), galah's file never has one. Returns 0, or -1 when a write fails (ferror(out)). */
int tsk_cluster_write_format(FILE *out, const tsk_cluster_view *v, tsk_cluster_format f);

#endif
