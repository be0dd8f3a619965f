/*
 * tmc_masks - wf.tmc (docs/isa.md §4: the mask is read from the lowest active lane; every
 * active thread whose bit is clear ends as by wf.exit, the others go on) with masks that end
 * some lanes and keep others, a whole warp's end (mask 0), tmc inside one side of a divergent
 * branch, and tmc when the lowest active lane is not lane 0.
 *
 * Parameters: m1, m2, m3 (u32 per thread), out (u32 per thread). Thread gtid, lane l:
 *   out[gtid] = gtid ^ 0x7e570000
 *   wf_tmc(m1[gtid])                     the whole warp is active: the lowest lane's m1
 *   out[gtid] = gtid ^ 0x7e571000
 *   if (m2[gtid] >> 31) {                 a divergent side: the mask is read from the lowest
 *       wf_tmc(m2[gtid])                  active lane of that side; the other side's lanes
 *       out[gtid] = gtid ^ 0x7e572000     are live in the sibling stack entry
 *   }
 *   wf_tmc(m3[gtid])                     after the reconvergence: the lowest active lane is
 *   out[gtid] = gtid ^ 0x7e573000        often not lane 0
 * So out holds, per thread, the tag of the last step it lived through (tmc_masks_ref).
 *
 * Why (issue 11): no shipped kernel executed wf.tmc, so a mutant that inverted bit 1 of the
 * branch unit's tmc exit mask (m159 of tiny-f22e1cadb3df8a06's sample: wf_tmc(5) kept lane 1)
 * passed the whole regression. The cases give the warps the masks 5 (ends lane 1), 3 (keeps
 * it), 0 (the whole warp ends) and masks without lane 0 before the later tmcs.
 */
#include "warpforge.h"

struct params {
    const uint32_t *m1;
    const uint32_t *m2;
    const uint32_t *m3;
    uint32_t *out;
};

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    q->out[g] = g ^ 0x7e570000u;
    wf_tmc(q->m1[g]);
    q->out[g] = g ^ 0x7e571000u;
    uint32_t m2 = q->m2[g];
    if (m2 >> 31) {
        WF_KEEP_BRANCH();
        wf_tmc(m2);
        q->out[g] = g ^ 0x7e572000u;
    }
    wf_tmc(q->m3[g]);
    q->out[g] = g ^ 0x7e573000u;
}
