# p4/host: the SR-MPLS label push in software (the P4 system's "without offload" baseline): the
# edit library, the forwarder mpls_push, the bench's traffic source/sink mpls_bench, the unit test
# and the fuzz target (scripts/host.mk includes this; $(B) is build/host/).
P4H     := $(ROOT)/p4/host
P4H_HDR := $(P4H)/mpls_edit.h
P4H_CF  := -I$(P4H)

ALL     += $(B)/mpls_push $(B)/mpls_bench $(B)/test_mpls_edit
TESTS   += test-mpls
FUZZ    += fuzz-mpls-fallback
FUZZ_LF += fuzz-mpls-libfuzzer
.PHONY: test-mpls fuzz-mpls-fallback fuzz-mpls-libfuzzer

$(B)/mpls_edit.o: $(P4H)/mpls_edit.c $(P4H_HDR) | $(B)
	$(CC) $(CFLAGS) $(P4H_CF) -fPIC -c $< -o $@

$(B)/mpls_push: $(P4H)/mpls_push.c $(B)/mpls_edit.o $(P4H_HDR) | $(B)
	$(CC) $(CFLAGS) $(P4H_CF) $(P4H)/mpls_push.c $(B)/mpls_edit.o -o $@

$(B)/mpls_bench: $(P4H)/mpls_bench.c $(B)/mpls_edit.o $(P4H_HDR) | $(B)
	$(CC) $(CFLAGS) $(P4H_CF) $(P4H)/mpls_bench.c $(B)/mpls_edit.o -o $@

$(B)/test_mpls_edit: $(P4H)/test_mpls_edit.c $(P4H)/mpls_edit.c $(P4H_HDR) | $(B)
	$(CC) $(CFLAGS) $(P4H_CF) $(P4H)/test_mpls_edit.c $(P4H)/mpls_edit.c -o $@

$(B)/test_mpls_edit_san: $(P4H)/test_mpls_edit.c $(P4H)/mpls_edit.c $(P4H_HDR) | $(B)
	$(CC) $(CFLAGS) $(P4H_CF) $(SAN) $(P4H)/test_mpls_edit.c $(P4H)/mpls_edit.c -o $@

$(B)/fuzz_mpls_edit_san: $(P4H)/fuzz_mpls_edit.c $(P4H)/mpls_edit.c $(P4H_HDR) | $(B)
	$(CC) $(CFLAGS) $(P4H_CF) $(SAN) -DFUZZ_STANDALONE $(P4H)/fuzz_mpls_edit.c $(P4H)/mpls_edit.c -o $@

$(B)/fuzz_mpls_edit_libfuzzer: $(P4H)/fuzz_mpls_edit.c $(P4H)/mpls_edit.c $(P4H_HDR) | $(B)
	$(CLANG) $(CFLAGS) $(P4H_CF) $(SAN) -fsanitize=fuzzer $(P4H)/fuzz_mpls_edit.c $(P4H)/mpls_edit.c -o $@

test-mpls: $(B)/test_mpls_edit_san
	$(B)/test_mpls_edit_san

fuzz-mpls-fallback: $(B)/fuzz_mpls_edit_san
	$(B)/fuzz_mpls_edit_san --millions $(FUZZ_MILLIONS)

fuzz-mpls-libfuzzer: $(B)/fuzz_mpls_edit_libfuzzer $(B)/fuzz_mpls_edit_san
	rm -rf $(B)/fuzz_mpls_corpus && mkdir -p $(B)/fuzz_mpls_corpus
	$(B)/fuzz_mpls_edit_san --write-corpus $(B)/fuzz_mpls_corpus
	$(B)/fuzz_mpls_edit_libfuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=9100 \
	    -print_final_stats=1 -artifact_prefix=$(B)/mpls- $(B)/fuzz_mpls_corpus
