//! `warpforge gen`: the generated Verilog of a configuration written where a user can see it,
//! with a file list and the resolved configuration beside it. The Verilog itself comes from the
//! generator's cache (`warpforge_testbench::lockstep::top_verilog_file`), so writing it again
//! for an unchanged configuration and generator costs a copy, not a generation.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use warpforge_config::GpuConfig;
use warpforge_hdl::top::{TopOptions, TOP_NAME};
use warpforge_testbench::lockstep::top_verilog_file;

/// What [`write_rtl`] wrote.
#[derive(Clone, Debug)]
pub struct RtlFiles {
    /// `DIR/warpforge_top.v`.
    pub verilog: PathBuf,
    /// `DIR/files.f`: the absolute path of every Verilog file, one per line.
    pub file_list: PathBuf,
    /// `DIR/config.toml`: the resolved configuration.
    pub config: PathBuf,
    /// Modules in the Verilog.
    pub modules: usize,
    pub lines: usize,
    pub bytes: usize,
    /// The Verilog came from the generator's cache.
    pub cached: bool,
    /// Time to generate (or find) the Verilog.
    pub elapsed: Duration,
}

/// Generate (or take from the cache) the Verilog of `cfg` and write it, its file list and the
/// resolved configuration into `out` (created if missing).
pub fn write_rtl(cfg: &GpuConfig, out: &Path) -> Result<RtlFiles> {
    let generated = top_verilog_file(cfg, &TopOptions::default()).map_err(|e| anyhow!(e))?;
    let text = std::fs::read_to_string(&generated.path)
        .with_context(|| format!("reading {}", generated.path.display()))?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let verilog = out.join(format!("{TOP_NAME}.v"));
    std::fs::write(&verilog, &text).with_context(|| format!("writing {}", verilog.display()))?;
    let abs = std::fs::canonicalize(&verilog)?;
    let file_list = out.join("files.f");
    std::fs::write(&file_list, format!("{}\n", abs.display()))
        .with_context(|| format!("writing {}", file_list.display()))?;
    let config = out.join("config.toml");
    std::fs::write(&config, cfg.to_toml())
        .with_context(|| format!("writing {}", config.display()))?;
    Ok(RtlFiles {
        verilog,
        file_list,
        config,
        modules: text
            .lines()
            .filter(|l| l.trim_start().starts_with("module "))
            .count(),
        lines: text.lines().count(),
        bytes: text.len(),
        cached: generated.cached,
        elapsed: generated.elapsed,
    })
}

impl RtlFiles {
    /// One line: where the Verilog is and how large.
    pub fn summary(&self) -> String {
        format!(
            "{} (top module {TOP_NAME}, {} modules, {} lines, {:.1} MB; {})",
            self.verilog.display(),
            self.modules,
            self.lines,
            self.bytes as f64 / 1e6,
            if self.cached {
                "from the generator's cache".to_string()
            } else {
                format!("generated in {:.1} s", self.elapsed.as_secs_f64())
            }
        )
    }
}
