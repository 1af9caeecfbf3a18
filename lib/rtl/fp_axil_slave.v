// fp_axil_slave: AXI4-Lite slave protocol in front of a register map's decode.
//
// Does the bus side of a register block: the AW and W holding registers, the B channel, the AR
// holding register, a three-stage read path and the R channel. The register map (every generated
// fp_<name>_regs, or a hand-written block) supplies only the decode, through a register side:
//
//   Write, in two stages: reg_wr_start is high for one cycle per write, the cycle its address
//     and data enter stage 1 (the later of the AW and W handshakes, or later while stage 1 is
//     held), with reg_wr_start_addr (combinational, the word address: byte address bits
//     [ADDR_WIDTH-1:2]); a map registers its decode of that address there. reg_wr_en is high
//     for one cycle per write, the cycle it commits (stage 1, once the previous response is
//     taken), with reg_wr_addr, reg_wr_data and reg_wr_strb (stage 1's registers); the map
//     updates its registers at the clock edge that ends that cycle, and in that cycle gives
//     reg_wr_hit (the word is mapped: a decode of reg_wr_addr, a register), which the slave
//     samples at that edge for bresp.
//   Read, in three stages: reg_rd_start is high for one cycle per read, the cycle its address
//     enters stage 0, with reg_rd_start_addr (combinational: the AR handshake's address, or
//     the AR holding register's); a map registers its decode of that address there (one
//     select bit per word, so no address comparator is in the data path). reg_rd_en is high
//     for one cycle per read, the cycle it is served (stage 0 -> 1), with reg_rd_addr (stage
//     0's register). In that cycle the map returns, combinationally from its stage-0 decode
//     (or from reg_rd_addr), the word in READ_GROUPS 32-bit groups (reg_rd_data, group g at
//     [32*g +: 32]) with a hit bit per group (reg_rd_hit): the group holding the word drives it
//     and its hit bit; every other group drives 0 with its hit low. Stage 1 samples every
//     group into a register of its own at the edge that ends the serve cycle; stage 2 ORs the
//     groups into the R register. With no hit the data is ignored.
//     (A map with many words spread over the chip ORs them in groups near their sources, so no
//     single wide OR tree converges on one spot; see docs/registers.md.)
//
// Latency:    read 3 cycles: rvalid rises 3 cycles after the AR handshake when no earlier response
//             is waiting, with the data sampled in the cycle after the handshake (the read is
//             served: reg_rd_en). A read that finds stage 0 held by a read that cannot move on
//             (stages 1 and R full, rready low) waits in the AR holding register and starts in
//             the first cycle stage 0 frees.
//             Write 2 cycles: reg_wr_start is high in the cycle of the later of the AW and W
//             handshakes (either order, or together) when stage 1 is free, reg_wr_en in the next
//             once the previous response is taken (B free), and bvalid rises 1 cycle after it.
// Throughput: one read and one write per cycle, independently, while rready/bready are high.
//             All bus outputs come from flip-flops or from ready = !holding-register-full; no
//             register-side input reaches a bus output in the same cycle.
// Bad input:  an address no group hits (reads) or without reg_wr_hit (writes) is answered
//             SLVERR, a read with data 0 (reg_wr_en still pulses: the map decodes nothing there).
//             Address bits [1:0] are ignored: an access goes to its whole word, wstrb says
//             which bytes a write carries. awprot/arprot are not ports (ignored).
// Parameters: ADDR_WIDTH byte-address bits, 3..32; READ_GROUPS first-stage read groups, >= 1.
`default_nettype none

module fp_axil_slave #(
    parameter ADDR_WIDTH  = 12,
    parameter READ_GROUPS = 1
) (
    input  wire                      clk,
    input  wire                      rst,

    input  wire [ADDR_WIDTH-1:0]     s_axil_awaddr,
    input  wire                      s_axil_awvalid,
    output wire                      s_axil_awready,
    input  wire [31:0]               s_axil_wdata,
    input  wire [3:0]                s_axil_wstrb,
    input  wire                      s_axil_wvalid,
    output wire                      s_axil_wready,
    output wire [1:0]                s_axil_bresp,
    output wire                      s_axil_bvalid,
    input  wire                      s_axil_bready,
    input  wire [ADDR_WIDTH-1:0]     s_axil_araddr,
    input  wire                      s_axil_arvalid,
    output wire                      s_axil_arready,
    output wire [31:0]               s_axil_rdata,
    output wire [1:0]                s_axil_rresp,
    output wire                      s_axil_rvalid,
    input  wire                      s_axil_rready,

    output wire                      reg_wr_start,
    output wire [ADDR_WIDTH-3:0]     reg_wr_start_addr,
    output wire                      reg_wr_en,
    output wire [ADDR_WIDTH-3:0]     reg_wr_addr,
    output wire [31:0]               reg_wr_data,
    output wire [3:0]                reg_wr_strb,
    input  wire                      reg_wr_hit,
    output wire                      reg_rd_start,
    output wire [ADDR_WIDTH-3:0]     reg_rd_start_addr,
    output wire                      reg_rd_en,
    output wire [ADDR_WIDTH-3:0]     reg_rd_addr,
    input  wire [32*READ_GROUPS-1:0] reg_rd_data,
    input  wire [READ_GROUPS-1:0]    reg_rd_hit
);

    generate
        if (ADDR_WIDTH < 3 || ADDR_WIDTH > 32) begin : g_bad_addr_width
            PARAMETER_ERROR_ADDR_WIDTH_must_be_3_to_32 u_error();
        end
        if (READ_GROUPS < 1) begin : g_bad_read_groups
            PARAMETER_ERROR_READ_GROUPS_must_be_at_least_1 u_error();
        end
    endgenerate

    localparam [1:0] RESP_OKAY = 2'b00, RESP_SLVERR = 2'b10;

    // ---- Write channel, two stages: AW and W are taken in any order; each waits in a holding
    // register until the other has come. The write then starts (the map registers its decode of
    // the address) when stage 1 is free, and commits from stage 1 when B is free.
    reg                  aw_held_q, w_held_q, w1_valid_q, b_valid_q;
    reg [ADDR_WIDTH-1:0] aw_addr_q, w1_addr_q;
    reg [31:0]           w_data_q, w1_data_q;
    reg [3:0]            w_strb_q, w1_strb_q;
    reg [1:0]            b_resp_q;

    wire                  b_free   = !b_valid_q || s_axil_bready;
    wire                  wr_en    = w1_valid_q && b_free;
    wire                  wr_start = (aw_held_q || s_axil_awvalid) && (w_held_q || s_axil_wvalid)
                                     && (!w1_valid_q || wr_en);
    wire [ADDR_WIDTH-1:0] wr_addr  = aw_held_q ? aw_addr_q : s_axil_awaddr;

    assign s_axil_awready = !aw_held_q;
    assign s_axil_wready  = !w_held_q;
    assign s_axil_bvalid  = b_valid_q;
    assign s_axil_bresp   = b_resp_q;

    assign reg_wr_start      = wr_start;
    assign reg_wr_start_addr = wr_addr[ADDR_WIDTH-1:2];
    assign reg_wr_en         = wr_en;
    assign reg_wr_addr       = w1_addr_q[ADDR_WIDTH-1:2];
    assign reg_wr_data       = w1_data_q;
    assign reg_wr_strb       = w1_strb_q;

    always @(posedge clk) begin
        if (!aw_held_q) aw_addr_q <= s_axil_awaddr;
        if (!w_held_q) begin
            w_data_q <= s_axil_wdata;
            w_strb_q <= s_axil_wstrb;
        end
        if (wr_start) begin
            w1_addr_q <= wr_addr;
            w1_data_q <= w_held_q ? w_data_q : s_axil_wdata;
            w1_strb_q <= w_held_q ? w_strb_q : s_axil_wstrb;
        end
        if (wr_en) b_resp_q <= reg_wr_hit ? RESP_OKAY : RESP_SLVERR;
        if (rst) begin
            aw_held_q  <= 1'b0;
            w_held_q   <= 1'b0;
            w1_valid_q <= 1'b0;
            b_valid_q  <= 1'b0;
        end else begin
            if (wr_start) begin
                aw_held_q <= 1'b0;
                w_held_q  <= 1'b0;
            end else begin
                if (s_axil_awvalid) aw_held_q <= 1'b1;
                if (s_axil_wvalid) w_held_q <= 1'b1;
            end
            if (wr_start) w1_valid_q <= 1'b1;
            else if (wr_en) w1_valid_q <= 1'b0;
            if (wr_en) b_valid_q <= 1'b1;
            else if (s_axil_bready) b_valid_q <= 1'b0;
        end
    end

    // ---- Read channel, three stages. A read starts (the map registers its decode) when its
    // address enters stage 0, is served (the map's groups sampled) when it enters stage 1, and
    // stage 2 ORs the groups into the R register.
    reg                      ar_held_q, p0_valid_q, p1_valid_q, r_valid_q;
    reg [ADDR_WIDTH-1:0]     ar_addr_q, p0_addr_q;
    reg [32*READ_GROUPS-1:0] grp_q;
    reg [READ_GROUPS-1:0]    ghit_q;
    reg [31:0]               r_data_q;
    reg [1:0]                r_resp_q;
    reg [31:0]               p2_data;

    wire                  rd_adv2  = p1_valid_q && (!r_valid_q || s_axil_rready);
    wire                  rd_adv1  = p0_valid_q && (!p1_valid_q || rd_adv2);
    wire                  rd_start = (ar_held_q || s_axil_arvalid) && (!p0_valid_q || rd_adv1);
    wire [ADDR_WIDTH-1:0] rd_addr  = ar_held_q ? ar_addr_q : s_axil_araddr;
    wire                  p2_hit   = |ghit_q;

    assign s_axil_arready = !ar_held_q;
    assign s_axil_rvalid  = r_valid_q;
    assign s_axil_rdata   = r_data_q;
    assign s_axil_rresp   = r_resp_q;

    assign reg_rd_start      = rd_start;
    assign reg_rd_start_addr = rd_addr[ADDR_WIDTH-1:2];
    assign reg_rd_en         = rd_adv1;
    assign reg_rd_addr       = p0_addr_q[ADDR_WIDTH-1:2];

    // stage 2: the groups' OR (only the addressed group is non-zero)
    integer g;
    always @* begin
        p2_data = 32'd0;
        for (g = 0; g < READ_GROUPS; g = g + 1) p2_data = p2_data | grp_q[32*g +: 32];
    end

    always @(posedge clk) begin
        if (!ar_held_q) ar_addr_q <= s_axil_araddr;
        if (rd_start) p0_addr_q <= rd_addr;
        if (rd_adv1) begin
            grp_q  <= reg_rd_data;
            ghit_q <= reg_rd_hit;
        end
        if (rd_adv2) begin
            r_data_q <= p2_hit ? p2_data : 32'd0;
            r_resp_q <= p2_hit ? RESP_OKAY : RESP_SLVERR;
        end
        if (rst) begin
            ar_held_q  <= 1'b0;
            p0_valid_q <= 1'b0;
            p1_valid_q <= 1'b0;
            r_valid_q  <= 1'b0;
        end else begin
            if (rd_start) ar_held_q <= 1'b0;
            else if (s_axil_arvalid) ar_held_q <= 1'b1;
            if (rd_start) p0_valid_q <= 1'b1;
            else if (rd_adv1) p0_valid_q <= 1'b0;
            if (rd_adv1) p1_valid_q <= 1'b1;
            else if (rd_adv2) p1_valid_q <= 1'b0;
            if (rd_adv2) r_valid_q <= 1'b1;
            else if (s_axil_rready) r_valid_q <= 1'b0;
        end
    end

    // Address bits [1:0] select a byte within the word; accesses are whole words.
    wire unused = &{1'b0, wr_addr[1:0], w1_addr_q[1:0], rd_addr[1:0], p0_addr_q[1:0]};

endmodule

`default_nettype wire
