/* representative_dir.h: cluster's representatives as files (`--representative-dir DIR`,
 * docs/cluster.md): one symbolic link a representative, named as its FASTA file and pointing to
 * its absolute path (galah's --output-representative-fasta-directory), or a copy (`--copy`, dRep's
 * dereplicated_genomes/).
 *
 * The directory is made complete or not at all: it is checked and a temporary directory beside it
 * made when the command starts (DIR must not exist, or be an empty directory), filled at the end,
 * and renamed into place; a failure removes what was made. */
#ifndef TSK_REPRESENTATIVE_DIR_H
#define TSK_REPRESENTATIVE_DIR_H

#include <stddef.h>

typedef struct tsk_rep_dir tsk_rep_dir;

/* Checks dir and makes the temporary directory beside it: NULL with a message in err naming dir
 * and the reason (it exists and is not an empty directory, its parent is missing or not
 * writable, out of memory). */
tsk_rep_dir *tsk_rep_dir_open(const char *dir, int copy, char *err, size_t errlen);

/* Adds the FASTA file at path (as the command line gave it): a link to its absolute path, or a
 * copy. 0, or -1 with a message (two representatives of one file name, a failed link or copy). */
int tsk_rep_dir_add(tsk_rep_dir *d, const char *path, char *err, size_t errlen);

/* Renames the directory into place and frees d. 0, or -1 with a message (d removed). */
int tsk_rep_dir_commit(tsk_rep_dir *d, char *err, size_t errlen);

/* Removes the temporary directory and what it holds, and frees d; NULL is allowed. */
void tsk_rep_dir_abort(tsk_rep_dir *d);

#endif
