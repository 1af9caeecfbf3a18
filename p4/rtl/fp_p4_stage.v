// fp_p4_stage: one match-action stage of the P4 pipeline (seeds/004): a key built from the packet
// header vector (PHV), a TCAM lookup (fp_p4_tcam_cascade) giving an action id and its action
// data, and the action unit (fp_p4_action) applying that action to the PHV.
//
// Per packet: the key is SLOTS slots of SLOT_BITS bits, slot 0 the most significant; slot s is
// the field of width w_s (0..SLOT_BITS, 0 = an unused slot, reads zero) whose least significant
// bit is bit o_s of {PHV, validity bits} (bit 0 = validity bit 0; PHV bit 0 of the compiler's
// layout is bit VALID_BITS + PHV_BITS - 1). A hit gives the entry's action word {action id, action
// data}; a miss gives the stage's default action and data. The stage applies its table only when
// its gate holds: gate enabled and PHV bit GATE (counted from the PHV's least significant bit,
// below GATE_BITS) is 1, or gate disabled; otherwise the packet gets action 0, which the loader
// keeps empty (p4/pipeline_load.py: the control flow's "reached" flags). The action unit's
// outputs leave as they are.
//
// Structure: c0 input register; c1 a 128-bit window per slot (the 64-aligned part of the
// offset, selected by a one-hot register written with the offset); c2 the slot's field (the low 6 bits of the offset, the width's mask) into the key
// register; the TCAM (or, with HASH_ENTRIES > 0 and configuration bit use_hash, the exact-match
// hash block fp_p4_hash, p4/docs/hash.md, for tables the compiler puts in hash memory); its
// result into a FIFO. The PHV with its gate bit waits in a FIFO pushed
// at c1; the heads of both FIFOs pop together into one register in front of the action unit.
// A credit counter keeps the packets between the input and that pop at FIFO_DEPTH at most, so
// neither FIFO can overflow although the TCAM never stalls. The action unit never stalls either
// (its out_ready is 1): its output goes into a FIFO of OUT_DEPTH = 2^ceil(log2(OPS + 16))
// entries, and a second credit counter keeps the packets between the pop and that FIFO's pop at
// OUT_DEPTH at most. The pop is a function of registers only (timing: no ready travels back
// through the action unit into the FIFOs' head registers).
//
// Latency:    from the input handshake to out_valid, with the output ready: 1 (input register)
//             + 2 (key) + L + 1 (fp_p4_tcam_cascade's LATENCY for KEY_WIDTH = SLOTS*SLOT_BITS,
//             BLOCK_ENTRIES and BLOCKS, or fp_p4_hash's with use_hash, counted from the edge that
//             loads its key register) + 1
//             (result FIFO) + 1 (action register) + OPS + 9 (fp_p4_action) + 1 (output FIFO):
//             L + OPS + 16, fixed (PipelineHW.stage_latency() of p4/pipeline_load.py; 128-bit
//             key, 32 entries, OPS 8: 32 cycles).
// Throughput: one packet per cycle when FIFO_DEPTH covers the lookup's round trip (the default
//             32 does for every TCAM latency up to 20); in_ready is a register.
// Bad input:  none on the packet path (every bit pattern is a PHV); a gate position or slot
//             offset beyond the vector reads zero; a TCAM write beyond the entries is ignored and
//             raises tcam_wr_bad. Configuration is quasi-static: write it while no packet of
//             this stage's program is in flight (the loader loads before traffic; P4Runtime
//             entry writes are single TCAM writes and take effect as fp_p4_tcam says).
// Config:     cfg_wr_en/addr/data (32-bit words): 0 gate (bit 0 enable, bit 1 use the hash block,
//             bits 31:16 position),
//             1 default action id, 2 + s: slot s (bits 15:0 offset o_s, bits 22:16 width w_s),
//             64 + w: default action data word w (bits 32w .. 32w+31). Action programs on
//             act_wr_*, TCAM entries on tcam_wr_* (the action word is {action id, data}).
// Parameters: PHV_BITS, VALID_BITS, DATA_BITS, OPS, ACTIONS, TEMPS as fp_p4_action; SLOTS 1..16;
//             SLOT_BITS 1..64; BLOCKS and BLOCK_ENTRIES as fp_p4_tcam_cascade; FIFO_DEPTH 4..256,
//             a power of two; GATE_BITS 1..PHV_BITS, a power of two; HASH_ENTRIES 0 (no hash
//             block) or a power of two >= 2 HASH_WAYS, HASH_WAYS 1, 2 or 4 (fp_p4_hash's WAYS). AID_WIDTH, SLOT_WIDTH,
//             SHIFT_WIDTH, OP_WIDTH, KEY_WIDTH and INDEX_WIDTH are derived and must not be set.
`default_nettype none

module fp_p4_stage #(
    parameter PHV_BITS      = 448,
    parameter VALID_BITS    = 8,
    parameter DATA_BITS     = 128,
    parameter OPS           = 8,
    parameter ACTIONS       = 32,
    parameter TEMPS         = 2,
    parameter SLOTS         = 2,
    parameter SLOT_BITS     = 64,
    parameter BLOCKS        = 1,
    parameter BLOCK_ENTRIES = 32,
    parameter FIFO_DEPTH    = 32,
    parameter GATE_BITS     = 128,
    parameter HASH_ENTRIES  = 0,
    parameter HASH_WAYS     = 4,
    parameter AID_WIDTH     = (ACTIONS > 1) ? $clog2(ACTIONS) : 1,
    parameter SLOT_WIDTH    = (OPS > 1) ? $clog2(OPS) : 1,
    parameter SHIFT_WIDTH   = $clog2(PHV_BITS),
    parameter OP_WIDTH      = 102 + 2 * $clog2(PHV_BITS) + $clog2(DATA_BITS)
                              + ((TEMPS > 1) ? $clog2(TEMPS) : 1)
                              + 3 * ((VALID_BITS > 1) ? $clog2(VALID_BITS) : 1),
    parameter KEY_WIDTH     = SLOTS * SLOT_BITS,
    parameter INDEX_WIDTH   = (BLOCKS * BLOCK_ENTRIES > HASH_ENTRIES)
                              ? ((BLOCKS * BLOCK_ENTRIES > 1) ? $clog2(BLOCKS * BLOCK_ENTRIES) : 1)
                              : $clog2(HASH_ENTRIES)
) (
    input  wire                      clk,
    input  wire                      rst,

    input  wire                      in_valid,
    output reg                       in_ready,
    input  wire [PHV_BITS-1:0]       in_phv,
    input  wire [VALID_BITS-1:0]     in_hdr_valid,

    output wire                      out_valid,
    input  wire                      out_ready,
    output wire [PHV_BITS-1:0]       out_phv,
    output wire [VALID_BITS-1:0]     out_hdr_valid,
    output wire [15:0]               out_egress,
    output wire                      out_drop,

    input  wire                      cfg_wr_en,
    input  wire [7:0]                cfg_wr_addr,
    input  wire [31:0]               cfg_wr_data,

    input  wire                      act_wr_en,
    input  wire [AID_WIDTH-1:0]      act_wr_action,
    input  wire [SLOT_WIDTH-1:0]     act_wr_slot,
    input  wire [OP_WIDTH-1:0]       act_wr_op,

    input  wire                      tcam_wr_en,
    input  wire [INDEX_WIDTH-1:0]    tcam_wr_index,
    input  wire                      tcam_wr_valid,
    input  wire [KEY_WIDTH-1:0]      tcam_wr_value,
    input  wire [KEY_WIDTH-1:0]      tcam_wr_mask,
    input  wire [AID_WIDTH+DATA_BITS-1:0] tcam_wr_action,
    output wire                      tcam_wr_bad,

    input  wire [SHIFT_WIDTH-1:0]    cfg_egress_shift,
    input  wire [4:0]                cfg_egress_width,
    input  wire [15:0]               cfg_drop_value,
    input  wire                      cfg_drop_en
);

    localparam SRC  = PHV_BITS + VALID_BITS;          // the key's source vector
    localparam NWIN = (SRC + 63) / 64;                // 64-aligned windows
    localparam GW   = (GATE_BITS > 1) ? $clog2(GATE_BITS) : 1;
    localparam AW   = AID_WIDTH + DATA_BITS;          // TCAM action word
    localparam DWD  = (DATA_BITS + 31) / 32;          // default data words
    localparam FW   = (FIFO_DEPTH > 1) ? $clog2(FIFO_DEPTH) : 1;

    generate
        if (SLOTS < 1 || SLOTS > 16) begin : g_bad_slots
            PARAMETER_ERROR_SLOTS_must_be_1_to_16 u_error();
        end
        if (SLOT_BITS < 1 || SLOT_BITS > 64) begin : g_bad_slot_bits
            PARAMETER_ERROR_SLOT_BITS_must_be_1_to_64 u_error();
        end
        if (FIFO_DEPTH < 4 || FIFO_DEPTH > 256 || (FIFO_DEPTH & (FIFO_DEPTH - 1)) != 0) begin : g_bad_fifo_depth
            PARAMETER_ERROR_FIFO_DEPTH_must_be_a_power_of_two_4_to_256 u_error();
        end
        if (GATE_BITS < 1 || GATE_BITS > PHV_BITS || (GATE_BITS & (GATE_BITS - 1)) != 0) begin : g_bad_gate_bits
            PARAMETER_ERROR_GATE_BITS_must_be_a_power_of_two_up_to_PHV_BITS u_error();
        end
        if (KEY_WIDTH != SLOTS * SLOT_BITS) begin : g_bad_key_width
            PARAMETER_ERROR_KEY_WIDTH_must_not_be_set u_error();
        end
        if (HASH_ENTRIES != 0 && (HASH_ENTRIES < 2 * HASH_WAYS || (HASH_ENTRIES & (HASH_ENTRIES - 1)) != 0)) begin : g_bad_hash
            PARAMETER_ERROR_HASH_ENTRIES_must_be_0_or_a_power_of_two_of_2_HASH_WAYS u_error();
        end
        if (DATA_BITS > 2048) begin : g_bad_data_bits
            PARAMETER_ERROR_DATA_BITS_too_large_for_the_config_map u_error();
        end
    endgenerate

    // ---- configuration registers ---------------------------------------------------------
    reg                    gate_en;
    reg                    use_hash;      // the table is in the hash block (HASH_ENTRIES > 0)
    reg  [15:0]            gate_pos;
    reg  [AID_WIDTH-1:0]   def_aid;
    reg  [5:0]             slot_fine[0:SLOTS-1];   // the offset's low 6 bits: the shift in the window
    reg  [NWIN-1:0]        slot_win [0:SLOTS-1];   // one-hot: the offset's 64-aligned window
    reg  [6:0]             slot_w   [0:SLOTS-1];
    reg  [32*DWD-1:0]      def_data;

    integer k, kq;
    always @(posedge clk) begin
        if (rst) begin
            gate_en  <= 1'b0;
            use_hash <= 1'b0;
            gate_pos <= 16'd0;
            def_aid  <= {AID_WIDTH{1'b0}};
            def_data <= {32*DWD{1'b0}};
            for (k = 0; k < SLOTS; k = k + 1) begin
                slot_fine[k] <= 6'd0;
                slot_win[k] <= {{(NWIN-1){1'b0}}, 1'b1};
                slot_w[k]   <= 7'd0;
            end
        end else if (cfg_wr_en) begin
            if (cfg_wr_addr == 8'd0) begin
                gate_en  <= cfg_wr_data[0];
                use_hash <= cfg_wr_data[1] && HASH_ENTRIES != 0;
                gate_pos <= cfg_wr_data[31:16];
            end
            if (cfg_wr_addr == 8'd1) begin
                def_aid <= cfg_wr_data[AID_WIDTH-1:0];
            end
            for (k = 0; k < SLOTS; k = k + 1) begin
                if (cfg_wr_addr == 8'd2 + k[7:0]) begin
                    slot_fine[k] <= cfg_wr_data[5:0];
                    slot_w[k]   <= cfg_wr_data[22:16];
                    for (kq = 0; kq < NWIN; kq = kq + 1) begin
                        slot_win[k][kq] <= cfg_wr_data[15:6] == kq[9:0];
                    end
                end
            end
            for (k = 0; k < DWD; k = k + 1) begin
                if (cfg_wr_addr == 8'd64 + k[7:0]) begin
                    def_data[32*k +: 32] <= cfg_wr_data;
                end
            end
        end
    end

    // ---- c0: input register; the credit counter -------------------------------------------
    reg                  r0_v;
    reg [PHV_BITS-1:0]   r0_phv;
    reg [VALID_BITS-1:0] r0_hv;
    reg [FW:0]           outstanding;       // accepted, not yet popped into the action register
    wire                 accept = in_valid && in_ready;
    wire                 pop;

    wire [FW:0] out_next = outstanding + {{FW{1'b0}}, accept} - {{FW{1'b0}}, pop};

    always @(posedge clk) begin
        if (rst) begin
            r0_v        <= 1'b0;
            outstanding <= {FW+1{1'b0}};
            in_ready    <= 1'b0;
        end else begin
            r0_v        <= accept;
            outstanding <= out_next;
            in_ready    <= out_next < FIFO_DEPTH;
        end
    end

    always @(posedge clk) begin
        if (accept) begin
            r0_phv <= in_phv;
            r0_hv  <= in_hdr_valid;
        end
    end

    // ---- c1: gate bit, slot windows; the PHV FIFO push -------------------------------------
    wire [64*NWIN+63:0] src_pad = {{(64*NWIN + 64 - SRC){1'b0}}, r0_phv, r0_hv};
    wire [GATE_BITS-1:0] gate_vec = r0_phv[GATE_BITS-1:0];
    wire gate_now = !gate_en || (gate_pos < GATE_BITS && gate_vec[gate_pos[GW-1:0]]);

    // each slot's window: an AND-OR over the windows with the one-hot select (a register written
    // with the offset), so no comparator sits between a register and the multiplexer
    reg [128*SLOTS-1:0] win_c;
    integer s, q;
    always @(*) begin
        win_c = {128*SLOTS{1'b0}};
        for (s = 0; s < SLOTS; s = s + 1) begin
            for (q = 0; q < NWIN; q = q + 1) begin
                win_c[128*s +: 128] = win_c[128*s +: 128] | ({128{slot_win[s][q]}} & src_pad[64*q +: 128]);
            end
        end
    end

    reg                 r1_v;
    reg [128*SLOTS-1:0] r1_win;
    reg [6*SLOTS-1:0]   r1_fine;
    reg [7*SLOTS-1:0]   r1_w;

    always @(posedge clk) begin
        if (rst) begin
            r1_v <= 1'b0;
        end else begin
            r1_v <= r0_v;
        end
        for (s = 0; s < SLOTS; s = s + 1) begin
            r1_win[128*s +: 128] <= win_c[128*s +: 128];
            r1_fine[6*s +: 6] <= slot_fine[s];
            r1_w[7*s +: 7]    <= (slot_w[s] > SLOT_BITS) ? SLOT_BITS[6:0] : slot_w[s];
        end
    end

    // ---- c2: the key --------------------------------------------------------------------------
    reg                 r2_v;
    reg [KEY_WIDTH-1:0] r2_key;
    reg [KEY_WIDTH-1:0] key_c;
    /* verilator lint_off UNUSEDSIGNAL */
    reg [127:0]         sh;   // a field starts below bit 64 of its window: the top half only feeds the shift
    /* verilator lint_on UNUSEDSIGNAL */
    reg [63:0]          m;

    always @(*) begin
        key_c = {KEY_WIDTH{1'b0}};
        for (s = 0; s < SLOTS; s = s + 1) begin
            sh = r1_win[128*s +: 128] >> r1_fine[6*s +: 6];
            m  = (r1_w[7*s +: 7] >= 7'd64) ? {64{1'b1}} : ~({64{1'b1}} << r1_w[7*s +: 7]);
            // slot 0 is the key's most significant slot
            key_c[KEY_WIDTH - SLOT_BITS*(s+1) +: SLOT_BITS] = sh[SLOT_BITS-1:0] & m[SLOT_BITS-1:0];
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            r2_v <= 1'b0;
        end else begin
            r2_v <= r1_v;
        end
        r2_key <= key_c;
    end

    // ---- the TCAM (or the hash block) and the result FIFO -------------------------------------
    localparam TROWS = BLOCKS * BLOCK_ENTRIES;
    localparam TIW   = (TROWS > 1) ? $clog2(TROWS) : 1;

    wire                   t_valid, t_hit, t_bad;
    wire [TIW-1:0]         t_index;
    wire [AW-1:0]          t_action;
    wire                   lk_valid, lk_hit;
    wire [AW-1:0]          lk_action;
    wire                   t_idx_ok = (tcam_wr_index >> TIW) == 0;

    fp_p4_tcam_cascade #(
        .KEY_WIDTH    (KEY_WIDTH),
        .BLOCK_ENTRIES(BLOCK_ENTRIES),
        .BLOCKS       (BLOCKS),
        .ACTION_WIDTH (AW)
    ) u_tcam (
        .clk           (clk),
        .rst           (rst),
        .key_valid     (r2_v && !use_hash),
        .key           (r2_key),
        .result_valid  (t_valid),
        .result_hit    (t_hit),
        .result_index  (t_index),
        .result_action (t_action),
        .wr_en         (tcam_wr_en && !use_hash && t_idx_ok),
        .wr_index      (tcam_wr_index[TIW-1:0]),
        .wr_entry_valid(tcam_wr_valid),
        .wr_value      (tcam_wr_value),
        .wr_mask       (tcam_wr_mask),
        .wr_action     (tcam_wr_action),
        .wr_bad        (t_bad)
    );

    reg idx_bad;   // a write beyond the selected memory's rows
    always @(posedge clk) begin
        idx_bad <= tcam_wr_en && !use_hash && !t_idx_ok;
    end

    generate
        if (HASH_ENTRIES != 0) begin : g_hash
            wire                            h_valid, h_hit, h_bad;
            wire [$clog2(HASH_ENTRIES)-1:0] h_index;
            wire [AW-1:0]                   h_action;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [INDEX_WIDTH-1:0]          wr_index = tcam_wr_index;   // the hash's rows are INDEX_WIDTH's
            wire [$clog2(HASH_ENTRIES)-1:0] h_index_unused = h_index;   // the action word is the result
            wire [KEY_WIDTH-1:0]            wr_mask_unused = tcam_wr_mask;  // exact match: no mask
            /* verilator lint_on UNUSEDSIGNAL */

            fp_p4_hash #(
                .KEY_WIDTH   (KEY_WIDTH),
                .ENTRIES     (HASH_ENTRIES),
                .WAYS        (HASH_WAYS),
                .ACTION_WIDTH(AW)
            ) u_hash (
                .clk           (clk),
                .rst           (rst),
                .key_valid     (r2_v && use_hash),
                .key           (r2_key),
                .result_valid  (h_valid),
                .result_hit    (h_hit),
                .result_index  (h_index),
                .result_action (h_action),
                .wr_en         (tcam_wr_en && use_hash),
                .wr_index      (wr_index[$clog2(HASH_ENTRIES)-1:0]),
                .wr_entry_valid(tcam_wr_valid),
                .wr_value      (tcam_wr_value),
                .wr_action     (tcam_wr_action),
                .wr_bad        (h_bad)
            );
            assign lk_valid    = use_hash ? h_valid : t_valid;
            assign lk_hit      = use_hash ? h_hit : t_hit;
            assign lk_action   = use_hash ? h_action : t_action;
            assign tcam_wr_bad = t_bad || h_bad || idx_bad;
        end else begin : g_no_hash
            assign lk_valid    = t_valid;
            assign lk_hit      = t_hit;
            assign lk_action   = t_action;
            assign tcam_wr_bad = t_bad || idx_bad;
        end
    endgenerate

    wire [AW:0]         res_head;
    wire                res_empty;
    wire [PHV_BITS+VALID_BITS:0] phv_head;
    wire                phv_empty;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [FW:0]         res_count, phv_count;   // the credit counter bounds both
    wire [TIW-1:0]      t_index_unused = t_index;   // the pipeline uses the action word only
    /* verilator lint_on UNUSEDSIGNAL */

    fp_fifo_fwft #(.WIDTH(AW + 1), .DEPTH(FIFO_DEPTH), .HEAD_REG(1)) u_res (
        .clk      (clk),
        .rst      (rst),
        .push     (lk_valid),
        .push_data({lk_hit, lk_action}),
        .pop      (pop),
        .head     (res_head),
        .empty    (res_empty),
        .count    (res_count)
    );

    fp_fifo_fwft #(.WIDTH(PHV_BITS + VALID_BITS + 1), .DEPTH(FIFO_DEPTH), .HEAD_REG(1)) u_phv (
        .clk      (clk),
        .rst      (rst),
        .push     (r0_v),
        .push_data({gate_now, r0_phv, r0_hv}),
        .pop      (pop),
        .head     (phv_head),
        .empty    (phv_empty),
        .count    (phv_count)
    );

    // ---- the action register, the action unit and its output FIFO ---------------------------
    // The action unit never waits here: its out_ready is 1, so its own enable stays 1 and its
    // in_ready is not needed. What it produces goes into u_out (OUT_DEPTH entries), and a second
    // credit counter keeps the packets between the pop and u_out's pop at OUT_DEPTH at most. So
    // `pop` is a function of registers (the FIFOs' empty flags, act_room), not of a ready that
    // comes back through the action unit, and the action register loads without an enable.
    localparam OUT_DEPTH = 1 << $clog2(OPS + 16);     // covers pop -> u_out head (OPS + 11) + credit
    localparam OW        = $clog2(OUT_DEPTH);

    reg                  ax_v;
    reg [PHV_BITS-1:0]   ax_phv;
    reg [VALID_BITS-1:0] ax_hv;
    reg [AID_WIDTH-1:0]  ax_aid;
    reg [DATA_BITS-1:0]  ax_data;
    reg [OW:0]           act_cnt;            // popped, not yet taken from u_out
    reg                  act_room;           // act_cnt after this cycle < OUT_DEPTH
    wire                 o_pop;

    assign pop = !res_empty && !phv_empty && act_room;

    wire [OW:0] act_next = act_cnt + {{OW{1'b0}}, pop} - {{OW{1'b0}}, o_pop};

    always @(posedge clk) begin
        if (rst) begin
            ax_v     <= 1'b0;
            act_cnt  <= {OW+1{1'b0}};
            act_room <= 1'b0;
        end else begin
            ax_v     <= pop;
            act_cnt  <= act_next;
            act_room <= act_next < OUT_DEPTH;
        end
    end

    wire                 h_gate = phv_head[PHV_BITS+VALID_BITS];
    wire                 h_hit  = res_head[AW];
    wire [AID_WIDTH-1:0] h_aid  = res_head[AW-1 -: AID_WIDTH];
    wire [DATA_BITS-1:0] h_data = res_head[DATA_BITS-1:0];

    always @(posedge clk) begin     // read only with ax_v
        ax_phv  <= phv_head[PHV_BITS+VALID_BITS-1:VALID_BITS];
        ax_hv   <= phv_head[VALID_BITS-1:0];
        ax_aid  <= !h_gate ? {AID_WIDTH{1'b0}} : (h_hit ? h_aid : def_aid);
        ax_data <= !h_gate ? {DATA_BITS{1'b0}} : (h_hit ? h_data : def_data[DATA_BITS-1:0]);
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire out_exit, out_digest;   // the loader turns exit into flags; digests are counted by tests
    wire ax_ready;               // 1 whenever ax_v: the action unit's out_ready is held at 1
    /* verilator lint_on UNUSEDSIGNAL */
    wire                  a_valid, a_drop;
    wire [PHV_BITS-1:0]   a_phv;
    wire [VALID_BITS-1:0] a_hv;
    wire [15:0]           a_egress;

    fp_p4_action #(
        .PHV_BITS  (PHV_BITS),
        .VALID_BITS(VALID_BITS),
        .DATA_BITS (DATA_BITS),
        .OPS       (OPS),
        .ACTIONS   (ACTIONS),
        .TEMPS     (TEMPS)
    ) u_action (
        .clk             (clk),
        .rst             (rst),
        .in_valid        (ax_v),
        .in_ready        (ax_ready),
        .in_phv          (ax_phv),
        .in_hdr_valid    (ax_hv),
        .in_action       (ax_aid),
        .in_data         (ax_data),
        .out_valid       (a_valid),
        .out_ready       (1'b1),
        .out_phv         (a_phv),
        .out_hdr_valid   (a_hv),
        .out_egress      (a_egress),
        .out_drop        (a_drop),
        .out_exit        (out_exit),
        .out_digest      (out_digest),
        .cfg_wr_en       (act_wr_en),
        .cfg_wr_action   (act_wr_action),
        .cfg_wr_slot     (act_wr_slot),
        .cfg_wr_op       (act_wr_op),
        .cfg_egress_shift(cfg_egress_shift),
        .cfg_egress_width(cfg_egress_width),
        .cfg_drop_value  (cfg_drop_value),
        .cfg_drop_en     (cfg_drop_en)
    );

    wire o_empty;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [OW:0] o_count;         // act_cnt bounds it
    /* verilator lint_on UNUSEDSIGNAL */

    fp_fifo_fwft #(.WIDTH(PHV_BITS + VALID_BITS + 17), .DEPTH(OUT_DEPTH), .HEAD_REG(1)) u_out (
        .clk      (clk),
        .rst      (rst),
        .push     (a_valid),
        .push_data({a_phv, a_hv, a_egress, a_drop}),
        .pop      (o_pop),
        .head     ({out_phv, out_hdr_valid, out_egress, out_drop}),
        .empty    (o_empty),
        .count    (o_count)
    );

    assign out_valid = !o_empty;
    assign o_pop     = out_valid && out_ready;

endmodule

`default_nettype wire
