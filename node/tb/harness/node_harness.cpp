// node_harness: a fast Verilator driver for fp_node, or fp_node_w, at its GMII pins.
//
// Built for fp_node (two clocks: clk, the datapath; port_clk, 125 MHz, the ports) or, with
// -DNODE_W and Verilator's --prefix Vfp_node, for the word-serial fp_node_w (one clock: clk is the
// 125 MHz port clock; no port_clk / port_rst inputs): clk_ps must then be 8000 and every "port_clk"
// below is clk. Everything else (the GMII pins, the RX clocks, the host ports, AXI4-Lite, the SFD
// measurement) is the same for both.
//
// Python (node/harness.py) writes a script, this program plays it and writes what
// came out; Python compares. Everything is exact simulated time (ps); nothing depends on the
// host's speed.
//
// Script (text, one command per line, '#' comments):
//   clk_ps P            datapath clock period (default 5000: 200 MHz); port clock is 8000 (125 MHz);
//                       fp_node_w (NODE_W): 8000, anything else is refused
//   rxclk PORT P PH     PORT's RX clock (gmii_rx_clk) runs on its own: period P ps, first rising
//                       edge at PH ps (0 < PH); without it the port's RX clock is port_clk itself
//   end_ps T            stop at this time at the latest
//   drain_ps D          stop once every frame is sent and no pin has moved for D (default 20 us)
//   w ADDR DATA         AXI4-Lite write (hex), played in order after reset, before any frame
//   f PORT T FLAGS HEX  frame on PORT's RX pins (bytes without preamble and FCS): preamble, SFD,
//                       the bytes, the FCS; it starts at the first RX clock edge >= T ps that
//                       respects a 12-byte gap after the port's previous frame. FLAGS bit 0: a
//                       wrong FCS; bit 1: gmii_rx_er in the middle of the frame.
//   r ADDR              AXI4-Lite read at the end (after draining)
//   W T ADDR DATA       AXI4-Lite write at time T ps at the earliest (after the initial writes;
//                       timed operations are played in script order)
//   R T ADDR            AXI4-Lite read at time T ps at the earliest (output: trd)
//
// Output (text):
//   rx PORT IDX SFD_PS         frame IDX (0-based, per port, script order) sampled its SFD at SFD_PS
//   tx PORT SFD_PS OK ER HEX   a frame on PORT's TX pins: SFD sampled at SFD_PS, OK = its FCS is
//                              right, ER = tx_er was seen, HEX = the bytes between SFD and FCS
//   host DP HEX                a frame from the host port of datapath DP (m_host_axis)
//   rd ADDR DATA               register reads
//   trd ADDR DATA T_PS         a timed read (R) and when its data came back
//   end T_PS CYCLES            when it stopped, datapath cycles simulated
//
// "Sampled" is the rising clock edge (the port's RX clock; port_clk on the TX pins) at which the
// receiving side (the node's RX MAC, or a PHY on the TX pins) takes the byte in: RX and TX times are measured the same way, so TX - RX
// is the latency at the pins (RFC 1242 for cut-through: first bit in to first bit out, at SFD).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "Vfp_node.h"
#include "verilated.h"

#ifndef NODE_PORTS
#error "build with -DNODE_PORTS=<PORTS>"
#endif
#ifndef NODE_DATAPATHS
#define NODE_DATAPATHS 2
#endif

static const int PORTS = NODE_PORTS;
static const int DPS = NODE_DATAPATHS;
static const uint64_t PORT_PS = 8000;
#ifdef NODE_W
static const uint64_t DEFAULT_CLK_PS = PORT_PS;  // one clock: the datapath is the port clock
#else
static const uint64_t DEFAULT_CLK_PS = 5000;
#endif

// ---- bit access for Verilator's port types (integral up to 64 bits, VlWide above) ----------
template <class T> static inline uint32_t get_bits(const T& s, int lsb, int w) {
    return (uint32_t)((uint64_t(s) >> lsb) & ((1ull << w) - 1));
}
template <std::size_t N> static inline uint32_t get_bits(const VlWide<N>& s, int lsb, int w) {
    uint32_t v = 0;
    for (int i = 0; i < w; i++) v |= ((s[(lsb + i) / 32] >> ((lsb + i) % 32)) & 1u) << i;
    return v;
}
template <class T> static inline void set_bits(T& s, int lsb, int w, uint64_t v) {
    uint64_t m = ((w >= 64) ? ~0ull : ((1ull << w) - 1)) << lsb;
    s = (T)((uint64_t(s) & ~m) | ((v << lsb) & m));
}
template <std::size_t N> static inline void set_bits(VlWide<N>& s, int lsb, int w, uint64_t v) {
    for (int i = 0; i < w; i++) {
        uint32_t& word = s[(lsb + i) / 32];
        uint32_t bit = 1u << ((lsb + i) % 32);
        word = ((v >> i) & 1) ? (word | bit) : (word & ~bit);
    }
}

static uint32_t crc32(const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

struct Frame {
    uint64_t t;
    unsigned flags;
    std::vector<uint8_t> bytes;
};

struct RxPort {  // what the harness sends into the node
    std::deque<Frame> q;
    std::vector<uint8_t> wire;  // preamble..FCS of the frame being sent
    size_t pos = 0;
    int gap = 0;                // idle bytes still owed after a frame
    bool er_at = false;
    size_t er_pos = 0;
    int idx = 0;
};

struct RxClock {  // a port's RX clock: by default port_clk's twin (same edges), or rxclk's
    bool hi = false;
    uint64_t per = PORT_PS, next = PORT_PS / 2;  // period, next toggle (ps); high for per / 2
};

struct TxPort {  // what comes out of the node
    bool in = false, sfd = false, er = false;
    uint64_t sfd_ps = 0;
    std::vector<uint8_t> bytes;
};

static std::vector<uint8_t> unhex(const char* s) {
    std::vector<uint8_t> v;
    for (; s[0] && s[1]; s += 2) {
        unsigned b;
        if (sscanf(s, "%2x", &b) != 1) break;
        v.push_back((uint8_t)b);
    }
    return v;
}

static void put_hex(FILE* f, const std::vector<uint8_t>& v) {
    static const char* H = "0123456789abcdef";
    for (uint8_t b : v) { fputc(H[b >> 4], f); fputc(H[b & 15], f); }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s SCRIPT OUTPUT\n", argv[0]);
        return 2;
    }
    FILE* in = fopen(argv[1], "r");
    FILE* out = fopen(argv[2], "w");
    if (!in || !out) { perror("open"); return 2; }

    uint64_t clk_ps = DEFAULT_CLK_PS, end_ps = ~0ull, drain_ps = 20000000ull;  // no time limit unless given
    std::vector<std::pair<uint32_t, uint32_t>> writes;
    std::vector<uint32_t> reads;
    struct Timed { uint64_t t; bool write; uint32_t addr, data; };
    std::vector<Timed> timed;
    std::vector<RxPort> rx(PORTS);
    std::vector<RxClock> rxc(PORTS);
    std::vector<TxPort> tx(PORTS);
    size_t frames_total = 0;
    {
        std::vector<char> line(1 << 16);
        while (fgets(line.data(), (int)line.size(), in)) {
            std::string l(line.data());
            while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
            if (l.empty() || l[0] == '#') continue;
            char cmd[16];
            if (sscanf(l.c_str(), "%15s", cmd) != 1) continue;
            std::string c(cmd);
            unsigned long long a = 0, b = 0;
            if (c == "clk_ps") sscanf(l.c_str(), "%*s %llu", &a), clk_ps = a;
            else if (c == "end_ps") sscanf(l.c_str(), "%*s %llu", &a), end_ps = a;
            else if (c == "drain_ps") sscanf(l.c_str(), "%*s %llu", &a), drain_ps = a;
            else if (c == "rxclk") {
                int port; unsigned long long per, ph;
                if (sscanf(l.c_str(), "%*s %d %llu %llu", &port, &per, &ph) != 3 || port < 0 || port >= PORTS ||
                    per < 2 || ph == 0) {
                    fprintf(stderr, "bad line: %s\n", l.c_str());
                    return 2;
                }
                rxc[port] = RxClock{false, per, ph};
            }
            else if (c == "w") sscanf(l.c_str(), "%*s %llx %llx", &a, &b), writes.push_back({(uint32_t)a, (uint32_t)b});
            else if (c == "r") sscanf(l.c_str(), "%*s %llx", &a), reads.push_back((uint32_t)a);
            else if (c == "W" || c == "R") {
                unsigned long long t = 0, d = 0;
                if (sscanf(l.c_str(), "%*s %llu %llx %llx", &t, &a, &d) < 2) {
                    fprintf(stderr, "bad line: %s\n", l.c_str());
                    return 2;
                }
                timed.push_back(Timed{t, c == "W", (uint32_t)a, (uint32_t)d});
            }
            else if (c == "f") {
                int port; unsigned long long t; unsigned flags; int n = 0;
                if (sscanf(l.c_str(), "%*s %d %llu %u %n", &port, &t, &flags, &n) < 3 || port < 0 || port >= PORTS) {
                    fprintf(stderr, "bad line: %s\n", l.c_str());
                    return 2;
                }
                rx[port].q.push_back(Frame{t, flags, unhex(l.c_str() + n)});
                frames_total++;
            } else {
                fprintf(stderr, "unknown command: %s\n", l.c_str());
                return 2;
            }
        }
    }
    fclose(in);
#ifdef NODE_W
    // fp_node_w has one clock: clk drives the datapath and every GMII TX, so it is the port
    // clock (its edges are port_clk's below: the same schedule, the same TX sampling)
    if (clk_ps != PORT_PS) {
        fprintf(stderr, "fp_node_w runs on one 125 MHz clock: clk_ps must be %llu, not %llu\n",
                (unsigned long long)PORT_PS, (unsigned long long)clk_ps);
        return 2;
    }
#endif
    if (clk_ps < 2) {
        fprintf(stderr, "clk_ps must be at least 2\n");
        return 2;
    }

    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vfp_node>(ctx.get());

    // The clocks' edges are scheduled explicitly (next toggle time of each).
    uint64_t now = 0;
    bool clk_hi = false, port_hi = false;
    uint64_t cycles = 0, last_activity = 0;
    top->clk = 0; top->rst = 1;
#ifndef NODE_W
    top->port_clk = 0; top->port_rst = 1;
#endif
    top->s_axil_awvalid = 0; top->s_axil_wvalid = 0; top->s_axil_bready = 1;
    top->s_axil_arvalid = 0; top->s_axil_rready = 1; top->s_axil_wstrb = 0xF;
    top->s_host_axis_tvalid = 0;
    set_bits(top->m_host_axis_tready, 0, DPS, (1u << DPS) - 1);
    top->eval();

    // AXI4-Lite: one transaction at a time, driven on the falling edge of clk.
    enum { AX_IDLE, AX_W, AX_B, AX_R, AX_RD } ax = AX_IDLE;
    size_t wi = 0, ri = 0, ti = 0;
    bool ax_timed = false;  // the transaction in progress is timed operation ti
    bool writes_done = writes.empty(), draining = false;
    uint32_t ax_addr = 0;
    std::vector<std::vector<uint8_t>> host_frame(DPS);

    // Explicit edge scheduler.
    uint64_t nclk = clk_ps / 2, nport = PORT_PS / 2;  // next toggle times
    std::vector<bool> do_rx(PORTS);
    while (true) {
        now = nclk < nport ? nclk : nport;
        for (int p = 0; p < PORTS; p++)
            if (rxc[p].next < now) now = rxc[p].next;
        ctx->time(now);
        bool do_clk = (now == nclk), do_port = (now == nport);
        for (int p = 0; p < PORTS; p++) do_rx[p] = rxc[p].next == now;
        // AXI4-Lite handshakes complete at this rising edge if valid and ready are both high
        // just before it (the inputs settled at the falling edge)
        bool aw_fire = false, w_fire = false, b_fire = false, ar_fire = false, r_fire = false;
        uint32_t rdata = 0;
        if (do_clk && !clk_hi) {
            aw_fire = top->s_axil_awvalid && top->s_axil_awready;
            w_fire = top->s_axil_wvalid && top->s_axil_wready;
            b_fire = top->s_axil_bvalid && top->s_axil_bready;
            ar_fire = top->s_axil_arvalid && top->s_axil_arready;
            r_fire = top->s_axil_rvalid && top->s_axil_rready;
            rdata = top->s_axil_rdata;
        }
        if (do_clk) { clk_hi = !clk_hi; top->clk = clk_hi; nclk += clk_ps / 2; }
        if (do_port) {
            port_hi = !port_hi;
#ifndef NODE_W
            top->port_clk = port_hi;
#endif
            nport += PORT_PS / 2;
        }
        for (int p = 0; p < PORTS; p++) {
            if (do_rx[p]) {
                rxc[p].hi = !rxc[p].hi;
                rxc[p].next += rxc[p].hi ? rxc[p].per / 2 : rxc[p].per - rxc[p].per / 2;
            }
            set_bits(top->gmii_rx_clk, p, 1, rxc[p].hi);
        }
        top->eval();

        if (do_clk && clk_hi) {
            cycles++;
            if (cycles == 16) { top->rst = 0; }
            // sample the host ports and the AXI4-Lite handshakes at the rising edge
            for (int d = 0; d < DPS; d++) {
                if (get_bits(top->m_host_axis_tvalid, d, 1)) {
                    uint32_t keep = get_bits(top->m_host_axis_tkeep, 8 * d, 8);
                    for (int i = 0; i < 8; i++)
                        if ((keep >> i) & 1) host_frame[d].push_back((uint8_t)get_bits(top->m_host_axis_tdata, 64 * d + 8 * i, 8));
                    if (get_bits(top->m_host_axis_tlast, d, 1)) {
                        fprintf(out, "host %d ", d);
                        put_hex(out, host_frame[d]);
                        fputc('\n', out);
                        host_frame[d].clear();
                    }
                }
            }
        }
        if (do_clk && !clk_hi && cycles > 16) {
            // AXI4-Lite master (falling edge: inputs settle before the next rising edge)
            switch (ax) {
            case AX_IDLE:
                if (!writes_done) {
                    if (wi == 0 && cycles < 64) break;  // let every reset synchronizer settle
                    ax_addr = writes[wi].first;
                    top->s_axil_awaddr = ax_addr; top->s_axil_wdata = writes[wi].second;
                    top->s_axil_awvalid = 1; top->s_axil_wvalid = 1;
                    ax = AX_W;
                } else if (ti < timed.size() && now >= timed[ti].t) {
                    ax_timed = true;
                    if (timed[ti].write) {
                        top->s_axil_awaddr = timed[ti].addr; top->s_axil_wdata = timed[ti].data;
                        top->s_axil_awvalid = 1; top->s_axil_wvalid = 1;
                        ax = AX_W;
                    } else {
                        top->s_axil_araddr = timed[ti].addr; top->s_axil_arvalid = 1;
                        ax = AX_R;
                    }
                } else if (draining && ri < reads.size()) {
                    top->s_axil_araddr = reads[ri]; top->s_axil_arvalid = 1;
                    ax = AX_R;
                }
                break;
            case AX_W:
                break;
            default:
                break;
            }
        }
        if (do_clk && clk_hi) {
            if (aw_fire) top->s_axil_awvalid = 0;
            if (w_fire) top->s_axil_wvalid = 0;
            if (ar_fire) top->s_axil_arvalid = 0;
            if (ax == AX_W && !top->s_axil_awvalid && !top->s_axil_wvalid) ax = AX_B;
            if (ax == AX_B && b_fire) {
                ax = AX_IDLE;
                if (ax_timed) { ax_timed = false; ti++; last_activity = now; }
                else if (++wi == writes.size()) writes_done = true;
            }
            if (ax == AX_R && !top->s_axil_arvalid) ax = AX_RD;
            if (ax == AX_RD && r_fire) {
                if (ax_timed) {
                    fprintf(out, "trd %x %x %llu\n", timed[ti].addr, (unsigned)rdata, (unsigned long long)now);
                    ax_timed = false; ti++; last_activity = now;
                } else {
                    fprintf(out, "rd %x %x\n", reads[ri], (unsigned)rdata);
                    ri++;
                }
                ax = AX_IDLE;
            }
        }
        if (do_port && port_hi) {
#ifndef NODE_W
            if (now > 16 * PORT_PS) top->port_rst = 0;
#endif
            // TX pins: sample what the node launched at the previous edge (a PHY's view)
            for (int p = 0; p < PORTS; p++) {
                TxPort& t = tx[p];
                bool en = get_bits(top->gmii_tx_en, p, 1);
                bool er = get_bits(top->gmii_tx_er, p, 1);
                uint8_t d = (uint8_t)get_bits(top->gmii_txd, 8 * p, 8);
                if (en) {
                    last_activity = now;
                    if (!t.in) { t.in = true; t.sfd = false; t.er = false; t.bytes.clear(); }
                    if (er) t.er = true;
                    if (!t.sfd) {
                        if (d == 0xD5) { t.sfd = true; t.sfd_ps = now + PORT_PS; }  // a PHY samples it at the next edge
                    } else {
                        t.bytes.push_back(d);
                    }
                } else if (t.in) {
                    t.in = false;
                    bool ok = false;
                    std::vector<uint8_t> body;
                    if (t.sfd && t.bytes.size() >= 4) {
                        body.assign(t.bytes.begin(), t.bytes.end() - 4);
                        uint32_t fcs = crc32(body.data(), body.size());
                        const uint8_t* f = &t.bytes[t.bytes.size() - 4];
                        ok = (f[0] | f[1] << 8 | f[2] << 16 | (uint32_t)f[3] << 24) == fcs;
                    }
                    fprintf(out, "tx %d %llu %d %d ", p, (unsigned long long)t.sfd_ps, ok ? 1 : 0, t.er ? 1 : 0);
                    put_hex(out, body);
                    fputc('\n', out);
                }
            }
        }
        {
            // RX pins: at the falling edge of the port's RX clock, set what the node samples at
            // the next rising edge (half a period later)
            for (int p = 0; p < PORTS; p++) {
                if (!do_rx[p] || rxc[p].hi) continue;
                const uint64_t half = rxc[p].per - rxc[p].per / 2;  // to the next rise
                RxPort& r = rx[p];
                uint8_t d = 0;
                bool dv = false, er = false;
                if (r.pos < r.wire.size()) {
                    d = r.wire[r.pos];
                    dv = true;
                    er = r.er_at && r.pos == r.er_pos;
                    if (r.pos == 7) fprintf(out, "rx %d %d %llu\n", p, r.idx - 1, (unsigned long long)(now + half));
                    if (++r.pos == r.wire.size()) r.gap = 12;
                    last_activity = now;
                } else if (r.gap > 0) {
                    r.gap--;
                } else if (writes_done && !r.q.empty() && r.q.front().t <= now + half) {
                    Frame f = std::move(r.q.front());
                    r.q.pop_front();
                    r.wire.assign(7, 0x55);
                    r.wire.push_back(0xD5);
                    r.wire.insert(r.wire.end(), f.bytes.begin(), f.bytes.end());
                    uint32_t fcs = crc32(f.bytes.data(), f.bytes.size());
                    if (f.flags & 1) fcs ^= 0xA5A5A5A5u;
                    for (int i = 0; i < 4; i++) r.wire.push_back((uint8_t)(fcs >> (8 * i)));
                    r.er_at = (f.flags & 2) != 0;
                    r.er_pos = 8 + f.bytes.size() / 2;
                    r.pos = 0;
                    r.idx++;
                    d = r.wire[0];
                    dv = true;
                    r.pos = 1;
                    last_activity = now;
                }
                set_bits(top->gmii_rxd, 8 * p, 8, d);
                set_bits(top->gmii_rx_dv, p, 1, dv);
                set_bits(top->gmii_rx_er, p, 1, er);
            }
        }
        // stop: everything sent and nothing moved for drain_ps, or end_ps
        bool all_sent = writes_done && ti == timed.size();
        for (int p = 0; p < PORTS && all_sent; p++)
            all_sent = rx[p].q.empty() && rx[p].pos >= rx[p].wire.size();
        if (all_sent && now > last_activity + drain_ps) draining = true;
        if ((draining && ri == reads.size() && ax == AX_IDLE) || now >= end_ps) break;
    }
    fprintf(out, "end %llu %llu\n", (unsigned long long)now, (unsigned long long)cycles);
    top->final();
    fclose(out);
    (void)frames_total;
    return 0;
}
