/*
 * high_pc - divergence, reconvergence and calls at PCs whose bits 10-13 are set.
 *
 * Every other kernel's text fits in the first kilobyte of instruction memory, so PC bits 10-13
 * are 0 in every fetch, branch target, reconvergence PC (sidecar, SIMT stack, tag table) and
 * return address of the regression: a PC bit stuck at 0 there could not be seen. Here hp_far
 * starts at the first 8 KiB boundary (0x2000) and jumps over 7 KiB of nops to 0x3C00, where it
 * diverges and reconverges (at a PC with bits 10-13 set), calls the leaf hp_leaf (so `ra` is a
 * high PC too) whose lane-dependent branch reconverges at its return (`AtReturn`: the SIMT
 * stack's reconvergence PC is that high `ra`). The text ends below 0x4000: the kernel needs
 * 16 KiB of instruction memory (every preset has at least that).
 *
 *   acc = v
 *   for i in 0..rounds:
 *       u = v + i
 *       if (u % 3 != 0) acc += hp_far(u) + 1;  else acc ^= hp_far(u ^ 0xff) * 3;
 *   out[gtid] = acc
 *   hp_far(x)  = hp_leaf(x & 1 ? (x << 3) + 101 : (x >> 1) ^ 0x55)
 *   hp_leaf(y) = y & 2 ? y + 7 : y ^ 0x33
 *
 * Parameters: in, out, n, rounds.
 */
#include "warpforge.h"

struct params {
    const uint32_t *in;
    uint32_t *out;
    uint32_t n;
    uint32_t rounds;
};

/* norelax: with linker relaxation, `.p2align 13` reserves 8 KiB of padding the linker only
 * partly removes, and the text would end beyond 16 KiB. */
__asm__(".text\n"
        ".option push\n.option norelax\n"
        ".p2align 13\n"
        ".globl hp_far\n.type hp_far, @function\n"
        "hp_far:\n"
        "    j 1f\n"
        "    .fill 1791, 4, 0x00000013\n" /* nop: 1 lands at hp_far + 0x1c00 */
        "1:  andi t0, a0, 1\n"
        "    beqz t0, 2f\n"
        "    slli a0, a0, 3\n"
        "    addi a0, a0, 101\n"
        "    j 3f\n"
        "2:  srli a0, a0, 1\n"
        "    xori a0, a0, 0x55\n"
        "3:  mv t5, ra\n"
        "    jal ra, hp_leaf\n"
        "    mv ra, t5\n"
        "    ret\n"
        ".size hp_far, .-hp_far\n"
        ".globl hp_leaf\n.type hp_leaf, @function\n.p2align 2\n"
        "hp_leaf:\n"
        "    andi t0, a0, 2\n"
        "    beqz t0, 1f\n"
        "    addi a0, a0, 7\n"
        "    ret\n"
        "1:  xori a0, a0, 0x33\n"
        "    ret\n"
        ".size hp_leaf, .-hp_leaf\n"
        /* gas pads the section to its alignment with zero words; padding it here with a
         * 4-byte fill makes that padding nops */
        ".balignl 8192, 0x00000013\n"
        ".option pop\n");

uint32_t hp_far(uint32_t x);

/* The kernel body goes right after crt0 (.text.startup is linked before .text), not after
 * hp_far where it would end beyond 16 KiB. */
void kernel(const void *params) __attribute__((section(".text.startup.kernel")));

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    if (g >= q->n)
        return;
    uint32_t v = q->in[g], acc = v;
    for (uint32_t i = 0; i < q->rounds; i++) {
        uint32_t u = v + i;
        if (u % 3 != 0) {
            WF_KEEP_BRANCH();
            acc += hp_far(u) + 1;
        } else {
            WF_KEEP_BRANCH();
            acc ^= hp_far(u ^ 0xff) * 3;
        }
    }
    q->out[g] = acc;
}
