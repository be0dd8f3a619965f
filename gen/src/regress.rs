//! `warpforge regress`: shipped kernels × their cases × configurations × memory settings on
//! the generated RTL in lock-step with the golden model, in parallel; a table, JSON and JUnit
//! XML of the results.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context as _, Result};
use indicatif::{ProgressBar, ProgressStyle};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use warpforge_config::GpuConfig;
use warpforge_kernels::{Case, KernelSpec};
use warpforge_loader::KernelImage;
use warpforge_testbench::lockstep::{build_rtl, CosimOptions};
use warpforge_testbench::memory_model::MemorySettings;

use crate::cosim::{command_line, run_case, CosimRow};
use crate::host::limits;

/// What to run.
pub struct Plan {
    /// (the name or file the user gave, the configuration).
    pub configs: Vec<(String, GpuConfig)>,
    /// (the setting the user gave, the settings).
    pub mems: Vec<(String, MemorySettings)>,
    pub kernels: Vec<&'static KernelSpec>,
    /// Every reference case (else each kernel's default case).
    pub all_cases: bool,
    /// Seed of the kernels' input data.
    pub data_seed: u64,
    pub max_cycles: u64,
    /// Write a VCD of each failure into this directory.
    pub vcd: Option<std::path::PathBuf>,
    /// Parallel simulations.
    pub jobs: usize,
    /// Say on stderr when a configuration's RTL is being built (without a terminal, where
    /// the progress bar is hidden).
    pub announce_builds: bool,
    /// The timing check: compare each run's kernel cycles with `tests/cycles/` (or record
    /// them there).
    pub cycles: crate::cycles::Mode,
    /// Where the expected cycles are (`crate::cycles::default_dir()`).
    pub cycles_dir: std::path::PathBuf,
}

struct Job {
    cfg: usize,
    kernel: usize,
    case_index: usize,
    case: Case,
    mem: usize,
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Build (or take from the cache) and load the ELF of each kernel.
pub fn load_images(kernels: &[&KernelSpec]) -> Result<Vec<KernelImage>> {
    kernels
        .iter()
        .map(|k| {
            let elf = k.elf()?;
            warpforge_loader::load_elf_file(&elf)
                .with_context(|| format!("loading {}", elf.display()))
        })
        .collect()
}

/// Run the plan; rows in plan order (configuration, kernel, case, memory setting).
/// Run the plan: one row per run, and a line on the timing check (empty when it is off).
pub fn run(plan: &Plan) -> Result<(Vec<CosimRow>, String)> {
    if plan.cycles == crate::cycles::Mode::Check {
        // A stale file of expected cycles is a clear error before any long work.
        for (_, cfg) in &plan.configs {
            crate::cycles::load(&plan.cycles_dir, cfg)?;
        }
    }
    let images = load_images(&plan.kernels)?;
    let mut jobs = Vec::new();
    for (ci, (_, cfg)) in plan.configs.iter().enumerate() {
        for (ki, k) in plan.kernels.iter().enumerate() {
            let all = k.cases(&limits(cfg), plan.data_seed);
            let picked: Vec<usize> = if plan.all_cases {
                (0..all.len()).collect()
            } else if all.is_empty() {
                Vec::new()
            } else {
                let d = k.default_case(&limits(cfg), plan.data_seed);
                vec![all.iter().position(|c| *c == d).unwrap_or(0)]
            };
            for case_index in picked {
                for mi in 0..plan.mems.len() {
                    jobs.push(Job {
                        cfg: ci,
                        kernel: ki,
                        case_index,
                        case: all[case_index].clone(),
                        mem: mi,
                    });
                }
            }
        }
    }

    let pb = progress_bar(jobs.len() as u64);
    // Build each configuration's RTL once, before the parallel runs.
    let mut built: Vec<Result<(), String>> = Vec::new();
    for (_, cfg) in &plan.configs {
        let msg = format!(
            "building the RTL model of `{}` (Verilator; minutes the first time, cached after)",
            cfg.name
        );
        if pb.is_hidden() && plan.announce_builds {
            eprintln!("regress: {msg}");
        }
        pb.set_message(msg);
        built.push(
            build_rtl(cfg, None, false)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
    }

    let rows: Mutex<Vec<Option<CosimRow>>> = Mutex::new(vec![None; jobs.len()]);
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..plan.jobs.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else {
                    break;
                };
                let (cfg_arg, cfg) = &plan.configs[job.cfg];
                let (mem_arg, mem) = &plan.mems[job.mem];
                let k = plan.kernels[job.kernel];
                let image = &images[job.kernel];
                let row = match &built[job.cfg] {
                    Err(why) => {
                        CosimRow::not_run(k.name, &job.case.label, &cfg.name, &mem.name, why)
                    }
                    Ok(()) => {
                        let mut words = vec![
                            "warpforge".to_string(),
                            "cosim".into(),
                            k.name.into(),
                            "--config".into(),
                            cfg_arg.clone(),
                            "--case".into(),
                            job.case_index.to_string(),
                            "--mem".into(),
                            mem_arg.clone(),
                            "--seed".into(),
                            mem.seed.to_string(),
                        ];
                        if plan.data_seed != 1 {
                            words.extend(["--data-seed".into(), plan.data_seed.to_string()]);
                        }
                        if plan.max_cycles != warpforge_testbench::lockstep::DEFAULT_MAX_CYCLES {
                            words.extend(["--max-cycles".into(), plan.max_cycles.to_string()]);
                        }
                        if let Some(v) = &plan.vcd {
                            words.extend(["--vcd".into(), v.display().to_string()]);
                        }
                        let repro = command_line(&words);
                        let opts = CosimOptions {
                            mem: mem.clone(),
                            max_cycles: plan.max_cycles,
                            vcd_on_failure: plan.vcd.clone(),
                            repro: repro.clone(),
                            ..Default::default()
                        };
                        match run_case(cfg, image, &job.case, &opts) {
                            Ok(c) => CosimRow::new(
                                k.name,
                                &job.case.label,
                                &cfg.name,
                                &mem.name,
                                &c,
                                image,
                                repro,
                            ),
                            Err(e) => {
                                first_error.lock().unwrap().get_or_insert(e.context(format!(
                                    "placing {} {} on `{}`",
                                    k.name, job.case.label, cfg.name
                                )));
                                break;
                            }
                        }
                    }
                };
                if !row.passed() {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                pb.set_message(format!(
                    "{} failed; last: {} {} on {} / {}",
                    failed.load(Ordering::Relaxed),
                    k.name,
                    job.case.label,
                    cfg.name,
                    mem.name
                ));
                pb.inc(1);
                rows.lock().unwrap()[i] = Some(row);
            });
        }
    });
    pb.finish_and_clear();
    if let Some(e) = first_error.into_inner().unwrap() {
        return Err(e);
    }
    let mut rows: Vec<CosimRow> = rows.into_inner().unwrap().into_iter().flatten().collect();
    let keys: Vec<String> = jobs
        .iter()
        .map(|j| {
            crate::cycles::key(
                plan.kernels[j.kernel].name,
                &j.case.label,
                &plan.mems[j.mem].1,
                plan.data_seed,
            )
        })
        .collect();
    let cfgs: Vec<&GpuConfig> = jobs.iter().map(|j| &plan.configs[j.cfg].1).collect();
    let note = crate::cycles::apply(plan.cycles, &plan.cycles_dir, &mut rows, &keys, &cfgs)?;
    Ok((rows, note))
}

/// Print the table of `rows` and the full report of every failure on stdout, and write the
/// JSON and JUnit files asked for. Returns the number of failed rows.
pub fn report(
    rows: &[CosimRow],
    json: Option<&std::path::Path>,
    junit_file: Option<&std::path::Path>,
    elapsed: Duration,
) -> Result<usize> {
    print!("{}", crate::cosim::regress_table(rows));
    let failures: Vec<&CosimRow> = rows.iter().filter(|r| !r.passed()).collect();
    for r in &failures {
        println!(
            "\n--- {} {} on `{}`, memory {}: {}\n{}",
            r.kernel, r.case, r.config, r.mem, r.result, r.details
        );
        if !r.repro.is_empty() && !r.details.contains(&r.repro) {
            println!("reproduce: {}", r.repro);
        }
    }
    if let Some(p) = json {
        std::fs::write(p, serde_json::to_string_pretty(rows)?)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    if let Some(p) = junit_file {
        std::fs::write(p, junit(rows, elapsed)?)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(failures.len())
}

/// JUnit XML: one test suite per configuration and memory setting, one test case per kernel
/// case; failures carry the full report.
pub fn junit(rows: &[CosimRow], total: Duration) -> Result<String> {
    let mut report = Report::new("warpforge regress");
    report.set_time(total);
    let mut suites: Vec<(String, TestSuite)> = Vec::new();
    for r in rows {
        let name = format!("{}/{}", r.config, r.mem);
        let idx = match suites.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                suites.push((name.clone(), TestSuite::new(name.clone())));
                suites.len() - 1
            }
        };
        let status = if r.passed() {
            TestCaseStatus::success()
        } else {
            let kind = if r.result == "build" {
                NonSuccessKind::Error
            } else {
                NonSuccessKind::Failure
            };
            let mut s = TestCaseStatus::non_success(kind);
            s.set_type(r.result.clone());
            s.set_message(r.details.lines().next().unwrap_or(&r.result).to_string());
            let mut desc = r.details.clone();
            if !r.repro.is_empty() && !desc.contains(&r.repro) {
                desc.push_str(&format!("\nreproduce: {}", r.repro));
            }
            s.set_description(desc);
            s
        };
        let mut tc = TestCase::new(format!("{} {}", r.kernel, r.case), status);
        tc.set_classname(format!("warpforge.cosim.{}.{}", r.config, r.mem));
        if let Some(t) = r.sim_seconds {
            tc.set_time(Duration::from_secs_f64(t));
        }
        suites[idx].1.add_test_case(tc);
    }
    report.add_test_suites(suites.into_iter().map(|(_, s)| s));
    Ok(report.to_string()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kernel: &str, result: &str, details: &str) -> CosimRow {
        CosimRow {
            kernel: kernel.into(),
            case: "grid=2 block=6".into(),
            config: "tiny".into(),
            mem: "zero".into(),
            result: result.into(),
            cycles: Some(100),
            ipc: Some(0.5),
            ipc_per_sm: Some(0.5),
            issued: Some(50),
            bank_conflicts: Some(0),
            idle: Some(3),
            sim_seconds: Some(0.25),
            repro: "warpforge cosim reduce --config tiny --case 0 --mem zero --seed 1".into(),
            details: details.into(),
        }
    }

    #[test]
    fn junit_has_a_suite_per_config_and_memory_and_the_failure_report() {
        let mut other = row("vecadd", "pass", "");
        other.mem = "long".into();
        let rows = vec![
            row("vecadd", "pass", ""),
            row(
                "reduce",
                "mismatch",
                "co-simulation MISMATCH at cycle 12 (kernel cycle 3), writeback record: x\n  details <&>",
            ),
            other,
            CosimRow::not_run("saxpy", "grid=1 block=4", "tiny", "zero", "co-simulation setup failed: no verilator"),
        ];
        let xml = junit(&rows, Duration::from_secs(2)).unwrap();
        assert!(xml.contains(r#"<testsuites name="warpforge regress" tests="4" skipped="0" failures="1" errors="1""#), "{xml}");
        assert!(
            xml.contains(r#"<testsuite name="tiny/zero" tests="3""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testsuite name="tiny/long" tests="1""#),
            "{xml}"
        );
        assert!(
            xml.contains(
                r#"<testcase name="reduce grid=2 block=6" classname="warpforge.cosim.tiny.zero""#
            ),
            "{xml}"
        );
        assert!(xml.contains(r#"<failure message="co-simulation MISMATCH at cycle 12 (kernel cycle 3), writeback record: x" type="mismatch">"#), "{xml}");
        assert!(xml.contains("details &lt;&amp;&gt;"), "{xml}");
        assert!(xml.contains("reproduce: warpforge cosim reduce"), "{xml}");
        assert!(
            xml.contains(
                r#"<error message="co-simulation setup failed: no verilator" type="build">"#
            ),
            "{xml}"
        );
    }
}
