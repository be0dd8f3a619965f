/*
 * return_lanes - `AtReturn` reconvergence (docs/isa.md §4: the branch reads `ra` of the lowest
 * active lane as its reconvergence PC) with the lowest active lane at every lane but the first
 * and the last, from 40 call sites whose return addresses set every bit 2-9.
 *
 * Parameters: in, out, n. Thread gtid < n, lane l:
 *   x = (in[gtid] & ~1) | (l & 1)        (x's parity alternates over the lanes)
 *   for k in 1 .. lanes-2:  if (l >= k) x = rl_chain(x)     (lanes below k inactive)
 *   out[gtid] = x
 * rl_chain calls, from 40 back-to-back `jal`s, rl_leaf, rl_leaf, rl_first, rl_leaf, rl_leaf,
 * rl_first, ... Both leaves never write ra and return through two `ret`s, so their parity
 * branch reconverges `AtReturn`; each side flips x's parity, so the active lanes still
 * alternate and the branch diverges in every call:
 *   rl_leaf(x)  = x & 1 ? x + 3 : x ^ 0x55       two instructions before the branch, so `ra`
 *                                                (written by the jal) comes from the register
 *                                                file's banks
 *   rl_first(x) = x & 1 ? x + 0x101 : x ^ 0x3c3  the branch is its first instruction (on a1 =
 *                                                x & 1, which the caller and each leaf leave):
 *                                                `ra` often arrives by the writeback forward
 *                                                path
 * The leaves sit at the start of a 1 KiB-aligned block and rl_chain 0x3a0 bytes into it, so
 * the return addresses run from 0x3b0 to 0x44c past the block's start: every bit 2-9 is 1 at
 * some call site and 0 at another.
 *
 * Why (issue 11): the other kernels' `AtReturn` branches come from a few call sites (a few
 * values of ra), and a mutant that tied bit 6 of one lane's `ra` operand, read from the
 * register-file banks, to 0 passed the whole regression. With many warps busy (the full-SM
 * and 3-CTA cases) the collector reads `ra` from the banks rather than the writeback bypass.
 */
#include "warpforge.h"

struct params {
    const uint32_t *in;
    uint32_t *out;
    uint32_t n;
};

#define RL_CALL3 "    jal rl_leaf\n    jal rl_leaf\n    jal rl_first\n"
#define RL_CALL12 RL_CALL3 RL_CALL3 RL_CALL3 RL_CALL3

/* norelax: the offsets below must be what the text says (no linker relaxation inside). */
__asm__(".section .text.return_lanes, \"ax\", @progbits\n"
        ".option push\n.option norelax\n"
        ".p2align 10\n"
        ".globl rl_leaf\n.type rl_leaf, @function\n"
        "rl_leaf:\n"
        "    addi t1, a0, 0\n"
        "    addi t2, a0, 0\n"
        "    andi t0, a0, 1\n"
        "    beqz t0, 1f\n"
        "    addi a0, a0, 3\n"
        "    andi a1, a0, 1\n"
        "    ret\n"
        "1:  xori a0, a0, 0x55\n"
        "    andi a1, a0, 1\n"
        "    ret\n"
        ".size rl_leaf, .-rl_leaf\n"
        ".globl rl_first\n.type rl_first, @function\n"
        "rl_first:\n"
        "    bnez a1, 1f\n"
        "    xori a0, a0, 0x3c3\n"
        "    andi a1, a0, 1\n"
        "    ret\n"
        "1:  addi a0, a0, 0x101\n"
        "    andi a1, a0, 1\n"
        "    ret\n"
        ".size rl_first, .-rl_first\n"
        /* nops up to rl_leaf + 0x3a0 */
        "    .fill (0x3a0 - (. - rl_leaf)) / 4, 4, 0x00000013\n"
        ".globl rl_chain\n.type rl_chain, @function\n"
        "rl_chain:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    andi a1, a0, 1\n"
        RL_CALL12 RL_CALL12 RL_CALL12 RL_CALL3
        "    jal rl_leaf\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size rl_chain, .-rl_chain\n"
        /* gas pads the section to its alignment with zero words: make that padding nops */
        ".balignl 1024, 0x00000013\n"
        ".option pop\n"
        ".text\n");

uint32_t rl_chain(uint32_t x);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    if (g >= q->n)
        return;
    uint32_t lane = wf_laneid(), lanes = wf_nlanes();
    uint32_t x = (q->in[g] & ~1u) | (lane & 1);
    for (uint32_t k = 1; k + 1 < lanes; k++) {
        if (lane >= k) {
            WF_KEEP_BRANCH();
            x = rl_chain(x);
        }
    }
    q->out[g] = x;
}
