//! The warpforge RTL, written with rust-hdl 0.46 and emitted as Verilog.
//!
//! One file per unit, named after the unit, with the same name as its reference in `sim/`, so
//! the two independent implementations can be read side by side. Parameters come only from
//! [`warpforge_config::GpuConfig`]; ISA definitions only from `warpforge_isa`.
//!
//! rust-hdl 0.46 pitfalls this code works around are listed in ../shared/BRIEF.md ("RTL rules").

pub mod alu;
pub mod divider;
pub mod multiplier;
pub mod operand_collector;
pub mod register_file;
pub mod scheduler;
pub mod scoreboard;
pub mod simt_stack;

use rust_hdl::prelude::*;

/// A block that failed rust-hdl's checks (unconnected signal, logic loop, write to an input).
#[derive(Debug, thiserror::Error)]
#[error("RTL check failed for `{unit}`: {message}")]
pub struct HdlError {
    pub unit: String,
    pub message: String,
}

/// Connect, check and emit one block as Verilog (top module named `top`; rename with
/// [`rename_top`]). Never panics on a check failure.
pub fn verilog_of<B: Block>(unit: &str, uut: &mut B) -> Result<String, HdlError> {
    uut.connect_all();
    check_all(uut).map_err(|e| HdlError {
        unit: unit.to_string(),
        message: format!("{e:?}"),
    })?;
    Ok(generate_verilog_unchecked(uut))
}

/// Rename the emitted top module `top` to `name`.
pub fn rename_top(verilog: &str, name: &str) -> String {
    verilog.replacen("module top(", &format!("module {name}("), 1)
}
