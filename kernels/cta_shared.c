/*
 * cta_shared - several CTAs resident on one SM at once, each in its own shared-memory window.
 *
 * CTA_SHARED_WORDS words of static shared memory per CTA. Every thread first adds its words
 * sh[w] (w = tid, tid + ntid, …) to acc before anything is stored: zero, since a CTA's shared
 * memory is zero when it starts (docs/isa.md; the third case runs twice as many CTAs as fit,
 * so later CTAs start in windows earlier ones filled). Then, for r in 0..rounds:
 * writes sh[(w + r) % CTA_SHARED_WORDS] = (ctaid << 20) ^ (r << 12) ^ w for its words w = tid, tid + ntid,
 * …; waits (three dependent divides, so that the other resident CTAs write their windows
 * meanwhile; acc += the last quotient & 1); barrier; acc += sh[(tid + 1 + r) % CTA_SHARED_WORDS]; barrier.
 * out[gtid] = acc, and window[ctaid*CTA_SHARED_WORDS + w] = sh[w] at the end
 * (cta_shared_narrow.c builds it with 5 words).
 * A CTA whose window overlaps another's (a wrong shared base) reads the other's values.
 *
 * Parameters: out (grid*block words), window (grid*CTA_SHARED_WORDS words: each CTA's window at the end),
 * rounds. Block <= 64.
 */
#include "warpforge.h"

#ifndef CTA_SHARED_WORDS
#define CTA_SHARED_WORDS 64
#endif

struct params {
    uint32_t *out;
    uint32_t *window;
    uint32_t rounds;
};

WF_SHARED static volatile uint32_t sh[CTA_SHARED_WORDS];

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t tid = wf_tid(), cta = wf_ctaid(), ntid = wf_ntid();
    uint32_t acc = 0;
    for (uint32_t w = tid; w < CTA_SHARED_WORDS; w += ntid)
        acc += sh[w];
    for (uint32_t r = 0; r < q->rounds; r++) {
        for (uint32_t w = tid; w < CTA_SHARED_WORDS; w += ntid)
            sh[(w + r) % CTA_SHARED_WORDS] = (cta << 20) ^ (r << 12) ^ w;
        uint32_t d = tid + 1000;
        for (uint32_t k = 0; k < 3; k++) {
            __asm__ volatile("divu %0, %0, %1" : "+r"(d) : "r"(3u));
            d += 777;
        }
        acc += d & 1;
        wf_barrier();
        acc += sh[(tid + 1 + r) % CTA_SHARED_WORDS];
        wf_barrier();
    }
    q->out[cta * ntid + tid] = acc;
    for (uint32_t w = tid; w < CTA_SHARED_WORDS; w += ntid)
        q->window[cta * CTA_SHARED_WORDS + w] = sh[w];
}
