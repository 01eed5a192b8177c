/* genome_kernels.cuh: the nearest-row search of genome mode on the GPU (gpu_genome.h).
 *
 * A search is one direction of one pair of genomes: for each row of A, the nearest row of B.
 * Thread = one row of A (128 per block, a tile), B streams through shared memory (tb rows at a
 * time, every thread reading the same address: a broadcast) and each thread compares its row with
 * SKG_RB rows of B at once. The squared distance is summed exactly as the CPU engine sums it
 * (cpu/genome_dist.c): over k in order, d = a_k - b_k in float, acc += d * d in double (the
 * product of two floats is exact in double, so one FMA gives the same bits); B rows in ascending
 * order, a strictly smaller sum replaces the best, so ties go to the lowest index. Results are the
 * CPU's bit for bit. The float-to-double conversion of each difference bounds the kernel. */
#ifndef TSK_GPU_GENOME_KERNELS_CUH
#define TSK_GPU_GENOME_KERNELS_CUH

#include <stdint.h>

#define SKG_THREADS 128                /* rows of A per tile (one per thread) */
#define SKG_RB 8                       /* rows of B a thread compares at once */
#define SKG_SMEM_BYTES (48 * 1024)     /* B rows held in shared memory */
#define SKG_MAX_DIM 1024               /* at least SKG_RB rows of B must fit */

/* One direction of one pair: rows [a_row0, a_row0 + na) against [b_row0, b_row0 + nb) of the
 * device row array; results for A's rows at [out0, out0 + na). */
typedef struct {
    int64_t a_row0, b_row0, out0;
    int32_t na, nb;
} skg_search;

/* Rows [a_start, a_start + SKG_THREADS) of search `search`: one block's work. */
typedef struct {
    int32_t search, a_start;
} skg_tile;

/* B rows per shared-memory tile for dimension dim: a multiple of SKG_RB, at most 64. */
__host__ __device__ static inline int skg_tile_rows(int dim)
{
    int tb = SKG_SMEM_BYTES / (4 * dim) / SKG_RB * SKG_RB;
    return tb > 64 ? 64 : tb;
}

__global__ void __launch_bounds__(SKG_THREADS)
skg_nearest_kernel(const float *__restrict__ rows, int dim, const skg_search *__restrict__ searches,
                   const skg_tile *__restrict__ tiles, int n_tiles, double *__restrict__ best_d2,
                   int32_t *__restrict__ best_at)
{
    extern __shared__ float b_tile[];  /* tb rows of B, row-major */
    const int tb = skg_tile_rows(dim);
    for (int ti = blockIdx.x; ti < n_tiles; ti += gridDim.x) {
        const skg_tile tile = tiles[ti];
        const skg_search s = searches[tile.search];
        const int i = tile.a_start + (int)threadIdx.x;
        const bool active = i < s.na;
        const float *a = rows + (s.a_row0 + (active ? i : 0)) * dim;
        double best = INFINITY;
        int32_t arg = 0;
        for (int b0 = 0; b0 < s.nb; b0 += tb) {  /* the same bounds in every thread of the block */
            const int nt = min(tb, s.nb - b0);
            const float *b = rows + (s.b_row0 + b0) * dim;
            __syncthreads();
            for (int x = threadIdx.x; x < tb * dim; x += blockDim.x) b_tile[x] = x < nt * dim ? b[x] : 0.f;
            __syncthreads();
            for (int jj = 0; jj < nt; jj += SKG_RB) {
                double acc[SKG_RB];
#pragma unroll
                for (int r = 0; r < SKG_RB; r++) acc[r] = 0.0;
                for (int k = 0; k < dim; k++) {
                    const float ak = a[k];
#pragma unroll
                    for (int r = 0; r < SKG_RB; r++) {
                        const double d = (double)(ak - b_tile[(jj + r) * dim + k]);
                        acc[r] = fma(d, d, acc[r]);
                    }
                }
#pragma unroll
                for (int r = 0; r < SKG_RB; r++)
                    if (jj + r < nt && acc[r] < best) best = acc[r], arg = b0 + jj + r;
            }
        }
        if (active) {
            best_d2[s.out0 + i] = best;
            best_at[s.out0 + i] = arg;
        }
    }
}

#endif
