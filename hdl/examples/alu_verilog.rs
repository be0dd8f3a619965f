//! Print the Verilog of an ALU of `LANES` lanes (default 1) and latency 1, to measure the ALU's
//! area on its own (docs/microarch/execution_units.md, "ALU lane datapath"):
//!
//! ```sh
//! cargo run --release -p warpforge-hdl --example alu_verilog 1 > alu.v
//! yosys -p "read_verilog alu.v; synth_ecp5 -top top -abc9; stat"
//! ```
use std::process::ExitCode;

use warpforge_hdl::alu::Alu;
use warpforge_hdl::verilog_of;

fn main() -> ExitCode {
    let lanes = match std::env::args().nth(1).map(|s| s.parse::<usize>()) {
        None => 1,
        Some(Ok(n)) if (1..=32).contains(&n) => n,
        Some(_) => {
            eprintln!("usage: alu_verilog [LANES]  (LANES: 1 to 32)");
            return ExitCode::from(2);
        }
    };
    match verilog_of("alu", &mut Alu::with(lanes, 1)) {
        Ok(v) => {
            print!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
