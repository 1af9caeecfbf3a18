// fp_fifo_fwft: first-word-fall-through FIFO on a fp_ram_sdp with push/pop ports: the oldest entry
// is always on `head` (while `empty` is low) and a pop takes it. Used by fp_node_buffer (free list,
// output queues of packet heads, per-datapath output buffers), fp_node_wbuf, fp_node_wtx and the
// p4 pipeline.
//
// HEAD_REG = 0: the RAM is read every cycle at the address of the head after this cycle's pop
// ("read ahead"), so `head` is the oldest entry in every cycle in which `empty` is low, and one
// push and one pop may happen in every cycle. A push into a FIFO that is (or is becoming) empty
// would be missed by the read-ahead (fp_ram_sdp returns the old word on a read-during-write), so that
// word is also kept in a bypass register and shown instead.
// HEAD_REG = 1: the same ports and behaviour (every cycle's head, empty and count are the same as
// with HEAD_REG = 0 while `empty` is low), but `pop` does not reach the RAM's read address: the
// RAM is read every cycle at the entry after the head (a register of its own), and `head` is a
// register (the old head, or the pushed word) except in the cycle after a pop of a FIFO with 2 or
// more entries, when it is the RAM's read data. For a caller whose pop is late in its cycle
// (e.g. fp_node_buffer's free list, popped by the admission).
// HEAD_REG = 2: `head` is always a register (the same values as with HEAD_REG = 0 while `empty`
// is low), so a reader of the head starts from a flip-flop, not from the RAM's clock-to-out; pop
// does not reach the RAM's read address either. The RAM is read every cycle at the entry after
// the head (a register of its own); a pop of 2+ entries loads that read data into the head
// register, or the word pushed in the cycle before when that word is the entry after the head
// (one entry and a push: the RAM's read at that edge missed it). The RAM read is at the new
// address from the edge after a pop, so the caller must not pop in two consecutive cycles
// (e.g. fp_node_buffer's output queues: an output pops at most once in 3 cycles).
// HEAD_REG = 3: the same ports and behaviour as HEAD_REG = 0 and 1 (every cycle's head, empty
// and count, one push and one pop per cycle), and the RAM's read data goes straight into a
// register (no logic between the RAM's clock-to-out, 5.8 ns on ECP5-6, and its first flip-flop);
// any multiplexing comes after that register. The oldest entries sit in a front queue of 4
// registers (`head` = a 4:1 multiplexer of them at a registered index); the others in the RAM. A
// push goes into the front queue while the RAM holds none of the FIFO's entries and the front
// queue has a free slot, else into the RAM; while the RAM holds entries and the front queue has a
// slot free (counting the reads under way), one is read, its slot reserved: the RAM's register,
// then a register behind it, then the slot (3 edges). Neither decision looks at `pop` (nor does
// the RAM's read address): `pop` only moves the front queue's read index and the counts. For
// callers whose reader of the head must not start from the RAM's clock-to-out (e.g.
// fp_node_wbuf's free list and queue of frames to free). Costs 5 x WIDTH flip-flops (the front
// queue and the register behind the RAM) where HEAD_REG = 1 has one head register.
//
// Latency:    1 cycle in every mode (an entry pushed at a rising edge is `head` right after it
//             when the FIFO was empty; HEAD_REG = 3: it went into the front queue).
// Throughput: one push and one pop per cycle at any fill level (HEAD_REG = 2: one pop per two
//             cycles; HEAD_REG = 3: one of each per cycle, the front queue never runs dry while
//             the RAM holds entries).
// Bad input:  pushing into a full FIFO (count == DEPTH without a pop) or popping an empty one is
//             the caller's error and corrupts the pointers (not checked: the caller watches
//             `count` and `empty`). `head` is undefined while `empty` is high. HEAD_REG = 2: a pop
//             in the cycle after a pop is the caller's error too (the head would be a stale entry).
//             HEAD_REG = 3: the same rules as 0 and 1 (while count <= DEPTH neither the front
//             queue nor the RAM can overflow).
// Parameters: WIDTH >= 1; DEPTH a power of two, 2..2^20; HEAD_REG 0, 1, 2 or 3. count is
//             $clog2(DEPTH)+1 bits.
`default_nettype none

module fp_fifo_fwft #(
    parameter WIDTH    = 12,
    parameter DEPTH    = 16,
    parameter HEAD_REG = 0
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   push,
    input  wire [WIDTH-1:0]       push_data,
    input  wire                   pop,

    output wire [WIDTH-1:0]       head,
    output wire                   empty,
    output wire [$clog2(DEPTH):0] count
);

    generate
        if (WIDTH < 1) begin : g_bad_width
            PARAMETER_ERROR_WIDTH_must_be_at_least_1 u_error();
        end
        if (DEPTH < 2 || DEPTH > (1 << 20) || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
            PARAMETER_ERROR_DEPTH_must_be_a_power_of_2_from_2_to_2_pow_20 u_error();
        end
        if (HEAD_REG < 0 || HEAD_REG > 3) begin : g_bad_head_reg
            PARAMETER_ERROR_HEAD_REG_must_be_0_1_2_or_3 u_error();
        end
    endgenerate

    localparam AW = $clog2(DEPTH);
    localparam [AW:0] ONE  = 1;
    localparam [AW:0] ZERO = 0;

    reg  [AW:0]      wr_q, rd_q;
    wire [WIDTH-1:0] rdata;
    wire [AW-1:0]    raddr;
    wire             ram_wen;           // HEAD_REG 0..2: every push; 3: pushes into the RAM part
    wire [AW-1:0]    ram_waddr;

    // count and empty are registers of their own (the same values as wr_q - rd_q), so that the
    // users' comparisons (e.g. fp_node_buffer's admission) do not start with a subtraction; the next
    // count is chosen among count +- 1 formed from the register, so push and pop (late in the
    // callers' cycles) only drive a select
    reg  [AW:0] count_q;
    reg         empty_q;
    wire [AW:0] count_inc  = count_q + ONE;
    wire [AW:0] count_dec  = count_q - ONE;
    wire [AW:0] count_next = (push == pop) ? count_q : (push ? count_inc : count_dec);

    fp_ram_sdp #(
        .ADDR_WIDTH(AW),
        .DATA_WIDTH(WIDTH)
    ) u_ram (
        .clk  (clk),
        .wen  (ram_wen),
        .waddr(ram_waddr),
        .wdata(push_data),
        .ren  (1'b1),
        .raddr(raddr),
        .rdata(rdata)
    );

    always @(posedge clk) begin
        if (rst) begin
            wr_q    <= ZERO;
            rd_q    <= ZERO;
            count_q <= ZERO;
            empty_q <= 1'b1;
        end else begin
            if (push) begin
                wr_q <= wr_q + ONE;
            end
            if (pop) begin
                rd_q <= rd_q + ONE;
            end
            count_q <= count_next;
            empty_q <= !push && (empty_q || (pop && count_q == ONE));  // = count_next == 0
        end
    end

    // HEAD_REG = 1 and 2: rd1_q = rd_q + 1, the entry after the head, which the RAM reads; multi:
    // the FIFO holds 2 or more entries. (Unused with HEAD_REG = 0, which reads at rd_next;
    // synthesis removes them there.)
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [AW-1:0] rd1_q;
    wire          multi = count_q[AW:1] != {AW{1'b0}};
    /* verilator lint_on UNUSEDSIGNAL */
    always @(posedge clk) begin
        if (rst) begin
            rd1_q <= {{(AW-1){1'b0}}, 1'b1};
        end else if (pop) begin
            rd1_q <= rd1_q + 1'b1;
        end
    end

    generate
        if (HEAD_REG != 3) begin : g_ram_all
            assign ram_wen   = push;
            assign ram_waddr = wr_q[AW-1:0];
        end
        if (HEAD_REG == 0) begin : g_read_ahead
            reg              byp_q;
            reg  [WIDTH-1:0] byp_data_q;
            wire [AW-1:0]    rd_next = pop ? rd_q[AW-1:0] + 1'b1 : rd_q[AW-1:0];
            assign raddr = rd_next;
            always @(posedge clk) begin
                // The slot written is the next head only when the FIFO is empty after this
                // cycle's pop (the other case of equal addresses, a full FIFO, cannot take a
                // push).
                byp_q      <= push && wr_q[AW-1:0] == rd_next;
                byp_data_q <= push_data;
            end
            assign head = byp_q ? byp_data_q : rdata;
        end else if (HEAD_REG == 1) begin : g_head_reg
            // the RAM reads rd1_q (the entry after the head) at every edge, so after a pop the
            // new head is the read data, unless that slot is written at the same edge (one
            // entry, and a push) or the FIFO becomes empty.
            reg              h_ram_q;            // head = the RAM's read data
            reg  [WIDTH-1:0] h_q;
            assign raddr = rd1_q;
            assign head  = h_ram_q ? rdata : h_q;
            always @(posedge clk) begin
                h_ram_q <= pop && multi && !rst;
                // not popped: the head stays (or the pushed word becomes it in an empty FIFO);
                // popped with one entry: the pushed word (if any) is the next head
                h_q <= (empty_q || (pop && !multi)) ? push_data : head;
            end
        end else if (HEAD_REG == 3) begin : g_front
            // front queue: FQ slots, fr_q (head) and fw_q (next slot to fill or reserve) indexes,
            // n_q slots in use (filled or reserved); RAM part: mw_q (write), mr_q (next read),
            // m_zero_q (the RAM part holds no entry), mr1_q = mr_q + 1
            localparam       FQ = 4;
            localparam [2:0] FQ_N = FQ;
            reg  [WIDTH-1:0] f_data [0:FQ-1];
            reg  [1:0]       fr_q, fw_q;
            reg  [2:0]       n_q;
            reg  [AW:0]      mw_q, mr1_q;
            reg  [AW-1:0]    mr_q;
            reg              m_zero_q;
            // the reads under way: i1 (data in the RAM's register), i2 (data in o_q) and the slot
            // each one fills
            reg              i1_v, i2_v;
            reg  [1:0]       i1_slot, i2_slot;
            reg  [WIDTH-1:0] o_q;
            wire             n_full  = n_q == FQ_N;
            wire             to_f    = m_zero_q && !n_full;     // a push goes into the front queue
            wire             issue   = !m_zero_q && !n_full;    // read the RAM part's oldest entry
            wire             push_f  = push && to_f;
            wire             push_m  = push && !to_f;
            wire             fill    = push_f || issue;         // takes slot fw_q
            wire [2:0]       n_fill  = fill ? n_q + 3'd1 : n_q;
            integer          k;

            assign ram_wen   = push_m;
            assign ram_waddr = mw_q[AW-1:0];
            assign raddr     = mr_q;
            assign head      = f_data[fr_q];

            always @(posedge clk) begin
                if (rst) begin
                    fr_q     <= 2'd0;
                    fw_q     <= 2'd0;
                    n_q      <= 3'd0;
                    mw_q     <= ZERO;
                    mr_q     <= {AW{1'b0}};
                    mr1_q    <= ONE;
                    m_zero_q <= 1'b1;
                    i1_v     <= 1'b0;
                    i2_v     <= 1'b0;
                end else begin
                    if (pop) begin
                        fr_q <= fr_q + 2'd1;
                    end
                    if (fill) begin
                        fw_q <= fw_q + 2'd1;
                    end
                    n_q <= pop ? n_fill - 3'd1 : n_fill;
                    if (push_m) begin
                        mw_q <= mw_q + ONE;
                    end
                    if (issue) begin
                        mr_q  <= mr1_q[AW-1:0];
                        mr1_q <= mr1_q + ONE;
                    end
                    // empty after this edge: nothing pushed into it, and empty now or its last
                    // entry read now
                    m_zero_q <= !push_m && (m_zero_q || (issue && mr1_q == mw_q));
                    i1_v     <= issue;
                    i2_v     <= i1_v;
                end
                i1_slot <= fw_q;
                i2_slot <= i1_slot;
                o_q     <= rdata;               // the RAM's read data, straight into a register
                for (k = 0; k < FQ; k = k + 1) begin
                    if (i2_v && i2_slot == k[1:0]) begin
                        f_data[k] <= o_q;
                    end else if (push_f && fw_q == k[1:0]) begin
                        f_data[k] <= push_data;
                    end
                end
            end
        end else begin : g_head_always_reg
            // the RAM reads rd1_q as in HEAD_REG = 1; its read data is the entry after the head
            // in every cycle that follows a cycle without a pop, except when that entry was
            // written at the last edge (s_byp_q: pushed while the FIFO held one entry; a pop in
            // that cycle is excluded by the caller, and a push with a pop of one entry makes the
            // pushed word the head instead)
            reg  [WIDTH-1:0] h_q, s_q;
            reg              s_byp_q;
            assign raddr = rd1_q;
            assign head  = h_q;
            always @(posedge clk) begin
                s_byp_q <= push && count_q == ONE;
                s_q     <= push_data;
                if (empty_q || (pop && !multi)) begin
                    h_q <= push_data;            // (not pushed: empty, h_q is not looked at)
                end else if (pop) begin
                    h_q <= s_byp_q ? s_q : rdata;
                end
            end
        end
    endgenerate

    assign count = count_q;
    assign empty = empty_q;

endmodule

`default_nettype wire
