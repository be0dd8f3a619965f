//! One kernel in lock-step, chosen by environment (a debugging aid and the quickest end-to-end
//! check): `WF_KERNEL` (default vecadd), `WF_CONFIG` (tiny), `WF_MEM` (zero).

mod cosim_common;

use cosim_common::{kernel_image, limits, place_case};
use warpforge_config::GpuConfig;
use warpforge_testbench::lockstep::{cosim, CosimOptions};
use warpforge_testbench::memory_model::MemorySettings;

#[test]
fn cosim_smoke() {
    let kname = std::env::var("WF_KERNEL").unwrap_or_else(|_| "vecadd".into());
    let cname = std::env::var("WF_CONFIG").unwrap_or_else(|_| "tiny".into());
    let mname = std::env::var("WF_MEM").unwrap_or_else(|_| "zero".into());
    let cfg = GpuConfig::preset(&cname).unwrap();
    let k = warpforge_kernels::by_name(&kname).expect("kernel");
    let image = kernel_image(k);
    let case = k.default_case(&limits(&cfg), 1);
    let (gpu, launch, _) = place_case(&cfg, &image, &case);
    let opts = CosimOptions {
        mem: MemorySettings::preset(&mname).expect("memory preset"),
        vcd_on_failure: std::env::var_os("WF_VCD").map(Into::into),
        ..Default::default()
    };
    match cosim(&cfg, &image, gpu, launch, &opts) {
        Ok(r) => eprintln!(
            "{kname} on {cname}/{mname}: {:?} in {} cycles",
            r.outcome, r.cycles
        ),
        Err(e) => panic!("{e}"),
    }
}
