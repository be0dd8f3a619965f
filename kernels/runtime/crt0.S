/*
 * crt0.S - start-up code of every warpforge kernel (docs/isa.md section 2).
 *
 * Every register is zero at thread start. Read the parameter buffer address and the thread's
 * stack top from the CSRs, set gp, call kernel(params) and terminate the thread with wf.exit.
 *
 * `_start` (the ELF entry point, link.ld) is weak: a kernel may define its own start-up code
 * and `_start` elsewhere in the text, so the run starts at another PC (entry_top.c puts it at
 * the last word of the instruction memory).
 */
    .section .text.start, "ax", @progbits
    .weak _start
    .type _start, @function
_start:
    csrr a0, 0xCCC              /* wf_param: kernel(const void *params) */
    csrr sp, 0xCCD              /* wf_stack_top */
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    call kernel
    .insn r 0x0B, 0, 0, x0, x0, x0   /* wf.exit */
    .size _start, . - _start
