//! Unit co-simulation of the SM's tag table (hdl/src/tag_table.rs) against a Rust reference
//! written from its documented rules: random allocations (only while a tag is free, as the SM
//! does), releases on the three ports (of valid and of free tags, several in one cycle, one of
//! them sometimes the entry being allocated), random read tags (inside and outside the table)
//! and rare resets; `free_tag`, `any_free`, `busy` and every read port compared every cycle.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_hdl::exec_fields::EXEC_BITS;
use warpforge_hdl::tag_table::{tag_table_verilog, RELEASE_PORTS};
use warpforge_testbench::unit::{
    assert_yosys_accepts, build_unit, lint, unit_seed, yosys_memory_count,
};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

const LANES: usize = 4;
/// The entries' pc bits (an instruction memory of 16 KiB).
const PC_MASK: u32 = 0x3ffc;

/// One entry: warp, pc, instr, exec (the packed decoded fields), recon, csr, mask, ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Entry {
    warp: u64,
    pc: u64,
    instr: u64,
    exec: u64,
    recon: u64,
    csr: u64,
    mask: u64,
    ends: u64,
}

const ALLOC: [&str; 8] = [
    "warp", "pc", "instr", "exec", "recon", "csr", "mask", "ends",
];

fn fields(e: &Entry) -> [u64; 8] {
    [
        e.warp, e.pc, e.instr, e.exec, e.recon, e.csr, e.mask, e.ends,
    ]
}

fn port(m: &LoadedModel, name: &str) -> PortId {
    m.port(name)
        .or_else(|_| m.port(&name.replace('$', "__024")))
        .unwrap_or_else(|e| panic!("port {name}: {e}"))
}

fn run(tags: usize, warps: usize, seed: u64) {
    let top = format!("tag_table_t{tags}_w{warps}");
    let verilog = tag_table_verilog::<LANES>(tags, warps, PC_MASK, &top).expect("generate");
    lint(&top, &verilog).unwrap_or_else(|e| panic!("{e}"));
    assert_yosys_accepts(&top, &verilog);
    let mut m = build_unit(&top, &verilog, false).unwrap_or_else(|e| panic!("{e}"));
    let p = |n: &str| port(&m, n);
    let (clock, reset) = (p("clock"), p("reset"));
    let alloc_valid = p("alloc_valid");
    let alloc: Vec<PortId> = ALLOC.iter().map(|f| p(&format!("alloc_{f}"))).collect();
    let rel_valid: Vec<PortId> = (0..RELEASE_PORTS)
        .map(|i| p(&format!("rel_valid${i}")))
        .collect();
    let rel_tag: Vec<PortId> = (0..RELEASE_PORTS)
        .map(|i| p(&format!("rel_tag${i}")))
        .collect();
    let busy: Vec<PortId> = (0..warps).map(|w| p(&format!("busy${w}"))).collect();
    let (free_tag, any_free) = (p("free_tag"), p("any_free"));
    let (disp_tag, wb_tag, fault_tag) = (p("disp_tag"), p("wb_tag"), p("fault_tag"));
    let disp: Vec<PortId> = ["pc", "recon", "csr", "mask", "ends"]
        .iter()
        .map(|f| p(&format!("disp_{f}")))
        .collect();
    let disp_exec = p("disp_exec");
    let wb_instr = p("wb_instr");
    let fault_pc = p("fault_pc");

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut table: Vec<Option<Entry>> = vec![None; tags];
    m.set(reset, 1);
    m.tick(clock);
    let mut full_cycles = 0;
    // The tag allocated at the last edge: the dispatch port sees its RAM fields one cycle later.
    let mut just_allocated: Option<u64> = None;
    for cycle in 0..4_000 {
        let ctx = format!("{tags} tags, {warps} warps, seed {seed}, cycle {cycle}");
        let r = rng.gen_bool(0.005);
        m.set(reset, u64::from(r));
        let free = table.iter().position(|e| e.is_none());
        full_cycles += u32::from(free.is_none());
        let do_alloc = free.is_some() && rng.gen_bool(0.6);
        let e = Entry {
            warp: rng.gen_range(0..warps as u64),
            pc: u64::from(rng.gen::<u32>()),
            instr: u64::from(rng.gen::<u32>()),
            exec: rng.gen::<u64>() >> (64 - EXEC_BITS),
            recon: u64::from(rng.gen::<u32>()),
            csr: u64::from(rng.gen::<u32>()),
            mask: rng.gen_range(0..1 << LANES),
            ends: rng.gen_range(0..2),
        };
        m.set(alloc_valid, u64::from(do_alloc));
        for (i, v) in fields(&e).iter().enumerate() {
            m.set(alloc[i], *v);
        }
        let mut rels = Vec::new();
        for i in 0..RELEASE_PORTS {
            let v = rng.gen_bool(0.3);
            let t = rng.gen_range(0..tags as u64);
            m.set(rel_valid[i], u64::from(v));
            m.set(rel_tag[i], t);
            if v {
                rels.push(t as usize);
            }
        }
        let reads: Vec<u64> = (0..3).map(|_| rng.gen_range(0..tags as u64 + 2)).collect();
        m.set(disp_tag, reads[0]);
        m.set(wb_tag, reads[1]);
        m.set(fault_tag, reads[2]);
        m.eval();

        assert_eq!(m.get(any_free) != 0, free.is_some(), "{ctx}: any_free");
        assert_eq!(m.get(free_tag), free.unwrap_or(0) as u64, "{ctx}: free_tag");
        for (w, &b) in busy.iter().enumerate() {
            let want = table.iter().flatten().any(|e| e.warp == w as u64);
            assert_eq!(m.get(b) != 0, want, "{ctx}: busy[{w}]");
        }
        let entry = |t: u64| -> Entry {
            table
                .get(t as usize)
                .copied()
                .flatten()
                // A free entry reads its stale contents in the RTL: only valid ones are compared.
                .unwrap_or_default()
        };
        let valid = |t: u64| table.get(t as usize).is_some_and(|e| e.is_some());
        let out_of_table = |t: u64| t as usize >= tags;
        let seen_by_dispatch = just_allocated != Some(reads[0]);
        if (valid(reads[0]) && seen_by_dispatch) || out_of_table(reads[0]) {
            let d = entry(reads[0]);
            let want = [d.pc & u64::from(PC_MASK), d.recon, d.csr, d.mask, d.ends];
            let got: Vec<u64> = disp.iter().map(|&q| m.get(q)).collect();
            assert_eq!(got, want, "{ctx}: dispatch read of tag {}", reads[0]);
        } else if valid(reads[0]) {
            // Allocated at the last edge: only `ends` (flip-flops) is defined yet.
            let ends = *disp.last().unwrap();
            assert_eq!(
                m.get(ends),
                entry(reads[0]).ends,
                "{ctx}: dispatch `ends` of tag {}",
                reads[0]
            );
        }
        // The decoded fields are read ungated: defined for an entry of the table only.
        if valid(reads[0]) && seen_by_dispatch {
            assert_eq!(
                m.get(disp_exec),
                entry(reads[0]).exec,
                "{ctx}: dispatch read of the decoded fields of tag {}",
                reads[0]
            );
        }
        if valid(reads[1]) || out_of_table(reads[1]) {
            assert_eq!(
                m.get(wb_instr),
                entry(reads[1]).instr,
                "{ctx}: writeback read of tag {}",
                reads[1]
            );
        }
        if valid(reads[2]) || out_of_table(reads[2]) {
            assert_eq!(
                m.get(fault_pc),
                entry(reads[2]).pc & u64::from(PC_MASK),
                "{ctx}: fault read of tag {}",
                reads[2]
            );
        }

        // The edge: releases, then the allocation (which wins), then reset.
        for t in rels {
            table[t] = None;
        }
        just_allocated = None;
        if do_alloc {
            table[free.unwrap()] = Some(e);
            just_allocated = free.map(|t| t as u64);
        }
        if r {
            table.iter_mut().for_each(|e| *e = None);
        }
        m.tick(clock);
    }
    assert!(full_cycles > 0, "{tags} tags: the table was never full");
}

#[test]
fn allocation_release_and_reads_match_the_reference() {
    let seed = unit_seed("tag_table");
    for (tags, warps) in [(1, 1), (6, 4), (11, 8), (16, 16)] {
        run(tags, warps, seed ^ (tags as u64) << 8 ^ warps as u64);
    }
}

/// The fields written at allocation are RAM, not flip-flops: yosys infers one memory per field
/// (PC, instruction, decoded fields, sidecar, CSR value, mask) for the tag counts of the presets.
#[test]
fn fields_are_inferred_as_memories() {
    for (tags, warps) in [(7, 4), (13, 8), (21, 48)] {
        let top = format!("tag_table_mem_t{tags}_w{warps}");
        let verilog = tag_table_verilog::<LANES>(tags, warps, PC_MASK, &top).expect("generate");
        let n = yosys_memory_count(&top, &verilog).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 6, "{tags} tags: {n} memories");
    }
}
