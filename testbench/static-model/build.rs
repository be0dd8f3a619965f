//! Builds `../tests/rtl/counter_top.v` at compile time through the
//! `verilator` crate (ModuleGenerator for the Rust/C++ wrapper,
//! Verilator::build for the model); the runtime comes from `verilated`.
use std::env;
use std::path::PathBuf;

use verilator::gen::Verilator;
use verilator::module::ModuleGenerator;

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let rtl = PathBuf::from("../tests/rtl/counter_top.v");
    ModuleGenerator::default().generate("ports.rs");
    Verilator::default()
        .with_trace(true)
        .file(&rtl)
        .file(out.join("counter_top.cpp"))
        .build("counter_top");
    println!("cargo:rerun-if-changed=ports.rs");
    println!("cargo:rerun-if-changed={}", rtl.display());
}
