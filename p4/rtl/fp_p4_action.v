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
// encoding). Slot k of every action runs in pipeline stages k .. k+6: one packet per cycle, the
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
// The PHV is handled in 64-bit containers (container j = PHV bits 64j+63 .. 64j, counted from
// the LSB): a field of up to 64 bits lies in two adjacent containers, so a read selects two
// containers and shifts by the bit offset in the first (0..63), and a write shifts the result
// into a 128-bit window and merges it into the two containers it hits, one 4-input function
// per PHV bit (the window's halves kept by container parity: even containers take one half,
// odd ones the other). Within a slot: R (stage k) selects the A field's containers and its
// 32-bit step, the B field's high shift steps, runs the validity op and decodes the word;
// X (k+1) finishes both shifts and masks; O (k+2) picks the operands (temporaries read here)
// and swaps; E1 (k+3) the adder, the shifter's byte steps, the logic unit, move and mux;
// E2 (k+4) the shifter's bit steps, the 1-bit unit and the group select, and writes a
// temporary; W (k+5) shifts the result by the low 4 bits of its offset and decodes its mask;
// M (k+6) shifts the rest and merges. A final stage reads the egress
// field's byte window; the output buffer's input aligns it and compares. So a slot sees the
// PHV writes of slots at least 7 before it, the temporary writes of slots at least 3 before it
// and the validity ops of every earlier slot; the loader schedules the ops (leaving empty slots
// where an op waits for an earlier result) and refuses programs that do not fit.
//
// Latency:    OPS + 9 cycles from the cycle with in_valid && in_ready to the first with out_valid
//             (fixed; the house convention of fastpath.sim.tb; OPS 8: 17 cycles).
// Throughput: one packet per cycle. in_ready is a register: the pipeline advances as a whole
//             (one registered enable) and stops when the 2-entry output buffer may fill; with
//             out_ready held high it never stops.
// Bad input:  none possible on the packet path: every op word is executed as written (an
//             empty slot is a move into nowhere), an operand beyond the PHV or the action data
//             reads zeros, a write beyond the PHV is dropped, an unwritten temporary reads as
//             zero. A program written while packets of that action are in the pipeline may mix
//             the old and the new program for those packets (write programs while the action is
//             unused). cfg_egress_* and cfg_drop_* are quasi-static.
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

    localparam LAST = OPS + 6;             // the last slot's PHV write lands in this stage's register
    localparam CW   = (SHW > 6) ? SHW - 6 : 1;       // bits of a 64-bit container's index
    localparam NC   = (PHV_BITS + 63) / 64;          // the PHV's containers
    localparam NH   = (1 << (CW - 1)) + 1;           // even (odd) containers a read may take
    localparam PXW  = 128 * NH;                      // the PHV padded with zero containers
    localparam BLO  = (DSW < 4) ? DSW : 4;           // B shift bits done in X (the rest in R)
    localparam BPW  = 64 + (1 << BLO) - 1;           // the B field's window after R

    // Right shifts that keep only their low bits, written largest step first: each level is then
    // only as wide as the bits still needed (OUT + the steps still to come), where a plain `>>`
    // (built smallest step first) carries the whole input through every level.
    function [BPW-1:0] f_bhi(input [DATA_BITS+BPW-1:0] x, input [DSW-1:0] bits);   // R: high bits
        reg [DATA_BITS+BPW-1:0] v;
        integer k;
        begin
            v = x;
            for (k = DSW - 1; k >= BLO; k = k - 1) begin
                if (bits[k]) begin
                    v = v >> (1 << k);
                end
            end
            f_bhi = v[BPW-1:0];
        end
    endfunction

    function [63:0] f_blo(input [BPW-1:0] x, input [BLO-1:0] bits);                  // X: the rest
        reg [BPW-1:0] v;
        integer k;
        begin
            v = x;
            for (k = BLO - 1; k >= 0; k = k - 1) begin
                if (bits[k]) begin
                    v = v >> (1 << k);
                end
            end
            f_blo = v[63:0];
        end
    endfunction

    function [63:0] f_alo(input [95:0] x, input [4:0] bits);                         // X: A field
        reg [95:0] v;
        integer k;
        begin
            v = x;
            for (k = 4; k >= 0; k = k - 1) begin
                if (bits[k]) begin
                    v = v >> (1 << k);
                end
            end
            f_alo = v[63:0];
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

    // w ones (w = 1..64): a shifted constant, which becomes a small function of w per bit (a
    // relational operator per bit, k < w, would be a carry chain per bit on ECP5)
    function [63:0] f_mask(input [6:0] w);
        f_mask = ~({64{1'b1}} << w);
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
    // the last slots come after the last temporary read
    wire [(LAST+1)*AID_WIDTH-1:0]  aid_all;
    wire [OPS*DATA_BITS-1:0]       d_all;
    wire [(OPS+2)*64*TEMPS-1:0]    t_all;     // stage 0's temporaries are zero
    wire [(LAST+1)*2-1:0]          fl_all;    // {digest, exit}

    // slot outputs feeding later stages
    wire [OPS*VALID_BITS-1:0]      vop_out;   // slot k: validity after its op (into stage k+1)
    wire [OPS*PHV_BITS-1:0]        wr_out;    // slot k: PHV after its write (into stage k+7)
    wire [OPS-1:0]                 te_en;     // slot k: temporary write (into stage k+5)
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
                if (gt >= 7 && gt - 7 < OPS) begin : g_wr
                    assign p_nx = wr_out[(gt-7)*PHV_BITS +: PHV_BITS];
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

            // temporaries: read by the O stages (stages 2 .. OPS+1); slot k's write lands in stage k+5
            if (gt == 0) begin : g_t0
                assign t_all[64*TEMPS-1:0] = {64*TEMPS{1'b0}};
            end else if (gt <= OPS + 1) begin : g_temps
                reg  [64*TEMPS-1:0] t_q;
                wire [64*TEMPS-1:0] t_prev = t_all[(gt-1)*64*TEMPS +: 64*TEMPS];
                if (gt >= 5) begin : g_write
                    localparam K = gt - 5;     // the slot whose E2 stage is stage gt-1
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

            // -- R (stage k): the A field's two containers, the B field's high shift, the
            //    validity op; the word decoded for the later stages --
            wire [PHV_BITS-1:0]   p_r = p_all[gk*PHV_BITS +: PHV_BITS];
            wire [VALID_BITS-1:0] v_r = v_all[gk*VALID_BITS +: VALID_BITS];
            wire [DATA_BITS-1:0]  d_r = d_all[gk*DATA_BITS +: DATA_BITS];

            wire [SHW-1:0]        a_sh  = w[O_ASH +: SHW];
            wire [DSW-1:0]        b_sh  = w[O_BSH +: DSW];
            wire [SHW-1:0]        d_sh  = w[O_DSH +: SHW];
            /* verilator lint_off UNUSEDSIGNAL */
            wire [SHW+5:0]        a_shx = {6'd0, a_sh};
            wire [SHW+5:0]        d_shx = {6'd0, d_sh};
            /* verilator lint_on UNUSEDSIGNAL */
            wire [CW-1:0]         a_c   = a_shx[CW+5:6];     // the field's first container
            wire [31:0]           a_c32 = {{(32-CW){1'b0}}, a_c};
            wire [PXW-1:0]        p_x   = {{(PXW-PHV_BITS){1'b0}}, p_r};
            reg  [63:0]           c_ev, c_od;
            integer m;
            always @(*) begin
                c_ev = 64'd0;
                c_od = 64'd0;
                for (m = 0; m < NH; m = m + 1) begin
                    // even container 2m is read for c = 2m and 2m-1, odd 2m+1 for c = 2m+1 and 2m
                    c_ev = c_ev | ({64{a_c32 == 2 * m || a_c32 == 2 * m - 1}} & p_x[128*m +: 64]);
                    c_od = c_od | ({64{a_c32 == 2 * m + 1 || a_c32 == 2 * m}} & p_x[128*m + 64 +: 64]);
                end
            end
            wire [127:0]          a_win = a_c[0] ? {c_ev, c_od} : {c_od, c_ev};   // {c+1, c}
            wire [95:0]           a_w96 = a_shx[5] ? a_win[127:32] : a_win[95:0];
            wire [BPW-1:0]        b_hi  = f_bhi({{BPW{1'b0}}, d_r}, b_sh);
            /* verilator lint_off UNUSEDSIGNAL */
            wire [VALID_BITS-1:0] a_vsh = v_r >> a_sh[VIW-1:0];   // bit 0 is the validity bit read
            /* verilator lint_on UNUSEDSIGNAL */

            // validity op over bits [lo, hi]
            wire [1:0]            vk   = w[O_VK +: 2];
            wire [VIW-1:0]        vlo  = w[O_VLO +: VIW];
            wire [VIW-1:0]        vhi  = w[O_VHI +: VIW];
            wire [VIW:0]          varg = w[O_VARG +: VIW + 1];
            reg  [VALID_BITS-1:0] vrange, vsrc, vres;
            always @(*) begin
                vrange = ({VALID_BITS{1'b1}} << vlo) & ~(({VALID_BITS{1'b1}} << vhi) << 1);
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

            wire [4:0]    alu = w[O_ALU +: 5];
            reg  [95:0]   r_awin;
            reg  [4:0]    r_ash;
            reg  [BPW-1:0] r_bhi;
            reg  [BLO-1:0] r_bsh;
            reg  [63:0]   r_amask, r_bmask, r_imm;
            reg  [1:0]    r_ak, r_bk, r_dk;
            reg           r_avb, r_swap, r_shr;
            reg  [TIW-1:0] r_aidx, r_bidx, r_cidx, r_tidx;
            reg           r_sub;     // the adder subtracts (sub, lt, le)
            reg  [5:0]    r_grp;     // one-hot: move, sum, logic, shift, 1-bit, mux
            reg           r_movy;    // move: Y (else X)
            reg  [1:0]    r_lop;     // logic: and, or, xor, not
            reg  [2:0]    r_bop;     // 1-bit: eq, ne, lt, le, land, lor, lnot, bool
            reg  [5:0]    r_dr;      // destination: bit in its container
            reg  [CW-1:0] r_dc;      // ... its first container
            reg  [6:0]    r_dend;    // ... r_dr + width (<= 127)
            always @(posedge clk) begin
                if (en) begin
                    r_awin  <= a_w96;
                    r_ash   <= a_shx[4:0];
                    r_bhi   <= b_hi;
                    r_bsh   <= b_sh[BLO-1:0];
                    r_amask <= f_mask(w[O_AW +: 7]);
                    r_bmask <= f_mask(w[O_BW +: 7]);
                    r_imm   <= w[O_IMM +: 64];
                    r_ak    <= w[O_AK +: 2];
                    r_bk    <= w[O_BK +: 2];
                    r_dk    <= w[O_DK +: 2];
                    r_avb   <= a_vsh[0];
                    r_swap  <= w[O_SWAP];
                    r_shr   <= alu == ALU_SHR;
                    r_aidx  <= a_sh[TIW-1:0];
                    r_bidx  <= b_sh[TIW-1:0];
                    r_cidx  <= w[O_C +: TIW];
                    r_tidx  <= d_sh[TIW-1:0];
                    r_sub   <= alu == ALU_SUB || alu == ALU_LT || alu == ALU_LE;
                    r_grp   <= {alu == ALU_MUX,
                                alu == ALU_EQ || alu == ALU_NE || alu == ALU_LT || alu == ALU_LE
                                    || alu == ALU_LAND || alu == ALU_LOR || alu == ALU_LNOT || alu == ALU_BOOL,
                                alu == ALU_SHL || alu == ALU_SHR,
                                alu == ALU_AND || alu == ALU_OR || alu == ALU_XOR || alu == ALU_NOT,
                                alu == ALU_ADD || alu == ALU_SUB,
                                alu == ALU_MOVX || alu == ALU_MOVY};
                    r_movy  <= alu == ALU_MOVY;
                    r_lop   <= alu[1:0];                  // AND 4, OR 5, XOR 6, NOT 7
                    r_bop   <= alu[2:0] - 3'd2;           // EQ 10 .. BOOL 17 -> 0 .. 7
                    r_dr    <= d_shx[5:0];
                    r_dc    <= d_shx[CW+5:6];
                    r_dend  <= {1'b0, d_shx[5:0]} + w[O_DW +: 7];
                end
            end

            // -- X (stage k+1): the fields aligned and masked --
            reg  [63:0]   x_afld, x_bfld, x_imm;
            reg  [1:0]    x_ak, x_bk, x_dk;
            reg           x_avb, x_swap, x_shr, x_sub, x_movy;
            reg  [TIW-1:0] x_aidx, x_bidx, x_cidx, x_tidx;
            reg  [5:0]    x_grp;
            reg  [1:0]    x_lop;
            reg  [2:0]    x_bop;
            reg  [5:0]    x_dr;
            reg  [CW-1:0] x_dc;
            reg  [6:0]    x_dend;
            always @(posedge clk) begin
                if (en) begin
                    x_afld <= f_alo(r_awin, r_ash) & r_amask;
                    x_bfld <= f_blo(r_bhi, r_bsh) & r_bmask;
                    x_imm  <= r_imm;
                    x_ak   <= r_ak;
                    x_bk   <= r_bk;
                    x_dk   <= r_dk;
                    x_avb  <= r_avb;
                    x_swap <= r_swap;
                    x_shr  <= r_shr;
                    x_sub  <= r_sub;
                    x_movy <= r_movy;
                    x_aidx <= r_aidx;
                    x_bidx <= r_bidx;
                    x_cidx <= r_cidx;
                    x_tidx <= r_tidx;
                    x_grp  <= r_grp;
                    x_lop  <= r_lop;
                    x_bop  <= r_bop;
                    x_dr   <= r_dr;
                    x_dc   <= r_dc;
                    x_dend <= r_dend;
                end
            end

            // -- O (stage k+2): the operands (temporaries read here), swapped --
            wire [64*TEMPS-1:0] t_o = t_all[(gk+2)*64*TEMPS +: 64*TEMPS];
            reg  [63:0]         op_a, op_b;
            always @(*) begin
                case (x_ak)
                    2'd0:    op_a = x_afld;
                    2'd1:    op_a = t_o[x_aidx*64 +: 64];
                    2'd2:    op_a = {63'd0, x_avb};
                    default: op_a = 64'd0;
                endcase
                case (x_bk)
                    2'd0:    op_b = x_imm;
                    2'd1:    op_b = x_bfld | x_imm;
                    2'd2:    op_b = t_o[x_bidx*64 +: 64];
                    default: op_b = 64'd0;
                endcase
            end
            wire [63:0]   opx = x_swap ? op_b : op_a;
            wire [63:0]   opy = x_swap ? op_a : op_b;
            reg  [63:0]   opx_rev;
            integer       q;
            always @(*) begin
                for (q = 0; q < 64; q = q + 1) begin
                    opx_rev[q] = opx[63 - q];
                end
            end
            reg  [63:0]   o_x, o_y, o_sh;
            reg           o_c, o_shr, o_sub, o_movy;
            reg  [5:0]    o_grp;
            reg  [1:0]    o_lop, o_dk;
            reg  [2:0]    o_bop;
            reg  [TIW-1:0] o_tidx;
            reg  [5:0]    o_dr;
            reg  [CW-1:0] o_dc;
            reg  [6:0]    o_dend;
            always @(posedge clk) begin
                if (en) begin
                    o_x    <= opx;
                    o_y    <= opy;
                    o_sh   <= x_shr ? opx_rev : opx;    // the shifter works on reversed bits for shr
                    o_c    <= |t_o[x_cidx*64 +: 64];
                    o_shr  <= x_shr;
                    o_sub  <= x_sub;
                    o_movy <= x_movy;
                    o_grp  <= x_grp;
                    o_lop  <= x_lop;
                    o_bop  <= x_bop;
                    o_dk   <= x_dk;
                    o_tidx <= x_tidx;
                    o_dr   <= x_dr;
                    o_dc   <= x_dc;
                    o_dend <= x_dend;
                end
            end

            // -- E1 (stage k+3): the adder, the byte steps of the shifter, the logic unit, move
            //    and mux, the compares' parts --
            wire [64:0]   sum = {1'b0, o_x} + {1'b0, o_sub ? ~o_y : o_y} + {64'd0, o_sub};
            reg  [63:0]   lg_res;
            reg  [7:0]    eq8;
            integer       e;
            always @(*) begin
                case (o_lop)
                    2'd0:    lg_res = o_x & o_y;
                    2'd1:    lg_res = o_x | o_y;
                    2'd2:    lg_res = o_x ^ o_y;
                    default: lg_res = ~o_x;
                endcase
                for (e = 0; e < 8; e = e + 1) begin
                    eq8[e] = o_x[8*e +: 8] == o_y[8*e +: 8];
                end
            end
            reg  [64:0]   e_sum;
            reg  [63:0]   e_sh, e_m1;
            reg  [7:0]    e_eq8;
            reg  [2:0]    e_shb, e_bop;
            reg           e_big, e_orx, e_ory, e_shr, e_gs, e_gh, e_gm, e_gb;
            reg  [1:0]    e_dk;
            reg  [TIW-1:0] e_tidx;
            reg  [5:0]    e_dr;
            reg  [CW-1:0] e_dc;
            reg  [6:0]    e_dend;
            always @(posedge clk) begin
                if (en) begin
                    e_sum  <= sum;
                    e_sh   <= o_sh << {o_y[5:3], 3'b000};
                    e_shb  <= o_y[2:0];
                    e_big  <= |o_y[63:6];
                    e_m1   <= ({64{o_grp[0]}} & (o_movy ? o_y : o_x))
                            | ({64{o_grp[2]}} & lg_res)
                            | ({64{o_grp[5]}} & (o_c ? o_x : o_y));
                    e_eq8  <= eq8;
                    e_orx  <= |o_x;
                    e_ory  <= |o_y;
                    e_shr  <= o_shr;
                    e_bop  <= o_bop;
                    e_gs   <= o_grp[1];
                    e_gh   <= o_grp[3];
                    e_gm   <= o_grp[0] | o_grp[2] | o_grp[5];
                    e_gb   <= o_grp[4];
                    e_dk   <= o_dk;
                    e_tidx <= o_tidx;
                    e_dr   <= o_dr;
                    e_dc   <= o_dc;
                    e_dend <= o_dend;
                end
            end

            // -- E2 (stage k+4): the shifter's bit steps, the 1-bit unit, the group select --
            wire [63:0]   sh_out = e_big ? 64'd0 : e_sh << e_shb;
            wire          eq     = &e_eq8;
            wire          lt     = !e_sum[64];
            reg  [63:0]   sh_res;
            reg           b_res;
            always @(*) begin
                for (q = 0; q < 64; q = q + 1) begin
                    sh_res[q] = e_shr ? sh_out[63 - q] : sh_out[q];
                end
                case (e_bop)
                    3'd0:    b_res = eq;
                    3'd1:    b_res = !eq;
                    3'd2:    b_res = lt;
                    3'd3:    b_res = lt || eq;
                    3'd4:    b_res = e_orx && e_ory;
                    3'd5:    b_res = e_orx || e_ory;
                    3'd6:    b_res = !e_orx;
                    default: b_res = e_orx;
                endcase
            end
            wire [63:0] res = ({64{e_gs}} & e_sum[63:0])
                            | ({64{e_gh}} & sh_res)
                            | ({64{e_gm}} & e_m1)
                            | ({64{e_gb}} & {63'd0, b_res});
            reg           f_wr;
            reg  [5:0]    f_dr;
            reg  [CW-1:0] f_dc;
            reg  [6:0]    f_dend;
            reg  [63:0]   f_res;
            always @(posedge clk) begin
                if (en) begin
                    f_wr   <= e_dk == 2'd1;
                    f_dr   <= e_dr;
                    f_dc   <= e_dc;
                    f_dend <= e_dend;
                    f_res  <= res;
                end
            end

            // the temporary write, the result itself (it lands in stage k+5)
            assign te_en[gk]             = e_dk == 2'd2;
            assign te_idx[gk*TIW +: TIW] = e_tidx;
            assign te_val[gk*64 +: 64]   = res;

            // -- W (stage k+5): the result's low shift steps (0..15 bits), its mask over the two
            //    containers it may touch, the containers hit; the two halves are kept by
            //    container parity (even, odd) so that M needs no further selection --
            // bits f_dr .. f_dend-1 (shifted constants, as f_mask)
            wire [127:0]  wm = ({128{1'b1}} << f_dr) & ~({128{1'b1}} << f_dend);
            reg  [78:0]   m_val;
            reg  [63:0]   m_mev, m_mod;
            reg  [1:0]    m_step;
            reg           m_odd;
            reg  [NC-1:0] m_hit;
            wire [31:0]   f_dc32 = {{(32-CW){1'b0}}, f_dc};
            integer       h;
            always @(posedge clk) begin
                if (en) begin
                    m_val  <= {15'd0, f_res} << f_dr[3:0];
                    m_step <= f_dr[5:4];
                    m_odd  <= f_dc[0];
                    m_mev  <= f_dc[0] ? wm[127:64] : wm[63:0];
                    m_mod  <= f_dc[0] ? wm[63:0] : wm[127:64];
                    for (h = 0; h < NC; h = h + 1) begin
                        m_hit[h] <= f_wr && (f_dc32 == h || f_dc32 == h - 1);
                    end
                end
            end

            // -- M (stage k+6): the rest of the shift, merged into the containers hit --
            /* verilator lint_off UNUSEDSIGNAL */
            wire [127:0]  mv  = {49'd0, m_val} << {m_step, 4'b0000};   // bits above 127 never set
            /* verilator lint_on UNUSEDSIGNAL */
            wire [63:0]   mev = m_odd ? mv[127:64] : mv[63:0];
            wire [63:0]   mod = m_odd ? mv[63:0] : mv[127:64];
            wire [PHV_BITS-1:0] p_m = p_all[(gk+6)*PHV_BITS +: PHV_BITS];
            // per container: its half of the window (by parity), its mask half AND its hit
            /* verilator lint_off UNUSEDSIGNAL */
            wire [64*NC-1:0] c_val, c_en;        // bits above the PHV: never merged
            /* verilator lint_on UNUSEDSIGNAL */
            for (gi = 0; gi < NC; gi = gi + 1) begin : g_cont
                assign c_val[64*gi +: 64] = (gi % 2 == 0) ? mev : mod;
                assign c_en[64*gi +: 64]  = {64{m_hit[gi]}} & ((gi % 2 == 0) ? m_mev : m_mod);
            end
            wire [PHV_BITS-1:0] p_w = (p_m & ~c_en[PHV_BITS-1:0]) | (c_val[PHV_BITS-1:0] & c_en[PHV_BITS-1:0]);
            assign wr_out[gk*PHV_BITS +: PHV_BITS] = p_w;
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
