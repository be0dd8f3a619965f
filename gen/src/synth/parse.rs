//! Parsers of the tools' outputs: yosys `stat -json`, nextpnr-ecp5's log and its `--report`
//! JSON (utilisation, Fmax per clock, critical paths). Tested against outputs of real runs
//! checked in under gen/tests/data/synth/.

use std::collections::BTreeMap;

use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};

/// Cell counts of the top (flattened) design from yosys `stat -json`.
pub fn yosys_cells(stat_json: &str) -> Result<BTreeMap<String, u64>> {
    let v: serde_json::Value =
        serde_json::from_str(stat_json).context("yosys `stat -json` output is not JSON")?;
    let cells = v
        .pointer("/design/num_cells_by_type")
        .or_else(|| {
            // A single module: its own counts (older yosys has no "design" section then).
            v.get("modules")
                .and_then(|m| m.as_object())
                .filter(|m| m.len() == 1)
                .and_then(|m| m.values().next())
                .and_then(|m| m.get("num_cells_by_type"))
        })
        .and_then(|c| c.as_object())
        .ok_or_else(|| anyhow!("yosys `stat -json` output has no design.num_cells_by_type"))?;
    cells
        .iter()
        .map(|(k, n)| {
            Ok((
                k.clone(),
                n.as_u64()
                    .ok_or_else(|| anyhow!("yosys stat: count of {k} is not a number"))?,
            ))
        })
        .collect()
}

/// Memories and memory bits from yosys `stat -json` (before memories are mapped).
pub fn yosys_memories(stat_json: &str) -> Result<(u64, u64)> {
    let v: serde_json::Value =
        serde_json::from_str(stat_json).context("yosys `stat -json` output is not JSON")?;
    let d = v
        .get("design")
        .ok_or_else(|| anyhow!("yosys `stat -json` output has no design section"))?;
    let n = |k: &str| d.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
    Ok((n("num_memories"), n("num_memory_bits")))
}

/// One line of nextpnr's "Device utilisation" table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Utilisation {
    pub bel: String,
    pub used: u64,
    pub available: u64,
}

impl Utilisation {
    pub fn percent(&self) -> f64 {
        if self.available == 0 {
            0.0
        } else {
            100.0 * self.used as f64 / self.available as f64
        }
    }
}

/// Fmax of one clock domain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockFmax {
    pub clock: String,
    pub fmax_mhz: f64,
    pub target_mhz: f64,
    pub passed: bool,
}

/// What nextpnr's log says.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NextpnrLog {
    /// The last "Device utilisation" table (nextpnr prints it once, after packing).
    pub utilisation: Vec<Utilisation>,
    /// "Logic utilisation before packing": (what, used, available), e.g. ("Total LUT4s", ..).
    pub logic_before_packing: Vec<(String, u64, u64)>,
    /// The last "Max frequency for clock" line of each clock (after routing).
    pub fmax: Vec<ClockFmax>,
    /// Every `ERROR:` line.
    pub errors: Vec<String>,
}

/// Parse nextpnr's log (`-l FILE` or its stderr).
pub fn nextpnr_log(log: &str) -> NextpnrLog {
    let mut out = NextpnrLog::default();
    let mut in_util = false;
    let mut in_logic = false;
    for raw in log.lines() {
        let line = raw.trim_end();
        let body = line
            .strip_prefix("Info:")
            .or_else(|| line.strip_prefix("Warning:"))
            .unwrap_or(line)
            .trim();
        if line.starts_with("ERROR:") {
            out.errors
                .push(line.trim_start_matches("ERROR:").trim().to_string());
            continue;
        }
        if body.starts_with("Device utilisation") {
            in_util = true;
            out.utilisation.clear();
            continue;
        }
        if body.starts_with("Logic utilisation before packing") {
            in_logic = true;
            out.logic_before_packing.clear();
            continue;
        }
        if in_util || in_logic {
            // "TRELLIS_COMB: 30682/ 83640    36%" or "Total LUT4s:  44/83640     0%"
            if let Some((name, used, avail)) = used_of(body) {
                if in_util {
                    out.utilisation.push(Utilisation {
                        bel: name,
                        used,
                        available: avail,
                    });
                } else {
                    out.logic_before_packing.push((name, used, avail));
                }
                continue;
            }
            if body.is_empty() && in_logic {
                // A blank line inside the logic table separates LUTs from DFFs.
                continue;
            }
            in_util = false;
            in_logic = false;
        }
        if let Some(f) = fmax_line(body) {
            out.fmax.retain(|c| c.clock != f.clock);
            out.fmax.push(f);
        }
    }
    out
}

/// `NAME: USED/ AVAIL  PCT%` → (NAME, USED, AVAIL).
fn used_of(body: &str) -> Option<(String, u64, u64)> {
    let (name, rest) = body.rsplit_once(':')?;
    let (used, rest) = rest.split_once('/')?;
    let avail = rest.split_whitespace().next()?;
    Some((
        name.trim().to_string(),
        used.trim().parse().ok()?,
        avail.trim().parse().ok()?,
    ))
}

/// `Max frequency for clock '$glbnet$clk': 28.12 MHz (FAIL at 100.00 MHz)`.
fn fmax_line(body: &str) -> Option<ClockFmax> {
    let rest = body.strip_prefix("Max frequency for clock")?.trim();
    let rest = rest.strip_prefix('\'')?;
    let (clock, rest) = rest.split_once('\'')?;
    let rest = rest.trim_start_matches(':').trim();
    let (mhz, rest) = rest.split_once("MHz")?;
    let fmax_mhz: f64 = mhz.trim().parse().ok()?;
    let passed = rest.contains("PASS");
    let target_mhz = rest
        .split("at")
        .nth(1)
        .and_then(|t| t.split("MHz").next())
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(f64::NAN);
    Some(ClockFmax {
        clock: clock.to_string(),
        fmax_mhz,
        target_mhz,
        passed,
    })
}

/// The critical path of one clock domain, reduced to the design units it crosses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriticalPath {
    pub from_clock: String,
    pub to_clock: String,
    pub delay_ns: f64,
    pub logic_ns: f64,
    pub routing_ns: f64,
    /// Start and end cells as nextpnr names them.
    pub start_cell: String,
    pub end_cell: String,
    /// Cells on the path (each once, in order).
    pub cells: usize,
    /// Instance paths of the units crossed, consecutive repeats removed (`sm$0.collector`);
    /// cells of the wrapper itself are `(wrapper)`.
    pub units: Vec<String>,
}

/// What nextpnr's `--report` JSON says.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NextpnrReport {
    pub utilisation: Vec<Utilisation>,
    pub fmax: Vec<ClockFmax>,
    pub critical_paths: Vec<CriticalPath>,
}

/// Parse nextpnr's `--report` JSON. `dut` is the instance name of the wrapped design in the
/// wrapper (its prefix is removed from unit paths), `top` the wrapped module's name (the unit
/// of its own cells); `registers` the names of the wrapped design's register modules (see
/// [`register_modules`]), whose instances are folded into the unit that holds them.
pub fn nextpnr_report(
    json: &str,
    dut: &str,
    top: &str,
    registers: &[String],
) -> Result<NextpnrReport> {
    let v: serde_json::Value =
        serde_json::from_str(json).context("nextpnr's --report file is not JSON")?;
    let mut out = NextpnrReport::default();
    if let Some(u) = v.get("utilization").and_then(|u| u.as_object()) {
        for (bel, x) in u {
            out.utilisation.push(Utilisation {
                bel: bel.clone(),
                used: x.get("used").and_then(|n| n.as_u64()).unwrap_or(0),
                available: x.get("available").and_then(|n| n.as_u64()).unwrap_or(0),
            });
        }
    }
    if let Some(f) = v.get("fmax").and_then(|f| f.as_object()) {
        for (clock, x) in f {
            let achieved = x.get("achieved").and_then(|n| n.as_f64()).unwrap_or(0.0);
            let constraint = x
                .get("constraint")
                .and_then(|n| n.as_f64())
                .unwrap_or(f64::NAN);
            out.fmax.push(ClockFmax {
                clock: clock.clone(),
                fmax_mhz: achieved,
                target_mhz: constraint,
                passed: achieved >= constraint,
            });
        }
    }
    if let Some(paths) = v.get("critical_paths").and_then(|p| p.as_array()) {
        for p in paths {
            out.critical_paths
                .push(critical_path(p, dut, top, registers)?);
        }
    }
    Ok(out)
}

fn critical_path(
    p: &serde_json::Value,
    dut: &str,
    top: &str,
    registers: &[String],
) -> Result<CriticalPath> {
    let s = |k: &str| p.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
    let segs = p
        .get("path")
        .and_then(|x| x.as_array())
        .ok_or_else(|| anyhow!("nextpnr report: a critical path without `path`"))?;
    let (mut logic, mut routing) = (0.0, 0.0);
    let mut cells: Vec<String> = Vec::new();
    for seg in segs {
        let d = seg.get("delay").and_then(|x| x.as_f64()).unwrap_or(0.0);
        match seg.get("type").and_then(|x| x.as_str()) {
            Some("routing") => routing += d,
            _ => logic += d,
        }
        for end in ["from", "to"] {
            if let Some(c) = seg
                .pointer(&format!("/{end}/cell"))
                .and_then(|x| x.as_str())
            {
                if cells.last().map(String::as_str) != Some(c) {
                    cells.push(c.to_string());
                }
            }
        }
    }
    let mut units: Vec<String> = Vec::new();
    // Cells named by a tool (`$nextpnr_CCU2C_21`, `$abc$..`) carry no hierarchy: skipped.
    for c in cells
        .iter()
        .filter(|c| !c.trim_start_matches('\\').starts_with('$'))
    {
        let u = fold_register(unit_of(c, dut, top), top, registers);
        if units.last() != Some(&u) {
            units.push(u);
        }
    }
    Ok(CriticalPath {
        from_clock: s("from"),
        to_clock: s("to"),
        delay_ns: logic + routing,
        logic_ns: logic,
        routing_ns: routing,
        start_cell: cells.first().cloned().unwrap_or_default(),
        end_cell: cells.last().cloned().unwrap_or_default(),
        cells: cells.len(),
        units,
    })
}

/// The unit (instance path) a cell belongs to: yosys names flattened cells after their
/// hierarchy (`dut.sm$0.collector.cu_pend_TRELLIS_FF_Q`), nextpnr adds suffixes after `$`
/// (`...$CCU2_COMB0`). The last dotted component is the cell's own name; internal names
/// (`$abc$..`, `$auto$..`, which may contain file names with dots) start at the first
/// component beginning with `$`. Cells of the wrapped module itself are `top`, other cells
/// (the wrapper's, or internal names without a hierarchy) `(wrapper)`.
pub fn unit_of(cell: &str, dut: &str, top: &str) -> String {
    let name = cell.trim_start_matches('\\');
    // Cut where a yosys-internal name starts.
    let cut = if name.starts_with('$') {
        0
    } else {
        name.find(".$").map_or(name.len(), |p| p + 1)
    };
    let public = &name[..cut];
    let mut parts: Vec<&str> = public.split('.').filter(|s| !s.is_empty()).collect();
    if cut == name.len() {
        // The last component is the cell's own name.
        parts.pop();
    }
    match parts.first() {
        Some(first) if *first == dut => {
            if parts.len() == 1 {
                top.to_string()
            } else {
                parts[1..].join(".")
            }
        }
        _ => "(wrapper)".to_string(),
    }
}

/// The instance paths (`sm$0.oc.cu_pend$3`, relative to `top`) of the registers in `verilog`:
/// instances of modules whose only ports are `d`, `q` and `clock` (rust-hdl's `DFF`, one
/// module per distinct register, shared by the instances of the same shape).
pub fn register_instances(verilog: &str, top: &str) -> Vec<String> {
    let mut modules: Vec<(String, bool)> = Vec::new();
    for line in verilog.lines() {
        let Some(rest) = line.trim_start().strip_prefix("module ") else {
            continue;
        };
        let Some((name, ports)) = rest.split_once('(') else {
            continue;
        };
        let mut ports: Vec<&str> = ports
            .trim_end()
            .trim_end_matches(';')
            .trim_end_matches(')')
            .split(',')
            .map(str::trim)
            .collect();
        ports.sort_unstable();
        modules.push((name.trim().to_string(), ports == ["clock", "d", "q"]));
    }
    let is_module = |n: &str| modules.iter().any(|(m, _)| m == n);
    // (parent module, instance name, child module)
    let mut instances: Vec<(String, String, String)> = Vec::new();
    let mut current = String::new();
    for line in verilog.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("module ") {
            current = rest.split('(').next().unwrap_or("").trim().to_string();
            continue;
        }
        let Some(head) = t.strip_suffix('(') else {
            continue;
        };
        let mut words = head.split_whitespace();
        if let (Some(child), Some(inst), None) = (words.next(), words.next(), words.next()) {
            if is_module(child) {
                instances.push((current.clone(), inst.to_string(), child.to_string()));
            }
        }
    }
    let mut out = Vec::new();
    let mut stack: Vec<(String, String)> = vec![(top.to_string(), String::new())];
    while let Some((module, path)) = stack.pop() {
        for (parent, inst, child) in &instances {
            if parent != &module {
                continue;
            }
            let p = if path.is_empty() {
                inst.clone()
            } else {
                format!("{path}.{inst}")
            };
            if modules.iter().any(|(m, reg)| m == child && *reg) {
                out.push(p);
            } else if out.len() + stack.len() < 1_000_000 {
                stack.push((child.clone(), p));
            }
        }
    }
    out.sort();
    out
}

/// `unit` without its last component when that is a register instance (see
/// [`register_instances`]): `sm$0.oc.cu_pend$3` → `sm$0.oc`.
fn fold_register(unit: String, top: &str, registers: &[String]) -> String {
    if unit == top || unit.starts_with('(') {
        return unit;
    }
    if registers.binary_search(&unit).is_ok() {
        match unit.rsplit_once('.') {
            Some((parent, _)) => parent.to_string(),
            None => top.to_string(),
        }
    } else {
        unit
    }
}

/// A resource nextpnr ran out of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overflow {
    pub resource: String,
    pub needed: u64,
    pub available: u64,
}

impl Overflow {
    pub fn percent(&self) -> f64 {
        100.0 * self.needed as f64 / self.available.max(1) as f64
    }
}

/// Resources that exceed the device, from nextpnr's log: its counts before packing (LUT4s,
/// flip-flops, LUT-RAM LUTs), then the packed sites (bel types) they do not already cover.
pub fn overflows(log: &NextpnrLog) -> Vec<Overflow> {
    let mut out: Vec<Overflow> = Vec::new();
    let mut covered: Vec<&str> = Vec::new();
    for (what, used, avail) in &log.logic_before_packing {
        let (name, bel) = match what.as_str() {
            "Total LUT4s" => ("LUT4", "TRELLIS_COMB"),
            "Total DFFs" => ("FF", "TRELLIS_FF"),
            "RAM LUTs" => ("LUT-RAM LUTs", "TRELLIS_RAMW"),
            "RAMW LUTs" => ("LUT-RAM write LUTs", "TRELLIS_RAMW"),
            // "logic LUTs" and "carry LUTs" are parts of "Total LUT4s".
            _ => continue,
        };
        if used > avail {
            out.push(Overflow {
                resource: name.to_string(),
                needed: *used,
                available: *avail,
            });
            covered.push(bel);
        }
    }
    for u in &log.utilisation {
        if u.used > u.available && !covered.contains(&u.bel.as_str()) {
            out.push(Overflow {
                resource: u.bel.clone(),
                needed: u.used,
                available: u.available,
            });
        }
    }
    out
}

/// "needs 146,000 Total LUT4s of 83,640: 175 %" (one line per resource).
pub fn overflow_message(o: &[Overflow]) -> String {
    o.iter()
        .map(|o| {
            format!(
                "needs {} {} of {}: {:.0} %",
                thousands(o.needed),
                o.resource,
                thousands(o.available),
                o.percent()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// 83640 → "83,640".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_of_cell_names() {
        assert_eq!(
            unit_of("dut.sm$0.collector.cu_pend_TRELLIS_FF_Q_3", "dut", "top"),
            "sm$0.collector"
        );
        assert_eq!(unit_of("dut.busy_TRELLIS_FF_Q", "dut", "top"), "top");
        assert_eq!(
            unit_of(
                "dut.sm$0.lsu.$abc$123$auto$blifparse.cc:396:x$5",
                "dut",
                "top"
            ),
            "sm$0.lsu"
        );
        assert_eq!(unit_of("x1_TRELLIS_FF_Q_2", "dut", "top"), "(wrapper)");
        assert_eq!(unit_of("$abc$9$lut", "dut", "top"), "(wrapper)");
        assert_eq!(
            unit_of("dut.sm$0.alu.a_CCU2C_A0$CCU2_COMB1", "dut", "top"),
            "sm$0.alu"
        );
    }

    #[test]
    fn register_instances_fold_into_their_unit() {
        // rust-hdl's shape: one module per distinct register, shared by instances.
        let v = "module t(clock,reset,x);\n    top$sched sched(\n    );\n    top$r$0 en(\n    );\nendmodule\n\
                 module top$sched(clock,reset,x);\n    top$r$0 last(\n        .d(a)\n    );\n\
                     top$r$0 cu$3(\n    );\nendmodule\n\
                 module top$r$0(d,q,clock);\nendmodule\n";
        let regs = register_instances(v, "t");
        assert_eq!(regs, vec!["en", "sched.cu$3", "sched.last"]);
        assert_eq!(fold_register("sched.last".into(), "t", &regs), "sched");
        assert_eq!(fold_register("sched.cu$3".into(), "t", &regs), "sched");
        assert_eq!(fold_register("sched".into(), "t", &regs), "sched");
        assert_eq!(fold_register("en".into(), "t", &regs), "t");
        assert_eq!(fold_register("(wrapper)".into(), "t", &regs), "(wrapper)");
    }

    #[test]
    fn fmax_lines() {
        let f = fmax_line(
            "Max frequency for clock '$glbnet$clk$TRELLIS_IO_IN': 28.12 MHz (FAIL at 100.00 MHz)",
        )
        .unwrap();
        assert_eq!(f.clock, "$glbnet$clk$TRELLIS_IO_IN");
        assert!((f.fmax_mhz - 28.12).abs() < 1e-9);
        assert!((f.target_mhz - 100.0).abs() < 1e-9);
        assert!(!f.passed);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(83640), "83,640");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
