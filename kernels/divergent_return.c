/*
 * divergent_return - reconvergence at the return of a function called from divergent code.
 *
 * dr_pick (assembly, never writes ra, two rets) has a lane-dependent branch whose paths meet
 * only at the returns: the loader gives it `AtReturn` (docs/isa.md §4), so the branch reads
 * `ra` as its reconvergence PC and the scoreboard must hold it until `ra` is written. It is
 * called, in a loop, from both sides of a divergent branch and from uniform code, from three
 * call sites (three values of ra):
 *
 *   acc = v;
 *   for i in 0..rounds:
 *       u = v + i
 *       if (u % 3 != 0) acc += dr_pick(u) + 1;  else acc ^= dr_pick(u ^ 0xff) * 3;
 *       acc += dr_pick(acc);
 *   out[gtid] = acc
 *   dr_pick(x) = x & 1 ? (x << 3) + 101 : (x >> 1) ^ 0x55
 *
 * Each return follows a `divu` and an `and` that waits for it (t1 only, the result unchanged),
 * so the `ret` is fetched into the I-buffer's second entry while the `and` waits at the head:
 * its decoded flags (a branch, at a return) travel through that entry's registers. Before,
 * an entry's `is_branch` flipped where `to_alu` is set (m9 of tiny's seed-1 sample on
 * 67bd937) passed every run.
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

__asm__(".text\n.globl dr_pick\n.type dr_pick, @function\n.p2align 2\n"
        "dr_pick:\n"
        "    andi t0, a0, 1\n"
        "    beqz t0, 1f\n"
        "    slli a0, a0, 3\n"
        "    addi a0, a0, 101\n"
        "    divu t1, a0, a0\n"
        "    and t1, t1, zero\n"
        "    ret\n"
        "1:  srli a0, a0, 1\n"
        "    xori a0, a0, 0x55\n"
        "    divu t1, a0, a0\n"
        "    and t1, t1, zero\n"
        "    ret\n"
        ".size dr_pick, .-dr_pick\n");

uint32_t dr_pick(uint32_t x);

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
            acc += dr_pick(u) + 1;
        } else {
            WF_KEEP_BRANCH();
            acc ^= dr_pick(u ^ 0xff) * 3;
        }
        acc += dr_pick(acc);
    }
    q->out[g] = acc;
}
