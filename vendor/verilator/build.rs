// warpforge patch (see vendor/README.md): remember the target/host triples
// this crate was compiled for, so that `gen::Verilator` can also be used at
// *run time* (outside a cargo build script, where `TARGET`/`HOST` are not set).
use std::env;

fn main() {
    for var in &["TARGET", "HOST"] {
        let value = env::var(var).unwrap_or_default();
        println!("cargo:rustc-env=VERILATOR_RS_BUILD_{}={}", var, value);
    }
    println!("cargo:rerun-if-changed=build.rs");
}
