/*
 * huge_grid - launches of 2^31 CTAs and more, which no run can finish: CTA 0 reads the launch
 * CSRs and then stops the kernel with a breakpoint, so a short run still carries nctaid's high
 * bits through the launch registers and the CSR read (issue 11: bit 31 of the nctaid read tied
 * to 0 passed every other run).
 *
 * Parameters: out (u32 *, block words).
 * Every thread of CTA 0 writes out[tid] = nctaid ^ (ntid << 16) ^ gtid ^ (laneid << 8), then
 * thread 0 executes `ebreak` as the first instruction of wf_fault_ebreak. The other CTAs exit
 * at once (they are launched beside CTA 0 as warp slots free up, until the breakpoint).
 */
#include "fault_kernel.h"

WF_FAULT_FN(wf_fault_ebreak, "    ebreak")

void wf_fault_ebreak(void);

WF_KERNEL(p)
{
    uint32_t *out = *(uint32_t *const *)p;
    if (wf_ctaid() != 0)
        return;
    uint32_t t = wf_tid();
    out[t] = wf_nctaid() ^ (wf_ntid() << 16) ^ wf_gtid() ^ (wf_laneid() << 8);
    if (t == 0)
        wf_fault_ebreak();
}
