//! `warpforge`: one binary, one sub-command per job.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use warpforge::cosim::{command_line, CosimRow};
use warpforge::host::{self, limits, ArgSpec, DEFAULT_MAX_CYCLES};
use warpforge::{bench_rtl, regress, report};
use warpforge_config::{GpuConfig, DEFAULT_PRESET, PRESETS};
use warpforge_kernels::{Case, KernelSpec, Param};
use warpforge_loader::KernelImage;
use warpforge_sim::{Gpu, RunOutcome};
use warpforge_testbench::lockstep::{self, CosimError, CosimOptions, CosimOutcome};
use warpforge_testbench::memory_model::{MemorySettings, MEMORY_PRESETS};

#[derive(Parser)]
#[command(name = "warpforge", version, about = "Parameterized SIMT GPU: configuration, kernels, golden model, RTL and co-simulation", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show or list configurations.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// List the shipped kernels.
    Kernels,
    /// Compile a C or assembly kernel to an ELF with the project's flags.
    Build {
        /// Kernel source (.c or .S) or the name of a shipped kernel.
        source: String,
        /// Output directory (default: target/kernels).
        #[arg(short, long)]
        out_dir: Option<PathBuf>,
    },
    /// Disassemble a kernel with the loader's reconvergence points.
    Disasm {
        /// Shipped kernel name, C/assembly source, or ELF.
        kernel: String,
    },
    /// Run a kernel on the golden model and print its statistics.
    Run(RunArgs),
    /// The main job: generate the Verilog into a folder (build/rtl/CONFIG), build it under
    /// Verilator and run every shipped kernel in lock-step with the golden model.
    Verify(VerifyArgs),
    /// Run every shipped kernel's reference cases on the golden model alone (no RTL).
    Suite {
        /// Preset name or TOML/JSON file.
        #[arg(short, long, default_value = DEFAULT_PRESET)]
        config: String,
        /// Seed of the input data.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the results as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Generate the GPU's Verilog: DIR/warpforge_top.v, DIR/files.f and DIR/config.toml.
    Gen {
        /// Preset name or TOML/JSON file.
        #[arg(short, long, default_value = DEFAULT_PRESET)]
        config: String,
        /// Output directory (created if missing).
        #[arg(short, long)]
        out_dir: PathBuf,
    },
    /// Run a kernel on the generated RTL (Verilator) in lock-step with the golden model.
    Cosim(CosimArgs),
    /// Co-simulate the shipped kernels on configurations x memory settings; table, JSON, JUnit.
    Regress(RegressArgs),
    /// Mutation coverage of the checker: yosys `mutate` mutants of the design, each run in
    /// lock-step against a kernel set; detected, equivalent or escaped.
    Mutate(MutateArgs),
    /// Synthesis and place-and-route for an FPGA (yosys + nextpnr): resources, Fmax, the
    /// critical path, tool times; cached (docs/fpga.md).
    Synth(SynthArgs),
    /// Area–timing sweep: the cartesian product of --vary lists over a configuration, each
    /// point synthesized (yosys estimate, or place and route for Fmax) and a kernel
    /// co-simulated on it; table, CSV, JSON and plots, resumable (docs/fpga.md, "Sweeps").
    Sweep(SweepArgs),
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
}

#[derive(clap::Args)]
struct CosimArgs {
    /// Shipped kernel name, C/assembly source, or ELF.
    kernel: String,
    /// Preset name or TOML/JSON file.
    #[arg(short, long, default_value = DEFAULT_PRESET)]
    config: String,
    /// Run reference case N of a shipped kernel (default: its representative case).
    #[arg(long, conflicts_with_all = ["grid", "block", "args"])]
    case: Option<usize>,
    /// CTAs in the grid (with --block and --arg, as for `run`).
    #[arg(long)]
    grid: Option<u32>,
    /// Threads per CTA.
    #[arg(long)]
    block: Option<u32>,
    /// Kernel parameter, as for `run`: a number or buf:BYTES[:iota|:rand:SEED] or file:PATH.
    #[arg(long = "arg", allow_hyphen_values = true)]
    args: Vec<String>,
    /// Memory model: zero, long, random, or key=value pairs
    /// (latency=N,jitter=N,bandwidth=N,backpressure=P,seed=S), optionally after a preset.
    #[arg(long, default_value = "zero")]
    mem: String,
    /// Seed of the memory model's random latencies and back-pressure.
    #[arg(long)]
    seed: Option<u64>,
    /// Seed of a shipped kernel's input data (as `run --seed`).
    #[arg(long, default_value_t = 1)]
    data_seed: u64,
    /// Limit of kernel cycles (the run is stopped with a report when it is reached).
    #[arg(long, default_value_t = lockstep::DEFAULT_MAX_CYCLES)]
    max_cycles: u64,
    /// On a failure, write a VCD of the cycles around it into this directory.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// When the run passes, write a VCD of every cycle (from reset) to this file.
    #[arg(long)]
    waves: Option<PathBuf>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Verilator and the memory model only, no golden model (measures the checker's overhead).
    #[arg(long)]
    no_check: bool,
    /// Simulate this Verilog file (top `warpforge_top`) instead of generating it.
    #[arg(long)]
    verilog: Option<PathBuf>,
}

#[derive(clap::Args)]
struct SynthArgs {
    /// Preset name or TOML/JSON file.
    #[arg(short, long, default_value = DEFAULT_PRESET)]
    config: String,
    /// FPGA: ecp5-85f (Lattice LFE5U-85F, CABGA381, speed 6, as on the ULX3S).
    #[arg(long, default_value = "ecp5-85f")]
    target: String,
    /// A fast generic yosys synthesis instead (4-LUTs, FFs, memories, multipliers; no
    /// placement, no Fmax): an estimate for quick comparisons.
    #[arg(long)]
    estimate: bool,
    /// nextpnr's placement seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// nextpnr's router: router1 (its default) or router2 (for a congested design such as
    /// `small`, docs/fpga.md).
    #[arg(long, default_value = "router1")]
    router: String,
    /// nextpnr's placer: static (electrostatic; placed `tiny` 3–7 MHz faster than heap on every
    /// seed tried, docs/fpga.md "Placers") or heap (nextpnr-ecp5's own default, analytic).
    #[arg(long, default_value = "static")]
    placer: String,
    /// Clock constraint in MHz (the report says whether it is met).
    #[arg(long, default_value_t = 100.0)]
    freq: f64,
    /// nextpnr threads.
    #[arg(short, long, default_value_t = 1)]
    jobs: usize,
    /// Output directory (default: build/synth/CONFIG).
    #[arg(short, long)]
    out_dir: Option<PathBuf>,
    /// Run the tools even when an identical run's report is cached.
    #[arg(long)]
    no_cache: bool,
    /// Keep the co-simulation trace ports (synthesis leaves them out by default), to measure
    /// what they cost.
    #[arg(long)]
    trace_ports: bool,
}

#[derive(clap::Args)]
struct SweepArgs {
    /// Preset name or TOML/JSON file: the base every point changes.
    #[arg(short, long, default_value = DEFAULT_PRESET)]
    config: String,
    /// FIELD=V1,V2,...: a configuration field and its values (repeat for more fields; the
    /// points are the cartesian product), e.g. --vary lanes=4,8,16 --vary rf_banks=2,4.
    #[arg(long, value_name = "FIELD=V1,V2,...")]
    vary: Vec<String>,
    /// Points run at once (each runs yosys, and nextpnr with one thread).
    #[arg(short, long, default_value_t = 1)]
    jobs: usize,
    /// K/N: run only the points whose index is K-1 modulo N (shards share the output
    /// directory; their results combine in the outputs).
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// The fast generic yosys estimate instead of place and route (no Fmax).
    #[arg(long)]
    estimate: bool,
    /// FPGA: ecp5-85f (Lattice LFE5U-85F, CABGA381, speed 6, as on the ULX3S).
    #[arg(long, default_value = "ecp5-85f")]
    target: String,
    /// The shipped kernel co-simulated on every point (cycles, IPC), or `none`.
    #[arg(long, default_value = "vecadd")]
    kernel: String,
    /// Memory model of the co-simulation: zero, long, random, or key=value pairs.
    #[arg(long, default_value = "zero")]
    mem: String,
    /// nextpnr's placement seed and the memory model's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// nextpnr's router: router1 or router2 (as `synth --router`).
    #[arg(long, default_value = "router1")]
    router: String,
    /// nextpnr's placer: static or heap (as `synth --placer`).
    #[arg(long, default_value = "static")]
    placer: String,
    /// Clock constraint in MHz (place and route).
    #[arg(long, default_value_t = 100.0)]
    freq: f64,
    /// Limit of kernel cycles per co-simulation.
    #[arg(long, default_value_t = lockstep::DEFAULT_MAX_CYCLES)]
    max_cycles: u64,
    /// Leave out the points that are not valid configurations (listed with the reason)
    /// instead of stopping before any work.
    #[arg(long)]
    skip_invalid: bool,
    /// Output directory (default: build/sweep/CONFIG).
    #[arg(short, long)]
    out_dir: Option<PathBuf>,
}

#[derive(clap::Args)]
struct MutateArgs {
    /// Preset name or TOML/JSON file.
    #[arg(short, long, default_value = "tiny")]
    config: String,
    /// Mutants (yosys `mutate -list COUNT`).
    #[arg(long, default_value_t = 50)]
    count: usize,
    /// Seed of yosys's choice of mutations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Shipped kernels, comma-separated (default: all); each runs every reference case.
    #[arg(long, value_delimiter = ',')]
    kernels: Vec<String>,
    /// Only each kernel's representative case (faster; `regress --quick`'s set).
    #[arg(long)]
    quick: bool,
    /// Memory settings, comma-separated: each case runs under each.
    #[arg(long, value_delimiter = ',', default_value = "zero,random")]
    mem: Vec<String>,
    /// Mutants in parallel (default: the number of CPUs).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Do not try to prove survivors equivalent.
    #[arg(long)]
    no_equiv: bool,
    /// Count only functional detection: a mutant whose runs all match the model but take
    /// other cycle counts than the unmutated design survives instead of "detected (cycles)".
    #[arg(long)]
    no_timing: bool,
    /// Only these mutants (ids as the table prints them, without the `m`), comma-separated;
    /// each is run afresh and its stored verdict replaced.
    #[arg(long, value_delimiter = ',')]
    only: Vec<usize>,
    /// Time limit of one equivalence proof, in seconds.
    #[arg(long, default_value_t = 300)]
    equiv_timeout: u64,
    /// Exit 1 when coverage (detected / non-equivalent mutants) is below this percentage.
    #[arg(long)]
    min_coverage: Option<f64>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write JUnit XML to this file (an escape is a failed test case).
    #[arg(long)]
    junit: Option<PathBuf>,
}

/// Which lock-step runs `verify` and `regress` make for each configuration.
#[derive(clap::Args)]
struct RunSet {
    /// Memory settings, comma-separated (zero, long, random).
    #[arg(long, value_delimiter = ',', default_value = "zero,long,random")]
    mem: Vec<String>,
    /// Shipped kernels, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    kernels: Vec<String>,
    /// Each kernel's representative case only, instead of all its reference cases.
    #[arg(long)]
    quick: bool,
    /// Record every passing run's kernel cycles as the expected ones (tests/cycles/CONFIG.json)
    /// instead of checking them: after an intended timing change; commit the file's diff.
    #[arg(long, conflicts_with = "no_cycle_check")]
    bless_cycles: bool,
    /// Do not compare kernel cycles with tests/cycles/ (lock-step checks only).
    #[arg(long)]
    no_cycle_check: bool,
    /// Where the expected cycles are read and recorded (default: the source tree's
    /// tests/cycles/).
    #[arg(long)]
    cycles_dir: Option<PathBuf>,
}

impl RunSet {
    fn cycles_dir(&self) -> PathBuf {
        self.cycles_dir
            .clone()
            .unwrap_or_else(warpforge::cycles::default_dir)
    }

    /// The timing check asked for.
    fn cycles(&self) -> warpforge::cycles::Mode {
        use warpforge::cycles::Mode;
        if self.bless_cycles {
            Mode::Bless
        } else if self.no_cycle_check {
            Mode::Off
        } else {
            Mode::Check
        }
    }

    /// The memory settings (seeded with `seed`) and the shipped kernels named.
    #[allow(clippy::type_complexity)]
    fn resolve(
        &self,
        seed: u64,
    ) -> Result<(Vec<(String, MemorySettings)>, Vec<&'static KernelSpec>)> {
        let mems = self
            .mem
            .iter()
            .map(|m| Ok((m.clone(), parse_mem(m, Some(seed))?)))
            .collect::<Result<Vec<_>>>()?;
        Ok((mems, select_kernels(&self.kernels)?))
    }
}

#[derive(clap::Args)]
struct VerifyArgs {
    /// Preset name or TOML/JSON file.
    #[arg(short, long, default_value = DEFAULT_PRESET)]
    config: String,
    /// The Verilog goes to OUT/<configuration name>/.
    #[arg(short, long, default_value = "build/rtl")]
    out: PathBuf,
    #[command(flatten)]
    runs: RunSet,
    /// Seed of the memory model and of the kernels' input data.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Simulations in parallel (default: the number of CPUs).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write JUnit XML to this file.
    #[arg(long)]
    junit: Option<PathBuf>,
}

#[derive(clap::Args)]
struct RegressArgs {
    /// Configurations: preset names or TOML/JSON files, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "tiny,small")]
    configs: Vec<String>,
    #[command(flatten)]
    runs: RunSet,
    /// Seed of the memory model (random latencies and back-pressure).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seed of the kernels' input data.
    #[arg(long, default_value_t = 1)]
    data_seed: u64,
    /// Limit of kernel cycles per run.
    #[arg(long, default_value_t = lockstep::DEFAULT_MAX_CYCLES)]
    max_cycles: u64,
    /// Simulations in parallel (default: the number of CPUs).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Write a VCD of each failure into this directory.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// Write JUnit XML to this file.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Subcommand)]
enum ConfigAction {
    /// Print a configuration as TOML.
    Show {
        /// Preset name or TOML/JSON file.
        #[arg(default_value = DEFAULT_PRESET)]
        config: String,
    },
    /// List the presets.
    List,
}

#[derive(Subcommand)]
enum BenchWhat {
    /// Golden-model speed in thread-instructions per second (one core).
    Model {
        #[arg(short, long, default_value = DEFAULT_PRESET)]
        config: String,
        /// Repeat the suite of kernels until this many seconds have passed.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// The generated RTL under Verilator: build time, cycles/s alone and in lock-step with the
    /// golden model (the checker's overhead), and IPC, idle and bank-conflict counts per kernel.
    Rtl {
        /// Configurations: preset names or TOML/JSON files, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "tiny,small")]
        configs: Vec<String>,
        /// Shipped kernels, comma-separated (default: all).
        #[arg(long, value_delimiter = ',')]
        kernels: Vec<String>,
        /// Repeat each kernel's run until this many seconds of simulation have passed (per mode).
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Build in an empty Verilator cache, so that the build time is measured (slow).
        #[arg(long)]
        fresh_cache: bool,
        /// Write the results as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Shipped kernel name, C/assembly source, or ELF.
    kernel: String,
    /// Preset name or TOML/JSON file.
    #[arg(short, long, default_value = DEFAULT_PRESET)]
    config: String,
    /// CTAs in the grid.
    #[arg(long)]
    grid: Option<u32>,
    /// Threads per CTA.
    #[arg(long)]
    block: Option<u32>,
    /// Kernel parameter, in order: a number (42, 0x2a, -1) or a buffer
    /// (buf:BYTES, buf:BYTES:iota, buf:BYTES:rand:SEED, file:PATH).
    #[arg(long = "arg", allow_hyphen_values = true)]
    args: Vec<String>,
    /// Print memory after the run: argN (the buffer passed as parameter N) or ADDR:BYTES.
    #[arg(long)]
    dump: Vec<String>,
    /// Cycle limit (the run is stopped with a report when it is reached).
    #[arg(long, default_value_t = DEFAULT_MAX_CYCLES)]
    max_cycles: u64,
    /// Print the first N executed warp-instructions.
    #[arg(long, default_value_t = 0)]
    trace: u64,
    /// Seed of a shipped kernel's input data.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the statistics as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Config { action } => match action {
            ConfigAction::Show { config } => {
                print!("{}", load_config(&config)?.to_toml());
            }
            ConfigAction::List => {
                for p in PRESETS {
                    let c = GpuConfig::preset(p)?;
                    println!(
                        "{p:<6} {} SM x {} warps x {} lanes{}",
                        c.sms,
                        c.warps,
                        c.lanes,
                        if *p == DEFAULT_PRESET {
                            "  (default)"
                        } else {
                            ""
                        }
                    );
                }
            }
        },
        Command::Kernels => {
            for k in warpforge_kernels::all() {
                println!("{:<18} {}", k.name, k.about);
            }
        }
        Command::Build { source, out_dir } => {
            let src = source_path(&source)?;
            let out = out_dir.unwrap_or_else(warpforge_kernels::default_out_dir);
            let elf = warpforge_kernels::build(&src, &out)?;
            println!("{}", elf.display());
        }
        Command::Disasm { kernel } => {
            let image = load_kernel(&kernel)?;
            print!("{}", report::disassembly(&image));
        }
        Command::Run(args) => return run(args),
        Command::Verify(args) => return verify(args),
        Command::Suite { config, seed, json } => return suite(&config, seed, json.as_deref()),
        Command::Gen { config, out_dir } => gen_rtl(&config, &out_dir)?,
        Command::Cosim(args) => return cosim(args),
        Command::Regress(args) => return regress_cmd(args),
        Command::Mutate(args) => return mutate_cmd(args),
        Command::Synth(args) => return synth_cmd(args),
        Command::Sweep(args) => return sweep_cmd(args),
        Command::Bench { what } => match what {
            BenchWhat::Model { config, seconds } => bench_model(&config, seconds)?,
            BenchWhat::Rtl {
                configs,
                kernels,
                seconds,
                fresh_cache,
                json,
            } => bench_rtl(&configs, &kernels, seconds, fresh_cache, json.as_deref())?,
        },
    }
    Ok(ExitCode::SUCCESS)
}

fn load_config(name: &str) -> Result<GpuConfig> {
    Ok(GpuConfig::load(name)?)
}

/// A shipped kernel's source, or the given path.
fn source_path(name: &str) -> Result<PathBuf> {
    if let Some(k) = warpforge_kernels::by_name(name) {
        return Ok(k.source_path());
    }
    let p = PathBuf::from(name);
    if !p.exists() {
        bail!(
            "`{name}` is neither a file nor a shipped kernel (shipped: {})",
            warpforge_kernels::all()
                .iter()
                .map(|k| k.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(p)
}

/// Load a kernel given as a shipped name, a C/assembly source (built first) or an ELF.
fn load_kernel(name: &str) -> Result<KernelImage> {
    let path = source_path(name)?;
    let is_source = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("c" | "S" | "s")
    );
    let elf = if is_source {
        warpforge_kernels::build(&path, &warpforge_kernels::default_out_dir())?
    } else {
        path
    };
    warpforge_loader::load_elf_file(&elf).with_context(|| format!("loading {}", elf.display()))
}

fn run(args: RunArgs) -> Result<ExitCode> {
    let cfg = load_config(&args.config)?;
    let image = load_kernel(&args.kernel)?;
    let shipped = warpforge_kernels::by_name(&args.kernel);
    let case = match (shipped, args.args.is_empty()) {
        (Some(k), true) => {
            if args.grid.is_some() || args.block.is_some() {
                bail!(
                    "`{}` is a shipped kernel: without --arg it runs its reference case, whose shape is fixed; give --arg … to choose the parameters yourself",
                    k.name
                );
            }
            k.default_case(&limits(&cfg), args.seed)
        }
        _ => custom_case(args.grid, args.block, &args.args)?,
    };
    println!(
        "kernel {} on `{}`: grid {} x block {} ({} threads), {} parameter words",
        args.kernel,
        cfg.name,
        case.grid,
        case.block,
        case.grid as u64 * case.block as u64,
        case.params.len()
    );
    let mut gpu = Gpu::new(&cfg, &image)?;
    let placed = host::place(&mut gpu, &case)?;
    // Every --dump is checked before the kernel runs (which may take long).
    let mut dumps = Vec::new();
    for d in &args.dump {
        let (addr, len) = dump_range(d, &case, &placed)?;
        gpu.read(addr, len)
            .with_context(|| format!("--dump {d}: 0x{addr:08x}, {len} bytes"))?;
        dumps.push((addr, len));
    }
    gpu.set_cta_base(case.cta_base);
    gpu.launch(case.grid, case.block, placed.param)?;
    let start = Instant::now();
    let mut traced = 0u64;
    let outcome = gpu.run_with(args.max_cycles, |c| {
        if traced < args.trace {
            traced += 1;
            println!("{}", report::commit_line(c, &image, cfg.lanes));
        }
    });
    let elapsed = start.elapsed();
    let stats = gpu.stats().clone();
    print!("{}", report::stats_table(&stats, cfg.lanes, elapsed));
    for &(addr, len) in &dumps {
        print!("{}", report::hexdump(addr, gpu.read(addr, len)?));
    }
    let mut failed = false;
    let fault_check = match &outcome {
        RunOutcome::Timeout(_) => Ok(()),
        RunOutcome::Finished => host::check_fault(&case, &image, &placed, None),
        RunOutcome::Fault(f) => host::check_fault(&case, &image, &placed, Some(f)),
    };
    match &outcome {
        RunOutcome::Finished if case.expected_fault.is_some() => {}
        RunOutcome::Finished => {
            for (b, &addr) in case.buffers.iter().zip(&placed.buffers) {
                if let Some(expected) = &b.expected {
                    let got = gpu.read(addr, expected.len() as u32)?;
                    match host::describe_mismatch(b.name, addr, expected, got) {
                        None => println!("check: buffer `{}` equals the Rust reference", b.name),
                        Some(m) => {
                            println!("check FAILED: {m}");
                            failed = true;
                        }
                    }
                }
            }
        }
        RunOutcome::Fault(f) => {
            println!("{}", report::fault_line(f, &image));
            if fault_check.is_ok() {
                println!("check: this is the fault the case expects (SM, warp, pc, cause, lane and address)");
            }
        }
        RunOutcome::Timeout(t) => {
            print!("{t}");
            failed = true;
        }
    }
    if let Err(why) = &fault_check {
        if matches!(outcome, RunOutcome::Finished) || case.expected_fault.is_some() {
            println!("check FAILED: {why}");
        }
        failed = true;
    }
    if let Some(path) = &args.json {
        std::fs::write(
            path,
            report::stats_json(&args.kernel, &cfg, &case, &stats, &outcome),
        )?;
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn custom_case(grid: Option<u32>, block: Option<u32>, args: &[String]) -> Result<Case> {
    let (Some(grid), Some(block)) = (grid, block) else {
        bail!("give the launch shape with --grid CTAS --block THREADS");
    };
    let mut buffers = Vec::new();
    let mut params = Vec::new();
    for a in args {
        match host::parse_arg(a)? {
            ArgSpec::Word(w) => params.push(Param::Word(w)),
            ArgSpec::Buffer(init) => {
                params.push(Param::Buffer(buffers.len()));
                buffers.push(warpforge_kernels::Buffer {
                    name: "arg",
                    init,
                    expected: None,
                });
            }
        }
    }
    Ok(Case {
        kernel: "custom",
        label: format!("grid={grid} block={block}"),
        grid,
        block,
        buffers,
        params,
        cta_base: 0,
        counter_base: warpforge_kernels::COUNTER_BASE,
        expected_fault: None,
    })
}

fn dump_range(spec: &str, case: &Case, placed: &host::Placed) -> Result<(u32, u32)> {
    if let Some(n) = spec.strip_prefix("arg") {
        let n: usize = n
            .parse()
            .with_context(|| format!("`{spec}`: expected argN"))?;
        return match case.params.get(n) {
            Some(Param::Buffer(i)) => Ok((placed.buffers[*i], case.buffers[*i].init.len() as u32)),
            Some(Param::Word(_)) => bail!("`{spec}`: parameter {n} is a number, not a buffer"),
            None => bail!("`{spec}`: there are only {} parameters", case.params.len()),
        };
    }
    let Some((a, l)) = spec.split_once(':') else {
        bail!("`{spec}`: expected argN or ADDR:BYTES");
    };
    let (addr, len) = (
        host::parse_u32(a).with_context(|| format!("--dump {spec}: the address"))?,
        host::parse_u32(l).with_context(|| format!("--dump {spec}: the length"))?,
    );
    if len == 0 {
        bail!("--dump {spec}: a length of 0 bytes prints nothing; give ADDR:BYTES with BYTES > 0 (e.g. {a}:64)");
    }
    Ok((addr, len))
}

fn suite(config: &str, seed: u64, json: Option<&Path>) -> Result<ExitCode> {
    let cfg = load_config(config)?;
    println!(
        "golden model, configuration `{}` ({} SM x {} warps x {} lanes)",
        cfg.name, cfg.sms, cfg.warps, cfg.lanes
    );
    let mut rows = Vec::new();
    let mut failures = 0;
    for k in warpforge_kernels::all() {
        let image = load_shipped(k)?;
        for case in k.cases(&limits(&cfg), seed) {
            let start = Instant::now();
            let r = host::run_case(&cfg, &image, &case, DEFAULT_MAX_CYCLES)?;
            let row = report::SuiteRow::new(k.name, &case, &r, cfg.lanes, start.elapsed());
            if !r.passed() {
                failures += 1;
            }
            rows.push(row);
        }
    }
    print!("{}", report::suite_table(&rows));
    if let Some(p) = json {
        std::fs::write(p, serde_json::to_string_pretty(&rows)?)?;
    }
    println!("{} passed, {} failed", rows.len() - failures, failures);
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn load_shipped(k: &KernelSpec) -> Result<KernelImage> {
    let elf = k.elf()?;
    warpforge_loader::load_elf_file(&elf).with_context(|| format!("loading {}", elf.display()))
}

fn bench_model(config: &str, seconds: f64) -> Result<()> {
    let cfg = load_config(config)?;
    let mut work = Vec::new();
    for k in warpforge_kernels::all() {
        let image = load_shipped(k)?;
        for case in k.cases(&limits(&cfg), 1) {
            work.push((k.name, image.clone(), case));
        }
    }
    let mut per_kernel: Vec<(&str, u64, f64)> = Vec::new();
    let (mut thread_instrs, mut warp_instrs, mut busy) = (0u64, 0u64, 0.0f64);
    let wall = Instant::now();
    while wall.elapsed().as_secs_f64() < seconds {
        for (name, image, case) in &work {
            let mut gpu = Gpu::new(&cfg, image)?;
            let placed = host::place(&mut gpu, case)?;
            gpu.set_cta_base(case.cta_base);
            gpu.launch(case.grid, case.block, placed.param)?;
            let t = Instant::now();
            let outcome = gpu.run(DEFAULT_MAX_CYCLES);
            let dt = t.elapsed().as_secs_f64();
            if outcome != RunOutcome::Finished {
                bail!("{name} did not finish: {outcome:?}");
            }
            let s = gpu.stats();
            thread_instrs += s.thread_instrs;
            warp_instrs += s.warp_instrs;
            busy += dt;
            match per_kernel.iter_mut().find(|(n, ..)| n == name) {
                Some(e) => {
                    e.1 += s.thread_instrs;
                    e.2 += dt;
                }
                None => per_kernel.push((name, s.thread_instrs, dt)),
            }
        }
    }
    println!(
        "golden model speed on `{}` (one core, run time only, setup excluded)",
        cfg.name
    );
    println!("{:<18} {:>16}", "kernel", "M thread-instr/s");
    for (n, ti, dt) in &per_kernel {
        println!("{n:<18} {:>16.1}", *ti as f64 / dt / 1e6);
    }
    println!(
        "total: {:.1} M thread-instructions/s, {:.2} M warp-instructions/s ({} thread-instructions in {:.2} s)",
        thread_instrs as f64 / busy / 1e6,
        warp_instrs as f64 / busy / 1e6,
        thread_instrs,
        busy
    );
    Ok(())
}

/// Shipped kernels by name (all of them for an empty list).
fn select_kernels(names: &[String]) -> Result<Vec<&'static KernelSpec>> {
    if names.is_empty() {
        return Ok(warpforge_kernels::all().iter().collect());
    }
    names
        .iter()
        .map(|n| {
            warpforge_kernels::by_name(n).with_context(|| {
                format!(
                    "`{n}` is not a shipped kernel (shipped: {})",
                    warpforge_kernels::all()
                        .iter()
                        .map(|k| k.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        })
        .collect()
}

fn bench_rtl(
    configs: &[String],
    kernels: &[String],
    seconds: f64,
    fresh_cache: bool,
    json: Option<&Path>,
) -> Result<()> {
    let cfgs = configs
        .iter()
        .map(|c| load_config(c))
        .collect::<Result<Vec<_>>>()?;
    let specs = select_kernels(kernels)?;
    // Kept alive until the end: the models are loaded from it.
    let _cache = if fresh_cache {
        let dir = tempfile::tempdir().context("creating a temporary Verilator cache")?;
        // Single-threaded here: nothing else reads the environment yet.
        std::env::set_var("WARPFORGE_VERILATOR_CACHE", dir.path());
        Some(dir)
    } else {
        None
    };
    let mut all = Vec::new();
    for cfg in &cfgs {
        let b = bench_rtl::bench_config(cfg, &specs, seconds, &mut |m| eprintln!("bench: {m}"))?;
        print!("{}", bench_rtl::table(&b));
        all.push(b);
    }
    if let Some(p) = json {
        std::fs::write(p, serde_json::to_string_pretty(&all)?)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

fn gen_rtl(config: &str, out: &Path) -> Result<()> {
    let cfg = load_config(config)?;
    let files = warpforge::rtl_out::write_rtl(&cfg, out)
        .with_context(|| format!("generating the Verilog of `{}`", cfg.name))?;
    println!(
        "configuration `{}` (hash {}): {} SM x {} warps x {} lanes",
        cfg.name,
        cfg.hash_hex(),
        cfg.sms,
        cfg.warps,
        cfg.lanes
    );
    println!("wrote {}", files.summary());
    println!("wrote {} (file list)", files.file_list.display());
    println!("wrote {} (resolved configuration)", files.config.display());
    Ok(())
}

fn parse_mem(text: &str, seed: Option<u64>) -> Result<MemorySettings> {
    let mut m: MemorySettings = text
        .parse()
        .map_err(|e| anyhow::anyhow!("--mem {text}: {e}"))?;
    if let Some(s) = seed {
        m.seed = s;
    }
    Ok(m)
}

fn cosim(args: CosimArgs) -> Result<ExitCode> {
    let cfg = load_config(&args.config)?;
    let mem = parse_mem(&args.mem, args.seed)?;
    let image = load_kernel(&args.kernel)?;
    let shipped = warpforge_kernels::by_name(&args.kernel);
    let mut repro: Vec<String> = vec![
        "warpforge".into(),
        "cosim".into(),
        args.kernel.clone(),
        "--config".into(),
        args.config.clone(),
    ];
    let case = match (shipped, args.args.is_empty()) {
        (Some(k), true) => {
            if args.grid.is_some() || args.block.is_some() {
                bail!(
                    "`{}` is a shipped kernel: without --arg it runs a reference case, whose shape is fixed; give --case N to choose one, or --arg … to choose the parameters yourself",
                    k.name
                );
            }
            let cases = k.cases(&limits(&cfg), args.data_seed);
            match args.case {
                None => k.default_case(&limits(&cfg), args.data_seed),
                Some(n) => {
                    repro.extend(["--case".into(), n.to_string()]);
                    cases.get(n).cloned().with_context(|| {
                        format!(
                            "`{}` has {} reference cases on `{}` (--case 0 to {}): {}",
                            k.name,
                            cases.len(),
                            cfg.name,
                            cases.len().saturating_sub(1),
                            cases
                                .iter()
                                .enumerate()
                                .map(|(i, c)| format!("{i}: {}", c.label))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })?
                }
            }
        }
        _ => {
            if args.case.is_some() {
                bail!("--case N selects a reference case of a shipped kernel; `{}` is not one (give --grid, --block and --arg)", args.kernel);
            }
            repro.extend([
                "--grid".into(),
                args.grid.map_or("?".into(), |g| g.to_string()),
                "--block".into(),
                args.block.map_or("?".into(), |b| b.to_string()),
            ]);
            for a in &args.args {
                repro.extend(["--arg".into(), a.clone()]);
            }
            custom_case(args.grid, args.block, &args.args)?
        }
    };
    repro.extend([
        "--mem".into(),
        args.mem.clone(),
        "--seed".into(),
        mem.seed.to_string(),
    ]);
    if args.data_seed != 1 {
        repro.extend(["--data-seed".into(), args.data_seed.to_string()]);
    }
    if args.max_cycles != lockstep::DEFAULT_MAX_CYCLES {
        repro.extend(["--max-cycles".into(), args.max_cycles.to_string()]);
    }
    if let Some(v) = &args.vcd {
        repro.extend(["--vcd".into(), v.display().to_string()]);
    }
    if let Some(v) = &args.waves {
        repro.extend(["--waves".into(), v.display().to_string()]);
    }
    if args.no_check {
        repro.push("--no-check".into());
    }
    if let Some(v) = &args.verilog {
        repro.extend(["--verilog".into(), v.display().to_string()]);
    }
    let repro = command_line(&repro);
    // Checked here, before the RTL is built (which may take minutes on a new configuration).
    Gpu::new(&cfg, &image)?
        .check_launch(case.grid, case.block)
        .with_context(|| {
            format!(
                "--grid {} --block {} on `{}` ({} warps x {} lanes per SM)",
                case.grid, case.block, cfg.name, cfg.warps, cfg.lanes
            )
        })?;
    println!(
        "co-simulation of {} on `{}` (hash {}): grid {} x block {} ({} threads), memory {}",
        args.kernel,
        cfg.name,
        cfg.hash_hex(),
        case.grid,
        case.block,
        case.grid as u64 * case.block as u64,
        mem
    );
    let opts = CosimOptions {
        mem: mem.clone(),
        max_cycles: args.max_cycles,
        check: !args.no_check,
        vcd_on_failure: args.vcd.clone(),
        waves: args.waves.clone(),
        repro: repro.clone(),
        verilog: args.verilog.clone(),
        ..Default::default()
    };
    let c = warpforge::cosim::run_case(&cfg, &image, &case, &opts)?;
    let row = CosimRow::new(
        &args.kernel,
        &case.label,
        &cfg.name,
        &mem.name,
        &c,
        &image,
        repro.clone(),
    );
    match &c.result {
        Err(CosimError::Build(e)) => bail!("{e}"),
        Err(e) => println!("{e}"),
        Ok(r) => {
            let b = &r.build;
            let verilog = if args.verilog.is_some() {
                "given".to_string()
            } else if b.verilog_cached || b.generate.is_zero() {
                "from the cache".to_string()
            } else {
                format!("generated in {:.1} s", b.generate.as_secs_f64())
            };
            let model = if b.cache_hit {
                "from the cache".to_string()
            } else {
                format!("Verilated and compiled in {:.1} s", b.build.as_secs_f64())
            };
            println!(
                "RTL model: Verilog {verilog} ({}); model {model} ({})",
                b.verilog.display(),
                b.library.display()
            );
            match &r.outcome {
                CosimOutcome::Finished if r.checked => println!(
                    "result: finished; every trace record matched the golden model, global memory equal"
                ),
                CosimOutcome::Finished => {
                    println!("result: finished (not checked against the golden model: --no-check)")
                }
                CosimOutcome::Fault(f) => println!(
                    "result: {}{}",
                    report::fault_line(f, &image),
                    if r.checked {
                        " (the RTL and the model agree)"
                    } else {
                        ""
                    }
                ),
            }
            match &c.fault_check {
                Ok(()) if case.expected_fault.is_some() => println!(
                    "check: this is the fault the case expects (SM, warp, pc, cause, lane and address)"
                ),
                Ok(()) => {}
                Err(why) => println!("check FAILED: {why}"),
            }
            if r.outcome == CosimOutcome::Finished {
                for name in &c.checked_buffers {
                    if !c.reference.iter().any(|m| m.contains(&format!("`{name}`"))) {
                        println!("check: buffer `{name}` equals the Rust reference");
                    }
                }
                for m in &c.reference {
                    println!("check FAILED: {m}");
                }
            }
            print!("{}", cosim_stats(r, cfg.tags_per_sm()));
            match &r.waves {
                Some(Ok((path, what))) => println!("waves: {} ({what})", path.display()),
                Some(Err(why)) => println!("waves: not written: {why}"),
                None => {}
            }
        }
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&row)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(if c.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn cosim_stats(r: &lockstep::CosimReport, tags_per_sm: u32) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let mut rows: Vec<(String, String)> = vec![
        ("kernel cycles".into(), r.cycles.to_string()),
        ("warp-instructions issued".into(), r.issued().to_string()),
        (
            "IPC per SM".into(),
            format!("{:.3} warp-instructions/cycle", r.ipc_per_sm()),
        ),
        (
            format!(
                "IPC, sum over {} SM{}",
                r.sms.len(),
                if r.sms.len() == 1 { "" } else { "s" }
            ),
            format!("{:.3} warp-instructions/cycle", r.ipc),
        ),
        ("idle cycles".into(), r.idle().to_string()),
        ("bank conflicts".into(), r.conflicts().to_string()),
    ];
    for (i, sm) in r.sms.iter().enumerate() {
        rows.push((
            format!("SM {i}"),
            format!(
                "issued {}, idle {}, conflicts {}, tags used {} of {}; memory {} reads, {} writes, {} stall cycles",
                sm.issued,
                sm.idle,
                sm.conflicts,
                sm.tags_used,
                tags_per_sm,
                sm.mem.reads,
                sm.mem.writes,
                sm.mem.stall_cycles
            ),
        ));
    }
    rows.push((
        "simulation time".into(),
        format!(
            "{:.3} s ({:.1} k cycles/s)",
            r.wall.as_secs_f64(),
            r.cycles_per_second() / 1e3
        ),
    ));
    for (k, v) in rows {
        let _ = writeln!(s, "  {k:<26} {v}");
    }
    s
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let cfg = load_config(&args.config)?;
    let (mems, kernels) = args.runs.resolve(args.seed)?;
    let outcome = warpforge::verify::run(&warpforge::verify::Verify {
        config: (args.config.clone(), cfg),
        out: args.out,
        mems,
        kernels,
        all_cases: !args.runs.quick,
        cycles: args.runs.cycles(),
        cycles_dir: args.runs.cycles_dir(),
        jobs: args.jobs.unwrap_or_else(default_jobs),
        seed: args.seed,
        json: args.json,
        junit: args.junit,
    })?;
    Ok(if outcome.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn mutate_cmd(args: MutateArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let cfg = load_config(&args.config)?;
    if args.count == 0 {
        bail!("--count 0: give the number of mutants, e.g. --count 200");
    }
    let runs = RunSet {
        mem: args.mem.clone(),
        kernels: args.kernels.clone(),
        quick: true,
        bless_cycles: false,
        no_cycle_check: false,
        cycles_dir: None,
    };
    let (mems, kernels) = runs.resolve(1)?;
    let plan = warpforge::mutate::Plan {
        config: cfg,
        count: args.count,
        seed: args.seed,
        kernels,
        mems,
        jobs: args.jobs.unwrap_or_else(default_jobs),
        equiv: !args.no_equiv,
        equiv_timeout: std::time::Duration::from_secs(args.equiv_timeout),
        data_seed: 1,
        all_cases: !args.quick,
        timing: !args.no_timing,
        only: args.only.clone(),
    };
    let summary = warpforge::mutate::run(&plan, &|m| eprintln!("mutate: {m}"))?;
    print!("{}", warpforge::mutate::table(&summary));
    println!(
        "work directory (mutant design, logs, results): {}",
        summary.workdir.display()
    );
    if let Some(p) = &args.json {
        warpforge::mutate::write_json(&summary, p)?;
    }
    if let Some(p) = &args.junit {
        std::fs::write(p, warpforge::mutate::junit(&summary, start.elapsed())?)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(match args.min_coverage {
        Some(min) if summary.coverage < min => {
            println!(
                "coverage {:.1} % is below --min-coverage {min}",
                summary.coverage
            );
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    })
}

fn regress_cmd(args: RegressArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let configs = args
        .configs
        .iter()
        .map(|c| Ok((c.clone(), load_config(c)?)))
        .collect::<Result<Vec<_>>>()?;
    let (mems, kernels) = args.runs.resolve(args.seed)?;
    if configs.is_empty() || mems.is_empty() {
        bail!(
            "nothing to run: give at least one configuration (--configs) and one memory setting (--mem; {})",
            MEMORY_PRESETS.join(", ")
        );
    }
    let plan = regress::Plan {
        configs,
        mems,
        kernels,
        all_cases: !args.runs.quick,
        data_seed: args.data_seed,
        max_cycles: args.max_cycles,
        vcd: args.vcd.clone(),
        jobs: args.jobs.unwrap_or_else(default_jobs),
        announce_builds: true,
        cycles: args.runs.cycles(),
        cycles_dir: args.runs.cycles_dir(),
    };
    let (rows, cycles_note) = regress::run(&plan)?;
    let failures = regress::report(
        &rows,
        args.json.as_deref(),
        args.junit.as_deref(),
        start.elapsed(),
    )?;
    if !cycles_note.is_empty() {
        println!("{cycles_note}");
    }
    println!(
        "{} passed, {} failed ({} runs in {:.1} s)",
        rows.len() - failures,
        failures,
        rows.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn synth_cmd(args: SynthArgs) -> Result<ExitCode> {
    use warpforge::synth;
    let cfg = load_config(&args.config)?;
    let target: synth::Target = args.target.parse()?;
    let flow = synth::Flow {
        target,
        estimate: args.estimate,
        seed: args.seed,
        router: args.router.parse()?,
        placer: args.placer.parse()?,
        freq_mhz: args.freq,
        threads: args.jobs,
        out_dir: args
            .out_dir
            .unwrap_or_else(|| Path::new("build/synth").join(&cfg.name)),
        cache_dir: (!args.no_cache).then(synth::default_cache_dir),
        heartbeat: std::time::Duration::from_secs(60),
    };
    // Options and tools first: a missing tool is reported before the Verilog is generated.
    flow.check()?;
    synth::tool_versions(&flow)?;
    let mut opts = synth::synthesis_top_options();
    if args.trace_ports {
        opts.trace = warpforge_hdl::top::TracePorts::On;
    }
    let design = synth::Design::of_config_with(&cfg, &opts)
        .with_context(|| format!("generating the Verilog of `{}`", cfg.name))?;
    let out = synth::run(&design, &flow, &|m| eprintln!("synth: {m}"))?;
    print!("{}", synth::table(&out.report, out.cached));
    println!("report: {}", out.json.display());
    Ok(if out.report.fits() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn sweep_cmd(args: SweepArgs) -> Result<ExitCode> {
    use warpforge::{sweep, synth};
    let opts = sweep::Options {
        base: load_config(&args.config)?,
        config_arg: args.config,
        vary: args.vary,
        jobs: args.jobs,
        shard: args.shard,
        target: args.target.parse()?,
        estimate: args.estimate,
        seed: args.seed,
        router: args.router.parse()?,
        placer: args.placer.parse()?,
        freq_mhz: args.freq,
        kernel: args.kernel,
        mem: args.mem,
        max_cycles: args.max_cycles,
        out_dir: args.out_dir,
        skip_invalid: args.skip_invalid,
        synth_cache: Some(synth::default_cache_dir()),
    };
    let out = sweep::run(&opts)?;
    print!("{}", sweep::output::table(&out.summary));
    for f in &out.files {
        println!("wrote {}", f.display());
    }
    if let Some(why) = &out.plot_note {
        println!("plots: {why}");
    }
    println!(
        "point files: {} (a rerun reads them; {} read, {} run now)",
        out.dir.join("points").display(),
        out.cached,
        out.ran
    );
    Ok(if out.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
