//! Every shipped kernel, every reference case, on every preset: the golden model's result must
//! equal the kernel's plain-Rust reference.

use warpforge::host::{run_case, DEFAULT_MAX_CYCLES};
use warpforge_config::{GpuConfig, PRESETS};
use warpforge_kernels::Limits;
use warpforge_sim::RunOutcome;

fn check_preset(name: &str) {
    let cfg = GpuConfig::preset(name).unwrap();
    let limits = Limits {
        lanes: cfg.lanes,
        max_block: cfg.warps * cfg.lanes,
        smem_bytes: cfg.smem_bytes,
        sms: cfg.sms,
    };
    let mut failures = Vec::new();
    let mut cases = 0;
    for k in warpforge_kernels::all() {
        let elf = k
            .elf()
            .unwrap_or_else(|e| panic!("building {}: {e}", k.name));
        let image = warpforge_loader::load_elf_file(&elf)
            .unwrap_or_else(|e| panic!("loading {}: {e}", k.name));
        let ks = k.cases(&limits, 1);
        assert!(ks.len() >= 3, "{} has only {} cases", k.name, ks.len());
        // Shapes must include a partial last warp somewhere in the suite.
        for case in ks {
            cases += 1;
            let r = run_case(&cfg, &image, &case, DEFAULT_MAX_CYCLES).unwrap();
            if !r.passed() {
                let why = match (&r.outcome, &r.fault_check) {
                    (RunOutcome::Timeout(_), _) => format!("{:?}", r.outcome),
                    (_, Err(why)) => why.clone(),
                    _ => r.mismatches.join("; "),
                };
                failures.push(format!("{} [{}]: {why}", k.name, case.label));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "on {name}: {} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn shipped_kernels_on_tiny() {
    check_preset("tiny");
}

#[test]
fn shipped_kernels_on_small() {
    check_preset("small");
}

#[test]
fn shipped_kernels_on_fermi() {
    check_preset("fermi");
}

#[test]
fn every_preset_is_covered() {
    assert_eq!(PRESETS, &["tiny", "small", "fermi"]);
}

#[test]
fn suite_includes_partial_warps_and_multi_cta_grids() {
    for name in PRESETS {
        let cfg = GpuConfig::preset(name).unwrap();
        let limits = Limits {
            lanes: cfg.lanes,
            max_block: cfg.warps * cfg.lanes,
            smem_bytes: cfg.smem_bytes,
            sms: cfg.sms,
        };
        let all: Vec<_> = warpforge_kernels::all()
            .iter()
            .flat_map(|k| k.cases(&limits, 1))
            .collect();
        assert!(
            all.iter().any(|c| c.block % cfg.lanes != 0),
            "{name}: no partial warp"
        );
        assert!(all.iter().any(|c| c.grid > 1), "{name}: no multi-CTA grid");
    }
}
