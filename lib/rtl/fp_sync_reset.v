// fp_sync_reset: reset synchronizer. Asserts rst_out as soon as rst_in rises (asynchronously, so a
// reset reaches a domain whose clock is stopped) and releases it synchronously to clk, STAGES
// cycles after rst_in falls. Every other fastpath module uses rst_out as a synchronous reset.
//
// Latency:    assertion immediate; release after STAGES clk cycles.
// Throughput: n/a.
// Bad input:  a glitch on rst_in resets the domain for at least STAGES cycles (never a partial reset).
// Parameters: STAGES 2..4.
`default_nettype none

module fp_sync_reset #(
    parameter STAGES = 2
) (
    input  wire clk,
    input  wire rst_in,
    output wire rst_out
);

    generate
        if (STAGES < 2 || STAGES > 4) begin : g_bad_stages
            PARAMETER_ERROR_STAGES_must_be_2_to_4 u_error();
        end
    endgenerate

    (* ASYNC_REG = "TRUE" *) reg [STAGES-1:0] sync_q;

    always @(posedge clk or posedge rst_in) begin
        if (rst_in) begin
            sync_q <= {STAGES{1'b1}};
        end else begin
            sync_q <= {sync_q[STAGES-2:0], 1'b0};
        end
    end

    assign rst_out = sync_q[STAGES-1];

endmodule

`default_nettype wire
