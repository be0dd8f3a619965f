//! `warpforge mutate`: how good is the checker? Seeded single-point mutants of the generated
//! design, made by yosys's own `mutate` command, each run against a kernel set in lock-step with
//! the golden model, and classified: detected (a mismatch, a fault the model does not make, a
//! wrong result), detected (a hang or a timeout), or survived. A survivor is then checked for
//! equivalence (step 5): an equivalent mutant changes nothing observable and is not counted; an
//! unproven one is an escape. docs/mutation.md describes the flow.
//!
//! The flow, all cached under `<cache>/mutate/<config>-<key>/` (key: the Verilog, yosys's
//! version and [`FLOW_VERSION`]), so an interrupted run resumes where it stopped:
//!
//! 1. `prep` of the generated Verilog (hierarchy kept) → `design.il`; `mutate -list COUNT -seed
//!    SEED` → `list-COUNT-SEED.txt`.
//! 2. Every mutation applied to one copy of the design with `mutate -ctrl mutsel W i`: mutation
//!    `i` is active when the new top-level input `mutsel` equals `i` (0: none; yosys wires it
//!    down to every mutated module), written as `mutants-COUNT-SEED.v`: one Verilator build
//!    serves every mutant. A mutation of a module changes every instance of it.
//! 3. A baseline run with `mutsel = 0` must pass every run of the kernel set (and gives each
//!    run's cycle count: a mutant's run is stopped at 4x it plus 10 000 cycles).
//! 4. Each mutant runs the kernel set until a run fails; its verdict is stored as
//!    `results/<kernel-set key>/m<i>.json`.
//! 5. Each survivor is checked for equivalence: dead in context (all mutations at once, then
//!    alone), then the whole GPU with and without it inside a legal host ([`crate::formal_env`])
//!    proven by ABC, then its module alone (docs/mutation.md, "Equivalence").

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use warpforge_config::GpuConfig;
use warpforge_hdl::top::{TopOptions, TOP_NAME};
use warpforge_kernels::{Case, KernelSpec};
use warpforge_loader::KernelImage;
use warpforge_testbench::lockstep::{top_verilog_file, CosimOptions};
use warpforge_testbench::memory_model::MemorySettings;

use crate::cosim::run_case;
use crate::formal_env::{self, ENV_NAME};
use crate::host::limits;
use crate::regress::progress_bar;

/// Changes whenever the yosys scripts below change, so cached designs are not reused.
pub const FLOW_VERSION: &str = "mutate-flow-3";

/// The name of the mutation-select input of the mutant design.
pub const MUTSEL: &str = "mutsel";

/// What to run.
pub struct Plan {
    pub config: GpuConfig,
    pub count: usize,
    pub seed: u64,
    pub kernels: Vec<&'static KernelSpec>,
    pub mems: Vec<(String, MemorySettings)>,
    /// Parallel simulations and equivalence checks.
    pub jobs: usize,
    /// Try to prove survivors equivalent.
    pub equiv: bool,
    /// Time limit of one equivalence check.
    pub equiv_timeout: Duration,
    /// Seed of the kernels' input data.
    pub data_seed: u64,
    /// Every reference case of each kernel (as `regress` runs them), not only its
    /// representative one.
    pub all_cases: bool,
    /// A mutant whose runs all match the model but whose cycle count differs from the
    /// unmutated design's in some run is detected (timing); off: only functional detection.
    pub timing: bool,
    /// Only these mutants (by id, `m<i>`), each run afresh (its stored verdict is replaced):
    /// to re-examine survivors after a change. Empty: all.
    pub only: Vec<usize>,
}

/// One mutation, as `mutate -list` printed it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Mutation {
    /// 1-based: the `mutsel` value that activates it.
    pub id: usize,
    /// The arguments of `mutate` (without `-ctrl`).
    pub args: String,
    pub mode: String,
    pub module: String,
    pub cell: String,
    pub port: String,
    pub bit: Option<u32>,
    /// Source locations (`file:line`) of the mutated cell, as yosys tracked them.
    pub src: Vec<String>,
}

impl Mutation {
    /// Parse one line of `mutate -list` (`mutate -mode M -module X -cell C ...`).
    pub fn parse(id: usize, line: &str) -> Option<Mutation> {
        let args = line.trim().strip_prefix("mutate ")?.trim().to_string();
        let words: Vec<&str> = args.split_whitespace().collect();
        let get = |flag: &str| -> Option<String> {
            words
                .iter()
                .position(|w| *w == flag)
                .and_then(|i| words.get(i + 1))
                .map(|s| s.to_string())
        };
        let mode = get("-mode")?;
        if mode == "none" {
            return None;
        }
        let mut src = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if *w == "-src" {
                if let Some(s) = words.get(i + 1) {
                    // file:line.col-line.col → file:line
                    let (file, pos) = s.rsplit_once(':').unwrap_or((s, ""));
                    let file = Path::new(file)
                        .file_name()
                        .map_or(file.to_string(), |f| f.to_string_lossy().into_owned());
                    let line = pos.split('.').next().unwrap_or("");
                    let loc = format!("{file}:{line}");
                    if !src.contains(&loc) {
                        src.push(loc);
                    }
                }
            }
        }
        Some(Mutation {
            id,
            mode,
            module: get("-module")?,
            cell: get("-cell")?,
            port: get("-port").unwrap_or_default(),
            bit: get("-portbit").and_then(|b| b.parse().ok()),
            src,
            args,
        })
    }

    /// `const1 on sm$0.oc.$procmux$10150 Y[14]`.
    pub fn describe(&self) -> String {
        format!(
            "{} of {}.{}{}",
            self.mode,
            self.cell,
            self.port,
            self.bit.map_or(String::new(), |b| format!("[{b}]"))
        )
    }
}

/// What became of a mutant.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A run reported a mismatch, a fault the model did not make, or a wrong result.
    DetectedMismatch,
    /// A run hung (no trace record for the hang window) or exceeded its cycle limit.
    DetectedHang,
    /// Every run matched the golden model, but one took a different number of cycles than the
    /// unmutated design: a timing-only bug (a lost issue slot, an extra stall, another
    /// arbitration order). The regression sees it as a changed cycle count (the cycle
    /// expectations of `regress --expect-cycles`).
    DetectedCycles,
    /// No run failed, and the mutated module is proven equivalent to the original.
    Equivalent,
    /// No run failed, and equivalence was not proven: a bug the kernel set cannot see.
    Escape,
    /// No run failed; equivalence not checked (`--no-equiv`).
    Survived,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::DetectedMismatch => "detected (mismatch)",
            Verdict::DetectedHang => "detected (hang)",
            Verdict::DetectedCycles => "detected (cycles)",
            Verdict::Equivalent => "equivalent",
            Verdict::Escape => "ESCAPE",
            Verdict::Survived => "survived",
        }
    }
    pub fn detected(&self) -> bool {
        matches!(
            self,
            Verdict::DetectedMismatch | Verdict::DetectedHang | Verdict::DetectedCycles
        )
    }
}

/// The outcome of one mutant.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutantResult {
    pub mutation: Mutation,
    pub verdict: Verdict,
    /// The run that detected it (`kernel case / memory`), or why it is (not) equivalent.
    pub detail: String,
    /// Runs made before the verdict.
    pub runs: usize,
    pub seconds: f64,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub config: String,
    pub count: usize,
    pub seed: u64,
    pub runs_per_mutant: usize,
    pub detected: usize,
    /// Of `detected`: by a changed cycle count only (every record matched the model).
    pub detected_by_cycles: usize,
    /// Coverage counting only functional detection (mismatch, hang): what lock-step alone
    /// catches.
    pub functional_coverage: f64,
    pub equivalent: usize,
    pub escapes: usize,
    pub survived_unchecked: usize,
    /// Detected / (all - equivalent), in percent.
    pub coverage: f64,
    pub mutants: Vec<MutantResult>,
    /// Where the mutant design and the results are.
    pub workdir: PathBuf,
}

fn fnv(parts: &[&[u8]]) -> String {
    use warpforge_testbench::unit::{fnv1a, FNV_OFFSET};
    let mut h = FNV_OFFSET;
    for p in parts {
        h = fnv1a(h, &(p.len() as u64).to_le_bytes());
        h = fnv1a(h, p);
    }
    format!("{h:016x}")
}

fn yosys_version() -> Result<String> {
    let out = Command::new("yosys")
        .arg("-V")
        .output()
        .map_err(|e| anyhow!("yosys cannot be run ({e}): install it with `scripts/setup.sh --yosys` (Debian package `yosys`)"))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Run a yosys script (`-q`, log to `log`); `Ok(true)` when it succeeded, `Ok(false)` when it
/// failed or ran out of `timeout`.
fn yosys(dir: &Path, script: &str, name: &str, timeout: Option<Duration>) -> Result<bool> {
    Ok(yosys_run(dir, script, name, timeout)? == YosysEnd::Succeeded)
}

/// How a yosys run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum YosysEnd {
    Succeeded,
    Failed,
    TimedOut,
}

fn yosys_run(dir: &Path, script: &str, name: &str, timeout: Option<Duration>) -> Result<YosysEnd> {
    let ys = dir.join(format!("{name}.ys"));
    std::fs::write(&ys, script).with_context(|| format!("writing {}", ys.display()))?;
    let log = dir.join(format!("{name}.log"));
    let mut child = Command::new("yosys")
        .arg("-q")
        .arg("-l")
        .arg(&log)
        .arg(&ys)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            anyhow!("yosys cannot be run ({e}): install it with `scripts/setup.sh --yosys`")
        })?;
    Ok(match wait_or_kill(&mut child, timeout)? {
        Some(status) if status.success() => YosysEnd::Succeeded,
        Some(_) => YosysEnd::Failed,
        None => YosysEnd::TimedOut,
    })
}

/// Wait for `child`; past `timeout`, kill it and give `None`.
fn wait_or_kill(
    child: &mut std::process::Child,
    timeout: Option<Duration>,
) -> Result<Option<std::process::ExitStatus>> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if timeout.is_some_and(|t| start.elapsed() > t) {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn yosys_or_fail(dir: &Path, script: &str, name: &str) -> Result<()> {
    if !yosys(dir, script, name, None)? {
        let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        bail!(
            "yosys failed on {}/{name}.ys; the end of its log:\n{}",
            dir.display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    Ok(())
}

/// An exclusive lock on `dir/<name>.lock`, held until the file is dropped: other threads and
/// processes asking for it wait.
fn lock_file(dir: &Path, name: &str) -> Result<std::fs::File> {
    let path = dir.join(format!("{name}.lock"));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    file.lock()
        .with_context(|| format!("locking {}", path.display()))?;
    Ok(file)
}

/// Write `data` to `path` through a temporary file and a rename.
fn write_atomically(path: &Path, data: &[u8]) -> Result<()> {
    warpforge_testbench::unit::write_atomically(path, data)
        .with_context(|| format!("writing {}", path.display()))
}

/// Steps 1 and 2: the design, the mutation list and the mutant design (cached).
/// The work directory, the mutations, the mutant design and the mutations dead in context.
type Prepared = (PathBuf, Vec<Mutation>, PathBuf, BTreeSet<usize>);

fn prepare(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Prepared> {
    let generated =
        top_verilog_file(&plan.config, &TopOptions::default()).map_err(|e| anyhow!(e))?;
    let verilog = std::fs::read(&generated.path)?;
    let key = fnv(&[
        &verilog,
        yosys_version()?.as_bytes(),
        FLOW_VERSION.as_bytes(),
    ]);
    let dir = warpforge_testbench::unit::cache_dir()
        .join("mutate")
        .join(format!("{}-{key}", plan.config.name));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    // Another warpforge (a second `mutate`, a parallel test) preparing the same design waits
    // here and then finds every file made.
    let _lock = lock_file(&dir, "prepare")?;
    let design_v = dir.join(format!("{TOP_NAME}.v"));
    if !design_v.is_file() {
        write_atomically(&design_v, &verilog)?;
    }

    let design_il = dir.join("design.il");
    if !design_il.is_file() {
        progress("yosys: reading and preparing the design (prep)");
        yosys_or_fail(
            &dir,
            &format!(
                "read_verilog {TOP_NAME}.v\nprep -top {TOP_NAME}\nwrite_rtlil design.il.tmp\n"
            ),
            "prep",
        )?;
        std::fs::rename(dir.join("design.il.tmp"), &design_il)?;
    }

    let tag = format!("{}-{}", plan.count, plan.seed);
    let list = dir.join(format!("list-{tag}.txt"));
    if !list.is_file() {
        progress("yosys: choosing the mutations (mutate -list)");
        yosys_or_fail(
            &dir,
            &format!(
                "read_rtlil design.il\nmutate -list {} -seed {} -o list-{tag}.tmp\n",
                plan.count, plan.seed
            ),
            &format!("list-{tag}"),
        )?;
        std::fs::rename(dir.join(format!("list-{tag}.tmp")), &list)?;
    }
    let text = std::fs::read_to_string(&list)?;
    let mutations: Vec<Mutation> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .filter_map(|(i, l)| Mutation::parse(i + 1, l))
        .collect();
    if mutations.is_empty() {
        bail!("yosys listed no mutations in {}", list.display());
    }

    let mutants_v = dir.join(format!("mutants-{tag}.v"));
    if !mutants_v.is_file() {
        progress("yosys: applying every mutation behind `mutsel` (mutate -ctrl)");
        let width = usize::BITS - mutations.len().leading_zeros();
        let mut script = String::from("read_rtlil design.il\n");
        for m in &mutations {
            script.push_str(&format!(
                "mutate -ctrl {MUTSEL} {width} {} {}\n",
                m.id, m.args
            ));
        }
        // `mutate -ctrl` gives every mutated module a `mutsel` input and wires it through
        // every instantiating module up to a new input of the top.
        script.push_str(&format!(
            "hierarchy -top {TOP_NAME}\ncheck -assert\nwrite_verilog -noattr mutants-{tag}.v.tmp\n"
        ));
        yosys_or_fail(&dir, &script, &format!("apply-{tag}"))?;
        std::fs::rename(dir.join(format!("mutants-{tag}.v.tmp")), &mutants_v)?;
    }
    let dead = dead_in_context(&dir, &tag, &mutations, progress)?;
    Ok((dir, mutations, mutants_v, dead))
}

/// The prefix of the one-bit control input of each mutation in the in-context check.
const ALIVE: &str = "wf_alive_";

/// The optimisation of the in-context check: semantics-preserving passes only (no `-mux_undef`,
/// no `-sat`, which took over 20 minutes on `tiny`), repeated because narrowing one cell
/// exposes constants to the next. `-fine` and `wreduce` make the bits above a configuration's
/// width (a 64-bit warp mask on 4 warps, a 32-bit shared-memory base on 4 KiB) dead.
const CONTEXT_OPT: &str =
    "flatten\nopt -purge\nopt -fine -purge\nwreduce\nopt -fine -purge\nwreduce\nopt -fine -purge\n";

/// Step 2b: the mutations that cannot reach any output of the whole GPU. Every mutation is
/// applied behind its own one-bit control input (`mutate -ctrl wf_alive_<i> 1 1`), the design
/// is flattened and optimised ([`CONTEXT_OPT`]: constants propagated bit by bit, every
/// operation narrowed to the bits its readers use (`wreduce`), logic that drives no output
/// removed), and a mutation whose control input no longer drives anything is dead in
/// context: no input sequence can make it visible, however its module's ports are driven in
/// isolation (a debug port the SM leaves unconnected, a trace bit tied to zero). Sound with all
/// mutations applied at once: `opt` keeps logic observable for *some* value of the other
/// controls, and with them all 0 each mutation is alone. Cached as `context-<count>-<seed>.json`.
fn dead_in_context(
    dir: &Path,
    tag: &str,
    mutations: &[Mutation],
    progress: &dyn Fn(&str),
) -> Result<BTreeSet<usize>> {
    let cached = dir.join(format!("context-{tag}.json"));
    if let Some(dead) = std::fs::read(&cached)
        .ok()
        .and_then(|b| serde_json::from_slice::<BTreeSet<usize>>(&b).ok())
    {
        return Ok(dead);
    }
    progress("yosys: which mutations can reach an output in context (flatten; opt -fine; wreduce)");
    let mut script = String::from("read_rtlil design.il\n");
    for m in mutations {
        script.push_str(&format!("mutate -ctrl {ALIVE}{} 1 1 {}\n", m.id, m.args));
    }
    // Initial values go: no run depends on them (the host resets the GPU first), and a mutation
    // that ties a register's input to a constant can leave two merged constant wires with
    // different `init` attributes, which yosys 0.23's `opt_merge` refuses ("Conflicting init
    // values"; seen on tiny's 200-mutant sample).
    script.push_str(&format!(
        "hierarchy -top {TOP_NAME}\nattrmap -remove init\n{CONTEXT_OPT}write_json context-{tag}.netlist.json\n"
    ));
    yosys_or_fail(dir, &script, &format!("context-{tag}"))?;
    let netlist_file = dir.join(format!("context-{tag}.netlist.json"));
    let netlist: serde_json::Value = serde_json::from_slice(&std::fs::read(&netlist_file)?)
        .with_context(|| format!("reading {}", netlist_file.display()))?;
    std::fs::remove_file(&netlist_file)?;
    let dead = unread_controls(&netlist)
        .with_context(|| format!("in yosys's netlist of {}", dir.display()))?;
    write_atomically(&cached, &serde_json::to_vec(&dead)?)?;
    Ok(dead)
}

/// The ids of the `wf_alive_<i>` inputs of the top module whose bits no cell and no output
/// reads (yosys `write_json`: nets are integers; constants are strings).
fn unread_controls(netlist: &serde_json::Value) -> Result<BTreeSet<usize>> {
    let top = &netlist["modules"][TOP_NAME];
    let ports = top["ports"]
        .as_object()
        .ok_or_else(|| anyhow!("no top module `{TOP_NAME}`"))?;
    let bits = |v: &serde_json::Value| -> Vec<u64> {
        v.as_array()
            .map(|a| a.iter().filter_map(|b| b.as_u64()).collect())
            .unwrap_or_default()
    };
    let mut read = BTreeSet::new();
    for c in top["cells"]
        .as_object()
        .into_iter()
        .flat_map(|c| c.values())
    {
        let dirs = &c["port_directions"];
        for (port, conn) in c["connections"].as_object().into_iter().flatten() {
            if dirs[port].as_str() != Some("output") {
                read.extend(bits(conn));
            }
        }
    }
    for p in ports.values() {
        if p["direction"].as_str() == Some("output") {
            read.extend(bits(&p["bits"]));
        }
    }
    let mut dead = BTreeSet::new();
    for (name, p) in ports {
        if let Some(id) = name.strip_prefix(ALIVE).and_then(|i| i.parse().ok()) {
            if bits(&p["bits"]).iter().all(|b| !read.contains(b)) {
                dead.insert(id);
            }
        }
    }
    Ok(dead)
}

/// One run of the kernel set.
struct RunSpec {
    kernel: usize,
    case: Case,
    mem: usize,
    /// Cycle limit for a mutant (from the baseline).
    max_cycles: u64,
    /// Kernel cycles of the unmutated design (the baseline run).
    baseline_cycles: u64,
}

fn run_label(plan: &Plan, r: &RunSpec) -> String {
    format!(
        "{} {} / {}",
        plan.kernels[r.kernel].name, r.case.label, plan.mems[r.mem].0
    )
}

/// Run mutant `sel` (0: the unmutated design) on one run of the set: `Ok(None)` when it passed,
/// `Ok(Some((hang, detail)))` when it failed.
fn run_one(
    plan: &Plan,
    images: &[KernelImage],
    mutants_v: &Path,
    sel: usize,
    r: &RunSpec,
) -> Result<(Option<(bool, String)>, u64)> {
    let opts = CosimOptions {
        mem: plan.mems[r.mem].1.clone(),
        max_cycles: r.max_cycles,
        verilog: Some(mutants_v.to_path_buf()),
        pin_inputs: vec![(MUTSEL.to_string(), sel as u64)],
        ..Default::default()
    };
    let c = run_case(&plan.config, &images[r.kernel], &r.case, &opts)?;
    let cycles = c.result.as_ref().map_or(0, |r| r.cycles);
    if c.passed() {
        return Ok((None, cycles));
    }
    let verdict = c.verdict();
    if verdict == "build" {
        bail!("{}", c.details(&images[r.kernel]));
    }
    let first = c
        .details(&images[r.kernel])
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    Ok((
        Some((
            matches!(verdict, "hang" | "timeout"),
            format!("{}: {verdict}: {first}", run_label(plan, r)),
        )),
        cycles,
    ))
}

/// The memory cut of the in-context proof, a techmap of `$mem_v2` (the file says what it does).
const MEMCUT_V: &str = include_str!("formal_memcut.v");

/// Changes whenever the in-context proof changes (its environment, its scripts, the miter):
/// proofs made before are not reused.
const FORMAL_VERSION: &str = "formal-13";

/// The legal host around the GPU in the in-context proof ([`formal_env`]).
const FORMAL_ENV_FILE: &str = "formal-env.v";

/// Memories of at most this many words are registers in the in-context proof (`memory_map`):
/// the design's own bookkeeping (tag table, SIMT stack, fetch ring, per-warp words, operand
/// RAMs on `tiny`), whose contents are what the GPU wrote. Larger ones (instruction memory,
/// register file, shared memory: a program's code and data) are cut ([`MEMCUT_V`]).
const SMALL_MEMORY: usize = 16;

/// A mutation of a clock: the proof's AIG has one clock and no edges (every register takes its
/// next state each step), so it cannot tell a register or memory port clocked on the other
/// edge from the original; such a mutation is never proven in context.
fn is_clock_mutation(m: &Mutation) -> bool {
    let clockish = |n: &str| {
        let n = n.to_ascii_lowercase();
        n.contains("clk") || n.contains("clock") || n == "c"
    };
    clockish(&m.port) || wire_arg(&m.args).is_some_and(clockish)
}

/// The `-wire NAME` of a `mutate -list` line's arguments.
fn wire_arg(args: &str) -> Option<&str> {
    args.split_whitespace().skip_while(|w| *w != "-wire").nth(1)
}

/// Step 5a, once per mutation list: every mutation but the clock ones behind its own control
/// input (`wf_alive_<i>`, as in step 2b) in one flattened GPU inside its legal host
/// ([`formal_env`]), small memories as registers and the others cut ([`SMALL_MEMORY`]),
/// bit-blasted to one AIG
/// (`formal-all-<count>-<seed>-<version>.aig` and its yosys map). Each survivor's miter is
/// built from it ([`crate::shared_miter`]).
struct FormalDesign {
    aig: crate::shared_miter::Aig,
    /// Input index → (bit, top-level name) from yosys's map (memory read data and other free
    /// values have none).
    input_names: std::collections::HashMap<usize, (u32, String)>,
    /// Mutation id → its control input.
    controls: std::collections::BTreeMap<usize, usize>,
    /// The cut memories, from the map's `wf_cut_*` and `wf_obs_wdata` outputs.
    memories: Vec<crate::shared_miter::CutMemory>,
}

fn formal_design(
    plan: &Plan,
    dir: &Path,
    tag: &str,
    mutations: &[Mutation],
) -> Result<FormalDesign> {
    let _lock = lock_file(dir, &format!("formal-all-{tag}"))?;
    let base = format!("formal-all-{tag}-{FORMAL_VERSION}");
    let (aig_file, map_file) = (
        dir.join(format!("{base}.aig")),
        dir.join(format!("{base}.map")),
    );
    let proven: Vec<&Mutation> = mutations.iter().filter(|m| !is_clock_mutation(m)).collect();
    if !aig_file.exists() || !map_file.exists() {
        let top_v = std::fs::read_to_string(dir.join(format!("{TOP_NAME}.v")))?;
        let limits = formal_env::LaunchLimits {
            max_block: plan.config.warps * plan.config.lanes,
            smem_bytes: plan.config.smem_bytes,
            imem_bytes: plan.config.imem_bytes,
        };
        let mut ports = formal_env::top_ports(&top_v, TOP_NAME)?;
        ports.extend(proven.iter().map(|m| formal_env::Port {
            name: format!("{ALIVE}{}", m.id),
            input: true,
            width: 1,
        }));
        let env = formal_env::env_verilog(&ports, TOP_NAME, limits)?;
        write_atomically(&dir.join(FORMAL_ENV_FILE), env.as_bytes())?;
        write_atomically(&dir.join("formal-memcut.v"), MEMCUT_V.as_bytes())?;
        let mut script = String::from("read_rtlil design.il\n");
        for m in &proven {
            script.push_str(&format!("mutate -ctrl {ALIVE}{} 1 1 {}\n", m.id, m.args));
        }
        // No `opt` before the AIG: the miter is hashed structurally anyway, and yosys 0.23's
        // `opt_merge` refuses two merged constant registers with different initial values
        // (see `dead_in_context`); the initial values are needed here (power-on state).
        script.push_str(&format!(
            "read_verilog {FORMAL_ENV_FILE}\nhierarchy -top {ENV_NAME}\nproc\nflatten\nopt_clean\n\
             memory_map t:$mem_v2 r:SIZE<={SMALL_MEMORY} %i\nopt_clean\n\
             tee -q -o formal-mems.txt select -list t:$mem_v2\n\
             techmap -map formal-memcut.v t:$mem_v2\nselect -assert-none t:$mem_v2\nopt_clean\n\
             tee -q -o formal-obs.txt select -list w:*wf_obs_*\nexpose w:*wf_obs_* w:*wf_cut_*\nopt_clean\n\
             dffunmap\ntechmap\naigmap\nopt_clean -purge\nsetundef -zero\n\
             write_aiger -zinit -map {base}.map.tmp {base}.aig.tmp\n"
        ));
        yosys_or_fail(dir, &script, &format!("formal-all-{tag}"))?;
        // Every memory must be cut and observed: its four `wf_obs_*` wires exposed.
        let count = |file: &str| -> Result<usize> {
            Ok(std::fs::read_to_string(dir.join(file))?
                .lines()
                .filter(|l| !l.trim().is_empty())
                .count())
        };
        let (memories, observed) = (count("formal-mems.txt")?, count("formal-obs.txt")?);
        if observed != 4 * memories {
            bail!(
                "the in-context proof's memory cut observes {observed} wires of {memories} memories, not 4 each ({}/formal-all-{tag}.log): the proof would not see what the GPU writes",
                dir.display()
            );
        }
        std::fs::rename(dir.join(format!("{base}.map.tmp")), &map_file)?;
        std::fs::rename(dir.join(format!("{base}.aig.tmp")), &aig_file)?;
    }
    let aig = crate::shared_miter::Aig::read_binary(&std::fs::read(&aig_file)?)
        .with_context(|| format!("reading {}", aig_file.display()))?;
    let mut input_names = std::collections::HashMap::new();
    let mut controls = std::collections::BTreeMap::new();
    for (i, b, name) in map_inputs(&std::fs::read_to_string(&map_file)?) {
        if let Some(id) = name.strip_prefix(ALIVE).and_then(|x| x.parse().ok()) {
            controls.insert(id, i);
        } else {
            input_names.insert(i, (b, name.to_string()));
        }
    }
    if controls.len() != proven.len() {
        bail!(
            "{}: {} mutation controls for {} mutations",
            map_file.display(),
            controls.len(),
            proven.len()
        );
    }
    let memories = cut_memories(&aig, &std::fs::read_to_string(&map_file)?)
        .with_context(|| format!("reading the cut memories of {}", map_file.display()))?;
    Ok(FormalDesign {
        aig,
        input_names,
        controls,
        memories,
    })
}

/// Step 5b: sequential equivalence of the whole GPU with and without mutation `m` in its legal
/// host, as MCY would ask it: the shared miter of [`crate::shared_miter`] (only what the
/// mutation can reach is duplicated) proven by ABC's `dprove` (signal correspondence by
/// induction, fraiging, BMC, and property-directed reachability with the time left), from the
/// registers' initial values. `Some(true)`: equivalent for every legal input sequence;
/// `Some(false)`: ABC found one that tells them apart; `None`: undecided within the time limit
/// or not tried (a clock mutation).
fn formal_in_context(
    plan: &Plan,
    dir: &Path,
    m: &Mutation,
    design: &FormalDesign,
) -> Result<(Option<bool>, String)> {
    let t = Instant::now();
    let Some(&control) = design.controls.get(&m.id) else {
        return Ok((
            None,
            "a clock mutation: the in-context proof has one clock and cannot show it".into(),
        ));
    };
    let controls: Vec<usize> = design.controls.values().copied().collect();
    let miter =
        crate::shared_miter::shared_miter(&design.aig, &controls, control, &design.memories)?;
    let reach = format!(
        "{} of {} registers reached, {} constant, {} memory read bits 0",
        miter.split_latches, miter.latches, miter.constants, miter.zero_reads
    );
    let Some(aig) = miter.aig else {
        return Ok((
            Some(true),
            format!("equivalent in context: it reaches no compared output of the GPU in its legal host ({reach}; {:.0} s)", t.elapsed().as_secs_f64()),
        ));
    };
    let fdir = dir.join("formal");
    std::fs::create_dir_all(&fdir)?;
    let name = format!("m{}", m.id);
    std::fs::write(fdir.join(format!("{name}.aig")), aig.write_binary())?;
    let map: String = miter
        .input_of
        .iter()
        .enumerate()
        .filter_map(|(k, i)| {
            design
                .input_names
                .get(i)
                .map(|(b, n)| format!("input {k} {b} {n}\n"))
        })
        .collect();
    let left = plan
        .equiv_timeout
        .saturating_sub(t.elapsed())
        .max(Duration::from_secs(10));
    let out = run_with_timeout(
        Command::new("yosys-abc")
            .arg("-c")
            // dprove ends with property-directed reachability (IC3), which finds the invariants
            // that signal correspondence misses (a tag below the tag count, a CTA slot's
            // range); it gets the time left, not ABC's default minute.
            .arg(format!(
                "read_aiger {name}.aig; dprove -T {}; write_cex -n {name}.cex",
                left.as_secs().saturating_sub(5).max(5)
            ))
            .current_dir(&fdir),
        &fdir.join(format!("{name}.abc.log")),
        left,
    )?;
    let _ = std::fs::remove_file(fdir.join(format!("{name}.aig")));
    let secs = t.elapsed().as_secs_f64();
    let equivalent = out.contains("Networks are equivalent");
    let differs =
        !equivalent && (out.contains("are not equivalent") || out.contains("was asserted"));
    let mut trace_note = String::new();
    if differs {
        let cex = std::fs::read_to_string(fdir.join(format!("{name}.cex"))).unwrap_or_default();
        if let Some(text) = decode_counterexample(&map, &cex) {
            let trace = fdir.join(format!("{name}.trace.txt"));
            std::fs::write(&trace, text)?;
            trace_note = format!("; its inputs: {}", trace.display());
        }
    }
    let _ = std::fs::remove_file(fdir.join(format!("{name}.cex")));
    Ok(if equivalent {
        (
            Some(true),
            format!("equivalent in context: the whole GPU with and without it in its legal host, proven by ABC dprove ({reach}; {secs:.0} s)"),
        )
    } else if differs {
        (
            Some(false),
            // The cut memories' read data are free each cycle, so the counter-example may read
            // what no run of the GPU holds there: a hint where to look, not a bug shown.
            format!("in context, ABC dprove tells them apart with the cut memories' contents free ({reach}; {secs:.0} s{trace_note})"),
        )
    } else {
        (
            None,
            format!("in context, ABC dprove undecided ({reach}; {secs:.0} s)"),
        )
    })
}

/// The `input <index> <bit> <name>` lines of a yosys AIGER map.
fn map_inputs(map: &str) -> impl Iterator<Item = (usize, u32, &str)> {
    map_lines(map, "input")
}

/// The `<kind> <index> <bit> <name>` lines of a yosys AIGER map (`input`, `output`, …).
fn map_lines<'a>(map: &'a str, kind: &'a str) -> impl Iterator<Item = (usize, u32, &'a str)> {
    map.lines().filter_map(move |line| {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[..] {
            [k, index, bit, name] if k == kind => {
                Some((index.parse().ok()?, bit.parse().ok()?, name))
            }
            _ => None,
        }
    })
}

/// The cut memories of the proof's AIG from yosys's map: per memory (the name before
/// `.wf_cut_rdata`), the inputs its read data are (`wf_cut_rdata`, each output literal one
/// input), its word's width (`wf_cut_width`'s bits) and its writes (`wf_obs_wdata`).
fn cut_memories(
    aig: &crate::shared_miter::Aig,
    map: &str,
) -> Result<Vec<crate::shared_miter::CutMemory>> {
    use std::collections::BTreeMap;
    #[derive(Default)]
    struct Parts {
        read: BTreeMap<u32, usize>,
        write: BTreeMap<u32, usize>,
        width: usize,
    }
    let mut mems: BTreeMap<&str, Parts> = BTreeMap::new();
    for (index, bit, name) in map_lines(map, "output") {
        let field = |suffix: &str| name.strip_suffix(suffix);
        if let Some(mem) = field(".wf_cut_rdata") {
            mems.entry(mem).or_default().read.insert(bit, index);
        } else if let Some(mem) = field(".wf_cut_width") {
            mems.entry(mem).or_default().width += 1;
        } else if let Some(mem) = field(".wf_obs_wdata") {
            mems.entry(mem).or_default().write.insert(bit, index);
        }
    }
    let output = |o: usize| -> Result<u32> {
        aig.outputs
            .get(o)
            .copied()
            .ok_or_else(|| anyhow!("map output {o} is not in the AIG"))
    };
    let mut out = Vec::new();
    for p in mems.into_values() {
        if p.read.is_empty() {
            // A memory with no read port: nothing to constrain.
            continue;
        }
        let mut read = Vec::new();
        for &o in p.read.values() {
            let lit = output(o)?;
            let var = (lit / 2) as usize;
            if lit % 2 == 0 && (1..=aig.inputs).contains(&var) {
                read.push(var - 1);
            }
        }
        if read.len() != p.read.len() || p.width == 0 || read.len() % p.width != 0 {
            // Some read-data bit is not a free input of its own (yosys merged it): leave the
            // memory's reads free, as before.
            continue;
        }
        let write = p
            .write
            .values()
            .map(|&o| output(o))
            .collect::<Result<_>>()?;
        out.push(crate::shared_miter::CutMemory {
            read,
            write,
            width: p.width,
        });
    }
    Ok(out)
}

/// ABC's counter-example (`write_cex -n`: `pi<i>@<frame>=<bit>` lines) as the top-level input
/// values of each frame, named with yosys's AIGER map (`input <i> <bit> <name>` lines): one
/// line per frame listing the inputs that are not 0. `None` when there is no counter-example.
fn decode_counterexample(map: &str, cex: &str) -> Option<String> {
    let names: std::collections::HashMap<usize, (u32, &str)> =
        map_inputs(map).map(|(i, b, n)| (i, (b, n))).collect();
    let mut frames: std::collections::BTreeMap<usize, std::collections::BTreeMap<&str, u128>> =
        Default::default();
    let mut length = 0;
    for line in cex.lines() {
        let Some(rest) = line.strip_prefix("pi") else {
            continue;
        };
        let Some((index, rest)) = rest.split_once('@') else {
            continue;
        };
        let Some((frame, value)) = rest.split_once('=') else {
            continue;
        };
        let (Ok(i), Ok(f)) = (index.parse::<usize>(), frame.parse::<usize>()) else {
            continue;
        };
        length = length.max(f + 1);
        let entry = frames.entry(f).or_default();
        if let Some(&(bit, name)) = names.get(&i) {
            let v = entry.entry(name).or_insert(0);
            if value.trim() == "1" && bit < 128 {
                *v |= 1 << bit;
            }
        }
    }
    if length == 0 {
        return None;
    }
    let mut text = format!(
        "# counter-example: {length} frames from power-on; per frame the top-level inputs that are not 0\n"
    );
    for (f, inputs) in &frames {
        let set: Vec<String> = inputs
            .iter()
            .filter(|(_, &v)| v != 0)
            .map(|(n, v)| format!("{}={v:#x}", n.trim_start_matches("in_")))
            .collect();
        text += &format!("frame {f}: {}\n", set.join(" "));
    }
    Some(text)
}

/// Run a command with a time limit, its stdout and stderr into `log`; what it wrote (empty
/// when it was stopped).
fn run_with_timeout(cmd: &mut Command, log: &Path, timeout: Duration) -> Result<String> {
    let file = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let mut child = cmd
        .stdout(file.try_clone()?)
        .stderr(file)
        .spawn()
        .map_err(|e| {
            anyhow!(
                "yosys-abc cannot be run ({e}): it comes with yosys (`scripts/setup.sh --yosys`)"
            )
        })?;
    Ok(match wait_or_kill(&mut child, Some(timeout))? {
        Some(_) => std::fs::read_to_string(log).unwrap_or_default(),
        None => String::new(),
    })
}

/// The in-context proof's design, made by the first survivor that needs it.
type DesignSource<'a> = &'a (dyn Fn() -> Result<&'a FormalDesign> + Sync);

/// What step 5 needs besides the mutation: step 2b's dead mutations and the proof's design.
#[derive(Clone, Copy)]
struct Proofs<'a> {
    dead: &'a BTreeSet<usize>,
    design: DesignSource<'a>,
}

/// Step 5: is mutation `m` equivalent? The cached answer, else [`prove_equivalence`].
fn check_equivalence(
    plan: &Plan,
    dir: &Path,
    m: &Mutation,
    design: DesignSource,
) -> Result<(bool, String)> {
    // The answer depends on the design and the mutation, not on the kernel set: kept per
    // mutation, so another kernel set (or `--only`) does not prove it again. A failed proof
    // is reused only under a time limit no longer than the one it had.
    let cache_dir = dir.join(format!("equivalence-{FORMAL_VERSION}"));
    let cache = cache_dir.join(format!("m{}.json", m.id));
    let limit = plan.equiv_timeout.as_secs();
    if let Some((args, secs, equivalent, why)) = std::fs::read(&cache)
        .ok()
        .and_then(|b| serde_json::from_slice::<(String, u64, bool, String)>(&b).ok())
    {
        if args == m.args && (equivalent || secs >= limit) {
            return Ok((equivalent, why));
        }
    }
    let (equivalent, why) = prove_equivalence(plan, dir, m, design)?;
    std::fs::create_dir_all(&cache_dir)?;
    write_atomically(
        &cache,
        &serde_json::to_vec(&(&m.args, limit, equivalent, &why))?,
    )?;
    Ok((equivalent, why))
}

/// First the whole GPU in context ([`formal_in_context`]); when that is undecided, dead in
/// context alone (the check of step 2b with only this mutation applied: with all of them
/// applied at once, another mutation can keep a bit observable that is dead without it), then
/// its module against the original module.
fn prove_equivalence(
    plan: &Plan,
    dir: &Path,
    m: &Mutation,
    design: DesignSource,
) -> Result<(bool, String)> {
    let (decided, in_context) = formal_in_context(plan, dir, m, design()?)?;
    if let Some(equivalent) = decided {
        return Ok((equivalent, in_context));
    }
    let t = Instant::now();
    if dead_in_context(
        dir,
        &format!("one-m{}", m.id),
        std::slice::from_ref(m),
        &|_| {},
    )?
    .contains(&m.id)
    {
        return Ok((
            true,
            format!(
                "dead in context, applied alone: in the flattened, optimised GPU (`flatten; opt -fine; wreduce`) it reaches no output ({:.0} s)",
                t.elapsed().as_secs_f64()
            ),
        ));
    }
    let edir = dir.join("equiv");
    std::fs::create_dir_all(&edir)?;
    let args = m.args.replacen(
        &format!("-module {}", m.module),
        "-module wf_mutant_gate",
        1,
    );
    let module = if m.module.starts_with('\\') || m.module.starts_with('$') {
        m.module.clone()
    } else {
        format!("\\{}", m.module)
    };
    // `equiv_make` pairs every wire of the same name, so the mutated wire itself (when it is
    // not a port) would be a pair that differs by construction even where the outputs cannot
    // (small m86 on 67bd937: a round-robin choice's bit 4 flipped where bit 1 is set, which
    // every grant masks): in the gate it gets a private name, and only what it drives is
    // compared.
    let hide = mutated_wire(&m.args)
        .map(|w| format!("rename -hide wf_mutant_gate/w:{w} wf_mutant_gate/x:* %d\n"))
        .unwrap_or_default();
    let script = format!(
        "read_rtlil ../design.il\ncopy {module} wf_mutant_gate\nmutate {args}\n{hide}rename {module} wf_mutant_gold\n\
         equiv_make wf_mutant_gold wf_mutant_gate wf_mutant_equiv\nhierarchy -top wf_mutant_equiv\n\
         equiv_struct\nequiv_simple\nequiv_induct\nequiv_status -assert\n"
    );
    let t = Instant::now();
    let ok = yosys(
        &edir,
        &script,
        &format!("m{}", m.id),
        Some(plan.equiv_timeout),
    )?;
    let secs = t.elapsed().as_secs_f64();
    Ok(if ok {
        (
            true,
            format!("module {} proven equivalent ({secs:.0} s)", m.module),
        )
    } else if t.elapsed() >= plan.equiv_timeout {
        (
            false,
            format!(
                "{in_context}; its module not proven equivalent within {} s",
                plan.equiv_timeout.as_secs()
            ),
        )
    } else {
        (
            false,
            format!(
                "{in_context}; module {} differs (equiv_status, {secs:.0} s)",
                m.module
            ),
        )
    })
}

/// The wire a mutation changes (`-wire NAME` of `mutate -list`), when it names one that a
/// yosys selection can name plainly.
fn mutated_wire(args: &str) -> Option<&str> {
    let w = wire_arg(args)?;
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.';
    (!w.starts_with('$') && w.chars().all(plain)).then_some(w)
}

/// Run the plan; `progress` receives one-line status messages.
pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Summary> {
    let (dir, mut mutations, mutants_v, dead) = prepare(plan, progress)?;
    // The in-context proof's design holds every mutation of the list (also with `--only`), so
    // it is made once per list.
    let all_mutations = mutations.clone();
    let tag = format!("{}-{}", plan.count, plan.seed);
    let formal: std::sync::OnceLock<std::result::Result<FormalDesign, String>> =
        std::sync::OnceLock::new();
    if !plan.only.is_empty() {
        if let Some(bad) = plan.only.iter().find(|i| **i == 0 || **i > mutations.len()) {
            bail!(
                "--only {bad}: no such mutant; the ids of `--count {} --seed {}` are 1 to {}",
                plan.count,
                plan.seed,
                mutations.len()
            );
        }
        mutations.retain(|m| plan.only.contains(&m.id));
    }
    let images = crate::regress::load_images(&plan.kernels)?;
    // Every kernel's representative case first (most mutants fail one of them), then, with
    // `all_cases`, the other reference cases.
    let mut runs = Vec::new();
    let mut more = Vec::new();
    for (ki, k) in plan.kernels.iter().enumerate() {
        let lim = limits(&plan.config);
        let first = k.default_case(&lim, plan.data_seed);
        let others = if plan.all_cases {
            k.cases(&lim, plan.data_seed)
        } else {
            Vec::new()
        };
        let cases = std::iter::once((first.clone(), true)).chain(
            others
                .into_iter()
                .filter(|c| *c != first)
                .map(|c| (c, false)),
        );
        for (case, representative) in cases {
            for mi in 0..plan.mems.len() {
                let r = RunSpec {
                    kernel: ki,
                    case: case.clone(),
                    mem: mi,
                    max_cycles: warpforge_testbench::lockstep::DEFAULT_MAX_CYCLES,
                    baseline_cycles: 0,
                };
                if representative {
                    runs.push(r);
                } else {
                    more.push(r);
                }
            }
        }
    }
    runs.append(&mut more);
    // The results directory is keyed on the run set and on this program (the checker, the
    // model and the kernels' code are all in it), so another set or another build starts
    // afresh instead of reusing verdicts the current checker did not give.
    let program = std::env::current_exe()
        .and_then(std::fs::read)
        .context("reading this program to key the mutation verdicts on it")?;
    let code: Vec<u8> = images
        .iter()
        .flat_map(|i| {
            std::iter::once(i.entry)
                .chain(i.text.iter().copied())
                .chain(i.sidecar.iter().map(|r| r.to_word()))
        })
        .flat_map(u32::to_le_bytes)
        .collect();
    let set_key = fnv(&[
        &program,
        &code,
        runs.iter()
            .map(|r| format!("{} {:?}\n", run_label(plan, r), r.case))
            .collect::<String>()
            .as_bytes(),
        format!("{:?}", plan.mems.iter().map(|m| &m.1).collect::<Vec<_>>()).as_bytes(),
        plan.data_seed.to_string().as_bytes(),
        plan.equiv.to_string().as_bytes(),
        plan.timing.to_string().as_bytes(),
    ]);
    let results_dir = dir
        .join("results")
        .join(format!("{}-{}-{set_key}", plan.count, plan.seed));
    std::fs::create_dir_all(&results_dir)?;

    // 3. Baseline: the unmutated netlist passes every run; its cycles bound the mutants'.
    progress("Verilator: building the mutant design and running the baseline (mutsel = 0)");
    for r in runs.iter_mut() {
        let (failed, cycles) = run_one(plan, &images, &mutants_v, 0, r)?;
        if let Some((_, detail)) = failed {
            bail!(
                "the mutant design with no mutation active (mutsel = 0) fails: {detail}\n(design: {})",
                mutants_v.display()
            );
        }
        r.max_cycles = cycles * 4 + 10_000;
        r.baseline_cycles = cycles;
    }

    // 4 and 5, in parallel, each mutant's verdict stored as soon as it is known.
    let pb = progress_bar(mutations.len() as u64);
    let design = || -> Result<&FormalDesign> {
        formal
            .get_or_init(|| {
                pb.set_message(
                    "yosys: the in-context proof's design (every mutation, memories cut)",
                );
                formal_design(plan, &dir, &tag, &all_mutations).map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| anyhow!("{e}"))
    };
    let proofs = Proofs {
        dead: &dead,
        design: &design,
    };
    let results: Mutex<Vec<Option<MutantResult>>> = Mutex::new(vec![None; mutations.len()]);
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..plan.jobs.clamp(1, mutations.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(m) = mutations.get(i) else {
                    break;
                };
                let file = results_dir.join(format!("m{}.json", m.id));
                let cached: Option<MutantResult> = std::fs::read(&file)
                    .ok()
                    .filter(|_| plan.only.is_empty())
                    .and_then(|b| serde_json::from_slice(&b).ok())
                    .filter(|r: &MutantResult| r.mutation == *m);
                let result = match cached {
                    Some(r) => Ok(r),
                    None => {
                        mutant(plan, &dir, &images, &mutants_v, &runs, m, &proofs).and_then(|r| {
                            write_atomically(&file, &serde_json::to_vec_pretty(&r)?)?;
                            Ok(r)
                        })
                    }
                };
                match result {
                    Ok(r) => {
                        pb.set_message(format!("m{}: {}", m.id, r.verdict.word()));
                        results.lock().unwrap()[i] = Some(r);
                    }
                    Err(e) => {
                        first_error.lock().unwrap().get_or_insert(e);
                        break;
                    }
                }
                pb.inc(1);
            });
        }
    });
    pb.finish_and_clear();
    if let Some(e) = first_error.into_inner().unwrap() {
        return Err(e);
    }
    let mutants: Vec<MutantResult> = results
        .into_inner()
        .unwrap()
        .into_iter()
        .flatten()
        .collect();
    let count = |f: &dyn Fn(&Verdict) -> bool| mutants.iter().filter(|r| f(&r.verdict)).count();
    let detected = count(&Verdict::detected);
    let equivalent = count(&|v| *v == Verdict::Equivalent);
    let escapes = count(&|v| *v == Verdict::Escape);
    let survived_unchecked = count(&|v| *v == Verdict::Survived);
    let detected_by_cycles = count(&|v| *v == Verdict::DetectedCycles);
    let relevant = mutants.len() - equivalent;
    let percent = |n: usize| {
        if relevant == 0 {
            100.0
        } else {
            100.0 * n as f64 / relevant as f64
        }
    };
    Ok(Summary {
        config: plan.config.name.clone(),
        count: plan.count,
        seed: plan.seed,
        runs_per_mutant: runs.len(),
        detected,
        detected_by_cycles,
        functional_coverage: percent(detected - detected_by_cycles),
        equivalent,
        escapes,
        survived_unchecked,
        coverage: percent(detected),
        mutants,
        workdir: dir,
    })
}

/// One mutant: the kernel set until a run fails, then (for a survivor) the equivalence check.
fn mutant(
    plan: &Plan,
    dir: &Path,
    images: &[KernelImage],
    mutants_v: &Path,
    runs: &[RunSpec],
    m: &Mutation,
    proofs: &Proofs,
) -> Result<MutantResult> {
    let Proofs { dead, design } = *proofs;
    let t = Instant::now();
    if dead.contains(&m.id) {
        return Ok(MutantResult {
            mutation: m.clone(),
            verdict: Verdict::Equivalent,
            detail: "dead in context: in the flattened, optimised GPU (`flatten; opt -fine; wreduce`) it reaches no output".into(),
            runs: 0,
            seconds: 0.0,
        });
    }
    // A functional failure in any run outranks a timing difference, so a mutant that changes
    // cycles still runs the whole set.
    let mut timing: Option<String> = None;
    for (n, r) in runs.iter().enumerate() {
        let (failed, cycles) = run_one(plan, images, mutants_v, m.id, r)?;
        if failed.is_none() && cycles != r.baseline_cycles && timing.is_none() {
            timing = Some(format!(
                "{}: every record matched the model, but in {cycles} kernel cycles where the unmutated design takes {}",
                run_label(plan, r),
                r.baseline_cycles
            ));
        }
        if let Some((hang, detail)) = failed {
            return Ok(MutantResult {
                mutation: m.clone(),
                verdict: if hang {
                    Verdict::DetectedHang
                } else {
                    Verdict::DetectedMismatch
                },
                detail,
                runs: n + 1,
                seconds: t.elapsed().as_secs_f64(),
            });
        }
    }
    let (verdict, detail) = if let Some(detail) = timing.filter(|_| plan.timing) {
        (Verdict::DetectedCycles, detail)
    } else if plan.equiv {
        let (equivalent, why) = check_equivalence(plan, dir, m, design)?;
        (
            if equivalent {
                Verdict::Equivalent
            } else {
                Verdict::Escape
            },
            why,
        )
    } else {
        (Verdict::Survived, "equivalence not checked".to_string())
    };
    Ok(MutantResult {
        mutation: m.clone(),
        verdict,
        detail,
        runs: runs.len(),
        seconds: t.elapsed().as_secs_f64(),
    })
}

/// The table of every mutant, then the survivors in full.
pub fn table(s: &Summary) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut rows: Vec<[String; 5]> = vec![[
        "id".into(),
        "verdict".into(),
        "module".into(),
        "mutation".into(),
        "detail".into(),
    ]];
    for r in &s.mutants {
        rows.push([
            format!("m{}", r.mutation.id),
            r.verdict.word().into(),
            r.mutation.module.clone(),
            r.mutation.describe(),
            r.detail.clone(),
        ]);
    }
    let mut w = [0usize; 4];
    for row in &rows {
        for i in 0..4 {
            w[i] = w[i].max(row[i].chars().count());
        }
    }
    for row in &rows {
        let _ = writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3]
        );
    }
    let survivors: Vec<&MutantResult> =
        s.mutants.iter().filter(|r| !r.verdict.detected()).collect();
    if !survivors.is_empty() {
        let _ = writeln!(out, "\nsurvivors:");
        for r in survivors {
            let _ = writeln!(
                out,
                "  m{} {}: {} in module {} ({})\n      source {}\n      mutate {}",
                r.mutation.id,
                r.verdict.word(),
                r.mutation.describe(),
                r.mutation.module,
                r.detail,
                r.mutation.src.join(", "),
                r.mutation.args
            );
        }
    }
    let _ = writeln!(
        out,
        "\n{} mutants of `{}` (seed {}), {} runs each at most: {} detected ({} by cycle count only), {} equivalent, {} escapes{}; coverage {:.1} % of the non-equivalent mutants ({:.1} % by lock-step alone)",
        s.mutants.len(),
        s.config,
        s.seed,
        s.runs_per_mutant,
        s.detected,
        s.detected_by_cycles,
        s.equivalent,
        s.escapes,
        if s.survived_unchecked > 0 {
            format!(", {} survived (equivalence not checked)", s.survived_unchecked)
        } else {
            String::new()
        },
        s.coverage,
        s.functional_coverage
    );
    out
}

/// JUnit XML: one test case per mutant; an escape (or unchecked survivor) is a failure.
pub fn junit(s: &Summary, total: Duration) -> Result<String> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new("warpforge mutate");
    report.set_time(total);
    let mut suite = TestSuite::new(format!("mutants of {} (seed {})", s.config, s.seed));
    for r in &s.mutants {
        let status = if r.verdict.detected() || r.verdict == Verdict::Equivalent {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_type(r.verdict.word());
            st.set_message(format!("{}: {}", r.mutation.describe(), r.detail));
            st.set_description(format!(
                "module {}\nsource {}\nmutate {}",
                r.mutation.module,
                r.mutation.src.join(", "),
                r.mutation.args
            ));
            st
        };
        let mut tc = TestCase::new(
            format!("m{} {}", r.mutation.id, r.mutation.describe()),
            status,
        );
        tc.set_classname(format!("warpforge.mutate.{}", s.config));
        tc.set_time(Duration::from_secs_f64(r.seconds));
        suite.add_test_case(tc);
    }
    report.add_test_suite(suite);
    Ok(report.to_string()?)
}

/// Write the summary as JSON.
pub fn write_json(s: &Summary, path: &Path) -> Result<()> {
    std::fs::write(path, serde_json::to_string_pretty(s)?)
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_memories_come_from_the_map() {
        use crate::shared_miter::{Aig, CutMemory};
        // Inputs 0-3 (variables 1-4); memory `u.m` has a 2-bit word, one read port (inputs 2
        // and 3) and one write port (outputs 4 and 5); memory `u.n`'s read bit is an inverted
        // literal (yosys merged it), so its reads stay free.
        let aig = Aig {
            inputs: 4,
            latches: vec![],
            outputs: vec![6, 8, 6, 2, 3, 0, 9, 9],
            ands: vec![],
        };
        let map = "input 0 0 clock\n\
                   output 0 0 u.m.wf_cut_rdata\noutput 1 1 u.m.wf_cut_rdata\n\
                   output 2 0 u.m.wf_cut_width\noutput 3 1 u.m.wf_cut_width\n\
                   output 4 0 u.m.wf_obs_wdata\noutput 5 1 u.m.wf_obs_wdata\n\
                   output 6 0 u.n.wf_cut_rdata\noutput 7 0 u.n.wf_cut_width\n";
        assert_eq!(
            cut_memories(&aig, map).unwrap(),
            vec![CutMemory {
                read: vec![2, 3],
                write: vec![3, 0],
                width: 2,
            }]
        );
        assert!(cut_memories(&aig, "output 9 0 u.m.wf_cut_rdata\n").is_err());
    }

    #[test]
    fn a_counterexample_names_its_inputs() {
        let map = "input 0 0 in_clock\ninput 1 0 in_start\ninput 2 0 in_launch_ntid\ninput 3 1 in_launch_ntid\nlatch 0 0 x\n";
        let cex =
            "# FALSIFYING OUTPUTS: po0\nlo00000@0=0\npi000@0=0\npi001@0=0\npi002@0=0\npi003@0=0\n\
                   pi000@1=1\npi001@1=1\npi002@1=1\npi003@1=1\n";
        let text = decode_counterexample(map, cex).unwrap();
        assert!(text.contains("2 frames"), "{text}");
        assert!(text.contains("frame 0: \n"), "{text}");
        assert!(
            text.contains("frame 1: clock=0x1 launch_ntid=0x3 start=0x1"),
            "{text}"
        );
        assert_eq!(decode_counterexample(map, ""), None);
    }

    #[test]
    fn the_mutated_wire_is_named_when_plain() {
        assert_eq!(
            mutated_wire("-mode cnot1 -module m -cell c -port Y -portbit 4 -wire x0 -wirebit 4"),
            Some("x0")
        );
        assert_eq!(
            mutated_wire("-mode inv -module m -cell c -wire bfault$d$7 -wirebit 0"),
            Some("bfault$d$7")
        );
        // No wire, an internal ($) name, or characters a selection would read as a pattern.
        assert_eq!(
            mutated_wire("-mode const0 -module m -cell c -port A -portbit 1"),
            None
        );
        assert_eq!(
            mutated_wire("-mode inv -module m -cell c -wire $auto$x -wirebit 0"),
            None
        );
        assert_eq!(
            mutated_wire("-mode inv -module m -cell c -wire a[3] -wirebit 0"),
            None
        );
    }

    #[test]
    fn a_list_line_parses() {
        let line = "mutate -mode cnot1 -module top$sm$0$fetch -cell $procmux$12476 -port Y -portbit 1 -ctrlbit 4 -wire last.d$0 -wirebit 1 -src tiny/warpforge_top.v:9861.25-9865.6 -src tiny/warpforge_top.v:10740.23-10740.26";
        let m = Mutation::parse(3, line).unwrap();
        assert_eq!(m.id, 3);
        assert_eq!(m.mode, "cnot1");
        assert_eq!(m.module, "top$sm$0$fetch");
        assert_eq!(m.cell, "$procmux$12476");
        assert_eq!(m.port, "Y");
        assert_eq!(m.bit, Some(1));
        assert_eq!(m.src, ["warpforge_top.v:9861", "warpforge_top.v:10740"]);
        assert!(m.args.starts_with("-mode cnot1 -module"));
        assert_eq!(m.describe(), "cnot1 of $procmux$12476.Y[1]");
        assert!(Mutation::parse(1, "mutate -mode none").is_none());
        assert!(Mutation::parse(1, "garbage").is_none());
    }

    #[test]
    fn a_control_no_cell_or_output_reads_is_dead() {
        // wf_alive_1 (net 2) feeds a mux; wf_alive_2 (net 3) drives an output directly;
        // wf_alive_3 (net 4) is read by nothing; only a cell's *output* touches net 5 of
        // wf_alive_4.
        let netlist = serde_json::json!({"modules": {TOP_NAME: {
            "ports": {
                "wf_alive_1": {"direction": "input", "bits": [2]},
                "wf_alive_2": {"direction": "input", "bits": [3]},
                "wf_alive_3": {"direction": "input", "bits": [4]},
                "wf_alive_4": {"direction": "input", "bits": [5]},
                "out": {"direction": "output", "bits": [3, 6]},
            },
            "cells": {"m": {
                "port_directions": {"A": "input", "S": "input", "Y": "output"},
                "connections": {"A": ["0"], "S": [2], "Y": [5]},
            }},
        }}});
        assert_eq!(unread_controls(&netlist).unwrap(), BTreeSet::from([3, 4]));
        assert!(unread_controls(&serde_json::json!({"modules": {}})).is_err());
    }
}
