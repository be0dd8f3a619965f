/*
 * nested_divergence: the nested if of Sarangi, "Advanced Computer Architecture", Fig. 6.17
 * (predicated execution with a stack of masks). For every thread i = gtid < n:
 *
 *     b = a;                      (the figure leaves b's value for y != 0 open: here b = a)
 *     if (x > 0) {                (signed)
 *         if (y == 0) b = a + 3;
 *         c = b * b;
 *     } else {
 *         d = 3;
 *         c = d * d;
 *     }
 *     out[i] = c;                 (32-bit wrapping arithmetic)
 *
 * Any grid and block size.
 *
 * params (32-bit words):  0: x (const i32 *)  1: y (const i32 *)  2: a (const i32 *)
 *   3: out (u32 *)  4: n
 */
#include "warpforge.h"

struct nested_divergence_params {
    const int32_t *x;
    const int32_t *y;
    const int32_t *a;
    uint32_t *out;
    uint32_t n;
};

WF_KERNEL(arg)
{
    const struct nested_divergence_params *p = arg;
    uint32_t i = wf_gtid();
    if (i >= p->n)
        return;

    int32_t x = p->x[i];
    int32_t y = p->y[i];
    uint32_t a = (uint32_t)p->a[i];
    uint32_t b = a;
    uint32_t c;
    if (x > 0) {
        if (y == 0) {
            WF_KEEP_BRANCH();
            b = a + 3;
        }
        c = b * b;
    } else {
        uint32_t d = 3;
        WF_KEEP_BRANCH();
        c = d * d;
    }
    p->out[i] = c;
}
