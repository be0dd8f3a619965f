#!/usr/bin/env bash
# Every test: install what is missing, then run the whole workspace's tests.
# Extra arguments go to `cargo test` (e.g. -p warpforge-sim). Every test binary runs even after a
# failure (--no-fail-fast), so one failure does not hide others. Ends with one summary line,
# "N passed, N failed", added up over every test binary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --verilator --yosys --nextpnr
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --workspace --locked --no-fail-fast "$@" 2>&1 | tee "$log" || status=$?
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
exit "$status"
