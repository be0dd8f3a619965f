/*
 * fault_mem - memory accesses that fault (docs/isa.md §3.1, §5, §8): misaligned, and outside
 * every region. The fault names the lowest faulting lane and its address.
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid.
 * Every thread writes out[gtid] = gtid ^ 0x69690000 and keeps a shared word (so the CTA has
 * 64 bytes of shared memory); the victim thread (CTA victim_cta, thread victim_tid) then executes, as the first
 * instruction of its own function, with a0 = the address:
 *   0 wf_fault_lw  `lw` of &out[gtid] + 2         misaligned-load
 *   1 wf_fault_sh  `sh` to &out[gtid] + 1         misaligned-store
 *   2 wf_fault_lw  `lw` of 0x00000100             out-of-range-load (instruction memory)
 *   3 wf_fault_sw  `sw` to 0x10000040             out-of-range-store (the shared window
 *                                                 past the CTA's 64 bytes)
 *   4 wf_fault_lbu `lbu` of 0x7fffffff            out-of-range-load (just below global)
 */
#include "fault_kernel.h"

WF_FAULT_FN(wf_fault_lw, "    lw a0, 0(a0)")
WF_FAULT_FN(wf_fault_sh, "    sh a1, 0(a0)")
WF_FAULT_FN(wf_fault_sw, "    sw a1, 0(a0)")
WF_FAULT_FN(wf_fault_lbu, "    lbu a0, 0(a0)")

uint32_t wf_fault_lw(uint32_t addr);
void wf_fault_sh(uint32_t addr, uint32_t v);
void wf_fault_sw(uint32_t addr, uint32_t v);
uint32_t wf_fault_lbu(uint32_t addr);

WF_SHARED static volatile uint32_t sh[16];

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    sh[wf_tid() % 16] = t;
    q->out[t] = t ^ 0x69690000u;
    if (wf_ctaid() == q->victim_cta && wf_tid() == q->victim_tid) {
        uint32_t w = q->which, v = 0;
        uint32_t mine = (uint32_t)&q->out[t];
        if (w == 0)
            v = wf_fault_lw(mine + 2);
        else if (w == 1)
            wf_fault_sh(mine + 1, t);
        else if (w == 2)
            v = wf_fault_lw(0x100);
        else if (w == 3)
            wf_fault_sw(0x10000040u, t);
        else
            v = wf_fault_lbu(0x7fffffffu);
        q->out[t] = v;
    }
}
