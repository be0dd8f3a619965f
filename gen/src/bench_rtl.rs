//! `warpforge bench rtl`: how fast the generated RTL simulates and how well it issues.
//!
//! Per configuration: the time to generate the Verilog and to Verilate and compile it (in an
//! empty cache with `fresh_cache`, so the Verilator runtime is compiled too), then per shipped
//! kernel (its reference case with the largest CTAs, so that an SM holds as many warps as
//! the kernel gives it) Verilator's speed alone (RTL + memory model, `CosimOptions::check = false`), the
//! speed in lock-step with the golden model, the overhead of the check, and the RTL's own
//! counters: IPC per SM, issued warp-instructions, idle issue cycles, bank conflicts.
//!
//! Each run is repeated until `seconds` of simulation have passed, so short kernels are timed
//! over many runs; only the kernel cycles are timed (building, reset, instruction load and
//! memory set-up excluded).

use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use serde::Serialize;
use warpforge_config::GpuConfig;
use warpforge_kernels::{Case, KernelSpec};
use warpforge_loader::KernelImage;
use warpforge_testbench::lockstep::{build_rtl, BuildInfo, CosimOptions, CosimReport};

use crate::cosim::run_case;
use crate::host::limits;

/// One kernel on one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct KernelBench {
    pub kernel: String,
    pub case: String,
    pub cycles: u64,
    /// Warp-instructions issued per cycle per SM (`ctr_issued` summed over SMs / cycles / SMs).
    pub ipc_per_sm: f64,
    pub issued: u64,
    /// Cycles in which an SM had a live warp and issued nothing, summed over SMs.
    pub idle: u64,
    /// Register-file bank-conflict events, summed over SMs.
    pub bank_conflicts: u64,
    /// Kernel cycles per second: Verilator and the memory model alone.
    pub rtl_cycles_per_s: f64,
    /// Kernel cycles per second in lock-step with the golden model.
    pub lockstep_cycles_per_s: f64,
    /// Extra time of lock-step over Verilator alone, in percent.
    pub overhead_percent: f64,
}

/// One configuration.
#[derive(Clone, Debug, Serialize)]
pub struct ConfigBench {
    pub config: String,
    pub hash: String,
    pub sms: u32,
    pub warps: u32,
    pub lanes: u32,
    /// The model came from the cache: the build times below are zero.
    pub cached: bool,
    pub generate_s: f64,
    pub verilate_s: f64,
    pub runtime_compile_s: f64,
    pub model_compile_s: f64,
    /// Verilate, compile, link and load (the runtime included when it was compiled).
    pub build_s: f64,
    pub kernels: Vec<KernelBench>,
    /// Over all kernels: total cycles / total time.
    pub rtl_cycles_per_s: f64,
    pub lockstep_cycles_per_s: f64,
    pub overhead_percent: f64,
}

/// The case a kernel is benchmarked with: the largest CTAs (the most resident warps per SM),
/// then the most threads; the first of equals.
pub fn bench_case(k: &KernelSpec, cfg: &GpuConfig) -> Option<(usize, Case)> {
    let cases = k.cases(&limits(cfg), 1);
    let key = |c: &Case| (c.block, c.grid * c.block);
    let best = cases.iter().map(key).max()?;
    let i = cases.iter().position(|c| key(c) == best)?;
    Some((i, cases[i].clone()))
}

/// Run `case` repeatedly for at least `seconds` of simulation; the last report and the total
/// cycles and simulation time.
fn timed(
    cfg: &GpuConfig,
    image: &KernelImage,
    case: &Case,
    opts: &CosimOptions,
    seconds: f64,
) -> Result<(CosimReport, u64, Duration)> {
    let (mut cycles, mut wall) = (0u64, Duration::ZERO);
    loop {
        let c = run_case(cfg, image, case, opts)?;
        if !c.passed() {
            bail!(
                "{} on `{}` did not pass: {}",
                case.kernel,
                cfg.name,
                c.details(image)
            );
        }
        let r = c.result.expect("passed");
        cycles += r.cycles;
        wall += r.wall;
        if wall.as_secs_f64() >= seconds {
            return Ok((r, cycles, wall));
        }
    }
}

fn rate(cycles: u64, wall: Duration) -> f64 {
    cycles as f64 / wall.as_secs_f64().max(1e-9)
}

fn overhead(checked: f64, alone: f64) -> f64 {
    (alone / checked.max(1e-9) - 1.0) * 100.0
}

/// Build `cfg`'s model and benchmark `kernels` on it; `progress` is told what runs.
pub fn bench_config(
    cfg: &GpuConfig,
    kernels: &[&KernelSpec],
    seconds: f64,
    progress: &mut dyn FnMut(&str),
) -> Result<ConfigBench> {
    progress(&format!("building the RTL model of `{}`", cfg.name));
    let (_, info): (_, BuildInfo) =
        build_rtl(cfg, None, false).with_context(|| format!("building `{}`", cfg.name))?;
    let mut rows = Vec::new();
    let (mut rc, mut rw, mut lc, mut lw) = (0u64, Duration::ZERO, 0u64, Duration::ZERO);
    for k in kernels {
        let Some((index, case)) = bench_case(k, cfg) else {
            continue;
        };
        progress(&format!("{} on `{}`", k.name, cfg.name));
        let elf = k.elf()?;
        let image = warpforge_loader::load_elf_file(&elf)
            .with_context(|| format!("loading {}", elf.display()))?;
        let alone = CosimOptions {
            check: false,
            ..CosimOptions::default()
        };
        let (r, c1, w1) = timed(cfg, &image, &case, &alone, seconds)?;
        let (_, c2, w2) = timed(cfg, &image, &case, &CosimOptions::default(), seconds)?;
        rc += c1;
        rw += w1;
        lc += c2;
        lw += w2;
        let (a, l) = (rate(c1, w1), rate(c2, w2));
        rows.push(KernelBench {
            kernel: k.name.to_string(),
            case: format!("case {index}: grid {} x block {}", case.grid, case.block),
            cycles: r.cycles,
            ipc_per_sm: r.ipc / f64::from(cfg.sms),
            issued: r.issued(),
            idle: r.idle(),
            bank_conflicts: r.conflicts(),
            rtl_cycles_per_s: a,
            lockstep_cycles_per_s: l,
            overhead_percent: overhead(l, a),
        });
    }
    let (a, l) = (rate(rc, rw), rate(lc, lw));
    Ok(ConfigBench {
        config: cfg.name.clone(),
        hash: cfg.hash_hex(),
        sms: cfg.sms,
        warps: cfg.warps,
        lanes: cfg.lanes,
        cached: info.cache_hit,
        generate_s: info.generate.as_secs_f64(),
        verilate_s: info.verilate.as_secs_f64(),
        runtime_compile_s: info.runtime_compile.as_secs_f64(),
        model_compile_s: info.model_compile.as_secs_f64(),
        build_s: info.build.as_secs_f64(),
        kernels: rows,
        rtl_cycles_per_s: a,
        lockstep_cycles_per_s: l,
        overhead_percent: overhead(l, a),
    })
}

/// The report of one configuration, as printed.
pub fn table(b: &ConfigBench) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "`{}` (hash {}): {} SM x {} warps x {} lanes",
        b.config, b.hash, b.sms, b.warps, b.lanes
    );
    if b.cached {
        let _ = writeln!(
            s,
            "  build: model from the cache (run with --fresh-cache to time generation and compilation)"
        );
    } else {
        let _ = writeln!(
            s,
            "  build: generate Verilog {:.1} s, verilator {:.1} s, C++ runtime {:.1} s, C++ model {:.1} s; \
             Verilate + compile + load {:.1} s",
            b.generate_s, b.verilate_s, b.runtime_compile_s, b.model_compile_s, b.build_s
        );
    }
    let _ = writeln!(
        s,
        "  {:<18} {:<24} {:>7} {:>7} {:>8} {:>7} {:>9} {:>10} {:>10} {:>8}",
        "kernel",
        "case",
        "cycles",
        "IPC/SM",
        "issued",
        "idle",
        "conflicts",
        "RTL c/s",
        "lockstep",
        "overhead"
    );
    for k in &b.kernels {
        let _ = writeln!(
            s,
            "  {:<18} {:<24} {:>7} {:>7.3} {:>8} {:>7} {:>9} {:>10} {:>10} {:>7.0}%",
            k.kernel,
            k.case,
            k.cycles,
            k.ipc_per_sm,
            k.issued,
            k.idle,
            k.bank_conflicts,
            kilo(k.rtl_cycles_per_s),
            kilo(k.lockstep_cycles_per_s),
            k.overhead_percent
        );
    }
    let _ = writeln!(
        s,
        "  all kernels: Verilator alone {} cycles/s, lock-step {} cycles/s, lock-step overhead {:.0}%",
        kilo(b.rtl_cycles_per_s),
        kilo(b.lockstep_cycles_per_s),
        b.overhead_percent
    );
    s
}

fn kilo(x: f64) -> String {
    format!("{:.1} k", x / 1e3)
}
