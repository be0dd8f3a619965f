//! The SIMT reconvergence stacks of all warps of one SM (book §3.1.1, Fig. 3.4; docs/isa.md §4).
//!
//! Cycle behaviour, ports and encodings: docs/microarch/simt_stack.md. In short:
//!
//! * storage in flip-flops: per warp `simt_stack_depth` entries of (RPC, next PC, mask, a
//!   `pc == rpc` flag) plus a thermometer-coded occupancy vector (`valid[e]` = entry `e` exists);
//!   entry `e` is written only from write lane `e % 3` (a command writes at most the three
//!   consecutive entries depth-1, depth, depth+1), so entry registers need no data multiplexer;
//! * one command per cycle for one warp (`cmd_op`, `cmd_warp`, operands); the command **and the
//!   complete settle** (pop while TOS.pc == TOS.rpc or TOS.mask == 0) take effect at the rising
//!   edge that ends the command cycle, so the per-warp outputs are settled again in the next cycle
//!   and no warp is ever busy;
//! * per-warp outputs `tos_pc`, `tos_mask`, `empty`, `full`, `depth` straight from flip-flops
//!   through a one-hot select; a registered `overflow` pulse; a combinational debug read port
//!   (`dbg_warp`, `dbg_entry`) used only by verification.
//!
//! Written against rust-hdl 0.46 (see ../shared/BRIEF.md "RTL rules"): every multi-entry
//! structure is a `Vec` of single-index signals inside a per-warp sub-block [`WarpStack`] (only
//! the first `[i]` of a name is resolved), every multi-bit literal is a typed `Constant`, every
//! mixed expression is fully parenthesised (rust-hdl prints binary operators without
//! parentheses, so Rust and Verilog precedence would differ), and loops whose index must count
//! down use an outer one-iteration loop that binds `t = depth - 1`, because an index expression
//! may only contain loop variables and numbers.

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;

use crate::{rename_top, verilog_of, HdlError};

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

/// Width of `cmd_warp` / `dbg_warp` (configuration allows up to 64 warps).
pub const WARP_BITS: usize = 6;
/// Width of `dbg_entry` (configuration allows up to 256 entries).
pub const ENTRY_BITS: usize = 8;
/// Width of `depth[w]` (0 ..= 256).
pub const DEPTH_BITS: usize = 9;
/// RPC of the base entry (`Reconvergence::Never` / launch): odd, never equal to a PC.
pub const RPC_NONE: u32 = u32::MAX;

/// The stack of one warp. Instantiated `warps` times by [`SimtStack`]; the command inputs are
/// already decoded by the parent (`sel` = this warp is `cmd_warp`).
#[derive(LogicBlock)]
pub struct WarpStack<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// The command of this cycle is for this warp.
    pub sel: Signal<In, Bit>,
    pub is_reset: Signal<In, Bit>,
    pub is_set_pc: Signal<In, Bit>,
    pub is_split: Signal<In, Bit>,
    pub is_exit: Signal<In, Bit>,
    /// RPC of pushed entries (`RPC_NONE` for reset, `cmd_rpc` for split).
    pub push_rpc: Signal<In, Bits<32>>,
    /// New TOS pc of set_pc / split.
    pub new_tos_pc: Signal<In, Bits<32>>,
    pub pc_a: Signal<In, Bits<32>>,
    pub mask_a: Signal<In, Bits<L>>,
    /// `pc_a == push_rpc`.
    pub recon_a: Signal<In, Bit>,
    pub pc_b: Signal<In, Bits<32>>,
    pub mask_b: Signal<In, Bits<L>>,
    /// `pc_b == push_rpc`.
    pub recon_b: Signal<In, Bit>,
    pub dbg_entry: Signal<In, Bits<ENTRY_BITS>>,

    pub tos_pc: Signal<Out, Bits<32>>,
    pub tos_rpc: Signal<Out, Bits<32>>,
    pub tos_mask: Signal<Out, Bits<L>>,
    pub empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    pub depth: Signal<Out, Bits<DEPTH_BITS>>,
    /// Combinational: this cycle's command is a split for this warp that does not fit.
    pub ovf: Signal<Out, Bit>,
    pub dbg_valid: Signal<Out, Bit>,
    pub dbg_rpc: Signal<Out, Bits<32>>,
    pub dbg_pc: Signal<Out, Bits<32>>,
    pub dbg_mask: Signal<Out, Bits<L>>,

    // Storage, entry 0 = bottom.
    valid: Vec<DFF<Bit>>,
    rpc: Vec<DFF<Bits<32>>>,
    pc: Vec<DFF<Bits<32>>>,
    mask: Vec<DFF<Bits<L>>>,
    recon: Vec<DFF<Bit>>,

    // Combinational.
    is_top: Vec<Signal<Local, Bit>>,
    at_a: Vec<Signal<Local, Bit>>,
    at_b: Vec<Signal<Local, Bit>>,
    next_valid: Vec<Signal<Local, Bit>>,
    next_mask: Vec<Signal<Local, Bits<L>>>,
    next_recon: Vec<Signal<Local, Bit>>,
    keep: Vec<Signal<Local, Bit>>,
    /// `dm[k]`: depth mod 3 == k.
    dm: Vec<Signal<Local, Bit>>,
    lane_pc: Vec<Signal<Local, Bits<32>>>,
    lane_mask: Vec<Signal<Local, Bits<L>>>,
    lane_recon: Vec<Signal<Local, Bit>>,
    /// Entry gets a new pc (TOS write or push).
    written: Vec<Signal<Local, Bit>>,
    /// Entry is pushed (new rpc, mask, valid).
    pushed: Vec<Signal<Local, Bit>>,
    live: Vec<Signal<Local, Bit>>,
    top_pc: Signal<Local, Bits<32>>,
    top_rpc: Signal<Local, Bits<32>>,
    top_mask: Signal<Local, Bits<L>>,
    top_depth: Signal<Local, Bits<DEPTH_BITS>>,
    top_eq: Signal<Local, Bit>,
    is_full: Signal<Local, Bit>,
    do_reset: Signal<Local, Bit>,
    do_write_top: Signal<Local, Bit>,
    do_push: Signal<Local, Bit>,
    do_exit: Signal<Local, Bit>,

    zero_pc: Constant<Bits<32>>,
    zero_mask: Constant<Bits<L>>,
    zero_depth: Constant<Bits<DEPTH_BITS>>,
    /// `entry_index[e] = e`.
    entry_index: Vec<Constant<Bits<ENTRY_BITS>>>,
    /// `entry_count[e] = e + 1`.
    entry_count: Vec<Constant<Bits<DEPTH_BITS>>>,

    _depth: usize,
    _depth_m1: usize,
    _depth_m2: usize,
    _lanes: usize,
}

fn vec_of<T>(n: usize, f: impl FnMut(usize) -> T) -> Vec<T> {
    (0..n).map(f).collect()
}

impl<const L: usize> WarpStack<L> {
    /// A stack of `depth` entries (2 ..= 256).
    pub fn new(depth: usize) -> Self {
        assert!(
            (2..=256).contains(&depth),
            "simt_stack_depth {depth} outside 2..=256"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            sel: Default::default(),
            is_reset: Default::default(),
            is_set_pc: Default::default(),
            is_split: Default::default(),
            is_exit: Default::default(),
            push_rpc: Default::default(),
            new_tos_pc: Default::default(),
            pc_a: Default::default(),
            mask_a: Default::default(),
            recon_a: Default::default(),
            pc_b: Default::default(),
            mask_b: Default::default(),
            recon_b: Default::default(),
            dbg_entry: Default::default(),
            tos_pc: Default::default(),
            tos_rpc: Default::default(),
            tos_mask: Default::default(),
            empty: Default::default(),
            full: Default::default(),
            depth: Default::default(),
            ovf: Default::default(),
            dbg_valid: Default::default(),
            dbg_rpc: Default::default(),
            dbg_pc: Default::default(),
            dbg_mask: Default::default(),
            valid: vec_of(depth, |_| Default::default()),
            rpc: vec_of(depth, |_| Default::default()),
            pc: vec_of(depth, |_| Default::default()),
            mask: vec_of(depth, |_| Default::default()),
            recon: vec_of(depth, |_| Default::default()),
            is_top: vec_of(depth, |_| Default::default()),
            at_a: vec_of(depth, |_| Default::default()),
            at_b: vec_of(depth, |_| Default::default()),
            next_valid: vec_of(depth, |_| Default::default()),
            next_mask: vec_of(depth, |_| Default::default()),
            next_recon: vec_of(depth, |_| Default::default()),
            keep: vec_of(depth, |_| Default::default()),
            dm: vec_of(3, |_| Default::default()),
            lane_pc: vec_of(depth.min(3), |_| Default::default()),
            lane_mask: vec_of(depth.min(3), |_| Default::default()),
            lane_recon: vec_of(depth.min(3), |_| Default::default()),
            written: vec_of(depth, |_| Default::default()),
            pushed: vec_of(depth, |_| Default::default()),
            live: vec_of(depth, |_| Default::default()),
            top_pc: Default::default(),
            top_rpc: Default::default(),
            top_mask: Default::default(),
            top_depth: Default::default(),
            top_eq: Default::default(),
            is_full: Default::default(),
            do_reset: Default::default(),
            do_write_top: Default::default(),
            do_push: Default::default(),
            do_exit: Default::default(),
            zero_pc: Constant::new(0u64.into()),
            zero_mask: Constant::new(0u64.into()),
            zero_depth: Constant::new(0u64.into()),
            entry_index: vec_of(depth, |e| Constant::new((e as u64).into())),
            entry_count: vec_of(depth, |e| Constant::new((e as u64 + 1).into())),
            _depth: depth,
            _depth_m1: depth - 1,
            _depth_m2: depth - 2,
            _lanes: depth.min(3),
        }
    }
}

impl<const L: usize> Logic for WarpStack<L> {
    #[hdl_gen]
    fn update(&mut self) {
        // Storage holds by default.
        for e in 0..self._depth {
            self.valid[e].clock.next = self.clock.val();
            self.rpc[e].clock.next = self.clock.val();
            self.pc[e].clock.next = self.clock.val();
            self.mask[e].clock.next = self.clock.val();
            self.recon[e].clock.next = self.clock.val();
            self.rpc[e].d.next = self.rpc[e].q.val();
            self.pc[e].d.next = self.pc[e].q.val();
        }

        // One-hot TOS (valid is a thermometer code) and the two push positions
        // (at_a: e == depth, at_b: e == depth + 1).
        for e in 0..self._depth_m1 {
            self.is_top[e].next = self.valid[e].q.val() & (!self.valid[e + 1].q.val());
        }
        for t in self._depth_m1..self._depth {
            self.is_top[t].next = self.valid[t].q.val();
        }
        self.at_a[0].next = !self.valid[0].q.val();
        for e in 1..self._depth {
            self.at_a[e].next = (!self.valid[e].q.val()) & self.valid[e - 1].q.val();
        }
        self.at_b[0].next = false;
        self.at_b[1].next = !self.valid[0].q.val();
        for e in 2..self._depth {
            self.at_b[e].next = (!self.valid[e - 1].q.val()) & self.valid[e - 2].q.val();
        }

        // TOS select: AND-OR over the one-hot TOS (written as a chain; synthesis rebalances
        // it: an explicit OR tree gave the same LUT count on ECP5).
        self.top_pc.next = self.zero_pc.val();
        self.top_rpc.next = self.zero_pc.val();
        self.top_mask.next = self.zero_mask.val();
        self.top_depth.next = self.zero_depth.val();
        for e in 0..self._depth {
            if self.is_top[e].val() {
                self.top_pc.next = self.top_pc.val() | self.pc[e].q.val();
                self.top_rpc.next = self.top_rpc.val() | self.rpc[e].q.val();
                self.top_mask.next = self.top_mask.val() | self.mask[e].q.val();
                self.top_depth.next = self.top_depth.val() | self.entry_count[e].val();
            }
        }
        // A split fits when depth + 2 <= D, i.e. entry D-2 is free.
        for t in self._depth_m2..self._depth_m1 {
            self.is_full.next = self.valid[t].q.val();
        }

        // Command decode.
        self.do_reset.next = self.sel.val() & self.is_reset.val();
        self.do_push.next = self.sel.val() & self.is_split.val() & (!self.is_full.val());
        self.do_write_top.next =
            self.sel.val() & (self.is_set_pc.val() | (self.is_split.val() & (!self.is_full.val())));
        self.do_exit.next = self.sel.val() & self.is_exit.val();
        self.top_eq.next = self.new_tos_pc.val() == self.top_rpc.val();

        // Write lanes: a command writes at most the three consecutive entries depth-1 (TOS:
        // new pc), depth (first push) and depth+1 (second push), which fall into the three
        // residues mod 3. So the write data of every entry e comes from lane e % 3, selected once
        // per warp from `depth mod 3` (dm), and each entry register needs no data multiplexer.
        self.dm[0].next = !self.valid[0].q.val();
        self.dm[1].next = false;
        self.dm[2].next = false;
        for e in 0..self._depth {
            self.dm[(e + 1) % 3].next = self.dm[(e + 1) % 3].val() | self.is_top[e].val();
        }
        for j in 0..self._lanes {
            self.lane_pc[j].next = self.zero_pc.val();
            self.lane_mask[j].next = self.zero_mask.val();
            self.lane_recon[j].next = false;
            if self.dm[j].val() {
                self.lane_pc[j].next = self.pc_a.val();
                self.lane_mask[j].next = self.mask_a.val();
                self.lane_recon[j].next = self.recon_a.val();
            }
            if self.dm[(j + 2) % 3].val() {
                self.lane_pc[j].next = self.pc_b.val();
                self.lane_mask[j].next = self.mask_b.val();
                self.lane_recon[j].next = self.recon_b.val();
            }
            if self.dm[(j + 1) % 3].val() {
                self.lane_pc[j].next = self.new_tos_pc.val();
                self.lane_recon[j].next = self.top_eq.val();
            }
        }
        // Reset writes entry 0 whatever the depth.
        if self.do_reset.val() {
            self.lane_pc[0].next = self.pc_a.val();
            self.lane_mask[0].next = self.mask_a.val();
            self.lane_recon[0].next = self.recon_a.val();
        }

        // Next state of every entry before settling.
        for e in 0..self._depth {
            self.pushed[e].next = self.do_push.val() & (self.at_a[e].val() | self.at_b[e].val());
            self.written[e].next =
                (self.do_write_top.val() & self.is_top[e].val()) | self.pushed[e].val();
        }
        self.pushed[0].next = self.pushed[0].val() | self.do_reset.val();
        self.written[0].next = self.written[0].val() | self.do_reset.val();
        for e in 0..self._depth {
            self.next_valid[e].next = self.valid[e].q.val();
            self.next_mask[e].next = self.mask[e].q.val();
            self.next_recon[e].next = self.recon[e].q.val();
            if self.do_exit.val() {
                self.next_mask[e].next = self.mask[e].q.val() & (!self.mask_a.val());
            }
            if self.do_reset.val() {
                self.next_valid[e].next = false;
            }
            if self.written[e].val() {
                self.pc[e].d.next = self.lane_pc[e % 3].val();
                self.next_recon[e].next = self.lane_recon[e % 3].val();
            }
            if self.pushed[e].val() {
                self.next_valid[e].next = true;
                self.rpc[e].d.next = self.push_rpc.val();
                self.next_mask[e].next = self.lane_mask[e % 3].val();
            }
        }

        // Settle: an entry survives when it or an entry above it is kept (valid, not
        // reconverged, some thread left): pop all at once.
        for e in 0..self._depth {
            self.keep[e].next = self.next_valid[e].val()
                & (!self.next_recon[e].val())
                & (self.next_mask[e].val().any());
            self.mask[e].d.next = self.next_mask[e].val();
            self.recon[e].d.next = self.next_recon[e].val();
        }
        for t in self._depth_m1..self._depth {
            self.live[t].next = self.keep[t].val();
            for k in 1..self._depth {
                self.live[t - k].next = self.next_valid[t - k].val()
                    & (self.keep[t - k].val() | self.live[t - k + 1].val());
            }
        }
        for e in 0..self._depth {
            self.valid[e].d.next = self.live[e].val() & (!self.rst.val());
        }

        // Outputs.
        self.tos_pc.next = self.top_pc.val();
        self.tos_rpc.next = self.top_rpc.val();
        self.tos_mask.next = self.top_mask.val();
        self.depth.next = self.top_depth.val();
        self.empty.next = !self.valid[0].q.val();
        self.full.next = self.is_full.val();
        self.ovf.next = self.sel.val() & self.is_split.val() & self.is_full.val();

        // Debug read port.
        self.dbg_valid.next = false;
        self.dbg_rpc.next = self.zero_pc.val();
        self.dbg_pc.next = self.zero_pc.val();
        self.dbg_mask.next = self.zero_mask.val();
        for e in 0..self._depth {
            if self.dbg_entry.val() == self.entry_index[e].val() {
                self.dbg_valid.next = self.valid[e].q.val();
                self.dbg_rpc.next = self.rpc[e].q.val();
                self.dbg_pc.next = self.pc[e].q.val();
                self.dbg_mask.next = self.mask[e].q.val();
            }
        }
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
    /// Warp of the command; values >= `warps` select no warp.
    pub cmd_warp: Signal<In, Bits<WARP_BITS>>,
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
    /// Debug read port (verification only): warp and entry to show on `dbg_*`.
    pub dbg_warp: Signal<In, Bits<WARP_BITS>>,
    pub dbg_entry: Signal<In, Bits<ENTRY_BITS>>,

    /// Per warp: next PC of the TOS (0 when empty).
    pub tos_pc: Vec<Signal<Out, Bits<32>>>,
    /// Per warp: RPC of the TOS (0 when empty; `RPC_NONE` for the base entry).
    pub tos_rpc: Vec<Signal<Out, Bits<32>>>,
    /// Per warp: active mask of the TOS (0 when empty).
    pub tos_mask: Vec<Signal<Out, Bits<L>>>,
    /// Per warp: the stack is empty (never launched, or every thread exited).
    pub empty: Vec<Signal<Out, Bit>>,
    /// Per warp: a split now would overflow (depth >= D - 1).
    pub full: Vec<Signal<Out, Bit>>,
    /// Per warp: number of entries.
    pub depth: Vec<Signal<Out, Bits<DEPTH_BITS>>>,
    /// High for one cycle after a split that did not fit.
    pub overflow: Signal<Out, Bit>,
    pub dbg_valid: Signal<Out, Bit>,
    pub dbg_rpc: Signal<Out, Bits<32>>,
    pub dbg_pc: Signal<Out, Bits<32>>,
    pub dbg_mask: Signal<Out, Bits<L>>,

    stacks: Vec<WarpStack<L>>,
    overflow_r: DFF<Bit>,
    any_ovf: Signal<Local, Bit>,
    push_rpc: Signal<Local, Bits<32>>,
    new_tos_pc: Signal<Local, Bits<32>>,

    op_reset: Constant<Bits<3>>,
    op_set_pc: Constant<Bits<3>>,
    op_split: Constant<Bits<3>>,
    op_exit: Constant<Bits<3>>,
    rpc_none: Constant<Bits<32>>,
    zero_pc: Constant<Bits<32>>,
    zero_mask: Constant<Bits<L>>,
    /// `warp_id[w] = w`.
    warp_id: Vec<Constant<Bits<WARP_BITS>>>,

    _warps: usize,
}

impl<const L: usize> SimtStack<L> {
    /// `warps` (1 ..= 64) stacks of `depth` (2 ..= 256) entries.
    pub fn new(warps: usize, depth: usize) -> Self {
        assert!((1..=64).contains(&warps), "warps {warps} outside 1..=64");
        assert!(
            matches!(L, 1 | 2 | 4 | 8 | 16 | 32),
            "lanes {L} is not a power of two up to 32"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cmd_op: Default::default(),
            cmd_warp: Default::default(),
            cmd_rpc: Default::default(),
            cmd_pc_a: Default::default(),
            cmd_mask_a: Default::default(),
            cmd_pc_b: Default::default(),
            cmd_mask_b: Default::default(),
            dbg_warp: Default::default(),
            dbg_entry: Default::default(),
            tos_pc: vec_of(warps, |_| Default::default()),
            tos_rpc: vec_of(warps, |_| Default::default()),
            tos_mask: vec_of(warps, |_| Default::default()),
            empty: vec_of(warps, |_| Default::default()),
            full: vec_of(warps, |_| Default::default()),
            depth: vec_of(warps, |_| Default::default()),
            overflow: Default::default(),
            dbg_valid: Default::default(),
            dbg_rpc: Default::default(),
            dbg_pc: Default::default(),
            dbg_mask: Default::default(),
            stacks: vec_of(warps, |_| WarpStack::new(depth)),
            overflow_r: Default::default(),
            any_ovf: Default::default(),
            push_rpc: Default::default(),
            new_tos_pc: Default::default(),
            op_reset: Constant::new(OP_RESET.into()),
            op_set_pc: Constant::new(OP_SET_PC.into()),
            op_split: Constant::new(OP_SPLIT.into()),
            op_exit: Constant::new(OP_EXIT.into()),
            rpc_none: Constant::new(u64::from(RPC_NONE).into()),
            zero_pc: Constant::new(0u64.into()),
            zero_mask: Constant::new(0u64.into()),
            warp_id: vec_of(warps, |w| Constant::new((w as u64).into())),
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

        // Operand decode shared by all warps.
        self.push_rpc.next = self.cmd_rpc.val();
        if self.cmd_op.val() == self.op_reset.val() {
            self.push_rpc.next = self.rpc_none.val();
        }
        self.new_tos_pc.next = self.cmd_pc_a.val();
        if self.cmd_op.val() == self.op_split.val() {
            self.new_tos_pc.next = self.cmd_rpc.val();
        }

        self.any_ovf.next = false;
        self.dbg_valid.next = false;
        self.dbg_rpc.next = self.zero_pc.val();
        self.dbg_pc.next = self.zero_pc.val();
        self.dbg_mask.next = self.zero_mask.val();
        for w in 0..self._warps {
            self.stacks[w].clock.next = self.clock.val();
            self.stacks[w].rst.next = self.rst.val();
            self.stacks[w].sel.next = self.cmd_warp.val() == self.warp_id[w].val();
            self.stacks[w].is_reset.next = self.cmd_op.val() == self.op_reset.val();
            self.stacks[w].is_set_pc.next = self.cmd_op.val() == self.op_set_pc.val();
            self.stacks[w].is_split.next = self.cmd_op.val() == self.op_split.val();
            self.stacks[w].is_exit.next = self.cmd_op.val() == self.op_exit.val();
            self.stacks[w].push_rpc.next = self.push_rpc.val();
            self.stacks[w].new_tos_pc.next = self.new_tos_pc.val();
            self.stacks[w].pc_a.next = self.cmd_pc_a.val();
            self.stacks[w].mask_a.next = self.cmd_mask_a.val();
            self.stacks[w].recon_a.next = self.cmd_pc_a.val() == self.push_rpc.val();
            self.stacks[w].pc_b.next = self.cmd_pc_b.val();
            self.stacks[w].mask_b.next = self.cmd_mask_b.val();
            self.stacks[w].recon_b.next = self.cmd_pc_b.val() == self.push_rpc.val();
            self.stacks[w].dbg_entry.next = self.dbg_entry.val();

            self.tos_pc[w].next = self.stacks[w].tos_pc.val();
            self.tos_rpc[w].next = self.stacks[w].tos_rpc.val();
            self.tos_mask[w].next = self.stacks[w].tos_mask.val();
            self.empty[w].next = self.stacks[w].empty.val();
            self.full[w].next = self.stacks[w].full.val();
            self.depth[w].next = self.stacks[w].depth.val();
            self.any_ovf.next = self.any_ovf.val() | self.stacks[w].ovf.val();
            if self.dbg_warp.val() == self.warp_id[w].val() {
                self.dbg_valid.next = self.stacks[w].dbg_valid.val();
                self.dbg_rpc.next = self.stacks[w].dbg_rpc.val();
                self.dbg_pc.next = self.stacks[w].dbg_pc.val();
                self.dbg_mask.next = self.stacks[w].dbg_mask.val();
            }
        }
        self.overflow_r.d.next = self.any_ovf.val() & (!self.rst.val());
        self.overflow.next = self.overflow_r.q.val();
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
