//! The generator's fingerprint: a hash of every source that shapes the emitted Verilog (this
//! crate, the configuration and ISA crates it reads, and the locked dependency versions, which
//! pin rust-hdl). Caches of generated Verilog are keyed on it (`warpforge_hdl::GENERATOR_FINGERPRINT`),
//! so a changed generator never serves stale Verilog.

use std::fs;
use std::path::{Path, PathBuf};

/// 64-bit FNV-1a, twice with different offsets: 128 bits without a build dependency.
struct Hash([u64; 2]);

impl Hash {
    fn item(&mut self, data: &[u8]) {
        for (i, h) in self.0.iter_mut().enumerate() {
            for &b in (data.len() as u64).to_le_bytes().iter().chain(data) {
                *h ^= u64::from(b);
                *h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
            // Different streams for the two halves.
            *h ^= i as u64 + 1;
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest
        .parent()
        .expect("the workspace holds hdl/")
        .to_path_buf();
    let mut h = Hash([0xcbf2_9ce4_8422_2325, 0x6c62_272e_07bb_0142]);
    h.item(
        std::env::var("CARGO_PKG_VERSION")
            .unwrap_or_default()
            .as_bytes(),
    );
    for dir in ["hdl/src", "config/src", "isa/src"] {
        let d = root.join(dir);
        println!("cargo:rerun-if-changed={}", d.display());
        let mut files = Vec::new();
        rust_files(&d, &mut files);
        files.sort();
        for f in files {
            h.item(
                f.strip_prefix(&root)
                    .unwrap_or(&f)
                    .as_os_str()
                    .as_encoded_bytes(),
            );
            h.item(&fs::read(&f).unwrap_or_default());
        }
    }
    let lock = root.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    h.item(&fs::read(&lock).unwrap_or_default());
    println!(
        "cargo:rustc-env=WARPFORGE_HDL_FINGERPRINT={:016x}{:016x}",
        h.0[0], h.0[1]
    );
}
