//! The warpforge RTL, written with rust-hdl 0.46 and emitted as Verilog.
//!
//! One file per unit, named after the unit, with the same name as its reference in `sim/`, so
//! the two independent implementations can be read side by side. Parameters come only from
//! [`warpforge_config::GpuConfig`]; ISA definitions only from `warpforge_isa`.
//!
//! rust-hdl 0.46 pitfalls this code works around are listed in ../shared/BRIEF.md ("RTL rules").

pub mod alu;
pub mod branch_unit;
pub mod decode;
pub mod divider;
pub mod fetch;
pub mod load_store_unit;
pub mod multiplier;
pub mod operand_collector;
pub mod register_file;
pub mod scheduler;
pub mod scoreboard;
pub mod simt_stack;
pub mod sm;
pub mod top;

use rust_hdl::prelude::*;

/// A block that failed rust-hdl's checks (unconnected signal, logic loop, write to an input).
#[derive(Debug, thiserror::Error)]
#[error("RTL check failed for `{unit}`: {message}")]
pub struct HdlError {
    pub unit: String,
    pub message: String,
}

/// Connect, check and emit one block as Verilog (top module named `top`; rename with
/// [`rename_top`]). Never panics on a check failure.
pub fn verilog_of<B: Block>(unit: &str, uut: &mut B) -> Result<String, HdlError> {
    uut.connect_all();
    check_all(uut).map_err(|e| HdlError {
        unit: unit.to_string(),
        message: format!("{e:?}"),
    })?;
    Ok(generate_verilog_unchecked(uut))
}

/// Rename the emitted top module `top` to `name`.
pub fn rename_top(verilog: &str, name: &str) -> String {
    verilog.replacen("module top(", &format!("module {name}("), 1)
}

/// Packs `n` one-bit inputs into `Bits<N>` (input `i` in bit `i`, the rest zero). A custom leaf
/// because rust-hdl 0.46 emits `replace_bit` with 32-bit literals, which `verilator -Wall`
/// reports as width mismatches.
#[derive(LogicBlock)]
pub struct BitPack<const N: usize> {
    pub d: Vec<Signal<In, Bit>>,
    pub q: Signal<Out, Bits<N>>,
}

impl<const N: usize> BitPack<N> {
    pub fn new(n: usize) -> Self {
        assert!(n >= 1 && n <= N, "BitPack<{N}> of {n} bits");
        BitPack {
            d: (0..n).map(|_| Default::default()).collect(),
            q: Default::default(),
        }
    }
}

impl<const N: usize> Logic for BitPack<N> {
    fn update(&mut self) {
        let mut v: Bits<N> = 0u64.into();
        for (i, d) in self.d.iter().enumerate() {
            v = v.replace_bit(i, d.val());
        }
        self.q.next = v;
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(pack_verilog(self.d.len(), 1, N))
    }
}

/// Packs `n` inputs of `W` bits into `Bits<N>` (input `i` in bits `W*i+W-1 ..= W*i`, the rest
/// zero); with one input it is a zero extension. A custom leaf: a widening `bit_cast` is emitted
/// as a width-mismatched AND, and a parent cannot index a child's `Vec` port.
#[derive(LogicBlock)]
pub struct WordPack<const W: usize, const N: usize> {
    pub d: Vec<Signal<In, Bits<W>>>,
    pub q: Signal<Out, Bits<N>>,
}

impl<const W: usize, const N: usize> WordPack<W, N> {
    pub fn new(n: usize) -> Self {
        assert!(
            n >= 1 && n * W <= N && W <= 64,
            "WordPack<{W}, {N}> of {n} words"
        );
        WordPack {
            d: (0..n).map(|_| Default::default()).collect(),
            q: Default::default(),
        }
    }
}

impl<const W: usize, const N: usize> Logic for WordPack<W, N> {
    fn update(&mut self) {
        let mut v: Bits<N> = 0u64.into();
        for (i, d) in self.d.iter().enumerate() {
            let x: Bits<N> = (d.val().index() as u64).into();
            v = v | (x << ((W * i) as u64));
        }
        self.q.next = v;
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(pack_verilog(self.d.len(), W, N))
    }
}

fn pack_verilog(n: usize, w: usize, total: usize) -> String {
    let mut parts: Vec<String> = (0..n).rev().map(|i| format!("d${i}")).collect();
    if n * w < total {
        parts.insert(0, format!("{}'d0", total - n * w));
    }
    if parts.len() == 1 {
        format!("always @(*) q = {};\n", parts[0])
    } else {
        format!("always @(*) q = {{{}}};\n", parts.join(", "))
    }
}

/// Split every `always @(*)` block of rust-hdl's output into one block per group of statements
/// that assign common variables (original order kept inside and across groups).
///
/// rust-hdl emits a module's whole combinational logic as one `always @(*)` block, so Verilator
/// sees every output of the block depending on every input. When a parent feeds a child and reads
/// another of its outputs, that false dependency closes a combinational loop (`UNOPTFLAT`) even
/// though no signal path exists. Reads in rust-hdl's logic follow the writes they depend on
/// (its `LogicLoops` check refuses a local read before written), so splitting at statement
/// granularity keeps the meaning and leaves Verilator the real signal graph.
pub fn split_comb_blocks(verilog: &str) -> String {
    let lines: Vec<&str> = verilog.lines().collect();
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "    always @(*) begin" {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        }
        // Body until the block's own `    end`.
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim_end() != "    end" {
            j += 1;
        }
        let body = &lines[i + 1..j];
        // Statements: start at indent 8 with anything but `end`.
        let mut stmts: Vec<Vec<&str>> = vec![];
        for line in body {
            let indent = line.len() - line.trim_start().len();
            let starts = indent == 8 && !line.trim_start().starts_with("end");
            if starts || stmts.is_empty() {
                stmts.push(vec![line]);
            } else {
                stmts.last_mut().expect("statement").push(line);
            }
        }
        // Union statements that assign a common variable.
        let assigned: Vec<Vec<String>> = stmts.iter().map(|s| assigned_vars(s)).collect();
        let mut parent: Vec<usize> = (0..stmts.len()).collect();
        fn find(p: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while p[r] != r {
                r = p[r];
            }
            let mut y = x;
            while p[y] != r {
                let n = p[y];
                p[y] = r;
                y = n;
            }
            r
        }
        let mut owner: std::collections::HashMap<&str, usize> = Default::default();
        for (k, vars) in assigned.iter().enumerate() {
            for v in vars {
                if let Some(&o) = owner.get(v.as_str()) {
                    let (a, b) = (find(&mut parent, o), find(&mut parent, k));
                    if a != b {
                        parent[b.max(a)] = a.min(b);
                    }
                } else {
                    owner.insert(v.as_str(), k);
                }
            }
        }
        // A statement that reads a variable assigned again later in the block sees an
        // intermediate value: it stays in that variable's group, in order.
        let mut last_assign: std::collections::HashMap<&str, usize> = Default::default();
        for (k, vars) in assigned.iter().enumerate() {
            for v in vars {
                last_assign.insert(v.as_str(), k);
            }
        }
        for (k, stmt) in stmts.iter().enumerate() {
            for line in stmt {
                for ident in identifiers(line) {
                    if let Some(&last) = last_assign.get(ident) {
                        if last > k {
                            let (a, b) = (find(&mut parent, last), find(&mut parent, k));
                            if a != b {
                                parent[b.max(a)] = a.min(b);
                            }
                        }
                    }
                }
            }
        }
        let mut groups: Vec<(usize, Vec<usize>)> = vec![];
        let mut group_of: std::collections::HashMap<usize, usize> = Default::default();
        for k in 0..stmts.len() {
            let r = find(&mut parent, k);
            let g = *group_of.entry(r).or_insert_with(|| {
                groups.push((r, vec![]));
                groups.len() - 1
            });
            groups[g].1.push(k);
        }
        for (_, members) in &groups {
            out.push_str("    always @(*) begin\n");
            for &k in members {
                for line in &stmts[k] {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            out.push_str("    end\n");
        }
        i = j + 1;
    }
    out
}

/// The identifiers of a line of Verilog (names may contain `$`).
fn identifiers(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|t| {
            t.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}

/// Variables assigned (`name =` or `name[..] =`, not `==`) anywhere in a statement.
fn assigned_vars(stmt: &[&str]) -> Vec<String> {
    let mut v = vec![];
    for line in stmt {
        let t = line.trim_start();
        let name_len = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(t.len());
        if name_len == 0 {
            continue;
        }
        let rest = t[name_len..].trim_start();
        let rest = if rest.starts_with('[') {
            match rest.find(']') {
                Some(e) => rest[e + 1..].trim_start(),
                None => continue,
            }
        } else {
            rest
        };
        if rest.starts_with('=') && !rest.starts_with("==") {
            let name = &t[..name_len];
            if !matches!(name, "if" | "else" | "end" | "begin") {
                v.push(name.to_string());
            }
        }
    }
    v
}

/// A sink for sub-block outputs a parent does not need (event strobes, debug ports, decoder
/// fields). Verilator's `-Wall` exempts signals named `*unused*`, so reading the inputs into
/// `unused_inputs` keeps the design lint-clean without waivers; synthesis removes the logic.
#[derive(LogicBlock)]
pub struct Unused<T: Synth> {
    pub d: Vec<Signal<In, T>>,
}

impl<T: Synth> Unused<T> {
    pub fn new(n: usize) -> Self {
        assert!(n >= 1, "an empty Unused sink");
        Unused {
            d: (0..n).map(|_| Default::default()).collect(),
        }
    }
}

impl<T: Synth> Logic for Unused<T> {
    fn update(&mut self) {}

    fn hdl(&self) -> Verilog {
        let parts: Vec<String> = (0..self.d.len()).map(|i| format!("d${i}")).collect();
        Verilog::Custom(format!(
            "wire unused_inputs = &{{1'b0, {}}};\n",
            parts.join(", ")
        ))
    }
}
