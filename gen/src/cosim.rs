//! RTL co-simulation of one kernel case, as `warpforge cosim` and `warpforge regress` run it:
//! the case is placed in the model's memory exactly as `warpforge run` places it, the
//! generated RTL runs in lock-step with the model (`warpforge_testbench::lockstep`), and every
//! output buffer the RTL left in memory is compared with the kernel's Rust reference.

use std::fmt::Write as _;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use warpforge_config::GpuConfig;
use warpforge_kernels::Case;
use warpforge_loader::KernelImage;
use warpforge_sim::Gpu;
use warpforge_testbench::lockstep::{
    cosim, CosimError, CosimOptions, CosimOutcome, CosimReport, Launch,
};

use crate::host::{self, Placed};

/// A co-simulated case.
#[derive(Debug)]
pub struct CosimCase {
    pub result: Result<CosimReport, CosimError>,
    /// One line per output buffer of the RTL that differs from the Rust reference.
    pub reference: Vec<String>,
    /// Output buffers compared with the reference (and equal, when `reference` is empty).
    pub checked_buffers: Vec<&'static str>,
    pub placed: Placed,
    /// Whether the run ended as the case expects: finished, or stopped on exactly the case's
    /// expected fault (`Err`: what happened instead). `Ok` when the lock-step run failed.
    pub fault_check: Result<(), String>,
}

impl CosimCase {
    pub fn passed(&self) -> bool {
        self.result.is_ok() && self.reference.is_empty() && self.fault_check.is_ok()
    }

    /// One word for tables: `pass`, `mismatch`, `timeout`, `hang`, `build`, `fault` (an
    /// unexpected fault, or another than the expected one), `no-fault` (finished where the
    /// case expects a fault), `reference`.
    pub fn verdict(&self) -> &'static str {
        match &self.result {
            Err(e) => e.kind(),
            Ok(r) if self.fault_check.is_err() => {
                if r.outcome == CosimOutcome::Finished {
                    "no-fault"
                } else {
                    "fault"
                }
            }
            Ok(_) if !self.reference.is_empty() => "reference",
            Ok(_) => "pass",
        }
    }

    /// What went wrong, in full (empty when passed).
    pub fn details(&self, image: &KernelImage) -> String {
        let mut s = String::new();
        match &self.result {
            Err(e) => s.push_str(&e.to_string()),
            Ok(r) => {
                if let Err(why) = &self.fault_check {
                    if let CosimOutcome::Fault(f) = &r.outcome {
                        s.push_str(&crate::report::fault_line(f, image));
                        s.push('\n');
                    }
                    s.push_str(why);
                }
                for m in &self.reference {
                    if !s.is_empty() {
                        s.push('\n');
                    }
                    let _ = write!(s, "RTL memory differs from the Rust reference: {m}");
                }
            }
        }
        s
    }
}

/// Place `case` in a fresh model of `image`, co-simulate it with `opts`, and compare the RTL's
/// output buffers with the reference. `Err` only when the case cannot be placed.
pub fn run_case(
    cfg: &GpuConfig,
    image: &KernelImage,
    case: &Case,
    opts: &CosimOptions,
) -> Result<CosimCase> {
    let mut gpu = Gpu::new(cfg, image)?;
    let placed = host::place(&mut gpu, case)?;
    let launch = Launch {
        grid: case.grid,
        block: case.block,
        param: placed.param,
        cta_base: case.cta_base,
        counter_base: case.counter_base,
    };
    let result = cosim(cfg, image, gpu, launch, opts);
    let mut reference = Vec::new();
    let mut checked_buffers = Vec::new();
    let fault_check = match &result {
        Err(_) => Ok(()),
        Ok(r) => match &r.outcome {
            CosimOutcome::Finished => host::check_fault(case, image, &placed, None),
            CosimOutcome::Fault(f) => host::check_fault(case, image, &placed, Some(f)),
        },
    };
    if let Ok(r) = &result {
        if r.outcome == CosimOutcome::Finished && case.expected_fault.is_none() {
            for (b, &addr) in case.buffers.iter().zip(&placed.buffers) {
                if let Some(expected) = &b.expected {
                    checked_buffers.push(b.name);
                    match r.read(addr, expected.len() as u32) {
                        Some(got) => {
                            if let Some(m) = host::describe_mismatch(b.name, addr, expected, got) {
                                reference.push(m);
                            }
                        }
                        None => reference.push(format!(
                            "buffer `{}` at 0x{addr:08x} lies outside global memory",
                            b.name
                        )),
                    }
                }
            }
        }
    }
    Ok(CosimCase {
        result,
        reference,
        checked_buffers,
        placed,
        fault_check,
    })
}

/// Quote one word for a POSIX shell when it needs it.
pub fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// A command line from words, shell-quoted.
pub fn command_line<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| shell_word(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One row of `warpforge regress` (and the JSON of `warpforge cosim`, and a sweep point's kernel
/// run, `sweep::PointResult::kernel`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CosimRow {
    pub kernel: String,
    pub case: String,
    #[serde(default)]
    pub config: String,
    pub mem: String,
    /// `pass`, `mismatch`, `timeout`, `hang`, `build`, `fault`, `reference`.
    pub result: String,
    pub cycles: Option<u64>,
    /// Warp-instructions issued per cycle, summed over the SMs.
    pub ipc: Option<f64>,
    /// Warp-instructions issued per cycle per SM (`ipc` / SMs).
    pub ipc_per_sm: Option<f64>,
    pub issued: Option<u64>,
    pub bank_conflicts: Option<u64>,
    pub idle: Option<u64>,
    /// Wall time of the simulation loop.
    pub sim_seconds: Option<f64>,
    /// The command that reproduces this run (empty where there is none: a sweep point's
    /// configuration exists only inside the sweep).
    #[serde(default)]
    pub repro: String,
    /// The failure report (empty when passed).
    pub details: String,
}

impl CosimRow {
    pub fn new(
        kernel: &str,
        case: &str,
        config: &str,
        mem: &str,
        c: &CosimCase,
        image: &KernelImage,
        repro: String,
    ) -> Self {
        let r = c.result.as_ref().ok();
        CosimRow {
            kernel: kernel.to_string(),
            case: case.to_string(),
            config: config.to_string(),
            mem: mem.to_string(),
            result: c.verdict().to_string(),
            cycles: r.map(|r| r.cycles),
            ipc: r.map(|r| r.ipc),
            ipc_per_sm: r.map(|r| r.ipc_per_sm()),
            issued: r.map(|r| r.issued()),
            bank_conflicts: r.map(|r| r.conflicts()),
            idle: r.map(|r| r.idle()),
            sim_seconds: r.map(|r| r.wall.as_secs_f64()),
            repro,
            details: c.details(image),
        }
    }

    /// A row that did not run (its RTL could not be built).
    pub fn not_run(kernel: &str, case: &str, config: &str, mem: &str, why: &str) -> Self {
        CosimRow {
            kernel: kernel.to_string(),
            case: case.to_string(),
            config: config.to_string(),
            mem: mem.to_string(),
            result: "build".to_string(),
            cycles: None,
            ipc: None,
            ipc_per_sm: None,
            issued: None,
            bank_conflicts: None,
            idle: None,
            sim_seconds: None,
            repro: String::new(),
            details: why.to_string(),
        }
    }

    pub fn passed(&self) -> bool {
        self.result == "pass"
    }
}

/// The regression table: one line per run, columns as wide as their widest cell.
pub fn regress_table(rows: &[CosimRow]) -> String {
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    let mut cells: Vec<[String; 10]> = vec![[
        "kernel".into(),
        "case".into(),
        "config".into(),
        "mem".into(),
        "result".into(),
        "cycles".into(),
        "IPC/SM".into(),
        "IPC(all SMs)".into(),
        "bank-conflicts".into(),
        "idle".into(),
    ]];
    for r in rows {
        cells.push([
            r.kernel.clone(),
            r.case.clone(),
            r.config.clone(),
            r.mem.clone(),
            if r.passed() {
                "pass".into()
            } else {
                format!("FAIL ({})", r.result)
            },
            opt(r.cycles),
            r.ipc_per_sm.map_or("-".into(), |v| format!("{v:.3}")),
            r.ipc.map_or("-".into(), |v| format!("{v:.3}")),
            opt(r.bank_conflicts),
            opt(r.idle),
        ]);
    }
    let mut w = [0usize; 10];
    for c in &cells {
        for (i, s) in c.iter().enumerate() {
            w[i] = w[i].max(s.chars().count());
        }
    }
    let mut s = String::new();
    for c in &cells {
        let mut line = String::new();
        for (i, cell) in c.iter().enumerate() {
            // Text columns left-aligned, numbers right-aligned.
            if i < 5 {
                let _ = write!(line, "{cell:<width$}  ", width = w[i]);
            } else {
                let _ = write!(line, "{cell:>width$}  ", width = w[i]);
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_word("vecadd"), "vecadd");
        assert_eq!(shell_word("buf:48:iota"), "buf:48:iota");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(
            command_line(&["warpforge", "cosim", "my kernel.c", "--mem", "random"]),
            "warpforge cosim 'my kernel.c' --mem random"
        );
    }

    #[test]
    fn table_layout() {
        let row = |k: &str, res: &str, cycles| CosimRow {
            kernel: k.into(),
            case: "grid=2 block=6".into(),
            config: "tiny".into(),
            mem: "zero".into(),
            result: res.into(),
            cycles,
            ipc: cycles.map(|c| 100.0 / c as f64),
            ipc_per_sm: cycles.map(|c| 50.0 / c as f64),
            issued: Some(100),
            bank_conflicts: Some(3),
            idle: Some(12),
            sim_seconds: Some(0.1),
            repro: String::new(),
            details: String::new(),
        };
        let t = regress_table(&[
            row("vecadd", "pass", Some(400)),
            row("reduce", "mismatch", None),
        ]);
        assert_eq!(
            t,
            "\
kernel  case            config  mem   result           cycles  IPC/SM  IPC(all SMs)  bank-conflicts  idle
vecadd  grid=2 block=6  tiny    zero  pass                400   0.125         0.250               3    12
reduce  grid=2 block=6  tiny    zero  FAIL (mismatch)       -       -             -               3    12
"
        );
    }
}
