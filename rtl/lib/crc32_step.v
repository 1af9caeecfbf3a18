// crc32_step: one combinational step of the Ethernet CRC-32 over the first 1..DATA_WIDTH/8 bytes.
//
// The state is the reflected CRC register (polynomial 0xEDB88320, bits taken LSB first), NOT
// inverted: start a frame with crc_in = 32'hFFFFFFFF, feed crc_out of one beat to crc_in of the
// next, and after the last beat FCS = ~crc_out = zlib.crc32(frame); the FCS is sent little-endian
// (byte 0 = FCS[7:0]). A receiver that runs the frame INCLUDING its 4 FCS bytes through the steps
// ends with crc_out == 32'hDEBB20E3 when the FCS is right (~ = 32'h2144DF1C, which is what
// zlib.crc32(frame_with_fcs) returns). 32'hC704DD7B is the same residue written MSB first; it is
// NOT the value seen here.
//
// Structure (cheaper than one network per byte count, and the same network for every keep):
//   1. mask: bytes at and above the first invalid one are forced to zero;
//   2. one XOR network processes all DATA_WIDTH/8 bytes: for n valid bytes it yields the wanted
//      state followed by K-n zero bytes (K = DATA_WIDTH/8), i.e. Z^(8(K-n)) applied to it, where Z
//      is the (invertible) one-zero-bit step of the CRC register;
//   3. the K-n trailing zero bytes are undone by log2 stages: stage s applies Z^(-8*2^s) when bit s
//      of K-n is set (a 32x32 XOR matrix plus a 2:1 mux per state bit).
// Every matrix is derived at elaboration from the polynomial by the constant functions below.
// Cost and depth: the full-width network (32 XOR trees over DATA_WIDTH inputs, each gated by its
// keep byte) plus $clog2(K+1) correction stages in series on the 32-bit result; the correction is
// the long tail of the path, so a user at a high clock rate registers crc_out (axis_crc32 does).
//
// Latency:    0 cycles (combinational).
// Throughput: one beat per evaluation.
// Bad input:  keep must be contiguous from byte 0. A keep with holes is taken as if the holes were
//             set (n = index of the highest set keep bit + 1; those bytes' data is used). keep == 0
//             means no bytes: crc_out = crc_in.
// Parameters: DATA_WIDTH a multiple of 8, 8..512.
`default_nettype none

module crc32_step #(
    parameter DATA_WIDTH = 64
) (
    input  wire [31:0]             crc_in,
    input  wire [DATA_WIDTH-1:0]   data,
    input  wire [DATA_WIDTH/8-1:0] keep,
    output wire [31:0]             crc_out
);

    generate
        if (DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0 || DATA_WIDTH > 512) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_a_multiple_of_8_from_8_to_512 u_error();
        end
    endgenerate

    localparam KEEP_WIDTH = DATA_WIDTH / 8;
    localparam STAGES     = $clog2(KEEP_WIDTH + 1);  // bits of the zero-byte count 0..KEEP_WIDTH
    localparam [31:0] POLY = 32'hEDB88320;

    // ---- elaboration-time matrices ---------------------------------------------------------------

    // Z: the register after one zero input bit.
    function [31:0] zero_step(input [31:0] s);
        zero_step = (s >> 1) ^ (s[0] ? POLY : 32'd0);
    endfunction

    // Z^-1: bit 31 of Z(s) is s[0] (POLY[31] = 1 and s >> 1 has bit 31 clear), which undoes it.
    function [31:0] zero_unstep(input [31:0] t);
        zero_unstep = ((t ^ (t[31] ? POLY : 32'd0)) << 1) | {31'd0, t[31]};
    endfunction

    // Row j of the full-width network: bit p set if data bit p reaches state bit j.
    // Data bit p enters as POLY and then sees DATA_WIDTH-1-p zero bits: Z^(DATA_WIDTH-1-p)(POLY).
    function [DATA_WIDTH-1:0] data_row(input integer j);
        integer p;
        reg [31:0] v;
        begin
            v = POLY;
            data_row = {DATA_WIDTH{1'b0}};
            for (p = DATA_WIDTH - 1; p >= 0; p = p - 1) begin
                data_row[p] = |(v & (32'd1 << j));
                v = zero_step(v);
            end
        end
    endfunction

    // Row j of Z^-bits: bit i set if state bit i reaches bit j. Z^-1 moves bit i to i+1 for
    // i < 31, so Z^-bits(e_i) = Z^-(bits-31+i)(e_31) (or e_(i+bits) while that stays below 32).
    function [31:0] unstep_row(input integer bits, input integer j);
        integer c, i;
        reg [31:0] v;
        begin
            unstep_row = 32'd0;
            for (i = 0; i < 32; i = i + 1) begin
                if (i + bits < 32) begin
                    unstep_row[i] = (i + bits == j);
                end
            end
            v = 32'h80000000;
            for (c = 0; c <= bits; c = c + 1) begin
                i = c + 31 - bits;
                if (i >= 0) begin
                    unstep_row[i] = v[j];
                end
                v = zero_unstep(v);
            end
        end
    endfunction

    // Which byte counts n = 0..KEEP_WIDTH have bit s set in their zero-byte count KEEP_WIDTH - n.
    function [KEEP_WIDTH:0] count_sel(input integer s);
        integer n;
        begin
            for (n = 0; n <= KEEP_WIDTH; n = n + 1) begin
                count_sel[n] = ((KEEP_WIDTH - n) >> s) % 2 == 1;
            end
        end
    endfunction

    // ---- 1. valid bytes and the zero-byte count --------------------------------------------------

    wire [KEEP_WIDTH-1:0]   valid;    // valid[b]: byte b is below the highest set keep bit
    wire [KEEP_WIDTH+1:0]   edge_t;   // {0, valid, 1}: byte "-1" always valid, byte K never
    wire [KEEP_WIDTH:0]     count_1h; // one-hot: count_1h[n] = exactly n valid bytes
    wire [STAGES-1:0]       zeros;    // KEEP_WIDTH - n
    wire [DATA_WIDTH-1:0]   masked;

    genvar b, s, j;
    for (b = 0; b < KEEP_WIDTH; b = b + 1) begin : g_valid
        assign valid[b]             = |keep[KEEP_WIDTH-1:b];
        assign masked[8*b +: 8]     = data[8*b +: 8] & {8{valid[b]}};
    end
    assign edge_t = {1'b0, valid, 1'b1};
    for (b = 0; b <= KEEP_WIDTH; b = b + 1) begin : g_count
        assign count_1h[b] = edge_t[b] & !edge_t[b+1];
    end
    for (s = 0; s < STAGES; s = s + 1) begin : g_zeros
        assign zeros[s] = |(count_1h & count_sel(s));
    end

    // ---- 2. full-width network --------------------------------------------------------------------

    // The initial state enters exactly like data bits 0..31 (reflected CRC); when DATA_WIDTH < 32
    // its upper bits are only shifted down by DATA_WIDTH.
    wire [DATA_WIDTH+31:0] crc_ext = {{DATA_WIDTH{1'b0}}, crc_in};
    wire [DATA_WIDTH-1:0]  net_in  = masked ^ crc_ext[DATA_WIDTH-1:0];
    wire [31:0]            crc_hi  = crc_ext[DATA_WIDTH +: 32];
    wire [32*(STAGES+1)-1:0] state;  // state[32*s +: 32]: input of correction stage s

    for (j = 0; j < 32; j = j + 1) begin : g_net
        localparam [DATA_WIDTH-1:0] ROW = data_row(j);
        assign state[j] = ^(net_in & ROW) ^ crc_hi[j];
    end

    // ---- 3. undo the KEEP_WIDTH - n trailing zero bytes ------------------------------------------

    for (s = 0; s < STAGES; s = s + 1) begin : g_undo
        wire [31:0] cur = state[32*s +: 32];
        wire [31:0] back;
        for (j = 0; j < 32; j = j + 1) begin : g_bit
            localparam [31:0] ROW = unstep_row(8 << s, j);
            assign back[j] = ^(cur & ROW);
        end
        assign state[32*(s+1) +: 32] = zeros[s] ? back : cur;
    end

    assign crc_out = state[32*STAGES +: 32];

endmodule

`default_nettype wire
