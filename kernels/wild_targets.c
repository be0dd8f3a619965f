/*
 * wild_targets - a multi-lane indirect call and an `AtReturn` reconvergence whose PCs lie far
 * outside the text, each ending in out-of-range-fetch (docs/isa.md §4, §8).
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid, value.
 * Every thread writes out[gtid] = gtid ^ 0x3c3c0000. Then the threads of the victim's warp
 * from the victim up (CTA victim_cta, threads victim_tid .. the end of its warp: the victim's
 * lane is the lowest active lane) call:
 *   0, 1 wt_jalr(value, which)  value odd: lane l's rs1 is value in the lanes whose parity is
 *        `which`, value - 1 in the others, imm 0, so every lane's target is (rs1 + 0) & ~1 =
 *        value - 1: ONE group, a uniform indirect call (link written in every active lane),
 *        then out-of-range-fetch at value - 1. The branch unit groups the lanes whose rs1
 *        equals the lowest active lane's or its neighbour (a_adj: lowest's rs1 - 1 when that
 *        is odd, + 1 when even, for an even imm); `which` and the victim's lane choose which.
 *   2    wt_ret(gtid, value)  value 4-aligned or odd: wt_ret sets ra = value and enters the leaf
 *        wt_leaf with `jalr t0` (an indirect call that links in t0, so ra is kept; the loader
 *        accepts it as a call). wt_leaf never writes ra and returns through two `ret`s, so its
 *        lane-parity branch reconverges `AtReturn`: the SIMT stack's RPC is ra = value. The
 *        first side runs and returns to ra = RPC: popped; the other side likewise; the warp
 *        then fetches value with every active lane: out-of-range-fetch at value. An RPC bit
 *        lost or flipped anywhere (branch unit, stack, top of stack) makes the first side's
 *        return miss the RPC: it fetches value alone, before the other side has run.
 *        With value odd the return goes to value & ~1, which misses the RPC (value): the
 *        first side fetches value & ~1 alone, and the other side never runs (the RPC's bit 0
 *        is 1 only in these cases).
 * The fault's record: out-of-range-fetch, the victim's SM and warp slot, pc = address = the
 * wild PC (no lane).
 *   3    wt_ret2(gtid, value)  as 2, with a second split inside the leaf's first side
 *        (lanes with bit 1 of laneid set) that reconverges within the leaf: that side's
 *        stack entry, whose RPC is ra = value, is refilled at the join and must still pop at
 *        ra, so the other side runs before the warp fetches value. A refill that flipped the
 *        RPC's bit 24 when bit 21 is set (m166 of tiny's seed-1 sample on 837fe20) fetched
 *        value with the first side alone; 0xAAAAAAA8 and 0x55555554 in warp slots 0, 1, 2.
 * Case 2 runs also with every lane that can be the lowest active one (0 … lanes-2) as the
 * victim, with 0xAAAAAAA8 and with 0x55555554: the RPC is that lane's ra, and each lane's ra
 * has its own operand-collector RAM bits, dispatch-register bits and bypass path.
 *
 * Why (issue 11): in every other kernel multi-lane jalrs and AtReturn reconvergence stay
 * within the first 16 KiB, so the upper bits of the jalr grouping compare (a_adj) and of the
 * AtReturn reconvergence PC (ra read by the branch unit, the stack's RPC) were 0 in every
 * run; a mutant flipping a_adj bit 23 with bit 17 (the group lost its odd lanes) and one
 * flipping the RPC's bit 6 with bit 20 passed the whole regression. The cases use 0x00020001 /
 * 0xAAAAAAA9 / 0x55555555 (jalr; the last two once with the lowest active lane's rs1 odd and
 * once even, so a_adj is formed both ways) and 0x00100040 / 0xAAAAAAA8 / 0x55555554 (ra):
 * bits 2-31 each 1 in one and 0 in another.
 */
#include "warpforge.h"

struct params {
    uint32_t *out;
    uint32_t which;
    uint32_t victim_cta; /* the lowest active lane of the faulting warp: CTA and thread index */
    uint32_t victim_tid;
    uint32_t value;
};

__asm__(".text\n"
        ".globl wt_jalr\n.type wt_jalr, @function\n.p2align 2\n"
        "wt_jalr:\n"
        "    csrr t0, 0xCC5\n" /* laneid */
        "    xor t0, t0, a1\n"
        "    andi t0, t0, 1\n" /* 0 in the lanes whose parity is `which` */
        "    sub t1, a0, t0\n" /* those: value, the others: value - 1 */
        "    mv t5, ra\n"
        "    jalr ra, 0(t1)\n" /* every lane: target value - 1 */
        "    mv ra, t5\n"
        "    ret\n"
        ".size wt_jalr, .-wt_jalr\n"

        ".globl wt_leaf\n.type wt_leaf, @function\n.p2align 2\n"
        "wt_leaf:\n"
        "    csrr t2, 0xCC5\n" /* laneid */
        "    andi t2, t2, 1\n"
        "    bnez t2, 1f\n" /* AtReturn: the RPC is ra */
        "    addi a0, a0, 1\n"
        "    ret\n"
        "1:  addi a0, a0, 2\n"
        "    ret\n"
        ".size wt_leaf, .-wt_leaf\n"

        ".globl wt_ret\n.type wt_ret, @function\n.p2align 2\n"
        "wt_ret:\n"
        "    mv ra, a1\n" /* ra = value */
        "    la t1, wt_leaf\n"
        "    jalr t0, 0(t1)\n"
        "    ret\n"
        ".size wt_ret, .-wt_ret\n"

        /* which 3: wt_leaf's AtReturn split, with a second split inside its first side that
           reconverges within the leaf, so that side's entry (RPC = ra) is refilled at the
           join before it returns: the refilled RPC must still be ra. */
        ".globl wt_leaf2\n.type wt_leaf2, @function\n.p2align 2\n"
        "wt_leaf2:\n"
        "    csrr t2, 0xCC5\n" /* laneid */
        "    andi t3, t2, 2\n"
        "    bnez t3, 3f\n" /* AtReturn: the RPC is ra; lanes with bit 1 set first */
        "    addi a0, a0, 1\n"
        "    addi a0, a0, 7\n"
        "    ret\n"
        "3:  andi t4, t2, 1\n"
        "    bnez t4, 4f\n" /* reconverges at 4: (the RPC entry above is refilled there) */
        "    addi a0, a0, 3\n"
        "4:  addi a0, a0, 5\n"
        "    ret\n"
        ".size wt_leaf2, .-wt_leaf2\n"

        ".globl wt_ret2\n.type wt_ret2, @function\n.p2align 2\n"
        "wt_ret2:\n"
        "    mv ra, a1\n" /* ra = value */
        "    la t1, wt_leaf2\n"
        "    jalr t0, 0(t1)\n"
        "    ret\n"
        ".size wt_ret2, .-wt_ret2\n");

void wt_jalr(uint32_t value, uint32_t which);
void wt_ret(uint32_t x, uint32_t value);
void wt_ret2(uint32_t x, uint32_t value);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    uint32_t lanes = wf_nlanes();
    uint32_t tid = wf_tid();
    q->out[t] = t ^ 0x3c3c0000u;
    if (wf_ctaid() == q->victim_cta && tid / lanes == q->victim_tid / lanes &&
        tid >= q->victim_tid) {
        if (q->which <= 1)
            wt_jalr(q->value, q->which);
        else if (q->which == 2)
            wt_ret(t, q->value);
        else
            wt_ret2(t, q->value);
    }
}
