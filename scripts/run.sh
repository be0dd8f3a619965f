#!/usr/bin/env bash
# The main job on the default configuration: install what is missing (the RISC-V compiler and
# Verilator), build warpforge, then `warpforge verify`: generate the Verilog of `small` into
# build/rtl/small, build it under Verilator, and run every shipped kernel's reference cases in
# lock-step with the golden model under zero, long and random memory. Every step is cached
# (Verilog, Verilated model, kernels), so a second run only simulates.
# Extra arguments go to `warpforge verify` (e.g. --config tiny, --quick, --json results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --verilator
cargo run --release --locked -p warpforge -- verify "$@"
