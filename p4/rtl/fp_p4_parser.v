// fp_p4_parser: the P4 pipeline's parser (seeds/004): ONE table-driven engine that walks a parse
// graph loaded at run time and fills the packet header vector (PHV) and its validity bits.
// "Full mode" (Ethernet, 3 VLAN, 3 MPLS, IPv4 with options, IPv6, UDP, TCP, VXLAN + inner
// Ethernet) is this engine loaded with a built-in graph; "byte mode" is any compiled program's
// graph (p4/parser_load.py writes both; datasheet p4/docs/parser.md).
//
// Data path. The packet passes through unchanged (s_axis -> fp_axis_register -> m_axis). Its
// first HDR_BYTES bytes (the window; fewer when the packet is shorter) are captured; once the
// window is complete the engine takes a copy and parses it while the next window is captured.
// Per packet one result leaves on m_phv (valid/ready): the PHV (PHV_BITS, bit PHV_BITS-1 = PHV
// bit 0 of the compiler's layout, MSB first), the header validity vector, parser_error (the
// program's code) and the payload offset (bytes consumed). Results leave in packet order.
//
// Engine, per visited state (a row of the state table, read into a register):
//   c0 read the row (and the visit limit check); c1 checks (stack bound, extract fits), the
//   variable length ((window byte >> shr & mask) << shl) - sub (IPv4 IHL); c2 the valid bit and
//   stack update, the KEY_BYTES key bytes, each at a signed offset from the state's start or
//   from after its advance, lookahead bounds; c3 the first of TRANS value/mask entries that
//   matches (goto, accept, or a verify's error); c4 (or later, see below) the outcome.
//   The extraction runs beside it: EXT_BYTES bytes per cycle from c3 on, through a 3-stage
//   pipeline (window funnel, bit rotation to the PHV offset, PHV word write).
//   Errors, as bmv2's parser: ParserTimeout (visit limit), StackOutOfBounds, PacketTooShort
//   (extract), a verify's error, PacketTooShort (advance, then lookahead), NoMatch.
//
// Latency:    m_phv: 7 + sum over the visited states of T(s) cycles from the beat that completes
//             the window (the beat holding byte HDR_BYTES-1, or tlast) to m_phv_tvalid, engine
//             idle and m_phv ready; T(s) = 1 + max(4, ceil(ext_len(s) / EXT_BYTES)), so fixed
//             per path through the graph (Ethernet + IPv4 + TCP: 7 + 15 = 22 cycles).
//             m_axis: 1 cycle (fp_axis_register).
// Throughput: the stream: 1 beat per cycle while the engine keeps up. The engine: one packet per
//             6 + sum T(s) cycles (21 for Ethernet + IPv4 + TCP); a window waiting for the engine
//             stalls s_axis at the next packet's first beat.
// Bad input:  bad frames (tuser) are parsed and passed on unchanged. A packet shorter than what
//             the graph reads ends with PacketTooShort at the offset reached; loops end at the
//             visit limit with ParserTimeout. The loader guarantees that no read goes past the
//             window; a row never written reads as garbage (load before traffic). Config writes
//             to a state >= STATES or a word >= the row's words are ignored.
// Config:     cfg_wr_valid/addr/data (32-bit words). addr[15] = 0: state table, addr[14:6]
//             state, addr[5:0] word: words 0.. fill a staging row, word 63 commits it to the
//             state (one write, so a row changes whole). addr[15] = 1: global register addr[5:0]
//             (0 init state, 1 visit limit, 2..6 error codes PacketTooShort, NoMatch,
//             StackOutOfBounds, ParserTimeout, NoError, 8 + 4k stack k: PHV base, stride, valid
//             base, size; 32 + w: initial validity bits 32w..32w+31). Layout: p4/docs/parser.md.
// Parameters: DATA_WIDTH 64, 256 or 512; HDR_BYTES 32..256, power of two, >= DATA_WIDTH/8;
//             PHV_BITS 64..4096; VALID_BITS 1..256; STATES 2..256; KEY_BYTES 1..8; TRANS 1..16;
//             STACKS 1..4; EXT_BYTES 4, 8 or 16 (<= HDR_BYTES); ERR_WIDTH 4..16.
`default_nettype none

module fp_p4_parser #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter USER_WIDTH = 1,
    parameter HDR_BYTES  = 128,
    parameter PHV_BITS   = 1344,
    parameter VALID_BITS = 32,
    parameter STATES     = 32,
    parameter KEY_BYTES  = 4,
    parameter TRANS      = 8,
    parameter STACKS     = 2,
    parameter EXT_BYTES  = 8,
    parameter ERR_WIDTH  = 8
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [USER_WIDTH-1:0] s_axis_tuser,

    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,
    output wire [USER_WIDTH-1:0] m_axis_tuser,

    output reg                   m_phv_tvalid,
    input  wire                  m_phv_tready,
    output reg  [PHV_BITS-1:0]   m_phv_data,
    output reg  [VALID_BITS-1:0] m_phv_hvalid,
    output reg  [ERR_WIDTH-1:0]  m_phv_error,
    output reg  [15:0]           m_phv_offset,

    input  wire                  cfg_wr_valid,
    input  wire [15:0]           cfg_wr_addr,
    input  wire [31:0]           cfg_wr_data
);

    generate
        if (DATA_WIDTH != 64 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_64_256_or_512 u_error();
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
            PARAMETER_ERROR_KEEP_WIDTH_must_be_DATA_WIDTH_div_8 u_error();
        end
        if (USER_WIDTH < 1) begin : g_bad_user_width
            PARAMETER_ERROR_USER_WIDTH_must_be_at_least_1 u_error();
        end
        if (HDR_BYTES < 32 || HDR_BYTES > 256 || (HDR_BYTES & (HDR_BYTES - 1)) != 0 ||
            HDR_BYTES < DATA_WIDTH / 8) begin : g_bad_hdr_bytes
            PARAMETER_ERROR_HDR_BYTES_must_be_a_power_of_two_32_to_256_and_at_least_DATA_WIDTH_div_8 u_error();
        end
        if (PHV_BITS < 64 || PHV_BITS > 4096) begin : g_bad_phv_bits
            PARAMETER_ERROR_PHV_BITS_must_be_64_to_4096 u_error();
        end
        if (VALID_BITS < 1 || VALID_BITS > 256) begin : g_bad_valid_bits
            PARAMETER_ERROR_VALID_BITS_must_be_1_to_256 u_error();
        end
        if (STATES < 2 || STATES > 256) begin : g_bad_states
            PARAMETER_ERROR_STATES_must_be_2_to_256 u_error();
        end
        if (KEY_BYTES < 1 || KEY_BYTES > 8) begin : g_bad_key_bytes
            PARAMETER_ERROR_KEY_BYTES_must_be_1_to_8 u_error();
        end
        if (TRANS < 1 || TRANS > 16) begin : g_bad_trans
            PARAMETER_ERROR_TRANS_must_be_1_to_16 u_error();
        end
        if (STACKS < 1 || STACKS > 4) begin : g_bad_stacks
            PARAMETER_ERROR_STACKS_must_be_1_to_4 u_error();
        end
        if (EXT_BYTES != 4 && EXT_BYTES != 8 && EXT_BYTES != 16) begin : g_bad_ext_bytes
            PARAMETER_ERROR_EXT_BYTES_must_be_4_8_or_16 u_error();
        end
        if (ERR_WIDTH < 4 || ERR_WIDTH > 16) begin : g_bad_err_width
            PARAMETER_ERROR_ERR_WIDTH_must_be_4_to_16 u_error();
        end
    endgenerate

    // ---- geometry -------------------------------------------------------------------------
    localparam DB   = DATA_WIDTH / 8;                 // bytes per beat
    localparam HW   = $clog2(HDR_BYTES);              // window byte index bits
    localparam SW   = $clog2(STATES);                 // state index bits
    localparam SKW  = (STACKS > 1) ? $clog2(STACKS) : 1;
    localparam PW   = $clog2(PHV_BITS + 1);           // PHV bit offsets
    localparam VW   = (VALID_BITS > 1) ? $clog2(VALID_BITS) : 1;
    localparam AW   = (SW > ERR_WIDTH) ? SW : ERR_WIDTH;  // a transition's argument
    localparam KW   = 8 * KEY_BYTES;
    localparam EB   = $clog2(EXT_BYTES);
    localparam XW   = 8 * EXT_BYTES;                  // extraction word, bits
    localparam XB   = $clog2(XW);
    localparam NXW  = HDR_BYTES / EXT_BYTES;          // window words
    localparam PHV_WORDS = (PHV_BITS + XW - 1) / XW + 1;  // one spare word: a write may straddle
    localparam PHV_PAD   = PHV_WORDS * XW;
    localparam QW   = 12;                             // byte offsets (signed arithmetic room)
    // sized copies of the constants that meet registers (every parameter value, same widths)
    localparam [31:0]   HDR32 = HDR_BYTES;
    localparam [31:0]   STATES32 = STATES;
    // reset error codes (fastpath.p4.compiler.CORE_ERRORS) until the loader writes the program's
    localparam [31:0]   ERR_RESET_1 = 1, ERR_RESET_2 = 2, ERR_RESET_3 = 3, ERR_RESET_5 = 5;
    localparam [31:0]   DB32  = DB;
    localparam [31:0]   EXT32 = EXT_BYTES;
    localparam [31:0]   EXTM32 = EXT_BYTES - 1;
    localparam [31:0]   XW32  = 8 * EXT_BYTES;
    localparam [8:0]    HDR9  = HDR32[8:0];
    localparam [9:0]    HDR10 = HDR32[9:0];
    localparam [QW-1:0] HDRQ  = HDR32[QW-1:0];
    localparam [9:0]    DB10  = DB32[9:0];
    localparam [8:0]    EXT9  = EXT32[8:0];
    localparam [8:0]    EXTM9 = EXTM32[8:0];
    localparam [4:0]    EXT5  = EXT32[4:0];
    localparam [QW-1:0] EXTQ  = EXT32[QW-1:0];

    // row layout, LSB first (p4/parser_load.py packs the same)
    localparam R_EXT_EN  = 0;
    localparam R_EXT_STK = 1;
    localparam R_EXT_SID = 2;
    localparam R_EXT_LEN = R_EXT_SID + SKW;
    localparam R_EXT_PHV = R_EXT_LEN + 8;
    localparam R_EXT_VB  = R_EXT_PHV + PW;
    localparam R_ADV     = R_EXT_VB + VW;
    localparam R_VAR_EN  = R_ADV + 8;
    localparam R_VAR_OFF = R_VAR_EN + 1;
    localparam R_VAR_SHR = R_VAR_OFF + 9;
    localparam R_VAR_MSK = R_VAR_SHR + 3;
    localparam R_VAR_SHL = R_VAR_MSK + 8;
    localparam R_VAR_SUB = R_VAR_SHL + 3;
    localparam R_KB      = R_VAR_SUB + 9;
    localparam KBW       = 11;                        // key byte: offset (9, signed), post, lookahead
    localparam R_TR      = R_KB + KBW * KEY_BYTES;
    localparam TRW       = 2 + AW + 2 * KW;           // kind, argument, value, mask
    localparam R_DEF     = R_TR + TRANS * TRW;
    localparam ROW_BITS  = R_DEF + 2 + AW;
    localparam ROW_WORDS = (ROW_BITS + 31) / 32;

    generate
        if (ROW_WORDS > 63) begin : g_bad_row
            PARAMETER_ERROR_row_wider_than_63_words_reduce_TRANS_or_KEY_BYTES u_error();
        end
    endgenerate

    localparam [1:0] K_NONE = 2'd0, K_GOTO = 2'd1, K_ACCEPT = 2'd2, K_VERIFY = 2'd3;

    // ---- configuration --------------------------------------------------------------------
    // the last word's bits above ROW_BITS have no field: written, never read
    /* verilator lint_off UNUSEDSIGNAL */
    reg [ROW_WORDS*32-1:0] stage_q;
    /* verilator lint_on UNUSEDSIGNAL */
    reg [ROW_BITS-1:0]     table_mem [0:STATES-1];
    reg [SW-1:0]           init_q;
    reg [7:0]              limit_q;
    reg [ERR_WIDTH-1:0]    e_pts_q, e_nomatch_q, e_stack_q, e_timeout_q, e_none_q;
    reg [PW-1:0]           stk_base_q   [0:STACKS-1];
    reg [PW-1:0]           stk_stride_q [0:STACKS-1];
    reg [VW-1:0]           stk_vbase_q  [0:STACKS-1];
    reg [3:0]              stk_size_q   [0:STACKS-1];
    reg [VALID_BITS-1:0]   init_valid_q;

    wire       cfg_tab   = cfg_wr_valid && !cfg_wr_addr[15];
    wire       cfg_glob  = cfg_wr_valid && cfg_wr_addr[15];
    wire [8:0] cfg_state = cfg_wr_addr[14:6];
    wire [5:0] cfg_word  = cfg_wr_addr[5:0];
    wire [5:0] cfg_reg   = cfg_wr_addr[5:0];
    wire [31:0] cfg_word32 = {26'd0, cfg_word};   // compared with loop indexes
    wire [31:0] cfg_reg32  = {26'd0, cfg_reg};

    // one loop variable per always block (a variable shared by blocks would have several drivers)
    integer iw, ig, ib, ic, ik, it, iv, jf, ie;

    always @(posedge clk) begin
        if (cfg_tab && cfg_word == 6'd63 && {23'd0, cfg_state} < STATES32) begin
            table_mem[cfg_state[SW-1:0]] <= stage_q[ROW_BITS-1:0];
        end
    end

    always @(posedge clk) begin
        if (cfg_tab) begin
            for (iw = 0; iw < ROW_WORDS; iw = iw + 1) begin
                if (cfg_word32 == iw) begin
                    stage_q[32*iw +: 32] <= cfg_wr_data;
                end
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            init_q       <= {SW{1'b0}};
            limit_q      <= 8'd0;
            e_pts_q      <= ERR_RESET_1[ERR_WIDTH-1:0];
            e_nomatch_q  <= ERR_RESET_2[ERR_WIDTH-1:0];
            e_stack_q    <= ERR_RESET_3[ERR_WIDTH-1:0];
            e_timeout_q  <= ERR_RESET_5[ERR_WIDTH-1:0];
            e_none_q     <= {ERR_WIDTH{1'b0}};
            init_valid_q <= {VALID_BITS{1'b0}};
            for (ig = 0; ig < STACKS; ig = ig + 1) begin
                stk_base_q[ig]   <= {PW{1'b0}};
                stk_stride_q[ig] <= {PW{1'b0}};
                stk_vbase_q[ig]  <= {VW{1'b0}};
                stk_size_q[ig]   <= 4'd0;
            end
        end else if (cfg_glob) begin
            case (cfg_reg)
                6'd0: init_q      <= cfg_wr_data[SW-1:0];
                6'd1: limit_q     <= cfg_wr_data[7:0];
                6'd2: e_pts_q     <= cfg_wr_data[ERR_WIDTH-1:0];
                6'd3: e_nomatch_q <= cfg_wr_data[ERR_WIDTH-1:0];
                6'd4: e_stack_q   <= cfg_wr_data[ERR_WIDTH-1:0];
                6'd5: e_timeout_q <= cfg_wr_data[ERR_WIDTH-1:0];
                6'd6: e_none_q    <= cfg_wr_data[ERR_WIDTH-1:0];
                default: ;
            endcase
            for (ig = 0; ig < STACKS; ig = ig + 1) begin
                if (cfg_reg32 == 8 + 4 * ig)     stk_base_q[ig]   <= cfg_wr_data[PW-1:0];
                if (cfg_reg32 == 8 + 4 * ig + 1) stk_stride_q[ig] <= cfg_wr_data[PW-1:0];
                if (cfg_reg32 == 8 + 4 * ig + 2) stk_vbase_q[ig]  <= cfg_wr_data[VW-1:0];
                if (cfg_reg32 == 8 + 4 * ig + 3) stk_size_q[ig]   <= cfg_wr_data[3:0];
            end
            for (ig = 0; ig < VALID_BITS; ig = ig + 1) begin
                if (cfg_reg32 == 32 + ig / 32) init_valid_q[ig] <= cfg_wr_data[ig % 32];
            end
        end
    end

    // ---- pass-through and window capture ----------------------------------------------------
    reg                  cap_full_q;    // a complete window waits for the engine
    reg  [8:0]           cap_cnt_q;     // bytes of the current packet so far, saturating at HDR_BYTES
    reg  [8:0]           cap_len_q;     // min(packet length, HDR_BYTES) of the waiting window
    reg  [8*HDR_BYTES-1:0] cap_win_q;   // byte i at bits 8i+7..8i
    wire                 reg_tready;
    wire                 in_win  = cap_cnt_q < HDR9;
    wire                 cap_ok  = !(cap_full_q && in_win);
    wire                 beat    = s_axis_tvalid && s_axis_tready;
    wire                 take;          // the engine takes the waiting window

    assign s_axis_tready = reg_tready && cap_ok;

    fp_axis_register #(
        .DATA_WIDTH (DATA_WIDTH),
        .KEEP_WIDTH (KEEP_WIDTH),
        .USER_WIDTH (USER_WIDTH)
    ) u_pass (
        .clk           (clk),
        .rst           (rst),
        .s_axis_tdata  (s_axis_tdata),
        .s_axis_tkeep  (s_axis_tkeep),
        .s_axis_tvalid (s_axis_tvalid && cap_ok),
        .s_axis_tready (reg_tready),
        .s_axis_tlast  (s_axis_tlast),
        .s_axis_tuser  (s_axis_tuser),
        .m_axis_tdata  (m_axis_tdata),
        .m_axis_tkeep  (m_axis_tkeep),
        .m_axis_tvalid (m_axis_tvalid),
        .m_axis_tready (m_axis_tready),
        .m_axis_tlast  (m_axis_tlast),
        .m_axis_tuser  (m_axis_tuser)
    );

    // bytes in this beat: tkeep is contiguous from byte 0
    reg [7:0] beat_bytes;
    always @(*) begin
        beat_bytes = 8'd0;
        for (ib = 0; ib < KEEP_WIDTH; ib = ib + 1) begin
            if (s_axis_tkeep[ib]) beat_bytes = ib[7:0] + 8'd1;
        end
    end

    localparam LDB = $clog2(DB);
    wire [31:0] cap_beat32 = {{(32-9+LDB){1'b0}}, cap_cnt_q[8:LDB]};  // the beat's place in the window
    wire [9:0] cap_next = {1'b0, cap_cnt_q} + (s_axis_tlast ? {2'b00, beat_bytes} : DB10);
    wire [8:0] cap_sat  = (cap_next >= HDR10) ? HDR9 : cap_next[8:0];

    always @(posedge clk) begin
        if (rst) begin
            cap_full_q <= 1'b0;
            cap_cnt_q  <= 9'd0;
            cap_len_q  <= 9'd0;
            cap_win_q  <= {8*HDR_BYTES{1'b0}};
        end else begin
            if (take) begin
                cap_full_q <= 1'b0;
            end
            if (beat) begin
                if (in_win) begin
                    for (ic = 0; ic < HDR_BYTES / DB; ic = ic + 1) begin
                        if (cap_beat32 == ic) begin
                            cap_win_q[8*DB*ic +: 8*DB] <= s_axis_tdata;
                        end
                    end
                    if (s_axis_tlast || cap_next >= HDR10) begin
                        cap_full_q <= 1'b1;
                        cap_len_q  <= cap_sat;
                    end
                end
                cap_cnt_q <= s_axis_tlast ? 9'd0 : cap_sat;
            end
        end
    end

    // ---- engine -----------------------------------------------------------------------------
    localparam [1:0] E_IDLE = 2'd0, E_RUN = 2'd1, E_DRAIN = 2'd2, E_OUT = 2'd3;

    reg  [1:0]             e_q;
    reg  [ERR_WIDTH-1:0]   res_err_q;    // the finished packet's parser_error and payload offset,
    reg  [15:0]            res_off_q;    // to m_phv with its PHV in E_OUT
    reg  [7:0]             cyc_q;        // cycle within the state (c0..), or drain count
    reg  [8*HDR_BYTES-1:0] win_q;
    reg  [8:0]             len_q;
    reg  [SW-1:0]          st_q;
    reg  [QW-1:0]          off_q;        // the state's start
    reg  [7:0]             vis_q;        // states visited before this one
    reg  [ROW_BITS-1:0]    row_q;
    reg  [3:0]             stk_cnt_q  [0:STACKS-1];
    reg  [PW-1:0]          stk_phv_q  [0:STACKS-1];
    reg  [VW-1:0]          stk_vb_q   [0:STACKS-1];
    reg  [VALID_BITS-1:0]  hvalid_q;
    reg  [PHV_PAD-1:0]     phv_q;        // word w at bits PHV_PAD-1-XW*w downto PHV_PAD-XW*(w+1)

    // outcome flags of the state
    reg                    timeout_q, ext_err_q, adv_short_q, la_short_q, m_hit_q;
    reg  [ERR_WIDTH-1:0]   ext_code_q;
    reg  [7:0]             last_q;       // the cycle of the outcome: max(4, chunks)
    reg  [QW-1:0]          pre_q;        // after the extraction
    reg  [QW-1:0]          post_q;       // after the advance
    reg  [QW-1:0]          varlen_q;
    reg  [KW-1:0]          key_q;
    reg  [1:0]             m_kind_q;
    reg  [AW-1:0]          m_arg_q;

    assign take = (e_q == E_IDLE) && cap_full_q;

    // row fields
    wire               r_ext_en  = row_q[R_EXT_EN];
    wire               r_ext_stk = row_q[R_EXT_STK];
    wire [SKW-1:0]     r_ext_sid = row_q[R_EXT_SID +: SKW];
    wire [7:0]         r_ext_len = row_q[R_EXT_LEN +: 8];
    wire [PW-1:0]      r_ext_phv = row_q[R_EXT_PHV +: PW];
    wire [VW-1:0]      r_ext_vb  = row_q[R_EXT_VB +: VW];
    wire [7:0]         r_adv     = row_q[R_ADV +: 8];
    wire               r_var_en  = row_q[R_VAR_EN];
    wire [8:0]         r_var_off = row_q[R_VAR_OFF +: 9];
    wire [2:0]         r_var_shr = row_q[R_VAR_SHR +: 3];
    wire [7:0]         r_var_msk = row_q[R_VAR_MSK +: 8];
    wire [2:0]         r_var_shl = row_q[R_VAR_SHL +: 3];
    wire [8:0]         r_var_sub = row_q[R_VAR_SUB +: 9];
    wire [1:0]         r_def_k   = row_q[R_DEF +: 2];
    wire [AW-1:0]      r_def_a   = row_q[R_DEF + 2 +: AW];

    wire [SKW-1:0]     sid       = (STACKS > 1) ? r_ext_sid : {SKW{1'b0}};
    wire               stk_full  = r_ext_stk && (stk_cnt_q[sid] >= stk_size_q[sid]);
    wire [QW-1:0]      len12     = {{(QW-9){1'b0}}, len_q};
    wire [QW-1:0]      ext_end   = off_q + {{(QW-8){1'b0}}, r_ext_len};
    wire               ext_fits  = ext_end <= len12;
    // c1 registers the checks; c2 applies the extraction (ext_ok is an AND of flip-flops)
    reg                stk_full_q, ext_fits_q, ext_stk_q;
    reg  [SKW-1:0]     ext_sid_q;
    reg  [PW-1:0]      ext_phv_q;
    reg  [VW-1:0]      ext_vb_q;
    wire               ext_ok    = r_ext_en && !timeout_q && !stk_full_q && ext_fits_q;
    wire [8:0]         chunks    = ({1'b0, r_ext_len} + EXTM9) >> EB;
    wire [PW-1:0]      ext_phv   = r_ext_stk ? stk_phv_q[sid] : r_ext_phv;
    wire [VW-1:0]      ext_vb    = r_ext_stk ? stk_vb_q[sid] : r_ext_vb;

    // window byte at a byte offset (0 outside the window)
    function [7:0] win_byte(input [8*HDR_BYTES-1:0] w, input [QW-1:0] o);
        begin
            if (o < HDRQ) begin
                win_byte = w[{o[HW-1:0], 3'b000} +: 8];
            end else begin
                win_byte = 8'd0;
            end
        end
    endfunction

    // c1: the variable length
    wire [QW-1:0]      var_at   = off_q + {{(QW-9){r_var_off[8]}}, r_var_off};
    wire [7:0]         var_byte = win_byte(win_q, var_at);
    wire [7:0]         var_fld  = (var_byte >> r_var_shr) & r_var_msk;
    wire [QW-1:0]      var_len  = r_var_en ? (({{(QW-8){1'b0}}, var_fld} << r_var_shl) - {{(QW-9){1'b0}}, r_var_sub})
                                           : {QW{1'b0}};

    // c2: the advance and the key bytes
    wire [QW-1:0]      post     = pre_q + {{(QW-8){1'b0}}, r_adv} + varlen_q;
    reg  [KW-1:0]      key_d;
    reg                la_short_d;
    reg  [QW-1:0]      kb_at;
    always @(*) begin
        key_d      = {KW{1'b0}};
        la_short_d = 1'b0;
        kb_at      = {QW{1'b0}};
        for (ik = 0; ik < KEY_BYTES; ik = ik + 1) begin
            kb_at = (row_q[R_KB + KBW*ik + 9] ? post : off_q)
                  + {{(QW-9){row_q[R_KB + KBW*ik + 8]}}, row_q[R_KB + KBW*ik +: 9]};
            key_d[KW-8-8*ik +: 8] = win_byte(win_q, kb_at);
            if (row_q[R_KB + KBW*ik + 10] && kb_at >= len12) la_short_d = 1'b1;
        end
    end

    // c3: the first matching entry
    reg                m_hit_d;
    reg  [1:0]         m_kind_d;
    reg  [AW-1:0]      m_arg_d;
    always @(*) begin
        m_hit_d  = 1'b0;
        m_kind_d = K_NONE;
        m_arg_d  = {AW{1'b0}};
        for (it = TRANS - 1; it >= 0; it = it - 1) begin
            if (row_q[R_TR + TRW*it +: 2] != K_NONE &&
                ((key_q ^ row_q[R_TR + TRW*it + 2 + AW +: KW]) & row_q[R_TR + TRW*it + 2 + AW + KW +: KW]) == {KW{1'b0}}) begin
                m_hit_d  = 1'b1;
                m_kind_d = row_q[R_TR + TRW*it +: 2];
                m_arg_d  = row_q[R_TR + TRW*it + 2 +: AW];
            end
        end
    end

    // the outcome (at cyc_q == last_q)
    wire [1:0]         o_kind  = m_hit_q ? m_kind_q : r_def_k;
    // a goto uses the argument's low SW bits (it is ERR_WIDTH wide for verify errors)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [AW-1:0]      o_arg   = m_hit_q ? m_arg_q : r_def_a;
    /* verilator lint_on UNUSEDSIGNAL */
    reg                o_done;
    reg  [ERR_WIDTH-1:0] o_err;
    reg  [QW-1:0]      o_off;
    always @(*) begin
        o_done = 1'b1;
        o_err  = e_none_q;
        o_off  = post_q;
        if (timeout_q) begin
            o_err = e_timeout_q;
            o_off = off_q;
        end else if (ext_err_q) begin
            o_err = ext_code_q;
            o_off = off_q;
        end else if (m_hit_q && m_kind_q == K_VERIFY) begin
            o_err = m_arg_q[ERR_WIDTH-1:0];
            o_off = pre_q;
        end else if (adv_short_q) begin
            o_err = e_pts_q;
            o_off = pre_q;
        end else if (la_short_q) begin
            o_err = e_pts_q;
        end else if (o_kind == K_GOTO) begin
            o_done = 1'b0;
        end else if (o_kind != K_ACCEPT) begin
            o_err = e_nomatch_q;
        end
    end

    // the extraction: chunk generator -> funnel (stage B) -> rotation (stage C) -> PHV write
    reg                ch_act_q;
    reg  [QW-1:0]      ch_addr_q;
    reg  [PW+1:0]      ch_pbit_q;
    localparam [PW+1:0] XWP = XW32[PW+1:0];
    reg  [8:0]         ch_left_q;
    reg                b_v_q, c_v_q;
    reg  [XW-1:0]      b_d_q, b_m_q;
    reg  [PW+1-XB:0]   b_w_q, c_w_q;
    reg  [XB-1:0]      b_r_q;
    reg  [2*XW-1:0]    c_d_q, c_m_q;
    wire [31:0]        c_w32 = {{(32-(PW+2-XB)){1'b0}}, c_w_q};

    wire [31:0]        f_wsel  = {{(32-QW+EB){1'b0}}, ch_addr_q[QW-1:EB]};
    wire [EB-1:0]      f_sub   = ch_addr_q[EB-1:0];
    reg  [XW-1:0]      f_w0, f_w1;
    always @(*) begin
        f_w0 = {XW{1'b0}};
        f_w1 = {XW{1'b0}};
        for (iv = 0; iv < NXW; iv = iv + 1) begin
            if (f_wsel == iv)     f_w0 = win_q[XW*iv +: XW];
            if (f_wsel + 1 == iv) f_w1 = win_q[XW*iv +: XW];
        end
    end
    wire [2*XW-1:0]    f_pair  = {f_w1, f_w0} >> {f_sub, 3'b000};
    wire [4:0]         f_nb    = (ch_left_q >= EXT9) ? EXT5 : ch_left_q[4:0];
    reg  [XW-1:0]      f_d, f_m;
    always @(*) begin
        for (jf = 0; jf < EXT_BYTES; jf = jf + 1) begin
            f_d[XW-8-8*jf +: 8] = (jf < f_nb) ? f_pair[8*jf +: 8] : 8'd0;
            f_m[XW-8-8*jf +: 8] = (jf < f_nb) ? 8'hff : 8'h00;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            b_v_q <= 1'b0;
            c_v_q <= 1'b0;
        end else begin
            b_v_q <= ch_act_q;
            c_v_q <= b_v_q;
        end
        b_d_q <= f_d;
        b_m_q <= f_m;
        b_w_q <= ch_pbit_q[PW+1:XB];
        b_r_q <= ch_pbit_q[XB-1:0];
        c_d_q <= {b_d_q, {XW{1'b0}}} >> b_r_q;
        c_m_q <= {b_m_q, {XW{1'b0}}} >> b_r_q;
        c_w_q <= b_w_q;
    end

    // the engine's control
    always @(posedge clk) begin
        if (rst) begin
            e_q          <= E_IDLE;
            cyc_q        <= 8'd0;
            m_phv_tvalid <= 1'b0;
            ch_act_q     <= 1'b0;
            win_q        <= {8*HDR_BYTES{1'b0}};
            len_q        <= 9'd0;
            st_q         <= {SW{1'b0}};
            off_q        <= {QW{1'b0}};
            vis_q        <= 8'd0;
            key_q        <= {KW{1'b0}};
        end else begin
            if (m_phv_tvalid && m_phv_tready) begin
                m_phv_tvalid <= 1'b0;
            end
            // chunk generator
            if (ch_act_q) begin
                ch_addr_q <= ch_addr_q + EXTQ;
                ch_pbit_q <= ch_pbit_q + XWP;
                ch_left_q <= ch_left_q - EXT9;
                if (ch_left_q <= EXT9) ch_act_q <= 1'b0;
            end
            case (e_q)
                E_IDLE: begin
                    if (take) begin
                        win_q    <= cap_win_q;
                        len_q    <= cap_len_q;
                        st_q     <= init_q;
                        off_q    <= {QW{1'b0}};
                        vis_q    <= 8'd0;
                        cyc_q    <= 8'd0;
                        hvalid_q <= init_valid_q;
                        phv_q    <= {PHV_PAD{1'b0}};
                        for (ie = 0; ie < STACKS; ie = ie + 1) begin
                            stk_cnt_q[ie] <= 4'd0;
                            stk_phv_q[ie] <= stk_base_q[ie];
                            stk_vb_q[ie]  <= stk_vbase_q[ie];
                        end
                        e_q <= E_RUN;
                    end
                end
                E_RUN: begin
                    cyc_q <= cyc_q + 8'd1;
                    if (cyc_q == 8'd0) begin
                        timeout_q <= vis_q >= limit_q;
                    end
                    if (cyc_q == 8'd1) begin
                        // (pre_q: after the extraction; when it fails the outcome is its error,
                        // at off_q, and nothing reads pre_q)
                        stk_full_q <= stk_full;
                        ext_fits_q <= ext_fits;
                        ext_stk_q  <= r_ext_stk;
                        ext_sid_q  <= sid;
                        ext_phv_q  <= ext_phv;
                        ext_vb_q   <= ext_vb;
                        ext_code_q <= stk_full ? e_stack_q : e_pts_q;
                        pre_q      <= ext_end;
                        varlen_q   <= var_len;
                        last_q     <= (chunks > 9'd4) ? chunks[7:0] : 8'd4;
                    end
                    if (cyc_q == 8'd2) begin
                        ext_err_q <= r_ext_en && !timeout_q && !ext_ok;
                        if (ext_ok) begin
                            hvalid_q[ext_vb_q] <= 1'b1;
                            ch_act_q  <= 1'b1;
                            ch_addr_q <= off_q;
                            ch_pbit_q <= {2'b00, ext_phv_q};
                            ch_left_q <= {1'b0, r_ext_len};
                            if (ext_stk_q) begin
                                stk_cnt_q[ext_sid_q] <= stk_cnt_q[ext_sid_q] + 4'd1;
                                stk_phv_q[ext_sid_q] <= stk_phv_q[ext_sid_q] + stk_stride_q[ext_sid_q];
                                stk_vb_q[ext_sid_q]  <= stk_vb_q[ext_sid_q] + {{(VW-1){1'b0}}, 1'b1};
                            end
                        end
                    end
                    if (cyc_q == 8'd2) begin
                        key_q       <= key_d;
                        post_q      <= post;
                        adv_short_q <= post > len12;
                        la_short_q  <= la_short_d;
                    end
                    if (cyc_q == 8'd3) begin
                        m_hit_q  <= m_hit_d;
                        m_kind_q <= m_kind_d;
                        m_arg_q  <= m_arg_d;
                    end
                    if (cyc_q >= 8'd4 && cyc_q == last_q) begin
                        cyc_q <= 8'd0;
                        vis_q <= vis_q + 8'd1;
                        if (o_done) begin
                            // kept until E_OUT: the previous result may still wait on m_phv
                            res_err_q    <= o_err;
                            res_off_q    <= {{(16-QW){1'b0}}, o_off};
                            e_q          <= E_DRAIN;
                            cyc_q        <= 8'd1;
                        end else begin
                            st_q  <= o_arg[SW-1:0];
                            off_q <= post_q;
                        end
                    end
                end
                E_DRAIN: begin
                    cyc_q <= cyc_q + 8'd1;
                    if (cyc_q == 8'd4) begin
                        e_q <= E_OUT;
                    end
                end
                default: begin  // E_OUT
                    if (!m_phv_tvalid || m_phv_tready) begin
                        m_phv_tvalid <= 1'b1;
                        m_phv_data   <= phv_q[PHV_PAD-1 -: PHV_BITS];
                        m_phv_hvalid <= hvalid_q;
                        m_phv_error  <= res_err_q;
                        m_phv_offset <= res_off_q;
                        e_q          <= E_IDLE;
                    end
                end
            endcase
            // stage D: the PHV write (after a take's clear: the pipeline is empty then)
            if (c_v_q) begin
                for (ie = 0; ie < PHV_WORDS; ie = ie + 1) begin
                    if (c_w32 == ie) begin
                        phv_q[PHV_PAD-XW*ie-1 -: XW] <= (phv_q[PHV_PAD-XW*ie-1 -: XW] & ~c_m_q[2*XW-1 -: XW])
                                                      | c_d_q[2*XW-1 -: XW];
                    end
                    if (c_w32 + 1 == ie) begin
                        phv_q[PHV_PAD-XW*ie-1 -: XW] <= (phv_q[PHV_PAD-XW*ie-1 -: XW] & ~c_m_q[XW-1:0])
                                                      | c_d_q[XW-1:0];
                    end
                end
            end
        end
    end

    always @(posedge clk) begin
        if (e_q == E_RUN && cyc_q == 8'd0) begin
            row_q <= table_mem[st_q];
        end
    end

endmodule

`default_nettype wire
