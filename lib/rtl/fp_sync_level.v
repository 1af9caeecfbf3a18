// fp_sync_level: multi-flop synchronizer for level signals entering the clk domain.
//
// Each bit is synchronized independently: use it for quasi-static levels or for Gray-coded
// values (where at most one bit changes at a time), never for arbitrary multi-bit buses.
//
// Latency:    the output changes at the STAGES-th clk edge after the input changes (STAGES-1 to
//             STAGES clock periods, by phase); a metastable first flop can add one more cycle.
// Throughput: follows any input that holds for at least STAGES+1 clk cycles.
// Bad input:  none possible. Registers carry ASYNC_REG so tools keep them adjacent.
// Parameters: WIDTH >= 1, STAGES 2..4. The output is 0 while rst is high.
`default_nettype none

module fp_sync_level #(
    parameter WIDTH  = 1,
    parameter STAGES      = 2
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [WIDTH-1:0] in,
    output wire [WIDTH-1:0] out
);

    generate
        if (WIDTH < 1) begin : g_bad_width
            PARAMETER_ERROR_WIDTH_must_be_at_least_1 u_error();
        end
        if (STAGES < 2 || STAGES > 4) begin : g_bad_stages
            PARAMETER_ERROR_STAGES_must_be_2_to_4 u_error();
        end
    endgenerate

    (* ASYNC_REG = "TRUE" *) reg [WIDTH-1:0] sync_q [0:STAGES-1];

    integer i;
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < STAGES; i = i + 1) begin
                sync_q[i] <= {WIDTH{1'b0}};
            end
        end else begin
            sync_q[0] <= in;
            for (i = 1; i < STAGES; i = i + 1) begin
                sync_q[i] <= sync_q[i-1];
            end
        end
    end

    assign out = sync_q[STAGES-1];

endmodule

`default_nettype wire
