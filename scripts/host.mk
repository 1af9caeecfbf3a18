# Host C software of every system, found by discovery: each <system>/host/host.mk adds its
# programs to ALL, its sanitizer test runs to TESTS and its fuzz runs to FUZZ (and to FUZZ_LF when
# they need libFuzzer). Outputs go to build/host/. Run through `make host`, `make host-test`,
# `make host-fuzz` at the top, or `make -f scripts/host.mk TARGET`:
#   all        build every system's host programs and libraries
#   test       unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   fuzz       every fuzz target: a deterministic random/mutating driver under ASan + UBSan, then
#              libFuzzer when clang and its runtime can link one (FUZZ_SECONDS=30 for libFuzzer,
#              FUZZ_MILLIONS=2 for the fallback driver)
#   clean
ROOT    := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
CC      ?= cc
CLANG   ?= $(shell command -v clang 2>/dev/null)
CFLAGS  ?= -O2
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE $(addprefix -I,$(wildcard $(ROOT)/*/host/include))
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -g
B       := $(ROOT)/build/host

FUZZ_SECONDS  ?= 30
FUZZ_MILLIONS ?= 2

# libFuzzer needs clang and its compiler-rt runtime (fuzzer, asan, ubsan; Debian ships it in
# libclang-rt-NN-dev, not in the clang package): LIBFUZZER is "yes" only when clang links a
# trivial fuzz target with the same sanitizers as ours.
LIBFUZZER := $(if $(CLANG),$(shell printf 'int LLVMFuzzerTestOneInput(const char *d, long n)\
{ (void)d; (void)n; return 0; }\n' | $(CLANG) -x c $(SAN) -fsanitize=fuzzer - \
-o /dev/null >/dev/null 2>&1 && echo yes))

ALL     :=
TESTS   :=
FUZZ    :=
FUZZ_LF :=

.PHONY: all test fuzz libfuzzer-check clean
all:

$(B):
	mkdir -p $(B)

include $(sort $(wildcard $(ROOT)/*/host/host.mk))

all: $(ALL)
test: $(TESTS)
# The fallback drivers always run (deterministic, need only cc); libFuzzer after them when usable.
fuzz: $(FUZZ) $(if $(LIBFUZZER),$(FUZZ_LF))

libfuzzer-check:
	@if [ "$(LIBFUZZER)" = yes ]; then echo "libFuzzer: usable ($(CLANG))"; \
	else echo "libFuzzer: not usable (clang: $(or $(CLANG),missing);" \
	     "its compiler-rt fuzzer/asan runtime may be missing)"; exit 1; fi

clean:
	rm -rf $(B)
