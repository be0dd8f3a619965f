/*
 * barrier_slots - a CTA barrier that waits for the late warp, for every warp slot.
 *
 * One CTA fills an SM (every warp slot). In round r (0 .. warps of the CTA - 1) the CTA's warp r
 * is late: it runs a dependent divide chain before it writes its lanes' words; every warp
 * then meets at the barrier and reads a word warp r wrote. A barrier that releases before
 * warp r arrives (e.g. one slot always counted as arrived) reads the previous round's word.
 *   sh[(r*lanes + lane) % 256] = (r << 16) ^ tid ^ delay(r)   (warp r only)
 *   barrier; acc = acc * 31 + sh[(r*lanes + (tid+1) % lanes) % 256] (threads whose partner
 *   lane exists); barrier
 * out[gtid] = acc.
 * The late warp reaches each first barrier, and every warp its exit, with a divide in flight
 * (its result unused): a barrier or a CTA's end that does not wait for the warp's pending
 * instructions changes the kernel's cycle count.
 *
 * Parameters: out (grid*block words). Any grid; block as large as an SM.
 */
#include "warpforge.h"

struct params {
    uint32_t *out;
};

WF_SHARED static volatile uint32_t sh[256];

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t tid = wf_tid(), lanes = wf_nlanes(), ntid = wf_ntid();
    uint32_t warp = tid / lanes, lane = tid % lanes;
    uint32_t nw = (ntid + lanes - 1) / lanes;
    uint32_t acc = 0;
    for (uint32_t r = 0; r < nw; r++) {
        if (warp == r) {
            uint32_t d = r + 0x12345;
            for (uint32_t k = 0; k < 4; k++) {
                __asm__ volatile("divu %0, %0, %1" : "+r"(d) : "r"(3u));
                d += 0x1000;
            }
            sh[(r * lanes + lane) % 256] = (r << 16) ^ tid ^ d;
            /* A divide still in flight when the late warp reaches the barrier: the barrier
             * waits for the warp's earlier instructions (docs/microarch/sm.md, "Barriers"),
             * so a barrier that does not (the warp's pending tags lost) releases ~30 cycles
             * early, which the regression's cycle check sees. Its result is not used. */
            uint32_t pending;
            __asm__ volatile("divu %0, %1, %2" : "=r"(pending) : "r"(d), "r"(7u));
        }
        wf_barrier();
        uint32_t partner = (lane + 1) % lanes;
        if (r * lanes + partner < ntid)
            acc = acc * 31 + sh[(r * lanes + partner) % 256];
        wf_barrier();
    }
    q->out[wf_gtid()] = acc;
    /* Every warp ends with a divide in flight: a warp stays live until its instructions
     * complete, so its CTA ends (and the next CTA takes its slots) after the divide is written
     * back, not when the warp exits. */
    uint32_t pending;
    __asm__ volatile("divu %0, %1, %2" : "=r"(pending) : "r"(acc), "r"(3u));
}
