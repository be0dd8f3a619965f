/*
 * matmul_tiled: C = A x B for N x N row-major matrices of 32-bit integers (wrapping
 * arithmetic), with T x T tiles of A and B staged in shared memory (T = MATMUL_T = 4).
 *
 * Shape: block >= T*T threads (thread t < T*T computes element (t / T, t % T) of its tile;
 * threads t >= T*T only take part in the barriers), grid = ceil(N/T)^2 CTAs (CTA c computes
 * the output tile at tile row c / ceil(N/T), tile column c % ceil(N/T)). N need not be a
 * multiple of T: out-of-range tile elements are loaded as 0 and not stored.
 * Static shared memory: 2 * T * T * 4 bytes (128).
 *
 * params (32-bit words):  0: A (const u32 *)  1: B (const u32 *)  2: C (u32 *)  3: N
 */
#include "warpforge.h"

#define MATMUL_T 4

struct matmul_params {
    const uint32_t *a;
    const uint32_t *b;
    uint32_t *c;
    uint32_t n;
};

WF_SHARED static uint32_t tile_a[MATMUL_T][MATMUL_T];
WF_SHARED static uint32_t tile_b[MATMUL_T][MATMUL_T];

WF_KERNEL(arg)
{
    const struct matmul_params *p = arg;
    const uint32_t T = MATMUL_T;
    uint32_t n = p->n;
    uint32_t tid = wf_tid();
    uint32_t ctaid = wf_ctaid();
    uint32_t tiles = (n + T - 1) / T;
    uint32_t active = tid < T * T;
    uint32_t ty = tid / T, tx = tid % T;
    uint32_t row = (ctaid / tiles) * T + ty;
    uint32_t col = (ctaid % tiles) * T + tx;
    uint32_t sum = 0;

    for (uint32_t k0 = 0; k0 < n; k0 += T) {
        if (active) {
            tile_a[ty][tx] = (row < n && k0 + tx < n) ? p->a[row * n + k0 + tx] : 0;
            tile_b[ty][tx] = (k0 + ty < n && col < n) ? p->b[(k0 + ty) * n + col] : 0;
        }
        wf_barrier();
        if (active) {
            for (uint32_t j = 0; j < T; j++)
                sum += tile_a[ty][j] * tile_b[j][tx];
        }
        wf_barrier();
    }
    if (active && row < n && col < n)
        p->c[row * n + col] = sum;
}
