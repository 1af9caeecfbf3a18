// fp_p4_tcam_merge: merges the results of two TCAM blocks that looked up the same key in the
// same cycle into the result of one TCAM of A_ENTRIES + B_ENTRIES entries, block A first.
//
// Priority, as inside fp_p4_tcam: the lower index wins, so any hit of A wins over any hit of B;
// B's entry i becomes entry A_ENTRIES + i of the merged table. A tree of these (see
// fp_p4_tcam_cascade) builds 64, 128, ... entries from 32-entry blocks, one cycle per level.
//
// Latency:    1 cycle (in_valid -> out_valid, all outputs registered).
// Throughput: one result per cycle.
// Bad input:  the two results must belong to the same lookup (one in_valid for both); an index
//             outside its block is passed on as given (out_index = A_ENTRIES + b_index), which
//             fp_p4_tcam never produces. A side that does not hit is ignored whatever its index
//             and action say. out_hit/index/action are 0 unless out_valid and a hit.
// Parameters: A_ENTRIES >= 1, B_ENTRIES >= 1, ACTION_WIDTH >= 1; the index widths are derived
//             (clog2 of the entries, at least 1), not set.
`default_nettype none

module fp_p4_tcam_merge #(
    parameter A_ENTRIES     = 32,
    parameter B_ENTRIES     = 32,
    parameter ACTION_WIDTH  = 16,
    parameter A_INDEX_WIDTH = (A_ENTRIES > 1) ? $clog2(A_ENTRIES) : 1,
    parameter B_INDEX_WIDTH = (B_ENTRIES > 1) ? $clog2(B_ENTRIES) : 1,
    parameter INDEX_WIDTH   = $clog2(A_ENTRIES + B_ENTRIES)
) (
    input  wire                     clk,
    input  wire                     rst,

    input  wire                     in_valid,
    input  wire                     a_hit,
    input  wire [A_INDEX_WIDTH-1:0] a_index,
    input  wire [ACTION_WIDTH-1:0]  a_action,
    input  wire                     b_hit,
    input  wire [B_INDEX_WIDTH-1:0] b_index,
    input  wire [ACTION_WIDTH-1:0]  b_action,

    output reg                      out_valid,
    output reg                      out_hit,
    output reg  [INDEX_WIDTH-1:0]   out_index,
    output reg  [ACTION_WIDTH-1:0]  out_action
);

    generate
        if (A_ENTRIES < 1) begin : g_bad_a_entries
            PARAMETER_ERROR_A_ENTRIES_must_be_at_least_1 u_error();
        end
        if (B_ENTRIES < 1) begin : g_bad_b_entries
            PARAMETER_ERROR_B_ENTRIES_must_be_at_least_1 u_error();
        end
        if (ACTION_WIDTH < 1) begin : g_bad_action_width
            PARAMETER_ERROR_ACTION_WIDTH_must_be_at_least_1 u_error();
        end
        if (A_INDEX_WIDTH != ((A_ENTRIES > 1) ? $clog2(A_ENTRIES) : 1) ||
            B_INDEX_WIDTH != ((B_ENTRIES > 1) ? $clog2(B_ENTRIES) : 1) ||
            INDEX_WIDTH != $clog2(A_ENTRIES + B_ENTRIES)) begin : g_bad_index_width
            PARAMETER_ERROR_INDEX_WIDTHs_must_not_be_set u_error();
        end
    endgenerate

    localparam [31:0] A32 = A_ENTRIES;

    // both indexes zero-extended to the merged width (never narrower than either side's)
    wire [INDEX_WIDTH-1:0] a_wide, b_wide;
    generate
        if (INDEX_WIDTH > A_INDEX_WIDTH) begin : g_a_extend
            assign a_wide = {{(INDEX_WIDTH - A_INDEX_WIDTH){1'b0}}, a_index};
        end else begin : g_a_same
            assign a_wide = a_index;
        end
        if (INDEX_WIDTH > B_INDEX_WIDTH) begin : g_b_extend
            assign b_wide = {{(INDEX_WIDTH - B_INDEX_WIDTH){1'b0}}, b_index};
        end else begin : g_b_same
            assign b_wide = b_index;
        end
    endgenerate

    wire take_a = in_valid && a_hit && !rst;
    wire take_b = in_valid && !a_hit && b_hit && !rst;

    always @(posedge clk) begin
        out_hit    <= take_a || take_b;
        out_index  <= take_a ? a_wide : take_b ? b_wide + A32[INDEX_WIDTH-1:0] : {INDEX_WIDTH{1'b0}};
        out_action <= take_a ? a_action : take_b ? b_action : {ACTION_WIDTH{1'b0}};
        if (rst) begin
            out_valid <= 1'b0;
        end else begin
            out_valid <= in_valid;
        end
    end

endmodule

`default_nettype wire
