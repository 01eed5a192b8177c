/* encode.h: sequence text -> alphabet codes, the cleaning step of every reader path.
 *
 * One function shared by the batcher (which encodes the sequential reader's text as it appends a
 * record) and the parallel FASTA parser (whose workers encode their own byte ranges), so that both
 * paths clean byte for byte alike. Equal to tsk_encode (core/) in result; faster for DNA. */
#ifndef TSK_ENCODE_H
#define TSK_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* 1 when lut (tsk_encode_table) is DNA's table exactly, so tsk_encode_text may use its vectorized
 * DNA encoder (checked byte by byte, not assumed from the alphabet). */
int tsk_lut_is_plain_dna(const uint8_t lut[256]);

/* Cleans text[0..len) into codes (room for len bytes; line breaks and other bytes outside the
 * alphabet are dropped like any other). Returns the number of codes. plain_dna: the value of
 * tsk_lut_is_plain_dna(lut). */
size_t tsk_encode_text(const uint8_t lut[256], int plain_dna, const char *text, size_t len, uint8_t *codes);

/* Occurrences of c in p[0..n). */
size_t tsk_count_byte(const char *p, size_t n, char c);

/* Bytes of p[0..n) other than '\n' and '\r': a record's raw length as the readers count it. */
size_t tsk_count_raw(const char *p, size_t n);

#endif
