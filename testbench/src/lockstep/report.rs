//! Failure reports of the lock-step runner: the first mismatch between the RTL and the model,
//! and the watchdog reports (cycle limit, hang).

use std::fmt::{self, Write as _};
use std::path::PathBuf;

use crate::memory_model::MemorySettings;

/// What the runner was looking at when the RTL and the model disagreed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// `tr_issue_*`: PC, instruction, mask, or the model could not issue that warp.
    Issue,
    /// `tr_wb_*`: destination, mask, lane values, or an unknown tag.
    Writeback,
    /// `tr_st_*`: size, mask, lane addresses and data, or an unknown tag.
    Store,
    /// `tr_cta_*`: CTA id and warp slots.
    CtaLaunch,
    /// `fault*`: the RTL's fault report against the model's.
    Fault,
    /// `done`: the end-of-kernel checks (model finished, nothing pending, global memory).
    Done,
    /// A request on a memory port that breaks the protocol.
    MemoryPort,
    /// `cycle_count` or an SM's `ctr_*` against the events counted since reset.
    Counters,
}

impl RecordKind {
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Issue => "issue",
            RecordKind::Writeback => "writeback",
            RecordKind::Store => "store",
            RecordKind::CtaLaunch => "CTA launch",
            RecordKind::Fault => "fault",
            RecordKind::Done => "end of kernel",
            RecordKind::MemoryPort => "memory port",
            RecordKind::Counters => "counters",
        }
    }
}

/// One cell of the expected-vs-actual table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A number, printed as `0x` and `digits` hex digits.
    Hex(u64, u8),
    /// The lane is not in this side's mask (`-`).
    Masked,
    /// Anything else (register names, fault causes, "none").
    Text(String),
}

impl Value {
    pub fn word(v: u32) -> Value {
        Value::Hex(u64::from(v), 8)
    }

    /// The number, if this is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Hex(v, _) => Some(*v),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Hex(v, d) => write!(f, "0x{v:0w$x}", w = *d as usize),
            Value::Masked => f.write_str("-"),
            Value::Text(t) => f.write_str(t),
        }
    }
}

/// One differing field (per lane for lane values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    /// `pc`, `instr`, `mask`, `rd`, `value`, `size`, `addr`, `data`, `cta`, `warps`, `cause`,
    /// `memory`, ...
    pub field: String,
    pub lane: Option<u32>,
    /// The model's value.
    pub expected: Value,
    /// The RTL's value.
    pub actual: Value,
}

impl FieldDiff {
    pub fn new(field: &str, lane: Option<u32>, expected: Value, actual: Value) -> Self {
        FieldDiff {
            field: field.to_string(),
            lane,
            expected,
            actual,
        }
    }
}

/// Where a run came from: printed at the end of every failure report.
#[derive(Clone, Debug, PartialEq)]
pub struct RunContext {
    pub config_name: String,
    pub config_hash: String,
    pub mem: MemorySettings,
    /// A VCD of the window around the failure, if one was written.
    pub vcd: Option<PathBuf>,
    /// Why no VCD is there (not requested, or writing it failed).
    pub vcd_note: Option<String>,
    /// The one-line command that reproduces the run.
    pub repro: String,
}

impl RunContext {
    fn write_footer(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  configuration: {} (hash {})",
            self.config_name, self.config_hash
        )?;
        writeln!(f, "  memory: {}", self.mem)?;
        match (&self.vcd, &self.vcd_note) {
            (Some(p), Some(n)) => writeln!(f, "  VCD: {} ({n})", p.display())?,
            (Some(p), None) => writeln!(f, "  VCD: {}", p.display())?,
            (None, Some(n)) => writeln!(f, "  VCD: none ({n})")?,
            (None, None) => writeln!(f, "  VCD: none")?,
        }
        write!(f, "  reproduce: {}", self.repro)
    }
}

/// The first disagreement between the RTL and the model.
#[derive(Clone, Debug, PartialEq)]
pub struct MismatchReport {
    /// Cycles since reset in the failing cycle (the RTL's `cycle_count` less the counter base).
    pub cycle: u64,
    /// Cycles since the `start` pulse (the pulse's cycle is 0).
    pub kernel_cycle: u64,
    pub kind: RecordKind,
    pub sm: Option<u32>,
    pub warp: Option<u32>,
    pub tag: Option<u32>,
    /// One line: what disagreed.
    pub summary: String,
    /// The instruction concerned, disassembled, with its issue cycle and mask.
    pub instruction: Option<String>,
    /// Only the differing fields / lanes.
    pub fields: Vec<FieldDiff>,
    /// Further explanation (unfinished warps, pending tags, memory differences, ...).
    pub notes: Vec<String>,
    /// The last matching commits, oldest first (at most 16).
    pub history: Vec<String>,
    pub context: RunContext,
}

impl MismatchReport {
    /// The first differing field called `field` (and lane, if given).
    pub fn field(&self, field: &str, lane: Option<u32>) -> Option<&FieldDiff> {
        self.fields
            .iter()
            .find(|d| d.field == field && (lane.is_none() || d.lane == lane))
    }
}

/// Format rows as columns separated by two spaces, each as wide as its widest cell.
fn table(rows: &[Vec<String>], indent: &str) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for r in rows {
        let mut line = String::from(indent);
        for (c, cell) in r.iter().enumerate() {
            if c + 1 == r.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<w$}  ", w = widths[c]);
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

impl fmt::Display for MismatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "co-simulation MISMATCH at cycle {} (kernel cycle {}), {} record",
            self.cycle,
            self.kernel_cycle,
            self.kind.name()
        )?;
        let mut who = Vec::new();
        if let Some(s) = self.sm {
            who.push(format!("SM {s}"));
        }
        if let Some(w) = self.warp {
            who.push(format!("warp {w}"));
        }
        if let Some(t) = self.tag {
            who.push(format!("tag {t}"));
        }
        if !who.is_empty() {
            write!(f, ", {}", who.join(", "))?;
        }
        writeln!(f, ": {}", self.summary)?;
        if let Some(i) = &self.instruction {
            writeln!(f, "  instruction: {i}")?;
        }
        if !self.fields.is_empty() {
            let mut rows = vec![vec![
                "field".to_string(),
                "lane".to_string(),
                "expected (model)".to_string(),
                "actual (RTL)".to_string(),
            ]];
            for d in &self.fields {
                rows.push(vec![
                    d.field.clone(),
                    d.lane.map_or("-".to_string(), |l| l.to_string()),
                    d.expected.to_string(),
                    d.actual.to_string(),
                ]);
            }
            f.write_str(&table(&rows, "    "))?;
        }
        for n in &self.notes {
            for (i, line) in n.lines().enumerate() {
                let lead = if i == 0 { "  note: " } else { "        " };
                writeln!(f, "{lead}{line}")?;
            }
        }
        if self.history.is_empty() {
            writeln!(f, "  no matching commit before the mismatch")?;
        } else {
            writeln!(
                f,
                "  last {} matching commits (oldest first):",
                self.history.len()
            )?;
            for h in &self.history {
                writeln!(f, "    {h}")?;
            }
        }
        self.context.write_footer(f)
    }
}

/// A live warp in a watchdog report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveWarp {
    pub sm: u32,
    pub warp: u32,
    pub cta: Option<u32>,
    pub pc: u32,
    pub mask: u32,
    pub at_barrier: bool,
    /// `pc` described against the kernel's functions.
    pub where_: String,
}

/// The cycle limit was reached, or the RTL stopped producing trace records.
#[derive(Clone, Debug, PartialEq)]
pub struct StallReport {
    /// Cycles since reset: the RTL's `cycle_count` less the counter base.
    pub cycle: u64,
    pub kernel_cycle: u64,
    /// The limit that was hit (max cycles, or the hang window).
    pub limit: u64,
    /// Kernel cycle of the last trace record.
    pub last_record: u64,
    pub busy: bool,
    /// The model's unfinished warps (empty when not checking).
    pub warps: Vec<LiveWarp>,
    /// Issued instructions whose writeback or store record has not come, per line.
    pub pending: Vec<String>,
    /// Reads accepted by each SM's memory port and not yet answered.
    pub outstanding_reads: Vec<usize>,
    pub ctas_launched: u64,
    pub context: RunContext,
}

impl StallReport {
    fn write_body(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  RTL busy = {}, {} CTAs launched, last trace record at kernel cycle {}",
            u8::from(self.busy),
            self.ctas_launched,
            self.last_record
        )?;
        if !self.warps.is_empty() {
            writeln!(f, "  unfinished warps (model):")?;
            for w in &self.warps {
                writeln!(
                    f,
                    "    SM {} warp {}: CTA {}, pc {}, mask 0x{:08x}{}",
                    w.sm,
                    w.warp,
                    w.cta.map_or("-".to_string(), |c| c.to_string()),
                    w.where_,
                    w.mask,
                    if w.at_barrier {
                        " (waiting at barrier)"
                    } else {
                        ""
                    }
                )?;
            }
        }
        if !self.pending.is_empty() {
            writeln!(f, "  issued, no writeback/store record yet:")?;
            for p in &self.pending {
                writeln!(f, "    {p}")?;
            }
        }
        for (sm, &n) in self.outstanding_reads.iter().enumerate() {
            if n > 0 {
                writeln!(f, "  SM {sm} memory port: {n} reads waiting for a response")?;
            }
        }
        self.context.write_footer(f)
    }
}

/// Why a co-simulation did not complete.
#[derive(Debug, thiserror::Error)]
pub enum CosimError {
    /// The RTL could not be generated, verilated, compiled or loaded, or its ports differ from
    /// the spec; or the run could not be set up (launch refused by the model).
    #[error("co-simulation setup failed: {0}")]
    Build(String),
    /// The RTL and the model disagree.
    #[error("{0}")]
    Mismatch(Box<MismatchReport>),
    /// `max_cycles` reached.
    #[error("{}", TimeoutDisplay(.0))]
    Timeout(Box<StallReport>),
    /// No trace record for the hang window.
    #[error("{}", HangDisplay(.0))]
    Hang(Box<StallReport>),
}

impl CosimError {
    /// The mismatch report, if this is a mismatch.
    pub fn mismatch(&self) -> Option<&MismatchReport> {
        match self {
            CosimError::Mismatch(m) => Some(m),
            _ => None,
        }
    }

    /// One word for tables: `build`, `mismatch`, `timeout`, `hang`.
    pub fn kind(&self) -> &'static str {
        match self {
            CosimError::Build(_) => "build",
            CosimError::Mismatch(_) => "mismatch",
            CosimError::Timeout(_) => "timeout",
            CosimError::Hang(_) => "hang",
        }
    }
}

struct TimeoutDisplay<'a>(&'a StallReport);

impl fmt::Display for TimeoutDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        writeln!(
            f,
            "co-simulation TIMEOUT: the kernel did not finish within {} cycles (at cycle {})",
            s.limit, s.cycle
        )?;
        s.write_body(f)
    }
}

struct HangDisplay<'a>(&'a StallReport);

impl fmt::Display for HangDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        writeln!(
            f,
            "co-simulation HANG: no trace record for {} cycles (at cycle {}, kernel cycle {})",
            s.limit, s.cycle, s.kernel_cycle
        )?;
        s.write_body(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> RunContext {
        RunContext {
            config_name: "tiny".into(),
            config_hash: "0123456789abcdef".into(),
            mem: MemorySettings::random().with_seed(7),
            vcd: Some(PathBuf::from("/tmp/wf/warpforge_top-c1234.vcd")),
            vcd_note: Some("cycles 1034..1239".into()),
            repro: "warpforge cosim vecadd --config tiny --mem random --seed 7".into(),
        }
    }

    #[test]
    fn mismatch_report_layout() {
        let r = MismatchReport {
            cycle: 1234,
            kernel_cycle: 1200,
            kind: RecordKind::Writeback,
            sm: Some(0),
            warp: Some(2),
            tag: Some(3),
            summary: "lane values differ".into(),
            instruction: Some(
                "0x00000040 <kernel+0x10>  sub a0,a1,a2  (issued at cycle 1228, mask 0x0000000f)"
                    .into(),
            ),
            fields: vec![
                FieldDiff::new("value", Some(1), Value::word(5), Value::word(4)),
                FieldDiff::new("value", Some(3), Value::word(7), Value::Masked),
            ],
            notes: vec!["first line\nsecond line".into()],
            history: vec![
                "c1220 sm0 w1 t0 0x0000003c <kernel+0xc>  1111  add a1,a1,a2  a1 = 1 2 3 4".into(),
            ],
            context: context(),
        };
        let expected = "\
co-simulation MISMATCH at cycle 1234 (kernel cycle 1200), writeback record, SM 0, warp 2, tag 3: lane values differ
  instruction: 0x00000040 <kernel+0x10>  sub a0,a1,a2  (issued at cycle 1228, mask 0x0000000f)
    field  lane  expected (model)  actual (RTL)
    value  1     0x00000005        0x00000004
    value  3     0x00000007        -
  note: first line
        second line
  last 1 matching commits (oldest first):
    c1220 sm0 w1 t0 0x0000003c <kernel+0xc>  1111  add a1,a1,a2  a1 = 1 2 3 4
  configuration: tiny (hash 0123456789abcdef)
  memory: random (latency 1..=50, bandwidth unlimited, back-pressure 0.30, seed 7)
  VCD: /tmp/wf/warpforge_top-c1234.vcd (cycles 1034..1239)
  reproduce: warpforge cosim vecadd --config tiny --mem random --seed 7";
        assert_eq!(r.to_string(), expected);
        assert_eq!(r.field("value", Some(1)).unwrap().actual.as_u64(), Some(4));
        let e = CosimError::Mismatch(Box::new(r));
        assert_eq!(e.kind(), "mismatch");
        assert!(e
            .to_string()
            .starts_with("co-simulation MISMATCH at cycle 1234"));
    }

    #[test]
    fn stall_reports() {
        let s = StallReport {
            cycle: 5020,
            kernel_cycle: 5000,
            limit: 5000,
            last_record: 4990,
            busy: true,
            warps: vec![LiveWarp {
                sm: 0,
                warp: 1,
                cta: Some(0),
                pc: 0x20,
                mask: 0xf,
                at_barrier: true,
                where_: "0x00000020 <kernel+0x8>".into(),
            }],
            pending: vec![
                "SM 0 tag 2: warp 1 pc 0x0000001c lw a0,0(a1) issued at cycle 4000".into(),
            ],
            outstanding_reads: vec![3],
            ctas_launched: 1,
            context: RunContext {
                vcd: None,
                vcd_note: Some("pass --vcd DIR to write one".into()),
                ..context()
            },
        };
        let t = CosimError::Timeout(Box::new(s.clone())).to_string();
        assert!(t.starts_with(
            "co-simulation TIMEOUT: the kernel did not finish within 5000 cycles (at cycle 5020)\n  RTL busy = 1, 1 CTAs launched"
        ), "{t}");
        assert!(t.contains("    SM 0 warp 1: CTA 0, pc 0x00000020 <kernel+0x8>, mask 0x0000000f (waiting at barrier)\n"), "{t}");
        assert!(
            t.contains("  SM 0 memory port: 3 reads waiting for a response\n"),
            "{t}"
        );
        assert!(
            t.contains("  VCD: none (pass --vcd DIR to write one)\n"),
            "{t}"
        );
        let h = CosimError::Hang(Box::new(s)).to_string();
        assert!(
            h.starts_with("co-simulation HANG: no trace record for 5000 cycles"),
            "{h}"
        );
        assert!(
            h.ends_with("reproduce: warpforge cosim vecadd --config tiny --mem random --seed 7")
        );
    }
}
