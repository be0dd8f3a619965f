/*
 * divergent_loop: the do-while loop with two nested branches of Aamodt, Fung, Rogers,
 * "General-Purpose Graphics Processor Architectures", Fig. 3.2 (the SIMT stack example of
 * Fig. 3.4). Thread tid = gtid < nthreads walks row tid of the nthreads x N matrices data1 and
 * data2:
 *
 *     i = 0; x = y = z = 0;
 *     do {
 *         t3 = data1[tid*N + i];
 *         if (t3 != 0) { t5 = data2[tid*N + i]; if (t5 != 0) x += 1; else y += 2; }
 *         else z += 3;
 *         i++;
 *     } while (i < N);
 *     out_x[tid] = x; out_y[tid] = y; out_z[tid] = z;
 *
 * Any grid and block size; threads with gtid >= nthreads do nothing. N >= 1.
 *
 * params (32-bit words):  0: data1 (const u32 *, nthreads*N)  1: data2 (const u32 *, nthreads*N)
 *   2: out_x (u32 *)  3: out_y (u32 *)  4: out_z (u32 *)  5: N  6: nthreads
 */
#include "warpforge.h"

struct divergent_loop_params {
    const uint32_t *data1;
    const uint32_t *data2;
    uint32_t *out_x;
    uint32_t *out_y;
    uint32_t *out_z;
    uint32_t n;
    uint32_t nthreads;
};

WF_KERNEL(arg)
{
    const struct divergent_loop_params *p = arg;
    uint32_t tid = wf_gtid();
    if (tid >= p->nthreads)
        return;

    uint32_t n = p->n;
    uint32_t i = 0;
    uint32_t x = 0, y = 0, z = 0;
    do {
        uint32_t t1 = tid * n;              /* A */
        uint32_t t2 = t1 + i;
        uint32_t t3 = p->data1[t2];
        if (t3 != 0) {
            uint32_t t5 = p->data2[t2];     /* B */
            if (t5 != 0) {
                WF_KEEP_BRANCH();
                x += 1;                     /* C */
            } else {
                WF_KEEP_BRANCH();
                y += 2;                     /* D */
            }
        } else {                            /* E: reconvergence of B's branch */
            WF_KEEP_BRANCH();
            z += 3;                         /* F */
        }
        i++;                                /* G */
    } while (i < n);
    p->out_x[tid] = x;
    p->out_y[tid] = y;
    p->out_z[tid] = z;
}
