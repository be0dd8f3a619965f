//! The checker's own check, small enough for CI: a few yosys mutants of `tiny` with a fixed
//! seed, every one of which lock-step co-simulation is known to detect. If a change to the RTL,
//! the model or the checker lets one of them pass, this fails and prints the table.
//! (The full runs, `--count 200` on tiny and 100 on small with equivalence checks, are in the
//! README; they take tens of minutes.)

use std::path::Path;
use std::process::Command;

#[test]
fn a_fixed_set_of_mutants_is_all_detected() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mutate.json");
    let junit = dir.path().join("mutate.xml");
    let o = Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args([
            "mutate",
            "--config",
            "tiny",
            "--count",
            "8",
            "--seed",
            "1",
            "--kernels",
            "vecadd,reduce",
            "--quick",
            "--mem",
            "zero",
            "--no-equiv",
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
        .output()
        .expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{text}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mutants = summary["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), 8, "{text}");
    let undetected: Vec<String> = mutants
        .iter()
        .filter(|m| !m["verdict"].as_str().unwrap().starts_with("detected"))
        .map(|m| format!("m{}: {}", m["mutation"]["id"], m["mutation"]["args"]))
        .collect();
    assert!(
        undetected.is_empty(),
        "mutants no longer detected: {undetected:?}\n{text}"
    );
    assert_eq!(summary["coverage"].as_f64(), Some(100.0), "{text}");
    assert!(
        text.contains("8 detected, 0 equivalent, 0 escapes"),
        "{text}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"tests="8""#) && xml.contains(r#"failures="0""#),
        "{xml}"
    );
}
