/*
 * divergent_call: function calls from divergent code. For every thread i = gtid < n, v = in[i]:
 *
 *     out_direct[i]   = (v & 1) ? f(v) : g(v);       direct calls on the two sides of a branch
 *     out_indirect[i] = table[v % 3](v);             indirect call (jalr) whose target differs
 *                                                    per thread: table = { f, g, h }
 *
 * with (32-bit wrapping arithmetic, none of them inlined)
 *     f(v): s = 0; for (k = 0; k <= (v & 15); k++) s = s * 3 + (k ^ v); return s;
 *     g(v): return v * 7 + 1;
 *     h(v): r = 0; while (v != 0) { r += v & 3; v >>= 2; } return r;
 *
 * Any grid and block size.
 *
 * params (32-bit words):  0: in (const u32 *)  1: out_direct (u32 *)  2: out_indirect (u32 *)
 *   3: n
 */
#include "warpforge.h"

struct divergent_call_params {
    const uint32_t *in;
    uint32_t *out_direct;
    uint32_t *out_indirect;
    uint32_t n;
};

__attribute__((noinline)) static uint32_t f(uint32_t v)
{
    uint32_t s = 0;
    for (uint32_t k = 0; k <= (v & 15); k++)
        s = s * 3 + (k ^ v);
    return s;
}

__attribute__((noinline)) static uint32_t g(uint32_t v)
{
    return v * 7 + 1;
}

__attribute__((noinline)) static uint32_t h(uint32_t v)
{
    uint32_t r = 0;
    while (v != 0) {
        r += v & 3;
        v >>= 2;
    }
    return r;
}

typedef uint32_t (*unary_fn)(uint32_t);
static unary_fn const table[3] = { f, g, h };

WF_KERNEL(arg)
{
    const struct divergent_call_params *p = arg;
    uint32_t i = wf_gtid();
    if (i < p->n) {
        uint32_t v = p->in[i];
        uint32_t r;
        if (v & 1)
            r = f(v);
        else
            r = g(v);
        p->out_direct[i] = r;
        p->out_indirect[i] = table[v % 3](v);
    }
}
