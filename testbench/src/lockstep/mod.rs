//! The lock-step runner: the Verilated GPU (`warpforge_top`, docs/microarch/sm.md) against
//! the golden model (`warpforge_sim::Gpu`, driven mode), every cycle.
//!
//! # Flow of [`cosim`]
//!
//! 1. Generate the top's Verilog ([`warpforge_hdl::top::top_verilog`]), Verilate and compile it
//!    ([`crate::verilator_model::build`], cached on disk under
//!    [`crate::unit::cache_dir`] by the Verilog text, and in the process by configuration and
//!    [`TopOptions`]: a regression builds each configuration once).
//! 2. Reset (2 cycles), write the kernel text and its reconvergence sidecar
//!    ([`warpforge_isa::Reconvergence::to_word`]) into instruction memory through `imem_*`
//!    (one word per cycle, word index = address / 4), set `launch_*` (`launch_shared` = the
//!    image's shared size rounded up to 4 bytes, as the model does), copy the model's global
//!    memory into the [`MemoryModel`], launch the model with [`Gpu::launch_driven`].
//! 3. Clock. Kernel cycle 0 is the cycle with `start` high. In every cycle: drive each SM's
//!    `mem_req_ready` / `mem_resp_*` from the memory model, `eval()`, read every output, give
//!    valid memory requests to the memory model (accepted when ready), check the trace records,
//!    rising edge.
//!
//! # Checks, in this order within a cycle (SMs in index order)
//!
//! * **CTA launch** (`tr_cta_*`): the RTL must launch the next CTA in index order, and the
//!   model places it on the RTL's warp slots ([`Gpu::dispatch_cta_on`]), which must be free in
//!   the model and as many as the CTA needs. (The model frees a warp's slot when its last
//!   `wf.exit` is stepped, at issue, earlier than the RTL, so the RTL's lowest free slots need
//!   not be the model's.)
//! * **writeback** (`tr_wb_*`) and **store** (`tr_st_*`) records complete the instruction that
//!   holds their tag: `rd`, mask and every masked lane's value; store size, mask, and every
//!   lane's address and data; every lane outside the mask (and beyond `lanes`) must read 0, as
//!   each unit's contract says. (They are checked before the issue records of the same cycle,
//!   so a tag freed and reallocated in one cycle is fine.)
//! * **scheduler** (`tr_ready`, `tr_launch`, `tr_long`, every cycle): the reference warp
//!   scheduler ([`warpforge_sim::scheduler`]) steps with them and must grant the warp of the
//!   grant record (`tr_grant_*`, the warp entering the issue stage; none without one); a warp
//!   waiting long is never ready (every policy).
//! * **scoreboard**, at each issue: no pending write (issued, writeback record not yet seen) of
//!   the warp to a register the instruction reads or writes, and fewer than
//!   `scoreboard_entries` pending writes when it has a destination — except ALU and multiplier
//!   results whose writeback comes in the next cycle (early release with forwarding).
//! * **issue** (`tr_issue_*`): the model's cycle CSR is set to the RTL's `cycle_count` of this
//!   cycle, then [`Gpu::step`] executes that warp's next instruction; PC, instruction word and
//!   mask must agree. Exception: a `jalr` whose lanes' targets differ executes only a group of
//!   the issue mask; the model's mask must then be a non-empty subset of the issue mask, and
//!   the writeback record's mask must equal the model's. Commits with a destination or a store
//!   wait under their tag (a tag issued again while pending is a mismatch).
//! * **fault**: when the model's commit faults, the RTL must raise `fault` within the hang
//!   window with the same SM, warp, PC, cause, and lane / address where the model has one;
//!   records after the faulting issue are not checked (the model stops at the fault). If the
//!   RTL raises `fault` for an instruction it never reported as issued, the model steps that
//!   warp and must fault the same way. Either way the run ends successfully with
//!   [`CosimOutcome::Fault`], like the model's own run.
//! * **counters**, every cycle: reset loads the launch's counter base through `ctr_base` (just below
//!   the wrap, so every counter bit toggles in a short run); `cycle_count` must be
//!   [`kernel_start_cycle`] plus the kernel cycle, and each SM's `ctr_issued`, `ctr_idle` and
//!   `ctr_conflicts` the base plus its events so far (issue records, `tr_idle`, the banks set
//!   in `tr_conflicts`); `tr_idle` never comes with an issue record, `tr_conflicts` has no bank
//!   above `rf_banks`. At the end `ctr_issued` must equal the SM's issue records.
//! * **done**: the model must have finished, no writeback or store may be pending, no read may
//!   be outstanding, and the memory model's global memory must equal the model's byte for byte.
//!   `done` must therefore not rise before the last store has been accepted by its port.
//! * **watchdogs**: `max_cycles` kernel cycles ([`CosimError::Timeout`]); no trace record for
//!   the hang window ([`CosimError::Hang`]); both name every live warp and pending tag.
//!
//! The first failure stops the run with a [`MismatchReport`]. With
//! [`CosimOptions::vcd_on_failure`], the same simulation is re-run with a traced build of the
//! same Verilog and the same memory settings, and a VCD is written of kernel cycles
//! `failure - 200 ..= failure + 5` (a mismatch) or `last record - 200 ..= last record + 200`
//! (a timeout or hang).
//!
//! With `check: false` only Verilator and the memory model run (for measuring the checker's
//! overhead); the run ends at `done` or `fault`.

mod ports;
mod report;
mod rtl;
pub mod script;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;
use warpforge_config::GpuConfig;
use warpforge_hdl::top::{top_verilog, InjectedFault, TopOptions, TOP_NAME};
use warpforge_isa::{decode, disassemble, Instr, REG_NAMES};
use warpforge_loader::KernelImage;
use warpforge_sim::{Commit, Fault, FaultCause, Gpu};

pub use report::{
    CosimError, FieldDiff, LiveWarp, MismatchReport, RecordKind, RunContext, StallReport, Value,
};

use crate::memory_model::{MemoryModel, MemorySettings, PortStats};
use crate::verilator_model::{build, LoadedModel, ModelBuild};
use ports::TopPorts;
pub use rtl::{kernel_start_cycle, COUNTER_BASE};
use rtl::{CounterRec, CycleOut, IssueRec, RtlFault, Session, SmOut, StRec, WbRec};

/// Default limit of kernel cycles.
pub const DEFAULT_MAX_CYCLES: u64 = 5_000_000;
/// Matching commits kept for the mismatch report.
pub const HISTORY: usize = 16;
/// Kernel cycles before the failure that the VCD covers.
pub const VCD_BEFORE: u64 = 200;
/// Kernel cycles after the failure that the VCD covers.
pub const VCD_AFTER: u64 = 5;
/// Cycles a fault record may follow a cycle whose `tr_idle` fell while warps lived (a fault
/// halts the SMs before the top level reports it): [`Session::check_idle`].
pub const IDLE_FAULT_SLACK: u64 = 4;

/// Kernel launch shape and parameter buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub grid: u32,
    pub block: u32,
    /// Address of the parameter buffer (already written into the model's memory).
    pub param: u32,
    /// The first CTA's number, 0 but in directed tests of the CTA numbering's high bits
    /// (the verification ports `cta_base`/`gtid_base`, [`Gpu::set_cta_base`]).
    pub cta_base: u32,
    /// What reset loads into the counters through the verification port `ctr_base`
    /// ([`COUNTER_BASE`] but in a kernel's cases, which take `COUNTER_BASES` in turn).
    pub counter_base: u64,
}

impl Launch {
    /// A launch of `grid` CTAs of `block` threads, CTAs numbered from 0.
    pub fn new(grid: u32, block: u32, param: u32) -> Self {
        Launch {
            grid,
            block,
            param,
            cta_base: 0,
            counter_base: COUNTER_BASE,
        }
    }
}

/// How to run.
#[derive(Clone, Debug)]
pub struct CosimOptions {
    pub mem: MemorySettings,
    /// Kernel cycles before [`CosimError::Timeout`].
    pub max_cycles: u64,
    /// Kernel cycles without any trace record before [`CosimError::Hang`]; `None`:
    /// 20 000 + 100 × the memory's largest latency.
    pub hang_cycles: Option<u64>,
    /// `false`: Verilator and the memory model only, no golden model (overhead measurement).
    pub check: bool,
    /// Write a VCD of the window around a failure into this directory.
    pub vcd_on_failure: Option<PathBuf>,
    /// After a run that passed, write a VCD of the whole kernel (from reset) to this file
    /// (the run is repeated on a traced build; [`CosimReport::waves`] names the file).
    pub waves: Option<PathBuf>,
    /// Inputs of the top level beyond its normal ports, held at a value for the whole run
    /// (e.g. the `mutsel` input of a design with several mutations, each active at one value:
    /// `warpforge mutate`). A name the design does not have is an error.
    pub pin_inputs: Vec<(String, u64)>,
    /// The command that reproduces this run (printed in failure reports).
    pub repro: String,
    /// Build the RTL with a deliberate bug (proves that co-simulation catches it).
    pub inject: Option<InjectedFault>,
    /// Simulate this Verilog file (top module `warpforge_top`, the ports of
    /// docs/microarch/sm.md) instead of generating the top from the configuration: a
    /// hand-edited netlist, or a [`script`] replay. `inject` does not apply to it.
    pub verilog: Option<PathBuf>,
}

impl Default for CosimOptions {
    fn default() -> Self {
        CosimOptions {
            mem: MemorySettings::zero(),
            max_cycles: DEFAULT_MAX_CYCLES,
            hang_cycles: None,
            check: true,
            vcd_on_failure: None,
            waves: None,
            pin_inputs: Vec::new(),
            repro: String::new(),
            inject: None,
            verilog: None,
        }
    }
}

impl CosimOptions {
    /// The hang window in effect.
    pub fn hang_window(&self) -> u64 {
        self.hang_cycles
            .unwrap_or(20_000 + 100 * u64::from(self.mem.max_latency()))
    }
}

/// How the kernel ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CosimOutcome {
    Finished,
    /// The kernel stopped on this fault, reported identically by the RTL and the model (when
    /// checking; otherwise as the RTL reported it).
    Fault(Fault),
}

/// Counters of one SM at the end of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SmCounters {
    /// `ctr_issued`: warp-instructions issued.
    pub issued: u64,
    /// `ctr_idle`: cycles with a live warp and no issue.
    pub idle: u64,
    /// `ctr_conflicts`: register-file bank-conflict events.
    pub conflicts: u64,
    /// The highest tag the SM issued with, plus one: the most instructions it held in flight
    /// at an issue (tags are allocated lowest first), at most `GpuConfig::tags_per_sm`.
    pub tags_used: u32,
    /// The memory port.
    pub mem: PortStats,
}

/// How the RTL model was obtained.
#[derive(Clone, Debug, Default)]
pub struct BuildInfo {
    /// The generated Verilog.
    pub verilog: PathBuf,
    /// The Verilog came from the disk cache (not generated in this run).
    pub verilog_cached: bool,
    /// The compiled model.
    pub library: PathBuf,
    /// Built earlier (in this process or on disk): nothing was compiled.
    pub cache_hit: bool,
    /// Time to generate the Verilog (zero when it came from this process's cache).
    pub generate: Duration,
    /// Time to Verilate, compile and load (or just load).
    pub build: Duration,
    /// Of `build`: time in verilator (zero on a cache hit).
    pub verilate: Duration,
    /// Of `build`: compiling the Verilator runtime (once per cache directory).
    pub runtime_compile: Duration,
    /// Of `build`: compiling and linking the model.
    pub model_compile: Duration,
}

impl BuildInfo {
    fn new(verilog: PathBuf, m: &LoadedModel, generate: Duration, build: Duration) -> Self {
        let r = m.build_report();
        BuildInfo {
            verilog,
            verilog_cached: false,
            library: m.library_path().to_path_buf(),
            cache_hit: r.cache_hit,
            generate,
            build,
            verilate: r.verilate,
            runtime_compile: r.runtime_compile,
            model_compile: r.model_compile + r.link,
        }
    }
}

/// A completed co-simulation.
#[derive(Clone, Debug)]
pub struct CosimReport {
    pub config_name: String,
    pub config_hash: String,
    pub mem: MemorySettings,
    /// Whether the golden model checked the run.
    pub checked: bool,
    pub outcome: CosimOutcome,
    /// Kernel cycles: from the start pulse to the cycle `done` (or `fault`) was seen.
    pub cycles: u64,
    pub sms: Vec<SmCounters>,
    /// Issue records seen on the trace ports.
    pub issue_records: u64,
    /// Warp-instructions issued (all SMs, `ctr_issued`) per kernel cycle: the GPU's IPC, summed
    /// over the SMs (per SM: [`CosimReport::ipc_per_sm`]).
    pub ipc: f64,
    pub build: BuildInfo,
    /// Wall time of the kernel's cycles (the checking loop; building, reset, instruction load
    /// and setting up memory excluded).
    pub wall: Duration,
    /// Global memory as the RTL left it (from `GMEM_BASE`).
    pub global_memory: Vec<u8>,
    /// The VCD of the whole run ([`CosimOptions::waves`]): the file and what it holds, or why
    /// it could not be written.
    pub waves: Option<Result<(PathBuf, String), String>>,
}

impl CosimReport {
    /// Warp-instructions issued per kernel cycle per SM ([`CosimReport::ipc`] is summed over
    /// the SMs).
    pub fn ipc_per_sm(&self) -> f64 {
        self.ipc / self.sms.len().max(1) as f64
    }
    pub fn issued(&self) -> u64 {
        self.sms.iter().map(|s| s.issued).sum()
    }
    pub fn idle(&self) -> u64 {
        self.sms.iter().map(|s| s.idle).sum()
    }
    pub fn conflicts(&self) -> u64 {
        self.sms.iter().map(|s| s.conflicts).sum()
    }
    /// Simulated kernel cycles per second of wall time.
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.wall.as_secs_f64().max(1e-9)
    }
    /// `len` bytes of the RTL's global memory at `addr` (`None` outside global memory).
    pub fn read(&self, addr: u32, len: u32) -> Option<&[u8]> {
        let off = addr.checked_sub(warpforge_isa::memmap::GMEM_BASE)? as usize;
        self.global_memory.get(off..off + len as usize)
    }
}

/// What a checked record was, for [`cosim_observed`]'s observer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    CtaLaunch {
        cta: u32,
        warps: u64,
    },
    Issue,
    Writeback {
        rd: u8,
    },
    /// `bytes` = 1, 2 or 4.
    Store {
        bytes: u8,
    },
}

/// A trace record after it was checked (or as read, when not checking). `warp`, `pc`, `instr`
/// of writeback and store records come from the issue record of their tag.
#[derive(Clone, Copy, Debug)]
pub struct TraceEvent<'a> {
    pub kind: EventKind,
    /// Cycles since reset: the RTL's `cycle_count` less the counter base.
    pub cycle: u64,
    pub kernel_cycle: u64,
    pub sm: u32,
    /// Warp slot (for a CTA launch: its lowest slot).
    pub warp: u32,
    pub tag: u32,
    pub pc: u32,
    pub instr: u32,
    /// Issue mask, writeback mask or store mask.
    pub mask: u32,
    /// Writeback values or store data, one per lane (empty otherwise).
    pub values: &'a [u32],
    /// Store addresses, one per lane (empty otherwise).
    pub addrs: &'a [u32],
}

// ---------------------------------------------------------------------------------------------
// Building the RTL model

struct CachedModel {
    cfg: GpuConfig,
    inject: Option<InjectedFault>,
    trace: bool,
    proto: LoadedModel,
    info: BuildInfo,
}

static MODELS: Mutex<Vec<CachedModel>> = Mutex::new(Vec::new());

/// The generated Verilog of a configuration, from [`top_verilog_file`].
#[derive(Clone, Debug)]
pub struct GeneratedVerilog {
    /// The file (under the cache; do not modify it).
    pub path: PathBuf,
    /// It was in the cache: nothing was generated.
    pub cached: bool,
    /// Time to generate (or find) it.
    pub elapsed: Duration,
}

/// The cache key of a configuration's generated top: the generator's fingerprint (every
/// source that shapes the Verilog, [`warpforge_hdl::GENERATOR_FINGERPRINT`]), the resolved
/// configuration and the top-level options. Not the configuration's name alone: two files
/// with the same name and different fields have different keys.
pub fn verilog_cache_key(cfg: &GpuConfig, opts: &TopOptions) -> String {
    use crate::unit::{fnv1a, FNV_OFFSET};
    let mut h = FNV_OFFSET;
    for part in [
        warpforge_hdl::GENERATOR_FINGERPRINT,
        &cfg.to_toml(),
        &format!("{opts:?}"),
    ] {
        h = fnv1a(h, &(part.len() as u64).to_le_bytes());
        h = fnv1a(h, part.as_bytes());
    }
    format!("{h:016x}")
}

/// The top-level Verilog of `cfg`: generated once per configuration, top options and
/// generator version, then read from `<cache>/verilog/` (generating `small` takes seconds;
/// finding it, a millisecond).
pub fn top_verilog_file(cfg: &GpuConfig, opts: &TopOptions) -> Result<GeneratedVerilog, String> {
    let t0 = Instant::now();
    let dir = crate::unit::cache_dir().join("verilog");
    let path = dir.join(format!("{TOP_NAME}-{}.v", verilog_cache_key(cfg, opts)));
    if path.is_file() {
        return Ok(GeneratedVerilog {
            path,
            cached: true,
            elapsed: t0.elapsed(),
        });
    }
    let text = top_verilog(cfg, opts)
        .map_err(|e| format!("generating the Verilog of `{}` failed: {e}", cfg.name))?;
    crate::unit::write_atomically(&path, text.as_bytes())
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(GeneratedVerilog {
        path,
        cached: false,
        elapsed: t0.elapsed(),
    })
}

/// A fresh instance of the Verilated `warpforge_top` for `cfg` (and `inject`; `trace` builds
/// with VCD support). Generated, Verilated and compiled once per process and configuration;
/// the compiled library is also cached on disk by the Verilog text.
pub fn build_rtl(
    cfg: &GpuConfig,
    inject: Option<InjectedFault>,
    trace: bool,
) -> Result<(LoadedModel, BuildInfo), CosimError> {
    let mut cache = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = cache
        .iter()
        .find(|c| c.cfg == *cfg && c.inject == inject && c.trace == trace)
    {
        let info = BuildInfo {
            cache_hit: true,
            generate: Duration::ZERO,
            build: Duration::ZERO,
            verilate: Duration::ZERO,
            runtime_compile: Duration::ZERO,
            model_compile: Duration::ZERO,
            ..c.info.clone()
        };
        return Ok((c.proto.new_instance(), info));
    }
    let opts = TopOptions {
        inject,
        ..TopOptions::default()
    };
    let generated = top_verilog_file(cfg, &opts).map_err(CosimError::Build)?;
    let t1 = Instant::now();
    let m = verilate(&generated.path, trace, Source::Generated)?;
    let mut info = BuildInfo::new(generated.path, &m, generated.elapsed, t1.elapsed());
    info.verilog_cached = generated.cached;
    let inst = m.new_instance();
    cache.push(CachedModel {
        cfg: cfg.clone(),
        inject,
        trace,
        proto: m,
        info: info.clone(),
    });
    Ok((inst, info))
}

/// Where the Verilog of a run comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// This generator's own output (`top_verilog_file`).
    Generated,
    /// A file the user gave (`--verilog`): a mutant design, an edited netlist, yosys's output.
    Given,
}

/// Verilate, compile and load `verilog` (top `warpforge_top`), cached on disk.
fn verilate(verilog: &Path, trace: bool, source: Source) -> Result<LoadedModel, CosimError> {
    // The generated top is lint-clean (its own tests check `--lint-only -Wall`); a warning
    // must not stop a co-simulation.
    let mut verilator_args = vec!["-Wno-fatal".to_string()];
    if source == Source::Given {
        // Verilator 5.006's DFG optimiser miscompiles a cell output port connected to a
        // concatenation whose bits are driven again by an `assign` (the pattern yosys's
        // `mutate` writes for a mutated cell port): it made `{a[63:48], x, a[46:0]}` with
        // `a[47] = sel ? 1 : x` a constant 1 (small's seed-1 mutant design, mutsel = 0).
        // Without DFG (`-fno-dfg`) its C++ is right; later Verilator releases reworked DFG's
        // concatenation assignments (e.g. verilator PR 6255), not checked here.
        verilator_args.push("-fno-dfg".into());
    }
    build(&ModelBuild {
        top: TOP_NAME.to_string(),
        verilog_files: vec![verilog.to_path_buf()],
        cache_dir: crate::unit::cache_dir(),
        trace,
        verilator_args,
    })
    .map_err(|e| CosimError::Build(format!("building the Verilated model: {e}")))
}

/// Hold the inputs of [`CosimOptions::pin_inputs`] at their values.
fn pin_inputs(m: &mut LoadedModel, opts: &CosimOptions) -> Result<(), String> {
    for (name, value) in &opts.pin_inputs {
        let id = m
            .port(name)
            .map_err(|e| format!("pinning input `{name}`: {e}"))?;
        if m.ports()[id.index()].dir != crate::verilator_model::PortDir::Input {
            return Err(format!("pinning input `{name}`: it is not an input"));
        }
        m.set(id, *value);
    }
    Ok(())
}

/// The model for a run: generated from the configuration, or `opts.verilog`.
fn obtain_model(
    cfg: &GpuConfig,
    opts: &CosimOptions,
    trace: bool,
) -> Result<(LoadedModel, BuildInfo), CosimError> {
    match &opts.verilog {
        None => build_rtl(cfg, opts.inject, trace),
        Some(path) => {
            let t = Instant::now();
            let m = verilate(path, trace, Source::Given)?;
            let info = BuildInfo::new(path.clone(), &m, Duration::ZERO, t.elapsed());
            Ok((m, info))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The run

/// What the checking loop clocks: the Verilated top, or (in tests) a script.
trait Dut {
    fn cycle(&mut self, out: &mut CycleOut);
    fn memory(&self) -> &MemoryModel;
    fn kernel_cycle(&self) -> u64;
}

impl Dut for Session {
    fn cycle(&mut self, out: &mut CycleOut) {
        Session::cycle(self, out)
    }
    fn memory(&self) -> &MemoryModel {
        &self.mem
    }
    fn kernel_cycle(&self) -> u64 {
        self.kernel_cycle
    }
}

/// Cycles after a fault's first cycle in which its report is checked to be held.
pub const FAULT_HOLD_CYCLES: u64 = 4;

/// Clock `dut` and check every cycle until the kernel ends or a check or watchdog fails.
/// Returns the outcome and the kernel cycle it was seen in.
fn run_loop(
    dut: &mut dyn Dut,
    ck: &mut Checker,
    opts: &CosimOptions,
    observer: &mut dyn FnMut(&TraceEvent),
) -> Result<(CosimOutcome, u64), CosimError> {
    let hang = opts.hang_window();
    let mut out = CycleOut::default();
    loop {
        let kc = dut.kernel_cycle();
        if kc >= opts.max_cycles {
            return Err(CosimError::Timeout(Box::new(ck.stall(
                &out,
                kc,
                opts.max_cycles,
                dut.memory(),
            ))));
        }
        dut.cycle(&mut out);
        if let Some(outcome) = ck.on_cycle(&out, kc, dut.memory(), observer)? {
            if let (CosimOutcome::Fault(_), Some(first)) = (&outcome, out.fault) {
                // The report is held until reset: clock on and check that it stays put (a
                // fault register that changes after its first cycle is a bug the first
                // cycle alone cannot show).
                for _ in 0..FAULT_HOLD_CYCLES {
                    let k = dut.kernel_cycle();
                    dut.cycle(&mut out);
                    ck.check_fault_held(&first, out.fault.as_ref(), k)?;
                }
            }
            return Ok((outcome, kc));
        }
        if kc - ck.last_record >= hang {
            return Err(CosimError::Hang(Box::new(ck.stall(
                &out,
                kc,
                hang,
                dut.memory(),
            ))));
        }
    }
}

/// Run `image` on the RTL in lock-step with `model` (global memory set up, not launched).
pub fn cosim(
    cfg: &GpuConfig,
    image: &KernelImage,
    model: Gpu,
    launch: Launch,
    opts: &CosimOptions,
) -> Result<CosimReport, CosimError> {
    cosim_observed(cfg, image, model, launch, opts, &mut |_| {})
}

/// [`cosim`], calling `observer` with every trace record after it has been checked.
pub fn cosim_observed(
    cfg: &GpuConfig,
    image: &KernelImage,
    mut model: Gpu,
    launch: Launch,
    opts: &CosimOptions,
    observer: &mut dyn FnMut(&TraceEvent),
) -> Result<CosimReport, CosimError> {
    opts.mem
        .validate()
        .map_err(|e| CosimError::Build(e.to_string()))?;
    if cfg.lanes as usize > warpforge_sim::MAX_LANES {
        return Err(CosimError::Build(format!(
            "{} lanes: the trace records hold at most {}",
            cfg.lanes,
            warpforge_sim::MAX_LANES
        )));
    }
    // Before the (possibly minutes-long) build: a launch the model refuses never runs.
    model
        .check_launch(launch.grid, launch.block)
        .map_err(|e| CosimError::Build(format!("the launch is refused: {e}")))?;
    let (mut m, build_info) = obtain_model(cfg, opts, false)?;
    pin_inputs(&mut m, opts).map_err(CosimError::Build)?;
    let ports =
        TopPorts::resolve(&m, cfg.sms as usize, cfg.lanes as usize).map_err(CosimError::Build)?;
    if opts.check {
        model.set_cta_base(launch.cta_base);
        model
            .launch_driven(launch.grid, launch.block, launch.param)
            .map_err(|e| CosimError::Build(format!("the model refused the launch: {e}")))?;
    }
    let initial = model.global_memory().to_vec();
    let context = RunContext {
        config_name: cfg.name.clone(),
        config_hash: cfg.hash_hex(),
        mem: opts.mem.clone(),
        vcd: None,
        vcd_note: Some(if opts.vcd_on_failure.is_some() {
            "not written".into()
        } else {
            "not requested".into()
        }),
        repro: opts.repro.clone(),
    };

    let mut sess = Session::new(m, ports, cfg, &opts.mem, initial.clone());
    sess.prepare(image, &launch);
    let mut ck = Checker::new(cfg, image, model, launch.counter_base, opts, context);
    let t0 = Instant::now();
    let result = run_loop(&mut sess, &mut ck, opts, observer);
    let wall = t0.elapsed();

    match result {
        Ok((outcome, kc)) => {
            let sms: Vec<SmCounters> = (0..cfg.sms as usize)
                .map(|s| {
                    let (issued, idle, conflicts) = sess.counters(s);
                    SmCounters {
                        issued,
                        idle,
                        conflicts,
                        tags_used: ck.tags_used[s],
                        mem: sess.mem.port_stats(s as u32).clone(),
                    }
                })
                .collect();
            if opts.check {
                // `ctr_issued` counts grants since reset; every grant is an issue record.
                if let Some((s, c)) = sms
                    .iter()
                    .enumerate()
                    .find(|(s, c)| c.issued != ck.issued[*s])
                {
                    return Err(ck.mismatch(
                        RecordKind::Done,
                        Some(s as u32),
                        None,
                        None,
                        format!(
                            "the issue counter `ctr_issued` reads {} but the SM made {} issue records",
                            c.issued, ck.issued[s]
                        ),
                        None,
                        Vec::new(),
                        Vec::new(),
                    ));
                }
            }
            let issued: u64 = sms.iter().map(|s| s.issued).sum();
            Ok(CosimReport {
                config_name: cfg.name.clone(),
                config_hash: cfg.hash_hex(),
                mem: opts.mem.clone(),
                checked: opts.check,
                outcome,
                cycles: kc,
                ipc: issued as f64 / kc.max(1) as f64,
                sms,
                issue_records: ck.issue_records,
                build: build_info,
                wall,
                global_memory: sess.mem.into_global_memory(),
                waves: opts.waves.as_ref().map(|path| {
                    write_vcd_to(cfg, image, &launch, opts, initial, (0, kc), path.clone())
                }),
            })
        }
        Err(mut e) => {
            drop(sess);
            if let Some(dir) = &opts.vcd_on_failure {
                // A mismatch: the cycles before it. A stall: around the last trace record.
                let window = match &e {
                    CosimError::Mismatch(m) => Some((
                        m.kernel_cycle.saturating_sub(VCD_BEFORE),
                        m.kernel_cycle + VCD_AFTER,
                    )),
                    CosimError::Timeout(s) | CosimError::Hang(s) => Some((
                        s.last_record.saturating_sub(VCD_BEFORE),
                        (s.last_record + VCD_BEFORE).min(s.kernel_cycle),
                    )),
                    CosimError::Build(_) => None,
                };
                if let Some(window) = window {
                    let r = write_vcd(cfg, image, &launch, opts, initial, window, dir);
                    let ctx = match &mut e {
                        CosimError::Mismatch(m) => &mut m.context,
                        CosimError::Timeout(s) | CosimError::Hang(s) => &mut s.context,
                        CosimError::Build(_) => unreachable!(),
                    };
                    match r {
                        Ok((path, note)) => {
                            ctx.vcd = Some(path);
                            ctx.vcd_note = Some(note);
                        }
                        Err(why) => ctx.vcd_note = Some(format!("writing it failed: {why}")),
                    }
                }
            }
            Err(e)
        }
    }
}

/// Re-run the same simulation on a traced build and dump kernel cycles `from ..= to` into a
/// VCD file in `dir`, named after the configuration, memory setting and window.
fn write_vcd(
    cfg: &GpuConfig,
    image: &KernelImage,
    launch: &Launch,
    opts: &CosimOptions,
    initial: Vec<u8>,
    (from, to): (u64, u64),
    dir: &Path,
) -> Result<(PathBuf, String), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let hash = cfg.hash_hex();
    let path = dir.join(format!(
        "{TOP_NAME}-{}-{}-{}-k{from}-{to}.vcd",
        cfg.name,
        &hash[..8],
        opts.mem.name.trim_end_matches('*')
    ));
    write_vcd_to(cfg, image, launch, opts, initial, (from, to), path)
}

/// [`write_vcd`] into the file `path`.
fn write_vcd_to(
    cfg: &GpuConfig,
    image: &KernelImage,
    launch: &Launch,
    opts: &CosimOptions,
    initial: Vec<u8>,
    (from, to): (u64, u64),
    path: PathBuf,
) -> Result<(PathBuf, String), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let (mut m, _) = obtain_model(cfg, opts, true).map_err(|e| e.to_string())?;
    pin_inputs(&mut m, opts)?;
    let ports = TopPorts::resolve(&m, cfg.sms as usize, cfg.lanes as usize)?;
    let mut sess = Session::new(m, ports, cfg, &opts.mem, initial);
    let open = |s: &mut Session| {
        s.m.open_trace(&path)
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    if from == 0 {
        open(&mut sess)?;
    }
    sess.prepare(image, launch);
    let mut out = CycleOut::default();
    let mut t_from = sess.m.time();
    while sess.kernel_cycle <= to {
        if sess.kernel_cycle == from && from > 0 {
            open(&mut sess)?;
            t_from = sess.m.time();
        }
        sess.cycle(&mut out);
    }
    let t_to = sess.m.time();
    sess.m.close_trace();
    Ok((
        path,
        format!(
            "kernel cycles {from}..={to}{}, VCD time {t_from}..{t_to}, {} per cycle",
            if from == 0 {
                " with reset and instruction load before"
            } else {
                ""
            },
            2 * crate::verilator_model::HALF_PERIOD
        ),
    ))
}

/// An instruction waiting for its writeback or store record.
/// An issue the checker allowed ahead of forwarded writebacks: at least `need` of the
/// `producers` (tag, issue cycle) must write back by cycle `due`.
#[derive(Clone, Debug)]
struct EarlyIssue {
    producers: Vec<(usize, u64)>,
    need: usize,
    due: u64,
    what: String,
}

struct Pending {
    commit: Commit,
    issue_cycle: u64,
    issue_mask: u32,
}

/// The RTL's view of an issued tag.
#[derive(Clone, Copy)]
struct TagInfo {
    rec: IssueRec,
    cycle: u64,
}

struct Checker<'a> {
    cfg: &'a GpuConfig,
    image: &'a KernelImage,
    model: Gpu,
    check: bool,
    lanes: usize,
    /// `[sm][tag]`: the model's commit waiting for the record of that tag.
    pending: Vec<Vec<Option<Pending>>>,
    /// Issues allowed ahead of a forwarded writeback, per SM: (producer tag, producer issue
    /// cycle, the cycle its writeback must come in, what the consumer is).
    early: Vec<Vec<EarlyIssue>>,
    /// `[sm][tag]`: the RTL's last issue record of that tag.
    tags: Vec<Vec<Option<TagInfo>>>,
    history: VecDeque<String>,
    /// The model's fault and the kernel cycle of its issue.
    expected_fault: Option<(Fault, u64)>,
    fault_window: u64,
    ctas: u64,
    issue_records: u64,
    /// Per SM: the highest tag on an issue record, plus one.
    tags_used: Vec<u32>,
    /// Per SM: issue records.
    issued: Vec<u64>,
    /// Per SM: the reference warp scheduler, stepped with the RTL's scheduler inputs.
    schedulers: Vec<warpforge_sim::scheduler::Scheduler>,
    last_record: u64,
    /// The RTL's `cycle_count` of the current cycle less the counter base: cycles since reset,
    /// the cycle reports name (the model's `cycle` CSR gets the raw count).
    cycle: u64,
    /// `cycle_count` expected in kernel cycle 0.
    start_cycle: u64,
    /// What reset loaded into the counters ([`Launch::counter_base`]).
    counter_base: u64,
    /// Per SM: the counters expected in this cycle (last cycle's plus its events).
    counters: Vec<CounterRec>,
    /// Per SM: the warp slots whose launch the scheduler was told (`tr_launch`, in an earlier
    /// cycle) since the CTA record that placed them. With the model's live warps, what `tr_idle` must say.
    launched: Vec<u64>,
    /// Per SM: the warp slots launched at least once since reset (`tr_launch`): a slot never
    /// launched must show `tr_long` (docs/microarch/sm.md: "not launched").
    ever_launched: Vec<u64>,
    /// A cycle whose `tr_idle` was 0 with no issue while a launched warp lived, and its
    /// report: an error unless a fault record comes within [`IDLE_FAULT_SLACK`] cycles (a
    /// fault halts the SMs, which ends `idle`, a cycle or two before the top level reports it).
    idle_suspect: Option<(u64, Box<CosimError>)>,
    kernel_cycle: u64,
    context: RunContext,
}

/// Lanes `0..lanes` of a mask as `1`/`.` characters, lane 0 first.
fn mask_bits(mask: u32, lanes: usize) -> String {
    (0..lanes)
        .map(|l| if mask >> l & 1 != 0 { '1' } else { '.' })
        .collect()
}

fn lanes_of(mask: u32, lanes: usize) -> impl Iterator<Item = usize> {
    (0..lanes).filter(move |&l| mask >> l & 1 != 0)
}

fn reg_name(r: u8) -> String {
    format!(
        "x{r} ({})",
        REG_NAMES.get(r as usize).copied().unwrap_or("?")
    )
}

fn is_jalr(word: u32) -> bool {
    matches!(decode(word), Ok(Instr::Jalr { .. }))
}

/// Per-lane differences of two masked vectors; `-` for a lane outside one side's mask.
fn lane_diffs(
    field: &str,
    lanes: usize,
    exp_mask: u32,
    exp: &[u32],
    act_mask: u32,
    act: &[u32],
    out: &mut Vec<FieldDiff>,
) {
    for l in lanes_of(exp_mask | act_mask, lanes) {
        let e = if exp_mask >> l & 1 != 0 {
            Value::word(exp[l])
        } else {
            Value::Masked
        };
        let a = if act_mask >> l & 1 != 0 {
            Value::word(act[l])
        } else {
            Value::Masked
        };
        if e != a {
            out.push(FieldDiff::new(field, Some(l as u32), e, a));
        }
    }
    // The trace ports are 32 lanes wide whatever the configuration: the lanes it does not
    // have must read 0, and so must the lanes outside the record's mask (every unit gives 0
    // for an inactive lane, docs/microarch/execution_units.md and load_store_unit.md), so
    // that a fault driving them is seen (not left unobserved).
    for (l, &a) in act.iter().enumerate() {
        let inactive = l >= lanes || act_mask >> l & 1 == 0;
        if inactive && exp_mask >> l & 1 == 0 && a != 0 {
            out.push(FieldDiff::new(
                field,
                Some(l as u32),
                Value::word(0),
                Value::word(a),
            ));
        }
    }
}

/// A fault cause code as reports show it: `5 (misaligned-store)`.
fn cause_value(code: u32) -> Value {
    let name = FaultCause::from_code(code).map_or("unknown".to_string(), |c| c.to_string());
    Value::Text(format!("{code} ({name})"))
}

/// The SM, warp, PC and cause of a fault report against the expected ones.
fn diff_fault_head(
    out: &mut Vec<FieldDiff>,
    (sm, warp, pc): (u32, u32, u32),
    cause: u32,
    actual: &RtlFault,
) {
    diff_u(out, "fault sm", 2, sm, actual.sm);
    diff_u(out, "fault warp", 2, warp, actual.warp);
    diff_u(out, "fault pc", 8, pc, actual.pc);
    if cause != actual.cause {
        out.push(FieldDiff::new(
            "fault cause",
            None,
            cause_value(cause),
            cause_value(actual.cause),
        ));
    }
}

fn diff_u(
    out: &mut Vec<FieldDiff>,
    field: &str,
    digits: u8,
    expected: impl Into<u64>,
    actual: impl Into<u64>,
) {
    let (e, a) = (expected.into(), actual.into());
    if e != a {
        out.push(FieldDiff::new(
            field,
            None,
            Value::Hex(e, digits),
            Value::Hex(a, digits),
        ));
    }
}

impl<'a> Checker<'a> {
    fn new(
        cfg: &'a GpuConfig,
        image: &'a KernelImage,
        mut model: Gpu,
        counter_base: u64,
        opts: &CosimOptions,
        context: RunContext,
    ) -> Self {
        let sms = cfg.sms as usize;
        // The RTL starts every warp's `instret` at the counter base's low word.
        model.set_instret_base(counter_base as u32);
        Checker {
            cfg,
            image,
            model,
            check: opts.check,
            lanes: cfg.lanes as usize,
            pending: (0..sms).map(|_| (0..256).map(|_| None).collect()).collect(),
            early: vec![Vec::new(); sms],
            tags: vec![vec![None; 256]; sms],
            history: VecDeque::with_capacity(HISTORY + 1),
            expected_fault: None,
            fault_window: opts.hang_window(),
            ctas: 0,
            issue_records: 0,
            tags_used: vec![0; sms],
            issued: vec![0; sms],
            schedulers: (0..sms)
                .map(|_| warpforge_sim::scheduler::Scheduler::new(cfg))
                .collect(),
            last_record: 0,
            cycle: 0,
            start_cycle: kernel_start_cycle(image, counter_base),
            counter_base,
            counters: vec![
                CounterRec {
                    issued: counter_base as u32,
                    idle: counter_base as u32,
                    conflicts: counter_base as u32,
                };
                sms
            ],
            launched: vec![0; sms],
            ever_launched: vec![0; sms],
            idle_suspect: None,
            kernel_cycle: 0,
            context,
        }
    }

    /// `cycle_count` counts every cycle from the counter base at reset, and each SM's counters
    /// count their events: the issue records, `tr_idle` (never with an issue) and
    /// the banks set in `tr_conflicts` (the collector's per-bank flags, none above `rf_banks`),
    /// each seen in the next cycle's count.
    fn check_counters(&mut self, out: &CycleOut, kc: u64) -> Result<(), CosimError> {
        let want = self.start_cycle.wrapping_add(kc);
        if out.cycle_count != want {
            return Err(self.mismatch(
                RecordKind::Counters,
                None,
                None,
                None,
                format!(
                    "`cycle_count` reads {:#x}, expected {want:#x} ({:#x} at reset, then one a cycle)",
                    out.cycle_count, self.counter_base
                ),
                None,
                Vec::new(),
                Vec::new(),
            ));
        }
        for (s, o) in out.sm.iter().enumerate() {
            let want = self.counters[s];
            let problem = if o.ctrs != want {
                let mut fields = Vec::new();
                for (name, e, a) in [
                    ("ctr_issued", want.issued, o.ctrs.issued),
                    ("ctr_idle", want.idle, o.ctrs.idle),
                    ("ctr_conflicts", want.conflicts, o.ctrs.conflicts),
                ] {
                    if e != a {
                        fields.push(FieldDiff::new(
                            name,
                            None,
                            Value::Hex(e.into(), 8),
                            Value::Hex(a.into(), 8),
                        ));
                    }
                }
                Some((
                    "a performance counter is not its value at reset plus the events counted since"
                        .to_string(),
                    fields,
                ))
            } else if o.events.idle && o.issue.is_some() {
                Some((
                    "`tr_idle` is set in a cycle with an issue record".to_string(),
                    Vec::new(),
                ))
            } else if self.cfg.rf_banks < 32 && o.events.conflict_banks >> self.cfg.rf_banks != 0 {
                Some((
                    format!(
                        "`tr_conflicts` reads {:#x}: a bank above the {} register-file banks",
                        o.events.conflict_banks, self.cfg.rf_banks
                    ),
                    Vec::new(),
                ))
            } else {
                None
            };
            if let Some((summary, fields)) = problem {
                return Err(self.mismatch(
                    RecordKind::Counters,
                    Some(s as u32),
                    None,
                    None,
                    summary,
                    None,
                    fields,
                    Vec::new(),
                ));
            }
            let next = &mut self.counters[s];
            next.issued = next.issued.wrapping_add(u32::from(o.issue.is_some()));
            next.idle = next.idle.wrapping_add(u32::from(o.events.idle));
            next.conflicts = next
                .conflicts
                .wrapping_add(o.events.conflict_banks.count_ones());
        }
        Ok(())
    }

    /// `tr_idle` means "a warp is launched and none issues" (docs/verification.md,
    /// "Counters"): in a cycle without an issue record it must be 1 while a warp the RTL
    /// launched still lives in the model (its threads have not all exited: the model frees the
    /// slot at the exit's issue, the RTL once the exit has completed, so after the exit it may
    /// be either), and 0 while no warp of the SM has been launched since its CTA record.
    fn check_idle(&mut self, out: &CycleOut, kc: u64) -> Result<(), CosimError> {
        if let Some((at, _)) = &self.idle_suspect {
            if kc > at + IDLE_FAULT_SLACK {
                let (_, e) = self.idle_suspect.take().expect("checked");
                return Err(*e);
            }
        }
        if !self.check || self.expected_fault.is_some() {
            return Ok(());
        }
        for (s, o) in out.sm.iter().enumerate() {
            // A CTA record places new warps on its slots (their launch follows); `tr_launch`
            // comes in the launch's own cycle, and the warp counts from the next.
            self.launched[s] &= !o.cta.map_or(0, |c| c.warps);
            let launched = self.launched[s];
            self.launched[s] |= o.sched.launch;

            if o.issue.is_some() {
                continue;
            }
            let sm = s as u32;
            let live: Vec<u32> = (0..self.cfg.warps.min(64))
                .filter(|&w| launched >> w & 1 != 0 && self.model.warp_cta(sm, w).is_some())
                .collect();
            if o.events.idle && launched == 0 {
                return Err(self.mismatch(
                    RecordKind::Counters,
                    Some(sm),
                    None,
                    None,
                    "`tr_idle` is set while no warp of the SM is launched".to_string(),
                    None,
                    Vec::new(),
                    Vec::new(),
                ));
            }
            if !o.events.idle && !live.is_empty() && self.idle_suspect.is_none() {
                let e = self.mismatch(
                    RecordKind::Counters,
                    Some(sm),
                    Some(live[0]),
                    None,
                    format!(
                        "`tr_idle` is 0 in a cycle without an issue while warp slot(s) {live:?} are launched and live"
                    ),
                    None,
                    Vec::new(),
                    Vec::new(),
                );
                self.idle_suspect = Some((kc, Box::new(e)));
            }
        }
        Ok(())
    }

    fn remember(&mut self, line: String) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(line);
    }

    /// `pc <fn+off>  disassembly`.
    fn describe(&self, pc: u32, instr: u32) -> String {
        format!("{}  {}", self.image.describe_pc(pc), disassemble(instr, pc))
    }

    /// A checked commit for the history: issue cycle, SM, warp, tag, mask, instruction, result,
    /// and the completion cycle when its record came later.
    fn commit_line(&self, sm: u32, tag: u32, c: &Commit, issue_cycle: u64) -> String {
        let mut s = format!(
            "c{} sm{} w{:<2} t{:<2} {}  {}",
            issue_cycle,
            sm,
            c.warp,
            tag,
            mask_bits(c.mask, self.lanes),
            self.describe(c.pc, c.instr)
        );
        if let Some(rd) = c.dest {
            let _ = write!(s, "  {} =", REG_NAMES[rd as usize]);
            for l in 0..self.lanes {
                if c.mask >> l & 1 != 0 {
                    let _ = write!(s, " {:x}", c.values[l]);
                } else {
                    s.push_str(" -");
                }
            }
        }
        if let Some(st) = &c.store {
            let _ = write!(s, "  store{}", st.size * 8);
            for l in lanes_of(st.mask, self.lanes) {
                let _ = write!(s, " [{:x}]={:x}", st.addr[l], st.data[l]);
            }
        }
        if issue_cycle != self.cycle {
            let _ = write!(s, "  (record at c{})", self.cycle);
        }
        s
    }

    #[allow(clippy::too_many_arguments)]
    fn mismatch(
        &self,
        kind: RecordKind,
        sm: Option<u32>,
        warp: Option<u32>,
        tag: Option<u32>,
        summary: String,
        instruction: Option<String>,
        fields: Vec<FieldDiff>,
        notes: Vec<String>,
    ) -> CosimError {
        CosimError::Mismatch(Box::new(MismatchReport {
            cycle: self.cycle,
            kernel_cycle: self.kernel_cycle,
            kind,
            sm,
            warp,
            tag,
            summary,
            instruction,
            fields,
            notes,
            history: self.history.iter().cloned().collect(),
            context: self.context.clone(),
        }))
    }

    /// A cycle after the first of a fault report (`first`): `fault` still high and every
    /// field as it was (docs/verification.md, "Cases that expect a fault").
    fn check_fault_held(
        &mut self,
        first: &RtlFault,
        now: Option<&RtlFault>,
        kc: u64,
    ) -> Result<(), CosimError> {
        self.kernel_cycle = kc;
        let Some(now) = now else {
            return Err(self.mismatch(
                RecordKind::Fault,
                Some(first.sm),
                Some(first.warp),
                None,
                "`fault` went low without a reset: a fault report is held until reset".into(),
                None,
                Vec::new(),
                Vec::new(),
            ));
        };
        let mut fields = Vec::new();
        diff_fault_head(
            &mut fields,
            (first.sm, first.warp, first.pc),
            first.cause,
            now,
        );
        diff_u(&mut fields, "fault lane", 2, first.lane, now.lane);
        diff_u(&mut fields, "fault addr", 8, first.addr, now.addr);
        if fields.is_empty() {
            return Ok(());
        }
        Err(self.mismatch(
            RecordKind::Fault,
            Some(first.sm),
            Some(first.warp),
            None,
            "the held fault report changed after its first cycle (expected: its first cycle's value)"
                .into(),
            None,
            fields,
            Vec::new(),
        ))
    }

    /// Check one cycle's outputs. `Ok(Some(_))` ends the run.
    fn on_cycle(
        &mut self,
        out: &CycleOut,
        kc: u64,
        mem: &MemoryModel,
        observer: &mut dyn FnMut(&TraceEvent),
    ) -> Result<Option<CosimOutcome>, CosimError> {
        self.cycle = out.cycle_count.wrapping_sub(self.counter_base);
        self.kernel_cycle = kc;
        if self.check {
            self.check_counters(out, kc)?;
            self.check_idle(out, kc)?;
        }
        if let Some(e) = &out.protocol {
            return Err(self.mismatch(
                RecordKind::MemoryPort,
                Some(e.sm),
                None,
                None,
                format!("{}: {}", e.request, e.why),
                None,
                Vec::new(),
                vec![
                    "the memory port only receives accesses that the ISA allows (aligned, inside global memory, store data in the low bits)"
                        .into(),
                ],
            ));
        }
        if out.sm.iter().any(SmOut::any) {
            self.last_record = kc;
        }
        let checking = self.check && self.expected_fault.is_none();
        for (s, o) in out.sm.iter().enumerate() {
            if let Some(c) = o.cta {
                self.on_cta(s as u32, c.id, c.warps, checking, observer)?;
            }
        }
        for (s, o) in out.sm.iter().enumerate() {
            if let Some(wb) = &o.wb {
                self.on_writeback(s as u32, wb, checking, observer)?;
            }
            if let Some(st) = &o.st {
                self.on_store(s as u32, st, checking, observer)?;
            }
        }
        if checking {
            self.check_forwarded_writebacks()?;
        }
        for (s, o) in out.sm.iter().enumerate() {
            self.on_schedule(s as u32, o, checking)?;
            if let Some(is) = o.issue {
                self.on_issue(s as u32, is, checking, observer)?;
            }
        }
        if let Some(f) = out.fault {
            return self.on_rtl_fault(f).map(Some);
        }
        if let Some((f, since)) = self.expected_fault {
            if kc - since > self.fault_window {
                return Err(self.mismatch(
                    RecordKind::Fault,
                    Some(f.sm),
                    Some(f.warp),
                    None,
                    format!(
                        "the model faulted ({f}) on the instruction issued at kernel cycle {since}; the RTL did not raise `fault` within {} cycles",
                        self.fault_window
                    ),
                    Some(self.describe(f.pc, self.image.instr_at(f.pc).unwrap_or(0))),
                    Vec::new(),
                    Vec::new(),
                ));
            }
        }
        if out.done && kc > 0 {
            if self.check {
                self.on_done()?;
                self.check_memory(mem)?;
            }
            return Ok(Some(CosimOutcome::Finished));
        }
        Ok(None)
    }

    /// The warp scheduler: the reference ([`warpforge_sim::scheduler`]) steps with this
    /// cycle's `ready`, `launch` and `long_stall` as the RTL shows them, and must grant the warp
    /// the RTL issued (or none when it issued none).
    fn on_schedule(&mut self, sm: u32, o: &SmOut, checking: bool) -> Result<(), CosimError> {
        let warps = self.cfg.warps as usize;
        let bits = |v: u64| -> Vec<bool> { (0..warps).map(|w| v >> w & 1 != 0).collect() };
        let inputs = warpforge_sim::scheduler::SchedulerInputs {
            reset: false,
            ready: bits(o.sched.ready),
            issued: o.sched.grant.is_some(),
            launch: bits(o.sched.launch),
            long_stall: bits(o.sched.long),
        };
        let grant = self.schedulers[sm as usize].step(&inputs).grant;
        let issued = o.sched.grant.map(|w| w as usize);
        let warp_list = |v: u64| {
            let l: Vec<String> = (0..64)
                .filter(|w| v >> w & 1 != 0)
                .map(|w| w.to_string())
                .collect();
            if l.is_empty() {
                "none".to_string()
            } else {
                l.join(", ")
            }
        };
        // Slots never launched since reset wait long (from their launch's cycle on, either).
        self.ever_launched[sm as usize] |= o.sched.launch;
        let never = !self.ever_launched[sm as usize] & (u64::MAX >> (64 - warps));
        // The SM's contract with the scheduler (docs/microarch/scheduler.md), checked on every
        // policy, so the signals are verified where the reference does not read them.
        let broken = |summary: String, note: String| {
            Err(self.mismatch(
                RecordKind::Issue,
                Some(sm),
                None,
                None,
                summary,
                None,
                Vec::new(),
                vec![note],
            ))
        };
        let all_warps = u64::MAX >> (64 - warps);
        let short = never & !o.sched.long;
        if checking && short != 0 {
            return broken(
                format!(
                    "warp slot(s) {} never launched but not waiting long (tr_long {:#x}): a slot that is not launched waits long",
                    warp_list(short),
                    o.sched.long
                ),
                "docs/microarch/scheduler.md, \"Contract with the SM\"".into(),
            );
        }
        // The ports are 64 bits wide for every configuration: a bit of a warp the configuration
        // lacks is a wrong output even though no reference reads it.
        let beyond = (o.sched.ready | o.sched.launch | o.sched.long) & !all_warps;
        if checking && beyond != 0 {
            return broken(
                format!(
                    "the scheduler's ready, launch or long-wait bits name warp(s) {} of {warps}: bits of warps the configuration lacks must be 0 (tr_ready {:#x}, tr_launch {:#x}, tr_long {:#x})",
                    warp_list(beyond),
                    o.sched.ready,
                    o.sched.launch,
                    o.sched.long
                ),
                "docs/verification.md, \"Scheduler\"".into(),
            );
        }
        // A warp that waits long (not launched, at a barrier, no instruction to issue) is
        // never ready.
        let both = o.sched.ready & o.sched.long;
        if checking && both != 0 {
            return broken(
                format!(
                    "warp(s) {} both ready and waiting long: a warp that waits long (not launched, at a barrier, no instruction to issue) cannot be ready",
                    warp_list(both)
                ),
                "docs/microarch/scheduler.md, \"Contract with the SM\"".into(),
            );
        }
        if !checking || grant == issued {
            return Ok(());
        }
        let name = |g: Option<usize>| g.map_or("none".to_string(), |w| format!("warp {w}"));
        Err(self.mismatch(
            RecordKind::Issue,
            Some(sm),
            o.issue.map(|r| r.warp),
            o.issue.map(|r| r.tag),
            format!(
                "the warp scheduler ({:?}) granted {} but the reference grants {} for the same inputs",
                self.cfg.scheduler,
                name(issued),
                name(grant)
            ),
            None,
            Vec::new(),
            vec![
                format!("ready warps this cycle: {}", warp_list(o.sched.ready)),
                format!(
                    "launched this cycle: {}; waiting long (two-level): {}",
                    warp_list(o.sched.launch),
                    warp_list(o.sched.long)
                ),
                "docs/microarch/scheduler.md gives each policy's rule".into(),
            ],
        ))
    }

    /// An instruction issued ahead of a forwarded ALU / multiplier writeback (see
    /// [`Self::scoreboard_check`]) needs that writeback in the next cycle: checked after this
    /// cycle's writeback records.
    fn check_forwarded_writebacks(&mut self) -> Result<(), CosimError> {
        for s in 0..self.early.len() {
            let cycle = self.cycle;
            let due: Vec<EarlyIssue> = self.early[s]
                .iter()
                .filter(|e| e.due <= cycle)
                .cloned()
                .collect();
            self.early[s].retain(|e| e.due > cycle);
            for e in due {
                let late: Vec<&Pending> = e
                    .producers
                    .iter()
                    .filter_map(|&(tag, issued)| {
                        self.pending[s][tag]
                            .as_ref()
                            .filter(|p| p.issue_cycle == issued)
                    })
                    .collect();
                if e.producers.len() - late.len() < e.need {
                    let notes: Vec<String> = late
                        .iter()
                        .map(|p| {
                            format!(
                                "not written back: {} issued at cycle {}",
                                self.describe(p.commit.pc, p.commit.instr),
                                p.issue_cycle
                            )
                        })
                        .chain(["docs/microarch/sm.md \"Early release and forwarding\"".into()])
                        .collect();
                    let warp = late.first().map(|p| p.commit.warp);
                    return Err(self.mismatch(
                        RecordKind::Writeback,
                        Some(s as u32),
                        warp,
                        None,
                        format!(
                            "{} was issued one cycle before ALU / multiplier writebacks it needed, which did not come in the next cycle",
                            e.what
                        ),
                        None,
                        Vec::new(),
                        notes,
                    ));
                }
            }
        }
        Ok(())
    }

    /// Issue checks the RTL's scoreboard enforces (docs/microarch/scheduler.md): an instruction
    /// issues only when no older instruction of its warp still has to write a register it reads
    /// or writes, and, when it writes one, while fewer than `scoreboard_entries` writes of its
    /// warp are pending. Pending writes are those whose writeback record has not come, except
    /// an ALU or multiplier result, whose entry is released the cycle before its writeback
    /// (docs/microarch/sm.md "Early release and forwarding"): an instruction that depends on it
    /// may issue then, and the result's writeback record must come in the next cycle (the
    /// returned producers, checked by [`Self::check_forwarded_writebacks`]).
    fn scoreboard_check(
        &self,
        sm: u32,
        rec: &IssueRec,
    ) -> Result<Vec<EarlyIssue>, (String, Vec<String>)> {
        let mut early = Vec::new();
        let Ok(instr) = warpforge_isa::decode(rec.instr) else {
            return Ok(early);
        };
        let what = self.describe(rec.pc, rec.instr);
        let due = self.cycle + 1;
        let mut reads: Vec<u8> = instr.sources().into_iter().flatten().collect();
        if matches!(instr, warpforge_isa::Instr::Branch { .. })
            && self.image.reconvergence_at(rec.pc) == warpforge_isa::Reconvergence::AtReturn
        {
            reads.push(warpforge_isa::reg::RA);
        }
        let pending: Vec<(usize, &Pending)> = self.pending[sm as usize]
            .iter()
            .enumerate()
            .filter_map(|(t, p)| p.as_ref().map(|p| (t, p)))
            .filter(|(_, p)| p.commit.warp == rec.warp && p.commit.dest.is_some())
            .collect();
        for (tag, p) in &pending {
            let r = p.commit.dest.expect("filtered");
            let hazard = if reads.contains(&r) {
                "reads"
            } else if instr.dest() == Some(r) {
                "writes"
            } else {
                continue;
            };
            if forwarded_unit(p.commit.instr) {
                early.push(EarlyIssue {
                    producers: vec![(*tag, p.issue_cycle)],
                    need: 1,
                    due,
                    what: what.clone(),
                });
                continue;
            }
            return Err((
                format!(
                    "issued with a hazard: it {hazard} {} while an older instruction of its warp has not written it back",
                    reg_name(r)
                ),
                vec![format!(
                    "pending: {} issued at cycle {}",
                    self.describe(p.commit.pc, p.commit.instr),
                    p.issue_cycle
                )],
            ));
        }
        let entries = self.cfg.scoreboard_entries as usize;
        if instr.dest().is_some() && pending.len() >= entries {
            // Entries released early: enough of the ALU / multiplier results must write back
            // in the next cycle.
            let producers: Vec<(usize, u64)> = pending
                .iter()
                .filter(|(_, p)| forwarded_unit(p.commit.instr))
                .map(|(t, p)| (*t, p.issue_cycle))
                .collect();
            let need = pending.len() + 1 - entries;
            if producers.len() < need {
                return Err((
                    format!(
                        "issued with a full scoreboard: its warp already has {} register writes pending and `scoreboard_entries` is {entries}",
                        pending.len()
                    ),
                    Vec::new(),
                ));
            }
            early.push(EarlyIssue {
                producers,
                need,
                due,
                what,
            });
        }
        Ok(early)
    }

    fn on_cta(
        &mut self,
        sm: u32,
        id: u32,
        warps: u64,
        checking: bool,
        observer: &mut dyn FnMut(&TraceEvent),
    ) -> Result<(), CosimError> {
        self.ctas += 1;
        if checking {
            // The model takes the RTL's slots if they are free in the model (it frees a slot
            // at the exit's issue, earlier than the RTL: `Gpu::dispatch_cta_on`).
            let slots = self.slot_note(sm);
            match self.model.dispatch_cta_on(sm, warps) {
                Ok(mid) => {
                    let mut fields = Vec::new();
                    diff_u(&mut fields, "cta", 8, mid, id);
                    if !fields.is_empty() {
                        return Err(self.mismatch(
                            RecordKind::CtaLaunch,
                            Some(sm),
                            None,
                            None,
                            format!(
                                "the RTL launched CTA {id} on warp slots 0x{warps:x}; the next CTA is {mid}"
                            ),
                            None,
                            fields,
                            vec![slots],
                        ));
                    }
                }
                Err(e) => {
                    return Err(self.mismatch(
                        RecordKind::CtaLaunch,
                        Some(sm),
                        None,
                        None,
                        format!("the RTL launched CTA {id} on warp slots 0x{warps:x}; the model cannot: {e}"),
                        None,
                        Vec::new(),
                        vec![slots],
                    ));
                }
            }
            self.remember(format!(
                "c{} sm{sm} CTA {id} launched on warp slots {}",
                self.cycle,
                mask_bits(warps as u32, self.cfg.warps.min(64) as usize)
            ));
        }
        observer(&TraceEvent {
            kind: EventKind::CtaLaunch { cta: id, warps },
            cycle: self.cycle,
            kernel_cycle: self.kernel_cycle,
            sm,
            warp: warps.trailing_zeros(),
            tag: 0,
            pc: self.image.entry,
            instr: self.image.instr_at(self.image.entry).unwrap_or(0),
            mask: 0,
            values: &[],
            addrs: &[],
        });
        Ok(())
    }

    fn on_issue(
        &mut self,
        sm: u32,
        rec: IssueRec,
        checking: bool,
        observer: &mut dyn FnMut(&TraceEvent),
    ) -> Result<(), CosimError> {
        self.issue_records += 1;
        let s = sm as usize;
        let tag = rec.tag as usize;
        self.tags_used[s] = self.tags_used[s].max(rec.tag + 1);
        self.issued[s] += 1;
        if checking && rec.tag >= self.cfg.tags_per_sm() {
            return Err(self.mismatch(
                RecordKind::Issue,
                Some(sm),
                Some(rec.warp),
                Some(rec.tag),
                format!(
                    "tag {} out of range: an SM of this configuration has {} tags (docs/microarch/sm.md, \"Tags\")",
                    rec.tag,
                    self.cfg.tags_per_sm()
                ),
                None,
                Vec::new(),
                Vec::new(),
            ));
        }
        self.tags[s][tag] = Some(TagInfo {
            rec,
            cycle: self.cycle,
        });
        let rtl_instr = format!(
            "{}  (RTL issue record: warp {}, mask {})",
            self.describe(rec.pc, rec.instr),
            rec.warp,
            mask_bits(rec.mask, self.lanes)
        );
        if checking {
            self.model
                .set_cycle(sm, self.cycle.wrapping_add(self.counter_base));
            let commit = match self.model.step(sm, rec.warp) {
                Ok(c) => c.clone(),
                Err(e) => {
                    let notes = self.warp_notes(sm, rec.warp);
                    return Err(self.mismatch(
                        RecordKind::Issue,
                        Some(sm),
                        Some(rec.warp),
                        Some(rec.tag),
                        format!("the RTL issued an instruction the model cannot issue: {e}"),
                        Some(rtl_instr),
                        Vec::new(),
                        notes,
                    ));
                }
            };
            let mut fields = Vec::new();
            diff_u(&mut fields, "pc", 8, commit.pc, rec.pc);
            if commit.instr != 0 || commit.fault.is_none() {
                diff_u(&mut fields, "instr", 8, commit.instr, rec.instr);
            }
            let jalr_group = is_jalr(commit.instr)
                && commit.fault.is_none()
                && commit.mask != 0
                && commit.mask & !rec.mask == 0;
            if commit.mask != rec.mask && !jalr_group {
                diff_u(&mut fields, "mask", 8, commit.mask, rec.mask);
            }
            if !fields.is_empty() {
                let model_instr = format!(
                    "model: {} mask {}",
                    self.describe(commit.pc, commit.instr),
                    mask_bits(commit.mask, self.lanes)
                );
                return Err(self.mismatch(
                    RecordKind::Issue,
                    Some(sm),
                    Some(rec.warp),
                    Some(rec.tag),
                    "the RTL issued another instruction than the model executes next".into(),
                    Some(rtl_instr),
                    fields,
                    vec![model_instr],
                ));
            }
            let early = self.scoreboard_check(sm, &rec);
            if let Err((what, notes)) = early {
                return Err(self.mismatch(
                    RecordKind::Issue,
                    Some(sm),
                    Some(rec.warp),
                    Some(rec.tag),
                    what,
                    Some(rtl_instr),
                    Vec::new(),
                    notes,
                ));
            }
            if let Ok(early) = early {
                self.early[s].extend(early);
            }
            if let Some(f) = commit.fault {
                self.expected_fault = Some((f, self.kernel_cycle));
                self.remember(format!(
                    "c{} sm{sm} w{:<2} t{:<2} {}  {}  -> model: {}",
                    self.cycle,
                    rec.warp,
                    rec.tag,
                    mask_bits(rec.mask, self.lanes),
                    self.describe(rec.pc, rec.instr),
                    f
                ));
            } else if commit.dest.is_some() || commit.store.is_some() {
                if let Some(p) = &self.pending[s][tag] {
                    let note = format!(
                        "tag {tag} is still held by warp {} {} issued at cycle {}",
                        p.commit.warp,
                        self.describe(p.commit.pc, p.commit.instr),
                        p.issue_cycle
                    );
                    return Err(self.mismatch(
                        RecordKind::Issue,
                        Some(sm),
                        Some(rec.warp),
                        Some(rec.tag),
                        "tag reused: the RTL issued with a tag whose writeback/store record has not come".into(),
                        Some(rtl_instr),
                        Vec::new(),
                        vec![note],
                    ));
                }
                self.pending[s][tag] = Some(Pending {
                    commit,
                    issue_cycle: self.cycle,
                    issue_mask: rec.mask,
                });
            } else {
                let line = self.commit_line(sm, rec.tag, &commit, self.cycle);
                self.remember(line);
            }
        }
        observer(&TraceEvent {
            kind: EventKind::Issue,
            cycle: self.cycle,
            kernel_cycle: self.kernel_cycle,
            sm,
            warp: rec.warp,
            tag: rec.tag,
            pc: rec.pc,
            instr: rec.instr,
            mask: rec.mask,
            values: &[],
            addrs: &[],
        });
        Ok(())
    }

    /// The pending instruction of a record's tag, or the mismatch for a tag without one.
    fn take_pending(&mut self, kind: RecordKind, sm: u32, tag: u32) -> Result<Pending, CosimError> {
        let s = sm as usize;
        if let Some(p) = self.pending[s][tag as usize].take() {
            return Ok(p);
        }
        let note = match &self.tags[s][tag as usize] {
            Some(t) => format!(
                "the RTL last issued tag {tag} at cycle {}: warp {} {} (no {} expected for it)",
                t.cycle,
                t.rec.warp,
                self.describe(t.rec.pc, t.rec.instr),
                kind.name()
            ),
            None => format!("the RTL never issued an instruction with tag {tag}"),
        };
        Err(self.mismatch(
            kind,
            Some(sm),
            None,
            Some(tag),
            format!(
                "{} record for tag {tag}, which has no instruction waiting for one",
                kind.name()
            ),
            None,
            Vec::new(),
            vec![note],
        ))
    }

    fn pending_instruction(&self, p: &Pending) -> String {
        format!(
            "{}  (issued at cycle {}, issue mask {})",
            self.describe(p.commit.pc, p.commit.instr),
            p.issue_cycle,
            mask_bits(p.issue_mask, self.lanes)
        )
    }

    fn on_writeback(
        &mut self,
        sm: u32,
        rec: &WbRec,
        checking: bool,
        observer: &mut dyn FnMut(&TraceEvent),
    ) -> Result<(), CosimError> {
        let info = self.tags[sm as usize][rec.tag as usize].take();
        if checking {
            let p = self.take_pending(RecordKind::Writeback, sm, rec.tag)?;
            let c = &p.commit;
            let mut fields = Vec::new();
            match c.dest {
                Some(rd) if rd == rec.rd => {}
                Some(rd) => fields.push(FieldDiff::new(
                    "rd",
                    None,
                    Value::Text(reg_name(rd)),
                    Value::Text(reg_name(rec.rd)),
                )),
                None => fields.push(FieldDiff::new(
                    "rd",
                    None,
                    Value::Text("none (a store)".into()),
                    Value::Text(reg_name(rec.rd)),
                )),
            }
            diff_u(&mut fields, "mask", 8, c.mask, rec.mask);
            lane_diffs(
                "value",
                self.lanes,
                c.mask,
                &c.values,
                rec.mask,
                &rec.data,
                &mut fields,
            );
            if !fields.is_empty() {
                let n = fields.iter().filter(|f| f.field == "value").count();
                let summary = if n > 0 && fields.len() == n {
                    format!("{n} lane value(s) differ")
                } else {
                    "the writeback differs".into()
                };
                return Err(self.mismatch(
                    RecordKind::Writeback,
                    Some(sm),
                    Some(c.warp),
                    Some(rec.tag),
                    summary,
                    Some(self.pending_instruction(&p)),
                    fields,
                    Vec::new(),
                ));
            }
            let line = self.commit_line(sm, rec.tag, c, p.issue_cycle);
            self.remember(line);
        }
        let i = info.map(|t| t.rec).unwrap_or_default();
        observer(&TraceEvent {
            kind: EventKind::Writeback { rd: rec.rd },
            cycle: self.cycle,
            kernel_cycle: self.kernel_cycle,
            sm,
            warp: i.warp,
            tag: rec.tag,
            pc: i.pc,
            instr: i.instr,
            mask: rec.mask,
            values: &rec.data[..self.lanes],
            addrs: &[],
        });
        Ok(())
    }

    fn on_store(
        &mut self,
        sm: u32,
        rec: &StRec,
        checking: bool,
        observer: &mut dyn FnMut(&TraceEvent),
    ) -> Result<(), CosimError> {
        let info = self.tags[sm as usize][rec.tag as usize].take();
        let bytes = 1u8 << rec.size.min(3);
        if checking {
            let p = self.take_pending(RecordKind::Store, sm, rec.tag)?;
            let c = &p.commit;
            let mut fields = Vec::new();
            match &c.store {
                Some(st) => {
                    diff_u(&mut fields, "size (bytes)", 1, st.size, bytes);
                    diff_u(&mut fields, "mask", 8, st.mask, rec.mask);
                    lane_diffs(
                        "addr",
                        self.lanes,
                        st.mask,
                        &st.addr,
                        rec.mask,
                        &rec.addr,
                        &mut fields,
                    );
                    lane_diffs(
                        "data",
                        self.lanes,
                        st.mask,
                        &st.data,
                        rec.mask,
                        &rec.data,
                        &mut fields,
                    );
                }
                None => fields.push(FieldDiff::new(
                    "store",
                    None,
                    Value::Text(format!(
                        "none (writes {})",
                        c.dest.map_or("nothing".into(), reg_name)
                    )),
                    Value::Text(format!("{bytes}-byte store")),
                )),
            }
            if !fields.is_empty() {
                return Err(self.mismatch(
                    RecordKind::Store,
                    Some(sm),
                    Some(c.warp),
                    Some(rec.tag),
                    "the store differs".into(),
                    Some(self.pending_instruction(&p)),
                    fields,
                    Vec::new(),
                ));
            }
            let line = self.commit_line(sm, rec.tag, c, p.issue_cycle);
            self.remember(line);
        }
        let i = info.map(|t| t.rec).unwrap_or_default();
        observer(&TraceEvent {
            kind: EventKind::Store { bytes },
            cycle: self.cycle,
            kernel_cycle: self.kernel_cycle,
            sm,
            warp: i.warp,
            tag: rec.tag,
            pc: i.pc,
            instr: i.instr,
            mask: rec.mask,
            values: &rec.data[..self.lanes],
            addrs: &rec.addr[..self.lanes],
        });
        Ok(())
    }

    fn on_rtl_fault(&mut self, f: RtlFault) -> Result<CosimOutcome, CosimError> {
        // The fault halted the SMs: that is why `idle` fell.
        self.idle_suspect = None;
        let Some(cause) = FaultCause::from_code(f.cause) else {
            return Err(self.mismatch(
                RecordKind::Fault,
                Some(f.sm),
                Some(f.warp),
                None,
                format!(
                    "the RTL raised `fault` with cause code {}, which is not one of 1..=12",
                    f.cause
                ),
                None,
                Vec::new(),
                Vec::new(),
            ));
        };
        let rtl = Fault {
            sm: f.sm,
            warp: f.warp,
            pc: f.pc,
            cause,
            lane: Some(f.lane),
            addr: Some(f.addr),
        };
        if !self.check {
            return Ok(CosimOutcome::Fault(rtl));
        }
        let expected = match self.expected_fault {
            Some((mf, _)) => mf,
            None => {
                // A fault on an instruction the RTL did not report as issued: the model
                // executes that warp's next instruction, which must fault the same way.
                self.model
                    .set_cycle(f.sm, self.cycle.wrapping_add(self.counter_base));
                match self.model.step(f.sm, f.warp) {
                    Ok(c) => match c.fault {
                        Some(mf) => mf,
                        None => {
                            let c = c.clone();
                            return Err(self.mismatch(
                                RecordKind::Fault,
                                Some(f.sm),
                                Some(f.warp),
                                None,
                                format!("the RTL reports {rtl}; the model executes that warp's next instruction without a fault"),
                                Some(self.describe(c.pc, c.instr)),
                                Vec::new(),
                                Vec::new(),
                            ));
                        }
                    },
                    Err(e) => {
                        return Err(self.mismatch(
                            RecordKind::Fault,
                            Some(f.sm),
                            Some(f.warp),
                            None,
                            format!("the RTL reports {rtl}; the model cannot step that warp: {e}"),
                            None,
                            Vec::new(),
                            Vec::new(),
                        ));
                    }
                }
            }
        };
        let mut fields = Vec::new();
        let head = (expected.sm, expected.warp, expected.pc);
        diff_fault_head(&mut fields, head, u32::from(expected.cause.code()), &f);
        // A cause without a lane or an address reports `NO_LANE` and 0 (docs/isa.md §8): an
        // RTL that drove anything there passed unseen (issue 11, m33 and m90 of 8c5193d's
        // sample: the issue stage's "no lane" with bit 7 tied to 0).
        diff_u(
            &mut fields,
            "fault lane",
            2,
            expected.lane.unwrap_or(warpforge_isa::NO_LANE),
            f.lane,
        );
        diff_u(
            &mut fields,
            "fault addr",
            8,
            expected.addr.unwrap_or(0),
            f.addr,
        );
        if fields.is_empty() {
            Ok(CosimOutcome::Fault(expected))
        } else {
            Err(self.mismatch(
                RecordKind::Fault,
                Some(f.sm),
                Some(f.warp),
                None,
                format!("the RTL reports another fault than the model ({expected})"),
                Some(self.describe(expected.pc, self.image.instr_at(expected.pc).unwrap_or(0))),
                fields,
                Vec::new(),
            ))
        }
    }

    fn on_done(&mut self) -> Result<(), CosimError> {
        if let Some((_, e)) = self.idle_suspect.take() {
            return Err(*e);
        }
        if let Some((f, since)) = self.expected_fault {
            return Err(self.mismatch(
                RecordKind::Fault,
                Some(f.sm),
                Some(f.warp),
                None,
                format!(
                    "the model faulted ({f}) on the instruction issued at kernel cycle {since}; the RTL finished the kernel (done) without raising `fault`"
                ),
                None,
                Vec::new(),
                Vec::new(),
            ));
        }
        if !self.model.is_finished() {
            let notes = vec![self
                .live_warps()
                .iter()
                .map(|w| {
                    format!(
                        "SM {} warp {}: CTA {}, pc {}{}",
                        w.sm,
                        w.warp,
                        w.cta.map_or("-".into(), |c| c.to_string()),
                        w.where_,
                        if w.at_barrier { " (at barrier)" } else { "" }
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")];
            return Err(self.mismatch(
                RecordKind::Done,
                None,
                None,
                None,
                format!(
                    "the RTL reports done after launching {} CTAs; the model has unfinished warps",
                    self.ctas
                ),
                None,
                Vec::new(),
                notes,
            ));
        }
        let pending = self.pending_lines();
        if !pending.is_empty() {
            return Err(self.mismatch(
                RecordKind::Done,
                None,
                None,
                None,
                format!(
                    "the RTL reports done with {} issued instruction(s) whose writeback/store record never came",
                    pending.len()
                ),
                None,
                Vec::new(),
                vec![pending.join("\n")],
            ));
        }
        Ok(())
    }

    /// The final memory comparison (after `done`).
    fn check_memory(&self, mem: &MemoryModel) -> Result<(), CosimError> {
        for sm in 0..self.cfg.sms {
            let n = mem.outstanding(sm);
            if n > 0 {
                return Err(self.mismatch(
                    RecordKind::Done,
                    Some(sm),
                    None,
                    None,
                    format!("the RTL reports done with {n} read(s) of SM {sm} not yet answered"),
                    None,
                    Vec::new(),
                    Vec::new(),
                ));
            }
        }
        let (e, a) = (self.model.global_memory(), mem.global_memory());
        if e == a {
            return Ok(());
        }
        let base = warpforge_isa::memmap::GMEM_BASE;
        let bytes = e.iter().zip(a).filter(|(x, y)| x != y).count();
        let mut words: Vec<usize> = Vec::new();
        for (i, (x, y)) in e.iter().zip(a).enumerate() {
            if x != y && words.last() != Some(&(i / 4)) {
                words.push(i / 4);
            }
        }
        let word = |m: &[u8], w: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&m[4 * w..4 * w + 4]);
            u32::from_le_bytes(b)
        };
        let fields = words
            .iter()
            .take(16)
            .map(|&w| {
                FieldDiff::new(
                    &format!("word 0x{:08x}", base as usize + 4 * w),
                    None,
                    Value::word(word(e, w)),
                    Value::word(word(a, w)),
                )
            })
            .collect();
        Err(self.mismatch(
            RecordKind::Done,
            None,
            None,
            None,
            format!(
                "global memory differs at the end: {bytes} byte(s) in {} word(s), first at 0x{:08x}",
                words.len(),
                base as usize + 4 * words[0]
            ),
            None,
            fields,
            Vec::new(),
        ))
    }

    fn live_warps(&self) -> Vec<LiveWarp> {
        let mut v = Vec::new();
        if !self.check {
            return v;
        }
        for sm in 0..self.cfg.sms {
            let ready: Vec<u32> = self.model.ready_warps(sm).collect();
            for w in 0..self.cfg.warps {
                if let Some(top) = self.model.warp_stack(sm, w).last() {
                    v.push(LiveWarp {
                        sm,
                        warp: w,
                        cta: self.model.warp_cta(sm, w),
                        pc: top.pc,
                        mask: top.mask,
                        at_barrier: !ready.contains(&w),
                        where_: self.image.describe_pc(top.pc),
                    });
                }
            }
        }
        v
    }

    /// The model's warp slots of `sm`: which CTA holds each, or free (the model frees a slot
    /// when the warp's last `wf.exit` is stepped).
    fn slot_note(&self, sm: u32) -> String {
        let slots: Vec<String> = (0..self.cfg.warps)
            .map(|w| match self.model.warp_cta(sm, w) {
                Some(c) => format!("{w}: CTA {c}"),
                None => format!("{w}: free"),
            })
            .collect();
        format!(
            "model: warp slots of SM {sm} before this launch: {}",
            slots.join(", ")
        )
    }

    fn warp_notes(&self, sm: u32, warp: u32) -> Vec<String> {
        if sm >= self.cfg.sms || warp >= self.cfg.warps {
            return vec![format!(
                "the configuration has {} SM(s) of {} warp slots",
                self.cfg.sms, self.cfg.warps
            )];
        }
        match self.model.warp_stack(sm, warp).last() {
            None => vec![format!("model: warp slot {warp} of SM {sm} has no CTA")],
            Some(top) => vec![format!(
                "model: warp {warp} of SM {sm} runs CTA {}, next pc {}, mask {}{}",
                self.model
                    .warp_cta(sm, warp)
                    .map_or("-".into(), |c| c.to_string()),
                self.image.describe_pc(top.pc),
                mask_bits(top.mask, self.lanes),
                if self.model.ready_warps(sm).any(|w| w == warp) {
                    ""
                } else {
                    ", waiting at a barrier"
                }
            )],
        }
    }

    fn pending_lines(&self) -> Vec<String> {
        let mut v = Vec::new();
        for (s, tags) in self.pending.iter().enumerate() {
            for (t, p) in tags.iter().enumerate() {
                if let Some(p) = p {
                    v.push(format!(
                        "SM {s} tag {t}: warp {} {} issued at cycle {}",
                        p.commit.warp,
                        self.describe(p.commit.pc, p.commit.instr),
                        p.issue_cycle
                    ));
                }
            }
        }
        v
    }

    fn stall(&self, out: &CycleOut, kc: u64, limit: u64, mem: &MemoryModel) -> StallReport {
        let pending = if self.check {
            self.pending_lines()
        } else {
            Vec::new()
        };
        StallReport {
            cycle: out.cycle_count.wrapping_sub(self.counter_base),
            kernel_cycle: kc,
            limit,
            last_record: self.last_record,
            busy: out.busy,
            warps: self.live_warps(),
            pending,
            outstanding_reads: (0..self.cfg.sms).map(|s| mem.outstanding(s)).collect(),
            ctas_launched: self.ctas,
            context: self.context.clone(),
        }
    }
}

/// Whether an instruction's result is written by the ALU or the multiplier, whose scoreboard
/// entry the SM releases one cycle before the writeback (docs/microarch/sm.md "Early release
/// and forwarding"); divides and loads are released at their writeback.
fn forwarded_unit(word: u32) -> bool {
    use warpforge_isa::{Instr, MulDivOp};
    match warpforge_isa::decode(word) {
        Ok(Instr::MulDiv { op, .. }) => matches!(
            op,
            MulDivOp::Mul | MulDivOp::Mulh | MulDivOp::Mulhsu | MulDivOp::Mulhu
        ),
        Ok(
            Instr::Lui { .. }
            | Instr::Auipc { .. }
            | Instr::Jal { .. }
            | Instr::Jalr { .. }
            | Instr::OpImm { .. }
            | Instr::Op { .. }
            | Instr::Csr { .. },
        ) => true,
        _ => false,
    }
}
