// fp_fade_core: FADE-10G reliable streaming of 64-bit words to a host over raw Ethernet
// (seeds/002, section 3; protocol as implemented: fade/README.md). MAC-independent: 64-bit client
// streams to a MAC TX (m_eth_*) and from a MAC RX (s_eth_*, no tready, tuser[0] = bad frame).
//
// Blocks (paper Figure 3): fp_fade_rx (Ethernet receiver; executes START, STOP, RESET; ACK FIFO and
// command FIFO), fp_fade_desc (descriptor manager, packet buffer bookkeeping, retransmission
// decisions), fp_fade_tx (frame builder, delay adaptation), fp_fade_cmd (exactly-once command
// processor), and the packet buffer: one fp_ram_sdp of 2^N x 1,024 words (block RAM).
//
// User data: s_axis_tdata/tvalid/tready, one 64-bit word per cycle while the core is running,
//   no STOP is pending and the buffer has a free slot (no bubble at packet boundaries).
// Commands: m_cmd_* (valid/ready) offers each new user command once; the user answers each once,
//   in order, on s_rsp_* (valid/ready). START/STOP/RESET never reach the port.
// state: 0 idle, 1 running, 2 stopping (LAST packet built, not yet confirmed).
// ev_*: one-cycle pulses, one per event (count them outside if wanted):
//   ev_tx_data (new data frame), ev_tx_early / ev_tx_nack / ev_tx_timeout (retransmitted frame,
//   by reason), ev_tx_resp (RESP frame), ev_ack (packet confirmed), ev_nack (NACK accepted),
//   ev_ack_stale (ACK/NACK for a packet confirmed or freed), ev_proto_err (ACK/NACK for a packet
//   never sent or in the future), ev_rx_bad_fcs, ev_rx_drop (every frame ignored: bad FCS,
//   foreign, malformed, FIFO full), ev_cmd_exec, ev_cmd_repeat (a repeated csn answered again).
//
// Latency (cycles; t = the cycle in which the tlast beat of the incoming frame is on s_eth;
// asserted in fade/tb/test_fade_core_retx.py):
//   ACK -> packet freed, s_axis_tready high again if the buffer was full: t+6.
//   NACK -> first beat of the retransmission valid on m_eth: t+8 (transmitter idle, delay 0).
//   command -> m_cmd_valid: t+3.
//   s_rsp_valid && s_rsp_ready in cycle c -> first beat of the RESP frame valid on m_eth: c+3.
//   Early retransmission: +1 cycle per buffered packet older than the ACKed one.
//   Timeout: resent TIMEOUT .. TIMEOUT + 2^N + 4 cycles after the previous transmission.
// Throughput: data frames of 1,029 beats at one beat per cycle, one idle cycle between frames
//   plus the current inter-frame delay.
// Bad input: bad-FCS, foreign, malformed or unknown frames, and frames meeting a full FIFO, are
//   dropped (ev_rx_drop); stale/duplicate ACKs are ignored (ev_ack_stale); ACK/NACK for a packet
//   never sent or in the future is ignored (ev_proto_err). A silent host only fills the buffer
//   (s_axis_tready low) and causes timeout retransmissions.
// Parameters: N 2..6 (buffer 2^N packets = window); TIMEOUT cycles (16..2^28); DA_* delay
//   adaptation (see fp_fade_tx); ACK_FIFO, CMD_FIFO depths (powers of two, 2..256); ACK_RECORDS
//   (1..8, <= ACK_FIFO) ACK records taken per ACK frame, reported as the START / STOP response
//   value so that a host batches at most that many (fade/README.md); PKT_INIT,
//   SEQ_INIT first packet / frame sequence number after START (protocol: 0; tests: wrap-around).
`default_nettype none

module fp_fade_core #(
    parameter N = 4,
    parameter TIMEOUT = 100000,
    parameter DA_WINDOW = 64,
    parameter DA_HI = 8,
    parameter DA_LO = 1,
    parameter DA_STEP = 16,
    parameter DA_MIN = 0,
    parameter DA_MAX = 4096,
    parameter DA_INIT = 0,
    parameter ACK_FIFO = 16,
    parameter CMD_FIFO = 4,
    parameter ACK_RECORDS = 8,
    parameter [31:0] PKT_INIT = 32'd0,
    parameter [15:0] SEQ_INIT = 16'd0
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [47:0] cfg_local_mac,

    input  wire [63:0] s_axis_tdata,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,

    output wire [63:0] m_eth_tdata,
    output wire [7:0]  m_eth_tkeep,
    output wire        m_eth_tvalid,
    input  wire        m_eth_tready,
    output wire        m_eth_tlast,
    output wire [0:0]  m_eth_tuser,

    input  wire [63:0] s_eth_tdata,
    input  wire [7:0]  s_eth_tkeep,
    input  wire        s_eth_tvalid,
    input  wire        s_eth_tlast,
    input  wire [0:0]  s_eth_tuser,

    output wire        m_cmd_valid,
    input  wire        m_cmd_ready,
    output wire [15:0] m_cmd_code,
    output wire [31:0] m_cmd_arg,
    output wire [15:0] m_cmd_csn,
    input  wire        s_rsp_valid,
    output wire        s_rsp_ready,
    input  wire [63:0] s_rsp_value,

    output wire [1:0]  state,
    output wire [15:0] delay,
    output wire        ev_tx_data,
    output wire        ev_tx_early,
    output wire        ev_tx_nack,
    output wire        ev_tx_timeout,
    output wire        ev_tx_resp,
    output wire        ev_ack,
    output wire        ev_nack,
    output wire        ev_ack_stale,
    output wire        ev_proto_err,
    output wire        ev_rx_bad_fcs,
    output wire        ev_rx_drop,
    output wire        ev_cmd_exec,
    output wire        ev_cmd_repeat
);

    wire        start_pulse, stop_pulse, reset_pulse;
    wire [47:0] peer_mac;
    wire        srst = rst || reset_pulse;   // RESET command: everything but rx parsing and tx framing

    wire        ack_valid, ack_ready, ack_nack;
    wire [15:0] ack_seq;
    wire [31:0] ack_pkt;
    wire        cmd_valid, cmd_ready, cmd_dup, cmd_ctl;
    wire [15:0] cmd_code, cmd_csn;
    wire [31:0] cmd_arg;

    fp_fade_rx #(.ACK_DEPTH(ACK_FIFO), .CMD_DEPTH(CMD_FIFO), .ACK_RECORDS(ACK_RECORDS)) u_rx (
        .clk(clk), .rst(rst), .cfg_local_mac(cfg_local_mac),
        .s_eth_tdata(s_eth_tdata), .s_eth_tkeep(s_eth_tkeep), .s_eth_tvalid(s_eth_tvalid),
        .s_eth_tlast(s_eth_tlast), .s_eth_tuser(s_eth_tuser),
        .start_pulse(start_pulse), .stop_pulse(stop_pulse), .reset_pulse(reset_pulse),
        .peer_mac(peer_mac),
        .ack_valid(ack_valid), .ack_ready(ack_ready), .ack_nack(ack_nack), .ack_seq(ack_seq),
        .ack_pkt(ack_pkt),
        .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_dup(cmd_dup), .cmd_ctl(cmd_ctl), .cmd_code(cmd_code),
        .cmd_csn(cmd_csn), .cmd_arg(cmd_arg),
        .ev_rx_bad_fcs(ev_rx_bad_fcs), .ev_rx_drop(ev_rx_drop)
    );

    wire           ram_wen, ram_ren;
    wire [N+9:0]   ram_waddr, ram_raddr;
    wire [63:0]    ram_wdata, ram_rdata;
    wire           tx_avail, tx_last, tx_take, tx_busy;
    wire [31:0]    tx_pkt;
    wire [N-1:0]   tx_slot, tx_busy_slot;
    wire [9:0]     tx_nwords;
    wire [1:0]     tx_reason;
    wire [15:0]    tx_seq;

    fp_fade_desc #(.N(N), .TIMEOUT(TIMEOUT), .PKT_INIT(PKT_INIT), .SEQ_INIT(SEQ_INIT)) u_desc (
        .clk(clk), .rst(srst),
        .start_pulse(start_pulse), .stop_pulse(stop_pulse), .state(state),
        .s_axis_tdata(s_axis_tdata), .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
        .ram_wen(ram_wen), .ram_waddr(ram_waddr), .ram_wdata(ram_wdata),
        .ack_valid(ack_valid), .ack_ready(ack_ready), .ack_nack(ack_nack), .ack_seq(ack_seq),
        .ack_pkt(ack_pkt),
        .tx_avail(tx_avail), .tx_pkt(tx_pkt), .tx_slot(tx_slot), .tx_last(tx_last),
        .tx_nwords(tx_nwords), .tx_reason(tx_reason), .tx_seq(tx_seq), .tx_take(tx_take),
        .tx_busy(tx_busy), .tx_busy_slot(tx_busy_slot),
        .ev_ack(ev_ack), .ev_nack(ev_nack), .ev_ack_stale(ev_ack_stale), .ev_proto_err(ev_proto_err)
    );

    // OUT_REG = 1: the read data from an output register (fp_fade_tx expects the 2-cycle read and
    // reads ahead of its output)
    fp_ram_sdp #(.ADDR_WIDTH(N + 10), .DATA_WIDTH(64), .OUT_REG(1)) u_buf (
        .clk(clk),
        .wen(ram_wen), .waddr(ram_waddr), .wdata(ram_wdata),
        .ren(ram_ren), .raddr(ram_raddr), .rdata(ram_rdata)
    );

    wire        rsp_valid, rsp_take;
    wire [15:0] rsp_code, rsp_csn;
    wire [63:0] rsp_value;

    fp_fade_cmd #(.CTL_VALUE(ACK_RECORDS)) u_cmd (
        .clk(clk), .rst(srst),
        .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_dup(cmd_dup), .cmd_ctl(cmd_ctl), .cmd_code(cmd_code),
        .cmd_csn(cmd_csn), .cmd_arg(cmd_arg),
        .m_cmd_valid(m_cmd_valid), .m_cmd_ready(m_cmd_ready), .m_cmd_code(m_cmd_code),
        .m_cmd_arg(m_cmd_arg), .m_cmd_csn(m_cmd_csn),
        .s_rsp_valid(s_rsp_valid), .s_rsp_ready(s_rsp_ready), .s_rsp_value(s_rsp_value),
        .rsp_valid(rsp_valid), .rsp_code(rsp_code), .rsp_csn(rsp_csn), .rsp_value(rsp_value),
        .rsp_take(rsp_take),
        .ev_cmd_exec(ev_cmd_exec), .ev_cmd_repeat(ev_cmd_repeat)
    );

    fp_fade_tx #(
        .N(N), .DA_WINDOW(DA_WINDOW), .DA_HI(DA_HI), .DA_LO(DA_LO), .DA_STEP(DA_STEP),
        .DA_MIN(DA_MIN), .DA_MAX(DA_MAX), .DA_INIT(DA_INIT)
    ) u_tx (
        .clk(clk), .rst(rst), .tx_abort(reset_pulse),
        .cfg_local_mac(cfg_local_mac), .peer_mac(peer_mac),
        .tx_avail(tx_avail), .tx_pkt(tx_pkt), .tx_slot(tx_slot), .tx_last(tx_last),
        .tx_nwords(tx_nwords), .tx_reason(tx_reason), .tx_seq(tx_seq), .tx_take(tx_take),
        .tx_busy(tx_busy), .tx_busy_slot(tx_busy_slot),
        .rsp_valid(rsp_valid), .rsp_code(rsp_code), .rsp_csn(rsp_csn), .rsp_value(rsp_value),
        .rsp_take(rsp_take),
        .ram_ren(ram_ren), .ram_raddr(ram_raddr), .ram_rdata(ram_rdata),
        .m_eth_tdata(m_eth_tdata), .m_eth_tkeep(m_eth_tkeep), .m_eth_tvalid(m_eth_tvalid),
        .m_eth_tready(m_eth_tready), .m_eth_tlast(m_eth_tlast), .m_eth_tuser(m_eth_tuser),
        .delay(delay),
        .ev_tx_data(ev_tx_data), .ev_tx_early(ev_tx_early), .ev_tx_nack(ev_tx_nack),
        .ev_tx_timeout(ev_tx_timeout), .ev_tx_resp(ev_tx_resp)
    );

endmodule

`default_nettype wire
