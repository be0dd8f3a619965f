/*
 * reduce: each CTA sums (32-bit, wrapping) its block's elements of `in` into out[ctaid]:
 *   out[c] = sum of in[c*ntid + t] for t in 0..ntid with c*ntid + t < n.
 * Shared-memory tree reduction with barriers; works for any block size up to
 * REDUCE_MAX_BLOCK (including non-powers of two and partial last warps) and any grid.
 * Static shared memory: REDUCE_MAX_BLOCK * 4 bytes (4096).
 *
 * params (32-bit words):  0: in (const u32 *)  1: out (u32 *, nctaid words)  2: n
 */
#include "warpforge.h"

#define REDUCE_MAX_BLOCK 1024

struct reduce_params {
    const uint32_t *in;
    uint32_t *out;
    uint32_t n;
};

WF_SHARED static uint32_t sh[REDUCE_MAX_BLOCK];

WF_KERNEL(arg)
{
    const struct reduce_params *p = arg;
    uint32_t tid = wf_tid();
    uint32_t ntid = wf_ntid();
    uint32_t gtid = wf_gtid();

    sh[tid] = gtid < p->n ? p->in[gtid] : 0;
    wf_barrier();
    for (uint32_t s = 1; s < ntid; s <<= 1) {
        if (tid % (2 * s) == 0 && tid + s < ntid)
            sh[tid] += sh[tid + s];
        wf_barrier();
    }
    if (tid == 0)
        p->out[wf_ctaid()] = sh[0];
}
