# gre/host: the C GRE parser library, the software forwarder and its bench tools (scripts/host.mk
# includes this; $(B) is build/host/).
GRE     := $(ROOT)/gre/host
GRE_HDR := $(GRE)/gre_parse.h $(GRE)/include/fastpath/fmt/gre_verdict.h \
           $(ROOT)/lib/host/include/fastpath/fp_time.h
GRE_CF  := -I$(GRE)

ALL     += $(B)/gre_fwd $(B)/gre_bench_sender $(B)/test_gre_parse $(B)/libgre_parse.so $(B)/bench_gre_parse
TESTS   += test-gre
FUZZ    += fuzz-gre-fallback
FUZZ_LF += fuzz-gre-libfuzzer
.PHONY: test-gre fuzz-gre-fallback fuzz-gre-libfuzzer

$(B)/gre_parse.o: $(GRE)/gre_parse.c $(GRE_HDR) | $(B)
	$(CC) $(CFLAGS) $(GRE_CF) -fPIC -c $< -o $@

$(B)/libgre_parse.so: $(B)/gre_parse.o
	$(CC) $(CFLAGS) -shared $^ -o $@

$(B)/gre_fwd: $(GRE)/gre_fwd.c $(B)/gre_parse.o $(GRE_HDR) | $(B)
	$(CC) $(CFLAGS) $(GRE_CF) $(GRE)/gre_fwd.c $(B)/gre_parse.o -o $@

$(B)/gre_bench_sender: $(GRE)/gre_bench_sender.c $(B)/gre_parse.o $(GRE_HDR) | $(B)
	$(CC) $(CFLAGS) $(GRE_CF) $(GRE)/gre_bench_sender.c $(B)/gre_parse.o -o $@

$(B)/bench_gre_parse: $(GRE)/bench_gre_parse.c $(B)/gre_parse.o $(GRE_HDR) | $(B)
	$(CC) $(CFLAGS) $(GRE_CF) $(GRE)/bench_gre_parse.c $(B)/gre_parse.o -o $@

$(B)/test_gre_parse: $(GRE)/test_gre_parse.c $(GRE)/gre_parse.c $(GRE_HDR) | $(B)
	$(CC) $(CFLAGS) $(GRE_CF) $(GRE)/test_gre_parse.c $(GRE)/gre_parse.c -o $@

$(B)/test_gre_parse_san: $(GRE)/test_gre_parse.c $(GRE)/gre_parse.c $(GRE_HDR) | $(B)
	$(CC) $(CFLAGS) $(GRE_CF) $(SAN) $(GRE)/test_gre_parse.c $(GRE)/gre_parse.c -o $@

$(B)/fuzz_gre_parse_san: $(GRE)/fuzz_gre_parse.c $(GRE)/gre_parse.c $(GRE_HDR) | $(B)
	$(CC) $(CFLAGS) $(GRE_CF) $(SAN) -DFUZZ_STANDALONE $(GRE)/fuzz_gre_parse.c $(GRE)/gre_parse.c -o $@

$(B)/fuzz_gre_parse_libfuzzer: $(GRE)/fuzz_gre_parse.c $(GRE)/gre_parse.c $(GRE_HDR) | $(B)
	$(CLANG) $(CFLAGS) $(GRE_CF) $(SAN) -fsanitize=fuzzer $(GRE)/fuzz_gre_parse.c $(GRE)/gre_parse.c -o $@

test-gre: $(B)/test_gre_parse_san
	$(B)/test_gre_parse_san

fuzz-gre-fallback: $(B)/fuzz_gre_parse_san
	$(B)/fuzz_gre_parse_san --millions $(FUZZ_MILLIONS)

fuzz-gre-libfuzzer: $(B)/fuzz_gre_parse_libfuzzer $(B)/fuzz_gre_parse_san
	rm -rf $(B)/fuzz_corpus && mkdir -p $(B)/fuzz_corpus
	$(B)/fuzz_gre_parse_san --write-corpus $(B)/fuzz_corpus
	$(B)/fuzz_gre_parse_libfuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=1600 \
	    -print_final_stats=1 -artifact_prefix=$(B)/ $(B)/fuzz_corpus
