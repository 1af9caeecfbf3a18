// fp_p4_tcam_cascade: a TCAM of BLOCKS * BLOCK_ENTRIES entries built from BLOCKS fp_p4_tcam
// blocks and a binary tree of fp_p4_tcam_merge, with the ports and the behaviour of one
// fp_p4_tcam of that many entries (the seed's "cascaded for more than 32 outputs").
//
// Every block gets the key (and registers it itself); block b holds entries b*BLOCK_ENTRIES ..
// (b+1)*BLOCK_ENTRIES-1 and gets the writes to them. Priority: the lowest index wins over the
// whole table, as in one block. The merge tree is balanced: an odd node at a level is merged with
// a side that never hits, so every block's result reaches the root after the same number of
// merges. Write semantics are those of fp_p4_tcam (a lookup sees the writes presented at least
// two cycles before its key, whole entries, never half an entry).
//
// Latency:    fp_p4_tcam's LATENCY (for BLOCK_ENTRIES) + ceil(log2(BLOCKS)) cycles; e.g.
//             4 x 32 entries, KEY_WIDTH 104, the defaults: 8 + 2 = 10. wr_bad: 1 cycle.
// Throughput: one lookup and one write per cycle, no backpressure.
// Bad input:  a write with wr_index >= BLOCKS * BLOCK_ENTRIES (possible when that total is not a
//             power of two) changes nothing and raises wr_bad for one cycle; the rest as
//             fp_p4_tcam (rst clears every entry, outputs 0 unless a valid hit).
// Parameters: BLOCKS 1..16, BLOCK_ENTRIES and the other parameters as fp_p4_tcam (ENTRIES there);
//             INDEX_WIDTH is derived (clog2 of the total, at least 1), not set.
`default_nettype none

module fp_p4_tcam_cascade #(
    parameter KEY_WIDTH     = 104,
    parameter BLOCK_ENTRIES = 32,
    parameter BLOCKS        = 2,
    parameter ACTION_WIDTH  = 16,
    parameter CMP_CHUNK     = 4,
    parameter AND_RADIX     = 4,
    parameter ENC_RADIX     = 4,
    parameter INDEX_WIDTH   = (BLOCKS * BLOCK_ENTRIES > 1) ? $clog2(BLOCKS * BLOCK_ENTRIES) : 1
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire                    key_valid,
    input  wire [KEY_WIDTH-1:0]    key,

    output wire                    result_valid,
    output wire                    result_hit,
    output wire [INDEX_WIDTH-1:0]  result_index,
    output wire [ACTION_WIDTH-1:0] result_action,

    input  wire                    wr_en,
    input  wire [INDEX_WIDTH-1:0]  wr_index,
    input  wire                    wr_entry_valid,
    input  wire [KEY_WIDTH-1:0]    wr_value,
    input  wire [KEY_WIDTH-1:0]    wr_mask,
    input  wire [ACTION_WIDTH-1:0] wr_action,
    output reg                     wr_bad
);

    localparam TOTAL       = BLOCKS * BLOCK_ENTRIES;
    localparam BLOCK_INDEX = (BLOCK_ENTRIES > 1) ? $clog2(BLOCK_ENTRIES) : 1;

    generate
        if (BLOCKS < 1 || BLOCKS > 16) begin : g_bad_blocks
            PARAMETER_ERROR_BLOCKS_must_be_1_to_16 u_error();
        end
        if (BLOCK_ENTRIES < 1) begin : g_bad_block_entries
            PARAMETER_ERROR_BLOCK_ENTRIES_must_be_at_least_1 u_error();
        end
        if (INDEX_WIDTH != ((TOTAL > 1) ? $clog2(TOTAL) : 1)) begin : g_bad_index_width
            PARAMETER_ERROR_INDEX_WIDTH_must_not_be_set u_error();
        end
    endgenerate

    // merge-tree level l has ceil(BLOCKS / 2^l) nodes; level 0 = the blocks
    function integer f_nodes(input integer level);
        begin
            f_nodes = (BLOCKS + (1 << level) - 1) >> level;
        end
    endfunction

    function integer f_levels(input integer blocks);
        integer k;
        begin
            f_levels = 0;
            for (k = 0; k < 5; k = k + 1) begin
                if (((blocks + (1 << k) - 1) >> k) > 1) begin
                    f_levels = k + 1;
                end
            end
        end
    endfunction

    function integer f_offset(input integer level);
        integer k;
        begin
            f_offset = 0;
            for (k = 0; k < level; k = k + 1) begin
                f_offset = f_offset + f_nodes(k);
            end
        end
    endfunction

    // entries under node j of level l: blocks j*2^l .. min((j+1)*2^l, BLOCKS) - 1
    function integer f_count(input integer level, input integer j);
        integer last;
        begin
            last = ((j + 1) << level) < BLOCKS ? ((j + 1) << level) : BLOCKS;
            f_count = BLOCK_ENTRIES * (last - (j << level));
        end
    endfunction

    function integer f_width(input integer entries);
        begin
            f_width = (entries > 1) ? $clog2(entries) : 1;
        end
    endfunction

    localparam LEVELS = f_levels(BLOCKS);
    localparam NODES  = f_offset(LEVELS + 1);
    localparam ROOT   = NODES - 1;

    // every tree node's result; indexes zero-extended to INDEX_WIDTH
    /* verilator lint_off UNUSEDSIGNAL */  // a merge reads only its left child's valid and the
    wire [NODES-1:0]              n_valid; // index bits its child can drive; the upper bits of a
    wire [NODES-1:0]              n_hit;   // node whose merge had a never-hitting side are 0
    wire [NODES*INDEX_WIDTH-1:0]  n_idx;
    wire [NODES*ACTION_WIDTH-1:0] n_act;
    wire [BLOCKS-1:0]             blk_bad; // blocks only see writes to their own entries
    /* verilator lint_on UNUSEDSIGNAL */

    genvar gb, gl, gj;
    generate
        for (gb = 0; gb < BLOCKS; gb = gb + 1) begin : g_block
            localparam [31:0] LO = gb * BLOCK_ENTRIES;
            localparam [31:0] HI = (gb + 1) * BLOCK_ENTRIES;
            wire above, below;
            if (gb > 0) begin : g_lo
                assign above = {1'b0, wr_index} >= LO[INDEX_WIDTH:0];
            end else begin : g_lo0
                assign above = 1'b1;
            end
            if (HI < (1 << INDEX_WIDTH)) begin : g_hi
                assign below = {1'b0, wr_index} < HI[INDEX_WIDTH:0];
            end else begin : g_hi_all
                assign below = 1'b1;
            end
            /* verilator lint_off UNUSEDSIGNAL */  // the block takes its own index bits only;
            wire [INDEX_WIDTH-1:0] rel = wr_index - LO[INDEX_WIDTH-1:0];  // above/below did the rest
            /* verilator lint_on UNUSEDSIGNAL */
            fp_p4_tcam #(
                .KEY_WIDTH    (KEY_WIDTH),
                .ENTRIES      (BLOCK_ENTRIES),
                .ACTION_WIDTH (ACTION_WIDTH),
                .CMP_CHUNK    (CMP_CHUNK),
                .AND_RADIX    (AND_RADIX),
                .ENC_RADIX    (ENC_RADIX)
            ) u_tcam (
                .clk            (clk),
                .rst            (rst),
                .key_valid      (key_valid),
                .key            (key),
                .result_valid   (n_valid[gb]),
                .result_hit     (n_hit[gb]),
                .result_index   (n_idx[gb*INDEX_WIDTH +: BLOCK_INDEX]),
                .result_action  (n_act[gb*ACTION_WIDTH +: ACTION_WIDTH]),
                .wr_en          (wr_en && above && below),
                .wr_index       (rel[BLOCK_INDEX-1:0]),
                .wr_entry_valid (wr_entry_valid),
                .wr_value       (wr_value),
                .wr_mask        (wr_mask),
                .wr_action      (wr_action),
                .wr_bad         (blk_bad[gb])
            );
            if (INDEX_WIDTH > BLOCK_INDEX) begin : g_zero
                assign n_idx[gb*INDEX_WIDTH + BLOCK_INDEX +: INDEX_WIDTH - BLOCK_INDEX] = {(INDEX_WIDTH - BLOCK_INDEX){1'b0}};
            end
        end

        for (gl = 1; gl <= LEVELS; gl = gl + 1) begin : g_level
            for (gj = 0; gj < f_nodes(gl); gj = gj + 1) begin : g_node
                localparam LEFT  = f_offset(gl - 1) + 2 * gj;
                localparam NODE  = f_offset(gl) + gj;
                localparam PAIR  = (2 * gj + 1 < f_nodes(gl - 1)) ? 1 : 0;
                localparam A_N   = f_count(gl - 1, 2 * gj);
                localparam B_N   = PAIR ? f_count(gl - 1, 2 * gj + 1) : 1;
                localparam A_W   = f_width(A_N);
                localparam B_W   = f_width(B_N);
                localparam OUT_W = $clog2(A_N + B_N);
                wire                    b_hit;
                wire [B_W-1:0]          b_idx;
                wire [ACTION_WIDTH-1:0] b_act;
                if (PAIR) begin : g_pair
                    assign b_hit = n_hit[LEFT + 1];
                    assign b_idx = n_idx[(LEFT + 1)*INDEX_WIDTH +: B_W];
                    assign b_act = n_act[(LEFT + 1)*ACTION_WIDTH +: ACTION_WIDTH];
                end else begin : g_alone   // the odd node: a side that never hits
                    assign b_hit = 1'b0;
                    assign b_idx = {B_W{1'b0}};
                    assign b_act = {ACTION_WIDTH{1'b0}};
                end
                fp_p4_tcam_merge #(
                    .A_ENTRIES    (A_N),
                    .B_ENTRIES    (B_N),
                    .ACTION_WIDTH (ACTION_WIDTH)
                ) u_merge (
                    .clk        (clk),
                    .rst        (rst),
                    .in_valid   (n_valid[LEFT]),
                    .a_hit      (n_hit[LEFT]),
                    .a_index    (n_idx[LEFT*INDEX_WIDTH +: A_W]),
                    .a_action   (n_act[LEFT*ACTION_WIDTH +: ACTION_WIDTH]),
                    .b_hit      (b_hit),
                    .b_index    (b_idx),
                    .b_action   (b_act),
                    .out_valid  (n_valid[NODE]),
                    .out_hit    (n_hit[NODE]),
                    .out_index  (n_idx[NODE*INDEX_WIDTH +: OUT_W]),
                    .out_action (n_act[NODE*ACTION_WIDTH +: ACTION_WIDTH])
                );
                if (INDEX_WIDTH > OUT_W) begin : g_zero
                    assign n_idx[NODE*INDEX_WIDTH + OUT_W +: INDEX_WIDTH - OUT_W] = {(INDEX_WIDTH - OUT_W){1'b0}};
                end
            end
        end
    endgenerate

    assign result_valid  = n_valid[ROOT];
    assign result_hit    = n_hit[ROOT];
    assign result_index  = n_idx[ROOT*INDEX_WIDTH +: INDEX_WIDTH];
    assign result_action = n_act[ROOT*ACTION_WIDTH +: ACTION_WIDTH];

    generate
        if (TOTAL < (1 << INDEX_WIDTH)) begin : g_range_check
            localparam [31:0] TOTAL32 = TOTAL;
            always @(posedge clk) begin
                wr_bad <= !rst && wr_en && wr_index >= TOTAL32[INDEX_WIDTH-1:0];
            end
        end else begin : g_range_full
            always @(posedge clk) begin
                wr_bad <= 1'b0;
            end
        end
    endgenerate

endmodule

`default_nettype wire
