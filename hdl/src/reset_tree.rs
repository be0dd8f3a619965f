//! The reset's fan-out as a tree of flip-flops: one register stage, then one registered copy per
//! consumer (a unit, or the parent's own logic).
//!
//! Why: a synchronous reset reaches thousands of LUT inputs across the die. From one register
//! it was `small`'s critical path on the ECP5 (23.1 ns, 21.8 of it routing: the wrapper's reset
//! register → the divider's `accept` → a divider core; docs/fpga.md). With a copy per unit each
//! copy is placed near its unit and the one long wire is register to register.
//!
//! The copies share their input, so `opt_merge` would make them one flip-flop again: the
//! synthesis scripts mark them `keep` ([`RESET_COPIES`]).
//!
//! Latency: a [`ResetTree`] delays the reset by two cycles. The top level puts one register in
//! front of the SMs' trees and of its own, so the whole GPU sees the `reset` pin
//! [`RESET_LATENCY`] cycles late, every part in the same cycle (docs/microarch/sm.md, "Reset").

use rust_hdl::prelude::*;

use crate::scoreboard::RegVec;

/// Cycles from the `reset` pin to the GPU's logic: the top level's input register and a
/// [`ResetTree`]. The GPU leaves reset this many cycles after the pin falls; a host waits them
/// out before it loads a program or starts a kernel.
pub const RESET_LATENCY: u64 = 3;

/// The yosys selection of the trees' flip-flops in a flattened design (every tree instance is
/// `rst_tree`): kept so that `opt_merge` does not merge the copies.
pub const RESET_COPIES: &str = "w:*.rst_tree.*.q* %ci1 t:$dff %i";

/// `reset` → one register → `copies` registers, each driving one consumer.
#[derive(LogicBlock)]
pub struct ResetTree {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub q: Vec<Signal<Out, Bit>>,
    stage: DFF<Bit>,
    copies: RegVec<Bit>,
}

impl ResetTree {
    /// A tree of `copies` (≥ 1) outputs.
    pub fn new(copies: usize) -> Self {
        assert!(copies >= 1, "ResetTree of {copies} copies");
        ResetTree {
            clock: Default::default(),
            reset: Default::default(),
            q: crate::sigs(copies),
            stage: Default::default(),
            copies: RegVec::new(copies),
        }
    }
}

impl Logic for ResetTree {
    #[hdl_gen]
    fn update(&mut self) {
        self.stage.clock.next = self.clock.val();
        self.copies.clock.next = self.clock.val();
        self.stage.d.next = self.reset.val();
        for i in 0..self.q.len() {
            self.copies.d[i].next = self.stage.q.val();
            self.q[i].next = self.copies.q[i].val();
        }
    }
}
