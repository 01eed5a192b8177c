/* cluster_links.c: the files of `cluster --links`, through io/links_file.h. */
#include "cluster_links.h"

#include <stdio.h>
#include <string.h>

#include "../core/tsk_def.h"
#include "../io/atomic_file.h"
#include "../io/links_file.h"
#include "../io/name_index.h"
#include "cli.h"

typedef struct {
    const tsk_links_input *in;
    const char *path;
    int (*add)(void *ctx, int64_t a, int64_t b, float dist);
    void *ctx;
    tsk_links_count *count;
    int checked; /* the file's first line was verified */
    int rc;      /* why take stopped: an exit code after its message */
} reading;

static int take(void *ctx, const tsk_link_line *l, int64_t n)
{
    reading *r = ctx;
    const tsk_links_input *in = r->in;
    if (!r->checked && n) {
        char where[64 + 4096];
        snprintf(where, sizeof where, "%s: line %lld", strcmp(r->path, "-") ? r->path : "standard input",
                 (long long)l[0].line);
        if ((r->rc = in->verify(in->verify_ctx, l[0].a, l[0].b, l[0].dist, where))) return -1;
        r->checked = 1;
    }
    r->count->lines += n;
    for (int64_t i = 0; i < n; i++) {
        /* a NAN AF (NA: no estimate) fails --min-af, as it does where cluster computes it */
        if (!((double)l[i].dist <= in->max_dist) || (in->min_af_given && !(l[i].af >= in->min_af))) continue;
        r->count->within++;
        if (r->add(r->ctx, l[i].a, l[i].b, l[i].dist)) {
            r->rc = TSK_EXIT_RUNTIME;
            return -1;
        }
    }
    return 0;
}

/* A file named twice would give every link twice: refused, as a likely slip of a glob. */
static int check_paths(const tsk_links_input *in)
{
    size_t stdin_uses = 0;
    for (size_t i = 0; i < in->n_paths; i++) {
        stdin_uses += !strcmp(in->paths[i], "-");
        for (size_t j = 0; j < i; j++)
            if (strcmp(in->paths[i], "-") && tsk_same_file(in->paths[i], in->paths[j])) {
                tsk_error("--links: '%s' and '%s' are one file: each part is given once", in->paths[j], in->paths[i]);
                return TSK_EXIT_USAGE;
            }
    }
    if (stdin_uses > 1) {
        tsk_error("--links: standard input ('-') given %zu times: it can be read once", stdin_uses);
        return TSK_EXIT_USAGE;
    }
    return TSK_EXIT_OK;
}

/* The index of the items' names; two items of one name cannot be told apart in a line. */
static int index_names(const tsk_links_input *in, tsk_name_index **ix)
{
    int64_t a = -1, b = -1;
    const int rc = tsk_name_index_build(in->names, in->n_items, ix, &a, &b);
    if (rc == -1) {
        tsk_error("out of memory indexing the names");
        return TSK_EXIT_RUNTIME;
    }
    if (rc == -2) {
        tsk_error("--links: items %lld and %lld of the inputs are both named '%s': lines of pairs name their items, "
                  "so names must be unique",
                  (long long)a + 1, (long long)b + 1, in->names[a]);
        return TSK_EXIT_INPUT;
    }
    for (int64_t i = 0; i < in->n_items; i++)
        if (strpbrk(in->names[i], "\t\n")) {
            tsk_error("--links: item %lld's name holds a tab or a newline: its lines of pairs cannot be read back",
                      (long long)i + 1);
            return TSK_EXIT_INPUT;
        }
    return TSK_EXIT_OK;
}

int tsk_cluster_links_read(const tsk_links_input *in, int (*add)(void *ctx, int64_t a, int64_t b, float dist),
                           void *ctx, tsk_links_count *count)
{
    memset(count, 0, sizeof *count);
    tsk_name_index *ix = NULL;
    int rc = check_paths(in);
    if (rc == TSK_EXIT_OK) rc = index_names(in, &ix);
    for (size_t i = 0; rc == TSK_EXIT_OK && i < in->n_paths; i++) {
        reading r = {in, in->paths[i], add, ctx, count, 0, TSK_EXIT_OK};
        char err[TSK_ERRLEN];
        if (tsk_links_read(in->paths[i], ix, in->min_af_given, take, &r, err, sizeof err)) {
            if (r.rc == TSK_EXIT_OK) { /* the file itself: unreadable or malformed */
                tsk_error("%s", err);
                rc = TSK_EXIT_INPUT;
            } else rc = r.rc;
        }
    }
    tsk_name_index_free(ix);
    return rc;
}
