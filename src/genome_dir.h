/* genome_dir.h: the genome files of a directory, as galah's --genome-fasta-directory and dRep's
 * a glob of `-g` take them (`cluster --genome-dir DIR [-x EXT]`, docs/cluster.md). */
#ifndef TSK_GENOME_DIR_H
#define TSK_GENOME_DIR_H

#include <stddef.h>

/* The files of dir (not its subdirectories) whose names end in "." ext (ext without its leading
 * dot; letters in any case: -x fna takes X.FNA), or with ext NULL those that end in a sequence
 * extension, compressed or not (.fa, .fna.gz...: what tsk_path_stem drops), as "dir/name", sorted
 * by name (strcmp). *paths is malloc'd, each path too (tsk_genome_dir_free). Returns 0; -1 with a
 * message in err naming dir: it cannot be read, no file matches, or memory runs out. */
int tsk_genome_dir_list(const char *dir, const char *ext, char ***paths, size_t *n, char *err, size_t errlen);

void tsk_genome_dir_free(char **paths, size_t n);

#endif
