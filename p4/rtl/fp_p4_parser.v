// fp_p4_parser: the P4 pipeline's parser (seeds/004): ONE table-driven engine that walks a parse
// graph loaded at run time and fills the packet header vector (PHV) and its validity bits.
// "Full mode" (Ethernet, 3 VLAN, 3 MPLS, IPv4 with options, IPv6, UDP, TCP, VXLAN + inner
// Ethernet) is this engine loaded with a built-in graph; "byte mode" is any compiled program's
// graph (p4/parser_load.py writes both; datasheet p4/docs/parser.md).
//
// Data path. The packet passes through unchanged (s_axis -> fp_axis_register -> m_axis). Its
// first HDR_BYTES bytes (the window; fewer when the packet is shorter) are written into a LUT RAM
// of two windows; once the window is complete the engine parses it while the next packet's
// window is written into the other half. Per packet one result leaves on m_phv (valid/ready):
// the PHV (PHV_BITS, bit PHV_BITS-1 = PHV bit 0 of the compiler's layout, MSB first), the header
// validity vector, parser_error (the program's code) and the payload offset (bytes consumed).
// Results leave in packet order.
//
// Engine, per visited state (a row of the state table: block RAM). Every step is a register
// stage (for ECP5 at 125-156 MHz):
//   cw the row's read (its address registered by the previous state's outcome), and the previous
//   outcome's decision (goto: this state goes on; else the parse ends); cx the RAM's output
//   registered beside it; c0 the row, the visit limit; c1 offsets from the state's start (one
//   adder each: the loader stores them with the constant advance folded in), the stack bound and
//   "the header fits"; c2 the valid bit, the stack update and the extraction start. A state with a variable length reads the RAM word of
//   its byte in c2, takes the field in c3 (rotation, mask) and adds it in c4. Then K: the
//   KEY_BYTES key bytes (one RAM port each); M: which of the TRANS value/mask entries match;
//   O: the first matching entry (goto, accept, or a verify's error) or the default, registered
//   (the next row's address).
//   The extraction runs beside it, one PHV word (EXT_BYTES) per cycle from c3 on: RAM words and
//   mask, shift by bytes, then by bits to the word's bit offset, masked write of that PHV word.
//   Errors, as bmv2's parser: ParserTimeout (visit limit), StackOutOfBounds, PacketTooShort
//   (extract), a verify's error, PacketTooShort (advance, then lookahead), NoMatch.
//
// Latency:    m_phv: 10 + sum over the visited states of T(s) cycles from the beat that completes
//             the window (the beat holding byte HDR_BYTES-1, or tlast) to m_phv_tvalid, engine
//             idle and m_phv ready; T(s) = max(7, or 10 with a variable length; the PHV words the
//             extraction touches), so fixed per path through the graph (Ethernet + IPv4 + TCP:
//             10 + 24 = 34 cycles). m_axis: 1 cycle (fp_axis_register).
// Throughput: the stream: 1 beat per cycle while the engine keeps up. The engine: one packet per
//             9 + sum T(s) cycles (33 for Ethernet + IPv4 + TCP); a window waiting for the engine
//             stalls s_axis at the next packet's first beat.
// Bad input:  bad frames (tuser) are parsed and passed on unchanged. A packet shorter than what
//             the graph reads ends with PacketTooShort at the offset reached; loops end at the
//             visit limit with ParserTimeout. The loader guarantees that no read goes past the
//             window (window bytes past the packet's end are never used); a row never written
//             reads as garbage (load before traffic). Config writes to a state >= STATES or a
//             word >= the row's words are ignored.
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
    output reg  [PHV_BITS-1:0]   m_phv_data,   // (out_q's top bits)
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
    localparam XW   = 8 * EXT_BYTES;                  // extraction word (a PHV word), bits
    localparam XB   = $clog2(XW);
    localparam QW   = 12;                             // byte offsets (modulo 4096)
    // the window RAM: 64-bit words (byte 0 in the top bits), two windows (capture, engine)
    localparam NW   = HDR_BYTES / 8;                  // words per window
    localparam LNW  = $clog2(NW);
    localparam WA   = LNW + 1;                        // word address (window, word)
    localparam SBW  = WA + 6;                         // bit address in the RAM
    localparam NBW  = DB / 8;                         // words per beat
    localparam NFW  = (XW < 64) ? 2 : XW / 64 + 1;    // RAM words an extraction word spans
    localparam PHV_WORDS = (PHV_BITS + XW - 1) / XW;
    localparam PHV_PAD   = PHV_WORDS * XW;
    localparam CW   = PW + 1 - XB;                    // PHV word index bits
    localparam RW   = 13;                             // bits to a header's end (< 128 + 2040)
    // sized copies of the constants that meet registers (every parameter value, same widths)
    localparam [31:0]   HDR32 = HDR_BYTES;
    localparam [31:0]   STATES32 = STATES;
    // reset error codes (fastpath.p4.compiler.CORE_ERRORS) until the loader writes the program's
    localparam [31:0]   ERR_RESET_1 = 1, ERR_RESET_2 = 2, ERR_RESET_3 = 3, ERR_RESET_5 = 5;
    localparam [31:0]   DB32  = DB;
    localparam [31:0]   XW32  = XW;
    localparam [8:0]    HDR9  = HDR32[8:0];
    localparam [9:0]    HDR10 = HDR32[9:0];
    localparam [9:0]    DB10  = DB32[9:0];
    localparam [RW-1:0] XWR   = XW32[RW-1:0];
    localparam [SBW-1:0] XWS  = XW32[SBW-1:0];

    // row layout, LSB first (p4/parser_load.py packs the same)
    localparam R_EXT_EN  = 0;
    localparam R_EXT_STK = 1;
    localparam R_EXT_SID = 2;
    localparam R_EXT_LEN = R_EXT_SID + SKW;
    localparam R_EXT_PHV = R_EXT_LEN + 8;
    localparam R_EXT_VB  = R_EXT_PHV + PW;
    localparam R_POST    = R_EXT_VB + VW;             // after the advance, less the variable part
    localparam R_VAR_EN  = R_POST + QW;
    localparam R_VAR_OFF = R_VAR_EN + 1;
    localparam R_VAR_SHR = R_VAR_OFF + 9;
    localparam R_VAR_MSK = R_VAR_SHR + 3;
    localparam R_VAR_SHL = R_VAR_MSK + 8;
    localparam R_KB      = R_VAR_SHL + 3;
    localparam KBW       = QW + 2;                    // key byte: offset, + variable length, lookahead
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
    (* ram_style = "block", no_rw_check *)
    reg [ROW_BITS-1:0]     table_mem [0:STATES-1];
    reg [ROW_BITS-1:0]     table_q;     // the block RAM's read register
    reg [ROW_BITS-1:0]     table2_q;    // its copy
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
    reg  [SW-1:0] rd_q;                           // the state row read next (engine)

    // one loop variable per always block (a variable shared by blocks would have several drivers)
    integer iw, ig, ib, ic, ik, it, iv, jf, ie, ia, ja, jt, jk, jh, jc, jo, jp, jw;

    // the state table: block RAM, written whole by a commit, read into table_q every cycle (in
    // its own block: a read colliding with a commit may return either row, so that synthesis
    // adds no bypass logic after the RAM)
    always @(posedge clk) begin
        if (cfg_tab && cfg_word == 6'd63 && {23'd0, cfg_state} < STATES32) begin
            table_mem[cfg_state[SW-1:0]] <= stage_q[ROW_BITS-1:0];
        end
    end
    always @(posedge clk) begin
        table_q <= table_mem[rd_q];
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
    reg                  cap_buf_q;     // the RAM window being captured (the engine reads the other)
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

    // (cap_cnt_q is a multiple of DB inside the window, so a last beat ends inside it too)
    wire       cap_end  = {1'b0, cap_cnt_q} >= HDR10 - DB10;    // this beat completes the window
    wire [8:0] cap_step = cap_cnt_q + DB10[8:0];

    // the window RAM (LUT RAM, asynchronous reads): word {window, byte offset / 8}, packet byte
    // 8w + k at bits 63-8k..56-8k, so that the RAM is a bit stream MSB first
    reg  [63:0]   win_mem [0:2*NW-1];
    wire [WA-1:0] cap_wa = {cap_buf_q, cap_cnt_q[HW-1:3]};

    wire [DATA_WIDTH-1:0] cap_swap;   // each 64-bit word of the beat with its bytes reversed
    genvar gc;
    generate
        for (gc = 0; gc < DB; gc = gc + 1) begin : g_swap
            assign cap_swap[64*(gc/8) + 56 - 8*(gc%8) +: 8] = s_axis_tdata[8*gc +: 8];
        end
    endgenerate

    always @(posedge clk) begin
        if (beat && in_win) begin
            for (ic = 0; ic < NBW; ic = ic + 1) begin
                win_mem[cap_wa + ic[WA-1:0]] <= cap_swap[64*ic +: 64];
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            cap_full_q <= 1'b0;
            cap_cnt_q  <= 9'd0;
            cap_len_q  <= 9'd0;
            cap_buf_q  <= 1'b0;
        end else begin
            if (take) begin
                cap_full_q <= 1'b0;
                cap_buf_q  <= !cap_buf_q;
            end
            if (beat) begin
                if (in_win) begin
                    if (s_axis_tlast || cap_end) begin
                        cap_full_q <= 1'b1;
                        cap_len_q  <= s_axis_tlast ? cap_cnt_q + {1'b0, beat_bytes} : HDR9;
                    end
                end
                if (s_axis_tlast) begin
                    cap_cnt_q <= 9'd0;
                end else if (in_win) begin
                    cap_cnt_q <= cap_step;
                end
            end
        end
    end
    // ---- engine -----------------------------------------------------------------------------
    localparam [1:0] E_IDLE = 2'd0, E_RUN = 2'd1, E_DRAIN = 2'd2, E_OUT = 2'd3;

    reg  [1:0]             e_q;
    reg  [ERR_WIDTH-1:0]   res_err_q;    // the finished packet's parser_error and payload offset,
    reg  [15:0]            res_off_q;    // to m_phv with its PHV in E_OUT
    reg  [7:0]             cyc_q;        // cycle within the state (c0..), or drain count
    reg  [7:0]             last_q;       // the state's last cycle (its outcome)
    reg                    buf_q;        // the RAM window being parsed
    reg  [8:0]             len_q;
    reg  [QW-1:0]          off_q;        // the state's start
    reg  [QW-1:0]          room_q;       // len_q - off_q
    reg  [7:0]             vis_q;        // states visited before this one
    reg  [ROW_BITS-1:0]    row_q;        // the state's row (table_q a cycle later: c1 ..)
    reg  [3:0]             stk_cnt_q  [0:STACKS-1];
    reg  [PW-1:0]          stk_phv_q  [0:STACKS-1];
    reg  [VW-1:0]          stk_vb_q   [0:STACKS-1];
    reg  [VALID_BITS-1:0]  hvalid_q;
    reg  [PHV_PAD-1:0]     phv_q;        // word w at bits PHV_PAD-1-XW*w downto PHV_PAD-XW*(w+1)

    // the state's registered intermediate results
    reg                    timeout_q, ext_stk_q, ext_err_q;
    reg                    adv_short_q, la_short_q;
    reg  [SKW-1:0]         ext_sid_q;
    reg  [PW-1:0]          ext_phv_q;
    reg  [VW-1:0]          ext_vb_q;
    reg  [ERR_WIDTH-1:0]   ext_code_q;
    reg  [RW-1:0]          rem0_q;       // bits from the first PHV word's start to the header's end
    reg  [QW-1:0]          pre_q;        // after the extraction
    reg  [QW-1:0]          post_q;       // after the advance (its constant part until c4)
    reg  [QW-1:0]          kb0_q;        // key byte 0's offset while port 0 reads the length byte
    reg  [5:0]             vsel_q;       // the length field's bit position in the word read
    reg  [QW-1:0]          vmsk_q;       // mask << shl
    reg  [QW-1:0]          fld_q;        // the variable part: ((byte >> shr) & mask) << shl
    reg  [QW*KEY_BYTES-1:0] ka_q;        // key byte k's offset (port 0: the length byte first)
    reg  [63:0]            vword_q;      // the RAM word holding the length byte
    reg  [KW-1:0]          key_q;
    reg  [TRANS-1:0]       hits;         // entry t matches

    assign take = (e_q == E_IDLE) && cap_full_q;
    wire   out_ce = (e_q == E_OUT) && (!m_phv_tvalid || m_phv_tready);  // the result is registered

    // row fields
    wire               r_ext_en  = row_q[R_EXT_EN];
    wire               r_ext_stk = row_q[R_EXT_STK];
    wire [SKW-1:0]     r_ext_sid = row_q[R_EXT_SID +: SKW];
    wire [7:0]         r_ext_len = row_q[R_EXT_LEN +: 8];
    wire [PW-1:0]      r_ext_phv = row_q[R_EXT_PHV +: PW];
    wire [VW-1:0]      r_ext_vb  = row_q[R_EXT_VB +: VW];
    wire [QW-1:0]      r_post    = row_q[R_POST +: QW];
    wire               r_var_en  = row_q[R_VAR_EN];
    wire [8:0]         r_var_off = row_q[R_VAR_OFF +: 9];
    wire [2:0]         r_var_shr = row_q[R_VAR_SHR +: 3];
    wire [7:0]         r_var_msk = row_q[R_VAR_MSK +: 8];
    wire [2:0]         r_var_shl = row_q[R_VAR_SHL +: 3];
    wire [1:0]         r_def_k   = row_q[R_DEF +: 2];
    wire [AW-1:0]      r_def_a   = row_q[R_DEF + 2 +: AW];

    // the schedule (cyc_q: cw 0, cx 1, c0 2, ..): cw row read, c0 row, c1 offsets and checks, c2 the
    // extraction starts; with a variable length c2 reads its word, c3 takes the field, c4 adds
    // it; then K key bytes, M matches, O outcome (at last_q: 6, 9 or later)
    reg  [8:0]         ph_q;         // one-hot: the state's cycle (E_RUN): cw, cx, c0 .. c6
    reg                o_do_q;       // the next cycle is the outcome's (cyc_q + 1 == last_q)
    wire               cw    = ph_q[0];
    wire               c0    = ph_q[2];
    wire               c1    = ph_q[3];
    wire               c2    = ph_q[4];
    wire               c3    = ph_q[5];
    wire               c4    = ph_q[6];
    wire               c5    = ph_q[7];
    wire               c6    = ph_q[8];
    wire               k_do  = r_var_en ? c5 : c2;
    wire               m_do  = r_var_en ? c6 : c3;
    wire               o_do  = o_do_q;

    wire [SKW-1:0]     sid       = (STACKS > 1) ? r_ext_sid : {SKW{1'b0}};
    wire [PW-1:0]      ext_phv   = r_ext_stk ? stk_phv_q[sid] : r_ext_phv;
    wire [VW-1:0]      ext_vb    = r_ext_stk ? stk_vb_q[sid] : r_ext_vb;
    wire               stk_full  = r_ext_stk && (stk_cnt_q[sid] >= stk_size_q[sid]);
    wire               ext_fits  = {{(QW-8){1'b0}}, r_ext_len} <= room_q;
    reg                ext_ok_q;     // c1: the extraction happens
    reg  [PW-1:0]      stk_phv_n_q;  // c1: the stack's pointers after it
    reg  [VW-1:0]      stk_vb_n_q;
    reg  [3:0]         stk_cnt_n_q;
    wire [QW-1:0]      len12     = {{(QW-9){1'b0}}, len_q};
    wire [QW-1:0]      var_at    = off_q + {{(QW-9){r_var_off[8]}}, r_var_off};
    wire [2:0]         var_byte  = off_q[2:0] + r_var_off[2:0];
    // the field's lowest bit in the 64-bit word: byte k is bits 63-8k..56-8k
    wire [5:0]         vsel      = 6'd56 - {var_byte, 3'b000} + {3'b000, r_var_shr} - {3'b000, r_var_shl};
    wire [QW-1:0]      vmsk      = {{(QW-8){1'b0}}, r_var_msk} << r_var_shl;
    wire [RW-1:0]      rem0      = {{(RW-XB){1'b0}}, ext_phv[XB-1:0]} + {{(RW-11){1'b0}}, r_ext_len, 3'b000};
    wire [RW-1:0]      rem0_m1   = rem0_q - {{(RW-1){1'b0}}, 1'b1};
    /* verilator lint_off UNUSEDSIGNAL */
    wire [RW-1:0]      nw_m1     = rem0_m1 >> XB;   // the extraction's PHV words - 1
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [7:0]         nw_last;      // c2: the extraction's PHV words - 1 (0 without one)
    wire [7:0]         base_last = r_var_en ? 8'd9 : 8'd6;

    // window RAM reads: the key ports (port 0 reads the length byte first)
    wire [64*KEY_BYTES-1:0] kword;
    genvar gk;
    generate
        for (gk = 0; gk < KEY_BYTES; gk = gk + 1) begin : g_kport
            assign kword[64*gk +: 64] = win_mem[{buf_q, ka_q[QW*gk + 3 +: LNW]}];
        end
    endgenerate
    // (the rotation's low QW bits are the field; synthesis keeps only those)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [127:0]       vrot = {vword_q, vword_q} >> vsel_q;
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [KW-1:0]      key_d;
    reg                la_short_d;
    always @(*) begin
        key_d      = {KW{1'b0}};
        la_short_d = 1'b0;
        for (ik = 0; ik < KEY_BYTES; ik = ik + 1) begin
            key_d[KW-8-8*ik +: 8] = kword[64*ik + 56 - 8*ka_q[QW*ik +: 3] +: 8];
            if (row_q[R_KB + KBW*ik + QW + 1] && ka_q[QW*ik +: QW] >= len12) la_short_d = 1'b1;
        end
    end

    // M: which entries match, byte by byte (value is stored masked); an unused entry never
    reg  [TRANS*KEY_BYTES-1:0] bm_d;
    always @(*) begin
        for (jt = 0; jt < TRANS; jt = jt + 1) begin
            for (jk = 0; jk < KEY_BYTES; jk = jk + 1) begin
                bm_d[KEY_BYTES*jt + jk] = ((key_q[8*jk +: 8] ^ row_q[R_TR + TRW*jt + 2 + AW + 8*jk +: 8])
                                           & row_q[R_TR + TRW*jt + 2 + AW + KW + 8*jk +: 8]) == 8'd0;
            end
            if (row_q[R_TR + TRW*jt +: 2] == K_NONE) bm_d[KEY_BYTES*jt] = 1'b0;
        end
    end

    reg  [TRANS-1:0]   hits_d;
    always @(*) begin
        for (jh = 0; jh < TRANS; jh = jh + 1) begin
            hits_d[jh] = &bm_d[KEY_BYTES*jh +: KEY_BYTES];
        end
    end

    // O: the first matching entry (one-hot), the outcome
    reg  [TRANS-1:0]   first;
    reg  [1:0]         m_kind;
    reg  [AW-1:0]      m_arg;
    always @(*) begin
        m_kind = K_NONE;
        m_arg  = {AW{1'b0}};
        for (it = 0; it < TRANS; it = it + 1) begin
            first[it] = hits[it];
            for (ia = 0; ia < it; ia = ia + 1) begin
                if (hits[ia]) first[it] = 1'b0;
            end
            if (first[it]) begin
                m_kind = m_kind | row_q[R_TR + TRW*it +: 2];
                m_arg  = m_arg | row_q[R_TR + TRW*it + 2 +: AW];
            end
        end
    end
    wire               m_hit   = |hits;
    wire [1:0]         o_kind  = m_hit ? m_kind : r_def_k;
    // a goto uses the argument's low SW bits (it is ERR_WIDTH wide for verify errors)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [AW-1:0]      o_arg   = m_hit ? m_arg : r_def_a;
    /* verilator lint_on UNUSEDSIGNAL */
    // O registers the match and the next row's address; the next cycle (the next state's cw,
    // begun in case it is a goto) decides: the next state, or the end with an error or accept
    reg                dec_q;        // cw decides the previous state's outcome
    reg                vhit_q;       // the first match is a verify's
    reg  [1:0]         o_kind_q;
    reg  [AW-1:0]      o_arg_q;
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
        end else if (vhit_q) begin
            o_err = o_arg_q[ERR_WIDTH-1:0];
            o_off = pre_q;
        end else if (adv_short_q) begin
            o_err = e_pts_q;
            o_off = pre_q;
        end else if (la_short_q) begin
            o_err = e_pts_q;
        end else if (o_kind_q == K_GOTO) begin
            o_done = 1'b0;
        end else if (o_kind_q != K_ACCEPT) begin
            o_err = e_nomatch_q;
        end
    end

    // the extraction, one PHV word per cycle: chunk generator (G) -> RAM words and mask (F1)
    // -> shift by bytes (FB) -> by bits (F2) -> masked write of the PHV word (F3)
    reg                ch_act_q, ch_first_q;
    reg  [SBW-1:0]     ch_s_q;       // the stream bit (RAM window included) of the word's bit 0
    reg  [WA*NFW-1:0]  ch_a_q;       // the RAM words it spans: ch_s_q / 64 + i
    reg  [SBW-1:0]     s0_q;         // c1: the first word's ch_s_q
    reg  [RW-1:0]      ch_rem_q;     // bits from the word's start to the header's end
    reg  [XB-1:0]      ch_r_q;       // the header's first bit in the first word
    reg  [CW-1:0]      ch_w_q;
    reg                f1_v_q, fb_v_q, f2_v_q;
    reg  [64*NFW-1:0]  f1_d_q;       // the RAM words
    reg  [5:0]         f1_sh_q;
    reg  [XW+7:0]      fb_d_q;       // shifted by whole bytes
    reg  [2:0]         fb_sh_q;      // then by bits
    reg  [XW-1:0]      f1_m_q, fb_m_q, f2_d_q, f2_m_q;
    reg  [CW-1:0]      f1_w_q, fb_w_q, f2_w_q;
    wire [31:0]        f2_w32 = {{(32-CW){1'b0}}, f2_w_q};
    // per word, the RAM words advance by XW / 64 (a 32-bit word: by 1 every other word)
    wire [WA-1:0]      a_inc  = (XW >= 64) ? XW32[WA+5:6] : {{(WA-1){1'b0}}, ch_s_q[5]};

    wire [64*NFW-1:0]  f_words;
    genvar gf;
    generate
        for (gf = 0; gf < NFW; gf = gf + 1) begin : g_fport
            assign f_words[64*(NFW-1-gf) +: 64] = win_mem[ch_a_q[WA*gf +: WA]];
        end
    endgenerate
    reg  [XW-1:0]      f_mask;
    always @(*) begin
        for (jf = 0; jf < XW; jf = jf + 1) begin
            f_mask[XW-1-jf] = (!ch_first_q || jf >= ch_r_q) && jf < ch_rem_q;
        end
    end
    // (the shifted words' top bits are the PHV word; synthesis keeps only those)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [64*NFW-1:0]  f_bytes   = f1_d_q << {f1_sh_q[5:3], 3'b000};
    wire [XW+7:0]      f_shifted = fb_d_q << fb_sh_q;
    /* verilator lint_on UNUSEDSIGNAL */

    always @(posedge clk) begin
        if (rst) begin
            f1_v_q <= 1'b0;
            fb_v_q <= 1'b0;
            f2_v_q <= 1'b0;
        end else begin
            f1_v_q <= ch_act_q;
            fb_v_q <= f1_v_q;
            f2_v_q <= fb_v_q;
        end
        f1_d_q  <= f_words;
        f1_sh_q <= ch_s_q[5:0];
        f1_m_q  <= f_mask;
        f1_w_q  <= ch_w_q;
        fb_d_q  <= f_bytes[64*NFW-1 -: XW+8];
        fb_sh_q <= f1_sh_q[2:0];
        fb_m_q  <= f1_m_q;
        fb_w_q  <= f1_w_q;
        f2_d_q  <= f_shifted[XW+7 -: XW] & fb_m_q;
        f2_m_q  <= fb_m_q;
        f2_w_q  <= fb_w_q;
    end

    // the engine's control
    always @(posedge clk) begin
        if (rst) begin
            e_q          <= E_IDLE;
            cyc_q        <= 8'd0;
            ph_q         <= 9'd0;
            o_do_q       <= 1'b0;
            m_phv_tvalid <= 1'b0;
            ch_act_q     <= 1'b0;
        end else begin
            if (m_phv_tvalid && m_phv_tready) begin
                m_phv_tvalid <= 1'b0;
            end
            // chunk generator
            if (ch_act_q) begin
                ch_s_q     <= ch_s_q + XWS;
                for (ja = 0; ja < NFW; ja = ja + 1) begin
                    ch_a_q[WA*ja +: WA] <= ch_a_q[WA*ja +: WA] + a_inc;
                end
                ch_rem_q   <= ch_rem_q - XWR;
                ch_w_q     <= ch_w_q + {{(CW-1){1'b0}}, 1'b1};
                ch_first_q <= 1'b0;
                if (ch_rem_q <= XWR) ch_act_q <= 1'b0;
            end
            case (e_q)
                E_IDLE: begin
                    if (take) begin
                        buf_q    <= cap_buf_q;
                        len_q    <= cap_len_q;
                        off_q    <= {QW{1'b0}};
                        vis_q    <= 8'd0;
                        cyc_q    <= 8'd0;
                        ph_q     <= 9'd1;
                        dec_q    <= 1'b0;
                        rd_q     <= init_q;
                        hvalid_q <= init_valid_q;
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
                    ph_q  <= {ph_q[7:0], 1'b0};
                    // (last_q is set in c3: the outcome in c4 is decided there from nw_last)
                    o_do_q <= c3 ? (!r_var_en && nw_last <= 8'd6) : (cyc_q >= 8'd6 && cyc_q + 8'd1 == last_q);
                    if (c2 && ext_ok_q) begin
                        hvalid_q[ext_vb_q] <= 1'b1;
                        ch_act_q   <= 1'b1;
                        ch_first_q <= 1'b1;
                        ch_s_q     <= s0_q;
                        for (ja = 0; ja < NFW; ja = ja + 1) begin
                            ch_a_q[WA*ja +: WA] <= s0_q[SBW-1:6] + ja[WA-1:0];
                        end
                        ch_rem_q   <= rem0_q;
                        ch_r_q     <= ext_phv_q[XB-1:0];
                        ch_w_q     <= {1'b0, ext_phv_q[PW-1:XB]};
                        if (ext_stk_q) begin
                            stk_cnt_q[ext_sid_q] <= stk_cnt_n_q;
                            stk_phv_q[ext_sid_q] <= stk_phv_n_q;
                            stk_vb_q[ext_sid_q]  <= stk_vb_n_q;
                        end
                    end
                    if (o_do) begin
                        cyc_q    <= 8'd0;
                        ph_q     <= 9'd1;
                        o_do_q   <= 1'b0;
                        rd_q     <= o_arg[SW-1:0];
                        vis_q    <= vis_q + 8'd1;
                        dec_q    <= 1'b1;
                        vhit_q   <= m_hit && m_kind == K_VERIFY;
                        o_kind_q <= o_kind;
                        o_arg_q  <= o_arg;
                    end
                    if (cw && dec_q) begin
                        dec_q <= 1'b0;
                        if (o_done) begin
                            // kept until E_OUT: the previous result may still wait on m_phv
                            res_err_q    <= o_err;
                            res_off_q    <= {{(16-QW){1'b0}}, o_off};
                            e_q          <= E_DRAIN;
                            cyc_q        <= 8'd1;
                            ph_q         <= 9'd0;
                        end else begin
                            off_q <= post_q;
                        end
                    end
                end
                E_DRAIN: begin
                    cyc_q <= cyc_q + 8'd1;
                    if (cyc_q == 8'd6) begin
                        e_q <= E_OUT;
                    end
                end
                default: begin  // E_OUT
                    if (out_ce) begin
                        m_phv_tvalid <= 1'b1;
                        m_phv_hvalid <= hvalid_q;
                        m_phv_error  <= res_err_q;
                        m_phv_offset <= res_off_q;
                        e_q          <= E_IDLE;
                    end
                end
            endcase
        end
    end

    // the PHV: F3 writes; a word not yet written in this packet counts as 0 (wr_q, cleared when
    // a window is taken: a clear of the whole PHV would fan out to every PHV flip-flop)
    reg  [PHV_WORDS-1:0] wr_q;
    reg  [PHV_PAD-1:0]   phv_cur;
    always @(*) begin
        for (jc = 0; jc < PHV_WORDS; jc = jc + 1) begin
            phv_cur[PHV_PAD-XW*jc-1 -: XW] = wr_q[jc] ? phv_q[PHV_PAD-XW*jc-1 -: XW] : {XW{1'b0}};
        end
    end
    // the result's PHV: a word not written is a synchronous reset (one gate per word, not per bit)
    // (its bits below PHV_PAD-PHV_BITS pad the last word: never output)
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [PHV_PAD-1:0]   out_q;
    /* verilator lint_on UNUSEDSIGNAL */
    always @(posedge clk) begin
        for (jo = 0; jo < PHV_WORDS; jo = jo + 1) begin
            if (out_ce && !wr_q[jo]) begin
                out_q[PHV_PAD-XW*jo-1 -: XW] <= {XW{1'b0}};
            end else if (out_ce) begin
                out_q[PHV_PAD-XW*jo-1 -: XW] <= phv_q[PHV_PAD-XW*jo-1 -: XW];
            end
        end
    end
    always @(*) begin
        m_phv_data = out_q[PHV_PAD-1 -: PHV_BITS];
    end
    always @(posedge clk) begin
        for (jp = 0; jp < PHV_WORDS; jp = jp + 1) begin
            if (f2_v_q && f2_w32 == jp) begin
                phv_q[PHV_PAD-XW*jp-1 -: XW] <= (phv_cur[PHV_PAD-XW*jp-1 -: XW] & ~f2_m_q) | f2_d_q;
            end
        end
    end
    always @(posedge clk) begin
        if (take) begin
            wr_q <= {PHV_WORDS{1'b0}};
        end else if (f2_v_q) begin
            for (jw = 0; jw < PHV_WORDS; jw = jw + 1) begin
                if (f2_w32 == jw) wr_q[jw] <= 1'b1;
            end
        end
    end

    // the state's pipeline registers (no reset: each is written before it is read)
    always @(posedge clk) begin
        room_q <= len12 - ((cw && dec_q) ? post_q : off_q);
        // table_q holds the state's row from cx to the next cw (its address changes at O only),
        // so row_q, two registers later (the first beside the RAM: its output is slow), holds it
        // from c1 to the next c0: no enable
        table2_q <= table_q;
        row_q    <= table2_q;
        if (c0) begin
            timeout_q <= vis_q >= limit_q;
        end
        if (c1) begin
            // (pre_q: after the extraction; when it fails the outcome is its error, at off_q,
            // and nothing reads pre_q)
            ext_ok_q   <= r_ext_en && !timeout_q && !stk_full && ext_fits;
            stk_cnt_n_q <= stk_cnt_q[sid] + 4'd1;
            stk_phv_n_q <= stk_phv_q[sid] + stk_stride_q[sid];
            stk_vb_n_q  <= stk_vb_q[sid] + {{(VW-1){1'b0}}, 1'b1};
            ext_stk_q  <= r_ext_stk;
            ext_sid_q  <= sid;
            ext_phv_q  <= ext_phv;
            ext_vb_q   <= ext_vb;
            ext_code_q <= stk_full ? e_stack_q : e_pts_q;
            rem0_q     <= r_ext_en ? rem0 : {RW{1'b0}};
            s0_q       <= {buf_q, off_q[HW-1:0], 3'b000} - {{(SBW-XB){1'b0}}, ext_phv[XB-1:0]};
            pre_q      <= off_q + {{(QW-8){1'b0}}, r_ext_len};
            post_q     <= off_q + r_post;
            kb0_q      <= off_q + row_q[R_KB +: QW];
            vsel_q     <= vsel;
            vmsk_q     <= vmsk;
            for (iv = 0; iv < KEY_BYTES; iv = iv + 1) begin
                ka_q[QW*iv +: QW] <= off_q + row_q[R_KB + KBW*iv +: QW];
            end
            if (r_var_en) ka_q[QW-1:0] <= var_at;
        end
        if (c2) begin
            ext_err_q <= r_ext_en && !timeout_q && !ext_ok_q;
            nw_last   <= (rem0_q == {RW{1'b0}}) ? 8'd0 : nw_m1[7:0];
        end
        if (c3) begin
            last_q    <= (r_var_en ? nw_last > 8'd9 : nw_last > 8'd6) ? nw_last : base_last;
        end
        if (c3 && r_var_en) begin
            fld_q     <= vrot[QW-1:0] & vmsk_q;
        end
        if (c4 && r_var_en) begin
            post_q <= post_q + fld_q;
            ka_q[QW-1:0] <= kb0_q + (row_q[R_KB + QW] ? fld_q : {QW{1'b0}});
            for (iv = 1; iv < KEY_BYTES; iv = iv + 1) begin
                if (row_q[R_KB + KBW*iv + QW]) ka_q[QW*iv +: QW] <= ka_q[QW*iv +: QW] + fld_q;
            end
        end
        if (c2 && r_var_en) begin
            vword_q     <= kword[63:0];
        end
        if (k_do) begin
            key_q       <= key_d;
            adv_short_q <= post_q > len12;
            la_short_q  <= la_short_d;
        end
        if (m_do) begin
            hits        <= hits_d;
        end
    end

endmodule

`default_nettype wire
