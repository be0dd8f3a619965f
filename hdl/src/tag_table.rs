//! Tag table of one SM (docs/microarch/sm.md, "Tags"): every issued instruction holds a tag
//! until it completes; the entry keeps what later stages need and the issue record already
//! carried (warp, PC, instruction word, the decoded fields the execution units need
//! (hdl/src/exec_fields.rs), reconvergence sidecar, CSR value, lane mask, "ends the warp"). The destination register is not kept here: the writeback carries it in registers
//! of its own (hdl/src/writeback.rs), so the register file's write does not wait for a read.
//!
//! * `free_tag` is the lowest tag whose entry is free in the registered state (0 when none is),
//!   `any_free` says whether there is one (a flip-flop: "the table is full after the edge" is
//!   computed from the next state, so it costs the issue stage no logic). `busy[w]`: some valid entry belongs to warp `w`.
//! * Allocation: with `alloc_valid`, entry `free_tag` takes the `alloc_*` fields at the edge
//!   (the caller allocates only while `any_free`). The fields kept in RAM are registered first
//!   and written into the RAMs at the next edge, so the issue stage's decode and CSR read end
//!   at flip-flops, not at the RAMs' write ports; a writeback or fault read of that entry in
//!   the cycle between takes the registered fields (a bypass on those ports), so they see the
//!   entry from the cycle after its allocation, as if it were written at once. The dispatch
//!   port has no bypass: it sees an entry from the second cycle after its allocation, the
//!   earliest an instruction can be dispatched (docs/microarch/sm.md, "Tags"); its `ends` is
//!   in flip-flops and seen at once.
//! * The pc of an entry keeps the bits of `pc_mask` (on reads too): the SM's instruction
//!   memory's aligned addresses, the only pcs an instruction that takes a tag can have.
//! * Release: `rel_valid[p]` frees entry `rel_tag[p]` at the edge (three ports: the operand
//!   collector's dispatch of an instruction with no writeback, the writeback, the LSU's store
//!   completion). An allocation of the same entry in the same cycle wins.
//! * Reads (combinational, 0 for a tag outside the table): the dispatch port (`disp_tag`), the
//!   writeback port (`wb_tag`) and the fault port (`fault_tag`). `disp_exec` alone is not gated
//!   (undefined for a tag outside the table, which the SM never dispatches): it is on the
//!   dispatch's critical path. The fields written only at
//!   allocation (PC, instruction, sidecar, CSR value, mask) are in distributed RAM
//!   ([`LutRam`], one copy per reading port): an entry's fields read through a RAM's own
//!   address decoder instead of a `tags`-way multiplexer of flip-flops. Validity, warp (compared
//!   in every entry for `busy`) and `ends` stay in flip-flops.
//! * `reset` (synchronous) frees every entry.

use crate::sigs;
use rust_hdl::prelude::*;

use crate::exec_fields::EXEC_BITS;
use crate::lut_ram::{addr_bits_for, LutRam};
use crate::scoreboard::{RegVec, WARP_BITS};

/// Width of a tag on the ports.
pub const TAG_BITS: usize = 8;

/// Release ports.
pub const RELEASE_PORTS: usize = 3;

/// The tag table of an SM of `L` lanes.
#[derive(LogicBlock)]
pub struct TagTable<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub free_tag: Signal<Out, Bits<TAG_BITS>>,
    pub any_free: Signal<Out, Bit>,
    pub busy: Vec<Signal<Out, Bit>>,
    pub alloc_valid: Signal<In, Bit>,
    pub alloc_warp: Signal<In, Bits<WARP_BITS>>,
    pub alloc_pc: Signal<In, Bits<32>>,
    pub alloc_instr: Signal<In, Bits<32>>,
    pub alloc_exec: Signal<In, Bits<EXEC_BITS>>,
    pub alloc_recon: Signal<In, Bits<32>>,
    pub alloc_csr: Signal<In, Bits<32>>,
    pub alloc_mask: Signal<In, Bits<L>>,
    pub alloc_ends: Signal<In, Bit>,
    pub rel_valid: Vec<Signal<In, Bit>>,
    pub rel_tag: Vec<Signal<In, Bits<TAG_BITS>>>,
    pub disp_tag: Signal<In, Bits<TAG_BITS>>,
    pub disp_pc: Signal<Out, Bits<32>>,
    pub disp_exec: Signal<Out, Bits<EXEC_BITS>>,
    pub disp_recon: Signal<Out, Bits<32>>,
    pub disp_csr: Signal<Out, Bits<32>>,
    pub disp_mask: Signal<Out, Bits<L>>,
    pub disp_ends: Signal<Out, Bit>,
    pub wb_tag: Signal<In, Bits<TAG_BITS>>,
    pub wb_instr: Signal<Out, Bits<32>>,
    pub fault_tag: Signal<In, Bits<TAG_BITS>>,
    pub fault_pc: Signal<Out, Bits<32>>,
    t_valid: RegVec<Bit>,
    t_warp: RegVec<Bits<WARP_BITS>>,
    t_ends: RegVec<Bit>,
    /// The fields written once at allocation and only read afterwards: distributed RAM with one
    /// read port per reader (`pc`: dispatch, fault; `instr`: writeback; the rest: dispatch).
    ram_pc: LutRam<32, TAG_BITS>,
    ram_instr: LutRam<32, TAG_BITS>,
    ram_exec: LutRam<EXEC_BITS, TAG_BITS>,
    ram_recon: LutRam<32, TAG_BITS>,
    ram_csr: LutRam<32, TAG_BITS>,
    ram_mask: LutRam<L, TAG_BITS>,
    /// The allocation's RAM fields, written into the RAMs a cycle later (`w_v`: pending).
    w_v: DFF<Bit>,
    w_tag: DFF<Bits<TAG_BITS>>,
    w_pc: DFF<Bits<32>>,
    w_instr: DFF<Bits<32>>,
    w_exec: DFF<Bits<EXEC_BITS>>,
    w_recon: DFF<Bits<32>>,
    w_csr: DFF<Bits<32>>,
    w_mask: DFF<Bits<L>>,
    /// The port reads the entry whose fields are still in the `w_*` registers.
    wb_hit: Signal<Local, Bit>,
    fault_hit: Signal<Local, Bit>,
    /// The tag read by each port is an entry of the table (the RAMs have `2^k ≥ tags` words).
    disp_in: Signal<Local, Bit>,
    wb_in: Signal<Local, Bit>,
    fault_in: Signal<Local, Bit>,
    /// `seen[t]`: some entry below `t` is free.
    seen: Vec<Signal<Local, Bit>>,
    /// Every entry is valid after this edge: `any_free` is a flip-flop (it is in front of the
    /// SM's issue, `i_fire`, and through it of the fetch's and the scoreboard's next state).
    /// "Not full" so that its power-up 0 agrees with the empty table's.
    full: DFF<Bit>,
    full_n: Signal<Local, Bit>,
    k_tag: Vec<Constant<Bits<TAG_BITS>>>,
    k_wid: Vec<Constant<Bits<WARP_BITS>>>,
    k_zero_tag: Constant<Bits<TAG_BITS>>,
    k_zero32: Constant<Bits<32>>,
    k_zero_mask: Constant<Bits<L>>,
    k_tags: Constant<Bits<TAG_BITS>>,
    k_pc_mask: Constant<Bits<32>>,
    _tags: usize,
    _tags_m1: usize,
    _warps: usize,
}

impl<const L: usize> TagTable<L> {
    /// A table of `tags` entries for `warps` warps; an entry's pc keeps the bits of `pc_mask`
    /// (the instruction memory's aligned addresses: an instruction fetched outside it faults
    /// at issue and never takes a tag).
    pub fn new(tags: usize, warps: usize, pc_mask: u32) -> Self {
        assert!(
            (1..1 << TAG_BITS).contains(&tags),
            "{tags} tags: 1 to {}",
            (1 << TAG_BITS) - 1
        );
        assert!((1..=1 << WARP_BITS).contains(&warps), "{warps} warps");
        // Words of the RAMs: the power of two that holds every tag.
        let addr_bits = addr_bits_for(tags);
        TagTable {
            clock: Default::default(),
            reset: Default::default(),
            free_tag: Default::default(),
            any_free: Default::default(),
            busy: sigs(warps),
            alloc_valid: Default::default(),
            alloc_warp: Default::default(),
            alloc_pc: Default::default(),
            alloc_instr: Default::default(),
            alloc_exec: Default::default(),
            alloc_recon: Default::default(),
            alloc_csr: Default::default(),
            alloc_mask: Default::default(),
            alloc_ends: Default::default(),
            rel_valid: sigs(RELEASE_PORTS),
            rel_tag: sigs(RELEASE_PORTS),
            disp_tag: Default::default(),
            disp_pc: Default::default(),
            disp_exec: Default::default(),
            disp_recon: Default::default(),
            disp_csr: Default::default(),
            disp_mask: Default::default(),
            disp_ends: Default::default(),
            wb_tag: Default::default(),
            wb_instr: Default::default(),
            fault_tag: Default::default(),
            fault_pc: Default::default(),
            t_valid: RegVec::new(tags),
            t_warp: RegVec::new(tags),
            t_ends: RegVec::new(tags),
            ram_pc: LutRam::new(addr_bits, 2),
            ram_instr: LutRam::new(addr_bits, 1),
            ram_exec: LutRam::new(addr_bits, 1),
            ram_recon: LutRam::new(addr_bits, 1),
            ram_csr: LutRam::new(addr_bits, 1),
            ram_mask: LutRam::new(addr_bits, 1),
            w_v: Default::default(),
            w_tag: Default::default(),
            w_pc: Default::default(),
            w_instr: Default::default(),
            w_exec: Default::default(),
            w_recon: Default::default(),
            w_csr: Default::default(),
            w_mask: Default::default(),
            wb_hit: Default::default(),
            fault_hit: Default::default(),
            disp_in: Default::default(),
            wb_in: Default::default(),
            fault_in: Default::default(),
            seen: sigs(tags),
            full: Default::default(),
            full_n: Default::default(),
            k_tag: (0..tags)
                .map(|t| Constant::new((t as u64).into()))
                .collect(),
            k_wid: (0..warps)
                .map(|w| Constant::new((w as u64).into()))
                .collect(),
            k_zero_tag: Constant::new(0u64.into()),
            k_zero32: Constant::new(0u64.into()),
            k_zero_mask: Constant::new(0u64.into()),
            k_tags: Constant::new((tags as u64).into()),
            k_pc_mask: Constant::new(u64::from(pc_mask).into()),
            _tags: tags,
            _tags_m1: tags - 1,
            _warps: warps,
        }
    }
}

impl<const L: usize> Logic for TagTable<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.t_valid.clock.next = self.clock.val();
        self.t_warp.clock.next = self.clock.val();
        self.t_ends.clock.next = self.clock.val();
        self.ram_pc.clock.next = self.clock.val();
        self.ram_instr.clock.next = self.clock.val();
        self.ram_exec.clock.next = self.clock.val();
        self.ram_recon.clock.next = self.clock.val();
        self.ram_csr.clock.next = self.clock.val();
        self.ram_mask.clock.next = self.clock.val();

        // Warps holding tags; the lowest free tag.
        for w in 0..self._warps {
            self.busy[w].next = false;
        }
        for t in 0..self._tags {
            for w in 0..self._warps {
                if self.t_valid.q[t].val() & (self.t_warp.q[t].val() == self.k_wid[w].val()) {
                    self.busy[w].next = true;
                }
            }
        }
        self.seen[0].next = false;
        for t in 0..self._tags_m1 {
            self.seen[t + 1].next = self.seen[t].val() | !self.t_valid.q[t].val();
        }
        self.free_tag.next = self.k_zero_tag.val();
        for t in 0..self._tags {
            if !self.t_valid.q[t].val() & !self.seen[t].val() {
                self.free_tag.next = self.k_tag[t].val();
            }
        }
        self.any_free.next = !self.full.q.val();

        // Allocation: the entry's RAM fields are registered, then written at the next edge
        // (validity is kept in `t_valid`, at once).
        dff_setup!(self, clock, w_v, w_tag, w_pc, w_instr, w_exec, w_recon, w_csr, w_mask);
        self.w_v.d.next = self.alloc_valid.val() & !self.reset.val();
        self.w_tag.d.next = self.free_tag.val();
        self.w_pc.d.next = self.alloc_pc.val() & self.k_pc_mask.val();
        self.w_instr.d.next = self.alloc_instr.val();
        self.w_exec.d.next = self.alloc_exec.val();
        self.w_recon.d.next = self.alloc_recon.val();
        self.w_csr.d.next = self.alloc_csr.val();
        self.w_mask.d.next = self.alloc_mask.val();
        self.ram_pc.we.next = self.w_v.q.val();
        self.ram_pc.waddr.next = self.w_tag.q.val();
        self.ram_pc.wdata.next = self.w_pc.q.val();
        self.ram_instr.we.next = self.w_v.q.val();
        self.ram_instr.waddr.next = self.w_tag.q.val();
        self.ram_instr.wdata.next = self.w_instr.q.val();
        self.ram_exec.we.next = self.w_v.q.val();
        self.ram_exec.waddr.next = self.w_tag.q.val();
        self.ram_exec.wdata.next = self.w_exec.q.val();
        self.ram_recon.we.next = self.w_v.q.val();
        self.ram_recon.waddr.next = self.w_tag.q.val();
        self.ram_recon.wdata.next = self.w_recon.q.val();
        self.ram_csr.we.next = self.w_v.q.val();
        self.ram_csr.waddr.next = self.w_tag.q.val();
        self.ram_csr.wdata.next = self.w_csr.q.val();
        self.ram_mask.we.next = self.w_v.q.val();
        self.ram_mask.waddr.next = self.w_tag.q.val();
        self.ram_mask.wdata.next = self.w_mask.q.val();

        // Reads: the RAMs, 0 for a tag outside the table.
        self.disp_in.next = self.disp_tag.val() < self.k_tags.val();
        self.wb_in.next = self.wb_tag.val() < self.k_tags.val();
        self.fault_in.next = self.fault_tag.val() < self.k_tags.val();
        self.ram_pc.raddr[0].next = self.disp_tag.val();
        self.ram_exec.raddr[0].next = self.disp_tag.val();
        self.ram_recon.raddr[0].next = self.disp_tag.val();
        self.ram_csr.raddr[0].next = self.disp_tag.val();
        self.ram_mask.raddr[0].next = self.disp_tag.val();
        self.ram_instr.raddr[0].next = self.wb_tag.val();
        self.ram_pc.raddr[1].next = self.fault_tag.val();
        self.wb_hit.next = self.w_v.q.val() & (self.w_tag.q.val() == self.wb_tag.val());
        self.fault_hit.next = self.w_v.q.val() & (self.w_tag.q.val() == self.fault_tag.val());
        // Dispatch reads the RAMs without a bypass of the entry being written: a tag allocated
        // in cycle c is written at the edge ending c + 1 and cannot be dispatched before c + 2
        // (docs/microarch/sm.md, "Tags").
        self.disp_pc.next = self.k_zero32.val();
        self.disp_exec.next = self.ram_exec.rdata[0].val();
        self.disp_recon.next = self.k_zero32.val();
        self.disp_csr.next = self.k_zero32.val();
        self.disp_mask.next = self.k_zero_mask.val();
        if self.disp_in.val() {
            self.disp_pc.next = self.ram_pc.rdata[0].val() & self.k_pc_mask.val();
            self.disp_recon.next = self.ram_recon.rdata[0].val();
            self.disp_csr.next = self.ram_csr.rdata[0].val();
            self.disp_mask.next = self.ram_mask.rdata[0].val();
        }
        self.wb_instr.next = self.k_zero32.val();
        if self.wb_in.val() {
            self.wb_instr.next = self.ram_instr.rdata[0].val();
            if self.wb_hit.val() {
                self.wb_instr.next = self.w_instr.q.val();
            }
        }
        self.fault_pc.next = self.k_zero32.val();
        if self.fault_in.val() {
            self.fault_pc.next = self.ram_pc.rdata[1].val() & self.k_pc_mask.val();
            if self.fault_hit.val() {
                self.fault_pc.next = self.w_pc.q.val();
            }
        }
        // The fields kept in flip-flops (`warp`: every entry is compared for `busy`).
        self.disp_ends.next = false;
        for t in 0..self._tags {
            if self.disp_tag.val() == self.k_tag[t].val() {
                self.disp_ends.next = self.t_ends.q[t].val();
            }
        }

        for t in 0..self._tags {
            self.t_valid.d[t].next = self.t_valid.q[t].val();
            self.t_warp.d[t].next = self.t_warp.q[t].val();
            self.t_ends.d[t].next = self.t_ends.q[t].val();
            for p in 0..RELEASE_PORTS {
                if self.rel_valid[p].val() & (self.rel_tag[p].val() == self.k_tag[t].val()) {
                    self.t_valid.d[t].next = false;
                }
            }
            if self.alloc_valid.val() & (self.free_tag.val() == self.k_tag[t].val()) {
                self.t_valid.d[t].next = true;
                self.t_warp.d[t].next = self.alloc_warp.val();
                self.t_ends.d[t].next = self.alloc_ends.val();
            }
            if self.reset.val() {
                self.t_valid.d[t].next = false;
            }
        }
        self.full.clock.next = self.clock.val();
        self.full_n.next = true;
        for t in 0..self._tags {
            if !self.t_valid.d[t].val() {
                self.full_n.next = false;
            }
        }
        self.full.d.next = self.full_n.val();
    }
}

/// Verilog of a table of `tags` entries for `warps` warps of `L` lanes, pcs kept at the bits
/// of `pc_mask`, top module `name`.
pub fn tag_table_verilog<const L: usize>(
    tags: usize,
    warps: usize,
    pc_mask: u32,
    name: &str,
) -> Result<String, crate::HdlError> {
    let mut uut = TagTable::<L>::new(tags, warps, pc_mask);
    Ok(crate::rename_top(
        &crate::verilog_of("tag_table", &mut uut)?,
        name,
    ))
}
