// fp_node_rxarb: receive arbiter of a datapath (RXARB): merges the segment streams of its ports
// (and optionally its host port) into one segment stream.
//
// Round robin per segment among the INPUTS port inputs (fp_rr_arbiter): every cycle in which the
// output register can take a segment, the first requesting input at or after the pointer is
// taken, and the pointer moves past it. A grant is never held for a whole frame, so the segments
// of different frames interleave; each input's segments keep their order (and carry src_port in
// their NoC header to tell them apart). With HOST = 1 the host input (s_host_axis_*) is taken
// only in cycles where no port input offers a segment: the host gets the free slots. A port input
// that keeps tvalid high waits at most INPUTS-1 segments of other ports.
// tdata, tkeep, tlast and tuser (the NoC header) pass through unchanged.
//
// Latency:    1 cycle (segment accepted on s_axis -> valid on m_axis), from an idle arbiter or
//             not: the choice is combinational and the segment goes into an fp_axis_register.
// Throughput: 1 segment per cycle under any backpressure pattern. s_*_tready depends
//             combinationally on the s_axis_tvalid of the port inputs (the grant), never on
//             m_axis_tready; every m_axis output comes from a flip-flop.
// Bad input:  none possible. With HOST = 0 the s_host_axis inputs are ignored and
//             s_host_axis_tready is 0.
// Parameters: SEG_BYTES 32 or 64; INPUTS 1..8; HOST 0 or 1.
`default_nettype none
`include "fp_noc_header.vh"

module fp_node_rxarb #(
    parameter SEG_BYTES = 64,
    parameter INPUTS    = 6,
    parameter HOST      = 1
) (
    input  wire                          clk,
    input  wire                          rst,

    input  wire [INPUTS*SEG_BYTES*8-1:0] s_axis_tdata,
    input  wire [INPUTS*SEG_BYTES-1:0]   s_axis_tkeep,
    input  wire [INPUTS-1:0]             s_axis_tvalid,
    output wire [INPUTS-1:0]             s_axis_tready,
    input  wire [INPUTS-1:0]             s_axis_tlast,
    input  wire [INPUTS*`FP_NOC_W-1:0]      s_axis_tuser,

    input  wire [SEG_BYTES*8-1:0]        s_host_axis_tdata,
    input  wire [SEG_BYTES-1:0]          s_host_axis_tkeep,
    input  wire                          s_host_axis_tvalid,
    output wire                          s_host_axis_tready,
    input  wire                          s_host_axis_tlast,
    input  wire [`FP_NOC_W-1:0]             s_host_axis_tuser,

    output wire [SEG_BYTES*8-1:0]        m_axis_tdata,
    output wire [SEG_BYTES-1:0]          m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire [`FP_NOC_W-1:0]             m_axis_tuser
);

    generate
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
        if (INPUTS < 1 || INPUTS > 8) begin : g_bad_inputs
            PARAMETER_ERROR_INPUTS_must_be_1_to_8 u_error();
        end
        if (HOST != 0 && HOST != 1) begin : g_bad_host
            PARAMETER_ERROR_HOST_must_be_0_or_1 u_error();
        end
    endgenerate

    localparam DW = SEG_BYTES * 8;
    localparam KW = SEG_BYTES;
    localparam UW = `FP_NOC_W;
    localparam IW = (INPUTS > 1) ? $clog2(INPUTS) : 1;

    wire              reg_ready;     // the output register takes a segment this cycle
    wire [INPUTS-1:0] grant;
    wire              grant_valid;   // some port input offers a segment
    /* verilator lint_off UNUSEDSIGNAL */  // the select uses the one-hot grant, not the index
    wire [IW-1:0]     grant_index;
    /* verilator lint_on UNUSEDSIGNAL */

    fp_rr_arbiter #(.N(INPUTS)) u_arb (
        .clk         (clk),
        .rst         (rst),
        .req         (s_axis_tvalid),
        .ack         (reg_ready),
        .grant       (grant),
        .grant_valid (grant_valid),
        .grant_index (grant_index)
    );

    wire host_take = (HOST != 0) && !grant_valid;

    assign s_axis_tready      = grant & {INPUTS{reg_ready}};
    assign s_host_axis_tready = host_take && reg_ready;

    // the select is an AND-OR over the one-hot grant (and host_take): no encoder to an index
    // and no binary mux tree in front of the 500-odd wide select
    reg  [DW-1:0] sel_tdata;
    reg  [KW-1:0] sel_tkeep;
    reg           sel_tlast;
    reg  [UW-1:0] sel_tuser;
    integer i;
    always @* begin
        sel_tdata = {DW{host_take}} & s_host_axis_tdata;
        sel_tkeep = {KW{host_take}} & s_host_axis_tkeep;
        sel_tlast = host_take & s_host_axis_tlast;
        sel_tuser = {UW{host_take}} & s_host_axis_tuser;
        for (i = 0; i < INPUTS; i = i + 1) begin
            sel_tdata = sel_tdata | ({DW{grant[i]}} & s_axis_tdata[i*DW +: DW]);
            sel_tkeep = sel_tkeep | ({KW{grant[i]}} & s_axis_tkeep[i*KW +: KW]);
            sel_tlast = sel_tlast | (grant[i] & s_axis_tlast[i]);
            sel_tuser = sel_tuser | ({UW{grant[i]}} & s_axis_tuser[i*UW +: UW]);
        end
    end
    wire          sel_valid = grant_valid || (host_take && s_host_axis_tvalid);

    fp_axis_register #(
        .DATA_WIDTH (DW),
        .USER_WIDTH (UW)
    ) u_reg (
        .clk           (clk),
        .rst           (rst),
        .s_axis_tdata  (sel_tdata),
        .s_axis_tkeep  (sel_tkeep),
        .s_axis_tvalid (sel_valid),
        .s_axis_tready (reg_ready),
        .s_axis_tlast  (sel_tlast),
        .s_axis_tuser  (sel_tuser),
        .m_axis_tdata  (m_axis_tdata),
        .m_axis_tkeep  (m_axis_tkeep),
        .m_axis_tvalid (m_axis_tvalid),
        .m_axis_tready (m_axis_tready),
        .m_axis_tlast  (m_axis_tlast),
        .m_axis_tuser  (m_axis_tuser)
    );

endmodule

`default_nettype wire
