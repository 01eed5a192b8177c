/* name_index.c: open addressing over a power-of-two table at most half full, each slot an item
 * and its name's 64-bit hash (FNV-1a), so that a lookup compares names only on equal hashes. */
#include "name_index.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t hash;
    int64_t item; /* -1: empty */
} slot;

struct tsk_name_index {
    const char *const *names;
    slot *slots;
    uint64_t mask;
};

static uint64_t name_hash(const char *s, size_t len)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
    return h ^ (h >> 29); /* the low bits pick the slot: fold the well-mixed high ones in */
}

static int same_name(const char *stored, const char *name, size_t len)
{
    return !strncmp(stored, name, len) && stored[len] == '\0';
}

/* The slot holding name, or the empty slot where it would go. */
static slot *probe(const tsk_name_index *x, const char *name, size_t len, uint64_t h)
{
    for (uint64_t i = h & x->mask;; i = (i + 1) & x->mask) {
        slot *s = &x->slots[i];
        if (s->item < 0 || (s->hash == h && same_name(x->names[s->item], name, len))) return s;
    }
}

int tsk_name_index_build(const char *const *names, int64_t n, tsk_name_index **out, int64_t *dup_a, int64_t *dup_b)
{
    *out = NULL;
    uint64_t size = 16;
    while (size < 2 * (uint64_t)(n > 0 ? n : 1)) size <<= 1;
    tsk_name_index *x = calloc(1, sizeof *x);
    if (!x || !(x->slots = malloc(size * sizeof *x->slots))) {
        free(x);
        return -1;
    }
    x->names = names;
    x->mask = size - 1;
    for (uint64_t i = 0; i < size; i++) x->slots[i].item = -1;
    for (int64_t i = 0; i < n; i++) {
        const size_t len = strlen(names[i]);
        const uint64_t h = name_hash(names[i], len);
        slot *s = probe(x, names[i], len, h);
        if (s->item >= 0) {
            *dup_a = s->item, *dup_b = i;
            tsk_name_index_free(x);
            return -2;
        }
        s->hash = h, s->item = i;
    }
    *out = x;
    return 0;
}

int64_t tsk_name_index_find(const tsk_name_index *x, const char *name, size_t len)
{
    return probe(x, name, len, name_hash(name, len))->item;
}

void tsk_name_index_free(tsk_name_index *x)
{
    if (!x) return;
    free(x->slots);
    free(x);
}
