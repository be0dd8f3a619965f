//! Unit co-simulation of the SM's performance counters (hdl/src/perf_counters.rs) against a
//! Rust reference written from the unit's documented behaviour: random `issued`, `idle` and
//! per-bank `conflict` inputs, rare resets and a random reset value `base`, every output
//! compared every cycle. A base near 2^32 makes every bit toggle and the counts wrap.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_hdl::perf_counters::perf_counters_verilog;
use warpforge_testbench::unit::{assert_yosys_accepts, build_unit, lint, unit_seed};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

/// The reference: counts since reset, visible one cycle after the event.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    issued: u32,
    idle: u32,
    conflicts: u32,
}

impl Counts {
    fn step(self, reset: bool, base: u32, issued: bool, idle: bool, conflicts: u32) -> Counts {
        if reset {
            return Counts {
                issued: base,
                idle: base,
                conflicts: base,
            };
        }
        Counts {
            issued: self.issued.wrapping_add(u32::from(issued)),
            idle: self.idle.wrapping_add(u32::from(idle)),
            conflicts: self.conflicts.wrapping_add(conflicts),
        }
    }
}

struct Ports {
    clock: PortId,
    reset: PortId,
    issued: PortId,
    idle: PortId,
    conflict: Vec<PortId>,
    base: PortId,
    ctr_issued: PortId,
    ctr_idle: PortId,
    ctr_conflicts: PortId,
}

impl Ports {
    fn new(m: &LoadedModel, banks: usize) -> Ports {
        let one = |n: &str| m.port(n).unwrap_or_else(|e| panic!("port {n}: {e}"));
        Ports {
            clock: one("clock"),
            reset: one("reset"),
            issued: one("issued"),
            idle: one("idle"),
            conflict: (0..banks)
                .map(|b| {
                    m.port(&format!("conflict__024{b}"))
                        .or_else(|_| m.port(&format!("conflict${b}")))
                        .unwrap_or_else(|e| panic!("port conflict${b}: {e}"))
                })
                .collect(),
            base: one("base"),
            ctr_issued: one("ctr_issued"),
            ctr_idle: one("ctr_idle"),
            ctr_conflicts: one("ctr_conflicts"),
        }
    }

    fn read(&self, m: &LoadedModel) -> Counts {
        Counts {
            issued: m.get(self.ctr_issued) as u32,
            idle: m.get(self.ctr_idle) as u32,
            conflicts: m.get(self.ctr_conflicts) as u32,
        }
    }
}

fn model(banks: usize) -> (LoadedModel, Ports) {
    let top = format!("perf_counters_b{banks}");
    let verilog = perf_counters_verilog(banks, &top).expect("generate");
    lint(&top, &verilog).unwrap_or_else(|e| panic!("{e}"));
    assert_yosys_accepts(&top, &verilog);
    let m = build_unit(&top, &verilog, false).unwrap_or_else(|e| panic!("{e}"));
    let p = Ports::new(&m, banks);
    (m, p)
}

/// Drive `cycles` random cycles (event density `density`) from the reset state and compare.
fn run(banks: usize, cycles: u64, density: f64, seed: u64) {
    let (mut m, p) = model(banks);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    m.set(p.reset, 1);
    m.tick(p.clock);
    let mut want = Counts::default();
    for cycle in 0..cycles {
        let reset = rng.gen_bool(0.002);
        // Half the resets load a value just below the wrap, the others any value.
        let base: u32 = if rng.gen_bool(0.5) {
            0u32.wrapping_sub(rng.gen_range(1..200))
        } else {
            rng.gen()
        };
        m.set(p.base, u64::from(base));
        let issued = rng.gen_bool(density);
        let idle = !issued && rng.gen_bool(density);
        let conflict: Vec<bool> = (0..banks).map(|_| rng.gen_bool(density)).collect();
        m.set(p.reset, u64::from(reset));
        m.set(p.issued, u64::from(issued));
        m.set(p.idle, u64::from(idle));
        for (b, &c) in conflict.iter().enumerate() {
            m.set(p.conflict[b], u64::from(c));
        }
        m.eval();
        let got = p.read(&m);
        assert_eq!(
            got, want,
            "{banks} banks, seed {seed}, cycle {cycle}: counters before the edge"
        );
        let n = conflict.iter().filter(|&&c| c).count() as u32;
        want = want.step(reset, base, issued, idle, n);
        m.tick(p.clock);
    }
    assert_eq!(p.read(&m), want, "{banks} banks, seed {seed}: final counts");
    assert!(
        want.issued > 0 && want.conflicts > 0,
        "the stimulus counted nothing: {want:?}"
    );
}

#[test]
fn counters_match_the_reference_for_one_two_four_and_eight_banks() {
    let seed = unit_seed("perf_counters");
    for banks in [1, 2, 4, 8, 32] {
        run(banks, 3_000, 0.5, seed ^ banks as u64);
    }
}

#[test]
fn dense_events_carry_into_the_upper_bits() {
    // Every bank conflicting in every cycle: the conflict count grows by 8 a cycle, so 40,000
    // cycles reach bit 18; no reset (the reference is the closed form).
    let (mut m, p) = model(8);
    m.set(p.base, 0);
    m.set(p.reset, 1);
    m.tick(p.clock);
    m.set(p.reset, 0);
    m.set(p.issued, 1);
    m.set(p.idle, 0);
    for &c in &p.conflict {
        m.set(c, 1);
    }
    m.ticks(p.clock, 40_000);
    m.eval();
    let got = p.read(&m);
    assert_eq!(
        got,
        Counts {
            issued: 40_000,
            idle: 0,
            conflicts: 320_000
        }
    );
}
