//! Build Verilated models at run time and drive them from Rust.
//!
//! Flow of [`build`]:
//!
//! 1. hash the Verilog text (contents, in order; not the file names) and the build options
//!    into a cache key; if `cache_dir/<top>-<key>/libwf_model.so` exists,
//!    just load it (no verilator, no compiler);
//! 2. otherwise run `verilator --cc` through the `verilator` crate
//!    (`gen::Verilator::verilate`), which also reports the generated C++
//!    files and the top-level ports;
//! 3. generate a small C ABI shim for the model (see the `shim` module);
//! 4. compile the Verilator runtime once per cache directory (reused by all
//!    models; file list and C shims from the `verilated` crate), and the
//!    model + shim, with the compiler and flags configured by
//!    `gen::Verilator::cpp_build` (-O2 regardless of the Rust profile);
//! 5. link a self-contained shared library exporting only the shim's C
//!    functions, move it atomically into the cache, `dlopen` it.
//!
//! Port access: resolve a port once with [`LoadedModel::port`], then use the
//! returned [`PortId`] with [`LoadedModel::set`] / [`LoadedModel::get`] (or
//! the `_words` variants for ports wider than 64 bits).  These are a bounds
//! check plus a direct load/store to the port's storage inside the model: no
//! allocation, hashing or FFI call.

mod compile;
mod shim;

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString, OsString};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use verilator::gen::{ErrorKind as VlErrorKind, Verilated, Verilator};

use compile::Job;

/// File name of the model library inside its cache directory.
const LIB_NAME: &str = "libwf_model.so";
/// C++ optimisation level of models and runtime.
const CPP_OPT_LEVEL: u32 = 2;
/// Simulation time units per half clock period used by [`LoadedModel::tick`].
pub const HALF_PERIOD: u64 = 5;

/// What to build.  Construct with `..Default::default()` so that new
/// options can be added without breaking callers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelBuild {
    /// Top module name (`--top-module`).
    pub top: String,
    /// Verilog/SystemVerilog sources.  Only their contents
    /// enter the cache key, so regenerating identical Verilog in another
    /// directory still hits the cache.  Files pulled in via `` `include ``
    /// or `-y` are not hashed: list every source here.
    pub verilog_files: Vec<PathBuf>,
    /// Cache directory (created if missing).  Holds one directory per model
    /// and one with the compiled Verilator runtime.
    pub cache_dir: PathBuf,
    /// Build with `--trace` so that [`LoadedModel::open_trace`] works.
    pub trace: bool,
    /// Extra verilator arguments (e.g. `-Wno-fatal`, `-Wno-WIDTH`); part of
    /// the cache key.
    pub verilator_args: Vec<String>,
}

/// Why [`build`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The [`ModelBuild`] is unusable (e.g. empty top name, no sources).
    #[error("invalid model build: {0}")]
    Invalid(String),
    /// verilator is not installed or could not be run.
    #[error("Verilator is not installed or cannot be run ({0}): install it with `scripts/setup.sh --verilator` (Debian package `verilator`)")]
    VerilatorNotFound(String),
    /// verilator rejected the design; `message` is verilator's output
    /// (`%Error: file.v:3:5: syntax error, ...`).
    #[error("verilator failed on top module `{top}`:\n{message}")]
    Verilate {
        /// Top module.
        top: String,
        /// verilator's diagnostics.
        message: String,
    },
    /// The C++ compiler or linker failed.
    #[error("C++ build failed: {command}\n{output}")]
    Compile {
        /// Command line.
        command: String,
        /// Exit status and compiler output.
        output: String,
    },
    /// Loading the shared library or one of its symbols failed.
    #[error("loading {path}: {message}")]
    Load {
        /// The library.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// File system error.
    #[error("{path}: {source}")]
    Io {
        /// File or directory involved.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Unknown port name, or a write to an output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PortError {
    /// No port with this name.
    #[error("no port named `{0}`")]
    Unknown(String),
    /// The port is an output.
    #[error("port `{0}` is an output")]
    NotInput(String),
}

/// Tracing failure.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The model was built with `trace: false`.
    #[error("model was built without tracing (ModelBuild::trace = false)")]
    NotEnabled,
    /// The VCD file could not be opened.
    #[error("cannot open VCD file {0}")]
    Open(PathBuf),
}

/// Port direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortDir {
    /// `input`
    Input,
    /// `output`
    Output,
    /// `inout`
    InOut,
}

/// A top-level port of a loaded model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    /// Name (the C++ member name Verilator uses, normally the Verilog name).
    pub name: String,
    /// Direction.
    pub dir: PortDir,
    /// Width in bits.
    pub width: u32,
}

impl PortInfo {
    /// Number of 32-bit words of the port's value.
    pub fn words(&self) -> usize {
        self.width.div_ceil(32) as usize
    }
}

/// Handle of a port, from [`LoadedModel::port`].  Valid for every instance
/// of the same model library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortId(u32);

impl PortId {
    /// Index of the port in [`LoadedModel::ports`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a [`build`] went.
#[derive(Clone, Debug, Default)]
pub struct BuildReport {
    /// The library came from the cache (nothing was compiled).
    pub cache_hit: bool,
    /// The Verilator runtime had to be compiled (first model in this cache
    /// directory, or new Verilator/compiler flags).
    pub runtime_compiled: bool,
    /// Time spent in verilator.
    pub verilate: Duration,
    /// Time spent compiling the runtime.
    pub runtime_compile: Duration,
    /// Time spent compiling the model and shim.
    pub model_compile: Duration,
    /// Time spent linking.
    pub link: Duration,
    /// Total wall time of [`build`], including loading.
    pub total: Duration,
    /// Cache key (hex).
    pub key: String,
    /// The shared library.
    pub library: PathBuf,
}

/// Serialises builds within the process (they saturate the CPU anyway, and
/// this keeps two threads from compiling the same model or runtime).
/// Between processes the cache is protected by atomic directory renames.
static BUILD_LOCK: Mutex<()> = Mutex::new(());
static TMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Build (or fetch from the cache) the model described by `b` and create an
/// instance of it.
///
/// A second call with the same Verilog text and options does not run
/// verilator or the compiler; it loads the cached library.
pub fn build(b: &ModelBuild) -> Result<LoadedModel, BuildError> {
    let t0 = Instant::now();
    if b.top.is_empty() || !b.top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(BuildError::Invalid(format!(
            "top module name `{}` is not a plain identifier",
            b.top
        )));
    }
    if b.verilog_files.is_empty() {
        return Err(BuildError::Invalid("no Verilog files".to_string()));
    }
    let mut sources = Vec::with_capacity(b.verilog_files.len());
    for f in &b.verilog_files {
        let text = fs::read(f).map_err(io_err(f))?;
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        sources.push((name, text));
    }
    fs::create_dir_all(&b.cache_dir).map_err(io_err(&b.cache_dir))?;
    let cache_dir = fs::canonicalize(&b.cache_dir).map_err(io_err(&b.cache_dir))?;

    let key = model_key(b, &sources);
    let model_dir = cache_dir.join(format!("{}-{}", b.top, &key[..32]));
    let lib_path = model_dir.join(LIB_NAME);

    let mut report = BuildReport {
        key: key.clone(),
        library: lib_path.clone(),
        ..Default::default()
    };
    if !lib_path.is_file() {
        let _guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        if !lib_path.is_file() {
            build_uncached(b, &cache_dir, &model_dir, &mut report)?;
        } else {
            report.cache_hit = true;
        }
    } else {
        report.cache_hit = true;
    }

    let lib = ModelLib::load(&lib_path)?;
    report.total = t0.elapsed();
    Ok(LoadedModel::instantiate(Arc::new(lib), report))
}

/// Feed a length-prefixed field into the hash.
fn feed(h: &mut Sha256, data: &[u8]) {
    h.update((data.len() as u64).to_le_bytes());
    h.update(data);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `verilator --version` (once per process); part of the cache keys.
fn verilator_version_string() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| match verilator::verilator_version() {
        Some((major, minor)) => format!("{major}.{minor:03}"),
        None => "unknown".to_string(),
    })
}

fn model_key(b: &ModelBuild, sources: &[(String, Vec<u8>)]) -> String {
    let mut h = Sha256::new();
    feed(&mut h, b"warpforge-testbench verilated model");
    feed(&mut h, &shim::SHIM_ABI_VERSION.to_le_bytes());
    feed(&mut h, env!("CARGO_PKG_VERSION").as_bytes());
    feed(&mut h, verilator_version_string().as_bytes());
    feed(&mut h, &CPP_OPT_LEVEL.to_le_bytes());
    feed(&mut h, b"__Slow units at -O0");
    feed(&mut h, &UNITY_GROUP_BYTES.to_le_bytes());
    for var in ["CXX", "CXXFLAGS"] {
        feed(&mut h, std::env::var(var).unwrap_or_default().as_bytes());
    }
    feed(&mut h, b.top.as_bytes());
    feed(&mut h, &[u8::from(b.trace)]);
    feed(&mut h, &(b.verilator_args.len() as u64).to_le_bytes());
    for a in &b.verilator_args {
        feed(&mut h, a.as_bytes());
    }
    // Contents in order, not file names: the same Verilog under another name (a content-named
    // cache file, a user's copy) is the same model.
    feed(&mut h, &(sources.len() as u64).to_le_bytes());
    for (_name, text) in sources {
        feed(&mut h, text);
    }
    hex(&h.finalize())
}

/// A fresh temporary directory next to the final location.
fn temp_dir(cache_dir: &Path, what: &str) -> Result<PathBuf, BuildError> {
    let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = cache_dir.join(format!(".tmp-{what}-{}-{n}", std::process::id()));
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
    }
    fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    Ok(dir)
}

/// Remove temporary build directories left behind by crashed or killed
/// processes (older than a day; best effort).
fn remove_stale_temp_dirs(cache_dir: &Path) {
    let Ok(entries) = fs::read_dir(cache_dir) else {
        return;
    };
    for e in entries.flatten() {
        let stale = e.file_name().to_string_lossy().starts_with(".tmp-")
            && e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > Duration::from_secs(24 * 3600));
        if stale {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// Move a finished build directory into place.  Losing a race against
/// another process that built the same thing is fine.
fn publish(tmp: &Path, dst: &Path, marker: &str) -> Result<(), BuildError> {
    match fs::rename(tmp, dst) {
        Ok(()) => Ok(()),
        Err(e) => {
            if dst.join(marker).is_file() {
                let _ = fs::remove_dir_all(tmp);
                Ok(())
            } else {
                Err(BuildError::Io {
                    path: dst.to_path_buf(),
                    source: e,
                })
            }
        }
    }
}

fn build_uncached(
    b: &ModelBuild,
    cache_dir: &Path,
    model_dir: &Path,
    report: &mut BuildReport,
) -> Result<(), BuildError> {
    if model_dir.exists() {
        // Incomplete leftovers (no library): start over.
        fs::remove_dir_all(model_dir).map_err(io_err(model_dir))?;
    }
    remove_stale_temp_dirs(cache_dir);
    let tmp = temp_dir(cache_dir, &b.top)?;
    let result = build_into(b, cache_dir, &tmp, report);
    if let Err(e) = result {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    publish(&tmp, model_dir, LIB_NAME)
}

fn verilate_error(top: &str, e: verilator::gen::Error) -> BuildError {
    match e.kind {
        VlErrorKind::NotFound => BuildError::VerilatorNotFound(e.message),
        VlErrorKind::Verilate => BuildError::Verilate {
            top: top.to_string(),
            message: e.message,
        },
        _ => BuildError::Invalid(e.message),
    }
}

fn cpp_tool(vb: &Verilator, v: &Verilated) -> Result<cc::Tool, BuildError> {
    vb.cpp_build(v)
        .try_get_compiler()
        .map_err(|e| BuildError::Compile {
            command: "<C++ compiler detection>".to_string(),
            output: e.to_string(),
        })
}

/// Verilator's `__Slow` translation units hold code that runs once (construction, the initial
/// evaluation): compiled without optimisation (Verilator's own makefiles give them flags of their
/// own, `OPT_SLOW`, apart from the fast path's `OPT_FAST`). On `tiny`'s model a `__Slow` file
/// compiles 5× faster at `-O0` (10.0 → 1.9 s) and they are 40 % of its C++; the simulation speed
/// does not depend on them.
fn is_slow_path(src: &Path) -> bool {
    src.file_stem()
        .is_some_and(|s| s.to_string_lossy().ends_with("__Slow"))
}

/// Most of a small translation unit's compile time is the compiler reading `verilated.h` and
/// the standard headers (≈ 1.5 s a file here): a unit's model of 77 KB of C++ in 7 files took
/// 12 s compiled file by file and 2.0 s as one file that includes the others. So the files are
/// compiled in groups ("unity" files) of up to this many bytes; a larger file stays alone, and
/// a large model still makes several groups for the compiler processes to share.
const UNITY_GROUP_BYTES: u64 = 256 * 1024;

/// Files compiled as one translation unit, with or without optimisation.
#[derive(Debug, PartialEq, Eq)]
struct UnityGroup {
    files: Vec<PathBuf>,
    slow: bool,
}

/// `sources` (path, size) in groups: `__Slow` files apart from the others (other flags), each
/// kind's files largest first, a file joining the current group while the group stays within
/// [`UNITY_GROUP_BYTES`]. Groups are returned largest first, so the last to start is a small one
/// and the compiler processes finish together.
fn unity_groups(sources: &[(PathBuf, u64)]) -> Vec<UnityGroup> {
    let mut groups: Vec<(UnityGroup, u64)> = Vec::new();
    for slow in [false, true] {
        let mut files: Vec<&(PathBuf, u64)> = sources
            .iter()
            .filter(|(f, _)| is_slow_path(f) == slow)
            .collect();
        files.sort_by_key(|(f, size)| (std::cmp::Reverse(*size), f.clone()));
        let first = groups.len();
        for (f, size) in files {
            let open = groups[first..]
                .iter_mut()
                .find(|(_, bytes)| bytes + size <= UNITY_GROUP_BYTES);
            match open {
                Some((g, bytes)) => {
                    g.files.push(f.clone());
                    *bytes += size;
                }
                None => groups.push((
                    UnityGroup {
                        files: vec![f.clone()],
                        slow,
                    },
                    *size,
                )),
            }
        }
    }
    groups.sort_by_key(|(_, bytes)| std::cmp::Reverse(*bytes));
    groups.into_iter().map(|(g, _)| g).collect()
}

fn build_into(
    b: &ModelBuild,
    cache_dir: &Path,
    dir: &Path,
    report: &mut BuildReport,
) -> Result<(), BuildError> {
    // 1. verilator
    let t = Instant::now();
    let obj_dir = dir.join("obj_dir");
    let mut vb = Verilator::default();
    vb.out_dir(&obj_dir)
        .with_trace(b.trace)
        .cpp_opt_level(CPP_OPT_LEVEL)
        .files(&b.verilog_files);
    for a in &b.verilator_args {
        vb.arg(a);
    }
    let v = vb.verilate(&b.top).map_err(|e| verilate_error(&b.top, e))?;
    report.verilate = t.elapsed();
    if v.ports.is_empty() {
        return Err(BuildError::Invalid(format!(
            "no ports found in {}",
            v.header.display()
        )));
    }
    let mut log = String::new();
    if !v.messages.is_empty() {
        log.push_str("== verilator\n");
        log.push_str(&v.messages);
    }

    // 2. runtime (cached per cache directory)
    let t = Instant::now();
    let (runtime_objs, compiled, rt_log) = ensure_runtime(&vb, &v, cache_dir)?;
    report.runtime_compiled = compiled;
    report.runtime_compile = t.elapsed();
    log.push_str(&rt_log);

    // 3. model + shim
    let t = Instant::now();
    let shim_src = dir.join(shim::SHIM_FILE);
    fs::write(&shim_src, shim::generate(&v)).map_err(io_err(&shim_src))?;
    let tool = cpp_tool(&vb, &v)?;
    let sources: Vec<(PathBuf, u64)> = v
        .sources
        .iter()
        .chain(std::iter::once(&shim_src))
        .map(|src| (src.clone(), fs::metadata(src).map(|m| m.len()).unwrap_or(0)))
        .collect();
    let mut jobs = Vec::new();
    for (i, group) in unity_groups(&sources).into_iter().enumerate() {
        let src = if let [one] = group.files.as_slice() {
            one.clone()
        } else {
            let unity = obj_dir.join(format!("wf_unity_{i}.cpp"));
            let text: String = group
                .files
                .iter()
                .map(|f| format!("#include \"{}\"\n", f.display()))
                .collect();
            fs::write(&unity, text).map_err(io_err(&unity))?;
            unity
        };
        jobs.push(Job {
            obj: compile::obj_path(&obj_dir, &src),
            extra_args: if group.slow {
                vec!["-O0".into()]
            } else {
                Vec::new()
            },
            src,
        });
    }
    let out = compile::compile_all(&tool, &jobs)?;
    if !out.is_empty() {
        log.push_str("== model compile\n");
        log.push_str(&out);
    }
    report.model_compile = t.elapsed();

    // 4. link
    let t = Instant::now();
    let map = dir.join("exports.map");
    fs::write(&map, shim::EXPORT_MAP).map_err(io_err(&map))?;
    let mut objs: Vec<PathBuf> = jobs.iter().map(|j| j.obj.clone()).collect();
    objs.extend(runtime_objs);
    let libs = verilated::runtime::link_libs(v.version);
    let out = compile::link_shared(&tool, &objs, &map, &libs, &dir.join(LIB_NAME))?;
    if !out.is_empty() {
        log.push_str("== link\n");
        log.push_str(&out);
    }
    report.link = t.elapsed();

    compile::remove_objects(&obj_dir);
    let log_path = dir.join("build.log");
    fs::write(&log_path, log).map_err(io_err(&log_path))?;
    Ok(())
}

/// What of a C++ compiler determines the objects it makes: its path and arguments. Not
/// `Tool::to_command()`'s Debug text, which carries the whole process environment, so an
/// unrelated variable changed the key and rebuilt the runtime.
fn compiler_identity(tool: &cc::Tool) -> Vec<u8> {
    let mut h = Sha256::new();
    feed(&mut h, tool.path().as_os_str().as_encoded_bytes());
    for a in tool.args() {
        feed(&mut h, a.as_encoded_bytes());
    }
    // Variables that cc passes on to the compiler and that change its output.
    for (k, v) in tool.get_envs() {
        let k = k.to_string_lossy();
        if k.starts_with("CC") || k.starts_with("CXX") || k.ends_with("FLAGS") {
            feed(&mut h, k.as_bytes());
            feed(&mut h, v.as_encoded_bytes());
        }
    }
    h.finalize().to_vec()
}

/// Compile the Verilator runtime (and the `verilated` crate's C shims) once
/// per cache directory, Verilator version and compiler configuration.
/// Returns the object files, whether they were compiled now, and the
/// compiler output.
fn ensure_runtime(
    vb: &Verilator,
    v: &Verilated,
    cache_dir: &Path,
) -> Result<(Vec<PathBuf>, bool, String), BuildError> {
    // The runtime does not depend on the model: compile it with the
    // model-independent settings so all models share one copy.
    let mut rt = v.clone();
    rt.trace = false;
    rt.coverage = false;
    rt.sources.clear();
    // Not the model's (temporary) directory: the compiler command line is
    // part of the runtime's cache key and must be stable.
    rt.out_dir = cache_dir.to_path_buf();
    let tool = cpp_tool(vb, &rt)?;

    let include = v.root.join("include");
    let mut files: Vec<PathBuf> = verilated::runtime::runtime_sources(v.version)
        .into_iter()
        .map(|f| include.join(f))
        .collect();
    for g in &v.global_sources {
        if !files.iter().any(|f| f.file_name() == g.file_name()) {
            files.push(g.clone());
        }
    }
    let version_defines: Vec<OsString> = vec![
        format!("-DVERILATOR_VERSION_MAJOR={}", v.version.0).into(),
        format!("-DVERILATOR_VERSION_MINOR={}", v.version.1).into(),
    ];
    // verilated.cpp without its vl_finish (see shim::RUNTIME_HOOKS_CPP).
    let runtime_defines: Vec<OsString> = vec!["-DVL_USER_FINISH".into()];
    let shims = [
        ("verilated_shim.cpp", verilated::runtime::VERILATED_SHIM_CPP),
        (
            "verilatedvcdc_shim.cpp",
            verilated::runtime::VERILATEDVCDC_SHIM_CPP,
        ),
        (shim::RUNTIME_HOOKS_FILE, shim::RUNTIME_HOOKS_CPP),
    ];

    let mut h = Sha256::new();
    feed(&mut h, b"warpforge-testbench verilator runtime");
    feed(&mut h, &shim::SHIM_ABI_VERSION.to_le_bytes());
    feed(&mut h, format!("{:?}", v.version).as_bytes());
    feed(&mut h, v.root.as_os_str().as_encoded_bytes());
    feed(&mut h, &compiler_identity(&tool));
    feed(&mut h, format!("{runtime_defines:?}").as_bytes());
    for f in &files {
        feed(&mut h, f.as_os_str().as_encoded_bytes());
    }
    for (name, text) in &shims {
        feed(&mut h, name.as_bytes());
        feed(&mut h, text.as_bytes());
    }
    let key = hex(&h.finalize());
    let rt_dir = cache_dir.join(format!("runtime-{}", &key[..32]));
    let marker = "objects.list";

    let read_list = |dir: &Path| -> Option<Vec<PathBuf>> {
        let list = fs::read_to_string(dir.join(marker)).ok()?;
        let objs: Vec<PathBuf> = list.lines().map(|l| dir.join(l)).collect();
        objs.iter().all(|o| o.is_file()).then_some(objs)
    };
    if let Some(objs) = read_list(&rt_dir) {
        return Ok((objs, false, String::new()));
    }
    if rt_dir.exists() {
        fs::remove_dir_all(&rt_dir).map_err(io_err(&rt_dir))?;
    }

    let tmp = temp_dir(cache_dir, "runtime")?;
    let result = (|| {
        let mut jobs = Vec::new();
        for f in &files {
            jobs.push(Job {
                src: f.clone(),
                obj: compile::obj_path(&tmp, f),
                extra_args: runtime_defines.clone(),
            });
        }
        for (name, text) in &shims {
            let src = tmp.join(name);
            fs::write(&src, text).map_err(io_err(&src))?;
            jobs.push(Job {
                obj: compile::obj_path(&tmp, &src),
                src,
                extra_args: version_defines.clone(),
            });
        }
        let out = compile::compile_all(&tool, &jobs)?;
        let list: String = jobs
            .iter()
            .map(|j| {
                let name = j.obj.file_name().unwrap_or_default().to_string_lossy();
                format!("{name}\n")
            })
            .collect();
        let list_path = tmp.join(marker);
        fs::write(&list_path, list).map_err(io_err(&list_path))?;
        Ok(out)
    })();
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    publish(&tmp, &rt_dir, marker)?;
    let objs = read_list(&rt_dir).ok_or_else(|| {
        BuildError::Invalid(format!(
            "runtime object list missing in {}",
            rt_dir.display()
        ))
    })?;
    let log = if out.is_empty() {
        String::new()
    } else {
        format!("== runtime compile\n{out}")
    };
    Ok((objs, true, log))
}

// ---------------------------------------------------------------------------
// Loading

type FnNew = unsafe extern "C" fn() -> *mut c_void;
type FnInst = unsafe extern "C" fn(*mut c_void);
type FnPortPtr = unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void;
type FnEval = unsafe extern "C" fn(*mut c_void, u64);
type FnGotFinish = unsafe extern "C" fn(*mut c_void) -> c_int;
type FnTrace = unsafe extern "C" fn(*mut c_void, *mut c_void, c_int);
type FnU32 = unsafe extern "C" fn() -> u32;
type FnIdxU32 = unsafe extern "C" fn(u32) -> u32;
type FnIdxStr = unsafe extern "C" fn(u32) -> *const c_char;
type FnInt = unsafe extern "C" fn() -> c_int;
type FnStr = unsafe extern "C" fn() -> *const c_char;
// `verilated` crate's VerilatedVcdC shim (verilatedvcdc_shim.cpp).
type FnVcdNew = unsafe extern "C" fn() -> *mut c_void;
type FnVcdOpen = unsafe extern "C" fn(*mut c_void, *const c_char);
type FnVcdIsOpen = unsafe extern "C" fn(*mut c_void) -> c_int;
type FnVcdDump = unsafe extern "C" fn(*mut c_void, u64);

#[derive(Clone, Copy)]
struct Api {
    new: FnNew,
    delete: FnInst,
    enter: FnInst,
    eval: FnEval,
    port_ptr: FnPortPtr,
    got_finish: FnGotFinish,
    got_error: FnGotFinish,
    trace: FnTrace,
    vcd_new: FnVcdNew,
    vcd_delete: FnInst,
    vcd_open: FnVcdOpen,
    vcd_is_open: FnVcdIsOpen,
    vcd_dump: FnVcdDump,
    vcd_flush: FnInst,
    vcd_close: FnInst,
    product_version: FnStr,
}

/// Storage class of a port (decided by Verilator from the width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    U8,
    U16,
    U32,
    U64,
    Wide(usize),
}

/// A loaded model library, shared by its instances.
struct ModelLib {
    // Field order: `api` pointers are only used while `lib` is alive.
    api: Api,
    ports: Vec<PortInfo>,
    kinds: Vec<Kind>,
    by_name: HashMap<String, PortId>,
    has_trace: bool,
    path: PathBuf,
    _lib: libloading::Library,
}

fn load_err(path: &Path, message: String) -> BuildError {
    BuildError::Load {
        path: path.to_path_buf(),
        message,
    }
}

impl ModelLib {
    fn load(path: &Path) -> Result<ModelLib, BuildError> {
        // SAFETY: the library is one we built: its initialisers are the C++
        // static constructors of the Verilator runtime and the model.
        let lib =
            unsafe { libloading::Library::new(path) }.map_err(|e| load_err(path, e.to_string()))?;

        fn sym<T: Copy>(
            lib: &libloading::Library,
            path: &Path,
            name: &str,
        ) -> Result<T, BuildError> {
            let cname = format!("{name}\0");
            // SAFETY: the symbol types above match the C declarations in
            // shim.rs and the `verilated` crate's shims; the pointer is only
            // used while `lib` is loaded (ModelLib owns it).
            unsafe {
                lib.get::<T>(cname.as_bytes())
                    .map(|s| *s)
                    .map_err(|e| load_err(path, format!("symbol {name}: {e}")))
            }
        }

        let abi: FnU32 = sym(&lib, path, "wf_abi_version")?;
        // SAFETY: FFI call into our shim, no arguments.
        let abi = unsafe { abi() };
        if abi != shim::SHIM_ABI_VERSION {
            return Err(load_err(
                path,
                format!("shim ABI {abi}, expected {}", shim::SHIM_ABI_VERSION),
            ));
        }
        let api = Api {
            new: sym(&lib, path, "wf_new")?,
            delete: sym(&lib, path, "wf_delete")?,
            enter: sym(&lib, path, "wf_enter")?,
            eval: sym(&lib, path, "wf_eval")?,
            port_ptr: sym(&lib, path, "wf_port_ptr")?,
            got_finish: sym(&lib, path, "wf_got_finish")?,
            got_error: sym(&lib, path, "wf_got_error")?,
            trace: sym(&lib, path, "wf_trace")?,
            vcd_new: sym(&lib, path, "verilatedvcdc_new")?,
            vcd_delete: sym(&lib, path, "verilatedvcdc_delete")?,
            vcd_open: sym(&lib, path, "verilatedvcdc_open")?,
            vcd_is_open: sym(&lib, path, "verilatedvcdc_is_open")?,
            vcd_dump: sym(&lib, path, "verilatedvcdc_dump")?,
            vcd_flush: sym(&lib, path, "verilatedvcdc_flush")?,
            vcd_close: sym(&lib, path, "verilatedvcdc_close")?,
            product_version: sym(&lib, path, "verilated_product_version")?,
        };
        let count: FnU32 = sym(&lib, path, "wf_port_count")?;
        let name: FnIdxStr = sym(&lib, path, "wf_port_name")?;
        let dir: FnIdxU32 = sym(&lib, path, "wf_port_dir")?;
        let width: FnIdxU32 = sym(&lib, path, "wf_port_width")?;
        let size: FnIdxU32 = sym(&lib, path, "wf_port_size")?;
        let has_trace: FnInt = sym(&lib, path, "wf_has_trace")?;

        let mut ports = Vec::new();
        let mut kinds = Vec::new();
        let mut by_name = HashMap::new();
        // SAFETY: plain FFI calls into the shim's port table; the returned
        // names are static NUL-terminated strings.
        unsafe {
            for i in 0..count() {
                let n = name(i);
                if n.is_null() {
                    return Err(load_err(path, format!("port {i} has no name")));
                }
                let n = CStr::from_ptr(n).to_string_lossy().into_owned();
                let d = match dir(i) {
                    0 => PortDir::Input,
                    1 => PortDir::Output,
                    _ => PortDir::InOut,
                };
                let w = width(i);
                let kind = match w {
                    0 => return Err(load_err(path, format!("port {n} has width 0"))),
                    1..=8 => Kind::U8,
                    9..=16 => Kind::U16,
                    17..=32 => Kind::U32,
                    33..=64 => Kind::U64,
                    _ => Kind::Wide(w.div_ceil(32) as usize),
                };
                let expected = match kind {
                    Kind::U8 => 1,
                    Kind::U16 => 2,
                    Kind::U32 => 4,
                    Kind::U64 => 8,
                    Kind::Wide(n) => 4 * n as u32,
                };
                if size(i) != expected {
                    return Err(load_err(
                        path,
                        format!(
                            "port {n}: storage is {} bytes, expected {expected} for {w} bits",
                            size(i)
                        ),
                    ));
                }
                by_name.insert(n.clone(), PortId(i));
                ports.push(PortInfo {
                    name: n,
                    dir: d,
                    width: w,
                });
                kinds.push(kind);
            }
        }
        // SAFETY: FFI call, no arguments.
        let has_trace = unsafe { has_trace() } != 0;
        Ok(ModelLib {
            api,
            ports,
            kinds,
            by_name,
            has_trace,
            path: path.to_path_buf(),
            _lib: lib,
        })
    }
}

/// Per-instance port slot: where the value lives and how to store it.
#[derive(Clone, Copy)]
struct Slot {
    ptr: *mut u8,
    kind: Kind,
    /// Mask of the valid bits (of the top word for wide ports).
    mask: u64,
    writable: bool,
}

/// An instance of a Verilated model loaded from a shared library.
///
/// Not `Sync`; may be moved to another thread (each instance has its own
/// `VerilatedContext`).
pub struct LoadedModel {
    lib: Arc<ModelLib>,
    inst: NonNull<c_void>,
    slots: Vec<Slot>,
    time: u64,
    vcd: Option<NonNull<c_void>>,
    report: BuildReport,
}

// SAFETY: the instance is only touched through &mut self / &self methods of
// this (non-Sync) type; a Verilated model (without --threads) and its own
// VerilatedContext may be used from any single thread at a time.
unsafe impl Send for LoadedModel {}

impl fmt::Debug for LoadedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedModel")
            .field("library", &self.lib.path)
            .field("ports", &self.lib.ports)
            .field("time", &self.time)
            .field("tracing", &self.vcd.is_some())
            .finish()
    }
}

impl LoadedModel {
    fn instantiate(lib: Arc<ModelLib>, report: BuildReport) -> LoadedModel {
        // SAFETY: FFI into our shim; returns a new heap instance.
        let inst = unsafe { (lib.api.new)() };
        let inst = NonNull::new(inst).expect("wf_new returned null");
        let slots = lib
            .ports
            .iter()
            .zip(&lib.kinds)
            .enumerate()
            .map(|(i, (p, &kind))| {
                // SAFETY: index < port count; the pointer is into the model
                // object, valid until wf_delete.
                let ptr = unsafe { (lib.api.port_ptr)(inst.as_ptr(), i as u32) } as *mut u8;
                assert!(!ptr.is_null(), "no storage for port {}", p.name);
                let bits = match kind {
                    Kind::Wide(n) => p.width - 32 * (n as u32 - 1),
                    _ => p.width,
                };
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                Slot {
                    ptr,
                    kind,
                    mask,
                    writable: p.dir != PortDir::Output,
                }
            })
            .collect();
        let mut m = LoadedModel {
            lib,
            inst,
            slots,
            time: 0,
            vcd: None,
            report,
        };
        // Settle the initial state with all inputs 0 (clock low).  Verilator
        // 5 initialises its edge detectors from the inputs seen by the first
        // eval(), so without this the first rising edge would be missed.
        m.eval();
        m
    }

    /// A new, independent instance of the same model (fresh state, time 0,
    /// no trace, evaluated once with all inputs 0).  Port ids are shared
    /// between instances.
    pub fn new_instance(&self) -> LoadedModel {
        let report = BuildReport {
            cache_hit: true,
            key: self.report.key.clone(),
            library: self.report.library.clone(),
            ..Default::default()
        };
        LoadedModel::instantiate(self.lib.clone(), report)
    }

    /// How the model was built (cache hit, timings, library path).
    pub fn build_report(&self) -> &BuildReport {
        &self.report
    }

    /// Path of the shared library.
    pub fn library_path(&self) -> &Path {
        &self.lib.path
    }

    /// Version of the Verilator runtime inside the library (from the
    /// `verilated` crate's `verilated_product_version` shim).
    pub fn verilator_version(&self) -> String {
        // SAFETY: returns a static NUL-terminated string.
        unsafe {
            let p = (self.lib.api.product_version)();
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        }
    }

    /// All top-level ports.
    pub fn ports(&self) -> &[PortInfo] {
        &self.lib.ports
    }

    /// Resolve a port by name (do this once, outside the cycle loop).
    pub fn port(&self, name: &str) -> Result<PortId, PortError> {
        self.lib
            .by_name
            .get(name)
            .copied()
            .ok_or_else(|| PortError::Unknown(name.to_string()))
    }

    /// Description of a port.
    pub fn port_info(&self, p: PortId) -> &PortInfo {
        &self.lib.ports[p.index()]
    }

    /// Set an input to `value` (truncated to the port width; for ports
    /// wider than 64 bits the upper words are cleared).
    ///
    /// # Panics
    /// If `p` is an output.
    #[inline]
    pub fn set(&mut self, p: PortId, value: u64) {
        let s = self.slots[p.index()];
        assert!(
            s.writable,
            "port {} is an output",
            self.lib.ports[p.index()].name
        );
        // SAFETY: `s.ptr` points to the port's storage of type `s.kind`
        // (sizes checked at load time) inside the live model instance.
        unsafe {
            match s.kind {
                Kind::U8 => *s.ptr = (value & s.mask) as u8,
                Kind::U16 => *(s.ptr as *mut u16) = (value & s.mask) as u16,
                Kind::U32 => *(s.ptr as *mut u32) = (value & s.mask) as u32,
                Kind::U64 => *(s.ptr as *mut u64) = value & s.mask,
                Kind::Wide(n) => {
                    let w = s.ptr as *mut u32;
                    *w = value as u32;
                    *w.add(1) = (value >> 32) as u32;
                    for i in 2..n {
                        *w.add(i) = 0;
                    }
                }
            }
        }
    }

    /// Value of a port (the low 64 bits for wider ports).
    #[inline]
    pub fn get(&self, p: PortId) -> u64 {
        let s = self.slots[p.index()];
        // SAFETY: as in `set`.
        unsafe {
            match s.kind {
                Kind::U8 => u64::from(*s.ptr),
                Kind::U16 => u64::from(*(s.ptr as *const u16)),
                Kind::U32 => u64::from(*(s.ptr as *const u32)),
                Kind::U64 => *(s.ptr as *const u64),
                Kind::Wide(_) => {
                    let w = s.ptr as *const u32;
                    u64::from(*w) | (u64::from(*w.add(1)) << 32)
                }
            }
        }
    }

    /// Set an input from 32-bit words, least significant first.  Missing
    /// words are zero, extra words and bits above the width are ignored.
    ///
    /// # Panics
    /// If `p` is an output.
    #[inline]
    pub fn set_words(&mut self, p: PortId, words: &[u32]) {
        let s = self.slots[p.index()];
        match s.kind {
            Kind::Wide(n) => {
                assert!(
                    s.writable,
                    "port {} is an output",
                    self.lib.ports[p.index()].name
                );
                let w = s.ptr as *mut u32;
                for i in 0..n {
                    let mut v = words.get(i).copied().unwrap_or(0);
                    if i == n - 1 {
                        v &= s.mask as u32;
                    }
                    // SAFETY: i < n words of the port's VlWide storage.
                    unsafe { *w.add(i) = v };
                }
            }
            _ => {
                let lo = u64::from(words.first().copied().unwrap_or(0));
                let hi = u64::from(words.get(1).copied().unwrap_or(0));
                self.set(p, lo | (hi << 32));
            }
        }
    }

    /// Read a port into `out` as 32-bit words, least significant first.
    /// Words beyond the port width are set to zero; words beyond `out` are
    /// dropped.
    #[inline]
    pub fn get_words(&self, p: PortId, out: &mut [u32]) {
        let s = self.slots[p.index()];
        match s.kind {
            Kind::Wide(n) => {
                let w = s.ptr as *const u32;
                for (i, o) in out.iter_mut().enumerate() {
                    // SAFETY: i < n words of the port's VlWide storage.
                    *o = if i < n { unsafe { *w.add(i) } } else { 0 };
                }
            }
            _ => {
                let v = self.get(p);
                for (i, o) in out.iter_mut().enumerate() {
                    *o = match i {
                        0 => v as u32,
                        1 => (v >> 32) as u32,
                        _ => 0,
                    };
                }
            }
        }
    }

    /// Set an input by name (convenience; resolves the name every call).
    pub fn set_input(&mut self, name: &str, words: &[u32]) -> Result<(), PortError> {
        let p = self.port(name)?;
        if self.lib.ports[p.index()].dir == PortDir::Output {
            return Err(PortError::NotInput(name.to_string()));
        }
        self.set_words(p, words);
        Ok(())
    }

    /// Read a port by name as 32-bit words (convenience; allocates).
    pub fn get_output(&self, name: &str) -> Result<Vec<u32>, PortError> {
        let p = self.port(name)?;
        let mut v = vec![0; self.lib.ports[p.index()].words()];
        self.get_words(p, &mut v);
        Ok(v)
    }

    /// Evaluate the model (`eval()`) at the current [`time`](Self::time):
    /// settle combinational logic and apply clock edges of inputs changed
    /// since the last call.
    #[inline]
    pub fn eval(&mut self) {
        // SAFETY: live instance.
        unsafe { (self.lib.api.eval)(self.inst.as_ptr(), self.time) }
    }

    /// One clock cycle on `clk`: rising edge at `time + HALF_PERIOD`,
    /// falling edge at `time + 2 * HALF_PERIOD`, with `eval()` (and a trace
    /// dump, if tracing) after each edge.  Set inputs while the clock is low,
    /// i.e. before calling `tick`; outputs read after `tick` show the state
    /// after the rising edge.
    #[inline]
    pub fn tick(&mut self, clk: PortId) {
        self.time += HALF_PERIOD;
        self.set(clk, 1);
        self.eval();
        self.dump_if_tracing();
        self.time += HALF_PERIOD;
        self.set(clk, 0);
        self.eval();
        self.dump_if_tracing();
    }

    /// `n` cycles of [`tick`](Self::tick).
    pub fn ticks(&mut self, clk: PortId, n: u64) {
        for _ in 0..n {
            self.tick(clk);
        }
    }

    /// Current simulation time (advanced by [`tick`](Self::tick) and
    /// [`set_time`](Self::set_time)).
    pub fn time(&self) -> u64 {
        self.time
    }

    /// Set the simulation time (`$time` in the design from the next
    /// [`eval`](Self::eval), VCD time stamps).  Time must not go backwards
    /// while tracing.
    pub fn set_time(&mut self, t: u64) {
        self.time = t;
    }

    /// Whether the design executed `$finish` (or `$stop`/`$fatal`).  The
    /// model keeps evaluating if driven further; a repeated `$finish` does
    /// not end the process (unlike Verilator's default runtime).
    pub fn got_finish(&self) -> bool {
        // SAFETY: live instance.
        unsafe { (self.lib.api.got_finish)(self.inst.as_ptr()) != 0 }
    }

    /// Whether the design executed `$stop`/`$fatal`.  These are recorded
    /// instead of aborting the process.
    pub fn got_error(&self) -> bool {
        // SAFETY: live instance.
        unsafe { (self.lib.api.got_error)(self.inst.as_ptr()) != 0 }
    }

    /// Whether the library was built with tracing.
    pub fn has_trace(&self) -> bool {
        self.lib.has_trace
    }

    /// Start writing a VCD trace of all signals to `path` (replacing an open
    /// one).  Requires `ModelBuild::trace`.  The current values are dumped
    /// at the current time.
    pub fn open_trace(&mut self, path: impl AsRef<Path>) -> Result<(), TraceError> {
        let path = path.as_ref();
        if !self.lib.has_trace {
            return Err(TraceError::NotEnabled);
        }
        self.close_trace();
        let cpath = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| TraceError::Open(path.to_path_buf()))?;
        let api = self.lib.api;
        // SAFETY: FFI into the verilated crate's VerilatedVcdC shim and our
        // shim; `vcd` is deleted on failure or in close_trace.
        unsafe {
            // VerilatedVcdC's constructor reads the thread's context.
            (api.enter)(self.inst.as_ptr());
            let vcd = NonNull::new((api.vcd_new)()).ok_or(TraceError::Open(path.to_path_buf()))?;
            (api.trace)(self.inst.as_ptr(), vcd.as_ptr(), 99);
            (api.vcd_open)(vcd.as_ptr(), cpath.as_ptr());
            if (api.vcd_is_open)(vcd.as_ptr()) == 0 {
                (api.vcd_delete)(vcd.as_ptr());
                return Err(TraceError::Open(path.to_path_buf()));
            }
            self.vcd = Some(vcd);
        }
        self.dump();
        Ok(())
    }

    /// Whether a trace file is open.
    pub fn is_tracing(&self) -> bool {
        self.vcd.is_some()
    }

    /// Dump the current signal values at the current time (no-op when not
    /// tracing).  [`tick`](Self::tick) does this by itself.
    pub fn dump(&mut self) {
        self.dump_if_tracing();
    }

    #[inline]
    fn dump_if_tracing(&mut self) {
        if let Some(vcd) = self.vcd {
            // SAFETY: open VerilatedVcdC owned by this instance.
            unsafe { (self.lib.api.vcd_dump)(vcd.as_ptr(), self.time) }
        }
    }

    /// Flush the trace file.
    pub fn flush_trace(&mut self) {
        if let Some(vcd) = self.vcd {
            // SAFETY: open VerilatedVcdC owned by this instance.
            unsafe { (self.lib.api.vcd_flush)(vcd.as_ptr()) }
        }
    }

    /// Close the trace file (if any).
    pub fn close_trace(&mut self) {
        if let Some(vcd) = self.vcd.take() {
            // SAFETY: open VerilatedVcdC owned by this instance; not used
            // after deletion.
            unsafe {
                (self.lib.api.vcd_close)(vcd.as_ptr());
                (self.lib.api.vcd_delete)(vcd.as_ptr());
            }
        }
    }
}

impl Drop for LoadedModel {
    fn drop(&mut self) {
        self.close_trace();
        // SAFETY: the instance was created by wf_new and is not used again.
        unsafe { (self.lib.api.delete)(self.inst.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(name: &str, kib: u64) -> (PathBuf, u64) {
        (PathBuf::from(name), kib * 1024)
    }

    fn names(g: &UnityGroup) -> Vec<&str> {
        g.files.iter().map(|f| f.to_str().unwrap()).collect()
    }

    #[test]
    fn unity_groups_keep_slow_files_apart_and_large_files_alone() {
        let groups = unity_groups(&[
            src("V.cpp", 10),
            src("V__Syms.cpp", 20),
            src("V_root__DepSet_a__0.cpp", 800),
            src("V_root__DepSet_a__1.cpp", 200),
            src("V_root__DepSet_b__0.cpp", 100),
            src("V_root__Slow.cpp", 30),
            src("V_root__DepSet_a__0__Slow.cpp", 300),
            src("wf_shim.cpp", 5),
        ]);
        let got: Vec<(Vec<&str>, bool)> = groups.iter().map(|g| (names(g), g.slow)).collect();
        assert_eq!(
            got,
            vec![
                (vec!["V_root__DepSet_a__0.cpp"], false),
                (vec!["V_root__DepSet_a__0__Slow.cpp"], true),
                (
                    vec![
                        "V_root__DepSet_a__1.cpp",
                        "V__Syms.cpp",
                        "V.cpp",
                        "wf_shim.cpp"
                    ],
                    false
                ),
                (vec!["V_root__DepSet_b__0.cpp"], false),
                (vec!["V_root__Slow.cpp"], true),
            ]
        );
        // Every file exactly once, whatever the sizes.
        let mut all: Vec<&str> = groups.iter().flat_map(names).collect();
        all.sort_unstable();
        assert_eq!(all.len(), 8);
        all.dedup();
        assert_eq!(all.len(), 8);
    }

    #[test]
    fn a_small_model_is_two_translation_units() {
        let groups = unity_groups(&[
            src("V.cpp", 5),
            src("V__Syms.cpp", 8),
            src("V_root__DepSet_a__0.cpp", 30),
            src("V_root__DepSet_a__0__Slow.cpp", 20),
            src("V_root__Slow.cpp", 10),
            src("wf_shim.cpp", 5),
        ]);
        assert_eq!(groups.len(), 2);
        assert_eq!((groups[0].slow, groups[0].files.len()), (false, 4));
        assert_eq!((groups[1].slow, groups[1].files.len()), (true, 2));
    }
}
