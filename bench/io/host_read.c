/* host_read.c: the reader thread's work alone (open, parse, clean into batches), no engine and
 * no writer, to measure the host side's ceiling. Built by bench/host_pipeline.sh against a build
 * directory's io/ and core/ libraries.
 * Usage: host_read FILE...   prints bytes, records, bases, seconds and MB/s per file.
 * Built with -DHOST_READ_OLD_API against a tree from before tsk_reader_next_text (copying reader). */
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "../../io/batcher.h"
#include "../../io/seqio.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    tsk_params p;
    tsk_params_default(&p);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) return 1;
        tsk_batcher b;
        tsk_batcher_init(&b, &p);
        b.max_bases = INT64_C(1) << 24; /* as src/pipeline.c */
        char err[TSK_ERRLEN];
        int code;
        double t0 = now();
        tsk_reader *r = tsk_reader_open(argv[i], &code, err, sizeof err);
        if (!r) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        tsk_seq_record rec;
        size_t text_len = 0;
        long long bases = 0;
        int rc;
#ifdef HOST_READ_OLD_API
        while ((rc = tsk_reader_next(r, &rec, err, sizeof err)) == TSK_IO_RECORD) {
            text_len = rec.len;
#else
        while ((rc = tsk_reader_next_text(r, &rec, &text_len, err, sizeof err)) == TSK_IO_RECORD) {
#endif
            if (tsk_batcher_full(&b)) {
                tsk_batch batch = tsk_batcher_batch(&b);
                bases += batch.offset[batch.n_records];
                tsk_batcher_reset(&b);
            }
#ifdef HOST_READ_OLD_API
            if (tsk_batcher_add(&b, rec.name, argv[i], rec.seq, rec.len, 0)) return 1;
#else
            if (tsk_batcher_add_text(&b, rec.name, argv[i], rec.seq, text_len, rec.len, 0)) return 1;
#endif
        }
        if (rc < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        tsk_batch batch = tsk_batcher_batch(&b);
        bases += batch.offset[batch.n_records];
        double dt = now() - t0;
        printf("%s\t%lld bytes\t%lld records\t%lld bases\t%.3f s\t%.0f MB/s\n", argv[i], (long long)st.st_size,
               (long long)tsk_reader_count(r), bases, dt, st.st_size / dt / 1e6);
        tsk_reader_close(r);
        tsk_batcher_free(&b);
    }
    return 0;
}
