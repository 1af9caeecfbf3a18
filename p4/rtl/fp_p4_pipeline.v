// fp_p4_pipeline: the P4 pipeline of seeds/004 assembled: parser (fp_p4_parser), STAGES
// match-action stages (fp_p4_stage: key, TCAM, action unit) and deparser (fp_p4_deparser), with
// the original packet waiting in a FIFO beside the header path. p4/pipeline_load.py maps a
// compiled program onto it (p4/docs/pipeline.md): one stage per table or conditional of the
// program's control flow in a topological order, a bridge stage between ingress and egress.
//
// The system region. The loader lays the program's PHV out so that its last SYS_BITS bits (the
// PHV's least significant bits) are the pipeline's own fields, at fixed positions, so that no
// variable shifter is needed to put packet facts in or take results out:
//   bits 15:0 ingress port (s_axis_tid at the packet's first beat), 47:16 parser_error (the
//   parser's code), 63:48 payload offset (bytes the parser consumed), 79:64 egress port (the
//   program's egress_spec, or egress_port on l2_switch), 95:80 multicast group (mcast_grp, or
//   mgid on l2_switch), 96 and up: the control flow's "reached" flags (the stages' gates).
// The parser never writes these bits (metadata); this block ORs the first three in between the
// parser and stage 0. After the last stage the deparser gets the PHV, the payload offset and
// drop (the last stage's egress == cfg_drop_value); the last beat of each packet that leaves
// carries m_axis_tdest = {multicast group, egress port} beside tuser (the bad flag): the traffic
// manager outside this block, which stores the packet anyway, replicates a multicast group
// other than 0.
//
// Latency:    the parser's (its m_axis 1 cycle; its PHV 10 + the path's state cycles after the
//             header window), STAGES * STAGE_LATENCY, then the deparser's (5 + c cycles after its
//             descriptor and first beat); p4/pipeline_load.py's `latency()` adds them up and the
//             tests assert it.
// Throughput: the parser's engine (one packet per 9 + sum of its states' cycles; 33 for
//             Ethernet + IPv4 + TCP) and the deparser's (one cycle per header chunk and per
//             payload beat); the stages take one packet per cycle. So one packet per parse
//             at most: fastpath bench p4 measures packets per cycle.
// Bad input:  as the parser (errors flow on in parser_error, the packet is kept) and the
//             deparser (bad frames keep tuser, dropped packets leave nothing and pulse
//             stat_drop). A packet longer than PKT_DEPTH beats beyond the header window cannot
//             stall anything (the FIFO drains as the deparser sends). Configuration writes go
//             to one block each (stage selects beyond STAGES are ignored).
// Parameters: DATA_WIDTH 64, 256 or 512; STAGES 1..32; PKT_DEPTH a power of two >= 2 header
//             windows of beats; the rest as fp_p4_parser, fp_p4_stage and fp_p4_deparser.
//             PHV_BITS >= 128 (the system region and the gates); VALID_BITS <= 64.
`default_nettype none

module fp_p4_pipeline #(
    parameter DATA_WIDTH    = 64,
    parameter KEEP_WIDTH    = DATA_WIDTH / 8,
    parameter USER_WIDTH    = 1,
    parameter PHV_BITS      = 512,
    parameter VALID_BITS    = 8,
    parameter STAGES        = 4,
    // parser
    parameter HDR_BYTES     = 128,
    parameter STATES        = 16,
    parameter KEY_BYTES     = 4,
    parameter TRANS         = 8,
    parameter STACKS        = 1,
    parameter EXT_BYTES     = 8,
    parameter ERR_WIDTH     = 8,
    // stages
    parameter DATA_BITS     = 128,
    parameter OPS           = 8,
    parameter ACTIONS       = 16,
    parameter TEMPS         = 2,
    parameter SLOTS         = 2,
    parameter SLOT_BITS     = 64,
    parameter BLOCKS        = 1,
    parameter BLOCK_ENTRIES = 32,
    parameter FIFO_DEPTH    = 32,
    parameter HASH_ENTRIES  = 0,
    parameter HASH_WAYS     = 4,
    // deparser
    parameter HDRS          = 8,
    parameter CSUMS         = 1,
    // packet FIFO
    parameter PKT_DEPTH     = 512,
    // derived
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

    input  wire [DATA_WIDTH-1:0]     s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]     s_axis_tkeep,
    input  wire                      s_axis_tvalid,
    output wire                      s_axis_tready,
    input  wire                      s_axis_tlast,
    input  wire [USER_WIDTH-1:0]     s_axis_tuser,
    input  wire [15:0]               s_axis_tid,

    output wire [DATA_WIDTH-1:0]     m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]     m_axis_tkeep,
    output wire                      m_axis_tvalid,
    input  wire                      m_axis_tready,
    output wire                      m_axis_tlast,
    output wire [USER_WIDTH-1:0]     m_axis_tuser,
    output wire [31:0]               m_axis_tdest,   // on the last beat, with tuser

    // configuration: parser, deparser, stages (registers, action programs, TCAM entries)
    input  wire                      prs_wr_valid,
    input  wire [15:0]               prs_wr_addr,
    input  wire [31:0]               prs_wr_data,
    input  wire                      dep_wr_en,
    input  wire [11:0]               dep_wr_addr,
    input  wire [31:0]               dep_wr_data,
    input  wire                      stg_wr_en,
    input  wire [4:0]                stg_wr_stage,
    input  wire [7:0]                stg_wr_addr,
    input  wire [31:0]               stg_wr_data,
    input  wire                      act_wr_en,
    input  wire [4:0]                act_wr_stage,
    input  wire [AID_WIDTH-1:0]      act_wr_action,
    input  wire [SLOT_WIDTH-1:0]     act_wr_slot,
    input  wire [OP_WIDTH-1:0]       act_wr_op,
    input  wire                      tcam_wr_en,
    input  wire [4:0]                tcam_wr_stage,
    input  wire [INDEX_WIDTH-1:0]    tcam_wr_index,
    input  wire                      tcam_wr_valid,
    input  wire [KEY_WIDTH-1:0]      tcam_wr_value,
    input  wire [KEY_WIDTH-1:0]      tcam_wr_mask,
    input  wire [AID_WIDTH+DATA_BITS-1:0] tcam_wr_action,
    output wire                      tcam_wr_bad,
    input  wire [SHIFT_WIDTH-1:0]    cfg_egress_shift,
    input  wire [4:0]                cfg_egress_width,
    input  wire [15:0]               cfg_drop_value,
    input  wire                      cfg_drop_en,

    output wire                      stat_drop
);

    generate
        if (STAGES < 1 || STAGES > 32) begin : g_bad_stages
            PARAMETER_ERROR_STAGES_must_be_1_to_32 u_error();
        end
        if (PHV_BITS < 128) begin : g_bad_phv_bits
            PARAMETER_ERROR_PHV_BITS_must_be_at_least_128 u_error();
        end
        if (PKT_DEPTH < 2 * HDR_BYTES / (DATA_WIDTH / 8) || (PKT_DEPTH & (PKT_DEPTH - 1)) != 0) begin : g_bad_pkt_depth
            PARAMETER_ERROR_PKT_DEPTH_must_be_a_power_of_two_of_two_windows u_error();
        end
    endgenerate

    // ---- ingress port of each packet, taken at its first beat -------------------------------
    wire        p_ready;
    reg         in_frame;
    wire        port_full;
    wire [15:0] port_head;
    wire        port_empty;
    wire        phv_take;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [4:0]  port_count;   // full is taken from the count's top bit
    /* verilator lint_on UNUSEDSIGNAL */
    wire        first_beat = s_axis_tvalid && s_axis_tready && !in_frame;

    assign port_full     = port_count[4];
    assign s_axis_tready = p_ready && !port_full;

    always @(posedge clk) begin
        if (rst) begin
            in_frame <= 1'b0;
        end else if (s_axis_tvalid && s_axis_tready) begin
            in_frame <= !s_axis_tlast;
        end
    end

    fp_fifo_fwft #(.WIDTH(16), .DEPTH(16), .HEAD_REG(1)) u_port (
        .clk      (clk),
        .rst      (rst),
        .push     (first_beat),
        .push_data(s_axis_tid),
        .pop      (phv_take),
        .head     (port_head),
        .empty    (port_empty),
        .count    (port_count)
    );

    // ---- parser ---------------------------------------------------------------------------------
    wire [DATA_WIDTH-1:0] pk_tdata;
    wire [KEEP_WIDTH-1:0] pk_tkeep;
    wire                  pk_tvalid, pk_tready, pk_tlast;
    wire [USER_WIDTH-1:0] pk_tuser;
    wire                  ph_valid;
    wire [PHV_BITS-1:0]   ph_data;
    wire [VALID_BITS-1:0] ph_hvalid;
    wire [ERR_WIDTH-1:0]  ph_error;
    wire [15:0]           ph_offset;
    wire [STAGES:0]       st_ready;      // stage g's input ready (STAGES: the deparser side)

    fp_p4_parser #(
        .DATA_WIDTH(DATA_WIDTH),
        .USER_WIDTH(USER_WIDTH),
        .HDR_BYTES (HDR_BYTES),
        .PHV_BITS  (PHV_BITS),
        .VALID_BITS(VALID_BITS),
        .STATES    (STATES),
        .KEY_BYTES (KEY_BYTES),
        .TRANS     (TRANS),
        .STACKS    (STACKS),
        .EXT_BYTES (EXT_BYTES),
        .ERR_WIDTH (ERR_WIDTH)
    ) u_parser (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (s_axis_tdata),
        .s_axis_tkeep (s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid && !port_full),
        .s_axis_tready(p_ready),
        .s_axis_tlast (s_axis_tlast),
        .s_axis_tuser (s_axis_tuser),
        .m_axis_tdata (pk_tdata),
        .m_axis_tkeep (pk_tkeep),
        .m_axis_tvalid(pk_tvalid),
        .m_axis_tready(pk_tready),
        .m_axis_tlast (pk_tlast),
        .m_axis_tuser (pk_tuser),
        .m_phv_tvalid (ph_valid),
        .m_phv_tready (st_ready[0] && !port_empty),
        .m_phv_data   (ph_data),
        .m_phv_hvalid (ph_hvalid),
        .m_phv_error  (ph_error),
        .m_phv_offset (ph_offset),
        .cfg_wr_valid (prs_wr_valid),
        .cfg_wr_addr  (prs_wr_addr),
        .cfg_wr_data  (prs_wr_data)
    );

    assign phv_take = ph_valid && st_ready[0] && !port_empty;

    // the system region's inputs, ORed into the bits the parser leaves at zero
    wire [31:0] err32 = {{(32 - ERR_WIDTH){1'b0}}, ph_error};
    wire [PHV_BITS-1:0] phv0 = ph_data | {{(PHV_BITS - 64){1'b0}}, ph_offset, err32, port_head};

    // ---- the packet FIFO ------------------------------------------------------------------------
    wire [DATA_WIDTH-1:0] pf_tdata;
    wire [KEEP_WIDTH-1:0] pf_tkeep;
    wire                  pf_tvalid, pf_tready, pf_tlast;
    wire [USER_WIDTH-1:0] pf_tuser;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [$clog2(PKT_DEPTH):0] pf_occupancy;
    wire                  pf_drop_bad, pf_drop_oversize;   // neither: DROP_BAD 0, no limit
    /* verilator lint_on UNUSEDSIGNAL */

    fp_axis_fifo #(
        .DATA_WIDTH(DATA_WIDTH),
        .USER_WIDTH(USER_WIDTH),
        .DEPTH     (PKT_DEPTH),
        .FRAME_MODE(0),
        .DROP_BAD  (0)
    ) u_pkt (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (pk_tdata),
        .s_axis_tkeep (pk_tkeep),
        .s_axis_tvalid(pk_tvalid),
        .s_axis_tready(pk_tready),
        .s_axis_tlast (pk_tlast),
        .s_axis_tuser (pk_tuser),
        .m_axis_tdata (pf_tdata),
        .m_axis_tkeep (pf_tkeep),
        .m_axis_tvalid(pf_tvalid),
        .m_axis_tready(pf_tready),
        .m_axis_tlast (pf_tlast),
        .m_axis_tuser (pf_tuser),
        .occupancy    (pf_occupancy),
        .drop_bad     (pf_drop_bad),
        .drop_oversize(pf_drop_oversize)
    );

    // ---- the stages -----------------------------------------------------------------------------
    // the chain, packed: link g is stage g's input (link STAGES: the deparser's)
    wire [STAGES:0]                  st_valid;
    wire [(STAGES+1)*PHV_BITS-1:0]   st_phv;
    wire [(STAGES+1)*VALID_BITS-1:0] st_hv;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [16*STAGES-1:0]             st_egress;   // the egress port is read from the PHV's system region
    wire [STAGES-1:0]                st_drop;     // only the last stage's drop counts
    /* verilator lint_on UNUSEDSIGNAL */
    wire [STAGES-1:0]                st_tcam_bad;

    assign st_valid[0]              = ph_valid && !port_empty;
    assign st_phv[0 +: PHV_BITS]    = phv0;
    assign st_hv[0 +: VALID_BITS]   = ph_hvalid;
    assign tcam_wr_bad = |st_tcam_bad;

    genvar g;
    generate
        for (g = 0; g < STAGES; g = g + 1) begin : g_stage
            fp_p4_stage #(
                .PHV_BITS     (PHV_BITS),
                .VALID_BITS   (VALID_BITS),
                .DATA_BITS    (DATA_BITS),
                .OPS          (OPS),
                .ACTIONS      (ACTIONS),
                .TEMPS        (TEMPS),
                .SLOTS        (SLOTS),
                .SLOT_BITS    (SLOT_BITS),
                .BLOCKS       (BLOCKS),
                .BLOCK_ENTRIES(BLOCK_ENTRIES),
                .FIFO_DEPTH   (FIFO_DEPTH),
                .GATE_BITS    (128),
                .HASH_ENTRIES (HASH_ENTRIES),
                .HASH_WAYS    (HASH_WAYS)
            ) u_stage (
                .clk             (clk),
                .rst             (rst),
                .in_valid        (st_valid[g]),
                .in_ready        (st_ready[g]),
                .in_phv          (st_phv[g*PHV_BITS +: PHV_BITS]),
                .in_hdr_valid    (st_hv[g*VALID_BITS +: VALID_BITS]),
                .out_valid       (st_valid[g+1]),
                .out_ready       (st_ready[g+1]),
                .out_phv         (st_phv[(g+1)*PHV_BITS +: PHV_BITS]),
                .out_hdr_valid   (st_hv[(g+1)*VALID_BITS +: VALID_BITS]),
                .out_egress      (st_egress[16*g +: 16]),
                .out_drop        (st_drop[g]),
                .cfg_wr_en       (stg_wr_en && stg_wr_stage == g),
                .cfg_wr_addr     (stg_wr_addr),
                .cfg_wr_data     (stg_wr_data),
                .act_wr_en       (act_wr_en && act_wr_stage == g),
                .act_wr_action   (act_wr_action),
                .act_wr_slot     (act_wr_slot),
                .act_wr_op       (act_wr_op),
                .tcam_wr_en      (tcam_wr_en && tcam_wr_stage == g),
                .tcam_wr_index   (tcam_wr_index),
                .tcam_wr_valid   (tcam_wr_valid),
                .tcam_wr_value   (tcam_wr_value),
                .tcam_wr_mask    (tcam_wr_mask),
                .tcam_wr_action  (tcam_wr_action),
                .tcam_wr_bad     (st_tcam_bad[g]),
                .cfg_egress_shift(cfg_egress_shift),
                .cfg_egress_width(cfg_egress_width),
                .cfg_drop_value  (cfg_drop_value),
                .cfg_drop_en     (cfg_drop_en)
            );
        end
    endgenerate

    // ---- the deparser and each packet's destination ---------------------------------------------
    // The destination {multicast group, egress port} of the k-th descriptor rides in the tuser of
    // the k-th packet's beats into the deparser, which hands the last beat's tuser to the output's
    // last beat: dropped and empty packets consume theirs, so nothing can fall out of step. A
    // packet's beats enter the deparser only while its destination is at the FIFO's head.
    wire        dp_ready;
    wire        dest_full;
    wire [31:0] dest_head;
    wire        dest_empty;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [4:0]  dest_count;
    /* verilator lint_on UNUSEDSIGNAL */
    wire        dp_take = st_valid[STAGES] && dp_ready && !dest_full;
    wire        dp_s_ready;
    wire        dp_in_end = pf_tvalid && pf_tready && pf_tlast;
    wire [USER_WIDTH+31:0] dp_user;

    assign dest_full        = dest_count[4];
    assign st_ready[STAGES] = dp_ready && !dest_full;
    assign pf_tready        = dp_s_ready && !dest_empty;

    fp_fifo_fwft #(.WIDTH(32), .DEPTH(16), .HEAD_REG(1)) u_dest (
        .clk      (clk),
        .rst      (rst),
        .push     (dp_take),
        .push_data(st_phv[STAGES*PHV_BITS+64 +: 32]),
        .pop      (dp_in_end),
        .head     (dest_head),
        .empty    (dest_empty),
        .count    (dest_count)
    );

    assign m_axis_tuser = dp_user[USER_WIDTH-1:0];
    assign m_axis_tdest = dp_user[USER_WIDTH+31:USER_WIDTH];

    fp_p4_deparser #(
        .DATA_WIDTH(DATA_WIDTH),
        .USER_WIDTH(USER_WIDTH + 32),
        .PHV_BITS  (PHV_BITS),
        .VALID_BITS(VALID_BITS),
        .HDRS      (HDRS),
        .CSUMS     (CSUMS)
    ) u_deparser (
        .clk          (clk),
        .rst          (rst),
        .phv_valid    (st_valid[STAGES] && !dest_full),
        .phv_ready    (dp_ready),
        .phv          (st_phv[STAGES*PHV_BITS +: PHV_BITS]),
        .phv_hdr_valid(st_hv[STAGES*VALID_BITS +: VALID_BITS]),
        .phv_payload  (st_phv[STAGES*PHV_BITS+48 +: 16]),
        .phv_drop     (st_drop[STAGES-1]),
        .s_axis_tdata (pf_tdata),
        .s_axis_tkeep (pf_tkeep),
        .s_axis_tvalid(pf_tvalid && !dest_empty),
        .s_axis_tready(dp_s_ready),
        .s_axis_tlast (pf_tlast),
        .s_axis_tuser ({dest_head, pf_tuser}),
        .m_axis_tdata (m_axis_tdata),
        .m_axis_tkeep (m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready),
        .m_axis_tlast (m_axis_tlast),
        .m_axis_tuser (dp_user),
        .cfg_wr_en    (dep_wr_en),
        .cfg_wr_addr  (dep_wr_addr),
        .cfg_wr_data  (dep_wr_data),
        .stat_drop    (stat_drop)
    );

endmodule

`default_nettype wire
