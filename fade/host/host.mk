# fade/host: libfade (the FADE-10G host receiver) and its tools fade-recv, fade-emu, fade-tcp
# (scripts/host.mk includes this; $(B) is build/host/).
FADE     := $(ROOT)/fade/host
FADE_HDR := $(FADE)/fade_core.h $(FADE)/fade_verify.h $(FADE)/include/fastpath/fade.h \
            $(FADE)/include/fastpath/fmt/fade.h
# libfade, by concern (fade_lib.h, its private header, lists them): the context, its sockets,
# the receive path, ACKs, the receive thread / poll mode, commands, reading, counters
FADE_SRC := fade fade_socket fade_rxpath fade_ack fade_poll fade_cmd fade_read fade_stats
FADE_LIB := $(FADE_SRC:%=$(FADE)/%.c) $(FADE)/fade_core.c
FADE_OBJ := $(FADE_SRC:%=$(B)/%.o) $(B)/fade_core.o
FADE_CF  := -I$(FADE)

ALL     += $(B)/libfade.so $(B)/fade-recv $(B)/fade-emu $(B)/fade-tcp $(B)/test_fade
TESTS   += test-fade
FUZZ    += fuzz-fade-fallback
FUZZ_LF += fuzz-fade-libfuzzer
.PHONY: test-fade fuzz-fade-fallback fuzz-fade-libfuzzer

$(B)/fade_core.o: $(FADE)/fade_core.c $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) -fPIC -c $< -o $@

$(FADE_SRC:%=$(B)/%.o): $(B)/%.o: $(FADE)/%.c $(FADE)/fade_lib.h $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) -fPIC -pthread -c $< -o $@

$(B)/libfade.so: $(FADE_OBJ)
	$(CC) $(CFLAGS) -shared -pthread $^ -o $@

$(B)/fade-recv: $(FADE)/fade_recv.c $(FADE_OBJ) $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) -pthread $(FADE)/fade_recv.c $(FADE_OBJ) -o $@

$(B)/fade-emu: $(FADE)/fade_emu.c $(FADE_OBJ) $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) -pthread $(FADE)/fade_emu.c $(FADE_OBJ) -o $@

$(B)/fade-tcp: $(FADE)/fade_tcp.c $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) $(FADE)/fade_tcp.c -o $@

$(B)/test_fade: $(FADE)/test_fade.c $(FADE_LIB) $(FADE)/fade_lib.h $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) -pthread $(FADE)/test_fade.c $(FADE_LIB) -o $@

$(B)/test_fade_san: $(FADE)/test_fade.c $(FADE_LIB) $(FADE)/fade_lib.h $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) $(SAN) -pthread $(FADE)/test_fade.c $(FADE_LIB) -o $@

$(B)/fuzz_fade_san: $(FADE)/fuzz_fade.c $(FADE)/fade_core.c $(FADE_HDR) | $(B)
	$(CC) $(CFLAGS) $(FADE_CF) $(SAN) -DFUZZ_STANDALONE $(FADE)/fuzz_fade.c $(FADE)/fade_core.c -o $@

$(B)/fuzz_fade_libfuzzer: $(FADE)/fuzz_fade.c $(FADE)/fade_core.c $(FADE_HDR) | $(B)
	$(CLANG) $(CFLAGS) $(FADE_CF) $(SAN) -fsanitize=fuzzer $(FADE)/fuzz_fade.c $(FADE)/fade_core.c -o $@

test-fade: $(B)/test_fade_san
	$(B)/test_fade_san

fuzz-fade-fallback: $(B)/fuzz_fade_san
	$(B)/fuzz_fade_san --millions $(FUZZ_MILLIONS)

fuzz-fade-libfuzzer: $(B)/fuzz_fade_libfuzzer $(B)/fuzz_fade_san
	rm -rf $(B)/fuzz_fade_corpus && mkdir -p $(B)/fuzz_fade_corpus
	$(B)/fuzz_fade_san --write-corpus $(B)/fuzz_fade_corpus
	$(B)/fuzz_fade_libfuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=9000 \
	    -print_final_stats=1 -artifact_prefix=$(B)/fade- $(B)/fuzz_fade_corpus
