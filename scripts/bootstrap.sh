#!/usr/bin/env bash
# Idempotent toolchain bootstrap for fastpath.
#
# Creates .venv with the pinned Python toolchain (requirements.txt) and the fastpath package
# (editable), and installs the Debian packages the simulators and network tests need when they are
# missing. A second run with unchanged requirements does nothing but check. Called by `make test`
# and `make bench`; safe to run by hand.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.fastpath-bootstrap"
PYTHON="${PYTHON:-python3}"

say() { printf 'bootstrap: %s\n' "$*" >&2; }

# ---- Debian packages -------------------------------------------------------------------------
# command -> package. Simulation needs iverilog only for SIM=icarus; clang for libFuzzer targets
# (host/, a plain fuzz driver runs without it); ccache to share Verilator's runtime objects between
# simulator builds (optional: builds only take longer without it); the network tools are needed
# only by tests that also need root and namespaces (those skip cleanly without them).
declare -A DEB=( [iverilog]=iverilog [tcpdump]=tcpdump [tshark]=tshark [ip]=iproute2
                 [nft]=nftables [iptables]=iptables [clang]=clang [ccache]=ccache )
missing=()
for cmd in "${!DEB[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || missing+=("${DEB[$cmd]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; fi
  fi
  if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
      $SUDO apt-get update -q >/dev/null 2>&1 || true
      $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
        || say "WARNING: apt-get could not install: ${missing[*]}"
    fi
  else
    say "WARNING: missing Debian packages: ${missing[*]}"
    say "         install them with: sudo apt-get install ${missing[*]}"
    say "         (Icarus runs and network tests are skipped without them)"
  fi
fi

# clang alone cannot link libFuzzer targets: the compiler-rt runtime is a separate package
# (Debian: libclang-rt-NN-dev, only a Recommends of clang). Install it when the probe fails.
if command -v clang >/dev/null 2>&1; then
  fuzz_probe() {
    printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; (void)n; return 0; }\n' \
      | clang -x c -fsanitize=fuzzer,address,undefined - -o /dev/null >/dev/null 2>&1
  }
  if ! fuzz_probe; then
    rt="libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      SUDO="sudo -n"
    fi
    if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
      say "installing $rt (libFuzzer runtime for clang)"
      export DEBIAN_FRONTEND=noninteractive
      $SUDO apt-get install -y -q --no-install-recommends "$rt" >/dev/null 2>&1 \
        || { $SUDO apt-get update -q >/dev/null 2>&1 || true
             $SUDO apt-get install -y -q --no-install-recommends "$rt" >/dev/null 2>&1; } \
        || true
    fi
    fuzz_probe || say "WARNING: clang cannot link libFuzzer ($rt missing): libFuzzer tests skip"
  fi
fi

# ---- Python virtual environment ----------------------------------------------------------------
want="$(cat "$ROOT/requirements.txt" "$ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/python" ]; then
  exit 0
fi
if ! "$PYTHON" -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null; then
  say "ERROR: need Python >= 3.9 as '$PYTHON' (set PYTHON=...)"; exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV"
  "$PYTHON" -m venv "$VENV" || {
    say "ERROR: '$PYTHON -m venv' failed; on Debian: apt-get install python3-venv"; exit 1; }
fi
say "installing pinned Python toolchain (requirements.txt)"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements.txt"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e "$ROOT"
echo "$want" > "$STAMP"
say "done"
