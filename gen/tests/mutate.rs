//! The checker's own check, small enough for CI: a few yosys mutants of `tiny` with a fixed
//! seed and a known outcome (the snapshot `snapshots/mutate__ci_mutants.snap`: each mutant's
//! module, mutation and verdict). If a change to the RTL, the model or the checker lets a
//! detected mutant pass, the snapshot differs and this fails with the table. A change to the
//! RTL changes which cells yosys samples: review the new outcome and accept it with
//! `cargo insta review` (or `INSTA_UPDATE=always`); every mutant it lists as detected must stay
//! so.
//! (The full runs, `--count 200` on tiny and 100 on small with equivalence checks, are in the
//! README; they take tens of minutes.)

use std::path::Path;
use std::process::Command;

#[test]
fn a_fixed_set_of_mutants_keeps_its_known_outcome() {
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
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mutants = summary["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), 8, "{text}");
    // The known outcome: module, mutation and verdict of each (not the detail, which names
    // cycles and kernel cases).
    let outcome: String = mutants
        .iter()
        .map(|m| {
            format!(
                "m{}  {}  {} {}[{}]  {}\n",
                m["mutation"]["id"],
                m["mutation"]["module"].as_str().unwrap(),
                m["mutation"]["mode"].as_str().unwrap(),
                m["mutation"]["port"].as_str().unwrap(),
                m["mutation"]["bit"],
                m["verdict"].as_str().unwrap()
            )
        })
        .collect();
    // Shown when the snapshot differs: the whole table with each mutant's detail.
    println!("{text}");
    insta::assert_snapshot!("ci_mutants", outcome);
    let survivors = mutants
        .iter()
        .filter(|m| {
            !m["verdict"].as_str().unwrap().starts_with("detected")
                && m["verdict"] != "equivalent"
        })
        .count();
    assert!(o.status.success(), "the command fails only on an error: {text}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"tests="8""#) && xml.contains(&format!(r#"failures="{survivors}""#)),
        "{xml}"
    );
}
