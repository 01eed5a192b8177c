/* links_file.h: the pairs of a `tsketch dist` TSV read back as items, for `cluster --links`: the
 * parts that `dist -d D --block I/N` wrote on other machines (docs/cluster.md, "Clusters from
 * distance parts").
 *
 * A line is NAME TAB NAME TAB DISTANCE, then SHARED TAB TOTAL for genome sketches, then ANI TAB AF
 * with `dist --ani` (NA TAB NA where there is no estimate): 3, 5 or 7 columns. A first line that is
 * dist's header (`--header`) is skipped, and so are empty lines. Files are plain, gzip or BGZF;
 * "-" is standard input. Names are found through a tsk_name_index. An unknown name, a distance that
 * is not a finite number or a line of another shape is an error naming the file and the line.
 * Knows nothing of engines or clustering. */
#ifndef TSK_LINKS_FILE_H
#define TSK_LINKS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "name_index.h"

/* One line. */
typedef struct {
    int64_t a, b;  /* the items the line names, in its order */
    float dist;    /* the distance: dist prints nine significant digits, so this is its float exactly */
    double af;     /* the AF column as written (4 decimals), NAN where NA or absent */
    int64_t line;  /* 1-based */
} tsk_link_line;

/* Reads path, handing its lines to take in chunks (take returns 0, or -1 to stop). need_af: every
 * line must have the AF column (7 columns). Returns 0, or -1 with a message in err ("FILE: line N:
 * ..."; "FILE: stopped" when take stopped it, whose own message says why). */
int tsk_links_read(const char *path, const tsk_name_index *names, int need_af,
                   int (*take)(void *ctx, const tsk_link_line *l, int64_t n), void *ctx, char *err, size_t errlen);

#endif
