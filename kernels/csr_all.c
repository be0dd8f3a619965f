/*
 * csr_all - every CSR of docs/isa.md §3.2, read by every thread.
 *
 * Parameters: out (u32 *, 16 words per thread), raw (u32 *, 6 words per thread).
 * out[gtid*16 + j]:
 *   0 tid  1 ctaid  2 ntid  3 nctaid  4 gtid  5 laneid  6 warpid < nwarps (1)
 *   7 smid < nsms (1)  8 nlanes  9 nwarps
 *   10 nsms  11 tmask (uniform code)  12 tmask read on each side of a lane-parity branch
 *   (odd lanes: the mask; even lanes: the mask | 0x80000000)  13 param == a0 (1)
 *   14 instret after - before, three instructions apart (3), 15 instreth (0, and
 *   1 << 16 unless a later cycle read is larger than an earlier one)
 * raw[gtid*7 + j]: 0 stack_top, 1 cycle, 2 param, 3 warpid, 4 smid, 5 cycleh, 6 instret after
 * a loop of about 300 instructions (co-simulation starts each warp's instret at the counter base's
 * low word, at most 256 below 2^32: this read is past the wrap, its upper bits 0 where the first
 * read's were 1, so a stuck bit of the stored count shows either way): values the Rust
 * reference does not predict (they depend on the memory size, the RTL's timing, the host's
 * placement, and on which SM and slots the RTL's dispatcher gives a CTA, which lock-step lets
 * differ from docs/isa.md §6's order, and on the counter base co-simulation starts the cycle
 * counter from), but lock-step co-simulation compares every one of them with the golden model.
 */
#include "warpforge.h"

struct params {
    uint32_t *out;
    uint32_t *raw;
};

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    uint32_t *o = q->out + g * 16;
    uint32_t *r = q->raw + g * 7;
    o[0] = wf_tid();
    o[1] = wf_ctaid();
    o[2] = wf_ntid();
    o[3] = wf_nctaid();
    o[4] = g;
    o[5] = wf_laneid();
    uint32_t warp = wf_warpid(), sm = wf_smid();
    o[6] = warp < wf_nwarps();
    o[7] = sm < wf_nsms();
    o[8] = wf_nlanes();
    o[9] = wf_nwarps();
    o[10] = wf_nsms();
    o[11] = wf_tmask();
    uint32_t m;
    if (wf_laneid() & 1) {
        WF_KEEP_BRANCH();
        m = wf_tmask();
    } else {
        WF_KEEP_BRANCH();
        m = wf_tmask() | 0x80000000u;
    }
    o[12] = m;
    o[13] = wf_param() == (uint32_t)p;
    uint32_t i0, i1, c0, c1, hi, ih;
    __asm__ volatile("csrr %0, 0xC02\n\t"
                     "csrr %1, 0xC00\n\t"
                     "nop\n\t"
                     "csrr %2, 0xC02\n\t"
                     "csrr %3, 0xC00"
                     : "=&r"(i0), "=&r"(c0), "=&r"(i1), "=&r"(c1));
    __asm__ volatile("csrr %0, 0xC80\n\t"
                     "csrr %1, 0xC82"
                     : "=&r"(hi), "=&r"(ih));
    o[14] = i1 - i0;
    o[15] = ih | (c1 > c0 ? 0 : 1u << 16);
    r[0] = wf_stack_top();
    r[1] = c0;
    r[2] = wf_param();
    r[3] = warp;
    r[4] = sm;
    r[5] = hi;
    for (uint32_t k = 0; k < 100; k++)
        __asm__ volatile("nop");
    uint32_t i2;
    __asm__ volatile("csrr %0, 0xC02" : "=r"(i2));
    r[6] = i2;
}
