//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use warpforge_testbench::verilator_model::ModelBuild;

/// XOR key of `wide_out` in tests/rtl/counter_top.v, least significant
/// word first.
pub const WIDE_KEY: [u32; 3] = [0x89AB_CDEF, 0x0123_4567, 0xDEAD_BEEF];

/// Cache shared by all test runs (the Verilator runtime is compiled once).
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verilator-cache")
}

/// A scratch directory unique to this process and `name`.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("testbench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

pub fn rtl(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/rtl")
        .join(name)
}

pub fn counter_build(trace: bool) -> ModelBuild {
    ModelBuild {
        top: "counter_top".into(),
        verilog_files: vec![rtl("counter_top.v")],
        cache_dir: cache_dir(),
        trace,
        ..Default::default()
    }
}

/// Rust reference model of counter_top's registered state.
#[derive(Default)]
pub struct CounterRef {
    pub count: u32,
}

impl CounterRef {
    /// Rising clock edge with the given inputs.
    pub fn posedge(&mut self, rst: bool, en: bool) {
        if rst {
            self.count = 0;
        } else if en {
            self.count = self.count.wrapping_add(1);
        }
    }
}

pub fn wide_ref(w: [u32; 3]) -> [u32; 3] {
    [w[0] ^ WIDE_KEY[0], w[1] ^ WIDE_KEY[1], w[2] ^ WIDE_KEY[2]]
}
