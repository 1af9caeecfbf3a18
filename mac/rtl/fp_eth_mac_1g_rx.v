// fp_eth_mac_1g_rx: 1G Ethernet receive MAC, GMII (8 bits per clk_en) or MII (4 bits per clk_en).
//
// Removes preamble and SFD, checks and strips the FCS, and streams the frame out one byte per
// beat on m_axis (no tready: the wire cannot wait). m_axis_ts is the `ts_now` of the cycle that
// began with the clock edge at which the SFD was sampled at the pins (GMII: the 0xD5 byte; MII:
// the 0xD nibble), constant for the frame (it is loaded 2 cycles after that cycle begins, long
// before the first beat, and holds until 2 cycles after the next SFD). Pause frames are decoded
// and handed to the TX.
// Every clk_en cycle carries one GMII byte or one MII nibble (mii_select = 1; low nibble first, on
// gmii_rxd[3:0]). With 125 MHz and clk_en always 1 this is 1000 Mb/s; with clk_en one cycle in 5
// (or 50) and mii_select = 1 it is 100 (or 10) Mb/s.
//
// FCS holdback. Byte i of a frame cannot leave before the MAC knows whether it is the last one
// before the FCS: that is only known when byte i+5 arrives (then it is not) or the carrier drops
// after byte i+4 (then bytes i+1..i+4 were the FCS and i is the last; the FCS check result is
// ready at the same moment). So five bytes are held: byte i is put on m_axis in the cycle after
// byte i+5 (MII: its high nibble) or the end of carrier is processed. This is the minimum for a
// stream whose tlast sits on the last data byte.
//
// Latency (SFD sampled at the pins -> first byte of the frame valid on m_axis, in clk cycles,
// with clk_en regular, one cycle in P):
//   GMII (P = 1): 7 cycles with INPUT_REG = 1 (56 ns at 125 MHz): 1 input register (the IOB flop),
//                 5 bytes of holdback (bytes 0..5 are sampled at edges 1..6 after the SFD),
//                 1 output register. With INPUT_REG = 0: 6 cycles. Every m_axis output is
//                 a register whose input is at most a few LUTs of the current sample and flags
//                 registered a cycle ahead (for 125 MHz inside a larger design).
//   MII:          12 * P + INPUT_REG cycles (byte 5's high nibble is the 12th nibble after the
//                 SFD nibble): 61 cycles = 488 ns at 100 Mb/s (P = 5), 601 cycles = 4.808 us at
//                 10 Mb/s (P = 50), with INPUT_REG = 1.
//   The last byte (tlast) is valid INPUT_REG cycles after the edge that samples the first idle
//   byte (nibble) after the FCS; rx_pause_valid rises in that cycle too.
// Throughput: line rate, any frame size, any inter-frame gap (down to 1 idle byte/nibble) and any
//   preamble length >= 1 byte: one beat per received data byte; nothing is ever dropped for lack of
//   time.
// Bad input (see mac/README.md and mac/docs/mac_1g.md):
//   - tuser[0] = 1 on the tlast beat for bad FCS, runt (< 64 bytes with FCS), oversize (more than
//     cfg_rx_max_len bytes with FCS: the frame is cut after cfg_rx_max_len - 4 bytes, that beat
//     carries tlast + bad, the rest of the frame is discarded), and gmii_rx_er anywhere from the
//     start of carrier to the end of the frame (the preamble included). Each cause has its
//     counter, every bad frame counts once in stat_rx_bad.
//   - A frame of 1..4 bytes after the SFD has no byte to carry tlast: it is not forwarded, and is
//     counted as runt and bad (and bad FCS / PHY error when they apply).
//   - A start of carrier that is not at least one 0x55 byte (MII: three 0x5 nibbles) followed by
//     the SFD (any byte other than 0x55 before 0xD5, 0xD5 first, or carrier lost before the SFD)
//     is discarded up to the end of carrier and counted in stat_rx_bad_preamble. Longer preambles
//     are accepted.
//   - Frames to the MAC Control address 01-80-C2-00-00-01 are never forwarded (the decision is
//     made on the DA, before the first byte would leave). A valid pause frame (type 0x8808, opcode
//     0x0001, >= 64 bytes, good FCS, no PHY error) gives rx_pause_valid + rx_pause_quanta and
//     counts in stat_rx_pause; any other frame to that address is counted in stat_rx_bad (plus its
//     cause counters, if any).
//   - MII: a trailing odd nibble (dribble) is ignored; the FCS check decides.
//   - False carrier (rx_er without rx_dv) is ignored.
// Counters: 32-bit frame counters, 64-bit stat_rx_bytes = every byte after a valid SFD up to the
//   end of carrier or the oversize cut (FCS included, preamble excluded; an oversize frame counts
//   cfg_rx_max_len + 1 bytes, its discarded tail is not counted).
//   They update 1 cycle after the frame's last beat (or, for a frame that is not forwarded, the
//   beat it would have had) leaves; stat_rx_bytes 1 cycle after each byte is complete.
// Parameters: INPUT_REG 0 or 1 (1: register gmii_rx* in the MAC, the IOB flops; 0: the inputs
//   already come from flip-flops, e.g. fp_eth_mac_1g_rgmii's IDDR). cfg_rx_max_len must be >= 64.
`default_nettype none

module fp_eth_mac_1g_rx #(
    parameter INPUT_REG = 1
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        clk_en,
    input  wire        mii_select,

    input  wire [7:0]  gmii_rxd,
    input  wire        gmii_rx_dv,
    input  wire        gmii_rx_er,

    input  wire [63:0] ts_now,

    output reg  [7:0]  m_axis_tdata,
    output wire [0:0]  m_axis_tkeep,
    output reg         m_axis_tvalid,
    output reg         m_axis_tlast,
    output reg  [0:0]  m_axis_tuser,
    output reg  [63:0] m_axis_ts,

    output reg         rx_pause_valid,
    output reg  [15:0] rx_pause_quanta,

    input  wire [15:0] cfg_rx_max_len,

    output reg  [31:0] stat_rx_good,
    output reg  [31:0] stat_rx_bad,
    output reg  [31:0] stat_rx_bad_fcs,
    output reg  [31:0] stat_rx_runt,
    output reg  [31:0] stat_rx_oversize,
    output reg  [31:0] stat_rx_phy_err,
    output reg  [31:0] stat_rx_bad_preamble,
    output reg  [31:0] stat_rx_pause,
    output reg  [63:0] stat_rx_bytes
);

    generate
        if (INPUT_REG != 0 && INPUT_REG != 1) begin : g_bad_input_reg
            PARAMETER_ERROR_INPUT_REG_must_be_0_or_1 u_error();
        end
    endgenerate

    localparam [31:0] RESIDUE = 32'hDEBB20E3;  // fp_crc32_step state after a frame with a good FCS
    localparam [47:0] CTRL_DA = 48'h01_80_C2_00_00_01;

    localparam [1:0] S_IDLE = 2'd0;  // no carrier
    localparam [1:0] S_PRE  = 2'd1;  // in the preamble
    localparam [1:0] S_DATA = 2'd2;  // after the SFD
    localparam [1:0] S_DROP = 2'd3;  // discarding up to the end of carrier

    assign m_axis_tkeep = 1'b1;

    // ---- input stage: the sample this cycle works on -------------------------------------------
    wire       p_en;
    wire [7:0] p_d;
    wire       p_dv;
    wire       p_er;

    generate
        if (INPUT_REG) begin : g_in_reg
            reg       en_q, dv_q, er_q;
            reg [7:0] d_q;
            always @(posedge clk) begin
                d_q  <= gmii_rxd;
                dv_q <= gmii_rx_dv;
                er_q <= gmii_rx_er;
                en_q <= clk_en;
                if (rst) begin
                    en_q <= 1'b0;
                    dv_q <= 1'b0;
                end
            end
            assign p_en = en_q;
            assign p_d  = d_q;
            assign p_dv = dv_q;
            assign p_er = er_q;
        end else begin : g_in_direct
            assign p_en = clk_en;
            assign p_d  = gmii_rxd;
            assign p_dv = gmii_rx_dv;
            assign p_er = gmii_rx_er;
        end
    endgenerate

    // ---- state ---------------------------------------------------------------------------------
    // Everything that decides an m_axis register is a flag registered one cycle ahead (full_q,
    // fwd_q, y_q, at_max_q, lt64_q, crc_ok_q), so that only the current sample (p_*) and these
    // flags meet in front of the output registers: a few LUT levels, nothing wide.
    reg  [1:0]  state_q;
    reg  [1:0]  pre_cnt_q;   // 0x55 bytes (MII: 0x5 nibbles) seen, saturating at 3
    reg         pre_ok_q;    // PRE: enough of them for an SFD now (registered with the count)
    reg         pre_er_q;    // rx_er seen in the preamble
    reg         phase_q;     // MII: the low nibble of a byte is held in lo_q
    reg  [3:0]  lo_q;
    reg         lo1_q;       // lo_q == 1
    reg  [39:0] hb_q;        // holdback: the last 5 bytes, oldest in [39:32]
    reg         full_q;      // DATA with 5 bytes held: the next byte (or the end) sends a beat
    reg  [17:0] at_q;        // one-hot index of the next byte in the frame, 0..17 (0 after that)
    reg  [16:0] len_q;       // bytes of the frame so far (FCS included)
    reg  [31:0] crc_q;
    reg         err_q;       // rx_er seen in this frame
    reg         fwd_q;       // not a MAC Control frame: forward it
    reg         da_ok_q;     // DA bytes so far equal 01-80-C2-00-00-01
    reg         y_q;         // the next byte is byte 5 and bytes 0..4 are 01-80-C2-00-00
    reg         ctl_ok_q;    // type/opcode bytes so far equal 88 08 00 01
    reg  [15:0] quanta_q;
    // compares registered with the byte that changes them, kept off the paths to m_axis:
    reg         at_max_q;    // len_q >= cfg_rx_max_len
    reg         lt64_q;      // len_q < 64
    reg  [3:0]  crc_ok_q;    // crc_q == RESIDUE, per byte (all four: the FCS is good)
    reg         ev_fin_q, ev_good_q, ev_bad_q, ev_fcs_q, ev_runt_q, ev_over_q, ev_phy_q, ev_pause_q;
    reg         ev_pre_q, ev_byte_q;    // counter events, one cycle before the counters move
    reg         sfd_q;       // the SFD was processed in the previous cycle
    reg  [63:0] ts_q;        // ts_now of the previous cycle

    // ---- per-cycle events ----------------------------------------------------------------------
    wire       in_pre   = state_q == S_PRE;
    wire [1:0] pre_cnt  = in_pre ? pre_cnt_q : 2'd0;   // IDLE: a new preamble starts now
    wire       pre_er   = in_pre && pre_er_q;
    wire       is_pre   = mii_select ? (p_d[3:0] == 4'h5) : (p_d == 8'h55);
    wire       is_sfd   = mii_select ? (p_d[3:0] == 4'hD) : (p_d == 8'hD5);
    wire       pre_long = in_pre && pre_ok_q;

    wire hunting  = (state_q == S_IDLE || state_q == S_PRE) && p_en && p_dv;
    wire sfd_ok   = hunting && is_sfd && pre_long;
    wire pre_bad  = (hunting && !is_pre && !(is_sfd && pre_long))
                 || (state_q == S_PRE && p_en && !p_dv);

    wire in_data  = state_q == S_DATA && p_en;
    wire frame_end = in_data && !p_dv;
    wire hi_half  = !mii_select || phase_q;            // a byte completes if p_dv
    wire byte_done = in_data && p_dv && hi_half;
    wire [7:0] byte_in = mii_select ? {p_d[3:0], lo_q} : p_d;

    wire [31:0] crc_next;
    fp_crc32_step #(.DATA_WIDTH(8)) u_crc (
        .crc_in(crc_q), .data(byte_in), .keep(1'b1), .crc_out(crc_next)
    );

    wire [16:0] len_next   = len_q + 17'd1;
    wire        oversize   = byte_done && at_max_q;          // this byte makes len > max
    // DA bytes 0..4 (01-80-C2-00-00) against the byte at its index; byte 5 is decided below
    wire        da_hit     = (at_q[0] && byte_in == CTRL_DA[47:40]) || (at_q[1] && byte_in == CTRL_DA[39:32])
                          || (at_q[2] && byte_in == CTRL_DA[31:24])
                          || ((at_q[3] || at_q[4]) && byte_in == 8'h00);
    // The forwarding decision is due when byte 0 would leave, i.e. when byte 5 completes (y_q):
    // byte 5, the DA's last (0x01), is compared on the sample (and lo1_q), not on byte_in.
    wire        da_01      = mii_select ? (p_d[3:0] == 4'h0 && lo1_q) : (p_d == 8'h01);
    wire        ctl_drop   = y_q && da_01;                   // with byte_done: a MAC Control frame
    wire        err_now    = err_q || (in_data && p_dv && p_er);

    // A beat leaves when byte i+5 completes (not last), at the end of carrier or at the cut (last):
    // with full_q, the same as frame_end || byte_done.
    wire beat      = p_en && full_q && (!p_dv || hi_half);
    wire beat_fwd  = p_en && full_q && fwd_q && (!p_dv || (hi_half && !ctl_drop));

    // End-of-frame verdict (frame_end or oversize cut). fwd_q is final by then (the cut comes
    // after byte 5, as cfg_rx_max_len >= 64).
    wire fin       = frame_end || oversize;
    wire runt      = frame_end && lt64_q;
    wire bad_fcs   = frame_end && !(&crc_ok_q);
    wire bad       = runt || bad_fcs || oversize || err_now;
    wire is_pause  = frame_end && !fwd_q && ctl_ok_q && !bad;

    always @(posedge clk) begin
        // defaults: pulses
        rx_pause_valid <= 1'b0;

        case (state_q)
            S_IDLE, S_PRE: begin
                if (p_en) begin
                    if (!p_dv) begin
                        state_q <= S_IDLE;
                    end else if (sfd_ok) begin
                        state_q <= S_DATA;
                    end else if (is_pre) begin
                        state_q <= S_PRE;
                    end else begin
                        state_q <= S_DROP;
                    end
                end
            end
            S_DATA: begin
                if (frame_end) begin
                    state_q <= S_IDLE;
                end else if (oversize) begin
                    state_q <= S_DROP;
                end
            end
            default: begin  // S_DROP
                if (p_en && !p_dv) begin
                    state_q <= S_IDLE;
                end
            end
        endcase

        // preamble
        if (hunting && is_pre) begin
            pre_cnt_q <= (pre_cnt == 2'd3) ? 2'd3 : pre_cnt + 2'd1;
            pre_ok_q  <= mii_select ? (pre_cnt >= 2'd2) : 1'b1;  // the count after this one: 3, >= 1
            pre_er_q  <= pre_er || p_er;
        end

        // frame start: the timestamp is the ts_now of the SFD's cycle, loaded one cycle later
        // (from ts_q) so that the SFD decode drives one flag, not 64 enables. The per-frame state
        // is initialised in every cycle outside a frame (so the SFD decode does not drive these
        // registers' resets either).
        sfd_q <= sfd_ok;
        ts_q  <= ts_now;
        if (sfd_q) begin
            m_axis_ts <= ts_q;
        end
        if (hunting) begin
            err_q <= pre_er || p_er;  // the value of the SFD's cycle stays
        end
        full_q <= state_q == S_DATA && !frame_end && !oversize && (full_q || (at_q[4] && byte_done));
        if (state_q != S_DATA) begin
            phase_q   <= 1'b0;
            at_q      <= 18'd1;
            len_q     <= 17'd0;
            crc_q     <= 32'hFFFFFFFF;
            at_max_q  <= 1'b0;
            lt64_q    <= 1'b1;
            crc_ok_q  <= 4'd0;
            fwd_q     <= 1'b1;
            da_ok_q   <= 1'b1;
            y_q       <= 1'b0;
            ctl_ok_q  <= 1'b1;
        end

        if (in_data && p_dv) begin
            err_q <= err_now;
            if (mii_select && !phase_q) begin
                lo_q    <= p_d[3:0];
                lo1_q   <= p_d[3:0] == 4'h1;
                phase_q <= 1'b1;
            end else begin
                phase_q <= 1'b0;
            end
        end

        if (byte_done) begin
            hb_q     <= {hb_q[31:0], byte_in};
            at_q     <= {at_q[16:0], 1'b0};
            len_q    <= len_next;
            crc_q    <= crc_next;
            at_max_q <= len_next >= {1'b0, cfg_rx_max_len};
            lt64_q   <= lt64_q && len_q[5:0] != 6'd63;
            crc_ok_q <= {crc_next[31:24] == RESIDUE[31:24], crc_next[23:16] == RESIDUE[23:16],
                         crc_next[15:8] == RESIDUE[15:8], crc_next[7:0] == RESIDUE[7:0]};
            fwd_q    <= fwd_q && !ctl_drop;
            if (|at_q[4:0]) begin
                da_ok_q <= da_ok_q && da_hit;
            end
            y_q      <= at_q[4] && da_ok_q && da_hit;
            if ((at_q[12] && byte_in != 8'h88) || (at_q[13] && byte_in != 8'h08)
                || (at_q[14] && byte_in != 8'h00) || (at_q[15] && byte_in != 8'h01)) begin
                ctl_ok_q <= 1'b0;
            end
            if (at_q[16]) begin
                quanta_q[15:8] <= byte_in;
            end
            if (at_q[17]) begin
                quanta_q[7:0] <= byte_in;
            end
        end

        // output beat: tvalid from beat_fwd; data, tlast and tuser loaded with every beat slot
        // (forwarded or not: they only count with tvalid). tlast: end of carrier or the cut;
        // tuser: the cut, or at the end of carrier runt / bad FCS / rx_er (err_q: no byte now).
        m_axis_tvalid <= beat_fwd;
        if (beat) begin
            m_axis_tdata <= hb_q[39:32];
            m_axis_tlast <= !p_dv || at_max_q;
            m_axis_tuser <= p_dv ? at_max_q : (lt64_q || !(&crc_ok_q) || err_q);
        end

        if (is_pause) begin
            rx_pause_valid  <= 1'b1;
            rx_pause_quanta <= quanta_q;
        end

        // counters: the events are registered first, the adders run in the next cycle
        ev_fin_q   <= fin;
        ev_good_q  <= !bad && fwd_q;
        ev_bad_q   <= bad || (!fwd_q && !is_pause);
        ev_fcs_q   <= bad_fcs;
        ev_runt_q  <= runt;
        ev_over_q  <= oversize;
        ev_phy_q   <= err_now;
        ev_pause_q <= is_pause;
        ev_pre_q   <= pre_bad;
        ev_byte_q  <= byte_done;
        if (ev_fin_q) begin
            stat_rx_good     <= stat_rx_good     + {31'd0, ev_good_q};
            stat_rx_bad      <= stat_rx_bad      + {31'd0, ev_bad_q};
            stat_rx_bad_fcs  <= stat_rx_bad_fcs  + {31'd0, ev_fcs_q};
            stat_rx_runt     <= stat_rx_runt     + {31'd0, ev_runt_q};
            stat_rx_oversize <= stat_rx_oversize + {31'd0, ev_over_q};
            stat_rx_phy_err  <= stat_rx_phy_err  + {31'd0, ev_phy_q};
            stat_rx_pause    <= stat_rx_pause    + {31'd0, ev_pause_q};
        end
        if (ev_pre_q) begin
            stat_rx_bad_preamble <= stat_rx_bad_preamble + 32'd1;
        end
        if (ev_byte_q) begin
            stat_rx_bytes <= stat_rx_bytes + 64'd1;
        end

        if (rst) begin
            state_q              <= S_IDLE;
            full_q               <= 1'b0;
            sfd_q                <= 1'b0;
            m_axis_tvalid        <= 1'b0;
            m_axis_tdata         <= 8'd0;
            m_axis_tlast         <= 1'b0;
            m_axis_tuser         <= 1'b0;
            m_axis_ts            <= 64'd0;
            rx_pause_valid       <= 1'b0;
            rx_pause_quanta      <= 16'd0;
            ev_fin_q             <= 1'b0;
            ev_pre_q             <= 1'b0;
            ev_byte_q            <= 1'b0;
            stat_rx_good         <= 32'd0;
            stat_rx_bad          <= 32'd0;
            stat_rx_bad_fcs      <= 32'd0;
            stat_rx_runt         <= 32'd0;
            stat_rx_oversize     <= 32'd0;
            stat_rx_phy_err      <= 32'd0;
            stat_rx_bad_preamble <= 32'd0;
            stat_rx_pause        <= 32'd0;
            stat_rx_bytes        <= 64'd0;
        end
    end

endmodule

`default_nettype wire
