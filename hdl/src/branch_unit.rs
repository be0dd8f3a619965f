//! Branch unit: resolves every instruction that ends a fetch block and commands the SIMT stack
//! (docs/isa.md §3.3 and §4, docs/microarch/sm.md "Branch unit").
//!
//! * Cycle D (dispatch, `in_valid & in_ready`): per-lane comparison (`cmp` of rs1, rs2) and
//!   `rs1` are registered, with the lowest active lane's `jalr` target (`rs1 + imm` with bit 0
//!   cleared), `rs1` (for `wf.tmc`) and `x1` (for an `AtReturn` reconvergence), and the
//!   branch target `pc + imm` and `pc + 4` (so the command cycle has no adder), and a
//!   `wf.tmc`'s ending lanes.
//! * Cycle D+1: the stack command (or a fault) for the instruction (a split's larger side,
//!   from the sides' counts registered in D, is pushed first); `wf.tmc` that ends some
//!   threads and keeps others takes a second command cycle (exit, then set PC). A `jalr`
//!   finds the lanes whose target is the lowest active lane's in D+1 (from their `rs1`) and
//!   registers the lanes that go there (`jalr_group`, from D+2 while the instruction is in the
//!   unit: the SM writes the link only for them, at the ALU's writeback); its command (or
//!   fault) is in D+2.
//! * The cycle after the last command: `redirect_valid` / `redirect_warp`, so the SM restarts
//!   the warp's fetch at its settled TOS PC (when the stack is not empty).
//!
//! `in_ready` is high when no instruction is in D+1 or later, so one instruction is resolved
//! every two cycles at most (three for a `jalr` and a splitting `wf.tmc`).

use crate::{k, sigs};
use rust_hdl::prelude::*;
use warpforge_isa::{sidecar_kind, FaultCause};

use crate::one_hot::{OneHotMux, RoundRobinPick};
use crate::simt_stack::{OP_EXIT, OP_NOP, OP_SET_PC, OP_SPLIT, RPC_NONE};
use crate::{BitPack, Unused};

/// `fault_lane` when a fault names no lane (`warpforge_isa::NO_LANE`).
pub const NO_LANE: u64 = warpforge_isa::NO_LANE as u64;

#[derive(LogicBlock)]
pub struct BranchUnit<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,

    // ---- dispatch (cycle D)
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    /// The instruction in the unit finishes in this cycle: `in_ready` is high in the next one.
    pub finishing: Signal<Out, Bit>,
    pub in_warp: Signal<In, Bits<6>>,
    pub in_pc: Signal<In, Bits<32>>,
    pub in_imm: Signal<In, Bits<32>>,
    pub in_cmp: Signal<In, Bits<3>>,
    /// Sidecar word of a conditional branch (`isa::Reconvergence::to_word`).
    pub in_recon: Signal<In, Bits<32>>,
    pub in_mask: Signal<In, Bits<L>>,
    pub in_branch: Signal<In, Bit>,
    pub in_jal: Signal<In, Bit>,
    pub in_jalr: Signal<In, Bit>,
    /// `jalr` with `rd = x0` (a divergent one faults).
    pub in_rd_zero: Signal<In, Bit>,
    pub in_exit: Signal<In, Bit>,
    pub in_tmc: Signal<In, Bit>,
    /// Per lane: rs1, rs2, x1.
    pub in_a: Vec<Signal<In, Bits<32>>>,
    pub in_b: Vec<Signal<In, Bits<32>>>,
    pub in_ra: Vec<Signal<In, Bits<32>>>,
    /// The RPC of the warp's TOS (the stack's `tos_rpc[in_warp]`), for the stack command's
    /// PC compares: the warp's stack is settled while its block-ending instruction is in
    /// flight (its fetch restarted only after the previous command settled).
    pub in_tos_rpc: Signal<In, Bits<32>>,
    /// Registered, from D+2 while the instruction is in the unit: the lanes of a `jalr` that
    /// execute it now.
    pub jalr_group: Signal<Out, Bits<L>>,

    // ---- SIMT stack command (cycle D+1 …)
    pub cmd_op: Signal<Out, Bits<3>>,
    pub cmd_warp: Signal<Out, Bits<6>>,
    pub cmd_rpc: Signal<Out, Bits<32>>,
    pub cmd_pc_a: Signal<Out, Bits<32>>,
    pub cmd_mask_a: Signal<Out, Bits<L>>,
    pub cmd_pc_b: Signal<Out, Bits<32>>,
    pub cmd_mask_b: Signal<Out, Bits<L>>,
    /// The command's PC compares (the SIMT stack's `cmd_eq_*`): `pc_a == rpc`, `pc_b == rpc`,
    /// `rpc == TOS rpc`, `pc_a == TOS rpc`, from registers here, so that the stack's command
    /// cycle has no 32-bit compare. Exact for the commands that read them (split: a, b, o;
    /// set_pc: s).
    pub cmd_eq_a: Signal<Out, Bit>,
    pub cmd_eq_b: Signal<Out, Bit>,
    pub cmd_eq_o: Signal<Out, Bit>,
    pub cmd_eq_s: Signal<Out, Bit>,
    /// The stack of `cmd_warp` cannot take a split (its `full` output).
    pub stack_full: Signal<In, Bit>,
    /// The cycle after the last command of an instruction.
    pub redirect_valid: Signal<Out, Bit>,
    pub redirect_warp: Signal<Out, Bits<6>>,

    // ---- fault (one-cycle pulse in D+1; no command then)
    pub fault_valid: Signal<Out, Bit>,
    pub fault_warp: Signal<Out, Bits<6>>,
    pub fault_pc: Signal<Out, Bits<32>>,
    pub fault_cause: Signal<Out, Bits<4>>,
    pub fault_lane: Signal<Out, Bits<8>>,
    pub fault_addr: Signal<Out, Bits<32>>,

    // ---- stage registers (D+1)
    s_valid: DFF<Bit>,
    s_warp: DFF<Bits<6>>,
    s_pc: DFF<Bits<32>>,
    /// `pc + imm` and `pc + 4`, added at dispatch so the command cycle has no adder.
    s_br_target: DFF<Bits<32>>,
    s_pc4: DFF<Bits<32>>,
    s_recon: DFF<Bits<32>>,
    s_mask: DFF<Bits<L>>,
    s_taken: DFF<Bits<L>>,
    /// Taken and not-taken lane counts (which side of a split is pushed first).
    s_pop_t: DFF<Bits<8>>,
    s_pop_n: DFF<Bits<8>>,
    /// The lanes of a `jalr` whose target equals the lowest active lane's: compared in D+1
    /// from the registered operands, registered for D+2 (the command cycle of a `jalr`).
    s_group: DFF<Bits<L>>,
    /// Every lane's `rs1`, registered in D, and the two `rs1` values whose target
    /// (`rs1 + imm`, bit 0 cleared) is the lowest active lane's `T`: that lane's own `a` and
    /// `a + 1` when `T` is even (`a` and `imm` of equal parity), else `a - 1`. A lane is in the
    /// group when its `rs1` is one of them: two 32-bit compares per lane and one shared adder,
    /// not an adder per lane (`small` was 27 cells past 70 % of the LUTs with them).
    s_a: Vec<DFF<Bits<32>>>,
    s_a_first: DFF<Bits<32>>,
    s_a_adj: DFF<Bits<32>>,
    s_target: DFF<Bits<32>>,
    s_first: DFF<Bits<8>>,
    /// A `wf.tmc`'s ending lanes (active lanes outside the lowest active lane's `rs1`) and
    /// whether it also keeps some (two command cycles): decided in D so `done` (and the dispatch check
    /// that reads `finishing`) starts from flip-flops.
    s_ending: DFF<Bits<L>>,
    s_ends_some: DFF<Bit>,
    s_two: DFF<Bit>,
    s_ra_first: DFF<Bits<32>>,
    s_tos_rpc: DFF<Bits<32>>,
    s_branch: DFF<Bit>,
    s_jal: DFF<Bit>,
    s_jalr: DFF<Bit>,
    s_rd_zero: DFF<Bit>,
    s_exit: DFF<Bit>,
    s_tmc: DFF<Bit>,
    /// Second command cycle of a `wf.tmc`.
    s_phase2: DFF<Bit>,
    redir: DFF<Bit>,
    redir_warp: DFF<Bits<6>>,

    pk_taken: BitPack<L>,
    pk_group: BitPack<L>,

    // ---- combinational
    lt: Vec<Signal<Local, Bit>>,
    ltu: Vec<Signal<Local, Bit>>,
    eq: Vec<Signal<Local, Bit>>,
    take: Vec<Signal<Local, Bit>>,
    a_adj: Signal<Local, Bits<32>>,
    /// The lowest active lane (one-hot, flat `x[i] & ~|x[i-1:0]`) and its target, operand,
    /// return address and number (AND-OR): an `if`-chain over the lanes was a chain of 2:1
    /// multiplexers after the target adders, on `tiny`'s longest paths (docs/fpga.md).
    first_pick: RoundRobinPick,
    first_mux: OneHotMux<32>,
    first_num: OneHotMux<8>,
    first_tgt: Signal<Local, Bits<32>>,
    first_lane: Signal<Local, Bits<8>>,
    a_first: Signal<Local, Bits<32>>,
    /// `a_first` above the lane bits a `wf.tmc` reads (lint: read, then removed by synthesis).
    a_first_rest: Unused<Bits<32>>,
    /// "Some lane is active" of the lowest-lane pick: always true for a dispatched
    /// instruction, so unused.
    first_any_unused: Unused<Bit>,
    ra_first: Signal<Local, Bits<32>>,
    taken_m: Signal<Local, Bits<L>>,
    group_m: Signal<Local, Bits<L>>,
    /// Popcounts of the taken and not-taken sides in D, as adder trees: lane `l`'s bit is
    /// node `l`, node `L + k` adds nodes `2k` and `2k + 1`, the root is node `2L - 2`.
    pop_t: Vec<Signal<Local, Bits<8>>>,
    pop_n: Vec<Signal<Local, Bits<8>>>,
    /// More lanes take the branch than do not (which side of a split is pushed first).
    major: Signal<Local, Bit>,
    pop_t_root: Signal<Local, Bits<8>>,
    pop_n_root: Signal<Local, Bits<8>>,
    not_taken: Signal<Local, Bits<L>>,
    br_target: Signal<Local, Bits<32>>,
    pc4: Signal<Local, Bits<32>>,
    rpc: Signal<Local, Bits<32>>,
    /// The compares behind `cmd_eq_*`, each against one candidate of the reconvergence PC
    /// (`recon_pc`, `ra_first`, none) or the TOS rpc, chosen after the compare.
    recon_pc: Signal<Local, Bits<32>>,
    e_t_r: Signal<Local, Bit>,
    e_p_r: Signal<Local, Bit>,
    e_r_o: Signal<Local, Bit>,
    e_t_o: Signal<Local, Bit>,
    e_p_o: Signal<Local, Bit>,
    e_j_p: Signal<Local, Bit>,
    e_j_o: Signal<Local, Bit>,
    others: Signal<Local, Bits<L>>,
    diff_lane: Signal<Local, Bits<8>>,
    /// The lowest lane of `others`, as `first_pick`.
    diff_pick: RoundRobinPick,
    diff_num: OneHotMux<8>,
    keep: Signal<Local, Bits<L>>,
    ending: Signal<Local, Bits<L>>,
    done: Signal<Local, Bit>,

    k_op_nop: Constant<Bits<3>>,
    k_op_set_pc: Constant<Bits<3>>,
    k_op_split: Constant<Bits<3>>,
    k_op_exit: Constant<Bits<3>>,
    k_beq: Constant<Bits<3>>,
    k_bne: Constant<Bits<3>>,
    k_blt: Constant<Bits<3>>,
    k_bge: Constant<Bits<3>>,
    k_bltu: Constant<Bits<3>>,
    k_bgeu: Constant<Bits<3>>,
    k_rpc_none: Constant<Bits<32>>,
    k_zero32: Constant<Bits<32>>,
    k_four: Constant<Bits<32>>,
    k_not1: Constant<Bits<32>>,
    k_not3: Constant<Bits<32>>,
    k_low2: Constant<Bits<32>>,
    k_zero_mask: Constant<Bits<L>>,
    k_lane: Vec<Constant<Bits<8>>>,
    k_no_lane: Constant<Bits<8>>,
    k_zero8: Constant<Bits<8>>,
    k_one8: Constant<Bits<8>>,
    k_one32: Constant<Bits<32>>,
    k_kind_none: Constant<Bits<2>>,
    k_kind_ret: Constant<Bits<2>>,
    k_kind_never: Constant<Bits<2>>,
    k_cause_mis: Constant<Bits<4>>,
    k_cause_ovf: Constant<Bits<4>>,
    k_cause_div: Constant<Bits<4>>,
    k_cause_unk: Constant<Bits<4>>,
    k_cause_none: Constant<Bits<4>>,
    k_warp0: Constant<Bits<6>>,
    _lanes: usize,
    /// `L - 1`: the lanes whose `ra` can be a reconvergence PC.
    _ra_lanes: usize,
}

impl<const L: usize> Default for BranchUnit<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const L: usize> BranchUnit<L> {
    pub fn new() -> Self {
        BranchUnit {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            finishing: Default::default(),
            in_warp: Default::default(),
            in_pc: Default::default(),
            in_imm: Default::default(),
            in_cmp: Default::default(),
            in_recon: Default::default(),
            in_mask: Default::default(),
            in_branch: Default::default(),
            in_jal: Default::default(),
            in_jalr: Default::default(),
            in_rd_zero: Default::default(),
            in_exit: Default::default(),
            in_tmc: Default::default(),
            in_a: sigs(L),
            in_b: sigs(L),
            in_ra: sigs(L - 1),
            in_tos_rpc: Default::default(),
            jalr_group: Default::default(),
            cmd_op: Default::default(),
            cmd_warp: Default::default(),
            cmd_rpc: Default::default(),
            cmd_pc_a: Default::default(),
            cmd_mask_a: Default::default(),
            cmd_pc_b: Default::default(),
            cmd_mask_b: Default::default(),
            cmd_eq_a: Default::default(),
            cmd_eq_b: Default::default(),
            cmd_eq_o: Default::default(),
            cmd_eq_s: Default::default(),
            stack_full: Default::default(),
            redirect_valid: Default::default(),
            redirect_warp: Default::default(),
            fault_valid: Default::default(),
            fault_warp: Default::default(),
            fault_pc: Default::default(),
            fault_cause: Default::default(),
            fault_lane: Default::default(),
            fault_addr: Default::default(),
            s_valid: Default::default(),
            s_warp: Default::default(),
            s_pc: Default::default(),
            s_br_target: Default::default(),
            s_pc4: Default::default(),
            s_recon: Default::default(),
            s_mask: Default::default(),
            s_taken: Default::default(),
            s_pop_t: Default::default(),
            s_pop_n: Default::default(),
            s_group: Default::default(),
            s_a: (0..L).map(|_| Default::default()).collect(),
            s_a_first: Default::default(),
            s_a_adj: Default::default(),
            s_target: Default::default(),
            s_first: Default::default(),
            s_ending: Default::default(),
            s_ends_some: Default::default(),
            s_two: Default::default(),
            s_ra_first: Default::default(),
            s_tos_rpc: Default::default(),
            s_branch: Default::default(),
            s_jal: Default::default(),
            s_jalr: Default::default(),
            s_rd_zero: Default::default(),
            s_exit: Default::default(),
            s_tmc: Default::default(),
            s_phase2: Default::default(),
            redir: Default::default(),
            redir_warp: Default::default(),
            pk_taken: BitPack::new(L),
            pk_group: BitPack::new(L),
            lt: sigs(L),
            ltu: sigs(L),
            eq: sigs(L),
            take: sigs(L),
            a_adj: Default::default(),
            first_pick: RoundRobinPick::new(L),
            first_mux: OneHotMux::new(L, 2),
            first_num: OneHotMux::new(L, 1),
            first_tgt: Default::default(),
            first_lane: Default::default(),
            a_first: Default::default(),
            a_first_rest: Default::default(),
            first_any_unused: Default::default(),
            ra_first: Default::default(),
            taken_m: Default::default(),
            group_m: Default::default(),
            pop_t: sigs(2 * L - 1),
            pop_n: sigs(2 * L - 1),
            major: Default::default(),
            pop_t_root: Default::default(),
            pop_n_root: Default::default(),
            not_taken: Default::default(),
            br_target: Default::default(),
            pc4: Default::default(),
            rpc: Default::default(),
            recon_pc: Default::default(),
            e_t_r: Default::default(),
            e_p_r: Default::default(),
            e_r_o: Default::default(),
            e_t_o: Default::default(),
            e_p_o: Default::default(),
            e_j_p: Default::default(),
            e_j_o: Default::default(),
            others: Default::default(),
            diff_lane: Default::default(),
            diff_pick: RoundRobinPick::new(L),
            diff_num: OneHotMux::new(L, 1),
            keep: Default::default(),
            ending: Default::default(),
            done: Default::default(),
            k_op_nop: k(OP_NOP),
            k_op_set_pc: k(OP_SET_PC),
            k_op_split: k(OP_SPLIT),
            k_op_exit: k(OP_EXIT),
            k_beq: k(0),
            k_bne: k(1),
            k_blt: k(4),
            k_bge: k(5),
            k_bltu: k(6),
            k_bgeu: k(7),
            k_rpc_none: k(RPC_NONE as u64),
            k_zero32: k(0),
            k_four: k(4),
            k_not1: k(0xffff_fffe),
            k_not3: k(0xffff_fffc),
            k_low2: k(3),
            k_zero_mask: k(0),
            k_lane: (0..L as u64).map(k::<8>).collect(),
            k_no_lane: k(NO_LANE),
            k_zero8: k(0),
            k_one8: k(1),
            k_one32: k(1),
            k_kind_none: k(sidecar_kind::NONE.into()),
            k_kind_ret: k(sidecar_kind::AT_RETURN.into()),
            k_kind_never: k(sidecar_kind::NEVER.into()),
            k_cause_mis: k(FaultCause::MisalignedFetch.code().into()),
            k_cause_ovf: k(FaultCause::SimtStackOverflow.code().into()),
            k_cause_div: k(FaultCause::DivergentJump.code().into()),
            k_cause_unk: k(FaultCause::UnknownReconvergence.code().into()),
            k_cause_none: k(0),
            k_warp0: k(0),
            _lanes: L,
            _ra_lanes: L - 1,
        }
    }
}

// Each kind's checks stay nested under its kind flag, as for the other kinds (`jal` has one).
#[allow(clippy::collapsible_if)]
impl<const L: usize> Logic for BranchUnit<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.s_valid.clock.next = self.clock.val();
        self.s_warp.clock.next = self.clock.val();
        self.s_pc.clock.next = self.clock.val();
        self.s_br_target.clock.next = self.clock.val();
        self.s_pc4.clock.next = self.clock.val();
        self.s_recon.clock.next = self.clock.val();
        self.s_mask.clock.next = self.clock.val();
        self.s_taken.clock.next = self.clock.val();
        self.s_pop_t.clock.next = self.clock.val();
        self.s_pop_n.clock.next = self.clock.val();
        self.s_group.clock.next = self.clock.val();
        for l in 0..self._lanes {
            self.s_a[l].clock.next = self.clock.val();
        }
        self.s_target.clock.next = self.clock.val();
        self.s_a_first.clock.next = self.clock.val();
        self.s_a_adj.clock.next = self.clock.val();
        self.s_first.clock.next = self.clock.val();
        self.s_ending.clock.next = self.clock.val();
        self.s_ends_some.clock.next = self.clock.val();
        self.s_two.clock.next = self.clock.val();
        self.s_ra_first.clock.next = self.clock.val();
        self.s_tos_rpc.clock.next = self.clock.val();
        self.s_branch.clock.next = self.clock.val();
        self.s_jal.clock.next = self.clock.val();
        self.s_jalr.clock.next = self.clock.val();
        self.s_rd_zero.clock.next = self.clock.val();
        self.s_exit.clock.next = self.clock.val();
        self.s_tmc.clock.next = self.clock.val();
        self.s_phase2.clock.next = self.clock.val();
        self.redir.clock.next = self.clock.val();
        self.redir_warp.clock.next = self.clock.val();

        // ---------------- cycle D: lane comparisons, jalr targets, lowest active lane
        self.taken_m.next = self.pk_taken.q.val();
        for l in 0..self._lanes {
            self.eq[l].next = self.in_a[l].val() == self.in_b[l].val();
            self.ltu[l].next = self.in_a[l].val() < self.in_b[l].val();
            self.lt[l].next = self.ltu[l].val();
            if self.in_a[l].val().get_bit(31) != self.in_b[l].val().get_bit(31) {
                self.lt[l].next = self.in_a[l].val().get_bit(31);
            }
            self.take[l].next = false;
            if self.in_cmp.val() == self.k_beq.val() {
                self.take[l].next = self.eq[l].val();
            }
            if self.in_cmp.val() == self.k_bne.val() {
                self.take[l].next = !self.eq[l].val();
            }
            if self.in_cmp.val() == self.k_blt.val() {
                self.take[l].next = self.lt[l].val();
            }
            if self.in_cmp.val() == self.k_bge.val() {
                self.take[l].next = !self.lt[l].val();
            }
            if self.in_cmp.val() == self.k_bltu.val() {
                self.take[l].next = self.ltu[l].val();
            }
            if self.in_cmp.val() == self.k_bgeu.val() {
                self.take[l].next = !self.ltu[l].val();
            }
            self.pk_taken.d[l].next = self.take[l].val() & self.in_mask.val().get_bit(l);
            self.first_pick.req[l].next = self.in_mask.val().get_bit(l);
            self.first_pick.from[l].next = false;
            self.first_mux.sel[l].next = self.first_pick.grant[l].val();
            self.first_mux.d[2 * l].next = self.in_a[l].val();
            self.first_num.sel[l].next = self.first_pick.grant[l].val();
            self.first_num.d[l].next = self.k_lane[l].val();
        }
        // `ra` of the lowest active lane, for an `AtReturn` reconvergence: lanes 0 … L-2 only.
        // When the last lane is the lowest active one it is the only one, and a branch of one
        // thread cannot diverge, so its reconvergence PC is never used (issue 11: lane L-1's
        // `ra` decided nothing).
        for l in 0..self._ra_lanes {
            self.first_mux.d[2 * l + 1].next = self.in_ra[l].val();
        }
        for l in self._ra_lanes..self._lanes {
            self.first_mux.d[2 * l + 1].next = self.k_zero32.val();
        }
        self.a_first.next = self.first_mux.q[0].val();
        self.first_tgt.next = (self.a_first.val() + self.in_imm.val()) & self.k_not1.val();
        self.a_adj.next = self.a_first.val() - self.k_one32.val();
        if self.a_first.val().get_bit(0) == self.in_imm.val().get_bit(0) {
            self.a_adj.next = self.a_first.val() + self.k_one32.val();
        }
        self.a_first_rest.d[0].next = self.a_first.val();
        self.ra_first.next = self.first_mux.q[1].val();
        // (An instruction is never dispatched with no active lane, so the lowest active lane
        // always exists: no "no lane" case.)
        self.first_lane.next = self.first_num.q[0].val();
        self.first_any_unused.d[0].next = self.first_pick.any[0].val();
        // ---------------- cycle D+1 of a `jalr`: which lanes go to the lowest active lane's
        // target, from the registered operands (in D, the target adders then the compares were
        // `tiny`'s placed critical path on cda350a, 13.4 ns, docs/fpga.md).
        // Lane 0, when active, is the lowest active lane itself: always in the group, so it
        // needs no compare (issue 11: its `adj` compare decided nothing, small's m56).
        self.pk_group.d[0].next = self.s_mask.q.val().get_bit(0);
        for l in 1..self._lanes {
            self.pk_group.d[l].next = self.s_mask.q.val().get_bit(l)
                & ((self.s_a[l].q.val() == self.s_a_first.q.val())
                    | (self.s_a[l].q.val() == self.s_a_adj.q.val()));
        }
        // wf.tmc: the lowest active lane's rs1 is the new mask; the active lanes outside it end.
        self.keep.next = self.a_first.val().get_bits::<L>(0) & self.in_mask.val();
        self.ending.next = self.in_mask.val() & !self.keep.val();
        self.group_m.next = self.pk_group.q.val();
        for l in 0..self._lanes {
            self.pop_t[l].next = self.k_zero8.val();
            if self.taken_m.val().get_bit(l) {
                self.pop_t[l].next = self.k_one8.val();
            }
            self.pop_n[l].next = self.k_zero8.val();
            if self.in_mask.val().get_bit(l) & !self.taken_m.val().get_bit(l) {
                self.pop_n[l].next = self.k_one8.val();
            }
        }
        // (`base` is a one-value loop: hdl_gen's index expressions may name only loop variables.)
        for base in self._lanes..(self._lanes + 1) {
            for n in 0..(self._lanes - 1) {
                self.pop_t[base + n].next = self.pop_t[2 * n].val() + self.pop_t[2 * n + 1].val();
                self.pop_n[base + n].next = self.pop_n[2 * n].val() + self.pop_n[2 * n + 1].val();
            }
        }
        // The sides' counts are registered and compared in D+1: in D the compare after the
        // lane comparators and the count was 11 logic levels (`s_major` on 437b47a), and the
        // whole count in D+1 as many into the stack port (2324c9b).
        for root in (2 * self._lanes - 2)..(2 * self._lanes - 1) {
            self.pop_t_root.next = self.pop_t[root].val();
            self.pop_n_root.next = self.pop_n[root].val();
        }

        // ---------------- cycle D+1: command or fault
        // Which side of a split is pushed first: the sides' counts were registered in D.
        self.major.next = self.s_pop_t.q.val() > self.s_pop_n.q.val();
        self.br_target.next = self.s_br_target.q.val();
        self.pc4.next = self.s_pc4.q.val();
        self.not_taken.next = self.s_mask.q.val() & !self.s_taken.q.val();
        self.others.next = self.s_mask.q.val() & !self.s_group.q.val();
        for l in 0..self._lanes {
            self.diff_pick.req[l].next = self.others.val().get_bit(l);
            self.diff_pick.from[l].next = false;
            self.diff_num.sel[l].next = self.diff_pick.grant[l].val();
            self.diff_num.d[l].next = self.k_lane[l].val();
        }
        self.diff_lane.next = self.diff_num.q[0].val();
        if !self.diff_pick.any[0].val() {
            self.diff_lane.next = self.k_no_lane.val();
        }
        // Reconvergence PC of a divergent branch (sidecar kind in bits 1:0).
        self.rpc.next = self.s_recon.q.val() & self.k_not3.val();
        if self.s_recon.q.val().get_bits::<2>(0) == self.k_kind_ret.val() {
            self.rpc.next = self.s_ra_first.q.val();
        }
        if self.s_recon.q.val().get_bits::<2>(0) == self.k_kind_never.val() {
            self.rpc.next = self.k_rpc_none.val();
        }
        // The stack's PC compares, each made on registered values and chosen after it by the
        // same kind flags as the operands below (`rpc` itself is a choice: comparing with it
        // would put that choice in front of the compare).
        self.recon_pc.next = self.s_recon.q.val() & self.k_not3.val();
        self.e_t_r.next = self.br_target.val() == self.recon_pc.val();
        self.e_p_r.next = self.pc4.val() == self.recon_pc.val();
        self.e_r_o.next = self.recon_pc.val() == self.s_tos_rpc.q.val();
        if self.s_recon.q.val().get_bits::<2>(0) == self.k_kind_ret.val() {
            self.e_t_r.next = self.br_target.val() == self.s_ra_first.q.val();
            self.e_p_r.next = self.pc4.val() == self.s_ra_first.q.val();
            self.e_r_o.next = self.s_ra_first.q.val() == self.s_tos_rpc.q.val();
        }
        if self.s_recon.q.val().get_bits::<2>(0) == self.k_kind_never.val() {
            self.e_t_r.next = self.br_target.val() == self.k_rpc_none.val();
            self.e_p_r.next = self.pc4.val() == self.k_rpc_none.val();
            self.e_r_o.next = self.k_rpc_none.val() == self.s_tos_rpc.q.val();
        }
        self.e_t_o.next = self.br_target.val() == self.s_tos_rpc.q.val();
        self.e_p_o.next = self.pc4.val() == self.s_tos_rpc.q.val();
        self.e_j_p.next = self.s_target.q.val() == self.pc4.val();
        self.e_j_o.next = self.s_target.q.val() == self.s_tos_rpc.q.val();

        // The command's operands, chosen by the instruction's kind only. The SIMT stack reads
        // them only for the commands that use them (set_pc: pc_a; exit: mask_a; split: all)
        // and never for a nop, so the fault checks, the phase and whether a branch diverges
        // (all in `cmd_op` below) are not in front of them.
        self.cmd_warp.next = self.s_warp.q.val();
        self.cmd_rpc.next = self.rpc.val();
        self.cmd_pc_a.next = self.pc4.val();
        self.cmd_mask_a.next = self.s_mask.q.val();
        self.cmd_pc_b.next = self.br_target.val();
        self.cmd_mask_b.next = self.s_taken.q.val();
        self.cmd_eq_a.next = self.e_p_r.val();
        self.cmd_eq_b.next = self.e_t_r.val();
        self.cmd_eq_o.next = self.e_r_o.val();
        self.cmd_eq_s.next = self.e_p_o.val();
        if self.s_branch.q.val() {
            // The larger side is pushed first (a); on a tie the taken side is on top. A
            // uniformly taken branch has `major` (no lane not taken) and sets the target, one
            // taken nowhere has not and sets pc + 4: the same choice.
            self.cmd_mask_a.next = self.not_taken.val();
            if self.major.val() {
                self.cmd_pc_a.next = self.br_target.val();
                self.cmd_mask_a.next = self.s_taken.q.val();
                self.cmd_pc_b.next = self.pc4.val();
                self.cmd_mask_b.next = self.not_taken.val();
                self.cmd_eq_a.next = self.e_t_r.val();
                self.cmd_eq_b.next = self.e_p_r.val();
                self.cmd_eq_s.next = self.e_t_o.val();
            }
        }
        if self.s_jal.q.val() {
            self.cmd_pc_a.next = self.br_target.val();
            self.cmd_eq_a.next = self.e_t_r.val();
            self.cmd_eq_s.next = self.e_t_o.val();
        }
        if self.s_jalr.q.val() {
            // Divergent call: the others re-execute the jalr after the call returns.
            self.cmd_rpc.next = self.pc4.val();
            self.cmd_pc_a.next = self.s_target.q.val();
            self.cmd_eq_a.next = self.e_j_p.val();
            self.cmd_eq_b.next = self.e_j_p.val();
            self.cmd_eq_o.next = self.e_p_o.val();
            self.cmd_eq_s.next = self.e_j_o.val();
            if self.s_group.q.val() != self.s_mask.q.val() {
                // (pc + 4 is never pc: the first pushed entry does not pop.)
                self.cmd_pc_a.next = self.s_pc.q.val();
                self.cmd_eq_a.next = false;
            }
            self.cmd_mask_a.next = self.others.val();
            self.cmd_pc_b.next = self.s_target.q.val();
            self.cmd_mask_b.next = self.s_group.q.val();
        }
        if self.s_tmc.q.val() {
            self.cmd_mask_a.next = self.s_ending.q.val();
        }
        self.cmd_op.next = self.k_op_nop.val();
        self.fault_valid.next = false;
        self.fault_warp.next = self.s_warp.q.val();
        self.fault_pc.next = self.s_pc.q.val();
        self.fault_cause.next = self.k_cause_none.val();
        self.fault_lane.next = self.k_no_lane.val();
        self.fault_addr.next = self.k_zero32.val();
        self.done.next = false;
        if self.s_valid.q.val() {
            self.done.next = true;
            // Non-control instruction that ends a block: the stack pops after it.
            self.cmd_op.next = self.k_op_set_pc.val();
            if self.s_jal.q.val() {
                if (self.br_target.val() & self.k_low2.val()) != self.k_zero32.val() {
                    self.cmd_op.next = self.k_op_nop.val();
                    self.fault_valid.next = true;
                    self.fault_cause.next = self.k_cause_mis.val();
                    self.fault_addr.next = self.br_target.val();
                }
            }
            if self.s_branch.q.val() {
                if (self.s_taken.q.val() != self.s_mask.q.val())
                    & (self.s_taken.q.val() != self.k_zero_mask.val())
                {
                    self.cmd_op.next = self.k_op_split.val();
                    if self.s_recon.q.val().get_bits::<2>(0) == self.k_kind_none.val() {
                        self.cmd_op.next = self.k_op_nop.val();
                        self.fault_valid.next = true;
                        self.fault_cause.next = self.k_cause_unk.val();
                    } else if self.stack_full.val() {
                        self.cmd_op.next = self.k_op_nop.val();
                        self.fault_valid.next = true;
                        self.fault_cause.next = self.k_cause_ovf.val();
                    }
                }
                if (self.s_taken.q.val() != self.k_zero_mask.val())
                    & ((self.br_target.val() & self.k_low2.val()) != self.k_zero32.val())
                {
                    self.cmd_op.next = self.k_op_nop.val();
                    self.fault_valid.next = true;
                    self.fault_cause.next = self.k_cause_mis.val();
                    self.fault_addr.next = self.br_target.val();
                }
            }
            if self.s_jalr.q.val() {
                if self.s_group.q.val() != self.s_mask.q.val() {
                    // Divergent call: the others re-execute the jalr after the call returns.
                    self.cmd_op.next = self.k_op_split.val();
                    if self.s_rd_zero.q.val() {
                        self.cmd_op.next = self.k_op_nop.val();
                        self.fault_valid.next = true;
                        self.fault_cause.next = self.k_cause_div.val();
                        self.fault_lane.next = self.diff_lane.val();
                    } else if self.stack_full.val() {
                        self.cmd_op.next = self.k_op_nop.val();
                        self.fault_valid.next = true;
                        self.fault_cause.next = self.k_cause_ovf.val();
                    }
                }
                if (self.s_target.q.val() & self.k_low2.val()) != self.k_zero32.val() {
                    self.cmd_op.next = self.k_op_nop.val();
                    self.fault_valid.next = true;
                    self.fault_cause.next = self.k_cause_mis.val();
                    self.fault_lane.next = self.s_first.q.val();
                    self.fault_addr.next = self.s_target.q.val();
                }
                if !self.s_phase2.q.val() {
                    // First cycle: the group is compared and registered; no command yet.
                    self.cmd_op.next = self.k_op_nop.val();
                    self.fault_valid.next = false;
                    self.done.next = false;
                }
            }
            if self.s_exit.q.val() {
                self.cmd_op.next = self.k_op_exit.val();
            }
            if self.s_tmc.q.val() {
                if self.s_phase2.q.val() | !self.s_ends_some.q.val() {
                    // Survivors continue at pc + 4 (after the exit, if any).
                    self.cmd_op.next = self.k_op_set_pc.val();
                } else {
                    self.cmd_op.next = self.k_op_exit.val();
                    if self.s_two.q.val() {
                        self.done.next = false;
                    }
                }
            }
        }

        // ---------------- registers
        self.in_ready.next = !self.s_valid.q.val();
        self.finishing.next = self.s_valid.q.val() & self.done.val();
        self.s_valid.d.next = (self.s_valid.q.val() & !self.done.val())
            | (self.in_valid.val() & !self.s_valid.q.val());
        self.s_phase2.d.next = self.s_valid.q.val() & !self.done.val();
        self.redir.d.next = self.done.val() & !self.fault_valid.val();
        self.redir_warp.d.next = self.s_warp.q.val();
        self.s_warp.d.next = self.s_warp.q.val();
        self.s_pc.d.next = self.s_pc.q.val();
        self.s_br_target.d.next = self.s_br_target.q.val();
        self.s_pc4.d.next = self.s_pc4.q.val();
        self.s_recon.d.next = self.s_recon.q.val();
        self.s_mask.d.next = self.s_mask.q.val();
        self.s_taken.d.next = self.s_taken.q.val();
        self.s_pop_t.d.next = self.s_pop_t.q.val();
        self.s_pop_n.d.next = self.s_pop_n.q.val();
        self.s_group.d.next = self.s_group.q.val();
        for l in 0..self._lanes {
            self.s_a[l].d.next = self.s_a[l].q.val();
        }
        if self.s_valid.q.val() & !self.s_phase2.q.val() {
            self.s_group.d.next = self.group_m.val();
        }
        self.s_target.d.next = self.s_target.q.val();
        self.s_a_first.d.next = self.s_a_first.q.val();
        self.s_a_adj.d.next = self.s_a_adj.q.val();
        self.s_first.d.next = self.s_first.q.val();
        self.s_ending.d.next = self.s_ending.q.val();
        self.s_ends_some.d.next = self.s_ends_some.q.val();
        self.s_two.d.next = self.s_two.q.val();
        self.s_ra_first.d.next = self.s_ra_first.q.val();
        self.s_tos_rpc.d.next = self.s_tos_rpc.q.val();
        self.s_branch.d.next = self.s_branch.q.val();
        self.s_jal.d.next = self.s_jal.q.val();
        self.s_jalr.d.next = self.s_jalr.q.val();
        self.s_rd_zero.d.next = self.s_rd_zero.q.val();
        self.s_exit.d.next = self.s_exit.q.val();
        self.s_tmc.d.next = self.s_tmc.q.val();
        if self.in_valid.val() & !self.s_valid.q.val() {
            self.s_warp.d.next = self.in_warp.val();
            self.s_pc.d.next = self.in_pc.val();
            self.s_br_target.d.next = self.in_pc.val() + self.in_imm.val();
            self.s_pc4.d.next = self.in_pc.val() + self.k_four.val();
            self.s_recon.d.next = self.in_recon.val();
            self.s_mask.d.next = self.in_mask.val();
            self.s_taken.d.next = self.taken_m.val();
            self.s_pop_t.d.next = self.pop_t_root.val();
            self.s_pop_n.d.next = self.pop_n_root.val();
            self.s_target.d.next = self.first_tgt.val();
            self.s_a_first.d.next = self.a_first.val();
            self.s_a_adj.d.next = self.a_adj.val();
            for l in 0..self._lanes {
                self.s_a[l].d.next = self.in_a[l].val();
            }
            self.s_first.d.next = self.first_lane.val();
            self.s_ending.d.next = self.ending.val();
            self.s_ends_some.d.next = self.ending.val() != self.k_zero_mask.val();
            self.s_two.d.next = (self.ending.val() != self.k_zero_mask.val())
                & (self.keep.val() != self.k_zero_mask.val());
            self.s_ra_first.d.next = self.ra_first.val();
            self.s_tos_rpc.d.next = self.in_tos_rpc.val();
            self.s_branch.d.next = self.in_branch.val();
            self.s_jal.d.next = self.in_jal.val();
            self.s_jalr.d.next = self.in_jalr.val();
            self.s_rd_zero.d.next = self.in_rd_zero.val();
            self.s_exit.d.next = self.in_exit.val();
            self.s_tmc.d.next = self.in_tmc.val();
        }
        if self.reset.val() {
            self.s_valid.d.next = false;
            self.s_phase2.d.next = false;
            self.redir.d.next = false;
        }
        self.redirect_valid.next = self.redir.q.val();
        self.jalr_group.next = self.s_group.q.val();
        self.redirect_warp.next = self.redir_warp.q.val();
        if !self.redir.q.val() {
            self.redirect_warp.next = self.k_warp0.val();
        }
    }
}
