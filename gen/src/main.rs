//! `warpforge`: one binary, one sub-command per job.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use warpforge::host::{self, ArgSpec, DEFAULT_MAX_CYCLES};
use warpforge::report;
use warpforge_config::{GpuConfig, DEFAULT_PRESET, PRESETS};
use warpforge_kernels::{Case, KernelSpec, Limits, Param};
use warpforge_loader::KernelImage;
use warpforge_sim::{Gpu, RunOutcome};

#[derive(Parser)]
#[command(name = "warpforge", version, about = "Parameterized SIMT GPU: configuration, kernels, golden model", long_about = None)]
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
    /// Run every shipped kernel's reference cases on the golden model (the main job).
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
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
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
        Command::Suite { config, seed, json } => return suite(&config, seed, json.as_deref()),
        Command::Bench { what } => match what {
            BenchWhat::Model { config, seconds } => bench_model(&config, seconds)?,
        },
    }
    Ok(ExitCode::SUCCESS)
}

fn load_config(name: &str) -> Result<GpuConfig> {
    Ok(GpuConfig::load(name)?)
}

fn limits(cfg: &GpuConfig) -> Limits {
    Limits {
        lanes: cfg.lanes,
        max_block: cfg.warps * cfg.lanes,
        smem_bytes: cfg.smem_bytes,
    }
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
        _ => custom_case(&args)?,
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
    for d in &args.dump {
        let (addr, len) = dump_range(d, &case, &placed)?;
        print!("{}", report::hexdump(addr, gpu.read(addr, len)?));
    }
    let mut failed = false;
    match &outcome {
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
            failed = true;
        }
        RunOutcome::Timeout(t) => {
            print!("{t}");
            failed = true;
        }
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

fn custom_case(args: &RunArgs) -> Result<Case> {
    let (Some(grid), Some(block)) = (args.grid, args.block) else {
        bail!("give the launch shape with --grid CTAS --block THREADS");
    };
    let mut buffers = Vec::new();
    let mut params = Vec::new();
    for a in &args.args {
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
    Ok((host::parse_u32(a)?, host::parse_u32(l)?))
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
