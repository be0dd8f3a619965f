/*
 * saxpy (integer): y[i] = a * x[i] + y[i] (32-bit, wrapping) for every global thread
 * i = gtid < n. Any grid and block size.
 *
 * params (32-bit words):  0: a (scalar)  1: x (const u32 *)  2: y (u32 *, in/out)  3: n
 */
#include "warpforge.h"

struct saxpy_params {
    uint32_t a;
    const uint32_t *x;
    uint32_t *y;
    uint32_t n;
};

WF_KERNEL(arg)
{
    const struct saxpy_params *p = arg;
    uint32_t i = wf_gtid();
    if (i < p->n)
        p->y[i] = p->a * p->x[i] + p->y[i];
}
