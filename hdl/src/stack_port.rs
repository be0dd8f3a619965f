//! The SIMT stack's command port of one SM (docs/microarch/sm.md, "SIMT stack port"): the
//! branch unit's command, or the CTA launch's `reset` when the launch goes (it goes only while
//! the branch unit holds no instruction), is registered before it reaches the stack, and the
//! fetch redirects that follow a command are delayed by the same cycle.
//!
//! * A command presented in cycle `t` reaches the stack's command inputs in `t + 1` (the stack
//!   applies it at the edge ending `t + 1`). So the branch unit's command logic and the stack's
//!   next-state logic (warp select, `pc == rpc` compares, new-TOS choice) are in different
//!   cycles: together they were one of the SM's longest paths.
//! * `redirect_*` out = the branch unit's or the launch's redirect one cycle later, so it comes
//!   the cycle after the stack applied the command, as without the register.
//! * `reset` (synchronous) drops the registered command and redirects.

use rust_hdl::prelude::*;

use crate::scoreboard::{RegVec, WARP_BITS};
use crate::simt_stack::{OP_NOP, OP_RESET};

/// One SIMT-stack command (the stack's `cmd_*` inputs, docs/microarch/simt_stack.md).
#[derive(LogicInterface, Default)]
pub struct StackCommand<const L: usize> {
    pub op: Signal<In, Bits<3>>,
    pub warp: Signal<In, Bits<WARP_BITS>>,
    pub rpc: Signal<In, Bits<32>>,
    pub pc_a: Signal<In, Bits<32>>,
    pub mask_a: Signal<In, Bits<L>>,
    pub pc_b: Signal<In, Bits<32>>,
    pub mask_b: Signal<In, Bits<L>>,
    /// The command's PC compares (the stack's `cmd_eq_*`, docs/microarch/simt_stack.md).
    pub eq_a: Signal<In, Bit>,
    pub eq_b: Signal<In, Bit>,
    pub eq_o: Signal<In, Bit>,
    pub eq_s: Signal<In, Bit>,
}

/// The registered command port and the delayed redirects.
#[derive(LogicBlock)]
pub struct StackPort<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The branch unit's command of this cycle (`op` 0: none).
    pub branch: StackCommand<L>,
    /// The CTA launch starts warp `launch_warp` with threads `launch_mask` at `launch_pc`.
    pub launch_go: Signal<In, Bit>,
    pub launch_warp: Signal<In, Bits<WARP_BITS>>,
    pub launch_mask: Signal<In, Bits<L>>,
    pub launch_pc: Signal<In, Bits<32>>,
    /// Redirects after the branch unit's and the launch's commands (one cycle after them).
    pub bu_redirect_valid: Signal<In, Bit>,
    pub bu_redirect_warp: Signal<In, Bits<WARP_BITS>>,
    pub launch_redirect_valid: Signal<In, Bit>,
    pub launch_redirect_warp: Signal<In, Bits<WARP_BITS>>,
    /// The registered command, to the stack's `cmd_*`.
    pub cmd_op: Signal<Out, Bits<3>>,
    pub cmd_warp: Signal<Out, Bits<WARP_BITS>>,
    /// `cmd_warp` one-hot (`cmd_sel[w]` = `cmd_warp == w`, all 0 for no warp), registered
    /// with it, so that the stack's warp select is not decoded in the command cycle.
    pub cmd_sel: Vec<Signal<Out, Bit>>,
    pub cmd_rpc: Signal<Out, Bits<32>>,
    pub cmd_pc_a: Signal<Out, Bits<32>>,
    pub cmd_mask_a: Signal<Out, Bits<L>>,
    pub cmd_pc_b: Signal<Out, Bits<32>>,
    pub cmd_mask_b: Signal<Out, Bits<L>>,
    pub cmd_eq_a: Signal<Out, Bit>,
    pub cmd_eq_b: Signal<Out, Bit>,
    pub cmd_eq_o: Signal<Out, Bit>,
    pub cmd_eq_s: Signal<Out, Bit>,
    /// The registered command is a launch's `reset` (of `cmd_warp`): that warp's stack is still
    /// empty in this cycle although the warp is launched.
    pub reset_pending: Signal<Out, Bit>,
    /// The delayed redirects.
    pub bu_redirect_valid_q: Signal<Out, Bit>,
    pub bu_redirect_warp_q: Signal<Out, Bits<WARP_BITS>>,
    pub launch_redirect_valid_q: Signal<Out, Bit>,
    pub launch_redirect_warp_q: Signal<Out, Bits<WARP_BITS>>,
    op_q: DFF<Bits<3>>,
    warp_q: DFF<Bits<WARP_BITS>>,
    sel_q: RegVec<Bit>,
    /// Warp numbers as constants of the port width.
    k_wid: Vec<Constant<Bits<WARP_BITS>>>,
    rpc_q: DFF<Bits<32>>,
    pc_a_q: DFF<Bits<32>>,
    mask_a_q: DFF<Bits<L>>,
    pc_b_q: DFF<Bits<32>>,
    mask_b_q: DFF<Bits<L>>,
    /// `eq_a`, `eq_b`, `eq_o`, `eq_s` (bits 0–3).
    eq_q: RegVec<Bit>,
    bu_rv_q: DFF<Bit>,
    bu_rw_q: DFF<Bits<WARP_BITS>>,
    l_rv_q: DFF<Bit>,
    l_rw_q: DFF<Bits<WARP_BITS>>,
    k_op_nop: Constant<Bits<3>>,
    k_op_reset: Constant<Bits<3>>,
}

impl<const L: usize> StackPort<L> {
    /// The port of an SM of `warps` warps.
    pub fn new(warps: usize) -> Self {
        StackPort {
            clock: Default::default(),
            reset: Default::default(),
            branch: Default::default(),
            launch_go: Default::default(),
            launch_warp: Default::default(),
            launch_mask: Default::default(),
            launch_pc: Default::default(),
            bu_redirect_valid: Default::default(),
            bu_redirect_warp: Default::default(),
            launch_redirect_valid: Default::default(),
            launch_redirect_warp: Default::default(),
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
            reset_pending: Default::default(),
            bu_redirect_valid_q: Default::default(),
            bu_redirect_warp_q: Default::default(),
            launch_redirect_valid_q: Default::default(),
            launch_redirect_warp_q: Default::default(),
            op_q: Default::default(),
            warp_q: Default::default(),
            sel_q: RegVec::new(warps),
            k_wid: (0..warps)
                .map(|w| Constant::new((w as u64).to_bits()))
                .collect(),
            rpc_q: Default::default(),
            pc_a_q: Default::default(),
            mask_a_q: Default::default(),
            pc_b_q: Default::default(),
            mask_b_q: Default::default(),
            eq_q: RegVec::new(4),
            bu_rv_q: Default::default(),
            bu_rw_q: Default::default(),
            l_rv_q: Default::default(),
            l_rw_q: Default::default(),
            k_op_nop: Constant::new(OP_NOP.to_bits()),
            k_op_reset: Constant::new(OP_RESET.to_bits()),
        }
    }
}

impl<const L: usize> Logic for StackPort<L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, op_q, warp_q, rpc_q, pc_a_q, mask_a_q, pc_b_q, mask_b_q, bu_rv_q, bu_rw_q,
            l_rv_q, l_rw_q
        );
        self.eq_q.clock.next = self.clock.val();
        self.op_q.d.next = self.branch.op.val();
        self.warp_q.d.next = self.branch.warp.val();
        self.rpc_q.d.next = self.branch.rpc.val();
        self.pc_a_q.d.next = self.branch.pc_a.val();
        self.mask_a_q.d.next = self.branch.mask_a.val();
        self.pc_b_q.d.next = self.branch.pc_b.val();
        self.mask_b_q.d.next = self.branch.mask_b.val();
        self.eq_q.d[0].next = self.branch.eq_a.val();
        self.eq_q.d[1].next = self.branch.eq_b.val();
        self.eq_q.d[2].next = self.branch.eq_o.val();
        self.eq_q.d[3].next = self.branch.eq_s.val();
        if self.launch_go.val() {
            self.op_q.d.next = self.k_op_reset.val();
            self.warp_q.d.next = self.launch_warp.val();
            self.pc_a_q.d.next = self.launch_pc.val();
            self.mask_a_q.d.next = self.launch_mask.val();
        }
        self.sel_q.clock.next = self.clock.val();
        for w in 0..self.cmd_sel.len() {
            self.sel_q.d[w].next = self.warp_q.d.val() == self.k_wid[w].val();
            self.cmd_sel[w].next = self.sel_q.q[w].val();
        }
        self.bu_rv_q.d.next = self.bu_redirect_valid.val();
        self.bu_rw_q.d.next = self.bu_redirect_warp.val();
        self.l_rv_q.d.next = self.launch_redirect_valid.val();
        self.l_rw_q.d.next = self.launch_redirect_warp.val();
        if self.reset.val() {
            self.op_q.d.next = self.k_op_nop.val();
            self.bu_rv_q.d.next = false;
            self.l_rv_q.d.next = false;
        }
        self.cmd_op.next = self.op_q.q.val();
        self.cmd_warp.next = self.warp_q.q.val();
        self.cmd_rpc.next = self.rpc_q.q.val();
        self.cmd_pc_a.next = self.pc_a_q.q.val();
        self.cmd_mask_a.next = self.mask_a_q.q.val();
        self.cmd_pc_b.next = self.pc_b_q.q.val();
        self.cmd_mask_b.next = self.mask_b_q.q.val();
        self.cmd_eq_a.next = self.eq_q.q[0].val();
        self.cmd_eq_b.next = self.eq_q.q[1].val();
        self.cmd_eq_o.next = self.eq_q.q[2].val();
        self.cmd_eq_s.next = self.eq_q.q[3].val();
        self.reset_pending.next = self.op_q.q.val() == self.k_op_reset.val();
        self.bu_redirect_valid_q.next = self.bu_rv_q.q.val();
        self.bu_redirect_warp_q.next = self.bu_rw_q.q.val();
        self.launch_redirect_valid_q.next = self.l_rv_q.q.val();
        self.launch_redirect_warp_q.next = self.l_rw_q.q.val();
    }
}
