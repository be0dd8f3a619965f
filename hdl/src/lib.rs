//! The warpforge RTL, written with rust-hdl 0.46 and emitted as Verilog.
//!
//! One file per unit, named after the unit, with the same name as its reference in `sim/`, so
//! the two independent implementations can be read side by side. Parameters come only from
//! [`warpforge_config::GpuConfig`]; ISA definitions only from `warpforge_isa`.
//!
//! rust-hdl 0.46 pitfalls this code works around are listed in ../shared/BRIEF.md ("RTL rules").

/// A hash of every source that shapes the generated Verilog (this crate, `config`, `isa` and
/// the locked dependency versions; see `build.rs`): the generator's version for caches of its
/// output.
pub const GENERATOR_FINGERPRINT: &str = env!("WARPFORGE_HDL_FINGERPRINT");

pub mod alu;
pub mod branch_unit;
pub mod coalescer;
pub mod crossbar;
pub mod csr_read;
pub mod cta_launch;
pub mod decode;
pub mod dispatch_register;
pub mod divider;
pub mod exec_fields;
pub mod fault_capture;
pub mod fetch;
pub mod load_store_unit;
pub mod lut_ram;
pub mod mem_port;
pub mod memory_partition;
pub mod multiplier;
pub mod one_hot;
pub mod operand_collector;
pub mod perf_counters;
pub mod register_file;
pub mod reset_tree;
pub mod scheduler;
pub mod scoreboard;
pub mod simt_stack;
pub mod sm;
pub mod stack_port;
pub mod tag_table;
pub mod top;
mod verilog_text;
pub mod word_mux;
pub mod writeback;

pub use verilog_text::{dedup_modules, split_comb_blocks};

use rust_hdl::prelude::*;

/// `n` default signals (or blocks): the ports and locals of one per lane, warp, bank or SM.
pub(crate) fn sigs<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// A constant of `N` bits.
pub(crate) fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// A block that failed rust-hdl's checks (unconnected signal, logic loop, write to an input).
#[derive(Debug, thiserror::Error)]
#[error("RTL check failed for `{unit}`: {message}")]
pub struct HdlError {
    pub unit: String,
    pub message: String,
}

/// Connect, check and emit one block as Verilog (top module named `top`; rename with
/// [`rename_top`]), identical modules merged ([`dedup_modules`]) and combinational blocks split
/// ([`split_comb_blocks`]: a unit whose logic feeds a sub-block and reads another of its outputs
/// is then free of false loops for Verilator). Never panics on a check failure.
pub fn verilog_of<B: Block>(unit: &str, uut: &mut B) -> Result<String, HdlError> {
    uut.connect_all();
    check_all(uut).map_err(|e| HdlError {
        unit: unit.to_string(),
        message: format!("{e:?}"),
    })?;
    Ok(split_comb_blocks(&dedup_modules(
        &generate_verilog_unchecked(uut),
    )))
}

/// Rename the emitted top module `top` to `name`.
pub fn rename_top(verilog: &str, name: &str) -> String {
    verilog.replacen("module top(", &format!("module {name}("), 1)
}

/// Packs `n` one-bit inputs into `Bits<N>` (input `i` in bit `i`, the rest zero). A custom leaf
/// because rust-hdl 0.46 emits `replace_bit` with 32-bit literals, which `verilator -Wall`
/// reports as width mismatches.
#[derive(LogicBlock)]
pub struct BitPack<const N: usize> {
    pub d: Vec<Signal<In, Bit>>,
    pub q: Signal<Out, Bits<N>>,
}

impl<const N: usize> BitPack<N> {
    pub fn new(n: usize) -> Self {
        assert!(n >= 1 && n <= N, "BitPack<{N}> of {n} bits");
        BitPack {
            d: (0..n).map(|_| Default::default()).collect(),
            q: Default::default(),
        }
    }
}

impl<const N: usize> Logic for BitPack<N> {
    fn update(&mut self) {
        let mut v: Bits<N> = 0u64.into();
        for (i, d) in self.d.iter().enumerate() {
            v = v.replace_bit(i, d.val());
        }
        self.q.next = v;
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(pack_verilog(self.d.len(), 1, N))
    }
}

/// Packs `n` inputs of `W` bits into `Bits<N>` (input `i` in bits `W*i+W-1 ..= W*i`, the rest
/// zero); with one input it is a zero extension. A custom leaf: a widening `bit_cast` is emitted
/// as a width-mismatched AND, and a parent cannot index a child's `Vec` port.
#[derive(LogicBlock)]
pub struct WordPack<const W: usize, const N: usize> {
    pub d: Vec<Signal<In, Bits<W>>>,
    pub q: Signal<Out, Bits<N>>,
}

impl<const W: usize, const N: usize> WordPack<W, N> {
    pub fn new(n: usize) -> Self {
        assert!(
            n >= 1 && n * W <= N && W <= 64,
            "WordPack<{W}, {N}> of {n} words"
        );
        WordPack {
            d: (0..n).map(|_| Default::default()).collect(),
            q: Default::default(),
        }
    }
}

impl<const W: usize, const N: usize> Logic for WordPack<W, N> {
    fn update(&mut self) {
        let mut v: Bits<N> = 0u64.into();
        for (i, d) in self.d.iter().enumerate() {
            let x: Bits<N> = (d.val().index() as u64).into();
            v = v | (x << ((W * i) as u64));
        }
        self.q.next = v;
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(pack_verilog(self.d.len(), W, N))
    }
}

fn pack_verilog(n: usize, w: usize, total: usize) -> String {
    let mut parts: Vec<String> = (0..n).rev().map(|i| format!("d${i}")).collect();
    if n * w < total {
        parts.insert(0, format!("{}'d0", total - n * w));
    }
    if parts.len() == 1 {
        format!("always @(*) q = {};\n", parts[0])
    } else {
        format!("always @(*) q = {{{}}};\n", parts.join(", "))
    }
}

/// A sink for sub-block outputs a parent does not need (event strobes, debug ports, decoder
/// fields). Verilator's `-Wall` exempts signals named `*unused*`, so reading the inputs into
/// `unused_inputs` keeps the design lint-clean without waivers; synthesis removes the logic.
#[derive(LogicBlock)]
pub struct Unused<T: Synth> {
    pub d: Vec<Signal<In, T>>,
}

/// One sink (the common case: a field of a block that derives `Default`).
impl<T: Synth> Default for Unused<T> {
    fn default() -> Self {
        Self::new(1)
    }
}

impl<T: Synth> Unused<T> {
    pub fn new(n: usize) -> Self {
        assert!(n >= 1, "an empty Unused sink");
        Unused {
            d: (0..n).map(|_| Default::default()).collect(),
        }
    }
}

impl<T: Synth> Logic for Unused<T> {
    fn update(&mut self) {}

    fn hdl(&self) -> Verilog {
        let parts: Vec<String> = (0..self.d.len()).map(|i| format!("d${i}")).collect();
        Verilog::Custom(format!(
            "wire unused_inputs = &{{1'b0, {}}};\n",
            parts.join(", ")
        ))
    }
}
