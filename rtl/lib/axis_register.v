// axis_register: AXI4-Stream register slice with a skid buffer.
//
// Breaks every combinational path between the input and output sides: all outputs, including
// s_axis_tready, come from flip-flops. A second (skid) register absorbs the beat that arrives in
// the cycle the downstream deasserts tready, so the slice never throttles the stream.
//
// Latency:    1 cycle (first beat accepted on s_axis -> valid on m_axis).
// Throughput: 1 beat per cycle under any backpressure pattern.
// Bad input:  none possible; tkeep/tuser/tlast are carried through untouched.
// Placement:  LANES > 1 splits the beat into LANES slices, each with its own copy of the two
//             handshake flip-flops (kept apart from the other copies: Yosys would merge equal
//             registers), so the select and load enable of a wide slice fan out per slice and
//             each copy can sit beside its slice; m_axis_tready then drives LANES enables.
//             Behaviour is the same for every LANES.
// Parameters: DATA_WIDTH multiple of 8 (>= 8); KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//             LANES 1..(DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH).
`default_nettype none

module axis_register #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter USER_WIDTH = 1,
    parameter LANES      = 1
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [USER_WIDTH-1:0] s_axis_tuser,

    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,
    output wire [USER_WIDTH-1:0] m_axis_tuser
);

    generate
        if (DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_a_positive_multiple_of_8 u_error();
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
            PARAMETER_ERROR_KEEP_WIDTH_must_be_DATA_WIDTH_div_8 u_error();
        end
        if (USER_WIDTH < 1) begin : g_bad_user_width
            PARAMETER_ERROR_USER_WIDTH_must_be_at_least_1 u_error();
        end
        if (LANES < 1 || LANES > DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH) begin : g_bad_lanes
            PARAMETER_ERROR_LANES_must_be_1_to_the_beat_width u_error();
        end
    endgenerate

    localparam W = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;

    wire [W-1:0] in_beat = {s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tuser};
    wire [W-1:0] out_beat;

    genvar gl;
    generate
        for (gl = 0; gl < LANES; gl = gl + 1) begin : g_lane
            localparam integer LO = gl * W / LANES;          // this slice: bits LO .. HI - 1
            localparam integer HI = (gl + 1) * W / LANES;

            reg [HI-LO-1:0] out_q, skid_q;
            reg             out_valid_q, skid_valid_q;      // this lane's copy of the handshake
            wire            out_free = m_axis_tready || !out_valid_q;

            always @(posedge clk) begin
                if (out_free) begin
                    out_q <= skid_valid_q ? skid_q : in_beat[HI-1:LO];
                end else if (s_axis_tvalid && !skid_valid_q) begin
                    skid_q <= in_beat[HI-1:LO];
                end
            end

            // keep: every lane's copy stays a register of its own (see Placement above).
            (* keep *) always @(posedge clk) begin
                if (rst) begin
                    out_valid_q  <= 1'b0;
                    skid_valid_q <= 1'b0;
                end else if (out_free) begin
                    out_valid_q  <= skid_valid_q || s_axis_tvalid;
                    skid_valid_q <= 1'b0;
                end else if (s_axis_tvalid && !skid_valid_q) begin
                    skid_valid_q <= 1'b1;
                end
            end

            assign out_beat[HI-1:LO] = out_q;
        end
    endgenerate

    assign s_axis_tready = !g_lane[0].skid_valid_q;
    assign m_axis_tvalid = g_lane[0].out_valid_q;
    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = out_beat;

endmodule

`default_nettype wire
