/*
 * transpose_naive: out = transpose(in) for a rows x cols row-major matrix of 32-bit words
 * (out is cols x rows), one element per global thread, straight from global memory:
 *   for g = gtid < rows*cols: r = g / cols, c = g % cols, out[c*rows + r] = in[g].
 * Any grid and block size (grid*block >= rows*cols to cover the matrix).
 *
 * params (32-bit words):  0: in (const u32 *)  1: out (u32 *)  2: rows  3: cols
 */
#include "warpforge.h"

struct transpose_params {
    const uint32_t *in;
    uint32_t *out;
    uint32_t rows;
    uint32_t cols;
};

WF_KERNEL(arg)
{
    const struct transpose_params *p = arg;
    uint32_t g = wf_gtid();
    uint32_t rows = p->rows, cols = p->cols;
    if (g < rows * cols) {
        uint32_t r = g / cols, c = g % cols;
        p->out[c * rows + r] = p->in[g];
    }
}
