/*
 * fault_ctrl - control transfers that fault (docs/isa.md §3.1, §4, §8).
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid.
 * Every thread writes out[gtid] = gtid ^ 0x96960000. Cases 0-2 and 5-8: the victim thread (CTA victim_cta, thread victim_tid)
 * alone; cases 3-4: every thread of the victim's warp:
 *   0 wf_fault_jal     `jal x0, .+6`             misaligned-fetch (target reported, no lane)
 *   1 wf_fault_jalr    `jalr ra, 2(a0)`, a0 = &wf_fault_jalr   misaligned-fetch (lane and
 *                                                target reported)
 *   2 wf_fault_jalr    a0 = 0x01000000 - 2       out-of-range-fetch at 0x01000000 (past the
 *                                                instruction memory of every preset)
 *   3 wf_fault_divret  `ret` with ra = landing pad A in lanes 0-1, B in lanes 2..: divergent-jump
 *                                                (the lowest lane whose target differs: 2)
 *   4 wf_fault_unrec   an indirect call into the middle of a function, to a conditional
 *                                                branch the loader never analysed, which
 *                                                diverges (lane parity): unknown-reconvergence
 *   5 wf_fault_jalback `jal x0, .-0x100000`      out-of-range-fetch at wf_fault_jalback - 1 MiB
 *                                                (wraps: bits 20-31 set; a jal target, not jalr)
 *   6 wf_fault_jalbackm `jal x0, .-0x100000+2`  misaligned-fetch at wf_fault_jalbackm - 1 MiB + 2
 *                                                (wraps and misaligned: the branch unit's
 *                                                misaligned-target check and fault address with
 *                                                bits 20-31 set)
 *   7 wf_fault_jalr    a0 = 0xAAAAAAA8 - 2       out-of-range-fetch at 0xAAAAAAA8
 *   8 wf_fault_jalr    a0 = 0x55555554 - 2       out-of-range-fetch at 0x55555554
 *                      (cases 7-8: every PC bit from 2 to 31 is 1 in one and 0 in the other, on
 *                      its way through fetch to the fault record: a PC bit lost anywhere on
 *                      that path is a wrong fault PC; the case list repeats them for every warp
 *                      slot)
 *  16+s wf_fault_divret_at `ret` with ra = landing pad A in lanes below s, B in the others, for
 *                                                every split s = 1 … L−1 (every thread of the
 *                                                victim's warp): divergent-jump with lane s, so the
 *                                                branch unit's pick of the lowest differing lane
 *                                                reports every lane (case 3 reports only lane 2:
 *                                                lane 1's pick tied to 0, m156 of `tiny`'s seed-1
 *                                                sample on f2149a4, passed every run)
 */
#include "fault_kernel.h"

__asm__(".text\n"
        ".globl wf_fault_jal\n.type wf_fault_jal, @function\n.p2align 2\n"
        "wf_fault_jal:\n"
        "    .4byte 0x0060006f\n" /* jal x0, .+6 */
        "    ret\n"
        "    ret\n"
        ".size wf_fault_jal, .-wf_fault_jal\n"

        ".globl wf_fault_jalr\n.type wf_fault_jalr, @function\n.p2align 2\n"
        "wf_fault_jalr:\n"
        "    jalr ra, 2(a0)\n"
        "    ret\n"
        ".size wf_fault_jalr, .-wf_fault_jalr\n"

        ".globl wf_fault_jalback\n.type wf_fault_jalback, @function\n.p2align 2\n"
        "wf_fault_jalback:\n"
        "    .4byte 0x8000006f\n" /* jal x0, .-0x100000 (the most negative jal offset) */
        "    ret\n"
        ".size wf_fault_jalback, .-wf_fault_jalback\n"

        ".globl wf_fault_jalbackm\n.type wf_fault_jalbackm, @function\n.p2align 2\n"
        "wf_fault_jalbackm:\n"
        "    .4byte 0x8020006f\n" /* jal x0, .-0x100000+2 (wraps below 0, misaligned) */
        "    ret\n"
        ".size wf_fault_jalbackm, .-wf_fault_jalbackm\n"

        ".globl wf_fault_divret\n.type wf_fault_divret, @function\n.p2align 2\n"
        "wf_fault_divret:\n"
        "    csrr t0, 0xCC5\n"
        "    sltiu t0, t0, 2\n"       /* 1 in lanes 0-1 */
        "    la t1, 1f\n"
        "    la t2, 2f\n"
        "    sub t3, t2, t1\n"
        "    mul t3, t3, t0\n"
        "    sub ra, t2, t3\n"       /* lanes 0-1: 1f, the others: 2f */
        "    ret\n"
        "1:  li a0, 1\n"
        "    .4byte 0x0000000b\n"     /* wf.exit */
        "2:  li a0, 2\n"
        "    .4byte 0x0000000b\n"     /* wf.exit */
        ".size wf_fault_divret, .-wf_fault_divret\n"

        ".globl wf_fault_divret_at\n.type wf_fault_divret_at, @function\n.p2align 2\n"
        "wf_fault_divret_at:\n"
        "    csrr t0, 0xCC5\n"
        "    sltu t0, t0, a0\n"       /* 1 in lanes below the split a0 */
        "    la t1, 1f\n"
        "    la t2, 2f\n"
        "    sub t3, t2, t1\n"
        "    mul t3, t3, t0\n"
        "    sub ra, t2, t3\n"       /* lanes below a0: 1f, the others: 2f */
        "    ret\n"
        "1:  li a0, 1\n"
        "    .4byte 0x0000000b\n"     /* wf.exit */
        "2:  li a0, 2\n"
        "    .4byte 0x0000000b\n"     /* wf.exit */
        ".size wf_fault_divret_at, .-wf_fault_divret_at\n"

        ".globl wf_fault_unrec\n.type wf_fault_unrec, @function\n.p2align 2\n"
        "wf_fault_unrec:\n"
        "    ret\n"
        /* wf_fault_unrec + 4: not a symbol, so the loader sees only the ret above */
        "    csrr t0, 0xCC5\n"
        "    andi t0, t0, 1\n"
        "    bnez t0, 1f\n"
        "    addi a0, a0, 1\n"
        "1:  ret\n"
        ".size wf_fault_unrec, .-wf_fault_unrec\n");

void wf_fault_jal(void);
void wf_fault_jalr(uint32_t target_minus_2);
void wf_fault_divret(void);
void wf_fault_divret_at(uint32_t split);
void wf_fault_jalback(void);
void wf_fault_jalbackm(void);
void wf_fault_unrec(void);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    uint32_t lanes = wf_nlanes();
    q->out[t] = t ^ 0x96960000u;
    uint32_t w = q->which;
    if (w >= 16) {
        if (wf_ctaid() == q->victim_cta && wf_tid() / lanes == q->victim_tid / lanes)
            wf_fault_divret_at(w - 16);
    } else if (w <= 2 || w >= 5) {
        if (wf_ctaid() == q->victim_cta && wf_tid() == q->victim_tid) {
            if (w == 0)
                wf_fault_jal();
            else if (w == 1)
                wf_fault_jalr((uint32_t)&wf_fault_jalr);
            else if (w == 2)
                wf_fault_jalr(0x01000000u - 2);
            else if (w == 5)
                wf_fault_jalback();
            else if (w == 6)
                wf_fault_jalbackm();
            else if (w == 7)
                wf_fault_jalr(0xAAAAAAA8u - 2);
            else
                wf_fault_jalr(0x55555554u - 2);
        }
    } else if (wf_ctaid() == q->victim_cta && wf_tid() / lanes == q->victim_tid / lanes) {
        if (w == 3) {
            wf_fault_divret();
        } else {
            uintptr_t a = (uintptr_t)&wf_fault_unrec + 4;
            __asm__("" : "+r"(a)); /* an indirect call, not a jal the loader would follow */
            void (*f)(void) = (void (*)(void))a;
            f();
        }
    }
}
