//! The out-of-context wrapper: a synthesis top around the generated GPU that has only a handful
//! of pins, so that the GPU's wide ports (control, memory and, while they exist, the
//! verification trace ports: thousands of bits) neither become pins nor get optimized away.
//!
//! Built from whatever ports the wrapped module declares (read from its Verilog header by
//! [`parse_ports`]), so it follows the top when ports are added or removed:
//!
//! - every input but the clock and the reset is a bit of one shift register, loaded serially
//!   from the pin `sin` while `shift` is high: synthesis cannot treat any input as a constant;
//! - the reset comes through one register (`rst` pin → `rst_q`);
//! - every output bit feeds a registered XOR tree (each stage XORs groups of up to four bits, one
//!   LUT4, into a register) that ends in at most [`OUT_PINS`] output pins: every output bit
//!   changes some pin, so no logic driving an output can be removed;
//! - so every path from or to a pin is one register to one register: the timing report is the
//!   GPU's own (no I/O paths).
//!
//! Described in docs/fpga.md ("The out-of-context wrapper").

use anyhow::{bail, Result};
use std::fmt::Write as _;

/// Name of the wrapper module (the synthesis top).
pub const OOC_NAME: &str = "warpforge_ooc";
/// The most output pins the XOR tree ends in.
pub const OUT_PINS: usize = 8;
/// Bits XORed into one register of the tree (one LUT4).
pub const XOR_GROUP: usize = 4;

/// Direction of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Dir {
    Input,
    Output,
    Inout,
}

/// One port of a Verilog module.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: usize,
}

/// The ports of module `module` in `verilog`, in declaration order. Reads both header styles:
/// `module m(a, b); input wire [3:0] a; ...` (what rust-hdl writes) and
/// `module m(input wire [3:0] a, ...);`. Widths must be numeric (`[31:0]`); a parameterized
/// width is an error naming the port.
pub fn parse_ports(verilog: &str, module: &str) -> Result<Vec<Port>> {
    let text = strip_comments(verilog);
    let start = find_module(&text, module)?;
    let mut body_start = start + "module".len();
    // Skip the name and a parameter list `#( ... )`.
    let after_name = text[body_start..]
        .find(module)
        .map(|p| body_start + p + module.len());
    if let Some(a) = after_name {
        body_start = a;
        let trimmed = text[a..].trim_start();
        if let Some(r) = trimmed.strip_prefix('#') {
            let open = a + (text[a..].len() - r.len()) + r.find('(').unwrap_or(0);
            let close = matching_paren(&text, open).ok_or_else(|| {
                anyhow::anyhow!("module `{module}`: the parameter list's `(` is never closed")
            })?;
            body_start = close + 1;
        }
    }
    let end = text[body_start..]
        .find("endmodule")
        .map(|e| body_start + e)
        .unwrap_or(text.len());
    let body = &text[body_start..end];
    // The header: from after the module name to the `;` that closes the port list.
    let open = body.find('(');
    let semi = body.find(';');
    let (header, rest) = match (open, semi) {
        (Some(o), Some(s)) if o < s => {
            let close = matching_paren(body, o).ok_or_else(|| {
                anyhow::anyhow!("module `{module}`: the port list's `(` is never closed")
            })?;
            let after = body[close..]
                .find(';')
                .map(|p| close + p)
                .ok_or_else(|| anyhow::anyhow!("module `{module}`: no `;` after the port list"))?;
            (&body[o + 1..close], &body[after + 1..])
        }
        (_, Some(s)) => ("", &body[s + 1..]),
        _ => bail!("module `{module}`: no `;` ends its header"),
    };
    let ansi = header
        .split(|c: char| !is_ident_char(c))
        .any(|w| matches!(w, "input" | "output" | "inout"));
    let mut ports = Vec::new();
    if ansi {
        // `input wire [3:0] a, b, output reg c`: a direction applies until the next one.
        let mut current: Option<(Dir, usize)> = None;
        for item in split_top_commas(header) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let decl = parse_decl(item, module)?;
            match decl {
                Some((dir, width, names)) => {
                    current = Some((dir, width));
                    for n in names {
                        ports.push(Port {
                            name: n,
                            dir,
                            width,
                        });
                    }
                }
                None => {
                    let Some((dir, width)) = current else {
                        bail!("module `{module}`: port `{item}` has no direction");
                    };
                    ports.push(Port {
                        name: unescape(item),
                        dir,
                        width,
                    });
                }
            }
        }
    } else {
        let order: Vec<String> = split_top_commas(header)
            .iter()
            .map(|s| unescape(s.trim()))
            .filter(|s| !s.is_empty())
            .collect();
        let mut declared: Vec<Port> = Vec::new();
        for stmt in rest.split(';') {
            if let Some((dir, width, names)) = parse_decl(stmt.trim(), module)? {
                for n in names {
                    declared.push(Port {
                        name: n,
                        dir,
                        width,
                    });
                }
            }
        }
        for name in order {
            let Some(p) = declared.iter().find(|p| p.name == name) else {
                bail!(
                    "module `{module}`: port `{name}` is listed in the header but never declared input/output"
                );
            };
            ports.push(p.clone());
        }
    }
    if ports.is_empty() {
        bail!("module `{module}` has no ports: there is nothing to wrap");
    }
    Ok(ports)
}

/// The wrapper's Verilog and what it adds to the design.
#[derive(Clone, Debug)]
pub struct Wrapper {
    pub text: String,
    /// Bits of the input shift chain (every wrapped input but clock and reset).
    pub chain_bits: usize,
    /// Output bits of the wrapped module, all XOR-reduced.
    pub output_bits: usize,
    /// Registers of the XOR tree (its last stage drives the output pins).
    pub tree_ffs: usize,
    /// Output pins (`sout`).
    pub out_pins: usize,
}

impl Wrapper {
    /// Flip-flops the wrapper adds: shift chain, reset register, XOR tree.
    pub fn ffs(&self) -> usize {
        self.chain_bits + 1 + self.tree_ffs
    }
    /// LUT4s the wrapper adds, approximately: one per XOR-tree register (synthesis may merge a
    /// first-stage XOR into the logic that drives the output).
    pub fn luts(&self) -> usize {
        self.tree_ffs
    }
}

/// The out-of-context wrapper [`OOC_NAME`] around `top` with `ports`; `clock` and `reset` name
/// the wrapped module's clock and reset inputs (1 bit each).
pub fn wrapper(top: &str, ports: &[Port], clock: &str, reset: Option<&str>) -> Result<Wrapper> {
    let one_bit_input = |name: &str, what: &str| -> Result<()> {
        match ports.iter().find(|p| p.name == name) {
            Some(p) if p.dir == Dir::Input && p.width == 1 => Ok(()),
            Some(p) => bail!(
                "the {what} port `{name}` of `{top}` is a {}-bit {:?} port; it must be a 1-bit input",
                p.width,
                p.dir
            ),
            None => bail!(
                "`{top}` has no {what} port `{name}` (its ports: {})",
                ports
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    };
    one_bit_input(clock, "clock")?;
    if let Some(r) = reset {
        one_bit_input(r, "reset")?;
    }
    if let Some(p) = ports.iter().find(|p| p.dir == Dir::Inout) {
        bail!(
            "port `{}` of `{top}` is inout: the wrapper cannot drive it",
            p.name
        );
    }
    let inputs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.dir == Dir::Input && p.name != clock && Some(p.name.as_str()) != reset)
        .collect();
    let outputs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Output).collect();
    let chain_bits: usize = inputs.iter().map(|p| p.width).sum();
    let output_bits: usize = outputs.iter().map(|p| p.width).sum();
    if output_bits == 0 {
        bail!("`{top}` has no outputs: synthesis would remove all of it");
    }

    let mut v = String::new();
    let w = &mut v;
    let _ = writeln!(
        w,
        "// Out-of-context synthesis wrapper of `{top}`, generated by `warpforge synth`\n\
         // (gen/src/synth/wrapper.rs; docs/fpga.md). {chain_bits} input bits come from a shift chain\n\
         // loaded from `sin`; {output_bits} output bits are XOR-reduced through registers to `sout`."
    );
    let _ = writeln!(w, "module {OOC_NAME} (");
    let _ = writeln!(w, "    input wire clk,");
    if reset.is_some() {
        let _ = writeln!(w, "    input wire rst,");
    }
    if chain_bits > 0 {
        let _ = writeln!(w, "    input wire sin,");
        let _ = writeln!(w, "    input wire shift,");
    }
    // XOR tree stages: widths until at most OUT_PINS remain.
    let mut stages = Vec::new();
    let mut width = output_bits;
    loop {
        width = width.div_ceil(XOR_GROUP);
        stages.push(width);
        if width <= OUT_PINS {
            break;
        }
    }
    let out_pins = *stages.last().expect("one stage at least");
    let _ = writeln!(w, "    output wire [{}:0] sout", out_pins - 1);
    let _ = writeln!(w, ");");
    if reset.is_some() {
        let _ = writeln!(w, "    reg rst_q;");
        let _ = writeln!(w, "    always @(posedge clk) rst_q <= rst;");
    }
    if chain_bits > 0 {
        let _ = writeln!(w, "    reg [{}:0] chain;", chain_bits - 1);
        if chain_bits == 1 {
            let _ = writeln!(w, "    always @(posedge clk) if (shift) chain <= sin;");
        } else {
            let _ = writeln!(
                w,
                "    always @(posedge clk) if (shift) chain <= {{chain[{}:0], sin}};",
                chain_bits - 2
            );
        }
    }
    let _ = writeln!(w, "    wire [{}:0] outs;", output_bits - 1);
    let _ = writeln!(w, "    {top} {} (", super::DUT);
    let mut conns = Vec::new();
    let (mut in_at, mut out_at) = (0usize, 0usize);
    for p in ports {
        let net = if p.name == clock {
            "clk".to_string()
        } else if Some(p.name.as_str()) == reset {
            "rst_q".to_string()
        } else {
            let (vec, at) = match p.dir {
                Dir::Input => ("chain", &mut in_at),
                _ => ("outs", &mut out_at),
            };
            let s = slice(vec, *at, p.width);
            *at += p.width;
            s
        };
        conns.push(format!("        .{}({net})", ident(&p.name)));
    }
    let _ = writeln!(w, "{}", conns.join(",\n"));
    let _ = writeln!(w, "    );");
    let mut prev = ("outs".to_string(), output_bits);
    for (s, &n) in stages.iter().enumerate() {
        let name = format!("x{}", s + 1);
        let _ = writeln!(w, "    reg [{}:0] {name};", n - 1);
        let _ = writeln!(w, "    always @(posedge clk) begin");
        for i in 0..n {
            let lo = i * XOR_GROUP;
            let len = XOR_GROUP.min(prev.1 - lo);
            let _ = writeln!(w, "        {name}[{i}] <= ^{};", slice(&prev.0, lo, len));
        }
        let _ = writeln!(w, "    end");
        prev = (name, n);
    }
    let _ = writeln!(w, "    assign sout = {};", prev.0);
    let _ = writeln!(w, "endmodule");
    Ok(Wrapper {
        text: v,
        chain_bits,
        output_bits,
        tree_ffs: stages.iter().sum(),
        out_pins,
    })
}

fn slice(vec: &str, lo: usize, width: usize) -> String {
    if width == 1 {
        format!("{vec}[{lo}]")
    } else {
        format!("{vec}[{}:{lo}]", lo + width - 1)
    }
}

/// `name` as a Verilog identifier: as is when simple, escaped (`\name `) otherwise.
fn ident(name: &str) -> String {
    let simple = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(is_ident_char);
    if simple {
        name.to_string()
    } else {
        format!("\\{name} ")
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

fn unescape(s: &str) -> String {
    s.trim().trim_start_matches('\\').trim().to_string()
}

fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else {
            let ch = s[i..].chars().next().expect("in bounds");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Byte offset of `module <name>` (as whole words).
fn find_module(text: &str, name: &str) -> Result<usize> {
    let mut from = 0;
    while let Some(p) = text[from..].find("module") {
        let at = from + p;
        from = at + "module".len();
        let before_ok = at == 0 || !is_ident_char(text[..at].chars().next_back().unwrap_or(' '));
        let rest = &text[from..];
        let after_kw = rest.chars().next().is_some_and(|c| c.is_whitespace());
        if !(before_ok && after_kw) {
            continue;
        }
        let rest = rest.trim_start();
        let rest = rest.strip_prefix('\\').unwrap_or(rest);
        if let Some(tail) = rest.strip_prefix(name) {
            if !tail.chars().next().is_some_and(is_ident_char) {
                return Ok(at);
            }
        }
    }
    bail!("no module `{name}` in the Verilog")
}

fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_top_commas(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().expect("not empty").push(c);
    }
    out
}

/// `input wire signed [7:0] a, b` → (Input, 8, [a, b]); `None` when `decl` does not start with
/// a direction.
fn parse_decl(decl: &str, module: &str) -> Result<Option<(Dir, usize, Vec<String>)>> {
    let decl = decl.trim();
    let (dir, rest) = if let Some(r) = strip_word(decl, "input") {
        (Dir::Input, r)
    } else if let Some(r) = strip_word(decl, "output") {
        (Dir::Output, r)
    } else if let Some(r) = strip_word(decl, "inout") {
        (Dir::Inout, r)
    } else {
        return Ok(None);
    };
    let mut rest = rest.trim_start();
    for kw in [
        "wire", "reg", "logic", "signed", "unsigned", "wire", "signed",
    ] {
        if let Some(r) = strip_word(rest, kw) {
            rest = r.trim_start();
        }
    }
    let mut width = 1;
    if let Some(r) = rest.strip_prefix('[') {
        let close = r
            .find(']')
            .ok_or_else(|| anyhow::anyhow!("module `{module}`: unclosed `[` in `{decl}`"))?;
        let range = &r[..close];
        let (msb, lsb) = range.split_once(':').ok_or_else(|| {
            anyhow::anyhow!("module `{module}`: range `[{range}]` in `{decl}` has no `:`")
        })?;
        let num = |t: &str| -> Result<i64> {
            t.trim().parse::<i64>().map_err(|_| {
                anyhow::anyhow!(
                    "module `{module}`: the width of `{decl}` is not numeric (`[{range}]`); \
                     the wrapper needs the elaborated widths: generate the Verilog with constants"
                )
            })
        };
        width = (num(msb)? - num(lsb)?).unsigned_abs() as usize + 1;
        rest = &r[close + 1..];
    }
    let names = rest
        .split(',')
        .map(unescape)
        .filter(|n| !n.is_empty())
        .collect::<Vec<_>>();
    if names.is_empty() {
        bail!("module `{module}`: declaration `{decl}` names no port");
    }
    Ok(Some((dir, width, names)))
}

fn strip_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let r = s.strip_prefix(word)?;
    if r.chars().next().is_some_and(is_ident_char) {
        None
    } else {
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NON_ANSI: &str = "// a comment with module fake(x);\n\
        module fake(clock,reset,a,b$0,y,z);\n\
        input wire clock;\n input wire reset;\n input wire [31:0] a;\n\
        input wire b$0; /* c */\n output reg [1023:0] y;\n output reg [2:0] z;\n\
        reg [3:0] q;\n endmodule\n";

    #[test]
    fn non_ansi_ports_in_header_order_with_widths() {
        let p = parse_ports(NON_ANSI, "fake").unwrap();
        let got: Vec<(&str, Dir, usize)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.dir, p.width))
            .collect();
        assert_eq!(
            got,
            vec![
                ("clock", Dir::Input, 1),
                ("reset", Dir::Input, 1),
                ("a", Dir::Input, 32),
                ("b$0", Dir::Input, 1),
                ("y", Dir::Output, 1024),
                ("z", Dir::Output, 3),
            ]
        );
    }

    #[test]
    fn ansi_ports_carry_direction_and_width() {
        let v = "module other(input x); endmodule\nmodule m #(parameter P = (1)) (input wire clk, input [7:0] a, b, output reg [0:3] o);\nendmodule";
        let p = parse_ports(v, "m").unwrap();
        assert_eq!(
            p.iter().map(|p| p.width).collect::<Vec<_>>(),
            vec![1, 8, 8, 4]
        );
        assert_eq!(p[2].dir, Dir::Input);
        assert_eq!(p[3].dir, Dir::Output);
    }

    #[test]
    fn errors_name_the_module_and_port() {
        let e = parse_ports(NON_ANSI, "absent").unwrap_err().to_string();
        assert!(e.contains("no module `absent`"), "{e}");
        let v = "module m(a, b); input wire a; output wire [W-1:0] b; endmodule";
        let e = parse_ports(v, "m").unwrap_err().to_string();
        assert!(e.contains("[W-1:0]") && e.contains("not numeric"), "{e}");
        let v = "module m(a, b); input wire a; endmodule";
        let e = parse_ports(v, "m").unwrap_err().to_string();
        assert!(e.contains("port `b`"), "{e}");
    }

    #[test]
    fn wrapper_counts_and_connections() {
        let p = parse_ports(NON_ANSI, "fake").unwrap();
        let w = wrapper("fake", &p, "clock", Some("reset")).unwrap();
        assert_eq!(w.chain_bits, 33);
        assert_eq!(w.output_bits, 1027);
        // 1027 -> 257 -> 65 -> 17 -> 5 bits.
        assert_eq!(w.tree_ffs, 257 + 65 + 17 + 5);
        assert_eq!(w.out_pins, 5);
        assert!(w.text.contains(".clock(clk)"));
        assert!(w.text.contains(".reset(rst_q)"));
        assert!(w.text.contains(".a(chain[31:0])"));
        assert!(w.text.contains(".b$0(chain[32])"));
        assert!(w.text.contains(".y(outs[1023:0])"));
        assert!(w.text.contains(".z(outs[1026:1024])"));
        assert!(w.text.contains("x1[256] <= ^outs[1026:1024];"));
        assert!(w.text.contains("output wire [4:0] sout"));
        assert!(w.text.contains("assign sout = x4;"));
    }

    #[test]
    fn wrapper_refuses_a_missing_clock_or_a_wide_reset() {
        let p = parse_ports(NON_ANSI, "fake").unwrap();
        let e = wrapper("fake", &p, "clk", None).unwrap_err().to_string();
        assert!(e.contains("no clock port `clk`"), "{e}");
        let e = wrapper("fake", &p, "clock", Some("a"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("32-bit") && e.contains("reset"), "{e}");
    }

    #[test]
    fn escaped_identifiers_round_trip() {
        assert_eq!(ident("a$0"), "a$0");
        assert_eq!(ident("a.b"), "\\a.b ");
        assert_eq!(ident("0a"), "\\0a ");
    }
}
