//! `Divider`: the iterative warp-wide divider (RV32M `div`, `divu`, `rem`, `remu`).
//!
//! Not pipelined: it holds one warp-op at a time. Its `D` lane dividers (radix-2 restoring
//! division of magnitudes, one quotient bit per cycle) divide the op's lanes in `R = lanes / D`
//! *rounds* of 33 cycles, lanes `kD … kD + D − 1` in round `k`; `D` is the fewest that the
//! configured latency allows (`33 R + 1 ≤ div_latency`, `D` a divisor of `lanes`), so a longer
//! latency buys a smaller divider (docs/microarch/execution_units.md, "Divider"). An op accepted
//! in cycle `t` (`in_valid & in_ready`) completes in cycle `t + div_latency` exactly: `out_valid`
//! is high for that one cycle, and `in_ready` is high again in that same cycle, so the next op
//! can be accepted while the previous result is presented.
//!
//! ```text
//!   cycle t              accept: round 0's lanes load |a|, |b| (two's-complement negation for
//!                        signed ops), R = 0; every lane's mask bit, the later rounds' operands
//!   cycles t+33k+1..+32  round k: one restoring step per cycle
//!   cycle t+33(k+1)      round k's signed results into their lanes' result registers; round
//!                        k+1 loads in the same cycle
//!   cycle t+L            out_valid = 1, results and tag on the outputs, in_ready = 1
//! ```
//!
//! Hence `div_latency >= 34` (one round); [`Divider::new`] refuses smaller values.
//!
//! RISC-V edge cases fall out of the datapath: dividing by 0 makes every step subtract 0, so the
//! quotient is all ones and the remainder the dividend's magnitude; the quotient's sign is not
//! applied when the divisor is 0 (`div x, 0 = -1`) and the remainder takes the dividend's sign
//! (`rem x, 0 = x`). `-2^31 / -1`: |-2^31| = 2^31 as an unsigned magnitude, quotient 2^31 with
//! positive sign = `-2^31`, remainder 0.
//!
//! `op` encoding (2 bits) = `funct3[1:0]` of the M instruction ([`div_op_code`]): div 00,
//! divu 01, rem 10, remu 11 (bit 0 = unsigned, bit 1 = remainder).

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;
use warpforge_isa::MulDivOp;

use crate::alu::{check_unit_config, AddSub32, ExecConfigError, TAG_BITS};
use crate::k;

/// Cycles of a round: 1 load + 32 restoring steps (the next round loads while the signs of
/// this one are applied).
pub const ROUND_CYCLES: u32 = 33;
/// Cycles of the shortest op: one round + 1 sign fix-up.
pub const MIN_DIV_LATENCY: u32 = ROUND_CYCLES + 1;
/// Longest supported latency: 32 lanes in 32 rounds of one lane divider (the cycle counter is
/// 11 bits wide).
pub const MAX_DIV_LATENCY: u32 = 32 * ROUND_CYCLES + 1;
/// Restoring steps (one quotient bit each).
const STEPS: u64 = 32;
/// Width of the cycle counter.
const COUNT_BITS: usize = 11;
/// Width of the round and phase counters (≤ 32 rounds, phases 0 … 34).
const ROUND_BITS: usize = 6;

/// Lane dividers of a divider of `lanes` lanes and `latency` cycles: the fewest `D` dividing
/// `lanes` whose `lanes / D` rounds fit (`33 · lanes / D + 1 ≤ latency`).
pub fn lane_dividers(lanes: usize, latency: usize) -> usize {
    (1..=lanes)
        .find(|d| lanes.is_multiple_of(*d) && ROUND_CYCLES as usize * (lanes / d) < latency)
        .unwrap_or(lanes)
}

/// The 2-bit `op` input of the divider, or `None` for a multiplication op.
pub fn div_op_code(op: MulDivOp) -> Option<u8> {
    match op {
        MulDivOp::Div => Some(0b00),
        MulDivOp::Divu => Some(0b01),
        MulDivOp::Rem => Some(0b10),
        MulDivOp::Remu => Some(0b11),
        _ => None,
    }
}

/// One lane divider: magnitude registers, the restoring step and the sign fix-up of the
/// wanted result (combinational: the [`Divider`] registers it into the lane's result).
#[derive(LogicBlock)]
pub struct DivLane {
    pub clock: Signal<In, Clock>,
    /// Load the operands (the accepting cycle, or the first cycle of a later round).
    pub load: Signal<In, Bit>,
    /// Perform one restoring step.
    pub step: Signal<In, Bit>,
    /// The op being loaded is signed (div, rem).
    pub signed_op: Signal<In, Bit>,
    /// The op wants the remainder (rem, remu).
    pub want_rem: Signal<In, Bit>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    /// The signed quotient or remainder of the division loaded last, once its 32 steps are
    /// done.
    pub value: Signal<Out, Bits<32>>,
    a_neg: Signal<Local, Bit>,
    b_neg: Signal<Local, Bit>,
    /// `|a|`, `|b|` (for signed ops) and the signed result.
    a_abs: AddSub32,
    b_abs: AddSub32,
    fix: AddSub32,
    shifted: Signal<Local, Bits<32>>,
    sub: SubBorrow32,
    fits: Signal<Local, Bit>,
    /// The wanted result (quotient or remainder) before its sign.
    pick: Signal<Local, Bits<32>>,
    pick_neg: Signal<Local, Bit>,
    /// Partial remainder.
    r_q: DFF<Bits<32>>,
    /// Dividend magnitude, shifted out at the top while quotient bits shift in at the bottom.
    q_q: DFF<Bits<32>>,
    /// Divisor magnitude.
    d_q: DFF<Bits<32>>,
    neg_quot_q: DFF<Bit>,
    neg_rem_q: DFF<Bit>,
    k_zero: Constant<Bits<32>>,
    k_one: Constant<Bits<32>>,
}

impl Default for DivLane {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            load: Default::default(),
            step: Default::default(),
            signed_op: Default::default(),
            want_rem: Default::default(),
            a: Default::default(),
            b: Default::default(),
            value: Default::default(),
            a_neg: Default::default(),
            b_neg: Default::default(),
            a_abs: Default::default(),
            b_abs: Default::default(),
            fix: Default::default(),
            shifted: Default::default(),
            sub: Default::default(),
            fits: Default::default(),
            pick: Default::default(),
            pick_neg: Default::default(),
            r_q: Default::default(),
            q_q: Default::default(),
            d_q: Default::default(),
            neg_quot_q: Default::default(),
            neg_rem_q: Default::default(),
            k_zero: Constant::new(0u64.to_bits()),
            k_one: Constant::new(1u64.to_bits()),
        }
    }
}

impl Logic for DivLane {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_q, q_q, d_q, neg_quot_q, neg_rem_q);
        // Load: magnitudes of the operands and the signs of the results.
        self.a_neg.next = self.signed_op.val() & self.a.val().get_bit(31);
        self.b_neg.next = self.signed_op.val() & self.b.val().get_bit(31);
        // Conditional negations as `0 ± x` on one carry chain each: the sign folds into the
        // chain's LUTs instead of a 32-bit choice after a negator.
        self.a_abs.a.next = self.k_zero.val();
        self.a_abs.b.next = self.a.val();
        self.a_abs.sub.next = self.a_neg.val();
        self.b_abs.a.next = self.k_zero.val();
        self.b_abs.b.next = self.b.val();
        self.b_abs.sub.next = self.b_neg.val();
        // Restoring step: shift the next dividend bit into the partial remainder and subtract
        // the divisor if it fits. A 1 shifted out of the remainder's top means 2R >= 2^32 > D.
        self.shifted.next = self.r_q.q.val() << 1;
        if self.q_q.q.val().get_bit(31) {
            self.shifted.next = (self.r_q.q.val() << 1) | self.k_one.val();
        }
        // One carry chain gives both the difference and the comparison (its borrow).
        self.sub.a.next = self.shifted.val();
        self.sub.b.next = self.d_q.q.val();
        self.fits.next = self.r_q.q.val().get_bit(31) | !self.sub.borrow.val();
        // Sign fix-up of the wanted result only (one negator, not one each for quotient and
        // remainder).
        self.pick.next = self.q_q.q.val();
        self.pick_neg.next = self.neg_quot_q.q.val();
        if self.want_rem.val() {
            self.pick.next = self.r_q.q.val();
            self.pick_neg.next = self.neg_rem_q.q.val();
        }
        self.fix.a.next = self.k_zero.val();
        self.fix.b.next = self.pick.val();
        self.fix.sub.next = self.pick_neg.val();
        if self.load.val() {
            self.r_q.d.next = self.k_zero.val();
            self.q_q.d.next = self.a_abs.sum.val();
            self.d_q.d.next = self.b_abs.sum.val();
            // The quotient keeps its all-ones value when dividing by zero.
            self.neg_quot_q.d.next = (self.a_neg.val() ^ self.b_neg.val()) & self.b.val().any();
            self.neg_rem_q.d.next = self.a_neg.val();
        } else if self.step.val() {
            if self.fits.val() {
                self.r_q.d.next = self.sub.diff.val();
                self.q_q.d.next = (self.q_q.q.val() << 1) | self.k_one.val();
            } else {
                self.r_q.d.next = self.shifted.val();
                self.q_q.d.next = self.q_q.q.val() << 1;
            }
        }
        self.value.next = self.fix.sum.val();
    }
}

/// `diff = a - b` and `borrow = a < b` (unsigned) from one 33-bit subtraction. A custom leaf:
/// rust-hdl 0.46 emits a widening `bit_cast` as a width-mismatched expression.
#[derive(LogicBlock, Default)]
pub struct SubBorrow32 {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub diff: Signal<Out, Bits<32>>,
    pub borrow: Signal<Out, Bit>,
}

impl Logic for SubBorrow32 {
    fn update(&mut self) {
        self.diff.next = self.a.val() - self.b.val();
        self.borrow.next = self.a.val() < self.b.val();
    }

    fn connect(&mut self) {
        self.diff.connect();
        self.borrow.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "wire [32:0] full;\n\
             assign full = {1'b0, a} - {1'b0, b};\n\
             always @(*) begin diff = full[31:0]; borrow = full[32]; end\n"
                .into(),
        )
    }
}

/// The warp-wide iterative divider: [`lane_dividers`] × [`DivLane`], the operands of the later
/// rounds, the per-lane results and the control counters.
///
/// Ports (`[i]` is a per-lane port, named `name$i` in the Verilog):
///
/// | port | dir | width | meaning |
/// |---|---|---|---|
/// | `clock` | in | 1 | the clock |
/// | `reset` | in | 1 | synchronous reset: abandons the op in flight, back to idle |
/// | `in_valid` | in | 1 | an op is offered |
/// | `in_ready` | out | 1 | the divider accepts an op this cycle (`!busy & !reset`) |
/// | `in_op` | in | 2 | [`div_op_code`] |
/// | `in_tag` | in | 8 | returned with the result |
/// | `in_mask[i]` | in | 1 | lane `i` is active |
/// | `in_a[i]`, `in_b[i]` | in | 32 | dividend (`rs1`) and divisor (`rs2`) of lane `i` |
/// | `out_valid` | out | 1 | one-cycle pulse: the op accepted `div_latency` cycles ago completes |
/// | `out_tag` | out | 8 | its tag |
/// | `out_mask[i]` | out | 1 | its mask |
/// | `out_result[i]` | out | 32 | lane result, 0 for inactive lanes |
#[derive(LogicBlock)]
pub struct Divider {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_tag: Signal<In, Bits<TAG_BITS>>,
    pub in_mask: Vec<Signal<In, Bit>>,
    pub in_a: Vec<Signal<In, Bits<32>>>,
    pub in_b: Vec<Signal<In, Bits<32>>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_tag: Signal<Out, Bits<TAG_BITS>>,
    pub out_mask: Vec<Signal<Out, Bit>>,
    pub out_result: Vec<Signal<Out, Bits<32>>>,
    /// The `D` lane dividers; divider `i` divides lane `kD + i` in round `k`.
    core: Vec<DivLane>,
    /// Per lane of rounds 1 … R−1 (`[kD + i − D]`): its operands, kept from the accepting cycle.
    op_a: Vec<DFF<Bits<32>>>,
    op_b: Vec<DFF<Bits<32>>>,
    /// Per lane: its mask bit and its result.
    act_q: Vec<DFF<Bit>>,
    res_q: Vec<DFF<Bits<32>>>,
    /// Per lane divider: the operands it loads now.
    ld_a: Vec<Signal<Local, Bits<32>>>,
    ld_b: Vec<Signal<Local, Bits<32>>>,
    ready: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    step: Signal<Local, Bit>,
    /// The current round's steps are done: its results are taken now.
    round_end: Signal<Local, Bit>,
    /// A later round loads now.
    next_round: Signal<Local, Bit>,
    finish: Signal<Local, Bit>,
    /// An op is in flight (cycles t+1 .. t+L-1 after accepting in cycle t).
    busy_q: DFF<Bit>,
    /// Rounds are still running (their steps or their results).
    run_q: DFF<Bit>,
    /// Cycles since the accepting cycle (1 in cycle t+1).
    count_q: DFF<Bits<COUNT_BITS>>,
    /// The current round, and the cycle within it (1 … 32: steps, 33: results).
    round_q: DFF<Bits<ROUND_BITS>>,
    phase_q: DFF<Bits<ROUND_BITS>>,
    /// The op in flight is signed (`!op[0]`) and wants the remainder (`op[1]`).
    sgn_q: DFF<Bit>,
    rem_q: DFF<Bit>,
    tag_q: DFF<Bits<TAG_BITS>>,
    done_q: DFF<Bit>,
    k_count_one: Constant<Bits<COUNT_BITS>>,
    k_count_last: Constant<Bits<COUNT_BITS>>,
    /// The bits a count of `0 ..= latency` needs (`COUNT_BITS` is the largest latency's): the
    /// counter is kept at this width, so the bits above it are constants 0.
    k_count_mask: Constant<Bits<COUNT_BITS>>,
    /// `count_q` at its needed width.
    count: Signal<Local, Bits<COUNT_BITS>>,
    k_phase_one: Constant<Bits<ROUND_BITS>>,
    k_steps: Constant<Bits<ROUND_BITS>>,
    k_phase_end: Constant<Bits<ROUND_BITS>>,
    k_last_round: Constant<Bits<ROUND_BITS>>,
    /// `k_round[k]` = k, for k in 0 … max(R−2, 0).
    k_round: Vec<Constant<Bits<ROUND_BITS>>>,
    k_zero: Constant<Bits<32>>,
    _d: usize,
    _r: usize,
}

impl Divider {
    /// The divider of `cfg`: `cfg.lanes` lanes, `cfg.div_latency` cycles
    /// ([`MIN_DIV_LATENCY`]..=[`MAX_DIV_LATENCY`]), as few lane dividers as that latency allows.
    pub fn new(cfg: &GpuConfig) -> Result<Self, ExecConfigError> {
        check_unit_config(
            "divider",
            cfg,
            "div_latency",
            cfg.div_latency,
            MIN_DIV_LATENCY,
            MAX_DIV_LATENCY,
        )
        .map_err(|mut e| {
            if e.field == "div_latency" {
                e.rule.push_str(
                    " (1 cycle to load the operands, 32 restoring steps, 1 to apply the signs)",
                );
            }
            e
        })?;
        Ok(Self::with(cfg.lanes as usize, cfg.div_latency as usize))
    }

    /// A divider of `lanes` lanes and `latency` cycles (both checked by [`Divider::new`]).
    pub fn with(lanes: usize, latency: usize) -> Self {
        assert!((1..=32).contains(&lanes));
        assert!((MIN_DIV_LATENCY as usize..=MAX_DIV_LATENCY as usize).contains(&latency));
        let d = lane_dividers(lanes, latency);
        let r = lanes / d;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_op: Default::default(),
            in_tag: Default::default(),
            in_mask: (0..lanes).map(|_| Default::default()).collect(),
            in_a: (0..lanes).map(|_| Default::default()).collect(),
            in_b: (0..lanes).map(|_| Default::default()).collect(),
            out_valid: Default::default(),
            out_tag: Default::default(),
            out_mask: (0..lanes).map(|_| Default::default()).collect(),
            out_result: (0..lanes).map(|_| Default::default()).collect(),
            core: (0..d).map(|_| DivLane::default()).collect(),
            op_a: (d..lanes).map(|_| Default::default()).collect(),
            op_b: (d..lanes).map(|_| Default::default()).collect(),
            act_q: (0..lanes).map(|_| Default::default()).collect(),
            res_q: (0..lanes).map(|_| Default::default()).collect(),
            ld_a: (0..d).map(|_| Default::default()).collect(),
            ld_b: (0..d).map(|_| Default::default()).collect(),
            ready: Default::default(),
            accept: Default::default(),
            step: Default::default(),
            round_end: Default::default(),
            next_round: Default::default(),
            finish: Default::default(),
            busy_q: Default::default(),
            run_q: Default::default(),
            count_q: Default::default(),
            round_q: Default::default(),
            phase_q: Default::default(),
            sgn_q: Default::default(),
            rem_q: Default::default(),
            tag_q: Default::default(),
            done_q: Default::default(),
            k_count_one: k(1),
            k_count_last: k(latency as u64 - 1),
            k_count_mask: k((1u64 << crate::register_file::clog2(latency + 1)) - 1),
            count: Default::default(),
            k_phase_one: k(1),
            k_steps: k(STEPS),
            k_phase_end: k(STEPS + 1),
            k_last_round: k(r as u64 - 1),
            // Rounds 0 … R−2 (at least 0, the accept's): the last round is never compared.
            k_round: (0..(r - 1).max(1) as u64).map(k).collect(),
            k_zero: Constant::new(0u64.to_bits()),
            _d: d,
            _r: r,
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.in_a.len()
    }

    /// Number of lane dividers.
    pub fn lane_dividers(&self) -> usize {
        self.core.len()
    }

    /// Cycles from the accepting cycle to the result.
    pub fn latency(&self) -> usize {
        self.k_count_last.val().index() + 1
    }
}

impl Logic for Divider {
    // Index arithmetic inside `[...]` may only use loop variables, so `D` is bound to a
    // single-iteration loop (`nd`).
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy_q, run_q, count_q, round_q, phase_q, sgn_q, rem_q, tag_q, done_q
        );
        self.ready.next = !self.busy_q.q.val() & !self.reset.val();
        self.accept.next = self.ready.val() & self.in_valid.val();
        self.step.next = self.run_q.q.val() & (self.phase_q.q.val() <= self.k_steps.val());
        self.round_end.next = self.run_q.q.val() & (self.phase_q.q.val() == self.k_phase_end.val());
        self.next_round.next =
            self.round_end.val() & (self.round_q.q.val() != self.k_last_round.val());
        self.count.next = self.count_q.q.val() & self.k_count_mask.val();
        self.finish.next = self.busy_q.q.val() & (self.count.val() == self.k_count_last.val());
        // Control state.
        if self.accept.val() {
            self.busy_q.d.next = true;
            self.run_q.d.next = true;
        } else if self.finish.val() {
            self.busy_q.d.next = false;
        }
        if self.round_end.val() & !self.next_round.val() {
            self.run_q.d.next = false;
        }
        if self.reset.val() {
            self.busy_q.d.next = false;
            self.run_q.d.next = false;
        }
        if self.accept.val() {
            self.count_q.d.next = self.k_count_one.val();
            self.round_q.d.next = self.k_round[0].val();
            self.phase_q.d.next = self.k_phase_one.val();
            self.sgn_q.d.next = !self.in_op.val().get_bit(0);
            self.rem_q.d.next = self.in_op.val().get_bit(1);
            self.tag_q.d.next = self.in_tag.val();
        } else if self.busy_q.q.val() {
            self.count_q.d.next =
                (self.count.val() + self.k_count_one.val()) & self.k_count_mask.val();
            if self.step.val() {
                self.phase_q.d.next = self.phase_q.q.val() + self.k_phase_one.val();
            }
            if self.next_round.val() {
                self.round_q.d.next = self.round_q.q.val() + self.k_phase_one.val();
                self.phase_q.d.next = self.k_phase_one.val();
            }
        }
        self.done_q.d.next = self.finish.val() & !self.reset.val();
        for nd in self._d..(self._d + 1) {
            // Per lane: the mask bit and the later rounds' operands at accept.
            for i in 0..self.act_q.len() {
                self.act_q[i].clock.next = self.clock.val();
                self.res_q[i].clock.next = self.clock.val();
                self.act_q[i].d.next = self.act_q[i].q.val();
                self.res_q[i].d.next = self.res_q[i].q.val();
                if self.accept.val() {
                    self.act_q[i].d.next = self.in_mask[i].val();
                }
                self.out_mask[i].next = self.act_q[i].q.val();
                self.out_result[i].next = self.res_q[i].q.val();
            }
            for j in 0..self.op_a.len() {
                self.op_a[j].clock.next = self.clock.val();
                self.op_b[j].clock.next = self.clock.val();
                self.op_a[j].d.next = self.op_a[j].q.val();
                self.op_b[j].d.next = self.op_b[j].q.val();
                if self.accept.val() {
                    self.op_a[j].d.next = self.in_a[j + nd].val();
                    self.op_b[j].d.next = self.in_b[j + nd].val();
                }
            }
            // The lane dividers: round 0 from the ports, round k ≥ 1 from the kept operands.
            for i in 0..self._d {
                self.core[i].clock.next = self.clock.val();
                // While idle the lane dividers load the ports every cycle (so also in the
                // accepting cycle): their state is read only while busy. `load` then comes from
                // flip-flops, not through `accept` (the SM's dispatch, the reset): on `small` the
                // reset → `accept` → 8 lane dividers' 96 load multiplexers was the critical path.
                self.core[i].load.next = !self.busy_q.q.val() | self.next_round.val();
                self.core[i].step.next = self.step.val();
                // While idle the lanes see the ports (only an accept loads them): the operand
                // and sign choices follow the registered `busy`, not `accept`, whose inputs
                // (the SM's dispatch, the GPU's fault halt) arrive late in the cycle.
                self.core[i].signed_op.next = self.sgn_q.q.val();
                if !self.busy_q.q.val() {
                    self.core[i].signed_op.next = !self.in_op.val().get_bit(0);
                }
                self.core[i].want_rem.next = self.rem_q.q.val();
                self.ld_a[i].next = self.in_a[i].val();
                self.ld_b[i].next = self.in_b[i].val();
                for k in 1..self._r {
                    if self.busy_q.q.val() & (self.round_q.q.val() == self.k_round[k - 1].val()) {
                        self.ld_a[i].next = self.op_a[(k - 1) * nd + i].q.val();
                        self.ld_b[i].next = self.op_b[(k - 1) * nd + i].q.val();
                    }
                }
                self.core[i].a.next = self.ld_a[i].val();
                self.core[i].b.next = self.ld_b[i].val();
                // Round k's results into lanes kD + i (0 for inactive lanes), held until the
                // last round ends.
                for k in 0..(self._r - 1) {
                    if self.round_end.val() & (self.round_q.q.val() == self.k_round[k].val()) {
                        self.res_q[k * nd + i].d.next = self.k_zero.val();
                        if self.act_q[k * nd + i].q.val() {
                            self.res_q[k * nd + i].d.next = self.core[i].value.val();
                        }
                    }
                }
                // The last round's results are read only in the cycle after it ends (the
                // result's `out_valid`): they follow the lane dividers every cycle, no hold.
                for k in (self._r - 1)..self._r {
                    self.res_q[k * nd + i].d.next = self.k_zero.val();
                    if self.act_q[k * nd + i].q.val() {
                        self.res_q[k * nd + i].d.next = self.core[i].value.val();
                    }
                }
            }
        }
        self.in_ready.next = self.ready.val();
        self.out_valid.next = self.done_q.q.val();
        self.out_tag.next = self.tag_q.q.val();
    }
}
