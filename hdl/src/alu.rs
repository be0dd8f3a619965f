//! `Alu`: the warp-wide integer ALU (RV32I register-register functions) and branch comparator.
//!
//! One [`AluLane`] per lane computes `result = f(op, a, b)` and `taken = cmp(a, b)`
//! combinationally from the unit's inputs, then delays both through `cfg.alu_latency` result
//! registers; the shared control (valid, tag) travels through registers of the same depth at the
//! top. Inactive lanes (mask bit 0) produce `result = 0`, `taken = 0`. See
//! docs/microarch/execution_units.md for the timing diagrams.
//!
//! Encodings are RISC-V's own, so the decoder can pass instruction fields straight through:
//!
//! * `op` (4 bits) = `{funct7[5], funct3}` of the OP / OP-IMM instruction ([`alu_op_code`]):
//!   add 0000, sub 1000, sll 0001, slt 0010, sltu 0011, xor 0100, srl 0101, sra 1101, or 0110,
//!   and 0111. The remaining codes (1001, 1010, 1011, 1100, 1110, 1111) give `result = 0`.
//! * `cmp` (3 bits) = `funct3` of the BRANCH instruction ([`branch_cmp_code`]): beq 000, bne
//!   001, blt 100, bge 101, bltu 110, bgeu 111. The reserved codes 010 and 011 give `taken = 0`.
//!
//! Both functions are evaluated every cycle; an ALU instruction ignores `taken`, a branch
//! ignores `result`.

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;
use warpforge_isa::{AluOp, BranchOp};

/// Width of a tag on the ports (defined by the tag table).
pub use crate::tag_table::TAG_BITS;

/// A configuration an execution unit cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot build the {unit}: `{field}` = {value}: {rule}")]
pub struct ExecConfigError {
    /// The unit (`ALU`, `multiplier`, `divider`).
    pub unit: &'static str,
    /// The configuration field.
    pub field: &'static str,
    /// Its value.
    pub value: u32,
    /// What the unit needs.
    pub rule: String,
}

/// Check the parameters every execution unit shares: `lanes` in 1..=32 and a latency in
/// `min..=max`.
pub(crate) fn check_unit_config(
    unit: &'static str,
    cfg: &GpuConfig,
    latency_field: &'static str,
    latency: u32,
    min: u32,
    max: u32,
) -> Result<(), ExecConfigError> {
    if cfg.lanes == 0 || cfg.lanes > 32 {
        return Err(ExecConfigError {
            unit,
            field: "lanes",
            value: cfg.lanes,
            rule: "must be between 1 and 32".into(),
        });
    }
    if latency < min || latency > max {
        return Err(ExecConfigError {
            unit,
            field: latency_field,
            value: latency,
            rule: format!("must be between {min} and {max} cycles"),
        });
    }
    Ok(())
}

/// The 4-bit `op` input for an ALU function: `{funct7[5], funct3}`.
pub fn alu_op_code(op: AluOp) -> u8 {
    match op {
        AluOp::Add => 0b0000,
        AluOp::Sub => 0b1000,
        AluOp::Sll => 0b0001,
        AluOp::Slt => 0b0010,
        AluOp::Sltu => 0b0011,
        AluOp::Xor => 0b0100,
        AluOp::Srl => 0b0101,
        AluOp::Sra => 0b1101,
        AluOp::Or => 0b0110,
        AluOp::And => 0b0111,
    }
}

/// The 3-bit `cmp` input for a branch comparison: the branch's `funct3`.
pub fn branch_cmp_code(op: BranchOp) -> u8 {
    match op {
        BranchOp::Beq => 0b000,
        BranchOp::Bne => 0b001,
        BranchOp::Blt => 0b100,
        BranchOp::Bge => 0b101,
        BranchOp::Bltu => 0b110,
        BranchOp::Bgeu => 0b111,
    }
}

/// One lane: the combinational ALU function and comparator, then `latency` registers. With a
/// latency of 2 or more the first register holds the lane's inputs (op, cmp, operands, mask)
/// instead of its result, so the operand selection in front of the unit (PC, immediate, CSR
/// value, docs/microarch/sm.md) and the function are in different cycles; the outputs are the
/// same in every cycle.
///
/// Built for area (docs/microarch/execution_units.md, "ALU lane datapath"): one adder-subtractor
/// ([`AddSub32`]) for add/sub, one unsigned comparator (`a < b`) from which the signed order and
/// `slt`/`sltu` are derived. No shifter: shifts are multiplications by a power of two in the
/// multiplier (hdl/src/multiplier.rs), where the partial products already exist; the lane's
/// barrel shifter was 328 of its 464 LUT4. The result is chosen by `funct3`; `funct7[5]` only
/// selects subtraction. The shift codes (funct3 001 and 101) are not ALU functions: their
/// result is 0, like any undefined code's.
#[derive(LogicBlock)]
pub struct AluLane {
    pub clock: Signal<In, Clock>,
    pub op: Signal<In, Bits<4>>,
    pub cmp: Signal<In, Bits<3>>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub active: Signal<In, Bit>,
    /// `result` of the op issued `latency` cycles ago (0 if that lane was inactive).
    pub result: Signal<Out, Bits<32>>,
    /// Branch outcome of the op issued `latency` cycles ago (0 if inactive).
    pub taken: Signal<Out, Bit>,
    /// The lane's mask bit of the op issued `latency` cycles ago.
    pub active_out: Signal<Out, Bit>,
    funct3: Signal<Local, Bits<3>>,
    /// `funct7[5]`: subtract (funct3 000).
    alt: Signal<Local, Bit>,
    /// The op is one of the ten defined codes.
    defined: Signal<Local, Bit>,
    lt_signed: Signal<Local, Bit>,
    lt_unsigned: Signal<Local, Bit>,
    equal: Signal<Local, Bit>,
    value: Signal<Local, Bits<32>>,
    take: Signal<Local, Bit>,
    /// The function's inputs: the ports, or (latency ≥ 2) the input registers.
    f_op: Signal<Local, Bits<4>>,
    f_cmp: Signal<Local, Bits<3>>,
    f_a: Signal<Local, Bits<32>>,
    f_b: Signal<Local, Bits<32>>,
    f_active: Signal<Local, Bit>,
    /// The input registers: one entry when the latency is 2 or more, else none.
    op_q: Vec<DFF<Bits<4>>>,
    cmp_q: Vec<DFF<Bits<3>>>,
    a_q: Vec<DFF<Bits<32>>>,
    b_q: Vec<DFF<Bits<32>>>,
    act_q: Vec<DFF<Bit>>,
    addsub: AddSub32,
    res_q: Vec<DFF<Bits<32>>>,
    taken_q: Vec<DFF<Bit>>,
    active_q: Vec<DFF<Bit>>,
    k_zero: Constant<Bits<32>>,
    k_one: Constant<Bits<32>>,
    f3_add: Constant<Bits<3>>,
    f3_slt: Constant<Bits<3>>,
    f3_sltu: Constant<Bits<3>>,
    f3_xor: Constant<Bits<3>>,
    f3_srl: Constant<Bits<3>>,
    /// funct3 001 (`sll`): not an ALU function.
    f3_sll_code: Constant<Bits<3>>,
    f3_or: Constant<Bits<3>>,
    cmp_eq: Constant<Bits<3>>,
    cmp_ne: Constant<Bits<3>>,
    cmp_lt: Constant<Bits<3>>,
    cmp_ge: Constant<Bits<3>>,
    cmp_ltu: Constant<Bits<3>>,
    cmp_geu: Constant<Bits<3>>,
    /// Index of the last pipeline register (`latency - 1`).
    _last: usize,
}

impl AluLane {
    /// A lane of `latency` (≥ 1) cycles.
    pub fn new(latency: usize) -> Self {
        assert!(latency >= 1, "ALU lane latency must be at least 1");
        // Input registers (latency ≥ 2) and result registers: `latency` in all.
        let n_in = usize::from(latency >= 2);
        let n_res = latency - n_in;
        fn regs<T: Synth>(n: usize) -> Vec<DFF<T>> {
            (0..n).map(|_| DFF::default()).collect()
        }
        // funct3 of an op: its code's low three bits.
        let f3 = |o: AluOp| Constant::new(u64::from(alu_op_code(o) & 0b111).to_bits());
        let cmp = |o: BranchOp| Constant::new(u64::from(branch_cmp_code(o)).to_bits());
        Self {
            clock: Default::default(),
            op: Default::default(),
            cmp: Default::default(),
            a: Default::default(),
            b: Default::default(),
            active: Default::default(),
            result: Default::default(),
            taken: Default::default(),
            active_out: Default::default(),
            funct3: Default::default(),
            alt: Default::default(),
            defined: Default::default(),
            lt_signed: Default::default(),
            lt_unsigned: Default::default(),
            equal: Default::default(),
            value: Default::default(),
            take: Default::default(),
            f_op: Default::default(),
            f_cmp: Default::default(),
            f_a: Default::default(),
            f_b: Default::default(),
            f_active: Default::default(),
            op_q: regs(n_in),
            cmp_q: regs(n_in),
            a_q: regs(n_in),
            b_q: regs(n_in),
            act_q: regs(n_in),
            addsub: Default::default(),
            res_q: regs(n_res),
            taken_q: regs(n_res),
            active_q: regs(n_res),
            k_zero: Constant::new(0u64.to_bits()),
            k_one: Constant::new(1u64.to_bits()),
            f3_add: f3(AluOp::Add),
            f3_slt: f3(AluOp::Slt),
            f3_sltu: f3(AluOp::Sltu),
            f3_xor: f3(AluOp::Xor),
            f3_srl: f3(AluOp::Srl),
            f3_sll_code: f3(AluOp::Sll),
            f3_or: f3(AluOp::Or),
            cmp_eq: cmp(BranchOp::Beq),
            cmp_ne: cmp(BranchOp::Bne),
            cmp_lt: cmp(BranchOp::Blt),
            cmp_ge: cmp(BranchOp::Bge),
            cmp_ltu: cmp(BranchOp::Bltu),
            cmp_geu: cmp(BranchOp::Bgeu),
            _last: n_res - 1,
        }
    }
}

impl Logic for AluLane {
    #[hdl_gen]
    fn update(&mut self) {
        self.f_op.next = self.op.val();
        self.f_cmp.next = self.cmp.val();
        self.f_a.next = self.a.val();
        self.f_b.next = self.b.val();
        self.f_active.next = self.active.val();
        for z in 0..self.a_q.len() {
            self.op_q[z].clock.next = self.clock.val();
            self.cmp_q[z].clock.next = self.clock.val();
            self.a_q[z].clock.next = self.clock.val();
            self.b_q[z].clock.next = self.clock.val();
            self.act_q[z].clock.next = self.clock.val();
            self.op_q[z].d.next = self.op.val();
            self.cmp_q[z].d.next = self.cmp.val();
            self.a_q[z].d.next = self.a.val();
            self.b_q[z].d.next = self.b.val();
            self.act_q[z].d.next = self.active.val();
            self.f_op.next = self.op_q[z].q.val();
            self.f_cmp.next = self.cmp_q[z].q.val();
            self.f_a.next = self.a_q[z].q.val();
            self.f_b.next = self.b_q[z].q.val();
            self.f_active.next = self.act_q[z].q.val();
        }
        self.funct3.next = self.f_op.val().get_bits::<3>(0);
        self.alt.next = self.f_op.val().get_bit(3);
        // Shifts are the multiplier's (hdl/src/multiplier.rs): funct3 001 and 101 are not ALU
        // functions; funct7[5] is defined with add (sub) only.
        self.defined.next = (self.funct3.val() != self.f3_srl.val())
            & (self.funct3.val() != self.f3_sll_code.val())
            & (!self.alt.val() | (self.funct3.val() == self.f3_add.val()));
        // Comparisons: one unsigned comparator; the signed order differs from it only when the
        // signs differ, and then `a` is the smaller one exactly when it is negative.
        self.lt_unsigned.next = self.f_a.val() < self.f_b.val();
        self.equal.next = self.f_a.val() == self.f_b.val();
        self.lt_signed.next = self.lt_unsigned.val();
        if self.f_a.val().get_bit(31) != self.f_b.val().get_bit(31) {
            self.lt_signed.next = self.f_a.val().get_bit(31);
        }
        // add / sub.
        self.addsub.a.next = self.f_a.val();
        self.addsub.b.next = self.f_b.val();
        self.addsub.sub.next = self.alt.val();
        // The ALU function, chosen by funct3.
        if self.funct3.val() == self.f3_add.val() {
            self.value.next = self.addsub.sum.val();
        } else if self.funct3.val() == self.f3_slt.val() {
            self.value.next = self.k_zero.val();
            if self.lt_signed.val() {
                self.value.next = self.k_one.val();
            }
        } else if self.funct3.val() == self.f3_sltu.val() {
            self.value.next = self.k_zero.val();
            if self.lt_unsigned.val() {
                self.value.next = self.k_one.val();
            }
        } else if self.funct3.val() == self.f3_xor.val() {
            self.value.next = self.f_a.val() ^ self.f_b.val();
        } else if self.funct3.val() == self.f3_or.val() {
            self.value.next = self.f_a.val() | self.f_b.val();
        } else {
            self.value.next = self.f_a.val() & self.f_b.val();
        }
        // The branch comparison.
        self.take.next = false;
        if self.f_cmp.val() == self.cmp_eq.val() {
            self.take.next = self.equal.val();
        } else if self.f_cmp.val() == self.cmp_ne.val() {
            self.take.next = !self.equal.val();
        } else if self.f_cmp.val() == self.cmp_lt.val() {
            self.take.next = self.lt_signed.val();
        } else if self.f_cmp.val() == self.cmp_ge.val() {
            self.take.next = !self.lt_signed.val();
        } else if self.f_cmp.val() == self.cmp_ltu.val() {
            self.take.next = self.lt_unsigned.val();
        } else if self.f_cmp.val() == self.cmp_geu.val() {
            self.take.next = !self.lt_unsigned.val();
        }
        if !(self.f_active.val() & self.defined.val()) {
            self.value.next = self.k_zero.val();
        }
        if !self.f_active.val() {
            self.take.next = false;
        }
        // The result pipeline: register 0 samples the function, register i samples i - 1.
        for i in 0..self.res_q.len() {
            self.res_q[i].clock.next = self.clock.val();
            self.taken_q[i].clock.next = self.clock.val();
            self.active_q[i].clock.next = self.clock.val();
        }
        self.res_q[0].d.next = self.value.val();
        self.taken_q[0].d.next = self.take.val();
        self.active_q[0].d.next = self.f_active.val();
        for i in 1..self.res_q.len() {
            self.res_q[i].d.next = self.res_q[i - 1].q.val();
            self.taken_q[i].d.next = self.taken_q[i - 1].q.val();
            self.active_q[i].d.next = self.active_q[i - 1].q.val();
        }
        for i in self._last..self.res_q.len() {
            self.result.next = self.res_q[i].q.val();
            self.taken.next = self.taken_q[i].q.val();
            self.active_out.next = self.active_q[i].q.val();
        }
    }
}

/// `sum = sub ? a - b : a + b` on one carry chain: `{a, 1} + {b ^ sub, sub}`, whose low bit
/// turns `sub` into the carry into bit 0 (`a + !b + 1`). A custom leaf because rust-hdl 0.46
/// has no carry-in and emits a widening `bit_cast` as a width-mismatched expression.
#[derive(LogicBlock, Default)]
pub struct AddSub32 {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub sub: Signal<In, Bit>,
    pub sum: Signal<Out, Bits<32>>,
}

impl Logic for AddSub32 {
    fn update(&mut self) {
        self.sum.next = if self.sub.val() {
            self.a.val() - self.b.val()
        } else {
            self.a.val() + self.b.val()
        };
    }

    fn connect(&mut self) {
        self.sum.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "wire [31:0] chain;\n\
             wire carry_in_unused;\n\
             assign {chain, carry_in_unused} = {a, 1'b1} + {b ^ {32{sub}}, sub};\n\
             always @(*) sum = chain;\n"
                .into(),
        )
    }
}

/// The warp-wide ALU: `lanes` × [`AluLane`] plus the valid/tag pipeline.
///
/// Ports (`[i]` is a per-lane port, named `name$i` in the Verilog):
///
/// | port | dir | width | meaning |
/// |---|---|---|---|
/// | `clock` | in | 1 | the clock |
/// | `reset` | in | 1 | synchronous reset: empties the pipeline |
/// | `in_valid` | in | 1 | an op is issued this cycle (always accepted) |
/// | `in_op` | in | 4 | ALU function, [`alu_op_code`] |
/// | `in_cmp` | in | 3 | branch comparison, [`branch_cmp_code`] |
/// | `in_tag` | in | 8 | returned with the result |
/// | `in_mask[i]` | in | 1 | lane `i` is active |
/// | `in_a[i]`, `in_b[i]` | in | 32 | operands of lane `i` |
/// | `out_valid` | out | 1 | the op issued `alu_latency` cycles ago completes now |
/// | `out_tag` | out | 8 | its tag |
/// | `out_mask[i]` | out | 1 | its mask |
/// | `out_result[i]` | out | 32 | lane result, 0 for inactive lanes |
/// | `out_taken[i]` | out | 1 | lane branch outcome, 0 for inactive lanes |
#[derive(LogicBlock)]
pub struct Alu {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_op: Signal<In, Bits<4>>,
    pub in_cmp: Signal<In, Bits<3>>,
    pub in_tag: Signal<In, Bits<TAG_BITS>>,
    pub in_mask: Vec<Signal<In, Bit>>,
    pub in_a: Vec<Signal<In, Bits<32>>>,
    pub in_b: Vec<Signal<In, Bits<32>>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_tag: Signal<Out, Bits<TAG_BITS>>,
    pub out_mask: Vec<Signal<Out, Bit>>,
    pub out_result: Vec<Signal<Out, Bits<32>>>,
    pub out_taken: Vec<Signal<Out, Bit>>,
    lane: Vec<AluLane>,
    valid_q: Vec<DFF<Bit>>,
    tag_q: Vec<DFF<Bits<TAG_BITS>>>,
    /// Index of the last pipeline register (`latency - 1`).
    _last: usize,
}

impl Alu {
    /// The ALU of `cfg`: `cfg.lanes` lanes, `cfg.alu_latency` cycles (1..=16).
    pub fn new(cfg: &GpuConfig) -> Result<Self, ExecConfigError> {
        check_unit_config("ALU", cfg, "alu_latency", cfg.alu_latency, 1, 16)?;
        Ok(Self::with(cfg.lanes as usize, cfg.alu_latency as usize))
    }

    /// An ALU of `lanes` lanes and `latency` cycles (both checked by [`Alu::new`]).
    pub fn with(lanes: usize, latency: usize) -> Self {
        assert!((1..=32).contains(&lanes) && latency >= 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_op: Default::default(),
            in_cmp: Default::default(),
            in_tag: Default::default(),
            in_mask: (0..lanes).map(|_| Default::default()).collect(),
            in_a: (0..lanes).map(|_| Default::default()).collect(),
            in_b: (0..lanes).map(|_| Default::default()).collect(),
            out_valid: Default::default(),
            out_tag: Default::default(),
            out_mask: (0..lanes).map(|_| Default::default()).collect(),
            out_result: (0..lanes).map(|_| Default::default()).collect(),
            out_taken: (0..lanes).map(|_| Default::default()).collect(),
            lane: (0..lanes).map(|_| AluLane::new(latency)).collect(),
            valid_q: (0..latency).map(|_| DFF::default()).collect(),
            tag_q: (0..latency).map(|_| DFF::default()).collect(),
            _last: latency - 1,
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.lane.len()
    }

    /// Cycles from issue to result.
    pub fn latency(&self) -> usize {
        self.valid_q.len()
    }
}

impl Logic for Alu {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self.lane.len() {
            self.lane[i].clock.next = self.clock.val();
            self.lane[i].op.next = self.in_op.val();
            self.lane[i].cmp.next = self.in_cmp.val();
            self.lane[i].a.next = self.in_a[i].val();
            self.lane[i].b.next = self.in_b[i].val();
            self.lane[i].active.next = self.in_mask[i].val();
            self.out_result[i].next = self.lane[i].result.val();
            self.out_taken[i].next = self.lane[i].taken.val();
            self.out_mask[i].next = self.lane[i].active_out.val();
        }
        for i in 0..self.valid_q.len() {
            self.valid_q[i].clock.next = self.clock.val();
            self.tag_q[i].clock.next = self.clock.val();
        }
        self.valid_q[0].d.next = self.in_valid.val() & !self.reset.val();
        self.tag_q[0].d.next = self.in_tag.val();
        for i in 1..self.valid_q.len() {
            self.valid_q[i].d.next = self.valid_q[i - 1].q.val() & !self.reset.val();
            self.tag_q[i].d.next = self.tag_q[i - 1].q.val();
        }
        for i in self._last..self.valid_q.len() {
            self.out_valid.next = self.valid_q[i].q.val();
            self.out_tag.next = self.tag_q[i].q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divider::{Divider, MIN_DIV_LATENCY};
    use crate::multiplier::Multiplier;
    use crate::verilog_of;

    /// Every preset elaborates and passes rust-hdl's checks (the Verilator co-simulation is in
    /// testbench/tests/unit_execution.rs).
    #[test]
    fn presets_elaborate() {
        for name in warpforge_config::PRESETS {
            let cfg = GpuConfig::preset(name).unwrap();
            let mut alu = Alu::new(&cfg).unwrap();
            assert_eq!(
                (alu.lanes(), alu.latency()),
                (cfg.lanes as usize, cfg.alu_latency as usize)
            );
            assert!(verilog_of("alu", &mut alu).is_ok());
            let mut mul = Multiplier::new(&cfg).unwrap();
            assert_eq!(mul.latency(), cfg.mul_latency as usize);
            assert!(verilog_of("multiplier", &mut mul).is_ok());
            let mut div = Divider::new(&cfg).unwrap();
            assert_eq!(div.latency(), cfg.div_latency as usize);
            assert!(verilog_of("divider", &mut div).is_ok());
        }
    }

    #[test]
    fn unbuildable_latencies_are_refused() {
        let mut cfg = GpuConfig::tiny();
        cfg.div_latency = MIN_DIV_LATENCY - 1;
        let e = Divider::new(&cfg).err().unwrap();
        assert_eq!((e.field, e.value), ("div_latency", 33));
        assert!(e.to_string().contains("between 34 and 1057"), "{e}");
        cfg.alu_latency = 0;
        assert_eq!(Alu::new(&cfg).err().unwrap().field, "alu_latency");
    }

    #[test]
    fn encodings_are_distinct() {
        let ops = [
            AluOp::Add,
            AluOp::Sub,
            AluOp::Sll,
            AluOp::Slt,
            AluOp::Sltu,
            AluOp::Xor,
            AluOp::Srl,
            AluOp::Sra,
            AluOp::Or,
            AluOp::And,
        ];
        let mut codes: Vec<u8> = ops.iter().map(|&o| alu_op_code(o)).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), ops.len());
        assert!(codes.iter().all(|&c| c < 16));
    }
}
