//! Performance counters of one SM (docs/microarch/sm.md, "Counters"): warp-instructions issued,
//! idle cycles and register-file bank conflicts, each a 32-bit count since reset.
//!
//! * `ctr_issued` counts cycles with `issued` (one warp-instruction per cycle at most);
//! * `ctr_idle` counts cycles with `idle` (a warp is resident, none issues, the SM is not halted);
//! * `ctr_conflicts` adds, every cycle, the number of banks with `conflict[b]` (a bank that had
//!   more than one request and granted one).
//!
//! The outputs are the registered counts: an event in cycle `c` shows from cycle `c + 1`.
//! `reset` (synchronous) loads each with `base` (0 in a design without verification ports; the
//! co-simulation starts them just below 2^32 so every bit toggles in a short run). Counts wrap
//! at 2^32.

use rust_hdl::prelude::*;

/// The SM's performance counters.
#[derive(LogicBlock)]
pub struct PerfCounters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A warp-instruction issues in this cycle.
    pub issued: Signal<In, Bit>,
    /// A warp is resident, none issues and the SM is not halted.
    pub idle: Signal<In, Bit>,
    /// `conflict[b]`: register-file bank `b` had a conflict in this cycle.
    pub conflict: Vec<Signal<In, Bit>>,
    /// The value `reset` loads into every counter.
    pub base: Signal<In, Bits<32>>,
    pub ctr_issued: Signal<Out, Bits<32>>,
    pub ctr_idle: Signal<Out, Bits<32>>,
    pub ctr_conflicts: Signal<Out, Bits<32>>,
    n_issued: DFF<Bits<32>>,
    n_idle: DFF<Bits<32>>,
    n_conflicts: DFF<Bits<32>>,
    /// Conflicting banks in this cycle.
    conflicts: Signal<Local, Bits<32>>,
    k_zero: Constant<Bits<32>>,
    k_one: Constant<Bits<32>>,
    _banks: usize,
}

impl PerfCounters {
    /// Counters for a register file of `banks` banks.
    pub fn new(banks: usize) -> Self {
        assert!(banks >= 1, "a register file has at least one bank");
        PerfCounters {
            clock: Default::default(),
            reset: Default::default(),
            issued: Default::default(),
            idle: Default::default(),
            conflict: (0..banks).map(|_| Default::default()).collect(),
            base: Default::default(),
            ctr_issued: Default::default(),
            ctr_idle: Default::default(),
            ctr_conflicts: Default::default(),
            n_issued: Default::default(),
            n_idle: Default::default(),
            n_conflicts: Default::default(),
            conflicts: Default::default(),
            k_zero: Constant::new(0u64.into()),
            k_one: Constant::new(1u64.into()),
            _banks: banks,
        }
    }
}

impl Logic for PerfCounters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, n_issued, n_idle, n_conflicts);
        self.conflicts.next = self.k_zero.val();
        for b in 0..self._banks {
            if self.conflict[b].val() {
                self.conflicts.next = self.conflicts.val() + self.k_one.val();
            }
        }
        if self.issued.val() {
            self.n_issued.d.next = self.n_issued.q.val() + self.k_one.val();
        }
        if self.idle.val() {
            self.n_idle.d.next = self.n_idle.q.val() + self.k_one.val();
        }
        self.n_conflicts.d.next = self.n_conflicts.q.val() + self.conflicts.val();
        if self.reset.val() {
            self.n_issued.d.next = self.base.val();
            self.n_idle.d.next = self.base.val();
            self.n_conflicts.d.next = self.base.val();
        }
        self.ctr_issued.next = self.n_issued.q.val();
        self.ctr_idle.next = self.n_idle.q.val();
        self.ctr_conflicts.next = self.n_conflicts.q.val();
    }
}

/// Verilog of the counters for a register file of `banks` banks, top module named `name`.
pub fn perf_counters_verilog(banks: usize, name: &str) -> Result<String, crate::HdlError> {
    let mut uut = PerfCounters::new(banks);
    Ok(crate::rename_top(
        &crate::verilog_of("perf_counters", &mut uut)?,
        name,
    ))
}
