/* tables_file.h: hash and sign tables read from a text file (--tables), so that tsketch can
 * reproduce sketches made with other tables (the authors' reference vectors, another tool).
 *
 * Format (docs/format.md, "Tables file"): one item per line, '#' starts a comment line, blank
 * lines are skipped.
 *     A 4                 alphabet size (optional; must match)
 *     t 3                 tuple length (optional; must match)
 *     D 16                dimension (optional; must match)
 *     h LEVEL v0 .. vA-1  hash values of level LEVEL (0-based), one per character code, in [0, D)
 *     s LEVEL v0 .. vA-1  sign values of level LEVEL, each +1 or -1
 * Every level 0 .. t-1 needs exactly one 'h' and one 's' line. */
#ifndef TSK_TABLES_FILE_H
#define TSK_TABLES_FILE_H

#include <stddef.h>

#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the tables of path into p->hash / p->sign. p->t, p->dim and p->alphabet must be set
 * before. On success zeroes the unused table entries, sets p->tables_from_file = 1 and returns 0
 * (p->seed is left as it is, and means nothing for these tables). On failure returns -1 with a
 * message naming the file and line ("t.txt:4: hash value 16 outside [0, 16)", "t.txt: 't 3' in
 * the file but t is 4") and leaves p unchanged. */
int tsk_tables_read(tsk_params *p, const char *path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
