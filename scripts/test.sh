#!/usr/bin/env bash
# Every test: install what is missing, then run the whole workspace's tests.
# Extra arguments go to `cargo test` (e.g. -p warpforge-sim).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --locked "$@"
