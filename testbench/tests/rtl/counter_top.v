// Test design for warpforge-testbench: exercises 1-, 16-, 17-, 32-, 64- and
// 96-bit ports (CData/SData/IData/QData/VlWide storage in Verilator).
module counter_top (
    input  wire        clk,
    input  wire        rst,      // synchronous, active high
    input  wire        en,
    output reg  [31:0] count,
    input  wire [95:0] wide_in,
    output wire [95:0] wide_out, // wide_in ^ WIDE_KEY
    input  wire [15:0] a,
    input  wire [15:0] b,
    output wire [16:0] sum,      // a + b
    input  wire [63:0] q_in,
    output wire [63:0] q_out     // ~q_in
);
    localparam [95:0] WIDE_KEY = 96'hDEADBEEF_01234567_89ABCDEF;

    always @(posedge clk) begin
        if (rst) count <= 32'd0;
        else if (en) count <= count + 32'd1;
    end

    assign wide_out = wide_in ^ WIDE_KEY;
    assign sum = {1'b0, a} + {1'b0, b};
    assign q_out = ~q_in;
endmodule
