// fp_axis_crc32: Ethernet CRC-32 of every frame on an AXI4-Stream, watched as a monitor.
//
// Observes s_axis (all signals are inputs, s_axis_tready included: a beat counts when
// tvalid && tready) and runs each frame through fp_crc32_step. One cycle after a frame's tlast beat
// it pulses crc_valid for one cycle with
//   crc    = the frame's FCS over all its bytes, = zlib.crc32(frame) (~ the final CRC state);
//   crc_ok = the frame, taken as ending with its 4 FCS bytes, carries a correct FCS (residue
//            check: final state == 32'hDEBB20E3). Frames shorter than 4 bytes never give crc_ok=1.
// crc and crc_ok hold their value until the next crc_valid.
//
// Latency:    1 cycle (rising edge accepting the tlast beat -> crc_valid high).
// Throughput: 1 beat per cycle, frames back to back (a crc_valid every cycle for 1-beat frames).
// Bad input:  tkeep must be contiguous from byte 0 on every beat (fp_crc32_step takes holes as set,
//             tkeep == 0 as an empty beat). There is no tuser: a frame is checked whatever it says.
// Parameters: DATA_WIDTH a multiple of 8, 8..512 (checked in fp_crc32_step).
`default_nettype none

module fp_axis_crc32 #(
    parameter DATA_WIDTH = 64
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0] s_axis_tkeep,
    input  wire                    s_axis_tvalid,
    input  wire                    s_axis_tready,
    input  wire                    s_axis_tlast,

    output reg                     crc_valid,
    output reg  [31:0]             crc,
    output reg                     crc_ok
);

    localparam [31:0] INIT    = 32'hFFFFFFFF;
    localparam [31:0] RESIDUE = 32'hDEBB20E3;  // state after a frame with its correct FCS

    reg  [31:0] state_q;  // CRC state before the next beat; INIT between frames
    wire [31:0] next;

    fp_crc32_step #(
        .DATA_WIDTH (DATA_WIDTH)
    ) u_step (
        .crc_in  (state_q),
        .data    (s_axis_tdata),
        .keep    (s_axis_tkeep),
        .crc_out (next)
    );

    wire beat = s_axis_tvalid && s_axis_tready;

    always @(posedge clk) begin
        if (beat && s_axis_tlast) begin
            crc    <= ~next;
            crc_ok <= next == RESIDUE;
        end
        if (rst) begin
            state_q   <= INIT;
            crc_valid <= 1'b0;
        end else begin
            crc_valid <= beat && s_axis_tlast;
            if (beat) begin
                state_q <= s_axis_tlast ? INIT : next;
            end
        end
    end

endmodule

`default_nettype wire
