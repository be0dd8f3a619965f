//! The sweep's outputs: `sweep.json` (everything), `sweep.csv` (one row per finished point),
//! the table on stdout, and the plots ([`super::plot`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{write_atomically, PointResult, Summary};
use crate::synth::parse::thousands;

/// Resources the table leaves out (the CSV and JSON keep them).
const NOT_IN_TABLE: &[&str] = &["PFUMX+L6MUX21", "logic cells (packed)"];

/// Every resource name of the finished points, in the reports' order.
pub fn resource_names(s: &Summary) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in &s.points {
        for r in &p.synth.resources {
            if !names.contains(&r.name) {
                names.push(r.name.clone());
            }
        }
    }
    names
}

/// Every tool that ran, in the reports' order.
fn tool_names(s: &Summary) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in ["yosys", "nextpnr"] {
        if s.points
            .iter()
            .any(|p| p.synth.tool_seconds.contains_key(t))
        {
            names.push(t.into());
        }
    }
    for p in &s.points {
        for t in p.synth.tool_seconds.keys() {
            if !names.contains(t) {
                names.push(t.clone());
            }
        }
    }
    names
}

/// A resource's name as a CSV column: `logic cells (packed)` → `logic_cells`.
pub fn column_name(resource: &str) -> String {
    resource
        .split(" (")
        .next()
        .unwrap_or(resource)
        .replace(' ', "_")
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn fixed(v: Option<f64>, digits: usize) -> String {
    v.map(|v| format!("{v:.digits$}")).unwrap_or_default()
}

/// The CSV: a header, then one row per finished point (in the product's order).
///
/// Columns: `index`, `id`, one per varied field, `fit`, each resource and its share of the
/// device (`NAME`, `NAME_pct`), `fmax_mhz`, `freq_target_mhz`, `fmax_met`, `critical_path_ns`,
/// `kernel`, `kernel_result`, `cycles`, `ipc`, `ipc_per_sm`, `time_us`, `luts_per_lane`, each
/// tool's wall seconds (`yosys_s`, `nextpnr_s`), `synth_cached`, `overflow`, `config_hash`,
/// `key`.
pub fn csv(s: &Summary) -> String {
    let res = resource_names(s);
    let has_pct = |name: &str| {
        s.points.iter().any(|p| {
            p.synth
                .resource(name)
                .is_some_and(|r| r.available.is_some())
        })
    };
    let tools = tool_names(s);
    let mut header: Vec<String> = vec!["index".into(), "id".into()];
    header.extend(s.vary.iter().map(|(f, _)| f.clone()));
    header.push("fit".into());
    for r in &res {
        header.push(column_name(r));
        if has_pct(r) {
            header.push(format!("{}_pct", column_name(r)));
        }
    }
    for h in [
        "fmax_mhz",
        "freq_target_mhz",
        "fmax_met",
        "critical_path_ns",
        "kernel",
        "kernel_result",
        "cycles",
        "ipc",
        "ipc_per_sm",
        "time_us",
        "luts_per_lane",
    ] {
        header.push(h.into());
    }
    header.extend(tools.iter().map(|t| format!("{t}_s")));
    for h in ["synth_cached", "overflow", "config_hash", "key"] {
        header.push(h.into());
    }
    let mut out = String::new();
    let _ = writeln!(out, "{}", header.join(","));
    for p in &s.points {
        let mut row: Vec<String> = vec![p.index.to_string(), p.id.clone()];
        for (f, _) in &s.vary {
            row.push(p.value(f).unwrap_or("").to_string());
        }
        row.push(p.synth.fit.clone());
        for r in &res {
            let x = p.synth.resource(r);
            row.push(opt(x.map(|x| x.used)));
            if has_pct(r) {
                row.push(fixed(x.and_then(|x| x.percent), 2));
            }
        }
        let k = p.kernel.as_ref();
        row.push(fixed(p.synth.fmax_mhz, 2));
        row.push(if p.synth.estimate {
            String::new()
        } else {
            p.synth.freq_target_mhz.to_string()
        });
        row.push(opt(p.synth.fmax_met));
        row.push(fixed(p.synth.critical_path_ns, 2));
        row.push(k.map(|k| k.kernel.clone()).unwrap_or_default());
        row.push(k.map(|k| k.result.clone()).unwrap_or_default());
        row.push(opt(k.and_then(|k| k.cycles)));
        row.push(fixed(k.and_then(|k| k.ipc), 4));
        row.push(fixed(k.and_then(|k| k.ipc_per_sm), 4));
        row.push(fixed(p.time_us, 3));
        row.push(fixed(p.luts_per_lane, 1));
        for t in &tools {
            row.push(fixed(p.synth.tool_seconds.get(t).copied(), 1));
        }
        row.push(p.synth.cached.to_string());
        row.push(p.synth.overflow.clone().unwrap_or_default());
        row.push(p.config_hash.clone());
        row.push(p.key.clone());
        let _ = writeln!(
            out,
            "{}",
            row.iter()
                .map(|c| csv_cell(c))
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    out
}

/// Columns as wide as their widest cell; the first `left` columns left-aligned.
fn layout(cells: &[Vec<String>], left: usize) -> String {
    let n = cells.iter().map(Vec::len).max().unwrap_or(0);
    let mut w = vec![0usize; n];
    for row in cells {
        for (i, c) in row.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut s = String::new();
    for row in cells {
        let mut line = String::new();
        for (i, c) in row.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i < left {
                let _ = write!(line, "{c}{}  ", " ".repeat(pad));
            } else {
                let _ = write!(line, "{}{c}  ", " ".repeat(pad));
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

/// The table on stdout: a line per finished point, then what is missing, skipped or failed.
pub fn table(s: &Summary) -> String {
    let res: Vec<String> = resource_names(s)
        .into_iter()
        .filter(|r| !NOT_IN_TABLE.contains(&r.as_str()))
        .collect();
    let with_pct = ["LUT4", "FF"];
    let placed = !s.estimate;
    let kernel = s.kernel.is_some();
    let tools = tool_names(s);
    let mut head: Vec<String> = vec!["point".into()];
    for r in &res {
        head.push(r.clone());
        if with_pct.contains(&r.as_str()) {
            head.push("%".into());
        }
    }
    if placed {
        head.push("Fmax MHz".into());
    }
    if kernel {
        head.extend(["cycles".into(), "IPC".into()]);
        if placed {
            head.push("time us".into());
        }
    }
    head.push("LUT4/lane".into());
    head.extend(tools.iter().map(|t| format!("{t} s")));
    let mut cells = vec![head];
    for p in &s.points {
        let mut row = vec![p.id.clone()];
        for r in &res {
            let x = p.synth.resource(r);
            row.push(x.map_or("-".into(), |x| thousands(x.used)));
            if with_pct.contains(&r.as_str()) {
                row.push(
                    x.and_then(|x| x.percent)
                        .map_or("-".into(), |v| format!("{v:.1}")),
                );
            }
        }
        if placed {
            row.push(match (&p.synth.overflow, p.synth.fmax_mhz) {
                (Some(_), _) => "no fit".into(),
                (None, Some(f)) => format!("{f:.1}"),
                _ => "-".into(),
            });
        }
        if let Some(k) = &p.kernel {
            row.push(match k.cycles {
                Some(c) if k.passed() => c.to_string(),
                _ => format!("FAIL ({})", k.result),
            });
            row.push(fixed(k.ipc, 3));
            if placed {
                row.push(p.time_us.map_or("-".into(), |t| format!("{t:.2}")));
            }
        } else if kernel {
            row.extend(["-".into(), "-".into()]);
            if placed {
                row.push("-".into());
            }
        }
        row.push(p.luts_per_lane.map_or("-".into(), |v| format!("{v:.0}")));
        for t in &tools {
            row.push(
                p.synth
                    .tool_seconds
                    .get(t)
                    .map_or("-".into(), |v| format!("{v:.0}")),
            );
        }
        cells.push(row);
    }
    let mut out = format!(
        "{} on {} — {}{}\n",
        s.base_name,
        s.device,
        if s.estimate {
            "yosys estimate: LUT4s without carry chains, memories not mapped, no placement and no Fmax".to_string()
        } else {
            format!(
                "place and route, seed {}, clock constraint {} MHz",
                s.seed, s.freq_target_mhz
            )
        },
        match &s.kernel {
            Some(k) => format!("; kernel {k}"),
            None => String::new(),
        }
    );
    out.push_str(&layout(&cells, 1));
    for p in &s.points {
        if let Some(o) = &p.synth.overflow {
            let _ = writeln!(out, "{} does not fit: {o}", p.id);
        }
        if let Some(k) = p.kernel.as_ref().filter(|k| !k.passed()) {
            let _ = writeln!(
                out,
                "{}: kernel {} {}: {}",
                p.id,
                k.kernel,
                k.result,
                k.details.lines().next().unwrap_or("")
            );
        }
    }
    let _ = writeln!(
        out,
        "{} of {} points finished{}",
        s.finished,
        s.points_total,
        if s.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} skipped as invalid", s.skipped.len())
        }
    );
    for e in &s.errors {
        let _ = writeln!(out, "FAILED {}: {}", e.id, e.error);
    }
    let waiting: Vec<&String> = s
        .missing
        .iter()
        .filter(|m| !s.errors.iter().any(|e| &e.id == *m))
        .collect();
    if !waiting.is_empty() {
        let _ = writeln!(
            out,
            "not run yet ({}): {} (other shards, or an interrupted run: run the sweep again)",
            waiting.len(),
            waiting
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    out
}

/// Write `sweep.json`, `sweep.csv` and the plots into `dir`; the files written, and why the
/// plots were not when they were not (no font for their text).
pub fn write_all(dir: &Path, s: &Summary) -> Result<(Vec<PathBuf>, Option<String>)> {
    let mut files = Vec::new();
    let json = dir.join("sweep.json");
    write_atomically(&json, serde_json::to_string_pretty(s)?.as_bytes())?;
    files.push(json);
    let csv_path = dir.join("sweep.csv");
    write_atomically(&csv_path, csv(s).as_bytes())?;
    files.push(csv_path);
    let mut note = None;
    if s.points.is_empty() {
        note = Some("no finished point: no plots".to_string());
    } else {
        match super::plot::write_plots(dir, s) {
            Ok(p) => files.extend(p),
            Err(super::plot::PlotError::NoFont(why)) => note = Some(why),
            Err(super::plot::PlotError::Other(e)) => return Err(e),
        }
    }
    Ok((files, note))
}

/// The finished point with this id.
pub fn point<'a>(s: &'a Summary, id: &str) -> Option<&'a PointResult> {
    s.points.iter().find(|p| p.id == id)
}
