//! The checker against scripted RTL behaviour (no Verilator): an ideal script of a program must
//! pass; every kind of corruption must be reported at the right cycle, warp and field.

use warpforge_config::GpuConfig;
use warpforge_isa::{csr, AluOp, CsrOp, Instr, SimtOp, StoreOp};
use warpforge_loader::{from_words, KernelImage};
use warpforge_randprog::asm::Asm;
use warpforge_randprog::{generate, Options};
use warpforge_sim::{FaultCause, Gpu};

use super::rtl::CounterEvents;
use super::script::{ideal_script, CtaRec, Script, ScriptSm};
use super::*;

/// A script replayed in place of the Verilated top, with its memory requests served by the
/// memory model (like `Session`).
struct ScriptDut<'s> {
    script: &'s Script,
    mem: MemoryModel,
    kc: u64,
    /// Per SM: `ctr_issued` and `ctr_idle` (issue records and idle cycles since reset, from
    /// `counter_base`).
    issued: Vec<u32>,
    idle: Vec<u32>,
    /// The launch's counter base's low word.
    counter_base: u32,
}

impl Dut for ScriptDut<'_> {
    fn cycle(&mut self, out: &mut CycleOut) {
        let kc = self.kc;
        let sc = self.script;
        self.mem.begin_cycle(kc);
        out.cycle_count = sc.cycle_base.wrapping_add(kc);
        out.done = kc > 0 && sc.done_at.is_some_and(|d| kc >= d);
        out.fault = sc.fault_at.filter(|(at, _)| kc >= *at).map(|(at, f)| {
            if kc > at {
                sc.fault_after.unwrap_or(f)
            } else {
                f
            }
        });
        out.busy = kc > 0 && !out.done && out.fault.is_none();
        out.protocol = None;
        out.sm.resize(sc.sms, SmOut::default());
        self.issued.resize(sc.sms, self.counter_base);
        self.idle.resize(sc.sms, self.counter_base);
        for s in 0..sc.sms {
            let o = sc.at(kc, s);
            let base = self.counter_base;
            out.sm[s] = SmOut {
                sched: o.sched,
                issue: o.issue,
                wb: o.wb,
                st: o.st,
                cta: o.cta,
                ctrs: CounterRec {
                    issued: self.issued[s],
                    idle: self.idle[s],
                    conflicts: base,
                },
                events: CounterEvents {
                    idle: o.idle,
                    ..Default::default()
                },
            };
            self.issued[s] = self.issued[s].wrapping_add(u32::from(o.issue.is_some()));
            self.idle[s] = self.idle[s].wrapping_add(u32::from(o.idle));
            if let Some(r) = o.mem {
                match self.mem.offer(s as u32, r) {
                    Ok(true) => {}
                    Ok(false) => panic!("scripts need an always-ready memory"),
                    Err(e) => {
                        out.protocol.get_or_insert(e);
                    }
                }
            }
        }
        self.kc += 1;
    }
    fn memory(&self) -> &MemoryModel {
        &self.mem
    }
    fn kernel_cycle(&self) -> u64 {
        self.kc
    }
}

/// A program and a way to build identically set-up models for it.
struct Setup {
    cfg: GpuConfig,
    image: KernelImage,
    make: Box<dyn Fn() -> (Gpu, Launch)>,
}

impl Setup {
    fn script(&self) -> Script {
        let (gpu, launch) = (self.make)();
        let start = kernel_start_cycle(&self.image, launch.counter_base);
        ideal_script(&self.cfg, gpu, launch, start, 1_000_000).expect("ideal script")
    }

    fn check(
        &self,
        script: &Script,
        opts: &CosimOptions,
    ) -> Result<(CosimOutcome, u64), CosimError> {
        self.check_observed(script, opts, &mut |_| {})
    }

    fn check_observed(
        &self,
        script: &Script,
        opts: &CosimOptions,
        observer: &mut dyn FnMut(&TraceEvent),
    ) -> Result<(CosimOutcome, u64), CosimError> {
        let (mut gpu, launch) = (self.make)();
        gpu.launch_driven(launch.grid, launch.block, launch.param)
            .unwrap();
        let mem = MemoryModel::new(&opts.mem, self.cfg.sms, gpu.global_memory().to_vec());
        let context = RunContext {
            config_name: self.cfg.name.clone(),
            config_hash: self.cfg.hash_hex(),
            mem: opts.mem.clone(),
            vcd: None,
            vcd_note: Some("not requested".into()),
            repro: "repro-line".into(),
        };
        let mut ck = Checker::new(
            &self.cfg,
            &self.image,
            gpu,
            launch.counter_base,
            opts,
            context,
        );
        let mut dut = ScriptDut {
            script,
            mem,
            kc: 0,
            issued: Vec::new(),
            idle: Vec::new(),
            counter_base: launch.counter_base as u32,
        };
        run_loop(&mut dut, &mut ck, opts, observer)
    }

    fn mismatch(&self, script: &Script) -> MismatchReport {
        match self.check(script, &CosimOptions::default()) {
            Err(CosimError::Mismatch(m)) => *m,
            other => panic!("expected a mismatch, got {other:?}"),
        }
    }
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn random_setup(cfg: &GpuConfig, seed: u64) -> Setup {
    let p = generate(seed, cfg.lanes, cfg.warps * cfg.lanes, &Options::default());
    let mut image = from_words(p.entry, p.words.clone(), &p.functions).unwrap();
    image.shared_bytes = p.shared_bytes;
    let (cfg2, image2) = (cfg.clone(), image.clone());
    Setup {
        cfg: cfg.clone(),
        image,
        make: Box::new(move || {
            let mut gpu = Gpu::new(&cfg2, &image2).unwrap();
            let data = gpu.alloc(p.data.len() as u32 * 4).unwrap();
            gpu.write(data, &bytes(&p.data)).unwrap();
            let out = gpu.alloc(p.output_words() * 4).unwrap();
            let param = gpu.alloc(8).unwrap();
            gpu.write(param, &bytes(&[data, out])).unwrap();
            (gpu, Launch::new(p.grid, p.block, param))
        }),
    }
}

/// A program from words, launched with one output buffer of `out_words` words in `a0[0]`.
fn words_setup(
    cfg: &GpuConfig,
    words: Vec<u32>,
    functions: &[u32],
    grid: u32,
    block: u32,
) -> Setup {
    let image = from_words(0, words, functions).unwrap();
    let (cfg2, image2) = (cfg.clone(), image.clone());
    Setup {
        cfg: cfg.clone(),
        image,
        make: Box::new(move || {
            let mut gpu = Gpu::new(&cfg2, &image2).unwrap();
            let out = gpu.alloc(4 * grid * block + 64).unwrap();
            let param = gpu.alloc(4).unwrap();
            gpu.write(param, &bytes(&[out])).unwrap();
            (gpu, Launch::new(grid, block, param))
        }),
    }
}

fn csrr(a: &mut Asm, rd: u8, c: u16) {
    a.i(Instr::Csr {
        op: CsrOp::Rs,
        rd,
        src: 0,
        csr: c,
    });
}

fn exit(a: &mut Asm) {
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
}

/// `out[gtid] = gtid (+100 on odd threads)`, with a divergent branch; `misalign` makes
/// thread 5 store to a misaligned address.
fn store_gtid(misalign: bool) -> Vec<u32> {
    let mut a = Asm::new();
    csrr(&mut a, 10, csr::PARAM);
    a.i(Instr::Load {
        op: warpforge_isa::LoadOp::Lw,
        rd: 5,
        rs1: 10,
        imm: 0,
    });
    csrr(&mut a, 6, csr::GTID);
    a.i(Instr::OpImm {
        op: AluOp::Sll,
        rd: 7,
        rs1: 6,
        imm: 2,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: 5,
        rs1: 5,
        rs2: 7,
    });
    if misalign {
        // t3 = (gtid == 5) * 2
        a.i(Instr::OpImm {
            op: AluOp::Xor,
            rd: 28,
            rs1: 6,
            imm: 5,
        });
        a.i(Instr::OpImm {
            op: AluOp::Sltu,
            rd: 28,
            rs1: 28,
            imm: 1,
        });
        a.i(Instr::Op {
            op: AluOp::Add,
            rd: 28,
            rs1: 28,
            rs2: 28,
        });
        a.i(Instr::Op {
            op: AluOp::Add,
            rd: 5,
            rs1: 5,
            rs2: 28,
        });
    }
    a.i(Instr::OpImm {
        op: AluOp::And,
        rd: 29,
        rs1: 6,
        imm: 1,
    });
    let skip = a.label();
    a.branch(warpforge_isa::BranchOp::Beq, 29, 0, skip);
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: 6,
        rs1: 6,
        imm: 100,
    });
    a.place(skip);
    a.i(Instr::Store {
        op: StoreOp::Sw,
        rs1: 5,
        rs2: 6,
        imm: 0,
    });
    exit(&mut a);
    a.finish()
}

/// Lanes call one of two functions through `jalr ra` (odd lanes the second): a divergent
/// indirect call.
fn divergent_call() -> (Vec<u32>, Vec<u32>) {
    let mut a = Asm::new();
    csrr(&mut a, 10, csr::PARAM);
    a.i(Instr::Load {
        op: warpforge_isa::LoadOp::Lw,
        rd: 12,
        rs1: 10,
        imm: 0,
    });
    csrr(&mut a, 5, csr::LANEID);
    a.i(Instr::OpImm {
        op: AluOp::And,
        rd: 5,
        rs1: 5,
        imm: 1,
    });
    a.i(Instr::OpImm {
        op: AluOp::Sll,
        rd: 5,
        rs1: 5,
        imm: 3,
    });
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: 5,
        rs1: 5,
        imm: 0x40,
    });
    a.i(Instr::Jalr {
        rd: 1,
        rs1: 5,
        imm: 0,
    });
    csrr(&mut a, 6, csr::GTID);
    a.i(Instr::OpImm {
        op: AluOp::Sll,
        rd: 6,
        rs1: 6,
        imm: 2,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: 12,
        rs1: 12,
        rs2: 6,
    });
    a.i(Instr::Store {
        op: StoreOp::Sw,
        rs1: 12,
        rs2: 11,
        imm: 0,
    });
    exit(&mut a);
    while a.pc() < 0x40 {
        exit(&mut a);
    }
    for v in [1, 2] {
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: 11,
            rs1: 0,
            imm: v,
        });
        a.i(Instr::Jalr {
            rd: 0,
            rs1: 1,
            imm: 0,
        });
    }
    (a.finish(), vec![0, 0x40, 0x48])
}

fn edit(script: &mut Script, k: u64, s: usize) -> &mut ScriptSm {
    &mut script.cycles[k as usize][s]
}

#[test]
fn ideal_scripts_of_random_programs_pass() {
    for cfg in [GpuConfig::tiny(), GpuConfig::small()] {
        for seed in 0..25 {
            let st = random_setup(&cfg, seed);
            let script = st.script();
            let mut issues = 0;
            let r = st.check_observed(&script, &CosimOptions::default(), &mut |e| {
                if e.kind == EventKind::Issue {
                    issues += 1;
                }
            });
            match r {
                Ok((CosimOutcome::Finished, kc)) => assert_eq!(Some(kc), script.done_at),
                other => panic!("{} seed {seed}: {other:?}", cfg.name),
            }
            assert_eq!(issues, script.find(|o| o.issue.is_some()).len());
        }
    }
}

#[test]
fn divergent_indirect_call_and_its_mask_rule() {
    let cfg = GpuConfig::tiny();
    let (words, functions) = divergent_call();
    let st = words_setup(&cfg, words, &functions, 2, 7);
    let script = st.script();
    // The jalr's issue mask is the whole warp, its writeback only the executing group.
    let calls = script.find(|o| {
        o.issue
            .is_some_and(|i| matches!(decode(i.instr), Ok(Instr::Jalr { rd: 1, .. })))
    });
    assert!(calls.len() >= 4, "{calls:?}");
    let (k, s) = calls[0];
    let tag = script.at(k, s).issue.unwrap().tag;
    assert_eq!(script.at(k, s).issue.unwrap().mask, 0b1111);
    assert!(st.check(&script, &CosimOptions::default()).is_ok());
    // A writeback of the jalr with the full issue mask is wrong.
    let (kw, _) = script
        .find(|o| o.wb.is_some_and(|w| w.tag == tag))
        .into_iter()
        .find(|&(kk, _)| kk > k)
        .unwrap();
    let mut bad = script.clone();
    edit(&mut bad, kw, s).wb.as_mut().unwrap().mask = 0b1111;
    let m = st.mismatch(&bad);
    assert_eq!(m.kind, RecordKind::Writeback);
    assert_eq!(m.cycle, st.image.text.len() as u64 + kw);
    assert_eq!(m.field("mask", None).unwrap().expected, Value::word(0b0101));
    // An issue mask that does not contain the executing group is wrong too.
    let mut bad = script.clone();
    edit(&mut bad, k, s).issue.as_mut().unwrap().mask = 0b1000;
    let m = st.mismatch(&bad);
    assert_eq!(m.kind, RecordKind::Issue);
    assert_eq!(m.field("mask", None).unwrap().actual, Value::word(0b1000));
}

#[test]
fn corrupted_writeback_value_is_reported_at_its_cycle_warp_and_lane() {
    let cfg = GpuConfig::tiny();
    let st = random_setup(&cfg, 3);
    let script = st.script();
    let wbs = script.find(|o| o.wb.is_some_and(|w| w.mask & 0b10 != 0));
    let (k, s) = wbs[wbs.len() / 2];
    let tag = script.at(k, s).wb.unwrap().tag;
    // The issue of that tag: the last one before k.
    let (ki, _) = script
        .find(|o| o.issue.is_some_and(|i| i.tag == tag))
        .into_iter()
        .rfind(|&(kk, _)| kk < k)
        .unwrap();
    let warp = script.at(ki, s).issue.unwrap().warp;
    let mut bad = script.clone();
    let wb = edit(&mut bad, k, s).wb.as_mut().unwrap();
    let good = wb.data[1];
    wb.data[1] ^= 1;
    let m = st.mismatch(&bad);
    assert_eq!(
        (m.kind, m.cycle, m.kernel_cycle),
        (RecordKind::Writeback, st.image.text.len() as u64 + k, k)
    );
    assert_eq!((m.sm, m.warp, m.tag), (Some(0), Some(warp), Some(tag)));
    assert_eq!(m.fields.len(), 1, "{m}");
    let f = m.field("value", Some(1)).unwrap();
    assert_eq!(
        (f.expected.clone(), f.actual.clone()),
        (Value::word(good), Value::word(good ^ 1))
    );
    assert!(m.summary.contains("1 lane value(s) differ"));
    assert!(!m.history.is_empty() && m.history.len() <= HISTORY);
    let text = m.to_string();
    assert!(text.contains("reproduce: repro-line"), "{text}");
    assert!(
        text.contains(&format!("value  1     0x{good:08x}")),
        "{text}"
    );
}

/// The trace ports carry 32 lanes whatever the configuration; a lane tiny does not have
/// must read 0 (else a fault there would go unseen: a mutation run found such escapes).
#[test]
fn data_in_a_lane_the_configuration_lacks_is_a_mismatch() {
    let cfg = GpuConfig::tiny();
    let st = random_setup(&cfg, 3);
    let script = st.script();
    let wbs = script.find(|o| o.wb.is_some());
    let (k, s) = wbs[wbs.len() / 2];
    let mut bad = script.clone();
    edit(&mut bad, k, s).wb.as_mut().unwrap().data[cfg.lanes as usize + 1] = 0xdead;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Writeback, k));
    let f = m.field("value", Some(cfg.lanes + 1)).unwrap();
    assert_eq!(
        (f.expected.clone(), f.actual.clone()),
        (Value::word(0), Value::word(0xdead))
    );
    let sts = script.find(|o| o.st.is_some());
    let (k, s) = sts[sts.len() / 2];
    let mut bad = script.clone();
    edit(&mut bad, k, s).st.as_mut().unwrap().addr[31] = 4;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Store, k));
    assert!(m.field("addr", Some(31)).is_some(), "{m}");
}

#[test]
fn the_scheduler_grant_is_checked_against_the_reference_policy() {
    for cfg in [GpuConfig::tiny(), GpuConfig::small()] {
        let st = words_setup(&cfg, store_gtid(false), &[0], 3, 6);
        let script = st.script();
        // A cycle in which two or more warps were ready: the grant is the policy's choice.
        let (k, s) = *script
            .find(|o| o.issue.is_some() && o.sched.ready.count_ones() >= 2)
            .first()
            .expect("a cycle with a choice");
        let o = script.at(k, s);
        let granted = o.issue.unwrap().warp;
        // The same records, but the granted warp was not ready: no policy grants it.
        let mut bad = script.clone();
        edit(&mut bad, k, s).sched.ready &= !(1 << granted);
        let m = st.mismatch(&bad);
        assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Issue, k), "{m}");
        assert!(
            m.summary.starts_with(&format!(
                "the warp scheduler ({:?}) granted warp {granted} but the reference grants warp",
                cfg.scheduler
            )),
            "{m}"
        );
        // An issue in a cycle with no ready warp.
        let mut bad = script.clone();
        edit(&mut bad, k, s).sched.ready = 0;
        assert!(st
            .mismatch(&bad)
            .summary
            .contains("but the reference grants none"));
        // A warp the configuration lacks, waiting long: no reference reads the bit, but it
        // is a wrong output.
        let mut bad = script.clone();
        edit(&mut bad, k, s).sched.long |= 1 << 63;
        let m = st.mismatch(&bad);
        assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Issue, k), "{m}");
        assert!(m.summary.contains("name warp(s) 63 of"), "{m}");
        // A ready warp and no grant (and so no issue).
        let mut bad = script.clone();
        edit(&mut bad, k, s).issue = None;
        edit(&mut bad, k, s).sched.grant = None;
        assert!(st
            .mismatch(&bad)
            .summary
            .contains("granted none but the reference grants warp"));
    }
}

#[test]
fn corrupted_store_issue_and_cta_records() {
    let cfg = GpuConfig::tiny();
    let st = words_setup(&cfg, store_gtid(false), &[0], 3, 6);
    let script = st.script();
    // Three CTAs of two warps on four slots: the third goes where the first finished.
    let ctas: Vec<_> = script
        .find(|o| o.cta.is_some())
        .into_iter()
        .map(|(k, s)| script.at(k, s).cta.unwrap())
        .collect();
    assert_eq!(
        ctas.iter().map(|c| (c.id, c.warps)).collect::<Vec<_>>(),
        vec![(0, 0b0011), (1, 0b1100), (2, 0b0011)]
    );
    assert!(st.check(&script, &CosimOptions::default()).is_ok());

    let (k, s) = script.find(|o| o.st.is_some())[2];
    let mut bad = script.clone();
    edit(&mut bad, k, s).st.as_mut().unwrap().addr[0] += 4;
    let m = st.mismatch(&bad);
    assert_eq!(m.kind, RecordKind::Store);
    assert!(m.field("addr", Some(0)).is_some(), "{m}");

    let mut bad = script.clone();
    edit(&mut bad, k, s).st.as_mut().unwrap().size = 1;
    let m = st.mismatch(&bad);
    assert_eq!(
        m.field("size (bytes)", None).unwrap().actual,
        Value::Hex(2, 1)
    );

    let (k, s) = script.find(|o| o.issue.is_some())[7];
    let mut bad = script.clone();
    edit(&mut bad, k, s).issue.as_mut().unwrap().pc += 4;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Issue, k));
    assert!(m.field("pc", None).is_some());
    assert!(m
        .to_string()
        .contains("another instruction than the model executes next"));

    // The third CTA on a slot the second one still holds.
    let (k, s) = script.find(|o| o.cta.is_some())[2];
    let mut bad = script.clone();
    edit(&mut bad, k, s).cta.as_mut().unwrap().warps = 0b0110;
    let m = st.mismatch(&bad);
    assert_eq!(m.kind, RecordKind::CtaLaunch);
    assert!(m.summary.contains("the model cannot"), "{m}");
    assert!(m.summary.contains("warp slot 2 is still in use"), "{m}");
    assert_eq!(
        m.notes[0],
        "model: warp slots of SM 0 before this launch: 0: free, 1: free, 2: CTA 1, 3: CTA 1"
    );

    // Another CTA id than the next one.
    let mut bad = script.clone();
    edit(&mut bad, k, s).cta.as_mut().unwrap().id = 1;
    let m = st.mismatch(&bad);
    assert_eq!(m.kind, RecordKind::CtaLaunch);
    assert_eq!(
        m.field("cta", None).unwrap().expected,
        Value::Hex(2, 8),
        "{m}"
    );

    // Launching a CTA on a full SM.
    let (k0, s0) = script.find(|o| o.cta.is_some())[1];
    let mut bad = script.clone();
    edit(&mut bad, k0 + 1, s0).cta = Some(CtaRec {
        id: 2,
        warps: 0b0011,
    });
    let m = st.mismatch(&bad);
    assert!(m.summary.contains("the model cannot"), "{m}");
    assert!(m.summary.contains("warp slot 0 is still in use"), "{m}");
}

#[test]
fn lost_records_memory_and_watchdogs() {
    let cfg = GpuConfig::tiny();
    let st = words_setup(&cfg, store_gtid(false), &[0], 3, 6);
    let script = st.script();
    let done = script.done_at.unwrap();

    // A tag reused while its writeback is pending: an instruction with a result, issued while
    // the first writeback's tag is held, claims that tag.
    let (kw, s) = script.find(|o| o.wb.is_some())[0];
    let tag = script.at(kw, s).wb.unwrap().tag;
    let (ki0, _) = script
        .find(|o| o.issue.is_some_and(|i| i.tag == tag))
        .into_iter()
        .rfind(|&(kk, _)| kk < kw)
        .unwrap();
    let has_result = |i: IssueRec| {
        decode(i.instr).is_ok_and(|x| x.dest().is_some() || matches!(x, Instr::Store { .. }))
    };
    let (ki, _) = script
        .find(|o| o.issue.is_some_and(has_result))
        .into_iter()
        .find(|&(kk, _)| kk > ki0 && kk < kw)
        .expect("an instruction with a result issued while the tag is held");
    let mut bad = script.clone();
    edit(&mut bad, ki, s).issue.as_mut().unwrap().tag = tag;
    let m = st.mismatch(&bad);
    assert!(m.summary.starts_with("tag reused"), "{m}");
    assert_eq!(m.kernel_cycle, ki);

    // A store record that never comes. (A lost writeback is caught earlier, when the warp's
    // next instruction reads or writes the register, even in the writeback's own cycle: below.)
    let warp_of = |k: u64, s: usize, tag: u32| {
        let (ki, _) = script
            .find(|o| o.issue.is_some_and(|i| i.tag == tag))
            .into_iter()
            .rfind(|&(kk, ss)| kk < k && ss == s)
            .unwrap();
        script.at(ki, s).issue.unwrap().warp
    };
    let touches = |i: IssueRec, rd: u8| {
        decode(i.instr).is_ok_and(|x| x.sources().contains(&Some(rd)) || x.dest() == Some(rd))
    };
    let used_later = |k: u64, s: usize| {
        let wb = script.at(k, s).wb.unwrap();
        let w = warp_of(k, s, wb.tag);
        script
            .find(|o| o.issue.is_some_and(|i| i.warp == w && touches(i, wb.rd)))
            .into_iter()
            .find(|&(kk, ss)| kk >= k && ss == s)
    };
    let (k, s) = *script.find(|o| o.st.is_some()).last().unwrap();
    let mut bad = script.clone();
    edit(&mut bad, k, s).st = None;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Done, done), "{m}");
    assert!(m
        .summary
        .contains("1 issued instruction(s) whose writeback/store record never came"));
    assert!(m.notes[0].contains("SM 0 tag"), "{m}");
    // A writeback that never comes, of a warp that issues again: its next instruction that
    // reads or writes the register issues with a hazard, unless the scoreboard waits forever.
    let (k, s) = *script
        .find(|o| o.wb.is_some())
        .iter()
        .find(|&&(k, s)| used_later(k, s).is_some())
        .unwrap();
    let (kh, _) = used_later(k, s).unwrap();
    let mut bad = script.clone();
    edit(&mut bad, k, s).wb = None;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Issue, kh), "{m}");
    // (An ALU or multiplier producer may be read one cycle before its writeback, so there the
    // first sign is the ideal GPU reusing the producer's tag in that issue.)
    assert!(
        m.summary.starts_with("issued with a hazard") || m.summary.starts_with("tag reused"),
        "{m}"
    );

    // A writeback for a tag nobody waits for.
    let mut bad = script.clone();
    edit(&mut bad, 1, 0).wb = Some(WbRec {
        tag: 9,
        rd: 5,
        mask: 1,
        data: [0; 32],
    });
    let m = st.mismatch(&bad);
    assert!(m
        .summary
        .contains("writeback record for tag 9, which has no instruction waiting"));
    assert!(m.notes[0].contains("never issued"), "{m}");

    // A memory write with other data: the end-of-kernel comparison.
    let mut bad = script.clone();
    let (k, s) = script.find(|o| o.mem.is_some())[4];
    let req = edit(&mut bad, k, s).mem.as_mut().unwrap();
    req.data ^= 0x100;
    let addr = req.addr;
    let m = st.mismatch(&bad);
    assert_eq!(m.kind, RecordKind::Done);
    assert!(
        m.summary
            .starts_with("global memory differs at the end: 1 byte(s) in 1 word(s)"),
        "{m}"
    );
    assert_eq!(m.fields[0].field, format!("word 0x{addr:08x}"));

    // A memory request outside global memory.
    let mut bad = script.clone();
    edit(&mut bad, k, s).mem.as_mut().unwrap().addr = 0x1000_0000;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::MemoryPort, k));

    // Nothing after cycle 20 but idle cycles (no done): a hang naming the live warps and
    // pending tags.
    let mut bad = script.clone();
    bad.cycles.truncate(20);
    let idle = ScriptSm {
        idle: true,
        ..Default::default()
    };
    bad.cycles.resize(200, vec![idle; bad.sms]);
    bad.done_at = None;
    let opts = CosimOptions {
        hang_cycles: Some(50),
        ..Default::default()
    };
    match st.check(&bad, &opts) {
        Err(CosimError::Hang(h)) => {
            assert_eq!(h.kernel_cycle, h.last_record + 50);
            assert!(!h.warps.is_empty());
            let t = CosimError::Hang(h).to_string();
            assert!(t.contains("unfinished warps (model):"), "{t}");
        }
        other => panic!("{other:?}"),
    }
    let opts = CosimOptions {
        max_cycles: 10,
        ..Default::default()
    };
    match st.check(&script, &opts) {
        Err(CosimError::Timeout(t)) => assert_eq!((t.kernel_cycle, t.limit), (10, 10)),
        other => panic!("{other:?}"),
    }
}

/// A cause with no lane and no address (docs/isa.md §8) reports `NO_LANE` and 0, and the
/// checker compares both: an issue stage's "no lane" with bit 7 tied to 0 passed every run
/// until it did (issue 11, m33 of 8c5193d's sample).
#[test]
fn a_fault_without_lane_or_address_must_say_none() {
    let cfg = GpuConfig::tiny();
    let mut a = Asm::new();
    a.i(Instr::Ebreak);
    let st = words_setup(&cfg, a.finish(), &[0], 1, 4);
    let script = st.script();
    let (_, f) = script.fault_at.unwrap();
    assert_eq!(FaultCause::from_code(f.cause), Some(FaultCause::Breakpoint));
    assert_eq!((f.lane, f.addr), (warpforge_isa::NO_LANE, 0));
    let r = st.check(&script, &CosimOptions::default());
    assert!(matches!(r, Ok((CosimOutcome::Fault(_), _))), "{r:?}");
    for (lane, addr, field) in [
        (0x7f, 0, "fault lane"),
        (0, 0, "fault lane"),
        (warpforge_isa::NO_LANE, 0x40, "fault addr"),
    ] {
        let mut bad = script.clone();
        let g = &mut bad.fault_at.as_mut().unwrap().1;
        (g.lane, g.addr) = (lane, addr);
        let m = st.mismatch(&bad);
        assert_eq!(m.kind, RecordKind::Fault, "{m}");
        assert!(m.field(field, None).is_some(), "{m}");
    }
}

/// `tr_idle` means "a launched warp lives and none issues": 0 in such a cycle, or 1 before
/// any warp is launched, is a mismatch; so is the counter not following it. The SM's "some
/// warp launched" tied to 0 passed every run before (issue 11, m68 of 8c5193d's sample).
#[test]
fn idle_means_a_live_warp_and_no_issue() {
    let cfg = GpuConfig::tiny();
    let st = words_setup(&cfg, store_gtid(false), &[0], 3, 6);
    let script = st.script();
    assert!(st.check(&script, &CosimOptions::default()).is_ok());
    let idle = script.find(|o| o.idle);
    assert!(!idle.is_empty(), "the ideal script has idle cycles");

    let (k, s) = idle[0];
    let mut bad = script.clone();
    edit(&mut bad, k, s).idle = false;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Counters, k), "{m}");
    assert!(
        m.summary
            .contains("`tr_idle` is 0 in a cycle without an issue"),
        "{m}"
    );

    // The start pulse's cycle: nothing launched yet.
    let mut bad = script.clone();
    edit(&mut bad, 0, 0).idle = true;
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Counters, 0), "{m}");
    assert!(
        m.summary.contains("while no warp of the SM is launched"),
        "{m}"
    );
}

#[test]
fn faults_are_matched_against_the_model() {
    let cfg = GpuConfig::tiny();
    let st = words_setup(&cfg, store_gtid(true), &[0], 2, 8);
    let script = st.script();
    let (at, f) = script.fault_at.unwrap();
    assert_eq!(
        FaultCause::from_code(f.cause),
        Some(FaultCause::MisalignedStore)
    );
    assert_eq!((f.warp, f.lane), (1, 1));
    match st.check(&script, &CosimOptions::default()) {
        Ok((CosimOutcome::Fault(mf), kc)) => {
            assert_eq!(kc, at);
            assert_eq!((mf.sm, mf.warp, mf.pc, mf.lane), (0, 1, f.pc, Some(1)));
        }
        other => panic!("{other:?}"),
    }
    // Another cause.
    let mut bad = script.clone();
    bad.fault_at.as_mut().unwrap().1.cause = 7;
    let m = st.mismatch(&bad);
    assert_eq!(m.kind, RecordKind::Fault);
    let d = m.field("fault cause", None).unwrap();
    assert_eq!(
        (d.expected.to_string(), d.actual.to_string()),
        (
            "5 (misaligned-store)".into(),
            "7 (out-of-range-store)".into()
        )
    );
    // The report changes after its first cycle (a held cause register whose bit toggles:
    // the first cycle alone is right).
    let mut bad = script.clone();
    let mut later = f;
    later.cause ^= 2;
    bad.fault_after = Some(later);
    let m = st.mismatch(&bad);
    assert_eq!((m.kind, m.kernel_cycle), (RecordKind::Fault, at + 1), "{m}");
    assert!(m.summary.contains("changed after its first cycle"), "{m}");
    let d = m.field("fault cause", None).unwrap();
    assert_eq!(
        (d.expected.to_string(), d.actual.to_string()),
        (
            "5 (misaligned-store)".into(),
            "7 (out-of-range-store)".into()
        )
    );
    // An unknown code.
    let mut bad = script.clone();
    bad.fault_at.as_mut().unwrap().1.cause = 0;
    assert!(st.mismatch(&bad).summary.contains("not one of 1..=12"));
    // No fault from the RTL.
    let mut bad = script.clone();
    bad.fault_at = None;
    let opts = CosimOptions {
        hang_cycles: Some(30),
        ..Default::default()
    };
    match st.check(&bad, &opts) {
        Err(CosimError::Mismatch(m)) => {
            assert!(
                m.summary.contains("did not raise `fault` within 30 cycles"),
                "{m}"
            )
        }
        other => panic!("{other:?}"),
    }
    // The faulting instruction without an issue record (and so not granted: the warp was not
    // ready): the model steps that warp itself.
    let mut bad = script.clone();
    let (k, s) = *script.find(|o| o.issue.is_some()).last().unwrap();
    edit(&mut bad, k, s).issue = None;
    edit(&mut bad, k, s).sched.ready = 0;
    edit(&mut bad, k, s).sched.grant = None;
    match st.check(&bad, &CosimOptions::default()) {
        Ok((CosimOutcome::Fault(mf), _)) => assert_eq!(mf.cause, FaultCause::MisalignedStore),
        other => panic!("{other:?}"),
    }
}

#[test]
fn not_checking_runs_without_the_model() {
    let cfg = GpuConfig::tiny();
    let st = words_setup(&cfg, store_gtid(false), &[0], 3, 6);
    let mut script = st.script();
    // Even a wrong value passes: nothing is checked.
    let (k, s) = script.find(|o| o.wb.is_some())[0];
    edit(&mut script, k, s).wb.as_mut().unwrap().data[0] ^= 1;
    let opts = CosimOptions {
        check: false,
        ..Default::default()
    };
    let mut events = 0;
    let r = st.check_observed(&script, &opts, &mut |_| events += 1);
    assert!(matches!(r, Ok((CosimOutcome::Finished, _))), "{r:?}");
    assert!(events > 20);
}
