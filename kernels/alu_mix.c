/*
 * alu_mix: out[i] = mix(seed ^ i * 0x9E3779B9, rounds) for every global thread i = gtid < n,
 * where one round is x ^= x << 13; x ^= x >> 17; x ^= x << 5; x += r (xorshift32 plus the
 * round number). Integer ALU work only: one load of the parameters, no memory inside the
 * loop, one store at the end -- the ALU-bound kernel of the IPC benchmark.
 * Any grid and block size; threads with gtid >= n do nothing.
 *
 * params (32-bit words):  0: out (u32 *)  1: n  2: rounds  3: seed
 */
#include "warpforge.h"

struct alu_mix_params {
    uint32_t *out;
    uint32_t n;
    uint32_t rounds;
    uint32_t seed;
};

WF_KERNEL(arg)
{
    const struct alu_mix_params *p = arg;
    uint32_t i = wf_gtid();
    if (i < p->n) {
        uint32_t x = p->seed ^ (i * 0x9E3779B9u);
        uint32_t rounds = p->rounds;
        for (uint32_t r = 0; r < rounds; r++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x += r;
        }
        p->out[i] = x;
    }
}
