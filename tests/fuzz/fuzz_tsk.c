/* fuzz_tsk.c: the .tsk reader (io/tsk_file.c) on any bytes. Before reading, the input's file-size
 * and trailer-size fields are set to fit its length and its CRC is recomputed (docs/format.md),
 * so that mutations get past those checks to the parameter, table, record and string checks
 * behind them. An accepted file is then used the way the commands use it: every name, source and
 * row is read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../io/seqio.h"
#include "../../io/tsk_file.h"
#include "fuzz_util.h"

static uint32_t get_u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get_u64(const uint8_t *p) { return get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }
static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Header offsets of docs/format.md. */
enum { H_HEADER_SIZE = 16, H_CRC = 20, H_FILE_SIZE = 24, H_DATA_OFFSET = 32, H_DATA_SIZE = 40,
       H_TRAILER_OFFSET = 64, H_TRAILER_SIZE = 72, FIXED_HEADER = 256, PAGE = 4096 };

/* The sizes and the CRC as a writer would have set them, where the layout allows it. */
static void fix_up(uint8_t *m, uint64_t n)
{
    if (n < FIXED_HEADER) return;
    put_u64(m + H_FILE_SIZE, n);
    const uint64_t trailer_offset = get_u64(m + H_TRAILER_OFFSET);
    if (trailer_offset <= n) put_u64(m + H_TRAILER_SIZE, n - trailer_offset);
    const uint64_t header_size = get_u32(m + H_HEADER_SIZE), data_offset = get_u64(m + H_DATA_OFFSET);
    const uint64_t data_size = get_u64(m + H_DATA_SIZE), trailer_size = get_u64(m + H_TRAILER_SIZE);
    if (header_size < 24 || header_size > PAGE || header_size > n || data_offset > n || data_size > n - data_offset ||
        trailer_offset > n)
        return;
    put_u32(m + H_CRC, 0);
    uLong crc = crc32(0, m, (uInt)header_size);
    crc = crc32(crc, m + data_offset, (uInt)data_size);
    crc = crc32(crc, m + trailer_offset, (uInt)trailer_size);
    put_u32(m + H_CRC, (uint32_t)crc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *m = malloc(size ? size : 1);
    if (!m) return 0;
    if (size) memcpy(m, data, size);
    fix_up(m, size);
    const char *path = fuzz_input_file(m, size);
    free(m);
    char err[TSK_ERRLEN];
    tsk_file *f = tsk_file_open(path, err, sizeof err);
    if (!f) {
        if (!err[0]) abort();
        return 0;
    }
    /* what info, export and dist touch */
    volatile size_t sink = 0;
    for (int64_t i = 0; i < f->n_records; i++) {
        const tsk_record_info *r = &f->records[i];
        sink += strlen(r->name) + strlen(r->source);
        if (r->first_row < 0 || r->n_rows < 0 || r->first_row + r->n_rows > f->n_rows) abort();
    }
    const uint8_t *rows = f->data;
    const size_t row_bytes = f->params.scaled > 0 ? sizeof(uint64_t) : (size_t)f->params.dim * f->elem_size;
    const size_t bytes = (size_t)f->n_rows * row_bytes;
    for (size_t i = 0; i < bytes; i++) sink += rows[i];
    if (tsk_params_diff(&f->params, "a", &f->params, "b", err, sizeof err) != 0) abort(); /* equal to itself */
    sink += strlen(f->tool_version) + strlen(f->command_line);
    (void)sink;
    tsk_file_close(f);
    return 0;
}
