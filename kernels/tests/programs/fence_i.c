/*
 * fence.i (Zifencei) and fence are no-ops on warpforge (docs/isa.md section 3.1): the kernel
 * build accepts them and every thread runs on.  out[gtid] = gtid + 101.
 */
#include "warpforge.h"

WF_KERNEL(p)
{
    uint32_t *out = *(uint32_t *const *)p;
    uint32_t t = wf_gtid();
    out[t] = t + 1;
    __asm__ volatile("fence.i" ::: "memory");
    __asm__ volatile("fence" ::: "memory");
    out[t] += 100;
}
