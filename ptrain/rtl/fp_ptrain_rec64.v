// fp_ptrain_rec64: the packet-train receiver's records (one FP_PTREC_W = 288-bit beat each,
// ptrain/rtl/ptrain_record.fmt.toml) as a stream of 64-bit words, for a 64-bit link such as FADE's
// user stream (fp_ptrain_fade_1g). Each record is 5 words, lowest bits first: words 0..3 are record
// bits 255:0, word 4 is {number[31:0], record bits 287:256}, where `number` counts the records
// this module has sent since reset (modulo 2^32; `count` is the next one's). As bytes (word byte 0
// = bits 7:0, FADE's little-endian words) a record is 40 bytes: its 36 bytes as
// fastpath.ptrain.record reads them, then the number, little-endian (fastpath.ptrain.fade_records).
// Why 5 words and not 4.5 (two records in 9): every record then starts on a word of its own, so
// the host cuts a stream at any record boundary without state, and the pad carries the number,
// which shows the host a record missing or a stream not starting on a record. The cost: 11 % more
// words, far inside FADE-1G's goodput (ptrain/README.md, "Records over FADE").
//
// A holding register takes a record while the previous one is shifted out (s_axis_tready is a
// flip-flop: !holding), and a 320-bit shift register sends it; m_axis_tlast marks word 4.
// `cut` (a level; fp_ptrain_fade_1g: the FADE core is idle) drops the words not yet sent of a
// record of which at least one word was taken, with one `ev_cut` pulse, so the next stream starts
// on a record boundary; a record none of whose words was taken stays. `idle`: nothing held.
//
// Latency:    2 cycles from a record's handshake on s_axis to its first word valid on m_axis when
//             the module is idle; behind a record being sent, its first word follows that
//             record's last word at once.
// Throughput: one word per cycle: 5 cycles per record back to back (25 M records/s at 125 MHz),
//             no bubble between records under a continuously ready m_axis.
// Bad input:  none possible (every 288-bit beat is a record; tkeep/tlast of a record stream are
//             constants and not ports here); a cut record reaches the sink shortened, counted by
//             ev_cut and seen by the host as a missing number.
// Parameters: none; the record must be 288 bits (FP_PTREC_W, checked at elaboration).
`default_nettype none

`include "fp_ptrain_record.vh"

module fp_ptrain_rec64 (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [`FP_PTREC_W-1:0]  s_axis_tdata,
    input  wire                    s_axis_tvalid,
    output wire                    s_axis_tready,

    output wire [63:0]             m_axis_tdata,
    output wire                    m_axis_tvalid,
    input  wire                    m_axis_tready,
    output wire                    m_axis_tlast,

    input  wire                    cut,
    output reg                     ev_cut,
    output wire                    idle,
    output wire [31:0]             count
);

    localparam integer RW = `FP_PTREC_W;

    generate
        if (RW != 288) begin : g_bad_width
            PARAMETER_ERROR_record_must_be_288_bits_4_words_and_a_half_for_the_32_bit_number u_error();
        end
    endgenerate

    reg  [RW-1:0]  hold_q;
    reg            hold_v_q;
    reg  [319:0]   sr_q;          // word 0 of what is left in bits 63:0 (= m_axis_tdata)
    reg  [2:0]     left_q;        // words of the record in sr_q not yet taken (0: empty)
    reg            valid_q, last_q;
    reg  [31:0]    cnt_q;

    wire take    = valid_q && m_axis_tready;
    // after this cycle's handshake, 1..4 of the record's 5 words taken: the record is partial
    wire partial = valid_q && !(left_q == 3'd5 && !m_axis_tready) && !(left_q == 3'd1 && m_axis_tready);
    wire do_cut  = cut && partial;
    wire sr_free = !valid_q || (last_q && m_axis_tready);
    wire load    = !do_cut && sr_free && hold_v_q;
    wire in_hs   = s_axis_tvalid && !hold_v_q;

    wire [319:0] rec_words = {cnt_q, hold_q};

    always @(posedge clk) begin
        if (in_hs) begin
            hold_q <= s_axis_tdata;
        end
        if (load) begin
            sr_q <= rec_words;
        end else if (take) begin
            sr_q <= {64'd0, sr_q[319:64]};
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            hold_v_q <= 1'b0;
            left_q   <= 3'd0;
            valid_q  <= 1'b0;
            last_q   <= 1'b0;
            cnt_q    <= 32'd0;
            ev_cut   <= 1'b0;
        end else begin
            ev_cut <= do_cut;
            if (in_hs) begin
                hold_v_q <= 1'b1;
            end else if (load) begin
                hold_v_q <= 1'b0;
            end
            if (do_cut) begin
                left_q  <= 3'd0;
                valid_q <= 1'b0;
                last_q  <= 1'b0;
            end else if (load) begin
                left_q  <= 3'd5;
                valid_q <= 1'b1;
                last_q  <= 1'b0;
                cnt_q   <= cnt_q + 32'd1;
            end else if (take) begin
                left_q  <= left_q - 3'd1;
                valid_q <= left_q != 3'd1;
                last_q  <= left_q == 3'd2;
            end
        end
    end

    assign s_axis_tready = !hold_v_q;
    assign m_axis_tdata  = sr_q[63:0];
    assign m_axis_tvalid = valid_q;
    assign m_axis_tlast  = last_q;
    assign idle          = !hold_v_q && !valid_q;
    assign count         = cnt_q;

endmodule

`default_nettype wire
