/* quality.h: genome quality scores for ranking (`tsketch cluster --quality`, docs/cluster.md).
 *
 * Two formats, told apart by the first line that is not empty or a '#' comment:
 *   - CheckM2's quality_report.tsv: a header line with the columns Name, Completeness and
 *     Contamination (anywhere among others); score = Completeness - 5 x Contamination;
 *   - otherwise NAME<TAB>SCORE lines.
 * Every score must be a finite number and every name unique. Knows nothing of the items. */
#ifndef TSK_QUALITY_H
#define TSK_QUALITY_H

#include <stddef.h>
#include <stdint.h>

/* One genome's score. */
typedef struct {
    const char *name;
    double score;
    int64_t line;        /* the line it came from (1-based) */
} tsk_quality_entry;

typedef struct {
    int64_t n;
    tsk_quality_entry *entry; /* n entries, sorted by name (strcmp), names unique */
    int checkm2;         /* the file was a CheckM2 report */
    /* private */
    char *text;
} tsk_quality;

/* Reads path into q. 0; -1 with a message in err naming the file and the line (a bad line, a
 * name given twice) or the reason it cannot be read; -2 when memory runs out. */
int tsk_quality_read(const char *path, tsk_quality *q, char *err, size_t errlen);

/* The score of name, or NULL when the file has none. */
const double *tsk_quality_find(const tsk_quality *q, const char *name);

void tsk_quality_free(tsk_quality *q);

#endif
