/* cluster_links.h: `cluster --links FILE...`: a clustering's links read from the pairs that
 * `tsketch dist -d D --block I/N` wrote, on any number of machines, instead of computed here
 * (docs/cluster.md, "Clusters from distance parts").
 *
 * Every line within the clustering's threshold (its distance <= max_dist and, with --min-af, its AF
 * column >= min_af) is handed on as a link between the items it names, as `cluster` would have
 * found it: the same distances (dist prints the float exactly), the same AF test (as written,
 * io/dist_out.h). The first line of each file is first checked against the inputs (a caller's
 * function that computes the pair's distance afresh), so that links from other sketches or other
 * options (--key-distance, --containment, another metric) stop the run instead of clustering
 * wrongly. */
#ifndef TSK_CLUSTER_LINKS_H
#define TSK_CLUSTER_LINKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *const *paths; /* the files ("-": standard input) */
    size_t n_paths;
    double max_dist;
    int min_af_given;
    double min_af;
    const char *const *names; /* the items' names, unique (else exit 3 naming them) */
    int64_t n_items;
    /* the pair (a, b) as the inputs give it: 0 when dist is its distance, else an exit code after
     * a message naming where the line is (where: "FILE: line N") */
    int (*verify)(void *ctx, int64_t a, int64_t b, float dist, const char *where);
    void *verify_ctx;
} tsk_links_input;

/* What was read. */
typedef struct {
    int64_t lines;  /* pair lines in all the files */
    int64_t within; /* of them, within the threshold: handed to add */
} tsk_links_count;

/* Reads every file, handing each link to add (0, or -1 to stop: its message is the caller's).
 * Returns a TSK_EXIT_* code, the message printed. */
int tsk_cluster_links_read(const tsk_links_input *in, int (*add)(void *ctx, int64_t a, int64_t b, float dist),
                           void *ctx, tsk_links_count *count);

#endif
