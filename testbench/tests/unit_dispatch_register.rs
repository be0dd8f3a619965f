//! Unit co-simulation of the SM's dispatch register (hdl/src/dispatch_register.rs) against its
//! documented rule: every `e_*` output is the `d_*` input of the previous cycle, except the
//! unit selects `e_to_*`, which are 0 after a cycle with `reset` high; each unit's operand copy
//! is `d_data` of the previous cycle (they load at every edge). Random inputs every
//! cycle, rare resets, every output compared every cycle.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_hdl::dispatch_register::dispatch_register_verilog;
use warpforge_testbench::unit::{assert_yosys_accepts, build_unit, lint, unit_seed};
use warpforge_testbench::verilator_model::PortId;

const LANES: usize = 4;
const SOURCES: usize = 3;

/// The unit selects, cleared by reset.
const SELECTS: [&str; 5] = ["to_alu", "to_mul", "to_div", "to_lsu", "to_bu"];
/// The other scalar fields and their widths.
const FIELDS: [(&str, u32); 25] = [
    ("tag", 8),
    ("warp", 6),
    ("pc", 32),
    ("mask", LANES as u32),
    ("csr", 32),
    ("recon", 32),
    ("alu_op", 4),
    ("cmp", 3),
    ("md_op", 2),
    ("mem_size", 2),
    ("csr_step", 2),
    ("imm", 32),
    ("a_pc", 1),
    ("a_zero", 1),
    ("b_imm", 1),
    ("b_four", 1),
    ("is_csr", 1),
    ("is_store", 1),
    ("mem_unsigned", 1),
    ("is_jalr", 1),
    ("is_branch", 1),
    ("is_jal", 1),
    ("is_exit", 1),
    ("is_tmc", 1),
    ("rd_valid", 1),
];

#[test]
fn outputs_are_last_cycles_inputs_and_reset_clears_the_selects() {
    let top = "dispatch_register_unit";
    let verilog = dispatch_register_verilog::<LANES>(SOURCES, top).expect("generate");
    lint(top, &verilog).unwrap_or_else(|e| panic!("{e}"));
    assert_yosys_accepts(top, &verilog);
    let mut m = build_unit(top, &verilog, false).unwrap_or_else(|e| panic!("{e}"));
    let clock = m.port("clock").unwrap();
    let reset = m.port("reset").unwrap();
    let port = |m: &warpforge_testbench::verilator_model::LoadedModel, n: &str| -> PortId {
        m.port(n).unwrap_or_else(|e| panic!("port {n}: {e}"))
    };
    // (input, output, width, cleared by reset)
    let mut ports: Vec<(PortId, PortId, u32, bool, String)> = Vec::new();
    for s in SELECTS {
        ports.push((
            port(&m, &format!("d_{s}")),
            port(&m, &format!("e_{s}")),
            1,
            true,
            s.to_string(),
        ));
    }
    for (f, w) in FIELDS {
        ports.push((
            port(&m, &format!("d_{f}")),
            port(&m, &format!("e_{f}")),
            w,
            false,
            f.to_string(),
        ));
    }
    let d_data: Vec<PortId> = (0..SOURCES * LANES)
        .map(|i| port(&m, &format!("d_data__024{i}")))
        .collect();
    // (output name, words)
    let copies = [
        ("e_alu_data", 2 * LANES),
        ("e_mul_data", 2 * LANES),
        ("e_div_data", 2 * LANES),
        ("e_lsu_data", 2 * LANES),
        ("e_bu_data", SOURCES * LANES),
    ];
    let copy_ports: Vec<Vec<PortId>> = copies
        .iter()
        .map(|(name, n)| {
            (0..*n)
                .map(|i| port(&m, &format!("{name}__024{i}")))
                .collect()
        })
        .collect();
    // The operands of the previous cycle (None in the first).
    let mut prev_data: Option<Vec<u64>> = None;

    for (f, w) in [("sh_expo", 5)] {
        for l in 0..LANES {
            ports.push((
                port(&m, &format!("d_{f}__024{l}")),
                port(&m, &format!("e_{f}__024{l}")),
                w,
                false,
                format!("{f}[{l}]"),
            ));
        }
    }

    let seed = unit_seed("dispatch_register");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut last: Option<(bool, Vec<u64>)> = None;
    let mut selects_seen = 0u32;
    for cycle in 0..3_000 {
        let r = rng.gen_bool(0.05);
        m.set(reset, u64::from(r));
        let vals: Vec<u64> = ports
            .iter()
            .map(|p| rng.gen::<u64>() & ((1u64 << p.2) - 1))
            .collect();
        for (p, &v) in ports.iter().zip(&vals) {
            m.set(p.0, v);
        }
        let data: Vec<u64> = d_data.iter().map(|_| rng.gen::<u32>().into()).collect();
        for (&p, &v) in d_data.iter().zip(&data) {
            m.set(p, v);
        }
        m.eval();
        if let Some(want) = &prev_data {
            for (c, (name, _)) in copies.iter().enumerate() {
                for (i, (&p, &w)) in copy_ports[c].iter().zip(want).enumerate() {
                    assert_eq!(m.get(p), w, "seed {seed}, cycle {cycle}: {name}[{i}]");
                }
            }
        }
        if let Some((was_reset, prev)) = &last {
            for (p, &v) in ports.iter().zip(prev) {
                let want = if p.3 && *was_reset { 0 } else { v };
                let got = m.get(p.1);
                assert_eq!(got, want, "seed {seed}, cycle {cycle}: e_{}", p.4);
                if p.3 && got == 1 {
                    selects_seen += 1;
                }
            }
        }
        prev_data = Some(data);
        last = Some((r, vals));
        m.tick(clock);
    }
    assert!(selects_seen > 1000, "unit selects seen: {selects_seen}");
}
