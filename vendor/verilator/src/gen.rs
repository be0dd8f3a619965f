use cc;
use regex::Regex;
use std::collections::HashMap;
use std::error;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::from_utf8;
use std::{env, fs};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Standard {
    Verilog1995,
    Verilog2001,
    Verilog2005,
    SystemVerilog2005,
    SystemVerilog2009,
    SystemVerilog2012,
}

/// Builder style configuration for running verilator.
pub struct Verilator {
    target: Option<String>,
    host: Option<String>,
    out_dir: Option<PathBuf>,
    root: Option<PathBuf>,
    files: Vec<(PathBuf, Option<Standard>)>,
    module_directories: Vec<PathBuf>,
    coverage: bool,
    trace: bool,
    optimized: bool,
    suppress_warnings: Vec<String>,
    // warpforge patch: extra verilator arguments and C++ optimisation level.
    args: Vec<String>,
    cpp_opt_level: Option<u32>,
}

impl Verilator {
    pub fn out_dir<P>(&mut self, out: P) -> &mut Verilator
    where
        P: AsRef<Path>,
    {
        self.out_dir = Some(out.as_ref().to_path_buf());
        self
    }

    pub fn root<P>(&mut self, root: P) -> &mut Verilator
    where
        P: AsRef<Path>,
    {
        self.root = Some(root.as_ref().to_path_buf());
        self
    }

    fn _file(&mut self, p: &Path, s: Option<Standard>) -> &mut Verilator {
        self.files.push((p.to_path_buf(), s));
        self
    }

    pub fn file<P>(&mut self, p: P) -> &mut Verilator
    where
        P: AsRef<Path>,
    {
        self._file(p.as_ref(), None)
    }

    pub fn file_with_standard<P>(&mut self, p: P, s: Standard) -> &mut Verilator
    where
        P: AsRef<Path>,
    {
        self._file(p.as_ref(), Some(s))
    }

    pub fn files<P>(&mut self, p: P) -> &mut Verilator
    where
        P: IntoIterator,
        P::Item: AsRef<Path>,
    {
        for file in p {
            self.file(file);
        }
        self
    }

    /// Add a directory to the `-y` or path to search for modules
    ///
    /// # Example
    ///
    /// ```ignore
    /// use std::path::Path;
    ///
    /// let module_path = Path::new("/path/to/modules");
    ///
    /// verilator::Verilator::default()
    ///     .file("top.v")
    ///     .module(module_path)
    ///     .build(...);
    /// ```
    pub fn module<P>(&mut self, dir: P) -> &mut Verilator
    where
        P: AsRef<Path>,
    {
        self.module_directories.push(dir.as_ref().to_path_buf());
        self
    }

    pub fn with_coverage(&mut self, t: bool) -> &mut Verilator {
        self.coverage = t;
        self
    }

    pub fn with_trace(&mut self, t: bool) -> &mut Verilator {
        self.trace = t;
        self
    }

    pub fn with_performance_optimizations(&mut self, t: bool) -> &mut Verilator {
        self.optimized = t;
        self
    }

    pub fn warn_width(&mut self, t: bool) -> &mut Verilator {
        if !t {
            self.suppress_warnings.push("width".to_string());
        }
        self
    }

    pub fn no_warn(&mut self, warning: &str) -> &mut Verilator {
        self.suppress_warnings.push(warning.to_ascii_lowercase());
        self
    }

    /// Target triple for the C++ compiler (warpforge patch).  Defaults to
    /// `$TARGET` in a build script, else the target this crate was built for.
    pub fn target(&mut self, target: &str) -> &mut Verilator {
        self.target = Some(target.to_string());
        self
    }

    /// Host triple for the C++ compiler (warpforge patch).  Defaults to
    /// `$HOST` in a build script, else the host this crate was built on.
    pub fn host(&mut self, host: &str) -> &mut Verilator {
        self.host = Some(host.to_string());
        self
    }

    /// Pass an extra argument to verilator, e.g. `-Wno-fatal` (warpforge patch).
    pub fn arg(&mut self, arg: &str) -> &mut Verilator {
        self.args.push(arg.to_string());
        self
    }

    /// C++ optimisation level for the generated model (warpforge patch).
    /// Defaults to 2, or 3 when cargo's `OPT_LEVEL` is 3: Verilated models
    /// are unusably slow at -O0, so debug builds still get -O2.
    pub fn cpp_opt_level(&mut self, level: u32) -> &mut Verilator {
        self.cpp_opt_level = Some(level);
        self
    }

    /// Run verilator and compile the model into a static library
    /// `libV{top}__ALL.a` in the output directory (build-script use; panics
    /// on error).  The Verilator runtime itself is provided by the
    /// `verilated` crate.
    pub fn build(&mut self, top_module: &str) -> PathBuf {
        let verilated = match self.verilate(top_module) {
            Ok(v) => v,
            Err(e) => fail(&e.to_string()),
        };
        println!("verilator root: {:?}", verilated.root);
        if !verilated.messages.is_empty() {
            println!("verilator output:\n{}", verilated.messages);
        }

        let mut cpp_cfg = self.cpp_build(&verilated);
        for &(ref f, _) in &self.files {
            match f.extension() {
                Some(ext) if ext == "c" || ext == "cpp" => {
                    cpp_cfg.file(f);
                }
                _ => {}
            };
        }

        cpp_cfg.compile(&format!("V{}__ALL", top_module));

        verilated.out_dir
    }

    /// Run verilator (`--cc`) only, without compiling anything (warpforge
    /// patch).  Never panics; verilator's diagnostics are captured and
    /// returned, in the error on failure and in `Verilated::messages`
    /// (warnings) on success.  Usable at run time as well as from build
    /// scripts; requires `out_dir` unless `$OUT_DIR` is set.
    pub fn verilate(&self, top_module: &str) -> Result<Verilated, Error> {
        let dst = match self.out_dir.clone() {
            Some(d) => d,
            None => match env::var_os("OUT_DIR") {
                Some(d) => PathBuf::from(d),
                None => {
                    return Err(Error::new(
                        ErrorKind::Config,
                        "no output directory: call `out_dir()` or set `OUT_DIR`".to_string(),
                    ))
                }
            },
        };
        fs::create_dir_all(&dst).map_err(|e| Error::io(&dst, e))?;

        let verilator_exe = self.find_verilator_exe();

        // Determine the Verilator version (of the executable actually used).
        let version = version_of(&verilator_exe).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!(
                    "failed to run `{} --version`: is verilator installed?",
                    verilator_exe.display()
                ),
            )
        })?;

        // Determine ${VERILATOR_ROOT}
        let mut cmd = Command::new(verilator_exe.clone());
        cmd.arg("--getenv").arg("VERILATOR_ROOT");
        let root = match cmd.output() {
            Ok(ref output) if output.status.success() => {
                PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
            }
            _ => self.verilator_root().unwrap_or_else(|| {
                // Set root to /verilator/path/to/exe/../
                let mut root = verilator_exe.clone();
                root.pop();
                root.pop();
                root
            }),
        };

        // Generate .CPP from .V using verilator
        let mut cmd = Command::new(verilator_exe.clone());
        cmd.arg("--cc")
            .arg("-Mdir")
            .arg(&dst)
            .arg("--top-module")
            .arg(top_module);

        if self.coverage {
            cmd.arg("--coverage");
        }

        if self.trace {
            cmd.arg("--trace");
        }

        if self.optimized {
            cmd.arg("-O3");
        }

        for warn in &self.suppress_warnings {
            cmd.arg(format!("-Wno-{}", warn));
        }

        for arg in &self.args {
            cmd.arg(arg);
        }

        for dir in &self.module_directories {
            cmd.arg("-y");
            cmd.arg(dir);
        }

        for &(ref file, ref standard) in &self.files {
            if let Some(standard) = *standard {
                if let Some(ext) = file.extension() {
                    let flag = match standard {
                        Standard::Verilog1995 => &"+1364-1995ext",
                        Standard::Verilog2001 => &"+1364-2001ext",
                        Standard::Verilog2005 => &"+1364-2005ext",
                        Standard::SystemVerilog2005 => &"+1800-2005ext",
                        Standard::SystemVerilog2009 => &"+1800-2009ext",
                        Standard::SystemVerilog2012 => &"+1800-2012ext",
                    };
                    let flag = format!("{}+{}", flag, ext.to_string_lossy());
                    cmd.arg(flag);
                }
            }

            cmd.arg(file);
        }

        let output = match cmd.output() {
            Ok(output) => output,
            Err(ref e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "failed to execute {:?}: {}\nis `verilator` not installed?",
                        cmd, e
                    ),
                ))
            }
            Err(e) => {
                return Err(Error::new(
                    ErrorKind::Verilate,
                    format!("failed to execute {:?}: {}", cmd, e),
                ))
            }
        };
        let mut messages = String::from_utf8_lossy(&output.stderr).into_owned();
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !stdout.trim().is_empty() {
            messages.push_str(&stdout);
        }
        if !output.status.success() {
            return Err(Error::new(
                ErrorKind::Verilate,
                format!(
                    "verilator failed ({}): {:?}\n{}",
                    output.status, cmd, messages
                ),
            ));
        }

        // Verilator 4.x and 5.x both describe the generated files in
        // V{top}_classes.mk; the set and names of the files differ between
        // versions (e.g. V{top}___024root__DepSet_*.cpp in 5.x), so read
        // the list instead of hard-coding it.
        let prefix = format!("V{}", top_module);
        let classes_mk = dst.join(format!("{}_classes.mk", prefix));
        let mk = fs::read_to_string(&classes_mk).map_err(|e| Error::io(&classes_mk, e))?;
        let vars = parse_make_vars(&mk);
        let list = |names: &[&str], dir: &Path| -> Vec<PathBuf> {
            names
                .iter()
                .flat_map(|n| vars.get(*n).cloned().unwrap_or_default())
                .map(|f| dir.join(format!("{}.cpp", f)))
                .collect()
        };
        let sources = list(
            &[
                "VM_CLASSES_FAST",
                "VM_CLASSES_SLOW",
                "VM_SUPPORT_FAST",
                "VM_SUPPORT_SLOW",
            ],
            &dst,
        );
        let global_sources = list(&["VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"], &root.join("include"));
        if sources.is_empty() {
            return Err(Error::new(
                ErrorKind::Output,
                format!("no generated sources listed in {}", classes_mk.display()),
            ));
        }
        let flag = |name: &str| {
            vars.get(name)
                .map(|v| v.iter().any(|w| w != "0"))
                .unwrap_or(false)
        };
        let timing = flag("VM_TIMING");

        let header = dst.join(format!("{}.h", prefix));
        let header_text = fs::read_to_string(&header).map_err(|e| Error::io(&header, e))?;
        let ports = parse_ports(&header_text);

        Ok(Verilated {
            top_module: top_module.to_string(),
            prefix,
            out_dir: dst,
            root,
            version,
            header,
            sources,
            global_sources,
            trace: self.trace,
            coverage: self.coverage,
            timing,
            ports,
            messages,
        })
    }

    /// A `cc::Build` configured to compile the generated model sources of
    /// `verilated` (include paths, `VM_*` defines, warning flags, target,
    /// optimisation level), with those sources already added (warpforge
    /// patch).  Does not include the Verilator runtime (`global_sources`).
    /// Outside a cargo build script no `cargo:` lines are printed.
    pub fn cpp_build(&self, verilated: &Verilated) -> cc::Build {
        let in_build_script =
            env::var_os("OUT_DIR").is_some() && env::var_os("TARGET").is_some();
        let target = self
            .target
            .clone()
            .or_else(|| env::var("TARGET").ok())
            .unwrap_or_else(|| env!("VERILATOR_RS_BUILD_TARGET").to_string());
        let target = if target.ends_with("-darwin") && self.target.is_none() {
            target + "11"
        } else {
            target
        };
        let host = self
            .host
            .clone()
            .or_else(|| env::var("HOST").ok())
            .unwrap_or_else(|| env!("VERILATOR_RS_BUILD_HOST").to_string());
        let opt_level = self.cpp_opt_level.unwrap_or_else(|| {
            match env::var("OPT_LEVEL") {
                Ok(ref l) if l == "3" => 3,
                _ => 2,
            }
        });

        let dst = &verilated.out_dir;
        let root = &verilated.root;
        let mut cpp_cfg = cc::Build::new();
        cpp_cfg
            .cpp(true)
            .target(&target)
            .host(&host)
            .opt_level(opt_level)
            .out_dir(dst)
            .cargo_metadata(in_build_script)
            .cargo_warnings(in_build_script)
            .emit_rerun_if_env_changed(in_build_script)
            .define("VL_PRINTF", "printf");
        if !in_build_script {
            cpp_cfg.debug(false);
        }

        // A missing compiler is reported when compiling, not here.
        let (like_clang, like_gnu) = match cpp_cfg.try_get_compiler() {
            Ok(tool) => (tool.is_like_clang(), tool.is_like_gnu()),
            Err(_) => (false, false),
        };
        if like_clang {
            cpp_cfg
                .flag("-faligned-new")
                .flag("-fbracket-depth=4096")
                .flag("-Qunused-arguments")
                .flag("-Wno-parentheses-equality")
                .flag("-Wno-sign-compare")
                .flag("-Wno-uninitialized")
                .flag("-Wno-unused-parameter")
                .flag("-Wno-unused-variable")
                .flag("-Wno-shadow");
        }
        if like_gnu {
            cpp_cfg
                .flag("-std=gnu++17")
                .flag("-faligned-new")
                .flag("-Wno-bool-operation")
                .flag("-Wno-sign-compare")
                .flag("-Wno-uninitialized")
                .flag("-Wno-unused-but-set-variable")
                .flag("-Wno-unused-parameter")
                .flag("-Wno-unused-variable")
                .flag("-Wno-shadow");
        }
        if verilated.timing && (like_gnu || like_clang) {
            cpp_cfg.flag("-fcoroutines");
        }
        let bit = |b: bool| if b { "1" } else { "0" };
        cpp_cfg
            .define("VM_COVERAGE", bit(verilated.coverage))
            .define("VM_SC", "0")
            .define("VM_TRACE", bit(verilated.trace))
            .define("VM_TRACE_VCD", bit(verilated.trace))
            .define("VM_TRACE_FST", "0")
            .include(root.join("include"))
            .include(root.join("include/vltstd"))
            .include(dst)
            .files(&verilated.sources);

        cpp_cfg
    }

    fn find_verilator_exe(&self) -> PathBuf {
        // Check ${VERILATOR_ROOT} first...
        if let Some(mut root) = self.verilator_root() {
            root.push("bin/verilator_bin");
            if root.is_file() {
                return root;
            }
        }

        // Otherwise, check PATH
        find_in_path("verilator_bin".as_ref())
    }

    fn verilator_root(&self) -> Option<PathBuf> {
        self.root
            .clone()
            .or_else(|| env::var_os("VERILATOR_ROOT").map(PathBuf::from))
    }
}

impl Default for Verilator {
    fn default() -> Verilator {
        Verilator {
            target: None,
            host: None,
            out_dir: None,
            root: None,
            files: Vec::new(),
            module_directories: Vec::new(),
            coverage: false,
            trace: false,
            optimized: false,
            suppress_warnings: Vec::new(),
            args: Vec::new(),
            cpp_opt_level: None,
        }
    }
}

fn find_in_path(path: &Path) -> PathBuf {
    env::split_paths(&env::var_os("PATH").unwrap_or_default())
        .map(|p| p.join(path))
        .find(|p| fs::metadata(p).is_ok())
        .unwrap_or_else(|| path.to_owned())
}

fn fail(s: &str) -> ! {
    panic!("\n{}\n\nbuild script failed, must exit now", s)
}

// ---------------------------------------------------------------------------
// warpforge patch: types describing verilator's output, and error type.

/// What `Verilator::verilate` produced.
#[derive(Clone, Debug)]
pub struct Verilated {
    /// `--top-module` name.
    pub top_module: String,
    /// Prefix of the generated class and files, `V{top_module}`.
    pub prefix: String,
    /// Directory holding the generated files (`-Mdir`).
    pub out_dir: PathBuf,
    /// `${VERILATOR_ROOT}`.
    pub root: PathBuf,
    /// `(major, minor)` of the verilator that ran, e.g. `(5, 6)`.
    pub version: (u32, u32),
    /// The generated model header, `V{top}.h`.
    pub header: PathBuf,
    /// Generated C++ sources of the model (from `V{top}_classes.mk`).
    pub sources: Vec<PathBuf>,
    /// Verilator runtime sources the model needs, under
    /// `${VERILATOR_ROOT}/include` (e.g. `verilated.cpp`,
    /// `verilated_threads.cpp`); link them once per executable.
    pub global_sources: Vec<PathBuf>,
    /// Built with `--trace`.
    pub trace: bool,
    /// Built with `--coverage`.
    pub coverage: bool,
    /// Built with `--timing` (needs C++20 coroutines).
    pub timing: bool,
    /// Top-level ports, in declaration order of the generated header.
    pub ports: Vec<VerilatedPort>,
    /// Verilator's stderr/stdout (warnings), possibly empty.
    pub messages: String,
}

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortDirection {
    Input,
    Output,
    InOut,
}

/// A top-level port of a Verilated model, as declared in `V{top}.h`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VerilatedPort {
    /// C++ member name (same as the Verilog name for plain identifiers).
    pub name: String,
    pub direction: PortDirection,
    /// Width in bits (`msb - lsb + 1`).
    pub width: u32,
}

impl VerilatedPort {
    /// Storage type Verilator uses for the port: `CData` (<= 8 bits),
    /// `SData` (<= 16), `IData` (<= 32), `QData` (<= 64), else `VlWide<N>`
    /// of `words()` 32-bit words (least significant word first).
    pub fn c_type(&self) -> String {
        match self.width {
            0..=8 => "CData".to_string(),
            9..=16 => "SData".to_string(),
            17..=32 => "IData".to_string(),
            33..=64 => "QData".to_string(),
            _ => format!("VlWide<{}>", self.words()),
        }
    }

    /// Number of 32-bit words needed to hold the port.
    pub fn words(&self) -> usize {
        ((self.width as usize) + 31) / 32
    }
}

/// Parse the `VL_IN*/VL_OUT*/VL_INOUT*` port declarations of a generated
/// model header (`V{top}.h`).  Handles both the Verilator 4
/// (`VL_IN8(clk,0,0);`) and Verilator 5 (`VL_IN8(&clk,0,0);`) forms.
pub fn parse_ports(header: &str) -> Vec<VerilatedPort> {
    let re = Regex::new(
        r"\bVL_(INOUT|IN|OUT)(?:8|16|64|W)?\(\s*&?\s*(\w+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*\d+\s*)?\)",
    )
    .expect("port regex");
    re.captures_iter(header)
        .map(|c| {
            let direction = match &c[1] {
                "IN" => PortDirection::Input,
                "OUT" => PortDirection::Output,
                _ => PortDirection::InOut,
            };
            let msb: u32 = c[3].parse().unwrap_or(0);
            let lsb: u32 = c[4].parse().unwrap_or(0);
            let width = if msb >= lsb { msb - lsb + 1 } else { lsb - msb + 1 };
            VerilatedPort {
                name: c[2].to_string(),
                direction,
                width,
            }
        })
        .collect()
}

/// Parse `NAME = value` / `NAME += words...` assignments of a (generated)
/// makefile, joining `\` continuation lines.
fn parse_make_vars(mk: &str) -> HashMap<String, Vec<String>> {
    let mut vars: HashMap<String, Vec<String>> = HashMap::new();
    let mut logical = String::new();
    let mut lines = Vec::new();
    for line in mk.lines() {
        let line = line.trim_end();
        if line.ends_with('\\') {
            logical.push_str(&line[..line.len() - 1]);
            logical.push(' ');
        } else {
            logical.push_str(line);
            lines.push(logical.clone());
            logical.clear();
        }
    }
    if !logical.is_empty() {
        lines.push(logical);
    }
    for line in lines {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let (name, append, value) = if let Some(i) = line.find("+=") {
            (&line[..i], true, &line[i + 2..])
        } else if let Some(i) = line.find('=') {
            (&line[..i], false, &line[i + 1..])
        } else {
            continue;
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            continue;
        }
        let words = value.split_whitespace().map(|w| w.to_string());
        let entry = vars.entry(name.to_string()).or_insert_with(Vec::new);
        if !append {
            entry.clear();
        }
        entry.extend(words);
    }
    vars
}

/// `(major, minor)` reported by `exe --version`.
fn version_of(exe: &Path) -> Option<(u32, u32)> {
    let re = Regex::new(r"^Verilator (\d+)\.(\d+)").expect("version regex");
    let output = Command::new(exe).arg("--version").output().ok()?;
    let stdout = from_utf8(&output.stdout).ok()?;
    let captures = re.captures(stdout)?;
    Some((captures[1].parse().ok()?, captures[2].parse().ok()?))
}

/// What went wrong in `Verilator::verilate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// verilator could not be found or executed.
    NotFound,
    /// verilator ran and reported errors (message holds its output).
    Verilate,
    /// verilator's output files were not as expected.
    Output,
    /// Bad builder configuration.
    Config,
    /// I/O error on a file or directory.
    Io,
}

/// Error of `Verilator::verilate`; `message` includes verilator's own
/// diagnostics when it failed.
#[derive(Clone, Debug)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    fn new(kind: ErrorKind, message: String) -> Error {
        Error { kind, message }
    }

    fn io(path: &Path, e: io::Error) -> Error {
        Error::new(ErrorKind::Io, format!("{}: {}", path.display(), e))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl error::Error for Error {}
