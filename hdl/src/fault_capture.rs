//! Fault capture of one SM: the first fault reported by issue (illegal instruction, `ecall`,
//! `ebreak`, out-of-range fetch), the branch unit or the load/store unit is kept until reset
//! (docs/microarch/sm.md, "Faults").
//!
//! * A report is a [`FaultReport`]: `valid` with the warp, PC, cause code
//!   (`warpforge_isa::FaultCause`), lane (`NO_LANE` when the cause has none) and address.
//! * While nothing is held, the reports of a cycle are taken at the edge with the priority
//!   load/store unit > branch unit > issue (the LSU's fault belongs to the oldest instruction).
//! * Once held (`valid = 1`, from the cycle after the report), later reports are ignored.
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

/// The SM's first-fault register.
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
    f_warp: DFF<Bits<WARP_BITS>>,
    f_pc: DFF<Bits<32>>,
    f_cause: DFF<Bits<4>>,
    f_lane: DFF<Bits<8>>,
    f_addr: DFF<Bits<32>>,
}

impl Logic for FaultCapture {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, f_valid, f_warp, f_pc, f_cause, f_lane, f_addr);
        if !self.f_valid.q.val() {
            if self.issue.valid.val() {
                self.f_valid.d.next = true;
                self.f_warp.d.next = self.issue.warp.val();
                self.f_pc.d.next = self.issue.pc.val();
                self.f_cause.d.next = self.issue.cause.val();
                self.f_lane.d.next = self.issue.lane.val();
                self.f_addr.d.next = self.issue.addr.val();
            }
            if self.branch.valid.val() {
                self.f_valid.d.next = true;
                self.f_warp.d.next = self.branch.warp.val();
                self.f_pc.d.next = self.branch.pc.val();
                self.f_cause.d.next = self.branch.cause.val();
                self.f_lane.d.next = self.branch.lane.val();
                self.f_addr.d.next = self.branch.addr.val();
            }
            if self.lsu.valid.val() {
                self.f_valid.d.next = true;
                self.f_warp.d.next = self.lsu.warp.val();
                self.f_pc.d.next = self.lsu.pc.val();
                self.f_cause.d.next = self.lsu.cause.val();
                self.f_lane.d.next = self.lsu.lane.val();
                self.f_addr.d.next = self.lsu.addr.val();
            }
        }
        if self.reset.val() {
            self.f_valid.d.next = false;
        }
        self.valid.next = self.f_valid.q.val();
        self.warp.next = self.f_warp.q.val();
        self.pc.next = self.f_pc.q.val();
        self.cause.next = self.f_cause.q.val();
        self.lane.next = self.f_lane.q.val();
        self.addr.next = self.f_addr.q.val();
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
