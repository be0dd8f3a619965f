//! warpforge patch (see vendor/README.md): the recipe for compiling the
//! Verilator runtime, shared by this crate's `build.rs` (which compiles it
//! into the static `verilated_all` library) and by run-time model builders
//! that compile Verilated models into shared libraries and need the same
//! runtime and C shims inside them.
//!
//! This file is also included by `build.rs` (`#[path]`), so it must not
//! depend on anything else in the crate.

/// Verilator runtime sources, relative to `${VERILATOR_ROOT}/include`, for
/// Verilator `(major, minor)`.
///
/// From Verilator 5 on, `verilated.cpp` always uses the thread pool, so
/// `verilated_threads.cpp` is required (and `link_libs` adds pthread and
/// atomic).
pub fn runtime_sources(version: (u32, u32)) -> Vec<&'static str> {
    let mut files = vec![
        "verilated.cpp",
        "verilated_cov.cpp",
        "verilated_dpi.cpp",
        "verilated_save.cpp",
        "verilated_vcd_c.cpp",
        "verilated_vpi.cpp",
    ];
    if version >= (5, 0) {
        files.push("verilated_threads.cpp");
    }
    files
}

/// System libraries the runtime must be linked with (`-l<name>`).
pub fn link_libs(version: (u32, u32)) -> Vec<&'static str> {
    if version >= (5, 0) {
        vec!["pthread", "atomic"]
    } else {
        Vec::new()
    }
}

/// Whether `Verilated::addFlushCb`/`addExitCb` exist (4.038 and later);
/// before that the API was `Verilated::flushCb`.
pub fn has_flush_and_exit_cb(version: (u32, u32)) -> bool {
    version >= (4, 38)
}

/// C++ optimisation level for the runtime and models: -O2 even in debug
/// builds (Verilated code at -O0 is several times slower), -O3 when cargo
/// asks for it.
pub fn cpp_opt_level(cargo_opt_level: Option<&str>) -> u32 {
    match cargo_opt_level {
        Some("3") => 3,
        _ => 2,
    }
}

/// Source of `verilated_shim.cpp`: C functions wrapping the `Verilated::`
/// statics (the C side of `verilated::api`).  Compile with
/// `-DVERILATOR_VERSION_MAJOR=<major> -DVERILATOR_VERSION_MINOR=<minor>`.
pub const VERILATED_SHIM_CPP: &str = include_str!("verilated_shim.cpp");

/// Source of `verilatedvcdc_shim.cpp`: C functions wrapping
/// `VerilatedVcdC` (the C side of `verilated::vcd`).
pub const VERILATEDVCDC_SHIM_CPP: &str = include_str!("verilatedvcdc_shim.cpp");
