#!/usr/bin/env bash
# Install the host tools warpforge needs, via apt. Idempotent: a tool already on PATH is not
# installed again, and apt is not touched at all when nothing is missing.
#
#   scripts/setup.sh                       # the RISC-V kernel compiler (always)
#   scripts/setup.sh --verilator --yosys   # ... plus the RTL tools
#   scripts/setup.sh --all                 # every tool below
#
# To add a tool: add one line to TOOLS below (flag, command to look for, apt package).
set -euo pipefail

# flag            command probed with `command -v`   Debian package
TOOLS=(
  "--riscv        riscv64-unknown-elf-gcc            gcc-riscv64-unknown-elf"
  "--verilator    verilator                          verilator"
  "--yosys        yosys                              yosys"
)
# Tools installed even without a flag.
DEFAULT_FLAGS=(--riscv)

usage() {
  echo "usage: $0 [--all] [flag...]"
  echo "flags:"
  local entry flag cmd pkg
  for entry in "${TOOLS[@]}"; do
    read -r flag cmd pkg <<<"$entry"
    echo "  $flag    installs $pkg (provides $cmd)"
  done
  echo "The RISC-V compiler (--riscv) is always installed."
}

wanted=("${DEFAULT_FLAGS[@]}")
for arg in "$@"; do
  case "$arg" in
    -h | --help)
      usage
      exit 0
      ;;
    --all)
      for entry in "${TOOLS[@]}"; do
        read -r flag _ _ <<<"$entry"
        wanted+=("$flag")
      done
      ;;
    *)
      found=0
      for entry in "${TOOLS[@]}"; do
        read -r flag _ _ <<<"$entry"
        if [[ "$flag" == "$arg" ]]; then
          found=1
        fi
      done
      if [[ $found -eq 0 ]]; then
        echo "setup.sh: unknown option '$arg'" >&2
        usage >&2
        exit 2
      fi
      wanted+=("$arg")
      ;;
  esac
done

# Packages whose command is missing (each package at most once).
missing=()
for entry in "${TOOLS[@]}"; do
  read -r flag cmd pkg <<<"$entry"
  want=0
  for w in "${wanted[@]}"; do
    if [[ "$w" == "$flag" ]]; then
      want=1
    fi
  done
  [[ $want -eq 1 ]] || continue
  if command -v "$cmd" >/dev/null 2>&1; then
    echo "setup.sh: $cmd already installed ($(command -v "$cmd"))"
  else
    dup=0
    for m in "${missing[@]+"${missing[@]}"}"; do
      if [[ "$m" == "$pkg" ]]; then
        dup=1
      fi
    done
    [[ $dup -eq 1 ]] || missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup.sh: nothing to install"
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "setup.sh: not root and sudo is not available; install as root: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup.sh: installing ${missing[*]}"
"${SUDO[@]+"${SUDO[@]}"}" apt-get update
"${SUDO[@]+"${SUDO[@]}"}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"

# Check that what was asked for is now there.
status=0
for entry in "${TOOLS[@]}"; do
  read -r flag cmd pkg <<<"$entry"
  for m in "${missing[@]}"; do
    if [[ "$m" == "$pkg" ]] && ! command -v "$cmd" >/dev/null 2>&1; then
      echo "setup.sh: $pkg installed but $cmd is still not on PATH" >&2
      status=1
    fi
  done
done
exit $status
