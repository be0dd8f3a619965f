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

/// `warpforge mutate` on the CI set (`count` mutants of tiny, seed 10, vecadd and reduce, their
/// representative cases, zero memory) plus `extra`, from the workspace root: its output and
/// its stdout + stderr. yosys samples the same first mutants for any count.
fn mutate_ci_set(count: &str, seed: &str, extra: &[&str]) -> (std::process::Output, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args([
            "mutate",
            "--config",
            "tiny",
            "--count",
            count,
            "--seed",
            seed,
            "--kernels",
            "vecadd,reduce",
            "--quick",
            "--mem",
            "zero",
        ])
        .args(extra)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
        .output()
        .expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o, text)
}

/// One run of the CI set with the equivalence checks on (each whole-GPU proof given 20 s: the
/// module checks that decide an escape take 10–25 s here, and a proof of the whole GPU that
/// would take longer is what `--count 200` runs are for). One run, not a second one for the
/// equivalence checks: both would build the same mutant design (a Verilator build of `tiny`), and
/// the whole-GPU proofs at the default 300 s were most of this test binary's 490 s in CI.
#[test]
fn a_fixed_set_of_mutants_keeps_its_known_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mutate.json");
    let junit = dir.path().join("mutate.xml");
    let (o, text) = mutate_ci_set(
        "12",
        "10",
        &[
            "--equiv-timeout",
            "20",
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    assert!(
        o.status.success(),
        "the command fails only on an error: {text}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mutants = summary["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), 12, "{text}");
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

    // The equivalence checks decide both ways on this set: an equivalent mutant is dead in
    // context or proven in context, and an escape is told apart from the original (a
    // counter-example of the in-context proof, or its module differs from the original's,
    // `equiv_status`), not merely a proof that ran out of time. Only one escape is required to
    // be decided: on a loaded machine another's proof may run out of its 20 s (an escape
    // either way).
    let details = |verdict: &str| -> Vec<String> {
        mutants
            .iter()
            .filter(|m| m["verdict"] == verdict)
            .map(|m| m["detail"].as_str().unwrap().to_string())
            .collect()
    };
    let equivalent = details("equivalent");
    assert!(
        !equivalent.is_empty()
            && equivalent
                .iter()
                .all(|d| d.contains("dead in context") || d.contains("equivalent in context")),
        "{equivalent:?}\n{text}"
    );
    let escapes = details("escape");
    assert!(
        escapes
            .iter()
            .any(|d| d.contains("tells them apart") || d.contains(" differs (equiv_status")),
        "{escapes:?}\n{text}"
    );

    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"tests="12""#) && xml.contains(&format!(r#"failures="{}""#, escapes.len())),
        "{xml}"
    );
}
