//! The address map seen by a kernel (docs/isa.md, "Memory map").
//!
//! Instruction memory is separate (Harvard): fetch addresses start at [`IMEM_BASE`] and loads
//! or stores never reach it. Data addresses decode by range:
//!
//! | range | what |
//! |---|---|
//! | `SMEM_BASE .. SMEM_BASE + cta_smem` | shared memory of the thread's CTA |
//! | `GMEM_BASE .. GMEM_BASE + gmem_bytes` | global memory |
//! | anything else | out-of-range fault |

/// First instruction address.
pub const IMEM_BASE: u32 = 0x0000_0000;
/// Shared-memory window (per CTA).
pub const SMEM_BASE: u32 = 0x1000_0000;
/// Global memory.
pub const GMEM_BASE: u32 = 0x8000_0000;

/// End (exclusive) of global memory for a configuration's `gmem_bytes`.
pub const fn gmem_end(gmem_bytes: u32) -> u32 {
    GMEM_BASE.wrapping_add(gmem_bytes)
}

/// Initial stack pointer of a hardware thread slot: stacks are carved downward from the top
/// of global memory, one `stack_bytes` stack per resident thread slot
/// `(smid * warps + warpid) * lanes + laneid`.
pub const fn stack_top(gmem_bytes: u32, stack_bytes: u32, thread_slot: u32) -> u32 {
    gmem_end(gmem_bytes).wrapping_sub(thread_slot.wrapping_mul(stack_bytes))
}
