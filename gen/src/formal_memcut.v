// The memory cut of mutate's in-context proof (gen/src/mutate.rs, docs/mutation.md "Equivalence"),
// mapped onto every `$mem_v2` of the flattened GPU by `techmap`: the read data are a free input
// (`$anyseq`, one value per cycle, shared by both rails of the miter, so the proof holds for any
// memory contents), and what the GPU asks of the memory is observed through `wf_obs_*` wires
// that become compared outputs: each write port's enables, its data where enabled and its
// address while any bit is enabled, and each read port's address while enabled. A write
// port's data or address while it is not enabled changes nothing and is not compared.
// `wf_cut_rdata` (the read data: the free input's bits) and `wf_cut_width` (the first read
// port's word: as many bits as a word) name the read data and the word's width in the AIG's
// map, so the proof can find the columns every write leaves 0 (gen/src/shared_miter.rs).
(* techmap_celltype = "$mem_v2" *)
module wf_memcut(RD_CLK, RD_EN, RD_ARST, RD_SRST, RD_ADDR, RD_DATA, WR_CLK, WR_EN, WR_ADDR, WR_DATA);
    parameter MEMID = "";
    parameter signed SIZE = 4;
    parameter signed OFFSET = 0;
    parameter signed ABITS = 2;
    parameter signed WIDTH = 8;
    parameter signed INIT = 1'bx;
    parameter signed RD_PORTS = 1;
    parameter RD_CLK_ENABLE = 1'b1;
    parameter RD_CLK_POLARITY = 1'b1;
    parameter RD_TRANSPARENCY_MASK = 1'b0;
    parameter RD_COLLISION_X_MASK = 1'b0;
    parameter RD_WIDE_CONTINUATION = 1'b0;
    parameter RD_CE_OVER_SRST = 1'b0;
    parameter RD_ARST_VALUE = 1'b0;
    parameter RD_SRST_VALUE = 1'b0;
    parameter RD_INIT_VALUE = 1'b0;
    parameter signed WR_PORTS = 1;
    parameter WR_CLK_ENABLE = 1'b1;
    parameter WR_CLK_POLARITY = 1'b1;
    parameter WR_PRIORITY_MASK = 1'b0;
    parameter WR_WIDE_CONTINUATION = 1'b0;
    input [RD_PORTS-1:0] RD_CLK;
    input [RD_PORTS-1:0] RD_EN;
    input [RD_PORTS-1:0] RD_ARST;
    input [RD_PORTS-1:0] RD_SRST;
    input [RD_PORTS*ABITS-1:0] RD_ADDR;
    output [RD_PORTS*WIDTH-1:0] RD_DATA;
    input [WR_PORTS-1:0] WR_CLK;
    input [WR_PORTS*WIDTH-1:0] WR_EN;
    input [WR_PORTS*ABITS-1:0] WR_ADDR;
    input [WR_PORTS*WIDTH-1:0] WR_DATA;
    \$anyseq #(.WIDTH(RD_PORTS*WIDTH)) wf_rd (.Y(RD_DATA));
    (* keep *) wire [RD_PORTS*WIDTH-1:0] wf_cut_rdata = RD_DATA;
    (* keep *) wire [WIDTH-1:0] wf_cut_width = RD_DATA[WIDTH-1:0];
    (* keep *) wire [WR_PORTS*WIDTH-1:0] wf_obs_wen = WR_EN;
    (* keep *) wire [WR_PORTS*WIDTH-1:0] wf_obs_wdata = WR_DATA & WR_EN;
    (* keep *) wire [WR_PORTS*ABITS-1:0] wf_obs_waddr;
    (* keep *) wire [RD_PORTS*ABITS-1:0] wf_obs_raddr;
    genvar i;
    generate
        for (i = 0; i < WR_PORTS; i = i + 1) begin : w
            assign wf_obs_waddr[i*ABITS +: ABITS] = WR_ADDR[i*ABITS +: ABITS] & {ABITS{|WR_EN[i*WIDTH +: WIDTH]}};
        end
        for (i = 0; i < RD_PORTS; i = i + 1) begin : r
            assign wf_obs_raddr[i*ABITS +: ABITS] = RD_ADDR[i*ABITS +: ABITS] & {ABITS{RD_EN[i]}};
        end
    endgenerate
endmodule
