/* quality.h: genome quality scores for ranking (`tsketch cluster --quality`, docs/cluster.md).
 *
 * The formats the tools of the field write, told apart by the first line that is not empty or a
 * '#' comment (a UTF-8 byte order mark, CRs and blanks around fields are ignored):
 *   - a table with a header line naming a genome column, completeness and contamination (any
 *     others beside them, in any order; names matched without regard to case):
 *       CheckM2's quality_report.tsv    Name, Completeness, Contamination; with --allmodels
 *                                       Completeness_General and Completeness_Specific, the one
 *                                       its Completeness_Model_Used names
 *       CheckM1's `qa --tab_table`      Bin Id, Completeness, Contamination
 *       dRep's genomeInfo (CSV)         genome, completeness, contamination
 *     score = completeness - 5 x contamination (dRep's and galah's default weighting);
 *   - otherwise NAME<TAB>SCORE lines, with or without a header line whose score column is not a
 *     number.
 * Every value must be a finite number.
 *
 * Names match genomes as users write them: a name and a genome match when their keys are equal,
 * the key of a name being its file name without directories and without a compression extension
 * (.gz, .bgz, .bgzf) and then a sequence extension (.fa, .fna, .fasta, .fsa, ...:
 * tsk_path_stem). So `bin_1.fna` (CheckM2 drops only the last extension of `bin_1.fna.gz`),
 * `bins/bin_1.fna.gz` and `bin_1` all name the genome `bin_1`. Two names of one key are refused.
 * Knows nothing of the items. */
#ifndef TSK_QUALITY_H
#define TSK_QUALITY_H

#include <stddef.h>
#include <stdint.h>

/* One genome's line. */
typedef struct {
    const char *name;     /* as the file writes it */
    const char *key;      /* the genome name it matches (above) */
    double score;
    double completeness;  /* NAN in a NAME<TAB>SCORE file */
    double contamination; /* NAN in a NAME<TAB>SCORE file */
    int64_t line;         /* the line it came from (1-based) */
} tsk_quality_entry;

typedef enum {
    TSK_QUALITY_SCORES = 0, /* NAME<TAB>SCORE */
    TSK_QUALITY_CHECKM2,
    TSK_QUALITY_CHECKM1,
    TSK_QUALITY_DREP,
} tsk_quality_format;

typedef struct {
    int64_t n;
    tsk_quality_entry *entry; /* n entries, sorted by key (strcmp), keys unique */
    tsk_quality_format format;
    /* private */
    char *text;
} tsk_quality;

/* Reads path into q. 0; -1 with a message in err naming the file and the line (a bad line, two
 * names of one genome, a header it cannot use) or the reason it cannot be read; -2 when memory
 * runs out. */
int tsk_quality_read(const char *path, tsk_quality *q, char *err, size_t errlen);

/* The entry whose key is name's key, or -1 when the file has none. */
int64_t tsk_quality_find(const tsk_quality *q, const char *name);

/* The format's name for messages: "CheckM2 report", "NAME<TAB>SCORE file"... */
const char *tsk_quality_format_name(tsk_quality_format f);

void tsk_quality_free(tsk_quality *q);

#endif
