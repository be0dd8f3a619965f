//! Print the Verilog of one unit (top module `top`), to measure its area on its own
//! (docs/microarch/execution_units.md, "ALU lane datapath"; docs/microarch/sm.md, "Tags";
//! docs/microarch/operand_collector.md, "Operand storage"):
//!
//! ```sh
//! cargo run --release -p warpforge-hdl --example unit_verilog alu 1 > unit.v        # LANES
//! cargo run --release -p warpforge-hdl --example unit_verilog multiplier 1 3 > unit.v  # LANES [LATENCY]
//! cargo run --release -p warpforge-hdl --example unit_verilog divider 8 133 > unit.v  # LANES [LATENCY]
//! cargo run --release -p warpforge-hdl --example unit_verilog tag-table 13 8 > unit.v  # TAGS WARPS (8 lanes)
//! cargo run --release -p warpforge-hdl --example unit_verilog operand-collector small > unit.v  # PRESET (the SM's shape)
//! cargo run --release -p warpforge-hdl --example unit_verilog simt-stack small > unit.v  # PRESET
//! cargo run --release -p warpforge-hdl --example unit_verilog word-mux 8 24 > unit.v  # GROUPS WORDS (32 bit)
//! cargo run --release -p warpforge-hdl --example unit_verilog coalescer small > unit.v  # PRESET|FILE (lanes, line_bytes)
//! cargo run --release -p warpforge-hdl --example unit_verilog crossbar small > unit.v  # PRESET|FILE (sms, partitions, line_bytes)
//! cargo run --release -p warpforge-hdl --example unit_verilog memory-partition small > unit.v  # PRESET|FILE (sms, line_bytes)
//! yosys -p "read_verilog unit.v; synth_ecp5 -top top -abc9; stat"   # -nowidelut: the flow's mapping
//! ```
use std::process::ExitCode;

use warpforge_config::GpuConfig;
use warpforge_hdl::alu::Alu;
use warpforge_hdl::divider::{Divider, MAX_DIV_LATENCY, MIN_DIV_LATENCY};
use warpforge_hdl::multiplier::Multiplier;
use warpforge_hdl::operand_collector::{OperandCollector, SM_SHAPE};
use warpforge_hdl::tag_table::tag_table_verilog;
use warpforge_hdl::verilog_of;

const USAGE: &str = "usage: unit_verilog alu LANES (1 to 32) | unit_verilog multiplier LANES (1 to 32) [LATENCY (1 to 16)] | unit_verilog divider LANES (1 to 32) [LATENCY (34 to 1057)] | unit_verilog tag-table TAGS (1 to 255) WARPS (1 to 64) | unit_verilog operand-collector PRESET|FILE | unit_verilog simt-stack PRESET|FILE | unit_verilog word-mux GROUPS (1 to 64) WORDS (1 to 256) | unit_verilog coalescer PRESET|FILE | unit_verilog crossbar PRESET|FILE | unit_verilog memory-partition PRESET|FILE";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, range: std::ops::RangeInclusive<usize>| {
        args.get(i)
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|n| range.contains(n))
    };
    let verilog = match args.first().map(String::as_str) {
        Some("alu") => num(1, 1..=32).map(|lanes| verilog_of("alu", &mut Alu::with(lanes, 1))),
        Some("multiplier") => num(1, 1..=32).map(|lanes| {
            let latency = num(2, 1..=16).unwrap_or(3);
            verilog_of("multiplier", &mut Multiplier::with(lanes, latency))
        }),
        Some("divider") => num(1, 1..=32).map(|lanes| {
            let range = MIN_DIV_LATENCY as usize..=MAX_DIV_LATENCY as usize;
            let latency = num(2, range).unwrap_or(MIN_DIV_LATENCY as usize);
            verilog_of("divider", &mut Divider::with(lanes, latency))
        }),
        Some("tag-table") => match (num(1, 1..=255), num(2, 1..=64)) {
            // pcs of a 16 KiB instruction memory (the presets').
            (Some(tags), Some(warps)) => Some(tag_table_verilog::<8>(tags, warps, 0x3ffc, "top")),
            _ => None,
        },
        Some("word-mux") => match (num(1, 1..=64), num(2, 1..=256)) {
            (Some(n), Some(k)) => Some(verilog_of(
                "word mux",
                &mut warpforge_hdl::word_mux::WordMux::<32, 6>::new(n, k, 1),
            )),
            _ => None,
        },
        Some("simt-stack") => match args.get(1).map(|c| GpuConfig::load(c)) {
            Some(Ok(cfg)) => Some(warpforge_hdl::simt_stack::simt_stack_verilog(&cfg, "top")),
            Some(Err(e)) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
            None => None,
        },
        Some("coalescer") => match args.get(1).map(|c| GpuConfig::load(c)) {
            Some(Ok(cfg)) => Some(warpforge_hdl::coalescer::coalescer_verilog(&cfg, "top")),
            Some(Err(e)) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
            None => None,
        },
        Some("crossbar") => match args.get(1).map(|c| GpuConfig::load(c)) {
            Some(Ok(cfg)) => Some(warpforge_hdl::crossbar::crossbar_verilog(&cfg, "top")),
            Some(Err(e)) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
            None => None,
        },
        Some("memory-partition") => match args.get(1).map(|c| GpuConfig::load(c)) {
            Some(Ok(cfg)) => Some(warpforge_hdl::memory_partition::memory_partition_verilog(
                &cfg, "top",
            )),
            Some(Err(e)) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
            None => None,
        },
        Some("operand-collector") => match args.get(1).map(|c| GpuConfig::load(c)) {
            Some(Ok(cfg)) => Some(verilog_of(
                "operand collector",
                &mut OperandCollector::with_shape(&cfg, SM_SHAPE),
            )),
            Some(Err(e)) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
            None => None,
        },
        _ => None,
    };
    match verilog {
        None => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
        Some(Ok(v)) => {
            print!("{v}");
            ExitCode::SUCCESS
        }
        Some(Err(e)) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
