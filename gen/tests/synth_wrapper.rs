//! The out-of-context wrapper keeps all of the wrapped design: synthesized by yosys, the wrapped
//! module has exactly the flip-flops and at least the logic it has when synthesized alone with
//! every port a pin (needs yosys: `scripts/setup.sh --yosys`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use warpforge::synth::parse::yosys_cells;
use warpforge::synth::wrapper::{parse_ports, wrapper, OOC_NAME};

/// A small design in rust-hdl's style (ports declared after the header, `$` in names): a
/// registered multiply-add, a registered counter and a combinational output: 62 flip-flops
/// (32 + 13 + the 17 low bits of `s`, whose high bits are always 0).
const FAKE: &str = "module fake(clock,reset,a,b$0,c,acc$0,cnt,mix);\n\
    input wire clock;\n    input wire reset;\n    input wire [7:0] a;\n    input wire [7:0] b$0;\n\
    input wire [15:0] c;\n    output reg [31:0] acc$0;\n    output reg [12:0] cnt;\n\
    output wire [15:0] mix;\n\
    reg [31:0] s;\n\
    always @(posedge clock) begin\n\
      if (reset) begin acc$0 <= 32'h0; cnt <= 13'h0; s <= 32'h0; end\n\
      else begin s <= {16'h0, c} + {24'h0, a}; acc$0 <= acc$0 + a * b$0 + s; cnt <= cnt + {5'h0, a}; end\n\
    end\n\
    assign mix = c ^ {a, b$0};\n\
    endmodule\n";

fn yosys_stat(dir: &Path, files: &[&str], top: &str) -> BTreeMap<String, u64> {
    let mut script = String::new();
    for f in files {
        script.push_str(&format!("read_verilog {f}\n"));
    }
    script.push_str(&format!(
        "synth -flatten -top {top}\ntee -q -o stat-{top}.json stat -json\n"
    ));
    let ys = dir.join(format!("{top}.ys"));
    std::fs::write(&ys, script).unwrap();
    let out = Command::new("yosys")
        .arg("-q")
        .arg(&ys)
        .current_dir(dir)
        .output()
        .expect("yosys runs (scripts/setup.sh --yosys)");
    assert!(
        out.status.success(),
        "yosys failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    yosys_cells(&std::fs::read_to_string(dir.join(format!("stat-{top}.json"))).unwrap()).unwrap()
}

fn ffs(cells: &BTreeMap<String, u64>) -> u64 {
    cells
        .iter()
        .filter(|(k, _)| k.starts_with("$_DFF") || k.starts_with("$_SDFF"))
        .map(|(_, n)| n)
        .sum()
}

fn logic(cells: &BTreeMap<String, u64>) -> u64 {
    cells
        .iter()
        .filter(|(k, _)| !(k.starts_with("$_DFF") || k.starts_with("$_SDFF")))
        .map(|(_, n)| n)
        .sum()
}

#[test]
fn the_wrapper_keeps_every_flip_flop_and_gate_of_the_wrapped_design() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fake.v"), FAKE).unwrap();
    let ports = parse_ports(FAKE, "fake").unwrap();
    let w = wrapper("fake", &ports, "clock", Some("reset")).unwrap();
    // 8 + 8 + 16 input bits; 32 + 13 + 16 output bits.
    assert_eq!(w.chain_bits, 32);
    assert_eq!(w.output_bits, 61);
    std::fs::write(dir.path().join("ooc.v"), &w.text).unwrap();

    let alone = yosys_stat(dir.path(), &["fake.v"], "fake");
    let wrapped = yosys_stat(dir.path(), &["fake.v", "ooc.v"], OOC_NAME);
    assert_eq!(
        ffs(&alone),
        32 + 13 + 17,
        "the fake design's own flip-flops"
    );
    assert_eq!(
        ffs(&wrapped),
        ffs(&alone) + w.ffs() as u64,
        "wrapped: the design's flip-flops plus the wrapper's ({} chain, 1 reset, {} XOR tree); alone {alone:?}, wrapped {wrapped:?}",
        w.chain_bits,
        w.tree_ffs
    );
    assert!(
        logic(&wrapped) >= logic(&alone),
        "logic gates: wrapped {} < alone {}",
        logic(&wrapped),
        logic(&alone)
    );
}

#[test]
fn without_the_xor_tree_synthesis_removes_the_design() {
    // The control: the same design with its outputs left unconnected and its inputs tied to
    // constants loses its logic, so the test above measures the wrapper, not yosys's mercy.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fake.v"), FAKE).unwrap();
    let bare = "module bare(input wire clk, output wire o);\n\
        wire [31:0] acc; wire [12:0] cnt; wire [15:0] mix;\n\
        fake u(.clock(clk), .reset(1'b0), .a(8'h3), .b$0(8'h5), .c(16'h7), .acc$0(acc), .cnt(cnt), .mix(mix));\n\
        assign o = 1'b0;\nendmodule\n";
    std::fs::write(dir.path().join("bare.v"), bare).unwrap();
    let cells = yosys_stat(dir.path(), &["fake.v", "bare.v"], "bare");
    assert_eq!(ffs(&cells), 0, "{cells:?}");
}
