//! `DispatchRegister`: the pipeline register between dispatch and the execution units
//! (docs/microarch/sm.md, "Stages and latencies").
//!
//! An instruction dispatched in cycle `D` (operand collector handshake and tag-table read of
//! its decoded fields in `D`) is held here during `D + 1`, when it enters its unit: the ALU, multiplier,
//! divider, load/store unit and branch unit see only registered inputs, so no path runs from
//! the operand collector's selection through decode into a unit's datapath (address
//! generation, fault checks, the ALU). The register never stalls: dispatch only fires when
//! the unit is sure to accept the instruction one cycle later (the SM checks the writeback
//! slot one cycle further ahead and counts a unit as busy while this register holds an
//! instruction for it).
//!
//! * `d_*` are sampled at every edge; `e_*` are their values from the previous cycle. The
//!   operands are sampled once per unit (`e_alu_data` … `e_bu_data`): identical copies, each
//!   to be placed beside its unit. They load at every edge, with no enable: a unit reads its
//!   copy only in the cycle after its `d_to_<unit>`, so a held value would never be seen (the
//!   mutation run found every hold path undetectable and unprovable, docs/mutation.md), and
//!   an enable per copy put the dispatch decision's fan-out on the critical path. Synthesis
//!   keeps the copies apart ([`OPERAND_COPIES`]): yosys would otherwise merge them into one.
//! * `d_to_*` say which unit the instruction enters (a `jalr` enters the ALU and the branch
//!   unit); `reset` (synchronous) clears them, so after reset no unit receives anything.

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use rust_hdl::prelude::*;

use crate::scoreboard::{RegVec, WARP_BITS};
use crate::tag_table::TAG_BITS;

/// The dispatch → execute register of one SM with `L` lanes and `sources` operands per lane.
#[derive(LogicBlock)]
pub struct DispatchRegister<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- which unit the instruction enters
    pub d_to_alu: Signal<In, Bit>,
    pub d_to_mul: Signal<In, Bit>,
    pub d_to_div: Signal<In, Bit>,
    pub d_to_lsu: Signal<In, Bit>,
    pub d_to_bu: Signal<In, Bit>,
    pub e_to_alu: Signal<Out, Bit>,
    pub e_to_mul: Signal<Out, Bit>,
    pub e_to_div: Signal<Out, Bit>,
    pub e_to_lsu: Signal<Out, Bit>,
    pub e_to_bu: Signal<Out, Bit>,
    // ---- the instruction (tag-table fields)
    pub d_tag: Signal<In, Bits<TAG_BITS>>,
    pub d_warp: Signal<In, Bits<WARP_BITS>>,
    pub d_pc: Signal<In, Bits<32>>,
    pub d_mask: Signal<In, Bits<L>>,
    pub d_csr: Signal<In, Bits<32>>,
    pub d_recon: Signal<In, Bits<32>>,
    pub e_tag: Signal<Out, Bits<TAG_BITS>>,
    pub e_warp: Signal<Out, Bits<WARP_BITS>>,
    pub e_pc: Signal<Out, Bits<32>>,
    pub e_mask: Signal<Out, Bits<L>>,
    pub e_csr: Signal<Out, Bits<32>>,
    pub e_recon: Signal<Out, Bits<32>>,
    // ---- decoded fields (hdl/src/decode.rs, carried by the tag table: hdl/src/exec_fields.rs)
    pub d_alu_op: Signal<In, Bits<4>>,
    pub d_cmp: Signal<In, Bits<3>>,
    pub d_md_op: Signal<In, Bits<2>>,
    pub d_mem_size: Signal<In, Bits<2>>,
    pub d_csr_step: Signal<In, Bits<2>>,
    pub d_imm: Signal<In, Bits<32>>,
    pub d_a_pc: Signal<In, Bit>,
    pub d_a_zero: Signal<In, Bit>,
    pub d_b_imm: Signal<In, Bit>,
    pub d_b_four: Signal<In, Bit>,
    pub d_is_csr: Signal<In, Bit>,
    pub d_is_store: Signal<In, Bit>,
    pub d_mem_unsigned: Signal<In, Bit>,
    pub d_is_jalr: Signal<In, Bit>,
    pub d_is_branch: Signal<In, Bit>,
    pub d_is_jal: Signal<In, Bit>,
    pub d_is_exit: Signal<In, Bit>,
    pub d_is_tmc: Signal<In, Bit>,
    pub d_rd_valid: Signal<In, Bit>,
    pub e_alu_op: Signal<Out, Bits<4>>,
    pub e_cmp: Signal<Out, Bits<3>>,
    pub e_md_op: Signal<Out, Bits<2>>,
    pub e_mem_size: Signal<Out, Bits<2>>,
    pub e_csr_step: Signal<Out, Bits<2>>,
    pub e_imm: Signal<Out, Bits<32>>,
    pub e_a_pc: Signal<Out, Bit>,
    pub e_a_zero: Signal<Out, Bit>,
    pub e_b_imm: Signal<Out, Bit>,
    pub e_b_four: Signal<Out, Bit>,
    pub e_is_csr: Signal<Out, Bit>,
    pub e_is_store: Signal<Out, Bit>,
    pub e_mem_unsigned: Signal<Out, Bit>,
    pub e_is_jalr: Signal<Out, Bit>,
    pub e_is_branch: Signal<Out, Bit>,
    pub e_is_jal: Signal<Out, Bit>,
    pub e_is_exit: Signal<Out, Bit>,
    pub e_is_tmc: Signal<Out, Bit>,
    pub e_rd_valid: Signal<Out, Bit>,
    // ---- operands: `d_data[s * L + l]` = lane `l` of source `s`. One copy per unit, loaded at
    // every edge: the ALU, multiplier, divider and load/store unit read sources 0 and 1 (`2L`
    // words), the branch unit every source. Each copy can be placed beside its unit; one register read by all five
    // units was the most congested net group of `small`'s routing (docs/fpga.md).
    pub d_data: Vec<Signal<In, Bits<32>>>,
    pub e_alu_data: Vec<Signal<Out, Bits<32>>>,
    pub e_mul_data: Vec<Signal<Out, Bits<32>>>,
    pub e_div_data: Vec<Signal<Out, Bits<32>>>,
    pub e_lsu_data: Vec<Signal<Out, Bits<32>>>,
    pub e_bu_data: Vec<Signal<Out, Bits<32>>>,
    // ---- a shift's exponent per lane: its amount (`rs2[4:0]` or the immediate's), inverted for
    // a right shift; the multiplier decodes its power of two from it (hdl/src/multiplier.rs)
    pub d_sh_expo: Vec<Signal<In, Bits<5>>>,
    pub e_sh_expo: Vec<Signal<Out, Bits<5>>>,

    to_alu: DFF<Bit>,
    to_mul: DFF<Bit>,
    to_div: DFF<Bit>,
    to_lsu: DFF<Bit>,
    to_bu: DFF<Bit>,
    tag: DFF<Bits<TAG_BITS>>,
    warp: DFF<Bits<WARP_BITS>>,
    pc: DFF<Bits<32>>,
    mask: DFF<Bits<L>>,
    csr: DFF<Bits<32>>,
    recon: DFF<Bits<32>>,
    alu_op: DFF<Bits<4>>,
    cmp: DFF<Bits<3>>,
    md_op: DFF<Bits<2>>,
    mem_size: DFF<Bits<2>>,
    csr_step: DFF<Bits<2>>,
    imm: DFF<Bits<32>>,
    a_pc: DFF<Bit>,
    a_zero: DFF<Bit>,
    b_imm: DFF<Bit>,
    b_four: DFF<Bit>,
    is_csr: DFF<Bit>,
    is_store: DFF<Bit>,
    mem_unsigned: DFF<Bit>,
    is_jalr: DFF<Bit>,
    is_branch: DFF<Bit>,
    is_jal: DFF<Bit>,
    is_exit: DFF<Bit>,
    is_tmc: DFF<Bit>,
    rd_valid: DFF<Bit>,
    alu_data: RegVec<Bits<32>>,
    mul_data: RegVec<Bits<32>>,
    div_data: RegVec<Bits<32>>,
    lsu_data: RegVec<Bits<32>>,
    bu_data: RegVec<Bits<32>>,
    sh_expo: RegVec<Bits<5>>,
    _n: usize,
    /// `2 L`: the words of sources 0 and 1.
    _n2: usize,
}

impl<const L: usize> DispatchRegister<L> {
    /// A register for `sources` (at least 2) operands of `L` lanes each.
    pub fn new(sources: usize) -> Self {
        assert!(sources >= 2, "the units read two sources");
        let n = sources * L;
        DispatchRegister {
            clock: Default::default(),
            reset: Default::default(),
            d_to_alu: Default::default(),
            d_to_mul: Default::default(),
            d_to_div: Default::default(),
            d_to_lsu: Default::default(),
            d_to_bu: Default::default(),
            e_to_alu: Default::default(),
            e_to_mul: Default::default(),
            e_to_div: Default::default(),
            e_to_lsu: Default::default(),
            e_to_bu: Default::default(),
            d_tag: Default::default(),
            d_warp: Default::default(),
            d_pc: Default::default(),
            d_mask: Default::default(),
            d_csr: Default::default(),
            d_recon: Default::default(),
            e_tag: Default::default(),
            e_warp: Default::default(),
            e_pc: Default::default(),
            e_mask: Default::default(),
            e_csr: Default::default(),
            e_recon: Default::default(),
            d_alu_op: Default::default(),
            d_cmp: Default::default(),
            d_md_op: Default::default(),
            d_mem_size: Default::default(),
            d_csr_step: Default::default(),
            d_imm: Default::default(),
            d_a_pc: Default::default(),
            d_a_zero: Default::default(),
            d_b_imm: Default::default(),
            d_b_four: Default::default(),
            d_is_csr: Default::default(),
            d_is_store: Default::default(),
            d_mem_unsigned: Default::default(),
            d_is_jalr: Default::default(),
            d_is_branch: Default::default(),
            d_is_jal: Default::default(),
            d_is_exit: Default::default(),
            d_is_tmc: Default::default(),
            d_rd_valid: Default::default(),
            e_alu_op: Default::default(),
            e_cmp: Default::default(),
            e_md_op: Default::default(),
            e_mem_size: Default::default(),
            e_csr_step: Default::default(),
            e_imm: Default::default(),
            e_a_pc: Default::default(),
            e_a_zero: Default::default(),
            e_b_imm: Default::default(),
            e_b_four: Default::default(),
            e_is_csr: Default::default(),
            e_is_store: Default::default(),
            e_mem_unsigned: Default::default(),
            e_is_jalr: Default::default(),
            e_is_branch: Default::default(),
            e_is_jal: Default::default(),
            e_is_exit: Default::default(),
            e_is_tmc: Default::default(),
            e_rd_valid: Default::default(),
            d_data: crate::sigs(n),
            e_alu_data: crate::sigs(2 * L),
            e_mul_data: crate::sigs(2 * L),
            e_div_data: crate::sigs(2 * L),
            e_lsu_data: crate::sigs(2 * L),
            e_bu_data: crate::sigs(n),
            d_sh_expo: crate::sigs(L),
            e_sh_expo: crate::sigs(L),
            to_alu: Default::default(),
            to_mul: Default::default(),
            to_div: Default::default(),
            to_lsu: Default::default(),
            to_bu: Default::default(),
            tag: Default::default(),
            warp: Default::default(),
            pc: Default::default(),
            mask: Default::default(),
            csr: Default::default(),
            recon: Default::default(),
            alu_op: Default::default(),
            cmp: Default::default(),
            md_op: Default::default(),
            mem_size: Default::default(),
            csr_step: Default::default(),
            imm: Default::default(),
            a_pc: Default::default(),
            a_zero: Default::default(),
            b_imm: Default::default(),
            b_four: Default::default(),
            is_csr: Default::default(),
            is_store: Default::default(),
            mem_unsigned: Default::default(),
            is_jalr: Default::default(),
            is_branch: Default::default(),
            is_jal: Default::default(),
            is_exit: Default::default(),
            is_tmc: Default::default(),
            rd_valid: Default::default(),
            alu_data: RegVec::new(2 * L),
            mul_data: RegVec::new(2 * L),
            div_data: RegVec::new(2 * L),
            lsu_data: RegVec::new(2 * L),
            bu_data: RegVec::new(n),
            sh_expo: RegVec::new(L),
            _n: n,
            _n2: 2 * L,
        }
    }
}

impl<const L: usize> Logic for DispatchRegister<L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            to_alu,
            to_mul,
            to_div,
            to_lsu,
            to_bu,
            tag,
            warp,
            pc,
            mask,
            csr,
            recon,
            alu_op,
            cmp,
            md_op,
            mem_size,
            csr_step,
            imm,
            a_pc,
            a_zero,
            b_imm,
            b_four,
            is_csr,
            is_store,
            mem_unsigned,
            is_jalr,
            is_branch,
            is_jal,
            is_exit,
            is_tmc,
            rd_valid
        );
        self.alu_data.clock.next = self.clock.val();
        self.mul_data.clock.next = self.clock.val();
        self.div_data.clock.next = self.clock.val();
        self.lsu_data.clock.next = self.clock.val();
        self.bu_data.clock.next = self.clock.val();
        self.sh_expo.clock.next = self.clock.val();
        for l in 0..L {
            self.sh_expo.d[l].next = self.d_sh_expo[l].val();
            self.e_sh_expo[l].next = self.sh_expo.q[l].val();
        }
        self.to_alu.d.next = self.d_to_alu.val() & !self.reset.val();
        self.to_mul.d.next = self.d_to_mul.val() & !self.reset.val();
        self.to_div.d.next = self.d_to_div.val() & !self.reset.val();
        self.to_lsu.d.next = self.d_to_lsu.val() & !self.reset.val();
        self.to_bu.d.next = self.d_to_bu.val() & !self.reset.val();
        self.tag.d.next = self.d_tag.val();
        self.warp.d.next = self.d_warp.val();
        self.pc.d.next = self.d_pc.val();
        self.mask.d.next = self.d_mask.val();
        self.csr.d.next = self.d_csr.val();
        self.recon.d.next = self.d_recon.val();
        self.alu_op.d.next = self.d_alu_op.val();
        self.cmp.d.next = self.d_cmp.val();
        self.md_op.d.next = self.d_md_op.val();
        self.mem_size.d.next = self.d_mem_size.val();
        self.csr_step.d.next = self.d_csr_step.val();
        self.imm.d.next = self.d_imm.val();
        self.a_pc.d.next = self.d_a_pc.val();
        self.a_zero.d.next = self.d_a_zero.val();
        self.b_imm.d.next = self.d_b_imm.val();
        self.b_four.d.next = self.d_b_four.val();
        self.is_csr.d.next = self.d_is_csr.val();
        self.is_store.d.next = self.d_is_store.val();
        self.mem_unsigned.d.next = self.d_mem_unsigned.val();
        self.is_jalr.d.next = self.d_is_jalr.val();
        self.is_branch.d.next = self.d_is_branch.val();
        self.is_jal.d.next = self.d_is_jal.val();
        self.is_exit.d.next = self.d_is_exit.val();
        self.is_tmc.d.next = self.d_is_tmc.val();
        self.rd_valid.d.next = self.d_rd_valid.val();
        for i in 0..self._n2 {
            self.alu_data.d[i].next = self.d_data[i].val();
            self.mul_data.d[i].next = self.d_data[i].val();
            self.div_data.d[i].next = self.d_data[i].val();
            self.lsu_data.d[i].next = self.d_data[i].val();
            self.e_alu_data[i].next = self.alu_data.q[i].val();
            self.e_mul_data[i].next = self.mul_data.q[i].val();
            self.e_div_data[i].next = self.div_data.q[i].val();
            self.e_lsu_data[i].next = self.lsu_data.q[i].val();
        }
        for i in 0..self._n {
            self.bu_data.d[i].next = self.d_data[i].val();
            self.e_bu_data[i].next = self.bu_data.q[i].val();
        }
        self.e_to_alu.next = self.to_alu.q.val();
        self.e_to_mul.next = self.to_mul.q.val();
        self.e_to_div.next = self.to_div.q.val();
        self.e_to_lsu.next = self.to_lsu.q.val();
        self.e_to_bu.next = self.to_bu.q.val();
        self.e_tag.next = self.tag.q.val();
        self.e_warp.next = self.warp.q.val();
        self.e_pc.next = self.pc.q.val();
        self.e_mask.next = self.mask.q.val();
        self.e_csr.next = self.csr.q.val();
        self.e_recon.next = self.recon.q.val();
        self.e_alu_op.next = self.alu_op.q.val();
        self.e_cmp.next = self.cmp.q.val();
        self.e_md_op.next = self.md_op.q.val();
        self.e_mem_size.next = self.mem_size.q.val();
        self.e_csr_step.next = self.csr_step.q.val();
        self.e_imm.next = self.imm.q.val();
        self.e_a_pc.next = self.a_pc.q.val();
        self.e_a_zero.next = self.a_zero.q.val();
        self.e_b_imm.next = self.b_imm.q.val();
        self.e_b_four.next = self.b_four.q.val();
        self.e_is_csr.next = self.is_csr.q.val();
        self.e_is_store.next = self.is_store.q.val();
        self.e_mem_unsigned.next = self.mem_unsigned.q.val();
        self.e_is_jalr.next = self.is_jalr.q.val();
        self.e_is_branch.next = self.is_branch.q.val();
        self.e_is_jal.next = self.is_jal.q.val();
        self.e_is_exit.next = self.is_exit.q.val();
        self.e_is_tmc.next = self.is_tmc.q.val();
        self.e_rd_valid.next = self.rd_valid.q.val();
    }
}

/// The yosys selection of the operand copies' flip-flops in a flattened design (the SM's
/// instance of this register is `dreg`; the copies' registers are `<unit>_data`). The synthesis
/// scripts (gen/src/synth) mark them `keep` so that `opt_merge` does not merge the five copies,
/// which share their inputs, into one.
pub const OPERAND_COPIES: &str = "w:*.dreg.*_data.q$* %ci1 t:$dff %i";

/// Verilog of the dispatch register for `sources` operands of `L` lanes, top module `name`.
pub fn dispatch_register_verilog<const L: usize>(
    sources: usize,
    name: &str,
) -> Result<String, crate::HdlError> {
    let mut uut = DispatchRegister::<L>::new(sources);
    Ok(crate::rename_top(
        &crate::verilog_of("dispatch_register", &mut uut)?,
        name,
    ))
}
