/*
 * fetch_race - a warp redirected to a wild PC while the other warps keep fetching: its first
 * fetch of the new PC may lose fetch arbitration for a few cycles, during which its fetch PC
 * register holds the redirect target (docs/microarch/fetch.md).
 *
 * Parameters: out (u32 per thread), value, shrt, lng, jumper. Every thread writes out[gtid] =
 * gtid, then runs fr_spin, a straight-line ALU loop (9 instructions a round): `lng` rounds,
 * except the warp `jumper` of CTA 0, which runs `shrt` rounds and then calls fr_jump: `jalr ra,
 * 0(a0)` with a0 = value in every lane (value 4-aligned, far out): out-of-range-fetch at
 * value (SM 0, warp slot jumper).
 *
 * Why (issue 11): the per-slot wild jumps of fault_ctrl happen with the other warps idle or
 * exiting, so the fetch PC register's hold path never carried a wild PC across a lost
 * arbitration; a mutant that flipped bit 22 of warp 2's held fetch PC when bit 29 was set (m128
 * of tiny-f22e1cadb3df8a06's sample: fetched 0xaaeaaaa8 for 0xaaaaaaa8) passed the regression.
 * It shows for some `shrt` only (on `tiny`: 1, 6, 9 with zero memory, 2, 6, 13 with random
 * memory of seed 1), so the cases sweep it.
 */
#include "warpforge.h"

struct params {
    uint32_t *out;
    uint32_t value;
    uint32_t shrt;
    uint32_t lng;
    uint32_t jumper;
};

__asm__(".text\n"
        ".globl fr_spin\n.type fr_spin, @function\n.p2align 2\n"
        "fr_spin:\n"
        "1:  addi a1, a1, 3\n"
        "    xori a2, a1, 5\n"
        "    add a3, a2, a1\n"
        "    addi a4, a0, 7\n"
        "    xor a5, a4, a3\n"
        "    addi t0, a5, 1\n"
        "    addi t1, a1, 2\n"
        "    addi a0, a0, -1\n"
        "    bnez a0, 1b\n"
        "    add a0, t0, t1\n"
        "    ret\n"
        ".size fr_spin, .-fr_spin\n"
        ".globl fr_jump\n.type fr_jump, @function\n.p2align 2\n"
        "fr_jump:\n"
        "    jalr ra, 0(a0)\n"
        "    ret\n"
        ".size fr_jump, .-fr_jump\n");

uint32_t fr_spin(uint32_t n, uint32_t x);
void fr_jump(uint32_t target);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    q->out[t] = t;
    if (wf_ctaid() == 0 && wf_tid() / wf_nlanes() == q->jumper) {
        q->out[t] = fr_spin(q->shrt, t);
        fr_jump(q->value);
    } else {
        q->out[t] = fr_spin(q->lng, t);
    }
}
