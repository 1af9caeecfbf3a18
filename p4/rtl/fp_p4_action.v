// fp_p4_action: the action unit of the P4 pipeline (seeds/004): applies one action, a short
// program of micro-ops loaded at run time, to a packet header vector (PHV) per packet.
//
// Input per packet: the PHV (PHV_BITS, the compiler's layout: instance fields MSB first, PHV
// offset 0 = bit PHV_BITS-1), the header validity bits (VALID_BITS, bit i = instance valid_bit i),
// the action id and the action data (the table entry's parameters, DATA_BITS). Output: the new
// PHV and validity bits, the egress port read from the new PHV (the field set by
// cfg_egress_shift/width, 16 bits at most) and drop (cfg_drop_en and egress == cfg_drop_value),
// and the action's exit and digest flags.
//
// Program: OPS op slots per action, one action program memory per slot (ACTIONS words of
// OP_WIDTH bits, written with cfg_wr_*; p4/action_load.py makes the words and documents the
// encoding). Slot k of every action runs in pipeline stages k .. k+4: one packet per cycle, the
// ops of an action in sequence. Each slot is one micro-op:
//   - operand A: a PHV field of 1..64 bits at any bit offset (right shift `sh` and width), a
//     temporary (TEMPS registers of 64 bits), a validity bit, or zero;
//   - operand B: a 64-bit immediate, an action-data field of 1..64 bits at any bit offset ORed
//     with the immediate (a grouped set: parameters and constants into adjacent fields), or a
//     temporary; C (mux condition): a temporary != 0; `swap` exchanges A and B;
//   - the ALU, its operations grouped by the unit that computes them: move (A or B), the
//     adder (add, sub, dec = sub 1, and the compares eq/ne/lt/le from the same subtraction),
//     the logic unit (and, or, xor, not), the shifter (shl, shr by B, >= 64 gives 0), the
//     boolean unit (land, lor, lnot, bool) and mux;
//   - the result goes to a PHV field (1..64 bits, any bit offset; the write truncates), a
//     temporary or nowhere;
//   - in the same slot, one validity op: set a range of validity bits to 0 or 1, shift a range
//     by -VALID_BITS+1 .. VALID_BITS-1 (a header stack push or pop; bits shifted in are 0), or
//     copy one validity bit to another.
// Within a slot: R (stage k) reads the A window (a byte shift of the PHV) and the B field,
// decodes the masks and runs the validity op; X (k+1) aligns and masks the operands, reads the
// temporaries and decodes the ALU's group; E (k+2) is the ALU; W (k+3) writes a temporary from
// the result register, or aligns the result to its bit and the low bits of its byte offset;
// M (k+4) shifts it the rest of the way and merges it into the PHV. A final stage reads the
// egress field's byte window; the output buffer's input aligns it and compares. So a slot sees
// the PHV writes of slots at least 5 before it, the temporary writes of slots at least 3 before
// it and the validity ops of every earlier slot; the loader schedules the ops (leaving empty
// slots where an op waits for an earlier result) and refuses programs that do not fit.
//
// Latency:    OPS + 7 cycles from the cycle with in_valid && in_ready to the first with out_valid
//             (fixed; the house convention of fastpath.sim.tb; OPS 8: 15 cycles).
// Throughput: one packet per cycle. in_ready is a register: the pipeline advances as a whole
//             (one registered enable) and stops when the 2-entry output buffer may fill; with
//             out_ready held high it never stops.
// Bad input:  none possible on the packet path: every op word is executed as written (an
//             empty slot is a move into nowhere), an operand beyond the PHV or the action data
//             reads zeros, a write beyond the PHV is dropped, an unwritten temporary reads as
//             zero or as a previous packet's value. A program written while packets of that
//             action are in the pipeline may mix the old and the new program for those packets
//             (write programs while the action is unused). cfg_egress_* and cfg_drop_* are
//             quasi-static.
// Parameters: PHV_BITS 16..4096, VALID_BITS 1..64, DATA_BITS 8..1024, OPS 1..32, ACTIONS
//             2..4096, TEMPS 1..4. AID_WIDTH, SLOT_WIDTH, SHIFT_WIDTH and OP_WIDTH are derived
//             and must not be set.
`default_nettype none

module fp_p4_action #(
    parameter PHV_BITS    = 448,
    parameter VALID_BITS  = 8,
    parameter DATA_BITS   = 128,
    parameter OPS         = 8,
    parameter ACTIONS     = 32,
    parameter TEMPS       = 2,
    parameter AID_WIDTH   = (ACTIONS > 1) ? $clog2(ACTIONS) : 1,
    parameter SLOT_WIDTH  = (OPS > 1) ? $clog2(OPS) : 1,
    parameter SHIFT_WIDTH = $clog2(PHV_BITS),
    parameter OP_WIDTH    = 102 + 2 * $clog2(PHV_BITS) + $clog2(DATA_BITS)
                            + ((TEMPS > 1) ? $clog2(TEMPS) : 1)
                            + 3 * ((VALID_BITS > 1) ? $clog2(VALID_BITS) : 1)
) (
    input  wire                   clk,
    input  wire                   rst,

    // packets in
    input  wire                   in_valid,
    output wire                   in_ready,
    input  wire [PHV_BITS-1:0]    in_phv,
    input  wire [VALID_BITS-1:0]  in_hdr_valid,
    input  wire [AID_WIDTH-1:0]   in_action,
    input  wire [DATA_BITS-1:0]   in_data,

    // packets out
    output wire                   out_valid,
    input  wire                   out_ready,
    output wire [PHV_BITS-1:0]    out_phv,
    output wire [VALID_BITS-1:0]  out_hdr_valid,
    output wire [15:0]            out_egress,
    output wire                   out_drop,
    output wire                   out_exit,
    output wire                   out_digest,

    // action program memory: word cfg_wr_op becomes slot cfg_wr_slot of action cfg_wr_action
    input  wire                   cfg_wr_en,
    input  wire [AID_WIDTH-1:0]   cfg_wr_action,
    input  wire [SLOT_WIDTH-1:0]  cfg_wr_slot,
    input  wire [OP_WIDTH-1:0]    cfg_wr_op,

    // egress field of the PHV (right shift and width 1..16) and the drop port value
    input  wire [SHIFT_WIDTH-1:0] cfg_egress_shift,
    input  wire [4:0]             cfg_egress_width,
    input  wire [15:0]            cfg_drop_value,
    input  wire                   cfg_drop_en
);

    localparam VIW = (VALID_BITS > 1) ? $clog2(VALID_BITS) : 1;   // validity bit index
    localparam TIW = (TEMPS > 1) ? $clog2(TEMPS) : 1;             // temporary index
    localparam SHW = $clog2(PHV_BITS);                           // PHV shift
    localparam DSW = $clog2(DATA_BITS);                          // action-data shift

    generate
        if (PHV_BITS < 16 || PHV_BITS > 4096) begin : g_bad_phv_bits
            PARAMETER_ERROR_PHV_BITS_must_be_16_to_4096 u_error();
        end
        if (VALID_BITS < 1 || VALID_BITS > 64) begin : g_bad_valid_bits
            PARAMETER_ERROR_VALID_BITS_must_be_1_to_64 u_error();
        end
        if (DATA_BITS < 8 || DATA_BITS > 1024) begin : g_bad_data_bits
            PARAMETER_ERROR_DATA_BITS_must_be_8_to_1024 u_error();
        end
        if (OPS < 1 || OPS > 32) begin : g_bad_ops
            PARAMETER_ERROR_OPS_must_be_1_to_32 u_error();
        end
        if (ACTIONS < 2 || ACTIONS > 4096) begin : g_bad_actions
            PARAMETER_ERROR_ACTIONS_must_be_2_to_4096 u_error();
        end
        if (TEMPS < 1 || TEMPS > 4) begin : g_bad_temps
            PARAMETER_ERROR_TEMPS_must_be_1_to_4 u_error();
        end
        if (AID_WIDTH != ((ACTIONS > 1) ? $clog2(ACTIONS) : 1)) begin : g_bad_aid_width
            PARAMETER_ERROR_AID_WIDTH_must_not_be_set u_error();
        end
        if (SLOT_WIDTH != ((OPS > 1) ? $clog2(OPS) : 1)) begin : g_bad_slot_width
            PARAMETER_ERROR_SLOT_WIDTH_must_not_be_set u_error();
        end
        if (SHIFT_WIDTH != SHW) begin : g_bad_shift_width
            PARAMETER_ERROR_SHIFT_WIDTH_must_not_be_set u_error();
        end
        if (OP_WIDTH != 102 + 2 * SHW + DSW + TIW + 3 * VIW) begin : g_bad_op_width
            PARAMETER_ERROR_OP_WIDTH_must_not_be_set u_error();
        end
    endgenerate

    // ---- op word layout (p4/action_load.py OpLayout: the same fields, LSB first) -----------
    localparam O_ALU  = 0;                 // 5: ALU operation
    localparam O_SWAP = O_ALU + 5;         // 1: X = B, Y = A
    localparam O_AK   = O_SWAP + 1;        // 2: A kind: 0 field, 1 temporary, 2 validity bit, 3 zero
    localparam O_ASH  = O_AK + 2;          // SHW: A field's right shift (or temp / validity index)
    localparam O_AW   = O_ASH + SHW;       // 7: A field's width 1..64
    localparam O_BK   = O_AW + 7;          // 2: B kind: 0 immediate, 1 action data | immediate, 2 temporary
    localparam O_BSH  = O_BK + 2;          // DSW: B field's right shift in the action data (or temp)
    localparam O_BW   = O_BSH + DSW;       // 7: B field's width 1..64
    localparam O_IMM  = O_BW + 7;          // 64: immediate
    localparam O_C    = O_IMM + 64;        // TIW: mux condition temporary
    localparam O_DK   = O_C + TIW;         // 2: destination: 0 none, 1 field, 2 temporary
    localparam O_DSH  = O_DK + 2;          // SHW: destination field's left shift (or temp index)
    localparam O_DW   = O_DSH + SHW;       // 7: destination field's width 1..64
    localparam O_VK   = O_DW + 7;          // 2: validity op: 0 none, 1 set range, 2 shift range, 3 copy
    localparam O_VLO  = O_VK + 2;          // VIW: range low bit (copy: destination bit)
    localparam O_VHI  = O_VLO + VIW;       // VIW: range high bit
    localparam O_VARG = O_VHI + VIW;       // VIW+1: set: value (bit 0); shift: signed amount; copy: source
    localparam O_EXIT = O_VARG + VIW + 1;  // 1: the action exits the control (slot 0 only)
    localparam O_DIG  = O_EXIT + 1;        // 1: the action generates a digest (slot 0 only)

    // ALU operations (the whole encoding; some are decoded by ranges, not by name)
    /* verilator lint_off UNUSEDPARAM */
    localparam [4:0] ALU_MOVX = 5'd0, ALU_MOVY = 5'd1, ALU_ADD = 5'd2, ALU_SUB = 5'd3,
                     ALU_AND = 5'd4, ALU_OR = 5'd5, ALU_XOR = 5'd6, ALU_NOT = 5'd7,
                     ALU_SHL = 5'd8, ALU_SHR = 5'd9, ALU_EQ = 5'd10, ALU_NE = 5'd11,
                     ALU_LT = 5'd12, ALU_LE = 5'd13, ALU_LAND = 5'd14, ALU_LOR = 5'd15,
                     ALU_LNOT = 5'd16, ALU_BOOL = 5'd17, ALU_MUX = 5'd18;
    /* verilator lint_on UNUSEDPARAM */

    localparam LAST = OPS + 4;             // last pipeline stage: the last slot's PHV write lands here
    localparam BSW  = SHW - 3;             // bits of a byte offset in the PHV
    localparam LOB  = (BSW < 3) ? BSW : 3; // ... shifted in the W stage
    localparam HIB  = BSW - LOB;           // ... and in the M stage
    localparam WW   = 72 + 8 * ((1 << LOB) - 1);   // the W stage's window

    // Right shifts that keep only their low bits, written largest step first: each level is then
    // only as wide as the bits still needed (OUT + the steps still to come), where a plain `>>`
    // (built smallest step first) carries the whole input through every level.
    function [71:0] f_win(input [PHV_BITS+71:0] x, input [SHW-4:0] bytes);   // the 72-bit window
        reg [PHV_BITS+71:0] v;
        integer k;
        begin
            v = x;
            for (k = SHW - 4; k >= 0; k = k - 1) begin
                if (bytes[k]) begin
                    v = v >> (8 << k);
                end
            end
            f_win = v[71:0];
        end
    endfunction

    function [63:0] f_data(input [DATA_BITS+63:0] x, input [DSW-1:0] bits);  // a 64-bit field
        reg [DATA_BITS+63:0] v;
        integer k;
        begin
            v = x;
            for (k = DSW - 1; k >= 0; k = k - 1) begin
                if (bits[k]) begin
                    v = v >> (1 << k);
                end
            end
            f_data = v[63:0];
        end
    endfunction

    function [23:0] f_egwin(input [PHV_BITS+23:0] x, input [SHW-4:0] bytes); // the egress window
        reg [PHV_BITS+23:0] v;
        integer k;
        begin
            v = x;
            for (k = SHW - 4; k >= 0; k = k - 1) begin
                if (bytes[k]) begin
                    v = v >> (8 << k);
                end
            end
            f_egwin = v[23:0];
        end
    endfunction

    function [63:0] f_mask(input [6:0] w);   // w ones (w = 1..64): bit i = i < w, no carry chain
        integer k;
        begin
            for (k = 0; k < 64; k = k + 1) begin
                f_mask[k] = k < w;
            end
        end
    endfunction

    // ---- pipeline enable and output buffer ------------------------------------------------
    // Every stage register advances with `en`, a register: it is 1 when the output buffer will
    // hold at most one packet after this cycle, so the packet the last stage may push next
    // cycle always finds room.
    reg                    en;
    reg  [LAST+1:0]        sv;                // stage t holds a packet (LAST+1: the final stage)
    reg  [1:0]             ob_count;
    wire                   ob_push = en && sv[LAST+1];
    wire                   ob_pop  = out_valid && out_ready;
    wire [1:0]             ob_next = ob_count + {1'b0, ob_push} - {1'b0, ob_pop};

    assign in_ready  = en;
    assign out_valid = ob_count != 2'd0;

    always @(posedge clk) begin
        if (rst) begin
            en       <= 1'b1;
            sv       <= {(LAST+2){1'b0}};
            ob_count <= 2'd0;
        end else begin
            en       <= ob_next < 2'd2;
            ob_count <= ob_next;
            if (en) begin
                sv <= {sv[LAST:0], in_valid};
            end
        end
    end

    // ---- stage state: PHV, validity, action id, action data, temporaries, flags ------------
    wire [(LAST+1)*PHV_BITS-1:0]   p_all;
    wire [(LAST+1)*VALID_BITS-1:0] v_all;
    /* verilator lint_off UNUSEDSIGNAL */
    // the action id is read by the slots' memories up to stage OPS-2; the temporary writes of
    // the last two slots come after the last temporary read
    wire [(LAST+1)*AID_WIDTH-1:0]  aid_all;
    wire [OPS*DATA_BITS-1:0]       d_all;
    wire [(OPS+1)*64*TEMPS-1:0]    t_all;     // stage 0's slot is unused (zero)
    wire [(LAST+1)*2-1:0]          fl_all;    // {digest, exit}

    // slot outputs feeding later stages
    wire [OPS*VALID_BITS-1:0]      vop_out;   // slot k: validity after its op (into stage k+1)
    wire [OPS*PHV_BITS-1:0]        wr_out;    // slot k: PHV after its write (into stage k+5)
    wire [OPS-1:0]                 te_en;     // slot k: temporary write (into stage k+4)
    wire [OPS*TIW-1:0]             te_idx;
    wire [OPS*64-1:0]              te_val;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [OPS*OP_WIDTH-1:0]        words;     // slot k's op word, for the packet in stage k

    genvar gt, gk, gi;
    generate
        for (gt = 0; gt <= LAST; gt = gt + 1) begin : g_stage
            reg  [PHV_BITS-1:0]   p_q;
            reg  [VALID_BITS-1:0] v_q;
            reg  [AID_WIDTH-1:0]  aid_q;
            wire [PHV_BITS-1:0]   p_nx;
            wire [VALID_BITS-1:0] v_nx;
            wire [AID_WIDTH-1:0]  aid_nx;
            if (gt == 0) begin : g_in
                assign p_nx   = in_phv;
                assign v_nx   = in_hdr_valid;
                assign aid_nx = in_action;
            end else begin : g_prev
                if (gt >= 5 && gt - 5 < OPS) begin : g_wr
                    assign p_nx = wr_out[(gt-5)*PHV_BITS +: PHV_BITS];
                end else begin : g_pass
                    assign p_nx = p_all[(gt-1)*PHV_BITS +: PHV_BITS];
                end
                if (gt - 1 < OPS) begin : g_vop
                    assign v_nx = vop_out[(gt-1)*VALID_BITS +: VALID_BITS];
                end else begin : g_vpass
                    assign v_nx = v_all[(gt-1)*VALID_BITS +: VALID_BITS];
                end
                assign aid_nx = aid_all[(gt-1)*AID_WIDTH +: AID_WIDTH];
            end
            always @(posedge clk) begin
                if (en) begin
                    p_q   <= p_nx;
                    v_q   <= v_nx;
                    aid_q <= aid_nx;
                end
            end
            assign p_all[gt*PHV_BITS +: PHV_BITS]     = p_q;
            assign v_all[gt*VALID_BITS +: VALID_BITS] = v_q;
            assign aid_all[gt*AID_WIDTH +: AID_WIDTH] = aid_q;

            // flags come with slot 0's word (in stage 0) and travel along
            if (gt == 0) begin : g_fl0
                assign fl_all[1:0] = {words[O_DIG], words[O_EXIT]};
            end else begin : g_fl
                reg [1:0] fl_q;
                always @(posedge clk) begin
                    if (en) begin
                        fl_q <= fl_all[(gt-1)*2 +: 2];
                    end
                end
                assign fl_all[gt*2 +: 2] = fl_q;
            end

            // action data: read by the slots' R stages (stages 0 .. OPS-1)
            if (gt == 0) begin : g_data0
                reg [DATA_BITS-1:0] d_q;
                always @(posedge clk) begin
                    if (en) begin
                        d_q <= in_data;
                    end
                end
                assign d_all[DATA_BITS-1:0] = d_q;
            end else if (gt < OPS) begin : g_data
                reg [DATA_BITS-1:0] d_q;
                always @(posedge clk) begin
                    if (en) begin
                        d_q <= d_all[(gt-1)*DATA_BITS +: DATA_BITS];
                    end
                end
                assign d_all[gt*DATA_BITS +: DATA_BITS] = d_q;
            end

            // temporaries: read by the X stages (stages 1 .. OPS); slot k's write lands in stage k+4
            if (gt == 0) begin : g_t0
                assign t_all[64*TEMPS-1:0] = {64*TEMPS{1'b0}};
            end else if (gt <= OPS) begin : g_temps
                reg  [64*TEMPS-1:0] t_q;
                wire [64*TEMPS-1:0] t_prev = t_all[(gt-1)*64*TEMPS +: 64*TEMPS];
                if (gt >= 4) begin : g_write
                    localparam K = gt - 4;     // the slot whose W stage is stage gt-1
                    for (gi = 0; gi < TEMPS; gi = gi + 1) begin : g_t
                        localparam [31:0] I32 = gi;
                        always @(posedge clk) begin
                            if (en) begin
                                if (te_en[K] && te_idx[K*TIW +: TIW] == I32[TIW-1:0]) begin
                                    t_q[gi*64 +: 64] <= te_val[K*64 +: 64];
                                end else begin
                                    t_q[gi*64 +: 64] <= t_prev[gi*64 +: 64];
                                end
                            end
                        end
                    end
                end else begin : g_pass
                    always @(posedge clk) begin
                        if (en) begin
                            t_q <= t_prev;
                        end
                    end
                end
                assign t_all[gt*64*TEMPS +: 64*TEMPS] = t_q;
            end
        end
    endgenerate

    // ---- the op slots ---------------------------------------------------------------------
    generate
        for (gk = 0; gk < OPS; gk = gk + 1) begin : g_slot
            localparam [31:0] K32 = gk;
            wire [OP_WIDTH-1:0] w;

            fp_ram_sdp #(
                .ADDR_WIDTH(AID_WIDTH),
                .DATA_WIDTH(OP_WIDTH),
                .OUT_REG(0)
            ) u_prog (
                .clk(clk),
                .wen(cfg_wr_en && cfg_wr_slot == K32[SLOT_WIDTH-1:0]),
                .waddr(cfg_wr_action),
                .wdata(cfg_wr_op),
                .ren(en),
                .raddr((gk == 0) ? in_action : aid_all[((gk == 0) ? 0 : gk - 1)*AID_WIDTH +: AID_WIDTH]),
                .rdata(w)
            );
            assign words[gk*OP_WIDTH +: OP_WIDTH] = w;

            // -- R (stage k): operand windows, validity op --
            wire [PHV_BITS-1:0]   p_r = p_all[gk*PHV_BITS +: PHV_BITS];
            wire [VALID_BITS-1:0] v_r = v_all[gk*VALID_BITS +: VALID_BITS];
            wire [DATA_BITS-1:0]  d_r = d_all[gk*DATA_BITS +: DATA_BITS];

            wire [SHW-1:0]        a_sh  = w[O_ASH +: SHW];
            wire [DSW-1:0]        b_sh  = w[O_BSH +: DSW];
            wire [71:0]           a_win = f_win({72'd0, p_r}, a_sh[SHW-1:3]);
            wire [63:0]           b_fld = f_data({64'd0, d_r}, b_sh);
            /* verilator lint_off UNUSEDSIGNAL */
            wire [VALID_BITS-1:0] a_vsh = v_r >> a_sh[VIW-1:0];   // bit 0 is the validity bit read
            /* verilator lint_on UNUSEDSIGNAL */

            // validity op over bits [lo, hi]
            wire [1:0]            vk   = w[O_VK +: 2];
            wire [VIW-1:0]        vlo  = w[O_VLO +: VIW];
            wire [VIW-1:0]        vhi  = w[O_VHI +: VIW];
            wire [VIW:0]          varg = w[O_VARG +: VIW + 1];
            reg  [VALID_BITS-1:0] vrange, vsrc, vres;
            integer j;
            always @(*) begin
                for (j = 0; j < VALID_BITS; j = j + 1) begin
                    vrange[j] = j >= vlo && j <= vhi;
                end
                vsrc = v_r & vrange;
                if (varg[VIW]) begin
                    vsrc = vsrc >> (~varg + 1'b1);
                end else begin
                    vsrc = vsrc << varg;
                end
                case (vk)
                    2'd1:    vres = (v_r & ~vrange) | (vrange & {VALID_BITS{varg[0]}});
                    2'd2:    vres = (v_r & ~vrange) | (vsrc & vrange);
                    2'd3:    begin
                                 vres = v_r;
                                 vres[vlo] = v_r[varg[VIW-1:0]];
                             end
                    default: vres = v_r;
                endcase
            end
            assign vop_out[gk*VALID_BITS +: VALID_BITS] = vres;

            reg [4:0]  r_alu;
            reg        r_swap;
            reg [1:0]  r_ak, r_bk, r_dk;
            reg [2:0]  r_abit;
            reg [TIW-1:0] r_aidx, r_bidx, r_cidx;
            reg [63:0] r_imm, r_braw, r_amask, r_bmask, r_dmask;
            reg [71:0] r_awin;
            reg        r_avb;
            reg [SHW-1:0] r_dsh;
            always @(posedge clk) begin
                if (en) begin
                    r_alu  <= w[O_ALU +: 5];
                    r_swap <= w[O_SWAP];
                    r_ak   <= w[O_AK +: 2];
                    r_abit <= a_sh[2:0];
                    r_aidx <= a_sh[TIW-1:0];
                    r_bk   <= w[O_BK +: 2];
                    r_bidx <= b_sh[TIW-1:0];
                    r_imm  <= w[O_IMM +: 64];
                    r_cidx <= w[O_C +: TIW];
                    r_dk   <= w[O_DK +: 2];
                    r_dsh  <= w[O_DSH +: SHW];
                    r_amask <= f_mask(w[O_AW +: 7]);
                    r_bmask <= f_mask(w[O_BW +: 7]);
                    r_dmask <= f_mask(w[O_DW +: 7]);
                    r_awin <= a_win;
                    r_braw <= b_fld;
                    r_avb  <= a_vsh[0];
                end
            end

            // -- X (stage k+1): operands --
            wire [64*TEMPS-1:0] t_x = t_all[(gk+1)*64*TEMPS +: 64*TEMPS];
            /* verilator lint_off UNUSEDSIGNAL */
            wire [71:0]         a_al = r_awin >> r_abit;     // bits 71:64 are shifted-out window
            /* verilator lint_on UNUSEDSIGNAL */
            reg  [63:0]         op_a, op_b;
            always @(*) begin
                case (r_ak)
                    2'd0:    op_a = a_al[63:0] & r_amask;
                    2'd1:    op_a = t_x[r_aidx*64 +: 64];
                    2'd2:    op_a = {63'd0, r_avb};
                    default: op_a = 64'd0;
                endcase
                case (r_bk)
                    2'd0:    op_b = r_imm;
                    2'd1:    op_b = (r_braw & r_bmask) | r_imm;
                    2'd2:    op_b = t_x[r_bidx*64 +: 64];
                    default: op_b = 64'd0;
                endcase
            end

            // the ALU's groups, decoded here: move, adder, logic, shifter, compare/boolean, mux
            wire [63:0]   opx = r_swap ? op_b : op_a;
            wire [63:0]   opy = r_swap ? op_a : op_b;
            reg  [63:0]   opx_rev;
            integer       q;
            always @(*) begin
                for (q = 0; q < 64; q = q + 1) begin
                    opx_rev[q] = opx[63 - q];
                end
            end
            reg           x_sub;     // the adder subtracts (sub, lt, le)
            reg [5:0]     x_grp;     // one-hot: move, sum, logic, shift, 1-bit, mux
            reg           x_movy;    // move: Y (else X)
            reg [1:0]     x_lop;     // logic: and, or, xor, not
            reg           x_shr;     // shift right (the shifter works on reversed bits)
            reg [2:0]     x_bop;     // 1-bit: eq, ne, lt, le, land, lor, lnot, bool
            reg [1:0]     x_dk;
            reg [SHW-1:0] x_dsh;
            reg [63:0]    x_dmask;
            reg [63:0]    x_x, x_y, x_sh;
            reg           x_c;
            always @(posedge clk) begin
                if (en) begin
                    x_sub   <= r_alu == ALU_SUB || r_alu == ALU_LT || r_alu == ALU_LE;
                    x_grp   <= {r_alu == ALU_MUX,
                                r_alu >= ALU_EQ && r_alu <= ALU_BOOL,
                                r_alu == ALU_SHL || r_alu == ALU_SHR,
                                r_alu >= ALU_AND && r_alu <= ALU_NOT,
                                r_alu == ALU_ADD || r_alu == ALU_SUB,
                                r_alu == ALU_MOVX || r_alu == ALU_MOVY};
                    x_movy  <= r_alu == ALU_MOVY;
                    x_lop   <= r_alu[1:0];                  // AND 4, OR 5, XOR 6, NOT 7
                    x_shr   <= r_alu == ALU_SHR;
                    x_bop   <= r_alu[2:0] - 3'd2;           // EQ 10 .. BOOL 17 -> 0 .. 7
                    x_dk    <= r_dk;
                    x_dsh   <= r_dsh;
                    x_dmask <= r_dmask;
                    x_x     <= opx;
                    x_y     <= opy;
                    x_sh    <= (r_alu == ALU_SHR) ? opx_rev : opx;
                    x_c     <= |t_x[r_cidx*64 +: 64];
                end
            end

            // -- E (stage k+2): the ALU, grouped; one level of AND-OR picks the group --
            wire [64:0] sum    = {1'b0, x_x} + {1'b0, x_sub ? ~x_y : x_y} + {64'd0, x_sub};
            wire        eq     = x_x == x_y;
            wire        lt     = !sum[64];
            wire        big    = |x_y[63:6];
            wire [63:0] sh_out = big ? 64'd0 : x_sh << x_y[5:0];
            reg  [63:0] sh_res, lg_res;
            reg         b_res;
            always @(*) begin
                for (q = 0; q < 64; q = q + 1) begin
                    sh_res[q] = x_shr ? sh_out[63 - q] : sh_out[q];
                end
                case (x_lop)
                    2'd0:    lg_res = x_x & x_y;
                    2'd1:    lg_res = x_x | x_y;
                    2'd2:    lg_res = x_x ^ x_y;
                    default: lg_res = ~x_x;
                endcase
                case (x_bop)
                    3'd0:    b_res = eq;
                    3'd1:    b_res = !eq;
                    3'd2:    b_res = lt;
                    3'd3:    b_res = lt || eq;
                    3'd4:    b_res = |x_x && |x_y;
                    3'd5:    b_res = |x_x || |x_y;
                    3'd6:    b_res = !(|x_x);
                    default: b_res = |x_x;
                endcase
            end
            wire [63:0] res = ({64{x_grp[0]}} & (x_movy ? x_y : x_x))
                            | ({64{x_grp[1]}} & sum[63:0])
                            | ({64{x_grp[2]}} & lg_res)
                            | ({64{x_grp[3]}} & sh_res)
                            | ({64{x_grp[4]}} & {63'd0, b_res})
                            | ({64{x_grp[5]}} & (x_c ? x_x : x_y));

            reg           e_wr, e_tw;
            reg [SHW-1:0] e_dsh;
            reg [63:0]    e_res, e_mask;
            always @(posedge clk) begin
                if (en) begin
                    e_wr   <= x_dk == 2'd1;
                    e_tw   <= x_dk == 2'd2;
                    e_dsh  <= x_dsh;
                    e_mask <= x_dmask;
                    e_res  <= res;
                end
            end

            // the temporary write, from the result register (it lands in stage k+4)
            assign te_en[gk]             = e_tw;
            assign te_idx[gk*TIW +: TIW] = e_dsh[TIW-1:0];
            assign te_val[gk*64 +: 64]   = e_res;

            // -- W (stage k+3): the result in a window, shifted by its bit and the low bits of its
            //    byte offset (0..2^LOB - 1 bytes) --
            reg             m_wr;
            /* verilator lint_off UNUSEDSIGNAL */
            reg [BSW-1:0]   m_byte;        // the byte offset: only its high bits are shifted in M
            /* verilator lint_on UNUSEDSIGNAL */
            reg [WW-1:0]    m_val, m_msk;
            wire [WW-1:0]   w_val = {{(WW-72){1'b0}}, {8'd0, e_res & e_mask} << e_dsh[2:0]} << {e_dsh[3 +: LOB], 3'b000};
            wire [WW-1:0]   w_msk = {{(WW-72){1'b0}}, {8'd0, e_mask} << e_dsh[2:0]} << {e_dsh[3 +: LOB], 3'b000};
            always @(posedge clk) begin
                if (en) begin
                    m_wr  <= e_wr;
                    m_byte <= e_dsh[SHW-1:3];
                    m_val <= w_val;
                    m_msk <= w_msk;
                end
            end

            // -- M (stage k+4): the rest of the byte shift, merged into the PHV --
            /* verilator lint_off UNUSEDSIGNAL */
            // bits above the PHV: a field write never reaches them (the loader checks); the
            // byte offset's low bits were shifted in W
            wire [PHV_BITS+WW-1:0] wv, wm;
            if (HIB > 0) begin : g_hi
                assign wv = {{PHV_BITS{1'b0}}, m_val} << {m_byte[BSW-1:LOB], {(LOB+3){1'b0}}};
                assign wm = {{PHV_BITS{1'b0}}, m_msk} << {m_byte[BSW-1:LOB], {(LOB+3){1'b0}}};
            end else begin : g_lo
                assign wv = {{PHV_BITS{1'b0}}, m_val};
                assign wm = {{PHV_BITS{1'b0}}, m_msk};
            end
            /* verilator lint_on UNUSEDSIGNAL */
            wire [PHV_BITS-1:0]  p_m = p_all[(gk+4)*PHV_BITS +: PHV_BITS];
            assign wr_out[gk*PHV_BITS +: PHV_BITS] =
                m_wr ? ((p_m & ~wm[PHV_BITS-1:0]) | wv[PHV_BITS-1:0]) : p_m;
        end
    endgenerate

    // ---- the final stage: the egress field's 24-bit window; then egress, drop, out --------
    reg  [PHV_BITS-1:0]   fin_phv;
    reg  [VALID_BITS-1:0] fin_v;
    reg  [1:0]            fin_fl;
    reg  [23:0]           fin_win;
    always @(posedge clk) begin
        if (en) begin
            fin_phv <= p_all[LAST*PHV_BITS +: PHV_BITS];
            fin_v   <= v_all[LAST*VALID_BITS +: VALID_BITS];
            fin_fl  <= fl_all[LAST*2 +: 2];
            fin_win <= f_egwin({24'd0, p_all[LAST*PHV_BITS +: PHV_BITS]}, cfg_egress_shift[SHW-1:3]);
        end
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire [63:0]           eg_msk = f_mask({2'b00, cfg_egress_width});   // the egress field is at most 16 bits
    wire [23:0]           eg_al  = fin_win >> cfg_egress_shift[2:0];
    /* verilator lint_on UNUSEDSIGNAL */
    wire [15:0]           eg     = eg_al[15:0] & eg_msk[15:0];

    localparam OBW = PHV_BITS + VALID_BITS + 16 + 3;
    wire [OBW-1:0] ob_in = {fin_phv, fin_v, eg, cfg_drop_en && eg == cfg_drop_value, fin_fl};
    reg  [OBW-1:0] ob_head, ob_spare;

    always @(posedge clk) begin
        if (ob_push && (ob_count == 2'd0 || (ob_count == 2'd1 && ob_pop))) begin
            ob_head <= ob_in;
        end else if (ob_pop && ob_count == 2'd2) begin
            ob_head <= ob_spare;
        end
        if (ob_push && ob_count == 2'd1 && !ob_pop) begin
            ob_spare <= ob_in;
        end
    end

    assign {out_phv, out_hdr_valid, out_egress, out_drop, out_digest, out_exit} = ob_head;

endmodule

`default_nettype wire
