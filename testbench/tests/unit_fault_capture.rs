//! Unit co-simulation of the SM's fault capture (hdl/src/fault_capture.rs) against a Rust
//! reference written from its documented rules: random reports on the three inputs (often
//! several in one cycle, to exercise the priority), rare resets, every output compared every
//! cycle while `valid` is high.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_hdl::fault_capture::fault_capture_verilog;
use warpforge_testbench::unit::{assert_yosys_accepts, build_unit, lint, unit_seed};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

/// A report or the held fault: warp, pc, cause, lane, addr.
type Record = (u64, u64, u64, u64, u64);

const SOURCES: [&str; 3] = ["issue", "branch", "lsu"];
const FIELDS: [&str; 5] = ["warp", "pc", "cause", "lane", "addr"];

/// Port of field `field` of report `source` (`issue$valid` in Verilog, `issue__024valid` in C++).
fn port(m: &LoadedModel, source: &str, field: &str) -> PortId {
    let name = format!("{source}__024{field}");
    m.port(&name)
        .unwrap_or_else(|e| panic!("port {source}${field}: {e}"))
}

fn random_record(rng: &mut ChaCha8Rng) -> Record {
    (
        rng.gen_range(0..64),
        u64::from(rng.gen::<u32>()),
        rng.gen_range(1..13),
        rng.gen_range(0..256),
        u64::from(rng.gen::<u32>()),
    )
}

#[test]
fn first_fault_is_held_with_lsu_over_branch_over_issue() {
    let top = "fault_capture_unit";
    let verilog = fault_capture_verilog(top).expect("generate");
    lint(top, &verilog).unwrap_or_else(|e| panic!("{e}"));
    assert_yosys_accepts(top, &verilog);
    let mut m = build_unit(top, &verilog, false).unwrap_or_else(|e| panic!("{e}"));
    let clock = m.port("clock").unwrap();
    let reset = m.port("reset").unwrap();
    let valid_in: Vec<PortId> = SOURCES.iter().map(|s| port(&m, s, "valid")).collect();
    let fields_in: Vec<Vec<PortId>> = SOURCES
        .iter()
        .map(|s| FIELDS.iter().map(|f| port(&m, s, f)).collect())
        .collect();
    let valid_out = m.port("valid").unwrap();
    let fields_out: Vec<PortId> = FIELDS.iter().map(|f| m.port(f).unwrap()).collect();

    let seed = unit_seed("fault_capture");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    m.set(reset, 1);
    m.tick(clock);
    let mut held: Option<Record> = None;
    let mut captures = [0u32; 3];
    for cycle in 0..5_000 {
        let r = rng.gen_bool(0.03);
        m.set(reset, u64::from(r));
        let mut reports: [Option<Record>; 3] = [None; 3];
        for (i, rep) in reports.iter_mut().enumerate() {
            let rec = random_record(&mut rng);
            // Invalid reports carry random fields too: they must be ignored.
            let v = rng.gen_bool(0.15);
            m.set(valid_in[i], u64::from(v));
            let vals = [rec.0, rec.1, rec.2, rec.3, rec.4];
            for (f, &p) in fields_in[i].iter().enumerate() {
                m.set(p, vals[f]);
            }
            if v {
                *rep = Some(rec);
            }
        }
        m.eval();
        let got_valid = m.get(valid_out) != 0;
        assert_eq!(
            got_valid,
            held.is_some(),
            "seed {seed}, cycle {cycle}: valid"
        );
        if let Some(h) = held {
            let got: Vec<u64> = fields_out.iter().map(|&p| m.get(p)).collect();
            assert_eq!(
                got,
                vec![h.0, h.1, h.2, h.3, h.4],
                "seed {seed}, cycle {cycle}: the held fault (warp, pc, cause, lane, addr)"
            );
        }
        // The edge.
        if r {
            held = None;
        } else if held.is_none() {
            if let Some((i, rec)) = reports
                .iter()
                .enumerate()
                .rev()
                .find_map(|(i, r)| r.map(|r| (i, r)))
            {
                held = Some(rec);
                captures[i] += 1;
            }
        }
        m.tick(clock);
    }
    // Each source won at least once (the priority was exercised, not just the first report).
    assert!(
        captures.iter().all(|&c| c > 0),
        "captures per source: {captures:?}"
    );
}
