/*
 * sb_full - a warp whose scoreboard is full (docs/microarch/scheduler.md, "Scoreboard": one
 * entry per pending register write), then an independent instruction that may issue as soon as
 * one entry frees, at the head of a long dependent chain (sb_run below).
 *
 * Parameters: mem (2 words per thread: w0, w1), x, y, out, n. Thread gtid < n writes
 * out[gtid] = sb_run(&mem[2*gtid], x, y):
 *   drain: an add chain through a0, a1, a2 and ra into `add x0`, so no write of the caller is
 *          pending and every entry is free
 *   divu t0 = x / y;  lw t1 = w0;  divu t2 = y / x;  lw t3 = w1      four pending writes: the
 *          four entries of `tiny` (on `small`, with two, each waits for a free one)
 *   addi t4 = x + 1   needs only a free entry: the first load's, while both divides and the
 *          other load still hold theirs
 *   SB_FULL_CHAIN (48) x `add t4, t4, x`, each behind the one before: longer than a divide,
 *          so the cycle the addi issued in decides the warp's, and the kernel's, cycle count
 *   return t0 + t1 + t2 + t3 + t4 = x/y + w0 + y/x + w1 + (x + 1 + 48 x)   (divu by 0: ~0)
 *
 * Why (issue 11): a mutant whose scoreboard called itself full with entry 1 free and entries
 * 2 and 3 live (a constant of the `full` reduction inverted) only delayed that addi until
 * another entry freed: every value right, every lock-step record matched. It is caught by the
 * kernel's cycle count (tests/cycles, docs/verification.md "Timing"): the chain puts that
 * issue slot on the warp's critical path (every `tiny` case with `zero` or `random` memory;
 * with `long`, both loads return after the divides and the state never arises).
 */
#include "warpforge.h"

#define SB_FULL_CHAIN 48

struct params {
    const uint32_t *mem;
    const uint32_t *x;
    const uint32_t *y;
    uint32_t *out;
    uint32_t n;
};

#define SB_ADD4 "    add t4, t4, a1\n    add t4, t4, a1\n    add t4, t4, a1\n    add t4, t4, a1\n"
#define SB_ADD16 SB_ADD4 SB_ADD4 SB_ADD4 SB_ADD4

__asm__(".text\n.globl sb_run\n.type sb_run, @function\n.p2align 2\n"
        "sb_run:\n"
        "    add t5, a0, a1\n"
        "    add t5, t5, a2\n"
        "    add t5, t5, ra\n"
        "    add x0, t5, x0\n"
        "    divu t0, a1, a2\n"
        "    lw t1, 0(a0)\n"
        "    divu t2, a2, a1\n"
        "    lw t3, 4(a0)\n"
        "    addi t4, a1, 1\n"
        SB_ADD16 SB_ADD16 SB_ADD16 /* SB_FULL_CHAIN */
        "    add a0, t0, t1\n"
        "    add a0, a0, t2\n"
        "    add a0, a0, t3\n"
        "    add a0, a0, t4\n"
        "    ret\n"
        ".size sb_run, .-sb_run\n");

uint32_t sb_run(const uint32_t *mem, uint32_t x, uint32_t y);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    if (g >= q->n)
        return;
    q->out[g] = sb_run(q->mem + 2 * g, q->x[g], q->y[g]);
}
