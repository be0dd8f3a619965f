//! CTA launch of one SM (docs/microarch/sm.md, "CTA launch"): after the SM accepts a CTA, its
//! shared-memory window is cleared, then its warps are started one per cycle through the SIMT
//! stack's reset command, whenever the branch unit leaves the stack's command port free.
//!
//! * `idle` → (`accept`) `clear`: the CTA's id, first global thread id, slot and thread count
//!   are latched; `clear` → `launch` once the load/store unit's clear is done (`clear_busy` low).
//! * In `launch`, `go` = the stack's port is free (`stack_free`) and the SM is not `halted`.
//!   Each `go` starts warp `warp` (chosen by the SM among the warps it reserved) with lanes
//!   `mask` (lane `l` active while `l` < the threads left), thread id `tid` (lane 0) and global
//!   thread id `gtid0 + tid`; then `tid` and the thread count step by `lanes`. The CTA's last
//!   warp (`last`: the `cta_warps`-th) returns to `idle`.
//! * `redirect_valid`/`redirect_warp`: the warp started in the previous cycle (its fetch starts
//!   at the stack's new top).
//! * `reset` (synchronous) returns to `idle`.

use rust_hdl::prelude::*;

use crate::scoreboard::WARP_BITS;
use crate::BitPack;

/// The SM's CTA launch sequencer for warps of `L` lanes.
#[derive(LogicBlock)]
pub struct CtaLaunch<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The SM accepts a CTA in this cycle (only while `idle`).
    pub accept: Signal<In, Bit>,
    pub cta_id: Signal<In, Bits<32>>,
    /// Global thread id of the CTA's thread 0.
    pub cta_gtid0: Signal<In, Bits<32>>,
    /// The CTA's slot in the SM.
    pub cta_slot: Signal<In, Bits<WARP_BITS>>,
    /// Threads per CTA and warps per CTA (launch constants).
    pub ntid: Signal<In, Bits<32>>,
    /// Warps per CTA, saturated to 8 bits by the SM (a CTA of 255 warps or more never
    /// launches: no SM has that many slots).
    pub cta_warps: Signal<In, Bits<8>>,
    /// The load/store unit is still clearing the window.
    pub clear_busy: Signal<In, Bit>,
    /// The SIMT stack's command port is free in this cycle.
    pub stack_free: Signal<In, Bit>,
    pub halted: Signal<In, Bit>,
    /// The warp the next `go` starts.
    pub warp: Signal<In, Bits<WARP_BITS>>,
    pub idle: Signal<Out, Bit>,
    pub go: Signal<Out, Bit>,
    pub last: Signal<Out, Bit>,
    pub mask: Signal<Out, Bits<L>>,
    pub cta: Signal<Out, Bits<32>>,
    pub slot: Signal<Out, Bits<WARP_BITS>>,
    pub tid: Signal<Out, Bits<32>>,
    pub gtid: Signal<Out, Bits<32>>,
    pub redirect_valid: Signal<Out, Bit>,
    pub redirect_warp: Signal<Out, Bits<WARP_BITS>>,
    state: DFF<Bits<2>>,
    l_cta: DFF<Bits<32>>,
    l_gtid: DFF<Bits<32>>,
    l_tid: DFF<Bits<32>>,
    /// Threads of the CTA not yet started.
    l_rem: DFF<Bits<32>>,
    /// Warps of the CTA already started (fewer than `cta_warps`: 8 bits, the counter at its
    /// needed width; issue 11, `tiny` m108 on f2149a4 was its bit 22).
    l_k: DFF<Bits<8>>,
    l_slot: DFF<Bits<WARP_BITS>>,
    lr_valid: DFF<Bit>,
    lr_warp: DFF<Bits<WARP_BITS>>,
    go_l: Signal<Local, Bit>,
    last_l: Signal<Local, Bit>,
    pk_mask: BitPack<L>,
    k_idle: Constant<Bits<2>>,
    k_clear: Constant<Bits<2>>,
    k_launch: Constant<Bits<2>>,
    k_zero32: Constant<Bits<32>>,
    k_zero8: Constant<Bits<8>>,
    k_one8: Constant<Bits<8>>,
    k_lanes32: Constant<Bits<32>>,
    k_lane32: Vec<Constant<Bits<32>>>,
}

impl<const L: usize> Default for CtaLaunch<L> {
    fn default() -> Self {
        let k = |v: u64| Constant::new(v.into());
        CtaLaunch {
            clock: Default::default(),
            reset: Default::default(),
            accept: Default::default(),
            cta_id: Default::default(),
            cta_gtid0: Default::default(),
            cta_slot: Default::default(),
            ntid: Default::default(),
            cta_warps: Default::default(),
            clear_busy: Default::default(),
            stack_free: Default::default(),
            halted: Default::default(),
            warp: Default::default(),
            idle: Default::default(),
            go: Default::default(),
            last: Default::default(),
            mask: Default::default(),
            cta: Default::default(),
            slot: Default::default(),
            tid: Default::default(),
            gtid: Default::default(),
            redirect_valid: Default::default(),
            redirect_warp: Default::default(),
            state: Default::default(),
            l_cta: Default::default(),
            l_gtid: Default::default(),
            l_tid: Default::default(),
            l_rem: Default::default(),
            l_k: Default::default(),
            l_slot: Default::default(),
            lr_valid: Default::default(),
            lr_warp: Default::default(),
            go_l: Default::default(),
            last_l: Default::default(),
            pk_mask: BitPack::new(L),
            k_idle: Constant::new(0u64.into()),
            k_clear: Constant::new(1u64.into()),
            k_launch: Constant::new(2u64.into()),
            k_zero32: k(0),
            k_zero8: Constant::new(0u64.into()),
            k_one8: Constant::new(1u64.into()),
            k_lanes32: k(L as u64),
            k_lane32: (0..L as u64).map(k).collect(),
        }
    }
}

impl<const L: usize> Logic for CtaLaunch<L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, l_cta, l_gtid, l_tid, l_rem, l_k, l_slot, lr_valid, lr_warp);
        self.go_l.next = (self.state.q.val() == self.k_launch.val())
            & self.stack_free.val()
            & !self.halted.val();
        for l in 0..L {
            self.pk_mask.d[l].next = self.l_rem.q.val() > self.k_lane32[l].val();
        }
        self.last_l.next = (self.l_k.q.val() + self.k_one8.val()) == self.cta_warps.val();
        if self.accept.val() {
            self.state.d.next = self.k_clear.val();
            self.l_cta.d.next = self.cta_id.val();
            self.l_gtid.d.next = self.cta_gtid0.val();
            self.l_tid.d.next = self.k_zero32.val();
            self.l_rem.d.next = self.ntid.val();
            self.l_k.d.next = self.k_zero8.val();
            self.l_slot.d.next = self.cta_slot.val();
        }
        if (self.state.q.val() == self.k_clear.val()) & !self.clear_busy.val() {
            self.state.d.next = self.k_launch.val();
        }
        if self.go_l.val() {
            self.l_k.d.next = self.l_k.q.val() + self.k_one8.val();
            self.l_tid.d.next = self.l_tid.q.val() + self.k_lanes32.val();
            self.l_rem.d.next = self.l_rem.q.val() - self.k_lanes32.val();
            if self.last_l.val() {
                self.state.d.next = self.k_idle.val();
            }
        }
        if self.reset.val() {
            self.state.d.next = self.k_idle.val();
        }
        self.lr_valid.d.next = self.go_l.val() & !self.reset.val();
        self.lr_warp.d.next = self.warp.val();

        self.idle.next = self.state.q.val() == self.k_idle.val();
        self.go.next = self.go_l.val();
        self.last.next = self.last_l.val();
        self.mask.next = self.pk_mask.q.val();
        self.cta.next = self.l_cta.q.val();
        self.slot.next = self.l_slot.q.val();
        self.tid.next = self.l_tid.q.val();
        self.gtid.next = self.l_gtid.q.val() + self.l_tid.q.val();
        self.redirect_valid.next = self.lr_valid.q.val();
        self.redirect_warp.next = self.lr_warp.q.val();
    }
}
