#!/usr/bin/env bash
# Every test: install what is missing, build every test binary of the workspace, then run them
# two at a time. Arguments select what to build and run instead of the whole workspace
# (`cargo test --no-run` arguments, e.g. -p warpforge-sim).
# Every test binary runs even after a failure, so one failure does not hide others; each
# binary's output is printed whole when it ends. Ends with one summary line, "N passed,
# N failed", added up over every test binary.
#
# Why not `cargo test`: it runs the test binaries one after another, and several spend minutes
# in one single-threaded tool (yosys in the sweep, mutation and lint tests) while the second
# core idles. WARPFORGE_TEST_JOBS sets how many binaries run at once (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --verilator --yosys --nextpnr

jobs=${WARPFORGE_TEST_JOBS:-2}
case "$jobs" in
'' | *[!0-9]* | 0)
    echo "WARPFORGE_TEST_JOBS=$jobs: expected a positive number of test binaries to run at once" >&2
    exit 2
    ;;
esac

# The whole workspace, or what the arguments select (`cargo test --workspace -p X` would
# still test the whole workspace).
if [ $# -eq 0 ]; then
    set -- --workspace
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. Build: cargo's JSON messages name each test binary and its package (the directory cargo
# test would run it in).
cargo test --locked --no-run --message-format=json-render-diagnostics "$@" \
    >"$work/build.json"
grep '"profile":{[^}]*"test":true' "$work/build.json" |
    sed -n 's/.*"manifest_path":"\([^"]*\)\/Cargo.toml".*"executable":"\([^"]*\)".*/\1 \2/p' \
        >"$work/binaries"
# The longest binaries first (measured in a clean clone's CI run, README "Tests"): started
# last, one of them would run alone on one core at the end while the other core idles.
long_first="sweep mutate unit_operand_collector unit_load_store_unit cli cosim_kernels"
awk -v order="$long_first" '
    BEGIN { n = split(order, names, " "); for (i = 1; i <= n; i++) rank[names[i]] = i }
    { exe = $2; sub(/.*\//, "", exe); sub(/-[0-9a-f]+$/, "", exe)
      printf "%d %s\n", (exe in rank) ? rank[exe] : n + 1, $0 }' "$work/binaries" |
    sort -n -s -k1,1 | cut -d' ' -f2- >"$work/ordered"
mv "$work/ordered" "$work/binaries"
count=$(wc -l <"$work/binaries")
if [ "$count" -eq 0 ]; then
    echo "no test binary was built" >&2
    exit 1
fi
echo "running $count test binaries, $jobs at a time"

# 2. Run: each in its package's directory, as cargo test does; its output in its own log,
# printed when it ends (under a lock so two logs never interleave).
run_one() {
    local n=$1 dir=$2 exe=$3 work=$4
    local log="$work/log.$n" status=0
    (cd "$dir" && "$exe") >"$log" 2>&1 || status=$?
    echo "$status" >"$work/status.$n"
    {
        flock 9
        echo "     Running $(basename "$exe") (in $dir)"
        cat "$log"
    } 9>"$work/print.lock"
}
export -f run_one
nl -ba -w1 -s' ' "$work/binaries" |
    xargs -P "$jobs" -L 1 bash -c 'run_one "$0" "$1" "$2" "'"$work"'"'

# 3. Doc tests (cargo runs them itself).
status=0
cargo test --locked --doc "$@" >"$work/log.doc" 2>&1 || status=$?
cat "$work/log.doc"

for f in "$work"/status.*; do
    [ "$(cat "$f")" = 0 ] || status=1
done
ran=$(ls "$work"/status.* | wc -l)
if [ "$ran" -ne "$count" ]; then
    echo "only $ran of $count test binaries ran to the end" >&2
    status=1
fi
cat "$work"/log.* |
    awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
         END { printf "%d passed, %d failed\n", p, f }'
exit "$status"
