/*
 * Reading the pc with `jal t0, 1f; 1:` (docs/loader.md section 3): the jal falls through and
 * writes the address of 1: to t0. Odd threads do it inside a divergent if; even threads skip
 * it. out[2*gtid] = the pc read, out[2*gtid+1] = the address of 1: as the linker placed it.
 */
    .text
    .globl kernel
    .type kernel, @function
kernel:
    lw t2, 0(a0)            /* out */
    csrr t3, 0xCC4          /* wf_gtid */
    slli t4, t3, 3
    add t2, t2, t4          /* &out[2*gtid] */
    andi t4, t3, 1
    beqz t4, 2f             /* even threads skip the pc read */
    jal t0, 1f
1:  la t1, 1b
    sw t0, 0(t2)
    sw t1, 4(t2)
2:  ret
    .size kernel, . - kernel
