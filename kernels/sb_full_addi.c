/*
 * sb_full_addi - sb_full (a warp's scoreboard full, then an independent instruction at the head
 * of a long dependent chain) with a short ALU write as the fourth pending write, so that the
 * scoreboard is full while an operand collector is free.
 *
 * Parameters: mem (1 word per thread), out. Thread gtid: x = 7 gtid + 100, y = gtid + 3,
 * out[gtid] = sb5(&mem[gtid], x, y):
 *   drain: an add chain through a0, a1, a2 and ra into `add x0` (every entry free)
 *   divu t0 = x / y (in the divider); lw t1 = mem[gtid] (in the LSU); divu t2 = y / x (waits in
 *          a collector for the divider); addi t3 = x + 3 (a short ALU write, the fourth entry
 *          of `tiny`: its collector frees at dispatch)
 *   addi t4 = x + 1   independent, but needs an entry: only the scoreboard's `full` holds it
 *   48 x `add t4, t4, x`, each behind the one before
 *   return t0 + t1 + t2 + t3 + t4 = x/y + w + y/x + (x + 3) + (x + 1 + 48 x)
 *
 * Why (issue 11): in sb_full the fourth write is a second `divu`, which waits in a collector,
 * so `full` coincided with both collectors busy and the issue stage closed; a mutant whose
 * `full` was never 1 (m78 of tiny-f22e1cadb3df8a06's sample) granted the addi a few cycles
 * early, every value right: the kernel's cycle count shows it under `random` memory (the other
 * warps' jitter lines the state up), grid 2 with blocks of 2 and 4 warps.
 */
#include "warpforge.h"

struct params {
    const uint32_t *mem;
    uint32_t *out;
};

#define SB5_ADD4 "    add t4, t4, a1\n    add t4, t4, a1\n    add t4, t4, a1\n    add t4, t4, a1\n"
#define SB5_ADD16 SB5_ADD4 SB5_ADD4 SB5_ADD4 SB5_ADD4

__asm__(".text\n.globl sb5_run\n.type sb5_run, @function\n.p2align 2\n"
        "sb5_run:\n"
        "    add t5, a0, a1\n"
        "    add t5, t5, a2\n"
        "    add t5, t5, ra\n"
        "    add x0, t5, x0\n"
        "    divu t0, a1, a2\n"
        "    lw t1, 0(a0)\n"
        "    divu t2, a2, a1\n"
        "    addi t3, a1, 3\n"
        "    addi t4, a1, 1\n"
        SB5_ADD16 SB5_ADD16 SB5_ADD16 /* SB_FULL_CHAIN */
        "    add a0, t0, t1\n"
        "    add a0, a0, t2\n"
        "    add a0, a0, t3\n"
        "    add a0, a0, t4\n"
        "    ret\n"
        ".size sb5_run, .-sb5_run\n");

uint32_t sb5_run(const uint32_t *mem, uint32_t x, uint32_t y);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    q->out[g] = sb5_run(q->mem + g, g * 7 + 100, g + 3);
}
