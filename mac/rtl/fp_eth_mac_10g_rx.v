// fp_eth_mac_10g_rx: 10G Ethernet receive MAC, XGMII 64-bit (8 lanes) at 156.25 MHz.
//
// Takes the XGMII receive word (xgmii_rxd/xgmii_rxc, lane 0 = bits 7:0 = first byte on the wire)
// and delivers each frame on m_axis without preamble, SFD and FCS, cut through (no tready: the wire
// cannot be stopped, put a FIFO behind it). A frame starts with the start character /S/ (0xFB) on
// lane 0 or lane 4, followed by six 0x55 and the SFD 0xD5 (the layout every 64b/66b PCS delivers);
// it ends at the first control character other than /E/ (normally /T/, 0xFD).
//
// Datapath: the word on the pins is registered once (P) and, for lane-4 frames, its upper half once
// more (PP); the beat offered next is the 8-byte window at frame byte 8b (P for lane-0 frames,
// {P[31:0], PP[63:32]} for lane-4 frames). Because the FCS is stripped and a beat may not be empty,
// a beat can only leave once 5 more bytes are known (4-byte FCS holdback + 1 byte proving that data
// follows): they come straight from the pins (lane 0) or from P plus one pin byte (lane 4).
// The CRC runs one beat ahead on that look-ahead window, always as a full 64-bit step with the
// bytes after the frame's end forced to zero: the state after z trailing zero bytes equals the
// residue only if it equals Z^(8z)(0xDEBB20E3) (Z = the CRC register's zero-bit step), so the FCS
// check is a compare against one of nine constants and no partial-width CRC is ever needed.
//
// Latency:    3 cycles from the cycle the SFD is on the pins to the first beat valid on m_axis, for
//             both start lanes. Lane 0: /S/ and SFD on the pins in cycle 0, bytes 0..7 in cycle 1
//             (the /S/ word is in P: preamble checked), bytes 8..15 in cycle 2 (bytes 0..7 in P with
//             their look-ahead 8..12 from the pins: beat decided), beat 0 valid in cycle 3.
//             Lane 4: /S/ in cycle 0, SFD (lane 3) in cycle 1, look-ahead byte 12 (lane 0) in
//             cycle 3, beat 0 decided from PP, P and that pin byte in cycle 3, valid in cycle 4.
//             Every beat, tlast included, is valid 2 cycles after the word holding its last byte.
//             This is the minimum for a cut-through MAC that strips the FCS without empty beats.
// Throughput: line rate: one beat per cycle, any frame size, any start lane, any gap down to one
//             idle byte. The one start that is missed: less than 5 bytes after the end of a lane-4
//             frame of 0..3 bytes (IEEE 802.3 guarantees 5 at the receiver).
// Timestamp:  m_axis_ts = the ts_now of the cycle the /S/ word was on the pins, + PERIOD/2 (3.2 ns)
//             for a lane-4 start: i.e. the fp_time of the /S/ byte at the pins, 7 byte times
//             (5.6 ns) before the SFD byte, for both lanes. Constant for the frame.
// Bad input:  tuser[0] on the tlast beat for: bad FCS, runt (< 64 bytes with FCS), oversize (more
//             than cfg_rx_max_len bytes with FCS: cut after cfg_rx_max_len-4 data bytes, marked, the
//             rest dropped), PHY error (/E/ anywhere in the frame, or a frame ended by a control
//             character other than /T/). A start whose next 7 bytes are not 55 55 55 55 55 55 D5
//             (short or damaged preamble, no SFD) is dropped and counted (rx_bad_preamble): the 10G
//             PCS never shortens the preamble, so a short one is a damaged start here.
//             A frame with fewer than 5 bytes after the SFD has no data byte to carry tlast: it is
//             not forwarded, only counted (runt). Frames to 01-80-C2-00-00-01 (MAC Control) are never
//             forwarded: a good pause frame is reported on rx_pause_*; any other is counted bad.
//             A /S/ inside a frame ends that frame (PHY error) and starts the next one.
// Status:     one rx_status_valid pulse per frame that had a valid SFD (at its end), with the
//             frame's length (bytes with FCS, saturating at 65535) and one flag per cause; good,
//             pause and bad are mutually exclusive. rx_bad_preamble pulses once per dropped start.
// Parameters: PERIOD_NUM/PERIOD_DEN = clock period in ns (default 32/5 = 6.4 ns), used only for the
//             lane-4 half-period timestamp correction; both >= 1.
`default_nettype none

module fp_eth_mac_10g_rx #(
    parameter PERIOD_NUM = 32,
    parameter PERIOD_DEN = 5
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [63:0] xgmii_rxd,
    input  wire [7:0]  xgmii_rxc,
    input  wire [63:0] ts_now,
    input  wire [15:0] cfg_rx_max_len,

    output reg  [63:0] m_axis_tdata,
    output reg  [7:0]  m_axis_tkeep,
    output reg         m_axis_tvalid,
    output reg         m_axis_tlast,
    output reg  [0:0]  m_axis_tuser,
    output reg  [63:0] m_axis_ts,

    output reg         rx_pause_valid,
    output reg  [15:0] rx_pause_quanta,

    output reg         rx_status_valid,
    output reg  [15:0] rx_status_len,
    output reg         rx_status_good,
    output reg         rx_status_bad,
    output reg         rx_status_bad_fcs,
    output reg         rx_status_runt,
    output reg         rx_status_oversize,
    output reg         rx_status_phy_err,
    output reg         rx_status_pause,
    output reg         rx_bad_preamble
);

    generate
        if (PERIOD_NUM < 1 || PERIOD_DEN < 1) begin : g_bad_period
            PARAMETER_ERROR_PERIOD_NUM_and_PERIOD_DEN_must_be_at_least_1 u_error();
        end
    endgenerate

    localparam [7:0]  XG_START = 8'hFB;
    localparam [7:0]  XG_TERM  = 8'hFD;
    localparam [7:0]  XG_ERROR = 8'hFE;
    localparam [31:0] POLY     = 32'hEDB88320;
    localparam [31:0] INIT     = 32'hFFFFFFFF;
    localparam [31:0] RESIDUE  = 32'hDEBB20E3;  // fp_crc32_step state after a frame with a good FCS
    // Half a clock period in fp_time (Q48.16 ns), rounded: 3.2 ns -> 209715.
    localparam [63:0] HALF = (PERIOD_NUM * 65536 + PERIOD_DEN) / (2 * PERIOD_DEN);

    // The residue followed by z zero bytes: the state a good frame leaves after z padding zeros.
    function [31:0] residue_after(input integer z);
        integer i;
        begin
            residue_after = RESIDUE;
            for (i = 0; i < 8 * z; i = i + 1) begin
                residue_after = (residue_after >> 1) ^ (residue_after[0] ? POLY : 32'd0);
            end
        end
    endfunction

    // Number of zero bits in a prefix mask (all ones below the first zero): 8 - popcount.
    function [3:0] zeros_of(input [7:0] m);
        integer i;
        begin
            zeros_of = 4'd0;
            for (i = 0; i < 8; i = i + 1) begin
                zeros_of = zeros_of + {3'd0, ~m[i]};
            end
        end
    endfunction

    localparam S_IDLE  = 2'd0;
    localparam S_FRAME = 2'd1;  // offering one beat per cycle
    localparam S_DROP  = 2'd2;  // oversize: cut, waiting for the end

    // ---- pin pipeline ---------------------------------------------------------------------------
    reg  [63:0] p_d;   // previous word (P)
    reg  [7:0]  p_c;
    reg  [31:0] pp_d;  // lanes 4..7 of the word before (PP)
    reg  [3:0]  pp_c;
    reg  [63:0] ts_q;  // ts_now of P's cycle
    reg  [63:0] ts4_q; // ts_now of PP's cycle + half a period

    reg  [1:0]  state;
    reg         off4_q;   // frame started on lane 4
    reg  [31:0] crc_q;    // CRC state through the current beat (zero-padded after the end)
    reg  [3:0]  z_q;      // zero bytes padded in the step that made crc_q
    reg         perr_q;   // PHY error seen through the current beat
    reg  [3:0]  bidx_q;   // beat index, saturating at 15
    reg  [16:0] len_q;    // frame bytes before the current beat, saturating at 65535
    reg  [16:0] rem_q;    // data bytes still allowed from the current beat (oversize cut)
    reg         mac_ctrl_q, pause_op_q;
    reg  [15:0] quanta_q;

    // ---- the 16-byte window: positions 0..7 = current beat, 8..15 = next beat ----------------------
    wire        start0 = p_c[0] && p_d[7:0] == XG_START;     // /S/ on lane 0 of P
    wire        start4 = pp_c[0] && pp_d[7:0] == XG_START;   // /S/ on lane 4 of PP (earlier)
    wire        idle_st = state == S_IDLE;
    wire        wo = idle_st ? start4 : off4_q;
    wire [127:0] wd = wo ? {xgmii_rxd[31:0], p_d, pp_d} : {xgmii_rxd, p_d};
    wire [15:0]  wc = wo ? {xgmii_rxc[3:0], p_c, pp_c} : {xgmii_rxc, p_c};

    wire [15:0] endp, fb;      // end character (control but not /E/), frame byte (before any end)
    wire [15:8] errp, termp;   // /E/, /T/ (only needed in the next beat)
    genvar j;
    generate
        for (j = 0; j < 16; j = j + 1) begin : g_pos
            assign endp[j] = wc[j] && wd[8*j +: 8] != XG_ERROR;
            if (j >= 8) begin : g_hi
                assign errp[j]  = wc[j] && wd[8*j +: 8] == XG_ERROR;
                assign termp[j] = wc[j] && wd[8*j +: 8] == XG_TERM;
            end
            if (j == 0) begin : g_first
                assign fb[j] = !endp[j] || idle_st;  // in S_IDLE position 0 holds the /S/
            end else begin : g_next
                assign fb[j] = fb[j-1] && !endp[j];
            end
        end
    endgenerate

    // ---- CRC one beat ahead ------------------------------------------------------------------------
    wire [63:0] next_bytes;
    generate
        for (j = 0; j < 8; j = j + 1) begin : g_mask
            assign next_bytes[8*j +: 8] = wd[64 + 8*j +: 8] & {8{fb[8 + j]}};
        end
    endgenerate
    wire [31:0] crc_next;
    fp_crc32_step #(
        .DATA_WIDTH (64)
    ) u_crc (
        .crc_in  (idle_st ? INIT : crc_q),
        .data    (next_bytes),
        .keep    (8'hFF),
        .crc_out (crc_next)
    );
    wire [3:0] z_next = zeros_of(fb[15:8]);

    wire [8:0] eq_q, eq_next;  // state == residue followed by z zero bytes
    generate
        for (j = 0; j < 9; j = j + 1) begin : g_res
            localparam [31:0] RES = residue_after(j);
            assign eq_q[j]    = crc_q == RES;
            assign eq_next[j] = crc_next == RES;
        end
    endgenerate

    wire perr_next = (!idle_st && perr_q)
                     || |(errp[15:8] & fb[15:8])
                     || |(endp[15:8] & ~termp[15:8] & fb[14:7]);

    // ---- beat decisions ----------------------------------------------------------------------------
    wire        end_a   = !fb[7];                 // frame ends in positions 0..7
    wire        end_w   = !fb[12];                // frame ends in positions 0..12
    wire        rem_le8 = rem_q <= 17'd8;
    wire [7:0]  lim     = rem_le8 ? ~(8'hFF << rem_q[3:0]) : 8'hFF;
    wire        cut     = rem_le8 && fb[rem_q[3:0] + 4'd4];  // a frame byte beyond cfg_rx_max_len
    wire [7:0]  keep    = fb[11:4] & lim;
    wire        last    = end_w || cut;

    wire        fcs_ok  = end_a ? eq_q[z_q] : eq_next[z_next];
    wire        perr    = end_a ? perr_q : perr_next;
    wire        runt    = bidx_q < 4'd7 || (bidx_q == 4'd7 && end_a);
    wire        da_ctrl = wd[47:0] == 48'h01_00_00_C2_80_01;  // 01-80-C2-00-00-01, lane 0 first
    wire        ctrl    = bidx_q == 4'd0 ? da_ctrl : mac_ctrl_q;
    wire        pre_ok  = wc[7:1] == 7'd0 && wd[63:8] == 56'hD5_55_55_55_55_55_55;

    // Bytes of the frame in the window (position of the end character), 0..13.
    reg  [3:0]  cnt;
    integer     k;
    always @* begin
        cnt = 4'd13;
        for (k = 12; k >= 0; k = k - 1) begin
            if (endp[k]) begin
                cnt = k[3:0];
            end
        end
    end
    wire [16:0] len_sum = len_q + {13'd0, cnt};
    wire [15:0] len_fin = len_sum[16] ? 16'hFFFF : len_sum[15:0];
    wire [16:0] len_inc = len_q + 17'd8;

    // End of a frame: when the end character is in positions 0..12 (also when cut there). In S_DROP
    // too: waiting for it to reach 0..7 would miss a lane-0 /S/ right behind it (IFG 2, DIC).
    wire fin_frame = state == S_FRAME && end_w;
    wire fin_drop  = state == S_DROP && end_w;
    wire f_ovr     = fin_drop || (fin_frame && cut);
    wire f_runt    = fin_frame && !cut && runt;
    wire f_clean   = !f_ovr && !f_runt && fcs_ok && !perr;
    wire f_good    = f_clean && !ctrl;
    wire f_pause   = f_clean && ctrl && pause_op_q;

    always @(posedge clk) begin
        p_d   <= xgmii_rxd;
        p_c   <= xgmii_rxc;
        pp_d  <= p_d[63:32];
        pp_c  <= p_c[7:4];
        ts_q  <= ts_now;
        ts4_q <= ts_q + HALF;

        crc_q  <= crc_next;
        z_q    <= z_next;
        perr_q <= perr_next;
        len_q  <= len_inc[16] ? 17'h0FFFF : len_inc;
        rem_q  <= rem_q - 17'd8;
        if (bidx_q != 4'd15) begin
            bidx_q <= bidx_q + 4'd1;
        end

        m_axis_tdata    <= wd[63:0];
        m_axis_tkeep    <= keep;
        m_axis_tlast    <= last;
        m_axis_tuser[0] <= cut || (end_w && (!fcs_ok || runt || perr));
        m_axis_tvalid   <= 1'b0;
        rx_pause_valid  <= 1'b0;
        rx_status_valid <= 1'b0;
        rx_bad_preamble <= 1'b0;

        case (state)
            S_IDLE: begin
                if (start0 || start4) begin
                    if (pre_ok) begin
                        state      <= S_FRAME;
                        off4_q     <= start4;
                        m_axis_ts  <= start4 ? ts4_q : ts_q;
                        bidx_q     <= 4'd0;
                        len_q      <= 17'd0;
                        rem_q      <= {1'b0, cfg_rx_max_len} - 17'd4;
                        pause_op_q <= 1'b0;
                    end else begin
                        rx_bad_preamble <= 1'b1;
                    end
                end
            end
            S_FRAME: begin
                m_axis_tvalid <= keep != 8'd0 && !ctrl;
                if (bidx_q == 4'd0) begin
                    mac_ctrl_q <= da_ctrl;
                end
                if (bidx_q == 4'd1) begin
                    pause_op_q <= wd[63:32] == 32'h0100_0888;  // type 88 08, opcode 00 01
                end
                if (bidx_q == 4'd2) begin
                    quanta_q <= {wd[7:0], wd[15:8]};
                end
                if (end_w) begin
                    state <= S_IDLE;
                end else if (cut) begin
                    state <= S_DROP;
                end
            end
            default: begin  // S_DROP
                if (end_w) begin
                    state <= S_IDLE;
                end
            end
        endcase

        // One status per frame, at its end.
        rx_status_len      <= len_fin;
        rx_status_bad_fcs  <= !fcs_ok;
        rx_status_runt     <= f_runt;
        rx_status_oversize <= f_ovr;
        rx_status_phy_err  <= perr;
        rx_status_good     <= f_good;
        rx_status_pause    <= f_pause;
        rx_status_bad      <= !f_good && !f_pause;
        if (fin_frame || fin_drop) begin
            rx_status_valid <= 1'b1;
        end
        if ((fin_frame || fin_drop) && f_pause) begin
            rx_pause_valid  <= 1'b1;
            rx_pause_quanta <= quanta_q;
        end

        if (rst) begin
            state           <= S_IDLE;
            off4_q          <= 1'b0;
            p_c             <= 8'hFF;
            pp_c            <= 4'hF;
            p_d             <= {8{8'h07}};
            pp_d            <= {4{8'h07}};
            m_axis_tvalid   <= 1'b0;
            rx_pause_valid  <= 1'b0;
            rx_status_valid <= 1'b0;
            rx_bad_preamble <= 1'b0;
            mac_ctrl_q      <= 1'b0;
            pause_op_q      <= 1'b0;
        end
    end

endmodule

`default_nettype wire
