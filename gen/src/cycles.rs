//! Expected kernel cycles: the regression's timing check.
//!
//! Lock-step co-simulation checks *what* the RTL computes, not *when*: a lost issue slot, an
//! extra stall or another arbitration order passes it with every record matching the model.
//! Until the cycle-accurate model exists (docs/verification.md), the regression catches such
//! bugs the way performance regressions are caught: every run's kernel cycle count is compared
//! with the one recorded for the same configuration, kernel case and memory setting in
//! `tests/cycles/<config>.json`. A change to the RTL that changes timing on purpose re-records
//! them with `warpforge regress --bless-cycles` (and the diff of that file is the timing change,
//! reviewed like a snapshot).
//!
//! A file holds the configuration hash it was recorded on: a preset that changed since is a
//! clear error before anything runs, never a silent skip. Runs the file has no entry for are
//! not checked (a custom configuration has no file at all).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use serde::{Deserialize, Serialize};
use warpforge_config::{GpuConfig, PRESETS};
use warpforge_testbench::memory_model::MemorySettings;

use crate::cosim::CosimRow;

/// What `regress` does with the expected cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A passing run whose cycles differ from its recorded count fails (`cycles`).
    Check,
    /// Record every passing run's cycles (keeping the other entries of the file).
    Bless,
    /// Neither.
    Off,
}

/// One configuration's expected cycles, as stored.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct CycleFile {
    pub config: String,
    /// `GpuConfig::hash_hex` of the configuration they were recorded on.
    pub config_hash: String,
    /// [`key`] → kernel cycles.
    pub runs: BTreeMap<String, u64>,
}

/// Where the expected cycles of the configurations live (in the source tree, checked in).
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("gen/ has a parent")
        .join("tests")
        .join("cycles")
}

/// The identity of one run: kernel, case, memory setting with its seed, data seed.
pub fn key(kernel: &str, case: &str, mem: &MemorySettings, data_seed: u64) -> String {
    format!(
        "{kernel} {case} / {} seed {} / data {data_seed}",
        mem.name, mem.seed
    )
}

/// The expected cycles of `cfg` under `dir`: `None` when there is no file for it. A file
/// recorded on another configuration of the same name is an error for a preset (it is stale:
/// re-record it) and ignored for any other configuration (a user's file that shares a name).
pub fn load(dir: &Path, cfg: &GpuConfig) -> Result<Option<CycleFile>> {
    let path = dir.join(format!("{}.json", cfg.name));
    let Ok(bytes) = std::fs::read(&path) else {
        return Ok(None);
    };
    let file: CycleFile = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{}: not a file of expected cycles; delete it and record it anew with `warpforge regress --configs {} --bless-cycles`",
            path.display(),
            cfg.name
        )
    })?;
    if file.config_hash != cfg.hash_hex() {
        if PRESETS.contains(&cfg.name.as_str()) {
            bail!(
                "{}: the expected cycles were recorded on another `{}` (hash {}, now {}); record them again with `warpforge regress --configs {} --bless-cycles`, or run without the timing check (`--no-cycle-check`)",
                path.display(),
                cfg.name,
                file.config_hash,
                cfg.hash_hex(),
                cfg.name
            );
        }
        return Ok(None);
    }
    Ok(Some(file))
}

/// Check (or record) the cycles of `rows`, where `keys[i]` is row `i`'s [`key`] and `cfgs[i]`
/// its configuration. Returns one line for the report (what was checked or recorded).
pub fn apply(
    mode: Mode,
    dir: &Path,
    rows: &mut [CosimRow],
    keys: &[String],
    cfgs: &[&GpuConfig],
) -> Result<String> {
    if mode == Mode::Off {
        return Ok(String::new());
    }
    let mut names: Vec<&GpuConfig> = Vec::new();
    for c in cfgs {
        if !names.iter().any(|n| n.name == c.name) {
            names.push(c);
        }
    }
    let mut notes = Vec::new();
    for cfg in names {
        let idx: Vec<usize> = (0..rows.len())
            .filter(|&i| cfgs[i].name == cfg.name)
            .collect();
        match mode {
            Mode::Bless => {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                let path = dir.join(format!("{}.json", cfg.name));
                // Entries of runs not made now are kept, unless the configuration changed.
                let mut file = load(dir, cfg).ok().flatten().unwrap_or_else(|| CycleFile {
                    config: cfg.name.clone(),
                    config_hash: cfg.hash_hex(),
                    runs: BTreeMap::new(),
                });
                let mut n = 0;
                for &i in &idx {
                    if let (true, Some(c)) = (rows[i].passed(), rows[i].cycles) {
                        file.runs.insert(keys[i].clone(), c);
                        n += 1;
                    }
                }
                let mut text = serde_json::to_string_pretty(&file)?;
                text.push('\n');
                std::fs::write(&path, text)
                    .with_context(|| format!("writing {}", path.display()))?;
                notes.push(format!(
                    "recorded the cycles of {n} passing runs of `{}` in {}",
                    cfg.name,
                    path.display()
                ));
            }
            Mode::Check => {
                let Some(file) = load(dir, cfg)? else {
                    notes.push(format!(
                        "cycles of `{}` not checked: no {}",
                        cfg.name,
                        dir.join(format!("{}.json", cfg.name)).display()
                    ));
                    continue;
                };
                let (mut checked, mut differ) = (0, 0);
                for &i in &idx {
                    let r = &mut rows[i];
                    let (Some(want), Some(got)) = (file.runs.get(&keys[i]), r.cycles) else {
                        continue;
                    };
                    if !r.passed() {
                        continue;
                    }
                    checked += 1;
                    if *want != got {
                        differ += 1;
                        r.result = "cycles".into();
                        r.details = format!(
                            "every trace record matched the golden model, but the kernel took {got} cycles where {want} are expected ({} cycles {}; tests/cycles/{}.json).\n\
                             A timing change: a lost issue slot, an extra stall, another arbitration order. If it is intended, record the new counts with\n  warpforge regress --configs {} --bless-cycles\nand commit the diff of that file.",
                            got.abs_diff(*want),
                            if got > *want { "more" } else { "fewer" },
                            cfg.name,
                            cfg.name
                        );
                    }
                }
                notes.push(format!(
                    "cycles of `{}`: {checked} runs checked against tests/cycles/{}.json, {differ} differ",
                    cfg.name, cfg.name
                ));
            }
            Mode::Off => {}
        }
    }
    Ok(notes.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cycles: u64) -> CosimRow {
        CosimRow {
            result: "pass".into(),
            cycles: Some(cycles),
            details: String::new(),
            ..CosimRow::not_run("vecadd", "n=4", "tiny", "zero", "")
        }
    }

    #[test]
    fn blessed_cycles_pass_and_a_changed_count_fails() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = GpuConfig::preset("tiny").unwrap();
        let keys = vec!["a".to_string(), "b".to_string()];
        let mut rows = vec![row(100), row(200)];
        let note = apply(Mode::Bless, dir.path(), &mut rows, &keys, &[&cfg, &cfg]).unwrap();
        assert!(
            note.contains("recorded the cycles of 2 passing runs"),
            "{note}"
        );
        let note = apply(Mode::Check, dir.path(), &mut rows, &keys, &[&cfg, &cfg]).unwrap();
        assert!(note.contains("2 runs checked"), "{note}");
        assert!(rows.iter().all(|r| r.passed()));
        let mut changed = vec![row(100), row(201)];
        let note = apply(Mode::Check, dir.path(), &mut changed, &keys, &[&cfg, &cfg]).unwrap();
        assert!(note.contains("1 differ"), "{note}");
        assert!(changed[0].passed());
        assert_eq!(changed[1].result, "cycles");
        assert!(changed[1].details.contains("201 cycles where 200"));
        assert!(changed[1].details.contains("--bless-cycles"));
    }

    #[test]
    fn a_stale_file_of_a_preset_is_an_error_before_anything_runs() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = GpuConfig::preset("tiny").unwrap();
        let file = CycleFile {
            config: "tiny".into(),
            config_hash: "0000000000000000".into(),
            runs: BTreeMap::new(),
        };
        std::fs::write(
            dir.path().join("tiny.json"),
            serde_json::to_string(&file).unwrap(),
        )
        .unwrap();
        let e = load(dir.path(), &cfg).unwrap_err().to_string();
        assert!(
            e.contains("recorded on another `tiny`") && e.contains("--bless-cycles"),
            "{e}"
        );
        std::fs::write(dir.path().join("tiny.json"), "{").unwrap();
        let e = load(dir.path(), &cfg).unwrap_err().to_string();
        assert!(e.contains("not a file of expected cycles"), "{e}");
    }
}
