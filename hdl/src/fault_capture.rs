//! Fault capture of one SM: the first fault reported by issue (illegal instruction, `ecall`,
//! `ebreak`, out-of-range fetch), the branch unit or the load/store unit is kept until reset
//! (docs/microarch/sm.md, "Faults").
//!
//! * A report is a [`FaultReport`]: `valid` with the warp, PC, cause code
//!   (`warpforge_isa::FaultCause`), lane (`NO_LANE` when the cause has none) and address.
//! * While nothing is held, the reports of a cycle are taken at the edge with the priority
//!   load/store unit > branch unit > issue (the LSU's fault belongs to the oldest instruction).
//! * Once held (`valid = 1`, from the cycle after the report), later reports are ignored.
//!   (Each source's fields are registered apart and the winner chosen after the edge: below.)
//! * `reset` (synchronous) clears `valid`; the other fields keep their values and are read only
//!   while `valid` is high.

use rust_hdl::prelude::*;

use crate::scoreboard::WARP_BITS;

/// One fault report into [`FaultCapture`].
#[derive(LogicInterface, Default)]
pub struct FaultReport {
    pub valid: Signal<In, Bit>,
    pub warp: Signal<In, Bits<WARP_BITS>>,
    pub pc: Signal<In, Bits<32>>,
    pub cause: Signal<In, Bits<4>>,
    pub lane: Signal<In, Bits<8>>,
    pub addr: Signal<In, Bits<32>>,
}

/// One source's report fields, registered.
#[derive(LogicBlock, Default)]
struct HeldReport {
    pub clock: Signal<In, Clock>,
    /// Load `d` at the edge (no fault held yet); hold otherwise.
    pub load: Signal<In, Bit>,
    pub d: FaultFields,
    pub warp: Signal<Out, Bits<WARP_BITS>>,
    pub pc: Signal<Out, Bits<32>>,
    pub cause: Signal<Out, Bits<4>>,
    pub lane: Signal<Out, Bits<8>>,
    pub addr: Signal<Out, Bits<32>>,
    r_warp: DFF<Bits<WARP_BITS>>,
    r_pc: DFF<Bits<32>>,
    r_cause: DFF<Bits<4>>,
    r_lane: DFF<Bits<8>>,
    r_addr: DFF<Bits<32>>,
}

/// A report's fields without its `valid`.
#[derive(LogicInterface, Default)]
struct FaultFields {
    pub warp: Signal<In, Bits<WARP_BITS>>,
    pub pc: Signal<In, Bits<32>>,
    pub cause: Signal<In, Bits<4>>,
    pub lane: Signal<In, Bits<8>>,
    pub addr: Signal<In, Bits<32>>,
}

impl Logic for HeldReport {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_warp, r_pc, r_cause, r_lane, r_addr);
        if self.load.val() {
            self.r_warp.d.next = self.d.warp.val();
            self.r_pc.d.next = self.d.pc.val();
            self.r_cause.d.next = self.d.cause.val();
            self.r_lane.d.next = self.d.lane.val();
            self.r_addr.d.next = self.d.addr.val();
        }
        self.warp.next = self.r_warp.q.val();
        self.pc.next = self.r_pc.q.val();
        self.cause.next = self.r_cause.q.val();
        self.lane.next = self.r_lane.q.val();
        self.addr.next = self.r_addr.q.val();
    }
}

/// The SM's first-fault register.
///
/// Each source's fields are registered on their own while no fault is held, with the source
/// that wins (`src_q`: LSU > branch unit > issue); the held fault is chosen among the three
/// registered reports after the edge. So a source's fields reach a flip-flop through no
/// priority choice (the branch unit's fault cause came out of its own priority chain into this
/// one, 10 LUT levels, the deepest path of `tiny`'s netlist on b1ab5bf), and the outputs are a
/// 3:1 choice from flip-flops.
#[derive(LogicBlock, Default)]
pub struct FaultCapture {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Issue's fault (lowest priority).
    pub issue: FaultReport,
    /// The branch unit's fault.
    pub branch: FaultReport,
    /// The load/store unit's fault (highest priority).
    pub lsu: FaultReport,
    /// A fault is held.
    pub valid: Signal<Out, Bit>,
    pub warp: Signal<Out, Bits<WARP_BITS>>,
    pub pc: Signal<Out, Bits<32>>,
    pub cause: Signal<Out, Bits<4>>,
    pub lane: Signal<Out, Bits<8>>,
    pub addr: Signal<Out, Bits<32>>,
    f_valid: DFF<Bit>,
    /// The held fault came from the LSU / the branch unit (else from issue).
    src_lsu: DFF<Bit>,
    src_branch: DFF<Bit>,
    h_issue: HeldReport,
    h_branch: HeldReport,
    h_lsu: HeldReport,
}

impl Logic for FaultCapture {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, f_valid, src_lsu, src_branch);
        self.h_issue.clock.next = self.clock.val();
        self.h_branch.clock.next = self.clock.val();
        self.h_lsu.clock.next = self.clock.val();
        self.h_issue.load.next = !self.f_valid.q.val();
        self.h_branch.load.next = !self.f_valid.q.val();
        self.h_lsu.load.next = !self.f_valid.q.val();
        self.h_issue.d.warp.next = self.issue.warp.val();
        self.h_issue.d.pc.next = self.issue.pc.val();
        self.h_issue.d.cause.next = self.issue.cause.val();
        self.h_issue.d.lane.next = self.issue.lane.val();
        self.h_issue.d.addr.next = self.issue.addr.val();
        self.h_branch.d.warp.next = self.branch.warp.val();
        self.h_branch.d.pc.next = self.branch.pc.val();
        self.h_branch.d.cause.next = self.branch.cause.val();
        self.h_branch.d.lane.next = self.branch.lane.val();
        self.h_branch.d.addr.next = self.branch.addr.val();
        self.h_lsu.d.warp.next = self.lsu.warp.val();
        self.h_lsu.d.pc.next = self.lsu.pc.val();
        self.h_lsu.d.cause.next = self.lsu.cause.val();
        self.h_lsu.d.lane.next = self.lsu.lane.val();
        self.h_lsu.d.addr.next = self.lsu.addr.val();
        if !self.f_valid.q.val() {
            self.f_valid.d.next =
                self.issue.valid.val() | self.branch.valid.val() | self.lsu.valid.val();
            self.src_lsu.d.next = self.lsu.valid.val();
            self.src_branch.d.next = self.branch.valid.val() & !self.lsu.valid.val();
        }
        if self.reset.val() {
            self.f_valid.d.next = false;
        }
        self.valid.next = self.f_valid.q.val();
        self.warp.next = self.h_issue.warp.val();
        self.pc.next = self.h_issue.pc.val();
        self.cause.next = self.h_issue.cause.val();
        self.lane.next = self.h_issue.lane.val();
        self.addr.next = self.h_issue.addr.val();
        if self.src_branch.q.val() {
            self.warp.next = self.h_branch.warp.val();
            self.pc.next = self.h_branch.pc.val();
            self.cause.next = self.h_branch.cause.val();
            self.lane.next = self.h_branch.lane.val();
            self.addr.next = self.h_branch.addr.val();
        }
        if self.src_lsu.q.val() {
            self.warp.next = self.h_lsu.warp.val();
            self.pc.next = self.h_lsu.pc.val();
            self.cause.next = self.h_lsu.cause.val();
            self.lane.next = self.h_lsu.lane.val();
            self.addr.next = self.h_lsu.addr.val();
        }
    }
}

/// Verilog of the fault capture, top module named `name`.
pub fn fault_capture_verilog(name: &str) -> Result<String, crate::HdlError> {
    let mut uut = FaultCapture::default();
    Ok(crate::rename_top(
        &crate::verilog_of("fault_capture", &mut uut)?,
        name,
    ))
}
