/* fuzz_links.c: the links reader (io/links_file.c, cluster --links) on any bytes, plain or gzip.
 * The first byte's low bit asks for the AF column; the rest is the file, read against four names.
 * Every line handed on must name items of the index, carry a finite distance and an AF in [0, 1]
 * or NaN, and count up; a refused file must say why. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../core/tsk_def.h"
#include "../../io/links_file.h"
#include "../../io/name_index.h"
#include "fuzz_util.h"

static const char *const NAMES[] = {"g1", "g2", "a b", "x"};

static int check(void *ctx, const tsk_link_line *l, int64_t n)
{
    int64_t *last = ctx;
    for (int64_t i = 0; i < n; i++) {
        if (l[i].a < 0 || l[i].a > 3 || l[i].b < 0 || l[i].b > 3 || !isfinite(l[i].dist) || l[i].line <= *last ||
            (!isnan(l[i].af) && !(l[i].af >= 0 && l[i].af <= 1)))
            abort();
        *last = l[i].line;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static tsk_name_index *names;
    int64_t a, b;
    if (!names && tsk_name_index_build(NAMES, 4, &names, &a, &b)) abort();
    const char *path = fuzz_input_file(data + 1, size - 1);
    char err[TSK_ERRLEN] = "";
    int64_t last = 0;
    if (tsk_links_read(path, names, data[0] & 1, check, &last, err, sizeof err) && !err[0]) abort();
    return 0;
}
