/* write_samples.c: writes a small .tsk and .npy with known contents into DIR, for
 * check_format.py to read as a third party would (docs/format.md only). */
#include <stdio.h>
#include <string.h>

#include "../../io/npy.h"
#include "../../io/seqio.h"
#include "../../io/tsk_file.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: write_samples DIR\n");
        return 2;
    }
    char path[4096], err[TSK_ERRLEN];
    tsk_params p;
    tsk_params_default(&p);
    p.t = 3;
    p.dim = 5;
    p.seed = 99;
    p.window = 4;
    p.stride = 2;
    tsk_tables_draw(&p);
    snprintf(path, sizeof path, "%s/sample.tsk", argv[1]);
    tsk_writer *w = tsk_writer_open(path, &p, "test", "write_samples", err, sizeof err);
    if (!w) goto fail;
    /* value of row r, column j: r + j / 8 (exact in float32) */
    float rows[8 * 5];
    for (int r = 0; r < 8; r++)
        for (int j = 0; j < 5; j++) rows[r * 5 + j] = (float)r + (float)j / 8.0f;
    tsk_record_info a = {"alpha", "in/a.fa", 9, 7, 2, 0, 3}, b = {"beta", "in/b.fq.gz", 1, 1, 0, 0, 0},
                    c = {"gamma", "in/b.fq.gz", 10, 10, 0, 0, 5};
    if (tsk_writer_add(w, &a, rows, err, sizeof err) || tsk_writer_add(w, &b, rows, err, sizeof err) ||
        tsk_writer_add(w, &c, rows + 15, err, sizeof err) || tsk_writer_finish(w, err, sizeof err))
        goto fail;
    snprintf(path, sizeof path, "%s/sample.npy", argv[1]);
    tsk_npy_writer *n = tsk_npy_open(path, 8, 5, 4, err, sizeof err);
    if (!n || tsk_npy_append(n, rows, 8, err, sizeof err) || tsk_npy_finish(n, err, sizeof err)) goto fail;
    return 0;
fail:
    fprintf(stderr, "write_samples: %s\n", err);
    return 1;
}
