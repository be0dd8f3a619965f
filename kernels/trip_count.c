/*
 * trip_count: a per-thread, data-dependent trip count. For every thread i = gtid < n, count
 * the Collatz steps of v = in[i] (v odd: v = 3v + 1, v even: v = v / 2, 32-bit wrapping)
 * until v == 1, stopping after max_steps steps:
 *
 *     steps = 0;
 *     while (v != 1 && steps < max_steps) { v = (v & 1) ? 3*v + 1 : v >> 1; steps++; }
 *     out[i] = steps;
 *
 * (in[i] = 0 never reaches 1 and runs max_steps times; in[i] = 1 runs 0 times.)
 * Any grid and block size.
 *
 * params (32-bit words):  0: in (const u32 *)  1: out (u32 *)  2: n  3: max_steps
 */
#include "warpforge.h"

struct trip_count_params {
    const uint32_t *in;
    uint32_t *out;
    uint32_t n;
    uint32_t max_steps;
};

WF_KERNEL(arg)
{
    const struct trip_count_params *p = arg;
    uint32_t i = wf_gtid();
    if (i >= p->n)
        return;

    uint32_t v = p->in[i];
    uint32_t max_steps = p->max_steps;
    uint32_t steps = 0;
    while (v != 1 && steps < max_steps) {
        if (v & 1)
            v = 3 * v + 1;
        else
            v >>= 1;
        steps++;
    }
    p->out[i] = steps;
}
