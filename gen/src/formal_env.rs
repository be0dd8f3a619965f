//! The legal host around the GPU in `mutate`'s in-context equivalence proof
//! (docs/mutation.md, "Equivalence in context").
//!
//! A miter of the bare top level lets its inputs do what no host does (a memory response with no
//! read outstanding, a program written into instruction memory while a kernel runs) and compares
//! output bits nobody reads (a trace record's fields while its `valid` is low). Both make the proof
//! call a mutant *not equivalent* for a difference no user and no test can ever see. `wf_env` is
//! a wrapper with the same ports as the top level that
//!
//! * drives the GPU's inputs only the way the host and the memory of docs/microarch/sm.md and
//!   docs/microarch/load_store_unit.md do: reset in the first cycle (power-on), a program loaded
//!   and a kernel started only once the GPU is out of reset (its reset tree's
//!   `RESET_LATENCY` cycles after the pin) and while no kernel runs (after `done`; after a fault, only after a
//!   reset), a kernel started only with a launch the host accepts ([`LaunchLimits`], as
//!   `Gpu::check_launch` checks it), and a memory response only for a read accepted in an
//!   earlier cycle and not yet answered (per SM, in order, as the memory model makes them);
//! * shows each output group's fields only while the group's `valid` is high (zero otherwise), as
//!   the lock-step checker reads them; every other output (`busy`, `done`, the `valid`s, the
//!   scheduler's `tr_ready`/`tr_launch`/`tr_long`, `cycle_count`, the counters) is compared
//!   every cycle.
//!
//! The environment depends on the wrapped GPU's own outputs (`done`, the memory requests); in a
//! miter of two wrappers these are equal until the first cycle the two GPUs' outputs differ, which
//! the miter reports, so the proof still covers every legal host.

use anyhow::{anyhow, bail, Result};
use warpforge_hdl::mem_port::MEM_PORT;
use warpforge_hdl::reset_tree::RESET_LATENCY;

/// A port of the top-level module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub input: bool,
    pub width: u32,
}

/// The name of the wrapper module.
pub const ENV_NAME: &str = "wf_env";

/// The launches a host makes (`warpforge_sim::Gpu::check_launch`): at least one CTA, 1 to
/// `max_block` threads per CTA, at most `smem_bytes` of shared memory per CTA, an entry point
/// that is an aligned address of the instruction memory (the loader refuses any other,
/// `LoadError::EntryOutsideText`). `start` is legal only with such launch parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchLimits {
    pub max_block: u32,
    pub smem_bytes: u32,
    pub imem_bytes: u32,
}

/// Output groups whose fields are read only while the group's valid is high: (field prefix,
/// valid port), as flat names ([`split_sm`]). The SM suffix (`$s`) of a field is that of its
/// valid.
const QUALIFIED: &[(&str, &str)] = &[
    ("tr_issue_", "tr_issue_valid"),
    ("tr_wb_", "tr_wb_valid"),
    ("tr_st_", "tr_st_valid"),
    ("tr_cta_", "tr_cta_valid"),
    ("tr_grant_", "tr_grant_valid"),
    ("mem_req_", "mem_req_valid"),
    ("fault_", "fault"),
];

/// The ports of module `top` in rust-hdl's Verilog (its `input wire [N:0] name;` declarations).
pub fn top_ports(verilog: &str, top: &str) -> Result<Vec<Port>> {
    let header = format!("module {top}(");
    let start = verilog
        .find(&header)
        .ok_or_else(|| anyhow!("no `module {top}(` in the generated Verilog"))?;
    let body = &verilog[start..];
    let end = body.find("endmodule").unwrap_or(body.len());
    let mut ports = Vec::new();
    for line in body[..end].lines().skip(1) {
        let t = line.trim();
        let input = t.starts_with("input ");
        if !input && !t.starts_with("output ") {
            if ports.is_empty() {
                continue;
            }
            break;
        }
        let decl = t.trim_end_matches(';');
        let words: Vec<&str> = decl.split_whitespace().collect();
        let name = *words
            .last()
            .ok_or_else(|| anyhow!("empty port declaration in `{top}`"))?;
        let width = match words.iter().find(|w| w.starts_with('[')) {
            Some(range) => {
                let msb: u32 = range
                    .trim_start_matches('[')
                    .split(':')
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| anyhow!("cannot read the range of port `{name}`: `{t}`"))?;
                msb + 1
            }
            None => 1,
        };
        ports.push(Port {
            name: name.to_string(),
            input,
            width,
        });
    }
    if ports.is_empty() {
        bail!("module `{top}` declares no ports");
    }
    Ok(ports)
}

/// A port name as (flat name, SM suffix): `tr_wb_valid$0` is (`tr_wb_valid`, `$0`), the memory
/// bundle's `mem$0$req_valid` is (`mem_req_valid`, `$0`), `done` is (`done`, "").
fn split_sm(name: &str) -> (String, String) {
    let bundle = format!("{MEM_PORT}$");
    if let Some(rest) = name.strip_prefix(&bundle) {
        if let Some((sm, field)) = rest.split_once('$') {
            return (format!("{MEM_PORT}_{field}"), format!("${sm}"));
        }
    }
    match name.rfind('$') {
        Some(i) => (name[..i].to_string(), name[i..].to_string()),
        None => (name.to_string(), String::new()),
    }
}

/// The port name of flat name `flat` with SM suffix `s` (the inverse of [`split_sm`]).
fn join_sm(flat: &str, s: &str) -> String {
    match (
        flat.strip_prefix(&format!("{MEM_PORT}_")),
        s.strip_prefix('$'),
    ) {
        (Some(field), Some(sm)) => format!("{MEM_PORT}${sm}${field}"),
        _ => format!("{flat}{s}"),
    }
}

fn range(width: u32) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

/// The Verilog of `wf_env`, wrapping module `top` with these ports; `start` only with a launch
/// within `limits`.
pub fn env_verilog(ports: &[Port], top: &str, limits: LaunchLimits) -> Result<String> {
    let has = |n: &str| ports.iter().any(|p| p.name == n);
    for needed in [
        "clock",
        "reset",
        "start",
        "done",
        "imem_we",
        "launch_nctaid",
        "launch_ntid",
        "launch_shared",
        "launch_entry",
    ] {
        if !has(needed) {
            bail!("the top level has no `{needed}` port: the proof's host environment (gen/src/formal_env.rs) needs it");
        }
    }
    let mut v = String::new();
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    v += &format!("module {ENV_NAME}({});\n", names.join(","));
    for p in ports {
        let dir = if p.input { "input" } else { "output" };
        v += &format!("    {dir} wire {}{};\n", range(p.width), p.name);
    }
    for p in ports {
        v += &format!("    wire {}dut_{};\n", range(p.width), p.name);
    }
    let conns: Vec<String> = ports
        .iter()
        .map(|p| format!(".{}(dut_{})", p.name, p.name))
        .collect();
    v += &format!("    {top} dut({});\n", conns.join(", "));
    v += "    // Power-on: reset in the first cycle, as every host does before anything else.\n";
    v += "    reg wf_por = 1'b0;\n    always @(posedge clock) wf_por <= 1'b1;\n";
    // The GPU sees `reset` through its reset tree, RESET_LATENCY cycles late: the host waits
    // that long (after power-on too) before it loads a program or starts a kernel.
    let lat = RESET_LATENCY;
    v += &format!(
        "    // The GPU's reset tree ({lat} cycles): the host waits until the GPU is out of reset.\n    \
         reg [{m1}:0] wf_rst_pipe = {{{lat}{{1'b1}}}};\n    \
         always @(posedge clock) wf_rst_pipe <= {{wf_rst_pipe[{m2}:0], dut_reset}};\n    \
         wire wf_in_reset = dut_reset | (|wf_rst_pipe);\n    \
         wire wf_gpu_reset = wf_rst_pipe[{m1}];\n",
        m1 = lat - 1,
        m2 = lat - 2
    );
    v += "    // A kernel is launched and not done: no program load, no second start.\n";
    v += "    reg wf_started = 1'b0;\n";
    v += "    always @(posedge clock)\n        if (dut_reset) wf_started <= 1'b0;\n        else if (dut_start) wf_started <= 1'b1;\n        else if (dut_done) wf_started <= 1'b0;\n";
    v += &format!(
        "    // A launch the host accepts (Gpu::check_launch, the loader's entry point).\n    \
         wire wf_launch_ok = (launch_nctaid != 32'd0) & (launch_ntid != 32'd0) & \
         (launch_ntid <= 32'd{}) & (launch_shared <= 32'd{}) & \
         (launch_entry[1:0] == 2'd0) & (launch_entry < 32'd{});\n",
        limits.max_block, limits.smem_bytes, limits.imem_bytes
    );
    for p in ports.iter().filter(|p| p.input) {
        let n = &p.name;
        let drive = match n.as_str() {
            "reset" => "reset | !wf_por".to_string(),
            "start" => "start & !wf_started & wf_launch_ok & !wf_in_reset".to_string(),
            "imem_we" => "imem_we & !wf_started & !wf_in_reset".to_string(),
            // The entry point a host presents is an aligned address of the instruction
            // memory (a power of two): its other bits are 0, which a proof sees structurally
            // (a fetch PC's bit 0 is then 0 by three-valued simulation, not only by `start`'s
            // check).
            // A host loads the program into the instruction memory only (the loader refuses
            // a text that does not fit): the word index's bits at and above its size are 0.
            "imem_addr" if limits.imem_bytes.is_power_of_two() => {
                format!("imem_addr & 32'h{:x}", limits.imem_bytes / 4 - 1)
            }
            "launch_entry" if limits.imem_bytes.is_power_of_two() => {
                format!("launch_entry & 32'h{:x}", (limits.imem_bytes - 1) & !3)
            }
            _ if split_sm(n).0 == "mem_resp_valid" => {
                let s = split_sm(n).1;
                let [valid, ready, write] =
                    ["mem_req_valid", "mem_req_ready", "mem_req_write"].map(|f| join_sm(f, &s));
                for needed in [&valid, &ready, &write] {
                    if !has(needed) {
                        bail!("the top level has `{n}` but no `{needed}`");
                    }
                }
                v += &format!(
                    "    // Reads of SM{s} accepted and not yet answered: a response only for one of them.\n    \
                     reg [15:0] wf_reads{s} = 16'd0;\n    \
                     always @(posedge clock)\n        if (wf_gpu_reset) wf_reads{s} <= 16'd0;\n        \
                     else wf_reads{s} <= wf_reads{s} + (dut_{valid} & {ready} & !dut_{write}) - dut_{n};\n"
                );
                format!("{n} & (wf_reads{s} != 16'd0)")
            }
            _ => n.clone(),
        };
        v += &format!("    assign dut_{n} = {drive};\n");
    }
    for p in ports.iter().filter(|p| !p.input) {
        let n = &p.name;
        let (flat, s) = split_sm(n);
        let valid = QUALIFIED.iter().find_map(|(prefix, valid)| {
            let own = join_sm(valid, &s);
            (flat.starts_with(prefix) && *n != own && has(&own)).then_some(own)
        });
        let value = match valid {
            Some(valid) => format!("dut_{valid} ? dut_{n} : {}'d0", p.width),
            None => format!("dut_{n}"),
        };
        v += &format!("    assign {n} = {value};\n");
    }
    v += "endmodule\n";
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: &str = "module t(clock,reset,start,done,imem_we,imem_addr,mem$0$req_valid,mem$0$req_ready,\
        mem$0$req_write,mem$0$req_addr,mem$0$resp_valid,fault,fault_pc,busy,launch_nctaid,launch_ntid,\
        launch_shared,launch_entry);\n    \n    \
        // Module arguments\n    input wire  clock;\n    input wire  reset;\n    input wire  start;\n    \
        output reg  done;\n    input wire  imem_we;\n    input wire  [31:0] imem_addr;\n    output reg  mem$0$req_valid;\n    \
        input wire  mem$0$req_ready;\n    output reg  mem$0$req_write;\n    \
        output reg  [31:0] mem$0$req_addr;\n    input wire  mem$0$resp_valid;\n    \
        output reg  fault;\n    output reg  [31:0] fault_pc;\n    output wire  busy;\n    \
        input wire  [31:0] launch_nctaid;\n    input wire  [31:0] launch_ntid;\n    \
        input wire  [31:0] launch_shared;\n    input wire  [31:0] launch_entry;\n    \n    \
        // Update code\nendmodule\n";

    #[test]
    fn sm_suffixes_of_flat_and_bundled_ports() {
        for (name, flat, s) in [
            ("tr_wb_valid$1", "tr_wb_valid", "$1"),
            ("mem$1$req_valid", "mem_req_valid", "$1"),
            ("done", "done", ""),
        ] {
            assert_eq!(split_sm(name), (flat.to_string(), s.to_string()));
            assert_eq!(join_sm(flat, s), name);
        }
    }

    #[test]
    fn reads_the_ports() {
        let p = top_ports(TOP, "t").unwrap();
        assert_eq!(p.len(), 18);
        assert_eq!(
            p[9],
            Port {
                name: "mem$0$req_addr".into(),
                input: false,
                width: 32
            }
        );
        assert!(p[0].input && p[0].width == 1 && p[0].name == "clock");
        assert!(top_ports(TOP, "other").is_err());
    }

    #[test]
    fn qualifies_fields_and_constrains_the_host() {
        let limits = LaunchLimits {
            max_block: 16,
            smem_bytes: 4096,
            imem_bytes: 16384,
        };
        let v = env_verilog(&top_ports(TOP, "t").unwrap(), "t", limits).unwrap();
        // Fields under their valid; valids, busy and done unqualified.
        assert!(
            v.contains("assign mem$0$req_addr = dut_mem$0$req_valid ? dut_mem$0$req_addr : 32'd0;")
        );
        assert!(v.contains(
            "assign mem$0$req_write = dut_mem$0$req_valid ? dut_mem$0$req_write : 1'd0;"
        ));
        assert!(v.contains("assign fault_pc = dut_fault ? dut_fault_pc : 32'd0;"));
        assert!(v.contains("assign mem$0$req_valid = dut_mem$0$req_valid;"));
        assert!(v.contains("assign fault = dut_fault;"));
        assert!(v.contains("assign busy = dut_busy;"));
        // The host's rules.
        assert!(v.contains("assign dut_reset = reset | !wf_por;"));
        assert!(v.contains("assign dut_imem_we = imem_we & !wf_started & !wf_in_reset;"));
        assert!(v.contains("assign dut_launch_entry = launch_entry & 32'h3ffc;"));
        assert!(v.contains("assign dut_imem_addr = imem_addr & 32'hfff;"));
        assert!(v.contains("assign dut_start = start & !wf_started & wf_launch_ok & !wf_in_reset;"));
        assert!(v.contains("wf_rst_pipe <= {wf_rst_pipe[1:0], dut_reset};"));
        assert!(v.contains(
            "wire wf_launch_ok = (launch_nctaid != 32'd0) & (launch_ntid != 32'd0) & \
             (launch_ntid <= 32'd16) & (launch_shared <= 32'd4096) & \
             (launch_entry[1:0] == 2'd0) & (launch_entry < 32'd16384);"
        ));
        assert!(
            v.contains("assign dut_mem$0$resp_valid = mem$0$resp_valid & (wf_reads$0 != 16'd0);")
        );
        assert!(v.contains("assign dut_mem$0$req_ready = mem$0$req_ready;"));
        // A top level without the ports the rules need is refused, naming the port.
        for missing in ["done", "launch_ntid", "launch_entry"] {
            let without: Vec<Port> = top_ports(TOP, "t")
                .unwrap()
                .into_iter()
                .filter(|p| p.name != missing)
                .collect();
            let e = env_verilog(&without, "t", limits).unwrap_err().to_string();
            assert!(e.contains(&format!("`{missing}`")), "{e}");
        }
    }
}
