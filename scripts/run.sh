#!/usr/bin/env bash
# The main job on the default configuration: install what is missing, build warpforge, and run
# every shipped kernel's reference cases on the golden model (`warpforge suite`).
# Extra arguments go to `warpforge suite` (e.g. --config tiny, --json results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo run --release --locked -p warpforge -- suite "$@"
