//! Driving the Verilated `warpforge_top`: reset, instruction-memory load, launch, and one clock
//! cycle at a time with every SM's memory port served by the [`MemoryModel`]. Shared by the
//! checking run and the VCD re-run, which must see exactly the same inputs.

use warpforge_config::GpuConfig;
use warpforge_hdl::reset_tree::RESET_LATENCY;
use warpforge_loader::KernelImage;

use super::ports::TopPorts;
pub(crate) use super::script::{CtaRec, IssueRec, RtlFault, SchedRec, StRec, WbRec};
use super::Launch;
use crate::memory_model::{MemProtocolError, MemRequest, MemoryModel, MemorySettings};
use crate::verilator_model::LoadedModel;

/// Cycles of `reset` high before the instruction memory is loaded.
pub(crate) const RESET_CYCLES: u64 = 2;

/// What `reset` loads into the counters (`ctr_base`) unless the launch says otherwise
/// ([`Launch::counter_base`]): `cycle_count` and, its low 32 bits, each SM's `ctr_*` and each
/// warp's `instret`. Like Linux's `INITIAL_JIFFIES`, just below the wrap, so that every bit of
/// every counter toggles within a short run and a counter bit stuck at either value shows.
/// A kernel's cases take [`warpforge_kernels::COUNTER_BASES`] in turn.
pub use warpforge_kernels::COUNTER_BASE;

/// `cycle_count` in kernel cycle 0 (the start pulse): the counter base plus one cycle per
/// instruction-memory word loaded after reset.
pub fn kernel_start_cycle(image: &KernelImage, counter_base: u64) -> u64 {
    counter_base.wrapping_add(image.text.len() as u64)
}

/// An SM's performance counters as read from its ports (`ctr_issued`, `ctr_idle`,
/// `ctr_conflicts`): raw, from the counter base.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CounterRec {
    pub issued: u32,
    pub idle: u32,
    pub conflicts: u32,
}

/// This cycle's counter events of an SM (`tr_idle`, `tr_conflicts`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CounterEvents {
    pub idle: bool,
    /// Bit `b`: register-file bank `b` had a conflict.
    pub conflict_banks: u32,
}

/// The trace records of one SM in one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SmOut {
    /// Read every cycle (not a record: [`SmOut::any`] ignores it).
    pub sched: SchedRec,
    pub issue: Option<IssueRec>,
    pub wb: Option<WbRec>,
    pub st: Option<StRec>,
    pub cta: Option<CtaRec>,
    /// Read every cycle, like `sched`.
    pub ctrs: CounterRec,
    pub events: CounterEvents,
}

impl SmOut {
    pub fn any(&self) -> bool {
        self.issue.is_some() || self.wb.is_some() || self.st.is_some() || self.cta.is_some()
    }
}

/// Everything the checker looks at in one cycle.
#[derive(Clone, Debug, Default)]
pub(crate) struct CycleOut {
    pub cycle_count: u64,
    pub busy: bool,
    pub done: bool,
    pub fault: Option<RtlFault>,
    pub sm: Vec<SmOut>,
    /// A memory request that broke the protocol in this cycle (the first one).
    pub protocol: Option<MemProtocolError>,
}

/// The Verilated GPU plus its memory model.
pub(crate) struct Session {
    pub m: LoadedModel,
    p: TopPorts,
    pub mem: MemoryModel,
    /// Cycles since the start pulse (the pulse is cycle 0).
    pub kernel_cycle: u64,
    /// What reset loaded into the counters ([`Launch::counter_base`]).
    counter_base: u64,
}

impl Session {
    pub fn new(
        m: LoadedModel,
        p: TopPorts,
        cfg: &GpuConfig,
        settings: &MemorySettings,
        initial_memory: Vec<u8>,
    ) -> Session {
        Session {
            m,
            p,
            mem: MemoryModel::new(settings, cfg.sms, initial_memory),
            kernel_cycle: 0,
            counter_base: COUNTER_BASE,
        }
    }

    /// Reset, load the kernel text and its reconvergence sidecar into instruction memory (one
    /// word per cycle) and set the launch parameters. The start pulse is the first [`cycle`].
    ///
    /// [`cycle`]: Session::cycle
    pub fn prepare(&mut self, image: &KernelImage, launch: &Launch) {
        let c = &self.p.ctl;
        let m = &mut self.m;
        for s in &self.p.sm {
            m.set(s.mem_req_ready, 0);
            m.set(s.mem_resp_valid, 0);
        }
        m.set(c.start, 0);
        m.set(c.ctr_base, launch.counter_base);
        self.counter_base = launch.counter_base;
        m.set(c.reset, 1);
        m.ticks(c.clock, RESET_CYCLES);
        m.set(c.reset, 0);
        // The GPU sees the pin through its reset tree: it leaves reset RESET_LATENCY cycles
        // later, so the load starts then (docs/microarch/sm.md, "Reset").
        m.ticks(c.clock, RESET_LATENCY);
        for (i, (&word, recon)) in image.text.iter().zip(&image.sidecar).enumerate() {
            m.set(c.imem_we, 1);
            m.set(c.imem_addr, i as u64);
            m.set(c.imem_word, u64::from(word));
            m.set(c.imem_recon, u64::from(recon.to_word()));
            m.tick(c.clock);
        }
        m.set(c.imem_we, 0);
        m.set(c.imem_addr, 0);
        m.set(c.imem_word, 0);
        m.set(c.imem_recon, 0);
        m.set(c.launch_entry, u64::from(image.entry));
        m.set(c.launch_nctaid, u64::from(launch.grid));
        m.set(c.launch_ntid, u64::from(launch.block));
        m.set(c.launch_param, u64::from(launch.param));
        m.set(c.cta_base, u64::from(launch.cta_base));
        m.set(
            c.gtid_base,
            u64::from(launch.cta_base.wrapping_mul(launch.block)),
        );
        m.set(
            c.launch_shared,
            u64::from(image.shared_bytes.next_multiple_of(4)),
        );
    }

    /// One clock cycle: drive the memory ports (and `start` in kernel cycle 0), evaluate, read
    /// every output into `out`, hand valid memory requests to the memory model, clock edge.
    pub fn cycle(&mut self, out: &mut CycleOut) {
        let kc = self.kernel_cycle;
        self.mem.begin_cycle(kc);
        let c = &self.p.ctl;
        let m = &mut self.m;
        m.set(c.start, u64::from(kc == 0));
        for (s, sp) in self.p.sm.iter().enumerate() {
            let s = s as u32;
            m.set(sp.mem_req_ready, u64::from(self.mem.ready(s)));
            match self.mem.response(s) {
                Some(d) => {
                    m.set(sp.mem_resp_valid, 1);
                    m.set(sp.mem_resp_data, u64::from(d));
                }
                None => {
                    m.set(sp.mem_resp_valid, 0);
                    m.set(sp.mem_resp_data, 0);
                }
            }
        }
        m.eval();

        out.cycle_count = m.get(c.cycle_count);
        out.busy = m.get(c.busy) != 0;
        out.done = m.get(c.done) != 0;
        out.fault = (m.get(c.fault) != 0).then(|| RtlFault {
            sm: m.get(c.fault_sm) as u32,
            warp: m.get(c.fault_warp) as u32,
            pc: m.get(c.fault_pc) as u32,
            cause: m.get(c.fault_cause) as u32,
            lane: m.get(c.fault_lane) as u32,
            addr: m.get(c.fault_addr) as u32,
        });
        out.protocol = None;
        out.sm.resize(self.p.sm.len(), SmOut::default());
        for (s, sp) in self.p.sm.iter().enumerate() {
            let o = &mut out.sm[s];
            o.issue = (m.get(sp.tr_issue_valid) != 0).then(|| IssueRec {
                warp: m.get(sp.tr_issue_warp) as u32,
                pc: m.get(sp.tr_issue_pc) as u32,
                instr: m.get(sp.tr_issue_instr) as u32,
                mask: m.get(sp.tr_issue_mask) as u32,
                tag: m.get(sp.tr_issue_tag) as u32,
            });
            o.wb = (m.get(sp.tr_wb_valid) != 0).then(|| {
                let mut data = [0u32; 32];
                // Every lane of the port, also those the configuration lacks: the checker wants them 0.
                sp.tr_wb_data.read(m, &mut data);
                WbRec {
                    tag: m.get(sp.tr_wb_tag) as u32,
                    rd: m.get(sp.tr_wb_rd) as u8,
                    mask: m.get(sp.tr_wb_mask) as u32,
                    data,
                }
            });
            o.st = (m.get(sp.tr_st_valid) != 0).then(|| {
                let mut addr = [0u32; 32];
                let mut data = [0u32; 32];
                sp.tr_st_addr.read(m, &mut addr);
                sp.tr_st_data.read(m, &mut data);
                StRec {
                    tag: m.get(sp.tr_st_tag) as u32,
                    size: m.get(sp.tr_st_size) as u8,
                    mask: m.get(sp.tr_st_mask) as u32,
                    addr,
                    data,
                }
            });
            o.sched = SchedRec {
                ready: m.get(sp.tr_ready),
                launch: m.get(sp.tr_launch),
                long: m.get(sp.tr_long),
                grant: (m.get(sp.tr_grant_valid) != 0).then(|| m.get(sp.tr_grant_warp) as u32),
            };
            o.cta = (m.get(sp.tr_cta_valid) != 0).then(|| CtaRec {
                id: m.get(sp.tr_cta_id) as u32,
                warps: m.get(sp.tr_cta_warps),
            });
            o.ctrs = CounterRec {
                issued: m.get(sp.ctr_issued) as u32,
                idle: m.get(sp.ctr_idle) as u32,
                conflicts: m.get(sp.ctr_conflicts) as u32,
            };
            o.events = CounterEvents {
                idle: m.get(sp.tr_idle) != 0,
                conflict_banks: m.get(sp.tr_conflicts) as u32,
            };
            if m.get(sp.mem_req_valid) != 0 {
                let req = MemRequest {
                    write: m.get(sp.mem_req_write) != 0,
                    addr: m.get(sp.mem_req_addr) as u32,
                    size: m.get(sp.mem_req_size) as u8,
                    data: m.get(sp.mem_req_data) as u32,
                };
                if let Err(e) = self.mem.offer(s as u32, req) {
                    out.protocol.get_or_insert(e);
                }
            }
        }
        m.tick(c.clock);
        self.kernel_cycle += 1;
    }

    /// The performance counters of SM `s` since reset: (issued, idle, conflicts), each its
    /// port's value less the counter base (modulo 2^32).
    pub fn counters(&self, s: usize) -> (u64, u64, u64) {
        let p = &self.p.sm[s];
        let base = self.counter_base as u32;
        let since_reset = |port| u64::from((self.m.get(port) as u32).wrapping_sub(base));
        (
            since_reset(p.ctr_issued),
            since_reset(p.ctr_idle),
            since_reset(p.ctr_conflicts),
        )
    }
}
