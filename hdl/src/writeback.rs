//! Writeback arbitration of one SM (docs/microarch/sm.md, "Writeback"): one register write per
//! cycle, from the fixed-latency units (ALU, multiplier, divider) or the load/store unit.
//!
//! * The fixed-latency units never collide: issue reserves their writeback cycle (the SM's
//!   writeback slots), so at most one of `alu_valid`, `mul_valid`, `div_valid` is high; when
//!   several are (never in a correct SM) the divider wins over the multiplier over the ALU.
//! * The LSU's completion is taken (`lsu_ready`) when it is a store (no register write) or when
//!   no fixed-latency result arrives; otherwise it waits. `lsu_done` = `lsu_valid & lsu_ready`.
//!   A load's register write is chosen from `lsu_load_valid` (the LSU's registered completion
//!   of a load, equal to `lsu_valid & !lsu_store`), so it starts at a flip-flop.
//! * `valid` = a fixed-latency result or a taken load; `tag`, `mask`, `data` are that result's.
//! * The destination (`warp`, `rd`) comes from registers, not from a tag-table read after the
//!   choice, so the register file's write starts from flip-flops: the ALU's and multiplier's
//!   from the SM's early-release register (the destination of the fixed-latency result arriving
//!   next cycle, `fx_next_*`) delayed one cycle; the divider's and the LSU's captured when an
//!   instruction for them enters the dispatch register (each holds one instruction at a time,
//!   and the previous one has written back by the end of that cycle; docs/microarch/sm.md,
//!   "Writeback"). The rest is combinational.
//!
//! The injected fault (`TopOptions::inject`, for the checker's own test) flips one lane's bit of
//! every ALU `sub` result; `instr` (the instruction of `tag`, from the tag table) recognises it.

use crate::sigs;
use rust_hdl::prelude::*;

use crate::register_file::WARP_BITS;
use crate::tag_table::TAG_BITS;

/// `sub`'s fixed bits (funct7, funct3, opcode) and their values.
const SUB_MASK: u64 = 0xfe00_707f;
const SUB_MATCH: u64 = 0x4000_0033;

/// The writeback multiplexer of an SM of `lanes` lanes.
#[derive(LogicBlock)]
pub struct Writeback {
    pub clock: Signal<In, Clock>,
    /// The destination of the ALU or multiplier result that arrives next cycle.
    pub fx_next_warp: Signal<In, Bits<WARP_BITS>>,
    pub fx_next_rd: Signal<In, Bits<5>>,
    /// An instruction for the divider / the LSU enters the dispatch register this cycle, with
    /// its warp and destination (0 when it writes none).
    pub disp_div: Signal<In, Bit>,
    pub disp_lsu: Signal<In, Bit>,
    pub disp_warp: Signal<In, Bits<WARP_BITS>>,
    pub disp_rd: Signal<In, Bits<5>>,
    pub alu_valid: Signal<In, Bit>,
    pub alu_tag: Signal<In, Bits<TAG_BITS>>,
    pub alu_mask: Vec<Signal<In, Bit>>,
    pub alu_result: Vec<Signal<In, Bits<32>>>,
    pub mul_valid: Signal<In, Bit>,
    pub mul_tag: Signal<In, Bits<TAG_BITS>>,
    pub mul_mask: Vec<Signal<In, Bit>>,
    pub mul_result: Vec<Signal<In, Bits<32>>>,
    pub div_valid: Signal<In, Bit>,
    pub div_tag: Signal<In, Bits<TAG_BITS>>,
    pub div_mask: Vec<Signal<In, Bit>>,
    pub div_result: Vec<Signal<In, Bits<32>>>,
    pub lsu_valid: Signal<In, Bit>,
    /// `lsu_valid` of a load, from the LSU's flip-flop: the register write starts there.
    pub lsu_load_valid: Signal<In, Bit>,
    pub lsu_store: Signal<In, Bit>,
    pub lsu_tag: Signal<In, Bits<TAG_BITS>>,
    pub lsu_mask: Vec<Signal<In, Bit>>,
    pub lsu_data: Vec<Signal<In, Bits<32>>>,
    pub lsu_ready: Signal<Out, Bit>,
    pub lsu_done: Signal<Out, Bit>,
    /// The instruction of `tag` (for the injected fault only).
    pub instr: Signal<In, Bits<32>>,
    pub valid: Signal<Out, Bit>,
    pub tag: Signal<Out, Bits<TAG_BITS>>,
    pub mask: Vec<Signal<Out, Bit>>,
    pub data: Vec<Signal<Out, Bits<32>>>,
    /// The destination of the result written this cycle.
    pub warp: Signal<Out, Bits<WARP_BITS>>,
    pub rd: Signal<Out, Bits<5>>,
    fx_warp_q: DFF<Bits<WARP_BITS>>,
    fx_rd_q: DFF<Bits<5>>,
    div_warp_q: DFF<Bits<WARP_BITS>>,
    div_rd_q: DFF<Bits<5>>,
    lsu_warp_q: DFF<Bits<WARP_BITS>>,
    lsu_rd_q: DFF<Bits<5>>,
    fx_valid: Signal<Local, Bit>,
    fx_tag: Signal<Local, Bits<TAG_BITS>>,
    fx_mask: Vec<Signal<Local, Bit>>,
    fx_data: Vec<Signal<Local, Bits<32>>>,
    k_sub_mask: Constant<Bits<32>>,
    k_sub_match: Constant<Bits<32>>,
    /// Flip mask per lane (all zero without injection).
    k_inject: Vec<Constant<Bits<32>>>,
    k_inject_on: Constant<Bit>,
    _lanes: usize,
}

impl Writeback {
    /// `flip[l]`: the bits of lane `l`'s ALU `sub` results to invert (all 0: no injection).
    pub fn new(flip: &[u64]) -> Self {
        let lanes = flip.len();
        assert!(lanes >= 1, "a warp has at least one lane");
        Writeback {
            clock: Default::default(),
            fx_next_warp: Default::default(),
            fx_next_rd: Default::default(),
            disp_div: Default::default(),
            disp_lsu: Default::default(),
            disp_warp: Default::default(),
            disp_rd: Default::default(),
            warp: Default::default(),
            rd: Default::default(),
            fx_warp_q: Default::default(),
            fx_rd_q: Default::default(),
            div_warp_q: Default::default(),
            div_rd_q: Default::default(),
            lsu_warp_q: Default::default(),
            lsu_rd_q: Default::default(),
            alu_valid: Default::default(),
            alu_tag: Default::default(),
            alu_mask: sigs(lanes),
            alu_result: sigs(lanes),
            mul_valid: Default::default(),
            mul_tag: Default::default(),
            mul_mask: sigs(lanes),
            mul_result: sigs(lanes),
            div_valid: Default::default(),
            div_tag: Default::default(),
            div_mask: sigs(lanes),
            div_result: sigs(lanes),
            lsu_valid: Default::default(),
            lsu_load_valid: Default::default(),
            lsu_store: Default::default(),
            lsu_tag: Default::default(),
            lsu_mask: sigs(lanes),
            lsu_data: sigs(lanes),
            lsu_ready: Default::default(),
            lsu_done: Default::default(),
            instr: Default::default(),
            valid: Default::default(),
            tag: Default::default(),
            mask: sigs(lanes),
            data: sigs(lanes),
            fx_valid: Default::default(),
            fx_tag: Default::default(),
            fx_mask: sigs(lanes),
            fx_data: sigs(lanes),
            k_sub_mask: Constant::new(SUB_MASK.into()),
            k_sub_match: Constant::new(SUB_MATCH.into()),
            k_inject: flip.iter().map(|&f| Constant::new(f.into())).collect(),
            k_inject_on: Constant::new(flip.iter().any(|&f| f != 0)),
            _lanes: lanes,
        }
    }
}

impl Logic for Writeback {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fx_warp_q, fx_rd_q, div_warp_q, div_rd_q, lsu_warp_q, lsu_rd_q);
        self.fx_warp_q.d.next = self.fx_next_warp.val();
        self.fx_rd_q.d.next = self.fx_next_rd.val();
        if self.disp_div.val() {
            self.div_warp_q.d.next = self.disp_warp.val();
            self.div_rd_q.d.next = self.disp_rd.val();
        }
        if self.disp_lsu.val() {
            self.lsu_warp_q.d.next = self.disp_warp.val();
            self.lsu_rd_q.d.next = self.disp_rd.val();
        }
        self.fx_valid.next = self.alu_valid.val() | self.mul_valid.val() | self.div_valid.val();
        self.fx_tag.next = self.alu_tag.val();
        if self.mul_valid.val() {
            self.fx_tag.next = self.mul_tag.val();
        }
        if self.div_valid.val() {
            self.fx_tag.next = self.div_tag.val();
        }
        self.lsu_ready.next = self.lsu_store.val() | !self.fx_valid.val();
        self.lsu_done.next = self.lsu_valid.val() & (self.lsu_store.val() | !self.fx_valid.val());
        self.valid.next = self.fx_valid.val() | (self.lsu_load_valid.val() & !self.fx_valid.val());
        self.tag.next = self.lsu_tag.val();
        if self.fx_valid.val() {
            self.tag.next = self.fx_tag.val();
        }
        self.warp.next = self.lsu_warp_q.q.val();
        self.rd.next = self.lsu_rd_q.q.val();
        if self.alu_valid.val() | self.mul_valid.val() {
            self.warp.next = self.fx_warp_q.q.val();
            self.rd.next = self.fx_rd_q.q.val();
        }
        if self.div_valid.val() {
            self.warp.next = self.div_warp_q.q.val();
            self.rd.next = self.div_rd_q.q.val();
        }
        for l in 0..self._lanes {
            self.fx_mask[l].next = self.alu_mask[l].val();
            self.fx_data[l].next = self.alu_result[l].val();
            if self.mul_valid.val() {
                self.fx_mask[l].next = self.mul_mask[l].val();
                self.fx_data[l].next = self.mul_result[l].val();
            }
            if self.div_valid.val() {
                self.fx_mask[l].next = self.div_mask[l].val();
                self.fx_data[l].next = self.div_result[l].val();
            }
            self.mask[l].next = self.lsu_mask[l].val();
            self.data[l].next = self.lsu_data[l].val();
            if self.fx_valid.val() {
                self.mask[l].next = self.fx_mask[l].val();
                self.data[l].next = self.fx_data[l].val();
            }
            if self.k_inject_on.val()
                & self.alu_valid.val()
                & ((self.instr.val() & self.k_sub_mask.val()) == self.k_sub_match.val())
            {
                self.data[l].next = self.fx_data[l].val() ^ self.k_inject[l].val();
            }
        }
    }
}
