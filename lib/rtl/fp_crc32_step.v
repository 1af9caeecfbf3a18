// fp_crc32_step: one combinational step of the Ethernet CRC-32 over the first 1..DATA_WIDTH/8 bytes.
//
// The state is the reflected CRC register (polynomial 0xEDB88320, bits taken LSB first), NOT
// inverted: start a frame with crc_in = 32'hFFFFFFFF, feed crc_out of one beat to crc_in of the
// next, and after the last beat FCS = ~crc_out = zlib.crc32(frame); the FCS is sent little-endian
// (byte 0 = FCS[7:0]). A receiver that runs the frame INCLUDING its 4 FCS bytes through the steps
// ends with crc_out == 32'hDEBB20E3 when the FCS is right (~ = 32'h2144DF1C, which is what
// zlib.crc32(frame_with_fcs) returns). 32'hC704DD7B is the same residue written MSB first; it is
// NOT the value seen here.
//
// Structure (one shared network instead of one per byte count, and no XOR logic after it):
//   1. mask: bytes at and above the first invalid one are forced to zero;
//   2. fold crc_in into the data: in a reflected CRC the state simply XORs onto the first 32 data
//      bits, so the state after n bytes from crc_in = the CRC, from state 0, of the n bytes with
//      crc_in XORed onto bytes 0..3 - plus, when n < 4, the crc_in bytes not yet absorbed
//      (crc_in >> 8n), which still sit in the register;
//   3. shift this (DATA_WIDTH+32)-bit vector up by K-n bytes (K = DATA_WIDTH/8; $clog2(K+1) mux
//      stages): the valid bytes now end at byte K-1 behind K-n zero bytes, which leave a zero
//      state at zero, and the unabsorbed crc_in bytes land exactly in the 32 bits above byte K-1;
//   4. one XOR network over the K low bytes (zero initial state), XOR the 32 bits above them.
// The network rows are derived at elaboration from the polynomial by the constant function below.
// (Undoing the trailing zero bytes by a chain of 32x32 XOR matrices after the network, instead of
// shifting, is smaller at 512 bits (~3,800 LUTs) but deeper (28 LUT levels, 16 at 64 bits), and
// ABC's &mfs in synth_xilinx spends minutes on XOR logic composed after XOR logic: > 5 min at 256.)
// Yosys synth_xilinx: 64 bits ~550 LUTs, 256 bits ~2,600, 512 bits ~5,500 (about half of it the
// byte shifter); logic depth grows with log2 of the width (about 19 LUT levels at 512 bits) - a
// user at a high clock rate registers crc_out (fp_axis_crc32 does) or keeps tkeep all ones (the
// shifter then optimizes away).
//
// Latency:    0 cycles (combinational).
// Throughput: one beat per evaluation.
// Bad input:  keep must be contiguous from byte 0. A keep with holes is taken as if the holes were
//             set (n = index of the highest set keep bit + 1; those bytes' data is used). keep == 0
//             means no bytes: crc_out = crc_in.
// Parameters: DATA_WIDTH a multiple of 8, 8..512.
`default_nettype none

module fp_crc32_step #(
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

    // ---- elaboration-time constants -------------------------------------------------------------

    // Z: the register after one zero input bit.
    function [31:0] zero_step(input [31:0] s);
        zero_step = (s >> 1) ^ (s[0] ? POLY : 32'd0);
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

    // Which byte counts n = 0..KEEP_WIDTH have bit s set in their zero-byte count KEEP_WIDTH - n.
    function [KEEP_WIDTH:0] count_sel(input integer s);
        integer n;
        begin
            for (n = 0; n <= KEEP_WIDTH; n = n + 1) begin
                count_sel[n] = ((KEEP_WIDTH - n) >> s) % 2 == 1;
            end
        end
    endfunction

    // ---- 1. valid bytes and the zero-byte count -------------------------------------------------

    wire [KEEP_WIDTH-1:0]   valid;    // valid[b]: byte b is below the highest set keep bit
    wire [KEEP_WIDTH+1:0]   edge_t;   // {0, valid, 1}: byte "-1" always valid, byte K never
    wire [KEEP_WIDTH:0]     count_1h; // one-hot: count_1h[n] = exactly n valid bytes
    wire [STAGES-1:0]       zeros;    // KEEP_WIDTH - n
    wire [DATA_WIDTH-1:0]   masked;

    genvar b, s, j;
    for (b = 0; b < KEEP_WIDTH; b = b + 1) begin : g_valid
        assign valid[b]         = |keep[KEEP_WIDTH-1:b];
        assign masked[8*b +: 8] = data[8*b +: 8] & {8{valid[b]}};
    end
    assign edge_t = {1'b0, valid, 1'b1};
    for (b = 0; b <= KEEP_WIDTH; b = b + 1) begin : g_count
        assign count_1h[b] = edge_t[b] & !edge_t[b+1];
    end
    for (s = 0; s < STAGES; s = s + 1) begin : g_zeros
        assign zeros[s] = |(count_1h & count_sel(s));
    end

    // ---- 2. fold the state into the data, shift up by the zero-byte count -----------------------

    // Stage s shifts by 2^s bytes when bit s of the zero-byte count is set. Bytes pushed above
    // bit W-1 are invalid data bytes (zeroed) or beyond them: dropped.
    localparam W = DATA_WIDTH + 32;
    wire [W*(STAGES+1)-1:0] shifted;  // [W*s +: W]: input of stage s
    assign shifted[W-1:0] = {32'd0, masked} ^ {{DATA_WIDTH{1'b0}}, crc_in};
    for (s = 0; s < STAGES; s = s + 1) begin : g_align
        wire [W-1:0] cur = shifted[W*s +: W];
        assign shifted[W*(s+1) +: W] = zeros[s] ? cur << (8 << s) : cur;
    end
    wire [W-1:0] aligned = shifted[W*STAGES +: W];

    // ---- 3. full-width network from state 0, plus the crc_in bytes not absorbed (n < 4) ---------


    for (j = 0; j < 32; j = j + 1) begin : g_net
        localparam [DATA_WIDTH-1:0] ROW = data_row(j);
        assign crc_out[j] = ^(aligned[DATA_WIDTH-1:0] & ROW) ^ aligned[DATA_WIDTH + j];
    end

endmodule

`default_nettype wire
