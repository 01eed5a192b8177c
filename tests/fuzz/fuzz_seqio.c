/* fuzz_seqio.c: the FASTA/FASTQ reader (io/seqio.c, plain, gzip, BGZF; the fast plain-FASTA path
 * and the parallel one) on any bytes. The first byte picks the way of reading, the rest is the
 * file. Every record must come out with consistent lengths; the reader must end with EOF or an
 * error message, never crash or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/tsk_def.h"
#include "../../io/seqio.h"
#include "fuzz_util.h"

static void drain_records(tsk_reader *r)
{
    char err[TSK_ERRLEN];
    tsk_seq_record rec;
    int rc;
    volatile size_t sum = 0;
    while ((rc = tsk_reader_next(r, &rec, err, sizeof err)) == TSK_IO_RECORD) {
        /* NUL-terminated at the stated lengths (a NUL byte of the file may end a name early) */
        if (rec.name[rec.name_len] || rec.seq[rec.len]) abort();
        for (size_t i = 0; i < rec.len; i++) sum += (unsigned char)rec.seq[i]; /* every byte readable */
    }
    (void)sum;
    if (rc != TSK_IO_EOF && !err[0]) abort(); /* a failure always says why */
}

static void drain_pieces(tsk_reader *r)
{
    char err[TSK_ERRLEN];
    tsk_seq_piece pc;
    uint8_t *dst = NULL;
    int rc;
    while ((rc = tsk_reader_next_piece(r, &pc, err, sizeof err)) == TSK_IO_RECORD) {
        if (pc.name[pc.name_len]) abort();
        if (pc.codes) {
            uint8_t *d = realloc(dst, pc.n_codes + 1);
            if (!d) abort();
            dst = d;
            tsk_reader_copy_codes(r, pc.codes, pc.n_codes, dst);
            tsk_reader_sync(r);
            for (size_t i = 0; i < pc.n_codes; i++)
                if (dst[i] >= 4) abort(); /* cleaned DNA codes only */
        }
    }
    tsk_reader_sync(r);
    free(dst);
    if (rc != TSK_IO_EOF && !err[0]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const int mode = data[0] % 3;
    const char *path = fuzz_input_file(data + 1, size - 1);
    char err[TSK_ERRLEN];
    int code = 0;
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    tsk_reader *r = mode == 0 ? tsk_reader_open(path, &code, err, sizeof err)
                              : tsk_reader_open_par(path, mode == 1 ? 1 : 3, lut, 64, &code, err, sizeof err);
    if (!r) {
        if (!err[0]) abort();
        return 0;
    }
    if (mode == 0) drain_records(r);
    else drain_pieces(r);
    tsk_reader_close(r);
    return 0;
}
