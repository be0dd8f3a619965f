/*
 * cta_slots - CTAs whose warps end at different times, so that new CTAs launch beside CTAs that
 * still hold their CTA slot: over the grid, CTAs take the high CTA slots of an SM with their
 * warps in many different warp slots (the SM's warp-to-CTA map, docs/microarch/sm.md), and
 * every barrier must wait for exactly the warps of its own CTA.
 *
 * Parameters: out (grid*block words), spin (grid words: rounds of CTA c's wait). Block <= 64.
 * Thread t of CTA c; the CTA's last warp (t / nlanes == (ntid - 1) / nlanes) is the waiter:
 *   the waiter waits spin[c] rounds (a dependent divide each); every thread stores
 *   sh[t] = (c << 16) ^ (t << 8) ^ 0x5A; barrier; v = sh[(t + nlanes) % ntid] (in a two-warp
 *   CTA, warp 0 reads words the waiter stored after its wait: a barrier that let warp 0
 *   through early reads 0). Other warps: out[gtid] = v, exit. The waiter waits spin[c] rounds
 *   again (its CTA slot stays taken while the other warps' slots are reused),
 *   sh[64 + t] = sh[t] ^ 0xFFFF0000 (not sh[t]: warp 0 may still be reading it), barrier (its
 *   CTA's only live warp), out[gtid] = v ^ sh[64 + t].
 */
#include "warpforge.h"

#define CTA_SLOTS_WORDS 128

struct params {
    uint32_t *out;
    const uint32_t *spin;
};

WF_SHARED static volatile uint32_t sh[CTA_SLOTS_WORDS];

static void wait_rounds(uint32_t n)
{
    uint32_t d = 1000;
    for (uint32_t k = 0; k < n; k++)
        __asm__ volatile("divu %0, %0, %1\n\taddi %0, %0, 777" : "+r"(d) : "r"(3u));
}

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_tid(), c = wf_ctaid(), ntid = wf_ntid(), lanes = wf_nlanes();
    uint32_t spin = q->spin[c];
    uint32_t waiter = t / lanes == (ntid - 1) / lanes;
    if (waiter)
        wait_rounds(spin);
    sh[t] = (c << 16) ^ (t << 8) ^ 0x5Au;
    wf_barrier();
    uint32_t v = sh[(t + lanes) % ntid];
    if (!waiter) {
        q->out[c * ntid + t] = v;
        return;
    }
    wait_rounds(spin);
    sh[64 + t] = sh[t] ^ 0xFFFF0000u;
    wf_barrier();
    q->out[c * ntid + t] = v ^ sh[64 + t];
}
