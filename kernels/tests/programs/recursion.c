/*
 * Recursion and reconvergence (docs/isa.md section 4.1). Parameters: out (one word per
 * thread), mode, n. Every thread stores its result to out[gtid].
 *
 *   mode 0: every thread computes sum_to(n): the recursion is uniform, it finishes.
 *   mode 1: only odd threads call sum_to(n), from divergent code; within the recursion the
 *           active threads still agree on every call, so it finishes too (even threads store 0).
 *   mode 2: every thread computes sum_to(gtid): the threads disagree on whether to recurse, so
 *           threads at different depths meet at sum_to's ret, which faults divergent-jump.
 */
#include "warpforge.h"

struct params {
    uint32_t *out;
    uint32_t mode;
    uint32_t n;
};

/* 1 + 2 + ... + n. The build's -fno-optimize-sibling-calls keeps it recursive. */
__attribute__((noinline)) static uint32_t sum_to(uint32_t n)
{
    if (n == 0)
        return 0;
    return n + sum_to(n - 1);
}

WF_KERNEL(arg)
{
    const struct params *p = arg;
    uint32_t t = wf_gtid();
    uint32_t r = 0;
    if (p->mode == 0) {
        r = sum_to(p->n);
    } else if (p->mode == 1) {
        if (t & 1) {
            WF_KEEP_BRANCH();
            r = sum_to(p->n);
        }
    } else {
        r = sum_to(t);
    }
    p->out[t] = r;
}
