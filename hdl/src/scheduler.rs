//! Warp scheduler: picks at most one warp per cycle among `ready[w]` (book §3.1.3).
//!
//! The policy is a generation-time parameter (`cfg.scheduler`):
//!
//! * **LRR** (loose round-robin): the first ready warp after the last issued one, in warp-number
//!   order, wrapping around.
//! * **GTO** (greedy-then-oldest): the last issued warp while it stays ready, else the oldest
//!   ready warp. Age is launch order: a `launch[w]` pulse makes warp `w` the youngest warp (warps
//!   launched in the same cycle: the lower number is older); after reset the order is the warp
//!   number (warp 0 oldest). Kept in an age matrix: one row per warp, bit j of row i = i is
//!   older than j (W·(W-1) flip-flops after synthesis: the diagonal is constant).
//! * **Two-level**: an active set of `cfg.two_level_active` warps scheduled LRR (only active warps
//!   can be granted). Each cycle at most one swap: the lowest-numbered active warp with
//!   `long_stall` leaves the set and the pending warp without `long_stall` that has been pending
//!   longest enters it, both at the clock edge; no swap when either does not exist. Pending order
//!   is kept in a matrix like GTO's age; after reset warps `0..A-1` are active and the pending
//!   ones are ordered by number.
//!
//! The pick is combinational from the registered state and this cycle's inputs; the state
//! changes only at the clock edge, and the pointer / greedy warp only when `issued` says the
//! grant was taken. `reset` is synchronous. Ports that a policy does not use do not exist in its
//! Verilog (`launch` is GTO only, `long_stall` and `active` are two-level only): their `Vec`s are
//! empty. Exact cycle behaviour: docs/microarch/scheduler.md.

use rust_hdl::prelude::*;
use warpforge_config::{GpuConfig, SchedulerPolicy};

use crate::one_hot::{OneHotMux, RoundRobinPick};
use crate::scoreboard::RegVec;
pub use crate::scoreboard::{WarpId, WARP_BITS};
use crate::{rename_top, verilog_of, HdlError};

/// The warp scheduler of one SM.
#[derive(LogicBlock)]
pub struct Scheduler {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Per warp: the warp can issue this cycle (I-buffer head valid, scoreboard ok, unit free).
    pub ready: Vec<Signal<In, Bit>>,
    /// The grant of this cycle was taken (updates the round-robin pointer / greedy warp).
    pub issued: Signal<In, Bit>,
    /// GTO only: per warp, the warp is (re)launched this cycle and becomes the youngest.
    pub launch: Vec<Signal<In, Bit>>,
    /// Two-level only: per warp, the warp waits for a long-latency event (or cannot run).
    pub long_stall: Vec<Signal<In, Bit>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 when `grant_valid` is low).
    pub grant_warp: Signal<Out, WarpId>,
    /// One-hot form of the grant (all zero when `grant_valid` is low).
    pub grant: Vec<Signal<Out, Bit>>,
    /// Two-level only: per warp, the warp is in the active set.
    pub active: Vec<Signal<Out, Bit>>,

    /// Last issued warp (LRR pointer / GTO greedy warp), one-hot: `last_oh[w]` is 1 for that
    /// warp only (GTO's greedy test is then one AND per warp, no compare of warp numbers).
    last_oh: RegVec<Bit>,
    /// LRR / two-level: the round-robin pointer as a mask, `after[w]` = `w > last` (loaded
    /// with the OR of the winner's lower bits: no compare in front of the pick).
    after: RegVec<Bit>,
    /// GTO only (length 1): `last` holds an issued warp (false after reset).
    greedy: RegVec<Bit>,
    /// GTO / two-level: the order matrix, one row per warp, bit j of row i = warp i is older
    /// than warp j (GTO: launch age; two-level: time since entering the pending set). Rows are
    /// [`ROW_BITS`] wide; bits of warps the unit does not have stay 0. Empty for LRR.
    order: RegVec<Row>,
    /// Two-level only: active-set membership.
    act: RegVec<Bit>,

    /// Warp numbers as constants of the port width.
    wid: Vec<Constant<WarpId>>,
    /// GTO / two-level: `onehot[w]` = bit w; `younger[i]` = bits i+1..W (the reset row).
    onehot: Vec<Constant<Row>>,
    younger: Vec<Constant<Row>>,
    /// GTO / two-level (length 1): all-zero row.
    no_rows: Vec<Constant<Row>>,
    /// Two-level: reset value of `act` (w < A).
    act_init: Vec<Constant<Bit>>,
    /// Reset value of `last_oh`: warp W-1, so the first LRR grant is the lowest ready warp
    /// (and `after` is all 0).
    last_init: Vec<Constant<Bit>>,
    zero: Constant<WarpId>,

    // Combinational locals.
    found: Signal<Local, Bit>,
    sel: Signal<Local, WarpId>,
    pick: Vec<Signal<Local, Bit>>,
    /// The round-robin choice (LRR, two-level) or the first-one of the GTO order's oldest, and
    /// the chosen warp's number, as flat one-hot logic (hdl/src/one_hot.rs).
    rr_pick: RoundRobinPick,
    sel_mux: OneHotMux<WARP_BITS>,
    /// LRR / two-level: can be granted (ready, and active for two-level).
    elig: Vec<Signal<Local, Bit>>,
    /// GTO (length 1): the greedy warp is ready.
    ghit: Vec<Signal<Local, Bit>>,
    /// LRR / two-level: the next `after` mask (the winner's lower bits ORed).
    after_n: Vec<Signal<Local, Bit>>,
    /// GTO / two-level: requesters of the order matrix (GTO: ready; two-level: pending and not
    /// long-stalled), the oldest of them (one-hot), and the warps that become the youngest at
    /// the edge (GTO: launched; two-level: the demoted warp; both: all warps on reset).
    req: Vec<Signal<Local, Bit>>,
    first: Vec<Signal<Local, Bit>>,
    young: Vec<Signal<Local, Bit>>,
    /// GTO / two-level (length 1 each): `req` and `young` as rows.
    req_row: Vec<Signal<Local, Row>>,
    young_row: Vec<Signal<Local, Row>>,
    /// Two-level: the active warp that leaves the set if a swap happens (one-hot or none).
    dem: Vec<Signal<Local, Bit>>,
    /// Two-level (length 1 each): a demotion candidate exists; a swap happens.
    dfound: Vec<Signal<Local, Bit>>,
    swap: Vec<Signal<Local, Bit>>,

    _warps: usize,
    /// 1 for the policy that is generated, else 0 (loop bounds used as generate-if).
    _lrr: usize,
    _gto: usize,
    _two: usize,
    /// `_lrr + _two` (round-robin pick).
    _rr: usize,
    /// `_gto + _two` (order matrix).
    _ord: usize,
}

/// Width of an order-matrix row: the largest number of warps (`GpuConfig::validate`).
pub const ROW_BITS: usize = 64;
/// One row of an order matrix.
pub type Row = Bits<ROW_BITS>;

/// Bits `0..n` set.
fn row_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// `n` default values.
fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl Scheduler {
    /// The scheduler for `cfg.warps` warps with `cfg.scheduler` (and `cfg.two_level_active`).
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_policy(
            cfg.warps as usize,
            cfg.scheduler,
            cfg.two_level_active as usize,
        )
    }

    /// A scheduler for `warps` warps (1..=64); `active` is the two-level active-set size
    /// (clamped to `warps`, ignored by the other policies).
    pub fn with_policy(warps: usize, policy: SchedulerPolicy, active: usize) -> Self {
        assert!(
            (1..=1 << WARP_BITS).contains(&warps),
            "scheduler: warps must be 1..=64"
        );
        assert!(
            active >= 1,
            "scheduler: the active set needs at least one warp"
        );
        let active = active.min(warps);
        let w = warps;
        let gto = policy == SchedulerPolicy::Gto;
        let two = policy == SchedulerPolicy::TwoLevel;
        let lrr = policy == SchedulerPolicy::Lrr;
        let n = |on: bool, len: usize| if on { len } else { 0 };
        Scheduler {
            clock: Default::default(),
            reset: Default::default(),
            ready: vec_of(w),
            issued: Default::default(),
            launch: vec_of(n(gto, w)),
            long_stall: vec_of(n(two, w)),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            grant: vec_of(w),
            active: vec_of(n(two, w)),
            last_oh: RegVec::new(w),
            after: RegVec::new(n(lrr || two, w)),
            greedy: RegVec::new(n(gto, 1)),
            order: RegVec::masked(n(gto || two, w), Row::from(row_mask(w))),
            act: RegVec::new(n(two, w)),
            wid: (0..w).map(|i| Constant::new((i as u64).into())).collect(),
            onehot: (0..n(gto || two, w))
                .map(|i| Constant::new(Row::from(1u64 << i)))
                .collect(),
            younger: (0..n(gto || two, w))
                .map(|i| Constant::new(Row::from(row_mask(w) & !row_mask(i + 1))))
                .collect(),
            no_rows: (0..n(gto || two, 1))
                .map(|_| Constant::new(Row::from(0u64)))
                .collect(),
            act_init: (0..n(two, w)).map(|i| Constant::new(i < active)).collect(),
            last_init: (0..w).map(|i| Constant::new(i == w - 1)).collect(),
            zero: Constant::new(0.into()),
            found: Default::default(),
            sel: Default::default(),
            pick: vec_of(w),
            rr_pick: RoundRobinPick::groups(n(lrr || two, 1), w),
            sel_mux: OneHotMux::new(w, 1),
            elig: vec_of(n(lrr || two, w)),
            ghit: vec_of(n(gto, 1)),
            after_n: vec_of(n(lrr || two, w)),
            req: vec_of(n(gto || two, w)),
            first: vec_of(n(gto || two, w)),
            young: vec_of(n(gto || two, w)),
            req_row: vec_of(n(gto || two, 1)),
            young_row: vec_of(n(gto || two, 1)),
            dem: vec_of(n(two, w)),
            dfound: vec_of(n(two, 1)),
            swap: vec_of(n(two, 1)),
            _warps: w,
            _lrr: usize::from(lrr),
            _gto: usize::from(gto),
            _two: usize::from(two),
            _rr: usize::from(lrr || two),
            _ord: usize::from(gto || two),
        }
    }
}

impl Logic for Scheduler {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- registered state: clocks and hold ----
        self.last_oh.clock.next = self.clock.val();
        self.after.clock.next = self.clock.val();
        for w in 0..self._warps {
            self.last_oh.d[w].next = self.last_oh.q[w].val();
        }
        self.greedy.clock.next = self.clock.val();
        self.order.clock.next = self.clock.val();
        self.act.clock.next = self.clock.val();
        self.found.next = false;
        self.sel.next = self.zero.val();
        for w in 0..self._warps {
            self.pick[w].next = false;
        }

        // ---- LRR and two-level: first eligible warp after `last`, wrapping ----
        for _l in 0..self._lrr {
            for w in 0..self._warps {
                self.elig[w].next = self.ready[w].val();
            }
        }
        for _t in 0..self._two {
            for w in 0..self._warps {
                self.elig[w].next = self.ready[w].val() & self.act.q[w].val();
            }
        }
        for _r in 0..self._rr {
            for w in 0..self._warps {
                self.rr_pick.req[w].next = self.elig[w].val();
                self.rr_pick.from[w].next = self.after.q[w].val();
            }
            for w in 0..self._warps {
                self.pick[w].next = self.rr_pick.grant[w].val();
            }
            self.found.next = self.rr_pick.any[0].val();
        }

        // ---- GTO: the greedy warp if ready, else the oldest ready warp ----
        for g in 0..self._gto {
            self.greedy.d[g].next = self.greedy.q[g].val();
            self.ghit[g].next = false;
            for w in 0..self._warps {
                self.req[w].next = self.ready[w].val();
                self.ghit[g].next = self.ghit[g].val()
                    | (self.ready[w].val() & self.last_oh.q[w].val() & self.greedy.q[g].val());
            }
        }
        // ---- two-level: swap candidates ----
        for t in 0..self._two {
            self.dfound[t].next = false;
            for w in 0..self._warps {
                // Lowest-numbered active warp with a long stall.
                self.dem[w].next =
                    self.act.q[w].val() & self.long_stall[w].val() & !self.dfound[t].val();
                self.dfound[t].next =
                    self.dfound[t].val() | (self.act.q[w].val() & self.long_stall[w].val());
                // Promotion candidates: pending and not long-stalled (oldest picked below).
                self.req[w].next = !self.act.q[w].val() & !self.long_stall[w].val();
            }
        }
        // ---- order matrix (GTO age / two-level pending order): the oldest requester is the
        // one whose row has every other requester's bit set ----
        for o in 0..self._ord {
            self.req_row[o].next = self.no_rows[o].val();
            for w in 0..self._warps {
                if self.req[w].val() {
                    self.req_row[o].next = self.req_row[o].val() | self.onehot[w].val();
                }
            }
            for w in 0..self._warps {
                self.first[w].next = self.req[w].val()
                    & !(self.req_row[o].val() & !(self.order.q[w].val() | self.onehot[w].val()))
                        .any();
            }
        }
        for g in 0..self._gto {
            // `first` is one-hot (the order is total) and some warp is oldest when any is
            // ready: no first-one pass after it.
            for w in 0..self._warps {
                if self.ghit[g].val() {
                    self.pick[w].next = self.ready[w].val() & self.last_oh.q[w].val();
                } else {
                    self.pick[w].next = self.first[w].val();
                }
                self.found.next = self.found.val() | self.ready[w].val();
            }
        }

        // ---- outputs ----
        for w in 0..self._warps {
            self.grant[w].next = self.pick[w].val();
            self.sel_mux.sel[w].next = self.pick[w].val();
            self.sel_mux.d[w].next = self.wid[w].val();
        }
        self.sel.next = self.sel_mux.q[0].val();
        self.grant_valid.next = self.found.val();
        self.grant_warp.next = self.sel.val();

        // ---- pointer / greedy update ----
        for w in 0..self._warps {
            if self.issued.val() & self.found.val() {
                self.last_oh.d[w].next = self.pick[w].val();
            }
            if self.reset.val() {
                self.last_oh.d[w].next = self.last_init[w].val();
            }
        }
        for _r in 0..self._rr {
            for w in 0..self._warps {
                self.after_n[w].next = false;
                for j in 0..self._warps {
                    if j < w {
                        self.after_n[w].next = self.after_n[w].val() | self.pick[j].val();
                    }
                }
                self.after.d[w].next = self.after.q[w].val();
                if self.issued.val() & self.found.val() {
                    self.after.d[w].next = self.after_n[w].val();
                }
                if self.reset.val() {
                    self.after.d[w].next = false;
                }
            }
        }
        for g in 0..self._gto {
            if self.issued.val() & self.found.val() {
                self.greedy.d[g].next = true;
            }
            if self.reset.val() {
                self.greedy.d[g].next = false;
            }
        }

        // ---- GTO: launched warps become the youngest; reset = all warps launched at once ----
        for _g in 0..self._gto {
            for w in 0..self._warps {
                self.young[w].next = self.launch[w].val() | self.reset.val();
            }
        }
        // ---- two-level: at most one swap; the demoted warp becomes the youngest pending ----
        for t in 0..self._two {
            self.swap[t].next = false;
            for w in 0..self._warps {
                self.swap[t].next =
                    self.swap[t].val() | (self.dfound[t].val() & self.first[w].val());
            }
            for w in 0..self._warps {
                self.active[w].next = self.act.q[w].val();
                self.act.d[w].next = self.act.q[w].val();
                if self.swap[t].val() & self.dem[w].val() {
                    self.act.d[w].next = false;
                }
                if self.swap[t].val() & self.first[w].val() {
                    self.act.d[w].next = true;
                }
                if self.reset.val() {
                    self.act.d[w].next = self.act_init[w].val();
                }
                self.young[w].next = (self.swap[t].val() & self.dem[w].val()) | self.reset.val();
            }
        }
        // ---- order matrix update: warps with `young` set become the youngest, among
        // themselves ordered by number (lower = older). Row i: if i is young, it is older only
        // than the young warps numbered above it; else it keeps its bits and becomes older than
        // every young warp ----
        for o in 0..self._ord {
            self.young_row[o].next = self.no_rows[o].val();
            for w in 0..self._warps {
                if self.young[w].val() {
                    self.young_row[o].next = self.young_row[o].val() | self.onehot[w].val();
                }
            }
            for i in 0..self._warps {
                if self.young[i].val() {
                    self.order.d[i].next = self.young_row[o].val() & self.younger[i].val();
                } else {
                    self.order.d[i].next = self.order.q[i].val() | self.young_row[o].val();
                }
            }
        }
    }
}

/// The Verilog of the scheduler of `cfg`, top module named `name`.
pub fn scheduler_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    let mut uut = Scheduler::new(cfg);
    Ok(rename_top(&verilog_of("scheduler", &mut uut)?, name))
}
