//! The one source of every warpforge parameter.
//!
//! A [`GpuConfig`] is plain data (rocket-chip style): the RTL generator, the golden model, the
//! testbench and the FPGA flows all read the same value and nothing else. Named presets are
//! functions returning a value; a user file may start from a preset (`base = "small"`) and
//! override single fields. [`GpuConfig::validate`] refuses every value the hardware cannot be
//! built with, naming the field and the rule.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// Warp scheduling policy (book §3.1.3 / §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerPolicy {
    /// Loose round-robin: the first ready warp after the last issued one.
    Lrr,
    /// Greedy-then-oldest: keep issuing the last warp while it is ready, else the oldest ready.
    Gto,
    /// Two-level: an active set of warps scheduled round-robin, refilled from a pending set.
    TwoLevel,
}

/// Register-file bank layout (book Figs 3.14 and 3.17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RfLayout {
    /// Register r of every warp lives in bank `r % banks`.
    Naive,
    /// Register r of warp w lives in bank `(r + w) % banks`.
    Swizzled,
}

/// Every parameter of the GPU. Field order follows the brief's microarchitecture table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Preset this configuration was derived from (informational).
    pub name: String,
    /// Streaming multiprocessors behind the crossbar.
    pub sms: u32,
    /// Resident warps per SM.
    pub warps: u32,
    /// Threads per warp (= SIMD lanes).
    pub lanes: u32,
    /// Instruction-buffer entries per warp.
    pub ibuffer_depth: u32,
    /// Pending-write entries per warp in the scoreboard.
    pub scoreboard_entries: u32,
    /// Warp scheduler policy.
    pub scheduler: SchedulerPolicy,
    /// Active warps in the two-level scheduler's active set (ignored by other policies).
    pub two_level_active: u32,
    /// SIMT stack entries per warp, including the base entry.
    pub simt_stack_depth: u32,
    /// Single-ported register-file banks per SM.
    pub rf_banks: u32,
    /// Register-file bank layout.
    pub rf_layout: RfLayout,
    /// Operand-collector units per SM.
    pub collectors: u32,
    /// ALU latency in cycles (issue to writeback).
    pub alu_latency: u32,
    /// Pipelined multiplier latency in cycles.
    pub mul_latency: u32,
    /// Iterative divider latency in cycles (not pipelined).
    pub div_latency: u32,
    /// Cache line size in bytes (coalescing granularity).
    pub line_bytes: u32,
    /// L1 data cache sets.
    pub l1_sets: u32,
    /// L1 data cache ways.
    pub l1_ways: u32,
    /// Pending request table entries (MSHRs) per L1.
    pub prt_entries: u32,
    /// Shared memory per SM in bytes (divided among resident CTAs).
    pub smem_bytes: u32,
    /// Memory partitions behind the crossbar.
    pub partitions: u32,
    /// Instruction memory in bytes (per SM copy of the kernel text).
    pub imem_bytes: u32,
    /// Global memory in bytes, mapped at `GMEM_BASE`.
    pub gmem_bytes: u32,
    /// Per-thread stack in bytes; stacks sit at the top of global memory.
    pub stack_bytes: u32,
}

/// A configuration value that cannot be built, with the field and the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid configuration: `{field}` = {value}: {rule}")]
pub struct ConfigError {
    pub field: &'static str,
    pub value: String,
    pub rule: String,
}

/// Errors from reading a configuration file or name.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("unknown preset `{0}`; known presets: {known}", known = PRESETS.join(", "))]
    UnknownPreset(String),
    #[error("cannot read configuration file {path}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    // Not a `source`: the message already holds it, and a source would be printed twice by
    // error chains (`{:#}`).
    #[error("{path}: {error}")]
    Invalid { path: String, error: ConfigError },
}

/// Names of the built-in presets, in order of size.
pub const PRESETS: &[&str] = &["tiny", "small", "fermi"];

/// The configuration `warpforge` uses when none is named.
pub const DEFAULT_PRESET: &str = "small";

/// The hint of every error about an incomplete configuration file.
const START_FROM_PRESET: &str = "start from a preset and change only what you need, e.g. `base = \"small\"` then `lanes = 16` (`warpforge config show small` prints every field)";

/// The message for a value of the wrong type or range, naming the field and what it takes
/// (`expected` is the field's value in a valid configuration, which gives its type).
fn field_type_error(
    field: &str,
    value: &toml::Value,
    expected: &toml::Value,
    e: &toml::de::Error,
) -> String {
    let takes = match expected {
        toml::Value::Integer(_) => match value {
            toml::Value::Integer(n) if *n < 0 || *n > i64::from(u32::MAX) => {
                format!(
                    "does not fit in 32 bits: a whole number from 0 to {} is expected",
                    u32::MAX
                )
            }
            _ => "a whole number (0 to 4294967295) is expected".to_string(),
        },
        toml::Value::String(_) => format!("{} (in quotes)", e.message().trim()),
        other => format!("a {} is expected", other.type_str()),
    };
    format!("`{field}` = {value}: {takes}")
}

impl GpuConfig {
    /// Fast tests: 1 SM, 4 warps of 4 lanes.
    pub fn tiny() -> Self {
        GpuConfig {
            name: "tiny".into(),
            sms: 1,
            warps: 4,
            lanes: 4,
            ibuffer_depth: 2,
            scoreboard_entries: 4,
            scheduler: SchedulerPolicy::Gto,
            two_level_active: 2,
            simt_stack_depth: 7,
            rf_banks: 4,
            rf_layout: RfLayout::Swizzled,
            collectors: 2,
            // Two ALU cycles: operand selection, then the function (docs/fpga.md).
            alu_latency: 2,
            // The ALU's latency: the shifts are multiplications (hdl/src/multiplier.rs).
            mul_latency: 2,
            div_latency: 34,
            line_bytes: 16,
            l1_sets: 8,
            l1_ways: 2,
            prt_entries: 4,
            smem_bytes: 4096,
            partitions: 1,
            imem_bytes: 16 * 1024,
            gmem_bytes: 4 << 20,
            stack_bytes: 1024,
        }
    }

    /// The FPGA default: 2 SMs, 8 warps of 8 lanes.
    pub fn small() -> Self {
        GpuConfig {
            name: "small".into(),
            sms: 2,
            warps: 8,
            lanes: 8,
            ibuffer_depth: 2,
            // Two pending writes per warp: the shipped kernels take 0.1 % fewer cycles than with four
            // (`warpforge regress --configs small`), in half the scoreboard (docs/fpga.md).
            scoreboard_entries: 2,
            scheduler: SchedulerPolicy::Lrr,
            two_level_active: 4,
            simt_stack_depth: 15,
            // 2 banks and 7 collector units: `alu_mix` still issues ≥ 0.9 per cycle per SM
            // (0.902; 0.896 with 6 units; with 4 banks and 8 units 0.935 before the shifts moved
            // into the multiplier), in fewer ECP5 logic cells (docs/microarch/sm.md,
            // "Throughput"; docs/fpga.md).
            rf_banks: 2,
            rf_layout: RfLayout::Swizzled,
            collectors: 7,
            // Two ALU cycles: operand selection, then the function, for the ECP5's 100 MHz
            // (docs/fpga.md).
            alu_latency: 2,
            // The shifts are multiplications (hdl/src/multiplier.rs): with the ALU's latency
            // their results never collide with the ALU's in the writeback slots.
            mul_latency: 2,
            // Eight lane dividers, one round: with two (`div_latency` 133) an SM has 1,540 ECP5
            // logic cells fewer, but the shipped kernels take 27 % more cycles in all, their
            // index arithmetic divides (docs/microarch/execution_units.md, "Divider").
            div_latency: 34,
            line_bytes: 32,
            l1_sets: 32,
            l1_ways: 4,
            prt_entries: 8,
            smem_bytes: 16 * 1024,
            partitions: 2,
            imem_bytes: 16 * 1024,
            gmem_bytes: 16 << 20,
            stack_bytes: 1024,
        }
    }

    /// Simulation studies: Fermi-like 32 lanes, 48 warps, 4 SMs.
    pub fn fermi() -> Self {
        GpuConfig {
            name: "fermi".into(),
            sms: 4,
            warps: 48,
            lanes: 32,
            ibuffer_depth: 2,
            scoreboard_entries: 6,
            scheduler: SchedulerPolicy::Gto,
            two_level_active: 8,
            simt_stack_depth: 32,
            rf_banks: 8,
            rf_layout: RfLayout::Swizzled,
            collectors: 8,
            alu_latency: 4,
            mul_latency: 4,
            div_latency: 34,
            line_bytes: 128,
            l1_sets: 32,
            l1_ways: 4,
            prt_entries: 32,
            smem_bytes: 64 * 1024,
            partitions: 4,
            imem_bytes: 64 * 1024,
            gmem_bytes: 64 << 20,
            stack_bytes: 1024,
        }
    }

    /// A preset by name.
    pub fn preset(name: &str) -> Result<Self, LoadError> {
        match name {
            "tiny" => Ok(Self::tiny()),
            "small" => Ok(Self::small()),
            "fermi" => Ok(Self::fermi()),
            other => Err(LoadError::UnknownPreset(other.to_string())),
        }
    }

    /// A preset name, or the path of a TOML or JSON file. A file may name a preset in `base`
    /// and override any subset of fields; without `base` it must give every field.
    pub fn load(name_or_path: &str) -> Result<Self, LoadError> {
        let path = Path::new(name_or_path);
        let looks_like_file = name_or_path.contains('/')
            || name_or_path.contains('.')
            || (path.exists() && !PRESETS.contains(&name_or_path));
        if !looks_like_file {
            let cfg = Self::preset(name_or_path)?;
            return Ok(cfg);
        }
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
            path: name_or_path.to_string(),
            source,
        })?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        Self::parse(&text, is_json).map_err(|e| match e {
            ParseError::Syntax(message) => LoadError::Parse {
                path: name_or_path.to_string(),
                message,
            },
            ParseError::Invalid(error) => LoadError::Invalid {
                path: name_or_path.to_string(),
                error,
            },
        })
    }

    /// Parse TOML (or JSON) text, applying `base` and validating. Every error names the field
    /// it is about and, where a file is incomplete, says how to start from a preset.
    pub fn parse(text: &str, json: bool) -> Result<Self, ParseError> {
        if text.trim().is_empty() {
            return Err(ParseError::Syntax(format!(
                "the file is empty; {START_FROM_PRESET}"
            )));
        }
        let mut value: toml::Table = if json {
            let v: serde_json::Value =
                serde_json::from_str(text).map_err(|e| ParseError::Syntax(e.to_string()))?;
            if !v.is_object() {
                return Err(ParseError::Syntax(format!(
                    "a JSON configuration is an object of fields; {START_FROM_PRESET}"
                )));
            }
            let s = toml::to_string(&v).map_err(|e| {
                ParseError::Syntax(format!("JSON that cannot be a configuration: {e}"))
            })?;
            s.parse()
                .map_err(|e: toml::de::Error| ParseError::Syntax(e.to_string()))?
        } else {
            text.parse()
                .map_err(|e: toml::de::Error| ParseError::Syntax(e.to_string()))?
        };
        let base = match value.remove("base") {
            Some(base) => {
                let base_name = base.as_str().ok_or_else(|| {
                    ParseError::Syntax(format!(
                        "`base` = {base}: must be a preset name in quotes, one of {}",
                        PRESETS.join(", ")
                    ))
                })?;
                Some(Self::preset(base_name).map_err(|e| ParseError::Syntax(e.to_string()))?)
            }
            None => None,
        };
        // Each field on its own over a valid configuration, so that a wrongly typed or
        // out-of-range value is reported with its field's name (serde's own messages do not
        // name it).
        let template = toml::Table::try_from(base.as_ref().unwrap_or(&Self::small()))
            .expect("presets serialize");
        for (k, v) in &value {
            if !template.contains_key(k) {
                return Err(ParseError::Syntax(format!(
                    "unknown configuration field `{k}`; fields are: base, {}",
                    template.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
            let mut one = template.clone();
            one.insert(k.clone(), v.clone());
            if let Err(e) = toml::Value::Table(one).try_into::<GpuConfig>() {
                return Err(ParseError::Syntax(field_type_error(k, v, &template[k], &e)));
            }
        }
        let merged = match base {
            Some(_) => {
                let mut merged = template;
                merged.extend(value);
                merged
            }
            None => {
                let missing: Vec<&String> = template
                    .keys()
                    .filter(|k| !value.contains_key(*k))
                    .collect();
                if !missing.is_empty() {
                    return Err(ParseError::Syntax(format!(
                        "missing field{} {}; {START_FROM_PRESET}",
                        if missing.len() == 1 { "" } else { "s" },
                        missing
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                value
            }
        };
        let cfg: GpuConfig = toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| ParseError::Syntax(e.message().to_string()))?;
        cfg.validate().map_err(ParseError::Invalid)?;
        Ok(cfg)
    }

    /// Set one field from text (`lanes=16` in sweeps and `--set`), then validate.
    pub fn set(&mut self, field: &str, value: &str) -> Result<(), ParseError> {
        let mut table = toml::Table::try_from(&*self).expect("config serializes");
        if !table.contains_key(field) {
            return Err(ParseError::Syntax(format!(
                "unknown configuration field `{field}`; fields are: {}",
                table.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        let parsed: toml::Value = match value.parse::<i64>() {
            Ok(n) => toml::Value::Integer(n),
            Err(_) => toml::Value::String(value.to_string()),
        };
        table.insert(field.to_string(), parsed);
        let cfg: GpuConfig = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ParseError::Syntax(e.message().to_string()))?;
        cfg.validate().map_err(ParseError::Invalid)?;
        *self = cfg;
        Ok(())
    }

    /// The configuration as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("config serializes")
    }

    /// A short stable hash of every parameter (used to cache built models).
    pub fn hash_hex(&self) -> String {
        // FNV-1a over the canonical TOML: stable across runs and platforms.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.to_toml().bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    /// Check every rule; the first broken one is returned.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn err(field: &'static str, value: impl fmt::Display, rule: &str) -> ConfigError {
            ConfigError {
                field,
                value: value.to_string(),
                rule: rule.to_string(),
            }
        }
        let nonzero_pow2 = |field: &'static str, v: u32| -> Result<(), ConfigError> {
            if v == 0 || !v.is_power_of_two() {
                Err(err(field, v, "must be a power of two greater than zero"))
            } else {
                Ok(())
            }
        };
        let in_range = |field: &'static str, v: u32, lo: u32, hi: u32| -> Result<(), ConfigError> {
            if v < lo || v > hi {
                Err(err(field, v, &format!("must be between {lo} and {hi}")))
            } else {
                Ok(())
            }
        };
        in_range("sms", self.sms, 1, 64)?;
        in_range("warps", self.warps, 1, 64)?;
        nonzero_pow2("lanes", self.lanes)?;
        in_range("lanes", self.lanes, 1, 32)?;
        in_range("ibuffer_depth", self.ibuffer_depth, 1, 16)?;
        in_range("scoreboard_entries", self.scoreboard_entries, 1, 32)?;
        in_range("two_level_active", self.two_level_active, 1, 64)?;
        if self.scheduler == SchedulerPolicy::TwoLevel && self.two_level_active > self.warps {
            return Err(err(
                "two_level_active",
                self.two_level_active,
                &format!("must not exceed `warps` ({})", self.warps),
            ));
        }
        in_range("simt_stack_depth", self.simt_stack_depth, 2, 256)?;
        nonzero_pow2("rf_banks", self.rf_banks)?;
        if self.rf_banks > 32 {
            return Err(err(
                "rf_banks",
                self.rf_banks,
                "must not exceed the 32 architectural registers of a warp (more banks than registers)",
            ));
        }
        in_range("collectors", self.collectors, 1, 64)?;
        in_range("alu_latency", self.alu_latency, 1, 16)?;
        if self.alu_latency < 2 {
            // A `jalr`'s link is written at the ALU's writeback for the lanes the branch unit
            // groups by target, and that group is registered for E+2 (docs/microarch/sm.md).
            return Err(err(
                "alu_latency",
                self.alu_latency,
                "must be at least 2 in a GPU: a jalr's link waits for the branch unit's lane group, registered two cycles after dispatch (set alu_latency = 2)",
            ));
        }
        in_range("mul_latency", self.mul_latency, 1, 16)?;
        // Up to 32 lanes divided one at a time (hdl/src/divider.rs, `MAX_DIV_LATENCY`).
        in_range("div_latency", self.div_latency, 1, 1057)?;
        nonzero_pow2("line_bytes", self.line_bytes)?;
        in_range("line_bytes", self.line_bytes, 4, 1024)?;
        nonzero_pow2("l1_sets", self.l1_sets)?;
        nonzero_pow2("l1_ways", self.l1_ways)?;
        in_range("l1_ways", self.l1_ways, 1, 16)?;
        in_range("prt_entries", self.prt_entries, 1, 256)?;
        nonzero_pow2("smem_bytes", self.smem_bytes)?;
        if self.smem_bytes < 4 * self.lanes {
            return Err(err(
                "smem_bytes",
                self.smem_bytes,
                &format!(
                    "must hold at least one word per lane ({} bytes)",
                    4 * self.lanes
                ),
            ));
        }
        in_range("smem_bytes", self.smem_bytes, 4, 1 << 20)?;
        nonzero_pow2("partitions", self.partitions)?;
        in_range("partitions", self.partitions, 1, 64)?;
        nonzero_pow2("imem_bytes", self.imem_bytes)?;
        in_range("imem_bytes", self.imem_bytes, 256, 1 << 24)?;
        nonzero_pow2("gmem_bytes", self.gmem_bytes)?;
        in_range("gmem_bytes", self.gmem_bytes, 1 << 16, 1 << 30)?;
        nonzero_pow2("stack_bytes", self.stack_bytes)?;
        in_range("stack_bytes", self.stack_bytes, 64, 1 << 16)?;
        let stacks =
            self.sms as u64 * self.warps as u64 * self.lanes as u64 * self.stack_bytes as u64;
        if stacks * 2 > self.gmem_bytes as u64 {
            return Err(err(
                "stack_bytes",
                self.stack_bytes,
                &format!(
                    "the stacks of all {} resident threads ({} bytes) must take at most half of `gmem_bytes` ({})",
                    self.sms * self.warps * self.lanes,
                    stacks,
                    self.gmem_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Threads resident on one SM.
    pub fn threads_per_sm(&self) -> u32 {
        self.warps * self.lanes
    }

    /// Tags per SM: how many issued instructions may be in flight at once
    /// (docs/microarch/sm.md, "Tags"). Derived, not set: `collectors + max(alu_latency,
    /// mul_latency) + 3`, the most the pipeline can hold (see there: one more for the
    /// dispatch register, one more for the registered release), so that every tag is used by a
    /// kernel that fills the pipeline and none is logic no program can reach.
    pub fn tags_per_sm(&self) -> u32 {
        self.collectors + self.alu_latency.max(self.mul_latency) + 3
    }
}

/// Errors from [`GpuConfig::parse`] and [`GpuConfig::set`].
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("{0}")]
    Syntax(String),
    #[error(transparent)]
    Invalid(ConfigError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_named() {
        for name in PRESETS {
            let cfg = GpuConfig::preset(name).unwrap();
            cfg.validate().unwrap();
            assert_eq!(&cfg.name, name);
        }
        let tiny = GpuConfig::tiny();
        assert_eq!((tiny.sms, tiny.warps, tiny.lanes), (1, 4, 4));
        let fermi = GpuConfig::fermi();
        assert!(fermi.lanes == 32 && fermi.warps >= 32);
    }

    #[test]
    fn toml_round_trip() {
        for name in PRESETS {
            let cfg = GpuConfig::preset(name).unwrap();
            let back = GpuConfig::parse(&cfg.to_toml(), false).unwrap();
            assert_eq!(cfg, back);
        }
    }

    #[test]
    fn base_and_overrides() {
        let cfg =
            GpuConfig::parse("base = \"tiny\"\nlanes = 8\nscheduler = \"lrr\"\n", false).unwrap();
        assert_eq!(cfg.lanes, 8);
        assert_eq!(cfg.warps, 4);
        assert_eq!(cfg.scheduler, SchedulerPolicy::Lrr);
        let json = GpuConfig::parse(r#"{"base": "small", "warps": 16}"#, true).unwrap();
        assert_eq!(json.warps, 16);
    }

    #[test]
    fn invalid_values_name_field_and_rule() {
        let cases = [
            ("lanes = 6", "lanes", "power of two"),
            ("warps = 0", "warps", "between 1 and 64"),
            ("rf_banks = 64", "rf_banks", "more banks than registers"),
            ("alu_latency = 1", "alu_latency", "at least 2"),
            ("line_bytes = 24", "line_bytes", "power of two"),
            (
                "stack_bytes = 65536\ngmem_bytes = 65536",
                "stack_bytes",
                "half of `gmem_bytes`",
            ),
        ];
        for (text, field, rule) in cases {
            let e = GpuConfig::parse(&format!("base = \"tiny\"\n{text}"), false).unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains(field) && msg.contains(rule), "{text}: {msg}");
        }
        let e = GpuConfig::parse("base = \"tiny\"\nlanez = 4", false).unwrap_err();
        assert!(e.to_string().contains("lanez"), "{e}");
        let e = GpuConfig::parse("base = \"huge\"", false).unwrap_err();
        assert!(e.to_string().contains("unknown preset `huge`"), "{e}");
    }

    #[test]
    fn wrong_types_and_incomplete_files_name_the_field_and_the_fix() {
        let err = |text: &str, json: bool| GpuConfig::parse(text, json).unwrap_err().to_string();
        let e = err("base = \"small\"\nlanes = \"four\"", false);
        assert!(
            e.contains("`lanes` = \"four\"") && e.contains("whole number"),
            "{e}"
        );
        let e = err("base = \"small\"\ngmem_bytes = 8589934592", false);
        assert!(
            e.contains("`gmem_bytes` = 8589934592") && e.contains("does not fit in 32 bits"),
            "{e}"
        );
        let e = err(r#"{"base": "tiny", "warps": -1}"#, true);
        assert!(e.contains("`warps` = -1") && e.contains("32 bits"), "{e}");
        let e = err("base = \"small\"\nscheduler = \"fifo\"", false);
        assert!(e.contains("`scheduler`") && e.contains("gto"), "{e}");
        let e = err("base = \"small\"\nscheduler = 3", false);
        assert!(e.contains("`scheduler` = 3"), "{e}");
        for empty in ["", "  \n# nothing\n"] {
            let e = err(empty, false);
            assert!(e.contains("empty") || e.contains("missing"), "{e}");
            assert!(e.contains("base = \"small\""), "{e}");
        }
        let e = err("lanes = 8", false);
        assert!(e.contains("missing fields") && e.contains("`warps`"), "{e}");
        assert!(e.contains("base = \"small\""), "{e}");
        let e = err("base = 3", false);
        assert!(
            e.contains("`base` = 3") && e.contains("tiny, small, fermi"),
            "{e}"
        );
    }

    #[test]
    fn an_invalid_file_states_its_cause_once() {
        let dir = std::env::temp_dir().join(format!("wf-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("three.toml");
        std::fs::write(&path, "base = \"tiny\"\nlanes = 3\n").unwrap();
        let e = GpuConfig::load(path.to_str().unwrap()).unwrap_err();
        // The whole chain, as `anyhow`'s `{:#}` prints it.
        let mut chain = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            chain.push_str(&format!(": {s}"));
            src = s.source();
        }
        assert_eq!(chain.matches("must be").count(), 1, "{chain}");
        assert!(chain.contains("`lanes` = 3"), "{chain}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn set_field() {
        let mut cfg = GpuConfig::tiny();
        cfg.set("lanes", "16").unwrap();
        assert_eq!(cfg.lanes, 16);
        assert!(cfg.set("lanes", "3").is_err());
        assert!(cfg
            .set("bogus", "3")
            .unwrap_err()
            .to_string()
            .contains("unknown configuration field"));
        cfg.set("rf_layout", "naive").unwrap();
        assert_eq!(cfg.rf_layout, RfLayout::Naive);
    }

    #[test]
    fn hash_changes_with_any_field() {
        let a = GpuConfig::tiny();
        let mut b = a.clone();
        b.collectors += 1;
        assert_ne!(a.hash_hex(), b.hash_hex());
        assert_eq!(a.hash_hex(), GpuConfig::tiny().hash_hex());
    }
}
