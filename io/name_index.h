/* name_index.h: items found by their names (a hash table over a set's names), for inputs that name
 * items in text: the pair lists `cluster --links` reads back (io/links_file.h).
 *
 * Names must be unique: a name that two items carry could not say which of them a line means, so
 * building the index reports the first such pair instead. Knows nothing of the items beyond their
 * names. */
#ifndef TSK_NAME_INDEX_H
#define TSK_NAME_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct tsk_name_index tsk_name_index;

/* Indexes names[0..n) (kept by reference: they must outlive the index). Returns 0 with *out set;
 * -1 when memory runs out; -2 when two items share a name, with *dup_a < *dup_b those items (the
 * first such pair in input order). */
int tsk_name_index_build(const char *const *names, int64_t n, tsk_name_index **out, int64_t *dup_a, int64_t *dup_b);

/* The item named by name[0..len) (not NUL-terminated), or -1 when none is. */
int64_t tsk_name_index_find(const tsk_name_index *x, const char *name, size_t len);

void tsk_name_index_free(tsk_name_index *x);

#endif
