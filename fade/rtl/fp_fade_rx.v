// fp_fade_rx: FADE-10G Ethernet receiver. Parses the frames coming from the MAC RX (64-bit beats,
// byte 0 in tdata[7:0], FCS already removed, tuser[0] = bad on the tlast beat), executes START,
// STOP and RESET itself, and queues ACK/NACK for the descriptor manager and commands for the
// command processor (two small FIFOs, like the paper's Ack & Cmd FIFO).
//
// A frame is accepted only when: tuser[0] = 0 on tlast, Ethertype FADE_ETHERTYPE, version
// FADE_VERSION, destination = cfg_local_mac (or broadcast for CMD_RESET), long enough for its
// layout, and a known type (TYPE_ACK, TYPE_NACK) or command code (START, STOP, RESET, user
// range). Everything else is dropped: ev_rx_bad_fcs for a bad frame, ev_rx_drop for every
// dropped frame (bad FCS, foreign, malformed, or its FIFO full).
//
// ACK records (fade/README.md): an ACK/NACK frame carries 1..ACK_RECORDS records of
// FADE_ACK_RECORD_LEN bytes (type, seq, pkt, delay), the first at the paper's offsets, each next
// one right after it. The records end at the first record whose type is neither ACK nor NACK
// (the 0xA5 filler reads as TYPE_DATA), at the frame's end (a record counts only if all its 12
// bytes are in the frame), or after ACK_RECORDS. Each record is written into the ACK FIFO's
// free slots as its fields pass (slot wp + i, not yet visible); the frame's verdict on its tlast
// beat publishes all of them at once, or none (bad FCS, foreign, or a record within the frame
// that found no free slot: the frame is dropped and counted, as a lost ACK frame). fp_fade_cmd reports ACK_RECORDS
// in the START / STOP response value, so that a host sends several records only to a core that
// takes them.
//
// Exactly-once commands: the receiver remembers the csn of the last command it queued. A command
// with that same csn is queued with dup = 1 (the command processor re-sends the stored response
// and does not execute it; START and STOP are not executed again either). RESET forgets the csn.
// START (not dup) pulses start_pulse and learns peer_mac from the frame's source; STOP (not dup)
// pulses stop_pulse; RESET pulses reset_pulse (the whole core resets, nothing is queued).
//
// Latency:    the checks are registered on the tlast beat, the decision taken in the next cycle;
//             pulses, ev_* and the FIFO outputs (ack_valid / cmd_valid of an empty FIFO) are
//             valid 2 cycles after the tlast beat.
// Throughput: always ready (the MAC RX has no tready): one beat per cycle, back-to-back frames.
// Bad input: every frame failing a check is dropped and counted (above), never blocks the MAC.
//   tkeep is assumed contiguous on tlast (only the frame length uses it). A repeated START still
//   updates peer_mac from its source (no start_pulse).
// Parameters: ACK_DEPTH, CMD_DEPTH: FIFO depths, powers of two 2..256 (ACK_DEPTH >= ACK_RECORDS);
//   ACK_RECORDS: records taken from one ACK frame, 1..FADE_ACK_RECORDS_MAX (8).
`default_nettype none
`include "fp_fade.vh"

module fp_fade_rx #(
    parameter ACK_DEPTH = 16,
    parameter CMD_DEPTH = 4,
    parameter ACK_RECORDS = 8
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [47:0] cfg_local_mac,

    input  wire [63:0] s_eth_tdata,
    input  wire [7:0]  s_eth_tkeep,
    input  wire        s_eth_tvalid,
    input  wire        s_eth_tlast,
    input  wire [0:0]  s_eth_tuser,

    output reg         start_pulse,
    output reg         stop_pulse,
    output reg         reset_pulse,
    output reg  [47:0] peer_mac,

    output wire        ack_valid,
    input  wire        ack_ready,
    output wire        ack_nack,
    output wire [15:0] ack_seq,
    output wire [31:0] ack_pkt,

    output wire        cmd_valid,
    input  wire        cmd_ready,
    output wire        cmd_dup,
    output wire        cmd_ctl,      // cmd_code is START or STOP (decoded when queued)
    output wire [15:0] cmd_code,
    output wire [15:0] cmd_csn,
    output wire [31:0] cmd_arg,

    output reg         ev_rx_bad_fcs,
    output reg         ev_rx_drop
);

    generate
        if (ACK_DEPTH < 2 || ACK_DEPTH > 256 || (ACK_DEPTH & (ACK_DEPTH - 1)) != 0) begin : g_bad_ack
            PARAMETER_ERROR_ACK_DEPTH_must_be_a_power_of_2_from_2_to_256 u_error();
        end
        if (CMD_DEPTH < 2 || CMD_DEPTH > 256 || (CMD_DEPTH & (CMD_DEPTH - 1)) != 0) begin : g_bad_cmd
            PARAMETER_ERROR_CMD_DEPTH_must_be_a_power_of_2_from_2_to_256 u_error();
        end
        if (ACK_RECORDS < 1 || ACK_RECORDS > `FP_FADE_ACK_RECORDS_MAX || ACK_RECORDS > ACK_DEPTH) begin : g_bad_rec
            PARAMETER_ERROR_ACK_RECORDS_must_be_1_to_8_and_at_most_ACK_DEPTH u_error();
        end
        // The record extraction below assumes 12-byte records from byte 16 (half of them start
        // mid-beat) and reads each record's first 8 bytes (type, seq, pkt) in one piece.
        if (`FP_FADE_ACK_RECORD_LEN != 12 || `FP_FADE_ACK_TYPE_OFF != 16 || `FP_FADE_ACK_SEQ_OFF != 18 ||
            `FP_FADE_ACK_PKT_OFF != 20 || `FP_FADE_ACK_LEN != 28) begin : g_bad_rec_layout
            PARAMETER_ERROR_fade_rx_expects_12_byte_ack_records_from_byte_16 u_error();
        end
    endgenerate

    localparam AW = $clog2(ACK_DEPTH);
    localparam CW = $clog2(CMD_DEPTH);

    // ---- frame capture: the first 4 beats (32 bytes) hold every field the receiver reads ----
    reg  [255:0] hdr_q;
    // Beats seen so far in this frame, saturating at 15: every length the receiver checks is below
    // 15 beats (120 bytes; the last ACK record ends at byte 112), so a 4-bit count.
    reg  [3:0]   beat_q;
    wire [255:0] hdr_now = beat_q[3:2] == 2'd0 ? (hdr_q | ({192'd0, s_eth_tdata} << (64 * beat_q[1:0])))
                                               : hdr_q;

    // "The frame is at least E bytes long", on its tlast beat: its byte E - 1 is in an earlier
    // beat, or in this one (tkeep is contiguous from lane 0). No length adder on the tlast beat.
    function len_ge;
        input [3:0] beat;
        input [7:0] keep;
        input [6:0] e;
        len_ge = beat > e[6:3] - {3'd0, e[2:0] == 3'd0} ||
                 (beat == e[6:3] - {3'd0, e[2:0] == 3'd0} && keep[e[2:0] - 3'd1]);
    endfunction
    generate
        if (`FP_FADE_ACK_LEN + (`FP_FADE_ACK_RECORDS_MAX - 1) * `FP_FADE_ACK_RECORD_LEN > 120 ||
            `FP_FADE_CMD_LEN > 120) begin : g_bad_len
            PARAMETER_ERROR_fade_rx_checks_lengths_up_to_120_bytes_only u_error();
        end
    endgenerate

    // Big-endian fields of 2, 4 and 6 bytes at byte `off`.
    function [15:0] be16;
        input [255:0] h;
        input integer off;
        be16 = {h[8 * off +: 8], h[8 * (off + 1) +: 8]};
    endfunction
    function [31:0] be32;
        input [255:0] h;
        input integer off;
        be32 = {be16(h, off), be16(h, off + 2)};
    endfunction
    function [47:0] be48;
        input [255:0] h;
        input integer off;
        be48 = {be16(h, off), be32(h, off + 2)};
    endfunction

    wire [47:0] f_dst   = be48(hdr_now, `FP_FADE_HEADER_DST_OFF);
    wire [47:0] f_src   = be48(hdr_now, `FP_FADE_HEADER_SRC_OFF);
    wire [15:0] f_etype = be16(hdr_now, `FP_FADE_HEADER_ETHERTYPE_OFF);
    wire [15:0] f_ver   = be16(hdr_now, `FP_FADE_HEADER_VERSION_OFF);
    // ACK and command frames have their fields at the same offsets (checked below): one set of
    // registers carries type/cmd, seq/csn and pkt/arg.
    wire [15:0] f_type  = be16(hdr_now, `FP_FADE_ACK_TYPE_OFF);
    wire [15:0] f_seq   = be16(hdr_now, `FP_FADE_ACK_SEQ_OFF);
    wire [31:0] f_pkt   = be32(hdr_now, `FP_FADE_ACK_PKT_OFF);
    wire [15:0] f_cmd   = be16(hdr_now, `FP_FADE_CMD_CMD_OFF);
    generate
        if (`FP_FADE_ACK_TYPE_OFF != `FP_FADE_CMD_CMD_OFF || `FP_FADE_ACK_SEQ_OFF != `FP_FADE_CMD_CSN_OFF ||
            `FP_FADE_ACK_PKT_OFF != `FP_FADE_CMD_ARG_OFF) begin : g_bad_layout
            PARAMETER_ERROR_fade_rx_expects_ack_and_cmd_fields_at_the_same_offsets u_error();
        end
    endgenerate

    wire end_beat  = s_eth_tvalid && s_eth_tlast;
    wire bad_fcs   = s_eth_tuser[0];
    wire fade_hdr  = f_etype == `FP_FADE_ETHERTYPE && f_ver == `FP_FADE_VERSION;
    wire to_me     = f_dst == cfg_local_mac;
    wire to_bcast  = f_dst == 48'hFFFF_FFFF_FFFF;
    wire is_ack    = (f_type == `FP_FADE_TYPE_ACK || f_type == `FP_FADE_TYPE_NACK) && to_me &&
                     len_ge(beat_q, s_eth_tkeep, `FP_FADE_ACK_LEN);
    wire cmd_len   = len_ge(beat_q, s_eth_tkeep, `FP_FADE_CMD_LEN);
    wire is_reset  = f_cmd == `FP_FADE_CMD_RESET && (to_me || to_bcast) && cmd_len;
    wire is_user   = f_cmd >= `FP_FADE_CMD_USER_MIN && f_cmd <= `FP_FADE_CMD_USER_MAX;
    wire f_start   = f_cmd == `FP_FADE_CMD_START;
    wire f_stop    = f_cmd == `FP_FADE_CMD_STOP;
    wire is_cmd    = (f_start || f_stop || is_user) && to_me && cmd_len;

    // ---- FIFOs (LUT RAM sized) ----
    reg [48:0] ack_mem [0:ACK_DEPTH-1];
    reg [AW:0] ack_wp, ack_rp;
    reg [65:0] cmd_mem [0:CMD_DEPTH-1];
    reg [CW:0] cmd_wp, cmd_rp;
    wire cmd_full = (cmd_wp - cmd_rp) == CMD_DEPTH[CW:0];

    assign ack_valid = ack_wp != ack_rp;
    assign {ack_nack, ack_seq, ack_pkt} = ack_mem[ack_rp[AW-1:0]];
    assign cmd_valid = cmd_wp != cmd_rp;
    assign {cmd_dup, cmd_ctl, cmd_code, cmd_csn, cmd_arg} = cmd_mem[cmd_rp[CW-1:0]];

    // ---- ACK records: record r's type, seq and pkt are bytes 16 + 12r .. 23 + 12r, so they
    // complete in beat 2 + 3r/2 (r even: that whole beat) or 2 + (3r + 1)/2 (r odd: the upper
    // half of the beat before, the lower half of this one). ----
    reg  [63:32] prev_q;            // the upper half of the previous beat of this frame
    reg  [AW:0]  rec_slot;          // the FIFO slot for this frame's next record (wp + written)
    reg  [ACK_RECORDS-1:0] rec_t;   // the records of this frame written so far (bit r: record r)
    reg          rec_run;           // records are taken: each so far was an ACK/NACK with a slot
    reg  [ACK_RECORDS-1:0] rec_miss; // the record that found no free slot (rec_run ends there)

    // Record r: the beat in which its first 8 bytes (type, seq, pkt) complete; its end (all 12
    // bytes in the frame: the frame is at least 28 + 12r bytes long).
    function [3:0] rec_beat;
        input [3:0] r;
        rec_beat = 4'd2 + r + r / 4'd2 + {3'd0, r[0]};   // 2 + (3r + r mod 2) / 2
    endfunction
    localparam [7:0] REC_LEN8 = `FP_FADE_ACK_RECORD_LEN;
    localparam [6:0] ACK_LEN7 = `FP_FADE_ACK_LEN;
    localparam [6:0] REC_LEN7 = REC_LEN8[6:0];
    function [6:0] rec_end;
        input [3:0] r;
        rec_end = ACK_LEN7 + REC_LEN7 * {3'd0, r};
    endfunction

    // rec_at: the record completing in this beat (one-hot); rec_fit: the records whose last byte
    // is in the frame if this beat is its last one (a thermometer: tkeep is contiguous), so that
    // the tlast beat needs no length adder.
    wire [ACK_RECORDS-1:0] rec_at, rec_fit;
    genvar gr;
    generate
        for (gr = 0; gr < ACK_RECORDS; gr = gr + 1) begin : g_rec
            assign rec_at[gr]  = beat_q == rec_beat(gr);
            assign rec_fit[gr] = len_ge(beat_q, s_eth_tkeep, rec_end(gr));
        end
    endgenerate
    localparam [7:0] ODD = 8'hAA;
    wire         rec_here  = |rec_at;
    wire         rec_odd   = |(rec_at & ODD[ACK_RECORDS-1:0]);
    // The record's 8 bytes, byte 0 in [7:0]: odd records start in lane 4 of the previous beat.
    wire [63:0]  rec_bytes = rec_odd ? {s_eth_tdata[31:0], prev_q[63:32]} : s_eth_tdata;
    wire [15:0]  rec_type  = {rec_bytes[7:0], rec_bytes[15:8]};
    wire [15:0]  rec_seq   = {rec_bytes[23:16], rec_bytes[31:24]};
    wire [31:0]  rec_pkt   = {rec_bytes[39:32], rec_bytes[47:40], rec_bytes[55:48], rec_bytes[63:56]};
    wire         rec_ack   = rec_type == `FP_FADE_TYPE_ACK || rec_type == `FP_FADE_TYPE_NACK;
    // FIFO full at the slot: the same index one lap ahead of the read pointer (no subtraction).
    wire         rec_room  = rec_slot[AW-1:0] != ack_rp[AW-1:0] || rec_slot[AW] == ack_rp[AW];
    wire         rec_take  = s_eth_tvalid && rec_here && rec_run && rec_ack;
    wire         rec_put   = rec_take && rec_room;
    wire [ACK_RECORDS-1:0] rec_t_now = rec_t | (rec_put ? rec_at : {ACK_RECORDS{1'b0}});
    wire [ACK_RECORDS-1:0] rec_miss_now = rec_miss | (rec_take && !rec_room ? rec_at : {ACK_RECORDS{1'b0}});

    // ---- stage 1 (tlast beat): checks and fields registered; stage 2: queue / execute ----
    reg        e_end, e_bad, e_good, e_ack, e_cmd, e_reset, e_start, e_stop, e_over;
    reg [15:0] e_code, e_csn;       // command code; csn
    reg [31:0] e_val;               // arg
    reg [47:0] e_src;
    reg [ACK_RECORDS-1:0] e_pub;    // ACK records to publish: written and within the frame
    reg [AW:0] e_recs;              // ... their count (e_pub is a thermometer)
    integer r;
    always @* begin
        e_recs = {(AW + 1){1'b0}};
        for (r = 0; r < ACK_RECORDS; r = r + 1) begin
            if (e_pub[r]) e_recs = r[AW:0] + 1'b1;
        end
    end
    reg        have_csn;
    reg [15:0] last_csn;
    wire       dup = have_csn && e_csn == last_csn;
    wire       good = e_end && !e_bad && e_good;
    wire       push_ack = good && e_ack && !e_over;
    // the write pointer after this cycle's publish; also where the next frame's records go (they
    // start at beat 2, after the verdict; a dropped frame's written records are forgotten)
    wire [AW:0] wp_next = ack_wp + (push_ack ? e_recs : {(AW + 1){1'b0}});
    wire       push_cmd = good && e_cmd && !cmd_full;
    wire       do_reset = good && e_reset;

    always @(posedge clk) begin
        e_end   <= end_beat;
        e_bad   <= bad_fcs;
        e_good  <= fade_hdr;
        e_ack   <= is_ack;
        // a record without a slot drops the frame only if it lies within the frame (a cut last
        // record is not published anyway)
        e_over  <= |(rec_miss_now & rec_fit);
        e_pub   <= rec_t_now & rec_fit;
        e_cmd   <= is_cmd;
        e_reset <= is_reset;
        e_code  <= f_cmd;
        e_start <= f_start;
        e_stop  <= f_stop;
        e_csn   <= f_seq;
        e_val   <= f_pkt;
        e_src   <= f_src;
        if (rec_put) begin
            ack_mem[rec_slot[AW-1:0]] <= {rec_type == `FP_FADE_TYPE_NACK, rec_seq, rec_pkt};
        end
        if (push_cmd) begin
            cmd_mem[cmd_wp[CW-1:0]] <= {dup, e_start || e_stop, e_code, e_csn, e_val};
        end
        if (rec_put) rec_slot <= rec_slot + 1'b1;
        if (s_eth_tvalid) begin
            hdr_q    <= s_eth_tlast ? 256'd0 : hdr_now;
            beat_q   <= s_eth_tlast ? 4'd0 : (beat_q == 4'd15 ? beat_q : beat_q + 4'd1);
            prev_q   <= s_eth_tdata[63:32];
            rec_t    <= s_eth_tlast ? {ACK_RECORDS{1'b0}} : rec_t_now;
            rec_run  <= s_eth_tlast || (rec_run && !(rec_here && (!rec_ack || !rec_room)));
            rec_miss <= s_eth_tlast ? {ACK_RECORDS{1'b0}} : rec_miss_now;
        end
        start_pulse   <= push_cmd && !dup && e_start;
        stop_pulse    <= push_cmd && !dup && e_stop;
        reset_pulse   <= do_reset;
        ev_rx_bad_fcs <= e_end && e_bad;
        ev_rx_drop    <= e_end && !push_ack && !push_cmd && !do_reset;
        if (push_cmd && e_start) begin
            peer_mac <= e_src;
        end
        ack_wp <= wp_next;
        if (e_end) rec_slot <= wp_next;
        if (ack_valid && ack_ready) ack_rp <= ack_rp + 1'b1;
        if (push_cmd) begin
            cmd_wp   <= cmd_wp + 1'b1;
            have_csn <= 1'b1;
            last_csn <= e_csn;
        end
        if (cmd_valid && cmd_ready) cmd_rp <= cmd_rp + 1'b1;
        if (do_reset) begin
            // RESET empties the queues and forgets the last csn (the reset pulse resets the rest).
            have_csn <= 1'b0;
            ack_rp   <= ack_wp;
            cmd_rp   <= cmd_wp;
        end
        if (rst) begin
            hdr_q       <= 256'd0;
            beat_q      <= 4'd0;
            prev_q      <= 32'd0;
            rec_slot    <= {(AW + 1){1'b0}};
            rec_t       <= {ACK_RECORDS{1'b0}};
            rec_run     <= 1'b1;
            rec_miss    <= {ACK_RECORDS{1'b0}};
            e_end       <= 1'b0;
            start_pulse <= 1'b0;
            stop_pulse  <= 1'b0;
            reset_pulse <= 1'b0;
            ev_rx_bad_fcs <= 1'b0;
            ev_rx_drop  <= 1'b0;
            peer_mac    <= 48'hFFFF_FFFF_FFFF;
            ack_wp      <= 0;
            ack_rp      <= 0;
            cmd_wp      <= 0;
            cmd_rp      <= 0;
            have_csn    <= 1'b0;
            last_csn    <= 16'd0;
        end
    end

endmodule

`default_nettype wire
