/* feed.c: see feed.h. */
#include "feed.h"

#include "io_error.h"
#include "seqio.h"

#include <stdint.h>

int tsk_feed_file(const char *path, const char *name, const tsk_feed_opts *o, tsk_batcher **cur, char *err,
                  size_t errlen)
{
    int code = TSK_IO_BAD;
    tsk_reader *r = tsk_reader_open_par(path, o->threads, (*cur)->lut, o->range_bytes, &code, err, errlen);
    if (!r) return code;
    tsk_seq_piece pc;
    int rc, first = 1;
    unsigned pieces = 0;
    while ((rc = tsk_reader_next_piece(r, &pc, err, errlen)) == TSK_IO_RECORD) {
        /* a piece joins the last record when it continues it, or for --per-file after the first */
        int join = !pc.starts_record || (name && !first);
        tsk_batcher *b = *cur;
        if (!join && tsk_batcher_full(b)) {
            tsk_reader_sync(r); /* the batch is complete when its copies are */
            if (!(b = *cur = o->swap(o->ctx))) {
                rc = TSK_IO_EOF;
                break;
            }
        }
        const char *rec_name = name ? name : pc.name;
        int failed;
        if (pc.codes) {
            /* the parallel reader's workers copy the codes into the batch */
            if (!tsk_batcher_codes_fit(b, pc.n_codes)) tsk_reader_sync(r); /* the codes are about to move */
            uint8_t *dst = tsk_batcher_add_later(b, rec_name, path, pc.n_codes, pc.raw_len, join);
            if (dst) tsk_reader_copy_codes(r, pc.codes, pc.n_codes, dst);
            failed = !dst;
        } else {
            failed = tsk_batcher_add_text(b, rec_name, path, pc.text, pc.text_len, pc.raw_len, join);
        }
        if (failed) {
            tsk_io_set_err(err, errlen, "%s: out of memory", path);
            rc = TSK_IO_SYSTEM;
            break;
        }
        first = 0;
        /* now and then (a batch handed over asks anyway): a lock per short read would cost */
        if (o->stopped && ++pieces % 1024 == 0 && o->stopped(o->ctx)) {
            rc = TSK_IO_EOF;
            break;
        }
    }
    tsk_reader_sync(r); /* *cur is complete when the caller gets it back */
    tsk_reader_close(r);
    return rc;
}
