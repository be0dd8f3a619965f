/*
 * cta_ids - CTA numbers and global thread ids near the top of their 32-bit range.
 *
 * A grid of G CTAs numbers them 0..G-1, so a short run keeps the high bits of `ctaid` and
 * `gtid` at 0: on `tiny` (16 threads a CTA) `gtid` bit 20 needs CTA 65,536, millions of
 * cycles (issue 11: the CTA launch's first-gtid register with bit 22 flipped whenever bit 20
 * is set passed every run). Co-simulation can number a launch's CTAs from a base (the
 * verification ports `cta_base`/`gtid_base`, the model's `Gpu::set_cta_base`): these cases
 * start at bases with alternating bits and just below 2^32 (the numbers wrap), and every
 * thread writes the ids it read.
 *
 * Parameters: out (u32 *, 2 words a thread), base (the first CTA's number).
 * Thread t of CTA c: i = (c - base) * ntid + t; out[2i] = ctaid, out[2i + 1] = gtid.
 */
#include "warpforge.h"

struct params {
    uint32_t *out;
    uint32_t base;
};

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t c = wf_ctaid();
    uint32_t i = (c - q->base) * wf_ntid() + wf_tid();
    q->out[2 * i] = c;
    q->out[2 * i + 1] = wf_gtid();
}
