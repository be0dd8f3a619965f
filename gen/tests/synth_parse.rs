//! The report parsers against outputs of real tool runs (gen/tests/data/synth/README.md says
//! where each comes from).

use warpforge::synth::parse::{
    nextpnr_log, nextpnr_report, overflow_message, overflows, register_instances, yosys_cells,
};
use warpforge::synth::{ecp5_resources, Target};

fn data(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/synth")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn yosys_synth_ecp5_cells_become_ecp5_resources() {
    let cells = yosys_cells(&data("tiny-synth-stat.json")).unwrap();
    assert_eq!(cells["LUT4"], 22_484);
    let r = ecp5_resources(&cells, &Target::Ecp5_85f.device());
    let get = |n: &str| r.iter().find(|x| x.name == n).unwrap();
    assert_eq!(get("LUT4").used, 22_484);
    assert_eq!(get("CCU2C").used, 1_761);
    assert_eq!(get("FF").used, 9_552);
    assert_eq!(get("LUT-RAM").used, 256);
    assert_eq!(get("DP16KD").used, 20);
    assert_eq!(get("MULT18X18D").used, 18);
    assert_eq!(get("PFUMX+L6MUX21").used, 4_443 + 1_469);
    let share = get("LUT4").percent().unwrap();
    assert!((share - 100.0 * 22_484.0 / 83_640.0).abs() < 1e-9);
}

#[test]
fn nextpnr_log_utilisation_and_fmax_after_routing() {
    let log = nextpnr_log(&data("tiny-nextpnr.log"));
    assert!(log.errors.is_empty(), "{:?}", log.errors);
    let u = |bel: &str| log.utilisation.iter().find(|u| u.bel == bel).unwrap();
    // The device totals of the LFE5U-85F, as nextpnr gives them.
    assert_eq!(
        (u("TRELLIS_COMB").used, u("TRELLIS_COMB").available),
        (28_056, 83_640)
    );
    assert_eq!(
        (u("TRELLIS_FF").used, u("TRELLIS_FF").available),
        (9_552, 83_640)
    );
    assert_eq!(u("TRELLIS_RAMW").available, 10_455);
    assert_eq!((u("DP16KD").used, u("DP16KD").available), (20, 208));
    assert_eq!((u("MULT18X18D").used, u("MULT18X18D").available), (18, 156));
    assert!(log
        .logic_before_packing
        .contains(&("Total LUT4s".to_string(), 27_542, 83_640)));
    // The log states Fmax twice (after placement, 22.39 MHz; after routing): the last counts.
    assert_eq!(log.fmax.len(), 1);
    assert_eq!(log.fmax[0].clock, "$glbnet$clk$TRELLIS_IO_IN");
    assert!((log.fmax[0].fmax_mhz - 30.99).abs() < 1e-9);
    assert!(!log.fmax[0].passed);
    assert!((log.fmax[0].target_mhz - 100.0).abs() < 1e-9);
    assert!(overflows(&log).is_empty());
}

#[test]
fn nextpnr_report_critical_path_as_units() {
    let regs = register_instances(&data("tiny-hierarchy.v"), "warpforge_top");
    assert!(regs.contains(&"sm$0.oc.dptr".to_string()), "{regs:?}");
    assert!(regs.contains(&"sm$0.lsu.faddr_q".to_string()));
    assert!(!regs.contains(&"sm$0.lsu".to_string()));
    let r = nextpnr_report(
        &data("tiny-nextpnr-report.json"),
        "dut",
        "warpforge_top",
        &regs,
    )
    .unwrap();
    assert_eq!(r.fmax.len(), 1);
    assert!((r.fmax[0].fmax_mhz - 30.994).abs() < 1e-3, "{:?}", r.fmax);
    assert_eq!(r.fmax[0].target_mhz, 100.0);
    assert_eq!(r.critical_paths.len(), 3);
    let p = r
        .critical_paths
        .iter()
        .find(|p| p.from_clock != "<async>" && p.to_clock != "<async>")
        .unwrap();
    assert!((p.delay_ns - 32.264).abs() < 1e-3, "{}", p.delay_ns);
    assert!((p.routing_ns - 23.744).abs() < 1e-3, "{}", p.routing_ns);
    assert!((1000.0 / p.delay_ns - r.fmax[0].fmax_mhz).abs() < 0.05);
    assert_eq!(p.cells, 48);
    assert_eq!(p.start_cell, "dut.sm$0.oc.dptr.q_TRELLIS_FF_Q");
    assert_eq!(p.end_cell, "dut.sm$0.lsu.faddr_q.q_TRELLIS_FF_Q_28");
    // Operand collector → (its dispatch wire in the SM) → LSU → branch unit's immediate → the
    // LSU's address adder, shifter and fault address: registers folded into their units,
    // nextpnr's own carry cell skipped.
    assert_eq!(
        p.units,
        vec!["sm$0.oc", "sm$0", "sm$0.lsu", "sm$0.bu", "sm$0.lsu"],
        "{:?}",
        p.units
    );
    let to_pin = r
        .critical_paths
        .iter()
        .find(|p| p.to_clock == "<async>")
        .unwrap();
    assert_eq!(to_pin.units, vec!["(wrapper)"]);
}

#[test]
fn a_design_that_does_not_fit_names_the_resource_and_by_how_much() {
    // A synthetic design of 32,798 LUT4s placed on the 24,288-LUT LFE5U-25F (`--12k`).
    let log = nextpnr_log(&data("overflow-12k-nextpnr.log"));
    assert_eq!(log.errors.len(), 1);
    assert!(
        log.errors[0].contains("no BELs remaining"),
        "{:?}",
        log.errors
    );
    let o = overflows(&log);
    assert_eq!(o.len(), 1, "{o:?}");
    assert_eq!(o[0].resource, "LUT4");
    assert_eq!((o[0].needed, o[0].available), (32_798, 24_288));
    assert_eq!(overflow_message(&o), "needs 32,798 LUT4 of 24,288: 135 %");
}
