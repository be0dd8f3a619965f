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

/// `warpforge mutate` on the CI set (`count` mutants of tiny, seed 1, vecadd and reduce, their
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

#[test]
fn a_fixed_set_of_mutants_keeps_its_known_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mutate.json");
    let junit = dir.path().join("mutate.xml");
    let (o, text) = mutate_ci_set(
        "8",
        "1",
        &[
            "--no-equiv",
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
            !m["verdict"].as_str().unwrap().starts_with("detected") && m["verdict"] != "equivalent"
        })
        .count();
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"tests="8""#) && xml.contains(&format!(r#"failures="{survivors}""#)),
        "{xml}"
    );
}

/// The equivalence checks decide both ways on known mutants of the CI set's eight (seed 1): m5
/// (bit 7 of a compare input in the tag table tied to 0) is equivalent: dead in context, the
/// optimised GPU is unchanged; m2 (bit 7 of a multiplexer input in the divider tied to 0)
/// survives vecadd and reduce, which do not divide, and its module differs from the original
/// (`equiv_status`): an escape of this kernel set. Re-pinned whenever an RTL change resamples
/// yosys's mutants (last: the branch unit's registered `jalr` group, the SIMT stack's per-warp
/// write enables and the dispatch register's copy per unit; before, m4 in the scheduler and m1
/// in the per-warp word RAM; m5 in the operand RAMs and m1; m2 in the SIMT stack and m5 in the
/// CSR read, m6 in the SM's ALU operand choice and m3 in a divider lane, m5 in the LSU's fault
/// tag and m4 in the branch unit, seed 3's m10 in the SIMT stack and m4 in the counters, and
/// 4e65a8d's seed 2's m4 in the scheduler and m10 in the counters).
#[test]
fn equivalence_in_context_decides_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("mutate.json");
    let (o, text) = mutate_ci_set(
        "8",
        "1",
        &["--only", "2,5", "--json", json.to_str().unwrap()],
    );
    assert!(o.status.success(), "{text}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let verdict = |id: u64| {
        summary["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mutation"]["id"] == id)
            .map(|m| {
                (
                    m["verdict"].as_str().unwrap().to_string(),
                    m["detail"].as_str().unwrap().to_string(),
                )
            })
            .unwrap_or_else(|| panic!("m{id} missing: {text}"))
    };
    let (v5, d5) = verdict(5);
    assert_eq!(v5, "equivalent", "{d5}\n{text}");
    assert!(d5.contains("dead in context"), "{d5}");
    let (v2, d2) = verdict(2);
    assert_eq!(v2, "escape", "{d2}\n{text}");
    assert!(d2.contains("module top$sm$0$div differs"), "{d2}\n{text}");
}
