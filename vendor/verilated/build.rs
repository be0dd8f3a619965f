extern crate cc;
extern crate verilator;

use std::env;
use std::path::PathBuf;
use verilator::find_verilator_root;
use verilator::verilator_version;

// warpforge patch: the runtime file list, link libraries and version tests
// live in src/runtime.rs so that run-time model builders use the same recipe.
#[allow(dead_code)]
#[path = "src/runtime.rs"]
mod runtime;

fn getenv_unwrap(v: &str) -> String {
    match env::var(v) {
        Ok(s) => s,
        Err(..) => fail(&format!("environment variable `{}` not defined", v)),
    }
}

fn fail(s: &str) -> ! {
    panic!("\n{}\n\nbuild script failed, must exit now", s)
}

fn main() {
    // warpforge patch: without the `static-runtime` feature nothing is compiled here, so the
    // crate builds on a machine without Verilator (run-time builders find it when they run).
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_STATIC_RUNTIME").is_none() {
        return;
    }
    if let Some(root) = find_verilator_root() {
        // cargo:rustc-cfg=KEY[="VALUE"]
        let (major, minor) = verilator_version().unwrap();
        println!("cargo:rustc-cfg=verilator_version=\"{}.{}\"", major, minor);
        println!("cargo:rustc-check-cfg=cfg(verilator_version, values(any()))");
        println!("cargo:rustc-check-cfg=cfg(verilator, values(\"flush_and_exit_cb\"))");
        // warpforge patch: was `major == 4 && minor >= 38`, false for 5.x.
        if runtime::has_flush_and_exit_cb((major, minor)) {
            println!("cargo:rustc-cfg=verilator=\"flush_and_exit_cb\"");
        }

        let include = root.join("include");

        let mut target = getenv_unwrap("TARGET");
        if target.ends_with("-darwin") {
            target = target + "11";
        }

        // warpforge patch: includes verilated_threads.cpp for Verilator 5.
        let files = runtime::runtime_sources((major, minor));

        let files: Vec<PathBuf> = files.iter().map(|p| include.join(p)).collect();

        let mut cfg = cc::Build::new();
        // warpforge patch: -O2 (-O3 with opt-level 3) even in debug builds.
        let opt_level = env::var("OPT_LEVEL").ok();
        cfg.opt_level(runtime::cpp_opt_level(opt_level.as_ref().map(|s| s.as_str())));
        let tool = cfg.get_compiler();
        cfg.cpp(true).target(&target);
        if tool.is_like_clang() {
            cfg.flag("-faligned-new")
                .flag("-fbracket-depth=4096")
                .flag("-Qunused-arguments")
                .flag("-Wno-parentheses-equality")
                .flag("-Wno-sign-compare")
                .flag("-Wno-uninitialized")
                .flag("-Wno-unused-parameter")
                .flag("-Wno-unused-variable")
                .flag("-Wno-shadow");
        }
        if tool.is_like_gnu() {
            cfg.flag("-std=gnu++17")
                .flag("-faligned-new")
                .flag("-Wno-bool-operation")
                .flag("-Wno-sign-compare")
                .flag("-Wno-uninitialized")
                .flag("-Wno-unused-but-set-variable")
                .flag("-Wno-unused-parameter")
                .flag("-Wno-unused-variable")
                .flag("-Wno-shadow");
        }
        cfg.define("VERILATOR_VERSION_MAJOR", format!("{}", major).as_str())
            .define("VERILATOR_VERSION_MINOR", format!("{}", minor).as_str());
        cfg.include(&include)
            .include(include.join("vltstd"))
            .files(files)
            .file("src/verilated_shim.cpp")
            .file("src/verilatedvcdc_shim.cpp");
        cfg.compile("verilated_all");

        // warpforge patch: Verilator 5's runtime needs pthread and atomic.
        for lib in runtime::link_libs((major, minor)) {
            println!("cargo:rustc-link-lib={}", lib);
        }
        println!("cargo:rerun-if-changed=src/runtime.rs");
        println!("cargo:rerun-if-changed=src/verilated_shim.cpp");
        println!("cargo:rerun-if-changed=src/verilatedvcdc_shim.cpp");
        println!("cargo:rerun-if-env-changed=VERILATOR_ROOT");
    } else {
        fail("Failed to find `${VERILATOR_ROOT}`.  Please set `VERILATOR_ROOT` environment variable or ensure `verilator` is in `PATH`.");
    }
}
