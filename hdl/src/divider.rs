//! `Divider`: the iterative warp-wide divider (RV32M `div`, `divu`, `rem`, `remu`).
//!
//! Not pipelined: it holds one warp-op at a time and divides all lanes in parallel with a
//! radix-2 restoring divider on magnitudes, one quotient bit per cycle. An op accepted in
//! cycle `t` (`in_valid & in_ready`) completes in cycle `t + div_latency` exactly: `out_valid`
//! is high for that one cycle, and `in_ready` is high again in that same cycle, so the next op
//! can be accepted while the previous result is presented.
//!
//! ```text
//!   cycle t          accept: load |a|, |b| (two's-complement negation for signed ops), R = 0,
//!                    the result signs and the lane mask               (edge 1)
//!   cycles t+1..t+32 one restoring step per cycle                    (edges 2..33)
//!   cycle t+33..     idle until cycle t+L-1, which applies the signs and selects quotient or
//!                    remainder into the result registers               (edge L)
//!   cycle t+L        out_valid = 1, results and tag on the outputs, in_ready = 1
//! ```
//!
//! Hence `div_latency >= 34`; [`Divider::new`] refuses smaller values. The 7-bit cycle counter
//! bounds it at 127.
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

/// Cycles of the shortest op: 1 load + 32 restoring steps + 1 sign fix-up.
pub const MIN_DIV_LATENCY: u32 = 34;
/// Longest supported latency (the cycle counter is 7 bits wide).
pub const MAX_DIV_LATENCY: u32 = 127;
/// Restoring steps (one quotient bit each).
const STEPS: u64 = 32;

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

/// One lane: magnitude registers, the restoring step and the sign fix-up.
#[derive(LogicBlock)]
pub struct DivLane {
    pub clock: Signal<In, Clock>,
    /// Load the operands (the accepting cycle).
    pub load: Signal<In, Bit>,
    /// Perform one restoring step.
    pub step: Signal<In, Bit>,
    /// Load the result register.
    pub finish: Signal<In, Bit>,
    /// The op being loaded is signed (div, rem).
    pub signed_op: Signal<In, Bit>,
    /// The op being finished wants the remainder (rem, remu).
    pub want_rem: Signal<In, Bit>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub active: Signal<In, Bit>,
    /// The lane's result (0 if inactive), valid from the cycle after `finish`.
    pub result: Signal<Out, Bits<32>>,
    /// The lane's mask bit of the op in flight (or last finished).
    pub active_out: Signal<Out, Bit>,
    a_neg: Signal<Local, Bit>,
    b_neg: Signal<Local, Bit>,
    /// `|a|`, `|b|` (for signed ops) and the signed result.
    a_abs: AddSub32,
    b_abs: AddSub32,
    fix: AddSub32,
    shifted: Signal<Local, Bits<32>>,
    sub: SubBorrow32,
    fits: Signal<Local, Bit>,
    /// The wanted result (quotient or remainder) before and after its sign.
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
    active_q: DFF<Bit>,
    res_q: DFF<Bits<32>>,
    k_zero: Constant<Bits<32>>,
    k_one: Constant<Bits<32>>,
}

impl Default for DivLane {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            load: Default::default(),
            step: Default::default(),
            finish: Default::default(),
            signed_op: Default::default(),
            want_rem: Default::default(),
            a: Default::default(),
            b: Default::default(),
            active: Default::default(),
            result: Default::default(),
            active_out: Default::default(),
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
            active_q: Default::default(),
            res_q: Default::default(),
            k_zero: Constant::new(0u64.to_bits()),
            k_one: Constant::new(1u64.to_bits()),
        }
    }
}

impl Logic for DivLane {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_q, q_q, d_q, neg_quot_q, neg_rem_q, active_q, res_q);
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
            self.active_q.d.next = self.active.val();
        } else if self.step.val() {
            if self.fits.val() {
                self.r_q.d.next = self.sub.diff.val();
                self.q_q.d.next = (self.q_q.q.val() << 1) | self.k_one.val();
            } else {
                self.r_q.d.next = self.shifted.val();
                self.q_q.d.next = self.q_q.q.val() << 1;
            }
        }
        if self.finish.val() {
            if !self.active_q.q.val() {
                self.res_q.d.next = self.k_zero.val();
            } else {
                self.res_q.d.next = self.fix.sum.val();
            }
        }
        self.result.next = self.res_q.q.val();
        self.active_out.next = self.active_q.q.val();
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

/// The warp-wide iterative divider: `lanes` × [`DivLane`] plus the control counter.
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
    lane: Vec<DivLane>,
    ready: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    step: Signal<Local, Bit>,
    finish: Signal<Local, Bit>,
    /// An op is in flight (cycles t+1 .. t+L-1 after accepting in cycle t).
    busy_q: DFF<Bit>,
    /// Cycles since the accepting cycle (1 in cycle t+1).
    count_q: DFF<Bits<7>>,
    /// The op in flight wants the remainder (`op[1]`).
    rem_q: DFF<Bit>,
    tag_q: DFF<Bits<TAG_BITS>>,
    done_q: DFF<Bit>,
    k_count_one: Constant<Bits<7>>,
    k_steps: Constant<Bits<7>>,
    k_count_last: Constant<Bits<7>>,
}

impl Divider {
    /// The divider of `cfg`: `cfg.lanes` lanes, `cfg.div_latency` cycles
    /// ([`MIN_DIV_LATENCY`]..=[`MAX_DIV_LATENCY`]).
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
            lane: (0..lanes).map(|_| DivLane::default()).collect(),
            ready: Default::default(),
            accept: Default::default(),
            step: Default::default(),
            finish: Default::default(),
            busy_q: Default::default(),
            count_q: Default::default(),
            rem_q: Default::default(),
            tag_q: Default::default(),
            done_q: Default::default(),
            k_count_one: Constant::new(1u64.to_bits()),
            k_steps: Constant::new(STEPS.to_bits()),
            k_count_last: Constant::new((latency as u64 - 1).to_bits()),
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.lane.len()
    }

    /// Cycles from the accepting cycle to the result.
    pub fn latency(&self) -> usize {
        self.k_count_last.val().index() + 1
    }
}

impl Logic for Divider {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy_q, count_q, rem_q, tag_q, done_q);
        self.ready.next = !self.busy_q.q.val() & !self.reset.val();
        self.accept.next = self.ready.val() & self.in_valid.val();
        self.step.next = self.busy_q.q.val() & (self.count_q.q.val() <= self.k_steps.val());
        self.finish.next = self.busy_q.q.val() & (self.count_q.q.val() == self.k_count_last.val());
        // Control state.
        if self.reset.val() {
            self.busy_q.d.next = false;
        } else if self.accept.val() {
            self.busy_q.d.next = true;
        } else if self.finish.val() {
            self.busy_q.d.next = false;
        }
        if self.accept.val() {
            self.count_q.d.next = self.k_count_one.val();
            self.rem_q.d.next = self.in_op.val().get_bit(1);
            self.tag_q.d.next = self.in_tag.val();
        } else if self.busy_q.q.val() {
            self.count_q.d.next = self.count_q.q.val() + self.k_count_one.val();
        }
        self.done_q.d.next = self.finish.val() & !self.reset.val();
        // Lanes.
        for i in 0..self.lane.len() {
            self.lane[i].clock.next = self.clock.val();
            self.lane[i].load.next = self.accept.val();
            self.lane[i].step.next = self.step.val();
            self.lane[i].finish.next = self.finish.val();
            self.lane[i].signed_op.next = !self.in_op.val().get_bit(0);
            self.lane[i].want_rem.next = self.rem_q.q.val();
            self.lane[i].a.next = self.in_a[i].val();
            self.lane[i].b.next = self.in_b[i].val();
            self.lane[i].active.next = self.in_mask[i].val();
            self.out_result[i].next = self.lane[i].result.val();
            self.out_mask[i].next = self.lane[i].active_out.val();
        }
        self.in_ready.next = self.ready.val();
        self.out_valid.next = self.done_q.q.val();
        self.out_tag.next = self.tag_q.q.val();
    }
}
