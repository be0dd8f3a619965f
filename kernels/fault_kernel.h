/*
 * Shared by the fault_* kernels (kernels that fault on purpose, docs/verification.md): their
 * parameter block and the macro that emits each faulting instruction as its own function, so
 * that the expected fault's pc is that function's start.
 */
#ifndef WARPFORGE_FAULT_KERNEL_H
#define WARPFORGE_FAULT_KERNEL_H

#include "warpforge.h"

struct params {
    uint32_t *out;
    uint32_t which;
    uint32_t victim_cta; /* the faulting thread: CTA and thread index in it */
    uint32_t victim_tid;
};

#define WF_FAULT_FN(name, body)                                                               \
    __asm__(".text\n.globl " #name "\n.type " #name ", @function\n.p2align 2\n" #name ":\n"  \
            body "\n    ret\n.size " #name ", .-" #name "\n");

#endif
