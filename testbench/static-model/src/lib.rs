//! The warpforge-testbench test design (`tests/rtl/counter_top.v`) built at
//! compile time the classic way: `verilator::module::ModuleGenerator`
//! generates the typed wrapper (ports wider than 64 bits are `[u32; N]`),
//! `verilator::gen::Verilator::build` compiles the model, `verilated`
//! provides the runtime.  Used by warpforge-testbench's tests to
//! cross-check the run-time (`dlopen`) path.

/// Generated wrapper for `counter_top` (`CounterTop`).
#[allow(clippy::all, missing_docs, unused_unsafe)]
pub mod counter_top {
    include!(concat!(env!("OUT_DIR"), "/CounterTop.rs"));
}

pub use counter_top::CounterTop;
