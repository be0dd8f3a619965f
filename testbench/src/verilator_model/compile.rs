//! Compiling Verilated C++ into objects (in parallel) and linking the model
//! shared library.  The compiler and its flags come from
//! `verilator::gen::Verilator::cpp_build` (a `cc::Build`); the commands are
//! run directly so that their diagnostics can be captured into
//! [`BuildError`]s and no `cargo:` lines are printed at run time.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;

use super::BuildError;

/// One C++ translation unit to compile.
pub(crate) struct Job {
    pub src: PathBuf,
    pub obj: PathBuf,
    pub extra_args: Vec<OsString>,
}

/// Compile `jobs` with `tool`, using up to `available_parallelism` compiler
/// processes.  Returns the compilers' (warning) output.
pub(crate) fn compile_all(tool: &cc::Tool, jobs: &[Job]) -> Result<String, BuildError> {
    let workers = thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let log = Mutex::new(String::new());
    let first_error: Mutex<Option<BuildError>> = Mutex::new(None);

    thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                if failed.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { return };
                let mut cmd = tool.to_command();
                cmd.args(&job.extra_args)
                    .arg("-c")
                    .arg(&job.src)
                    .arg("-o")
                    .arg(&job.obj);
                match run(cmd) {
                    Ok(out) => {
                        if !out.is_empty() {
                            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                            log.push_str(&out);
                        }
                    }
                    Err(e) => {
                        failed.store(true, Ordering::Relaxed);
                        let mut slot = first_error.lock().unwrap_or_else(|e| e.into_inner());
                        if slot.is_none() {
                            *slot = Some(e);
                        }
                        return;
                    }
                }
            });
        }
    });

    if let Some(e) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(log.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// Link `objs` into the shared library `out`, exporting only what
/// `export_map` (a GNU ld version script) lists.
pub(crate) fn link_shared(
    tool: &cc::Tool,
    objs: &[PathBuf],
    export_map: &Path,
    libs: &[&str],
    out: &Path,
) -> Result<String, BuildError> {
    let mut cmd = tool.to_command();
    cmd.arg("-shared").arg("-o").arg(out).args(objs);
    let mut script = OsString::from("-Wl,--version-script=");
    script.push(export_map);
    cmd.arg(script)
        .arg("-Wl,--no-undefined")
        .arg("-Wl,--gc-sections");
    for lib in libs {
        cmd.arg(format!("-l{lib}"));
    }
    run(cmd)
}

/// Run a compiler/linker command; on failure the error carries the command
/// line and its full output.
fn run(mut cmd: Command) -> Result<String, BuildError> {
    let command = format!("{cmd:?}");
    let output = cmd.output().map_err(|e| BuildError::Compile {
        command: command.clone(),
        output: format!("failed to execute the C++ compiler: {e}"),
    })?;
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stdout));
    if output.status.success() {
        Ok(text)
    } else {
        Err(BuildError::Compile {
            command,
            output: format!("{}\n{}", output.status, text),
        })
    }
}

/// Object file path for `src` in `dir`.
pub(crate) fn obj_path(dir: &Path, src: &Path) -> PathBuf {
    let stem = src
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "obj".to_string());
    dir.join(format!("{stem}.o"))
}

/// Remove the `.o` files in `dir` (best effort).
pub(crate) fn remove_objects(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "o" || x == "d") {
                let _ = fs::remove_file(p);
            }
        }
    }
}
