//! The GPU top level `warpforge_top`: CTA dispatcher, control interface and `sms` SMs
//! (docs/microarch/sm.md).

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use crate::{k, sigs};
use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;
use warpforge_isa::memmap;

use crate::mem_port::MemPort;
use crate::reset_tree::ResetTree;
use crate::sm::Sm;
use crate::{rename_top, verilog_of, HdlError, Unused};

/// A deliberate RTL bug, built only to prove that co-simulation catches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InjectedFault {
    /// Every `sub` executed by the ALU of SM 0 returns its result with bit `bit` of lane `lane`
    /// inverted.
    AluSubLaneBit { lane: u32, bit: u32 },
}

/// Whether the top level has the trace ports (`tr_*`, docs/microarch/sm.md "Trace port").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TracePorts {
    /// For co-simulation: every SM's trace records are ports.
    #[default]
    On,
    /// For synthesis: no trace ports; the SMs' trace outputs end in `Unused` sinks, so synthesis
    /// removes the logic that only fed them. Every other port is the same.
    Off,
}

/// Options of the generated top level that are not GPU configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TopOptions {
    pub inject: Option<InjectedFault>,
    pub trace: TracePorts,
}

/// Name of the generated top module.
pub const TOP_NAME: &str = "warpforge_top";

/// The whole GPU: control interface, CTA dispatcher, `sms` SMs, their memory and trace ports.
/// Ports: docs/microarch/sm.md "Top-level ports".
#[derive(LogicBlock)]
pub struct Top<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub imem_we: Signal<In, Bit>,
    pub imem_addr: Signal<In, Bits<32>>,
    pub imem_word: Signal<In, Bits<32>>,
    pub imem_recon: Signal<In, Bits<32>>,
    pub launch_entry: Signal<In, Bits<32>>,
    pub launch_nctaid: Signal<In, Bits<32>>,
    pub launch_ntid: Signal<In, Bits<32>>,
    pub launch_param: Signal<In, Bits<32>>,
    pub launch_shared: Signal<In, Bits<32>>,
    pub start: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub fault: Signal<Out, Bit>,
    pub fault_sm: Signal<Out, Bits<8>>,
    pub fault_warp: Signal<Out, Bits<8>>,
    pub fault_pc: Signal<Out, Bits<32>>,
    pub fault_cause: Signal<Out, Bits<4>>,
    pub fault_lane: Signal<Out, Bits<8>>,
    pub fault_addr: Signal<Out, Bits<32>>,
    pub cycle_count: Signal<Out, Bits<64>>,

    /// SM `s`'s memory port.
    pub mem: Vec<MemPort>,

    pub tr_issue_valid: Vec<Signal<Out, Bit>>,
    pub tr_issue_warp: Vec<Signal<Out, Bits<8>>>,
    pub tr_issue_pc: Vec<Signal<Out, Bits<32>>>,
    pub tr_issue_instr: Vec<Signal<Out, Bits<32>>>,
    pub tr_issue_mask: Vec<Signal<Out, Bits<32>>>,
    pub tr_issue_tag: Vec<Signal<Out, Bits<8>>>,
    pub tr_wb_valid: Vec<Signal<Out, Bit>>,
    pub tr_wb_tag: Vec<Signal<Out, Bits<8>>>,
    pub tr_wb_rd: Vec<Signal<Out, Bits<5>>>,
    pub tr_wb_mask: Vec<Signal<Out, Bits<32>>>,
    /// Per SM: lane `l` in bits `32*l+31 ..= 32*l`.
    pub tr_wb_data: Vec<Signal<Out, Bits<1024>>>,
    pub tr_st_valid: Vec<Signal<Out, Bit>>,
    pub tr_st_tag: Vec<Signal<Out, Bits<8>>>,
    pub tr_st_size: Vec<Signal<Out, Bits<2>>>,
    pub tr_st_mask: Vec<Signal<Out, Bits<32>>>,
    pub tr_st_addr: Vec<Signal<Out, Bits<1024>>>,
    pub tr_st_data: Vec<Signal<Out, Bits<1024>>>,
    pub tr_cta_valid: Vec<Signal<Out, Bit>>,
    pub tr_cta_id: Vec<Signal<Out, Bits<32>>>,
    pub tr_cta_warps: Vec<Signal<Out, Bits<64>>>,
    pub tr_ready: Vec<Signal<Out, Bits<64>>>,
    pub tr_grant_valid: Vec<Signal<Out, Bit>>,
    pub tr_grant_warp: Vec<Signal<Out, Bits<8>>>,
    pub tr_launch: Vec<Signal<Out, Bits<64>>>,
    pub tr_long: Vec<Signal<Out, Bits<64>>>,
    pub ctr_issued: Vec<Signal<Out, Bits<32>>>,
    pub ctr_idle: Vec<Signal<Out, Bits<32>>>,
    pub ctr_conflicts: Vec<Signal<Out, Bits<32>>>,
    /// Verification port (with the trace ports only): the value `reset` loads into
    /// `cycle_count` and, its low 32 bits, into every SM's counters. Without it they reset to 0.
    pub ctr_base: Vec<Signal<In, Bits<64>>>,
    /// Verification ports (with the trace ports only): `start` numbers the launch's CTAs from
    /// `cta_base` (then +1 per CTA, wrapping) and the first CTA's first thread's `gtid` is
    /// `gtid_base` (the driver gives `cta_base × ntid`, mod 2^32), so a short run reaches the
    /// high bits of `ctaid` and `gtid`. Without them both start at 0.
    pub cta_base: Vec<Signal<In, Bits<32>>>,
    pub gtid_base: Vec<Signal<In, Bits<32>>>,
    /// Per SM, this cycle's counter events: `ctr_idle`'s and `ctr_conflicts`'s increments.
    pub tr_idle: Vec<Signal<Out, Bit>>,
    pub tr_conflicts: Vec<Signal<Out, Bits<32>>>,

    sm: Vec<Sm<L>>,
    /// With `TracePorts::Off`: one sink per width for the SMs' trace outputs (with `On`, one
    /// input tied to 0).
    tr_sink1: Unused<Bit>,
    tr_sink2: Unused<Bits<2>>,
    tr_sink5: Unused<Bits<5>>,
    tr_sink8: Unused<Bits<8>>,
    tr_sink32: Unused<Bits<32>>,
    tr_sink64: Unused<Bits<64>>,
    tr_sink1024: Unused<Bits<1024>>,

    /// The `reset` pin's register: the first stage of the reset tree, into each SM's tree and
    /// the top level's own (docs/microarch/sm.md, "Reset").
    rst_in: DFF<Bit>,
    rst_tree: ResetTree,
    /// The top level's copy of the reset ([`crate::reset_tree::RESET_LATENCY`] cycles after the pin).
    rst: Signal<Local, Bit>,
    running: DFF<Bit>,
    done_r: DFF<Bit>,
    fault_r: DFF<Bit>,
    fsm_r: DFF<Bits<8>>,
    cycles: DFF<Bits<64>>,
    /// `ctr_base`, or 0 without the verification ports.
    base: Signal<Local, Bits<64>>,
    /// `cta_base` and `gtid_base`, or 0 without the verification ports.
    first_cta: Signal<Local, Bits<32>>,
    first_gtid: Signal<Local, Bits<32>>,
    p_entry: DFF<Bits<32>>,
    p_nctaid: DFF<Bits<32>>,
    p_ntid: DFF<Bits<32>>,
    p_param: DFF<Bits<32>>,
    p_shared: DFF<Bits<32>>,
    p_cta_warps: DFF<Bits<32>>,
    next_cta: DFF<Bits<32>>,
    next_gtid: DFF<Bits<32>>,
    /// CTAs not yet dispatched (`nctaid - next_cta`), and whether any is left: `offered` from a
    /// flip-flop instead of a 32-bit compare in the cycle that dispatches.
    ctas_left: DFF<Bits<32>>,
    more_ctas: DFF<Bit>,

    offered: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    any_busy: Signal<Local, Bit>,
    any_fault: Signal<Local, Bit>,
    first_fault: Signal<Local, Bits<8>>,
    seen: Vec<Signal<Local, Bit>>,
    fseen: Vec<Signal<Local, Bit>>,
    warps_of: Signal<Local, Bits<32>>,

    k_zero32: Constant<Bits<32>>,
    k_zero8: Constant<Bits<8>>,
    k_zero4: Constant<Bits<4>>,
    k_zero2: Constant<Bits<2>>,
    k_zero5: Constant<Bits<5>>,
    k_zero1024: Constant<Bits<1024>>,
    k_one32: Constant<Bits<32>>,
    k_one64: Constant<Bits<64>>,
    k_zero64: Constant<Bits<64>>,
    k_lanes_m1: Constant<Bits<32>>,
    k_log2_lanes: Constant<Bits<32>>,
    k_sm8: Vec<Constant<Bits<8>>>,
    k_sm32: Vec<Constant<Bits<32>>>,
    /// Each SM's stack top (its warp 0, lane 0), `memmap::stack_top`.
    k_sm_stack_top: Vec<Constant<Bits<32>>>,
    _sms: usize,
    /// SMs with trace ports: `_sms` or 0.
    _trace_sms: usize,
    /// SMs whose trace outputs go into the sinks: 0 or `_sms`.
    _sink_sms: usize,
    _lanes: usize,
}

/// A sink of `per_sm` inputs for each of `sms` SMs (at least one input).
fn sink<T: Synth>(per_sm: usize, sms: usize) -> Unused<T> {
    Unused::new((per_sm * sms).max(1))
}

impl<const L: usize> Top<L> {
    pub fn new(cfg: &GpuConfig, opts: &TopOptions) -> Result<Self, HdlError> {
        let n = cfg.sms as usize;
        // Trace ports per SM, or sinks for them.
        let (nt, sink_sms) = match opts.trace {
            TracePorts::On => (n, 0),
            TracePorts::Off => (0, n),
        };
        let sm = (0..cfg.sms)
            .map(|s| Sm::<L>::new(cfg, s, opts.inject))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| HdlError {
                unit: TOP_NAME.into(),
                message: e.to_string(),
            })?;
        Ok(Top {
            clock: Default::default(),
            reset: Default::default(),
            imem_we: Default::default(),
            imem_addr: Default::default(),
            imem_word: Default::default(),
            imem_recon: Default::default(),
            launch_entry: Default::default(),
            launch_nctaid: Default::default(),
            launch_ntid: Default::default(),
            launch_param: Default::default(),
            launch_shared: Default::default(),
            start: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            fault: Default::default(),
            fault_sm: Default::default(),
            fault_warp: Default::default(),
            fault_pc: Default::default(),
            fault_cause: Default::default(),
            fault_lane: Default::default(),
            fault_addr: Default::default(),
            cycle_count: Default::default(),
            mem: sigs(n),
            tr_issue_valid: sigs(nt),
            tr_issue_warp: sigs(nt),
            tr_issue_pc: sigs(nt),
            tr_issue_instr: sigs(nt),
            tr_issue_mask: sigs(nt),
            tr_issue_tag: sigs(nt),
            tr_wb_valid: sigs(nt),
            tr_wb_tag: sigs(nt),
            tr_wb_rd: sigs(nt),
            tr_wb_mask: sigs(nt),
            tr_wb_data: sigs(nt),
            tr_st_valid: sigs(nt),
            tr_st_tag: sigs(nt),
            tr_st_size: sigs(nt),
            tr_st_mask: sigs(nt),
            tr_st_addr: sigs(nt),
            tr_st_data: sigs(nt),
            tr_cta_valid: sigs(nt),
            tr_cta_id: sigs(nt),
            tr_cta_warps: sigs(nt),
            tr_ready: sigs(nt),
            tr_grant_valid: sigs(nt),
            tr_grant_warp: sigs(nt),
            tr_launch: sigs(nt),
            tr_long: sigs(nt),
            ctr_issued: sigs(n),
            ctr_idle: sigs(n),
            ctr_conflicts: sigs(n),
            ctr_base: sigs(nt.min(1)),
            cta_base: sigs(nt.min(1)),
            gtid_base: sigs(nt.min(1)),
            tr_idle: sigs(nt),
            tr_conflicts: sigs(nt),
            sm,
            tr_sink1: sink(6, sink_sms),
            tr_sink2: sink(1, sink_sms),
            tr_sink5: sink(1, sink_sms),
            tr_sink8: sink(5, sink_sms),
            tr_sink32: sink(7, sink_sms),
            tr_sink64: sink(4, sink_sms),
            tr_sink1024: sink(3, sink_sms),
            rst_in: Default::default(),
            rst_tree: ResetTree::new(1),
            rst: Default::default(),
            running: Default::default(),
            done_r: Default::default(),
            fault_r: Default::default(),
            fsm_r: Default::default(),
            cycles: Default::default(),
            base: Default::default(),
            first_cta: Default::default(),
            first_gtid: Default::default(),
            p_entry: Default::default(),
            p_nctaid: Default::default(),
            p_ntid: Default::default(),
            p_param: Default::default(),
            p_shared: Default::default(),
            p_cta_warps: Default::default(),
            next_cta: Default::default(),
            next_gtid: Default::default(),
            ctas_left: Default::default(),
            more_ctas: Default::default(),
            offered: Default::default(),
            taken: Default::default(),
            any_busy: Default::default(),
            any_fault: Default::default(),
            first_fault: Default::default(),
            seen: sigs(n + 1),
            fseen: sigs(n + 1),
            warps_of: Default::default(),
            k_zero32: k(0),
            k_zero8: k(0),
            k_zero4: k(0),
            k_zero2: k(0),
            k_zero5: k(0),
            k_zero1024: k(0),
            k_one32: k(1),
            k_one64: k(1),
            k_zero64: k(0),
            k_lanes_m1: k(L as u64 - 1),
            k_log2_lanes: k(L.trailing_zeros() as u64),
            k_sm8: (0..n as u64).map(k::<8>).collect(),
            k_sm32: (0..n as u64).map(k::<32>).collect(),
            k_sm_stack_top: (0..cfg.sms)
                .map(|s| {
                    k::<32>(memmap::stack_top(
                        cfg.gmem_bytes,
                        cfg.stack_bytes,
                        s * cfg.warps * cfg.lanes,
                    ) as u64)
                })
                .collect(),
            _sms: n,
            _trace_sms: nt,
            _sink_sms: sink_sms,
            _lanes: L,
        })
    }
}

impl<const L: usize> Logic for Top<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rst_in.clock.next = self.clock.val();
        self.rst_tree.clock.next = self.clock.val();
        self.rst_in.d.next = self.reset.val();
        self.rst_tree.reset.next = self.rst_in.q.val();
        self.rst.next = self.rst_tree.q[0].val();
        self.running.clock.next = self.clock.val();
        self.done_r.clock.next = self.clock.val();
        self.fault_r.clock.next = self.clock.val();
        self.fsm_r.clock.next = self.clock.val();
        self.cycles.clock.next = self.clock.val();
        self.p_entry.clock.next = self.clock.val();
        self.p_nctaid.clock.next = self.clock.val();
        self.p_ntid.clock.next = self.clock.val();
        self.p_param.clock.next = self.clock.val();
        self.p_shared.clock.next = self.clock.val();
        self.p_cta_warps.clock.next = self.clock.val();
        self.next_cta.clock.next = self.clock.val();
        self.next_gtid.clock.next = self.clock.val();
        self.ctas_left.clock.next = self.clock.val();
        self.more_ctas.clock.next = self.clock.val();

        // Cycles since reset (plus `ctr_base`): the `cycle` CSR of every SM.
        self.base.next = self.k_zero64.val();
        self.first_cta.next = self.k_zero32.val();
        self.first_gtid.next = self.k_zero32.val();
        for i in 0..self._trace_sms.min(1) {
            self.base.next = self.ctr_base[i].val();
            self.first_cta.next = self.cta_base[i].val();
            self.first_gtid.next = self.gtid_base[i].val();
        }
        self.cycles.d.next = self.cycles.q.val() + self.k_one64.val();
        if self.rst.val() {
            self.cycles.d.next = self.base.val();
        }
        self.cycle_count.next = self.cycles.q.val();

        // CTA dispatch: the next CTA goes to the lowest-numbered SM that has room.
        self.offered.next = self.running.q.val() & !self.fault_r.q.val() & self.more_ctas.q.val();
        self.seen[0].next = false;
        self.any_busy.next = false;
        self.fseen[0].next = false;
        self.first_fault.next = self.k_zero8.val();
        for _nl in self._lanes..(self._lanes + 1) {
            for s in 0..self._sms {
                self.sm[s].clock.next = self.clock.val();
                self.sm[s].reset.next = self.rst_in.q.val();
                self.sm[s].load_valid.next = self.imem_we.val();
                self.sm[s].load_addr.next = self.imem_addr.val();
                self.sm[s].load_word.next = self.imem_word.val();
                self.sm[s].load_recon.next = self.imem_recon.val();
                self.sm[s].k_entry.next = self.p_entry.q.val();
                self.sm[s].k_nctaid.next = self.p_nctaid.q.val();
                self.sm[s].k_ntid.next = self.p_ntid.q.val();
                self.sm[s].k_param.next = self.p_param.q.val();
                self.sm[s].k_shared.next = self.p_shared.q.val();
                self.sm[s].k_cta_warps.next = self.p_cta_warps.q.val();
                self.sm[s].cycle.next = self.cycles.q.val();
                self.sm[s].ctr_base.next = self.base.val().get_bits::<32>(0);
                self.sm[s].sm_id.next = self.k_sm32[s].val();
                self.sm[s].stack_top.next = self.k_sm_stack_top[s].val();
                self.sm[s].halt.next = self.fault_r.q.val();
                self.sm[s].cta_id.next = self.next_cta.q.val();
                self.sm[s].cta_gtid0.next = self.next_gtid.q.val();
                self.sm[s].cta_valid.next =
                    self.offered.val() & self.sm[s].cta_ready.val() & !self.seen[s].val();
                self.seen[s + 1].next = self.seen[s].val() | self.sm[s].cta_ready.val();
                if self.sm[s].busy.val() {
                    self.any_busy.next = true;
                }
                self.fseen[s + 1].next = self.fseen[s].val() | self.sm[s].fault.val();
                if self.sm[s].fault.val() & !self.fseen[s].val() {
                    self.first_fault.next = self.k_sm8[s].val();
                }

                MemPort::link(&mut self.mem[s], &mut self.sm[s].mem);

                self.ctr_issued[s].next = self.sm[s].ctr_issued.val();
                self.ctr_idle[s].next = self.sm[s].ctr_idle.val();
                self.ctr_conflicts[s].next = self.sm[s].ctr_conflicts.val();
            }
        }
        // Trace ports (TracePorts::On) or their sinks (Off).
        for s in 0..self._trace_sms {
            self.tr_issue_valid[s].next = self.sm[s].tr_issue_valid.val();
            self.tr_issue_warp[s].next = self.sm[s].tr_issue_warp.val();
            self.tr_issue_pc[s].next = self.sm[s].tr_issue_pc.val();
            self.tr_issue_instr[s].next = self.sm[s].tr_issue_instr.val();
            self.tr_issue_mask[s].next = self.sm[s].tr_issue_mask.val();
            self.tr_issue_tag[s].next = self.sm[s].tr_issue_tag.val();
            self.tr_wb_valid[s].next = self.sm[s].tr_wb_valid.val();
            self.tr_wb_tag[s].next = self.sm[s].tr_wb_tag.val();
            self.tr_wb_rd[s].next = self.sm[s].tr_wb_rd.val();
            self.tr_wb_mask[s].next = self.sm[s].tr_wb_mask.val();
            self.tr_st_valid[s].next = self.sm[s].tr_st_valid.val();
            self.tr_st_tag[s].next = self.sm[s].tr_st_tag.val();
            self.tr_st_size[s].next = self.sm[s].tr_st_size.val();
            self.tr_st_mask[s].next = self.sm[s].tr_st_mask.val();
            self.tr_wb_data[s].next = self.sm[s].tr_wb_data.val();
            self.tr_st_addr[s].next = self.sm[s].tr_st_addr.val();
            self.tr_st_data[s].next = self.sm[s].tr_st_data.val();
            self.tr_cta_valid[s].next = self.sm[s].tr_cta_valid.val();
            self.tr_cta_id[s].next = self.sm[s].tr_cta_id.val();
            self.tr_cta_warps[s].next = self.sm[s].tr_cta_warps.val();
            self.tr_ready[s].next = self.sm[s].tr_ready.val();
            self.tr_grant_valid[s].next = self.sm[s].tr_grant_valid.val();
            self.tr_grant_warp[s].next = self.sm[s].tr_grant_warp.val();
            self.tr_launch[s].next = self.sm[s].tr_launch.val();
            self.tr_long[s].next = self.sm[s].tr_long.val();
            self.tr_idle[s].next = self.sm[s].tr_idle.val();
            self.tr_conflicts[s].next = self.sm[s].tr_conflicts.val();
        }
        // Sinks with no SM feeding them (TracePorts::On) still have an input.
        self.tr_sink1.d[0].next = false;
        self.tr_sink2.d[0].next = self.k_zero2.val();
        self.tr_sink5.d[0].next = self.k_zero5.val();
        self.tr_sink8.d[0].next = self.k_zero8.val();
        self.tr_sink32.d[0].next = self.k_zero32.val();
        self.tr_sink64.d[0].next = self.k_zero64.val();
        self.tr_sink1024.d[0].next = self.k_zero1024.val();
        for s in 0..self._sink_sms {
            self.tr_sink1.d[6 * s].next = self.sm[s].tr_issue_valid.val();
            self.tr_sink1.d[6 * s + 1].next = self.sm[s].tr_wb_valid.val();
            self.tr_sink1.d[6 * s + 2].next = self.sm[s].tr_st_valid.val();
            self.tr_sink1.d[6 * s + 3].next = self.sm[s].tr_cta_valid.val();
            self.tr_sink1.d[6 * s + 4].next = self.sm[s].tr_grant_valid.val();
            self.tr_sink1.d[6 * s + 5].next = self.sm[s].tr_idle.val();

            self.tr_sink2.d[s].next = self.sm[s].tr_st_size.val();
            self.tr_sink5.d[s].next = self.sm[s].tr_wb_rd.val();
            self.tr_sink8.d[5 * s].next = self.sm[s].tr_issue_warp.val();
            self.tr_sink8.d[5 * s + 1].next = self.sm[s].tr_issue_tag.val();
            self.tr_sink8.d[5 * s + 2].next = self.sm[s].tr_wb_tag.val();
            self.tr_sink8.d[5 * s + 3].next = self.sm[s].tr_st_tag.val();
            self.tr_sink8.d[5 * s + 4].next = self.sm[s].tr_grant_warp.val();
            self.tr_sink32.d[7 * s].next = self.sm[s].tr_issue_pc.val();
            self.tr_sink32.d[7 * s + 1].next = self.sm[s].tr_issue_instr.val();
            self.tr_sink32.d[7 * s + 2].next = self.sm[s].tr_issue_mask.val();
            self.tr_sink32.d[7 * s + 3].next = self.sm[s].tr_wb_mask.val();
            self.tr_sink32.d[7 * s + 4].next = self.sm[s].tr_st_mask.val();
            self.tr_sink32.d[7 * s + 5].next = self.sm[s].tr_cta_id.val();
            self.tr_sink32.d[7 * s + 6].next = self.sm[s].tr_conflicts.val();
            self.tr_sink64.d[4 * s].next = self.sm[s].tr_cta_warps.val();
            self.tr_sink64.d[4 * s + 1].next = self.sm[s].tr_ready.val();
            self.tr_sink64.d[4 * s + 2].next = self.sm[s].tr_launch.val();
            self.tr_sink64.d[4 * s + 3].next = self.sm[s].tr_long.val();
            self.tr_sink1024.d[3 * s].next = self.sm[s].tr_wb_data.val();
            self.tr_sink1024.d[3 * s + 1].next = self.sm[s].tr_st_addr.val();
            self.tr_sink1024.d[3 * s + 2].next = self.sm[s].tr_st_data.val();
        }
        for ns in self._sms..(self._sms + 1) {
            self.taken.next = self.offered.val() & self.seen[ns].val();
            self.any_fault.next = self.fseen[ns].val();
        }

        // Control.
        self.warps_of.next =
            (self.launch_ntid.val() + self.k_lanes_m1.val()) >> self.k_log2_lanes.val();
        self.running.d.next = self.running.q.val();
        self.done_r.d.next = self.done_r.q.val();
        self.fault_r.d.next = self.fault_r.q.val() | self.any_fault.val();
        self.fsm_r.d.next = self.fsm_r.q.val();
        self.p_entry.d.next = self.p_entry.q.val();
        self.p_nctaid.d.next = self.p_nctaid.q.val();
        self.p_ntid.d.next = self.p_ntid.q.val();
        self.p_param.d.next = self.p_param.q.val();
        self.p_shared.d.next = self.p_shared.q.val();
        self.p_cta_warps.d.next = self.p_cta_warps.q.val();
        self.next_cta.d.next = self.next_cta.q.val();
        self.next_gtid.d.next = self.next_gtid.q.val();
        self.ctas_left.d.next = self.ctas_left.q.val();
        self.more_ctas.d.next = self.more_ctas.q.val();
        if !self.fault_r.q.val() & self.any_fault.val() {
            self.fsm_r.d.next = self.first_fault.val();
        }
        if self.taken.val() {
            self.next_cta.d.next = self.next_cta.q.val() + self.k_one32.val();
            self.next_gtid.d.next = self.next_gtid.q.val() + self.p_ntid.q.val();
            self.ctas_left.d.next = self.ctas_left.q.val() - self.k_one32.val();
            self.more_ctas.d.next = self.ctas_left.q.val() != self.k_one32.val();
        }
        if self.running.q.val() & !self.offered.val() & !self.any_busy.val() & !self.fault_r.q.val()
        {
            self.running.d.next = false;
            self.done_r.d.next = true;
        }
        if self.fault_r.q.val() {
            self.running.d.next = false;
        }
        if self.start.val() & !self.running.q.val() {
            self.running.d.next = true;
            self.done_r.d.next = false;
            self.fault_r.d.next = false;
            self.p_entry.d.next = self.launch_entry.val();
            self.p_nctaid.d.next = self.launch_nctaid.val();
            self.p_ntid.d.next = self.launch_ntid.val();
            self.p_param.d.next = self.launch_param.val();
            self.p_shared.d.next = self.launch_shared.val();
            self.p_cta_warps.d.next = self.warps_of.val();
            self.next_cta.d.next = self.first_cta.val();
            self.next_gtid.d.next = self.first_gtid.val();
            self.ctas_left.d.next = self.launch_nctaid.val();
            self.more_ctas.d.next = self.launch_nctaid.val() != self.k_zero32.val();
        }
        if self.rst.val() {
            self.running.d.next = false;
            self.done_r.d.next = false;
            self.fault_r.d.next = false;
        }
        self.busy.next = self.running.q.val();
        self.done.next = self.done_r.q.val();
        self.fault.next = self.fault_r.q.val();
        self.fault_sm.next = self.fsm_r.q.val();
        self.fault_warp.next = self.k_zero8.val();
        self.fault_pc.next = self.k_zero32.val();
        self.fault_cause.next = self.k_zero4.val();
        self.fault_lane.next = self.k_zero8.val();
        self.fault_addr.next = self.k_zero32.val();
        for s in 0..self._sms {
            if self.fsm_r.q.val() == self.k_sm8[s].val() {
                self.fault_warp.next = self.sm[s].fault_warp.val();
                self.fault_pc.next = self.sm[s].fault_pc.val();
                self.fault_cause.next = self.sm[s].fault_cause.val();
                self.fault_lane.next = self.sm[s].fault_lane.val();
                self.fault_addr.next = self.sm[s].fault_addr.val();
            }
        }
    }
}

/// The Verilog of the whole GPU for `cfg` (top module [`TOP_NAME`]).
pub fn top_verilog(cfg: &GpuConfig, opts: &TopOptions) -> Result<String, HdlError> {
    fn emit<const L: usize>(cfg: &GpuConfig, opts: &TopOptions) -> Result<String, HdlError> {
        let mut top = Top::<L>::new(cfg, opts)?;
        Ok(rename_top(&verilog_of(TOP_NAME, &mut top)?, TOP_NAME))
    }
    match cfg.lanes {
        1 => emit::<1>(cfg, opts),
        2 => emit::<2>(cfg, opts),
        4 => emit::<4>(cfg, opts),
        8 => emit::<8>(cfg, opts),
        16 => emit::<16>(cfg, opts),
        32 => emit::<32>(cfg, opts),
        n => Err(HdlError {
            unit: TOP_NAME.into(),
            message: format!("lanes = {n} is not a power of two up to 32"),
        }),
    }
}
