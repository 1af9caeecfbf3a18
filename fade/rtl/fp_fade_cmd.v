// fp_fade_cmd: FADE-10G command processor (exactly-once execution, paper section 3.3).
//
// Takes one command at a time from the receiver's command FIFO, in order:
//   dup = 1 (csn equal to the last command's): the stored response is posted again; the command
//     is not executed (ev_cmd_repeat).
//   START / STOP (already executed by fp_fade_rx): response {code, csn, CTL_VALUE} is posted
//     (ev_cmd_exec); fp_fade_core sets CTL_VALUE to the ACK records per frame it takes (fade/README.md).
//   user code: offered on m_cmd_* (valid/ready); then the user's answer is taken on s_rsp_*
//     (s_rsp_ready is high only while a command is waiting for its answer); response
//     {code, csn, s_rsp_value} is stored and posted (ev_cmd_exec, one cycle after s_rsp).
// A posted response waits in rsp_* (rsp_valid) until the transmitter takes it (rsp_take) in a
// data frame or a RESP frame; the next command is not started before that.
//
// Latency: command at the FIFO output (cmd_valid) -> m_cmd_valid 1 cycle later;
//   s_rsp_valid && s_rsp_ready -> rsp_valid 1 cycle later; cmd_valid of a START/STOP/dup ->
//   rsp_valid 1 cycle later.
// Throughput: one command per 2 cycles plus the user's time plus the response's transmission.
// Bad input: fp_fade_rx is trusted: cmd_ctl (its START/STOP decode) decides, a non-dup command with
//   cmd_ctl low is offered as a user command; a repeat before any command was executed re-posts
//   {0, 0, 0}. rsp_take without rsp_valid and s_rsp_valid while no answer is awaited (s_rsp_ready
//   low) are ignored.
`default_nettype none
`include "fp_fade.vh"

module fp_fade_cmd #(
    parameter [63:0] CTL_VALUE = 64'd0
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        cmd_valid,
    output wire        cmd_ready,
    input  wire        cmd_dup,
    input  wire        cmd_ctl,      // cmd_code is START or STOP (decoded by fp_fade_rx; timing)
    input  wire [15:0] cmd_code,
    input  wire [15:0] cmd_csn,
    input  wire [31:0] cmd_arg,

    output reg         m_cmd_valid,
    input  wire        m_cmd_ready,
    output reg  [15:0] m_cmd_code,
    output reg  [31:0] m_cmd_arg,
    output reg  [15:0] m_cmd_csn,
    input  wire        s_rsp_valid,
    output wire        s_rsp_ready,
    input  wire [63:0] s_rsp_value,

    output reg         rsp_valid,
    output reg  [15:0] rsp_code,
    output reg  [15:0] rsp_csn,
    output reg  [63:0] rsp_value,
    input  wire        rsp_take,

    output reg         ev_cmd_exec,
    output reg         ev_cmd_repeat
);

    localparam [1:0] C_IDLE = 2'd0, C_ISSUE = 2'd1, C_WAIT = 2'd2;

    reg [1:0]  cstate;
    reg [15:0] st_code, st_csn;     // stored response of the last executed command
    reg [63:0] st_value;

    assign cmd_ready   = cstate == C_IDLE && !rsp_valid;
    assign s_rsp_ready = cstate == C_WAIT;

    always @(posedge clk) begin
        ev_cmd_exec   <= 1'b0;
        ev_cmd_repeat <= 1'b0;
        if (rsp_take) rsp_valid <= 1'b0;
        case (cstate)
            C_IDLE: if (cmd_valid && cmd_ready) begin
                if (cmd_dup) begin
                    ev_cmd_repeat <= 1'b1;
                    rsp_valid     <= 1'b1;
                    rsp_code      <= st_code;
                    rsp_csn       <= st_csn;
                    rsp_value     <= st_value;
                end else if (cmd_ctl) begin
                    ev_cmd_exec <= 1'b1;
                    rsp_valid   <= 1'b1;
                    rsp_code    <= cmd_code;
                    rsp_csn     <= cmd_csn;
                    rsp_value   <= CTL_VALUE;
                    st_code     <= cmd_code;
                    st_csn      <= cmd_csn;
                    st_value    <= CTL_VALUE;
                end else begin
                    m_cmd_valid <= 1'b1;
                    m_cmd_code  <= cmd_code;
                    m_cmd_arg   <= cmd_arg;
                    m_cmd_csn   <= cmd_csn;
                    cstate      <= C_ISSUE;
                end
            end
            C_ISSUE: if (m_cmd_ready) begin
                m_cmd_valid <= 1'b0;
                cstate      <= C_WAIT;
            end
            default: if (s_rsp_valid) begin  // C_WAIT
                ev_cmd_exec <= 1'b1;
                rsp_valid   <= 1'b1;
                rsp_code    <= m_cmd_code;
                rsp_csn     <= m_cmd_csn;
                rsp_value   <= s_rsp_value;
                st_code     <= m_cmd_code;
                st_csn      <= m_cmd_csn;
                st_value    <= s_rsp_value;
                cstate      <= C_IDLE;
            end
        endcase
        if (rst) begin
            cstate        <= C_IDLE;
            m_cmd_valid   <= 1'b0;
            m_cmd_code    <= 16'd0;
            m_cmd_arg     <= 32'd0;
            m_cmd_csn     <= 16'd0;
            rsp_valid     <= 1'b0;
            rsp_code      <= 16'd0;
            rsp_csn       <= 16'd0;
            rsp_value     <= 64'd0;
            st_code       <= 16'd0;
            st_csn        <= 16'd0;
            st_value      <= 64'd0;
            ev_cmd_exec   <= 1'b0;
            ev_cmd_repeat <= 1'b0;
        end
    end

endmodule

`default_nettype wire
