// $finish / $stop handling: `cnt` counts clock edges; $finish when cnt == 5
// (again every 256 cycles), $stop when stop_en and cnt == 2.
module finish_top (
    input  wire       clk,
    input  wire       stop_en,
    output reg  [7:0] cnt
);
    initial cnt = 8'd0;
    always @(posedge clk) begin
        cnt <= cnt + 8'd1;
        if (cnt == 8'd5) $finish;
        if (stop_en && cnt == 8'd2) $stop;
    end
endmodule
