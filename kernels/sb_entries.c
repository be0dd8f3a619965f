/*
 * sb_entries - every scoreboard entry's destination compared with rs1, rs2 and rd while its
 * write is pending, with destinations that set each bit of the register number both ways.
 *
 * Parameters: mem (2 words per thread: w0, w1), out. Thread gtid: x = 7 gtid + 100,
 * y = gtid + 3, out[gtid] = sbe_run(&mem[2 gtid], x, y), which runs 36 rounds. A round:
 *   divu A = x / y;  lw B = w0;  divu C = y / x;  lw D = w1   four pending writes: with every
 *          entry free before, they take entries 0-3 of `tiny` in that order (on `small`, with
 *          two, the third waits for a free one)
 *   then, on the k-th of them (R = A, B, C or D), one of
 *     rs2: add x0, x0, R      rs1: add x0, R, x0      rd: addi R, x0, 1
 *          each must wait for R's write (RAW on rs2 / rs1, WAW on rd). The readers write x0,
 *          which takes no entry, so they may issue while all four entries are pending and
 *          each entry's source compares decide in every round; the rd form needs an entry
 *          for its own write, so it waits for the first of the four to finish and checks the
 *          other three entries' destination compares
 *   acc += A + B + C + D, then `add x0, x0, acc` (so every entry is free again)
 * for k = 0..3, each of the three, and three register sets: (t0, t1, t2, a3) = (x5, x6, x7,
 * x13) and (s10, s9, s8, s2) = (x26, x25, x24, x18), whose numbers are complements of each
 * other entry by entry, so each entry's compare sees every bit of its destination as 0 and
 * as 1 against a source that must match it; and (a6, s0, tp, ra) = (x16, x8, x4, x1), one
 * bit set each, so the scoreboard's "not x0" test of a destination sees each bit alone (with
 * a bit of that test tied to 0, a write to x4 was not tracked at all: m194 of tiny's seed-1
 * sample on 837fe20; x2, the stack pointer, is the one such register left out).
 *
 * Why (issue 11): the other kernels' pending writes go to a few registers (sb_full's fourth
 * entry always holds x28), so a compare of entry 3's destination with rs2 whose bit 3 was
 * tied to 1 (m170 of tiny's seed-1 sample on 01a7446) never met a destination with bit 3
 * clear while its reader waited; it let the reader issue early, which lock-step reports as
 * an issue through a scoreboard hazard (the readers' results are not kept: the checker's
 * hazard rule at issue is what sees an early issue).
 */
#include "warpforge.h"

struct params {
    const uint32_t *mem;
    uint32_t *out;
};

#define SBE_PRODUCE(A, B, C, D)                                                               \
    "    divu " A ", a1, a2\n    lw " B ", 0(a0)\n    divu " C ", a2, a1\n    lw " D ", 4(a0)\n"
#define SBE_SUM(A, B, C, D)                                                                   \
    "    add t4, t4, " A "\n    add t4, t4, " B "\n    add t4, t4, " C "\n"                   \
    "    add t4, t4, " D "\n    add x0, x0, t4\n"
#define SBE_RS2(A, B, C, D, R) SBE_PRODUCE(A, B, C, D) "    add x0, x0, " R "\n" SBE_SUM(A, B, C, D)
#define SBE_RS1(A, B, C, D, R) SBE_PRODUCE(A, B, C, D) "    add x0, " R ", x0\n" SBE_SUM(A, B, C, D)
#define SBE_RD(A, B, C, D, R) SBE_PRODUCE(A, B, C, D) "    addi " R ", x0, 1\n" SBE_SUM(A, B, C, D)
#define SBE_ENTRY(A, B, C, D, R)                                                              \
    SBE_RS2(A, B, C, D, R) SBE_RS1(A, B, C, D, R) SBE_RD(A, B, C, D, R)
#define SBE_SET(A, B, C, D)                                                                   \
    SBE_ENTRY(A, B, C, D, A) SBE_ENTRY(A, B, C, D, B) SBE_ENTRY(A, B, C, D, C)              \
        SBE_ENTRY(A, B, C, D, D)

__asm__(".text\n.globl sbe_run\n.type sbe_run, @function\n.p2align 2\nsbe_run:\n"
        "    addi sp, sp, -32\n"
        "    sw s2, 0(sp)\n"
        "    sw s8, 4(sp)\n"
        "    sw s9, 8(sp)\n"
        "    sw s10, 12(sp)\n"
        "    sw s0, 16(sp)\n"
        "    sw tp, 20(sp)\n"
        "    sw ra, 24(sp)\n"
        "    addi t4, x0, 0\n"
        SBE_SET("t0", "t1", "t2", "a3")
        SBE_SET("s10", "s9", "s8", "s2")
        SBE_SET("a6", "s0", "tp", "ra")
        "    add a0, t4, x0\n"
        "    lw s2, 0(sp)\n"
        "    lw s8, 4(sp)\n"
        "    lw s9, 8(sp)\n"
        "    lw s10, 12(sp)\n"
        "    lw s0, 16(sp)\n"
        "    lw tp, 20(sp)\n"
        "    lw ra, 24(sp)\n"
        "    addi sp, sp, 32\n"
        "    ret\n"
        ".size sbe_run, .-sbe_run\n");

uint32_t sbe_run(const uint32_t *mem, uint32_t x, uint32_t y);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    q->out[g] = sbe_run(q->mem + 2 * g, g * 7 + 100, g + 3);
}
