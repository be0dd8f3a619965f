//! Driven CTA dispatch (`Gpu::launch_driven` + `Gpu::dispatch_cta`), the co-simulation's way of
//! following the RTL's CTA dispatcher: no automatic dispatch, index order, lowest free warp
//! slots (docs/isa.md §6), clear errors when an SM has no room or no CTA is left.

mod common;

use common::{bytes, csrr, prologue};
use warpforge_config::GpuConfig;
use warpforge_isa::{csr, Instr, SimtOp, StoreOp};
use warpforge_loader::{from_words, KernelImage};
use warpforge_randprog::asm::Asm;
use warpforge_randprog::{generate, Options};
use warpforge_sim::{Gpu, RunOutcome, SimError};

fn exit_only() -> KernelImage {
    let mut a = Asm::new();
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    from_words(0, a.finish(), &[0]).unwrap()
}

/// Every thread stores its global thread id at `param[0] + 4 * gtid`.
fn store_gtid() -> KernelImage {
    let mut a = Asm::new();
    prologue(&mut a);
    common::param(&mut a, 5, 0);
    csrr(&mut a, 6, csr::GTID);
    a.i(Instr::OpImm {
        op: warpforge_isa::AluOp::Sll,
        rd: 7,
        rs1: 6,
        imm: 2,
    });
    a.i(Instr::Op {
        op: warpforge_isa::AluOp::Add,
        rd: 5,
        rs1: 5,
        rs2: 7,
    });
    a.i(Instr::Store {
        op: StoreOp::Sw,
        rs1: 5,
        rs2: 6,
        imm: 0,
    });
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    from_words(0, a.finish(), &[0]).unwrap()
}

fn dispatch_err(r: Result<(u32, u64), SimError>) -> String {
    match r {
        Err(e @ SimError::Dispatch { .. }) => e.to_string(),
        other => panic!("expected a dispatch error, got {other:?}"),
    }
}

#[test]
fn launch_driven_dispatches_nothing_and_checks_like_launch() {
    let cfg = GpuConfig::tiny();
    let mut gpu = Gpu::new(&cfg, &exit_only()).unwrap();
    gpu.launch_driven(3, 6, 0x8000_0000).unwrap();
    assert_eq!(gpu.ready_warps(0).count(), 0);
    assert!(!gpu.is_finished());
    // Same checks as `launch`.
    let mut g = Gpu::new(&cfg, &exit_only()).unwrap();
    assert!(matches!(g.launch_driven(0, 4, 0), Err(SimError::Launch(_))));
    assert!(matches!(g.launch_driven(1, 0, 0), Err(SimError::Launch(_))));
    assert!(g
        .launch_driven(1, 17, 0)
        .unwrap_err()
        .to_string()
        .contains("does not fit an SM of 4 warps x 4 lanes"));
}

#[test]
fn ctas_take_the_lowest_free_slots_in_index_order() {
    let cfg = GpuConfig::tiny();
    let mut gpu = Gpu::new(&cfg, &exit_only()).unwrap();
    // 6 threads = 2 warps per CTA (the second one partial: 2 lanes).
    gpu.launch_driven(3, 6, 0x8000_0000).unwrap();
    assert_eq!(gpu.dispatch_cta(0).unwrap(), (0, 0b0011));
    assert_eq!(gpu.dispatch_cta(0).unwrap(), (1, 0b1100));
    assert_eq!(gpu.warp_cta(0, 0), Some(0));
    assert_eq!(gpu.warp_cta(0, 3), Some(1));
    assert_eq!(gpu.warp_stack(0, 1)[0].mask, 0b0011);
    assert_eq!(gpu.warp_stack(0, 2)[0].mask, 0b1111);
    let e = dispatch_err(gpu.dispatch_cta(0));
    assert!(
        e.contains("SM 0") && e.contains("CTA 2 needs 2 warp slots, the SM has 0 free"),
        "{e}"
    );
    assert!(dispatch_err(gpu.dispatch_cta(1)).contains("there are only 1 SMs"));

    // CTA 0 finishes: its slots are not refilled automatically.
    gpu.step(0, 0).unwrap();
    gpu.step(0, 1).unwrap();
    assert_eq!(gpu.warp_cta(0, 0), None);
    assert_eq!(gpu.ready_warps(0).collect::<Vec<_>>(), vec![2, 3]);
    // The driver places CTA 2 on the freed slots 0 and 1.
    assert_eq!(gpu.dispatch_cta(0).unwrap(), (2, 0b0011));
    for w in 0..4 {
        gpu.step(0, w).unwrap();
    }
    assert!(gpu.is_finished());
    assert!(
        dispatch_err(gpu.dispatch_cta(0)).contains("all 3 CTAs of the grid have been dispatched")
    );
}

#[test]
fn dispatch_needs_a_launch_and_room_in_shared_memory() {
    let cfg = GpuConfig::tiny();
    let mut image = exit_only();
    let mut gpu = Gpu::new(&cfg, &image).unwrap();
    assert!(dispatch_err(gpu.dispatch_cta(0)).contains("no kernel has been launched"));

    image.shared_bytes = 3000; // two do not fit 4096 bytes
    let mut gpu = Gpu::new(&cfg, &image).unwrap();
    gpu.launch_driven(2, 4, 0x8000_0000).unwrap();
    assert_eq!(gpu.dispatch_cta(0).unwrap(), (0, 0b0001));
    let e = dispatch_err(gpu.dispatch_cta(0));
    assert!(
        e.contains("CTA 1 needs 3000 bytes of shared memory, the SM has 3000 of 4096 in use"),
        "{e}"
    );
}

#[test]
fn standalone_launch_still_dispatches_automatically() {
    let cfg = GpuConfig::small();
    let image = store_gtid();
    let mut gpu = Gpu::new(&cfg, &image).unwrap();
    let out = gpu.alloc(4 * 40 * 20).unwrap();
    let param = gpu.alloc(4).unwrap();
    gpu.write(param, &bytes(&[out])).unwrap();
    gpu.launch(40, 20, param).unwrap();
    assert_eq!(gpu.run(100_000), RunOutcome::Finished);
    let got = gpu.read(out, 4 * 800).unwrap().to_vec();
    assert_eq!(got, bytes(&(0..800).collect::<Vec<u32>>()));
}

/// A driver that dispatches as the RTL might (SM 1 first, one CTA per visit) and steps warps in
/// a different order than the standalone model still computes the same memory, and the CTA ids
/// come out in index order.
#[test]
fn a_driven_run_in_another_order_computes_the_same_memory() {
    let cfg = GpuConfig::small();
    for seed in 0..20 {
        let p = generate(seed, cfg.lanes, cfg.warps * cfg.lanes, &Options::default());
        let mut image = from_words(p.entry, p.words.clone(), &p.functions).unwrap();
        image.shared_bytes = p.shared_bytes;
        let setup = |gpu: &mut Gpu| {
            let data = gpu.alloc(p.data.len() as u32 * 4).unwrap();
            gpu.write(data, &bytes(&p.data)).unwrap();
            let out = gpu.alloc(p.output_words() * 4).unwrap();
            let param = gpu.alloc(8).unwrap();
            gpu.write(param, &bytes(&[data, out])).unwrap();
            param
        };
        let mut reference = Gpu::new(&cfg, &image).unwrap();
        let param = setup(&mut reference);
        reference.launch(p.grid, p.block, param).unwrap();
        assert_eq!(
            reference.run(1_000_000),
            RunOutcome::Finished,
            "seed {seed}"
        );

        let mut gpu = Gpu::new(&cfg, &image).unwrap();
        let param = setup(&mut gpu);
        gpu.launch_driven(p.grid, p.block, param).unwrap();
        let mut next_cta = 0;
        let mut steps = 0u64;
        while !gpu.is_finished() {
            for sm in (0..cfg.sms).rev() {
                if next_cta < p.grid {
                    if let Ok((id, slots)) = gpu.dispatch_cta(sm) {
                        assert_eq!(id, next_cta, "seed {seed}");
                        let lowest = (0..cfg.warps).find(|&w| gpu.warp_cta(sm, w) == Some(id));
                        assert_eq!(Some(slots.trailing_zeros()), lowest, "seed {seed}");
                        next_cta += 1;
                    }
                }
                // Highest ready warp first.
                if let Some(w) = gpu.ready_warps(sm).last() {
                    let c = gpu.step(sm, w).unwrap();
                    assert!(c.fault.is_none(), "seed {seed}: {c:?}");
                    steps += 1;
                }
            }
            assert!(
                steps < 10_000_000,
                "seed {seed}: driven run does not finish"
            );
        }
        assert_eq!(next_cta, p.grid);
        assert!(
            gpu.global_memory() == reference.global_memory(),
            "seed {seed}: driven and standalone runs differ"
        );
    }
}

/// Co-simulation's CTA base: CTAs numbered from it, wrapping past 2^32 − 1, for as many CTAs
/// as the grid has; errors name the CTA by its number.
#[test]
fn a_cta_base_numbers_the_ctas_from_it() {
    let cfg = GpuConfig::tiny();
    let mut gpu = Gpu::new(&cfg, &exit_only()).unwrap();
    gpu.set_cta_base(u32::MAX);
    assert_eq!(gpu.cta_base(), u32::MAX);
    gpu.launch_driven(3, 6, 0x8000_0000).unwrap();
    assert_eq!(gpu.dispatch_cta(0).unwrap(), (u32::MAX, 0b0011));
    assert_eq!(gpu.dispatch_cta(0).unwrap(), (0, 0b1100));
    assert_eq!(gpu.warp_cta(0, 3), Some(0));
    let e = dispatch_err(gpu.dispatch_cta(0));
    assert!(e.contains("CTA 1 needs 2 warp slots"), "{e}");
}
