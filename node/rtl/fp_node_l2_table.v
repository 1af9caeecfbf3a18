// fp_node_l2_table: the node's L2 learning table (VID + MAC -> port), shared by all RxProcDPs.
//
// A BUCKETS x WAYS hash table. Key = {vid[11:0], mac[47:0]} (MAC: first byte on the wire in
// bits 47:40). Bucket = the key XOR-folded to log2(BUCKETS) bits: key bit i is XORed into hash bit
// (i mod log2(BUCKETS)) (fp_node_l2_hash.vh, shared with fp_node_wl2; node/l2.py l2_hash).
// An entry is {valid, static, hit, port[PORT_BITS], vid, mac}; a bucket (WAYS entries side by
// side) is one RAM word, so one read gives every way. The RAM is held twice (two fp_ram_sdp,
// written together): one copy is read for the bucket that may be modified (SA learn, host op,
// sweep), the other for the DA lookup. A key found in several ways (only possible through host
// WRITE): the lowest way wins.
//
// Operations. Every operation is one pass through one pipeline, one operation per cycle, and
// they are serialised: an operation sees the effect of every operation issued before it (a
// 3-deep write-forwarding path covers the three writes the RAM read missed). Issue slots are a
// fixed round of CLIENTS+1 cycles: slot c < CLIENTS belongs to client c (req_ready[c] is high in
// it, whatever the other clients do), slot CLIENTS and every client slot its client leaves unused
// go to maintenance (host command, else the running sweep step, else starting a host flush, else
// starting an ageing sweep).
//   Client op (req_valid & req_ready): DA lookup {req_vid, req_da} -> resp_hit, resp_port; then,
//     if req_learn, learn {req_vid, req_sa} on req_src_port: present -> hit := 1 and, if not
//     static, port := req_src_port (ev_learn_move when it changed); absent -> the lowest free way
//     (static 0, hit 1, ev_learn_new); bucket full -> not learned, ev_learn_full. The lookup sees
//     the table before this op's own learn; a learn is visible to every op issued after it.
//   Ageing: cfg_age_cycles = 0: off. Otherwise every cfg_age_cycles cycles a sweep is requested
//     (a request while a sweep runs is merged); a sweep visits each bucket once (one maintenance
//     slot per bucket): dynamic entries with hit = 0 are removed, all hit flags are cleared. An
//     entry not used any more lives between 1 and 2 age periods (plus the sweep time).
//   Host (host_cmd_valid & host_cmd_ready; ready is low from acceptance to host_rsp_valid):
//     op 0 READ  {bucket, way}                -> the entry
//     op 1 WRITE {bucket, way} <- {entry_valid, static, port, vid, mac}, hit := entry_valid
//     op 2 INSERT key (hashed here): entry_valid = 1: update the key's way or the lowest free way
//        (static, port, hit := 1), status FULL if neither; entry_valid = 0: invalidate the key's
//        way, status NOT_FOUND if absent. rsp bucket/way = the way used ({bucket, 0} if none).
//     op 3 FLUSH_ALL: remove every dynamic entry; op 4 FLUSH_PORT: those on host_cmd_port. A flush
//        is a sweep over all buckets; the response comes after its last bucket, entry {BUCKETS-1, 0}.
//     op 5..7: no action, status BAD_OP (entry of {bucket, way} returned).
//     host_rsp_*: status (0 OK, 1 FULL, 2 NOT_FOUND, 3 BAD_OP), bucket, way and the entry at that
//     index after the operation.
//
// Latency:    client: 4 cycles from the edge accepting req (req_valid & req_ready) to the edge
//             sampling resp_valid (one cycle pulse). Fixed; independent of everything else.
//             A client waits at most CLIENTS cycles for its slot (req_ready).
//             Host: 5 cycles after its maintenance slot (the response is read from the
//             written bucket a cycle after the write); a flush takes >= BUCKETS slots.
// Throughput: one client op per client per CLIENTS+1 cycles (3 at default: 66 M lookups/s per
//             datapath at 200 MHz; 6 x 1G ports need 9 M).
// Reset:      clears a per-bucket "written" flag (BUCKETS flip-flops): unwritten buckets read as
//             empty, so the table is empty right after reset (no init sweep, no wait).
// Bad input:  none possible (every index is in range; unknown host ops answer BAD_OP).
// Parameters: BUCKETS power of 2, 2..4096; WAYS power of 2, 2..16; CLIENTS 1..4; PORT_BITS 1..8.
// Memory:     2 x BUCKETS x WAYS*(63+PORT_BITS) bits (2 x 68 Kbit at default: block RAM).
`default_nettype none

module fp_node_l2_table #(
    parameter BUCKETS   = 128,
    parameter WAYS      = 8,
    parameter CLIENTS   = 2,
    parameter PORT_BITS = 5
) (
    input  wire                             clk,
    input  wire                             rst,

    // client c: field c of each flattened vector
    input  wire [CLIENTS-1:0]               req_valid,
    output wire [CLIENTS-1:0]               req_ready,
    input  wire [CLIENTS*12-1:0]            req_vid,
    input  wire [CLIENTS*48-1:0]            req_da,
    input  wire [CLIENTS*48-1:0]            req_sa,
    input  wire [CLIENTS*PORT_BITS-1:0]     req_src_port,
    input  wire [CLIENTS-1:0]               req_learn,
    output reg  [CLIENTS-1:0]               resp_valid,
    output reg  [CLIENTS-1:0]               resp_hit,
    output reg  [CLIENTS*PORT_BITS-1:0]     resp_port,

    input  wire [31:0]                      cfg_age_cycles,

    input  wire                             host_cmd_valid,
    output wire                             host_cmd_ready,
    input  wire [2:0]                       host_cmd_op,
    input  wire [$clog2(BUCKETS)-1:0]       host_cmd_bucket,
    input  wire [$clog2(WAYS)-1:0]          host_cmd_way,
    input  wire                             host_cmd_entry_valid,
    input  wire                             host_cmd_static,
    input  wire [PORT_BITS-1:0]             host_cmd_port,
    input  wire [11:0]                      host_cmd_vid,
    input  wire [47:0]                      host_cmd_mac,
    output reg                              host_rsp_valid,
    output reg  [1:0]                       host_rsp_status,
    output reg  [$clog2(BUCKETS)-1:0]       host_rsp_bucket,
    output reg  [$clog2(WAYS)-1:0]          host_rsp_way,
    output reg                              host_rsp_entry_valid,
    output reg                              host_rsp_static,
    output reg                              host_rsp_hit,
    output reg  [PORT_BITS-1:0]             host_rsp_port,
    output reg  [11:0]                      host_rsp_vid,
    output reg  [47:0]                      host_rsp_mac,

    output reg                              ev_learn_new,
    output reg                              ev_learn_move,
    output reg                              ev_learn_full
);

    generate
        if (BUCKETS < 2 || BUCKETS > 4096 || (BUCKETS & (BUCKETS - 1)) != 0) begin : g_bad_buckets
            PARAMETER_ERROR_BUCKETS_must_be_a_power_of_2_from_2_to_4096 u_error();
        end
        if (WAYS < 2 || WAYS > 16 || (WAYS & (WAYS - 1)) != 0) begin : g_bad_ways
            PARAMETER_ERROR_WAYS_must_be_a_power_of_2_from_2_to_16 u_error();
        end
        if (CLIENTS < 1 || CLIENTS > 4) begin : g_bad_clients
            PARAMETER_ERROR_CLIENTS_must_be_1_to_4 u_error();
        end
        if (PORT_BITS < 1 || PORT_BITS > 8) begin : g_bad_port_bits
            PARAMETER_ERROR_PORT_BITS_must_be_1_to_8 u_error();
        end
    endgenerate

    localparam HB = $clog2(BUCKETS);
    localparam WB = $clog2(WAYS);
    localparam CB = (CLIENTS > 1) ? $clog2(CLIENTS) : 1;
    localparam SB = $clog2(CLIENTS + 1);
    localparam PB = PORT_BITS;
    localparam KW = 60;                     // key {vid, mac}
    localparam EW = KW + PB + 3;            // entry {valid, static, hit, port, key}
    localparam BW = WAYS * EW;              // bucket = one RAM word
    localparam E_PORT = KW;
    localparam E_HIT = KW + PB;
    localparam E_STATIC = KW + PB + 1;
    localparam E_VALID = KW + PB + 2;
    localparam [SB-1:0] LAST_SLOT = CLIENTS[SB-1:0];
    localparam [HB-1:0] LAST_BUCKET = {HB{1'b1}};     // BUCKETS - 1

    localparam [2:0] K_NONE = 3'd0, K_CLIENT = 3'd1, K_HREAD = 3'd2, K_HWRITE = 3'd3,
                     K_HINS = 3'd4, K_SWEEP = 3'd5;
    localparam [1:0] S_AGE = 2'd0, S_FLUSH_ALL = 2'd1, S_FLUSH_PORT = 2'd2;
    localparam [2:0] OP_READ = 3'd0, OP_WRITE = 3'd1, OP_INSERT = 3'd2, OP_FLUSH_ALL = 3'd3,
                     OP_FLUSH_PORT = 3'd4;
    localparam [1:0] ST_OK = 2'd0, ST_FULL = 2'd1, ST_NOT_FOUND = 2'd2, ST_BAD_OP = 2'd3;

    `include "fp_node_l2_hash.vh"

    // ---- slot round and maintenance state ----------------------------------------------------
    reg  [SB-1:0] slot_q;
    reg  [31:0]   age_cnt_q;
    reg           age_req_q;
    reg           sweep_q;              // a sweep is running (next step: sweep_idx_q)
    reg  [1:0]    sweep_kind_q;
    reg  [HB-1:0] sweep_idx_q;
    reg  [PB-1:0] sweep_port_q;
    reg           host_pend_q;          // accepted, not issued yet
    reg           host_busy_q;          // accepted, no response yet
    reg  [2:0]    host_op_q;
    reg  [HB-1:0] host_bucket_q;
    reg  [WB-1:0] host_way_q;
    reg           host_ev_q, host_static_q;
    reg  [PB-1:0] host_port_q;
    reg  [KW-1:0] host_key_q;

    genvar gc;
    generate
        for (gc = 0; gc < CLIENTS; gc = gc + 1) begin : g_ready
            assign req_ready[gc] = (slot_q == gc);
        end
    endgenerate
    assign host_cmd_ready = !host_busy_q;

    // the client owning this slot, if it asks
    wire          slot_is_client = (slot_q != LAST_SLOT);
    wire [CB-1:0] cl = slot_is_client ? slot_q[CB-1:0] : {CB{1'b0}};
    wire          cl_go = slot_is_client && req_valid[cl];
    wire [KW-1:0] cl_key_sa = {req_vid[cl*12 +: 12], req_sa[cl*48 +: 48]};
    wire [KW-1:0] cl_key_da = {req_vid[cl*12 +: 12], req_da[cl*48 +: 48]};

    wire host_single = host_pend_q && !(host_op_q == OP_FLUSH_ALL || host_op_q == OP_FLUSH_PORT);
    wire host_flush = host_pend_q && (host_op_q == OP_FLUSH_ALL || host_op_q == OP_FLUSH_PORT);
    wire age_tick = (cfg_age_cycles != 32'd0) && (age_cnt_q >= cfg_age_cycles - 32'd1);

    // ---- stage 0: the issued operation -------------------------------------------------------
    // The RAM read address is this cycle's issue decision (the next q0_addr_*): the RAMs sample
    // it at the edge that loads stage 0 and return the bucket through their output register in
    // stage 1, so the stage-1 compares start at a flip-flop, not at the RAM's clock-to-out.
    reg  [HB-1:0] addr_a_d;
    // the buckets of the three keys an operation may address (fp_node_l2_hash.vh: 12 bits, the
    // low HB used)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [11:0]   h_da = fp_node_l2_hash(cl_key_da, HB);
    wire [11:0]   h_sa = fp_node_l2_hash(cl_key_sa, HB);
    wire [11:0]   h_host = fp_node_l2_hash(host_key_q, HB);
    /* verilator lint_on UNUSEDSIGNAL */
    wire [HB-1:0] addr_b_d = h_da[HB-1:0];
    always @* begin
        addr_a_d = h_sa[HB-1:0];
        if (!cl_go && host_single) begin
            addr_a_d = (host_op_q == OP_INSERT) ? h_host[HB-1:0] : host_bucket_q;
        end else if (!cl_go && (sweep_q || host_flush || age_req_q)) begin
            addr_a_d = sweep_q ? sweep_idx_q : {HB{1'b0}};
        end
    end

    reg  [2:0]    q0_kind;
    reg  [CB-1:0] q0_client;
    reg           q0_learn, q0_ev, q0_static, q0_hrsp;
    reg  [1:0]    q0_sweep, q0_status;
    reg  [KW-1:0] q0_key_a, q0_key_b;
    reg  [PB-1:0] q0_port;
    reg  [WB-1:0] q0_way;
    reg  [HB-1:0] q0_addr_a, q0_addr_b;

    always @(posedge clk) begin
        q0_kind <= K_NONE;
        q0_client <= cl;
        q0_learn <= req_learn[cl];
        q0_key_a <= cl_key_sa;
        q0_key_b <= cl_key_da;
        q0_port <= req_src_port[cl*PB +: PB];
        q0_addr_a <= addr_a_d;
        q0_addr_b <= addr_b_d;
        q0_ev <= host_ev_q;
        q0_static <= host_static_q;
        q0_way <= host_way_q;
        q0_sweep <= sweep_kind_q;
        q0_hrsp <= 1'b0;
        q0_status <= ST_OK;

        if (host_cmd_valid && host_cmd_ready) begin
            host_pend_q <= 1'b1;
            host_busy_q <= 1'b1;
            host_op_q <= host_cmd_op;
            host_bucket_q <= host_cmd_bucket;
            host_way_q <= host_cmd_way;
            host_ev_q <= host_cmd_entry_valid;
            host_static_q <= host_cmd_static;
            host_port_q <= host_cmd_port;
            host_key_q <= {host_cmd_vid, host_cmd_mac};
        end
        if (host_rsp_valid) begin
            host_busy_q <= 1'b0;
        end

        if (cl_go) begin
            q0_kind <= K_CLIENT;
        end else if (host_single) begin
            host_pend_q <= 1'b0;
            q0_key_a <= host_key_q;
            q0_port <= host_port_q;
            case (host_op_q)
                OP_READ:   q0_kind <= K_HREAD;
                OP_WRITE:  q0_kind <= K_HWRITE;
                OP_INSERT: q0_kind <= K_HINS;
                default: begin
                    q0_kind <= K_HREAD;
                    q0_status <= ST_BAD_OP;
                end
            endcase
        end else if (sweep_q || host_flush || age_req_q) begin
            q0_kind <= K_SWEEP;
            if (sweep_q) begin
                q0_port <= sweep_port_q;
                q0_hrsp <= (sweep_kind_q != S_AGE) && (sweep_idx_q == LAST_BUCKET);
                sweep_idx_q <= sweep_idx_q + 1'b1;
                if (sweep_idx_q == LAST_BUCKET) begin
                    sweep_q <= 1'b0;
                end
            end else begin
                // start a sweep: this slot does bucket 0, the rest follow from bucket 1
                q0_port <= host_port_q;
                q0_sweep <= !host_flush ? S_AGE :
                            (host_op_q == OP_FLUSH_PORT) ? S_FLUSH_PORT : S_FLUSH_ALL;
                sweep_kind_q <= !host_flush ? S_AGE :
                                (host_op_q == OP_FLUSH_PORT) ? S_FLUSH_PORT : S_FLUSH_ALL;
                sweep_port_q <= host_port_q;
                sweep_q <= 1'b1;
                sweep_idx_q <= {{(HB-1){1'b0}}, 1'b1};
                if (host_flush) begin
                    host_pend_q <= 1'b0;
                end else begin
                    age_req_q <= 1'b0;
                end
            end
        end

        slot_q <= (slot_q == LAST_SLOT) ? {SB{1'b0}} : slot_q + 1'b1;
        if (cfg_age_cycles == 32'd0 || age_tick) begin
            age_cnt_q <= 32'd0;
        end else begin
            age_cnt_q <= age_cnt_q + 32'd1;
        end
        if (age_tick) begin
            age_req_q <= 1'b1;
        end

        if (rst) begin
            q0_kind <= K_NONE;
            slot_q <= {SB{1'b0}};
            age_cnt_q <= 32'd0;
            age_req_q <= 1'b0;
            sweep_q <= 1'b0;
            sweep_idx_q <= {HB{1'b0}};
            host_pend_q <= 1'b0;
            host_busy_q <= 1'b0;
        end
    end

    // ---- stage 1: RAM data (both copies, from the output registers), bucket-written flags ----
    wire          wen;
    wire [BW-1:0] wdata;
    wire [HB-1:0] waddr;
    wire [BW-1:0] rdata_a, rdata_b;
    reg  [BUCKETS-1:0] written_q;

    fp_ram_sdp #(.ADDR_WIDTH(HB), .DATA_WIDTH(BW), .OUT_REG(1)) u_ram_a (
        .clk(clk), .wen(wen), .waddr(waddr), .wdata(wdata),
        .ren(1'b1), .raddr(addr_a_d), .rdata(rdata_a)
    );
    fp_ram_sdp #(.ADDR_WIDTH(HB), .DATA_WIDTH(BW), .OUT_REG(1)) u_ram_b (
        .clk(clk), .wen(wen), .waddr(waddr), .wdata(wdata),
        .ren(1'b1), .raddr(addr_b_d), .rdata(rdata_b)
    );

    reg  [2:0]    q1_kind, q2_kind;
    reg  [CB-1:0] q1_client, q2_client;
    reg           q1_learn, q1_ev, q1_static, q1_hrsp, q2_learn, q2_ev, q2_static, q2_hrsp;
    reg  [1:0]    q1_sweep, q1_status, q2_sweep, q2_status;
    reg  [KW-1:0] q1_key_a, q1_key_b, q2_key_a;
    reg  [PB-1:0] q1_port, q2_port;
    reg  [WB-1:0] q1_way, q2_way;
    reg  [HB-1:0] q1_addr_a, q1_addr_b, q2_addr_a;
    reg           q1_ok_a, q1_ok_b;
    reg  [BW-1:0] q2_data_a, q2_data_b;

    always @(posedge clk) begin
        q1_kind <= q0_kind;
        q1_client <= q0_client;
        q1_learn <= q0_learn;
        q1_ev <= q0_ev;
        q1_static <= q0_static;
        q1_hrsp <= q0_hrsp;
        q1_sweep <= q0_sweep;
        q1_status <= q0_status;
        q1_key_a <= q0_key_a;
        q1_key_b <= q0_key_b;
        q1_port <= q0_port;
        q1_way <= q0_way;
        q1_addr_a <= q0_addr_a;
        q1_addr_b <= q0_addr_b;
        q1_ok_a <= written_q[q0_addr_a];
        q1_ok_b <= written_q[q0_addr_b];

        // ---- stage 2: RAM data registered ----
        q2_kind <= q1_kind;
        q2_client <= q1_client;
        q2_learn <= q1_learn;
        q2_ev <= q1_ev;
        q2_static <= q1_static;
        q2_hrsp <= q1_hrsp;
        q2_sweep <= q1_sweep;
        q2_status <= q1_status;
        q2_key_a <= q1_key_a;
        q2_port <= q1_port;
        q2_way <= q1_way;
        q2_addr_a <= q1_addr_a;
        // the write the RAM read missed three cycles back (w2 now) goes in here (g_*)
        q2_data_a <= g_a ? w2_data : q1_ok_a ? rdata_a : {BW{1'b0}};
        q2_data_b <= g_b ? w2_data : q1_ok_b ? rdata_b : {BW{1'b0}};

        if (wen) begin
            written_q[waddr] <= 1'b1;
        end
        if (rst) begin
            q1_kind <= K_NONE;
            q2_kind <= K_NONE;
            written_q <= {BUCKETS{1'b0}};
        end
    end

    // ---- stage 2: forward the writes the RAM read missed, then compute ----------------------
    // The RAM is read at the edge that issues an operation (its output register gives the word a
    // cycle later), so a read misses the writes of the three operations issued just before it:
    // the oldest of them (in w1 while the operation is in stage 0, in w2 in stage 1) is merged
    // into q2_data_* (g_*); the other two are forwarded in stage 2 (f1, f2) as before.
    reg           w1_en;
    reg  [HB-1:0] w1_addr;
    reg  [BW-1:0] w1_data, w2_data;
    reg           g_a, g_b;     // the write in w1 is to the bucket of the operation in stage 0

    // which write to forward, decided a cycle early (registered): w1 of the next cycle is this
    // cycle's write, w2 of the next cycle is this cycle's w1
    reg           f1_a, f2_a, f1_b, f2_b;
    always @(posedge clk) begin
        g_a <= w1_en && w1_addr == q0_addr_a;
        g_b <= w1_en && w1_addr == q0_addr_b;
        f1_a <= wen && waddr == q1_addr_a;
        f2_a <= w1_en && w1_addr == q1_addr_a;
        f1_b <= wen && waddr == q1_addr_b;
        f2_b <= w1_en && w1_addr == q1_addr_b;
        if (rst) begin
            {g_a, g_b, f1_a, f2_a, f1_b, f2_b} <= 6'b000000;
        end
    end
    wire [BW-1:0] bkt_a = f1_a ? w1_data : f2_a ? w2_data : q2_data_a;
    wire [BW-1:0] bkt_b = f1_b ? w1_data : f2_b ? w2_data : q2_data_b;

    // Key compares, a cycle ahead. The 60-bit key compares of the operation in stage 2 are made
    // in the cycle before, while it is in stage 1, against every bucket it may see then: the RAM
    // word (rdata), this cycle's w2 (merged into its q2_data), this cycle's w1 (its w2 next
    // cycle) and the bucket this cycle's stage-2 operation writes (its w1 next cycle). That bucket's keys are the stage-2 operation's input
    // bucket's keys (compared through the same three sources and its own forwarding selects),
    // except in the way it writes a new key (rep: its key, q2_key_a). So stage 2 only ANDs the
    // registered compare (km_*) with the forwarded bucket's valid bit: the bucket update loop
    // (forwarded bucket -> match -> way -> new bucket -> w1) has no key comparator in it.
    reg  [WAYS-1:0] km_a, km_b;         // key of way i of bkt_a / bkt_b == the op's SA key / DA key
    reg  [WAYS-1:0] rep;                // ways this stage-2 operation writes a (new) key into
    reg  [WAYS-1:0] kr_a, k1_a, k2_a, kq_a, kn_a, kr_b, k1_b, k2_b, kq_b, kn_b;
    wire            keq_a = q2_key_a == q1_key_a;
    wire            keq_b = q2_key_a == q1_key_b;
    integer j;
    always @* begin
        for (j = 0; j < WAYS; j = j + 1) begin
            kr_a[j] = rdata_a[j*EW +: KW] == q1_key_a;
            k1_a[j] = w1_data[j*EW +: KW] == q1_key_a;
            k2_a[j] = w2_data[j*EW +: KW] == q1_key_a;
            kq_a[j] = q2_data_a[j*EW +: KW] == q1_key_a;
            kr_b[j] = rdata_b[j*EW +: KW] == q1_key_b;
            k1_b[j] = w1_data[j*EW +: KW] == q1_key_b;
            k2_b[j] = w2_data[j*EW +: KW] == q1_key_b;
            kq_b[j] = q2_data_a[j*EW +: KW] == q1_key_b;
            kn_a[j] = rep[j] ? keq_a : (f1_a ? k1_a[j] : f2_a ? k2_a[j] : kq_a[j]);
            kn_b[j] = rep[j] ? keq_b : (f1_a ? k1_b[j] : f2_a ? k2_b[j] : kq_b[j]);
        end
    end
    always @(posedge clk) begin
        km_a <= (wen && waddr == q1_addr_a) ? kn_a : (w1_en && w1_addr == q1_addr_a) ? k1_a :
                g_a ? k2_a : kr_a;
        km_b <= (wen && waddr == q1_addr_b) ? kn_b : (w1_en && w1_addr == q1_addr_b) ? k1_b :
                g_b ? k2_b : kr_b;
        if (rst) begin
            km_a <= {WAYS{1'b0}};
            km_b <= {WAYS{1'b0}};
        end
    end

    // matches and free ways (lowest index wins)
    reg  [WAYS-1:0] match_a, match_b;
    reg             any_ma, any_fa, any_mb;
    reg  [WB-1:0]   ma, fa;
    integer i;
    // The lowest matching / free way as one-hot words (ma_oh, fa_oh, mb_oh): the bucket update
    // and the selects below use them directly, so the update loop (forwarded bucket -> match ->
    // way -> new bucket) has no index encoder and no index compare; the binary indices are only
    // for the host response.
    reg  [WAYS-1:0] free_a, ma_oh, fa_oh, mb_oh;
    reg             seen_ma, seen_fa, seen_mb;
    always @* begin
        seen_ma = 1'b0;
        seen_fa = 1'b0;
        seen_mb = 1'b0;
        for (i = 0; i < WAYS; i = i + 1) begin
            match_a[i] = bkt_a[i*EW + E_VALID] && km_a[i];
            match_b[i] = bkt_b[i*EW + E_VALID] && km_b[i];
            free_a[i]  = !bkt_a[i*EW + E_VALID];
            ma_oh[i] = match_a[i] && !seen_ma;
            fa_oh[i] = free_a[i] && !seen_fa;
            mb_oh[i] = match_b[i] && !seen_mb;
            seen_ma = seen_ma | match_a[i];
            seen_fa = seen_fa | free_a[i];
            seen_mb = seen_mb | match_b[i];
        end
        any_ma = |match_a;
        any_fa = |free_a;
        any_mb = |match_b;
        ma = {WB{1'b0}};
        fa = {WB{1'b0}};
        for (i = 0; i < WAYS; i = i + 1) begin
            ma = ma | ({WB{ma_oh[i]}} & i[WB-1:0]);
            fa = fa | ({WB{fa_oh[i]}} & i[WB-1:0]);
        end
    end

    // the SA's matching entry and the DA's port: AND-OR over the one-hot way
    reg  [EW-1:0] ent_ma, ent_mb;
    always @* begin
        ent_ma = {EW{1'b0}};
        ent_mb = {EW{1'b0}};
        for (i = 0; i < WAYS; i = i + 1) begin
            ent_ma = ent_ma | ({EW{ma_oh[i]}} & bkt_a[i*EW +: EW]);
            ent_mb = ent_mb | ({EW{mb_oh[i]}} & bkt_b[i*EW +: EW]);
        end
    end
    wire [PB-1:0] port_mb = ent_mb[E_PORT +: PB];
    wire          learn = (q2_kind == K_CLIENT) && q2_learn;
    // host INSERT with entry_valid: the key's way, else the lowest free way
    wire          ins_ok = q2_ev ? (any_ma || any_fa) : any_ma;
    wire [WB-1:0] ins_way = any_ma ? ma : fa;
    wire [WAYS-1:0] ins_oh = any_ma ? ma_oh : fa_oh;

    integer r;
    always @* begin
        for (r = 0; r < WAYS; r = r + 1) begin
            case (q2_kind)
                K_CLIENT: rep[r] = !any_ma && fa_oh[r];
                K_HWRITE: rep[r] = q2_way == r[WB-1:0];
                K_HINS:   rep[r] = ins_ok && q2_ev && ins_oh[r];
                default:  rep[r] = 1'b0;
            endcase
        end
    end

    // the new bucket
    reg  [BW-1:0] nb;
    reg  [EW-1:0] e;
    integer w;
    always @* begin
        nb = bkt_a;
        for (w = 0; w < WAYS; w = w + 1) begin
            e = bkt_a[w*EW +: EW];
            case (q2_kind)
                K_CLIENT: begin
                    if (ma_oh[w]) begin
                        e[E_HIT] = 1'b1;
                        if (!e[E_STATIC]) begin
                            e[E_PORT +: PB] = q2_port;
                        end
                    end else if (!any_ma && fa_oh[w]) begin
                        e = {3'b101, q2_port, q2_key_a};
                    end
                end
                K_HWRITE: begin
                    if (q2_way == w[WB-1:0]) begin
                        e = {q2_ev, q2_static, q2_ev, q2_port, q2_key_a};
                    end
                end
                K_HINS: begin
                    if (ins_ok && ins_oh[w]) begin
                        e = q2_ev ? {1'b1, q2_static, 1'b1, q2_port, q2_key_a}
                                  : {1'b0, e[EW-2:0]};
                    end
                end
                K_SWEEP: begin
                    if (e[E_VALID] && !e[E_STATIC]) begin
                        if (q2_sweep == S_AGE) begin
                            e[E_VALID] = e[E_HIT];
                        end else if (q2_sweep == S_FLUSH_ALL || e[E_PORT +: PB] == q2_port) begin
                            e[E_VALID] = 1'b0;
                        end
                    end
                    if (q2_sweep == S_AGE && e[E_VALID]) begin
                        e[E_HIT] = 1'b0;
                    end
                end
                default: ;
            endcase
            nb[w*EW +: EW] = e;
        end
    end

    assign wen = learn || q2_kind == K_HWRITE || q2_kind == K_HINS || q2_kind == K_SWEEP;
    assign waddr = q2_addr_a;
    assign wdata = nb;

    // host response index and status
    wire          is_host = q2_kind == K_HREAD || q2_kind == K_HWRITE || q2_kind == K_HINS ||
                            (q2_kind == K_SWEEP && q2_hrsp);
    wire [WB-1:0] rsp_way = (q2_kind == K_HINS) ? (ins_ok ? ins_way : {WB{1'b0}}) :
                            (q2_kind == K_SWEEP) ? {WB{1'b0}} : q2_way;
    wire [1:0]    rsp_status = (q2_kind == K_HINS && !ins_ok) ? (q2_ev ? ST_FULL : ST_NOT_FOUND) :
                               (q2_kind == K_HREAD) ? q2_status : ST_OK;
    // the host response is taken a cycle later from the written bucket (w1_data = nb)
    reg           hr_valid_q;
    reg  [1:0]    hr_status_q;
    reg  [HB-1:0] hr_bucket_q;
    reg  [WB-1:0] hr_way_q;
    wire [EW-1:0] rsp_ent = w1_data[hr_way_q*EW +: EW];

    // ---- stage 3: write, responses, events --------------------------------------------------
    integer c;
    always @(posedge clk) begin
        w1_en <= wen;
        w1_addr <= waddr;
        w1_data <= wdata;
        w2_data <= w1_data;

        for (c = 0; c < CLIENTS; c = c + 1) begin
            resp_valid[c] <= (q2_kind == K_CLIENT) && (q2_client == c[CB-1:0]);
        end
        resp_hit <= {CLIENTS{any_mb}};
        resp_port <= {CLIENTS{port_mb}};

        ev_learn_new <= learn && !any_ma && any_fa;
        ev_learn_move <= learn && any_ma && !ent_ma[E_STATIC] && ent_ma[E_PORT +: PB] != q2_port;
        ev_learn_full <= learn && !any_ma && !any_fa;

        hr_valid_q <= is_host;
        hr_status_q <= rsp_status;
        hr_bucket_q <= q2_addr_a;
        hr_way_q <= rsp_way;
        host_rsp_valid <= hr_valid_q;
        host_rsp_status <= hr_status_q;
        host_rsp_bucket <= hr_bucket_q;
        host_rsp_way <= hr_way_q;
        {host_rsp_entry_valid, host_rsp_static, host_rsp_hit, host_rsp_port,
         host_rsp_vid, host_rsp_mac} <= rsp_ent;

        if (rst) begin
            w1_en <= 1'b0;
            resp_valid <= {CLIENTS{1'b0}};
            ev_learn_new <= 1'b0;
            ev_learn_move <= 1'b0;
            ev_learn_full <= 1'b0;
            hr_valid_q <= 1'b0;
            host_rsp_valid <= 1'b0;
        end
    end

endmodule

`default_nettype wire
