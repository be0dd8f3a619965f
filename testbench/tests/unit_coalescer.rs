//! Unit co-simulation of the coalescer (hdl/src/coalescer.rs) against its reference
//! `warpforge_sim::coalescer::Coalescer` (both written from docs/microarch/coalescer.md).
//!
//! * Random lock-step runs on the `tiny`, `small` and `fermi` presets: random masks (all,
//!   none, one lane, random), addresses clustered on a few lines so lines repeat (unit stride,
//!   a stride of one line, one address, a few lines, any address, misaligned lanes), sizes 0–3,
//!   loads and stores, random `in_valid` (an offered access is sometimes replaced before it is
//!   accepted) and `out_ready` in phases of different densities, rare resets. `in_ready` and
//!   `out_valid` are compared every cycle, every other `out_*` field in every cycle with
//!   `out_valid` (the page defines them only then); the counters of a port monitor of the RTL
//!   are compared with the reference's at the end.
//! * Directed accesses with the exact request counts of the page's table (computed here from
//!   the page's formulas, not from the reference), each also run in lock-step with the
//!   reference, and the page's timing examples cycle by cycle.
//!
//! A failure names the preset, the cycle, the field, expected and actual values, and the
//! command that reproduces it (`WARPFORGE_SEED`, `WARPFORGE_UNIT_CYCLES`: testbench/src/unit.rs).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::GpuConfig;
use warpforge_hdl::coalescer::coalescer_verilog;
use warpforge_sim::coalescer::{
    size_bytes, Access, Coalescer, CoalescerInputs, CoalescerOutputs, CoalescerStats, Geometry,
    LineRequest,
};
use warpforge_testbench::unit::{checked_unit, unit_cycles, unit_seed};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

const TEST: &str = "cargo test --release -p warpforge-testbench --test unit_coalescer";

/// Global memory's base: realistic line numbers with high bits set.
const GMEM: u32 = 0x8000_0000;

/// The Verilated unit of one preset and its ports.
struct Dut {
    m: LoadedModel,
    g: Geometry,
    preset: String,
    clock: PortId,
    reset: PortId,
    in_valid: PortId,
    in_ready: PortId,
    in_tag: PortId,
    in_store: PortId,
    in_size: PortId,
    in_mask: Vec<PortId>,
    in_addr: Vec<PortId>,
    in_data: Vec<PortId>,
    out_valid: PortId,
    out_ready: PortId,
    out_tag: PortId,
    out_store: PortId,
    out_size: PortId,
    out_line: PortId,
    out_lanes: Vec<PortId>,
    out_offset: Vec<PortId>,
    out_bytes: PortId,
    out_data: PortId,
    out_last: PortId,
}

fn port(m: &LoadedModel, name: &str) -> PortId {
    m.port(name)
        .or_else(|_| m.port(&name.replace('$', "__024")))
        .unwrap_or_else(|e| panic!("port {name}: {e}"))
}

/// A preset's configuration, or for `l{L}_b{B}` `tiny`'s with `lanes = L` and `line_bytes = B`
/// (the only parameters of the unit): geometries no preset has.
fn config(name: &str) -> GpuConfig {
    if let Some((l, b)) = name
        .strip_prefix('l')
        .and_then(|x| x.split_once("_b"))
        .and_then(|(l, b)| Some((l.parse().ok()?, b.parse().ok()?)))
    {
        let mut cfg = GpuConfig::preset("tiny").expect("tiny");
        cfg.lanes = l;
        cfg.line_bytes = b;
        return cfg;
    }
    GpuConfig::preset(name).unwrap_or_else(|e| panic!("preset {name}: {e}"))
}

impl Dut {
    /// Generate, lint (`verilator --lint-only -Wall`), check in yosys and build the unit of
    /// `preset` ([`config`]).
    fn new(preset: &str) -> Dut {
        let cfg = config(preset);
        let g = Geometry::new(&cfg);
        let top = format!("coalescer_{preset}");
        let verilog = coalescer_verilog(&cfg, &top).unwrap_or_else(|e| panic!("{e}"));
        // Lint and yosys once per preset and process (the fermi lint takes seconds).
        let m = checked_unit(&top, &verilog);
        let p = |n: &str| port(&m, n);
        let lanes =
            |n: &str| -> Vec<PortId> { (0..g.lanes).map(|l| p(&format!("{n}${l}"))).collect() };
        Dut {
            clock: p("clock"),
            reset: p("reset"),
            in_valid: p("in_valid"),
            in_ready: p("in_ready"),
            in_tag: p("in_tag"),
            in_store: p("in_store"),
            in_size: p("in_size"),
            in_mask: lanes("in_mask"),
            in_addr: lanes("in_addr"),
            in_data: lanes("in_data"),
            out_valid: p("out_valid"),
            out_ready: p("out_ready"),
            out_tag: p("out_tag"),
            out_store: p("out_store"),
            out_size: p("out_size"),
            out_line: p("out_line"),
            out_lanes: lanes("out_lanes"),
            out_offset: lanes("out_offset"),
            out_bytes: p("out_bytes"),
            out_data: p("out_data"),
            out_last: p("out_last"),
            m,
            g,
            preset: preset.to_string(),
        }
    }

    /// Set this cycle's inputs (`a` is on the `in_*` ports whether or not `valid`), evaluate,
    /// and read the outputs. The clock edge is [`Dut::tick`].
    fn drive(&mut self, reset: bool, valid: bool, a: &Access, out_ready: bool) -> CoalescerOutputs {
        let m = &mut self.m;
        m.set(self.reset, u64::from(reset));
        m.set(self.in_valid, u64::from(valid));
        m.set(self.in_tag, u64::from(a.tag));
        m.set(self.in_store, u64::from(a.store));
        m.set(self.in_size, u64::from(a.size & 3));
        for l in 0..self.g.lanes {
            m.set(self.in_mask[l], u64::from(a.mask >> l & 1));
            m.set(
                self.in_addr[l],
                u64::from(a.addr.get(l).copied().unwrap_or(0)),
            );
            m.set(
                self.in_data[l],
                u64::from(a.data.get(l).copied().unwrap_or(0)),
            );
        }
        m.set(self.out_ready, u64::from(out_ready));
        m.eval();
        self.read()
    }

    fn read(&self) -> CoalescerOutputs {
        let m = &self.m;
        let b = self.g.line_bytes as usize;
        let out = (m.get(self.out_valid) != 0).then(|| {
            let mut bytes = vec![0u32; b.div_ceil(32)];
            m.get_words(self.out_bytes, &mut bytes);
            let mut data = vec![0u32; b / 4];
            m.get_words(self.out_data, &mut data);
            LineRequest {
                tag: m.get(self.out_tag) as u16,
                store: m.get(self.out_store) != 0,
                size: m.get(self.out_size) as u8,
                line: m.get(self.out_line) as u32,
                lanes: (0..self.g.lanes)
                    .map(|l| (m.get(self.out_lanes[l]) as u32) << l)
                    .sum(),
                offset: (0..self.g.lanes)
                    .map(|l| m.get(self.out_offset[l]) as u32)
                    .collect(),
                bytes: (0..b).map(|k| bytes[k / 32] >> (k % 32) & 1 == 1).collect(),
                data: (0..b)
                    .map(|k| (data[k / 4] >> (8 * (k % 4))) as u8)
                    .collect(),
                last: m.get(self.out_last) != 0,
            }
        });
        CoalescerOutputs {
            in_ready: m.get(self.in_ready) != 0,
            out,
        }
    }

    fn tick(&mut self) {
        self.m.tick(self.clock);
    }

    /// One reset cycle (no handshake in it), then idle inputs.
    fn reset(&mut self) {
        self.drive(true, false, &Access::default(), false);
        self.tick();
    }
}

/// The first field where `got` differs from `want`, as "field: expected …, actual …".
/// `items` joined, at most the first 8.
fn first8(items: Vec<String>) -> String {
    let more = items.len().saturating_sub(8);
    let mut t = items.into_iter().take(8).collect::<Vec<_>>().join("; ");
    if more > 0 {
        t.push_str(&format!("; … {more} more"));
    }
    t
}

fn diff(g: &Geometry, want: &CoalescerOutputs, got: &CoalescerOutputs) -> Option<String> {
    if want.in_ready != got.in_ready {
        return Some(format!(
            "in_ready: expected {}, actual {}",
            want.in_ready as u8, got.in_ready as u8
        ));
    }
    let (w, a) = match (&want.out, &got.out) {
        (None, None) => return None,
        (w, a) if w.is_some() != a.is_some() => {
            return Some(format!(
                "out_valid: expected {}, actual {} (expected request {w:x?}, actual {a:x?})",
                w.is_some() as u8,
                a.is_some() as u8
            ))
        }
        (Some(w), Some(a)) => (w, a),
        _ => unreachable!(),
    };
    let scalar = |name: &str, x: u64, y: u64| -> Option<String> {
        (x != y).then(|| format!("{name}: expected {x:#x}, actual {y:#x}"))
    };
    scalar("out_tag", w.tag.into(), a.tag.into())
        .or_else(|| scalar("out_store", w.store.into(), a.store.into()))
        .or_else(|| scalar("out_size", w.size.into(), a.size.into()))
        .or_else(|| scalar("out_line", w.line.into(), a.line.into()))
        .or_else(|| {
            let lanes: Vec<String> = (0..g.lanes)
                .filter(|&l| w.lanes >> l & 1 != a.lanes >> l & 1)
                .map(|l| {
                    format!(
                        "lane {l}: expected {}, actual {}",
                        w.lanes >> l & 1,
                        a.lanes >> l & 1
                    )
                })
                .collect();
            (!lanes.is_empty()).then(|| format!("out_lanes: {}", first8(lanes)))
        })
        .or_else(|| {
            let lanes: Vec<String> = (0..g.lanes)
                .filter(|&l| w.offset[l] != a.offset[l])
                .map(|l| {
                    format!(
                        "lane {l}: expected {:#x}, actual {:#x}",
                        w.offset[l], a.offset[l]
                    )
                })
                .collect();
            (!lanes.is_empty()).then(|| format!("out_offset: {}", first8(lanes)))
        })
        .or_else(|| {
            let bytes: Vec<String> = (0..w.bytes.len())
                .filter(|&k| w.bytes[k] != a.bytes[k])
                .map(|k| {
                    format!(
                        "byte {k}: expected {}, actual {}",
                        w.bytes[k] as u8, a.bytes[k] as u8
                    )
                })
                .collect();
            (!bytes.is_empty()).then(|| format!("out_bytes: {}", first8(bytes)))
        })
        .or_else(|| {
            let bytes: Vec<String> = (0..w.data.len())
                .filter(|&k| w.data[k] != a.data[k])
                .map(|k| {
                    format!(
                        "byte {k}: expected {:#04x}, actual {:#04x}",
                        w.data[k], a.data[k]
                    )
                })
                .collect();
            (!bytes.is_empty()).then(|| format!("out_data: {}", first8(bytes)))
        })
        .or_else(|| scalar("out_last", w.last.into(), a.last.into()))
}

/// The RTL and the reference in lock-step; every cycle compared.
struct Lockstep {
    dut: Dut,
    model: Coalescer,
    cycle: u64,
    /// How to reproduce a failure.
    repro: String,
    /// The counters, from a monitor of the RTL's ports (page, "Counters").
    seen: CoalescerStats,
    taken_in_access: usize,
    /// The last few cycles' inputs and outputs, for a failure report.
    history: Vec<String>,
}

impl Lockstep {
    fn new(preset: &str, repro: String) -> Lockstep {
        let mut dut = Dut::new(preset);
        dut.reset();
        let model = Coalescer::with_geometry(dut.g);
        Lockstep {
            seen: CoalescerStats::new(dut.g.lanes),
            taken_in_access: 0,
            model,
            dut,
            cycle: 0,
            repro,
            history: Vec::new(),
        }
    }

    /// One cycle: drive both, compare, count, clock. Returns the (equal) outputs.
    fn step(&mut self, reset: bool, valid: bool, a: &Access, out_ready: bool) -> CoalescerOutputs {
        let got = self.dut.drive(reset, valid, a, out_ready);
        let want = self.model.step(&CoalescerInputs {
            reset,
            input: valid.then(|| a.clone()),
            out_ready,
        });
        self.history.push(format!(
            "cycle {}: reset {} in_valid {} out_ready {} | in_ready {} out_valid {}{}",
            self.cycle,
            reset as u8,
            valid as u8,
            out_ready as u8,
            got.in_ready as u8,
            got.out.is_some() as u8,
            got.out
                .as_ref()
                .map(|o| format!(
                    " line {:#x} lanes {:#x} last {}",
                    o.line, o.lanes, o.last as u8
                ))
                .unwrap_or_default()
        ));
        if self.history.len() > 8 {
            self.history.remove(0);
        }
        if let Some(d) = diff(&self.dut.g, &want, &got) {
            panic!(
                "coalescer `{}`, cycle {}: {d}\noffered access: valid {} {a:x?}\nlast cycles (RTL):\n  {}\nreproduce: {}",
                self.dut.preset,
                self.cycle,
                valid as u8,
                self.history.join("\n  "),
                self.repro
            );
        }
        if !reset {
            let st = &mut self.seen;
            if valid && got.in_ready {
                let mask = a.mask & self.dut.g.lane_mask();
                if mask == 0 {
                    st.empty_accesses += 1;
                    st.requests_per_access[0] += 1;
                } else {
                    st.accesses += 1;
                    st.active_lanes += u64::from(mask.count_ones());
                }
            }
            if let Some(o) = &got.out {
                if out_ready {
                    st.requests += 1;
                    self.taken_in_access += 1;
                    if o.last {
                        st.requests_per_access[self.taken_in_access.min(self.dut.g.lanes)] += 1;
                        self.taken_in_access = 0;
                    }
                } else {
                    st.stall_cycles += 1;
                }
            }
        } else {
            self.taken_in_access = 0;
        }
        self.dut.tick();
        self.cycle += 1;
        got
    }
}

/// A random access of `g`'s shape whose lanes fall on a few lines (so that lines repeat).
fn random_access(rng: &mut ChaCha8Rng, g: &Geometry) -> Access {
    let (lanes, b) = (g.lanes, g.line_bytes);
    let size: u8 = match rng.gen_range(0..10) {
        0..=1 => 0,
        2..=3 => 1,
        4 => 3,
        _ => 2,
    };
    let n = size_bytes(size);
    // Base line: near the start of global memory, near the top of the address space, or anywhere.
    let base_line = match rng.gen_range(0..8) {
        0 => rng.gen::<u32>() >> g.offset_bits(),
        1 => (u32::MAX >> g.offset_bits()) - rng.gen_range(0..4),
        _ => (GMEM >> g.offset_bits()) + rng.gen_range(0..16),
    };
    let base = base_line << g.offset_bits();
    let aligned = |x: u32| x & !(n - 1);
    let addr: Vec<u32> = match rng.gen_range(0..7) {
        // Unit stride from a random aligned offset.
        0 | 1 => {
            let o = aligned(rng.gen_range(0..b));
            (0..lanes as u32)
                .map(|l| base.wrapping_add(o + l * n))
                .collect()
        }
        // A stride of one line (or two).
        2 => {
            let s = b * rng.gen_range(1..3);
            (0..lanes as u32)
                .map(|l| base.wrapping_add(l * s))
                .collect()
        }
        // One address.
        3 => vec![base.wrapping_add(aligned(rng.gen_range(0..b))); lanes],
        // Each lane on one of a few lines, anywhere in it.
        4 | 5 => {
            let lines = rng.gen_range(1..=4);
            (0..lanes)
                .map(|_| {
                    let line = base_line.wrapping_add(rng.gen_range(0..lines));
                    (line << g.offset_bits()) | aligned(rng.gen_range(0..b))
                })
                .collect()
        }
        // Any address.
        _ => (0..lanes).map(|_| aligned(rng.gen())).collect(),
    };
    // Rarely, misaligned lanes (the page: the bits below the size are ignored).
    let addr = if rng.gen_bool(0.05) {
        addr.into_iter().map(|a| a | rng.gen_range(0..n)).collect()
    } else {
        addr
    };
    let all = g.lane_mask();
    let mask = match rng.gen_range(0..10) {
        0..=3 => all,
        4 => 0,
        5 => 1 << rng.gen_range(0..lanes),
        // Random bits, also above the lanes (they do not exist).
        _ => rng.gen(),
    };
    Access {
        tag: rng.gen(),
        store: rng.gen_bool(0.5),
        size,
        mask,
        addr,
        data: (0..lanes).map(|_| rng.gen()).collect(),
    }
}

/// `cycles` random cycles of `preset` from `seed`.
fn random_run(preset: &str, test: &str) {
    let seed = unit_seed("unit_coalescer") ^ fnv(preset);
    let cycles = unit_cycles();
    let repro = format!(
        "WARPFORGE_SEED={} WARPFORGE_UNIT_CYCLES={cycles} {TEST} {test} (seed {seed:#x} = that ^ FNV-1a of the preset)",
        unit_seed("unit_coalescer")
    );
    let mut ls = Lockstep::new(preset, repro);
    let g = ls.dut.g;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut offered = random_access(&mut rng, &g);
    let (mut p_valid, mut p_ready) = (0.7, 0.7);
    let mut both_full = 0u64;
    let mut resets = 0u64;
    for c in 0..cycles {
        // Phases of different input and output densities.
        if c % 256 == 0 {
            p_valid = [0.2, 0.7, 1.0][rng.gen_range(0..3)];
            p_ready = [0.05, 0.4, 0.8, 1.0][rng.gen_range(0..4)];
        }
        let reset = rng.gen_bool(0.002);
        resets += u64::from(reset);
        let valid = rng.gen_bool(p_valid);
        let out_ready = rng.gen_bool(p_ready);
        // Inputs ignored while `in_valid` is low: make them garbage sometimes.
        let garbage;
        let a = if valid || rng.gen_bool(0.5) {
            &offered
        } else {
            garbage = random_access(&mut rng, &g);
            &garbage
        };
        let out = ls.step(reset, valid, a, out_ready);
        let accepted = !reset && valid && out.in_ready;
        // A new access once this one is accepted; sometimes replaced before that.
        if accepted || rng.gen_bool(0.05) {
            offered = random_access(&mut rng, &g);
        }
        if out.out.is_some() && !out.in_ready && !out_ready {
            both_full += 1;
        }
    }
    let want = ls.model.stats().clone();
    assert_eq!(
        ls.seen, want,
        "coalescer `{preset}`: counters of a monitor of the RTL's ports vs the reference's\nreproduce: {}",
        ls.repro
    );
    // The stimulus reached what it is meant to: multi-request accesses, the largest count,
    // empty accesses, back-pressure with a busy input, resets (in proportion to the run's
    // length; a run shorter than 5,000 cycles is not required to reach the rare ones).
    let multi: u64 = want.requests_per_access[2..].iter().sum();
    let (often, short) = (cycles / 200, cycles < 5_000);
    assert!(
        (multi > often || g.lanes == 1)
            && (want.requests_per_access[g.lanes] > 0 || short)
            && want.requests_per_access[1] > often
            && want.empty_accesses > often / 10
            && want.stall_cycles > often
            && both_full > often
            && (resets > 0 || short),
        "coalescer `{preset}`: weak stimulus: {want:?}, {both_full} cycles held with the input busy, {resets} resets"
    );
}

fn fnv(s: &str) -> u64 {
    warpforge_testbench::unit::fnv1a(warpforge_testbench::unit::FNV_OFFSET, s.as_bytes())
}

#[test]
fn random_lockstep_tiny() {
    random_run("tiny", "random_lockstep_tiny");
}

#[test]
fn random_lockstep_small() {
    random_run("small", "random_lockstep_small");
}

#[test]
fn random_lockstep_fermi() {
    random_run("fermi", "random_lockstep_fermi");
}

/// Geometries of no preset: one lane with 4-byte lines (no lane pair, one word per line), and
/// 16 lanes with 64-byte lines.
#[test]
fn random_lockstep_other_geometries() {
    for g in ["l1_b4", "l16_b64"] {
        random_run(g, "random_lockstep_other_geometries");
    }
}

// ---------------------------------------------------------------------------------------------
// Directed accesses.

const PRESETS: [&str; 3] = ["tiny", "small", "fermi"];

/// A request as the tests look at it: line, served lanes, byte mask, data, last.
#[derive(Clone, Debug)]
struct Seen {
    cycle: u64,
    req: LineRequest,
}

/// Reset, offer `a` in the next cycle (it must be accepted at once), then `out_ready` high
/// until the access's last request is taken (or, for an access expected to make none, a few
/// cycles). Everything in lock-step with the reference. Returns the acceptance cycle, the
/// requests taken and the cycles in which `in_ready` was high after the acceptance.
fn run_access(ls: &mut Lockstep, a: &Access, what: &str) -> (u64, Vec<Seen>, Vec<u64>) {
    ls.step(true, false, &Access::default(), false);
    let t = ls.cycle;
    let out = ls.step(false, true, a, true);
    assert!(
        out.in_ready,
        "coalescer `{}`, {what}: not accepted in the first cycle after reset",
        ls.dut.preset
    );
    let mut reqs = Vec::new();
    let mut ready = Vec::new();
    let limit = ls.dut.g.lanes as u64 + 8;
    for _ in 0..limit {
        let c = ls.cycle;
        let out = ls.step(false, false, &Access::default(), true);
        if out.in_ready {
            ready.push(c);
        }
        if let Some(r) = out.out {
            let last = r.last;
            reqs.push(Seen { cycle: c, req: r });
            if last {
                break;
            }
        }
    }
    (t, reqs, ready)
}

/// The lanes `lanes` as a mask.
fn lane_set(lanes: impl IntoIterator<Item = usize>) -> u32 {
    lanes.into_iter().fold(0, |m, l| m | 1 << l)
}

/// Check one directed access: `expect` = the served lane sets of its requests, in order.
fn check(ls: &mut Lockstep, a: &Access, what: &str, expect: &[u32]) -> Vec<LineRequest> {
    let (t, reqs, _) = run_access(ls, a, what);
    let ctx = format!("coalescer `{}`, {what} ({a:x?})", ls.dut.preset);
    let got: Vec<u32> = reqs.iter().map(|s| s.req.lanes).collect();
    assert_eq!(
        got.len(),
        expect.len(),
        "{ctx}: {} requests, expected {} (lanes served {got:#x?})",
        got.len(),
        expect.len()
    );
    assert_eq!(got, expect, "{ctx}: lanes served by each request");
    for (i, s) in reqs.iter().enumerate() {
        // One request per cycle from t + 3 with an ideal consumer (page, "Latency").
        assert_eq!(
            s.cycle,
            t + 3 + i as u64,
            "{ctx}: request {i} shown in cycle"
        );
        assert_eq!(
            s.req.last,
            i + 1 == reqs.len(),
            "{ctx}: out_last of request {i}"
        );
    }
    reqs.into_iter().map(|s| s.req).collect()
}

fn for_each_preset(test: &str, f: impl Fn(&mut Lockstep)) {
    for preset in PRESETS {
        let mut ls = Lockstep::new(preset, format!("{TEST} {test} (preset {preset})"));
        f(&mut ls);
    }
}

fn words(lanes: usize, f: impl Fn(u32) -> u32) -> Vec<u32> {
    (0..lanes as u32).map(f).collect()
}

#[test]
fn unit_stride_aligned_is_one_request_per_line() {
    for_each_preset("unit_stride_aligned_is_one_request_per_line", |ls| {
        let g = ls.dut.g;
        let (lanes, b) = (g.lanes as u32, g.line_bytes);
        let base = GMEM + 5 * b;
        for size in [0u8, 1, 2] {
            let n = size_bytes(size);
            let per_line = (b / n).min(lanes);
            // ⌈L·n / B⌉ requests; request i serves the lanes whose bytes are in line i.
            let count = (lanes * n).div_ceil(b);
            let expect: Vec<u32> = (0..count)
                .map(|i| {
                    lane_set((i * per_line..((i + 1) * per_line).min(lanes)).map(|l| l as usize))
                })
                .collect();
            let data = words(g.lanes, |l| (l + 1).wrapping_mul(0x0101_0101) ^ (l << 27));
            let a = Access::store(
                0x5a5a,
                size,
                g.lane_mask(),
                words(g.lanes, |l| base + l * n),
                data.clone(),
            );
            let reqs = check(
                ls,
                &a,
                &format!("unit stride, size {size}, base aligned"),
                &expect,
            );
            // Word accesses fill a line exactly on every preset: one request.
            if size == 2 {
                assert_eq!(reqs.len(), 1, "{}: unit-stride words", ls.dut.preset);
            }
            // The byte mask covers the lanes' bytes, the data is the lanes' data in place.
            for r in &reqs {
                let first = r.lanes.trailing_zeros();
                for l in (0..lanes).filter(|&l| r.lanes >> l & 1 == 1) {
                    let off = (l - first) * n;
                    assert_eq!(
                        r.offset[l as usize], off,
                        "{}: offset of lane {l}",
                        ls.dut.preset
                    );
                    for j in 0..n {
                        let k = (off + j) as usize;
                        assert!(r.bytes[k], "{}: byte {k} of lane {l}", ls.dut.preset);
                        assert_eq!(
                            r.data[k],
                            (data[l as usize] >> (8 * j)) as u8,
                            "{}: data byte {k}",
                            ls.dut.preset
                        );
                    }
                }
                let covered = r.bytes.iter().filter(|&&x| x).count() as u32;
                assert_eq!(
                    covered,
                    r.lanes.count_ones() * n,
                    "{}: bytes covered",
                    ls.dut.preset
                );
                assert_eq!((r.tag, r.store, r.size), (0x5a5a, true, size));
            }
        }
    });
}

#[test]
fn misaligned_unit_stride_takes_one_more() {
    for_each_preset("misaligned_unit_stride_takes_one_more", |ls| {
        let g = ls.dut.g;
        let (lanes, b) = (g.lanes as u32, g.line_bytes);
        for (size, o) in [(2u8, 4u32), (2, b - 4), (1, 2), (0, b - 1), (0, b / 2)] {
            let n = size_bytes(size);
            let base = GMEM + 9 * b + o;
            // ⌊(o + L·n − 1)/B⌋ + 1 requests; L·n/B + 1 when L·n is a multiple of B.
            let count = (o + lanes * n - 1) / b + 1;
            if (lanes * n).is_multiple_of(b) {
                assert_eq!(count, lanes * n / b + 1);
            }
            let line_of = |l: u32| (o + l * n) / b;
            let expect: Vec<u32> = (0..count)
                .map(|i| lane_set((0..lanes).filter(|&l| line_of(l) == i).map(|l| l as usize)))
                .collect();
            let a = Access::load(7, size, g.lane_mask(), words(g.lanes, |l| base + l * n));
            let reqs = check(
                ls,
                &a,
                &format!("unit stride, size {size}, offset {o}"),
                &expect,
            );
            for (i, r) in reqs.iter().enumerate() {
                assert_eq!(r.line, ((GMEM + 9 * b) >> g.offset_bits()) + i as u32);
                assert!(r.data.iter().all(|&d| d == 0), "a load's out_data is 0");
            }
        }
    });
}

#[test]
fn line_stride_is_one_request_per_active_lane() {
    for_each_preset("line_stride_is_one_request_per_active_lane", |ls| {
        let g = ls.dut.g;
        let b = g.line_bytes;
        let addr = words(g.lanes, |l| GMEM + 3 * b + l * b + 4 * (l % (b / 4)));
        // Every lane: L requests in lane order.
        let expect: Vec<u32> = (0..g.lanes).map(|l| 1 << l).collect();
        let a = Access::load(1, 2, g.lane_mask(), addr.clone());
        let reqs = check(ls, &a, "stride of one line", &expect);
        for (l, r) in reqs.iter().enumerate() {
            assert_eq!(r.line, addr[l] >> g.offset_bits());
            assert_eq!(r.offset[l], addr[l] & (b - 1));
        }
        // Every other lane active: one request per active lane.
        let mask = lane_set((0..g.lanes).filter(|l| l % 2 == 1));
        let expect: Vec<u32> = (0..g.lanes)
            .filter(|l| l % 2 == 1)
            .map(|l| 1 << l)
            .collect();
        let a = Access::load(1, 2, mask, addr);
        check(ls, &a, "stride of one line, odd lanes", &expect);
    });
}

#[test]
fn one_address_is_one_request_with_the_highest_lane_data() {
    for_each_preset(
        "one_address_is_one_request_with_the_highest_lane_data",
        |ls| {
            let g = ls.dut.g;
            let b = g.line_bytes;
            for size in [0u8, 1, 2] {
                let n = size_bytes(size);
                let addr = GMEM + 11 * b + b - n;
                let data = words(g.lanes, |l| 0x0403_0201 * (l + 1));
                let a = Access::store(3, size, g.lane_mask(), vec![addr; g.lanes], data.clone());
                let reqs = check(
                    ls,
                    &a,
                    &format!("one address, size {size}"),
                    &[g.lane_mask()],
                );
                let r = &reqs[0];
                let hi = data[g.lanes - 1];
                for k in 0..b as usize {
                    let inside = k as u32 >= b - n;
                    assert_eq!(r.bytes[k], inside, "{}: byte {k}", ls.dut.preset);
                    let want = if inside {
                        (hi >> (8 * (k as u32 - (b - n)))) as u8
                    } else {
                        0
                    };
                    assert_eq!(
                        r.data[k], want,
                        "{}: size {size}: data byte {k} (the highest lane's)",
                        ls.dut.preset
                    );
                }
                // A load of one address: one request too.
                let a = Access::load(3, size, g.lane_mask(), vec![addr; g.lanes]);
                check(
                    ls,
                    &a,
                    &format!("one address load, size {size}"),
                    &[g.lane_mask()],
                );
            }
        },
    );
}

#[test]
fn masked_lanes_are_never_served() {
    for_each_preset("masked_lanes_are_never_served", |ls| {
        let g = ls.dut.g;
        let b = g.line_bytes;
        let lanes = g.lanes;
        // Active lanes on two lines; inactive lanes on other lines each (they would add a
        // request each if counted).
        let active = |l: usize| l % 4 != 2 && (lanes > 1 || l == 0);
        let mask = lane_set((0..lanes).filter(|&l| active(l)));
        let addr = words(lanes, |l| {
            if active(l as usize) {
                GMEM + b * (l % 2) + 4 * (l / 2 % (b / 4))
            } else {
                GMEM + 64 * b + l * b
            }
        });
        let lines = if lanes == 1 { 1 } else { 2 };
        let expect: Vec<u32> = (0..lines)
            .map(|i| lane_set((0..lanes).filter(|&l| active(l) && l % 2 == i)))
            .collect();
        let data = words(lanes, |l| 0xdead_0000 + l);
        let a = Access::store(9, 2, mask, addr, data);
        let reqs = check(ls, &a, "masked lanes", &expect);
        for r in &reqs {
            for l in (0..lanes).filter(|&l| !active(l)) {
                assert_eq!(r.offset[l], 0, "an inactive lane's offset is 0");
            }
        }
        // Unit stride, every other lane active: the inactive lanes share the active lanes'
        // lines and are still not served.
        for mask in [
            lane_set((0..lanes).step_by(2)),
            lane_set((1..lanes).step_by(2)),
        ] {
            let addr = words(lanes, |l| GMEM + 2 * b + 4 * l);
            let line_of = |l: usize| (4 * l as u32) / b;
            let lines: Vec<u32> = (0..lanes)
                .filter(|&l| mask >> l & 1 == 1)
                .map(line_of)
                .fold(Vec::new(), |mut v, x| {
                    if !v.contains(&x) {
                        v.push(x);
                    }
                    v
                });
            let expect: Vec<u32> = lines
                .iter()
                .map(|&x| mask & lane_set((0..lanes).filter(|&l| line_of(l) == x)))
                .collect();
            let a = Access::load(9, 2, mask, addr);
            check(ls, &a, &format!("unit stride, mask {mask:#x}"), &expect);
        }
        // One active lane: one request serving it alone, the other lanes on its line.
        let a = Access::load(9, 2, 1 << (lanes - 1), vec![GMEM; lanes]);
        check(ls, &a, "one active lane", &[1 << (lanes - 1)]);
    });
}

#[test]
fn no_active_lane_makes_no_request_and_frees_the_input_at_once() {
    for_each_preset(
        "no_active_lane_makes_no_request_and_frees_the_input_at_once",
        |ls| {
            let g = ls.dut.g;
            let a = Access::store(
                5,
                2,
                0,
                words(g.lanes, |l| GMEM + l * 4),
                words(g.lanes, |l| l),
            );
            let (t, reqs, ready) = run_access(ls, &a, "mask 0");
            assert!(
                reqs.is_empty(),
                "{}: mask 0 made requests {reqs:x?}",
                ls.dut.preset
            );
            // Accepted in t (checked by run_access), `in_ready` again in t + 1 and after.
            assert_eq!(
                ready.first(),
                Some(&(t + 1)),
                "{}: in_ready after an empty access",
                ls.dut.preset
            );
            assert_eq!(
                ready.len() as u64,
                g.lanes as u64 + 8,
                "{}: in_ready stays high",
                ls.dut.preset
            );
            // Two empty accesses in consecutive cycles, then a real one right after.
            ls.step(true, false, &Access::default(), true);
            for i in 0..2 {
                let out = ls.step(false, true, &a, true);
                assert!(
                    out.in_ready,
                    "{}: empty access {i} not accepted at once",
                    ls.dut.preset
                );
            }
            let b = Access::load(6, 2, g.lane_mask(), words(g.lanes, |l| GMEM + l * 4));
            let t = ls.cycle;
            assert!(ls.step(false, true, &b, true).in_ready);
            let mut shown = Vec::new();
            for _ in 0..6 {
                let c = ls.cycle;
                if let Some(r) = ls.step(false, false, &Access::default(), true).out {
                    shown.push((c, r.tag));
                }
            }
            assert_eq!(
                shown,
                vec![(t + 3, 6)],
                "{}: only the real access's request",
                ls.dut.preset
            );
        },
    );
}

/// The page's examples ("Examples"), cycle by cycle, on every preset.
#[test]
fn timing_examples_of_the_page() {
    for_each_preset("timing_examples_of_the_page", |ls| {
        let g = ls.dut.g;
        let b = g.line_bytes;
        let p = ls.dut.preset.clone();
        let idle = Access::default();
        // An access of k requests: lanes 0..k on k lines (k ≥ 1; needs k ≤ L).
        let of_k = |k: usize, tag: u16| {
            Access::load(
                tag,
                2,
                lane_set(0..k),
                words(g.lanes, |l| {
                    GMEM + (l as usize).min(k.max(1) - 1) as u32 * b
                }),
            )
        };
        let empty = Access::load(99, 2, 0, words(g.lanes, |_| GMEM));

        // One access of k requests accepted in t: shown t+3 … t+k+2, in_ready again t+k+1.
        for k in [1, 2.min(g.lanes), g.lanes] {
            let (t, reqs, ready) = run_access(ls, &of_k(k, 1), "k requests");
            let cycles: Vec<u64> = reqs.iter().map(|s| s.cycle).collect();
            assert_eq!(
                cycles,
                (t + 3..t + 3 + k as u64).collect::<Vec<_>>(),
                "{p}: {k} requests shown"
            );
            assert_eq!(
                ready.first(),
                Some(&(t + k as u64 + 1)),
                "{p}: {k} requests: in_ready again"
            );
        }

        // X (2 requests) in t, then Y (1), an empty access E, then Z (1), each offered whenever
        // in_ready is high: accepts X t, Y t+3, E t+5, Z t+6; shown X0 t+3, X1 t+4, Y0 t+6, Z0 t+9.
        if g.lanes >= 2 {
            ls.step(true, false, &idle, true);
            let t = ls.cycle;
            let mut queue = vec![of_k(2, 0xa), of_k(1, 0xb), empty.clone(), of_k(1, 0xc)];
            queue.reverse();
            let (mut accepts, mut shown) = (Vec::new(), Vec::new());
            for _ in 0..14 {
                let c = ls.cycle;
                let next = queue.last().cloned();
                let out = ls.step(false, next.is_some(), next.as_ref().unwrap_or(&idle), true);
                if out.in_ready {
                    if let Some(a) = queue.pop() {
                        accepts.push((c - t, a.tag));
                    }
                }
                if let Some(r) = out.out {
                    shown.push((c - t, r.tag));
                }
            }
            assert_eq!(
                accepts,
                vec![(0, 0xa), (3, 0xb), (5, 99), (6, 0xc)],
                "{p}: accepts"
            );
            assert_eq!(
                shown,
                vec![(3, 0xa), (4, 0xa), (6, 0xb), (9, 0xc)],
                "{p}: requests shown"
            );
        }

        // 3 requests accepted in t, out_ready = 0 in t+3 … t+5: request 0 shown t+3 … t+6,
        // taken t+6; request 1 taken t+7, request 2 t+8; in_ready again t+7.
        if g.lanes >= 3 {
            ls.step(true, false, &idle, true);
            let mut taken = Vec::new();
            let mut shown0 = Vec::new();
            let mut ready = Vec::new();
            for i in 0..12u64 {
                let a = of_k(3, 0x3);
                let out_ready = !(3..=5).contains(&i);
                let out = ls.step(false, i == 0, &a, out_ready);
                if i == 0 {
                    assert!(out.in_ready, "{p}: accepted in t");
                } else if out.in_ready {
                    ready.push(i);
                }
                if let Some(r) = out.out {
                    if r.lanes == 1 {
                        shown0.push(i);
                    }
                    if out_ready {
                        taken.push((i, r.lanes));
                    }
                }
            }
            assert_eq!(shown0, vec![3, 4, 5, 6], "{p}: request 0 held");
            assert_eq!(taken, vec![(6, 1), (7, 2), (8, 4)], "{p}: requests taken");
            assert_eq!(ready.first(), Some(&7), "{p}: in_ready again");
        }

        // Reset wins: a request in O and one in S are lost, an offered access is not accepted.
        if g.lanes >= 2 {
            ls.step(true, false, &idle, true);
            ls.step(false, true, &of_k(2, 0x77), false);
            for _ in 0..3 {
                ls.step(false, false, &idle, false);
            }
            let out = ls.step(true, true, &of_k(1, 0x78), true);
            assert!(
                !out.in_ready && out.out.is_none(),
                "{p}: outputs during reset"
            );
            for _ in 0..6 {
                let out = ls.step(false, false, &idle, true);
                assert!(out.in_ready && out.out.is_none(), "{p}: after reset: idle");
            }
        }
    });
}
