// fp_p4_hash: hash-based exact-match table in block RAM, the P4 pipeline's memory for exact
// tables of more than 64 entries (p4/docs/hash.md). The lookup, result and write ports are
// those of fp_p4_tcam without the mask, so a pipeline can take either.
//
// WAYS ways of ROWS = ENTRIES / WAYS rows, each way one block RAM (fp_ram_sdp with its output
// register) of {valid, key, action} words. Way w hashes the key with its own hash h_w, simple
// tabulation over the key's 4-bit characters (row bit j = XOR over the characters of a 16-entry
// table each, one LUT4; the tables are constants from the generator of f_tables, seeded by SEED
// and w, the same rule as fastpath.p4.hash_load); a lookup reads row h_w(key) of every way
// and hits when a valid entry there holds the key, the LOWEST such way winning. result_index =
// way * ROWS + row, the address space of wr_index: software (fastpath.p4.hash_load.HashImage)
// places the entries, by cuckoo moves, and writes them by index.
//
// Pipeline (every stage a register): the key register; the hash, a registered XOR tree (stage
// 1: per row bit, the XOR of the tables of each 4 characters; then radix-16 XOR levels); the RAM
// read and its output register; the compare (one flag per 8 key bits, and the entry's valid
// bit); a radix-16 AND tree over the flags; the way select into the output registers.
//
// Writes: wr_en writes entry wr_index whole ({valid, key, action}: one RAM word, so a lookup never
// sees half an entry), one write per cycle while lookups go on. A lookup sees every write
// presented in the same cycle as its key or before it, never one presented after it (the write
// reaches the RAM at the edge that samples the RAM read of the key presented one cycle before
// it, which gets the old word: fp_ram_sdp's read-during-write rule).
//
// Latency:    LATENCY = H + A + 4 cycles from key_valid to result_valid (fixed: every key gives one
//             result), H = 1 + ceil(log16(ceil(KEY_WIDTH / 16))) hash stages, A =
//             ceil(log16(ceil(KEY_WIDTH / 8) + 1)) AND levels: 6 for 1..16-bit keys, 7 for 17..120
//             (48-bit MAC, 104-bit 5-tuple), 8 for 121..256, 9 for 257..660.
//             wr_bad: 1 cycle after the write.
// Throughput: one lookup and one write per cycle, at the same time, with no backpressure.
// Bad input:  wr_index is always in range (ENTRIES = 2^INDEX_WIDTH). rst empties the table: it
//             drops the lookups and writes in flight, and from the cycle after rst the block
//             writes every row of every way invalid, one row per cycle (CLEAR = ROWS cycles);
//             lookups presented during the clear miss (results on time, hit 0), writes presented
//             during it are not done and raise wr_bad 1 cycle later; writes during rst are
//             ignored. A key stored at a row other than its hash row is never found; a key in
//             several ways (between the two writes of a move) hits in the lowest.
//             result_hit/index/action are 0 unless result_valid and a hit.
// Parameters: KEY_WIDTH 1..660, ENTRIES a power of two, 2 * WAYS..65536, WAYS 1, 2 or 4,
//             ACTION_WIDTH 1..1024, SEED 0..2^31-1; INDEX_WIDTH is derived (log2(ENTRIES)), not
//             set.
`default_nettype none

module fp_p4_hash #(
    parameter KEY_WIDTH    = 48,
    parameter ENTRIES      = 512,
    parameter WAYS         = 2,
    parameter ACTION_WIDTH = 32,
    parameter SEED         = 461845907,        // 0x1B873593
    parameter INDEX_WIDTH  = (ENTRIES > 1) ? $clog2(ENTRIES) : 1
) (
    input  wire                    clk,
    input  wire                    rst,

    // lookup: one key per cycle when key_valid
    input  wire                    key_valid,
    input  wire [KEY_WIDTH-1:0]    key,

    // result: LATENCY cycles after the key
    output reg                     result_valid,
    output reg                     result_hit,
    output reg  [INDEX_WIDTH-1:0]  result_index,
    output reg  [ACTION_WIDTH-1:0] result_action,

    // write port: entry wr_index := {wr_entry_valid, wr_value, wr_action} when wr_en
    input  wire                    wr_en,
    input  wire [INDEX_WIDTH-1:0]  wr_index,
    input  wire                    wr_entry_valid,
    input  wire [KEY_WIDTH-1:0]    wr_value,
    input  wire [ACTION_WIDTH-1:0] wr_action,
    output reg                     wr_bad
);

    generate
        if (KEY_WIDTH < 1 || KEY_WIDTH > 660) begin : g_bad_key_width
            PARAMETER_ERROR_KEY_WIDTH_must_be_1_to_660 u_error();
        end
        if (WAYS != 1 && WAYS != 2 && WAYS != 4) begin : g_bad_ways
            PARAMETER_ERROR_WAYS_must_be_1_2_or_4 u_error();
        end
        if (ENTRIES < 2 * WAYS || ENTRIES > 65536 || (ENTRIES & (ENTRIES - 1)) != 0) begin : g_bad_entries
            PARAMETER_ERROR_ENTRIES_must_be_a_power_of_two_2xWAYS_to_65536 u_error();
        end
        if (ACTION_WIDTH < 1 || ACTION_WIDTH > 1024) begin : g_bad_action_width
            PARAMETER_ERROR_ACTION_WIDTH_must_be_1_to_1024 u_error();
        end
        if (SEED < 0 || SEED > 32'h7FFFFFFF) begin : g_bad_seed
            PARAMETER_ERROR_SEED_must_be_0_to_2147483647 u_error();
        end
        if (INDEX_WIDTH != ((ENTRIES > 1) ? $clog2(ENTRIES) : 1)) begin : g_bad_index_width
            PARAMETER_ERROR_INDEX_WIDTH_must_not_be_set u_error();
        end
    endgenerate

    // ---- geometry -------------------------------------------------------------------------

    `include "fp_p4_tree.vh"

    localparam ROWS       = ENTRIES / WAYS;
    localparam RB         = (ROWS > 1) ? $clog2(ROWS) : 1;  // row bits (hash width)
    localparam WB         = INDEX_WIDTH - RB;           // way bits (0 for one way)
    localparam DW         = 1 + KEY_WIDTH + ACTION_WIDTH;   // RAM word: {valid, key, action}
    localparam HASH_GROUP = 16;                         // key bits (4 tables) per leaf of stage 1
    localparam HASH_RADIX = 16;                         // partial parities per XOR-tree node
    localparam NG         = (KEY_WIDTH + HASH_GROUP - 1) / HASH_GROUP;
    localparam HX_LEVELS  = f_levels(NG, HASH_RADIX);
    localparam HX_NODES   = f_offset(NG, HASH_RADIX, HX_LEVELS + 1);
    localparam H          = 1 + HX_LEVELS;              // hash stages
    localparam CMP_CHUNK  = 8;                          // key bits per compare flag
    localparam AND_RADIX  = 16;
    localparam NCHUNK     = (KEY_WIDTH + CMP_CHUNK - 1) / CMP_CHUNK;
    localparam NFLAG      = NCHUNK + 1;                 // + the entry's valid bit
    localparam A          = f_levels(NFLAG, AND_RADIX); // AND levels (>= 1)
    localparam AND_NODES  = f_offset(NFLAG, AND_RADIX, A + 1);
    localparam LATENCY    = H + A + 4;
    localparam KEY_DELAY  = H + 2;                      // key copies after key_q, to the compare
    localparam ROW_DELAY  = A + 3;                      // row copies after the hash, to the select
    localparam ACT_DELAY  = A + 1;                      // action copies after the RAM output
    localparam NC         = (KEY_WIDTH + 3) / 4;        // 4-bit characters of the key
    localparam NW         = RB * NC / 2 + 1;            // generator words per way (16 bits a table)

    // ---- the hash functions: simple tabulation over 4-bit characters ------------------------
    // Row bit j of way w = XOR over the key's characters c (bits 4c+3..4c, zero-extended) of
    // T[w][j][c][character]: T[w][j][c] is a 16-bit truth table, bits (j*NC + c)*16 +: 16 of
    // the way's generator stream. The generator (fastpath.p4.hash_load, the same rule): x = SEED
    // + (w + 1) * 0x9E3779B9 (1 if 0), d = x; per step xorshift32 on x, d += 0x6D2B79F5, output
    // x + d; the first 8 outputs are dropped, the next ones are the stream, the first in bits
    // 31:0. A table is one LUT4 of a character, so the first hash stage (4 tables and their XOR)
    // costs what a parity of 16 key bits does.
    localparam [31:0] SEED32 = SEED;

    function [RB*NC*16-1:0] f_tables(input integer way);
        reg [31:0]      x, d, w1, o;
        reg [NW*32-1:0] acc;
        integer         k;
        begin
            w1 = way + 1;
            x = SEED32 + w1 * 32'h9E3779B9;
            if (x == 32'd0) begin
                x = 32'd1;
            end
            d = x;
            acc = {NW{32'd0}};
            for (k = 0; k < 8 + NW; k = k + 1) begin
                x = x ^ (x << 13);
                x = x ^ (x >> 17);
                x = x ^ (x << 5);
                d = d + 32'h6D2B79F5;
                o = x + d;
                if (k >= 8) begin
                    acc = acc >> 32;
                    acc[NW*32-1 -: 32] = o;
                end
            end
            f_tables = acc[RB*NC*16-1:0];
        end
    endfunction

    genvar gw, gj, gg, gl, gn, gc, gt;

    // ---- lookup pipeline control ----------------------------------------------------------
    reg  [KEY_WIDTH-1:0]   key_q;                 // stage 0
    reg  [LATENCY-1:0]     valid_q;               // valid_q[s]: a lookup in stage s
    reg  [LATENCY-1:0]     blind_q;               // ... presented during the clear: a miss
    reg                    clearing;              // the clear after rst runs
    reg  [RB-1:0]          clear_row;

    // the key in whole characters (zero-extended), for the hash
    wire [NC*4-1:0]        key_x;
    generate
        if (NC * 4 > KEY_WIDTH) begin : g_key_pad
            assign key_x = {{(NC*4-KEY_WIDTH){1'b0}}, key_q};
        end else begin : g_key_whole
            assign key_x = key_q;
        end
    endgenerate

    always @(posedge clk) begin
        key_q <= key;
        if (rst) begin
            valid_q <= {LATENCY{1'b0}};
        end else begin
            valid_q <= {valid_q[0 +: LATENCY-1], key_valid};
        end
        blind_q <= {blind_q[0 +: LATENCY-1], clearing};
    end

    // ---- write pipeline -------------------------------------------------------------------
    // Stage 0 registers the write (or the clear's write of row clear_row in every way) and
    // decodes the way; stages 1 .. H-1 delay it; stage H-1 drives the RAMs. A write presented at
    // edge t thus changes the RAM at edge t + H, the edge at which the read of the key presented
    // at t - 1 is sampled (which sees the old word) and before that of the key presented at t.
    reg [H*WAYS-1:0] w_en;
    reg [H*RB-1:0]   w_row;
    reg [H*DW-1:0]   w_data;

    wire [WAYS-1:0] wr_way_sel;
    generate
        if (WAYS == 1) begin : g_one_way
            assign wr_way_sel = 1'b1;
        end else begin : g_ways
            for (gw = 0; gw < WAYS; gw = gw + 1) begin : g_sel
                localparam [WB-1:0] W = gw;
                assign wr_way_sel[gw] = wr_index[INDEX_WIDTH-1 -: WB] == W;
            end
        end
    endgenerate

    localparam [31:0] LAST_ROW = ROWS - 1;

    always @(posedge clk) begin
        if (rst) begin
            w_en[0 +: WAYS] <= {WAYS{1'b0}};
            clearing        <= 1'b1;
            clear_row       <= {RB{1'b0}};
            wr_bad          <= 1'b0;
        end else if (clearing) begin
            w_en[0 +: WAYS] <= {WAYS{1'b1}};
            clear_row       <= clear_row + 1'b1;
            clearing        <= clear_row != LAST_ROW[RB-1:0];
            wr_bad          <= wr_en;
        end else begin
            w_en[0 +: WAYS] <= wr_en ? wr_way_sel : {WAYS{1'b0}};
            wr_bad          <= 1'b0;
        end
        if (clearing) begin
            w_row[0 +: RB]  <= clear_row;
            w_data[0 +: DW] <= {DW{1'b0}};
        end else begin
            w_row[0 +: RB]  <= wr_index[RB-1:0];
            w_data[0 +: DW] <= {wr_entry_valid, wr_value, wr_action};
        end
    end

    generate
        if (H > 1) begin : g_w_delay
            always @(posedge clk) begin
                if (rst) begin
                    w_en[WAYS +: (H-1)*WAYS] <= {(H-1)*WAYS{1'b0}};
                end else begin
                    w_en[WAYS +: (H-1)*WAYS] <= w_en[0 +: (H-1)*WAYS];
                end
                w_row[RB +: (H-1)*RB]  <= w_row[0 +: (H-1)*RB];
                w_data[DW +: (H-1)*DW] <= w_data[0 +: (H-1)*DW];
            end
        end
    endgenerate

    // ---- key copies for the compare -------------------------------------------------------
    reg [KEY_DELAY*KEY_WIDTH-1:0] key_d;          // key_d copy k: key_q delayed k + 1 cycles

    always @(posedge clk) begin
        key_d <= {key_d[0 +: (KEY_DELAY-1)*KEY_WIDTH], key_q};
    end

    wire [KEY_WIDTH-1:0] key_cmp = key_d[(KEY_DELAY-1)*KEY_WIDTH +: KEY_WIDTH];

    // ---- ways: hash, RAM, compare ---------------------------------------------------------
    wire [WAYS-1:0]              way_hit;         // registered, stage LATENCY - 1
    wire [WAYS*INDEX_WIDTH-1:0]  way_idx;         // its entry index (way * ROWS + row), same stage
    wire [WAYS*ACTION_WIDTH-1:0] way_act;         // its action, same stage

    generate
        for (gw = 0; gw < WAYS; gw = gw + 1) begin : g_way
            localparam [RB*NC*16-1:0] TABLES = f_tables(gw);

            // hash: per row bit, a radix-HASH_RADIX XOR tree whose leaves are the XORs of the
            // tables of each 16 key bits (4 characters)
            wire [RB-1:0] row_h;                   // registered: stage H
            for (gj = 0; gj < RB; gj = gj + 1) begin : g_bit
                wire [HX_NODES-1:0] hx;
                for (gg = 0; gg < NG; gg = gg + 1) begin : g_group
                    localparam C0 = gg * 4;                            // first character
                    localparam CN = (C0 + 4 < NC ? C0 + 4 : NC) - C0;  // characters here
                    wire [CN-1:0] t;
                    for (gt = 0; gt < CN; gt = gt + 1) begin : g_char
                        localparam [15:0] T = TABLES[(gj*NC + C0 + gt)*16 +: 16];
                        assign t[gt] = T[key_x[(C0 + gt)*4 +: 4]];
                    end
                    reg p_q;
                    always @(posedge clk) begin
                        p_q <= ^t;
                    end
                    assign hx[gg] = p_q;
                end
                for (gl = 1; gl <= HX_LEVELS; gl = gl + 1) begin : g_level
                    localparam N_BELOW = f_count(NG, HASH_RADIX, gl - 1);
                    for (gn = 0; gn < f_count(NG, HASH_RADIX, gl); gn = gn + 1) begin : g_node
                        localparam FIRST = f_offset(NG, HASH_RADIX, gl - 1) + gn * HASH_RADIX;
                        localparam KIDS  = (N_BELOW - gn * HASH_RADIX < HASH_RADIX) ? N_BELOW - gn * HASH_RADIX : HASH_RADIX;
                        reg x_q;
                        always @(posedge clk) begin
                            x_q <= ^hx[FIRST +: KIDS];
                        end
                        assign hx[f_offset(NG, HASH_RADIX, gl) + gn] = x_q;
                    end
                end
                assign row_h[gj] = hx[HX_NODES-1];
            end

            // the way's RAM: written by write stage H-1, read at row_h; rdata 2 cycles later
            wire [DW-1:0] rdata;
            fp_ram_sdp #(
                .ADDR_WIDTH (RB),
                .DATA_WIDTH (DW),
                .OUT_REG    (1)
            ) u_ram (
                .clk   (clk),
                .wen   (w_en[(H-1)*WAYS + gw]),
                .waddr (w_row[(H-1)*RB +: RB]),
                .wdata (w_data[(H-1)*DW +: DW]),
                .ren   (1'b1),
                .raddr (row_h),
                .rdata (rdata)
            );

            // the row, carried to the way select
            reg [ROW_DELAY*RB-1:0] row_d;
            always @(posedge clk) begin
                row_d <= {row_d[0 +: (ROW_DELAY-1)*RB], row_h};
            end
            if (WB == 0) begin : g_idx_one
                assign way_idx[gw*INDEX_WIDTH +: INDEX_WIDTH] = row_d[(ROW_DELAY-1)*RB +: RB];
            end else begin : g_idx
                localparam [WB-1:0] WV = gw;
                assign way_idx[gw*INDEX_WIDTH +: INDEX_WIDTH] = {WV, row_d[(ROW_DELAY-1)*RB +: RB]};
            end

            // the action, carried to the way select
            reg [ACT_DELAY*ACTION_WIDTH-1:0] act_d;
            always @(posedge clk) begin
                act_d <= {act_d[0 +: (ACT_DELAY-1)*ACTION_WIDTH], rdata[0 +: ACTION_WIDTH]};
            end
            assign way_act[gw*ACTION_WIDTH +: ACTION_WIDTH] = act_d[(ACT_DELAY-1)*ACTION_WIDTH +: ACTION_WIDTH];

            // compare: one flag per CMP_CHUNK key bits, the last flag the entry's valid bit
            wire [AND_NODES-1:0] an;
            for (gc = 0; gc < NCHUNK; gc = gc + 1) begin : g_chunk
                localparam LO = gc * CMP_CHUNK;
                localparam W  = (LO + CMP_CHUNK < KEY_WIDTH ? LO + CMP_CHUNK : KEY_WIDTH) - LO;
                reg eq_q;
                always @(posedge clk) begin
                    eq_q <= rdata[ACTION_WIDTH + LO +: W] == key_cmp[LO +: W];
                end
                assign an[gc] = eq_q;
            end
            reg valid_e_q;
            always @(posedge clk) begin
                valid_e_q <= rdata[DW-1];
            end
            assign an[NCHUNK] = valid_e_q;

            for (gl = 1; gl <= A; gl = gl + 1) begin : g_and
                localparam N_BELOW = f_count(NFLAG, AND_RADIX, gl - 1);
                for (gn = 0; gn < f_count(NFLAG, AND_RADIX, gl); gn = gn + 1) begin : g_node
                    localparam FIRST = f_offset(NFLAG, AND_RADIX, gl - 1) + gn * AND_RADIX;
                    localparam KIDS  = (N_BELOW - gn * AND_RADIX < AND_RADIX) ? N_BELOW - gn * AND_RADIX : AND_RADIX;
                    reg and_q;
                    always @(posedge clk) begin
                        and_q <= &an[FIRST +: KIDS];
                    end
                    assign an[f_offset(NFLAG, AND_RADIX, gl) + gn] = and_q;
                end
            end
            assign way_hit[gw] = an[AND_NODES-1];
        end
    endgenerate

    // ---- way select and output registers: the lowest hitting way wins -----------------------
    wire fin_valid = valid_q[LATENCY-1];
    wire fin_live  = fin_valid && !blind_q[LATENCY-1] && !rst;

    reg                    sel_hit;
    reg [INDEX_WIDTH-1:0]  sel_idx;
    reg [ACTION_WIDTH-1:0] sel_act;
    integer                v;

    always @(*) begin
        sel_hit = 1'b0;
        sel_idx = {INDEX_WIDTH{1'b0}};
        sel_act = {ACTION_WIDTH{1'b0}};
        for (v = WAYS - 1; v >= 0; v = v - 1) begin
            if (way_hit[v]) begin
                sel_hit = 1'b1;
                sel_idx = way_idx[v*INDEX_WIDTH +: INDEX_WIDTH];
                sel_act = way_act[v*ACTION_WIDTH +: ACTION_WIDTH];
            end
        end
    end

    always @(posedge clk) begin
        result_hit    <= fin_live && sel_hit;
        result_index  <= (fin_live && sel_hit) ? sel_idx : {INDEX_WIDTH{1'b0}};
        result_action <= (fin_live && sel_hit) ? sel_act : {ACTION_WIDTH{1'b0}};
        if (rst) begin
            result_valid <= 1'b0;
        end else begin
            result_valid <= fin_valid;
        end
    end

endmodule

`default_nettype wire
