//! The SIMT reconvergence stacks of all warps of one SM (book §3.1.1, Fig. 3.4; docs/isa.md §4).
//!
//! Cycle behaviour, ports and encodings: docs/microarch/simt_stack.md. In short:
//!
//! * per warp, the top of stack (TOS: pc, rpc, mask), the depth and the warp's live threads are
//!   flip-flops; the entries below the TOS are in two RAMs (one synchronous read port, one write
//!   port each; even and odd levels), so the stacks map to block or LUT RAM;
//! * one command per cycle for one warp that is not `busy`; the command and the settle of the
//!   entries it writes take effect at the rising edge that ends the command cycle;
//! * a pop below the entries the command wrote needs the new TOS from RAM: the warp is `busy`
//!   while its refill is read (two cycles per popped level), one refill read per cycle for the
//!   whole SM (lowest warp first);
//! * `exit` clears the exiting threads from the warp's live mask and the TOS; entries in RAM
//!   are masked with the live mask when they are read (so an exit is one cycle at any depth);
//! * per-warp outputs straight from flip-flops; a registered `overflow` pulse; a combinational
//!   debug read port (`dbg_warp`, `dbg_entry`) used only by verification.
//!
//! Written against rust-hdl 0.46 (see ../shared/BRIEF.md "RTL rules"): every per-warp state is a
//! `Vec` of single-index registers, every multi-bit literal is a typed `Constant`, every mixed
//! expression is fully parenthesised, and index expressions contain only loop variables.

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;

use crate::one_hot::OneHotMux;
use crate::register_file::clog2;
use crate::{k, rename_top, sigs, verilog_of, HdlError};

/// `cmd_op`: no command.
pub const OP_NOP: u64 = 0;
/// `cmd_op`: CTA launch: the warp's stack becomes one entry (RPC none, `cmd_pc_a`, `cmd_mask_a`).
pub const OP_RESET: u64 = 1;
/// `cmd_op`: TOS.pc ← `cmd_pc_a`.
pub const OP_SET_PC: u64 = 2;
/// `cmd_op`: divergent branch: TOS.pc ← `cmd_rpc`, push (`cmd_rpc`, `cmd_pc_a`, `cmd_mask_a`),
/// then push (`cmd_rpc`, `cmd_pc_b`, `cmd_mask_b`); nothing changes and `overflow` pulses when
/// the two pushes do not fit.
pub const OP_SPLIT: u64 = 3;
/// `cmd_op`: the threads in `cmd_mask_a` leave every entry of the warp.
pub const OP_EXIT: u64 = 4;

/// Width of a warp number (defined once, with the scoreboard).
pub use crate::scoreboard::WARP_BITS;
/// Width of `dbg_entry` and of a RAM level (configuration allows up to 256 entries).
pub const ENTRY_BITS: usize = 8;
/// Width of `depth[w]` (0 ..= 256).
pub const DEPTH_BITS: usize = 9;
/// RPC of the base entry (`Reconvergence::Never` / launch): odd, never equal to a PC.
pub const RPC_NONE: u32 = u32::MAX;

/// Geometry of the entry RAMs: level `e` of warp `w` is in RAM `e % 2` at address
/// `{w[WB-1:0], e[LB-1:1]}` (`WB = clog2(warps)`, `LB = clog2(depth)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackGeometry {
    pub warp_bits: usize,
    pub level_bits: usize,
}

impl StackGeometry {
    pub fn new(warps: usize, depth: usize) -> Self {
        StackGeometry {
            warp_bits: clog2(warps),
            level_bits: clog2(depth),
        }
    }
    /// Address bits of one RAM (at least 1).
    pub fn addr_bits(&self) -> usize {
        (self.warp_bits + self.level_bits.saturating_sub(1)).max(1)
    }
    fn address(&self, warp: usize, level: usize) -> usize {
        let w = warp & ((1 << self.warp_bits) - 1);
        let l = (level >> 1) & ((1 << self.level_bits.saturating_sub(1)) - 1);
        (w << self.level_bits.saturating_sub(1)) | l
    }
    /// Verilog expression of the address from a warp and a level port.
    fn address_verilog(&self, warp: &str, level: &str) -> String {
        let lb = self.level_bits.saturating_sub(1);
        let mut parts = vec![];
        if self.warp_bits > 0 {
            parts.push(format!("{warp}[{}:0]", self.warp_bits - 1));
        }
        if lb > 0 {
            parts.push(format!("{level}[{}:1]", lb));
        }
        match parts.len() {
            0 => "1'b0".to_string(),
            1 => parts.remove(0),
            _ => format!("{{{}}}", parts.join(", ")),
        }
    }
    /// The address-port bits the RAM does not decode (for Verilator's `*unused*` rule).
    fn unused_verilog(&self, warp: &str, level: &str) -> Vec<String> {
        let lb = self.level_bits.saturating_sub(1);
        let mut v = vec![];
        if self.warp_bits < WARP_BITS {
            v.push(format!("{warp}[{}:{}]", WARP_BITS - 1, self.warp_bits));
        }
        if lb + 1 < ENTRY_BITS {
            v.push(format!("{level}[{}:{}]", ENTRY_BITS - 1, lb + 1));
        }
        v.push(format!("{level}[0]"));
        v
    }
}

/// One field of the entries of one level parity: `W` bits, one synchronous read port (the
/// entry at `rwarp`/`rlevel` in the next cycle, read at every edge: the stack uses `rdata`
/// only in the cycle after it asked for it, so a held value would be logic nothing reads), one
/// write port, and an asynchronous debug read port (verification only; unconnected in the SM,
/// so synthesis removes it).
#[derive(LogicBlock)]
pub struct StackRam<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rwarp: Signal<In, Bits<WARP_BITS>>,
    pub rlevel: Signal<In, Bits<ENTRY_BITS>>,
    pub rdata: Signal<Out, Bits<W>>,
    pub we: Signal<In, Bit>,
    pub wwarp: Signal<In, Bits<WARP_BITS>>,
    pub wlevel: Signal<In, Bits<ENTRY_BITS>>,
    pub wdata: Signal<In, Bits<W>>,
    pub dwarp: Signal<In, Bits<WARP_BITS>>,
    pub dlevel: Signal<In, Bits<ENTRY_BITS>>,
    pub ddata: Signal<Out, Bits<W>>,
    _geo: StackGeometry,
    _sim: BTreeMap<usize, Bits<W>>,
}

impl<const W: usize> StackRam<W> {
    pub fn new(geo: StackGeometry) -> Self {
        StackRam {
            clock: Default::default(),
            rwarp: Default::default(),
            rlevel: Default::default(),
            rdata: Default::default(),
            we: Default::default(),
            wwarp: Default::default(),
            wlevel: Default::default(),
            wdata: Default::default(),
            dwarp: Default::default(),
            dlevel: Default::default(),
            ddata: Default::default(),
            _geo: geo,
            _sim: BTreeMap::new(),
        }
    }
}

impl<const W: usize> Logic for StackRam<W> {
    fn update(&mut self) {
        let g = self._geo;
        if self.clock.pos_edge() {
            let a = g.address(self.rwarp.val().index(), self.rlevel.val().index());
            self.rdata.next = self._sim.get(&a).copied().unwrap_or_default();
            if self.we.val() {
                let a = g.address(self.wwarp.val().index(), self.wlevel.val().index());
                self._sim.insert(a, self.wdata.val());
            }
        }
        let a = g.address(self.dwarp.val().index(), self.dlevel.val().index());
        self.ddata.next = self._sim.get(&a).copied().unwrap_or_default();
    }

    fn connect(&mut self) {
        self.rdata.connect();
        self.ddata.connect();
    }

    fn hdl(&self) -> Verilog {
        let g = self._geo;
        let mut unused = g.unused_verilog("rwarp", "rlevel");
        unused.extend(g.unused_verilog("wwarp", "wlevel"));
        unused.extend(g.unused_verilog("dwarp", "dlevel"));
        Verilog::Custom(format!(
            "\
// {n} entries x {W} bit: one field of the SIMT-stack entries of one level parity.
reg [{hi}:0] ram [0:{last}];
// Address bits not decoded here (level parity selects the RAM; warps beyond `warps`).
wire unused_addr_bits = &{{1'b0, {unused}}};
always @(posedge clock) begin
   rdata <= ram[{raddr}];
   if (we) begin
      ram[{waddr}] <= wdata;
   end
end
assign ddata = ram[{daddr}];
",
            n = 1usize << g.addr_bits(),
            hi = W - 1,
            last = (1usize << g.addr_bits()) - 1,
            unused = unused.join(", "),
            raddr = g.address_verilog("rwarp", "rlevel"),
            waddr = g.address_verilog("wwarp", "wlevel"),
            daddr = g.address_verilog("dwarp", "dlevel"),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "stack_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "rwarp".into(),
                "rlevel".into(),
                "we".into(),
                "wwarp".into(),
                "wlevel".into(),
                "wdata".into(),
            ],
            outputs: vec!["rdata".into()],
        }]
    }
}

/// The SIMT stacks of all warps of one SM, `L` lanes. Ports: docs/microarch/simt_stack.md.
#[derive(LogicBlock)]
pub struct SimtStack<const L: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every warp becomes empty, `overflow` low.
    pub rst: Signal<In, Bit>,
    /// `OP_*`; values 5..7 are no-ops.
    pub cmd_op: Signal<In, Bits<3>>,
    /// Warp of the command; values >= `warps` select no warp. A command for a `busy` warp is
    /// ignored (the SM never gives one).
    pub cmd_warp: Signal<In, Bits<WARP_BITS>>,
    /// `cmd_warp` one-hot (`cmd_sel[w]` = `cmd_warp == w`; all 0 for no warp), registered by
    /// the owner with `cmd_warp` (the select is then not decoded in the command cycle).
    pub cmd_sel: Vec<Signal<In, Bit>>,
    /// split: reconvergence PC.
    pub cmd_rpc: Signal<In, Bits<32>>,
    /// reset: start PC; set_pc: new PC; split: PC of the first pushed entry.
    pub cmd_pc_a: Signal<In, Bits<32>>,
    /// reset: the warp's threads; split: mask of the first pushed entry; exit: exiting threads.
    pub cmd_mask_a: Signal<In, Bits<L>>,
    /// split: PC of the second pushed entry (the new TOS).
    pub cmd_pc_b: Signal<In, Bits<32>>,
    /// split: mask of the second pushed entry.
    pub cmd_mask_b: Signal<In, Bits<L>>,
    /// The command's PC compares, made by the owner a cycle ahead (the SM's branch unit, from
    /// its registered operands and the warp's `tos_rpc`), so that no 32-bit compare sits in
    /// the command cycle. split: `cmd_eq_a` = `cmd_pc_a == cmd_rpc`, `cmd_eq_b` =
    /// `cmd_pc_b == cmd_rpc`, `cmd_eq_o` = `cmd_rpc == tos_rpc[cmd_warp]`; set_pc: `cmd_eq_s` =
    /// `cmd_pc_a == tos_rpc[cmd_warp]`. Read only by those commands.
    pub cmd_eq_a: Signal<In, Bit>,
    pub cmd_eq_b: Signal<In, Bit>,
    pub cmd_eq_o: Signal<In, Bit>,
    pub cmd_eq_s: Signal<In, Bit>,
    /// Debug read port (verification only): warp and entry to show on `dbg_*`.
    pub dbg_warp: Signal<In, Bits<WARP_BITS>>,
    pub dbg_entry: Signal<In, Bits<ENTRY_BITS>>,

    /// Per warp: next PC of the TOS (meaningful when neither `empty` nor `busy`).
    pub tos_pc: Vec<Signal<Out, Bits<32>>>,
    /// Per warp: RPC of the TOS (`RPC_NONE` for the base entry; meaningful as `tos_pc`).
    pub tos_rpc: Vec<Signal<Out, Bits<32>>>,
    /// Per warp: active mask of the TOS (meaningful as `tos_pc`).
    pub tos_mask: Vec<Signal<Out, Bits<L>>>,
    /// Per warp: the stack is empty (never launched, or every thread exited).
    pub empty: Vec<Signal<Out, Bit>>,
    /// Per warp: a split now would overflow (depth >= D - 1).
    pub full: Vec<Signal<Out, Bit>>,
    /// Per warp: number of entries (while `busy`: the entries down to the one being read).
    pub depth: Vec<Signal<Out, Bits<DEPTH_BITS>>>,
    /// Per warp: a pop is reading the new TOS from RAM; no command for the warp, TOS outputs
    /// not yet valid.
    pub busy: Vec<Signal<Out, Bit>>,
    /// High for one cycle after a split that did not fit.
    pub overflow: Signal<Out, Bit>,
    pub dbg_valid: Signal<Out, Bit>,
    pub dbg_rpc: Signal<Out, Bits<32>>,
    pub dbg_pc: Signal<Out, Bits<32>>,
    pub dbg_mask: Signal<Out, Bits<L>>,
    /// The entry's `pc == rpc` as the stack keeps it (below the TOS: the flag written with it).
    pub dbg_eq: Signal<Out, Bit>,

    // ---- per-warp state
    t_pc: Vec<DFF<Bits<32>>>,
    t_rpc: Vec<DFF<Bits<32>>>,
    t_mask: Vec<DFF<Bits<L>>>,
    dep: Vec<DFF<Bits<DEPTH_BITS>>>,
    /// Threads of the warp that have not exited (entries in RAM are read through it).
    live: Vec<DFF<Bits<L>>>,
    bsy: Vec<DFF<Bit>>,
    /// Waiting for its refill read.
    pend: Vec<DFF<Bit>>,
    overflow_r: DFF<Bit>,
    // ---- the refill read in flight (data from the RAMs in this cycle)
    ld_valid: DFF<Bit>,
    ld_warp: DFF<Bits<WARP_BITS>>,
    ld_odd: DFF<Bit>,
    ld_dep: DFF<Bits<DEPTH_BITS>>,
    /// `dep[w]` and `ld_dep` at their needed width (`dep_mask`).
    dq: Vec<Signal<Local, Bits<DEPTH_BITS>>>,
    ld_dq: Signal<Local, Bits<DEPTH_BITS>>,
    /// `n_dep` at its needed width.
    n_dep_k: Signal<Local, Bits<DEPTH_BITS>>,
    ld_live: DFF<Bits<L>>,
    // ---- entry RAMs, index = level parity
    ram_rpc: Vec<StackRam<32>>,
    ram_pc: Vec<StackRam<32>>,
    ram_mask: Vec<StackRam<L>>,
    /// Per entry: its `pc == rpc`, known when it is written (the command's `cmd_eq_a` for the
    /// pushed entry, `cmd_eq_o` for the old TOS), so a refill decides whether the entry pops
    /// from this bit and the mask instead of comparing two words read from RAM (`small`'s
    /// placed critical path on 12a9630: the block RAM's output → 32-bit compare → the TOS
    /// registers' enables, 21.56 ns).
    ram_eq: Vec<StackRam<1>>,

    // ---- combinational: the commanded warp
    sel: Vec<Signal<Local, Bit>>,
    c_any: Signal<Local, Bit>,
    /// The command's warp's TOS PC and RPC, mask and live mask, depth: AND-OR multiplexers
    /// of the one-hot `sel` (an `if`-chain over the warps was a chain of 2:1 multiplexers
    /// at the head of the stack's longest paths on `tiny`, docs/fpga.md).
    c_mux_rpc: OneHotMux<32>,
    c_muxl: OneHotMux<L>,
    c_muxd: OneHotMux<DEPTH_BITS>,
    c_rpc: Signal<Local, Bits<32>>,
    c_mask: Signal<Local, Bits<L>>,
    c_dep: Signal<Local, Bits<DEPTH_BITS>>,
    c_live: Signal<Local, Bits<L>>,
    c_busy: Signal<Local, Bit>,
    c_empty: Signal<Local, Bit>,
    c_full: Signal<Local, Bit>,
    c_dep_m1: Signal<Local, Bits<DEPTH_BITS>>,
    /// A command for a warp (busy or not): the next-state choice (`is_*`, `n_*`) does not
    /// wait for the commanded warp's `busy`; the writes do (`cmd_we`, `w_new`, `overflow`).
    apply: Signal<Local, Bit>,
    /// Per warp: this cycle's command writes the warp's registers (selected, not busy), from the
    /// warp's own `busy`, not from the selected warp's.
    cmd_we: Vec<Signal<Local, Bit>>,
    is_reset: Signal<Local, Bit>,
    is_set_pc: Signal<Local, Bit>,
    is_split: Signal<Local, Bit>,
    is_exit: Signal<Local, Bit>,
    pop_a: Signal<Local, Bit>,
    pop_b: Signal<Local, Bit>,
    pop_o: Signal<Local, Bit>,
    /// Per warp, its depth against 0 and `D - 1`, before the warp's selection (AND-OR of `sel`
    /// after them; the per-warp write enables `cmd_we` and the `empty`/`full` outputs read
    /// them directly).
    w_empty: Vec<Signal<Local, Bit>>,
    w_full: Vec<Signal<Local, Bit>>,
    x_live: Signal<Local, Bits<L>>,
    x_mask: Signal<Local, Bits<L>>,
    n_pc: Signal<Local, Bits<32>>,
    n_pc_we: Signal<Local, Bit>,
    n_rpc: Signal<Local, Bits<32>>,
    n_mask: Signal<Local, Bits<L>>,
    n_dep: Signal<Local, Bits<DEPTH_BITS>>,
    n_live: Signal<Local, Bits<L>>,
    n_pend: Signal<Local, Bit>,
    /// Split: level `depth - 1` (old TOS, pc ← rpc) and level `depth` (first pushed entry).
    lv_old: Signal<Local, Bits<ENTRY_BITS>>,
    lv_new: Signal<Local, Bits<ENTRY_BITS>>,
    /// The split writes its first pushed entry / the old TOS.
    w_new: Signal<Local, Bit>,
    w_old: Signal<Local, Bit>,
    // ---- combinational: refill
    r_rpc: Signal<Local, Bits<32>>,
    r_pc: Signal<Local, Bits<32>>,
    r_mask: Signal<Local, Bits<L>>,
    r_pop: Signal<Local, Bit>,
    r_dep_m1: Signal<Local, Bits<DEPTH_BITS>>,
    pk_found: Signal<Local, Bit>,
    /// The refilled entry's `pc == rpc` flag (from `ram_eq`).
    r_eq: Signal<Local, Bit>,
    k_bit0: Constant<Bits<1>>,
    k_bit1: Constant<Bits<1>>,
    pk_warp: Signal<Local, Bits<WARP_BITS>>,
    pk_dep: Signal<Local, Bits<DEPTH_BITS>>,
    pk_live: Signal<Local, Bits<L>>,
    pk_lo: Signal<Local, Bits<ENTRY_BITS>>,
    pk_level: Signal<Local, Bits<ENTRY_BITS>>,
    // ---- combinational: debug
    d_dep: Signal<Local, Bits<DEPTH_BITS>>,
    d_lo: Signal<Local, Bits<ENTRY_BITS>>,
    d_top: Signal<Local, Bits<ENTRY_BITS>>,
    d_live: Signal<Local, Bits<L>>,
    d_pc: Signal<Local, Bits<32>>,
    d_rpc: Signal<Local, Bits<32>>,
    d_mask: Signal<Local, Bits<L>>,

    op_reset: Constant<Bits<3>>,
    op_set_pc: Constant<Bits<3>>,
    op_split: Constant<Bits<3>>,
    op_exit: Constant<Bits<3>>,
    rpc_none: Constant<Bits<32>>,
    zero_pc: Constant<Bits<32>>,
    zero_mask: Constant<Bits<L>>,
    dep0: Constant<Bits<DEPTH_BITS>>,
    dep1: Constant<Bits<DEPTH_BITS>>,
    dep2: Constant<Bits<DEPTH_BITS>>,
    level1: Constant<Bits<ENTRY_BITS>>,
    /// `D - 1`: a split at this depth or above overflows.
    dep_full: Constant<Bits<DEPTH_BITS>>,
    /// The bits a depth of `0 ..= D` needs (`DEPTH_BITS` is the widest `D`'s): every depth
    /// register and value is kept at this width, so the bits above it are constants 0.
    dep_mask: Constant<Bits<DEPTH_BITS>>,
    warp0: Constant<Bits<WARP_BITS>>,
    /// `warp_id[w] = w`.
    warp_id: Vec<Constant<Bits<WARP_BITS>>>,

    _warps: usize,
}

impl<const L: usize> SimtStack<L> {
    /// `warps` (1 ..= 64) stacks of `depth` (2 ..= 256) entries.
    pub fn new(warps: usize, depth: usize) -> Self {
        assert!((1..=64).contains(&warps), "warps {warps} outside 1..=64");
        assert!(
            (2..=256).contains(&depth),
            "simt_stack_depth {depth} outside 2..=256"
        );
        assert!(
            matches!(L, 1 | 2 | 4 | 8 | 16 | 32),
            "lanes {L} is not a power of two up to 32"
        );
        let geo = StackGeometry::new(warps, depth);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cmd_op: Default::default(),
            cmd_warp: Default::default(),
            cmd_sel: crate::sigs(warps),
            cmd_rpc: Default::default(),
            cmd_pc_a: Default::default(),
            cmd_mask_a: Default::default(),
            cmd_pc_b: Default::default(),
            cmd_mask_b: Default::default(),
            cmd_eq_a: Default::default(),
            cmd_eq_b: Default::default(),
            cmd_eq_o: Default::default(),
            cmd_eq_s: Default::default(),
            dbg_warp: Default::default(),
            dbg_entry: Default::default(),
            tos_pc: sigs(warps),
            tos_rpc: sigs(warps),
            tos_mask: sigs(warps),
            empty: sigs(warps),
            full: sigs(warps),
            depth: sigs(warps),
            busy: sigs(warps),
            overflow: Default::default(),
            dbg_valid: Default::default(),
            dbg_rpc: Default::default(),
            dbg_pc: Default::default(),
            dbg_mask: Default::default(),
            dbg_eq: Default::default(),
            t_pc: sigs(warps),
            t_rpc: sigs(warps),
            t_mask: sigs(warps),
            dep: sigs(warps),
            live: sigs(warps),
            bsy: sigs(warps),
            pend: sigs(warps),
            overflow_r: Default::default(),
            ld_valid: Default::default(),
            ld_warp: Default::default(),
            ld_odd: Default::default(),
            ld_dep: Default::default(),
            dq: sigs(warps),
            ld_dq: Default::default(),
            n_dep_k: Default::default(),
            ld_live: Default::default(),
            ram_rpc: (0..2).map(|_| StackRam::new(geo)).collect(),
            ram_pc: (0..2).map(|_| StackRam::new(geo)).collect(),
            ram_mask: (0..2).map(|_| StackRam::new(geo)).collect(),
            ram_eq: (0..2).map(|_| StackRam::new(geo)).collect(),
            sel: sigs(warps),
            c_any: Default::default(),
            c_mux_rpc: OneHotMux::new(warps, 1),
            c_muxl: OneHotMux::new(warps, 2),
            c_muxd: OneHotMux::new(warps, 1),
            c_rpc: Default::default(),
            c_mask: Default::default(),
            c_dep: Default::default(),
            c_live: Default::default(),
            c_busy: Default::default(),
            c_empty: Default::default(),
            c_full: Default::default(),
            c_dep_m1: Default::default(),
            apply: Default::default(),
            cmd_we: sigs(warps),
            is_reset: Default::default(),
            is_set_pc: Default::default(),
            is_split: Default::default(),
            is_exit: Default::default(),
            pop_a: Default::default(),
            pop_b: Default::default(),
            pop_o: Default::default(),
            w_empty: sigs(warps),
            w_full: sigs(warps),
            x_live: Default::default(),
            x_mask: Default::default(),
            n_pc: Default::default(),
            n_pc_we: Default::default(),
            n_rpc: Default::default(),
            n_mask: Default::default(),
            n_dep: Default::default(),
            n_live: Default::default(),
            n_pend: Default::default(),
            lv_old: Default::default(),
            lv_new: Default::default(),
            w_new: Default::default(),
            w_old: Default::default(),
            r_rpc: Default::default(),
            r_pc: Default::default(),
            r_mask: Default::default(),
            r_pop: Default::default(),
            r_dep_m1: Default::default(),
            pk_found: Default::default(),
            r_eq: Default::default(),
            k_bit0: k(0),
            k_bit1: k(1),
            pk_warp: Default::default(),
            pk_dep: Default::default(),
            pk_live: Default::default(),
            pk_lo: Default::default(),
            pk_level: Default::default(),
            d_dep: Default::default(),
            d_lo: Default::default(),
            d_top: Default::default(),
            d_live: Default::default(),
            d_pc: Default::default(),
            d_rpc: Default::default(),
            d_mask: Default::default(),
            op_reset: k(OP_RESET),
            op_set_pc: k(OP_SET_PC),
            op_split: k(OP_SPLIT),
            op_exit: k(OP_EXIT),
            rpc_none: k(u64::from(RPC_NONE)),
            zero_pc: k(0),
            zero_mask: k(0),
            dep0: k(0),
            dep1: k(1),
            dep2: k(2),
            level1: k(1),
            dep_full: k(depth as u64 - 1),
            dep_mask: k((1u64 << clog2(depth + 1)) - 1),
            warp0: k(0),
            warp_id: (0..warps as u64).map(k).collect(),
            _warps: warps,
        }
    }

    /// The unit for `cfg` (`cfg.lanes` must be `L`).
    pub fn from_config(cfg: &GpuConfig) -> Self {
        assert_eq!(
            cfg.lanes as usize, L,
            "SimtStack<{L}> built for lanes = {}",
            cfg.lanes
        );
        Self::new(cfg.warps as usize, cfg.simt_stack_depth as usize)
    }
}

impl<const L: usize> Logic for SimtStack<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.overflow_r.clock.next = self.clock.val();
        for w in 0..self._warps {
            self.dq[w].next = self.dep[w].q.val() & self.dep_mask.val();
        }
        self.ld_dq.next = self.ld_dep.q.val() & self.dep_mask.val();
        self.ld_valid.clock.next = self.clock.val();
        self.ld_warp.clock.next = self.clock.val();
        self.ld_odd.clock.next = self.clock.val();
        self.ld_dep.clock.next = self.clock.val();
        self.ld_live.clock.next = self.clock.val();
        for b in 0..2 {
            self.ram_rpc[b].clock.next = self.clock.val();
            self.ram_pc[b].clock.next = self.clock.val();
            self.ram_mask[b].clock.next = self.clock.val();
            self.ram_eq[b].clock.next = self.clock.val();
        }

        // ---------------- the commanded warp's state (one-hot select)
        self.c_any.next = false;
        self.c_busy.next = false;
        for w in 0..self._warps {
            self.sel[w].next = self.cmd_sel[w].val();
            self.c_any.next = self.c_any.val() | self.sel[w].val();
            self.c_busy.next = self.c_busy.val() | (self.sel[w].val() & self.bsy[w].q.val());
            self.c_mux_rpc.sel[w].next = self.sel[w].val();
            self.c_mux_rpc.d[w].next = self.t_rpc[w].q.val();
            self.c_muxl.sel[w].next = self.sel[w].val();
            self.c_muxl.d[2 * w].next = self.t_mask[w].q.val();
            self.c_muxl.d[2 * w + 1].next = self.live[w].q.val();
            self.c_muxd.sel[w].next = self.sel[w].val();
            self.c_muxd.d[w].next = self.dq[w].val();
            self.w_empty[w].next = self.dq[w].val() == self.dep0.val();
            self.w_full[w].next = self.dq[w].val() >= self.dep_full.val();
        }
        self.c_empty.next = false;
        self.c_full.next = false;
        for w in 0..self._warps {
            self.c_empty.next = self.c_empty.val() | (self.sel[w].val() & self.w_empty[w].val());
            self.c_full.next = self.c_full.val() | (self.sel[w].val() & self.w_full[w].val());
        }
        // The selected warp's registers (0 when `cmd_warp` is no warp).
        self.c_rpc.next = self.c_mux_rpc.q[0].val();
        self.c_mask.next = self.c_muxl.q[0].val();
        self.c_live.next = self.c_muxl.q[1].val();
        // Masked to the depth's bits (`dq` has no others): a stray upper bit of the select
        // would otherwise reach the unmasked compares below.
        self.c_dep.next = self.c_muxd.q[0].val() & self.dep_mask.val();
        self.c_dep_m1.next = (self.c_dep.val() - self.dep1.val()) & self.dep_mask.val();
        self.apply.next = self.c_any.val() & (!self.rst.val());
        for w in 0..self._warps {
            // Every command to a warp that is not busy writes its registers: a command that
            // changes nothing (a nop, `set_pc` or `exit` on an empty warp) writes back the values
            // it read, and `pend`/`busy` are 0 in a warp that is not busy.
            self.cmd_we[w].next = self.sel[w].val() & (!self.bsy[w].q.val()) & (!self.rst.val());
        }
        self.is_reset.next = self.apply.val() & (self.cmd_op.val() == self.op_reset.val());
        self.is_set_pc.next =
            self.apply.val() & (self.cmd_op.val() == self.op_set_pc.val()) & (!self.c_empty.val());
        self.is_split.next = self.apply.val() & (self.cmd_op.val() == self.op_split.val());
        self.is_exit.next =
            self.apply.val() & (self.cmd_op.val() == self.op_exit.val()) & (!self.c_empty.val());

        // ---------------- the command's next state for that warp, settled over the entries
        // it writes (a pop below them is a refill: `n_pend`)
        self.pop_b.next = self.cmd_eq_b.val() | (!self.cmd_mask_b.val().any());
        self.pop_a.next = self.cmd_eq_a.val() | (!self.cmd_mask_a.val().any());
        self.pop_o.next = self.cmd_eq_o.val();
        self.x_live.next = self.c_live.val() & (!self.cmd_mask_a.val());
        self.x_mask.next = self.c_mask.val() & (!self.cmd_mask_a.val());
        // The TOS pc is written only by the commands that set it (`n_pc_we`): every other
        // command keeps it, so the old pc is never read back through a multiplexer.
        self.n_pc.next = self.cmd_pc_a.val();
        self.n_pc_we.next = false;
        self.n_rpc.next = self.c_rpc.val();
        self.n_mask.next = self.c_mask.val();
        self.n_dep.next = self.c_dep.val();
        self.n_live.next = self.c_live.val();
        self.n_pend.next = false;
        if self.is_reset.val() {
            self.n_pc_we.next = true;
            self.n_rpc.next = self.rpc_none.val();
            self.n_mask.next = self.cmd_mask_a.val();
            self.n_live.next = self.cmd_mask_a.val();
            self.n_dep.next = self.dep0.val();
            if self.cmd_mask_a.val().any() {
                self.n_dep.next = self.dep1.val();
            }
        }
        if self.is_set_pc.val() {
            self.n_pc_we.next = true;
            if self.cmd_eq_s.val() {
                self.n_dep.next = self.c_dep_m1.val();
                self.n_pend.next = self.c_dep.val() != self.dep1.val();
            }
        }
        if self.is_exit.val() {
            self.n_live.next = self.x_live.val();
            self.n_mask.next = self.x_mask.val();
            if !self.x_live.val().any() {
                self.n_dep.next = self.dep0.val();
            } else if !self.x_mask.val().any() {
                self.n_dep.next = self.c_dep_m1.val();
                self.n_pend.next = self.c_dep.val() != self.dep1.val();
            }
        }
        if self.is_split.val() & (!self.c_full.val()) {
            if self.c_empty.val() {
                // (Only the unit's own tests split an empty stack.)
                self.n_live.next = self.cmd_mask_a.val() | self.cmd_mask_b.val();
            }
            if !self.pop_b.val() {
                self.n_pc.next = self.cmd_pc_b.val();
                self.n_pc_we.next = true;
                self.n_rpc.next = self.cmd_rpc.val();
                self.n_mask.next = self.cmd_mask_b.val();
                self.n_dep.next = self.c_dep.val() + self.dep2.val();
            } else if !self.pop_a.val() {
                self.n_pc_we.next = true;
                self.n_rpc.next = self.cmd_rpc.val();
                self.n_mask.next = self.cmd_mask_a.val();
                self.n_dep.next = self.c_dep.val() + self.dep1.val();
            } else if self.c_empty.val() {
                self.n_dep.next = self.dep0.val();
            } else {
                // Both sides pop: the old TOS continues at R, unless it pops as well, when its
                // pc is never read (a refill replaces it before `busy` falls).
                self.n_pc.next = self.cmd_rpc.val();
                self.n_pc_we.next = true;
                if self.pop_o.val() {
                    self.n_dep.next = self.c_dep_m1.val();
                    self.n_pend.next = self.c_dep.val() != self.dep1.val();
                }
            }
        }

        self.n_dep_k.next = self.n_dep.val() & self.dep_mask.val();

        // Split writes: the old TOS (pc ← rpc) at level depth-1 and the first pushed entry at
        // level depth; consecutive levels, so one goes to each RAM (level parity).
        self.lv_old.next = self.c_dep_m1.val().get_bits::<8>(0);
        self.lv_new.next = self.c_dep.val().get_bits::<8>(0);
        self.w_new.next = self.is_split.val() & (!self.c_full.val()) & (!self.c_busy.val());
        self.w_old.next = self.w_new.val() & (!self.c_empty.val());
        for b in 0..2 {
            self.ram_rpc[b].we.next = false;
            self.ram_rpc[b].wwarp.next = self.cmd_warp.val();
            self.ram_rpc[b].wlevel.next = self.lv_new.val();
            self.ram_rpc[b].wdata.next = self.cmd_rpc.val();
            self.ram_pc[b].wdata.next = self.cmd_pc_a.val();
            self.ram_mask[b].wdata.next = self.cmd_mask_a.val();
            self.ram_eq[b].wdata.next = self.k_bit0.val();
            if self.cmd_eq_a.val() {
                self.ram_eq[b].wdata.next = self.k_bit1.val();
            }
        }
        // Old TOS to RAM 1 when its level is odd, else to RAM 0; the pushed entry to the other.
        if self.lv_old.val().get_bit(0) {
            self.ram_rpc[1].wlevel.next = self.lv_old.val();
            self.ram_rpc[1].wdata.next = self.c_rpc.val();
            self.ram_pc[1].wdata.next = self.cmd_rpc.val();
            self.ram_mask[1].wdata.next = self.c_mask.val();
            self.ram_eq[1].wdata.next = self.k_bit0.val();
            if self.cmd_eq_o.val() {
                self.ram_eq[1].wdata.next = self.k_bit1.val();
            }
            self.ram_rpc[1].we.next = self.w_old.val();
            self.ram_rpc[0].we.next = self.w_new.val();
        } else {
            self.ram_rpc[0].wlevel.next = self.lv_old.val();
            self.ram_rpc[0].wdata.next = self.c_rpc.val();
            self.ram_pc[0].wdata.next = self.cmd_rpc.val();
            self.ram_mask[0].wdata.next = self.c_mask.val();
            self.ram_eq[0].wdata.next = self.k_bit0.val();
            if self.cmd_eq_o.val() {
                self.ram_eq[0].wdata.next = self.k_bit1.val();
            }
            self.ram_rpc[0].we.next = self.w_old.val();
            self.ram_rpc[1].we.next = self.w_new.val();
        }
        for b in 0..2 {
            self.ram_pc[b].we.next = self.ram_rpc[b].we.val();
            self.ram_mask[b].we.next = self.ram_rpc[b].we.val();
            self.ram_eq[b].we.next = self.ram_rpc[b].we.val();
            self.ram_eq[b].wwarp.next = self.cmd_warp.val();
            self.ram_eq[b].wlevel.next = self.ram_rpc[b].wlevel.val();
            self.ram_pc[b].wwarp.next = self.cmd_warp.val();
            self.ram_mask[b].wwarp.next = self.cmd_warp.val();
            self.ram_pc[b].wlevel.next = self.ram_rpc[b].wlevel.val();
            self.ram_mask[b].wlevel.next = self.ram_rpc[b].wlevel.val();
        }

        // ---------------- refill: the entry read last cycle becomes the TOS unless it pops too
        self.r_rpc.next = self.ram_rpc[0].rdata.val();
        self.r_pc.next = self.ram_pc[0].rdata.val();
        self.r_mask.next = self.ram_mask[0].rdata.val() & self.ld_live.q.val();
        self.r_eq.next = self.ram_eq[0].rdata.val().any();
        if self.ld_odd.q.val() {
            self.r_rpc.next = self.ram_rpc[1].rdata.val();
            self.r_pc.next = self.ram_pc[1].rdata.val();
            self.r_mask.next = self.ram_mask[1].rdata.val() & self.ld_live.q.val();
            self.r_eq.next = self.ram_eq[1].rdata.val().any();
        }
        self.r_pop.next = self.r_eq.val() | (!self.r_mask.val().any());
        self.r_dep_m1.next = (self.ld_dq.val() - self.dep1.val()) & self.dep_mask.val();

        // Pick the next refill read: the highest pending warp (a warp pops at most depth levels,
        // so none waits for ever).
        self.pk_found.next = false;
        self.pk_warp.next = self.warp0.val();
        self.pk_dep.next = self.dep0.val();
        self.pk_live.next = self.zero_mask.val();
        for w in 0..self._warps {
            if self.pend[w].q.val() {
                self.pk_found.next = true;
                self.pk_warp.next = self.warp_id[w].val();
                self.pk_dep.next = self.dq[w].val();
                self.pk_live.next = self.live[w].q.val();
            }
        }
        self.pk_lo.next = self.pk_dep.val().get_bits::<8>(0);
        self.pk_level.next = self.pk_lo.val() - self.level1.val();
        for b in 0..2 {
            self.ram_rpc[b].rwarp.next = self.pk_warp.val();
            self.ram_rpc[b].rlevel.next = self.pk_level.val();
            self.ram_pc[b].rwarp.next = self.pk_warp.val();
            self.ram_pc[b].rlevel.next = self.pk_level.val();
            self.ram_mask[b].rwarp.next = self.pk_warp.val();
            self.ram_mask[b].rlevel.next = self.pk_level.val();
        }
        self.ld_valid.d.next = self.pk_found.val() & (!self.rst.val());
        self.ld_warp.d.next = self.pk_warp.val();
        self.ld_odd.d.next = self.pk_level.val().get_bit(0);
        self.ld_dep.d.next = self.pk_dep.val();
        self.ld_live.d.next = self.pk_live.val();

        // ---------------- per-warp registers
        for w in 0..self._warps {
            self.t_pc[w].clock.next = self.clock.val();
            self.t_rpc[w].clock.next = self.clock.val();
            self.t_mask[w].clock.next = self.clock.val();
            self.dep[w].clock.next = self.clock.val();
            self.live[w].clock.next = self.clock.val();
            self.bsy[w].clock.next = self.clock.val();
            self.pend[w].clock.next = self.clock.val();
            self.t_pc[w].d.next = self.t_pc[w].q.val();
            self.t_rpc[w].d.next = self.t_rpc[w].q.val();
            self.t_mask[w].d.next = self.t_mask[w].q.val();
            self.dep[w].d.next = self.dq[w].val();
            self.live[w].d.next = self.live[w].q.val();
            self.bsy[w].d.next = self.bsy[w].q.val();
            self.pend[w].d.next = self.pend[w].q.val();
            if self.pk_found.val() & (self.pk_warp.val() == self.warp_id[w].val()) {
                self.pend[w].d.next = false;
            }
            if self.ld_valid.q.val() & (self.ld_warp.q.val() == self.warp_id[w].val()) {
                if self.r_pop.val() {
                    self.dep[w].d.next = self.r_dep_m1.val();
                    self.pend[w].d.next = self.ld_dq.val() != self.dep1.val();
                    self.bsy[w].d.next = self.ld_dq.val() != self.dep1.val();
                } else {
                    self.t_pc[w].d.next = self.r_pc.val();
                    self.t_rpc[w].d.next = self.r_rpc.val();
                    self.t_mask[w].d.next = self.r_mask.val();
                    self.bsy[w].d.next = false;
                }
            }
            if self.cmd_we[w].val() & self.n_pc_we.val() {
                self.t_pc[w].d.next = self.n_pc.val();
            }
            if self.cmd_we[w].val() {
                self.t_rpc[w].d.next = self.n_rpc.val();
                self.t_mask[w].d.next = self.n_mask.val();
                self.dep[w].d.next = self.n_dep_k.val();
                self.live[w].d.next = self.n_live.val();
                self.pend[w].d.next = self.n_pend.val();
                self.bsy[w].d.next = self.n_pend.val();
            }
            if self.rst.val() {
                self.dep[w].d.next = self.dep0.val();
                self.bsy[w].d.next = false;
                self.pend[w].d.next = false;
            }

            self.tos_pc[w].next = self.t_pc[w].q.val();
            self.tos_rpc[w].next = self.t_rpc[w].q.val();
            self.tos_mask[w].next = self.t_mask[w].q.val();
            self.empty[w].next = self.w_empty[w].val();
            self.full[w].next = self.w_full[w].val();
            self.depth[w].next = self.dq[w].val();
            self.busy[w].next = self.bsy[w].q.val();
        }
        self.overflow_r.d.next = self.is_split.val() & self.c_full.val() & (!self.c_busy.val());
        self.overflow.next = self.overflow_r.q.val();

        // ---------------- debug read port (combinational; verification only)
        self.d_dep.next = self.dep0.val();
        self.d_live.next = self.zero_mask.val();
        self.d_pc.next = self.zero_pc.val();
        self.d_rpc.next = self.zero_pc.val();
        self.d_mask.next = self.zero_mask.val();
        for w in 0..self._warps {
            if self.dbg_warp.val() == self.warp_id[w].val() {
                self.d_dep.next = self.dq[w].val();
                self.d_live.next = self.live[w].q.val();
                self.d_pc.next = self.t_pc[w].q.val();
                self.d_rpc.next = self.t_rpc[w].q.val();
                self.d_mask.next = self.t_mask[w].q.val();
            }
        }
        for b in 0..2 {
            self.ram_rpc[b].dwarp.next = self.dbg_warp.val();
            self.ram_rpc[b].dlevel.next = self.dbg_entry.val();
            self.ram_pc[b].dwarp.next = self.dbg_warp.val();
            self.ram_pc[b].dlevel.next = self.dbg_entry.val();
            self.ram_mask[b].dwarp.next = self.dbg_warp.val();
            self.ram_mask[b].dlevel.next = self.dbg_entry.val();
            self.ram_eq[b].dwarp.next = self.dbg_warp.val();
            self.ram_eq[b].dlevel.next = self.dbg_entry.val();
            self.ram_eq[b].rwarp.next = self.pk_warp.val();
            self.ram_eq[b].rlevel.next = self.pk_level.val();
        }
        self.d_lo.next = self.d_dep.val().get_bits::<8>(0);
        self.d_top.next = self.d_lo.val() - self.level1.val();
        self.dbg_valid.next =
            (self.d_dep.val() != self.dep0.val()) & (self.dbg_entry.val() <= self.d_top.val());
        self.dbg_pc.next = self.d_pc.val();
        self.dbg_rpc.next = self.d_rpc.val();
        self.dbg_mask.next = self.d_mask.val();
        self.dbg_eq.next = self.d_pc.val() == self.d_rpc.val();
        if self.dbg_entry.val() != self.d_top.val() {
            self.dbg_rpc.next = self.ram_rpc[0].ddata.val();
            self.dbg_pc.next = self.ram_pc[0].ddata.val();
            self.dbg_mask.next = self.ram_mask[0].ddata.val() & self.d_live.val();
            self.dbg_eq.next = self.ram_eq[0].ddata.val().any();
            if self.dbg_entry.val().get_bit(0) {
                self.dbg_rpc.next = self.ram_rpc[1].ddata.val();
                self.dbg_pc.next = self.ram_pc[1].ddata.val();
                self.dbg_mask.next = self.ram_mask[1].ddata.val() & self.d_live.val();
                self.dbg_eq.next = self.ram_eq[1].ddata.val().any();
            }
        }
    }
}

/// Verilog of the SIMT stack unit for `cfg`, top module named `name`.
pub fn simt_stack_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    fn emit<const L: usize>(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
        let mut uut = SimtStack::<L>::from_config(cfg);
        Ok(rename_top(&verilog_of("simt_stack", &mut uut)?, name))
    }
    match cfg.lanes {
        1 => emit::<1>(cfg, name),
        2 => emit::<2>(cfg, name),
        4 => emit::<4>(cfg, name),
        8 => emit::<8>(cfg, name),
        16 => emit::<16>(cfg, name),
        32 => emit::<32>(cfg, name),
        n => Err(HdlError {
            unit: "simt_stack".into(),
            message: format!("lanes = {n} is not a power of two up to 32"),
        }),
    }
}
