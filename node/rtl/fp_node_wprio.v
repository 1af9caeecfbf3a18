// fp_node_wprio: a round-robin arbiter with two classes: requesters 0..HI-1 (the switch ports) are
// served before HI..N-1 (the host lanes), round robin within each class (fp_rr_arbiter each).
// So a port waits for at most HI - 1 other ports' grants plus the one grant already given in the
// cycle it asks, whatever the host lanes do; a host lane is served when no port asks.
//
// Latency:    0 cycles (grant, grant_valid, grant_index are combinational from req and the two
//             pointers); ack takes effect on the next grant (1 cycle), as fp_rr_arbiter's.
// Throughput: one grant per cycle.
// Bad input:  ack while grant_valid is low is ignored. Ports that ask in every cycle starve the
//             host lanes (never the case in the node: a port asks once per frame).
// Parameters: N >= 2, HI 1..N-1 (HI = N: a plain fp_rr_arbiter).
`default_nettype none

module fp_node_wprio #(
    parameter N  = 6,
    parameter HI = 4,
    parameter INDEX_WIDTH = $clog2(N)
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [N-1:0]           req,
    input  wire                   ack,

    output wire [N-1:0]           grant,
    output wire                   grant_valid,
    output wire [INDEX_WIDTH-1:0] grant_index
);

    generate
        if (N < 2) begin : g_bad_n
            PARAMETER_ERROR_N_must_be_at_least_2 u_error();
        end
        if (HI < 1 || HI > N) begin : g_bad_hi
            PARAMETER_ERROR_HI_must_be_1_to_N u_error();
        end
    endgenerate

    localparam LO   = N - HI;
    localparam HW   = (HI > 1) ? $clog2(HI) : 1;
    localparam LWD  = (LO > 1) ? $clog2(LO) : 1;

    generate
        if (LO == 0) begin : g_one
            fp_rr_arbiter #(.N(N), .INDEX_WIDTH(INDEX_WIDTH)) u_arb (
                .clk(clk), .rst(rst), .req(req), .ack(ack),
                .grant(grant), .grant_valid(grant_valid), .grant_index(grant_index)
            );
        end else begin : g_two
            wire [HI-1:0]  hg;
            wire [LO-1:0]  lg;
            wire           hv, lv;
            wire [HW-1:0]  hi_idx;
            wire [LWD-1:0] lo_idx;
            fp_rr_arbiter #(.N(HI), .INDEX_WIDTH(HW)) u_hi (
                .clk(clk), .rst(rst), .req(req[HI-1:0]), .ack(ack && hv),
                .grant(hg), .grant_valid(hv), .grant_index(hi_idx)
            );
            fp_rr_arbiter #(.N(LO), .INDEX_WIDTH(LWD)) u_lo (
                .clk(clk), .rst(rst), .req(req[N-1:HI]), .ack(ack && !hv && lv),
                .grant(lg), .grant_valid(lv), .grant_index(lo_idx)
            );
            localparam integer HI_I = HI;
            localparam [INDEX_WIDTH-1:0] BASE = HI_I[INDEX_WIDTH-1:0];
            // the class indices zero-extended to INDEX_WIDTH (the upper bits of these are spare)
            /* verilator lint_off UNUSEDSIGNAL */
            wire [INDEX_WIDTH+HW-1:0]  hi_ext = {{INDEX_WIDTH{1'b0}}, hi_idx};
            wire [INDEX_WIDTH+LWD-1:0] lo_ext = {{INDEX_WIDTH{1'b0}}, lo_idx};
            /* verilator lint_on UNUSEDSIGNAL */
            assign grant       = hv ? {{LO{1'b0}}, hg} : {lg, {HI{1'b0}}};
            assign grant_valid = hv || lv;
            assign grant_index = hv ? hi_ext[INDEX_WIDTH-1:0] : BASE + lo_ext[INDEX_WIDTH-1:0];
        end
    endgenerate

endmodule

`default_nettype wire
