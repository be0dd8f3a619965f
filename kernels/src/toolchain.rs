//! Building a kernel: `riscv64-unknown-elf-gcc` with the flags in [`FLAGS`], the start-up code,
//! the linker script and the small libc of `kernels/runtime/`, cached by a hash of every input.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The compiler looked up on `PATH`.
pub const COMPILER: &str = "riscv64-unknown-elf-gcc";

/// Environment variable that, when set, names the compiler to use instead of [`COMPILER`]
/// (a path, or a name looked up on `PATH`).
pub const COMPILER_ENV: &str = "WARPFORGE_RISCV_GCC";

/// The gcc flags of every kernel build (the one place they are defined; see kernels/README.md).
///
/// Beyond the plain RV32IM/ilp32 freestanding set, three groups keep gcc's output within what
/// the warpforge loader and SIMT hardware accept:
/// * `-fno-jump-tables`, `-fno-optimize-sibling-calls`: no `jr` through a register other than
///   `ra` (switch tables, tail calls); the loader refuses indirect jumps.
/// * `-fno-shrink-wrap`, `--param=max-grow-copy-bb-insns=0`: a function that calls others
///   (and so writes `ra`) has a single `ret`; otherwise gcc emits early returns before the
///   prologue or duplicated epilogues, whose branches reconverge only "at the return", which
///   the loader refuses in functions that write `ra`.
/// * `-fno-thread-jumps`: gcc's jump threading duplicates `wf.bar` into the two sides of a
///   branch (e.g. `if (tid < k) ...; wf_barrier(); if (tid < k) ...`), and a warp that is
///   divergent there would arrive at the barrier once per side. With it off, a barrier written
///   in uniform control flow stays in uniform control flow.
///
/// `-ffunction-sections -fdata-sections -Wl,--gc-sections` drop what is not used (in particular
/// the unused functions of `runtime/libc.c`). libgcc is linked by its full path (see
/// [`LIBGCC_MULTILIB`]) instead of `-lgcc`.
pub const FLAGS: &[&str] = &[
    "-march=rv32im_zicsr",
    "-mabi=ilp32",
    "-O2",
    "-ffreestanding",
    "-nostdlib",
    "-nostartfiles",
    "-fno-jump-tables",
    "-fno-optimize-sibling-calls",
    "-fno-tree-loop-distribute-patterns",
    "-fno-shrink-wrap",
    "--param=max-grow-copy-bb-insns=0",
    "-fno-thread-jumps",
    "-msmall-data-limit=0",
    "-ffunction-sections",
    "-fdata-sections",
    "-Wl,--gc-sections",
    "-Wall",
    "-Wextra",
    "-Werror",
];

/// Flags used only to ask gcc where the rv32im/ilp32 multilib `libgcc.a` is
/// (`-print-libgcc-file-name`). Debian's gcc 12 does not match `-march=rv32im_zicsr` to the
/// `rv32im/ilp32` multilib and would link the default (rv64) libgcc with `-lgcc`.
pub const LIBGCC_MULTILIB: &[&str] = &["-march=rv32im", "-mabi=ilp32"];

/// Why a kernel could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(
        "{COMPILER} not found on PATH (nor named by ${COMPILER_ENV}): run scripts/setup.sh to install it"
    )]
    NoCompiler,
    #[error("cannot read or write {path}: {error}")]
    Io {
        path: PathBuf,
        #[source]
        error: std::io::Error,
    },
    #[error("cannot run {compiler}: {error}")]
    Spawn {
        compiler: PathBuf,
        #[source]
        error: std::io::Error,
    },
    #[error("building {kernel} failed ({status}):\n{stderr}\ncommand: {command}")]
    Compile {
        kernel: PathBuf,
        status: String,
        /// gcc's (and ld's) diagnostics.
        stderr: String,
        command: String,
    },
}

/// Absolute path of the `kernels/` directory (sources, `include/`, `runtime/`).
pub fn kernels_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where [`crate::KernelSpec::elf`] puts the ELFs: `<workspace>/target/kernels`.
pub fn default_out_dir() -> PathBuf {
    let dir = kernels_dir();
    dir.parent().unwrap_or(&dir).join("target").join("kernels")
}

/// The RISC-V compiler: `$WARPFORGE_RISCV_GCC` if set, else `riscv64-unknown-elf-gcc` on `PATH`.
pub fn compiler() -> Result<PathBuf, BuildError> {
    let name: OsString = match std::env::var_os(COMPILER_ENV) {
        Some(v) if !v.is_empty() => v,
        _ => OsString::from(COMPILER),
    };
    let as_path = Path::new(&name);
    if as_path.components().count() > 1 {
        return if as_path.is_file() {
            Ok(as_path.to_path_buf())
        } else {
            Err(BuildError::NoCompiler)
        };
    }
    let path = std::env::var_os("PATH").ok_or(BuildError::NoCompiler)?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(&name))
        .find(|candidate| candidate.is_file())
        .ok_or(BuildError::NoCompiler)
}

/// The libgcc argument for `gcc`: the full path of the rv32im/ilp32 `libgcc.a`, or `-lgcc` if gcc
/// cannot tell.
fn libgcc(gcc: &Path) -> String {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(gcc) {
        return hit.clone();
    }
    let found = Command::new(gcc)
        .args(LIBGCC_MULTILIB)
        .arg("-print-libgcc-file-name")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|p| Path::new(p).is_absolute() && Path::new(p).is_file())
        .unwrap_or_else(|| "-lgcc".to_string());
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(gcc.to_path_buf(), found.clone());
    found
}

/// 64-bit FNV-1a.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, data: &[u8]) {
        for &b in data {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// A length-prefixed item, so that concatenations cannot collide.
    fn item(&mut self, data: &[u8]) {
        self.bytes(&(data.len() as u64).to_le_bytes());
        self.bytes(data);
    }
}

pub(crate) fn fnv1a(data: &[u8]) -> u64 {
    let mut h = Fnv::new();
    h.bytes(data);
    h.0
}

fn read(path: &Path) -> Result<Vec<u8>, BuildError> {
    fs::read(path).map_err(|error| BuildError::Io {
        path: path.to_path_buf(),
        error,
    })
}

/// Hash the files of `dir` whose extension is in `exts` (sorted by name), if `dir` exists.
fn hash_dir(h: &mut Fnv, dir: &Path, exts: &[&str]) -> Result<(), BuildError> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.contains(&e))
        })
        .collect();
    files.sort();
    for f in files {
        h.item(f.file_name().unwrap_or_default().as_encoded_bytes());
        h.item(&read(&f)?);
    }
    Ok(())
}

/// Compile and link one kernel (a `.c` or `.S` file) into an ELF in `out_dir`, named
/// `<stem>-<hash>.elf`. The hash covers the source, the `.h` files beside it, `include/`,
/// `runtime/crt0.S`, `runtime/link.ld`, `runtime/libc.c`, [`FLAGS`], the compiler path and the
/// libgcc used, so an unchanged kernel is not rebuilt (the existing file is returned untouched).
pub fn build(source: &Path, out_dir: &Path) -> Result<PathBuf, BuildError> {
    build_status(source, out_dir).map(|(elf, _)| elf)
}

/// [`build`], also telling whether the compiler ran (`true`) or the ELF came from the cache.
pub fn build_status(source: &Path, out_dir: &Path) -> Result<(PathBuf, bool), BuildError> {
    let gcc = compiler()?;
    let lib = libgcc(&gcc);
    let dir = kernels_dir();
    let include = dir.join("include");
    let runtime = dir.join("runtime");
    let crt0 = runtime.join("crt0.S");
    let link_ld = runtime.join("link.ld");
    let libc = runtime.join("libc.c");

    let mut h = Fnv::new();
    for flag in FLAGS {
        h.item(flag.as_bytes());
    }
    h.item(gcc.as_os_str().as_encoded_bytes());
    h.item(lib.as_bytes());
    h.item(&read(source)?);
    if let Some(src_dir) = source.parent() {
        hash_dir(&mut h, src_dir, &["h"])?;
    }
    hash_dir(&mut h, &include, &["h"])?;
    for f in [&crt0, &link_ld, &libc] {
        h.item(&read(f)?);
    }

    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".to_string());
    let out = out_dir.join(format!("{stem}-{:016x}.elf", h.0));
    if out.is_file() {
        return Ok((out, false));
    }
    fs::create_dir_all(out_dir).map_err(|error| BuildError::Io {
        path: out_dir.to_path_buf(),
        error,
    })?;

    // Build under a unique temporary name and rename: concurrent builds of the same kernel
    // (parallel tests) never see a half-written ELF.
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let tmp = out_dir.join(format!(
        ".{stem}-{:016x}.{}.{}.tmp",
        h.0,
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut cmd = Command::new(&gcc);
    cmd.args(FLAGS)
        .arg("-I")
        .arg(&include)
        .arg("-T")
        .arg(&link_ld)
        .arg(&crt0)
        .arg(&libc)
        .arg(source)
        .arg(&lib)
        .arg("-o")
        .arg(&tmp);
    let command = format!("{cmd:?}");
    let output = cmd.output().map_err(|error| BuildError::Spawn {
        compiler: gcc.clone(),
        error,
    })?;
    if !output.status.success() {
        let _ = fs::remove_file(&tmp);
        return Err(BuildError::Compile {
            kernel: source.to_path_buf(),
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            command,
        });
    }
    fs::rename(&tmp, &out).map_err(|error| BuildError::Io {
        path: out.clone(),
        error,
    })?;
    Ok((out, true))
}
