/* fuzz_tables.c: the tables file reader (io/tables_file.c, --tables) on any bytes. The first
 * byte picks t (1-16), the second D (1-256) and the alphabet; the rest is the file. Accepted
 * tables must pass tsk_params_check; a rejected file must say why and leave the parameters as
 * they were. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/tsk_def.h"
#include "../../io/seqio.h"
#include "../../io/tables_file.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    tsk_params p;
    tsk_params_default(&p);
    p.t = 1 + data[0] % TSK_MAX_T;
    p.dim = 1 + data[1] % 256;
    p.alphabet = data[1] & 0x80 ? TSK_PROTEIN : TSK_DNA;
    tsk_tables_draw(&p);
    const tsk_params before = p;
    const char *path = fuzz_input_file(data + 2, size - 2);
    char err[TSK_ERRLEN] = "";
    if (tsk_tables_read(&p, path, err, sizeof err) == 0) {
        if (tsk_params_check(&p) || !p.tables_from_file) abort();
    } else if (!err[0] || memcmp(&p, &before, sizeof p) != 0) {
        abort();
    }
    return 0;
}
