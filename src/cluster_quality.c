/* cluster_quality.c: scores, filters and the missing-genome policy before cluster ranks
 * (cluster_quality.h). */
#include "cluster_quality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tsk_def.h"
#include "../io/quality.h"
#include "cli.h"

int tsk_missing_policy_parse(const char *word, tsk_missing_policy *p)
{
    static const char *const words[] = {"error", "last", "drop"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(word, words[i])) {
            *p = (tsk_missing_policy)i;
            return 0;
        }
    return -1;
}

/* Why filtered, counted for the note. */
typedef struct {
    int64_t completeness, contamination, length, missing;
} filter_counts;

/* The tier of an item with quality entry e (NULL: the file does not name it). */
static unsigned char tier_of(const tsk_quality_rules *r, const tsk_quality_entry *e, int64_t length, filter_counts *why)
{
    if (r->min_length > 0 && length < r->min_length) return why->length++, TSK_TIER_FILTERED;
    if (r->path && !e) {
        if (r->missing == TSK_MISSING_DROP) return why->missing++, TSK_TIER_FILTERED;
        return TSK_TIER_UNSCORED;
    }
    if (e && r->have_min_completeness && !(e->completeness >= r->min_completeness))
        return why->completeness++, TSK_TIER_FILTERED;
    if (e && r->have_max_contamination && !(e->contamination <= r->max_contamination))
        return why->contamination++, TSK_TIER_FILTERED;
    return TSK_TIER_SCORED;
}

static void note_filtered(const tsk_quality_rules *r, const filter_counts *w)
{
    const int64_t total = w->completeness + w->contamination + w->length + w->missing;
    if (!total) return;
    char why[512] = "";
    size_t len = 0;
    if (w->length)
        len += (size_t)snprintf(why + len, sizeof why - len, "%s%lld shorter than %lld bases", len ? ", " : "",
                                (long long)w->length, (long long)r->min_length);
    if (w->completeness)
        len += (size_t)snprintf(why + len, sizeof why - len, "%s%lld below %g %% completeness", len ? ", " : "",
                                (long long)w->completeness, r->min_completeness);
    if (w->contamination)
        len += (size_t)snprintf(why + len, sizeof why - len, "%s%lld above %g %% contamination", len ? ", " : "",
                                (long long)w->contamination, r->max_contamination);
    if (w->missing)
        snprintf(why + len, sizeof why - len, "%s%lld not in %s (--missing-quality drop)", len ? ", " : "",
                 (long long)w->missing, r->path);
    tsk_note("cluster: %lld genomes filtered out and left out of the outputs: %s", (long long)total, why);
}

int tsk_cluster_quality(const tsk_quality_rules *r, int64_t n, const char *const *names, const int64_t *length,
                        double *score, unsigned char *tier)
{
    filter_counts why = {0};
    if (!r->path) {
        for (int64_t i = 0; i < n; i++) score[i] = 0, tier[i] = tier_of(r, NULL, length[i], &why);
        note_filtered(r, &why);
        return TSK_EXIT_OK;
    }
    tsk_quality q;
    char err[TSK_ERRLEN];
    const int read = tsk_quality_read(r->path, &q, err, sizeof err);
    if (read) {
        tsk_error("%s", err);
        return read == -2 ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
    }
    int rc = TSK_EXIT_OK;
    if (q.format == TSK_QUALITY_SCORES && (r->have_min_completeness || r->have_max_contamination)) {
        tsk_error("%s: --min-completeness and --max-contamination need completeness and contamination columns "
                  "(CheckM2, CheckM1 or dRep's genomeInfo), and this is a %s",
                  r->path, tsk_quality_format_name(q.format));
        rc = TSK_EXIT_USAGE;
    }
    unsigned char *used = calloc((size_t)(q.n ? q.n : 1), 1);
    if (!used && rc == TSK_EXIT_OK) {
        tsk_error("out of memory");
        rc = TSK_EXIT_RUNTIME;
    }
    for (int64_t i = 0; i < n && rc == TSK_EXIT_OK; i++) {
        const int64_t e = tsk_quality_find(&q, names[i]);
        score[i] = e >= 0 ? q.entry[e].score : 0;
        if (e >= 0) used[e] = 1;
        tier[i] = tier_of(r, e >= 0 ? &q.entry[e] : NULL, length[i], &why);
        if (e >= 0 || r->missing != TSK_MISSING_ERROR || tier[i] == TSK_TIER_FILTERED) continue;
        tsk_error("%s: no score for '%s' (every input needs one, or give --missing-quality last or drop; the %s "
                  "has %lld names, matched without directories and sequence extensions)",
                  r->path, names[i], tsk_quality_format_name(q.format), (long long)q.n);
        rc = TSK_EXIT_INPUT;
    }
    int64_t unused = 0, unscored = 0;
    for (int64_t e = 0; rc == TSK_EXIT_OK && e < q.n; e++) unused += !used[e];
    for (int64_t i = 0; rc == TSK_EXIT_OK && i < n; i++) unscored += tier[i] == TSK_TIER_UNSCORED;
    if (unused) tsk_note("%s: %lld names not among the inputs", r->path, (long long)unused);
    if (unscored)
        tsk_note("%s: %lld genomes without a line, ranked after those with one (--missing-quality last)", r->path,
                 (long long)unscored);
    if (rc == TSK_EXIT_OK) note_filtered(r, &why);
    free(used);
    tsk_quality_free(&q);
    return rc;
}
