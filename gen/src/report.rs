//! Text and JSON output of the CLI: tables, traces, dumps. Plain text on stdout, machine-readable
//! files beside it.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;
use warpforge_config::GpuConfig;
use warpforge_isa::{disassemble, Reconvergence};
use warpforge_kernels::Case;
use warpforge_loader::KernelImage;
use warpforge_sim::{Commit, Fault, RunOutcome, Stats};

use crate::host::CaseResult;

/// The kernel text with function labels and the reconvergence point of every branch.
pub fn disassembly(image: &KernelImage) -> String {
    let mut s = String::new();
    for (i, &w) in image.text.iter().enumerate() {
        let pc = i as u32 * 4;
        if let Some(f) = image.functions.iter().find(|f| f.start == pc) {
            let _ = writeln!(s, "\n{:08x} <{}>:", pc, f.name);
        }
        let rc = match image.sidecar[i] {
            Reconvergence::None => String::new(),
            Reconvergence::At(r) => format!("    # reconverge at {r:#x}"),
            Reconvergence::AtReturn => "    # reconverge at return (ra)".into(),
            Reconvergence::Never => "    # paths never reconverge".into(),
        };
        let _ = writeln!(s, "{pc:8x}:  {w:08x}  {}{rc}", disassemble(w, pc));
    }
    s
}

/// One executed warp-instruction: `SM/warp pc mask instr -> rd = lane values`.
pub fn commit_line(c: &Commit, image: &KernelImage, lanes: u32) -> String {
    let mut s = format!(
        "sm{} w{:<2} {:<28} {:0width$b}  {:<28}",
        c.sm,
        c.warp,
        image.describe_pc(c.pc),
        c.mask.reverse_bits() >> (32 - lanes),
        disassemble(c.instr, c.pc),
        width = lanes as usize
    );
    if let Some(rd) = c.dest {
        let _ = write!(s, " {} =", warpforge_isa::REG_NAMES[rd as usize]);
        for l in 0..lanes as usize {
            if c.mask >> l & 1 != 0 {
                let _ = write!(s, " {:x}", c.values[l]);
            } else {
                s.push_str(" -");
            }
        }
    }
    if let Some(st) = &c.store {
        let _ = write!(s, " store{}", st.size * 8);
        for l in 0..lanes as usize {
            if st.mask >> l & 1 != 0 {
                let _ = write!(s, " [{:x}]={:x}", st.addr[l], st.data[l]);
            }
        }
    }
    if let Some(f) = &c.fault {
        let _ = write!(s, " FAULT {}", f.cause);
    }
    s
}

/// The fault as a user reads it: SM, warp, pc with its function, cause, address, lane and
/// instruction; then, on a second line, the hint of [`Fault::hint`] where there is one.
pub fn fault_line(f: &Fault, image: &KernelImage) -> String {
    let mut s = format!(
        "fault on SM {}, warp {}, pc {}: {}",
        f.sm,
        f.warp,
        image.describe_pc(f.pc),
        f.cause
    );
    if let Some(a) = f.addr {
        let _ = write!(s, " (address 0x{a:08x})");
    }
    if let Some(l) = f.lane {
        let _ = write!(s, " in lane {l}");
    }
    let instr = image.instr_at(f.pc);
    if let Some(w) = instr {
        let _ = write!(s, "; instruction: {}", disassemble(w, f.pc));
    }
    if let Some(hint) = f.hint(instr) {
        let _ = write!(s, "\n  hint: {hint}");
    }
    s
}

pub fn stats_table(st: &Stats, lanes: u32, elapsed: Duration) -> String {
    let mut s = String::new();
    let rows: [(&str, String); 10] = [
        ("cycles (model rounds)", st.cycles.to_string()),
        ("warp-instructions", st.warp_instrs.to_string()),
        ("thread-instructions", st.thread_instrs.to_string()),
        (
            "SIMD efficiency",
            format!("{:.1}%", 100.0 * st.simd_efficiency(lanes)),
        ),
        ("divergent branches", st.divergent_branches.to_string()),
        ("divergent indirect calls", st.divergent_calls.to_string()),
        ("max SIMT stack depth", st.max_stack_depth.to_string()),
        ("barriers released", st.barriers.to_string()),
        ("CTAs completed", st.ctas_done.to_string()),
        ("model time", format!("{:.3} s", elapsed.as_secs_f64())),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "  {k:<26} {v}");
    }
    s
}

pub fn hexdump(addr: u32, bytes: &[u8]) -> String {
    let mut s = String::new();
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(s, "{:08x}:", addr as usize + i * 16);
        for w in chunk.chunks(4) {
            let mut b = [0u8; 4];
            b[..w.len()].copy_from_slice(w);
            let _ = write!(s, " {:08x}", u32::from_le_bytes(b));
        }
        s.push('\n');
    }
    s
}

pub fn stats_json(
    kernel: &str,
    cfg: &GpuConfig,
    case: &Case,
    st: &Stats,
    outcome: &RunOutcome,
) -> String {
    let outcome = match outcome {
        RunOutcome::Finished => "finished".to_string(),
        RunOutcome::Fault(f) => f.to_string(),
        RunOutcome::Timeout(_) => "timeout".to_string(),
    };
    serde_json::json!({
        "kernel": kernel,
        "config": cfg.name,
        "grid": case.grid,
        "block": case.block,
        "outcome": outcome,
        "cycles": st.cycles,
        "warp_instructions": st.warp_instrs,
        "thread_instructions": st.thread_instrs,
        "simd_efficiency": st.simd_efficiency(cfg.lanes),
        "divergent_branches": st.divergent_branches,
        "divergent_calls": st.divergent_calls,
        "max_stack_depth": st.max_stack_depth,
        "barriers": st.barriers,
        "ctas": st.ctas_done,
    })
    .to_string()
}

/// One line of `warpforge suite`.
#[derive(Debug, Serialize)]
pub struct SuiteRow {
    pub kernel: String,
    pub case: String,
    pub result: String,
    pub warp_instructions: u64,
    pub simd_efficiency: f64,
    pub divergent_branches: u64,
    pub max_stack_depth: u32,
    pub millis: f64,
}

impl SuiteRow {
    pub fn new(kernel: &str, case: &Case, r: &CaseResult, lanes: u32, t: Duration) -> Self {
        let result = match (&r.outcome, r.mismatches.first(), &r.fault_check) {
            (RunOutcome::Timeout(t), ..) => format!("FAIL: timeout after {} cycles", t.cycles),
            (_, _, Err(why)) => format!("FAIL: {why}"),
            (RunOutcome::Finished, Some(m), _) => format!("FAIL: {m}"),
            (RunOutcome::Finished, None, _) => "pass".to_string(),
            (RunOutcome::Fault(f), ..) => format!("pass (the expected fault: {f})"),
        };
        SuiteRow {
            kernel: kernel.to_string(),
            case: case.label.clone(),
            result,
            warp_instructions: r.stats.warp_instrs,
            simd_efficiency: r.stats.simd_efficiency(lanes),
            divergent_branches: r.stats.divergent_branches,
            max_stack_depth: r.stats.max_stack_depth,
            millis: t.as_secs_f64() * 1e3,
        }
    }
}

pub fn suite_table(rows: &[SuiteRow]) -> String {
    let mut s = format!(
        "{:<18} {:<26} {:>10} {:>6} {:>6} {:>5}  {}\n",
        "kernel", "case", "warp-inst", "SIMD%", "div-br", "stack", "result"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<18} {:<26} {:>10} {:>6.1} {:>6} {:>5}  {}",
            r.kernel,
            r.case,
            r.warp_instructions,
            100.0 * r.simd_efficiency,
            r.divergent_branches,
            r.max_stack_depth,
            r.result
        );
    }
    s
}
