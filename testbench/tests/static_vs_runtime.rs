//! Cross-check: the same design built at compile time through the classic
//! verilated-rs path (ModuleGenerator typed wrapper, wide ports as
//! `[u32; 3]`, statically linked `verilated` runtime) and at run time
//! through `verilator_model` (dlopen'ed library with its own runtime copy)
//! must agree cycle by cycle, in the same process.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_testbench::verilator_model::build;
use warpforge_testbench_static_model::CounterTop;

use common::*;

#[test]
fn static_and_runtime_models_agree() {
    let mut dynm = build(&counter_build(false)).expect("run-time build");
    let clk = dynm.port("clk").unwrap();
    let rst = dynm.port("rst").unwrap();
    let en = dynm.port("en").unwrap();
    let count = dynm.port("count").unwrap();
    let wide_in = dynm.port("wide_in").unwrap();
    let wide_out = dynm.port("wide_out").unwrap();
    let a = dynm.port("a").unwrap();
    let b = dynm.port("b").unwrap();
    let sum = dynm.port("sum").unwrap();
    let q_in = dynm.port("q_in").unwrap();
    let q_out = dynm.port("q_out").unwrap();

    let mut stat = CounterTop::default();
    let mut stat_rst = false;
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0002);
    let mut reference = CounterRef::default();
    let mut out = [0u32; 3];

    for cycle in 0..300 {
        let r = cycle == 0 || rng.gen_ratio(1, 30);
        let e = rng.gen_bool(0.6);
        let w: [u32; 3] = rng.gen();
        let (av, bv): (u16, u16) = (rng.gen(), rng.gen());
        let q: u64 = rng.gen();

        dynm.set(rst, u64::from(r));
        dynm.set(en, u64::from(e));
        dynm.set_words(wide_in, &w);
        dynm.set(a, u64::from(av));
        dynm.set(b, u64::from(bv));
        dynm.set(q_in, q);
        dynm.eval();

        // The generated wrapper only toggles reset.
        if stat_rst != r {
            stat.reset_toggle();
            stat_rst = r;
        }
        stat.set_en(u8::from(e));
        stat.set_wide_in(w);
        stat.set_a(av);
        stat.set_b(bv);
        stat.set_q_in(q);
        stat.eval();

        dynm.get_words(wide_out, &mut out);
        assert_eq!(stat.wide_out(), out, "wide_out, cycle {cycle}");
        assert_eq!(stat.wide_out(), wide_ref(w), "wide_out, cycle {cycle}");
        assert_eq!(u64::from(stat.sum()), dynm.get(sum), "sum, cycle {cycle}");
        assert_eq!(stat.q_out(), dynm.get(q_out), "q_out, cycle {cycle}");

        dynm.tick(clk);
        for _ in 0..2 {
            stat.clock_toggle();
            stat.eval();
        }
        reference.posedge(r, e);
        assert_eq!(
            u64::from(stat.count()),
            dynm.get(count),
            "count, cycle {cycle}"
        );
        assert_eq!(stat.count(), reference.count, "count, cycle {cycle}");
    }
    stat.finish();
}
