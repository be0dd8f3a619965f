//! Library half of the `warpforge` command: the host side of a launch on the golden model,
//! RTL co-simulation of kernel cases and regressions, and the CLI's reports, shared with the
//! end-to-end tests.

pub mod bench_rtl;
pub mod cosim;
pub mod cycles;
pub mod formal_env;
pub mod host;
pub mod mutate;
pub mod regress;
pub mod report;
pub mod rtl_out;
pub mod shared_miter;
pub mod sweep;
pub mod synth;
pub mod verify;
