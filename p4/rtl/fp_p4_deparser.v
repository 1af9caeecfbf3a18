// fp_p4_deparser: the deparser of the P4 pipeline (seeds/004): builds each packet anew from its
// packet header vector (PHV) and the original packet: the valid headers in the deparser's order,
// taken from the PHV, then the original packet's bytes from the payload offset on, with the IPv4
// (csum16) header checksums recomputed first.
//
// Per packet: a descriptor (phv_*: the PHV in the compiler's layout, the header validity bits,
// the payload offset in bytes -- where the parser stopped -- and drop) and the original packet on
// s_axis. Configuration (cfg_wr_*, 32-bit words, p4/action_load.py DeparserImage.writes):
//   header slot i (address i, i < HDRS), in deparser order: [31] enabled, [30] starts where slot
//     i-1's header ends in the PHV, [29:24] validity bit, [23:12] first byte in the PHV,
//     [11:0] end byte (exclusive);
//   checksum unit u (address 0x100 + 0x100 u): +0 [31] enabled, [30] byte-swapped sum (the inputs
//     sit at odd PHV bytes), [29] conditional, [23:18] the target header's validity bit, [17:12]
//     the condition's validity bit, [11:0] the target's first byte in the PHV; +1 [15:0] constant
//     addend; +2+j the bytes of the PHV summed, bit b of word j = PHV byte 32 j + b.
// A checksum unit sums the selected PHV bytes as 16-bit words (ones' complement; the PHV's byte
// 2w is the high byte of word w), byte-swaps the sum if told, adds the constant, and writes the
// complement into the 2-byte target when the target's header is valid (and the condition's).
//
// Structure: the descriptor goes through a pipeline of PREP stages (the checksum adder trees,
// radix 4, and the header runs: consecutive valid slots that continue each other in the PHV are
// one run; run ends and each slot's next run are found by pointer doubling) and a context stage
// into a 2-entry context buffer. A control FSM walks each packet: the header runs in chunks of up
// to DATA_WIDTH/8 bytes (one per cycle) while the input beats before the payload are dropped;
// then the payload beats, each rotated to the output's fill level; then a tail step that sends
// the last beat with tlast. The FSM's registers take the next context while it is idle or at a
// tail, so nothing but registers feeds its arithmetic. Its commands go through a 3-stage data
// path (PHV block select / input beat, the byte rotation, the merge into the output beat) into a
// 2-entry output buffer. Header insertion and removal change the length: the rotation handles
// every shift amount. The input is a 4-beat FIFO.
//
// Latency:    5 + c cycles from the cycle of the first beat's handshake on s_axis to the first
//             beat offered on m_axis (the house convention), with the descriptor's handshake at
//             least PREP + 2 cycles earlier and the deparser idle: c is the number of FSM steps
//             before the first output beat is complete (0 when the first valid header run fills
//             a beat, e.g. Ethernet at 64 bits; at 512 bits headers shorter than a beat wait for
//             the payload and the tail: Ethernet/IPv4 + 22 bytes, c = 2).
//             PREP = 3 + max(tree levels, ceil(log2(HDRS)) - 1, 1): 6 for a 448-bit PHV.
// Throughput: per packet, one cycle per header chunk (a run of R bytes starting at fill f takes
//             ceil((f + R) / (DATA_WIDTH/8)) steps at most), one per payload beat and one for the
//             tail; input beats before the payload are dropped during the header steps; packets
//             follow each other without a gap. 64 bits: a 64-byte Ethernet/IPv4 packet in 10
//             cycles (10G line rate at 156.25 MHz allows 10.5), 1518 bytes in 192 (192.25);
//             512 bits: 3 and 26 cycles. phv_ready, s_axis_tready and the internal enable are
//             registers.
// Bad input:  tuser[0] of the input's last beat goes to the output's last beat (tuser is 0 on
//             other beats; tdata bytes beyond tkeep are 0). A descriptor
//             with drop, or whose output would be empty (no valid header, no payload), consumes
//             its packet and outputs nothing (stat_drop pulses once). A payload offset beyond
//             the packet gives no payload. Headers are taken as configured (bytes beyond the
//             PHV read as zero). Configuration changes while packets are in flight apply to
//             descriptors accepted afterwards (and, for the header slots, may mix for packets in
//             the context buffer): configure while idle.
// Parameters: DATA_WIDTH 64, 128, 256 or 512; KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//             PHV_BITS 16..4096; VALID_BITS 1..64; HDRS 1..16; CSUMS 0..4.
`default_nettype none

module fp_p4_deparser #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter USER_WIDTH = 1,
    parameter PHV_BITS   = 448,
    parameter VALID_BITS = 8,
    parameter HDRS       = 8,
    parameter CSUMS      = 1
) (
    input  wire                  clk,
    input  wire                  rst,

    // descriptor: one per packet, in packet order
    input  wire                  phv_valid,
    output wire                  phv_ready,
    input  wire [PHV_BITS-1:0]   phv,
    input  wire [VALID_BITS-1:0] phv_hdr_valid,
    input  wire [15:0]           phv_payload,
    input  wire                  phv_drop,

    // the original packet
    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [USER_WIDTH-1:0] s_axis_tuser,

    // the new packet
    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,
    output wire [USER_WIDTH-1:0] m_axis_tuser,

    // configuration
    input  wire                  cfg_wr_en,
    input  wire [11:0]           cfg_wr_addr,
    input  wire [31:0]           cfg_wr_data,

    output reg                   stat_drop
);

    // ---- geometry -------------------------------------------------------------------------
    `include "fp_p4_tree.vh"

    function integer f_max(input integer a, input integer b);
        begin
            f_max = (a > b) ? a : b;
        end
    endfunction

    localparam BW    = KEEP_WIDTH;                    // bytes per beat
    localparam BWL   = $clog2(BW);
    localparam FW    = BWL + 1;                       // fill level 0..BW
    localparam PB    = (PHV_BITS + 7) / 8;            // PHV bytes
    localparam PW    = (PB + 1) / 2;                  // 16-bit words summed by a checksum unit
    localparam NBLK  = (PB + BW - 1) / BW;            // PHV blocks of a beat
    localparam RS    = (HDRS > 1) ? $clog2(HDRS) : 0; // pointer-doubling steps of the runs
    localparam HIW   = (HDRS > 1) ? $clog2(HDRS) : 1; // header slot index
    localparam TL    = f_max(f_max(f_levels(PW, 4), RS - 1), 1);   // adder tree register levels
    localparam PREP  = TL + 3;                        // descriptor stages Q0 .. Q(TL+2)
    localparam KW    = 16 - BWL;                      // beat index within a packet
    localparam SUMW  = 28;                            // adder tree width (PW <= 2048 words)
    localparam NCS   = (CSUMS > 0) ? CSUMS : 1;
    localparam MASKW = 32 * ((PB + 31) / 32);

    /* verilator lint_off UNUSEDSIGNAL */
    function [HIW-1:0] f_idx(input integer v);   // a slot number as a slot index
        begin
            f_idx = v[HIW-1:0];
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    generate
        if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_64_128_256_or_512 u_error();
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
            PARAMETER_ERROR_KEEP_WIDTH_must_be_DATA_WIDTH_div_8 u_error();
        end
        if (USER_WIDTH < 1) begin : g_bad_user_width
            PARAMETER_ERROR_USER_WIDTH_must_be_at_least_1 u_error();
        end
        if (PHV_BITS < 16 || PHV_BITS > 4096) begin : g_bad_phv_bits
            PARAMETER_ERROR_PHV_BITS_must_be_16_to_4096 u_error();
        end
        if (VALID_BITS < 1 || VALID_BITS > 64) begin : g_bad_valid_bits
            PARAMETER_ERROR_VALID_BITS_must_be_1_to_64 u_error();
        end
        if (HDRS < 1 || HDRS > 16) begin : g_bad_hdrs
            PARAMETER_ERROR_HDRS_must_be_1_to_16 u_error();
        end
        if (CSUMS < 0 || CSUMS > 4) begin : g_bad_csums
            PARAMETER_ERROR_CSUMS_must_be_0_to_4 u_error();
        end
    endgenerate

    genvar gi, gj, gl, gu;
    integer i;

    // ---- configuration registers ----------------------------------------------------------
    reg  [HDRS-1:0]    h_en, h_cont;
    reg  [HDRS*6-1:0]  h_vbit;
    reg  [HDRS*12-1:0] h_start, h_end;
    /* verilator lint_off UNUSEDSIGNAL */
    // with CSUMS = 0 the checksum registers are written but never read
    reg  [NCS-1:0]     c_en, c_swap, c_cond;
    reg  [NCS*6-1:0]   c_tvbit, c_cvbit;
    reg  [NCS*12-1:0]  c_target;
    reg  [NCS*16-1:0]  c_addend;
    reg  [NCS*MASKW-1:0] c_mask;
    /* verilator lint_on UNUSEDSIGNAL */

    always @(posedge clk) begin
        if (rst) begin
            h_en <= {HDRS{1'b0}};
            c_en <= {NCS{1'b0}};
        end else if (cfg_wr_en) begin
            if (cfg_wr_addr[11:8] == 4'd0) begin
                for (i = 0; i < HDRS; i = i + 1) begin
                    if (cfg_wr_addr[7:0] == i[7:0]) begin
                        h_en[i]           <= cfg_wr_data[31];
                        h_cont[i]         <= cfg_wr_data[30];
                        h_vbit[i*6 +: 6]  <= cfg_wr_data[29:24];
                        h_start[i*12 +: 12] <= cfg_wr_data[23:12];
                        h_end[i*12 +: 12] <= cfg_wr_data[11:0];
                    end
                end
            end
            for (i = 0; i < CSUMS; i = i + 1) begin
                if ({28'd0, cfg_wr_addr[11:8]} == i + 1) begin
                    if (cfg_wr_addr[7:0] == 8'd0) begin
                        c_en[i]              <= cfg_wr_data[31];
                        c_swap[i]            <= cfg_wr_data[30];
                        c_cond[i]            <= cfg_wr_data[29];
                        c_tvbit[i*6 +: 6]    <= cfg_wr_data[23:18];
                        c_cvbit[i*6 +: 6]    <= cfg_wr_data[17:12];
                        c_target[i*12 +: 12] <= cfg_wr_data[11:0];
                    end else if (cfg_wr_addr[7:0] == 8'd1) begin
                        c_addend[i*16 +: 16] <= cfg_wr_data[15:0];
                    end else if ({24'd0, cfg_wr_addr[7:0]} - 32'd2 < MASKW / 32) begin
                        c_mask[i*MASKW + 32*({24'd0, cfg_wr_addr[7:0]} - 32'd2) +: 32] <= cfg_wr_data;
                    end
                end
            end
        end
    end

    // ---- descriptor pipeline: checksums and header runs -----------------------------------
    // Q0 holds the descriptor; every stage advances with `pen` (a register: 1 when the context
    // buffer will hold at most one context after this cycle).
    reg              pen;
    reg  [PREP-1:0]  qv;
    reg              xv;             // the context stage (after Q(PREP-1)) holds a descriptor
    reg  [1:0]       cb_count;
    wire             cb_push = pen && xv;
    wire             cb_pop;
    wire [1:0]       cb_next = cb_count + {1'b0, cb_push} - {1'b0, cb_pop};

    assign phv_ready = pen;

    always @(posedge clk) begin
        if (rst) begin
            pen      <= 1'b1;
            qv       <= {PREP{1'b0}};
            cb_count <= 2'd0;
        end else begin
            pen      <= cb_next < 2'd2;
            cb_count <= cb_next;
            if (pen) begin
                qv <= {qv[PREP-2:0], phv_valid};
            end
        end
    end

    // the PHV as bytes, byte 0 = the PHV's first (most significant) byte
    wire [PB*8-1:0] phv_le;
    generate
        for (gi = 0; gi < PB; gi = gi + 1) begin : g_le
            if (PHV_BITS - 8 * gi >= 8) begin : g_full
                assign phv_le[gi*8 +: 8] = phv[PHV_BITS - 1 - 8*gi -: 8];
            end else begin : g_part
                assign phv_le[gi*8 +: 8] = {phv[PHV_BITS - 1 - 8*gi : 0], {(8 - (PHV_BITS - 8*gi)){1'b0}}};
            end
        end
    endgenerate

    // per stage: PHV bytes, payload offset, drop, checksum apply flags; runs
    wire [PREP*PB*8-1:0]  q_phv;
    wire [PREP*16-1:0]    q_off;
    wire [PREP-1:0]       q_drop;
    wire [PREP*NCS-1:0]   q_apply;
    /* verilator lint_off UNUSEDSIGNAL */
    // Unused bits: stage 0 carries no runs (they begin in stage 1), and nothing reads the last
    // stage's links
    wire [PREP*HDRS-1:0]  q_start;   // slot starts a run
    wire [PREP*HDRS-1:0]  q_link;    // the run of slot i continues past the doubling window
    wire [PREP*HDRS*12-1:0] q_end;   // end byte of the run from slot i (so far)
    wire [PREP*HDRS-1:0]  q_nf;      // slot i: a run starts after it (within the doubling window)
    wire [PREP*HDRS*HIW-1:0] q_nx;   // ... at this slot
    wire [PREP*HDRS-1:0]  q_oh0;     // the first run's start slot (one-hot; from stage 2 on)
    wire [PREP*HDRS-1:0]  q_oh1;     // the second run's
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [VALID_BITS-1:0] q0_hv;
    wire [63:0]           hv64;      // the validity bits, indexed by a 6-bit configuration field
    generate
        if (VALID_BITS < 64) begin : g_hv_pad
            assign hv64 = {{(64-VALID_BITS){1'b0}}, q0_hv};
        end else begin : g_hv
            assign hv64 = q0_hv;
        end
    endgenerate

    generate
        for (gl = 0; gl < PREP; gl = gl + 1) begin : g_q
            reg [PB*8-1:0] p_q;
            reg [15:0]     off_q;
            reg            drop_q;
            if (gl == 0) begin : g_in
                always @(posedge clk) begin
                    if (pen) begin
                        p_q    <= phv_le;
                        off_q  <= phv_payload;
                        drop_q <= phv_drop;
                        q0_hv  <= phv_hdr_valid;
                    end
                end
                // not used in stage 0
                assign q_apply[0 +: NCS]     = {NCS{1'b0}};
                assign q_start[0 +: HDRS]    = {HDRS{1'b0}};
                assign q_link[0 +: HDRS]     = {HDRS{1'b0}};
                assign q_end[0 +: HDRS*12]   = {HDRS*12{1'b0}};
                assign q_oh0[0 +: HDRS]      = {HDRS{1'b0}};
                assign q_nf[0 +: HDRS]       = {HDRS{1'b0}};
                assign q_nx[0 +: HDRS*HIW]   = {HDRS*HIW{1'b0}};
                assign q_oh1[0 +: HDRS]      = {HDRS{1'b0}};
            end else if (gl == 1) begin : g_first
                // validity -> slot on / run start / link, and the first doubling step
                reg [NCS-1:0]     apply_q;
                reg [HDRS-1:0]    start_q, link_q;
                reg [HDRS*12-1:0] end_q;
                reg [HDRS-1:0]    on, st, lk, lk1;
                reg [HDRS*12-1:0] e1;
                reg [NCS-1:0]     ap;
                reg [HDRS-1:0]    nf1, nf_q;
                reg [HDRS*HIW-1:0] nx1, nx_q;
                integer h, u;
                always @(*) begin
                    for (h = 0; h < HDRS; h = h + 1) begin
                        on[h] = h_en[h] && hv64[h_vbit[h*6 +: 6]];
                    end
                    for (h = 0; h < HDRS; h = h + 1) begin
                        st[h] = on[h] && !(h > 0 && h_cont[h] && on[(h > 0) ? h - 1 : 0]);
                        lk[h] = (h + 1 < HDRS) && on[(h + 1 < HDRS) ? h + 1 : h] && h_cont[(h + 1 < HDRS) ? h + 1 : h];
                    end
                    for (h = 0; h < HDRS; h = h + 1) begin
                        if (lk[h]) begin
                            e1[h*12 +: 12] = h_end[((h + 1 < HDRS) ? h + 1 : h)*12 +: 12];
                            lk1[h] = lk[(h + 1 < HDRS) ? h + 1 : h] && (h + 1 < HDRS);
                        end else begin
                            e1[h*12 +: 12] = h_end[h*12 +: 12];
                            lk1[h] = 1'b0;
                        end
                    end
                    for (u = 0; u < NCS; u = u + 1) begin
                        ap[u] = (u < CSUMS) && c_en[u] && hv64[c_tvbit[u*6 +: 6]]
                                && (!c_cond[u] || hv64[c_cvbit[u*6 +: 6]]);
                    end
                    // the next run start after slot h, among the next two slots
                    for (h = 0; h < HDRS; h = h + 1) begin
                        nf1[h] = 1'b0;
                        nx1[h*HIW +: HIW] = {HIW{1'b0}};
                        if (h + 2 < HDRS && st[(h + 2 < HDRS) ? h + 2 : h]) begin
                            nf1[h] = 1'b1;
                            nx1[h*HIW +: HIW] = f_idx(h + 2);
                        end
                        if (h + 1 < HDRS && st[(h + 1 < HDRS) ? h + 1 : h]) begin
                            nf1[h] = 1'b1;
                            nx1[h*HIW +: HIW] = f_idx(h + 1);
                        end
                    end
                end
                always @(posedge clk) begin
                    if (pen) begin
                        p_q     <= q_phv[0 +: PB*8];
                        off_q   <= q_off[0 +: 16];
                        drop_q  <= q_drop[0];
                        apply_q <= ap;
                        start_q <= st;
                        link_q  <= lk1;
                        end_q   <= e1;
                        nf_q    <= nf1;
                        nx_q    <= nx1;
                    end
                end
                assign q_nf[gl*HDRS +: HDRS]        = nf_q;
                assign q_nx[gl*HDRS*HIW +: HDRS*HIW] = nx_q;
                assign q_apply[gl*NCS +: NCS]       = apply_q;
                assign q_start[gl*HDRS +: HDRS]     = start_q;
                assign q_link[gl*HDRS +: HDRS]      = link_q;
                assign q_end[gl*HDRS*12 +: HDRS*12] = end_q;
                assign q_oh0[gl*HDRS +: HDRS]       = {HDRS{1'b0}};
                assign q_oh1[gl*HDRS +: HDRS]       = {HDRS{1'b0}};
            end else begin : g_next
                // doubling step gl-1: jump 2^(gl-1) slots (a plain copy once the steps are done)
                localparam J = (gl - 1 < RS) ? (1 << (gl - 1)) : 0;
                reg [NCS-1:0]     apply_q;
                reg [HDRS-1:0]    start_q, link_q;
                reg [HDRS*12-1:0] end_q;
                reg [HDRS-1:0]    lk;
                reg [HDRS*12-1:0] e;
                wire [HDRS-1:0]    lk_p = q_link[(gl-1)*HDRS +: HDRS];
                wire [HDRS*12-1:0] e_p  = q_end[(gl-1)*HDRS*12 +: HDRS*12];
                wire [HDRS-1:0]    nf_p = q_nf[(gl-1)*HDRS +: HDRS];
                wire [HDRS*HIW-1:0] nx_p = q_nx[(gl-1)*HDRS*HIW +: HDRS*HIW];
                reg  [HDRS-1:0]    nf, nf_q;
                reg  [HDRS*HIW-1:0] nx, nx_q;
                integer h;
                always @(*) begin
                    // the next run start: the window doubles (2^gl slots after this stage)
                    for (h = 0; h < HDRS; h = h + 1) begin
                        if (J > 0 && !nf_p[h] && h + J < HDRS) begin
                            nf[h] = nf_p[(h + J < HDRS) ? h + J : h];
                            nx[h*HIW +: HIW] = nx_p[((h + J < HDRS) ? h + J : h)*HIW +: HIW];
                        end else begin
                            nf[h] = nf_p[h];
                            nx[h*HIW +: HIW] = nx_p[h*HIW +: HIW];
                        end
                    end
                    for (h = 0; h < HDRS; h = h + 1) begin
                        if (J > 0 && lk_p[h] && h + J < HDRS) begin
                            e[h*12 +: 12] = e_p[((h + J < HDRS) ? h + J : h)*12 +: 12];
                            lk[h] = lk_p[(h + J < HDRS) ? h + J : h];
                        end else begin
                            e[h*12 +: 12] = e_p[h*12 +: 12];
                            lk[h] = (J > 0) ? 1'b0 : lk_p[h];
                        end
                    end
                end
                // the first two run starts (the starts are final from stage 1 on)
                reg  [HDRS-1:0] oh0_q, oh1_q;
                wire [HDRS-1:0] st_p = q_start[(gl-1)*HDRS +: HDRS];
                wire [HDRS-1:0] o0   = st_p & (~st_p + 1'b1);
                wire [HDRS-1:0] m1   = st_p & ~o0;
                wire [HDRS-1:0] o1   = m1 & (~m1 + 1'b1);
                always @(posedge clk) begin
                    if (pen) begin
                        p_q     <= q_phv[(gl-1)*PB*8 +: PB*8];
                        off_q   <= q_off[(gl-1)*16 +: 16];
                        drop_q  <= q_drop[gl-1];
                        apply_q <= q_apply[(gl-1)*NCS +: NCS];
                        start_q <= st_p;
                        link_q  <= lk;
                        end_q   <= e;
                        oh0_q   <= (gl == 2) ? o0 : q_oh0[(gl-1)*HDRS +: HDRS];
                        oh1_q   <= (gl == 2) ? o1 : q_oh1[(gl-1)*HDRS +: HDRS];
                        nf_q    <= nf;
                        nx_q    <= nx;
                    end
                end
                assign q_nf[gl*HDRS +: HDRS]        = nf_q;
                assign q_nx[gl*HDRS*HIW +: HDRS*HIW] = nx_q;
                assign q_oh0[gl*HDRS +: HDRS] = oh0_q;
                assign q_oh1[gl*HDRS +: HDRS] = oh1_q;
                assign q_apply[gl*NCS +: NCS]       = apply_q;
                assign q_start[gl*HDRS +: HDRS]     = start_q;
                assign q_link[gl*HDRS +: HDRS]      = link_q;
                assign q_end[gl*HDRS*12 +: HDRS*12] = end_q;
            end
            assign q_phv[gl*PB*8 +: PB*8] = p_q;
            assign q_off[gl*16 +: 16]     = off_q;
            assign q_drop[gl]             = drop_q;
        end
    endgenerate

    // checksum units: masked 16-bit words of Q0 -> radix-4 adder tree (stages Q1 .. Q(TL)) ->
    // fold (Q(TL+1)) -> swap, addend, fold, complement (Q(TL+2))
    wire [NCS*16-1:0] csum;
    generate
        for (gu = 0; gu < NCS; gu = gu + 1) begin : g_cs
            if (gu < CSUMS) begin : g_unit
                wire [PB*8-1:0] p0 = q_phv[0 +: PB*8];
                wire [PW*SUMW-1:0] leaves;
                for (gj = 0; gj < PW; gj = gj + 1) begin : g_word
                    wire [7:0] hi = c_mask[gu*MASKW + 2*gj] ? p0[(2*gj)*8 +: 8] : 8'd0;
                    wire [7:0] lo;
                    if (2 * gj + 1 < PB) begin : g_lo
                        assign lo = c_mask[gu*MASKW + 2*gj + 1] ? p0[(2*gj+1)*8 +: 8] : 8'd0;
                    end else begin : g_pad
                        assign lo = 8'd0;
                    end
                    assign leaves[gj*SUMW +: SUMW] = {{(SUMW-16){1'b0}}, hi, lo};
                end
                // tree: level l (1..TL) has f_count(PW, 4, l) nodes, registered in stage Q(l)
                /* verilator lint_off UNUSEDSIGNAL */
                // a flat vector of every level: each node uses its level's low bits
                wire [(TL+1)*PW*SUMW-1:0] lv;     // level l at [l*PW*SUMW ...]
                /* verilator lint_on UNUSEDSIGNAL */
                assign lv[0 +: PW*SUMW] = leaves;
                for (gl = 1; gl <= TL; gl = gl + 1) begin : g_lvl
                    localparam NB = f_count(PW, 4, gl - 1);
                    localparam N  = f_count(PW, 4, gl);
                    // level gl's sums are 16 + 2 gl bits wide (4 children of 16 + 2 (gl - 1) bits)
                    localparam LW = (16 + 2 * gl < SUMW) ? 16 + 2 * gl : SUMW;
                    localparam CW = LW - 2;
                    for (gj = 0; gj < N; gj = gj + 1) begin : g_node
                        localparam K = (NB - 4 * gj < 4) ? NB - 4 * gj : 4;
                        wire [CW-1:0] c0 = lv[(gl-1)*PW*SUMW + (4*gj)*SUMW +: CW];
                        wire [CW-1:0] c1 = (K > 1) ? lv[(gl-1)*PW*SUMW + (4*gj + ((K > 1) ? 1 : 0))*SUMW +: CW] : {CW{1'b0}};
                        wire [CW-1:0] c2 = (K > 2) ? lv[(gl-1)*PW*SUMW + (4*gj + ((K > 2) ? 2 : 0))*SUMW +: CW] : {CW{1'b0}};
                        wire [CW-1:0] c3 = (K > 3) ? lv[(gl-1)*PW*SUMW + (4*gj + ((K > 3) ? 3 : 0))*SUMW +: CW] : {CW{1'b0}};
                        reg  [LW-1:0] s_q;
                        always @(posedge clk) begin
                            if (pen) begin
                                s_q <= ({2'b00, c0} + {2'b00, c1}) + ({2'b00, c2} + {2'b00, c3});
                            end
                        end
                        assign lv[gl*PW*SUMW + gj*SUMW +: SUMW] = {{(SUMW-LW){1'b0}}, s_q};
                    end
                    if (N < PW) begin : g_fill
                        assign lv[gl*PW*SUMW + N*SUMW +: (PW-N)*SUMW] = {(PW-N)*SUMW{1'b0}};
                    end
                end
                wire [SUMW-1:0] root = lv[TL*PW*SUMW +: SUMW];
                wire [16:0]     f1   = {1'b0, root[15:0]} + {5'd0, root[SUMW-1:16]};
                reg  [15:0]     fold_q;
                always @(posedge clk) begin
                    if (pen) begin
                        fold_q <= f1[15:0] + {15'd0, f1[16]};
                    end
                end
                wire [15:0] sw = c_swap[gu] ? {fold_q[7:0], fold_q[15:8]} : fold_q;
                wire [16:0] g1 = {1'b0, sw} + {1'b0, c_addend[gu*16 +: 16]};
                reg  [15:0] cs_q;
                always @(posedge clk) begin
                    if (pen) begin
                        cs_q <= ~(g1[15:0] + {15'd0, g1[16]});
                    end
                end
                assign csum[gu*16 +: 16] = cs_q;
            end else begin : g_none
                assign csum[gu*16 +: 16] = 16'd0;
            end
        end
    endgenerate

    // the last stage -> the context stage (registered): PHV with the checksums written, the first
    // two runs (first byte, end byte), the run starts after them, every slot's run end
    localparam L = PREP - 1;
    wire [HDRS-1:0]    l_start = q_start[L*HDRS +: HDRS];
    wire [HDRS*12-1:0] l_end   = q_end[L*HDRS*12 +: HDRS*12];
    wire [HDRS-1:0]    oh0 = q_oh0[L*HDRS +: HDRS];               // the lowest run start
    wire [HDRS-1:0]    oh1 = q_oh1[L*HDRS +: HDRS];               // the next one
    reg  [PB*8-1:0]    cx_phv;
    reg  [11:0]        cx_s0, cx_e0, cx_s1, cx_e1;
    integer cu, cb, ch;
    always @(*) begin
        cx_phv = q_phv[L*PB*8 +: PB*8];
        for (cu = 0; cu < CSUMS; cu = cu + 1) begin
            for (cb = 0; cb < PB; cb = cb + 1) begin
                if (q_apply[L*NCS + cu] && c_target[cu*12 +: 12] == cb[11:0]) begin
                    cx_phv[cb*8 +: 8] = csum[cu*16 + 8 +: 8];
                end
                if (q_apply[L*NCS + cu] && c_target[cu*12 +: 12] + 12'd1 == cb[11:0]) begin
                    cx_phv[cb*8 +: 8] = csum[cu*16 +: 8];
                end
            end
        end
        cx_s0 = 12'd0;
        cx_e0 = 12'd0;
        cx_s1 = 12'd0;
        cx_e1 = 12'd0;
        for (ch = 0; ch < HDRS; ch = ch + 1) begin
            cx_s0 = cx_s0 | (oh0[ch] ? h_start[ch*12 +: 12] : 12'd0);
            cx_e0 = cx_e0 | (oh0[ch] ? l_end[ch*12 +: 12] : 12'd0);
            cx_s1 = cx_s1 | (oh1[ch] ? h_start[ch*12 +: 12] : 12'd0);
            cx_e1 = cx_e1 | (oh1[ch] ? l_end[ch*12 +: 12] : 12'd0);
        end
    end

    reg  [PB*8-1:0]    x_phv;
    reg  [HDRS*12-1:0] x_len;            // every slot's run length
    reg  [HDRS-1:0]    x_nf;             // after slot i a run starts ...
    reg  [HDRS*HIW-1:0] x_nx;            // ... at this slot
    reg  [HIW-1:0]     x_idx1;           // the second run's slot
    reg                x_any, x_two, x_drop;
    reg  [11:0]        x_s0, x_e0, x_s1, x_e1;
    reg  [15:0]        x_off;
    always @(posedge clk) begin
        if (pen) begin
            x_phv  <= cx_phv;
            x_nf   <= q_nf[L*HDRS +: HDRS];
            x_nx   <= q_nx[L*HDRS*HIW +: HDRS*HIW];
            x_idx1 <= {HIW{1'b0}};
            for (ch = 0; ch < HDRS; ch = ch + 1) begin
                if (oh1[ch]) begin
                    x_idx1 <= ch[HIW-1:0];
                end
            end
            for (ch = 0; ch < HDRS; ch = ch + 1) begin
                x_len[ch*12 +: 12] <= l_end[ch*12 +: 12] - h_start[ch*12 +: 12];
            end
            x_any  <= |l_start;
            x_two  <= |oh1;
            x_s0   <= cx_s0;
            x_e0   <= cx_e0;
            x_s1   <= cx_s1;
            x_e1   <= cx_e1;
            x_off  <= q_off[L*16 +: 16];
            x_drop <= q_drop[L];
        end
        if (rst) begin
            xv <= 1'b0;
        end else if (pen) begin
            xv <= qv[PREP-1];
        end
    end

    // per slot, the run after it: found, slot, first byte, length
    reg  [HDRS*12-1:0] a_ns, a_nl;
    always @(*) begin
        for (ch = 0; ch < HDRS; ch = ch + 1) begin
            a_ns[ch*12 +: 12] = h_start[x_nx[ch*HIW +: HIW]*12 +: 12];
            a_nl[ch*12 +: 12] = x_len[x_nx[ch*HIW +: HIW]*12 +: 12];
        end
    end

    // context buffer (2 entries, head = c0)
    localparam CXW = PB*8 + HDRS*(1 + HIW + 24) + HIW + 2 + 48 + 16 + 1;
    wire [CXW-1:0] cx_in = {x_phv, x_nf, x_nx, a_ns, a_nl, x_idx1, x_any, x_two, x_s0, x_e0 - x_s0, x_s1,
                            x_e1 - x_s1, x_off, x_drop};
    reg  [CXW-1:0] c0, c1;
    always @(posedge clk) begin
        if (cb_push && (cb_count == 2'd0 || (cb_count == 2'd1 && cb_pop))) begin
            c0 <= cx_in;
        end else if (cb_pop && cb_count == 2'd2) begin
            c0 <= c1;
        end
        if (cb_push && cb_count == 2'd1 && !cb_pop) begin
            c1 <= cx_in;
        end
    end
    wire [PB*8-1:0]    c0_phv;
    wire [HDRS-1:0]    c0_nf;
    wire [HDRS*HIW-1:0] c0_nx;
    wire [HDRS*12-1:0] c0_ns, c0_nl;
    wire [HIW-1:0]     c0_idx1;
    wire               c0_any, c0_two, c0_drop;
    wire [11:0]        c0_s0, c0_l0, c0_s1, c0_l1;
    wire [15:0]        c0_off;
    assign {c0_phv, c0_nf, c0_nx, c0_ns, c0_nl, c0_idx1, c0_any, c0_two, c0_s0, c0_l0, c0_s1, c0_l1, c0_off,
            c0_drop} = c0;

    // ---- input FIFO: 4 beats, each with its byte count ---------------------------------------
    // The FSM pops by moving a read pointer (a few flip-flops), and reads the head through a
    // multiplexer selected by that register; s_axis_tready is a register ("not full next").
    reg [FW-1:0] in_cnt;
    always @(*) begin
        in_cnt = {FW{1'b0}};
        for (i = 0; i < BW; i = i + 1) begin
            if (s_axis_tkeep[i]) begin
                in_cnt = i[FW-1:0] + 1'b1;
            end
        end
    end

    localparam IFW = DATA_WIDTH + FW + 1 + USER_WIDTH;
    reg  [IFW-1:0] if_mem [0:3];
    reg  [1:0]     if_wp, if_rp;
    reg  [2:0]     if_count;
    reg            if_ready;
    wire           ib_ready;
    wire           if_wr = s_axis_tvalid && if_ready;
    wire [2:0]     if_next = if_count + {2'd0, if_wr} - {2'd0, ib_ready};
    assign s_axis_tready = if_ready;

    always @(posedge clk) begin
        if (if_wr) begin
            if_mem[if_wp] <= {s_axis_tdata, in_cnt, s_axis_tlast, s_axis_tuser};
        end
        if (rst) begin
            if_wp    <= 2'd0;
            if_rp    <= 2'd0;
            if_count <= 3'd0;
            if_ready <= 1'b0;
        end else begin
            if_wp    <= if_wp + {1'b0, if_wr};
            if_rp    <= if_rp + {1'b0, ib_ready};
            if_count <= if_next;
            if_ready <= if_next < 3'd4;
        end
    end

    wire [DATA_WIDTH-1:0] ib_data;
    wire [FW-1:0]         ib_cnt;
    wire                  ib_last;
    wire [USER_WIDTH-1:0] ib_user;
    wire                  ib_valid = if_count != 3'd0;
    assign {ib_data, ib_cnt, ib_last, ib_user} = if_mem[if_rp];

    // ---- control FSM ----------------------------------------------------------------------
    // Every path starts at registers and stays short: the next packet's context is loaded into
    // the state registers while the FSM is idle or ends a packet (no multiplexer in front of
    // the arithmetic at a start), a packet always ends with a TAIL step (so `done` is a state,
    // not the result of arithmetic), the current run is (next byte, bytes left) and the next
    // one is looked up a run ahead, where the payload offset lies is kept as flags.
    localparam [1:0] PH_HDR = 2'd0, PH_PAY = 2'd1, PH_TAIL = 2'd2, PH_DROP = 2'd3;
    localparam [31:0]   BW32 = BW;
    localparam [FW-1:0] FULL = BW32[FW-1:0];

    reg                en;           // the whole packet path advances (output buffer has room)
    reg                busy;         // a packet is being walked
    reg                loaded;       // the state registers hold the context at the buffer's head
    reg  [1:0]         ph;
    reg  [BWL-1:0]     f;            // bytes in the output beat being built (0 when held)
    reg                held;         // the output beat is full and not sent yet
    reg  [11:0]        rs, rl;       // current run: next PHV byte, bytes left
    reg                nv;           // a next run exists
    reg  [11:0]        ns, nl;       // next run: first byte, length
    reg  [HIW-1:0]     nidx;         // ... its first slot
    reg  [HDRS-1:0]    a_nf_q;       // this packet, per slot: a run follows it,
    reg  [HDRS*HIW-1:0] a_nx_q;      // ... at this slot,
    reg  [HDRS*12-1:0] a_ns_q, a_nl_q;   // ... with this first byte and length
    reg  [KW:0]        kd;           // beats before the one holding the payload offset
    reg                at_p, after_p;   // the beat at the input is that beat / after it
    reg  [BWL-1:0]     pmod;         // the payload offset within that beat
    reg  [FW-1:0]      pm_room;      // BW - pmod: payload bytes of that beat when it is not the last
    reg                known;        // the payload is known not to be empty
    reg  [USER_WIDTH-1:0] luser;     // tuser of the last input beat (for the tail)
    reg  [PB*8-1:0]    cur_phv;      // this packet's PHV (read by the data path)

    wire               start  = !busy && loaded && ib_valid;
    wire               active = busy || start;

    // the FSM copies the head context into its registers when it loads (idle, or at a
    // packet's TAIL): that frees the buffer entry at once
    wire               load   = busy ? ph == PH_TAIL : !loaded;
    assign cb_pop = en && load && cb_count != 2'd0;

    // the run after the next one: a multiplexer by the next run's slot (a register)
    wire               lk_v   = a_nf_q[nidx];
    wire [HIW-1:0]     lk_idx = a_nx_q[nidx*HIW +: HIW];
    wire [11:0]        lk_s   = a_ns_q[nidx*12 +: 12];
    wire [11:0]        lk_l   = a_nl_q[nidx*12 +: 12];

    // header step: t = f + rl, the bytes in the beat if the rest of the run went in; the
    // decisions come from a BWL-bit sum (rl's low bits + f) and zero tests, not from t
    wire [BWL:0]    t_lo   = {1'b0, rl[BWL-1:0]} + {1'b0, f};
    wire            rl_big = rl[11:BWL] != {(12-BWL){1'b0}};
    wire            h_full = rl_big || t_lo[BWL];
    wire            h_done = rl_big ? (rl[11:BWL] == {{(11-BWL){1'b0}}, 1'b1} && rl[BWL-1:0] == {BWL{1'b0}}
                                       && f == {BWL{1'b0}})
                                    : (!t_lo[BWL] || t_lo[BWL-1:0] == {BWL{1'b0}});
    wire [11:0]     rs_adv = rs + ({{(12-FW){1'b0}}, FULL} - {{(12-BWL){1'b0}}, f});
    wire [11:0]     rl_adv = rl + {{(12-BWL){1'b0}}, f} - BW32[11:0];   // when not h_done: f + rl > BW
    // payload step: the bytes in the beat after this input beat's payload went in
    wire [FW:0]     pc_m   = {1'b0, ib_cnt} - {2'b0, pmod};          // payload bytes of the offset's beat
    wire [FW-1:0]   t_full = {1'b1, f};
    wire [FW-1:0]   t_cnt  = {1'b0, f} + ib_cnt;
    wire [FW-1:0]   t_pm   = {1'b0, f} + pm_room;
    wire [FW-1:0]   t_pc   = pc_m[FW] ? {1'b0, f} : {1'b0, f} + pc_m[FW-1:0];
    reg  [FW-1:0]   tot;
    wire            skip_ok  = ib_valid && !ib_last && !at_p && !after_p;
    wire            nonempty = ib_valid && (after_p || (at_p && (!ib_last || !pc_m[FW] && pc_m != {(FW+1){1'b0}})));
    wire            n_known  = known || nonempty;

    // command to the data path
    reg                cmd_v, cmd_hdr, cmd_push, cmd_last;
    reg  [BWL-1:0]     cmd_rot;      // rotation (bytes, towards higher lanes)
    reg  [FW-1:0]      cmd_mlo, cmd_mhi;  // lanes [lo, hi) of the source merged into the beat
    reg  [FW-1:0]      cmd_keep;     // bytes of a pushed beat
    reg  [USER_WIDTH-1:0] cmd_user;
    reg                pop, done, drop_now, nrun;
    // next state
    reg  [1:0]         n_ph;
    reg  [BWL-1:0]     n_f;
    reg                n_held;
    reg  [11:0]        n_rs, n_rl;
    reg                final_chunk;

    always @(*) begin
        cmd_v = 1'b0; cmd_hdr = 1'b0; cmd_push = 1'b0; cmd_last = 1'b0;
        cmd_rot = {BWL{1'b0}}; cmd_mlo = {FW{1'b0}}; cmd_mhi = {FW{1'b0}};
        cmd_keep = FULL; cmd_user = luser;
        pop = 1'b0; done = 1'b0; drop_now = 1'b0; nrun = 1'b0;
        n_ph = ph; n_f = f; n_held = held; n_rs = rs; n_rl = rl;
        final_chunk = h_done && !nv;
        case ({at_p, after_p, ib_last})
            3'b011:  tot = t_cnt;
            3'b010:  tot = t_full;
            3'b101:  tot = t_pc;
            3'b100:  tot = t_pm;
            default: tot = {1'b0, f};
        endcase

        if (active) begin
            case (ph)
                PH_HDR: begin
                    cmd_v   = 1'b1;
                    cmd_hdr = 1'b1;
                    cmd_rot = f - rs[BWL-1:0];
                    cmd_push = held || (h_full && (!final_chunk || n_known));
                    if (!held) begin
                        cmd_mlo = {1'b0, f};
                        cmd_mhi = h_full ? FULL : {1'b0, t_lo[BWL-1:0]};
                    end
                    if (h_full) begin
                        n_f    = {BWL{1'b0}};
                        n_held = held || !cmd_push;
                    end else begin
                        n_f    = t_lo[BWL-1:0];
                        n_held = 1'b0;
                    end
                    if (h_done) begin
                        if (nv) begin
                            nrun = 1'b1;
                            n_rs = ns;
                            n_rl = nl;
                        end else begin
                            n_ph = PH_PAY;
                        end
                    end else begin
                        n_rs = rs_adv;
                        n_rl = rl_adv;
                    end
                    pop = skip_ok;
                end
                PH_PAY: begin
                    if (skip_ok) begin
                        pop = 1'b1;
                    end else if (ib_valid) begin
                        pop     = 1'b1;
                        cmd_v   = 1'b1;
                        cmd_rot = f - (at_p ? pmod : {BWL{1'b0}});
                        if (held) begin
                            cmd_push = !(ib_last && tot == {FW{1'b0}});
                            n_held   = tot == {FW{1'b0}} || tot == FULL;
                        end else begin
                            cmd_mlo  = {1'b0, f};
                            cmd_mhi  = tot[BWL] ? FULL : tot;
                            cmd_push = tot[BWL] && !(ib_last && tot == FULL);
                            n_held   = ib_last && tot == FULL;
                        end
                        n_f = tot[BWL-1:0];
                        if (ib_last) begin
                            n_ph = PH_TAIL;
                        end
                    end
                end
                PH_TAIL: begin
                    cmd_v    = held || f != {BWL{1'b0}};
                    cmd_push = 1'b1;
                    cmd_last = 1'b1;
                    cmd_keep = held ? FULL : {1'b0, f};
                    done     = 1'b1;
                    drop_now = !cmd_v;
                end
                default: begin   // PH_DROP
                    if (ib_valid) begin
                        pop = 1'b1;
                        if (ib_last) begin
                            n_ph = PH_TAIL;
                        end
                    end
                end
            endcase
        end
    end

    assign ib_ready = en && pop;

    // the state a context starts with
    wire [KW-1:0] c0_pbeat = c0_off[15:BWL];

    always @(posedge clk) begin
        if (rst) begin
            busy      <= 1'b0;
            loaded    <= 1'b0;
            stat_drop <= 1'b0;
        end else begin
            stat_drop <= en && drop_now;
            if (en) begin
                busy <= active && !done;
                if (load) begin
                    loaded <= cb_count != 2'd0;
                end else if (start) begin
                    loaded <= 1'b0;
                end
            end
        end
        if (en && load) begin
            ph      <= c0_drop ? PH_DROP : (c0_any ? PH_HDR : PH_PAY);
            f       <= {BWL{1'b0}};
            held    <= 1'b0;
            rs      <= c0_s0;
            rl      <= c0_l0;
            nv      <= c0_two;
            ns      <= c0_s1;
            nl      <= c0_l1;
            nidx    <= c0_idx1;
            a_nf_q  <= c0_nf;
            a_nx_q  <= c0_nx;
            a_ns_q  <= c0_ns;
            a_nl_q  <= c0_nl;
            kd      <= {1'b0, c0_pbeat};
            at_p    <= c0_pbeat == {KW{1'b0}};
            after_p <= 1'b0;
            pmod    <= c0_off[BWL-1:0];
            pm_room <= FULL - {1'b0, c0_off[BWL-1:0]};
            known   <= 1'b0;
            cur_phv <= c0_phv;
        end else if (en && active) begin
            ph    <= n_ph;
            f     <= n_f;
            held  <= n_held;
            rs    <= n_rs;
            rl    <= n_rl;
            known <= n_known;
            if (pop) begin
                kd      <= kd - 1'b1;
                at_p    <= kd == {{KW{1'b0}}, 1'b1};
                after_p <= after_p || at_p;
            end
            if (nrun) begin
                nv   <= lk_v;
                ns   <= lk_s;
                nl   <= lk_l;
                nidx <= lk_idx;
            end
            if (pop && ib_last) begin
                luser <= ib_user;
            end
        end
    end

    // ---- data path: C1 (PHV blocks / input beat), C2 (rotation), C3 (merge) --------------
    reg                   c1_v, c1_hdr, c1_push, c1_last;
    reg  [11:0]           c1_s;
    reg  [BWL-1:0]        c1_rot;
    reg  [FW-1:0]         c1_mlo, c1_mhi, c1_keep;
    reg  [USER_WIDTH-1:0] c1_user;
    reg  [DATA_WIDTH-1:0] c1_data;

    reg                   c2_v, c2_push, c2_last;
    reg  [BWL-1:0]        c2_rot;
    reg  [BW-1:0]         c2_m;
    reg  [FW-1:0]         c2_keep;
    reg  [USER_WIDTH-1:0] c2_user;
    reg  [DATA_WIDTH-1:0] c2_x;

    reg                   c3_v, c3_push, c3_last;
    reg  [BW-1:0]         c3_m;
    reg  [FW-1:0]         c3_keep;
    reg  [USER_WIDTH-1:0] c3_user;
    reg  [DATA_WIDTH-1:0] c3_src;

    reg  [DATA_WIDTH-1:0] acc;

    // C1: the two PHV blocks around the chunk's first byte, merged so that lane j holds the
    // PHV byte of the chunk that belongs there before the rotation
    /* verilator lint_off UNUSEDSIGNAL */
    // shifter output: only the two blocks at the bottom are used
    wire [(NBLK+2)*DATA_WIDTH-1:0] blk_src = {{((NBLK+2)*DATA_WIDTH - PB*8){1'b0}}, cur_phv};
    wire [(NBLK+2)*DATA_WIDTH-1:0] blk_sh  = blk_src >> (c1_s[11:BWL] * DATA_WIDTH);
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [DATA_WIDTH-1:0] x_c;
    reg  [BW-1:0]         m_c;
    always @(*) begin
        for (i = 0; i < BW; i = i + 1) begin
            x_c[i*8 +: 8] = (i >= c1_s[BWL-1:0]) ? blk_sh[i*8 +: 8] : blk_sh[DATA_WIDTH + i*8 +: 8];
            m_c[i] = (i >= c1_mlo) && (i < c1_mhi);
        end
        if (!c1_hdr) begin
            x_c = c1_data;
        end
    end

    // C2: rotate by c2_rot lanes towards the higher lanes
    /* verilator lint_off UNUSEDSIGNAL */
    wire [2*DATA_WIDTH-1:0] rot_sh = {c2_x, c2_x} << {c2_rot, 3'b000};   // rotation = its upper half
    /* verilator lint_on UNUSEDSIGNAL */

    // C3: merge into the beat being built
    reg  [DATA_WIDTH-1:0] beat;
    always @(*) begin
        for (i = 0; i < BW; i = i + 1) begin
            beat[i*8 +: 8] = c3_m[i] ? c3_src[i*8 +: 8] : acc[i*8 +: 8];
        end
    end

    always @(posedge clk) begin
        if (en) begin
            c1_hdr  <= cmd_hdr;
            c1_push <= cmd_push;
            c1_last <= cmd_last;
            c1_s    <= rs;
            c1_rot  <= cmd_rot;
            c1_mlo  <= cmd_mlo;
            c1_mhi  <= cmd_mhi;
            c1_keep <= cmd_keep;
            c1_user <= cmd_user;
            c1_data <= ib_data;

            c2_push <= c1_push;
            c2_last <= c1_last;
            c2_rot  <= c1_rot;
            c2_m    <= m_c;
            c2_keep <= c1_keep;
            c2_user <= c1_user;
            c2_x    <= x_c;

            c3_push <= c2_push;
            c3_last <= c2_last;
            c3_m    <= c2_m;
            c3_keep <= c2_keep;
            c3_user <= c2_user;
            c3_src  <= rot_sh[2*DATA_WIDTH-1:DATA_WIDTH];

            if (c3_v) begin
                acc <= c3_push ? c3_src : beat;
            end
        end
        if (rst) begin
            c1_v <= 1'b0;
            c2_v <= 1'b0;
            c3_v <= 1'b0;
        end else if (en) begin
            c1_v <= cmd_v;
            c2_v <= c1_v;
            c3_v <= c2_v;
        end
    end

    // ---- output buffer (2 entries, head drives m_axis) ------------------------------------
    reg  [1:0]            ob_count;
    wire                  ob_push = en && c3_v && c3_push;
    wire                  ob_pop  = m_axis_tvalid && m_axis_tready;
    wire [1:0]            ob_next = ob_count + {1'b0, ob_push} - {1'b0, ob_pop};
    reg  [KEEP_WIDTH-1:0] keep_c;
    always @(*) begin
        for (i = 0; i < BW; i = i + 1) begin
            keep_c[i] = i < c3_keep;
        end
    end
    localparam OBW = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;
    reg  [DATA_WIDTH-1:0] out_c;          // the beat, zero beyond tkeep
    always @(*) begin
        for (i = 0; i < BW; i = i + 1) begin
            out_c[i*8 +: 8] = keep_c[i] ? beat[i*8 +: 8] : 8'd0;
        end
    end
    wire [OBW-1:0] ob_in = {out_c, keep_c, c3_last, c3_last ? c3_user : {USER_WIDTH{1'b0}}};
    reg  [OBW-1:0] ob_head, ob_spare;

    always @(posedge clk) begin
        if (rst) begin
            en       <= 1'b1;
            ob_count <= 2'd0;
        end else begin
            en       <= ob_next < 2'd2;
            ob_count <= ob_next;
        end
        if (ob_push && (ob_count == 2'd0 || (ob_count == 2'd1 && ob_pop))) begin
            ob_head <= ob_in;
        end else if (ob_pop && ob_count == 2'd2) begin
            ob_head <= ob_spare;
        end
        if (ob_push && ob_count == 2'd1 && !ob_pop) begin
            ob_spare <= ob_in;
        end
    end

    assign m_axis_tvalid = ob_count != 2'd0;
    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = ob_head;

endmodule

`default_nettype wire
