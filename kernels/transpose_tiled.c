/*
 * transpose_tiled: out = transpose(in) for a rows x cols row-major matrix of 32-bit words
 * (out is cols x rows), through a T x T shared-memory tile (T = TRANSPOSE_T = 4; the tile rows
 * are padded to T+1 words) so that both the global reads and the global writes go along rows.
 *
 * Shape: block >= T*T threads (threads t >= T*T only take part in the barrier),
 * grid = ceil(rows/T) * ceil(cols/T) CTAs; CTA c handles the input tile at tile row
 * c / ceil(cols/T), tile column c % ceil(cols/T). Any rows, cols >= 1 (edge tiles are
 * bounds-checked). Static shared memory: T * (T+1) * 4 bytes (80).
 *
 * params (32-bit words):  0: in (const u32 *)  1: out (u32 *)  2: rows  3: cols
 */
#include "warpforge.h"

#define TRANSPOSE_T 4

struct transpose_params {
    const uint32_t *in;
    uint32_t *out;
    uint32_t rows;
    uint32_t cols;
};

WF_SHARED static uint32_t tile[TRANSPOSE_T][TRANSPOSE_T + 1];

WF_KERNEL(arg)
{
    const struct transpose_params *p = arg;
    const uint32_t T = TRANSPOSE_T;
    uint32_t rows = p->rows, cols = p->cols;
    uint32_t tid = wf_tid();
    uint32_t ctaid = wf_ctaid();
    uint32_t tile_cols = (cols + T - 1) / T;
    uint32_t r0 = (ctaid / tile_cols) * T; /* first input row of the tile */
    uint32_t c0 = (ctaid % tile_cols) * T; /* first input column of the tile */
    uint32_t active = tid < T * T;
    uint32_t ty = tid / T, tx = tid % T;

    /* tile[ty][tx] = in[r0 + ty][c0 + tx] */
    if (active && r0 + ty < rows && c0 + tx < cols)
        tile[ty][tx] = p->in[(r0 + ty) * cols + c0 + tx];
    wf_barrier();
    /* out[c0 + ty][r0 + tx] = in[r0 + tx][c0 + ty] = tile[tx][ty] */
    if (active && c0 + ty < cols && r0 + tx < rows)
        p->out[(c0 + ty) * rows + r0 + tx] = tile[tx][ty];
}
