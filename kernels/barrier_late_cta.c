/*
 * barrier_late_cta - a CTA barrier in a CTA that arrives late, on the warp slots its
 * predecessors' early-exiting warps freed: on `tiny` (4 warp slots) grid 3, block 2 warps,
 * the third CTA lands in CTA slot 2 on warp slots {1,3} or {0,2}.
 *
 * Parameters: out (u32 per thread), spin, delay, exit_warp, delay_warp. Thread t of CTA c,
 * warp w = t / lanes (two warps per CTA), acc = t + 1:
 *   CTA c < nctaid - 1 (early): warp exit_warp exits at once; the other spins `spin` rounds of
 *       acc = acc * 3 + i, holding its CTA slot and warp slot
 *   the last CTA: warp delay_warp runs `delay` rounds of acc = acc * 5 + i, then every thread
 *       meets at wf.bar (the other warp waits there) and adds 7
 *   out[gtid] = acc
 *
 * Why (issue 11): the barrier kernels fill an SM with one CTA or use CTA slots 0 and 1, so a
 * barrier in CTA slot 2 with a first warp in warp slot 1 never ran; a mutant that lost that
 * pairing (m83 of tiny-f22e1cadb3df8a06's sample: warp 1 never released) passed the regression.
 * One case runs 2 * (W/2 + W/4) + 1 CTAs with warp 0 of each exiting early and warp 0 of the
 * last one late: the CTAs launched on freed warp slots free theirs again, so late CTAs reach
 * CTA slots above W/2 with a first warp in a low warp slot (on `small`, CTA slot 6 with warp
 * slot 0: a barrier check that lost that warp's "waiting" term, m6 of small's seed-1 sample
 * on 0d585dd, released its partner early there and passed every other case).
 */
#include "warpforge.h"

struct params {
    uint32_t *out;
    uint32_t spin;
    uint32_t delay;
    uint32_t exit_warp;
    uint32_t delay_warp;
};

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_tid(), c = wf_ctaid();
    uint32_t w = t / wf_nlanes();
    uint32_t acc = t + 1;
    if (c + 1 < wf_nctaid()) {
        if (w != q->exit_warp) {
            for (uint32_t i = 0; i < q->spin; i++)
                acc = acc * 3 + i;
        }
    } else {
        if (w == q->delay_warp) {
            for (uint32_t i = 0; i < q->delay; i++)
                acc = acc * 5 + i;
        }
        wf_barrier();
        acc += 7;
    }
    q->out[wf_gtid()] = acc;
}
