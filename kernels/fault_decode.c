/*
 * fault_decode - encodings outside RV32IM that the decoder must refuse (docs/isa.md §3.1, §8):
 * for each opcode that RV32IM uses only with some funct3/funct7 values, one that it does not.
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid.
 * Every thread writes out[gtid] = gtid ^ 0x5a5a0000; the victim thread (CTA victim_cta, thread
 * victim_tid) then executes the encoding selected by `which`, each the first instruction of
 * its own function (so a case names the fault's pc as that function):
 *   0 fd_ld      load with funct3 = 3 (`ld`, RV64)
 *   1 fd_lwu     load with funct3 = 6 (`lwu`, RV64)
 *   2 fd_sd      store with funct3 = 3 (`sd`, RV64)
 *   3 fd_br2     branch with funct3 = 2 (no such branch)
 *   4 fd_jalr1   jalr with funct3 = 1
 *   5 fd_sll20   OP `sll` with funct7 = 0x20 (only sub, sra and srai have bit 30)
 *   6 fd_op7f    opcode 0x7f (no such opcode)
 *   7 fd_late    opcode 0x7f as the fourth instruction, behind a `div` and an `add` that
 *                waits for it: the illegal word is fetched while the `add` waits at the head
 *                of the I-buffer, so it lands in the buffer's second entry, not its first
 * Each must raise illegal-instruction at its own pc (fd_late: its fourth word). Before this
 * kernel a decoder that took loads with funct3 3, 6 or 7 as legal passed every run (m191 of
 * tiny's seed-1 sample on 01a7446, docs/mutation.md). Every other faulting word of the
 * regression is the first of a function, fetched after a jump into an empty I-buffer, so a
 * second entry's fault flag inverted at its push (m22 of small's seed-1 sample on 67bd937:
 * the illegal word then reported as out-of-range-fetch) passed every run; case 7 runs in every
 * warp slot of both SMs.
 */
#include "fault_kernel.h"

WF_FAULT_FN(fd_ld, "    .4byte 0x0005b503")    /* ld a0, 0(a1) */
WF_FAULT_FN(fd_lwu, "    .4byte 0x0005e503")   /* lwu a0, 0(a1) */
WF_FAULT_FN(fd_sd, "    .4byte 0x00b5b023")    /* sd a1, 0(a1) */
WF_FAULT_FN(fd_br2, "    .4byte 0x00002063")   /* branch funct3 2: x0, x0, .+0 */
WF_FAULT_FN(fd_jalr1, "    .4byte 0x00001567") /* jalr funct3 1: a0, 0(x0) */
WF_FAULT_FN(fd_sll20, "    .4byte 0x40b51533") /* sll a0, a0, a1 with funct7 0x20 */
WF_FAULT_FN(fd_op7f, "    .4byte 0x0000007f")   /* opcode 0x7f */
WF_FAULT_FN(fd_late, "    li t1, 3\n    div t0, a0, t1\n    add a0, t0, a0\n    .4byte 0x0000007f")

void fd_ld(void);
void fd_lwu(void);
void fd_sd(void);
void fd_br2(void);
void fd_jalr1(void);
void fd_sll20(void);
void fd_op7f(void);
void fd_late(uint32_t);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    q->out[t] = t ^ 0x5a5a0000u;
    if (wf_ctaid() == q->victim_cta && wf_tid() == q->victim_tid) {
        switch (q->which) {
        case 0: fd_ld(); break;
        case 1: fd_lwu(); break;
        case 2: fd_sd(); break;
        case 3: fd_br2(); break;
        case 4: fd_jalr1(); break;
        case 5: fd_sll20(); break;
        case 6: fd_op7f(); break;
        default: fd_late(t); break;
        }
    }
}
