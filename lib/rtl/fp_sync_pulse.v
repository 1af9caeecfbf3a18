// fp_sync_pulse: carries single-cycle pulses from the src_clk domain to the dst_clk domain.
//
// Each source pulse flips a toggle flop; the toggle is synchronized into dst_clk and every change
// becomes a one-cycle dst pulse. src_busy is high while a pulse is in flight (until the
// destination's acknowledgement toggle returns); a pulse given while src_busy is high is merged
// with the one in flight and counted as such by the caller if it matters.
//
// Latency:    dst_pulse is high after the STAGES-th dst_clk edge following the src edge that took
//             the pulse, so a dst flop sees it STAGES to STAGES+1 dst periods later (by phase).
// Throughput: one pulse per round trip, about 2*(STAGES+1) cycles of the slower clock.
// Bad input:  a pulse while src_busy is merged (never lost silently: src_busy tells the caller).
// Parameters: STAGES 2..4.
`default_nettype none

module fp_sync_pulse #(
    parameter STAGES = 2
) (
    input  wire src_clk,
    input  wire src_rst,
    input  wire src_pulse,
    output wire src_busy,

    input  wire dst_clk,
    input  wire dst_rst,
    output wire dst_pulse
);

    generate
        if (STAGES < 2 || STAGES > 4) begin : g_bad_stages
            PARAMETER_ERROR_STAGES_must_be_2_to_4 u_error();
        end
    endgenerate

    reg  src_toggle_q;
    reg  dst_toggle_q;
    wire dst_toggle_sync;
    wire src_ack_sync;

    always @(posedge src_clk) begin
        if (src_rst) begin
            src_toggle_q <= 1'b0;
        end else if (src_pulse && !src_busy) begin
            src_toggle_q <= ~src_toggle_q;
        end
    end

    fp_sync_level #(.WIDTH(1), .STAGES(STAGES)) u_to_dst (
        .clk(dst_clk), .rst(dst_rst), .in(src_toggle_q), .out(dst_toggle_sync)
    );

    always @(posedge dst_clk) begin
        if (dst_rst) begin
            dst_toggle_q <= 1'b0;
        end else begin
            dst_toggle_q <= dst_toggle_sync;
        end
    end

    assign dst_pulse = dst_toggle_sync ^ dst_toggle_q;

    fp_sync_level #(.WIDTH(1), .STAGES(STAGES)) u_ack_to_src (
        .clk(src_clk), .rst(src_rst), .in(dst_toggle_q), .out(src_ack_sync)
    );

    assign src_busy = src_toggle_q ^ src_ack_sync;

endmodule

`default_nettype wire
