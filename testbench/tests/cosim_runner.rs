//! The lock-step runner end to end under Verilator, before and independently of the real RTL:
//! the "RTL" is a replay (`lockstep::script`) of an idealised GPU driven by the golden model,
//! emitted as a `warpforge_top` with the real port list. This checks the Verilator build,
//! the port names (`name$i` → `name__024i`) and widths, clocking and the start pulse, the
//! memory port, the counters, the checks, the reports and the VCD re-run.

mod cosim_common;

use std::path::PathBuf;

use cosim_common::random_setup;
use warpforge_config::GpuConfig;
use warpforge_isa::{csr, AluOp, BranchOp, CsrOp, Instr, LoadOp, SimtOp, StoreOp};
use warpforge_loader::{from_words, KernelImage};
use warpforge_randprog::asm::Asm;
use warpforge_randprog::{generate, Options};
use warpforge_sim::Gpu;
use warpforge_testbench::lockstep::script::{ideal_script, Script};
use warpforge_testbench::lockstep::{
    cosim, kernel_start_cycle, CosimError, CosimOptions, CosimOutcome, Launch, RecordKind, Value,
    COUNTER_BASE,
};

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cosim-runner-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_verilog(dir: &std::path::Path, script: &Script) -> PathBuf {
    let p = dir.join("warpforge_top.v");
    std::fs::write(&p, script.verilog()).unwrap();
    p
}

/// `out[gtid] = gtid (+100 on odd threads)` through a divergent branch.
fn store_gtid() -> KernelImage {
    let mut a = Asm::new();
    let i = |a: &mut Asm, x: Instr| {
        a.i(x);
    };
    i(
        &mut a,
        Instr::Csr {
            op: CsrOp::Rs,
            rd: 10,
            src: 0,
            csr: csr::PARAM,
        },
    );
    i(
        &mut a,
        Instr::Load {
            op: LoadOp::Lw,
            rd: 5,
            rs1: 10,
            imm: 0,
        },
    );
    i(
        &mut a,
        Instr::Csr {
            op: CsrOp::Rs,
            rd: 6,
            src: 0,
            csr: csr::GTID,
        },
    );
    i(
        &mut a,
        Instr::OpImm {
            op: AluOp::Sll,
            rd: 7,
            rs1: 6,
            imm: 2,
        },
    );
    i(
        &mut a,
        Instr::Op {
            op: AluOp::Add,
            rd: 5,
            rs1: 5,
            rs2: 7,
        },
    );
    i(
        &mut a,
        Instr::OpImm {
            op: AluOp::And,
            rd: 29,
            rs1: 6,
            imm: 1,
        },
    );
    let skip = a.label();
    a.branch(BranchOp::Beq, 29, 0, skip);
    i(
        &mut a,
        Instr::OpImm {
            op: AluOp::Add,
            rd: 6,
            rs1: 6,
            imm: 100,
        },
    );
    a.place(skip);
    i(
        &mut a,
        Instr::Store {
            op: StoreOp::Sw,
            rs1: 5,
            rs2: 6,
            imm: 0,
        },
    );
    i(
        &mut a,
        Instr::Simt {
            op: SimtOp::Exit,
            rs1: 0,
        },
    );
    from_words(0, a.finish(), &[0]).unwrap()
}

fn store_gtid_model(cfg: &GpuConfig, image: &KernelImage, grid: u32, block: u32) -> (Gpu, Launch) {
    let mut gpu = Gpu::new(cfg, image).unwrap();
    let out = gpu.alloc(4 * grid * block).unwrap();
    let param = gpu.alloc(4).unwrap();
    gpu.write(param, &out.to_le_bytes()).unwrap();
    (gpu, Launch::new(grid, block, param))
}

#[test]
fn ideal_replay_passes_and_a_corrupted_one_is_caught_with_a_vcd() {
    let cfg = GpuConfig::tiny();
    let image = store_gtid();
    let (grid, block) = (3, 6);
    let (gpu, launch) = store_gtid_model(&cfg, &image, grid, block);
    let base = kernel_start_cycle(&image, launch.counter_base);
    let script = ideal_script(&cfg, gpu, launch, base, 100_000).unwrap();
    let issues = script.find(|o| o.issue.is_some()).len() as u64;

    let dir = scratch("ideal");
    let opts = CosimOptions {
        verilog: Some(write_verilog(&dir, &script)),
        repro: "ideal replay".into(),
        ..Default::default()
    };
    let (gpu, launch) = store_gtid_model(&cfg, &image, grid, block);
    let r = cosim(&cfg, &image, gpu, launch, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.outcome, CosimOutcome::Finished);
    assert_eq!(Some(r.cycles), script.done_at);
    assert_eq!(r.issue_records, issues);
    let idles = script.find(|o| o.idle).len() as u64;
    assert!(idles > 0);
    assert_eq!(
        (r.sms[0].issued, r.sms[0].idle, r.sms[0].conflicts),
        (issues, idles, 0),
        "counters read from ctr_*$0, less COUNTER_BASE"
    );
    assert_eq!(r.sms[0].mem.writes, u64::from(grid * block));
    assert!((r.ipc - issues as f64 / r.cycles as f64).abs() < 1e-9);
    let out = u32::from_le_bytes(r.read(launch.param, 4).unwrap().try_into().unwrap());
    let got = r.read(out, 4 * grid * block).unwrap();
    let want: Vec<u8> = (0..grid * block)
        .flat_map(|t| (if t % 2 == 1 { t + 100 } else { t }).to_le_bytes())
        .collect();
    assert_eq!(got, &want[..]);

    // Lane 2's value of a writeback in the middle of the run, off by one bit.
    let wbs = script.find(|o| o.wb.is_some_and(|w| w.mask & 0b100 != 0));
    let (k, s) = wbs[wbs.len() / 2];
    let mut bad = script.clone();
    let wb = bad.cycles[k as usize][s].wb.as_mut().unwrap();
    let good = wb.data[2];
    wb.data[2] ^= 0x10;
    let dir = scratch("corrupt");
    let vcd_dir = dir.join("vcd");
    let opts = CosimOptions {
        verilog: Some(write_verilog(&dir, &bad)),
        vcd_on_failure: Some(vcd_dir.clone()),
        repro: "corrupted replay".into(),
        ..Default::default()
    };
    let (gpu, launch) = store_gtid_model(&cfg, &image, grid, block);
    let err = cosim(&cfg, &image, gpu, launch, &opts).expect_err("corruption caught");
    let CosimError::Mismatch(m) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (m.kind, m.kernel_cycle, m.cycle),
        (RecordKind::Writeback, k, image.text.len() as u64 + k)
    );
    let f = m.field("value", Some(2)).unwrap();
    assert_eq!(
        (&f.expected, &f.actual),
        (&Value::word(good), &Value::word(good ^ 0x10))
    );
    let text = err.to_string();
    assert!(text.contains("reproduce: corrupted replay"), "{text}");
    let vcd = m
        .context
        .vcd
        .clone()
        .unwrap_or_else(|| panic!("no VCD:\n{text}"));
    assert!(vcd.starts_with(&vcd_dir));
    let dump = std::fs::read_to_string(&vcd).unwrap();
    assert!(dump.contains("tr_wb_data"), "VCD lacks the trace ports");
    assert!(
        m.context
            .vcd_note
            .as_deref()
            .unwrap()
            .starts_with("kernel cycles 0..="),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);

    // A counter that misses its events: `ctr_issued` stuck at its reset value. Caught at the
    // cycle after the first issue record.
    let v = script.verilog().replace(
        "if (tr_issue_valid$0) issued$0 <= issued$0 + 32'd1;",
        "if (1'b0) issued$0 <= issued$0 + 32'd1;",
    );
    assert_ne!(v, script.verilog(), "the replay's counter changed");
    let dir = scratch("counter");
    let path = dir.join("warpforge_top.v");
    std::fs::write(&path, v).unwrap();
    let opts = CosimOptions {
        verilog: Some(path),
        repro: "counter replay".into(),
        ..Default::default()
    };
    let (gpu, launch) = store_gtid_model(&cfg, &image, grid, block);
    let err = cosim(&cfg, &image, gpu, launch, &opts).expect_err("stuck counter caught");
    let CosimError::Mismatch(m) = &err else {
        panic!("{err}")
    };
    let first_issue = script.find(|o| o.issue.is_some())[0].0;
    assert_eq!(
        (m.kind, m.sm, m.kernel_cycle),
        (RecordKind::Counters, Some(0), first_issue + 1),
        "{err}"
    );
    let f = m.field("ctr_issued", None).unwrap();
    assert_eq!(
        (&f.expected, &f.actual),
        (
            &Value::Hex(u64::from(COUNTER_BASE as u32) + 1, 8),
            &Value::Hex(u64::from(COUNTER_BASE as u32), 8)
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two SMs of eight lanes: per-SM and per-lane port indices (`tr_wb_data$15`), and a random
/// program with barriers, shared memory, loops and calls.
#[test]
fn ideal_replay_of_a_random_program_on_two_sms() {
    let cfg = GpuConfig::small();
    let opts = Options {
        statements: 10,
        max_depth: 2,
        functions: 1,
    };
    let p = generate(5, cfg.lanes, cfg.warps * cfg.lanes, &opts);
    let s = random_setup(&cfg, &p);
    let base = kernel_start_cycle(&s.image, s.launch.counter_base);
    let script = ideal_script(&cfg, s.gpu, s.launch, base, 1_000_000).unwrap();
    assert!(
        !script
            .find(|o| o.issue.is_some())
            .iter()
            .all(|&(_, sm)| sm == 0),
        "both SMs issue"
    );
    let dir = scratch("small");
    // Both lane layouts: one port per lane (the spec), one packed 1024-bit port per SM.
    for packed in [false, true] {
        let path = dir.join(format!("warpforge_top_{packed}.v"));
        std::fs::write(&path, script.verilog_with(packed)).unwrap();
        let run = CosimOptions {
            verilog: Some(path),
            ..Default::default()
        };
        let s = random_setup(&cfg, &p);
        let r = cosim(&cfg, &s.image, s.gpu, s.launch, &run)
            .unwrap_or_else(|e| panic!("packed {packed}: {e}"));
        assert_eq!(r.outcome, CosimOutcome::Finished);
        assert_eq!(r.sms.len(), 2);
        // Each SM's counters from its own ports (`ctr_issued$1` is SM 1's).
        for (sm, c) in r.sms.iter().enumerate() {
            let issues = script.find(|o| o.issue.is_some());
            let mine = issues.iter().filter(|&&(_, x)| x == sm).count() as u64;
            let idles = script
                .find(|o| o.idle)
                .iter()
                .filter(|&&(_, x)| x == sm)
                .count();
            assert_eq!(
                (c.issued, c.idle, c.conflicts),
                (mine, idles as u64, 0),
                "SM {sm}"
            );
        }
        assert!(
            r.global_memory == s.expected,
            "RTL memory = scalar reference"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_top_with_wrong_ports_is_refused_with_the_list() {
    let cfg = GpuConfig::tiny();
    let image = store_gtid();
    let (gpu, launch) = store_gtid_model(&cfg, &image, 1, 4);
    let script = ideal_script(&cfg, gpu, launch, 0, 10_000).unwrap();
    let v = script
        .verilog()
        .replace("tr_issue_tag$0", "tr_issue_tg$0")
        .replace(
            "output reg [31:0] tr_cta_id$0",
            "output reg [15:0] tr_cta_id$0",
        );
    let dir = scratch("ports");
    let path = dir.join("warpforge_top.v");
    std::fs::write(&path, v).unwrap();
    let (gpu, launch) = store_gtid_model(&cfg, &image, 1, 4);
    let opts = CosimOptions {
        verilog: Some(path),
        ..Default::default()
    };
    let e = cosim(&cfg, &image, gpu, launch, &opts).unwrap_err();
    let t = e.to_string();
    assert_eq!(e.kind(), "build", "{t}");
    assert!(t.contains("docs/microarch/sm.md"), "{t}");
    assert!(t.contains("no port `tr_issue_tag$0`"), "{t}");
    assert!(
        t.contains("port `tr_cta_id$0` is 16 bits wide, the spec says 32"),
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
