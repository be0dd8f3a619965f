/*
 * fault_sys - faults on purpose: illegal encodings, ecall, ebreak (docs/isa.md §3.1, §8).
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid.
 * Every thread writes out[gtid] = gtid ^ 0x5a5a0000; the victim thread (CTA victim_cta, thread victim_tid) then
 * executes the faulting instruction selected by `which`, each the first instruction of its
 * own function (so a case names the fault's pc as that function):
 *   0 wf_fault_slli32  `slli a0, a0, 32` (imm[5] = 1: illegal-instruction)
 *   1 wf_fault_simt3   custom-0 with funct3 = 3 (illegal-instruction)
 *   2 wf_fault_ecall   ecall (ecall)
 *   3 wf_fault_ebreak  ebreak (breakpoint)
 * The kernel stops on that fault; the case expects it field by field (SM, warp slot, pc,
 * cause; these causes have no lane and no address).
 */
#include "fault_kernel.h"

WF_FAULT_FN(wf_fault_slli32, "    .4byte 0x02051513")
WF_FAULT_FN(wf_fault_simt3, "    .insn r 0x0B, 3, 0, x0, x0, x0")
WF_FAULT_FN(wf_fault_ecall, "    ecall")
WF_FAULT_FN(wf_fault_ebreak, "    ebreak")

void wf_fault_slli32(void);
void wf_fault_simt3(void);
void wf_fault_ecall(void);
void wf_fault_ebreak(void);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    q->out[t] = t ^ 0x5a5a0000u;
    if (wf_ctaid() == q->victim_cta && wf_tid() == q->victim_tid) {
        uint32_t w = q->which;
        if (w == 0)
            wf_fault_slli32();
        else if (w == 1)
            wf_fault_simt3();
        else if (w == 2)
            wf_fault_ecall();
        else
            wf_fault_ebreak();
    }
}
