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
    k_cycle: Constant<Bits<12>>,
    k_cycleh: Constant<Bits<12>>,
    k_instret: Constant<Bits<12>>,
    k_tid: Constant<Bits<12>>,
    k_ctaid: Constant<Bits<12>>,
    k_ntid: Constant<Bits<12>>,
    k_nctaid: Constant<Bits<12>>,
    k_gtid: Constant<Bits<12>>,
    k_laneid: Constant<Bits<12>>,
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
            k_cycle: k12(csr::CYCLE),
            k_cycleh: k12(csr::CYCLEH),
            k_instret: k12(csr::INSTRET),
            k_tid: k12(csr::TID),
            k_ctaid: k12(csr::CTAID),
            k_ntid: k12(csr::NTID),
            k_nctaid: k12(csr::NCTAID),
            k_gtid: k12(csr::GTID),
            k_laneid: k12(csr::LANEID),
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
        self.value.next = self.k_zero.val();
        if self.csr.val() == self.k_cycle.val() {
            self.value.next = self.cycle.val().get_bits::<32>(0);
        }
        if self.csr.val() == self.k_cycleh.val() {
            self.value.next = self.cycle.val().get_bits::<32>(32);
        }
        if self.csr.val() == self.k_instret.val() {
            self.value.next = self.instret.val();
        }
        if self.csr.val() == self.k_tid.val() {
            self.value.next = self.tid.val();
        }
        if self.csr.val() == self.k_ctaid.val() {
            self.value.next = self.ctaid.val();
        }
        if self.csr.val() == self.k_ntid.val() {
            self.value.next = self.ntid.val();
        }
        if self.csr.val() == self.k_nctaid.val() {
            self.value.next = self.nctaid.val();
        }
        if self.csr.val() == self.k_gtid.val() {
            self.value.next = self.gtid.val();
        }
        if self.csr.val() == self.k_laneid.val() {
            self.value.next = self.k_zero.val();
        }
        if self.csr.val() == self.k_warpid.val() {
            self.value.next = self.warpid.val();
        }
        if self.csr.val() == self.k_smid.val() {
            self.value.next = self.smid.val();
        }
        if self.csr.val() == self.k_nlanes.val() {
            self.value.next = self.k_lanes.val();
        }
        if self.csr.val() == self.k_nwarps.val() {
            self.value.next = self.k_warps.val();
        }
        if self.csr.val() == self.k_nsms.val() {
            self.value.next = self.k_sms.val();
        }
        if self.csr.val() == self.k_tmask.val() {
            self.value.next = self.tmask.val();
        }
        if self.csr.val() == self.k_param.val() {
            self.value.next = self.param.val();
        }
        if self.csr.val() == self.k_stack_top.val() {
            self.value.next = self.stack.val();
        }
    }
}
