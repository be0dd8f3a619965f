/*
 * entry_top - a kernel whose entry point is the last word of a 16 KiB instruction memory.
 *
 * Every other kernel starts at crt0's `_start`, which link.ld puts first, at 0x0: the launch's
 * entry PC (the top level's `launch_entry` register, each warp's first fetch, its SIMT stack's
 * bottom entry) is 0 in every other run, so an entry bit stuck at 0 or flipped could not be
 * seen (issue 11: the top's entry register with bit 18 flipped whenever bit 2 is set passed
 * every run). Here `_start` (crt0's is weak) is at 0x3FFC, every PC bit 2-13 set: it calls
 * this kernel's own start-up code (crt0's, just below it), which calls the kernel and ends the
 * thread with wf.exit, so the call never returns. The text ends at exactly 0x4000: the kernel needs 16 KiB of instruction memory (every preset has at least that).
 *
 * Parameters: in, out (u32 *). Thread g writes out[g] = in[g] ^ (g * 0x9E3779B9) ^ (ctaid << 16)
 * ^ tid.
 */
#include "warpforge.h"

/* norelax: with linker relaxation, `.p2align 13` reserves 8 KiB of padding the linker only
 * partly removes (high_pc.c). */
__asm__(".text\n"
        ".option push\n.option norelax\n"
        ".p2align 13\n"
        "    .fill 2040, 4, 0x00000013\n" /* nop: wf_top_start lands at 0x2000 + 0x1fe0 */
        ".globl wf_top_start\n.type wf_top_start, @function\n"
        "wf_top_start:\n"
        "    csrr a0, 0xCCC\n" /* wf_param */
        "    csrr sp, 0xCCD\n" /* wf_stack_top */
        "    la gp, __global_pointer$\n"
        "    call kernel\n"
        "    .insn r 0x0B, 0, 0, x0, x0, x0\n" /* wf.exit */
        ".size wf_top_start, .-wf_top_start\n"
        ".globl _start\n.type _start, @function\n"
        "_start:\n" /* 0x3ffc */
        "    jal ra, wf_top_start\n" /* a call (the loader allows no jump between functions) */
        ".size _start, .-_start\n"
        ".option pop\n");

/* The kernel body goes right after crt0 (.text.startup is linked before .text), below the
 * padding. */
void kernel(const void *params) __attribute__((section(".text.startup.kernel")));

WF_KERNEL(p)
{
    const uint32_t *in = ((const uint32_t *const *)p)[0];
    uint32_t *out = ((uint32_t *const *)p)[1];
    uint32_t g = wf_gtid();
    out[g] = in[g] ^ (g * 0x9E3779B9u) ^ (wf_ctaid() << 16) ^ wf_tid();
}
