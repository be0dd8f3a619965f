//! `Crossbar`: `S` SM ports × `P` memory-partition ports, a request network (line `n` to
//! partition `n mod P`, one round-robin arbiter per partition) and a response network (one
//! round-robin arbiter per SM), two registered cycles each way. Written from
//! docs/microarch/crossbar.md, independently of its reference `sim/src/crossbar.rs`.
//!
//! Registers, as on the page ("State"):
//!
//! * per SM `s`: the request input queue `IQ[s]` (two entries `iq0_*` = `e0`, the head, and
//!   `iq1_*` = `e1`; the count as two flags `iq_v0` = `iq_n > 0`, `iq_v1` = `iq_n = 2`), the
//!   response output register `RO[s]` (`ro_valid`, `ro_write`, `ro_id`, `ro_data`; `ro_new`,
//!   `ro_part` for `resp_gnt`) and the response arbiter's pointer `SP[s]`;
//! * per partition `p`: the request output register `OR[p]` (`or_valid`, `or_sm` and the
//!   request's fields; `or_new` for `req_gnt`), the request arbiter's pointer `RP[p]` and the
//!   response input queue `RQ[p]` (`rq0_*`, `rq1_*`, `rq_v0`, `rq_v1`).
//!
//! A pointer is kept as the mask of the positions strictly after the last winner
//! (`rp_after[p·S + i]` = `i > win`, all zero after reset): that is "`ptr = (win + 1) mod S`"
//! already decoded for [`RoundRobinPick`], which grants the first requester in the mask, else
//! the first requester (`S` resp. `P` flip-flops per arbiter instead of `⌈log2⌉`, no decoder
//! in front of the arbiter).
//!
//! Per cycle and network, one arbitration level: `want` from registers only (the head's line
//! low bits resp. the head's SM index, compared with constants), the round-robin pick, the
//! grant gated by "the output register is free" (`!valid | ready`), then one-hot
//! multiplexers of the heads into the output registers ([`OneHotMux`]) and the pops. Every
//! output is a flip-flop gated only by `reset`; no input reaches an output.
//!
//! Widths: `LW`, `B`, `DB = 8·B` depend on `line_bytes` and are const generics
//! ([`crossbar_verilog`] instantiates the configuration's); `S` and `P` are run-time (every
//! per-port bus is a `Vec`, `name$i` in Verilog). The SM and partition indices are carried in
//! [`INDEX_BITS`] bits inside [`Crossbar`]; the emitted top module ([`crossbar_verilog`]) is
//! a thin wrapper that gives `part_req_sm`, `part_resp_sm` (`SW` bits) and `resp_gnt_part`
//! (`PW` bits) the page's widths, so one generic instance per line size serves every `S`, `P`.

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;

use crate::one_hot::{OneHotMux, RoundRobinPick};
use crate::scoreboard::RegVec;
use crate::{rename_top, verilog_of, HdlError};

/// Width of the opaque request id (`IW`, the page's `ID_BITS`).
pub const ID_BITS: usize = 16;

/// Width of an SM or partition index inside [`Crossbar`] (`S`, `P` ≤ 64); the top module of
/// [`crossbar_verilog`] narrows it to the page's `SW` / `PW`.
pub const INDEX_BITS: usize = 6;

/// `max(1, ⌈log2 n⌉)`: the width of an index of `n` ports (`SW` for `S`, `PW` for `P`).
pub fn index_width(n: usize) -> usize {
    ((usize::BITS - (n.max(1) - 1).leading_zeros()) as usize).max(1)
}

/// The crossbar for lines of `B` bytes (`LW = 32 − log2 B` line bits, `DB = 8·B` data bits).
#[derive(LogicBlock)]
pub struct Crossbar<const LW: usize, const B: usize, const DB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // ---- SM side, one per SM ----
    pub sm_req_valid: Vec<Signal<In, Bit>>,
    pub sm_req_ready: Vec<Signal<Out, Bit>>,
    pub sm_req_write: Vec<Signal<In, Bit>>,
    pub sm_req_line: Vec<Signal<In, Bits<LW>>>,
    pub sm_req_mask: Vec<Signal<In, Bits<B>>>,
    pub sm_req_data: Vec<Signal<In, Bits<DB>>>,
    pub sm_req_id: Vec<Signal<In, Bits<ID_BITS>>>,
    pub sm_resp_valid: Vec<Signal<Out, Bit>>,
    pub sm_resp_ready: Vec<Signal<In, Bit>>,
    pub sm_resp_write: Vec<Signal<Out, Bit>>,
    pub sm_resp_id: Vec<Signal<Out, Bits<ID_BITS>>>,
    pub sm_resp_data: Vec<Signal<Out, Bits<DB>>>,
    pub resp_gnt: Vec<Signal<Out, Bit>>,
    pub resp_gnt_part: Vec<Signal<Out, Bits<INDEX_BITS>>>,
    // ---- partition side, one per partition ----
    pub part_req_valid: Vec<Signal<Out, Bit>>,
    pub part_req_ready: Vec<Signal<In, Bit>>,
    pub part_req_sm: Vec<Signal<Out, Bits<INDEX_BITS>>>,
    pub part_req_write: Vec<Signal<Out, Bit>>,
    pub part_req_line: Vec<Signal<Out, Bits<LW>>>,
    pub part_req_mask: Vec<Signal<Out, Bits<B>>>,
    pub part_req_data: Vec<Signal<Out, Bits<DB>>>,
    pub part_req_id: Vec<Signal<Out, Bits<ID_BITS>>>,
    pub part_resp_valid: Vec<Signal<In, Bit>>,
    pub part_resp_ready: Vec<Signal<Out, Bit>>,
    pub part_resp_sm: Vec<Signal<In, Bits<INDEX_BITS>>>,
    pub part_resp_write: Vec<Signal<In, Bit>>,
    pub part_resp_id: Vec<Signal<In, Bits<ID_BITS>>>,
    pub part_resp_data: Vec<Signal<In, Bits<DB>>>,
    pub req_gnt: Vec<Signal<Out, Bit>>,
    // ---- IQ[s]: e0 (head) and e1, count as two flags ----
    iq_v0: RegVec<Bit>,
    iq_v1: RegVec<Bit>,
    iq0_write: RegVec<Bit>,
    iq0_line: RegVec<Bits<LW>>,
    iq0_mask: RegVec<Bits<B>>,
    iq0_data: RegVec<Bits<DB>>,
    iq0_id: RegVec<Bits<ID_BITS>>,
    iq1_write: RegVec<Bit>,
    iq1_line: RegVec<Bits<LW>>,
    iq1_mask: RegVec<Bits<B>>,
    iq1_data: RegVec<Bits<DB>>,
    iq1_id: RegVec<Bits<ID_BITS>>,
    // ---- OR[p] and RP[p] ----
    or_valid: RegVec<Bit>,
    or_new: RegVec<Bit>,
    or_sm: RegVec<Bits<INDEX_BITS>>,
    or_write: RegVec<Bit>,
    or_line: RegVec<Bits<LW>>,
    or_mask: RegVec<Bits<B>>,
    or_data: RegVec<Bits<DB>>,
    or_id: RegVec<Bits<ID_BITS>>,
    /// `rp_after[p·S + i]`: SM `i` comes after partition `p`'s last winner (`RP[p] ≤ i`).
    rp_after: RegVec<Bit>,
    // ---- RQ[p] ----
    rq_v0: RegVec<Bit>,
    rq_v1: RegVec<Bit>,
    rq0_sm: RegVec<Bits<INDEX_BITS>>,
    rq0_write: RegVec<Bit>,
    rq0_id: RegVec<Bits<ID_BITS>>,
    rq0_data: RegVec<Bits<DB>>,
    rq1_sm: RegVec<Bits<INDEX_BITS>>,
    rq1_write: RegVec<Bit>,
    rq1_id: RegVec<Bits<ID_BITS>>,
    rq1_data: RegVec<Bits<DB>>,
    // ---- RO[s] and SP[s] ----
    ro_valid: RegVec<Bit>,
    ro_new: RegVec<Bit>,
    ro_part: RegVec<Bits<INDEX_BITS>>,
    ro_write: RegVec<Bit>,
    ro_id: RegVec<Bits<ID_BITS>>,
    ro_data: RegVec<Bits<DB>>,
    /// `sp_after[s·P + i]`: partition `i` comes after SM `s`'s last winner.
    sp_after: RegVec<Bit>,
    // ---- request network logic ----
    /// `P` choices among `S`: `req[p·S + s]` = `want[p][s]`.
    req_rr: RoundRobinPick,
    req_mux_line: OneHotMux<LW>,
    req_mux_mask: OneHotMux<B>,
    req_mux_data: OneHotMux<DB>,
    req_mux_id: OneHotMux<ID_BITS>,
    /// The winner's index (constants selected by the one-hot grant).
    req_mux_sm: OneHotMux<INDEX_BITS>,
    /// `grant[p]`.
    gnt: Vec<Signal<Local, Bit>>,
    /// `ofree[p]`.
    ofree: Vec<Signal<Local, Bit>>,
    /// `pop[s]`, `push[s]`, the queue's next count flags.
    pop: Vec<Signal<Local, Bit>>,
    push: Vec<Signal<Local, Bit>>,
    /// `win_after[p·S + i]`: some requester below `i` won (the next `rp_after`).
    win_after: Vec<Signal<Local, Bit>>,
    // ---- response network logic ----
    /// `S` choices among `P`: `req[s·P + p]` = `rwant[s][p]`.
    resp_rr: RoundRobinPick,
    resp_mux_id: OneHotMux<ID_BITS>,
    resp_mux_data: OneHotMux<DB>,
    resp_mux_part: OneHotMux<INDEX_BITS>,
    rgnt: Vec<Signal<Local, Bit>>,
    rfree: Vec<Signal<Local, Bit>>,
    /// `rpop[p] | drop[p]`, `rpush[p]`.
    rpop: Vec<Signal<Local, Bit>>,
    rpush: Vec<Signal<Local, Bit>>,
    /// The head of `RQ[p]` names an SM `< S`.
    rowned: Vec<Signal<Local, Bit>>,
    rwin_after: Vec<Signal<Local, Bit>>,
    // ---- constants ----
    /// `P − 1` and `p` as line numbers: `want[p][s]` = `(line & (P−1)) == p`.
    k_pmask: Constant<Bits<LW>>,
    k_part: Vec<Constant<Bits<LW>>>,
    k_sidx: Vec<Constant<Bits<INDEX_BITS>>>,
    k_pidx: Vec<Constant<Bits<INDEX_BITS>>>,
    _s: usize,
    _p: usize,
    _s_m1: usize,
    _p_m1: usize,
}

impl<const LW: usize, const B: usize, const DB: usize> Crossbar<LW, B, DB> {
    /// The crossbar of `sms` SM ports (1–64) and `partitions` partition ports (a power of two,
    /// 1–64).
    pub fn new(sms: usize, partitions: usize) -> Self {
        assert!(
            (1..=64).contains(&sms),
            "sms = {sms}: a value from 1 to 64 is needed"
        );
        assert!(
            partitions.is_power_of_two() && partitions <= 64,
            "partitions = {partitions}: a power of two from 1 to 64 is needed"
        );
        assert!(
            B.is_power_of_two()
                && (4..=1024).contains(&B)
                && LW + B.trailing_zeros() as usize == 32
                && DB == 8 * B,
            "Crossbar<{LW}, {B}, {DB}>: inconsistent widths"
        );
        let (s, p) = (sms, partitions);
        use crate::sigs;
        Crossbar {
            clock: Default::default(),
            reset: Default::default(),
            sm_req_valid: sigs(s),
            sm_req_ready: sigs(s),
            sm_req_write: sigs(s),
            sm_req_line: sigs(s),
            sm_req_mask: sigs(s),
            sm_req_data: sigs(s),
            sm_req_id: sigs(s),
            sm_resp_valid: sigs(s),
            sm_resp_ready: sigs(s),
            sm_resp_write: sigs(s),
            sm_resp_id: sigs(s),
            sm_resp_data: sigs(s),
            resp_gnt: sigs(s),
            resp_gnt_part: sigs(s),
            part_req_valid: sigs(p),
            part_req_ready: sigs(p),
            part_req_sm: sigs(p),
            part_req_write: sigs(p),
            part_req_line: sigs(p),
            part_req_mask: sigs(p),
            part_req_data: sigs(p),
            part_req_id: sigs(p),
            part_resp_valid: sigs(p),
            part_resp_ready: sigs(p),
            part_resp_sm: sigs(p),
            part_resp_write: sigs(p),
            part_resp_id: sigs(p),
            part_resp_data: sigs(p),
            req_gnt: sigs(p),
            iq_v0: RegVec::new(s),
            iq_v1: RegVec::new(s),
            iq0_write: RegVec::new(s),
            iq0_line: RegVec::new(s),
            iq0_mask: RegVec::new(s),
            iq0_data: RegVec::new(s),
            iq0_id: RegVec::new(s),
            iq1_write: RegVec::new(s),
            iq1_line: RegVec::new(s),
            iq1_mask: RegVec::new(s),
            iq1_data: RegVec::new(s),
            iq1_id: RegVec::new(s),
            or_valid: RegVec::new(p),
            or_new: RegVec::new(p),
            or_sm: RegVec::new(p),
            or_write: RegVec::new(p),
            or_line: RegVec::new(p),
            or_mask: RegVec::new(p),
            or_data: RegVec::new(p),
            or_id: RegVec::new(p),
            rp_after: RegVec::new(p * s),
            rq_v0: RegVec::new(p),
            rq_v1: RegVec::new(p),
            rq0_sm: RegVec::new(p),
            rq0_write: RegVec::new(p),
            rq0_id: RegVec::new(p),
            rq0_data: RegVec::new(p),
            rq1_sm: RegVec::new(p),
            rq1_write: RegVec::new(p),
            rq1_id: RegVec::new(p),
            rq1_data: RegVec::new(p),
            ro_valid: RegVec::new(s),
            ro_new: RegVec::new(s),
            ro_part: RegVec::new(s),
            ro_write: RegVec::new(s),
            ro_id: RegVec::new(s),
            ro_data: RegVec::new(s),
            sp_after: RegVec::new(s * p),
            req_rr: RoundRobinPick::groups(p, s),
            req_mux_line: OneHotMux::groups(p, s, 1),
            req_mux_mask: OneHotMux::groups(p, s, 1),
            req_mux_data: OneHotMux::groups(p, s, 1),
            req_mux_id: OneHotMux::groups(p, s, 1),
            req_mux_sm: OneHotMux::groups(p, s, 1),
            gnt: sigs(p),
            ofree: sigs(p),
            pop: sigs(s),
            push: sigs(s),
            win_after: sigs(p * s),
            resp_rr: RoundRobinPick::groups(s, p),
            resp_mux_id: OneHotMux::groups(s, p, 1),
            resp_mux_data: OneHotMux::groups(s, p, 1),
            resp_mux_part: OneHotMux::groups(s, p, 1),
            rgnt: sigs(s),
            rfree: sigs(s),
            rpop: sigs(p),
            rpush: sigs(p),
            rowned: sigs(p),
            rwin_after: sigs(s * p),
            k_pmask: Constant::new(((p - 1) as u64).into()),
            k_part: (0..p).map(|i| Constant::new((i as u64).into())).collect(),
            k_sidx: (0..s).map(|i| Constant::new((i as u64).into())).collect(),
            k_pidx: (0..p).map(|i| Constant::new((i as u64).into())).collect(),
            _s: s,
            _p: p,
            _s_m1: s - 1,
            _p_m1: p - 1,
        }
    }
}

impl<const LW: usize, const B: usize, const DB: usize> Logic for Crossbar<LW, B, DB> {
    // Index arithmetic inside `[...]` may only use loop variables, so `S` and `P` are bound
    // to single-iteration loops (`ns`, `np`).
    #[hdl_gen]
    fn update(&mut self) {
        for ns in self._s..(self._s + 1) {
            for np in self._p..(self._p + 1) {
                self.iq_v0.clock.next = self.clock.val();
                self.iq_v1.clock.next = self.clock.val();
                self.iq0_write.clock.next = self.clock.val();
                self.iq0_line.clock.next = self.clock.val();
                self.iq0_mask.clock.next = self.clock.val();
                self.iq0_data.clock.next = self.clock.val();
                self.iq0_id.clock.next = self.clock.val();
                self.iq1_write.clock.next = self.clock.val();
                self.iq1_line.clock.next = self.clock.val();
                self.iq1_mask.clock.next = self.clock.val();
                self.iq1_data.clock.next = self.clock.val();
                self.iq1_id.clock.next = self.clock.val();
                self.or_valid.clock.next = self.clock.val();
                self.or_new.clock.next = self.clock.val();
                self.or_sm.clock.next = self.clock.val();
                self.or_write.clock.next = self.clock.val();
                self.or_line.clock.next = self.clock.val();
                self.or_mask.clock.next = self.clock.val();
                self.or_data.clock.next = self.clock.val();
                self.or_id.clock.next = self.clock.val();
                self.rp_after.clock.next = self.clock.val();
                self.rq_v0.clock.next = self.clock.val();
                self.rq_v1.clock.next = self.clock.val();
                self.rq0_sm.clock.next = self.clock.val();
                self.rq0_write.clock.next = self.clock.val();
                self.rq0_id.clock.next = self.clock.val();
                self.rq0_data.clock.next = self.clock.val();
                self.rq1_sm.clock.next = self.clock.val();
                self.rq1_write.clock.next = self.clock.val();
                self.rq1_id.clock.next = self.clock.val();
                self.rq1_data.clock.next = self.clock.val();
                self.ro_valid.clock.next = self.clock.val();
                self.ro_new.clock.next = self.clock.val();
                self.ro_part.clock.next = self.clock.val();
                self.ro_write.clock.next = self.clock.val();
                self.ro_id.clock.next = self.clock.val();
                self.ro_data.clock.next = self.clock.val();
                self.sp_after.clock.next = self.clock.val();

                // ================= outputs: registers gated by reset =================
                for s in 0..self._s {
                    self.sm_req_ready[s].next = !self.iq_v1.q[s].val() & !self.reset.val();
                    self.sm_resp_valid[s].next = self.ro_valid.q[s].val() & !self.reset.val();
                    self.sm_resp_write[s].next = self.ro_write.q[s].val();
                    self.sm_resp_id[s].next = self.ro_id.q[s].val();
                    self.sm_resp_data[s].next = self.ro_data.q[s].val();
                    self.resp_gnt[s].next = self.ro_new.q[s].val() & !self.reset.val();
                    self.resp_gnt_part[s].next = self.ro_part.q[s].val();
                }
                for p in 0..self._p {
                    self.part_req_valid[p].next = self.or_valid.q[p].val() & !self.reset.val();
                    self.part_req_sm[p].next = self.or_sm.q[p].val();
                    self.part_req_write[p].next = self.or_write.q[p].val();
                    self.part_req_line[p].next = self.or_line.q[p].val();
                    self.part_req_mask[p].next = self.or_mask.q[p].val();
                    self.part_req_data[p].next = self.or_data.q[p].val();
                    self.part_req_id[p].next = self.or_id.q[p].val();
                    self.part_resp_ready[p].next = !self.rq_v1.q[p].val() & !self.reset.val();
                    self.req_gnt[p].next = self.or_new.q[p].val() & !self.reset.val();
                }

                // ================= request network =================
                // want[p][s]: the head of IQ[s] is for partition p (its line's low PB bits).
                for p in 0..self._p {
                    for s in 0..self._s {
                        self.req_rr.req[p * ns + s].next = self.iq_v0.q[s].val()
                            & ((self.iq0_line.q[s].val() & self.k_pmask.val())
                                == self.k_part[p].val());
                        self.req_rr.from[p * ns + s].next = self.rp_after.q[p * ns + s].val();
                    }
                    self.ofree[p].next = !self.or_valid.q[p].val() | self.part_req_ready[p].val();
                    self.gnt[p].next = self.req_rr.any[p].val() & self.ofree[p].val();
                    // The winner's head, through one-hot multiplexers.
                    for s in 0..self._s {
                        self.req_mux_line.sel[p * ns + s].next =
                            self.req_rr.grant[p * ns + s].val();
                        self.req_mux_mask.sel[p * ns + s].next =
                            self.req_rr.grant[p * ns + s].val();
                        self.req_mux_data.sel[p * ns + s].next =
                            self.req_rr.grant[p * ns + s].val();
                        self.req_mux_id.sel[p * ns + s].next = self.req_rr.grant[p * ns + s].val();
                        self.req_mux_sm.sel[p * ns + s].next = self.req_rr.grant[p * ns + s].val();
                        self.req_mux_line.d[p * ns + s].next = self.iq0_line.q[s].val();
                        self.req_mux_mask.d[p * ns + s].next = self.iq0_mask.q[s].val();
                        self.req_mux_data.d[p * ns + s].next = self.iq0_data.q[s].val();
                        self.req_mux_id.d[p * ns + s].next = self.iq0_id.q[s].val();
                        self.req_mux_sm.d[p * ns + s].next = self.k_sidx[s].val();
                    }
                    // The next pointer mask: the SMs after the winner.
                    self.win_after[p * ns].next = false;
                    for s in 0..self._s_m1 {
                        self.win_after[p * ns + s + 1].next =
                            self.win_after[p * ns + s].val() | self.req_rr.grant[p * ns + s].val();
                    }
                    // OR[p]: loaded on a grant, emptied by a transfer, else held.
                    self.or_valid.d[p].next =
                        self.or_valid.q[p].val() & !self.part_req_ready[p].val();
                    self.or_new.d[p].next = self.gnt[p].val();
                    self.or_sm.d[p].next = self.or_sm.q[p].val();
                    self.or_write.d[p].next = self.or_write.q[p].val();
                    self.or_line.d[p].next = self.or_line.q[p].val();
                    self.or_mask.d[p].next = self.or_mask.q[p].val();
                    self.or_data.d[p].next = self.or_data.q[p].val();
                    self.or_id.d[p].next = self.or_id.q[p].val();
                    for s in 0..self._s {
                        self.rp_after.d[p * ns + s].next = self.rp_after.q[p * ns + s].val();
                    }
                    if self.gnt[p].val() {
                        self.or_valid.d[p].next = true;
                        self.or_sm.d[p].next = self.req_mux_sm.q[p].val();
                        self.or_line.d[p].next = self.req_mux_line.q[p].val();
                        self.or_mask.d[p].next = self.req_mux_mask.q[p].val();
                        self.or_data.d[p].next = self.req_mux_data.q[p].val();
                        self.or_id.d[p].next = self.req_mux_id.q[p].val();
                        for s in 0..self._s {
                            if self.req_rr.grant[p * ns + s].val() {
                                self.or_write.d[p].next = self.iq0_write.q[s].val();
                            }
                            self.rp_after.d[p * ns + s].next = self.win_after[p * ns + s].val();
                        }
                    }
                    if self.reset.val() {
                        self.or_valid.d[p].next = false;
                        self.or_new.d[p].next = false;
                        for s in 0..self._s {
                            self.rp_after.d[p * ns + s].next = false;
                        }
                    }
                }
                // IQ[s]: pop the granted head, push behind what remains.
                for s in 0..self._s {
                    self.pop[s].next = false;
                    for p in 0..self._p {
                        if self.req_rr.grant[p * ns + s].val() & self.gnt[p].val() {
                            self.pop[s].next = true;
                        }
                    }
                    self.push[s].next = self.sm_req_valid[s].val() & !self.iq_v1.q[s].val();
                    self.iq0_write.d[s].next = self.iq0_write.q[s].val();
                    self.iq0_line.d[s].next = self.iq0_line.q[s].val();
                    self.iq0_mask.d[s].next = self.iq0_mask.q[s].val();
                    self.iq0_data.d[s].next = self.iq0_data.q[s].val();
                    self.iq0_id.d[s].next = self.iq0_id.q[s].val();
                    self.iq1_write.d[s].next = self.iq1_write.q[s].val();
                    self.iq1_line.d[s].next = self.iq1_line.q[s].val();
                    self.iq1_mask.d[s].next = self.iq1_mask.q[s].val();
                    self.iq1_data.d[s].next = self.iq1_data.q[s].val();
                    self.iq1_id.d[s].next = self.iq1_id.q[s].val();
                    if self.pop[s].val() & self.iq_v1.q[s].val() {
                        // e1 moves to e0.
                        self.iq0_write.d[s].next = self.iq1_write.q[s].val();
                        self.iq0_line.d[s].next = self.iq1_line.q[s].val();
                        self.iq0_mask.d[s].next = self.iq1_mask.q[s].val();
                        self.iq0_data.d[s].next = self.iq1_data.q[s].val();
                        self.iq0_id.d[s].next = self.iq1_id.q[s].val();
                    }
                    if self.push[s].val() & (!self.iq_v0.q[s].val() | self.pop[s].val()) {
                        // Into an empty queue, or behind nothing after the pop (iq_n was 1).
                        self.iq0_write.d[s].next = self.sm_req_write[s].val();
                        self.iq0_line.d[s].next = self.sm_req_line[s].val();
                        self.iq0_mask.d[s].next = self.sm_req_mask[s].val();
                        self.iq0_data.d[s].next = self.sm_req_data[s].val();
                        self.iq0_id.d[s].next = self.sm_req_id[s].val();
                    }
                    if self.push[s].val() & self.iq_v0.q[s].val() & !self.pop[s].val() {
                        self.iq1_write.d[s].next = self.sm_req_write[s].val();
                        self.iq1_line.d[s].next = self.sm_req_line[s].val();
                        self.iq1_mask.d[s].next = self.sm_req_mask[s].val();
                        self.iq1_data.d[s].next = self.sm_req_data[s].val();
                        self.iq1_id.d[s].next = self.sm_req_id[s].val();
                    }
                    // iq_n ← iq_n − pop + push (push only when iq_n < 2).
                    self.iq_v0.d[s].next = self.iq_v1.q[s].val()
                        | self.push[s].val()
                        | (self.iq_v0.q[s].val() & !self.pop[s].val());
                    self.iq_v1.d[s].next = !self.pop[s].val()
                        & (self.iq_v1.q[s].val() | (self.iq_v0.q[s].val() & self.push[s].val()));
                    if self.reset.val() {
                        self.iq_v0.d[s].next = false;
                        self.iq_v1.d[s].next = false;
                    }
                }

                // ================= response network =================
                // rwant[s][p]: the head of RQ[p] is for SM s; a head naming no SM is dropped.
                for p in 0..self._p {
                    self.rowned[p].next = false;
                    for s in 0..self._s {
                        if self.rq0_sm.q[p].val() == self.k_sidx[s].val() {
                            self.rowned[p].next = true;
                        }
                    }
                }
                for s in 0..self._s {
                    for p in 0..self._p {
                        self.resp_rr.req[s * np + p].next = self.rq_v0.q[p].val()
                            & (self.rq0_sm.q[p].val() == self.k_sidx[s].val());
                        self.resp_rr.from[s * np + p].next = self.sp_after.q[s * np + p].val();
                    }
                    self.rfree[s].next = !self.ro_valid.q[s].val() | self.sm_resp_ready[s].val();
                    self.rgnt[s].next = self.resp_rr.any[s].val() & self.rfree[s].val();
                    for p in 0..self._p {
                        self.resp_mux_id.sel[s * np + p].next =
                            self.resp_rr.grant[s * np + p].val();
                        self.resp_mux_data.sel[s * np + p].next =
                            self.resp_rr.grant[s * np + p].val();
                        self.resp_mux_part.sel[s * np + p].next =
                            self.resp_rr.grant[s * np + p].val();
                        self.resp_mux_id.d[s * np + p].next = self.rq0_id.q[p].val();
                        self.resp_mux_data.d[s * np + p].next = self.rq0_data.q[p].val();
                        self.resp_mux_part.d[s * np + p].next = self.k_pidx[p].val();
                    }
                    self.rwin_after[s * np].next = false;
                    for p in 0..self._p_m1 {
                        self.rwin_after[s * np + p + 1].next = self.rwin_after[s * np + p].val()
                            | self.resp_rr.grant[s * np + p].val();
                    }
                    // RO[s]: loaded on a grant, emptied by a transfer, else held.
                    self.ro_valid.d[s].next =
                        self.ro_valid.q[s].val() & !self.sm_resp_ready[s].val();
                    self.ro_new.d[s].next = self.rgnt[s].val();
                    self.ro_part.d[s].next = self.ro_part.q[s].val();
                    self.ro_write.d[s].next = self.ro_write.q[s].val();
                    self.ro_id.d[s].next = self.ro_id.q[s].val();
                    self.ro_data.d[s].next = self.ro_data.q[s].val();
                    for p in 0..self._p {
                        self.sp_after.d[s * np + p].next = self.sp_after.q[s * np + p].val();
                    }
                    if self.rgnt[s].val() {
                        self.ro_valid.d[s].next = true;
                        self.ro_part.d[s].next = self.resp_mux_part.q[s].val();
                        self.ro_id.d[s].next = self.resp_mux_id.q[s].val();
                        self.ro_data.d[s].next = self.resp_mux_data.q[s].val();
                        for p in 0..self._p {
                            if self.resp_rr.grant[s * np + p].val() {
                                self.ro_write.d[s].next = self.rq0_write.q[p].val();
                            }
                            self.sp_after.d[s * np + p].next = self.rwin_after[s * np + p].val();
                        }
                    }
                    if self.reset.val() {
                        self.ro_valid.d[s].next = false;
                        self.ro_new.d[s].next = false;
                        for p in 0..self._p {
                            self.sp_after.d[s * np + p].next = false;
                        }
                    }
                }
                // RQ[p]: pop the granted (or dropped) head, push behind what remains.
                for p in 0..self._p {
                    self.rpop[p].next = self.rq_v0.q[p].val() & !self.rowned[p].val();
                    for s in 0..self._s {
                        if self.resp_rr.grant[s * np + p].val() & self.rgnt[s].val() {
                            self.rpop[p].next = true;
                        }
                    }
                    self.rpush[p].next = self.part_resp_valid[p].val() & !self.rq_v1.q[p].val();
                    self.rq0_sm.d[p].next = self.rq0_sm.q[p].val();
                    self.rq0_write.d[p].next = self.rq0_write.q[p].val();
                    self.rq0_id.d[p].next = self.rq0_id.q[p].val();
                    self.rq0_data.d[p].next = self.rq0_data.q[p].val();
                    self.rq1_sm.d[p].next = self.rq1_sm.q[p].val();
                    self.rq1_write.d[p].next = self.rq1_write.q[p].val();
                    self.rq1_id.d[p].next = self.rq1_id.q[p].val();
                    self.rq1_data.d[p].next = self.rq1_data.q[p].val();
                    if self.rpop[p].val() & self.rq_v1.q[p].val() {
                        self.rq0_sm.d[p].next = self.rq1_sm.q[p].val();
                        self.rq0_write.d[p].next = self.rq1_write.q[p].val();
                        self.rq0_id.d[p].next = self.rq1_id.q[p].val();
                        self.rq0_data.d[p].next = self.rq1_data.q[p].val();
                    }
                    if self.rpush[p].val() & (!self.rq_v0.q[p].val() | self.rpop[p].val()) {
                        self.rq0_sm.d[p].next = self.part_resp_sm[p].val();
                        self.rq0_write.d[p].next = self.part_resp_write[p].val();
                        self.rq0_id.d[p].next = self.part_resp_id[p].val();
                        self.rq0_data.d[p].next = self.part_resp_data[p].val();
                    }
                    if self.rpush[p].val() & self.rq_v0.q[p].val() & !self.rpop[p].val() {
                        self.rq1_sm.d[p].next = self.part_resp_sm[p].val();
                        self.rq1_write.d[p].next = self.part_resp_write[p].val();
                        self.rq1_id.d[p].next = self.part_resp_id[p].val();
                        self.rq1_data.d[p].next = self.part_resp_data[p].val();
                    }
                    self.rq_v0.d[p].next = self.rq_v1.q[p].val()
                        | self.rpush[p].val()
                        | (self.rq_v0.q[p].val() & !self.rpop[p].val());
                    self.rq_v1.d[p].next = !self.rpop[p].val()
                        & (self.rq_v1.q[p].val() | (self.rq_v0.q[p].val() & self.rpush[p].val()));
                    if self.reset.val() {
                        self.rq_v0.d[p].next = false;
                        self.rq_v1.d[p].next = false;
                    }
                }
            }
        }
    }
}

/// The ports of the emitted top module: name, is an input, width per port index (`SW` /
/// `PW` for the indices), and whether it is one per SM (else one per partition).
fn top_ports(lw: usize, b: usize, sw: usize, pw: usize) -> Vec<(&'static str, bool, usize, bool)> {
    let db = 8 * b;
    let i = ID_BITS;
    vec![
        ("sm_req_valid", true, 1, true),
        ("sm_req_ready", false, 1, true),
        ("sm_req_write", true, 1, true),
        ("sm_req_line", true, lw, true),
        ("sm_req_mask", true, b, true),
        ("sm_req_data", true, db, true),
        ("sm_req_id", true, i, true),
        ("sm_resp_valid", false, 1, true),
        ("sm_resp_ready", true, 1, true),
        ("sm_resp_write", false, 1, true),
        ("sm_resp_id", false, i, true),
        ("sm_resp_data", false, db, true),
        ("resp_gnt", false, 1, true),
        ("resp_gnt_part", false, pw, true),
        ("part_req_valid", false, 1, false),
        ("part_req_ready", true, 1, false),
        ("part_req_sm", false, sw, false),
        ("part_req_write", false, 1, false),
        ("part_req_line", false, lw, false),
        ("part_req_mask", false, b, false),
        ("part_req_data", false, db, false),
        ("part_req_id", false, i, false),
        ("part_resp_valid", true, 1, false),
        ("part_resp_ready", false, 1, false),
        ("part_resp_sm", true, sw, false),
        ("part_resp_write", true, 1, false),
        ("part_resp_id", true, i, false),
        ("part_resp_data", true, db, false),
        ("req_gnt", false, 1, false),
    ]
}

/// The top module `name` around the core `core` (the [`Crossbar`] block): the same ports,
/// with the SM and partition indices at the page's widths `SW` / `PW` (zero-extended into the
/// core, the core's upper bits, always 0, dropped).
fn wrapper_verilog(name: &str, core: &str, s: usize, p: usize, lw: usize, b: usize) -> String {
    let (sw, pw) = (index_width(s), index_width(p));
    let ports = top_ports(lw, b, sw, pw);
    let mut names = vec!["clock".to_string(), "reset".to_string()];
    let mut decls = String::from("    input wire clock;\n    input wire reset;\n");
    let mut conns = vec![
        "        .clock(clock)".to_string(),
        "        .reset(reset)".to_string(),
    ];
    let mut body = String::new();
    let mut unused = Vec::new();
    for &(port, input, width, per_sm) in &ports {
        let narrow = matches!(port, "resp_gnt_part" | "part_req_sm" | "part_resp_sm");
        for i in 0..if per_sm { s } else { p } {
            let n = format!("{port}${i}");
            let range = if width > 1 {
                format!("[{}:0] ", width - 1)
            } else {
                String::new()
            };
            decls.push_str(&format!(
                "    {} wire {range}{n};\n",
                if input { "input" } else { "output" }
            ));
            let conn = if !narrow {
                n.clone()
            } else if input {
                // Zero extension into the core.
                if width < INDEX_BITS {
                    format!("{{{}'d0, {n}}}", INDEX_BITS - width)
                } else {
                    n.clone()
                }
            } else {
                let w = format!("core_{n}");
                body.push_str(&format!(
                    "    wire [{}:0] {w};\n    assign {n} = {w}[{}:0];\n",
                    INDEX_BITS - 1,
                    width - 1
                ));
                if width < INDEX_BITS {
                    unused.push(format!("{w}[{}:{width}]", INDEX_BITS - 1));
                }
                w
            };
            conns.push(format!("        .{n}({conn})"));
            names.push(n);
        }
    }
    if !unused.is_empty() {
        // The core's index bits above SW / PW are always 0 (Verilator exempts `*unused*`).
        body.push_str(&format!(
            "    wire unused_index_bits = &{{1'b0, {}}};\n",
            unused.join(", ")
        ));
    }
    format!(
        "\n\n// The crossbar of {s} SMs x {p} partitions (docs/microarch/crossbar.md): the ports \
         at the page's widths around the core `{core}`.\nmodule {name}({});\n{decls}{body}    \
         {core} core(\n{}\n    );\nendmodule\n",
        names.join(","),
        conns.join(",\n")
    )
}

/// Verilog of the crossbar of `sms` × `partitions` ports for lines of `line_bytes` bytes, top
/// module `name` (its core is the module `{name}_core`).
pub fn crossbar_verilog_with(
    sms: usize,
    partitions: usize,
    line_bytes: u32,
    name: &str,
) -> Result<String, HdlError> {
    fn emit<const LW: usize, const B: usize, const DB: usize>(
        s: usize,
        p: usize,
        name: &str,
    ) -> Result<String, HdlError> {
        let mut uut = Crossbar::<LW, B, DB>::new(s, p);
        let core = format!("{name}_core");
        let mut v = rename_top(&verilog_of("crossbar", &mut uut)?, &core);
        v.push_str(&wrapper_verilog(name, &core, s, p, LW, B));
        Ok(v)
    }
    let err = |message: String| HdlError {
        unit: "crossbar".into(),
        message,
    };
    if !(1..=64).contains(&sms) {
        return Err(err(format!("sms = {sms}: a value from 1 to 64 is needed")));
    }
    if !(partitions.is_power_of_two() && partitions <= 64) {
        return Err(err(format!(
            "partitions = {partitions}: a power of two from 1 to 64 is needed"
        )));
    }
    let (s, p) = (sms, partitions);
    match line_bytes {
        4 => emit::<30, 4, 32>(s, p, name),
        8 => emit::<29, 8, 64>(s, p, name),
        16 => emit::<28, 16, 128>(s, p, name),
        32 => emit::<27, 32, 256>(s, p, name),
        64 => emit::<26, 64, 512>(s, p, name),
        128 => emit::<25, 128, 1024>(s, p, name),
        256 => emit::<24, 256, 2048>(s, p, name),
        512 => emit::<23, 512, 4096>(s, p, name),
        1024 => emit::<22, 1024, 8192>(s, p, name),
        n => Err(err(format!(
            "line_bytes = {n}: a power of two from 4 to 1024 is needed"
        ))),
    }
}

/// Verilog of the crossbar of `cfg` (`sms`, `partitions`, `line_bytes`), top module `name`.
pub fn crossbar_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    crossbar_verilog_with(
        cfg.sms as usize,
        cfg.partitions as usize,
        cfg.line_bytes,
        name,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_widths_are_the_pages() {
        // SW = max(1, ⌈log2 S⌉), PW = max(1, log2 P).
        let w: Vec<usize> = [1, 2, 3, 4, 5, 8, 9, 64]
            .iter()
            .map(|&n| index_width(n))
            .collect();
        assert_eq!(w, [1, 1, 2, 2, 3, 3, 4, 6]);
    }

    #[test]
    fn the_top_narrows_the_indices() {
        let v = wrapper_verilog("x", "x_core", 3, 4, 28, 16);
        assert!(v.contains("output wire [1:0] part_req_sm$3;"), "{v}");
        assert!(v.contains(".part_resp_sm$0({4'd0, part_resp_sm$0})"), "{v}");
        assert!(
            v.contains("assign resp_gnt_part$2 = core_resp_gnt_part$2[1:0];"),
            "{v}"
        );
        assert!(v.contains("output wire [127:0] sm_resp_data$2;"), "{v}");
    }
}
