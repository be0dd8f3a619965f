//! Print the Verilog of the GPU top level for a preset: `cargo run -p warpforge-hdl --example
//! emit_top -- tiny > top.v` (the `warpforge gen` command is the user-facing way).
fn main() {
    let preset = std::env::args().nth(1).unwrap_or_else(|| "tiny".into());
    let cfg = warpforge_config::GpuConfig::preset(&preset).expect("preset");
    let v = warpforge_hdl::top::top_verilog(&cfg, &Default::default()).expect("generate");
    print!("{v}");
}
