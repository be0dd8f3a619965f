/*
 * wild_ctrl - control transfers whose targets lie far outside the text, in the branch unit's
 * fault, divergent-branch and reconvergence paths (docs/isa.md §4, §8).
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid, value.
 * Every thread writes out[gtid] = gtid ^ 0x3c3d0000. Then the threads of the victim's warp
 * from the victim up (CTA victim_cta, threads victim_tid .. the end of its warp: the victim's
 * lane is the lowest active lane) call:
 *   0 wc_jmis(value)   value 4-aligned: `jalr ra, 2(a0)` (4 bytes in) with a0 = value in
 *        every lane: misaligned-fetch, the lowest active lane, address value + 2. With
 *        0x55555554 and 0xAAAAAAA8 each bit 2-31 of the fault address is 1 once and 0 once.
 *   1 wc_wrap(gtid)    `beq t0, x0, .-4096` 16 bytes into wc_wrap (below 4 KiB, so the
 *        target wraps to 0xFFFFFxxx, outside the text: the loader takes the taken edge as an
 *        exit and the branch reconverges `AtReturn`), taken only in the warp's last lane: a
 *        minority (or a tie of two), so the taken side, at the wild target, runs first:
 *        out-of-range-fetch there.
 *   2 wc_hret(gtid, value)  ra = value + the first `ret` of the leaf wc_hleaf (16 bytes in),
 *        entered with `jalr t0` (ra kept): its lane-parity branch reconverges `AtReturn` at
 *        that ra; both sides return there: out-of-range-fetch at value + that `ret`. The RPC
 *        with value's one bit cleared is the `ret` the not-taken side fetches just before:
 *        an RPC compare in fetch that lost that bit ends the side's fetch block early.
 * The fault's record: the victim's SM and warp slot.
 *
 * Why (issue 11, mutants of tiny-f22e1cadb3df8a06's sample): every misaligned target of the
 * other kernels is in the text, so a branch-unit fault address with bit 13 flipped when bit
 * 20 is set (m16) passed the regression; no divergent branch had a target outside the text,
 * so the split's first-side PC with bit 1 flipped when bit 20 is set (m112: the side fetched
 * 0xfffff022 for 0xfffff020) passed; and fetch's "next PC is the top-of-stack RPC" compare
 * with the RPC's bit 18 tied to 0 (m12) only cost cycles (the kernel's cycle count: 539
 * against 546 on `tiny` with zero memory, value 0x40000 in warp slot 2).
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
        ".globl wc_jmis\n.type wc_jmis, @function\n.p2align 2\n"
        "wc_jmis:\n"
        "    mv t5, ra\n"
        "    jalr ra, 2(a0)\n" /* every lane: value + 2, misaligned */
        "    mv ra, t5\n"
        "    ret\n"
        ".size wc_jmis, .-wc_jmis\n"

        ".globl wc_wrap\n.type wc_wrap, @function\n.p2align 2\n"
        "wc_wrap:\n"
        "    csrr t0, 0xCC5\n" /* laneid */
        "    csrr t1, 0xCC8\n" /* nlanes */
        "    addi t1, t1, -1\n"
        "    sub t0, t0, t1\n"     /* 0 only in the last lane */
        "    .4byte 0x80028063\n"  /* beq t0, x0, .-4096: wraps below 0 */
        "    addi a0, a0, 1\n"
        "    ret\n"
        ".size wc_wrap, .-wc_wrap\n"

        ".globl wc_hleaf\n.type wc_hleaf, @function\n.p2align 2\n"
        "wc_hleaf:\n"
        "    csrr t2, 0xCC5\n" /* laneid */
        "    andi t2, t2, 1\n"
        "    bnez t2, 1f\n" /* AtReturn: the RPC is ra = value + .Lwc_hit */
        "    addi a0, a0, 1\n"
        ".Lwc_hit:\n"
        "    ret\n"
        "1:  addi a0, a0, 2\n"
        "    ret\n"
        ".size wc_hleaf, .-wc_hleaf\n"

        ".globl wc_hret\n.type wc_hret, @function\n.p2align 2\n"
        "wc_hret:\n"
        "    la t1, .Lwc_hit\n"
        "    add ra, a1, t1\n" /* ra = value + .Lwc_hit */
        "    la t1, wc_hleaf\n"
        "    jalr t0, 0(t1)\n"
        "    ret\n"
        ".size wc_hret, .-wc_hret\n");

void wc_jmis(uint32_t value);
uint32_t wc_wrap(uint32_t x);
void wc_hret(uint32_t x, uint32_t value);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    uint32_t lanes = wf_nlanes();
    uint32_t tid = wf_tid();
    q->out[t] = t ^ 0x3c3d0000u;
    if (wf_ctaid() == q->victim_cta && tid / lanes == q->victim_tid / lanes &&
        tid >= q->victim_tid) {
        uint32_t w = q->which;
        if (w == 0)
            wc_jmis(q->value);
        else if (w == 1)
            q->out[t] = wc_wrap(t);
        else
            wc_hret(t, q->value);
    }
}
