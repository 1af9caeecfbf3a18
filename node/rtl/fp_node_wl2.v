// fp_node_wl2: the word-serial node's L2 learning table (VID + MAC -> port): one pipelined lookup
// port and one engine that learns, ages and serves the host, built for 125 MHz on ECP5.
//
// A BUCKETS x WAYS hash table (the bucket function: fp_node_l2_hash.vh, node/l2.py l2_hash; the
// caller gives each key's bucket). An entry is {valid, static, hit, port[PORT_BITS], vid, mac}; a
// bucket (WAYS entries side by side) is one RAM word. The RAM is held twice, written together by
// the engine: one copy is read by the lookup port, the other by the engine.
//
// Lookup (s_lk_*: no ready, one per cycle): s_lk_valid in cycle c -> m_lk_valid in cycle c + 5
//   with m_lk_hit and m_lk_port of the lowest way holding {s_lk_vid, s_lk_mac} (the bucket read
//   in c, its RAM output register, a register, the way compares, the way select). A lookup sees
//   every engine write made before its read (the RAM returns the old word on a read in the cycle of
//   a write to it). Before init_done every lookup misses.
// Engine: one operation at a time, taken in this order: the host command, the learn queue's head,
//   an ageing step. Each reads the bucket, decides and writes it back: 8 cycles from the start of
//   one to the start of the next.
//   Learn (s_ln_*: into a LEARN_DEPTH queue; a request that finds it full is dropped, ev_learn_drop):
//     present -> hit := 1 and, if not static, port := s_ln_port (ev_learn_move when it changed);
//     absent -> the lowest free way (static 0, hit 1, ev_learn_new); bucket full -> not learned,
//     ev_learn_full. A learn is visible to lookups issued from 8 cycles after it left the queue
//     (queue empty: 10 cycles after s_ln_valid); node/l2.py's L2Table applies it at once.
//   Ageing: cfg_age_cycles = 0: off. Otherwise every cfg_age_cycles cycles a sweep is requested
//     (one asked while a sweep runs is merged); the sweep steps through the buckets, one engine
//     operation each when nothing else waits: dynamic entries with hit = 0 go, the hit flags of
//     the ways that stay valid clear. A period set or lowered at run time applies at once.
//   Host (host_cmd_valid & host_cmd_ready; ready is low from acceptance to host_rsp_valid), the ops
//     of fp_node_l2_table: 0 READ {bucket, way}; 1 WRITE {bucket, way} <- {entry_valid, static,
//     port, vid, mac}, hit := entry_valid; 2 INSERT key (hashed here): entry_valid = 1: update the
//     key's way or the lowest free way (static, port, hit := 1), FULL if neither; entry_valid = 0:
//     invalidate the key's way, NOT_FOUND if absent; 3 FLUSH_ALL / 4 FLUSH_PORT (host_cmd_port):
//     every dynamic entry (of that port) goes, a sweep over all buckets answered after the last
//     with entry {BUCKETS-1, 0}; 5..7: BAD_OP. host_rsp_*: status (0 OK, 1 FULL, 2 NOT_FOUND, 3
//     BAD_OP), bucket, way and the entry at that index after the operation.
// Reset: the engine writes every bucket empty, one per cycle (init_done rises BUCKETS + 1 cycles
//   after rst falls; the learn queue and host commands wait); a lookup read before then misses.
// Latency:    lookup 5 cycles (above); learn 8 cycles per request through the engine; host: its
//             response 8 cycles after the operation starts (a flush: 8 per bucket).
// Throughput: one lookup per cycle; one engine operation per 8 cycles (15.6 M learns/s: 12 x 1G
//             ports of 64-byte frames give at most 17.9 M frames/s, of which only first sights
//             and moves change the table; a learn the queue cannot take is dropped and counted).
// Bad input:  none possible (every index is in range; unknown host ops answer BAD_OP).
// Parameters: BUCKETS power of 2, 16..4096; WAYS 2, 4 or 8; PORT_BITS 1..8; LEARN_DEPTH 4..64,
//             power of 2.
// Memory:     2 x BUCKETS x WAYS*(63+PORT_BITS) bits (256 x 4 at 5 port bits: 2 x 8 DP16KD).
`default_nettype none

module fp_node_wl2 #(
    parameter BUCKETS     = 256,
    parameter WAYS        = 4,
    parameter PORT_BITS   = 5,
    parameter LEARN_DEPTH = 16,
    // derived, do not set
    parameter HB = $clog2(BUCKETS),
    parameter WB = $clog2(WAYS)
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire                 s_lk_valid,
    input  wire [HB-1:0]        s_lk_bucket,
    input  wire [11:0]          s_lk_vid,
    input  wire [47:0]          s_lk_mac,
    output reg                  m_lk_valid,
    output reg                  m_lk_hit,
    output reg  [PORT_BITS-1:0] m_lk_port,

    input  wire                 s_ln_valid,
    input  wire [HB-1:0]        s_ln_bucket,
    input  wire [11:0]          s_ln_vid,
    input  wire [47:0]          s_ln_mac,
    input  wire [PORT_BITS-1:0] s_ln_port,

    input  wire [31:0]          cfg_age_cycles,

    input  wire                 host_cmd_valid,
    output wire                 host_cmd_ready,
    input  wire [2:0]           host_cmd_op,
    input  wire [HB-1:0]        host_cmd_bucket,
    input  wire [WB-1:0]        host_cmd_way,
    input  wire                 host_cmd_entry_valid,
    input  wire                 host_cmd_static,
    input  wire [PORT_BITS-1:0] host_cmd_port,
    input  wire [11:0]          host_cmd_vid,
    input  wire [47:0]          host_cmd_mac,
    output reg                  host_rsp_valid,
    output reg  [1:0]           host_rsp_status,
    output reg  [HB-1:0]        host_rsp_bucket,
    output reg  [WB-1:0]        host_rsp_way,
    output reg                  host_rsp_entry_valid,
    output reg                  host_rsp_static,
    output reg                  host_rsp_hit,
    output reg  [PORT_BITS-1:0] host_rsp_port,
    output reg  [11:0]          host_rsp_vid,
    output reg  [47:0]          host_rsp_mac,

    output reg                  ev_learn_new,
    output reg                  ev_learn_move,
    output reg                  ev_learn_full,
    output reg                  ev_learn_drop,
    output reg                  init_done
);

    `include "fp_node_l2_hash.vh"

    generate
        if (BUCKETS < 16 || BUCKETS > 4096 || (BUCKETS & (BUCKETS - 1)) != 0) begin : g_bad_buckets
            PARAMETER_ERROR_BUCKETS_must_be_a_power_of_2_from_16_to_4096 u_error();
        end
        if (WAYS != 2 && WAYS != 4 && WAYS != 8) begin : g_bad_ways
            PARAMETER_ERROR_WAYS_must_be_2_4_or_8 u_error();
        end
        if (PORT_BITS < 1 || PORT_BITS > 8) begin : g_bad_port_bits
            PARAMETER_ERROR_PORT_BITS_must_be_1_to_8 u_error();
        end
        if (LEARN_DEPTH < 4 || LEARN_DEPTH > 64 || (LEARN_DEPTH & (LEARN_DEPTH - 1)) != 0) begin : g_bad_depth
            PARAMETER_ERROR_LEARN_DEPTH_must_be_a_power_of_2_from_4_to_64 u_error();
        end
        if (HB != $clog2(BUCKETS) || WB != $clog2(WAYS)) begin : g_bad_derived
            PARAMETER_ERROR_HB_and_WB_are_derived_do_not_set_them u_error();
        end
    endgenerate

    localparam PB = PORT_BITS;
    localparam KW = 60;                     // key {vid, mac}
    localparam EW = KW + PB + 3;            // entry {valid, static, hit, port, key}
    localparam BW = WAYS * EW;              // bucket = one RAM word
    localparam E_PORT = KW;
    localparam E_HIT = KW + PB;
    localparam E_STATIC = KW + PB + 1;
    localparam E_VALID = KW + PB + 2;
    localparam LQW = HB + KW + PB;          // a learn request {bucket, key, port}
    localparam [HB-1:0] LAST_BUCKET = {HB{1'b1}};
    localparam [2:0] OP_READ = 3'd0, OP_WRITE = 3'd1, OP_INSERT = 3'd2, OP_FLUSH_ALL = 3'd3,
                     OP_FLUSH_PORT = 3'd4;
    localparam [1:0] ST_OK = 2'd0, ST_FULL = 2'd1, ST_NOT_FOUND = 2'd2, ST_BAD_OP = 2'd3;
    // engine operation kinds
    localparam [2:0] K_LEARN = 3'd0, K_AGE = 3'd1, K_HREAD = 3'd2, K_HWRITE = 3'd3,
                     K_HINS = 3'd4, K_FLUSH = 3'd5, K_BAD = 3'd6;

    // ---- the two RAM copies ------------------------------------------------------------------
    reg              wr_en;
    reg  [HB-1:0]    wr_addr;
    reg  [BW-1:0]    wr_data;
    wire [BW-1:0]    lk_rdata, en_rdata;
    reg  [HB-1:0]    en_raddr;
    reg              en_ren;

    fp_ram_sdp #(.ADDR_WIDTH(HB), .DATA_WIDTH(BW), .OUT_REG(1)) u_ram_lk (
        .clk(clk), .wen(wr_en), .waddr(wr_addr), .wdata(wr_data),
        .ren(1'b1), .raddr(s_lk_bucket), .rdata(lk_rdata)
    );
    fp_ram_sdp #(.ADDR_WIDTH(HB), .DATA_WIDTH(BW), .OUT_REG(1)) u_ram_en (
        .clk(clk), .wen(wr_en), .waddr(wr_addr), .wdata(wr_data),
        .ren(en_ren), .raddr(en_raddr), .rdata(en_rdata)
    );

    // ---- lookup: c0 read, c1 RAM latch, c2 RAM output register, c3 compares, c4 select --------
    reg  [KW-1:0]    lk_key1, lk_key2, lk_key3;
    reg  [3:0]       lk_v;                       // valid in c1..c4
    reg  [3:0]       lk_i;                       // init_done as the lookup's read saw it
    reg  [BW-1:0]    lk_data3;                   // the bucket, registered (c3)
    reg  [WAYS-1:0]  lk_match4;
    reg  [WAYS*PB-1:0] lk_port4;
    integer w;
    always @(posedge clk) begin
        lk_key1  <= {s_lk_vid, s_lk_mac};
        lk_key2  <= lk_key1;
        lk_key3  <= lk_key2;
        lk_data3 <= lk_rdata;
        for (w = 0; w < WAYS; w = w + 1) begin
            lk_match4[w] <= lk_data3[w*EW + E_VALID] && lk_data3[w*EW +: KW] == lk_key3;
            lk_port4[w*PB +: PB] <= lk_data3[w*EW + E_PORT +: PB];
        end
        m_lk_hit  <= 1'b0;
        m_lk_port <= {PB{1'b0}};
        for (w = WAYS - 1; w >= 0; w = w - 1) begin
            if (lk_match4[w]) begin
                m_lk_hit  <= lk_i[3];
                m_lk_port <= lk_port4[w*PB +: PB];
            end
        end
        if (rst) begin
            lk_v       <= 4'd0;
            m_lk_valid <= 1'b0;
        end else begin
            lk_v       <= {lk_v[2:0], s_lk_valid};
            m_lk_valid <= lk_v[3];
        end
        if (rst) begin
            lk_i <= 4'd0;
        end else begin
            lk_i <= {lk_i[2:0], init_done};
        end
    end

    // ---- the learn queue ---------------------------------------------------------------------
    wire [LQW-1:0]   lq_head;
    wire             lq_empty;
    wire [$clog2(LEARN_DEPTH):0] lq_count;
    wire             lq_full = lq_count == LEARN_DEPTH[$clog2(LEARN_DEPTH):0];
    reg              lq_pop;
    fp_fifo_fwft #(.WIDTH(LQW), .DEPTH(LEARN_DEPTH)) u_lq (
        .clk(clk), .rst(rst),
        .push(s_ln_valid && !lq_full), .push_data({s_ln_bucket, s_ln_vid, s_ln_mac, s_ln_port}),
        .pop(lq_pop), .head(lq_head), .empty(lq_empty), .count(lq_count)
    );

    // ---- the engine ----------------------------------------------------------------------------
    // state: init sweep, then operations of 8 cycles: t 0 choose, 1 read, 2 RAM latch, 3 RAM
    // output register, 4 registered, 5 way flags, 6 new bucket, 7 write + events + response
    reg              init_q, init_fin;
    reg  [HB-1:0]    init_idx;
    reg  [2:0]       t_q;
    reg              busy_q;
    reg  [2:0]       k_q;                        // the operation's kind
    reg  [HB-1:0]    b_q;                        // its bucket
    reg  [KW-1:0]    key_q;
    reg  [PB-1:0]    port_q;
    reg              ev_q, st_q;                 // host entry_valid, static
    reg  [WB-1:0]    way_q;                      // host way
    reg  [BW-1:0]    d4;                         // the bucket read
    reg  [WAYS-1:0]  m5, f5, dyn5, pm5;          // per way: key match, free, dynamic valid, on port
    reg              last_sweep_q;
    // host command
    reg              h_pend, h_busy;
    reg  [2:0]       h_op;
    reg  [HB-1:0]    h_bucket, h_kbucket;
    reg  [WB-1:0]    h_way;
    reg              h_ev, h_st;
    reg  [PB-1:0]    h_port;
    reg  [KW-1:0]    h_key;
    // sweeps: ageing and flushing
    reg  [31:0]      age_cnt;
    reg              age_req, age_run, fl_run, fl_port_only;
    reg  [HB-1:0]    age_idx, fl_idx;
    reg  [PB-1:0]    fl_port;

    assign host_cmd_ready = !h_busy && !h_pend;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [11:0]      host_hash = fp_node_l2_hash({host_cmd_vid, host_cmd_mac}, HB);   // [HB-1:0] used
    /* verilator lint_on UNUSEDSIGNAL */

    // first match / first free way (priority: the lowest), one-hot and as an index
    wire [WAYS-1:0]  m1h = m5 & ~(m5 - 1'b1);
    wire [WAYS-1:0]  f1h = f5 & ~(f5 - 1'b1);
    wire             m_any = |m5;
    wire             f_any = |f5;
    reg  [WB-1:0]    m_way, f_way;
    integer j;
    always @* begin
        m_way = {WB{1'b0}};
        f_way = {WB{1'b0}};
        for (j = 0; j < WAYS; j = j + 1) begin
            if (m1h[j]) begin
                m_way = m_way | j[WB-1:0];
            end
            if (f1h[j]) begin
                f_way = f_way | j[WB-1:0];
            end
        end
    end

    // the new bucket and the response, from the way flags (t 6). Each way's new entry depends on
    // its own old entry, its one-hot selects and the operation (no index into the whole bucket:
    // the logic stays per way).
    reg  [BW-1:0]    nb;
    reg  [WB-1:0]    r_way;
    reg  [1:0]       r_st;
    reg              r_new, r_move, r_full;
    reg  [EW-1:0]    e_old, e_new;
    reg              sel_w;
    integer q;      // (one loop variable per process)
    always @* begin
        r_way  = way_q;
        r_st   = ST_OK;
        r_new  = 1'b0;
        r_move = 1'b0;
        r_full = 1'b0;
        case (k_q)
            K_LEARN: begin
                r_new  = !m_any && f_any;
                r_full = !m_any && !f_any;
            end
            K_FLUSH: r_way = {WB{1'b0}};
            K_HINS: begin
                if (!ev_q) begin
                    r_way = m_any ? m_way : {WB{1'b0}};
                    r_st  = m_any ? ST_OK : ST_NOT_FOUND;
                end else begin
                    r_way = m_any ? m_way : f_any ? f_way : {WB{1'b0}};
                    r_st  = (m_any || f_any) ? ST_OK : ST_FULL;
                end
            end
            K_BAD: r_st = ST_BAD_OP;
            default: ;
        endcase
        for (q = 0; q < WAYS; q = q + 1) begin
            e_old = d4[q*EW +: EW];
            e_new = e_old;
            sel_w = 1'b0;
            case (k_q)
                K_LEARN: begin
                    if (m1h[q]) begin
                        e_new[E_HIT] = 1'b1;
                        if (!e_old[E_STATIC]) begin
                            e_new[E_PORT +: PB] = port_q;
                            r_move = r_move || e_old[E_PORT +: PB] != port_q;
                        end
                    end else if (!m_any && f1h[q]) begin
                        e_new = {1'b1, 1'b0, 1'b1, port_q, key_q};
                    end
                end
                K_AGE: begin
                    if (dyn5[q] && !e_old[E_HIT]) begin
                        e_new[E_VALID] = 1'b0;
                    end
                    if (e_old[E_VALID]) begin
                        e_new[E_HIT] = 1'b0;
                    end
                end
                K_FLUSH: begin
                    if (dyn5[q] && (!fl_port_only || pm5[q])) begin
                        e_new[E_VALID] = 1'b0;
                    end
                end
                K_HWRITE: begin
                    if (way_q == q[WB-1:0]) begin
                        e_new = {ev_q, st_q, ev_q, port_q, key_q};
                    end
                end
                K_HINS: begin
                    sel_w = m_any ? m1h[q] : (ev_q && f1h[q]);
                    if (sel_w) begin
                        e_new = ev_q ? {1'b1, st_q, 1'b1, port_q, key_q}
                                     : {1'b0, e_old[EW-2:0]};
                    end
                end
                default: ;      // K_HREAD, K_BAD: no change
            endcase
            nb[q*EW +: EW] = e_new;
        end
    end

    reg  [BW-1:0]    nb6;
    reg  [WB-1:0]    r_way6;
    reg  [1:0]       r_st6;
    reg              r_new6, r_move6, r_full6, wr6;

    wire age_tick = cfg_age_cycles != 32'd0 && age_cnt == 32'd0;
    integer u;
    wire start    = !init_q && !busy_q;
    wire go_host  = start && h_pend;
    wire go_flush = start && !h_pend && fl_run;
    wire go_learn = start && !h_pend && !fl_run && !lq_empty;
    wire go_age   = start && !h_pend && !fl_run && lq_empty && age_run;

    always @(posedge clk) begin
        lq_pop <= 1'b0;
        en_ren <= 1'b0;
        wr_en  <= 1'b0;
        ev_learn_new  <= 1'b0;
        ev_learn_move <= 1'b0;
        ev_learn_full <= 1'b0;
        ev_learn_drop <= s_ln_valid && lq_full;
        host_rsp_valid <= 1'b0;

        // host command register
        if (host_cmd_valid && host_cmd_ready) begin
            h_pend   <= 1'b1;
            h_busy   <= 1'b1;
            h_op     <= host_cmd_op;
            h_bucket <= host_cmd_bucket;
            h_kbucket <= host_hash[HB-1:0];
            h_way    <= host_cmd_way;
            h_ev     <= host_cmd_entry_valid;
            h_st     <= host_cmd_static;
            h_port   <= host_cmd_port;
            h_key    <= {host_cmd_vid, host_cmd_mac};
        end

        // ageing timer
        // (0: off; a period set or lowered at run time takes effect at once)
        if (cfg_age_cycles == 32'd0) begin
            age_cnt <= 32'd0;
        end else if (age_cnt == 32'd0 || age_cnt >= cfg_age_cycles) begin
            age_cnt <= cfg_age_cycles - 32'd1;
        end else begin
            age_cnt <= age_cnt - 32'd1;
        end
        if (age_tick) begin
            age_req <= 1'b1;
        end
        if (!age_run && age_req && !busy_q) begin
            age_run <= 1'b1;
            age_req <= 1'b0;
            age_idx <= {HB{1'b0}};
        end

        // t 0: choose
        if (go_host || go_flush || go_learn || go_age) begin
            busy_q <= 1'b1;
            t_q    <= 3'd1;
            en_ren <= 1'b1;
        end
        if (go_host) begin
            h_pend <= 1'b0;
            key_q  <= h_key;
            port_q <= h_port;
            ev_q   <= h_ev;
            st_q   <= h_st;
            way_q  <= h_way;
            case (h_op)
                OP_READ:  begin k_q <= K_HREAD;  b_q <= h_bucket;  en_raddr <= h_bucket;  end
                OP_WRITE: begin k_q <= K_HWRITE; b_q <= h_bucket;  en_raddr <= h_bucket;  end
                OP_INSERT: begin k_q <= K_HINS;  b_q <= h_kbucket; en_raddr <= h_kbucket; end
                OP_FLUSH_ALL, OP_FLUSH_PORT: begin
                    // the sweep's first bucket is this operation
                    k_q <= K_FLUSH; b_q <= {HB{1'b0}}; en_raddr <= {HB{1'b0}};
                    fl_run <= 1'b1;
                    fl_idx <= {HB{1'b0}};
                    fl_port_only <= h_op == OP_FLUSH_PORT;
                    fl_port <= h_port;
                end
                default: begin k_q <= K_BAD; b_q <= h_bucket; en_raddr <= h_bucket; end
            endcase
        end
        if (go_flush) begin
            k_q <= K_FLUSH;
            b_q <= fl_idx;
            en_raddr <= fl_idx;
        end
        if (go_learn) begin
            lq_pop <= 1'b1;
            k_q    <= K_LEARN;
            b_q    <= lq_head[LQW-1 -: HB];
            en_raddr <= lq_head[LQW-1 -: HB];
            key_q  <= lq_head[PB +: KW];
            port_q <= lq_head[PB-1:0];
        end
        if (go_age) begin
            k_q <= K_AGE;
            b_q <= age_idx;
            en_raddr <= age_idx;
        end

        // t 1..7
        if (busy_q) begin
            t_q <= t_q + 3'd1;
        end
        if (busy_q && t_q == 3'd4) begin
            d4 <= en_rdata;
        end
        if (busy_q && t_q == 3'd5) begin
            for (u = 0; u < WAYS; u = u + 1) begin
                m5[u]   <= d4[u*EW + E_VALID] && d4[u*EW +: KW] == key_q;
                f5[u]   <= !d4[u*EW + E_VALID];
                dyn5[u] <= d4[u*EW + E_VALID] && !d4[u*EW + E_STATIC];
                pm5[u]  <= d4[u*EW + E_PORT +: PB] == fl_port;
            end
        end
        if (busy_q && t_q == 3'd6) begin
            nb6     <= nb;
            r_way6  <= r_way;
            r_st6   <= r_st;
            r_new6  <= r_new;
            r_move6 <= r_move;
            r_full6 <= r_full;
            wr6     <= k_q != K_HREAD && k_q != K_BAD &&
                       !(k_q == K_HINS && r_st != ST_OK) && !(k_q == K_LEARN && r_full);
            last_sweep_q <= b_q == LAST_BUCKET;
        end
        if (busy_q && t_q == 3'd7) begin
            busy_q  <= 1'b0;
            wr_en   <= wr6;
            wr_addr <= b_q;
            wr_data <= nb6;
            if (k_q == K_LEARN) begin
                ev_learn_new  <= r_new6;
                ev_learn_move <= r_move6;
                ev_learn_full <= r_full6;
            end
            if (k_q == K_AGE) begin
                age_idx <= age_idx + 1'b1;
                if (last_sweep_q) begin
                    age_run <= 1'b0;
                end
            end
            if (k_q == K_FLUSH) begin
                fl_idx <= fl_idx + 1'b1;
                if (last_sweep_q) begin
                    fl_run <= 1'b0;
                end
            end
            if (k_q != K_LEARN && k_q != K_AGE && !(k_q == K_FLUSH && !last_sweep_q)) begin
                host_rsp_valid       <= 1'b1;
                host_rsp_status      <= r_st6;
                host_rsp_bucket      <= b_q;
                host_rsp_way         <= r_way6;
                {host_rsp_entry_valid, host_rsp_static, host_rsp_hit, host_rsp_port,
                 host_rsp_vid, host_rsp_mac} <= nb6[r_way6*EW +: EW];
                h_busy <= 1'b0;
            end
        end

        // reset: write every bucket empty
        if (init_q) begin
            wr_en    <= 1'b1;
            wr_addr  <= init_idx;
            wr_data  <= {BW{1'b0}};
            init_idx <= init_idx + 1'b1;
            if (init_idx == LAST_BUCKET) begin
                init_q    <= 1'b0;
                init_fin  <= 1'b1;
            end
        end
        // init_done rises in the cycle after the last init write (a read in the write's own
        // cycle returns the old word)
        if (init_fin) begin
            init_fin  <= 1'b0;
            init_done <= 1'b1;
        end

        if (rst) begin
            init_q    <= 1'b1;
            init_fin  <= 1'b0;
            init_idx  <= {HB{1'b0}};
            init_done <= 1'b0;
            ev_learn_new  <= 1'b0;
            ev_learn_move <= 1'b0;
            ev_learn_full <= 1'b0;
            busy_q    <= 1'b0;
            t_q       <= 3'd0;
            h_pend    <= 1'b0;
            h_busy    <= 1'b0;
            age_cnt   <= 32'd0;
            age_req   <= 1'b0;
            age_run   <= 1'b0;
            fl_run    <= 1'b0;
            wr_en     <= 1'b0;
            lq_pop    <= 1'b0;
            en_ren    <= 1'b0;
            ev_learn_drop  <= 1'b0;
            host_rsp_valid <= 1'b0;
        end
    end

endmodule

`default_nettype wire
