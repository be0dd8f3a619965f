//! `warpforge verify`: the main job. Generate the Verilog of a configuration into a folder the
//! user can see, build it under Verilator, run every shipped kernel on it in lock-step with the
//! golden model, and end with the results table, where the Verilog is, what came from the caches
//! and the commands to try next.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use warpforge_config::GpuConfig;
use warpforge_kernels::KernelSpec;
use warpforge_testbench::lockstep::build_rtl;
use warpforge_testbench::memory_model::MemorySettings;

use crate::cosim::CosimRow;
use crate::regress::{self, Plan};
use crate::rtl_out::{write_rtl, RtlFiles};

/// What to verify.
pub struct Verify {
    /// The configuration as the user named it (preset or file) and its value.
    pub config: (String, GpuConfig),
    /// The Verilog goes to `out/<configuration name>/`.
    pub out: PathBuf,
    pub mems: Vec<(String, MemorySettings)>,
    pub kernels: Vec<&'static KernelSpec>,
    /// Every reference case of each kernel (else its representative case).
    pub all_cases: bool,
    /// The timing check (expected kernel cycles, `crate::cycles`).
    pub cycles: crate::cycles::Mode,
    /// Where the expected cycles are.
    pub cycles_dir: PathBuf,
    pub jobs: usize,
    /// Seed of the memory model and of the input data.
    pub seed: u64,
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
}

/// How the run went, for the caller's exit status.
pub struct Outcome {
    pub rows: Vec<CosimRow>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.rows.iter().all(CosimRow::passed)
    }
}

/// A spinner on stderr for a step whose length is unknown (hidden without a terminal, where a
/// plain line says what is happening instead).
fn spinner(msg: String) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        eprintln!("verify: {msg}");
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
            .expect("valid template"),
    );
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// Run the main job; prints as it goes and returns the rows. `Err` for anything that stops it
/// before the kernels run (a missing tool, a failed build).
pub fn run(v: &Verify) -> Result<Outcome> {
    let start = Instant::now();
    let (cfg_arg, cfg) = &v.config;
    if v.kernels.is_empty() || v.mems.is_empty() {
        bail!("nothing to run: give at least one kernel and one memory setting");
    }
    println!(
        "warpforge verify: configuration `{}` ({} SM x {} warps x {} lanes, hash {})",
        cfg.name,
        cfg.sms,
        cfg.warps,
        cfg.lanes,
        cfg.hash_hex()
    );

    // 1. Verilog, where the user can see it.
    let dir = v.out.join(&cfg.name);
    let pb = spinner(format!("[1/4] generating the Verilog of `{}`", cfg.name));
    let rtl = write_rtl(cfg, &dir);
    pb.finish_and_clear();
    let rtl = rtl.with_context(|| format!("generating the Verilog of `{}`", cfg.name))?;
    println!("[1/4] Verilog: {}", rtl.summary());

    // 2. The Verilated model.
    let pb = spinner(format!(
        "[2/4] building the Verilated model of `{}` (Verilator + C++; a minute or two the first time, cached after)",
        cfg.name
    ));
    let built = build_rtl(cfg, None, false);
    pb.finish_and_clear();
    let (_, info) = built.map_err(|e| anyhow::anyhow!("{e}"))?;
    println!(
        "[2/4] Verilated model: {} ({})",
        if info.cache_hit {
            "from the cache".to_string()
        } else {
            format!(
                "Verilated and compiled in {} (verilator {}, C++ runtime {}, C++ model {})",
                secs(info.build),
                secs(info.verilate),
                secs(info.runtime_compile),
                secs(info.model_compile)
            )
        },
        info.library.display()
    );

    // 3. Kernels.
    let pb = spinner(format!(
        "[3/4] building {} kernels with riscv64-unknown-elf-gcc",
        v.kernels.len()
    ));
    let t = Instant::now();
    let mut fresh = 0;
    for k in &v.kernels {
        let (_, built) = k
            .elf_status()
            .with_context(|| format!("building kernel `{}`", k.name))?;
        fresh += usize::from(built);
    }
    pb.finish_and_clear();
    println!(
        "[3/4] kernels: {}",
        if fresh == 0 {
            format!("{} from the cache", v.kernels.len())
        } else {
            format!(
                "{fresh} compiled, {} from the cache, in {}",
                v.kernels.len() - fresh,
                secs(t.elapsed())
            )
        }
    );

    // 4. Lock-step co-simulation.
    let plan = Plan {
        configs: vec![(cfg_arg.clone(), cfg.clone())],
        mems: v.mems.clone(),
        kernels: v.kernels.clone(),
        all_cases: v.all_cases,
        data_seed: v.seed,
        max_cycles: warpforge_testbench::lockstep::DEFAULT_MAX_CYCLES,
        vcd: None,
        jobs: v.jobs,
        // Built above, with its own progress line.
        announce_builds: false,
        cycles: v.cycles,
        cycles_dir: v.cycles_dir.clone(),
    };
    println!(
        "[4/4] lock-step co-simulation: {} kernels x {} x memory {} ({} jobs)",
        v.kernels.len(),
        if v.all_cases {
            "every reference case"
        } else {
            "one case"
        },
        v.mems
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        v.jobs
    );
    let t = Instant::now();
    let (rows, cycles_note) = regress::run(&plan)?;
    let sim_time = t.elapsed();
    println!();
    let failures = regress::report(
        &rows,
        v.json.as_deref(),
        v.junit.as_deref(),
        start.elapsed(),
    )?;
    if !cycles_note.is_empty() {
        println!("{cycles_note}");
    }
    println!();
    print!(
        "{}",
        epilogue(
            cfg_arg,
            cfg,
            &rtl,
            &rows,
            failures,
            sim_time,
            start.elapsed()
        )
    );
    Ok(Outcome { rows })
}

/// The closing lines: the verdict, where things are, and what to try next.
fn epilogue(
    cfg_arg: &str,
    config: &GpuConfig,
    rtl: &RtlFiles,
    rows: &[CosimRow],
    failures: usize,
    sim_time: Duration,
    total: Duration,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} passed, {} failed ({} lock-step runs in {}; {} in all)",
        rows.len() - failures,
        failures,
        rows.len(),
        secs(sim_time),
        secs(total)
    );
    let _ = writeln!(s, "\nVerilog:     {}", rtl.verilog.display());
    let _ = writeln!(
        s,
        "             {} (file list), {} (the resolved configuration)",
        rtl.file_list.display(),
        rtl.config.display()
    );
    let example = rows
        .iter()
        .find(|r| !r.passed())
        .map_or("reduce", |r| r.kernel.as_str());
    let cfg = crate::cosim::shell_word(cfg_arg);
    let others = if config.name == "tiny" {
        format!("{cfg},small")
    } else {
        format!("tiny,{cfg}")
    };
    // A launch that fits any configuration: CTAs of up to 64 threads.
    let block = 64.min(config.warps * config.lanes);
    let n = 4 * block;
    let _ = writeln!(s, "\nNext:");
    for (cmd, what) in [
        (
            format!("warpforge cosim {example} --config {cfg} --mem random --waves waves/{example}.vcd"),
            "one kernel in lock-step, with a VCD of every cycle (open it in GTKWave)",
        ),
        (
            format!(
                "warpforge cosim kernels/saxpy.c --config {cfg} --grid 4 --block {block} --arg 3 --arg buf:{}:iota --arg buf:{} --arg {n}",
                4 * n,
                4 * n
            ),
            "your own kernel and launch shape",
        ),
        (
            format!("warpforge regress --configs {others} --mem zero,long,random --junit regress.xml"),
            "the regression on more configurations",
        ),
        (
            format!("warpforge bench rtl --configs {cfg}"),
            "Verilator speed, lock-step overhead and IPC per kernel",
        ),
        (
            format!("warpforge synth --config {cfg} --estimate"),
            "a quick area estimate of the generated Verilog (generic yosys synthesis)",
        ),
        (
            format!("warpforge synth --config {cfg} --target ecp5-85f"),
            "synthesis, place and route for the ECP5-85F: resources, Fmax, critical path (docs/fpga.md)",
        ),
        (
            "warpforge suite".to_string(),
            "the kernels on the golden model alone (no RTL)",
        ),
    ] {
        let _ = writeln!(s, "  {cmd}\n      {what}");
    }
    s
}

/// The default output folder of `verify`: `build/rtl` in the current directory.
pub fn default_out() -> &'static Path {
    Path::new("build/rtl")
}
