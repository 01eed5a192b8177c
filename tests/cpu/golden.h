/* golden.h: what the tests of tests/cpu share: a minimal FASTA reader (the real one is io/'s), the
 * golden TSV parser, batches and error measures. */
#ifndef TSK_TEST_CPU_GOLDEN_H
#define TSK_TEST_CPU_GOLDEN_H

#include <stdint.h>

#include "tsk_def.h"

/* Records of a FASTA file, cleaned with the alphabet's encoding, laid out as a tsk_batch wants. */
typedef struct {
    int64_t n_records;
    char **names;      /* first word of each header */
    uint8_t *codes;
    int64_t *offset;   /* n_records + 1 */
    int64_t *row_offset;
} test_records;

/* Reads testdata_dir/relpath (TESTDATA_DIR from meson); aborts the test on failure. */
void test_read_fasta(const char *relpath, tsk_alphabet a, test_records *r);
/* Fills r->row_offset for p and returns the batch view. */
tsk_batch test_batch(test_records *r, const tsk_params *p);
void test_records_free(test_records *r);

/* A TSV of 'name TAB v0 .. v{dim-1}' lines (skip columns after the name first). */
typedef struct {
    int64_t n_rows;
    int dim;
    char **names;
    double *values; /* n_rows * dim */
} test_tsv;

void test_read_tsv(const char *relpath, int skip, test_tsv *t);
void test_tsv_free(test_tsv *t);

/* Hash/sign tables from a 'h LEVEL v...' / 's LEVEL v...' file into p (the format of the
 * reference vectors); sets p->tables_from_file. */
void test_read_tables(const char *relpath, tsk_params *p);

/* ||a - b|| / ||b||, or ||a - b|| when b is all zeros. */
double test_rel_err(const double *a, const double *b, int64_t n);

/* n pseudo-random codes in [0, alphabet) from seed (an LCG: the same input on every machine);
 * malloc'd with one spare byte. */
uint8_t *test_random_codes(int64_t n, int alphabet, unsigned seed);

/* Full path of a file in testdata/ (static buffer). */
const char *test_path(const char *relpath);

#endif
