//! Unit co-simulation plumbing: lint a generated Verilog module with `verilator --lint-only
//! -Wall` and build it into a cached, loaded model.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::verilator_model::{build, BuildError, LoadedModel, ModelBuild};

/// `<workspace>/target/verilator-cache` (or `$WARPFORGE_VERILATOR_CACHE`).
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("WARPFORGE_VERILATOR_CACHE") {
        return PathBuf::from(d);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .join("target/verilator-cache")
}

/// Write `verilog` to a content-named file under the cache and return its path.
fn source_file(top: &str, verilog: &str) -> std::io::Result<PathBuf> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in verilog.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let dir = cache_dir().join("src");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{top}-{h:016x}.v"));
    if !path.exists() {
        let tmp = dir.join(format!(".{top}-{h:016x}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, verilog)?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(path)
}

/// `verilator --lint-only -Wall`: Ok when it prints no warning and no error.
pub fn lint(top: &str, verilog: &str) -> Result<(), String> {
    let path = source_file(top, verilog).map_err(|e| e.to_string())?;
    let out = Command::new("verilator")
        // DECLFILENAME wants one file per module; a generated unit is one file of many modules.
        .args([
            "--lint-only",
            "-Wall",
            "-Wno-DECLFILENAME",
            "--top-module",
            top,
        ])
        .arg(&path)
        .output()
        .map_err(|e| {
            format!("cannot run verilator: {e} (install it with scripts/setup.sh --verilator)")
        })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() && !text.contains("%Warning") && !text.contains("%Error") {
        Ok(())
    } else {
        Err(text)
    }
}

/// Build (or load from the cache) the Verilated model of one generated module.
pub fn build_unit(top: &str, verilog: &str, trace: bool) -> Result<LoadedModel, BuildError> {
    let path = source_file(top, verilog).map_err(|source| BuildError::Io {
        path: cache_dir(),
        source,
    })?;
    build(&ModelBuild {
        top: top.to_string(),
        verilog_files: vec![path],
        cache_dir: cache_dir(),
        trace,
        ..Default::default()
    })
}

/// yosys `hierarchy -check; proc; synth`: Ok when yosys accepts the design.
pub fn yosys_check(top: &str, verilog: &str) -> Result<(), String> {
    let path = source_file(top, verilog).map_err(|e| e.to_string())?;
    let script = format!(
        "read_verilog {}; hierarchy -check -top {top}; proc; synth -top {top}",
        path.display()
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .map_err(|e| format!("cannot run yosys: {e} (install it with scripts/setup.sh --yosys)"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
