//! Building a kernel: `riscv64-unknown-elf-gcc` with the flags in [`FLAGS`], the start-up code,
//! the linker script and the small libc of `kernels/runtime/`, cached by a hash of the flags and
//! of every file the compiler and linker read (see [`build`]).

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
/// `-march=rv32im_zicsr_zifencei`: under the ISA spec gcc 12 and its assembler default to
/// (20191213), `rv32im` does not include Zicsr or Zifencei, and without them `csrr` and
/// `fence.i` (both in docs/isa.md) do not assemble.
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
    "-march=rv32im_zicsr_zifencei",
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
/// (`-print-libgcc-file-name`). Debian's gcc 12 does not match `-march=rv32im_zicsr_zifencei`
/// to the `rv32im/ilp32` multilib and would link the default (rv64) libgcc with `-lgcc`.
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
    #[error(
        "the inputs of {kernel} kept changing while it was being built ({ATTEMPTS} attempts): \
         build again once they are saved"
    )]
    InputsChanging { kernel: PathBuf },
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

/// Where the dependency manifests live, inside the output directory.
const MANIFEST_DIR: &str = ".deps";
/// First line of a manifest (a different version is ignored: the kernel is rebuilt).
const MANIFEST_HEADER: &str = "warpforge-kernel-deps 1";
/// How many times a build starts over when an input changes while gcc runs.
const ATTEMPTS: usize = 3;

/// Compile and link one kernel (a `.c` or `.S` file) into an ELF in `out_dir`, named
/// `<stem>-<hash>.elf`, and return its path.
///
/// The hash covers the *recipe* — [`FLAGS`], the compiler path, the libgcc used, the paths of
/// `include/` and `runtime/link.ld`, the source's canonical path — and the path and contents
/// of every file the build reads: what `gcc -M` lists for `runtime/crt0.S`, `runtime/libc.c`
/// and the source (the files themselves and everything they `#include`, `.h`, `.c` or `.S`,
/// system headers too), plus `link.ld` and `libgcc.a`. An unchanged kernel is not rebuilt:
/// the existing file is returned untouched.
///
/// The dependency list of the last build of a recipe is kept in a small manifest
/// (`out_dir/.deps/<stem>-<recipe hash>.deps`, one path a line). A call reads the manifest,
/// hashes the listed files as they are now and returns the ELF of that hash if it exists,
/// without running gcc. Otherwise (no manifest, a listed file gone, no such ELF) it runs
/// `gcc -M` for the current dependency list, hashes, compiles and links under a temporary
/// name, checks that no input changed meanwhile (else it starts over, a few times at most),
/// renames the ELF into place and rewrites the manifest. Both are written under unique
/// temporary names and renamed, so concurrent builds of the same kernel (parallel tests)
/// never see a half-written file.
///
/// What the cache cannot see: a header created where it would shadow the one gcc found last
/// time (earlier in the include search path) is not in the manifest; delete `out_dir/.deps` to
/// make the next build ask gcc again.
pub fn build(source: &Path, out_dir: &Path) -> Result<PathBuf, BuildError> {
    build_status(source, out_dir).map(|(elf, _)| elf)
}

/// [`build`], also telling whether the compiler ran (`true`) or the ELF came from the cache.
pub fn build_status(source: &Path, out_dir: &Path) -> Result<(PathBuf, bool), BuildError> {
    let gcc = compiler()?;
    let lib = libgcc(&gcc);
    let dir = kernels_dir();
    let runtime = dir.join("runtime");
    let inputs = Inputs {
        include: dir.join("include"),
        link_ld: runtime.join("link.ld"),
        crt0: runtime.join("crt0.S"),
        libc: runtime.join("libc.c"),
        lib,
        gcc,
        source: source.to_path_buf(),
    };
    let canonical = fs::canonicalize(source).map_err(|error| BuildError::Io {
        path: source.to_path_buf(),
        error,
    })?;

    let mut recipe = Fnv::new();
    for flag in FLAGS {
        recipe.item(flag.as_bytes());
    }
    for p in [
        inputs.gcc.as_os_str(),
        inputs.include.as_os_str(),
        inputs.link_ld.as_os_str(),
        canonical.as_os_str(),
    ] {
        recipe.item(p.as_encoded_bytes());
    }
    recipe.item(inputs.lib.as_bytes());

    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".to_string());
    let elf_path = |hash: u64| out_dir.join(format!("{stem}-{hash:016x}.elf"));
    let manifest = out_dir
        .join(MANIFEST_DIR)
        .join(format!("{stem}-{:016x}.deps", recipe.0));

    // Cache hit: the files of the last build, as they are now, name an existing ELF.
    if let Some(deps) = read_manifest(&manifest) {
        if let Ok(hash) = hash_inputs(recipe, &deps) {
            let out = elf_path(hash);
            if out.is_file() {
                return Ok((out, false));
            }
        }
    }

    for _ in 0..ATTEMPTS {
        let deps = inputs.dependencies()?;
        let hash = hash_inputs(recipe, &deps)?;
        let out = elf_path(hash);
        let compiled = !out.is_file();
        let tmp = if !compiled {
            None
        } else {
            Some(inputs.compile(out_dir, &format!("{stem}-{hash:016x}"))?)
        };
        // An input edited while gcc ran: the ELF may hold either version, so it must not be
        // filed under this hash.
        if hash_inputs(recipe, &deps).ok() != Some(hash) {
            if let Some(tmp) = tmp {
                let _ = fs::remove_file(tmp);
            }
            continue;
        }
        if let Some(tmp) = tmp {
            fs::rename(&tmp, &out).map_err(|error| BuildError::Io {
                path: out.clone(),
                error,
            })?;
        }
        write_manifest(&manifest, &deps)?;
        return Ok((out, compiled));
    }
    Err(BuildError::InputsChanging {
        kernel: source.to_path_buf(),
    })
}

/// The fixed inputs of a build and the source.
struct Inputs {
    gcc: PathBuf,
    /// The libgcc argument: a path, or `-lgcc`.
    lib: String,
    include: PathBuf,
    link_ld: PathBuf,
    crt0: PathBuf,
    libc: PathBuf,
    source: PathBuf,
}

impl Inputs {
    /// Every file the build reads, absolute, sorted, without duplicates: `gcc -M` (preprocess
    /// only, make rules on stdout) over the three sources, plus the linker script and libgcc.
    ///
    /// One `-M` command for all sources, rather than `-MD` in the compile command: with several
    /// sources, gcc 12 writes each one's `.d` file to the same name, so only the last survives.
    fn dependencies(&self) -> Result<Vec<PathBuf>, BuildError> {
        let mut cmd = Command::new(&self.gcc);
        cmd.args(FLAGS)
            .arg("-I")
            .arg(&self.include)
            .arg("-M")
            .arg(&self.crt0)
            .arg(&self.libc)
            .arg(&self.source);
        let output = self.run(cmd)?;
        let cwd = std::env::current_dir().map_err(|error| BuildError::Io {
            path: PathBuf::from("."),
            error,
        })?;
        let mut deps: Vec<PathBuf> = parse_make_deps(&String::from_utf8_lossy(&output.stdout))
            .into_iter()
            .map(|p| cwd.join(p))
            .collect();
        deps.push(cwd.join(&self.link_ld));
        if Path::new(&self.lib).is_absolute() {
            deps.push(PathBuf::from(&self.lib));
        }
        deps.sort();
        deps.dedup();
        Ok(deps)
    }

    /// Compiles and links into a unique temporary file in `out_dir` and returns its path.
    fn compile(&self, out_dir: &Path, name: &str) -> Result<PathBuf, BuildError> {
        fs::create_dir_all(out_dir).map_err(|error| BuildError::Io {
            path: out_dir.to_path_buf(),
            error,
        })?;
        let tmp = temp_name(out_dir, name);
        let mut cmd = Command::new(&self.gcc);
        cmd.args(FLAGS)
            .arg("-I")
            .arg(&self.include)
            .arg("-T")
            .arg(&self.link_ld)
            .arg(&self.crt0)
            .arg(&self.libc)
            .arg(&self.source)
            .arg(&self.lib)
            .arg("-o")
            .arg(&tmp);
        if let Err(e) = self.run(cmd) {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(tmp)
    }

    /// Runs `cmd`; a failure is [`BuildError::Compile`] with gcc's diagnostics.
    fn run(&self, mut cmd: Command) -> Result<std::process::Output, BuildError> {
        let command = format!("{cmd:?}");
        let output = cmd.output().map_err(|error| BuildError::Spawn {
            compiler: self.gcc.clone(),
            error,
        })?;
        if !output.status.success() {
            return Err(BuildError::Compile {
                kernel: self.source.clone(),
                status: output.status.to_string(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                command,
            });
        }
        Ok(output)
    }
}

/// A hidden name in `dir`, unique across processes and calls, for a file that is renamed into
/// place once complete.
fn temp_name(dir: &Path, name: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The recipe hash extended with the path and contents of every dependency. Fails on the
/// first file that cannot be read.
fn hash_inputs(recipe: Fnv, deps: &[PathBuf]) -> Result<u64, BuildError> {
    let mut h = recipe;
    h.item(&(deps.len() as u64).to_le_bytes());
    for d in deps {
        h.item(d.as_os_str().as_encoded_bytes());
        h.item(&read(d)?);
    }
    Ok(h.0)
}

/// The dependency list of a manifest, or `None` if it is missing or not in the current format.
fn read_manifest(path: &Path) -> Option<Vec<PathBuf>> {
    let text = fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if lines.next() != Some(MANIFEST_HEADER) {
        return None;
    }
    let deps: Vec<PathBuf> = lines.map(PathBuf::from).collect();
    (!deps.is_empty()).then_some(deps)
}

/// Writes the manifest atomically. A dependency whose path cannot be written as one line of
/// UTF-8 leaves no manifest: every build of that kernel then asks gcc again, which is slower
/// but still correct.
fn write_manifest(path: &Path, deps: &[PathBuf]) -> Result<(), BuildError> {
    let mut text = format!("{MANIFEST_HEADER}\n");
    for d in deps {
        match d.to_str() {
            Some(s) if !s.contains(['\n', '\r']) => {
                text.push_str(s);
                text.push('\n');
            }
            _ => {
                let _ = fs::remove_file(path);
                return Ok(());
            }
        }
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| BuildError::Io { path, error }
    };
    let dir = path.parent().expect("a manifest lives in a directory");
    fs::create_dir_all(dir).map_err(io(dir))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = temp_name(dir, &name);
    fs::write(&tmp, text).map_err(io(&tmp))?;
    fs::rename(&tmp, path).map_err(|error| {
        let _ = fs::remove_file(&tmp);
        BuildError::Io {
            path: path.to_path_buf(),
            error,
        }
    })
}

/// The prerequisites of the make rules that `gcc -M` prints, unescaped; the targets (words
/// ending in an unescaped `:`) are dropped.
///
/// gcc's escaping (libcpp `mkdeps.cc`): a space or tab in a name is written with a backslash
/// before it (and the backslashes just before it doubled), `#` as `\#`, `$` as `$$`; a line
/// ends in ` \` when the rule continues on the next one. Any other backslash is literal.
fn parse_make_deps(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut words: Vec<(String, bool)> = Vec::new();
    let mut word = String::new();
    // Whether the word's last character is a `:` that was not escaped.
    let mut colon_last = false;
    let end_word = |word: &mut String, colon_last: &mut bool, words: &mut Vec<(String, bool)>| {
        if !word.is_empty() {
            words.push((std::mem::take(word), *colon_last));
        }
        *colon_last = false;
    };
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let run = chars[i..].iter().take_while(|&&c| c == '\\').count();
                i += run;
                match chars.get(i) {
                    Some(' ' | '\t') => {
                        // 2n+1 backslashes: n backslashes and a space in the name; 2n: n
                        // backslashes ending the name.
                        word.extend(std::iter::repeat_n('\\', run / 2));
                        if run % 2 == 1 {
                            word.push(chars[i]);
                            i += 1;
                        }
                    }
                    Some('\n') => {
                        // Line continuation.
                        word.extend(std::iter::repeat_n('\\', run - 1));
                        end_word(&mut word, &mut colon_last, &mut words);
                        i += 1;
                    }
                    Some('\r') if chars.get(i + 1) == Some(&'\n') => {
                        word.extend(std::iter::repeat_n('\\', run - 1));
                        end_word(&mut word, &mut colon_last, &mut words);
                        i += 2;
                    }
                    Some('#') => {
                        word.extend(std::iter::repeat_n('\\', run - 1));
                        word.push('#');
                        i += 1;
                    }
                    _ => word.extend(std::iter::repeat_n('\\', run)),
                }
                colon_last = false;
            }
            '$' if chars.get(i + 1) == Some(&'$') => {
                word.push('$');
                colon_last = false;
                i += 2;
            }
            ' ' | '\t' | '\n' | '\r' => {
                end_word(&mut word, &mut colon_last, &mut words);
                i += 1;
            }
            c => {
                word.push(c);
                colon_last = c == ':';
                i += 1;
            }
        }
    }
    end_word(&mut word, &mut colon_last, &mut words);
    words
        .into_iter()
        .filter(|(_, target)| !target)
        .map(|(w, _)| w)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_make_deps;

    #[test]
    fn make_rules_are_unescaped() {
        let text = "crt0.o: runtime/crt0.S\n\
                    libc.o: runtime/libc.c \\\n /usr/include/stdint.h\n\
                    k\\#1.o: /tmp/wf\\ dep/k\\#1.c /tmp/wf\\ dep/inc\\ lude.c include/warpforge.h \\\r\n \
                    /a/cost$$.h /b/back\\\\\\ slash.c /c/dir\\\\ /d/plain\\x.c\n";
        assert_eq!(
            parse_make_deps(text),
            [
                "runtime/crt0.S",
                "runtime/libc.c",
                "/usr/include/stdint.h",
                "/tmp/wf dep/k#1.c",
                "/tmp/wf dep/inc lude.c",
                "include/warpforge.h",
                "/a/cost$.h",
                "/b/back\\ slash.c",
                "/c/dir\\",
                "/d/plain\\x.c",
            ]
        );
    }

    #[test]
    fn a_target_on_its_own_line_is_dropped() {
        assert_eq!(parse_make_deps("k.o: \\\n a.c \\\n b.h\n"), ["a.c", "b.h"]);
        assert!(parse_make_deps("").is_empty());
    }
}
