/* cluster_quality.h: what cluster knows of each genome's quality before it ranks them
 * (docs/cluster.md, "Ranking" and "Filters"): the score of --quality, dRep's filters
 * (--min-completeness, --max-contamination, --min-length), and the policy for genomes the quality
 * file does not name (--missing-quality).
 *
 * Each item gets a tier: ranked by score (0), without a score and ranked after the scored ones
 * (1, --missing-quality last), or filtered out (2: ranked last, linked to nothing, left out of
 * the outputs). */
#ifndef TSK_CLUSTER_QUALITY_H
#define TSK_CLUSTER_QUALITY_H

#include <stdint.h>

typedef enum {
    TSK_MISSING_ERROR = 0, /* a genome the file does not name is an error (exit 3) */
    TSK_MISSING_LAST,      /* ranked after every genome the file names (by length, then input order) */
    TSK_MISSING_DROP,      /* filtered out */
} tsk_missing_policy;

enum { TSK_TIER_SCORED = 0, TSK_TIER_UNSCORED = 1, TSK_TIER_FILTERED = 2 };

/* The command line's quality options. */
typedef struct {
    const char *path;         /* --quality FILE, or NULL */
    double min_completeness;  /* --min-completeness, used when have_min_completeness */
    double max_contamination; /* --max-contamination, used when have_max_contamination */
    int have_min_completeness, have_max_contamination;
    int64_t min_length;       /* --min-length: cleaned bases; 0: none */
    tsk_missing_policy missing;
} tsk_quality_rules;

/* "error", "last" or "drop" into *p: 0, or -1 for any other word. */
int tsk_missing_policy_parse(const char *word, tsk_missing_policy *p);

/* score[i] (the quality score, 0 where an item has none) and tier[i] of n items named names[i]
 * with lengths length[i]; a note counts the items filtered out, by reason, and the file's names
 * that match no item. Returns TSK_EXIT_OK, or an exit code after the message: 3 for a bad file or
 * an item without a score (TSK_MISSING_ERROR), 2 for completeness filters on a file without
 * completeness (NAME<TAB>SCORE), 1 when memory runs out. */
int tsk_cluster_quality(const tsk_quality_rules *r, int64_t n, const char *const *names, const int64_t *length,
                        double *score, unsigned char *tier);

#endif
