/*
 * fault_hipc - faults of each source (issue stage, branch unit, load/store unit) raised by an
 * instruction at a PC high in the instruction memory, at two PCs per source whose bits 2-13
 * are complementary (docs/isa.md §8: the record's pc is the faulting instruction's).
 *
 * Parameters: out (u32 *, grid*block words), which, victim_cta, victim_tid (fault_kernel.h).
 * Every thread writes out[gtid] = gtid ^ 0x41c00000; the victim thread (CTA victim_cta, thread
 * victim_tid) alone then calls:
 *   0 hp_jal_lo   at 0x1554  `jal x0, .+6`   misaligned-fetch (branch unit: target, no lane)
 *   1 hp_jal_hi   at 0x2AA8  `jal x0, .+6`
 *   2 hp_lw_lo    at 0x1454  `lw` at &out[gtid] + 2: misaligned-load (LSU, pc via the tag
 *   3 hp_lw_hi    at 0x2BA8  table: lane and address reported)
 *   4 hp_brk_lo   at 0x1354  `ebreak`: breakpoint (issue stage: no lane, no address)
 *   5 hp_brk_hi   at 0x2CA8
 * 0x1554 ^ 0x2AA8 = 0x1454 ^ 0x2BA8 = 0x1354 ^ 0x2CA8 = 0x3FFC: each of PC bits 2-13 is 1 in
 * one case and 0 in the other of every source.
 *
 * Why (issue 11): every faulting instruction of the other kernels sits below 0x400, so PC bits
 * 10-13 of the fault record were 0 in every run; a mutant that flipped bit 2 of the branch
 * unit's fault PC whenever its bit 11 was set (m91 of tiny-f22e1cadb3df8a06's sample) passed
 * the whole regression.
 */
#include "fault_kernel.h"

/* norelax: the offsets below must be what the text says. The section starts at 0x1000 (the
 * rest of the text fits in the first 4 KiB); the gaps are nops that never run. */
#define HP_FN(name, body)                                                                     \
    ".globl " #name "\n.type " #name ", @function\n" #name ":\n" body "\n    ret\n"           \
    ".size " #name ", .-" #name "\n"
#define HP_AT(off) "    .fill (" #off " - (. - hp_base)) / 4, 4, 0x00000013\n"

__asm__(".section .text.fault_hipc, \"ax\", @progbits\n"
        ".option push\n.option norelax\n"
        ".p2align 12\n"
        "hp_base:\n"
        HP_AT(0x354) HP_FN(hp_brk_lo, "    ebreak")
        HP_AT(0x454) HP_FN(hp_lw_lo, "    lw a0, 0(a0)")
        HP_AT(0x554) HP_FN(hp_jal_lo, "    .4byte 0x0060006f\n    ret") /* jal x0, .+6 */
        HP_AT(0x1AA8) HP_FN(hp_jal_hi, "    .4byte 0x0060006f\n    ret")
        HP_AT(0x1BA8) HP_FN(hp_lw_hi, "    lw a0, 0(a0)")
        HP_AT(0x1CA8) HP_FN(hp_brk_hi, "    ebreak")
        /* gas pads the section to its alignment with zero words: make that padding nops */
        ".balignl 4096, 0x00000013\n"
        ".option pop\n"
        ".text\n");

void hp_jal_lo(void);
void hp_jal_hi(void);
uint32_t hp_lw_lo(uint32_t addr);
uint32_t hp_lw_hi(uint32_t addr);
void hp_brk_lo(void);
void hp_brk_hi(void);

WF_KERNEL(p)
{
    const struct params *q = p;
    uint32_t t = wf_gtid();
    q->out[t] = t ^ 0x41c00000u;
    if (wf_ctaid() == q->victim_cta && wf_tid() == q->victim_tid) {
        uint32_t w = q->which, v = 0;
        uint32_t mine = (uint32_t)&q->out[t];
        if (w == 0)
            hp_jal_lo();
        else if (w == 1)
            hp_jal_hi();
        else if (w == 2)
            v = hp_lw_lo(mine + 2);
        else if (w == 3)
            v = hp_lw_hi(mine + 2);
        else if (w == 4)
            hp_brk_lo();
        else
            hp_brk_hi();
        q->out[t] = v;
    }
}
