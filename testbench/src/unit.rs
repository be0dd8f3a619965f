//! Unit co-simulation plumbing: lint a generated Verilog module with `verilator --lint-only
//! -Wall` and build it into a cached, loaded model.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

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

/// The environment variable that turns on the long, opt-in test sets (every preset in yosys,
/// every case of every kernel, ...).
pub const FULL_TESTS_VAR: &str = "WARPFORGE_FULL";

/// The meaning of [`FULL_TESTS_VAR`]'s value: on for `1`, `true`, `yes`, `on`; off when unset,
/// empty, `0`, `false`, `no`, `off` (any case); anything else is an error naming the variable.
pub fn parse_switch(value: Option<&str>) -> Result<bool, String> {
    let Some(v) = value else {
        return Ok(false);
    };
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "" | "0" | "false" | "no" | "off" => Ok(false),
        other => Err(format!(
            "{FULL_TESTS_VAR}={other}: expected 1/true/yes/on or 0/false/no/off"
        )),
    }
}

/// Whether the long, opt-in test sets run (`WARPFORGE_FULL=1`): the one place every test reads
/// the switch, so it means the same everywhere. Panics on a value that is neither on nor off
/// (a typo must not quietly run the short set).
pub fn full_tests() -> bool {
    let v = std::env::var(FULL_TESTS_VAR).ok();
    parse_switch(v.as_deref()).unwrap_or_else(|e| panic!("{e}"))
}

/// FNV-1a offset basis: the starting value of [`fnv1a`].
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes`, continuing from `h` ([`FNV_OFFSET`] to start).
pub fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The seed of a unit test's random stimulus: `$WARPFORGE_SEED`, else a fixed, distinct seed
/// per test (FNV-1a of its name).
pub fn unit_seed(test: &str) -> u64 {
    std::env::var("WARPFORGE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fnv1a(FNV_OFFSET, test.as_bytes()))
}

/// Cycles of a unit test's random co-simulation: `$WARPFORGE_UNIT_CYCLES`, else 20 000.
pub fn unit_cycles() -> u64 {
    std::env::var("WARPFORGE_UNIT_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000)
}

/// Write `verilog` to a content-named file under the cache and return its path.
pub(crate) fn source_file(top: &str, verilog: &str) -> std::io::Result<PathBuf> {
    source_file_in(&cache_dir().join("src"), top, verilog)
}

fn source_file_in(dir: &Path, top: &str, verilog: &str) -> std::io::Result<PathBuf> {
    let h = fnv1a(FNV_OFFSET, verilog.as_bytes());
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{top}-{h:016x}.v"));
    if !path.exists() {
        write_atomically(&path, verilog.as_bytes())?;
    }
    Ok(path)
}

/// Write `data` to `path` through a temporary file and a rename, so that a reader never sees
/// a half-written file (parallel tests and processes write the same cache entries).
pub fn write_atomically(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // Unique per call, not only per process: parallel tests of one binary write the same
    // file, and a shared temporary name lets one rename away the other's file.
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    std::fs::write(&tmp, data)?;
    std::fs::rename(&tmp, path)
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
    yosys_front_then(top, verilog, &format!("; synth -top {top}"))
}

/// yosys's `prep` (front end, `opt`, `wreduce`, memories collected, `check`) with `check -assert`:
/// no combinational loop, no multiple drivers, no undriven wire, without the technology mapping
/// and ABC that make most of [`yosys_check`]'s minutes on a whole GPU.
pub fn yosys_prep_check(top: &str, verilog: &str) -> Result<(), String> {
    yosys_front_then(top, verilog, &format!("; prep -top {top}; check -assert"))
}

/// yosys's front end only, `hierarchy -check; proc`: every module found, every process
/// translated (a fraction of [`yosys_check`]'s time on a whole GPU, for a second top of the same
/// logic).
pub fn yosys_front_check(top: &str, verilog: &str) -> Result<(), String> {
    yosys_front_then(top, verilog, "")
}

/// `read_verilog; hierarchy -check; proc`, then `rest` (empty or starting with `;`).
fn yosys_front_then(top: &str, verilog: &str, rest: &str) -> Result<(), String> {
    let path = source_file(top, verilog).map_err(|e| e.to_string())?;
    run_yosys(&format!(
        "read_verilog {}; hierarchy -check -top {top}; proc{rest}",
        path.display()
    ))
}

/// `yosys -q -p SCRIPT`: Ok when it succeeds, else its output (or how to install it).
fn run_yosys(script: &str) -> Result<(), String> {
    let out = Command::new("yosys")
        .args(["-q", "-p", script])
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

/// How many memories yosys infers in `verilog` (top `top`): `$mem_v2` cells after `proc;
/// flatten; memory -nomap`. A register array written as flip-flops (a reset loop, a read through
/// a multiplexer of registers) counts none: a unit whose state should be RAM checks it here, so a
/// change that turns it back into flip-flops fails a test instead of only costing area.
pub fn yosys_memory_count(top: &str, verilog: &str) -> Result<usize, String> {
    let path = source_file(top, verilog).map_err(|e| e.to_string())?;
    let out_file = path.with_extension("memories.txt");
    let script = format!(
        "read_verilog {}; hierarchy -check -top {top}; proc; flatten; opt_clean; memory -nomap; \
         tee -q -o {} select -count t:$mem_v2",
        path.display(),
        out_file.display()
    );
    run_yosys(&script)?;
    let text = std::fs::read_to_string(&out_file).map_err(|e| e.to_string())?;
    text.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("yosys `select -count` printed {text:?}"))
}

/// [`yosys_check`] must pass (panics with yosys' output otherwise). yosys `synth` takes most of
/// a minute for the larger units, so a pass is remembered in the cache directory, keyed by the
/// Verilog text and the yosys version like the Verilated models; `WARPFORGE_YOSYS_RECHECK=1`
/// runs yosys regardless.
pub fn assert_yosys_accepts(top: &str, verilog: &str) {
    let version = Command::new("yosys")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let key = fnv1a(fnv1a(FNV_OFFSET, version.as_bytes()), verilog.as_bytes());
    let marker = cache_dir()
        .join("yosys-ok")
        .join(format!("{top}-{key:016x}"));
    if marker.exists() && std::env::var_os("WARPFORGE_YOSYS_RECHECK").is_none() {
        return;
    }
    yosys_check(top, verilog).unwrap_or_else(|e| panic!("yosys rejects {top}:\n{e}"));
    if let Some(dir) = marker.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&marker, version);
}

/// The generic unit bench's first step: lint unit `top` (`verilator --lint-only -Wall`, no
/// warning), check it in yosys ([`assert_yosys_accepts`]) and run `extra` (a unit's own checks of
/// its Verilog, e.g. [`yosys_memory_count`]) once per process and Verilog text, then build or load
/// its Verilated model. Panics with the tool's output on any failure.
pub fn checked_unit_with(top: &str, verilog: &str, extra: impl FnOnce()) -> LoadedModel {
    static CHECKED: Mutex<Vec<(String, u64)>> = Mutex::new(Vec::new());
    let key = (top.to_string(), fnv1a(FNV_OFFSET, verilog.as_bytes()));
    {
        // Poisoning (a check that panicked in another test) leaves the list usable.
        let mut checked = CHECKED.lock().unwrap_or_else(|e| e.into_inner());
        if !checked.contains(&key) {
            lint(top, verilog).unwrap_or_else(|e| panic!("{top}: verilator -Wall:\n{e}"));
            assert_yosys_accepts(top, verilog);
            extra();
            checked.push(key);
        }
    }
    build_unit(top, verilog, false).unwrap_or_else(|e| panic!("{e}"))
}

/// [`checked_unit_with`] with no checks of the unit's own.
pub fn checked_unit(top: &str, verilog: &str) -> LoadedModel {
    checked_unit_with(top, verilog, || {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_tests_switch_has_one_meaning() {
        assert_eq!(parse_switch(None), Ok(false));
        for on in ["1", "true", "YES", "on", " 1 "] {
            assert_eq!(parse_switch(Some(on)), Ok(true), "{on}");
        }
        for off in ["", "0", "false", "No", "off"] {
            assert_eq!(parse_switch(Some(off)), Ok(false), "{off}");
        }
        let e = parse_switch(Some("full")).unwrap_err();
        assert!(e.contains("WARPFORGE_FULL=full"), "{e}");
    }

    /// Every test reads `WARPFORGE_FULL` through [`full_tests`]: once, some files took `=0` as
    /// on (they only asked whether the variable existed) and others as off.
    #[test]
    fn no_test_reads_the_full_switch_itself() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let mut offenders = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                let name = e.file_name();
                if p.is_dir() {
                    if name != "target" && name != ".git" && name != "vendor" {
                        stack.push(p);
                    }
                } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("src/unit.rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    if text.contains(&format!("var(\"{FULL_TESTS_VAR}\")"))
                        || text.contains(&format!("var_os(\"{FULL_TESTS_VAR}\")"))
                    {
                        offenders.push(p.display().to_string());
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "read WARPFORGE_FULL through warpforge_testbench::unit::full_tests(): {offenders:?}"
        );
    }

    /// Threads of one test binary writing the same unit at once all get the file, with its
    /// text (a per-process temporary name once let one thread rename away another's file).
    #[test]
    fn concurrent_source_files_of_one_process_all_succeed() {
        let dir = std::env::temp_dir().join(format!("wf-source-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for round in 0..50 {
            let text = format!("module m{round}; endmodule\n").repeat(2000);
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|_| s.spawn(|| source_file_in(&dir, "m", &text)))
                    .collect();
                for h in handles {
                    let path = h.join().unwrap().expect("source_file_in");
                    assert_eq!(std::fs::read_to_string(path).unwrap(), text);
                }
            });
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
