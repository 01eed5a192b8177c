/* sketch_kernel_vec.h: the SIMD kernel of the padded layout (sketch_kernel.h), written once with
 * GCC vector extensions and instantiated by sketch_kernel.h per vector width and target: VB bytes
 * per vector, names VNAME(x), function attribute VTARGET, on top of its REAL and KFN. No include
 * guard on purpose.
 *
 * A row is stored once plus a pad (row[D + m] = row[m], m < COUNTS_PAD), so the W values of the
 * shifted row N[(l - h) mod D .. + W) start at i = (l - h) mod D and are one unaligned load even
 * when they wrap: i < D and i + W - 1 < D + COUNTS_PAD. Per value the arithmetic is that of the
 * generic kernel, dst + b * src with b = +-2^k (the product exact, separate multiply and add as
 * the generic code is compiled, no FMA contraction in ISO C): the same bits. */

typedef REAL VNAME(vec) __attribute__((vector_size(VB)));
enum { VNAME(width) = (int)(VB / sizeof(REAL)) };

VTARGET KERNEL_INLINE VNAME(vec) VNAME(load)(const REAL *from)
{
    VNAME(vec) v;
    memcpy(&v, from, sizeof v);
    return v;
}

VTARGET KERNEL_INLINE void VNAME(store)(REAL *to, VNAME(vec) v) { memcpy(to, &v, sizeof v); }

/* dst[l] += b * src[(l - h) mod D] for l < D (D a multiple of the width); with pad, the new
 * dst[0 .. COUNTS_PAD) is also stored into dst's pad, straight from the registers. at: NULL, or
 * the start (l - h) mod D of each vector, from a table (one load instead of the index arithmetic,
 * which bounds the AVX2 loop). */
VTARGET KERNEL_INLINE void VNAME(shift_add)(REAL *restrict dst, const REAL *restrict src, int dim, int h, REAL b,
                                            int pad, const uint8_t *at)
{
    const int w = VNAME(width);
    const VNAME(vec) bv = (VNAME(vec)){0} + b;
    for (int l = 0; l < dim; l += w) {
        int from;
        if (at) {
            from = at[l / w];
        } else {
            /* src[l - h + D] before the wrap (l < h), src[l - h] after; a mask, never a branch
             * (what GCC makes of a ?: here, mispredicted at every row) */
            const int i = l - h;
            from = i + (dim & (i >> 31)); /* i >> 31: all ones when i < 0 */
        }
        const VNAME(vec) v = VNAME(load)(dst + l) + bv * VNAME(load)(src + from);
        VNAME(store)(dst + l, v);
        if (pad && l < COUNTS_PAD) VNAME(store)(dst + dim + l, v);
    }
}

/* Fixed-D instances up to this dimension read the source offsets from a table. */
#define VEC_TABLE_DIM 128

/* Characters per block of the blocked kernel below. */
#define VEC_BLOCK ((int)(64 / sizeof(REAL)))

typedef __typeof__((VNAME(vec)){0} == (VNAME(vec)){0}) VNAME(mask); /* integers of REAL's width */

/* Row of k (start j, length d) with its pad refreshed when pad, from registers. */
VTARGET KERNEL_INLINE void VNAME(store_row)(REAL *row, const VNAME(vec) *r, int nv, int dim, int pad)
{
    const int w = VNAME(width);
#pragma GCC unroll 16
    for (int v = 0; v < nv; v++) {
        VNAME(store)(row + v * w, r[v]);
        if (pad && v * w < COUNTS_PAD) VNAME(store)(row + dim + v * w, r[v]);
    }
}

/* VEC_BLOCK characters cs[] into the rows N[j][1..m] (m = t - j) of k, every row long enough that
 * none is skipped. Row by row instead of character by character: a row stays in registers over
 * the block (no load of dst, no store-to-load latency chain through memory), and the versions of
 * N[j][d-1] that the update of N[j][d] reads shifted, one per character, were stored to vers
 * while that row was processed. Per value, the same additions in the same order as the character
 * loop: the same bits. The d = 1 bump is a masked add in registers (adding +0 elsewhere changes no
 * count: counts are never -0). vers: 2 VEC_BLOCK rows of stride ld. */
VTARGET KERNEL_INLINE void VNAME(block)(KFN(counts) *k, const tsk_params *p, const uint8_t *cs, int j,
                                        const REAL *coef, const uint8_t *offsets, int alpha, const int dim,
                                        REAL *restrict vers)
{
    enum { w = VNAME(width), nv_max = VEC_TABLE_DIM / VNAME(width) };
    const int nv = dim / w, ld = k->ld, m = k->t - j, dup_top = k->dup_top;
    REAL *rows = k->rows + (size_t)k->row0[j] * (size_t)ld;
    REAL *prev = vers, *cur = vers + (size_t)VEC_BLOCK * ld;
    VNAME(vec) r[nv_max], lane = {0};
    for (int i = 0; i < w; i++) lane[i] = (REAL)i;
#pragma GCC unroll 16
    for (int v = 0; v < nv; v++) r[v] = VNAME(load)(rows + v * w);
    for (int s = 0; s < VEC_BLOCK; s++) {
        if (m > 1) VNAME(store_row)(prev + (size_t)s * ld, r, nv, dim, 1);
        const int c = cs[s];
        const VNAME(vec) hv = (VNAME(vec)){0} + (REAL)p->hash[j][c];
        const VNAME(mask) bm = (VNAME(mask))((VNAME(vec)){0} + coef[1] * (REAL)p->sign[j][c]);
#pragma GCC unroll 16
        for (int v = 0; v < nv; v++) r[v] += (VNAME(vec))(bm & (lane + (REAL)(v * w) == hv));
    }
    VNAME(store_row)(rows, r, nv, dim, 1);
    for (int d = 2; d <= m; d++) {
        REAL *row = rows + (size_t)(d - 1) * ld;
        const int lvl = j + d - 1, top = d == m;
#pragma GCC unroll 16
        for (int v = 0; v < nv; v++) r[v] = VNAME(load)(row + v * w);
        for (int s = 0; s < VEC_BLOCK; s++) {
            if (!top) VNAME(store_row)(cur + (size_t)s * ld, r, nv, dim, 1);
            const int c = cs[s];
            const VNAME(vec) bv = (VNAME(vec)){0} + coef[d] * (REAL)p->sign[lvl][c];
            const REAL *src = prev + (size_t)s * ld;
            const uint8_t *at = offsets + (lvl * alpha + c) * nv;
#pragma GCC unroll 16
            for (int v = 0; v < nv; v++) r[v] += bv * VNAME(load)(src + at[v]);
        }
        VNAME(store_row)(row, r, nv, dim, !top || dup_top);
        REAL *swap = prev;
        prev = cur;
        cur = swap;
    }
}

/* The character loop of sketch_kernel.h's generic kernel on the padded layout; dim is a
 * compile-time constant in the fixed-D instances (tabled), which unroll the row loop completely. */
VTARGET KERNEL_INLINE void VNAME(consume_dim)(KFN(counts) *k, const tsk_params *p, const uint8_t *codes, int64_t n,
                                              const int dim, const int tabled)
{
    const int t = k->t, ld = k->ld, starts = k->starts, dup_top = k->dup_top;
    const int w = VNAME(width), nv = dim / w, alpha = tsk_alphabet_size(p->alphabet);
    /* offsets[(lvl * alpha + c) * nv + v] = (v w - hash[lvl][c]) mod D */
    uint8_t offsets[TSK_MAX_T * TSK_MAX_ALPHA * (VEC_TABLE_DIM / VNAME(width))];
    if (tabled)
        for (int lvl = 0; lvl < t; lvl++)
            for (int c = 0; c < alpha; c++)
                for (int v = 0; v < nv; v++) {
                    const int i = v * w - p->hash[lvl][c];
                    offsets[(lvl * alpha + c) * nv + v] = (uint8_t)(i < 0 ? i + dim : i);
                }
    REAL coef[TSK_MAX_T + 1];
    REAL vers[2 * VEC_BLOCK * (VEC_TABLE_DIM + 2 * COUNTS_PAD)] __attribute__((aligned(64)));
    for (int64_t pos = 0; pos < n;) {
        int64_t until = (k->len / KERNEL_RESCALE + 1) * KERNEL_RESCALE - k->len;
        if (until > n - pos) until = n - pos;
        for (int d = 1; d <= t; d++) coef[d] = (REAL)ldexp(1.0, k->e[d - 1] - k->e[d]);
        for (int64_t s = 0; s < until; s++, pos++) {
            if (tabled && k->len + s + 1 >= t && until - s >= VEC_BLOCK) { /* no row skipped */
                for (int j = 0; j < starts; j++) VNAME(block)(k, p, codes + pos, j, coef, offsets, alpha, dim, vers);
                s += VEC_BLOCK - 1;
                pos += VEC_BLOCK - 1;
                continue;
            }
            const int c = codes[pos];
            const int64_t have = k->len + s + 1;
            for (int j = 0; j < starts; j++) {
                REAL *rows = k->rows + (size_t)k->row0[j] * (size_t)ld;
                int dmax = t - j;
                if (dmax > have) dmax = (int)have;
                for (int d = dmax; d >= 2; d--) {
                    const int lvl = j + d - 1;
                    const REAL b = coef[d] * (REAL)p->sign[lvl][c]; /* exact; no branch on the sign */
                    REAL *dst = rows + (size_t)(d - 1) * ld;
                    const REAL *src = rows + (size_t)(d - 2) * ld;
                    const uint8_t *at = tabled ? offsets + (lvl * alpha + c) * nv : NULL;
                    if (d == t - j && !dup_top) VNAME(shift_add)(dst, src, dim, p->hash[lvl][c], b, 0, at);
                    else VNAME(shift_add)(dst, src, dim, p->hash[lvl][c], b, 1, at);
                }
                KFN(bump)(rows, dim, 1, p->hash[j][c], coef[1] * (REAL)p->sign[j][c]);
            }
        }
        k->len += until;
        KFN(counts_rescale)(k);
    }
}

VTARGET static void VNAME(consume)(KFN(counts) *k, const tsk_params *p, const uint8_t *codes, int64_t n)
{
    switch (k->dim) { /* the common dimensions, with constant trip counts */
    case 32: VNAME(consume_dim)(k, p, codes, n, 32, 1); break;
    case 64: VNAME(consume_dim)(k, p, codes, n, 64, 1); break;
    case 96: VNAME(consume_dim)(k, p, codes, n, 96, 1); break;
    case 128: VNAME(consume_dim)(k, p, codes, n, 128, 1); break;
    default: VNAME(consume_dim)(k, p, codes, n, k->dim, 0); break;
    }
}

/* One padded row update with its pad refreshed (the slide engine's removal step). */
VTARGET __attribute__((unused)) static void VNAME(shift_add_row)(REAL *dst, const REAL *src, int dim, int h, REAL b)
{
    VNAME(shift_add)(dst, src, dim, h, b, 1, NULL);
}
