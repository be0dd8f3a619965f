//! The whole GPU of the functional model: launch, CTA dispatch, standalone run and the driven
//! single-step interface used by the RTL co-simulation (docs/isa.md §6–§8).

use std::fmt;

use warpforge_config::GpuConfig;
use warpforge_isa::{memmap, Reconvergence};
use warpforge_loader::KernelImage;

use crate::commit::{Commit, Fault};
use crate::execute::{execute, Event, Program};
use crate::memory::GlobalMemory;
use crate::simt_stack::StackEntry;
use crate::sm::{Cta, Sm, WarpState};
use crate::stats::Stats;

/// Errors of the host interface (bad launch parameters, bad addresses, misuse of `step`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("the kernel text ({text} bytes) does not fit the instruction memory (`imem_bytes` = {imem})")]
    TextTooLarge { text: u32, imem: u32 },
    #[error("the kernel's data segment at 0x{addr:08x} (+{len} bytes) lies outside global memory (`gmem_bytes` = {gmem})")]
    DataOutsideMemory { addr: u32, len: u32, gmem: u32 },
    #[error("global memory is full: {want} more bytes requested, {free} free below the thread stacks (raise `gmem_bytes`)")]
    OutOfMemory { want: u32, free: u32 },
    #[error("address range 0x{addr:08x}+{len} is not in global memory")]
    BadAddress { addr: u32, len: u32 },
    #[error("invalid launch: {0}")]
    Launch(String),
    #[error("warp {warp} of SM {sm} cannot issue: {why}")]
    NotReady { sm: u32, warp: u32, why: String },
    #[error("cannot dispatch a CTA to SM {sm}: {why}")]
    Dispatch { sm: u32, why: String },
}

/// How a standalone run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    Finished,
    Fault(Fault),
    Timeout(Timeout),
}

/// The cycle limit was reached: which warps were still running, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeout {
    pub cycles: u64,
    pub ctas_done: u64,
    pub ctas_total: u64,
    /// (SM, warp, PC, waiting at a barrier)
    pub warps: Vec<(u32, u32, u32, bool)>,
}

impl fmt::Display for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "timeout: the kernel did not finish within {} cycles ({} of {} CTAs done); unfinished warps:",
            self.cycles, self.ctas_done, self.ctas_total
        )?;
        for (sm, w, pc, bar) in &self.warps {
            writeln!(
                f,
                "  SM {sm} warp {w}: pc 0x{pc:08x}{}",
                if *bar { " (waiting at barrier)" } else { "" }
            )?;
        }
        Ok(())
    }
}

struct LaunchState {
    grid: u32,
    block: u32,
    param: u32,
    entry: u32,
    /// [`Gpu::set_cta_base`]'s value at launch: CTA `next_cta` is number `cta_base + next_cta`.
    cta_base: u32,
    next_cta: u32,
    ctas_done: u32,
    warps_per_cta: u32,
    smem_per_cta: u32,
}

/// The functional GPU model.
pub struct Gpu {
    cfg: GpuConfig,
    program: Program,
    entry: u32,
    shared_bytes: u32,
    gmem: GlobalMemory,
    heap_next: u32,
    heap_end: u32,
    sms: Vec<Sm>,
    launch: Option<LaunchState>,
    /// Launched with [`Gpu::launch_driven`]: CTAs are placed only by [`Gpu::dispatch_cta`].
    driven: bool,
    fault: Option<Fault>,
    /// The `cycle` of the SM whose instruction faulted, when it did: in driven mode other SMs
    /// may still issue in that same cycle (the hardware stops them from the next one).
    fault_cycle: u64,
    /// Added to every warp's `instret` CSR (low word, wrapping): 0 as docs/isa.md says;
    /// co-simulation sets the RTL's counter base ([`Gpu::set_instret_base`]).
    instret_base: u32,
    /// The first CTA's number (`ctaid`; then +1 per CTA, wrapping): 0 as docs/isa.md says;
    /// co-simulation may start elsewhere to reach the high bits of `ctaid` and `gtid` in a
    /// short run ([`Gpu::set_cta_base`]).
    cta_base: u32,
    stats: Stats,
    commit: Commit,
}

impl Gpu {
    /// A GPU with `image` in instruction memory and its data in global memory.
    pub fn new(cfg: &GpuConfig, image: &KernelImage) -> Result<Self, SimError> {
        let text_bytes = image.text.len() as u32 * 4;
        if text_bytes > cfg.imem_bytes {
            return Err(SimError::TextTooLarge {
                text: text_bytes,
                imem: cfg.imem_bytes,
            });
        }
        let mut gmem = GlobalMemory::new(cfg.gmem_bytes);
        for seg in &image.data {
            let len = seg.bytes.len() as u32;
            let off = gmem
                .offset(seg.addr, len)
                .ok_or(SimError::DataOutsideMemory {
                    addr: seg.addr,
                    len,
                    gmem: cfg.gmem_bytes,
                })?;
            gmem.bytes_mut()[off..off + len as usize].copy_from_slice(&seg.bytes);
        }
        let stacks = cfg.sms * cfg.warps * cfg.lanes * cfg.stack_bytes;
        let heap_end = memmap::gmem_end(cfg.gmem_bytes).wrapping_sub(stacks);
        let heap_next = image.data_end.max(memmap::GMEM_BASE);
        if heap_next > heap_end {
            return Err(SimError::DataOutsideMemory {
                addr: memmap::GMEM_BASE,
                len: image.data_end.wrapping_sub(memmap::GMEM_BASE),
                gmem: cfg.gmem_bytes,
            });
        }
        Ok(Gpu {
            cfg: cfg.clone(),
            program: Program::new(image),
            entry: image.entry,
            shared_bytes: image.shared_bytes.next_multiple_of(4),
            gmem,
            heap_next,
            heap_end,
            sms: (0..cfg.sms)
                .map(|_| Sm::new(cfg.warps, cfg.lanes, cfg.simt_stack_depth))
                .collect(),
            launch: None,
            driven: false,
            fault: None,
            fault_cycle: 0,
            instret_base: 0,
            cta_base: 0,
            stats: Stats::default(),
            commit: Commit::new(0, 0, 0),
        })
    }

    pub fn config(&self) -> &GpuConfig {
        &self.cfg
    }

    /// Allocate `bytes` of global memory (64-byte aligned, zeroed) for the host.
    pub fn alloc(&mut self, bytes: u32) -> Result<u32, SimError> {
        let addr = self.heap_next.next_multiple_of(64);
        let end = addr as u64 + bytes as u64;
        if end > self.heap_end as u64 {
            return Err(SimError::OutOfMemory {
                want: bytes,
                free: self.heap_end.saturating_sub(addr),
            });
        }
        self.heap_next = end as u32;
        Ok(addr)
    }

    pub fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), SimError> {
        let len = data.len() as u32;
        let off = self
            .gmem
            .offset(addr, len)
            .ok_or(SimError::BadAddress { addr, len })?;
        self.gmem.bytes_mut()[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    pub fn read(&self, addr: u32, len: u32) -> Result<&[u8], SimError> {
        let off = self
            .gmem
            .offset(addr, len)
            .ok_or(SimError::BadAddress { addr, len })?;
        Ok(&self.gmem.bytes()[off..off + len as usize])
    }

    /// The whole global memory (compared at the end of a co-simulation).
    pub fn global_memory(&self) -> &[u8] {
        self.gmem.bytes()
    }

    /// Start a kernel: `grid` CTAs of `block` threads, parameter buffer at `param`.
    pub fn launch(&mut self, grid: u32, block: u32, param: u32) -> Result<(), SimError> {
        self.start_launch(grid, block, param, false)?;
        self.dispatch();
        Ok(())
    }

    /// Driven dispatch (co-simulation): [`Gpu::launch`] with the same checks, but no CTA is
    /// dispatched automatically, neither now nor when a CTA finishes. The driver places every
    /// CTA with [`Gpu::dispatch_cta`] when the RTL reports that it launched one.
    pub fn launch_driven(&mut self, grid: u32, block: u32, param: u32) -> Result<(), SimError> {
        self.start_launch(grid, block, param, true)
    }

    /// Place the next CTA (in index order) on SM `sm`, on its lowest free warp slots
    /// (docs/isa.md §6). Returns the CTA index and the mask of the warp slots it took (bit `w` =
    /// slot `w`). Errors when there is no launch, no CTA is left, `sm` does not exist, or the SM
    /// lacks free warp slots or shared memory for the CTA. Usable after [`Gpu::launch`] too.
    pub fn dispatch_cta(&mut self, sm: u32) -> Result<(u32, u64), SimError> {
        self.dispatch_cta_checked(sm)?;
        let lanes = self.cfg.lanes;
        let s = &mut self.sms[sm as usize];
        let l = self.launch.as_mut().expect("checked");
        Ok(Self::place_cta(s, l, lanes, u64::MAX))
    }

    /// The checks of [`Gpu::dispatch_cta`]: a CTA is left and the SM has room for it.
    fn dispatch_cta_checked(&mut self, sm: u32) -> Result<(), SimError> {
        let cfg = &self.cfg;
        let Some(l) = self.launch.as_mut() else {
            return Err(SimError::Dispatch {
                sm,
                why: "no kernel has been launched".into(),
            });
        };
        if self.fault.is_some() {
            return Err(SimError::Dispatch {
                sm,
                why: "the kernel has faulted".into(),
            });
        }
        if l.next_cta >= l.grid {
            return Err(SimError::Dispatch {
                sm,
                why: format!("all {} CTAs of the grid have been dispatched", l.grid),
            });
        }
        let Some(s) = self.sms.get_mut(sm as usize) else {
            return Err(SimError::Dispatch {
                sm,
                why: format!("there are only {} SMs", cfg.sms),
            });
        };
        let free = s.free_warps();
        if free < l.warps_per_cta as usize {
            return Err(SimError::Dispatch {
                sm,
                why: format!(
                    "CTA {} needs {} warp slots, the SM has {free} free",
                    l.cta_base.wrapping_add(l.next_cta),
                    l.warps_per_cta
                ),
            });
        }
        if s.smem_used + l.smem_per_cta > cfg.smem_bytes {
            return Err(SimError::Dispatch {
                sm,
                why: format!(
                    "CTA {} needs {} bytes of shared memory, the SM has {} of {} in use",
                    l.cta_base.wrapping_add(l.next_cta),
                    l.smem_per_cta,
                    s.smem_used,
                    cfg.smem_bytes
                ),
            });
        }
        Ok(())
    }

    /// Driven mode: like [`Gpu::dispatch_cta`], but the CTA takes exactly the warp slots in
    /// `slots` (bit i = slot i), which must be free here and as many as the CTA needs.
    /// Co-simulation uses it because the model frees a warp's slot when its `wf.exit` is
    /// stepped (at issue), earlier than the RTL, which frees it once the exit has executed; so
    /// the RTL's lowest free slots need not be the model's lowest free slots.
    pub fn dispatch_cta_on(&mut self, sm: u32, slots: u64) -> Result<u32, SimError> {
        let need = self.launch.as_ref().map_or(0, |l| l.warps_per_cta);
        if slots.count_ones() != need {
            return Err(SimError::Dispatch {
                sm,
                why: format!(
                    "a CTA needs {need} warp slots, the RTL gave {} (0x{slots:x})",
                    slots.count_ones()
                ),
            });
        }
        if let Some(s) = self.sms.get(sm as usize) {
            for (i, w) in s.warps.iter().enumerate() {
                if slots >> i & 1 != 0 && w.state != WarpState::Free {
                    return Err(SimError::Dispatch {
                        sm,
                        why: format!("warp slot {i} is still in use in the model"),
                    });
                }
            }
            if slots >> s.warps.len().min(63) != 0 && s.warps.len() < 64 {
                return Err(SimError::Dispatch {
                    sm,
                    why: format!("slots 0x{slots:x} beyond the SM's {} warps", s.warps.len()),
                });
            }
        }
        let cfg_lanes = self.cfg.lanes;
        self.dispatch_cta_checked(sm)?;
        let (s, l) = match (self.sms.get_mut(sm as usize), self.launch.as_mut()) {
            (Some(s), Some(l)) => (s, l),
            _ => unreachable!("checked by dispatch_cta_checked"),
        };
        Ok(Self::place_cta(s, l, cfg_lanes, slots).0)
    }

    /// The checks a launch of `grid` CTAs of `block` threads must pass on this GPU and kernel
    /// (nothing is changed): callers validate a launch with it before any long work.
    pub fn check_launch(&self, grid: u32, block: u32) -> Result<(), SimError> {
        let cfg = &self.cfg;
        if grid == 0 {
            return Err(SimError::Launch(
                "the grid must have at least one CTA".into(),
            ));
        }
        if block == 0 {
            return Err(SimError::Launch(
                "a CTA must have at least one thread".into(),
            ));
        }
        let max_block = cfg.warps * cfg.lanes;
        if block > max_block {
            return Err(SimError::Launch(format!(
                "a CTA of {block} threads does not fit an SM of {} warps x {} lanes (at most {max_block} threads)",
                cfg.warps, cfg.lanes
            )));
        }
        if self.shared_bytes > cfg.smem_bytes {
            return Err(SimError::Launch(format!(
                "the kernel needs {} bytes of shared memory per CTA; an SM has {} (`smem_bytes`)",
                self.shared_bytes, cfg.smem_bytes
            )));
        }
        Ok(())
    }

    fn start_launch(
        &mut self,
        grid: u32,
        block: u32,
        param: u32,
        driven: bool,
    ) -> Result<(), SimError> {
        if self.launch.as_ref().is_some_and(|l| l.ctas_done < l.grid) && self.fault.is_none() {
            return Err(SimError::Launch("a kernel is still running".into()));
        }
        self.check_launch(grid, block)?;
        let cfg = &self.cfg;
        for sm in &mut self.sms {
            *sm = Sm::new(cfg.warps, cfg.lanes, cfg.simt_stack_depth);
        }
        self.fault = None;
        self.fault_cycle = 0;
        self.stats = Stats::default();
        self.launch = Some(LaunchState {
            grid,
            block,
            param,
            entry: self.entry,
            cta_base: self.cta_base,
            next_cta: 0,
            ctas_done: 0,
            warps_per_cta: block.div_ceil(cfg.lanes),
            smem_per_cta: self.shared_bytes,
        });
        self.driven = driven;
        Ok(())
    }

    /// Give CTAs to SMs in index order while they have room (docs/isa.md §6).
    fn dispatch(&mut self) {
        let Some(l) = self.launch.as_mut() else {
            return;
        };
        for sm in self.sms.iter_mut() {
            while l.next_cta < l.grid
                && sm.free_warps() >= l.warps_per_cta as usize
                && sm.smem_used + l.smem_per_cta <= self.cfg.smem_bytes
            {
                Self::place_cta(sm, l, self.cfg.lanes, u64::MAX);
            }
        }
    }

    /// Place CTA `l.next_cta` on `sm` (which has room) on its lowest free warp slots; returns
    /// the CTA index and the mask of the slots taken.
    /// Place the next CTA on the lowest free warp slots among `allowed`.
    fn place_cta(sm: &mut Sm, l: &mut LaunchState, lanes: u32, allowed: u64) -> (u32, u64) {
        let cta_id = l.cta_base.wrapping_add(l.next_cta);
        l.next_cta += 1;
        let slot = match sm.ctas.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                sm.ctas.push(None);
                sm.ctas.len() - 1
            }
        };
        let mut warps = Vec::with_capacity(l.warps_per_cta as usize);
        let mut slots = 0u64;
        for (wi, (slot_idx, warp)) in sm
            .warps
            .iter_mut()
            .enumerate()
            .filter(|(i, w)| w.state == WarpState::Free && (*i >= 64 || allowed >> i & 1 != 0))
            .take(l.warps_per_cta as usize)
            .enumerate()
        {
            let wi = wi as u32;
            let first_tid = wi * lanes;
            let threads = (l.block - first_tid).min(lanes);
            let mask = if threads == 32 {
                u32::MAX
            } else {
                (1u32 << threads) - 1
            };
            warp.state = WarpState::Ready;
            warp.cta_slot = slot;
            warp.warp_in_cta = wi;
            warp.stack.reset(l.entry, mask);
            warp.regs.fill(0);
            warp.live = mask;
            warp.instret = 0;
            warps.push(slot_idx);
            slots |= 1u64 << slot_idx;
        }
        sm.smem_used += l.smem_per_cta;
        sm.ctas[slot] = Some(Cta {
            cta_id,
            live_warps: warps.len() as u32,
            warps,
            waiting: 0,
            smem: vec![0; l.smem_per_cta as usize],
        });
        (cta_id, slots)
    }

    /// True when every CTA of the launch has finished.
    pub fn is_finished(&self) -> bool {
        self.launch.as_ref().is_some_and(|l| l.ctas_done == l.grid)
    }

    pub fn fault(&self) -> Option<&Fault> {
        self.fault.as_ref()
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Warps of an SM that can issue now, in slot order.
    pub fn ready_warps(&self, sm: u32) -> impl Iterator<Item = u32> + '_ {
        self.sms[sm as usize]
            .warps
            .iter()
            .enumerate()
            .filter(|(_, w)| w.state == WarpState::Ready)
            .map(|(i, _)| i as u32)
    }

    /// The SIMT stack of a warp, bottom first (empty for a free slot).
    pub fn warp_stack(&self, sm: u32, warp: u32) -> &[StackEntry] {
        let w = &self.sms[sm as usize].warps[warp as usize];
        if w.state == WarpState::Free {
            &[]
        } else {
            w.stack.entries()
        }
    }

    /// Register `r` of `lane` in a warp slot.
    pub fn reg(&self, sm: u32, warp: u32, lane: u32, r: u8) -> u32 {
        self.sms[sm as usize].warps[warp as usize].regs
            [r as usize * self.cfg.lanes as usize + lane as usize]
    }

    /// The CTA running on a warp slot, if any.
    pub fn warp_cta(&self, sm: u32, warp: u32) -> Option<u32> {
        let s = &self.sms[sm as usize];
        let w = &s.warps[warp as usize];
        (w.state != WarpState::Free).then(|| s.ctas[w.cta_slot].as_ref().map(|c| c.cta_id))?
    }

    /// Set the `cycle` CSR of an SM (co-simulation passes the RTL's cycle).
    pub fn set_cycle(&mut self, sm: u32, cycle: u64) {
        self.sms[sm as usize].cycle = cycle;
    }

    /// Start every warp's `instret` CSR (its low word) at `base` instead of 0: the RTL's
    /// verification ports load their counter base there (docs/verification.md, "Counters").
    pub fn set_instret_base(&mut self, base: u32) {
        self.instret_base = base;
    }

    /// Number the launch's CTAs from `base` instead of 0 (wrapping; `gtid` = `ctaid × ntid +
    /// tid`, mod 2^32, and `nctaid` stays the grid): the RTL's verification ports `cta_base`
    /// and `gtid_base` do the same (docs/verification.md, "CTA numbering"). For the next launch.
    pub fn set_cta_base(&mut self, base: u32) {
        self.cta_base = base;
    }

    /// The first CTA's number ([`Gpu::set_cta_base`]).
    pub fn cta_base(&self) -> u32 {
        self.cta_base
    }

    /// Driven mode: warp `warp` of SM `sm` executes its next instruction now.
    pub fn step(&mut self, sm: u32, warp: u32) -> Result<&Commit, SimError> {
        let not_ready = |why: &str| SimError::NotReady {
            sm,
            warp,
            why: why.to_string(),
        };
        // Another SM's instruction may issue in the cycle of the fault (it reaches the other
        // SMs at the next edge), not after it; the first fault stays the kernel's.
        if self.fault.is_some()
            && self
                .sms
                .get(sm as usize)
                .is_none_or(|s| s.cycle > self.fault_cycle)
        {
            return Err(not_ready("the kernel has faulted"));
        }
        let s = self
            .sms
            .get(sm as usize)
            .ok_or_else(|| not_ready("no such SM"))?;
        let w = s
            .warps
            .get(warp as usize)
            .ok_or_else(|| not_ready("no such warp slot"))?;
        match w.state {
            WarpState::Ready => {}
            WarpState::Free => return Err(not_ready("no CTA is running on this warp slot")),
            WarpState::Barrier => return Err(not_ready("the warp is waiting at a barrier")),
        }
        self.issue(sm as usize, warp as usize);
        Ok(&self.commit)
    }

    /// Standalone run until the kernel finishes, faults, or `max_cycles` rounds pass.
    pub fn run(&mut self, max_cycles: u64) -> RunOutcome {
        self.run_with(max_cycles, |_| {})
    }

    /// [`Gpu::run`] calling `on_commit` for every executed warp-instruction.
    pub fn run_with(&mut self, max_cycles: u64, mut on_commit: impl FnMut(&Commit)) -> RunOutcome {
        if self.launch.is_none() {
            return RunOutcome::Finished;
        }
        let mut cycles = 0u64;
        loop {
            if let Some(f) = self.fault {
                return RunOutcome::Fault(f);
            }
            if self.is_finished() {
                return RunOutcome::Finished;
            }
            if cycles >= max_cycles {
                return RunOutcome::Timeout(self.timeout_report(cycles));
            }
            cycles += 1;
            self.stats.cycles += 1;
            for sm in 0..self.sms.len() {
                if let Some(w) = self.sms[sm].next_ready() {
                    self.sms[sm].last_issued = w;
                    self.issue(sm, w);
                    on_commit(&self.commit);
                    if self.fault.is_some() {
                        break;
                    }
                }
                self.sms[sm].cycle += 1;
            }
        }
    }

    fn timeout_report(&self, cycles: u64) -> Timeout {
        let l = self.launch.as_ref().expect("launched");
        let mut warps = Vec::new();
        for (si, sm) in self.sms.iter().enumerate() {
            for (wi, w) in sm.warps.iter().enumerate() {
                if w.state != WarpState::Free {
                    let pc = w.stack.top().map_or(0, |t| t.pc);
                    warps.push((si as u32, wi as u32, pc, w.state == WarpState::Barrier));
                }
            }
        }
        Timeout {
            cycles,
            ctas_done: l.ctas_done as u64,
            ctas_total: l.grid as u64,
            warps,
        }
    }

    /// Execute one instruction of a ready warp and do the bookkeeping around it.
    fn issue(&mut self, sm_idx: usize, w_idx: usize) {
        let l = self.launch.as_ref().expect("a ready warp implies a launch");
        let cfg = &self.cfg;
        let sm = &mut self.sms[sm_idx];
        let cycle = sm.cycle;
        let warp = &mut sm.warps[w_idx];
        let cta = sm.ctas[warp.cta_slot].as_mut().expect("warp has a CTA");
        let ctx = crate::execute::Context {
            cfg,
            sm: sm_idx as u32,
            warp: w_idx as u32,
            cycle,
            cta_id: cta.cta_id,
            ntid: l.block,
            nctaid: l.grid,
            param: l.param,
            instret_base: self.instret_base,
        };
        self.commit.sm = sm_idx as u32;
        self.commit.warp = w_idx as u32;
        let event = execute(
            &ctx,
            &self.program,
            warp,
            &mut cta.smem,
            &mut self.gmem,
            &mut self.commit,
            &mut self.stats,
        );
        if let Some(f) = self.commit.fault {
            if self.fault.is_none() {
                self.fault = Some(f);
                self.fault_cycle = cycle;
            }
            return;
        }
        warp.instret += 1;
        self.stats.warp_instrs += 1;
        self.stats.thread_instrs += self.commit.mask.count_ones() as u64;
        self.stats.max_stack_depth = self.stats.max_stack_depth.max(warp.stack.len() as u32);
        match event {
            Event::None => {}
            Event::Barrier => {
                warp.state = WarpState::Barrier;
                cta.waiting += 1;
                if cta.waiting == cta.live_warps {
                    Self::release_barrier(sm, sm.warps[w_idx].cta_slot, &mut self.stats);
                }
            }
            Event::Finished => {
                warp.state = WarpState::Free;
                let slot = warp.cta_slot;
                cta.live_warps -= 1;
                if cta.live_warps == 0 {
                    sm.ctas[slot] = None;
                    sm.smem_used -= l.smem_per_cta;
                    self.stats.ctas_done += 1;
                    self.launch.as_mut().expect("launched").ctas_done += 1;
                    if !self.driven {
                        self.dispatch();
                    }
                } else if cta.waiting == cta.live_warps {
                    Self::release_barrier(sm, slot, &mut self.stats);
                }
            }
        }
    }

    fn release_barrier(sm: &mut Sm, cta_slot: usize, stats: &mut Stats) {
        let cta = sm.ctas[cta_slot].as_mut().expect("CTA");
        cta.waiting = 0;
        // `cta.warps` keeps the slots of warps that have finished, and a finished warp's
        // slot may hold a warp of another CTA by now (found by `cta_slots`): release only the
        // warps still in this CTA.
        for &w in &cta.warps {
            if sm.warps[w].state == WarpState::Barrier && sm.warps[w].cta_slot == cta_slot {
                sm.warps[w].state = WarpState::Ready;
            }
        }
        stats.barriers += 1;
    }

    /// Reconvergence sidecar of the instruction at `pc` (for reports and tests).
    pub fn reconvergence_at(&self, pc: u32) -> Reconvergence {
        self.program.reconvergence(pc)
    }
}
