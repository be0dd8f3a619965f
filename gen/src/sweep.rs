//! `warpforge sweep`: an area–timing sweep over configuration parameters (docs/fpga.md,
//! "Sweeps").
//!
//! The points are the cartesian product of `--vary FIELD=V1,V2,...` lists over a base
//! configuration ([`plan`]). Every point is checked before any long work: its configuration
//! validates, its Verilog can be generated, the kernel's launch fits it. Then each point is
//! synthesized with the `warpforge synth` flow ([`crate::synth`]: the generic yosys estimate, or
//! yosys + nextpnr for Fmax) and one kernel case is co-simulated on its RTL in lock-step with the
//! golden model (cycles, IPC); derived: the kernel's time at Fmax and LUT4s per lane.
//!
//! A finished point is written at once, atomically, to `DIR/points/KEY.json`, where KEY is a hash
//! of everything its result depends on (the synthesis cache key: generator, configuration,
//! Verilog, wrapper, script, tools, seed and clock; the co-simulated Verilog's key; the kernel's
//! ELF and case; the memory settings). A rerun reads the finished points and runs the others
//! only; `--shard K/N` runs every N-th point, and the outputs (`sweep.csv`, `sweep.json`, the
//! plots: [`output`], [`plot`]) are made from every finished point of the sweep in `DIR`,
//! whichever run or shard finished it.

pub mod output;
pub mod plan;
pub mod plot;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context as _, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use warpforge_config::GpuConfig;
use warpforge_kernels::{Case, KernelSpec};
use warpforge_loader::KernelImage;
use warpforge_sim::Gpu;
use warpforge_testbench::lockstep::{self, CosimError, CosimOptions};
use warpforge_testbench::memory_model::MemorySettings;

use crate::synth::parse::Overflow;
use crate::synth::{self, Design, Fit, Flow, SynthReport, Target};
use plan::{Axis, Point, Shard, Vary};

/// Version of a point file's layout (part of every point's key).
pub const SCHEMA: u32 = 1;

/// `--kernel none`: no co-simulation.
pub const NO_KERNEL: &str = "none";

/// The data seed of the kernel's case (as `warpforge regress`'s default).
pub const DATA_SEED: u64 = 1;

/// What to sweep and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// The preset name or file the user gave.
    pub config_arg: String,
    pub base: GpuConfig,
    /// The `--vary` texts as given.
    pub vary: Vec<String>,
    /// Points in parallel.
    pub jobs: usize,
    /// `--shard K/N` as given.
    pub shard: Option<String>,
    pub target: Target,
    /// The generic yosys estimate instead of place and route.
    pub estimate: bool,
    /// nextpnr's placement seed and the memory model's seed.
    pub seed: u64,
    /// nextpnr's router.
    pub router: crate::synth::Router,
    /// nextpnr's placer.
    pub placer: crate::synth::Placer,
    pub freq_mhz: f64,
    /// A shipped kernel, or [`NO_KERNEL`].
    pub kernel: String,
    /// `--mem` as given.
    pub mem: String,
    pub max_cycles: u64,
    /// Default `build/sweep/<config name>`.
    pub out_dir: Option<PathBuf>,
    /// Leave out the points that are not valid configurations (else: an error listing them).
    pub skip_invalid: bool,
    /// Where synthesis reports are cached (`None`: not cached across sweeps).
    pub synth_cache: Option<PathBuf>,
}

impl Options {
    /// The output directory: `-o DIR`, else `build/sweep/<config name>`.
    pub fn dir(&self) -> PathBuf {
        self.out_dir
            .clone()
            .unwrap_or_else(|| Path::new("build/sweep").join(&self.base.name))
    }
}

/// A resource of a point, with its share of the device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceUse {
    pub name: String,
    pub used: u64,
    pub available: Option<u64>,
    /// `used` as a percentage of `available`.
    pub percent: Option<f64>,
    pub note: String,
}

/// The synthesis of a point, as the sweep keeps it (the full report is in `report`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SynthSummary {
    /// "place-and-route" or "estimate (generic yosys synth, not placed)".
    pub mode: String,
    pub estimate: bool,
    /// "fits", "does not fit" or "not placed" (the estimate).
    pub fit: String,
    /// What exceeds the device, when it does not fit.
    pub overflow: Option<String>,
    pub overflows: Vec<Overflow>,
    pub resources: Vec<ResourceUse>,
    /// The lowest Fmax over the clocks (the wrapper has one), when placed and routed.
    pub fmax_mhz: Option<f64>,
    pub freq_target_mhz: f64,
    /// Whether Fmax reaches the clock constraint.
    pub fmax_met: Option<bool>,
    pub critical_path_ns: Option<f64>,
    /// The units the critical path crosses.
    pub critical_path_units: Vec<String>,
    /// Wall time of each tool, seconds (of the run that produced the report, when cached).
    pub tool_seconds: BTreeMap<String, f64>,
    pub tool_cpu_seconds: f64,
    pub peak_rss_mb: f64,
    /// The report came from the synthesis cache (an identical earlier run).
    pub cached: bool,
    pub cache_key: String,
    pub verilog_sha256: String,
    pub tools: BTreeMap<String, String>,
    /// The full report (JSON) in the point's run directory.
    pub report: String,
}

impl SynthSummary {
    /// The sweep's summary of a synthesis report.
    pub fn of_report(r: &SynthReport, cached: bool, report: &Path) -> SynthSummary {
        let (fit, overflow, overflows) = match &r.fit {
            Fit::Fits => ("fits", None, Vec::new()),
            Fit::NotPlaced => ("not placed", None, Vec::new()),
            Fit::DoesNotFit { overflows, message } => {
                ("does not fit", Some(message.clone()), overflows.clone())
            }
        };
        let fmax = r
            .clocks
            .iter()
            .map(|c| c.fmax_mhz)
            .fold(None, |m: Option<f64>, f| Some(m.map_or(f, |m| m.min(f))));
        SynthSummary {
            mode: r.mode.clone(),
            estimate: r.estimate,
            fit: fit.into(),
            overflow,
            overflows,
            resources: r
                .resources
                .iter()
                .map(|x| ResourceUse {
                    name: x.name.clone(),
                    used: x.used,
                    available: x.available,
                    percent: x.percent(),
                    note: x.note.clone(),
                })
                .collect(),
            fmax_mhz: fmax,
            freq_target_mhz: r.freq_target_mhz,
            fmax_met: fmax.map(|f| f >= r.freq_target_mhz),
            critical_path_ns: r.critical_path.as_ref().map(|p| p.delay_ns),
            critical_path_units: r
                .critical_path
                .as_ref()
                .map(|p| p.units.clone())
                .unwrap_or_default(),
            tool_seconds: r.steps.iter().map(|s| (s.tool.clone(), s.wall_s)).collect(),
            tool_cpu_seconds: r.steps.iter().map(|s| s.cpu_s).sum(),
            peak_rss_mb: r.peak_rss_mb(),
            cached,
            cache_key: r.cache_key.clone(),
            verilog_sha256: r.verilog_sha256.clone(),
            tools: r.tools.clone(),
            report: report.display().to_string(),
        }
    }

    pub fn fits(&self) -> bool {
        self.fit != "does not fit"
    }

    pub fn resource(&self, name: &str) -> Option<&ResourceUse> {
        self.resources.iter().find(|r| r.name == name)
    }
}

/// The kernel's co-simulation on a point: a row as `regress` writes it, `config` naming the
/// point.
pub use crate::cosim::CosimRow as KernelResult;

/// One varied field's value at a point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub field: String,
    pub value: String,
}

/// A finished point (the content of `DIR/points/KEY.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub schema: u32,
    /// Position in the sweep's product (of the sweep that read it: reassigned on reading).
    pub index: usize,
    pub id: String,
    pub params: Vec<Param>,
    pub config_hash: String,
    pub sms: u32,
    pub lanes: u32,
    pub synth: SynthSummary,
    /// `None` with `--kernel none`.
    pub kernel: Option<KernelResult>,
    /// Kernel cycles / Fmax, microseconds (when both exist).
    pub time_us: Option<f64>,
    /// LUT4 / (SMs × lanes): logic LUTs per SIMD lane of the GPU (wrapper included).
    pub luts_per_lane: Option<f64>,
    /// Wall time of the point in the run that finished it (cosim and synthesis).
    pub elapsed_s: f64,
    pub finished_unix: u64,
    /// The hash of `key_text`: the point file's name.
    pub key: String,
    /// Everything the result depends on.
    pub key_text: String,
}

impl PointResult {
    /// The derived figures: time at Fmax and LUT4s per lane.
    pub fn derive(&mut self) {
        let lut4 = self.synth.resource("LUT4").map(|r| r.used);
        self.luts_per_lane = lut4.map(|l| l as f64 / f64::from((self.sms * self.lanes).max(1)));
        self.time_us = match (
            self.kernel.as_ref().and_then(|k| k.cycles),
            self.synth.fmax_mhz,
        ) {
            (Some(c), Some(f)) if f > 0.0 => Some(c as f64 / f),
            _ => None,
        };
    }

    pub fn value(&self, field: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|p| p.field == field)
            .map(|p| p.value.as_str())
    }
}

/// The kernel every point runs: one case, the same launch and data on every point.
pub struct KernelPlan {
    pub spec: &'static KernelSpec,
    pub image: KernelImage,
    pub case: Case,
    pub elf_sha256: String,
    pub mem: MemorySettings,
}

/// A point ready to run.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub point: Point,
    pub config: GpuConfig,
    pub key: String,
    pub key_text: String,
    pub synth_key: String,
}

/// Why a point of the product is left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub id: String,
    pub reason: String,
}

/// A point that failed in this run (a tool or a build failed): not cached, run again next time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointError {
    pub id: String,
    pub error: String,
}

/// The sweep as a whole (`sweep.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub schema: u32,
    /// The configuration as given (`--config`).
    pub config: String,
    pub base_name: String,
    pub base_hash: String,
    /// (field, values) of each `--vary`, in order.
    pub vary: Vec<(String, Vec<String>)>,
    pub target: String,
    pub device: String,
    /// "place-and-route" or "estimate".
    pub mode: String,
    pub estimate: bool,
    pub seed: u64,
    pub freq_target_mhz: f64,
    /// `kernel case on memory`, or `None` with `--kernel none`.
    pub kernel: Option<String>,
    /// Points of the product.
    pub points_total: usize,
    /// Finished points in `points`.
    pub finished: usize,
    /// Valid points with no result yet (other shards, failures, an interrupted run).
    pub missing: Vec<String>,
    pub skipped: Vec<Skipped>,
    pub errors: Vec<PointError>,
    pub points: Vec<PointResult>,
}

/// What a run did.
#[derive(Debug)]
pub struct Outcome {
    pub summary: Summary,
    pub dir: PathBuf,
    /// Points of this run's shard read from earlier runs.
    pub cached: usize,
    /// Points this run ran (finished or failed).
    pub ran: usize,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// Why the plots were not written (no font), when they were not.
    pub plot_note: Option<String>,
}

impl Outcome {
    /// Every point this run was to produce has a result, and every kernel run passed.
    pub fn ok(&self) -> bool {
        self.summary.errors.is_empty()
            && self
                .summary
                .points
                .iter()
                .all(|p| p.kernel.as_ref().is_none_or(KernelResult::passed))
    }
}

fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Write `text` to `path` through a temporary file and a rename (readers see all or nothing).
pub fn write_atomically(path: &Path, text: &[u8]) -> Result<()> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("out"),
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

/// The content hash of a kernel case (launch, buffers, parameters, expected fault).
fn case_hash(c: &Case) -> String {
    let mut h = Sha256::new();
    h.update(format!("{} {} {} {}\n", c.kernel, c.label, c.grid, c.block));
    for b in &c.buffers {
        h.update(format!("buffer {} {}\n", b.name, b.init.len()));
        h.update(&b.init);
        if let Some(e) = &b.expected {
            h.update(b"expected\n");
            h.update(e);
        }
    }
    h.update(format!(
        "{:?} {:?} {} {:#x}\n",
        c.params, c.expected_fault, c.cta_base, c.counter_base
    ));
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The launch limits of a configuration (as `warpforge run` uses them).
fn limits(cfg: &GpuConfig) -> warpforge_kernels::Limits {
    crate::host::limits(cfg)
}

/// Whether `case` can be launched on `cfg`.
fn launches(cfg: &GpuConfig, image: &KernelImage, case: &Case) -> Result<(), String> {
    let gpu = Gpu::new(cfg, image).map_err(|e| e.to_string())?;
    gpu.check_launch(case.grid, case.block)
        .map_err(|e| e.to_string())?;
    let l = limits(cfg);
    if case.block > l.max_block {
        return Err(format!(
            "block {} exceeds {} warps x {} lanes",
            case.block, cfg.warps, cfg.lanes
        ));
    }
    Ok(())
}

/// The kernel's case for the sweep: the base configuration's representative case when it can
/// be launched on every point; else the representative case of the smallest limits over the
/// points (fewest lanes, smallest CTA, least shared memory, fewest SMs), which fits them all.
/// The same case (launch and data) runs on every point, so that cycles compare.
pub fn choose_case(
    spec: &KernelSpec,
    image: &KernelImage,
    base: &GpuConfig,
    configs: &[(&str, &GpuConfig)],
) -> Result<Case> {
    let fits_all = |c: &Case| {
        configs
            .iter()
            .all(|(_, cfg)| launches(cfg, image, c).is_ok())
    };
    if spec.cases(&limits(base), DATA_SEED).is_empty() {
        bail!(
            "--kernel {}: it has no case that runs on `{}` ({})",
            spec.name,
            base.name,
            spec.shape
        );
    }
    let case = spec.default_case(&limits(base), DATA_SEED);
    if fits_all(&case) {
        return Ok(case);
    }
    let mut l = limits(base);
    for (_, cfg) in configs {
        let m = limits(cfg);
        l.lanes = l.lanes.min(m.lanes);
        l.max_block = l.max_block.min(m.max_block);
        l.smem_bytes = l.smem_bytes.min(m.smem_bytes);
        l.sms = l.sms.min(m.sms);
    }
    let small = spec.cases(&l, DATA_SEED);
    if let Some(case) = (!small.is_empty())
        .then(|| spec.default_case(&l, DATA_SEED))
        .filter(|c| fits_all(c))
    {
        return Ok(case);
    }
    let bad: Vec<String> = configs
        .iter()
        .filter_map(|(id, cfg)| {
            launches(cfg, image, &case)
                .err()
                .map(|e| format!("{id} ({e})"))
        })
        .take(3)
        .collect();
    bail!(
        "--kernel {}: no case of it runs on every point (its case {} does not on {}): choose another kernel, or --kernel none",
        spec.name,
        case.label,
        bad.join(", ")
    )
}

/// The text every point's key is the hash of.
#[allow(clippy::too_many_arguments)]
fn key_text(
    point: &Point,
    cfg: &GpuConfig,
    synth_key: &str,
    verilog_sha: &str,
    opts: &Options,
    kernel: Option<&KernelPlan>,
) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "sweep-point schema {SCHEMA}");
    let _ = writeln!(t, "generator warpforge {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(t, "id {}", point.id);
    let _ = writeln!(t, "config {}", cfg.hash_hex());
    let _ = writeln!(t, "synth-key {synth_key}");
    let _ = writeln!(t, "synth-verilog {verilog_sha}");
    let _ = writeln!(
        t,
        "flow target={} estimate={}{}",
        opts.target.name(),
        opts.estimate,
        if opts.estimate {
            String::new()
        } else {
            format!(" seed={} freq={}", opts.seed, opts.freq_mhz)
        }
    );
    match kernel {
        None => {
            let _ = writeln!(t, "kernel none");
        }
        Some(k) => {
            let _ = writeln!(
                t,
                "kernel {} elf {} case {} ({}) data-seed {DATA_SEED}",
                k.spec.name,
                k.elf_sha256,
                k.case.label,
                case_hash(&k.case)
            );
            let _ = writeln!(
                t,
                "mem {}",
                serde_json::to_string(&k.mem).unwrap_or_default()
            );
            let _ = writeln!(t, "max-cycles {}", opts.max_cycles);
            let _ = writeln!(
                t,
                "cosim-verilog {}",
                lockstep::verilog_cache_key(cfg, &warpforge_hdl::top::TopOptions::default())
            );
        }
    }
    t
}

/// Run `f(i)` for `0..n` on `jobs` threads.
fn parallel<T: Send>(n: usize, jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let out: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Print through the progress bar (or to stderr when it is hidden: no terminal).
fn say(pb: &indicatif::ProgressBar, msg: &str) {
    if pb.is_hidden() {
        eprintln!("sweep: {msg}");
    } else {
        pb.println(msg);
    }
}

/// The synthesis flow of a point.
fn flow(opts: &Options, out_dir: PathBuf) -> Flow {
    Flow {
        target: opts.target,
        estimate: opts.estimate,
        seed: opts.seed,
        router: opts.router,
        placer: opts.placer,
        freq_mhz: opts.freq_mhz,
        threads: 1,
        out_dir,
        cache_dir: opts.synth_cache.clone(),
        heartbeat: Duration::from_secs(60),
    }
}

/// The point files of the sweep in `dir`.
pub fn point_path(dir: &Path, key: &str) -> PathBuf {
    dir.join("points").join(format!("{key}.json"))
}

/// A finished point from `dir`, when there is one for `key`.
pub fn read_point(dir: &Path, key: &str) -> Option<PointResult> {
    let text = std::fs::read_to_string(point_path(dir, key)).ok()?;
    let p: PointResult = serde_json::from_str(&text).ok()?;
    (p.key == key && p.schema == SCHEMA).then_some(p)
}

/// Check everything that can be checked before any long work; the points, prepared.
pub struct Plan {
    pub axes: Vec<Axis>,
    pub points: Vec<Point>,
    pub prepared: Vec<Prepared>,
    pub skipped: Vec<Skipped>,
    pub kernel: Option<KernelPlan>,
    pub shard: Option<Shard>,
    pub dir: PathBuf,
}

/// Parse and check the options and every point: configurations, Verilog, the kernel's case, the
/// tools; compute each point's key. Nothing long runs here but Verilog generation (cached).
pub fn plan(opts: &Options, progress: &indicatif::ProgressBar) -> Result<Plan> {
    if opts.jobs == 0 {
        bail!("--jobs 0: give how many points run at once, e.g. --jobs 2");
    }
    let shard = opts.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    let vary = opts
        .vary
        .iter()
        .map(|v| v.parse::<Vary>())
        .collect::<Result<Vec<_>>>()?;
    if vary.is_empty() {
        bail!(
            "nothing to sweep: give at least one --vary FIELD=V1,V2,... (e.g. --vary lanes=4,8,16); fields: {}",
            plan::fields(&opts.base).join(", ")
        );
    }
    let axes = plan::axes(&opts.base, &vary)?;
    let f = flow(opts, PathBuf::new());
    f.check()?;
    let mem: MemorySettings = opts
        .mem
        .parse()
        .map_err(|e| anyhow!("--mem {}: {e}", opts.mem))?;
    let mem = MemorySettings {
        seed: opts.seed,
        ..mem
    };
    let spec = if opts.kernel == NO_KERNEL {
        None
    } else {
        Some(warpforge_kernels::by_name(&opts.kernel).ok_or_else(|| {
            anyhow!(
                "--kernel {}: not a shipped kernel; give one of {} (`warpforge kernels` lists them), or --kernel none to skip the co-simulation",
                opts.kernel,
                warpforge_kernels::all()
                    .iter()
                    .map(|k| k.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?)
    };
    let points = plan::points(&opts.base, &axes);
    let mut skipped = Vec::new();
    let invalid: Vec<&Point> = points.iter().filter(|p| p.config.is_err()).collect();
    let invalid_fix =
        "remove the value from its --vary list, or add --skip-invalid to leave such points out";
    if !invalid.is_empty() {
        let list: Vec<String> = invalid
            .iter()
            .map(|p| format!("  {}: {}", p.id, p.config.as_ref().unwrap_err()))
            .collect();
        if !opts.skip_invalid {
            bail!(
                "{} of the {} points {} ({invalid_fix}):\n{}",
                invalid.len(),
                points.len(),
                if invalid.len() == 1 {
                    "is not a valid configuration"
                } else {
                    "are not valid configurations"
                },
                list.join("\n")
            );
        }
        for p in &invalid {
            skipped.push(Skipped {
                id: p.id.clone(),
                reason: p.config.clone().unwrap_err(),
            });
        }
    }
    // The tools before any long work (a missing tool is named with its setup command).
    let tools = synth::tool_versions(&f)?;
    if spec.is_some() {
        let v = std::process::Command::new("verilator")
            .arg("--version")
            .output();
        if !v.is_ok_and(|o| o.status.success()) {
            bail!(
                "`verilator` cannot be run: install it with scripts/setup.sh --verilator (Debian package `verilator`), or give --kernel none to sweep synthesis alone"
            );
        }
    }
    // Every valid point's Verilog (generated once, then cached) and synthesis key.
    let valid: Vec<&Point> = points.iter().filter(|p| p.config.is_ok()).collect();
    progress.set_length(valid.len() as u64);
    progress.set_message("generating the Verilog of every point (cached after the first time)");
    let keyed: Vec<Result<(String, String), String>> = parallel(valid.len(), opts.jobs, |i| {
        let cfg = valid[i].config.as_ref().expect("valid");
        let r = Design::of_config(cfg)
            .map_err(|e| format!("{e:#}"))
            .and_then(|d| {
                synth::cache_key(&d, &f, &tools)
                    .map(|(k, _)| (k, synth_sha(&d)))
                    .map_err(|e| format!("{e:#}"))
            });
        progress.inc(1);
        r
    });
    progress.set_position(0);
    let mut ready: Vec<(&Point, GpuConfig, String, String)> = Vec::new();
    let mut unbuildable = Vec::new();
    for (p, k) in valid.iter().zip(keyed) {
        match k {
            Ok((key, sha)) => ready.push((p, p.config.clone().expect("valid"), key, sha)),
            Err(e) => unbuildable.push(Skipped {
                id: p.id.clone(),
                reason: e,
            }),
        }
    }
    if !unbuildable.is_empty() {
        if !opts.skip_invalid {
            bail!(
                "the RTL of {} point{} cannot be generated ({invalid_fix}):\n{}",
                unbuildable.len(),
                if unbuildable.len() == 1 { "" } else { "s" },
                unbuildable
                    .iter()
                    .map(|s| format!("  {}: {}", s.id, s.reason))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
        skipped.extend(unbuildable);
    }
    if ready.is_empty() {
        bail!(
            "no point of the sweep is a valid configuration (all {} skipped): change the --vary lists",
            points.len()
        );
    }
    let kernel = match spec {
        None => None,
        Some(spec) => {
            let elf = spec
                .elf()
                .with_context(|| format!("--kernel {}: building it", spec.name))?;
            let bytes =
                std::fs::read(&elf).with_context(|| format!("reading {}", elf.display()))?;
            let image = warpforge_loader::load_elf_file(&elf)
                .with_context(|| format!("loading {}", elf.display()))?;
            let configs: Vec<(&str, &GpuConfig)> =
                ready.iter().map(|r| (r.0.id.as_str(), &r.1)).collect();
            let case = choose_case(spec, &image, &opts.base, &configs)?;
            Some(KernelPlan {
                spec,
                image,
                case,
                elf_sha256: sha256_hex(&bytes),
                mem,
            })
        }
    };
    let prepared = ready
        .into_iter()
        .map(|(p, cfg, synth_key, sha)| {
            let key_text = key_text(p, &cfg, &synth_key, &sha, opts, kernel.as_ref());
            Prepared {
                point: p.clone(),
                key: sha256_hex(key_text.as_bytes())[..20].to_string(),
                key_text,
                config: cfg,
                synth_key,
            }
        })
        .collect();
    Ok(Plan {
        axes,
        points,
        prepared,
        skipped,
        kernel,
        shard,
        dir: opts.dir(),
    })
}

/// The SHA-256 of a design's Verilog (as the synthesis report names it).
fn synth_sha(d: &Design) -> String {
    sha256_hex(d.verilog.as_bytes())
}

/// Co-simulate the kernel on a point and synthesize it.
fn run_point(
    p: &Prepared,
    opts: &Options,
    plan: &Plan,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<PointResult> {
    let t0 = Instant::now();
    let cfg = &p.config;
    let kernel = match &plan.kernel {
        None => None,
        Some(k) => {
            progress(&format!(
                "co-simulating {} ({}) on the RTL, lock-step with the model (Verilator build: cached per configuration)",
                k.spec.name, k.case.label
            ));
            let c = crate::cosim::run_case(
                cfg,
                &k.image,
                &k.case,
                &CosimOptions {
                    mem: k.mem.clone(),
                    max_cycles: opts.max_cycles,
                    ..Default::default()
                },
            )?;
            if let Err(CosimError::Build(e)) = &c.result {
                bail!("building the RTL model for the co-simulation: {e}");
            }
            Some(KernelResult::new(
                k.spec.name,
                &k.case.label,
                &p.point.id,
                &k.mem.name,
                &c,
                &k.image,
                String::new(),
            ))
        }
    };
    let design = Design::of_config(cfg).with_context(|| format!("generating {}", p.point.id))?;
    let f = flow(opts, plan.dir.join("runs").join(&p.key));
    let out = synth::run(&design, &f, progress)?;
    let mut r = PointResult {
        schema: SCHEMA,
        index: p.point.index,
        id: p.point.id.clone(),
        params: p
            .point
            .params
            .iter()
            .map(|(f, v)| Param {
                field: f.clone(),
                value: v.clone(),
            })
            .collect(),
        config_hash: cfg.hash_hex(),
        sms: cfg.sms,
        lanes: cfg.lanes,
        synth: SynthSummary::of_report(&out.report, out.cached, &out.json),
        kernel,
        time_us: None,
        luts_per_lane: None,
        elapsed_s: t0.elapsed().as_secs_f64(),
        finished_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        key: p.key.clone(),
        key_text: p.key_text.clone(),
    };
    r.derive();
    Ok(r)
}

/// One line on a finished point.
pub fn point_line(r: &PointResult) -> String {
    let s = &r.synth;
    let res = |n: &str| {
        s.resource(n).map(|x| {
            format!(
                "{n} {}{}",
                synth::parse::thousands(x.used),
                x.percent
                    .map(|p| format!(" ({p:.1} %)"))
                    .unwrap_or_default()
            )
        })
    };
    let mut parts: Vec<String> = ["LUT4", "FF"].iter().filter_map(|n| res(n)).collect();
    match (&s.overflow, s.fmax_mhz) {
        (Some(o), _) => parts.push(format!("DOES NOT FIT: {o}")),
        (None, Some(f)) => parts.push(format!("Fmax {f:.1} MHz")),
        _ => {}
    }
    if let Some(k) = &r.kernel {
        match k.cycles {
            Some(c) if k.passed() => {
                parts.push(format!("{} cycles, IPC {:.3}", c, k.ipc.unwrap_or(0.0)))
            }
            _ => parts.push(format!("kernel {}: {}", k.kernel, k.result.to_uppercase())),
        }
    }
    format!("{}: {}", r.id, parts.join(", "))
}

/// Run the sweep (the points of this shard that have no result yet) and write the outputs.
pub fn run(opts: &Options) -> Result<Outcome> {
    let pb = crate::regress::progress_bar(0);
    let plan = plan(opts, &pb)?;
    let dir = plan.dir.clone();
    std::fs::create_dir_all(dir.join("points"))
        .with_context(|| format!("creating {}", dir.join("points").display()))?;
    let mine: Vec<&Prepared> = plan
        .prepared
        .iter()
        .filter(|p| plan.shard.is_none_or(|s| s.contains(p.point.index)))
        .collect();
    let mut results: BTreeMap<usize, PointResult> = BTreeMap::new();
    for p in &plan.prepared {
        if let Some(mut r) = read_point(&dir, &p.key) {
            r.index = p.point.index;
            results.insert(p.point.index, r);
        }
    }
    let todo: Vec<&Prepared> = mine
        .iter()
        .copied()
        .filter(|p| !results.contains_key(&p.point.index))
        .collect();
    let cached = mine.len() - todo.len();
    println!(
        "sweep of `{}` ({}): {} point{} ({}){}; {}{}",
        opts.base.name,
        opts.config_arg,
        plan.points.len(),
        if plan.points.len() == 1 { "" } else { "s" },
        plan.axes
            .iter()
            .map(|a| format!("{}={}", a.field, a.labels.join(",")))
            .collect::<Vec<_>>()
            .join(" x "),
        if plan.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} skipped as invalid", plan.skipped.len())
        },
        if opts.estimate {
            "yosys estimate (no Fmax)".to_string()
        } else {
            format!(
                "place and route on {} at {} MHz, seed {}",
                opts.target.name(),
                opts.freq_mhz,
                opts.seed
            )
        },
        match &plan.kernel {
            Some(k) => format!(
                "; kernel {} ({}), memory {}",
                k.spec.name, k.case.label, k.mem.name
            ),
            None => "; no kernel".to_string(),
        }
    );
    for s in &plan.skipped {
        println!("  skipped {}: {}", s.id, s.reason);
    }
    let keys: BTreeSet<String> = plan
        .prepared
        .iter()
        .map(|p| format!("{}.json", p.key))
        .collect();
    let others = std::fs::read_dir(dir.join("points"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.ends_with(".json") && !n.starts_with('.') && !keys.contains(&n)
                })
                .count()
        })
        .unwrap_or(0);
    println!(
        "{}{} cached, {} to run{}",
        match plan.shard {
            Some(s) => format!("shard {s}: {} of the points; ", mine.len()),
            None => String::new(),
        },
        cached,
        todo.len(),
        if others > 0 {
            format!(
                " ({others} other point file{} in {} from other settings or versions: not used)",
                if others == 1 { "" } else { "s" },
                dir.join("points").display()
            )
        } else {
            String::new()
        }
    );

    pb.set_length(todo.len() as u64);
    pb.set_position(0);
    pb.set_message("");
    let errors: Mutex<Vec<(usize, PointError)>> = Mutex::new(Vec::new());
    let finished: Mutex<Vec<PointResult>> = Mutex::new(Vec::new());
    let write_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    parallel(todo.len(), opts.jobs, |i| {
        let p = todo[i];
        let id = &p.point.id;
        let progress = |m: &str| {
            if pb.is_hidden() {
                eprintln!("sweep: [{id}] {m}");
            } else {
                pb.set_message(format!("[{id}] {m}"));
            }
        };
        progress("started");
        match run_point(p, opts, &plan, &progress) {
            Ok(r) => {
                let text = serde_json::to_string_pretty(&r).expect("serializes");
                if let Err(e) = write_atomically(&point_path(&dir, &p.key), text.as_bytes()) {
                    write_error.lock().unwrap().get_or_insert(e);
                }
                say(
                    &pb,
                    &format!("done {} ({:.0} s)", point_line(&r), r.elapsed_s),
                );
                finished.lock().unwrap().push(r);
            }
            Err(e) => {
                say(&pb, &format!("FAILED {id}: {e:#}"));
                errors.lock().unwrap().push((
                    p.point.index,
                    PointError {
                        id: id.clone(),
                        error: format!("{e:#}"),
                    },
                ));
            }
        }
        pb.inc(1);
    });
    pb.finish_and_clear();
    if let Some(e) = write_error.into_inner().unwrap() {
        return Err(e);
    }
    let ran = todo.len();
    for r in finished.into_inner().unwrap() {
        results.insert(r.index, r);
    }
    let mut errors = errors.into_inner().unwrap();
    errors.sort_by_key(|(i, _)| *i);
    let errors: Vec<PointError> = errors.into_iter().map(|(_, e)| e).collect();
    let missing: Vec<String> = plan
        .prepared
        .iter()
        .filter(|p| !results.contains_key(&p.point.index))
        .map(|p| p.point.id.clone())
        .collect();
    let device = opts.target.device();
    let summary = Summary {
        schema: SCHEMA,
        config: opts.config_arg.clone(),
        base_name: opts.base.name.clone(),
        base_hash: opts.base.hash_hex(),
        vary: plan
            .axes
            .iter()
            .map(|a| (a.field.clone(), a.labels.clone()))
            .collect(),
        target: opts.target.name().into(),
        device: device.name.into(),
        mode: if opts.estimate {
            "estimate".into()
        } else {
            "place-and-route".into()
        },
        estimate: opts.estimate,
        seed: opts.seed,
        freq_target_mhz: opts.freq_mhz,
        kernel: plan.kernel.as_ref().map(|k| {
            format!(
                "{} ({}) on memory {}",
                k.spec.name, k.case.label, k.mem.name
            )
        }),
        points_total: plan.points.len(),
        finished: results.len(),
        missing,
        skipped: plan.skipped.clone(),
        errors,
        points: results.into_values().collect(),
    };
    let (files, plot_note) = output::write_all(&dir, &summary)?;
    Ok(Outcome {
        summary,
        dir,
        cached,
        ran,
        files,
        plot_note,
    })
}
