// fp_p4_tcam: ternary CAM, the match block of the P4 pipeline (seeds/004): a KEY_WIDTH-bit key
// is compared with ENTRIES value/mask entries at once; the result is hit/miss, the index of the
// matching entry of highest priority and that entry's action data.
//
// Entry i matches key k when it is valid and ((k ^ value_i) & mask_i) == 0: a mask bit of 1
// compares that key bit, 0 makes it don't care (exact match = all ones, LPM = a prefix of ones,
// match-all = all zeros). Priority: the LOWEST matching index wins (a fixed-priority TCAM, as in
// hardware TCAMs): blocks cascade by position (fp_p4_tcam_merge, fp_p4_tcam_cascade) and an LPM
// table is its entries sorted by prefix length, longest first.
//
// Pipeline (one lookup per cycle, no stall, every stage a register): the key register (one copy
// per 8 entries, to bound its fanout); compare (each entry's key bits in chunks of CMP_CHUNK,
// one flag per chunk); an AND tree of radix AND_RADIX over each entry's chunk flags (no stage
// when there is one chunk); a priority-encoder tree of radix ENC_RADIX over the entries; the
// action read (a small RAM, LUT RAM, read with the final index) into the output register.
//
// Writes: wr_en writes entry wr_index whole (valid bit, value, mask, action), one write per cycle
// while lookups go on. A lookup sees every write presented at least two cycles before its key;
// a lookup whose key is presented in the same cycle as a write of its entry, or one cycle after
// it, sees the OLD entry, whole: old match and old action (the action write is delayed
// LATENCY + 1 cycles, so that it lands when no earlier lookup can still read the old action).
//
// Latency:    LATENCY = C + V + 1 cycles from key_valid to result_valid (fixed: every key gives
//             one result), C = 1 + ceil(log_AND_RADIX(ceil(KEY_WIDTH / CMP_CHUNK))) compare
//             stages, V = ceil(log_ENC_RADIX(ENTRIES)) encoder stages (0 for one entry). With
//             the defaults (CMP_CHUNK 4, AND_RADIX 4, ENC_RADIX 4) and 32 entries: 6 for 10..16-bit
//             keys, 7 up to 64 bits, 8 up to 256 (the 104-bit 5-tuple), 9 up to 660.
//             wr_bad: 1 cycle after the write.
// Throughput: one lookup and one write per cycle, at the same time, with no backpressure.
// Bad input:  a write with wr_index >= ENTRIES (only possible when ENTRIES is not a power of
//             two) changes nothing and raises wr_bad for one cycle. Keys are plain binary (don't
//             care lives in the entries only). rst clears every entry's valid bit and drops the
//             lookups and writes in flight; writes presented during rst are ignored.
//             result_hit/index/action are 0 unless result_valid and a hit.
// Parameters: KEY_WIDTH 10..660 (the seed's range), ENTRIES 1..256 (any, not only powers of
//             two; more by cascading), ACTION_WIDTH 1..1024, CMP_CHUNK >= 2, AND_RADIX 2..64,
//             ENC_RADIX 2..8; INDEX_WIDTH is derived (clog2(ENTRIES), at least 1), not set.
`default_nettype none

module fp_p4_tcam #(
    parameter KEY_WIDTH    = 104,
    parameter ENTRIES      = 32,
    parameter ACTION_WIDTH = 16,
    parameter CMP_CHUNK    = 4,
    parameter AND_RADIX    = 4,
    parameter ENC_RADIX    = 4,
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

    // write port: entry wr_index := {wr_entry_valid, wr_value, wr_mask, wr_action} when wr_en
    input  wire                    wr_en,
    input  wire [INDEX_WIDTH-1:0]  wr_index,
    input  wire                    wr_entry_valid,
    input  wire [KEY_WIDTH-1:0]    wr_value,
    input  wire [KEY_WIDTH-1:0]    wr_mask,
    input  wire [ACTION_WIDTH-1:0] wr_action,
    output reg                     wr_bad
);

    generate
        if (KEY_WIDTH < 10 || KEY_WIDTH > 660) begin : g_bad_key_width
            PARAMETER_ERROR_KEY_WIDTH_must_be_10_to_660 u_error();
        end
        if (ENTRIES < 1 || ENTRIES > 256) begin : g_bad_entries
            PARAMETER_ERROR_ENTRIES_must_be_1_to_256 u_error();
        end
        if (ACTION_WIDTH < 1 || ACTION_WIDTH > 1024) begin : g_bad_action_width
            PARAMETER_ERROR_ACTION_WIDTH_must_be_1_to_1024 u_error();
        end
        if (CMP_CHUNK < 2) begin : g_bad_cmp_chunk
            PARAMETER_ERROR_CMP_CHUNK_must_be_at_least_2 u_error();
        end
        if (AND_RADIX < 2 || AND_RADIX > 64) begin : g_bad_and_radix
            PARAMETER_ERROR_AND_RADIX_must_be_2_to_64 u_error();
        end
        if (ENC_RADIX < 2 || ENC_RADIX > 8) begin : g_bad_enc_radix
            PARAMETER_ERROR_ENC_RADIX_must_be_2_to_8 u_error();
        end
        if (INDEX_WIDTH != ((ENTRIES > 1) ? $clog2(ENTRIES) : 1)) begin : g_bad_index_width
            PARAMETER_ERROR_INDEX_WIDTH_must_not_be_set u_error();
        end
    endgenerate

    // ---- geometry -------------------------------------------------------------------------
    // Two reduction trees, every level a register: per entry, the AND of its NCHUNK chunk results
    // (radix AND_RADIX); over the entries, the priority encoder (radix ENC_RADIX).

    `include "fp_p4_tree.vh"

    localparam NCHUNK     = (KEY_WIDTH + CMP_CHUNK - 1) / CMP_CHUNK;
    localparam AND_LEVELS = f_levels(NCHUNK, AND_RADIX);
    localparam AND_NODES  = f_offset(NCHUNK, AND_RADIX, AND_LEVELS + 1);
    localparam CMP_STAGES = 1 + AND_LEVELS;
    localparam ENC_LEVELS = f_levels(ENTRIES, ENC_RADIX);
    localparam NODES      = f_offset(ENTRIES, ENC_RADIX, ENC_LEVELS + 1);
    localparam LATENCY    = CMP_STAGES + ENC_LEVELS + 1;
    localparam ROOT       = NODES - 1;
    localparam KEY_GROUP  = 8;                    // entries per copy of the key register
    localparam KEY_COPIES = (ENTRIES + KEY_GROUP - 1) / KEY_GROUP;
    localparam SEL_GROUP  = 32;                   // key bits per copy of an entry's write select
    localparam SEL_COPIES = (KEY_WIDTH + SEL_GROUP - 1) / SEL_GROUP;

    // ---- write pipeline -------------------------------------------------------------------
    // Edge 1 registers the write and decodes its index (one select per entry); edge 2 copies
    // each entry's select next to its storage (SEL_COPIES copies) with the data; edge 3 writes
    // the entry. No net of the write fans out to more than an entry's storage group.
    localparam WR_DELAY = 2;                      // edges from the write's to the entry's change

    reg                    wr_entry_valid_q, wr_entry_valid_q2;
    reg [KEY_WIDTH-1:0]    wr_value_q, wr_mask_q, wr_value_q2, wr_mask_q2;
    reg [ENTRIES-1:0]      wr_sel_q;              // edge 1: entry i is being written

    // action writes, delayed LATENCY + WR_DELAY - 1 cycles (stage 0 = the write register)
    localparam ACT_DELAY = LATENCY + WR_DELAY - 1;
    reg [ACT_DELAY-1:0]              act_en_d;
    reg [ACT_DELAY*INDEX_WIDTH-1:0]  act_idx_d;
    reg [ACT_DELAY*ACTION_WIDTH-1:0] act_data_d;

    wire wr_in_range;
    generate
        if (ENTRIES < (1 << INDEX_WIDTH)) begin : g_range_check
            localparam [31:0] ENTRIES32 = ENTRIES;
            assign wr_in_range = wr_index < ENTRIES32[INDEX_WIDTH-1:0];
        end else begin : g_range_full
            assign wr_in_range = 1'b1;
        end
    endgenerate

    wire wr_ok = wr_en && wr_in_range;

    genvar gi, gs, gc, gl, gj;

    generate
        for (gi = 0; gi < ENTRIES; gi = gi + 1) begin : g_decode
            localparam [31:0] I32 = gi;
            always @(posedge clk) begin
                if (rst) begin
                    wr_sel_q[gi] <= 1'b0;
                end else begin
                    wr_sel_q[gi] <= wr_en && wr_index == I32[INDEX_WIDTH-1:0];
                end
            end
        end
    endgenerate

    always @(posedge clk) begin
        wr_entry_valid_q  <= wr_entry_valid;
        wr_value_q        <= wr_value;
        wr_mask_q         <= wr_mask;
        wr_entry_valid_q2 <= wr_entry_valid_q;
        wr_value_q2       <= wr_value_q;
        wr_mask_q2        <= wr_mask_q;
        act_idx_d         <= {act_idx_d[0 +: (ACT_DELAY-1)*INDEX_WIDTH], wr_index};
        act_data_d        <= {act_data_d[0 +: (ACT_DELAY-1)*ACTION_WIDTH], wr_action};
        if (rst) begin
            act_en_d <= {ACT_DELAY{1'b0}};
            wr_bad   <= 1'b0;
        end else begin
            act_en_d <= {act_en_d[0 +: ACT_DELAY-1], wr_ok};
            wr_bad   <= wr_en && !wr_in_range;
        end
    end

    // ---- key register and compare ---------------------------------------------------------
    // The key register is copied, one copy per KEY_GROUP entries, and each entry's write select
    // per SEL_GROUP key bits (of value and of mask), to bound their fanout: a place and route
    // without replication (nextpnr) otherwise spends most of the cycle on these nets. (* keep *)
    // stops synthesis from merging the copies back into one.
    reg [KEY_COPIES*KEY_WIDTH-1:0] key_q;
    reg [LATENCY-1:0]              valid_q;   // valid_q[s]: the lookup in stage s (s = 0: key_q)

    generate
        for (gi = 0; gi < KEY_COPIES; gi = gi + 1) begin : g_key
            (* keep *)
            always @(posedge clk) begin
                key_q[gi*KEY_WIDTH +: KEY_WIDTH] <= key;
            end
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            valid_q <= {LATENCY{1'b0}};
        end else begin
            valid_q <= {valid_q[0 +: LATENCY-1], key_valid};
        end
    end

    wire [ENTRIES-1:0] match;              // registered: entry i matches (level 0 of the encoder)

    generate
        for (gi = 0; gi < ENTRIES; gi = gi + 1) begin : g_entry
            reg [SEL_COPIES-1:0] sel_q;            // edge 2: this entry is written at the next edge
            reg                  valid;
            reg [KEY_WIDTH-1:0]  value, mask;
            for (gs = 0; gs < SEL_COPIES; gs = gs + 1) begin : g_group
                localparam LO = gs * SEL_GROUP;
                localparam W  = (LO + SEL_GROUP < KEY_WIDTH ? LO + SEL_GROUP : KEY_WIDTH) - LO;
                // only copy 0 (which writes the valid bit) is reset: a write presented during
                // rst may change the other groups' value and mask, but never validates the entry
                (* keep *)
                always @(posedge clk) begin
                    if (rst && gs == 0) begin
                        sel_q[gs] <= 1'b0;
                    end else begin
                        sel_q[gs] <= wr_sel_q[gi];
                    end
                end
                always @(posedge clk) begin
                    if (sel_q[gs]) begin
                        value[LO +: W] <= wr_value_q2[LO +: W];
                        mask[LO +: W]  <= wr_mask_q2[LO +: W];
                    end
                end
            end
            always @(posedge clk) begin
                if (rst) begin
                    valid <= 1'b0;
                end else if (sel_q[0]) begin
                    valid <= wr_entry_valid_q2;
                end
            end

            // compare: chunk c has no mismatch in its key bits (the valid bit joins chunk 0)
            wire [KEY_WIDTH-1:0] miss = (key_q[(gi / KEY_GROUP)*KEY_WIDTH +: KEY_WIDTH] ^ value) & mask;
            wire [NCHUNK-1:0]    chunk_ok;
            for (gc = 0; gc < NCHUNK; gc = gc + 1) begin : g_chunk
                localparam LO = gc * CMP_CHUNK;
                localparam HI = (LO + CMP_CHUNK < KEY_WIDTH ? LO + CMP_CHUNK : KEY_WIDTH) - 1;
                if (gc == 0) begin : g_first
                    assign chunk_ok[gc] = valid && !(|miss[HI:LO]);
                end else begin : g_rest
                    assign chunk_ok[gc] = !(|miss[HI:LO]);
                end
            end

            // AND tree over the chunks; level 0 = the chunk results, registered
            wire [AND_NODES-1:0] an;
            reg  [NCHUNK-1:0]    part_q;
            always @(posedge clk) begin
                part_q <= chunk_ok;
            end
            assign an[NCHUNK-1:0] = part_q;
            for (gl = 1; gl <= AND_LEVELS; gl = gl + 1) begin : g_and
                localparam N_BELOW = f_count(NCHUNK, AND_RADIX, gl - 1);
                for (gj = 0; gj < f_count(NCHUNK, AND_RADIX, gl); gj = gj + 1) begin : g_node
                    localparam FIRST = f_offset(NCHUNK, AND_RADIX, gl - 1) + gj * AND_RADIX;
                    localparam KIDS  = (N_BELOW - gj * AND_RADIX < AND_RADIX) ? N_BELOW - gj * AND_RADIX : AND_RADIX;
                    reg and_q;
                    always @(posedge clk) begin
                        and_q <= &an[FIRST +: KIDS];
                    end
                    assign an[f_offset(NCHUNK, AND_RADIX, gl) + gj] = and_q;
                end
            end
            assign match[gi] = an[AND_NODES-1];
        end
    endgenerate

    // ---- priority-encoder tree: node = (hit, index of its lowest hitting entry) ------------
    wire [NODES-1:0]             t_hit;
    wire [NODES*INDEX_WIDTH-1:0] t_idx;

    generate
        for (gi = 0; gi < ENTRIES; gi = gi + 1) begin : g_leaf
            localparam [31:0] I32 = gi;
            assign t_hit[gi] = match[gi];
            assign t_idx[gi*INDEX_WIDTH +: INDEX_WIDTH] = I32[INDEX_WIDTH-1:0];
        end
        for (gl = 1; gl <= ENC_LEVELS; gl = gl + 1) begin : g_level
            localparam N_BELOW   = f_count(ENTRIES, ENC_RADIX, gl - 1);
            localparam OFF_BELOW = f_offset(ENTRIES, ENC_RADIX, gl - 1);
            localparam OFF       = f_offset(ENTRIES, ENC_RADIX, gl);
            for (gj = 0; gj < f_count(ENTRIES, ENC_RADIX, gl); gj = gj + 1) begin : g_node
                localparam FIRST = OFF_BELOW + gj * ENC_RADIX;
                localparam KIDS  = (N_BELOW - gj * ENC_RADIX < ENC_RADIX) ? N_BELOW - gj * ENC_RADIX : ENC_RADIX;
                reg                   hit_c, hit_q;
                reg [INDEX_WIDTH-1:0] idx_c, idx_q;
                integer c;
                always @(*) begin
                    hit_c = 1'b0;
                    idx_c = t_idx[FIRST*INDEX_WIDTH +: INDEX_WIDTH];
                    for (c = KIDS - 1; c >= 0; c = c - 1) begin
                        if (t_hit[FIRST + c]) begin
                            hit_c = 1'b1;
                            idx_c = t_idx[(FIRST + c)*INDEX_WIDTH +: INDEX_WIDTH];
                        end
                    end
                end
                always @(posedge clk) begin
                    hit_q <= hit_c;
                    idx_q <= idx_c;
                end
                assign t_hit[OFF + gj] = hit_q;
                assign t_idx[(OFF + gj)*INDEX_WIDTH +: INDEX_WIDTH] = idx_q;
            end
        end
    endgenerate

    // ---- action read and output register --------------------------------------------------
    reg [ACTION_WIDTH-1:0] act_mem [0:ENTRIES-1];

    wire                   fin_valid = valid_q[LATENCY-1];
    wire                   fin_hit   = fin_valid && t_hit[ROOT] && !rst;
    wire [INDEX_WIDTH-1:0] fin_idx   = t_idx[ROOT*INDEX_WIDTH +: INDEX_WIDTH];

    always @(posedge clk) begin
        // the read below sees the memory before this edge's write (a write landing now was
        // presented one cycle before this lookup's key or later: not seen)
        if (act_en_d[ACT_DELAY-1]) begin
            act_mem[act_idx_d[(ACT_DELAY-1)*INDEX_WIDTH +: INDEX_WIDTH]] <= act_data_d[(ACT_DELAY-1)*ACTION_WIDTH +: ACTION_WIDTH];
        end
        if (fin_hit) begin
            result_action <= act_mem[fin_idx];
        end else begin
            result_action <= {ACTION_WIDTH{1'b0}};
        end
        result_hit   <= fin_hit;
        result_index <= fin_hit ? fin_idx : {INDEX_WIDTH{1'b0}};
        if (rst) begin
            result_valid <= 1'b0;
        end else begin
            result_valid <= fin_valid;
        end
    end

endmodule

`default_nettype wire
