/*
 * deep_divergence - branches and indirect calls nested 15 deep, each level leaving one lane
 * behind, so a warp's SIMT stack fills to its deepest levels (a warp of L lanes splits at most
 * L − 1 times this way).
 *
 * Parameters: rank, crank (u32 per thread: within each warp a permutation of 0 … L−1), init
 * (u32 per thread), out (u32 per thread). Thread g, acc = init[g]:
 *   dd_nest, with r = rank[g]:  for level k = 0 … 14, nested:
 *       if (r > k) { acc = acc * 3 + k (mul); acc += acc / (k + 3) (divu); <level k+1>;
 *                    acc ^= (k+1) << 8; }
 *   dd_call0, with r = crank[g]: function dd_callk (k = 0 … 14): acc = acc * 3 + k; then, for
 *       k < 14, an indirect call (`jalr ra`) of dd_call(k+1) if r > k, else of dd_stop (which
 *       returns at once), and acc ^= (k+1) << 8
 *   out[g] = acc                                                      (deep_divergence_ref)
 *
 * Both nests leave the lane of rank k behind at level k, so each level's branch or call
 * diverges; both are written in assembly, each level with its own reconvergence point (gcc
 * merged the C version's exits into one). Why two: a divergent branch runs its smaller side
 * first (docs/isa.md §4), here the one lane left behind, which reconverges at once, so the
 * branch nest grows the stack by one entry per level, to L + 1 entries; a divergent indirect
 * call runs the lowest active lane's group first, so with the ranks falling from lane 0 the
 * deeper group runs first while the lane left behind waits in its entry: two entries per
 * level, to 2L − 1, every level of a warp's stack (`simt_stack_depth` is 2L − 1 on `small`:
 * the stack's level bit 3 tied to 0, m46 of `small`'s seed-1 sample on 2ab1720, passed every
 * other kernel, none reaching level 8). Level 0's body also holds two divergent branches to
 * the next instruction (on bits 1 and 0 of acc), whose sides both reconverge at once: one at
 * the body's start, where the old top entry goes on at that next instruction, and one as the
 * body's last instruction, whose next instruction is level 0's reconvergence, so the old top
 * entry pops too (the stack's "both sides and the old top pop" case, which no other kernel
 * reached: its RPC compare with bit 22 inverted, m165 of `tiny`'s seed-1 sample on 0d585dd,
 * passed every run). The first case gives every warp those falling call
 * ranks; the others random permutations, so every lane is the deepest in some warp. The
 * branch nest's `mul` and `divu` run with the lanes left behind inactive, lane 0 among them
 * in most warps: a divider that wrote lane 0 whatever its mask (m161 of `tiny`'s seed-1
 * sample on f2149a4) would overwrite lane 0's waiting value.
 */
#include "warpforge.h"

__asm__(".text\n"
        ".globl dd_nest\n.type dd_nest, @function\n.p2align 2\n"
        "dd_nest:\n"
        "    li t0, 0\n"
        "    bgtu a0, t0, 100f\n"  /* taken: the deeper side, first */
        "    j 200f\n"
        "100: andi t2, a1, 2\n"
        "    bnez t2, 300f\n"  /* divergent, to the next instruction, inside level 0's body */
        "300: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 0\n"
        "    li t1, 3\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 1\n"
        "    bgtu a0, t0, 101f\n"  /* taken: the deeper side, first */
        "    j 201f\n"
        "101: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 1\n"
        "    li t1, 4\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 2\n"
        "    bgtu a0, t0, 102f\n"  /* taken: the deeper side, first */
        "    j 202f\n"
        "102: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 2\n"
        "    li t1, 5\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 3\n"
        "    bgtu a0, t0, 103f\n"  /* taken: the deeper side, first */
        "    j 203f\n"
        "103: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 3\n"
        "    li t1, 6\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 4\n"
        "    bgtu a0, t0, 104f\n"  /* taken: the deeper side, first */
        "    j 204f\n"
        "104: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 4\n"
        "    li t1, 7\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 5\n"
        "    bgtu a0, t0, 105f\n"  /* taken: the deeper side, first */
        "    j 205f\n"
        "105: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 5\n"
        "    li t1, 8\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 6\n"
        "    bgtu a0, t0, 106f\n"  /* taken: the deeper side, first */
        "    j 206f\n"
        "106: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 6\n"
        "    li t1, 9\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 7\n"
        "    bgtu a0, t0, 107f\n"  /* taken: the deeper side, first */
        "    j 207f\n"
        "107: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 7\n"
        "    li t1, 10\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 8\n"
        "    bgtu a0, t0, 108f\n"  /* taken: the deeper side, first */
        "    j 208f\n"
        "108: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 8\n"
        "    li t1, 11\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 9\n"
        "    bgtu a0, t0, 109f\n"  /* taken: the deeper side, first */
        "    j 209f\n"
        "109: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 9\n"
        "    li t1, 12\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 10\n"
        "    bgtu a0, t0, 110f\n"  /* taken: the deeper side, first */
        "    j 210f\n"
        "110: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 10\n"
        "    li t1, 13\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 11\n"
        "    bgtu a0, t0, 111f\n"  /* taken: the deeper side, first */
        "    j 211f\n"
        "111: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 11\n"
        "    li t1, 14\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 12\n"
        "    bgtu a0, t0, 112f\n"  /* taken: the deeper side, first */
        "    j 212f\n"
        "112: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 12\n"
        "    li t1, 15\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 13\n"
        "    bgtu a0, t0, 113f\n"  /* taken: the deeper side, first */
        "    j 213f\n"
        "113: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 13\n"
        "    li t1, 16\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t0, 14\n"
        "    bgtu a0, t0, 114f\n"  /* taken: the deeper side, first */
        "    j 214f\n"
        "114: li t1, 3\n"
        "    mul a1, a1, t1\n"
        "    addi a1, a1, 14\n"
        "    li t1, 17\n"
        "    divu t1, a1, t1\n"  /* the multiplier and divider with lanes left behind */
        "    add a1, a1, t1\n"
        "    li t1, 3840\n"  /* the end of level 14's body */
        "    xor a1, a1, t1\n"
        "214: li t1, 3584\n"  /* level 14's reconvergence, the end of level 13's body */
        "    xor a1, a1, t1\n"
        "213: li t1, 3328\n"  /* level 13's reconvergence, the end of level 12's body */
        "    xor a1, a1, t1\n"
        "212: li t1, 3072\n"  /* level 12's reconvergence, the end of level 11's body */
        "    xor a1, a1, t1\n"
        "211: li t1, 2816\n"  /* level 11's reconvergence, the end of level 10's body */
        "    xor a1, a1, t1\n"
        "210: li t1, 2560\n"  /* level 10's reconvergence, the end of level 9's body */
        "    xor a1, a1, t1\n"
        "209: li t1, 2304\n"  /* level 9's reconvergence, the end of level 8's body */
        "    xor a1, a1, t1\n"
        "208: li t1, 2048\n"  /* level 8's reconvergence, the end of level 7's body */
        "    xor a1, a1, t1\n"
        "207: li t1, 1792\n"  /* level 7's reconvergence, the end of level 6's body */
        "    xor a1, a1, t1\n"
        "206: li t1, 1536\n"  /* level 6's reconvergence, the end of level 5's body */
        "    xor a1, a1, t1\n"
        "205: li t1, 1280\n"  /* level 5's reconvergence, the end of level 4's body */
        "    xor a1, a1, t1\n"
        "204: li t1, 1024\n"  /* level 4's reconvergence, the end of level 3's body */
        "    xor a1, a1, t1\n"
        "203: li t1, 768\n"  /* level 3's reconvergence, the end of level 2's body */
        "    xor a1, a1, t1\n"
        "202: li t1, 512\n"  /* level 2's reconvergence, the end of level 1's body */
        "    xor a1, a1, t1\n"
        "201: li t1, 256\n"  /* level 1's reconvergence, the end of level 0's body */
        "    xor a1, a1, t1\n"
        "    andi t2, a1, 1\n"
        "    bnez t2, 200f\n"  /* divergent, to the next instruction: level 0's reconvergence */
        "200: mv a0, a1\n"  /* level 0's reconvergence */
        "    ret\n"
        ".size dd_nest, .-dd_nest\n"

        ".globl dd_call0\n.type dd_call0, @function\n.p2align 2\n"
        "dd_call0:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 0\n"
        "    la t2, dd_call1\n"
        "    li t0, 0\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 0 deeper, rank 0 to dd_stop */
        "    li t1, 256\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    mv a0, a1\n"  /* the result, to C (the nest keeps the rank in a0, acc in a1) */
        "    ret\n"
        ".size dd_call0, .-dd_call0\n"
        ".globl dd_call1\n.type dd_call1, @function\n.p2align 2\n"
        "dd_call1:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 1\n"
        "    la t2, dd_call2\n"
        "    li t0, 1\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 1 deeper, rank 1 to dd_stop */
        "    li t1, 512\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call1, .-dd_call1\n"
        ".globl dd_call2\n.type dd_call2, @function\n.p2align 2\n"
        "dd_call2:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 2\n"
        "    la t2, dd_call3\n"
        "    li t0, 2\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 2 deeper, rank 2 to dd_stop */
        "    li t1, 768\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call2, .-dd_call2\n"
        ".globl dd_call3\n.type dd_call3, @function\n.p2align 2\n"
        "dd_call3:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 3\n"
        "    la t2, dd_call4\n"
        "    li t0, 3\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 3 deeper, rank 3 to dd_stop */
        "    li t1, 1024\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call3, .-dd_call3\n"
        ".globl dd_call4\n.type dd_call4, @function\n.p2align 2\n"
        "dd_call4:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 4\n"
        "    la t2, dd_call5\n"
        "    li t0, 4\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 4 deeper, rank 4 to dd_stop */
        "    li t1, 1280\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call4, .-dd_call4\n"
        ".globl dd_call5\n.type dd_call5, @function\n.p2align 2\n"
        "dd_call5:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 5\n"
        "    la t2, dd_call6\n"
        "    li t0, 5\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 5 deeper, rank 5 to dd_stop */
        "    li t1, 1536\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call5, .-dd_call5\n"
        ".globl dd_call6\n.type dd_call6, @function\n.p2align 2\n"
        "dd_call6:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 6\n"
        "    la t2, dd_call7\n"
        "    li t0, 6\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 6 deeper, rank 6 to dd_stop */
        "    li t1, 1792\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call6, .-dd_call6\n"
        ".globl dd_call7\n.type dd_call7, @function\n.p2align 2\n"
        "dd_call7:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 7\n"
        "    la t2, dd_call8\n"
        "    li t0, 7\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 7 deeper, rank 7 to dd_stop */
        "    li t1, 2048\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call7, .-dd_call7\n"
        ".globl dd_call8\n.type dd_call8, @function\n.p2align 2\n"
        "dd_call8:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 8\n"
        "    la t2, dd_call9\n"
        "    li t0, 8\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 8 deeper, rank 8 to dd_stop */
        "    li t1, 2304\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call8, .-dd_call8\n"
        ".globl dd_call9\n.type dd_call9, @function\n.p2align 2\n"
        "dd_call9:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 9\n"
        "    la t2, dd_call10\n"
        "    li t0, 9\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 9 deeper, rank 9 to dd_stop */
        "    li t1, 2560\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call9, .-dd_call9\n"
        ".globl dd_call10\n.type dd_call10, @function\n.p2align 2\n"
        "dd_call10:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 10\n"
        "    la t2, dd_call11\n"
        "    li t0, 10\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 10 deeper, rank 10 to dd_stop */
        "    li t1, 2816\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call10, .-dd_call10\n"
        ".globl dd_call11\n.type dd_call11, @function\n.p2align 2\n"
        "dd_call11:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 11\n"
        "    la t2, dd_call12\n"
        "    li t0, 11\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 11 deeper, rank 11 to dd_stop */
        "    li t1, 3072\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call11, .-dd_call11\n"
        ".globl dd_call12\n.type dd_call12, @function\n.p2align 2\n"
        "dd_call12:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 12\n"
        "    la t2, dd_call13\n"
        "    li t0, 12\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 12 deeper, rank 12 to dd_stop */
        "    li t1, 3328\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call12, .-dd_call12\n"
        ".globl dd_call13\n.type dd_call13, @function\n.p2align 2\n"
        "dd_call13:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 13\n"
        "    la t2, dd_call14\n"
        "    li t0, 13\n"
        "    bgtu a0, t0, 1f\n"
        "    la t2, dd_stop\n"
        "1:  jalr ra, 0(t2)\n"  /* divergent: rank > 13 deeper, rank 13 to dd_stop */
        "    li t1, 3584\n"
        "    xor a1, a1, t1\n"
        "    lw ra, 12(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".size dd_call13, .-dd_call13\n"
        ".globl dd_call14\n.type dd_call14, @function\n.p2align 2\n"
        "dd_call14:\n"
        "    slli t1, a1, 1\n"
        "    add a1, a1, t1\n"
        "    addi a1, a1, 14\n"
        "    ret\n"
        ".size dd_call14, .-dd_call14\n"
        ".globl dd_stop\n.type dd_stop, @function\n.p2align 2\n"
        "dd_stop:\n"
        "    ret\n"
        ".size dd_stop, .-dd_stop\n");

uint32_t dd_nest(uint32_t rank, uint32_t acc);
uint32_t dd_call0(uint32_t rank, uint32_t acc);

struct params {
    const uint32_t *rank;
    const uint32_t *crank;
    const uint32_t *init;
    uint32_t *out;
};

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t g = wf_gtid();
    q->out[g] = dd_call0(q->crank[g], dd_nest(q->rank[g], q->init[g]));
}
