// fp_rr_arbiter: round-robin arbiter over N requesters.
//
// A registered pointer (kept as a mask) names the requester with the highest priority. grant is the first
// requesting input at or after the pointer (cyclically): one-hot, or zero when nothing requests.
// When ack is high in a cycle with a grant (the grant was used), the pointer moves to the granted
// index + 1, so priority continues with the next requesters in order. Without ack the pointer holds
// and the grant follows req combinationally (a grant can move before it is used).
// Fairness: a requester that keeps req high is granted after at most N-1 acknowledged grants of
// other requesters (each such ack moves the pointer strictly closer to it).
//
// Latency:    0 cycles (grant, grant_valid, grant_index are combinational from req and the pointer);
//             ack takes effect on the next grant (1 cycle).
// Throughput: one grant per cycle (an ack every cycle rotates through all requesters).
// Bad input:  ack while grant_valid is low is ignored.
// Parameters: N >= 1. grant_index is $clog2(N) bits wide (1 bit, always 0, for N = 1).
`default_nettype none

module fp_rr_arbiter #(
    parameter N = 4,
    parameter INDEX_WIDTH = (N > 1) ? $clog2(N) : 1
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [N-1:0]           req,
    input  wire                   ack,

    output wire [N-1:0]           grant,
    output wire                   grant_valid,
    output reg  [INDEX_WIDTH-1:0] grant_index
);

    generate
        if (N < 1) begin : g_bad_n
            PARAMETER_ERROR_N_must_be_at_least_1 u_error();
        end
        if (INDEX_WIDTH != ((N > 1) ? $clog2(N) : 1)) begin : g_bad_index_width
            PARAMETER_ERROR_INDEX_WIDTH_must_not_be_set u_error();
        end
    endgenerate

    // The pointer is kept as a mask, mask_q[i] = (i >= pointer). Requests at or after the
    // pointer win over those before it; within each group the lowest index wins, found by a
    // prefix OR (no carry chain: the choice is a few LUT levels whatever N is).
    reg  [N-1:0] mask_q;
    reg  [N-1:0] g_upper, g_any, after;
    reg          seen_u, seen_r;
    integer i;
    always @* begin
        seen_u = 1'b0;
        seen_r = 1'b0;
        for (i = 0; i < N; i = i + 1) begin
            g_upper[i] = req[i] && mask_q[i] && !seen_u;
            g_any[i]   = req[i] && !seen_r;
            seen_u     = seen_u || (req[i] && mask_q[i]);
            seen_r     = seen_r || req[i];
        end
    end
    assign grant       = seen_u ? g_upper : g_any;
    assign grant_valid = seen_r;

    always @* begin
        grant_index = {INDEX_WIDTH{1'b0}};
        after       = {N{1'b0}};
        for (i = 0; i < N; i = i + 1) begin
            grant_index = grant_index | ({INDEX_WIDTH{grant[i]}} & i[INDEX_WIDTH-1:0]);
        end
        for (i = 1; i < N; i = i + 1) begin
            after[i] = after[i - 1] || grant[i - 1];   // i > the granted index
        end
    end

    // after an acknowledged grant at i the pointer is i + 1 (0 after N - 1): mask = bits > i
    always @(posedge clk) begin
        if (rst) begin
            mask_q <= {N{1'b1}};
        end else if (ack && grant_valid) begin
            mask_q <= grant[N-1] ? {N{1'b1}} : after;
        end
    end

endmodule

`default_nettype wire
