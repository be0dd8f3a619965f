/*
 * fault_csr - CSR accesses that docs/isa.md §3.2 makes illegal: every CSR is read-only, and an
 * unknown CSR number is illegal.
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid.
 * Every thread writes out[gtid] = gtid ^ 0x3c3c0000; the victim thread (CTA victim_cta, thread victim_tid) then
 * executes, as the first instruction of its own function:
 *   0 wf_fault_csrrw   `csrrw a0, wf_tid, x0`   (csrrw is a write whatever rs1 is)
 *   1 wf_fault_csrrs   `csrrs a0, wf_tid, a0`   (rs1 != x0: a write)
 *   2 wf_fault_csrrci  `csrrci a0, wf_ntid, 1`  (uimm != 0: a write)
 *   3 wf_fault_csr_cce `csrr a0, 0xCCE`         (one past the last warpforge CSR)
 *   4 wf_fault_csr_c01 `csrr a0, 0xC01`         (`time`: a standard CSR warpforge lacks)
 *   5-11 wf_fault_csr_near_*  `csrr a0, 0xCC0 ^ (1 << k)`, k = 4, 5, 7 … 11: unknown CSR
 *                             numbers one bit of the upper eight away from the warpforge range
 *                             (k = 6 gives 0xC80, `cycleh`, a real CSR)
 * Each is illegal-instruction (no lane, no address). Before 5-11, a decoder that took bit 10
 * of the CSR number as 1 when matching the warpforge range (so 0x8C0 … 0x8CD were accepted)
 * passed every run (m79 of small's seed-1 sample on 67bd937).
 */
#include "fault_kernel.h"

WF_FAULT_FN(wf_fault_csrrw, "    csrrw a0, 0xCC0, x0")
WF_FAULT_FN(wf_fault_csrrs, "    csrrs a0, 0xCC0, a0")
WF_FAULT_FN(wf_fault_csrrci, "    csrrci a0, 0xCC2, 1")
WF_FAULT_FN(wf_fault_csr_cce, "    csrr a0, 0xCCE")
WF_FAULT_FN(wf_fault_csr_c01, "    csrr a0, 0xC01")
WF_FAULT_FN(wf_fault_csr_near_cd0, "    csrr a0, 0xCD0")
WF_FAULT_FN(wf_fault_csr_near_ce0, "    csrr a0, 0xCE0")
WF_FAULT_FN(wf_fault_csr_near_c40, "    csrr a0, 0xC40")
WF_FAULT_FN(wf_fault_csr_near_dc0, "    csrr a0, 0xDC0")
WF_FAULT_FN(wf_fault_csr_near_ec0, "    csrr a0, 0xEC0")
WF_FAULT_FN(wf_fault_csr_near_8c0, "    csrr a0, 0x8C0")
WF_FAULT_FN(wf_fault_csr_near_4c0, "    csrr a0, 0x4C0")

uint32_t wf_fault_csrrw(uint32_t);
uint32_t wf_fault_csrrs(uint32_t);
uint32_t wf_fault_csrrci(uint32_t);
uint32_t wf_fault_csr_cce(uint32_t);
uint32_t wf_fault_csr_c01(uint32_t);
uint32_t wf_fault_csr_near_cd0(uint32_t);
uint32_t wf_fault_csr_near_ce0(uint32_t);
uint32_t wf_fault_csr_near_c40(uint32_t);
uint32_t wf_fault_csr_near_dc0(uint32_t);
uint32_t wf_fault_csr_near_ec0(uint32_t);
uint32_t wf_fault_csr_near_8c0(uint32_t);
uint32_t wf_fault_csr_near_4c0(uint32_t);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    q->out[t] = t ^ 0x3c3c0000u;
    if (wf_ctaid() == q->victim_cta && wf_tid() == q->victim_tid) {
        uint32_t w = q->which, v;
        if (w == 0)
            v = wf_fault_csrrw(t);
        else if (w == 1)
            v = wf_fault_csrrs(t);
        else if (w == 2)
            v = wf_fault_csrrci(t);
        else if (w == 3)
            v = wf_fault_csr_cce(t);
        else if (w == 4)
            v = wf_fault_csr_c01(t);
        else if (w == 5)
            v = wf_fault_csr_near_cd0(t);
        else if (w == 6)
            v = wf_fault_csr_near_ce0(t);
        else if (w == 7)
            v = wf_fault_csr_near_c40(t);
        else if (w == 8)
            v = wf_fault_csr_near_dc0(t);
        else if (w == 9)
            v = wf_fault_csr_near_ec0(t);
        else if (w == 10)
            v = wf_fault_csr_near_8c0(t);
        else
            v = wf_fault_csr_near_4c0(t);
        q->out[t] = v;
    }
}
