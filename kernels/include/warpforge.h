/*
 * warpforge.h - the kernel-side API of the warpforge GPU (see docs/isa.md).
 *
 * CSR reads (per-thread values), the SIMT intrinsics of the custom-0 extension, and the
 * shared-memory section attribute. Kernels are freestanding C: no libc.
 *
 * The kernel entry point is
 *
 *     WF_KERNEL(params) { ... }      which expands to   void kernel(const void *params)
 *
 * and is called by kernels/runtime/crt0.S with a0 = wf_param (the parameter buffer, a
 * word-aligned array of 32-bit words/pointers written by the host). When it returns, the
 * thread executes wf.exit.
 */
#ifndef WARPFORGE_H
#define WARPFORGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CSRs (docs/isa.md section 3.2) ------------------------------------------------------ */

#define WF_CSR_READ(num)                                                                      \
    ({                                                                                        \
        uint32_t wf_csr_v_;                                                                   \
        __asm__ volatile("csrr %0, " #num : "=r"(wf_csr_v_));                                 \
        wf_csr_v_;                                                                            \
    })

/* Thread index in the CTA, 0 .. ntid-1. */
static inline uint32_t wf_tid(void) { return WF_CSR_READ(0xCC0); }
/* CTA index in the grid, 0 .. nctaid-1. */
static inline uint32_t wf_ctaid(void) { return WF_CSR_READ(0xCC1); }
/* Threads per CTA (block size). */
static inline uint32_t wf_ntid(void) { return WF_CSR_READ(0xCC2); }
/* CTAs in the grid (grid size). */
static inline uint32_t wf_nctaid(void) { return WF_CSR_READ(0xCC3); }
/* Global thread index, ctaid * ntid + tid. */
static inline uint32_t wf_gtid(void) { return WF_CSR_READ(0xCC4); }
/* Lane of the thread within its warp. */
static inline uint32_t wf_laneid(void) { return WF_CSR_READ(0xCC5); }
/* Hardware warp slot of the thread's warp within its SM. */
static inline uint32_t wf_warpid(void) { return WF_CSR_READ(0xCC6); }
/* SM index. */
static inline uint32_t wf_smid(void) { return WF_CSR_READ(0xCC7); }
/* Lanes per warp (configuration `lanes`). */
static inline uint32_t wf_nlanes(void) { return WF_CSR_READ(0xCC8); }
/* Warp slots per SM (configuration `warps`). */
static inline uint32_t wf_nwarps(void) { return WF_CSR_READ(0xCC9); }
/* SMs (configuration `sms`). */
static inline uint32_t wf_nsms(void) { return WF_CSR_READ(0xCCA); }
/* The warp's active mask when the read executes. */
static inline uint32_t wf_tmask(void) { return WF_CSR_READ(0xCCB); }
/* Address of the kernel parameter buffer (also passed to kernel() in a0). */
static inline uint32_t wf_param(void) { return WF_CSR_READ(0xCCC); }
/* The thread's initial stack pointer. */
static inline uint32_t wf_stack_top(void) { return WF_CSR_READ(0xCCD); }

/* Cycles of this SM since reset (64 bits, read high/low/high until consistent). */
static inline uint64_t wf_cycle(void)
{
    uint32_t hi, lo, hi2;
    do {
        hi = WF_CSR_READ(0xC80);
        lo = WF_CSR_READ(0xC00);
        hi2 = WF_CSR_READ(0xC80);
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
}
/* Low word of cycle only (cheaper; enough for short intervals). */
static inline uint32_t wf_cycle_lo(void) { return WF_CSR_READ(0xC00); }

/* Warp-instructions issued by this warp since its CTA started, not counting the read. */
static inline uint64_t wf_instret(void)
{
    uint32_t hi, lo, hi2;
    do {
        hi = WF_CSR_READ(0xC82);
        lo = WF_CSR_READ(0xC02);
        hi2 = WF_CSR_READ(0xC82);
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
}
/* Low word of instret only. */
static inline uint32_t wf_instret_lo(void) { return WF_CSR_READ(0xC02); }

/* ---- SIMT extension (opcode custom-0 = 0x0B, docs/isa.md section 3.3) --------------------- */

/* wf.exit: the calling (active) threads terminate. */
static inline __attribute__((noreturn)) void wf_exit(void)
{
    __asm__ volatile(".insn r 0x0B, 0, 0, x0, x0, x0" ::: "memory");
    __builtin_unreachable();
}

/*
 * wf.bar: CTA-wide barrier. Also a compiler memory barrier, so shared-memory stores before it
 * and loads after it are not moved across. Call it from code that every thread of the CTA
 * reaches (not from inside a divergent branch).
 */
static inline void wf_barrier(void)
{
    __asm__ volatile(".insn r 0x0B, 1, 0, x0, x0, x0" ::: "memory");
}
#define __syncthreads() wf_barrier()

/*
 * wf.tmc: thread-mask control (narrowing only). `mask` is read from the lowest active lane
 * (bit i = lane i); every active thread whose bit is clear terminates exactly as by wf.exit,
 * the others continue. wf_tmc(0) is wf_exit().
 */
static inline void wf_tmc(uint32_t mask)
{
    __asm__ volatile(".insn r 0x0B, 2, 0, x0, %0, x0" : : "r"(mask) : "memory");
}

/*
 * An empty statement the compiler may neither remove nor move: placed in the body of an if,
 * it keeps the if a real (possibly divergent) branch instead of being if-converted into
 * branch-free arithmetic. Used by the divergence demonstration kernels.
 */
#define WF_KEEP_BRANCH() __asm__ volatile("")

/* ---- Memory ------------------------------------------------------------------------------- */

/*
 * Shared memory of the CTA: a variable with static storage in section .shared, linked at
 * 0x10000000, zero when the CTA starts, never loaded from the ELF. Declare at file scope or as a
 * static local, e.g.   WF_SHARED static int32_t tile[16];
 */
#define WF_SHARED __attribute__((section(".shared")))

/* ---- Kernel entry ------------------------------------------------------------------------- */

/* The kernel entry point called by crt0.S: WF_KERNEL(p) { ... } */
#define WF_KERNEL(params) void kernel(const void *params)
void kernel(const void *params);

#ifdef __cplusplus
}
#endif

#endif /* WARPFORGE_H */
