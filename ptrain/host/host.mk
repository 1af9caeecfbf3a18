# ptrain/host: the packet-train tester's software baseline over AF_PACKET: ptrain-send,
# ptrain-recv, the frame library they share (ptrain_parse.c, ptrain_build.c), its unit test and
# fuzz targets (scripts/host.mk includes this; $(B) is build/host/). `ptrain-host` builds the
# programs alone.
PTRAIN     := $(ROOT)/ptrain/host
PTRAIN_HDR := $(PTRAIN)/ptrain_frame.h $(PTRAIN)/include/fastpath/fmt/ptrain.h
PTRAIN_LIB := $(PTRAIN)/ptrain_parse.c $(PTRAIN)/ptrain_build.c
PTRAIN_CF  := -I$(PTRAIN)

ALL     += $(B)/ptrain-send $(B)/ptrain-recv $(B)/test_ptrain_parse
TESTS   += test-ptrain
FUZZ    += fuzz-ptrain-fallback
FUZZ_LF += fuzz-ptrain-libfuzzer
.PHONY: ptrain-host test-ptrain fuzz-ptrain-fallback fuzz-ptrain-libfuzzer

ptrain-host: $(B)/ptrain-send $(B)/ptrain-recv

$(B)/ptrain-send: $(PTRAIN)/ptrain_send.c $(PTRAIN_LIB) $(PTRAIN_HDR) | $(B)
	$(CC) $(CFLAGS) $(PTRAIN_CF) $(PTRAIN)/ptrain_send.c $(PTRAIN_LIB) -o $@

$(B)/ptrain-recv: $(PTRAIN)/ptrain_recv.c $(PTRAIN_LIB) $(PTRAIN_HDR) | $(B)
	$(CC) $(CFLAGS) $(PTRAIN_CF) $(PTRAIN)/ptrain_recv.c $(PTRAIN_LIB) -o $@

$(B)/test_ptrain_parse: $(PTRAIN)/test_ptrain_parse.c $(PTRAIN_LIB) $(PTRAIN_HDR) | $(B)
	$(CC) $(CFLAGS) $(PTRAIN_CF) $(PTRAIN)/test_ptrain_parse.c $(PTRAIN_LIB) -o $@

$(B)/test_ptrain_parse_san: $(PTRAIN)/test_ptrain_parse.c $(PTRAIN_LIB) $(PTRAIN_HDR) | $(B)
	$(CC) $(CFLAGS) $(PTRAIN_CF) $(SAN) $(PTRAIN)/test_ptrain_parse.c $(PTRAIN_LIB) -o $@

$(B)/fuzz_ptrain_parse_san: $(PTRAIN)/fuzz_ptrain_parse.c $(PTRAIN_LIB) $(PTRAIN_HDR) | $(B)
	$(CC) $(CFLAGS) $(PTRAIN_CF) $(SAN) -DFUZZ_STANDALONE $(PTRAIN)/fuzz_ptrain_parse.c $(PTRAIN_LIB) -o $@

$(B)/fuzz_ptrain_parse_libfuzzer: $(PTRAIN)/fuzz_ptrain_parse.c $(PTRAIN_LIB) $(PTRAIN_HDR) | $(B)
	$(CLANG) $(CFLAGS) $(PTRAIN_CF) $(SAN) -fsanitize=fuzzer $(PTRAIN)/fuzz_ptrain_parse.c $(PTRAIN_LIB) -o $@

# PTRAIN_VECTORS=FILE adds the vectors written by ptrain/tests/test_ptrain_baseline.py
test-ptrain: $(B)/test_ptrain_parse_san
	$(B)/test_ptrain_parse_san $(if $(PTRAIN_VECTORS),--vectors $(PTRAIN_VECTORS))

fuzz-ptrain-fallback: $(B)/fuzz_ptrain_parse_san
	$(B)/fuzz_ptrain_parse_san --millions $(FUZZ_MILLIONS)

fuzz-ptrain-libfuzzer: $(B)/fuzz_ptrain_parse_libfuzzer $(B)/fuzz_ptrain_parse_san
	rm -rf $(B)/fuzz_ptrain_corpus && mkdir -p $(B)/fuzz_ptrain_corpus
	$(B)/fuzz_ptrain_parse_san --write-corpus $(B)/fuzz_ptrain_corpus
	$(B)/fuzz_ptrain_parse_libfuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=2100 \
	    -print_final_stats=1 -artifact_prefix=$(B)/ptrain- $(B)/fuzz_ptrain_corpus
