// Reports $time (in the model's time unit) sampled at each rising clock edge.
module time_top (
    input  wire        clk,
    output reg  [63:0] t
);
    initial t = 64'd0;
    always @(posedge clk) t <= $time;
endmodule
