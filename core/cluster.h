/* cluster.h: clusters of items from their links, the pairs within a distance (docs/cluster.md).
 *
 * Items are known here by their rank (0 = the best item: the caller ranks them, tsk_cluster_rank);
 * a link joins two ranks at a distance. Two methods:
 *
 *   greedy (GTDB, galah): items are visited in rank order; one linked to a representative visited
 *     before it joins the nearest, otherwise it becomes a representative, so that a cluster's
 *     best-ranked item represents it; with reassignment (tsk_greedy_set_reassign) every member
 *     then moves to its nearest linked representative, also one ranked below it. The links must come sorted by (worse, better) rank, so
 *     that an item's status is settled before any worse item asks about it: memory O(N) plus the
 *     links of one item, whatever the number of links (io/link_runs.h sorts them out of memory).
 *   single linkage: the connected components (a union-find, links in any order); the
 *     representative is the best-ranked member.
 *
 * "Nearest" is the smaller distance, ties to the better-ranked representative. Both are O(links)
 * and deterministic: the result depends on the set of links, never on the order they come in
 * (greedy: in any order that is sorted). Plain C17, no engine, no I/O. */
#ifndef TSK_CLUSTER_H
#define TSK_CLUSTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Two items within the distance: worse > better are ranks; dist is the pair's distance as the
 * distance commands print it (float32). 12 bytes: the unit links are held and spilled in. */
typedef struct {
    uint32_t worse, better;
    float dist;
} tsk_cluster_link;

/* The largest number of items (ranks fit 32 bits with room for "none"). */
#define TSK_CLUSTER_MAX_ITEMS INT64_C(4000000000)

/* order[0..n) = the items (input indices) from the best to the worst rank: score descending
 * (score NULL: all equal), then length descending, then input index ascending. Scores must be
 * finite. Returns 0, or -1 when memory runs out. */
int tsk_cluster_rank(int64_t n, const double *score, const int64_t *length, int64_t *order);

/* order[0..n) as tsk_cluster_rank gives it for genomes without a quality score, by their assembly
 * (docs/cluster.md, "Ranking"): N50 descending (dRep's default score without CheckM, 0.5 x
 * log10 N50, orders genomes the same way), then fewer contigs, then length descending, then input
 * index ascending. A genome a record (N50 = its length, one contig) ranks as by length alone.
 * Returns 0, or -1 when memory runs out. */
int tsk_cluster_rank_assembly(int64_t n, const int64_t *n50, const int64_t *n_contigs, const int64_t *length,
                              int64_t *order);

/* A clustering, by rank: rep[r] is the rank of item r's representative (rep[r] == r for a
 * representative) and dist[r] its distance to it (0 for a representative; single linkage leaves
 * members' distances to the caller, NAN until then). */
typedef struct {
    int64_t n;
    uint32_t *rep;
    float *dist;
} tsk_clustering;

/* Allocates c for n items (every item its own representative). 0 or -1 (out of memory). */
int tsk_clustering_init(tsk_clustering *c, int64_t n);
void tsk_clustering_free(tsk_clustering *c);

/* A second condition on links, checked only where a link decides something (for a condition that
 * is costly to ask about every pair; cluster's --min-af no longer is: the AF comes with each link):
 * returns 1 when the link between ranks a and b holds. */
typedef struct {
    int (*holds)(void *ctx, uint32_t a, uint32_t b);
    void *ctx;
} tsk_link_check;

/* Greedy clustering fed with its links in (worse, better) order. */
typedef struct tsk_greedy tsk_greedy;

/* Starts greedy clustering into c (initialised for n items); check NULL: every link holds. The
 * result is that of the links that hold. NULL when memory runs out. */
tsk_greedy *tsk_greedy_open(tsk_clustering *c, const tsk_link_check *check);

/* reassign 1 (the default of tsk_greedy_open): a new representative takes the members visited
 * before it that are nearer to it than to their representative (each member ends with its
 * nearest linked representative); 0: members stay where they joined (a cluster's best-ranked item
 * is its representative). Set before the first tsk_greedy_add. */
void tsk_greedy_set_reassign(tsk_greedy *g, int reassign);

/* The next links[0..n), continuing the sorted sequence of the calls before. 0, or -1 when they
 * are out of order (a caller's bug) or memory runs out. */
int tsk_greedy_add(tsk_greedy *g, const tsk_cluster_link *links, int64_t n);

/* Visits the items after the last link and completes c. 0 or -1 as above; frees g either way. */
int tsk_greedy_finish(tsk_greedy *g);

/* Single linkage: a union-find over n items (by rank). */
typedef struct {
    int64_t n;
    uint32_t *parent;
} tsk_components;

int tsk_components_init(tsk_components *u, int64_t n); /* 0 or -1 (out of memory) */
/* Joins the components of a and b; with check (not NULL), only when the link holds, asked only
 * when a and b are in different components. */
void tsk_components_link(tsk_components *u, uint32_t a, uint32_t b, const tsk_link_check *check);
/* c->rep[r] = the best rank of r's component; c->dist: 0 for representatives, NAN for members. */
void tsk_components_finish(tsk_components *u, tsk_clustering *c);
void tsk_components_free(tsk_components *u);

/* Output order of a clustering: cluster_of[r] is the 1-based cluster number of rank r (clusters
 * numbered in the rank order of their representatives) and line[0..n) the ranks in output order
 * (by cluster, the representative first, then members in rank order). *n_clusters and
 * *n_singletons (clusters of one item) are set. 0 or -1 (out of memory). */
int tsk_clustering_order(const tsk_clustering *c, int64_t *cluster_of, int64_t *line, int64_t *n_clusters,
                         int64_t *n_singletons);

#ifdef __cplusplus
}
#endif
#endif
