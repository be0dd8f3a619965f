/*
 * vecadd: c[i] = a[i] + b[i] (32-bit, wrapping) for every global thread i = gtid < n.
 * Any grid and block size; threads with gtid >= n do nothing.
 *
 * params (32-bit words):  0: a (const u32 *)  1: b (const u32 *)  2: c (u32 *)  3: n
 */
#include "warpforge.h"

struct vecadd_params {
    const uint32_t *a;
    const uint32_t *b;
    uint32_t *c;
    uint32_t n;
};

WF_KERNEL(arg)
{
    const struct vecadd_params *p = arg;
    uint32_t i = wf_gtid();
    if (i < p->n)
        p->c[i] = p->a[i] + p->b[i];
}
