//! `Multiplier`: the pipelined warp-wide multiplier (RV32M `mul`, `mulh`, `mulhsu`, `mulhu`).
//!
//! It accepts one warp-op every cycle and returns it exactly `cfg.mul_latency` cycles later.
//!
//! rust-hdl's `*` exists only for 16 × 16 → 32-bit operands, so each lane forms the unsigned
//! 64-bit product of its 32-bit operands from four 16 × 16 partial products,
//!
//! ```text
//!   a·b = hh·2^32 + (lh + hl)·2^16 + ll      (ll = a_lo·b_lo, lh = a_lo·b_hi, hl = a_hi·b_lo,
//!                                              hh = a_hi·b_hi)
//!   s   = ll[31:16] + lh + hl + hh·2^16          (48 bits: the product above bit 15)
//!   lo  = {s[15:0], ll[15:0]}
//!   hi  = s[47:16]                              (the high word of the unsigned product)
//! ```
//!
//! and gets the signed high words by correction terms: with `s(x) = x - 2^32·x[31]`,
//! `s(a)·s(b) ≡ a·b - 2^32·(a[31]·b + b[31]·a)  (mod 2^64)` and `s(a)·b = a·b - 2^32·a[31]·b`,
//! so
//!
//! ```text
//!   mulhu  = hi
//!   mulhsu = hi - (a[31] ? b : 0)
//!   mulh   = hi - (a[31] ? b : 0) - (b[31] ? a : 0)          (all mod 2^32)
//!   mul    = lo
//! ```
//!
//! A shift multiplies by a power of two: `a << sh` is the low word of `a · 2^sh`, and
//! `a >> sh` is the product `a · 2^(31−sh)`'s bits 62 … 31 (`{hi[30:0], lo[31]}`), unsigned
//! (mulhu) or with `a` signed (mulhsu: the arithmetic shift), for every `sh` including 0. The
//! dispatch register holds the exponent `e`: `sh`, or for a right shift `31 − sh`, which is `sh`
//! with its five bits inverted (one LUT with the amount's choice, no subtraction). The issue
//! cycle forms `2^e` as the AND of two one-hot halves (`e[4:2]`'s nibble, `e[1:0]`'s bit in
//! every nibble), each bit of a half a function of at most three registered bits, and chooses
//! it against `b` by the shift flag: two LUT levels in front of the `MULT18X18D`s
//! (docs/microarch/execution_units.md, "Shifts").
//!
//! Pipeline: stage 0 (the issue cycle) forms the partial products and the correction term; with
//! `mul_latency >= 2` they are registered, the next cycle sums them and the sum goes through the
//! remaining `mul_latency - 1` result registers. The sum is one 48-bit addition of every term
//! above bit 15 ([`ProductSum`]: a carry-save tree and one carry chain, not `mid` and then the
//! high word in series). With `mul_latency >= 3` the sum is registered once more (stage 2)
//! before the `mul_latency - 2` result registers (docs/microarch/execution_units.md,
//! "Timing"). With `mul_latency = 1` everything shares the issue cycle and one result
//! register. Inactive lanes produce 0.
//!
//! Shifts need no sum: multiplying by a power of two, the four partial products occupy
//! disjoint bit ranges, so the product is their OR, and an arithmetic shift's correction
//! (`− 2^expo` when `a` is negative) sets the bits from `expo` up. With `mul_latency >= 3` a
//! shift takes that carry-free path and completes after [`SHIFT_LATENCY`] cycles, ahead of the
//! multiplications issued before it: the unit returns multiplications after `mul_latency`
//! cycles and shifts after `min(mul_latency, 2)` ([`shift_latency`]). Two results never
//! complete in the same cycle because the issuing SM reserves each result's writeback slot
//! (docs/microarch/sm.md); a lane's result is the OR of the two paths, each 0 when it
//! completes nothing.
//!
//! `op` encoding (2 bits) = `funct3[1:0]` of the M instruction ([`mul_op_code`]): mul 00,
//! mulh 01, mulhsu 10, mulhu 11.

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;
use warpforge_isa::{AluOp, MulDivOp};

use crate::alu::{check_unit_config, ExecConfigError, TAG_BITS};

/// The yosys selection of the shift's power-of-two halves in a flattened design (every lane's
/// `pow_hi` and `pow_lo`): the synthesis scripts (gen/src/synth) mark them `keep`, so ABC maps
/// the power and its choice against `b` in two LUT levels; left to itself it mapped the power
/// in three (docs/microarch/execution_units.md, "Shifts").
pub const POWER_HALVES: &str = "w:*.mul.lane*.pow_hi w:*.mul.lane*.pow_lo";

/// The latency of a shift when `mul_latency` is at least this: the carry-free path's.
pub const SHIFT_LATENCY: usize = 2;

/// Cycles from issue to result of a shift in a multiplier of `mul_latency` cycles.
pub fn shift_latency(mul_latency: usize) -> usize {
    mul_latency.min(SHIFT_LATENCY)
}

/// Whether shifts take their own, shorter path (`mul_latency > SHIFT_LATENCY`).
fn split_shifts(mul_latency: usize) -> bool {
    mul_latency > SHIFT_LATENCY
}

/// The 2-bit `op` input of the multiplier, or `None` for a division op.
pub fn mul_op_code(op: MulDivOp) -> Option<u8> {
    match op {
        MulDivOp::Mul => Some(0b00),
        MulDivOp::Mulh => Some(0b01),
        MulDivOp::Mulhsu => Some(0b10),
        MulDivOp::Mulhu => Some(0b11),
        _ => None,
    }
}

/// The 2-bit `op` input of the multiplier for a shift (with `in_shift`): `sll` the low word
/// (`mul`), `srl` the unsigned high word (`mulhu`), `sra` the high word with a signed `a`
/// (`mulhsu`); `None` for the other ALU functions.
pub fn shift_op_code(op: AluOp) -> Option<u8> {
    match op {
        AluOp::Sll => mul_op_code(MulDivOp::Mul),
        AluOp::Srl => mul_op_code(MulDivOp::Mulhu),
        AluOp::Sra => mul_op_code(MulDivOp::Mulhsu),
        _ => None,
    }
}

/// The product's words from the registered partial products and correction in one sum:
/// `{hi, lo} = ll + (lh + hl)·2^16 + hh·2^32 − corr·2^32` (mod 2^64). A custom leaf: rust-hdl
/// 0.46 cannot widen `Bits<32>` to 48 bits. The 48-bit sum above bit 15 is written as a
/// carry-save tree of full adders (three LUT levels) and one carry chain: left to yosys, the
/// five-term sum placed two carry chains in series on 3ab536d (11.60 ns). The column form
/// (`mid`, then the high word plus `mid`'s carry) put two carry chains in series (on `tiny` the
/// placed critical path of 12a9630, seed 1: stage-1 registers → `mid` → high word → result,
/// 12.51 ns).
#[derive(LogicBlock, Default)]
pub struct ProductSum {
    pub ll: Signal<In, Bits<32>>,
    pub lh: Signal<In, Bits<32>>,
    pub hl: Signal<In, Bits<32>>,
    pub hh: Signal<In, Bits<32>>,
    pub corr: Signal<In, Bits<32>>,
    pub lo: Signal<Out, Bits<32>>,
    pub hi: Signal<Out, Bits<32>>,
}

impl Logic for ProductSum {
    fn update(&mut self) {
        let wide = |x: Bits<32>| x.index() as u64;
        let above = ((wide(self.ll.val()) >> 16) + wide(self.lh.val()) + wide(self.hl.val()))
            .wrapping_add(wide(self.hh.val()) << 16)
            .wrapping_sub(wide(self.corr.val()) << 16);
        let above = above & ((1u64 << 48) - 1);
        self.lo.next = (((above & 0xffff) << 16) | (wide(self.ll.val()) & 0xffff)).to_bits();
        self.hi.next = (above >> 16).to_bits();
    }

    fn connect(&mut self) {
        self.lo.connect();
        self.hi.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "// The five terms above bit 15; `- corr·2^16` = `~corr·2^16 + 2^16`, and the 2^16 is bit 16\n\
             // of the first term (whose bits 16 and up are otherwise 0).\n\
             wire [47:0] t1 = {31'd0, 1'b1, ll[31:16]};\n\
             wire [47:0] t2 = {16'd0, lh};\n\
             wire [47:0] t3 = {16'd0, hl};\n\
             wire [47:0] t4 = {hh, 16'd0};\n\
             wire [47:0] t5 = {~corr, 16'd0};\n\
             // Carry-save: three levels of full adders (5 -> 4 -> 3 -> 2 terms), then one carry chain.\n\
             wire [47:0] s1 = t1 ^ t2 ^ t3;\n\
             wire [47:0] c1 = {(t1[46:0] & t2[46:0]) | (t1[46:0] & t3[46:0]) | (t2[46:0] & t3[46:0]), 1'b0};\n\
             wire [47:0] s2 = s1 ^ c1 ^ t4;\n\
             wire [47:0] c2 = {(s1[46:0] & c1[46:0]) | (s1[46:0] & t4[46:0]) | (c1[46:0] & t4[46:0]), 1'b0};\n\
             wire [47:0] s3 = s2 ^ c2 ^ t5;\n\
             wire [47:0] c3 = {(s2[46:0] & c2[46:0]) | (s2[46:0] & t5[46:0]) | (c2[46:0] & t5[46:0]), 1'b0};\n\
             wire [47:0] above;\n\
             assign above = s3 + c3;\n\
             always @(*) begin lo = {above[15:0], ll[15:0]}; hi = above[47:16]; end\n"
                .into(),
        )
    }
}

/// One lane: partial products, optional stage-1 registers, sum and correction, result registers.
#[derive(LogicBlock)]
pub struct MulLane {
    pub clock: Signal<In, Clock>,
    pub op: Signal<In, Bits<2>>,
    /// The op is a shift (`sll` with `op` mul, `srl` with mulhu, `sra` with mulhsu): `a` is
    /// multiplied by the power of two `2^expo` instead of `b`.
    pub shift: Signal<In, Bit>,
    /// A shift's exponent, registered at dispatch: the amount `sh` for `sll`, `31 − sh`
    /// (`sh` inverted) for `srl` and `sra`, whose result is the product's bits 62 … 31.
    pub expo: Signal<In, Bits<5>>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub active: Signal<In, Bit>,
    /// Result of the op issued `latency` cycles ago (0 if that lane was inactive).
    pub result: Signal<Out, Bits<32>>,
    /// The lane's mask bit of the op issued `latency` cycles ago.
    pub active_out: Signal<Out, Bit>,
    // Stage 0: a shift's power of two, partial products and correction.
    m_b: Signal<Local, Bits<32>>,
    /// `2^expo` as the AND of two one-hot halves, each bit of one half a function of at most
    /// three registered bits: `pow_hi` is 0xF in the nibble `expo[4:2]`, `pow_lo` the bit
    /// `expo[1:0]` in every nibble. Kept by the synthesis scripts ([`POWER_HALVES`]) so that
    /// the power and its choice against `b` stay two LUT levels in front of the `MULT18X18D`s.
    pow_hi: Signal<Local, Bits<32>>,
    pow_lo1: Signal<Local, Bits<32>>,
    pow_lo: Signal<Local, Bits<32>>,
    a_lo: Signal<Local, Bits<16>>,
    a_hi: Signal<Local, Bits<16>>,
    b_lo: Signal<Local, Bits<16>>,
    b_hi: Signal<Local, Bits<16>>,
    p_ll: Signal<Local, Bits<32>>,
    p_lh: Signal<Local, Bits<32>>,
    p_hl: Signal<Local, Bits<32>>,
    p_hh: Signal<Local, Bits<32>>,
    corr_a: Signal<Local, Bits<32>>,
    corr_b: Signal<Local, Bits<32>>,
    corr: Signal<Local, Bits<32>>,
    want_hi: Signal<Local, Bit>,
    /// The lane takes part in this op's multiplication path (active, and not a shift that
    /// takes the shift path).
    mul_active: Signal<Local, Bit>,
    // The shift path (latency >= 3 only; the vectors are empty otherwise): an active lane of
    // a shift, an arithmetic shift of a negative `a`.
    sh_active: Vec<Signal<Local, Bit>>,
    sh_neg: Vec<Signal<Local, Bit>>,
    // Stage-1 registers: one each when latency >= 2, none when latency = 1.
    s1_ll: Vec<DFF<Bits<32>>>,
    s1_lh: Vec<DFF<Bits<32>>>,
    s1_hl: Vec<DFF<Bits<32>>>,
    s1_hh: Vec<DFF<Bits<32>>>,
    s1_corr: Vec<DFF<Bits<32>>>,
    s1_hi: Vec<DFF<Bit>>,
    /// The op is a shift: a right shift's result is the window `{hi[30:0], lo[31]}`.
    s1_shift: Vec<DFF<Bit>>,
    s1_active: Vec<DFF<Bit>>,
    // The shift path's stage-1 registers (latency >= 3 only).
    s1_sh_active: Vec<DFF<Bit>>,
    s1_sh_neg: Vec<DFF<Bit>>,
    s1_expo: Vec<DFF<Bits<5>>>,
    sh_lo: Vec<Signal<Local, Bits<32>>>,
    sh_hi: Vec<Signal<Local, Bits<32>>>,
    sh_value: Vec<Signal<Local, Bits<32>>>,
    /// The shift path's result register (latency >= 3 only).
    sh_q: Vec<DFF<Bits<32>>>,
    sh_active_q: Vec<DFF<Bit>>,
    // Stage 1: the sum.
    x_ll: Signal<Local, Bits<32>>,
    x_lh: Signal<Local, Bits<32>>,
    x_hl: Signal<Local, Bits<32>>,
    x_hh: Signal<Local, Bits<32>>,
    x_corr: Signal<Local, Bits<32>>,
    x_hi: Signal<Local, Bit>,
    x_shift: Signal<Local, Bit>,
    x_active: Signal<Local, Bit>,
    /// Stage 1: the product's low and high words.
    sum: ProductSum,
    // Stage-2 registers: one each when latency >= 3 (the sum registered), none otherwise.
    s2_lo: Vec<DFF<Bits<32>>>,
    s2_hi_word: Vec<DFF<Bits<32>>>,
    s2_hi: Vec<DFF<Bit>>,
    s2_active: Vec<DFF<Bit>>,
    y_lo: Signal<Local, Bits<32>>,
    y_hi: Signal<Local, Bit>,
    y_shift: Signal<Local, Bit>,
    y_active: Signal<Local, Bit>,
    hi_word: Signal<Local, Bits<32>>,
    value: Signal<Local, Bits<32>>,
    // Result registers (latency - stage-1 registers of them).
    res_q: Vec<DFF<Bits<32>>>,
    active_q: Vec<DFF<Bit>>,
    k_zero: Constant<Bits<32>>,
    k_one: Constant<Bits<32>>,
    k_nibble: Constant<Bits<32>>,
    k_expo_hi: Constant<Bits<5>>,
    k_ones: Vec<Constant<Bits<32>>>,
    op_mul: Constant<Bits<2>>,
    op_mulh: Constant<Bits<2>>,
    op_mulhsu: Constant<Bits<2>>,
    /// Index of the last result register.
    _last: usize,
}

impl MulLane {
    /// A lane with `latency` (≥ 1) cycles from operands to result.
    pub fn new(latency: usize) -> Self {
        assert!(latency >= 1, "multiplier latency must be at least 1");
        let staged = usize::from(latency >= 2);
        let staged2 = usize::from(latency >= 3);
        let regs = latency - staged - staged2;
        let split = usize::from(split_shifts(latency));
        let op = |o: MulDivOp| Constant::new(u64::from(mul_op_code(o).unwrap()).to_bits());
        Self {
            clock: Default::default(),
            op: Default::default(),
            shift: Default::default(),
            expo: Default::default(),
            a: Default::default(),
            b: Default::default(),
            active: Default::default(),
            result: Default::default(),
            active_out: Default::default(),
            m_b: Default::default(),
            pow_hi: Default::default(),
            pow_lo1: Default::default(),
            pow_lo: Default::default(),
            a_lo: Default::default(),
            a_hi: Default::default(),
            b_lo: Default::default(),
            b_hi: Default::default(),
            p_ll: Default::default(),
            p_lh: Default::default(),
            p_hl: Default::default(),
            p_hh: Default::default(),
            corr_a: Default::default(),
            corr_b: Default::default(),
            corr: Default::default(),
            want_hi: Default::default(),
            mul_active: Default::default(),
            sh_active: (0..split).map(|_| Default::default()).collect(),
            sh_neg: (0..split).map(|_| Default::default()).collect(),
            s1_ll: (0..staged).map(|_| DFF::default()).collect(),
            s1_lh: (0..staged).map(|_| DFF::default()).collect(),
            s1_hl: (0..staged).map(|_| DFF::default()).collect(),
            s1_hh: (0..staged).map(|_| DFF::default()).collect(),
            s1_corr: (0..staged).map(|_| DFF::default()).collect(),
            s1_hi: (0..staged).map(|_| DFF::default()).collect(),
            s1_shift: (0..staged).map(|_| DFF::default()).collect(),
            s1_active: (0..staged).map(|_| DFF::default()).collect(),
            s1_sh_active: (0..split).map(|_| DFF::default()).collect(),
            s1_sh_neg: (0..split).map(|_| DFF::default()).collect(),
            s1_expo: (0..split).map(|_| DFF::default()).collect(),
            sh_lo: (0..split).map(|_| Default::default()).collect(),
            sh_hi: (0..split).map(|_| Default::default()).collect(),
            sh_value: (0..split).map(|_| Default::default()).collect(),
            sh_q: (0..split).map(|_| DFF::default()).collect(),
            sh_active_q: (0..split).map(|_| DFF::default()).collect(),
            x_ll: Default::default(),
            x_lh: Default::default(),
            x_hl: Default::default(),
            x_hh: Default::default(),
            x_corr: Default::default(),
            x_hi: Default::default(),
            x_shift: Default::default(),
            x_active: Default::default(),
            sum: Default::default(),
            s2_lo: (0..staged2).map(|_| DFF::default()).collect(),
            s2_hi_word: (0..staged2).map(|_| DFF::default()).collect(),
            s2_hi: (0..staged2).map(|_| DFF::default()).collect(),
            s2_active: (0..staged2).map(|_| DFF::default()).collect(),
            y_lo: Default::default(),
            y_hi: Default::default(),
            y_shift: Default::default(),
            y_active: Default::default(),
            hi_word: Default::default(),
            value: Default::default(),
            res_q: (0..regs).map(|_| DFF::default()).collect(),
            active_q: (0..regs).map(|_| DFF::default()).collect(),
            k_zero: Constant::new(0u64.to_bits()),
            k_one: Constant::new(1u64.to_bits()),
            k_nibble: Constant::new(0xfu64.to_bits()),
            k_expo_hi: Constant::new(0b11100u64.to_bits()),
            k_ones: (0..split)
                .map(|_| Constant::new(0xffff_ffffu64.to_bits()))
                .collect(),
            op_mul: op(MulDivOp::Mul),
            op_mulh: op(MulDivOp::Mulh),
            op_mulhsu: op(MulDivOp::Mulhsu),
            _last: regs - 1,
        }
    }
}

impl Logic for MulLane {
    #[hdl_gen]
    fn update(&mut self) {
        // A shift multiplies by `2^expo` (module documentation): its two one-hot halves, then
        // each bit of `b`'s replacement is a function of four bits (shift, b, the halves).
        self.pow_hi.next = self.k_nibble.val() << (self.expo.val() & self.k_expo_hi.val());
        self.pow_lo1.next = self.k_one.val() << self.expo.val().get_bits::<2>(0);
        self.pow_lo.next = self.pow_lo1.val()
            | (self.pow_lo1.val() << 4)
            | (self.pow_lo1.val() << 8)
            | (self.pow_lo1.val() << 12)
            | (self.pow_lo1.val() << 16)
            | (self.pow_lo1.val() << 20)
            | (self.pow_lo1.val() << 24)
            | (self.pow_lo1.val() << 28);
        self.m_b.next = self.b.val();
        if self.shift.val() {
            self.m_b.next = self.pow_hi.val() & self.pow_lo.val();
        }
        // Stage 0: 16-bit digits, the four partial products, the signed correction.
        self.a_lo.next = self.a.val().get_bits::<16>(0);
        self.a_hi.next = self.a.val().get_bits::<16>(16);
        self.b_lo.next = self.m_b.val().get_bits::<16>(0);
        self.b_hi.next = self.m_b.val().get_bits::<16>(16);
        self.p_ll.next = self.a_lo.val() * self.b_lo.val();
        self.p_lh.next = self.a_lo.val() * self.b_hi.val();
        self.p_hl.next = self.a_hi.val() * self.b_lo.val();
        self.p_hh.next = self.a_hi.val() * self.b_hi.val();
        self.corr_a.next = self.k_zero.val();
        if self.a.val().get_bit(31)
            & ((self.op.val() == self.op_mulh.val()) | (self.op.val() == self.op_mulhsu.val()))
        {
            self.corr_a.next = self.m_b.val();
        }
        self.corr_b.next = self.k_zero.val();
        if self.m_b.val().get_bit(31) & (self.op.val() == self.op_mulh.val()) {
            self.corr_b.next = self.a.val();
        }
        self.corr.next = self.corr_a.val() + self.corr_b.val();
        self.want_hi.next = self.op.val() != self.op_mul.val();
        // With its own path a shift leaves the multiplication path's lanes inactive (0).
        self.mul_active.next = self.active.val();
        for i in 0..self.s1_sh_active.len() {
            self.mul_active.next = self.active.val() & !self.shift.val();
            self.sh_active[i].next = self.active.val() & self.shift.val();
            self.sh_neg[i].next =
                self.a.val().get_bit(31) & (self.op.val() == self.op_mulhsu.val());
        }
        // Stage-1 registers (absent when latency = 1: the sum then uses stage 0 directly).
        self.x_ll.next = self.p_ll.val();
        self.x_lh.next = self.p_lh.val();
        self.x_hl.next = self.p_hl.val();
        self.x_hh.next = self.p_hh.val();
        self.x_corr.next = self.corr.val();
        self.x_hi.next = self.want_hi.val();
        self.x_shift.next = self.shift.val();
        self.x_active.next = self.mul_active.val();
        for i in 0..self.s1_ll.len() {
            self.s1_ll[i].clock.next = self.clock.val();
            self.s1_lh[i].clock.next = self.clock.val();
            self.s1_hl[i].clock.next = self.clock.val();
            self.s1_hh[i].clock.next = self.clock.val();
            self.s1_corr[i].clock.next = self.clock.val();
            self.s1_hi[i].clock.next = self.clock.val();
            self.s1_shift[i].clock.next = self.clock.val();
            self.s1_active[i].clock.next = self.clock.val();
            self.s1_ll[i].d.next = self.p_ll.val();
            self.s1_lh[i].d.next = self.p_lh.val();
            self.s1_hl[i].d.next = self.p_hl.val();
            self.s1_hh[i].d.next = self.p_hh.val();
            self.s1_corr[i].d.next = self.corr.val();
            self.s1_hi[i].d.next = self.want_hi.val();
            self.s1_shift[i].d.next = self.shift.val();
            self.s1_active[i].d.next = self.mul_active.val();
            self.x_ll.next = self.s1_ll[i].q.val();
            self.x_lh.next = self.s1_lh[i].q.val();
            self.x_hl.next = self.s1_hl[i].q.val();
            self.x_hh.next = self.s1_hh[i].q.val();
            self.x_corr.next = self.s1_corr[i].q.val();
            self.x_hi.next = self.s1_hi[i].q.val();
            self.x_shift.next = self.s1_shift[i].q.val();
            self.x_active.next = self.s1_active[i].q.val();
        }
        // The shift path (latency >= 3): the partial products' OR, and for an arithmetic
        // shift of a negative `a` the bits from `expo` up (module documentation).
        for i in 0..self.s1_sh_active.len() {
            self.s1_sh_active[i].clock.next = self.clock.val();
            self.s1_sh_neg[i].clock.next = self.clock.val();
            self.s1_expo[i].clock.next = self.clock.val();
            self.sh_q[i].clock.next = self.clock.val();
            self.sh_active_q[i].clock.next = self.clock.val();
            self.s1_sh_active[i].d.next = self.sh_active[i].val();
            self.s1_sh_neg[i].d.next = self.sh_neg[i].val();
            // The correction's exponent (an arithmetic shift's `− 2^(32 + expo)`).
            self.s1_expo[i].d.next = self.expo.val();
            self.sh_lo[i].next = self.s1_ll[i].q.val()
                | (self.s1_lh[i].q.val() << 16)
                | (self.s1_hl[i].q.val() << 16);
            self.sh_hi[i].next = self.s1_hh[i].q.val()
                | (self.s1_lh[i].q.val() >> 16)
                | (self.s1_hl[i].q.val() >> 16);
            if self.s1_sh_neg[i].q.val() {
                self.sh_hi[i].next = self.s1_hh[i].q.val()
                    | (self.s1_lh[i].q.val() >> 16)
                    | (self.s1_hl[i].q.val() >> 16)
                    | (self.k_ones[i].val() << self.s1_expo[i].q.val());
            }
            // A right shift (an op with the high word) is the window: bits 62 … 31.
            self.sh_value[i].next = self.k_zero.val();
            if self.s1_sh_active[i].q.val() {
                self.sh_value[i].next = self.sh_lo[i].val();
                if self.s1_hi[i].q.val() {
                    self.sh_value[i].next =
                        (self.sh_hi[i].val() << 1) | (self.sh_lo[i].val() >> 31);
                }
            }
            self.sh_q[i].d.next = self.sh_value[i].val();
            self.sh_active_q[i].d.next = self.s1_sh_active[i].q.val();
        }
        // Stage 1: the sum of the partial products and the signed correction.
        self.sum.ll.next = self.x_ll.val();
        self.sum.lh.next = self.x_lh.val();
        self.sum.hl.next = self.x_hl.val();
        self.sum.hh.next = self.x_hh.val();
        self.sum.corr.next = self.x_corr.val();
        // Stage-2 registers (latency >= 3): the sum registered.
        self.y_lo.next = self.sum.lo.val();
        self.hi_word.next = self.sum.hi.val();
        self.y_hi.next = self.x_hi.val();
        self.y_shift.next = self.x_shift.val();
        self.y_active.next = self.x_active.val();
        for i in 0..self.s2_lo.len() {
            self.s2_lo[i].clock.next = self.clock.val();
            self.s2_hi_word[i].clock.next = self.clock.val();
            self.s2_hi[i].clock.next = self.clock.val();
            self.s2_active[i].clock.next = self.clock.val();
            self.s2_lo[i].d.next = self.sum.lo.val();
            self.s2_hi_word[i].d.next = self.sum.hi.val();
            self.s2_hi[i].d.next = self.x_hi.val();
            self.s2_active[i].d.next = self.x_active.val();
            self.y_lo.next = self.s2_lo[i].q.val();
            self.hi_word.next = self.s2_hi_word[i].q.val();
            self.y_hi.next = self.s2_hi[i].q.val();
            // With stage 2 the shifts take their own path: none is on this one.
            self.y_shift.next = false;
            self.y_active.next = self.s2_active[i].q.val();
        }
        if !self.y_active.val() {
            self.value.next = self.k_zero.val();
        } else if self.y_hi.val() {
            self.value.next = self.hi_word.val();
            // A right shift: the product's bits 62 … 31 (module documentation).
            if self.y_shift.val() {
                self.value.next = (self.hi_word.val() << 1) | (self.y_lo.val() >> 31);
            }
        } else {
            self.value.next = self.y_lo.val();
        }
        // Result registers.
        for i in 0..self.res_q.len() {
            self.res_q[i].clock.next = self.clock.val();
            self.active_q[i].clock.next = self.clock.val();
        }
        self.res_q[0].d.next = self.value.val();
        self.active_q[0].d.next = self.y_active.val();
        for i in 1..self.res_q.len() {
            self.res_q[i].d.next = self.res_q[i - 1].q.val();
            self.active_q[i].d.next = self.active_q[i - 1].q.val();
        }
        for i in self._last..self.res_q.len() {
            self.result.next = self.res_q[i].q.val();
            self.active_out.next = self.active_q[i].q.val();
            for j in 0..self.sh_q.len() {
                self.result.next = self.res_q[i].q.val() | self.sh_q[j].q.val();
                self.active_out.next = self.active_q[i].q.val() | self.sh_active_q[j].q.val();
            }
        }
    }
}

/// The warp-wide pipelined multiplier: `lanes` × [`MulLane`] plus the valid/tag pipeline.
///
/// Ports (`[i]` is a per-lane port, named `name$i` in the Verilog):
///
/// | port | dir | width | meaning |
/// |---|---|---|---|
/// | `clock` | in | 1 | the clock |
/// | `reset` | in | 1 | synchronous reset: empties the pipeline |
/// | `in_valid` | in | 1 | an op is issued this cycle (always accepted, one per cycle) |
/// | `in_op` | in | 2 | [`mul_op_code`] |
/// | `in_tag` | in | 8 | returned with the result |
/// | `in_mask[i]` | in | 1 | lane `i` is active |
/// | `in_a[i]`, `in_b[i]` | in | 32 | operands (`rs1`, `rs2`) of lane `i` (`in_b` unused by a shift) |
/// | `in_shift` | in | 1 | the op is a shift ([`shift_op_code`]) |
/// | `in_expo[i]` | in | 5 | a shift's exponent in lane `i`: its amount `sh` (`rs2[4:0]` or the immediate's) for `sll`, `31 − sh` for `srl`, `sra` |
/// | `out_valid` | out | 1 | the op issued `mul_latency` cycles ago completes now |
/// | `out_tag` | out | 8 | its tag |
/// | `out_mask[i]` | out | 1 | its mask |
/// | `out_result[i]` | out | 32 | lane result, 0 for inactive lanes |
#[derive(LogicBlock)]
pub struct Multiplier {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_op: Signal<In, Bits<2>>,
    /// The op is a shift ([`shift_op_code`]): lane `i` multiplies by `2^in_expo[i]`; a right
    /// shift's result is the product's bits 62 … 31.
    pub in_shift: Signal<In, Bit>,
    pub in_expo: Vec<Signal<In, Bits<5>>>,
    pub in_tag: Signal<In, Bits<TAG_BITS>>,
    pub in_mask: Vec<Signal<In, Bit>>,
    pub in_a: Vec<Signal<In, Bits<32>>>,
    pub in_b: Vec<Signal<In, Bits<32>>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_tag: Signal<Out, Bits<TAG_BITS>>,
    pub out_mask: Vec<Signal<Out, Bit>>,
    pub out_result: Vec<Signal<Out, Bits<32>>>,
    lane: Vec<MulLane>,
    /// The multiplications' valid and tag pipeline (and the shifts' too with latency <= 2).
    valid_q: Vec<DFF<Bit>>,
    tag_q: Vec<DFF<Bits<TAG_BITS>>>,
    /// The shifts' own valid and tag pipeline, [`SHIFT_LATENCY`] (2) deep: its first and
    /// second registers (latency >= 3 only).
    sh_valid1: Vec<DFF<Bit>>,
    sh_tag1: Vec<DFF<Bits<TAG_BITS>>>,
    sh_valid2: Vec<DFF<Bit>>,
    sh_tag2: Vec<DFF<Bits<TAG_BITS>>>,
    /// The op enters the multiplication pipeline (not a shift on its own path).
    mul_in: Signal<Local, Bit>,
    /// Index of the last pipeline register (`latency - 1`).
    _last: usize,
}

impl Multiplier {
    /// The multiplier of `cfg`: `cfg.lanes` lanes, `cfg.mul_latency` cycles (1..=16).
    pub fn new(cfg: &GpuConfig) -> Result<Self, ExecConfigError> {
        check_unit_config("multiplier", cfg, "mul_latency", cfg.mul_latency, 1, 16)?;
        Ok(Self::with(cfg.lanes as usize, cfg.mul_latency as usize))
    }

    /// A multiplier of `lanes` lanes and `latency` cycles (both checked by
    /// [`Multiplier::new`]).
    pub fn with(lanes: usize, latency: usize) -> Self {
        assert!((1..=32).contains(&lanes) && latency >= 1);
        const _: () = assert!(SHIFT_LATENCY == 2, "the shift pipeline has two registers");
        let split = usize::from(split_shifts(latency));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_op: Default::default(),
            in_shift: Default::default(),
            in_expo: (0..lanes).map(|_| Default::default()).collect(),
            in_tag: Default::default(),
            in_mask: (0..lanes).map(|_| Default::default()).collect(),
            in_a: (0..lanes).map(|_| Default::default()).collect(),
            in_b: (0..lanes).map(|_| Default::default()).collect(),
            out_valid: Default::default(),
            out_tag: Default::default(),
            out_mask: (0..lanes).map(|_| Default::default()).collect(),
            out_result: (0..lanes).map(|_| Default::default()).collect(),
            lane: (0..lanes).map(|_| MulLane::new(latency)).collect(),
            valid_q: (0..latency).map(|_| DFF::default()).collect(),
            tag_q: (0..latency).map(|_| DFF::default()).collect(),
            sh_valid1: (0..split).map(|_| DFF::default()).collect(),
            sh_tag1: (0..split).map(|_| DFF::default()).collect(),
            sh_valid2: (0..split).map(|_| DFF::default()).collect(),
            sh_tag2: (0..split).map(|_| DFF::default()).collect(),
            mul_in: Default::default(),
            _last: latency - 1,
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.lane.len()
    }

    /// Cycles from issue to result of a multiplication.
    pub fn latency(&self) -> usize {
        self.valid_q.len()
    }

    /// Cycles from issue to result of a shift ([`shift_latency`]).
    pub fn shift_latency(&self) -> usize {
        shift_latency(self.latency())
    }
}

impl Logic for Multiplier {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self.lane.len() {
            self.lane[i].clock.next = self.clock.val();
            self.lane[i].op.next = self.in_op.val();
            self.lane[i].shift.next = self.in_shift.val();
            self.lane[i].expo.next = self.in_expo[i].val();
            self.lane[i].a.next = self.in_a[i].val();
            self.lane[i].b.next = self.in_b[i].val();
            self.lane[i].active.next = self.in_mask[i].val();
            // With the shifts' own path, gated by `in_valid`: a lane's two paths are ORed, so
            // an idle cycle must leave both at 0.
            for _j in 0..self.sh_valid1.len() {
                self.lane[i].active.next = self.in_mask[i].val() & self.in_valid.val();
            }
            self.out_result[i].next = self.lane[i].result.val();
            self.out_mask[i].next = self.lane[i].active_out.val();
        }
        for i in 0..self.valid_q.len() {
            self.valid_q[i].clock.next = self.clock.val();
            self.tag_q[i].clock.next = self.clock.val();
        }
        self.mul_in.next = self.in_valid.val();
        for _i in 0..self.sh_valid1.len() {
            self.mul_in.next = self.in_valid.val() & !self.in_shift.val();
        }
        self.valid_q[0].d.next = self.mul_in.val() & !self.reset.val();
        self.tag_q[0].d.next = self.in_tag.val();
        for i in 1..self.valid_q.len() {
            self.valid_q[i].d.next = self.valid_q[i - 1].q.val() & !self.reset.val();
            self.tag_q[i].d.next = self.tag_q[i - 1].q.val();
        }
        for i in 0..self.sh_valid1.len() {
            self.sh_valid1[i].clock.next = self.clock.val();
            self.sh_tag1[i].clock.next = self.clock.val();
            self.sh_valid2[i].clock.next = self.clock.val();
            self.sh_tag2[i].clock.next = self.clock.val();
            self.sh_valid1[i].d.next =
                self.in_valid.val() & self.in_shift.val() & !self.reset.val();
            self.sh_tag1[i].d.next = self.in_tag.val();
            self.sh_valid2[i].d.next = self.sh_valid1[i].q.val() & !self.reset.val();
            self.sh_tag2[i].d.next = self.sh_tag1[i].q.val();
        }
        for i in self._last..self.valid_q.len() {
            self.out_valid.next = self.valid_q[i].q.val();
            self.out_tag.next = self.tag_q[i].q.val();
            // Shifts and multiplications never complete together (the SM's writeback slots).
            for j in 0..self.sh_valid2.len() {
                self.out_valid.next = self.valid_q[i].q.val() | self.sh_valid2[j].q.val();
                if self.sh_valid2[j].q.val() {
                    self.out_tag.next = self.sh_tag2[j].q.val();
                }
            }
        }
    }
}
