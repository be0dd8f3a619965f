/*
 * shared_bounds - the shared window's upper bound, checked in every lane (docs/isa.md §5, §8).
 *
 * Parameters: out (u32 *, block words), which, victim_cta, victim_tid (fault_kernel.h).
 * The CTA has 36 bytes of shared memory (9 words), so the last offset a word access may use is
 * 32 (0b100000) and a byte access 35 (0b100011): bits 2-4 of the limit are 0, and a lane whose
 * limit check set one of them (or compared one bit wrongly) would accept the access just past
 * the window. fault_mem's 64-byte window has those bits 1. Threads 0-8 store their tid to
 * their word of the window, a barrier, every thread reads word (tid + 1) % 9; then the victim
 * thread, alone in its warp, executes with a0 = 0x10000024 (the window's end):
 *   0 wf_fault_sw  `sw`              out-of-range-store
 *   1 wf_fault_lbu `lbu`             out-of-range-load
 * The cases put the victim in every lane, so each lane's own check is the one that must fault.
 */
#include "fault_kernel.h"

WF_FAULT_FN(wf_fault_sw, "    sw a1, 0(a0)")
WF_FAULT_FN(wf_fault_lbu, "    lbu a0, 0(a0)")

void wf_fault_sw(uint32_t addr, uint32_t v);
uint32_t wf_fault_lbu(uint32_t addr);

WF_SHARED static volatile uint32_t sh[9];

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_tid();
    if (t < 9)
        sh[t] = t;
    wf_barrier();
    uint32_t v = sh[(t + 1) % 9];
    if (wf_ctaid() == q->victim_cta && t == q->victim_tid) {
        uint32_t end = (uint32_t)&sh[9];
        if (q->which == 0)
            wf_fault_sw(end, t);
        else
            v = wf_fault_lbu(end);
    }
    q->out[wf_gtid()] = v;
}
