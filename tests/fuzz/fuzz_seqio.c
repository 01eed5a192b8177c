/* fuzz_seqio.c: the FASTA/FASTQ reading path of `tsketch sketch` on any bytes: io/seqio.c (plain,
 * gzip, BGZF; the fast plain-FASTA path and the parallel one) as io/feed.c calls it, then
 * tsk_feed_file itself, records into batches.
 *
 * The first byte picks the way of reading, the rest is the file: byte % 3 the parse threads (1, 2
 * or 4, over 64-byte ranges so that small inputs have range borders), then one bit each for
 * --per-file (the file one record), small batches (handed over between records) and the protein
 * alphabet. Every piece must be consistent (names NUL-terminated at their lengths, raw lengths
 * those of the text, codes in the alphabet), the batches must hold what the pieces held, and both
 * must end alike, with EOF or the same error message; never a crash or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/tsk_def.h"
#include "../../io/batcher.h"
#include "../../io/encode.h"
#include "../../io/feed.h"
#include "../../io/seqio.h"
#include "fuzz_util.h"

typedef struct {
    int64_t records, codes; /* of the pieces, or of the batches */
} tally;

/* Reads path piece by piece as feed.c does, checking each. Returns the reader's answer. */
static int drain_pieces(const char *path, int threads, const uint8_t lut[256], int sigma, tally *t, char *err,
                        size_t errlen)
{
    int code = 0;
    tsk_reader *r = tsk_reader_open_par(path, threads, lut, 64, &code, err, errlen);
    if (!r) {
        if (code != TSK_IO_BAD && code != TSK_IO_SYSTEM) abort();
        return code;
    }
    tsk_seq_piece pc;
    uint8_t *dst = NULL;
    int rc;
    while ((rc = tsk_reader_next_piece(r, &pc, err, errlen)) == TSK_IO_RECORD) {
        if (pc.name[pc.name_len]) abort(); /* NUL-terminated at the stated length (a NUL of the file may end it early) */
        t->records += pc.starts_record;
        if (pc.codes) {
            uint8_t *d = realloc(dst, pc.n_codes + 1);
            if (!d) abort();
            dst = d;
            tsk_reader_copy_codes(r, pc.codes, pc.n_codes, dst);
            tsk_reader_sync(r);
            for (size_t i = 0; i < pc.n_codes; i++)
                if (dst[i] >= sigma) abort(); /* cleaned codes only */
            if (pc.n_codes > pc.raw_len) abort();
            t->codes += (int64_t)pc.n_codes;
        } else {
            if (tsk_count_raw(pc.text, pc.text_len) != pc.raw_len) abort();
            uint8_t *d = realloc(dst, pc.text_len + 1);
            if (!d) abort();
            dst = d;
            t->codes += (int64_t)tsk_encode(lut, pc.text, pc.text_len, dst);
        }
    }
    tsk_reader_sync(r);
    free(dst);
    tsk_reader_close(r);
    return rc;
}

typedef struct {
    tsk_batcher b;
    tally t;
} feed_ctx;

/* Checks the full batch, counts it and empties it for the next records. */
static tsk_batcher *check_batch(void *arg)
{
    feed_ctx *c = arg;
    tsk_batcher *b = &c->b;
    const tsk_batch batch = tsk_batcher_batch(b);
    const int sigma = tsk_alphabet_size(b->params.alphabet);
    if (batch.offset[0] != 0) abort();
    for (int64_t r = 0; r < batch.n_records; r++) {
        const tsk_record_info *in = &b->info[r];
        const int64_t len = tsk_batch_len(&batch, r);
        if (len < 0 || in->clean_len != len || in->raw_len < len || in->dropped != in->raw_len - len) abort();
        if (!in->source[0]) abort();
        for (int64_t i = batch.offset[r]; i < batch.offset[r + 1]; i++)
            if (batch.codes[i] >= sigma) abort(); /* cleaned codes only */
    }
    c->t.records += batch.n_records;
    c->t.codes += batch.offset[batch.n_records];
    tsk_batcher_reset(b);
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const int threads_of[] = {1, 2, 4};
    const int mode = data[0], threads = threads_of[mode % 3];
    const char *name = (mode / 3) & 1 ? "joined" : NULL;
    const char *path = fuzz_input_file(data + 1, size - 1);
    tsk_params p;
    tsk_params_default(&p);
    if ((mode / 12) & 1) p.alphabet = TSK_PROTEIN;
    const int sigma = tsk_alphabet_size(p.alphabet);

    feed_ctx c = {0};
    tsk_batcher_init(&c.b, &p);
    tally pieces = {0, 0};
    char err_pieces[TSK_ERRLEN] = "", err[TSK_ERRLEN] = "";
    const int rc_pieces = drain_pieces(path, threads, c.b.lut, sigma, &pieces, err_pieces, sizeof err_pieces);
    if (rc_pieces != TSK_IO_EOF && !err_pieces[0]) abort(); /* a failure always says why */

    if ((mode / 6) & 1) {
        c.b.max_records = 2;
        c.b.max_bases = 64;
    }
    tsk_feed_opts opts = {threads, 64, check_batch, NULL, &c};
    tsk_batcher *cur = &c.b;
    const int rc = tsk_feed_file(path, name, &opts, &cur, err, sizeof err);
    if (rc != rc_pieces || strcmp(err, err_pieces)) abort(); /* the same end, the same message */
    if (rc == TSK_IO_EOF) {
        check_batch(&c);
        /* every piece in the batches: --per-file makes the file one record */
        if (c.t.codes != pieces.codes || c.t.records != (name ? pieces.records > 0 : pieces.records)) abort();
    }
    tsk_batcher_free(&c.b);
    return 0;
}
