/*
 * isa_ops - every RV32IM operation on edge-case operands, each forced by inline assembly (so
 * the compiler can neither fold nor replace it): out[gtid*ISA_OPS_WORDS + j] for threads
 * gtid < n, with a = a_in[gtid], b = b_in[gtid].
 *
 *  0 add  1 sub  2 sll  3 slt  4 sltu  5 xor  6 srl  7 sra  8 or  9 and
 * 10 mul 11 mulh 12 mulhsu 13 mulhu 14 div 15 divu 16 rem 17 remu
 * 18 addi -2048  19 slti -1  20 sltiu -1  21 xori -1  22 ori 0x555  23 andi -256
 * 24 slli 0  25 slli 1  26 slli 31  27 srli 0  28 srli 1  29 srli 31  30 srai 0  31 srai 1
 * 32 srai 31  33 lui 0xfffff (then + a)
 * 34..37: a stored to scratch[gtid], then lb +3, lbu +1, lh +2, lhu +0
 * 38: sb b at +1, sh b at +2 over it, then lw
 * 39..44: beq bne blt bge bltu bgeu a, b taken (1) or not (0)
 * 45: sw b and lw back through a base 2044 bytes above the word (offsets -2044: the S- and
 *     I-type immediates' sign extension); 46: lh of its upper half at -2 from the next word
 * 47..53 in shared memory (word tid of a 64-word static array; threads tid >= 64 of a CTA use
 *     their scratch word again and then store b there, as 45 left it), at the offsets 34..38
 *     leave out: a stored, then lb +0,
 *     lbu +2, lh +0, lhu +2; 51: sb b at +0, sh b at +2, lw; 52: sb b at +3 and +2, lw;
 *     53: sh b at +0, sb b at +1, lw (the load/store unit's shared-memory path has byte lanes
 *     and a sign extension of its own)
 *
 * Before them, four fences (no-ops; a fault would stop the run).
 *
 * Parameters: a_in, b_in, scratch (n words), out (n * ISA_OPS_WORDS words), n.
 */
#include "warpforge.h"

#define ISA_OPS_WORDS 54
#define ISA_OPS_SHARED_WORDS 64

WF_SHARED static volatile uint32_t isa_sh[ISA_OPS_SHARED_WORDS];

struct params {
    const uint32_t *a;
    const uint32_t *b;
    uint32_t *scratch;
    uint32_t *out;
    uint32_t n;
};

#define R(op, i) __asm__ volatile(op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); o[i] = r
#define I(op, imm, i) __asm__ volatile(op " %0, %1, " #imm : "=r"(r) : "r"(a)); o[i] = r
/* A load of `base + off` into o[i]; two stores of b at `base + off1` and `base + off2` then the
 * word at base into o[i]. */
#define LD(op, off, base, i)                                                                 \
    __asm__ volatile(op " %0, " #off "(%1)" : "=r"(r) : "r"(base) : "memory");               \
    o[i] = r
#define ST2(op1, off1, op2, off2, base, i)                                                   \
    __asm__ volatile(op1 " %1, " #off1 "(%2)\n\t" op2 " %1, " #off2 "(%2)\n\tlw %0, 0(%2)"     \
                     : "=&r"(r)                                                              \
                     : "r"(b), "r"(base)                                                     \
                     : "memory");                                                            \
    o[i] = r
#define BR(op, i)                                                                            \
    __asm__ volatile("li %0, 1\n\t" op " %1, %2, 1f\n\tli %0, 0\n1:"                         \
                     : "=&r"(r)                                                              \
                     : "r"(a), "r"(b));                                                      \
    o[i] = r

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    if (g >= q->n)
        return;
    uint32_t a = q->a[g], b = q->b[g], r;
    uint32_t *o = q->out + g * ISA_OPS_WORDS;
    /* The fences are no-ops (docs/isa.md §3): fence, fence.i, fence.tso, and fence.i with its
     * rd, rs1 and immediate fields set (accepted whatever they hold; rd not written). No other
     * kernel executes one: a decoder that took every fence for illegal (m109 of `tiny`'s
     * seed-1 sample on f2149a4) passed every run. */
    __asm__ volatile("fence\n\tfence.i\n\t.4byte 0x8330000f\n\t.4byte 0xfff3128f" ::: "memory");
    R("add", 0);
    R("sub", 1);
    R("sll", 2);
    R("slt", 3);
    R("sltu", 4);
    R("xor", 5);
    R("srl", 6);
    R("sra", 7);
    R("or", 8);
    R("and", 9);
    R("mul", 10);
    R("mulh", 11);
    R("mulhsu", 12);
    R("mulhu", 13);
    R("div", 14);
    R("divu", 15);
    R("rem", 16);
    R("remu", 17);
    I("addi", -2048, 18);
    I("slti", -1, 19);
    I("sltiu", -1, 20);
    I("xori", -1, 21);
    I("ori", 0x555, 22);
    I("andi", -256, 23);
    I("slli", 0, 24);
    I("slli", 1, 25);
    I("slli", 31, 26);
    I("srli", 0, 27);
    I("srli", 1, 28);
    I("srli", 31, 29);
    I("srai", 0, 30);
    I("srai", 1, 31);
    I("srai", 31, 32);
    __asm__ volatile("lui %0, 0xfffff\n\tadd %0, %0, %1" : "=&r"(r) : "r"(a));
    o[33] = r;
    volatile uint32_t *s = q->scratch + g;
    uint8_t *sb = (uint8_t *)s;
    *s = a;
    LD("lb", 3, sb, 34);
    LD("lbu", 1, sb, 35);
    LD("lh", 2, sb, 36);
    LD("lhu", 0, sb, 37);
    ST2("sb", 1, "sh", 2, sb, 38);
    BR("beq", 39);
    BR("bne", 40);
    BR("blt", 41);
    BR("bge", 42);
    BR("bltu", 43);
    BR("bgeu", 44);
    uint32_t t;
    __asm__ volatile("addi %1, %2, 2044\n\tsw %3, -2044(%1)\n\tlw %0, -2044(%1)"
                     : "=&r"(r), "=&r"(t)
                     : "r"(sb), "r"(b)
                     : "memory");
    o[45] = r;
    __asm__ volatile("addi %1, %2, 4\n\tlh %0, -2(%1)" : "=&r"(r), "=&r"(t) : "r"(sb) : "memory");
    o[46] = r;
    uint32_t tid = wf_tid();
    volatile uint32_t *w = tid < ISA_OPS_SHARED_WORDS ? &isa_sh[tid] : s;
    uint8_t *wb = (uint8_t *)w;
    *w = a;
    LD("lb", 0, wb, 47);
    LD("lbu", 2, wb, 48);
    LD("lh", 0, wb, 49);
    LD("lhu", 2, wb, 50);
    ST2("sb", 0, "sh", 2, wb, 51);
    ST2("sb", 3, "sb", 2, wb, 52);
    ST2("sh", 0, "sb", 1, wb, 53);
    *s = b; /* a thread that used its scratch word again leaves b there, as op 45 did */
}
