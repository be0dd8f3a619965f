/*
 * hazards - read-after-write (rs1, rs2) and write-after-write hazards behind every execution
 * unit's latency (ALU, multiplier, divider) and behind loads, written as dense dependency
 * chains in assembly (hz_run below), so that an instruction that issues before its operand
 * is written reads a stale register and gives a WRONG VALUE, not only other timing.
 *
 * Parameters: mem (4 words per thread: w0, w1, (&w0, written by the thread), w3), x_in, y_in, out
 * (HAZARDS_WORDS words per thread), n. Thread gtid < n runs hz_run(&mem[4*gtid], x, y,
 * &out[HAZARDS_WORDS*gtid]); out words:
 *  0 ALU chain: t0 = x+y; t1 = y-t0 (rs2); t2 = t1^x (rs1); t3 = x << t2 (rs2 = shift)
 *  1 MUL chain: t0 = x*y; t1 = y+t0 (rs2); t2 = mulh(t1, x) (rs1); t3 = t2 - y (rs1)
 *  2 DIV chain: t0 = x/y (u); t1 = x+t0 (rs2); t2 = t1 % y (signed rem; rs1); t3 = t2^t1
 *  3 LOAD chain: t1 = x + w0 (rs2); t3 = *(&w0 + 1) through the loaded pointer (address
 *    from a load) - t1
 *  4 w3 stored straight from its load (store data behind a load)
 *  5 WAW: t0 = x/y then t0 = x+7; t1 = x*y then t1 = y+5; t2 = w0 then t2 = x-3; read after
 *    a 34-cycle divide: (x/y) + t0 + t1 + t2 with the younger writes winning
 *  6-9 four pending writes (divu, mul, lw w1, add) in the four rotations of their order,
 *    each read by a consumer through rs2 (6, 7) or rs1 (8, 9); the XOR of the consumers
 * 10 branch on a loaded word: w0 == x ? 1 : 0 (bne rs1 behind a load)
 * 11 no false dependencies (timing): behind a divide into t4 (x29), `lui t5, 0xE8` (its rs1
 *    field, immediate bits, reads 29) and `addi t6, a1, 29` (its rs2 field reads 29) must not
 *    wait for t4: sixteen adds overlap the divide; then t4 is read for real:
 *    ((0xE8000 ^ (x + 29)) + 16 x) + x / y. An RTL that waits anyway gives the right value
 *    in more cycles, which the regression's cycle check reports (docs/verification.md).
 * 12 every tag in flight (docs/microarch/sm.md "Tags"): a divide and a load outstanding behind
 *    six multiplies whose sources are x0 (no bank read, so even two collector units dispatch
 *    one per cycle): x / y + w1 (the products are 0).
 */
#include "warpforge.h"

#define HAZARDS_WORDS 13

struct params {
    uint32_t *mem;
    const uint32_t *x;
    const uint32_t *y;
    uint32_t *out;
    uint32_t n;
};

/* Four producers p0..p3 (already chosen registers t0..t3), consumers into a4..a7. */
#define HZ_RS2                                                                               \
    "    add a4, a1, t0\n    add a5, a1, t1\n    add a6, a1, t2\n    add a7, a1, t3\n"
#define HZ_RS1                                                                               \
    "    sub a4, t0, a1\n    sub a5, t1, a1\n    sub a6, t2, a1\n    sub a7, t3, a1\n"
#define HZ_FOLD(off)                                                                         \
    "    xor a4, a4, a5\n    xor a6, a6, a7\n    xor a4, a4, a6\n    sw a4, " #off "(a3)\n"

__asm__(".text\n.globl hz_run\n.type hz_run, @function\n.p2align 2\n"
        "hz_run:\n"
        /* 0: ALU */
        "    add t0, a1, a2\n"
        "    sub t1, a2, t0\n"
        "    xor t2, t1, a1\n"
        "    sll t3, a1, t2\n"
        "    sw t3, 0(a3)\n"
        /* 1: MUL */
        "    mul t0, a1, a2\n"
        "    add t1, a2, t0\n"
        "    mulh t2, t1, a1\n"
        "    sub t3, t2, a2\n"
        "    sw t3, 4(a3)\n"
        /* 2: DIV */
        "    divu t0, a1, a2\n"
        "    add t1, a1, t0\n"
        "    rem t2, t1, a2\n"
        "    xor t3, t2, t1\n"
        "    sw t3, 8(a3)\n"
        /* 3, 4: LOAD */
        "    lw t0, 0(a0)\n"
        "    add t1, a1, t0\n"
        "    lw t2, 8(a0)\n"
        "    lw t3, 4(t2)\n"
        "    sub t4, t3, t1\n"
        "    sw t4, 12(a3)\n"
        "    lw t5, 12(a0)\n"
        "    sw t5, 16(a3)\n"
        /* 5: WAW */
        "    divu t0, a1, a2\n"
        "    addi t0, a1, 7\n"
        "    mul t1, a1, a2\n"
        "    addi t1, a2, 5\n"
        "    lw t2, 0(a0)\n"
        "    addi t2, a1, -3\n"
        "    divu t6, a1, a2\n"
        "    add t4, t6, t0\n"
        "    add t4, t4, t1\n"
        "    add t4, t4, t2\n"
        "    sw t4, 20(a3)\n"
        /* 6: divu, mul, lw, add; rs2 */
        "    divu t0, a1, a2\n    mul t1, a1, a2\n    lw t2, 4(a0)\n    add t3, a1, a2\n"
        HZ_RS2 HZ_FOLD(24)
        /* 7: mul, lw, add, divu; rs2 */
        "    mul t0, a1, a2\n    lw t1, 4(a0)\n    add t2, a1, a2\n    divu t3, a1, a2\n"
        HZ_RS2 HZ_FOLD(28)
        /* 8: lw, add, divu, mul; rs1 */
        "    lw t0, 4(a0)\n    add t1, a1, a2\n    divu t2, a1, a2\n    mul t3, a1, a2\n"
        HZ_RS1 HZ_FOLD(32)
        /* 9: add, divu, mul, lw; rs1 */
        "    add t0, a1, a2\n    divu t1, a1, a2\n    mul t2, a1, a2\n    lw t3, 4(a0)\n"
        HZ_RS1 HZ_FOLD(36)
        /* 10: branch behind a load */
        "    lw t0, 0(a0)\n"
        "    li t1, 0\n"
        "    bne t0, a1, 1f\n"
        "    li t1, 1\n"
        "1:  sw t1, 40(a3)\n"
        /* 11: no false dependencies */
        "    divu t4, a1, a2\n"
        "    lui t5, 0xE8\n"
        "    addi t6, a1, 29\n"
        "    xor t5, t5, t6\n"
        "    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n"
        "    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n"
        "    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n"
        "    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n    add t5, t5, a1\n"
        "    add t5, t5, t4\n"
        "    sw t5, 44(a3)\n"
        /* 12: every tag */
        "    divu t0, a1, a2\n"
        "    lw t1, 4(a0)\n"
        "    mul t2, zero, zero\n    mul t3, zero, zero\n    mul t4, zero, zero\n"
        "    mul t5, zero, zero\n    mul t6, zero, zero\n    mul a4, zero, zero\n"
        "    add t0, t0, t1\n    add t2, t2, t3\n    add t4, t4, t5\n    add t6, t6, a4\n"
        "    add t0, t0, t2\n    add t4, t4, t6\n    add t0, t0, t4\n"
        "    sw t0, 48(a3)\n"
        "    ret\n"
        ".size hz_run, .-hz_run\n");

void hz_run(uint32_t *mem, uint32_t x, uint32_t y, uint32_t *out);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    if (g >= q->n)
        return;
    uint32_t *m = q->mem + 4 * g;
    m[2] = (uint32_t)m; /* the pointer hz_run chases (a load behind this store) */
    hz_run(m, q->x[g], q->y[g], q->out + HAZARDS_WORDS * g);
}
