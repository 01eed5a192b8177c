/* float_text.c: see float_text.h. */
#include "float_text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128; /* GCC and clang on 64-bit targets */

#define DIGITS 9
#define LOW INT64_C(100000000)   /* 10^(DIGITS-1) */
#define HIGH INT64_C(1000000000) /* 10^DIGITS */

/* 5^s for 0 <= s <= 54: 5^27 < 2^63 is the largest that fits 64 bits */
static u128 pow5(int s)
{
    static const uint64_t p[28] = {1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL,
                                   1953125ULL, 9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL,
                                   30517578125ULL, 152587890625ULL, 762939453125ULL, 3814697265625ULL,
                                   19073486328125ULL, 95367431640625ULL, 476837158203125ULL, 2384185791015625ULL,
                                   11920928955078125ULL, 59604644775390625ULL, 298023223876953125ULL,
                                   1490116119384765625ULL, 7450580596923828125ULL};
    return s <= 27 ? (u128)p[s] : (u128)p[27] * p[s - 27];
}

/* floor(M * 2^E * 10^s) for a value whose result lies below 2^64, with how the dropped part
 * compares to one half in *half (-1 below, 0 equal, 1 above). |s| <= 40, and M * 2^E within
 * [1e-30, 1e30] (float_text.h), keep every intermediate within 128 bits. */
static uint64_t scaled(uint32_t M, int E, int s, int *half)
{
    if (s >= 0) {
        const u128 a = (u128)M * pow5(s); /* < 2^24 * 5^40 < 2^118 */
        const int k = E + s;              /* the power of two left */
        if (k >= 0) {
            *half = -1;
            return (uint64_t)(a << k);
        }
        const int sh = -k; /* at most 85: E >= -123 and s <= 38 in the fast range */
        const u128 q = a >> sh, r = a - (q << sh), h = (u128)1 << (sh - 1);
        *half = r < h ? -1 : r > h;
        return (uint64_t)q;
    }
    /* M * 2^E / (5^t * 2^t), t = -s */
    const int t = -s, k = E - t;
    u128 a = M, b = pow5(t);
    if (k >= 0) a <<= k; /* M * 2^E <= 1e30 < 2^100 */
    else b <<= -k;
    const u128 q = a / b, r = a - q * b;
    *half = 2 * r < b ? -1 : 2 * r > b;
    return (uint64_t)q;
}

/* Nine significant digits of x = M * 2^E (rounded half to even) in *n, 10^8 <= *n < 10^9, and x's
 * decimal exponent after rounding. */
static int nine_digits(uint32_t M, int E, uint64_t *n)
{
    /* x lies in [2^(E+23), 2^(E+24)): its decimal exponent is this or one more (the loop settles it) */
    int d = (int)floor((E + 23) * 0.30102999566398120);
    int half;
    uint64_t q;
    for (;;) {
        q = scaled(M, E, DIGITS - 1 - d, &half);
        if (q < (uint64_t)LOW) d--;
        else if (q >= (uint64_t)HIGH) d++;
        else break;
    }
    q += half > 0 || (half == 0 && (q & 1));
    if (q == (uint64_t)HIGH) { /* 999999999.5 and up: one more digit before the point */
        q = (uint64_t)LOW;
        d++;
    }
    *n = q;
    return d;
}

size_t tsk_float_g9(char *b, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    const double x = fabs((double)v);
    if (!(x >= 1e-30 && x <= 1e30)) { /* zero, NaN, infinities, the far ends: printf's own */
        const int len = snprintf(b, 32, "%.9g", (double)v);
        return len > 0 ? (size_t)len : 0;
    }
    const uint32_t M = (bits & 0x7fffffu) | 0x800000u; /* normal: x >= 1e-30 > FLT_MIN */
    const int E = (int)((bits >> 23) & 0xffu) - 150;
    uint64_t n;
    const int X = nine_digits(M, E, &n);
    char dig[DIGITS];
    for (int i = DIGITS - 1; i >= 0; i--, n /= 10) dig[i] = (char)('0' + n % 10);
    int last = DIGITS - 1; /* %g drops trailing zeros */
    while (last > 0 && dig[last] == '0') last--;
    size_t at = 0;
    if (bits >> 31) b[at++] = '-';
    if (X >= -4 && X < DIGITS) { /* %f style with DIGITS - 1 - X decimals */
        if (X >= 0) {
            for (int i = 0; i <= X; i++) b[at++] = dig[i];
            if (last > X) {
                b[at++] = '.';
                for (int i = X + 1; i <= last; i++) b[at++] = dig[i];
            }
        } else {
            b[at++] = '0';
            b[at++] = '.';
            for (int i = 0; i < -X - 1; i++) b[at++] = '0';
            for (int i = 0; i <= last; i++) b[at++] = dig[i];
        }
    } else { /* %e style */
        b[at++] = dig[0];
        if (last > 0) {
            b[at++] = '.';
            for (int i = 1; i <= last; i++) b[at++] = dig[i];
        }
        b[at++] = 'e';
        b[at++] = X < 0 ? '-' : '+';
        const int e = X < 0 ? -X : X;
        b[at++] = (char)('0' + e / 10); /* |X| <= 30 here: two digits */
        b[at++] = (char)('0' + e % 10);
    }
    b[at] = '\0';
    return at;
}
