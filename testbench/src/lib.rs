//! Co-simulation harness for warpforge RTL under Verilator.
//!
//! warpforge generates Verilog at run time, per configuration.  The
//! [`verilator_model`] module turns such Verilog into a Verilated C++ model
//! compiled into a shared library (cached on disk by a hash of the Verilog
//! text and build options), loads it with `dlopen` and drives it from Rust:
//!
//! ```no_run
//! use warpforge_testbench::verilator_model::{build, ModelBuild};
//!
//! let mut m = build(&ModelBuild {
//!     top: "counter_top".into(),
//!     verilog_files: vec!["rtl/counter_top.v".into()],
//!     cache_dir: "target/verilator-cache".into(),
//!     trace: false,
//!     ..Default::default()
//! })?;
//! let clk = m.port("clk")?;
//! let en = m.port("en")?;
//! let count = m.port("count")?;
//! m.set(en, 1);
//! m.tick(clk);
//! assert_eq!(m.get(count), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! On top of it, [`lockstep`] runs the whole generated GPU (`warpforge_top`)
//! in lock-step with the golden model (`warpforge_sim`), its memory ports
//! served by the deterministic [`memory_model`], and reports the first
//! divergence ([`lockstep::MismatchReport`]).
//!
//! Verilator is used through the (vendored, Verilator-5-patched) `verilator`
//! crate (`gen::Verilator` runs verilator and configures the C++ compiler)
//! and `verilated` crate (runtime source list, C shims for `Verilated` and
//! `VerilatedVcdC`).

pub mod lockstep;
pub mod memory_model;
pub mod unit;
pub mod verilator_model;

pub use lockstep::{
    build_rtl, cosim, cosim_observed, BuildInfo, CosimError, CosimOptions, CosimOutcome,
    CosimReport, Launch, MismatchReport, SmCounters, StallReport, TraceEvent,
};
pub use memory_model::{MemoryModel, MemorySettings, MEMORY_PRESETS};
pub use verilator_model::{
    build, BuildError, BuildReport, LoadedModel, ModelBuild, PortDir, PortError, PortId, PortInfo,
    TraceError,
};
