//! Scoreboard: Coon-style pending-write tracking, a few entries per warp (book §3.2).
//!
//! Every warp owns `cfg.scoreboard_entries` entries; an entry is a valid bit and the number of
//! a destination register written by an issued instruction that has not written back yet. x0 is
//! never tracked. The unit has one *check port per warp* (the head instruction of the warp's
//! I-buffer: `rd`, `rs1`, `rs2`, each with a valid flag), one reserve port (issue) and two
//! release ports (writeback). Exact cycle behaviour: docs/microarch/scheduler.md.
//!
//! * `ok[w]` (combinational, from the registered entries and release port 1): no pending write
//!   to a source register (RAW), none to the destination (WAW), and a free entry if the
//!   instruction writes a register other than x0, once this cycle's port-1 release is applied
//!   (the SM registers `ok` before its scheduler).
//! * `idle[w]`: warp `w` has no pending write (used to drain a warp before exit / CTA end).
//! * Reserve (`rsv_valid`, `rsv_warp`, `rsv_rd`): at the clock edge the lowest-numbered entry of
//!   that warp that is free in the registered state takes `rsv_rd`. Ignored for x0 or when the
//!   warp has no free entry.
//! * Release (`rel{0,1}_valid/_warp/_rd`): at the clock edge every entry of that warp that is
//!   valid in the registered state and holds `rd` becomes free. Two ports so that the
//!   execution-unit writeback and the load/store writeback can retire in the same cycle.
//! * A release takes effect at the edge (port 1's is already seen by this cycle's `ok`); a same-cycle
//!   release never frees the entry a same-cycle reservation allocates
//!   (docs/microarch/scheduler.md).
//! * `clear[w]` (CTA launch) frees every entry of warp `w` at the edge and wins over reserve;
//!   `reset` (synchronous) frees every entry of every warp.
//!
//! Ports of one warp are `Vec`s indexed by warp number; in the emitted Verilog they are named
//! `chk_rd$3`, `ok$3`, ... (Verilator's C++ spells `$` as `__024`).

use std::ops::BitAnd;

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;

use crate::{rename_top, verilog_of, HdlError};

/// Width of a warp number on the ports (warps are at most 64, `GpuConfig::validate`).
pub const WARP_BITS: usize = 6;
/// A warp number on the ports.
pub type WarpId = Bits<WARP_BITS>;
/// Width of an architectural register number.
pub const REG_BITS: usize = 5;
/// An architectural register number (x0..x31).
pub type RegId = Bits<REG_BITS>;

/// A vector of `d`→`q` flip-flops in one Verilog module (rust-hdl's `DFF` emits one module per
/// bit or field, which makes large state such as an age matrix slow to lint and synthesize).
/// Like `DFF`, no reset: the owner drives `d` with the reset value. An empty `RegVec` (state a
/// configuration does not need) emits an empty `always` block so its clock input is used.
#[derive(LogicBlock)]
pub struct RegVec<T: Synth + BitAnd<Output = T>> {
    pub clock: Signal<In, Clock>,
    pub d: Vec<Signal<In, T>>,
    pub q: Vec<Signal<Out, T>>,
    /// Bits that are stored (`d & mask`): the others read 0, so synthesis removes their
    /// flip-flops even without flattening. `None`: all bits.
    _mask: Option<T>,
}

impl<T: Synth + BitAnd<Output = T>> RegVec<T> {
    /// `n` registers.
    pub fn new(n: usize) -> Self {
        RegVec {
            clock: Default::default(),
            d: (0..n).map(|_| Default::default()).collect(),
            q: (0..n).map(|_| Default::default()).collect(),
            _mask: None,
        }
    }

    /// `n` registers of which only the bits set in `mask` are stored (the others read 0).
    pub fn masked(n: usize, mask: T) -> Self {
        RegVec {
            _mask: Some(mask),
            ..Self::new(n)
        }
    }

    /// Number of registers.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// No registers.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

impl<T: Synth + BitAnd<Output = T>> Logic for RegVec<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            for (q, d) in self.q.iter_mut().zip(&self.d) {
                q.next = match self._mask {
                    Some(m) => d.val() & m,
                    None => d.val(),
                };
            }
        }
    }

    fn connect(&mut self) {
        for q in &mut self.q {
            q.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        if self.q.is_empty() {
            // Keeps the clock port used (lint-clean) when a policy needs no state here.
            return Verilog::Custom("always @(posedge clock) begin\nend\n".into());
        }
        let init = T::default().verilog();
        let mask = match self._mask {
            Some(m) => format!(" & {:x}", m.verilog()),
            None => String::new(),
        };
        let mut initial = String::new();
        let mut body = String::new();
        for i in 0..self.q.len() {
            initial.push_str(&format!("   q${i} = {init:x};\n"));
            body.push_str(&format!("   q${i} <= d${i}{mask};\n"));
        }
        Verilog::Custom(format!(
            "initial begin\n{initial}end\n\nalways @(posedge clock) begin\n{body}end\n"
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "regvec".into(),
            clock: "clock".into(),
            inputs: (0..self.d.len()).map(|i| format!("d${i}")).collect(),
            outputs: (0..self.q.len()).map(|i| format!("q${i}")).collect(),
        }]
    }
}

/// The entries of one warp, with its check port. A sub-block of [`Scoreboard`]; the parent
/// decodes the warp numbers of the reserve and release ports into per-warp strobes.
#[derive(LogicBlock)]
pub struct ScoreboardWarp {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Free every entry at the edge (CTA launch).
    pub clear: Signal<In, Bit>,
    /// Check port: the warp's head instruction.
    pub rd: Signal<In, RegId>,
    pub rd_valid: Signal<In, Bit>,
    pub rs1: Signal<In, RegId>,
    pub rs1_valid: Signal<In, Bit>,
    pub rs2: Signal<In, RegId>,
    pub rs2_valid: Signal<In, Bit>,
    /// No RAW/WAW hazard and an entry for the destination if one is needed.
    pub ok: Signal<Out, Bit>,
    /// No entry valid.
    pub idle: Signal<Out, Bit>,
    /// Reserve an entry for `rsv_rd` (already qualified with the warp number).
    pub rsv: Signal<In, Bit>,
    pub rsv_rd: Signal<In, RegId>,
    /// Release entries holding `rel0_rd` / `rel1_rd` (already qualified with the warp number).
    pub rel0: Signal<In, Bit>,
    pub rel0_rd: Signal<In, RegId>,
    pub rel1: Signal<In, Bit>,
    pub rel1_rd: Signal<In, RegId>,
    valid: RegVec<Bit>,
    dst: RegVec<RegId>,
    x0: Constant<RegId>,
    /// Per entry: valid and not released in this cycle (what the check sees).
    live: Vec<Signal<Local, Bit>>,
    raw1: Signal<Local, Bit>,
    raw2: Signal<Local, Bit>,
    waw: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    _entries: usize,
}

impl ScoreboardWarp {
    /// A warp with `entries` pending-write entries.
    pub fn new(entries: usize) -> Self {
        assert!(entries >= 1, "a scoreboard warp needs at least one entry");
        ScoreboardWarp {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            rd: Default::default(),
            rd_valid: Default::default(),
            rs1: Default::default(),
            rs1_valid: Default::default(),
            rs2: Default::default(),
            rs2_valid: Default::default(),
            ok: Default::default(),
            idle: Default::default(),
            rsv: Default::default(),
            rsv_rd: Default::default(),
            rel0: Default::default(),
            rel0_rd: Default::default(),
            rel1: Default::default(),
            rel1_rd: Default::default(),
            valid: RegVec::new(entries),
            dst: RegVec::new(entries),
            x0: Constant::new(0.into()),
            live: (0..entries).map(|_| Default::default()).collect(),
            raw1: Default::default(),
            raw2: Default::default(),
            waw: Default::default(),
            full: Default::default(),
            taken: Default::default(),
            _entries: entries,
        }
    }
}

impl Logic for ScoreboardWarp {
    #[hdl_gen]
    fn update(&mut self) {
        // Registered state: hold by default.
        self.valid.clock.next = self.clock.val();
        self.dst.clock.next = self.clock.val();
        for e in 0..self._entries {
            self.valid.d[e].next = self.valid.q[e].val();
            self.dst.d[e].next = self.dst.q[e].val();
        }
        // Check: hazards and room against the registered entries without the one port 1
        // releases now (the early release, driven from the SM's release register): the SM
        // registers `ok`, so it checks the state the next cycle will have; port 0 (a
        // writeback choice) is not looked through.
        for e in 0..self._entries {
            self.live[e].next = self.valid.q[e].val()
                & !(self.rel1.val() & (self.dst.q[e].val() == self.rel1_rd.val()));
        }
        self.raw1.next = false;
        self.raw2.next = false;
        self.waw.next = false;
        self.full.next = true;
        for e in 0..self._entries {
            if self.live[e].val() & (self.dst.q[e].val() == self.rs1.val()) {
                self.raw1.next = true;
            }
            if self.live[e].val() & (self.dst.q[e].val() == self.rs2.val()) {
                self.raw2.next = true;
            }
            if self.live[e].val() & (self.dst.q[e].val() == self.rd.val()) {
                self.waw.next = true;
            }
            if !self.live[e].val() {
                self.full.next = false;
            }
        }
        self.ok.next = !(self.rs1_valid.val() & self.raw1.val())
            & !(self.rs2_valid.val() & self.raw2.val())
            & !(self.rd_valid.val()
                & (self.rd.val() != self.x0.val())
                & (self.waw.val() | self.full.val()));
        self.idle.next = true;
        for e in 0..self._entries {
            if self.valid.q[e].val() {
                self.idle.next = false;
            }
        }
        // Release: entries valid in the registered state that hold the register.
        for e in 0..self._entries {
            if (self.rel0.val() & (self.dst.q[e].val() == self.rel0_rd.val()))
                | (self.rel1.val() & (self.dst.q[e].val() == self.rel1_rd.val()))
            {
                self.valid.d[e].next = false;
            }
        }
        // Reserve: the lowest-numbered entry free in the registered state.
        self.taken.next = false;
        for e in 0..self._entries {
            if self.rsv.val()
                & (self.rsv_rd.val() != self.x0.val())
                & !self.valid.q[e].val()
                & !self.taken.val()
            {
                self.valid.d[e].next = true;
                self.dst.d[e].next = self.rsv_rd.val();
                self.taken.next = true;
            }
        }
        if self.clear.val() | self.reset.val() {
            for e in 0..self._entries {
                self.valid.d[e].next = false;
            }
        }
    }
}

/// `n` default values (one signal per warp).
fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// The scoreboard of one SM: `cfg.warps` × `cfg.scoreboard_entries` pending-write entries.
#[derive(LogicBlock)]
pub struct Scoreboard {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every entry free.
    pub reset: Signal<In, Bit>,
    /// Per warp: free every entry of the warp at the edge (CTA launch); wins over reserve.
    pub clear: Vec<Signal<In, Bit>>,
    /// Per warp check port: the head instruction's destination and sources with valid flags.
    pub chk_rd: Vec<Signal<In, RegId>>,
    pub chk_rd_valid: Vec<Signal<In, Bit>>,
    pub chk_rs1: Vec<Signal<In, RegId>>,
    pub chk_rs1_valid: Vec<Signal<In, Bit>>,
    pub chk_rs2: Vec<Signal<In, RegId>>,
    pub chk_rs2_valid: Vec<Signal<In, Bit>>,
    /// Per warp: the head instruction may issue as far as registers are concerned.
    pub ok: Vec<Signal<Out, Bit>>,
    /// Per warp: no pending write.
    pub idle: Vec<Signal<Out, Bit>>,
    /// Reserve port (issue).
    pub rsv_valid: Signal<In, Bit>,
    pub rsv_warp: Signal<In, WarpId>,
    pub rsv_rd: Signal<In, RegId>,
    /// Release port 0 (execution-unit writeback).
    pub rel0_valid: Signal<In, Bit>,
    pub rel0_warp: Signal<In, WarpId>,
    pub rel0_rd: Signal<In, RegId>,
    /// Release port 1 (load/store writeback).
    pub rel1_valid: Signal<In, Bit>,
    pub rel1_warp: Signal<In, WarpId>,
    pub rel1_rd: Signal<In, RegId>,
    warp: Vec<ScoreboardWarp>,
    wid: Vec<Constant<WarpId>>,
    _warps: usize,
}

impl Scoreboard {
    /// The scoreboard for `cfg.warps` warps of `cfg.scoreboard_entries` entries.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_size(cfg.warps as usize, cfg.scoreboard_entries as usize)
    }

    /// A scoreboard for `warps` warps (1..=64) of `entries` entries each.
    pub fn with_size(warps: usize, entries: usize) -> Self {
        assert!(
            (1..=1 << WARP_BITS).contains(&warps),
            "scoreboard: warps must be 1..=64"
        );
        Scoreboard {
            clock: Default::default(),
            reset: Default::default(),
            clear: vec_of(warps),
            chk_rd: vec_of(warps),
            chk_rd_valid: vec_of(warps),
            chk_rs1: vec_of(warps),
            chk_rs1_valid: vec_of(warps),
            chk_rs2: vec_of(warps),
            chk_rs2_valid: vec_of(warps),
            ok: vec_of(warps),
            idle: vec_of(warps),
            rsv_valid: Default::default(),
            rsv_warp: Default::default(),
            rsv_rd: Default::default(),
            rel0_valid: Default::default(),
            rel0_warp: Default::default(),
            rel0_rd: Default::default(),
            rel1_valid: Default::default(),
            rel1_warp: Default::default(),
            rel1_rd: Default::default(),
            warp: (0..warps).map(|_| ScoreboardWarp::new(entries)).collect(),
            wid: (0..warps)
                .map(|w| Constant::new((w as u64).into()))
                .collect(),
            _warps: warps,
        }
    }
}

impl Logic for Scoreboard {
    #[hdl_gen]
    fn update(&mut self) {
        for w in 0..self._warps {
            self.warp[w].clock.next = self.clock.val();
            self.warp[w].reset.next = self.reset.val();
            self.warp[w].clear.next = self.clear[w].val();
            self.warp[w].rd.next = self.chk_rd[w].val();
            self.warp[w].rd_valid.next = self.chk_rd_valid[w].val();
            self.warp[w].rs1.next = self.chk_rs1[w].val();
            self.warp[w].rs1_valid.next = self.chk_rs1_valid[w].val();
            self.warp[w].rs2.next = self.chk_rs2[w].val();
            self.warp[w].rs2_valid.next = self.chk_rs2_valid[w].val();
            self.ok[w].next = self.warp[w].ok.val();
            self.idle[w].next = self.warp[w].idle.val();
            self.warp[w].rsv.next =
                self.rsv_valid.val() & (self.rsv_warp.val() == self.wid[w].val());
            self.warp[w].rsv_rd.next = self.rsv_rd.val();
            self.warp[w].rel0.next =
                self.rel0_valid.val() & (self.rel0_warp.val() == self.wid[w].val());
            self.warp[w].rel0_rd.next = self.rel0_rd.val();
            self.warp[w].rel1.next =
                self.rel1_valid.val() & (self.rel1_warp.val() == self.wid[w].val());
            self.warp[w].rel1_rd.next = self.rel1_rd.val();
        }
    }
}

/// The Verilog of the scoreboard of `cfg`, top module named `name`.
pub fn scoreboard_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    let mut uut = Scoreboard::new(cfg);
    Ok(rename_top(&verilog_of("scoreboard", &mut uut)?, name))
}
