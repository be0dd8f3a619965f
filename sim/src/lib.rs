//! The warpforge golden model.
//!
//! A functional model of the whole GPU of docs/isa.md: grid, CTAs dispatched to SMs, warps with
//! their SIMT stacks, shared memory per CTA, barriers, global memory, faults. It runs standalone
//! in a documented deterministic warp order ([`Gpu::run`]) or is *driven* one warp-instruction at
//! a time ([`Gpu::step`]), returning the [`Commit`] record the RTL co-simulation compares against.
//!
//! It shares no code with the RTL (`hdl/`) except the configuration and ISA definitions. One file
//! per unit, named as in `hdl/`.

pub mod alu;
pub mod coalescer;
mod commit;
pub mod crossbar;
mod execute;
mod gpu;
pub mod l1_cache;
mod memory;
pub mod memory_partition;
pub mod operand_collector;
pub mod scheduler;
pub mod scoreboard;
pub mod shared_memory;
pub mod simt_stack;
mod sm;
mod stats;

pub use commit::{Commit, Fault, FaultCause, StoreRecord, MAX_LANES, RECURSION_HINT};
pub use gpu::{Gpu, RunOutcome, SimError, Timeout};
pub use simt_stack::{StackEntry, RPC_NONE};
pub use stats::Stats;
