//! CSR read of one SM at issue (docs/isa.md §5, docs/microarch/sm.md): the value of CSR `csr`
//! for the issuing warp, from the values the SM supplies and the configuration's constants
//! (`nlanes`, `nwarps`, `nsms`). A CSR the SM does not know reads 0 (decode has already made it
//! an illegal instruction). `laneid` reads 0 here and `tid`, `gtid`, `laneid` and `stack_top`
//! are per-lane: the SM adds the lane's offset at dispatch (`csr_step`).

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;
use warpforge_isa::csr;

/// The SM's CSR read multiplexer.
#[derive(LogicBlock)]
pub struct CsrRead {
    /// The CSR number (`instr[31:20]`).
    pub csr: Signal<In, Bits<12>>,
    /// Cycles since reset (`cycle`, `cycleh`).
    pub cycle: Signal<In, Bits<64>>,
    /// The warp's retired instructions (`instret`).
    pub instret: Signal<In, Bits<32>>,
    /// Lane 0's thread id in its CTA, its CTA id and its global thread id.
    pub tid: Signal<In, Bits<32>>,
    pub ctaid: Signal<In, Bits<32>>,
    pub gtid: Signal<In, Bits<32>>,
    /// Launch parameters.
    pub ntid: Signal<In, Bits<32>>,
    pub nctaid: Signal<In, Bits<32>>,
    pub param: Signal<In, Bits<32>>,
    /// The warp's number in the SM, the SM's number.
    pub warpid: Signal<In, Bits<32>>,
    pub smid: Signal<In, Bits<32>>,
    /// The issuing warp's active mask (`tmask`).
    pub tmask: Signal<In, Bits<32>>,
    /// Lane 0's stack top (`stack_top`).
    pub stack: Signal<In, Bits<32>>,
    /// The value.
    pub value: Signal<Out, Bits<32>>,
    /// One term per source: the source where the CSR number selects it, else 0.
    t_cycle: Signal<Local, Bits<32>>,
    t_cycleh: Signal<Local, Bits<32>>,
    t_instret: Signal<Local, Bits<32>>,
    t_tid: Signal<Local, Bits<32>>,
    t_ctaid: Signal<Local, Bits<32>>,
    t_ntid: Signal<Local, Bits<32>>,
    t_nctaid: Signal<Local, Bits<32>>,
    t_gtid: Signal<Local, Bits<32>>,
    t_warpid: Signal<Local, Bits<32>>,
    t_smid: Signal<Local, Bits<32>>,
    t_consts: Signal<Local, Bits<32>>,
    t_tmask: Signal<Local, Bits<32>>,
    t_param: Signal<Local, Bits<32>>,
    t_stack: Signal<Local, Bits<32>>,
    k_cycle: Constant<Bits<12>>,
    k_cycleh: Constant<Bits<12>>,
    k_instret: Constant<Bits<12>>,
    k_tid: Constant<Bits<12>>,
    k_ctaid: Constant<Bits<12>>,
    k_ntid: Constant<Bits<12>>,
    k_nctaid: Constant<Bits<12>>,
    k_gtid: Constant<Bits<12>>,
    k_warpid: Constant<Bits<12>>,
    k_smid: Constant<Bits<12>>,
    k_nlanes: Constant<Bits<12>>,
    k_nwarps: Constant<Bits<12>>,
    k_nsms: Constant<Bits<12>>,
    k_tmask: Constant<Bits<12>>,
    k_param: Constant<Bits<12>>,
    k_stack_top: Constant<Bits<12>>,
    k_lanes: Constant<Bits<32>>,
    k_warps: Constant<Bits<32>>,
    k_sms: Constant<Bits<32>>,
    k_zero: Constant<Bits<32>>,
}

fn k12(v: u16) -> Constant<Bits<12>> {
    Constant::new(u64::from(v).into())
}

impl CsrRead {
    pub fn new(cfg: &GpuConfig) -> Self {
        CsrRead {
            csr: Default::default(),
            cycle: Default::default(),
            instret: Default::default(),
            tid: Default::default(),
            ctaid: Default::default(),
            gtid: Default::default(),
            ntid: Default::default(),
            nctaid: Default::default(),
            param: Default::default(),
            warpid: Default::default(),
            smid: Default::default(),
            tmask: Default::default(),
            stack: Default::default(),
            value: Default::default(),
            t_cycle: Default::default(),
            t_cycleh: Default::default(),
            t_instret: Default::default(),
            t_tid: Default::default(),
            t_ctaid: Default::default(),
            t_ntid: Default::default(),
            t_nctaid: Default::default(),
            t_gtid: Default::default(),
            t_warpid: Default::default(),
            t_smid: Default::default(),
            t_consts: Default::default(),
            t_tmask: Default::default(),
            t_param: Default::default(),
            t_stack: Default::default(),
            k_cycle: k12(csr::CYCLE),
            k_cycleh: k12(csr::CYCLEH),
            k_instret: k12(csr::INSTRET),
            k_tid: k12(csr::TID),
            k_ctaid: k12(csr::CTAID),
            k_ntid: k12(csr::NTID),
            k_nctaid: k12(csr::NCTAID),
            k_gtid: k12(csr::GTID),
            k_warpid: k12(csr::WARPID),
            k_smid: k12(csr::SMID),
            k_nlanes: k12(csr::NLANES),
            k_nwarps: k12(csr::NWARPS),
            k_nsms: k12(csr::NSMS),
            k_tmask: k12(csr::TMASK),
            k_param: k12(csr::PARAM),
            k_stack_top: k12(csr::STACK_TOP),
            k_lanes: Constant::new(u64::from(cfg.lanes).into()),
            k_warps: Constant::new(u64::from(cfg.warps).into()),
            k_sms: Constant::new(u64::from(cfg.sms).into()),
            k_zero: Constant::new(0u64.into()),
        }
    }
}

impl Logic for CsrRead {
    #[hdl_gen]
    fn update(&mut self) {
        // The CSR numbers are distinct, so at most one term below is non-zero: the value is
        // their OR (one AND-OR level per source after the compares) rather than a chain of
        // seventeen two-way choices, which put the CSR read on `tiny`'s critical path
        // (docs/fpga.md). `laneid` and unknown numbers read 0 (no term).
        self.t_cycle.next = self.k_zero.val();
        if self.csr.val() == self.k_cycle.val() {
            self.t_cycle.next = self.cycle.val().get_bits::<32>(0);
        }
        self.t_cycleh.next = self.k_zero.val();
        if self.csr.val() == self.k_cycleh.val() {
            self.t_cycleh.next = self.cycle.val().get_bits::<32>(32);
        }
        self.t_instret.next = self.k_zero.val();
        if self.csr.val() == self.k_instret.val() {
            self.t_instret.next = self.instret.val();
        }
        self.t_tid.next = self.k_zero.val();
        if self.csr.val() == self.k_tid.val() {
            self.t_tid.next = self.tid.val();
        }
        self.t_ctaid.next = self.k_zero.val();
        if self.csr.val() == self.k_ctaid.val() {
            self.t_ctaid.next = self.ctaid.val();
        }
        self.t_ntid.next = self.k_zero.val();
        if self.csr.val() == self.k_ntid.val() {
            self.t_ntid.next = self.ntid.val();
        }
        self.t_nctaid.next = self.k_zero.val();
        if self.csr.val() == self.k_nctaid.val() {
            self.t_nctaid.next = self.nctaid.val();
        }
        self.t_gtid.next = self.k_zero.val();
        if self.csr.val() == self.k_gtid.val() {
            self.t_gtid.next = self.gtid.val();
        }
        self.t_warpid.next = self.k_zero.val();
        if self.csr.val() == self.k_warpid.val() {
            self.t_warpid.next = self.warpid.val();
        }
        self.t_smid.next = self.k_zero.val();
        if self.csr.val() == self.k_smid.val() {
            self.t_smid.next = self.smid.val();
        }
        self.t_consts.next = self.k_zero.val();
        if self.csr.val() == self.k_nlanes.val() {
            self.t_consts.next = self.k_lanes.val();
        }
        if self.csr.val() == self.k_nwarps.val() {
            self.t_consts.next = self.k_warps.val();
        }
        if self.csr.val() == self.k_nsms.val() {
            self.t_consts.next = self.k_sms.val();
        }
        self.t_tmask.next = self.k_zero.val();
        if self.csr.val() == self.k_tmask.val() {
            self.t_tmask.next = self.tmask.val();
        }
        self.t_param.next = self.k_zero.val();
        if self.csr.val() == self.k_param.val() {
            self.t_param.next = self.param.val();
        }
        self.t_stack.next = self.k_zero.val();
        if self.csr.val() == self.k_stack_top.val() {
            self.t_stack.next = self.stack.val();
        }
        self.value.next = self.t_cycle.val()
            | self.t_cycleh.val()
            | self.t_instret.val()
            | self.t_tid.val()
            | self.t_ctaid.val()
            | self.t_ntid.val()
            | self.t_nctaid.val()
            | self.t_gtid.val()
            | self.t_warpid.val()
            | self.t_smid.val()
            | self.t_consts.val()
            | self.t_tmask.val()
            | self.t_param.val()
            | self.t_stack.val();
    }
}
