module warpforge_top(clock,reset,imem_we,imem_addr,imem_word,imem_recon,launch_entry,launch_nctaid,launch_ntid,launch_param,launch_shared,start,busy,done,fault,fault_sm,fault_warp,fault_pc,fault_cause,fault_lane,fault_addr,cycle_count,mem$0$req_valid,mem$0$req_ready,mem$0$req_write,mem$0$req_addr,mem$0$req_size,mem$0$req_data,mem$0$resp_valid,mem$0$resp_data,tr_issue_valid$0,tr_issue_warp$0,tr_issue_pc$0,tr_issue_instr$0,tr_issue_mask$0,tr_issue_tag$0,tr_wb_valid$0,tr_wb_tag$0,tr_wb_rd$0,tr_wb_mask$0,tr_wb_data$0,tr_st_valid$0,tr_st_tag$0,tr_st_size$0,tr_st_mask$0,tr_st_addr$0,tr_st_data$0,tr_cta_valid$0,tr_cta_id$0,tr_cta_warps$0,tr_ready$0,tr_launch$0,tr_long$0,ctr_issued$0,ctr_idle$0,ctr_conflicts$0);
    top$sm$0 sm$0(
    top$sm$0$oc$rf$read_zero$0 running(
    top$sm$0$oc$rf$read_zero$0 done_r(
    top$sm$0$oc$rf$read_zero$0 fault_r(
    top$sm$0$alu$tag_q$0 fsm_r(
    top$cycles cycles(
    top$sm$0$oc$cu_data$0 p_entry(
    top$sm$0$oc$cu_data$0 p_nctaid(
    top$sm$0$oc$cu_data$0 p_ntid(
    top$sm$0$oc$cu_data$0 p_param(
    top$sm$0$oc$cu_data$0 p_shared(
    top$sm$0$oc$cu_data$0 p_cta_warps(
    top$sm$0$oc$cu_data$0 next_cta(
    top$sm$0$oc$cu_data$0 next_gtid(
endmodule // top
module top$cycles(d,q,clock);
endmodule // top$cycles
module top$sm$0(clock,reset,load_valid,load_addr,load_word,load_recon,k_entry,k_nctaid,k_ntid,k_param,k_shared,k_cta_warps,cycle,sm_id,stack_top,halt,cta_valid,cta_ready,cta_id,cta_gtid0,busy,fault,fault_warp,fault_pc,fault_cause,fault_lane,fault_addr,mem$req_valid,mem$req_ready,mem$req_write,mem$req_addr,mem$req_size,mem$req_data,mem$resp_valid,mem$resp_data,tr_issue_valid,tr_issue_warp,tr_issue_pc,tr_issue_instr,tr_issue_mask,tr_issue_tag,tr_wb_valid,tr_wb_tag,tr_wb_rd,tr_wb_mask,tr_wb_data,tr_st_valid,tr_st_tag,tr_st_size,tr_st_mask,tr_st_addr,tr_st_data,tr_cta_valid,tr_cta_id,tr_cta_warps,tr_ready,tr_launch,tr_long,ctr_issued,ctr_idle,ctr_conflicts);
    top$sm$0$fetch fetch(
    top$sm$0$dec_h$0 dec_h$0(
    top$sm$0$dec_h$0 dec_h$1(
    top$sm$0$dec_h$0 dec_h$2(
    top$sm$0$dec_h$0 dec_h$3(
    top$sm$0$dec_i dec_i(
    top$sm$0$dec_i dec_d(
    top$sm$0$sb sb(
    top$sm$0$sched sched(
    top$sm$0$oc oc(
    top$sm$0$alu alu(
    top$sm$0$mul mul(
    top$sm$0$div div(
    top$sm$0$bu bu(
    top$sm$0$lsu lsu(
    top$sm$0$ctrs ctrs(
    top$sm$0$tags tags(
    top$sm$0$faults faults(
    top$sm$0$stack stack(
    top$sm$0$pack_wb pack_wb(
    top$sm$0$pack_wb pack_st_addr(
    top$sm$0$pack_wb pack_st_data(
    top$sm$0$pk_gw pk_gw(
    top$sm$0$pk_imask pk_imask(
    top$sm$0$pk_tag16 pk_tag16(
    top$sm$0$pk_g8 pk_g8(
    top$sm$0$pk_g8 pk_fw8(
    top$sm$0$pk_j16 pk_j16(
    top$sm$0$pk_wbm pk_wbm(
    top$sm$0$pk_wbm pk_stm(
    top$sm$0$pk_take pk_take(
    top$sm$0$pk_take pk_ready(
    top$sm$0$pk_take pk_launch(
    top$sm$0$pk_take pk_long(
    top$sm$0$bu$pk_taken pk_lmask(
    top$sm$0$u1 u1(
    top$sm$0$u2 u2(
    top$sm$0$u3 u3(
    top$sm$0$u4 u4(
    top$sm$0$u5 u5(
    top$sm$0$u6 u6(
    top$sm$0$u8 u8(
    top$sm$0$u9 u9(
    top$sm$0$u12 u12(
    top$sm$0$u32 u32(
    top$sm$0$u4 u_mask(
    top$sm$0$u_full u_full(
    top$sm$0$fetch$en w_launched(
    top$sm$0$w_cta w_cta(
    top$sm$0$fetch$fpc w_ctaid(
    top$sm$0$fetch$fpc w_tid(
    top$sm$0$fetch$fpc w_gtid(
    top$sm$0$fetch$fpc w_instret(
    top$sm$0$fetch$en w_bar(
    top$sm$0$fetch$en w_rsv(
    top$sm$0$fetch$en c_valid(
    top$sm$0$fetch$en c_launching(
    top$sm$0$fetch$fpc c_base(
    top$sm$0$slot slot(
    top$sm$0$lsu$size_q l_state(
    top$sm$0$oc$cu_data$0 l_cta(
    top$sm$0$oc$cu_data$0 l_gtid(
    top$sm$0$oc$cu_data$0 l_tid(
    top$sm$0$oc$cu_data$0 l_rem(
    top$sm$0$oc$cu_data$0 l_k(
    top$sm$0$sched$last l_slot(
    top$sm$0$oc$rf$read_zero$0 lr_valid(
    top$sm$0$sched$last lr_warp(
endmodule // top$sm$0
module top$sm$0$alu(clock,reset,in_valid,in_op,in_cmp,in_tag,in_mask$0,in_mask$1,in_mask$2,in_mask$3,in_a$0,in_a$1,in_a$2,in_a$3,in_b$0,in_b$1,in_b$2,in_b$3,out_valid,out_tag,out_mask$0,out_mask$1,out_mask$2,out_mask$3,out_result$0,out_result$1,out_result$2,out_result$3,out_taken$0,out_taken$1,out_taken$2,out_taken$3);
    top$sm$0$alu$lane$0 lane$0(
    top$sm$0$alu$lane$0 lane$1(
    top$sm$0$alu$lane$0 lane$2(
    top$sm$0$alu$lane$0 lane$3(
    top$sm$0$oc$rf$read_zero$0 valid_q$0(
    top$sm$0$alu$tag_q$0 tag_q$0(
endmodule // top$sm$0$alu
module top$sm$0$alu$lane$0(clock,op,cmp,a,b,active,result,taken,active_out);
    top$sm$0$oc$cu_data$0 res_q$0(
    top$sm$0$oc$rf$read_zero$0 taken_q$0(
    top$sm$0$oc$rf$read_zero$0 active_q$0(
endmodule // top$sm$0$alu$lane$0
module top$sm$0$alu$tag_q$0(d,q,clock);
endmodule // top$sm$0$alu$tag_q$0
module top$sm$0$bu(clock,reset,in_valid,in_ready,in_warp,in_pc,in_imm,in_cmp,in_recon,in_mask,in_branch,in_jal,in_jalr,in_rd_zero,in_exit,in_tmc,in_a$0,in_a$1,in_a$2,in_a$3,in_b$0,in_b$1,in_b$2,in_b$3,in_ra$0,in_ra$1,in_ra$2,in_ra$3,disp_group,cmd_op,cmd_warp,cmd_rpc,cmd_pc_a,cmd_mask_a,cmd_pc_b,cmd_mask_b,stack_full,redirect_valid,redirect_warp,fault_valid,fault_warp,fault_pc,fault_cause,fault_lane,fault_addr);
    top$sm$0$oc$rf$read_zero$0 s_valid(
    top$sm$0$sched$last s_warp(
    top$sm$0$oc$cu_data$0 s_pc(
    top$sm$0$oc$cu_data$0 s_imm(
    top$sm$0$oc$cu_data$0 s_recon(
    top$sm$0$bu$s_mask s_mask(
    top$sm$0$bu$s_mask s_taken(
    top$sm$0$bu$s_mask s_group(
    top$sm$0$oc$cu_data$0 s_target(
    top$sm$0$alu$tag_q$0 s_first(
    top$sm$0$oc$cu_data$0 s_a_first(
    top$sm$0$oc$cu_data$0 s_ra_first(
    top$sm$0$oc$rf$read_zero$0 s_branch(
    top$sm$0$oc$rf$read_zero$0 s_jal(
    top$sm$0$oc$rf$read_zero$0 s_jalr(
    top$sm$0$oc$rf$read_zero$0 s_rd_zero(
    top$sm$0$oc$rf$read_zero$0 s_exit(
    top$sm$0$oc$rf$read_zero$0 s_tmc(
    top$sm$0$oc$rf$read_zero$0 s_phase2(
    top$sm$0$oc$rf$read_zero$0 redir(
    top$sm$0$sched$last redir_warp(
    top$sm$0$bu$pk_taken pk_taken(
    top$sm$0$bu$pk_taken pk_group(
endmodule // top$sm$0$bu
module top$sm$0$bu$pk_taken(d$0,d$1,d$2,d$3,q);
endmodule // top$sm$0$bu$pk_taken
module top$sm$0$bu$s_mask(d,q,clock);
endmodule // top$sm$0$bu$s_mask
module top$sm$0$ctrs(clock,reset,issued,idle,conflict$0,conflict$1,conflict$2,conflict$3,ctr_issued,ctr_idle,ctr_conflicts);
    top$sm$0$oc$cu_data$0 n_issued(
    top$sm$0$oc$cu_data$0 n_idle(
    top$sm$0$oc$cu_data$0 n_conflicts(
endmodule // top$sm$0$ctrs
module top$sm$0$dec_h$0(word,rd,rd_valid,rs1,rs1_valid,rs2,rs2_valid,is_bar,is_branch);
endmodule // top$sm$0$dec_h$0
module top$sm$0$dec_i(word,illegal,is_ecall,is_ebreak,unit,is_load,is_store,is_branch,is_jal,is_jalr,is_csr,is_exit,is_bar,is_tmc,is_control,alu_op,cmp,md_op,mem_size,mem_unsigned,a_pc,a_zero,b_imm,b_four,imm,rd,rd_valid,rs1,rs1_valid,rs2,rs2_valid,csr,csr_step);
endmodule // top$sm$0$dec_i
module top$sm$0$div(clock,reset,in_valid,in_ready,in_op,in_tag,in_mask$0,in_mask$1,in_mask$2,in_mask$3,in_a$0,in_a$1,in_a$2,in_a$3,in_b$0,in_b$1,in_b$2,in_b$3,out_valid,out_tag,out_mask$0,out_mask$1,out_mask$2,out_mask$3,out_result$0,out_result$1,out_result$2,out_result$3);
    top$sm$0$div$lane$0 lane$0(
    top$sm$0$div$lane$0 lane$1(
    top$sm$0$div$lane$0 lane$2(
    top$sm$0$div$lane$0 lane$3(
    top$sm$0$oc$rf$read_zero$0 busy_q(
    top$sm$0$div$count_q count_q(
    top$sm$0$oc$rf$read_zero$0 rem_q(
    top$sm$0$alu$tag_q$0 tag_q(
    top$sm$0$oc$rf$read_zero$0 done_q(
endmodule // top$sm$0$div
module top$sm$0$div$count_q(d,q,clock);
endmodule // top$sm$0$div$count_q
module top$sm$0$div$lane$0(clock,load,step,finish,signed_op,want_rem,a,b,active,result,active_out);
    top$sm$0$oc$cu_data$0 r_q(
    top$sm$0$oc$cu_data$0 q_q(
    top$sm$0$oc$cu_data$0 d_q(
    top$sm$0$oc$rf$read_zero$0 neg_quot_q(
    top$sm$0$oc$rf$read_zero$0 neg_rem_q(
    top$sm$0$oc$rf$read_zero$0 active_q(
    top$sm$0$oc$cu_data$0 res_q(
endmodule // top$sm$0$div$lane$0
module top$sm$0$faults(clock,reset,issue$valid,issue$warp,issue$pc,issue$cause,issue$lane,issue$addr,branch$valid,branch$warp,branch$pc,branch$cause,branch$lane,branch$addr,lsu$valid,lsu$warp,lsu$pc,lsu$cause,lsu$lane,lsu$addr,valid,warp,pc,cause,lane,addr);
    top$sm$0$oc$rf$read_zero$0 f_valid(
    top$sm$0$sched$last f_warp(
    top$sm$0$oc$cu_data$0 f_pc(
    top$sm$0$bu$s_mask f_cause(
    top$sm$0$alu$tag_q$0 f_lane(
    top$sm$0$oc$cu_data$0 f_addr(
endmodule // top$sm$0$faults
module top$sm$0$fetch(clock,reset,load_valid,load_addr,load_word,load_recon,redirect$0,redirect$1,redirect$2,redirect$3,redirect_pc$0,redirect_pc$1,redirect_pc$2,redirect_pc$3,tos_rpc$0,tos_rpc$1,tos_rpc$2,tos_rpc$3,head_valid$0,head_valid$1,head_valid$2,head_valid$3,head_pc$0,head_pc$1,head_pc$2,head_pc$3,head_word$0,head_word$1,head_word$2,head_word$3,head_recon$0,head_recon$1,head_recon$2,head_recon$3,head_fault$0,head_fault$1,head_fault$2,head_fault$3,head_ends$0,head_ends$1,head_ends$2,head_ends$3,pop,pop_warp,ev_fetch,ev_fetch_warp);
    top$sm$0$fetch$imem imem(
    top$sm$0$fetch$fpc fpc(
    top$sm$0$fetch$en en(
    top$sm$0$fetch$en fl(
    top$sm$0$fetch$last last(
    top$sm$0$fetch$rd_pc rd_pc(
    top$sm$0$fetch$rd_fault rd_fault(
    top$sm$0$fetch$bv bv(
    top$sm$0$fetch$bpc bpc(
    top$sm$0$fetch$bpc bword(
    top$sm$0$fetch$bpc brecon(
    top$sm$0$fetch$bv bfault(
    top$sm$0$fetch$bv bends(
endmodule // top$sm$0$fetch
module top$sm$0$fetch$bpc(clock,d$0,d$1,d$2,d$3,d$4,d$5,d$6,d$7,q$0,q$1,q$2,q$3,q$4,q$5,q$6,q$7);
endmodule // top$sm$0$fetch$bpc
module top$sm$0$fetch$bv(clock,d$0,d$1,d$2,d$3,d$4,d$5,d$6,d$7,q$0,q$1,q$2,q$3,q$4,q$5,q$6,q$7);
endmodule // top$sm$0$fetch$bv
module top$sm$0$fetch$en(clock,d$0,d$1,d$2,d$3,q$0,q$1,q$2,q$3);
endmodule // top$sm$0$fetch$en
module top$sm$0$fetch$fpc(clock,d$0,d$1,d$2,d$3,q$0,q$1,q$2,q$3);
endmodule // top$sm$0$fetch$fpc
module top$sm$0$fetch$imem(clock,read_enable,read_pc,read_word,read_recon,write_enable,write_index,write_word,write_recon);
endmodule // top$sm$0$fetch$imem
module top$sm$0$fetch$last(clock,d$0,q$0);
endmodule // top$sm$0$fetch$last
module top$sm$0$fetch$rd_fault(clock,d$0,q$0);
endmodule // top$sm$0$fetch$rd_fault
module top$sm$0$fetch$rd_pc(clock,d$0,q$0);
endmodule // top$sm$0$fetch$rd_pc
module top$sm$0$lsu(clock,reset,in_valid,in_ready,in_tag,in_warp,in_store,in_size,in_unsigned,in_mask$0,in_mask$1,in_mask$2,in_mask$3,in_base$0,in_base$1,in_base$2,in_base$3,in_offset,in_data$0,in_data$1,in_data$2,in_data$3,in_smem_base,in_smem_size,mem$req_valid,mem$req_ready,mem$req_write,mem$req_addr,mem$req_size,mem$req_data,mem$resp_valid,mem$resp_data,out_valid,out_ready,out_tag,out_warp,out_store,out_size,out_mask$0,out_mask$1,out_mask$2,out_mask$3,out_data$0,out_data$1,out_data$2,out_data$3,out_addr$0,out_addr$1,out_addr$2,out_addr$3,out_sdata$0,out_sdata$1,out_sdata$2,out_sdata$3,fault_valid,fault_tag,fault_warp,fault_cause,fault_lane,fault_addr,clear_valid,clear_base,clear_bytes,clear_busy);
    top$sm$0$lsu$sram sram(
    top$sm$0$lsu$gext gext(
    top$sm$0$lsu$gext sext(
    top$sm$0$fetch$fpc addr_r(
    top$sm$0$fetch$fpc sdata_r(
    top$sm$0$fetch$fpc data_r(
    top$sm$0$fetch$en mask_r(
    top$sm$0$fetch$en pend_r(
    top$sm$0$fetch$en rpend_r(
    top$sm$0$fetch$en shared_r(
    top$sm$0$fetch$en sread_r(
    top$sm$0$oc$rf$read_zero$0 busy_q(
    top$sm$0$alu$tag_q$0 tag_q(
    top$sm$0$sched$last warp_q(
    top$sm$0$oc$rf$read_zero$0 store_q(
    top$sm$0$lsu$size_q size_q(
    top$sm$0$oc$rf$read_zero$0 unsigned_q(
    top$sm$0$oc$cu_data$0 sbase_q(
    top$sm$0$oc$rf$read_zero$0 sread_q(
    top$sm$0$lsu$size_q soff_q(
    top$sm$0$oc$rf$read_zero$0 fault_q(
    top$sm$0$alu$tag_q$0 ftag_q(
    top$sm$0$sched$last fwarp_q(
    top$sm$0$bu$s_mask fcause_q(
    top$sm$0$alu$tag_q$0 flane_q(
    top$sm$0$oc$cu_data$0 faddr_q(
    top$sm$0$oc$cu_data$0 clr_ptr_q(
    top$sm$0$oc$cu_data$0 clr_left_q(
endmodule // top$sm$0$lsu
module top$sm$0$lsu$gext(raw,off,size,zero_ext,value);
endmodule // top$sm$0$lsu$gext
module top$sm$0$lsu$size_q(d,q,clock);
endmodule // top$sm$0$lsu$size_q
module top$sm$0$lsu$sram(clock,enable,write,addr,wdata,rdata);
endmodule // top$sm$0$lsu$sram
module top$sm$0$mul(clock,reset,in_valid,in_op,in_tag,in_mask$0,in_mask$1,in_mask$2,in_mask$3,in_a$0,in_a$1,in_a$2,in_a$3,in_b$0,in_b$1,in_b$2,in_b$3,out_valid,out_tag,out_mask$0,out_mask$1,out_mask$2,out_mask$3,out_result$0,out_result$1,out_result$2,out_result$3);
    top$sm$0$mul$lane$0 lane$0(
    top$sm$0$mul$lane$0 lane$1(
    top$sm$0$mul$lane$0 lane$2(
    top$sm$0$mul$lane$0 lane$3(
    top$sm$0$oc$rf$read_zero$0 valid_q$0(
    top$sm$0$oc$rf$read_zero$0 valid_q$1(
    top$sm$0$oc$rf$read_zero$0 valid_q$2(
    top$sm$0$alu$tag_q$0 tag_q$0(
    top$sm$0$alu$tag_q$0 tag_q$1(
    top$sm$0$alu$tag_q$0 tag_q$2(
endmodule // top$sm$0$mul
module top$sm$0$mul$lane$0(clock,op,a,b,active,result,active_out);
    top$sm$0$oc$cu_data$0 s1_ll$0(
    top$sm$0$oc$cu_data$0 s1_lh$0(
    top$sm$0$oc$cu_data$0 s1_hl$0(
    top$sm$0$oc$cu_data$0 s1_hh$0(
    top$sm$0$oc$cu_data$0 s1_corr$0(
    top$sm$0$oc$rf$read_zero$0 s1_hi$0(
    top$sm$0$oc$rf$read_zero$0 s1_active$0(
    top$sm$0$oc$cu_data$0 res_q$0(
    top$sm$0$oc$cu_data$0 res_q$1(
    top$sm$0$oc$rf$read_zero$0 active_q$0(
    top$sm$0$oc$rf$read_zero$0 active_q$1(
endmodule // top$sm$0$mul$lane$0
module top$sm$0$oc(clock,reset,issue_valid,issue_ready,issue_warp,issue_src$0,issue_src$1,issue_src$2,issue_need$0,issue_need$1,issue_need$2,issue_payload,wb_valid,wb_warp,wb_rd,wb_mask$0,wb_mask$1,wb_mask$2,wb_mask$3,wb_data$0,wb_data$1,wb_data$2,wb_data$3,disp_valid,disp_ready,disp_cu,disp_warp,disp_payload,disp_data$0,disp_data$1,disp_data$2,disp_data$3,disp_data$4,disp_data$5,disp_data$6,disp_data$7,disp_data$8,disp_data$9,disp_data$10,disp_data$11,ev_alloc,ev_alloc_cu,ev_grant$0,ev_grant$1,ev_grant$2,ev_grant$3,ev_grant_cu$0,ev_grant_cu$1,ev_grant_cu$2,ev_grant_cu$3,ev_grant_src$0,ev_grant_src$1,ev_grant_src$2,ev_grant_src$3,ev_conflict$0,ev_conflict$1,ev_conflict$2,ev_conflict$3,ev_write$0,ev_write$1,ev_write$2,ev_write$3);
    top$sm$0$oc$rf rf(
    top$sm$0$oc$rf$read_zero$0 cu_valid$0(
    top$sm$0$oc$rf$read_zero$0 cu_valid$1(
    top$sm$0$sched$last cu_warp$0(
    top$sm$0$sched$last cu_warp$1(
    top$sm$0$oc$cu_payload$0 cu_payload$0(
    top$sm$0$oc$cu_payload$0 cu_payload$1(
    top$sm$0$oc$cu_reg$0 cu_reg$0(
    top$sm$0$oc$cu_reg$0 cu_reg$1(
    top$sm$0$oc$cu_reg$0 cu_reg$2(
    top$sm$0$oc$cu_reg$0 cu_reg$3(
    top$sm$0$oc$cu_reg$0 cu_reg$4(
    top$sm$0$oc$cu_reg$0 cu_reg$5(
    top$sm$0$oc$rf$read_zero$0 cu_pend$0(
    top$sm$0$oc$rf$read_zero$0 cu_pend$1(
    top$sm$0$oc$rf$read_zero$0 cu_pend$2(
    top$sm$0$oc$rf$read_zero$0 cu_pend$3(
    top$sm$0$oc$rf$read_zero$0 cu_pend$4(
    top$sm$0$oc$rf$read_zero$0 cu_pend$5(
    top$sm$0$oc$rf$read_zero$0 cu_arr$0(
    top$sm$0$oc$rf$read_zero$0 cu_arr$1(
    top$sm$0$oc$rf$read_zero$0 cu_arr$2(
    top$sm$0$oc$rf$read_zero$0 cu_arr$3(
    top$sm$0$oc$rf$read_zero$0 cu_arr$4(
    top$sm$0$oc$rf$read_zero$0 cu_arr$5(
    top$sm$0$oc$cu_data$0 cu_data$0(
    top$sm$0$oc$cu_data$0 cu_data$1(
    top$sm$0$oc$cu_data$0 cu_data$2(
    top$sm$0$oc$cu_data$0 cu_data$3(
    top$sm$0$oc$cu_data$0 cu_data$4(
    top$sm$0$oc$cu_data$0 cu_data$5(
    top$sm$0$oc$cu_data$0 cu_data$6(
    top$sm$0$oc$cu_data$0 cu_data$7(
    top$sm$0$oc$cu_data$0 cu_data$8(
    top$sm$0$oc$cu_data$0 cu_data$9(
    top$sm$0$oc$cu_data$0 cu_data$10(
    top$sm$0$oc$cu_data$0 cu_data$11(
    top$sm$0$oc$cu_data$0 cu_data$12(
    top$sm$0$oc$cu_data$0 cu_data$13(
    top$sm$0$oc$cu_data$0 cu_data$14(
    top$sm$0$oc$cu_data$0 cu_data$15(
    top$sm$0$oc$cu_data$0 cu_data$16(
    top$sm$0$oc$cu_data$0 cu_data$17(
    top$sm$0$oc$cu_data$0 cu_data$18(
    top$sm$0$oc$cu_data$0 cu_data$19(
    top$sm$0$oc$cu_data$0 cu_data$20(
    top$sm$0$oc$cu_data$0 cu_data$21(
    top$sm$0$oc$cu_data$0 cu_data$22(
    top$sm$0$oc$cu_data$0 cu_data$23(
    top$sm$0$oc$cu_reg$0 cu_abank$0(
    top$sm$0$oc$cu_reg$0 cu_abank$1(
    top$sm$0$oc$rf$read_zero$0 cu_dep$0(
    top$sm$0$oc$rf$read_zero$0 cu_dep$1(
    top$sm$0$oc$rf$read_zero$0 cu_dep$2(
    top$sm$0$oc$rf$read_zero$0 cu_dep$3(
    top$sm$0$sched$last rr$0(
    top$sm$0$sched$last rr$1(
    top$sm$0$sched$last rr$2(
    top$sm$0$sched$last rr$3(
    top$sm$0$sched$last dptr(
endmodule // top$sm$0$oc
module top$sm$0$oc$cu_data$0(d,q,clock);
endmodule // top$sm$0$oc$cu_data$0
module top$sm$0$oc$cu_payload$0(d,q,clock);
endmodule // top$sm$0$oc$cu_payload$0
module top$sm$0$oc$cu_reg$0(d,q,clock);
endmodule // top$sm$0$oc$cu_reg$0
module top$sm$0$oc$rf(clock,read_enable$0,read_enable$1,read_enable$2,read_enable$3,read_warp$0,read_warp$1,read_warp$2,read_warp$3,read_reg$0,read_reg$1,read_reg$2,read_reg$3,read_data$0,read_data$1,read_data$2,read_data$3,read_data$4,read_data$5,read_data$6,read_data$7,read_data$8,read_data$9,read_data$10,read_data$11,read_data$12,read_data$13,read_data$14,read_data$15,write_enable,write_warp,write_reg,write_mask$0,write_mask$1,write_mask$2,write_mask$3,write_data$0,write_data$1,write_data$2,write_data$3);
    top$sm$0$oc$rf$ram$0 ram$0(
    top$sm$0$oc$rf$ram$0 ram$1(
    top$sm$0$oc$rf$ram$0 ram$2(
    top$sm$0$oc$rf$ram$0 ram$3(
    top$sm$0$oc$rf$ram$0 ram$4(
    top$sm$0$oc$rf$ram$0 ram$5(
    top$sm$0$oc$rf$ram$0 ram$6(
    top$sm$0$oc$rf$ram$0 ram$7(
    top$sm$0$oc$rf$ram$0 ram$8(
    top$sm$0$oc$rf$ram$0 ram$9(
    top$sm$0$oc$rf$ram$0 ram$10(
    top$sm$0$oc$rf$ram$0 ram$11(
    top$sm$0$oc$rf$ram$0 ram$12(
    top$sm$0$oc$rf$ram$0 ram$13(
    top$sm$0$oc$rf$ram$0 ram$14(
    top$sm$0$oc$rf$ram$0 ram$15(
    top$sm$0$oc$rf$read_zero$0 read_zero$0(
    top$sm$0$oc$rf$read_zero$0 read_zero$1(
    top$sm$0$oc$rf$read_zero$0 read_zero$2(
    top$sm$0$oc$rf$read_zero$0 read_zero$3(
endmodule // top$sm$0$oc$rf
module top$sm$0$oc$rf$ram$0(clock,read_enable,read_warp,read_reg,read_data,write_enable,write_warp,write_reg,write_data);
endmodule // top$sm$0$oc$rf$ram$0
module top$sm$0$oc$rf$read_zero$0(d,q,clock);
endmodule // top$sm$0$oc$rf$read_zero$0
module top$sm$0$pack_wb(d$0,d$1,d$2,d$3,q);
endmodule // top$sm$0$pack_wb
module top$sm$0$pk_g8(d$0,q);
endmodule // top$sm$0$pk_g8
module top$sm$0$pk_gw(d$0,q);
endmodule // top$sm$0$pk_gw
module top$sm$0$pk_imask(d$0,q);
endmodule // top$sm$0$pk_imask
module top$sm$0$pk_j16(d$0,q);
endmodule // top$sm$0$pk_j16
module top$sm$0$pk_tag16(d$0,q);
endmodule // top$sm$0$pk_tag16
module top$sm$0$pk_take(d$0,d$1,d$2,d$3,q);
endmodule // top$sm$0$pk_take
module top$sm$0$pk_wbm(d$0,d$1,d$2,d$3,q);
endmodule // top$sm$0$pk_wbm
module top$sm$0$sb(clock,reset,clear$0,clear$1,clear$2,clear$3,chk_rd$0,chk_rd$1,chk_rd$2,chk_rd$3,chk_rd_valid$0,chk_rd_valid$1,chk_rd_valid$2,chk_rd_valid$3,chk_rs1$0,chk_rs1$1,chk_rs1$2,chk_rs1$3,chk_rs1_valid$0,chk_rs1_valid$1,chk_rs1_valid$2,chk_rs1_valid$3,chk_rs2$0,chk_rs2$1,chk_rs2$2,chk_rs2$3,chk_rs2_valid$0,chk_rs2_valid$1,chk_rs2_valid$2,chk_rs2_valid$3,ok$0,ok$1,ok$2,ok$3,idle$0,idle$1,idle$2,idle$3,rsv_valid,rsv_warp,rsv_rd,rel0_valid,rel0_warp,rel0_rd,rel1_valid,rel1_warp,rel1_rd);
    top$sm$0$sb$warp$0 warp$0(
    top$sm$0$sb$warp$0 warp$1(
    top$sm$0$sb$warp$0 warp$2(
    top$sm$0$sb$warp$0 warp$3(
endmodule // top$sm$0$sb
module top$sm$0$sb$warp$0(clock,reset,clear,rd,rd_valid,rs1,rs1_valid,rs2,rs2_valid,ok,idle,rsv,rsv_rd,rel0,rel0_rd,rel1,rel1_rd);
    top$sm$0$fetch$en valid(
    top$sm$0$sb$warp$0$dst dst(
endmodule // top$sm$0$sb$warp$0
module top$sm$0$sb$warp$0$dst(clock,d$0,d$1,d$2,d$3,q$0,q$1,q$2,q$3);
endmodule // top$sm$0$sb$warp$0$dst
module top$sm$0$sched(clock,reset,ready$0,ready$1,ready$2,ready$3,issued,launch$0,launch$1,launch$2,launch$3,grant_valid,grant_warp,grant$0,grant$1,grant$2,grant$3);
    top$sm$0$sched$last last(
    top$sm$0$fetch$rd_fault greedy(
    top$sm$0$sched$order order(
    top$sm$0$sched$act act(
endmodule // top$sm$0$sched
module top$sm$0$sched$act(clock);
endmodule // top$sm$0$sched$act
module top$sm$0$sched$last(d,q,clock);
endmodule // top$sm$0$sched$last
module top$sm$0$sched$order(clock,d$0,d$1,d$2,d$3,q$0,q$1,q$2,q$3);
endmodule // top$sm$0$sched$order
module top$sm$0$slot(clock,d$0,d$1,d$2,d$3,d$4,d$5,d$6,d$7,d$8,d$9,d$10,d$11,d$12,d$13,d$14,d$15,d$16,d$17,d$18,d$19,d$20,d$21,d$22,d$23,d$24,d$25,d$26,d$27,d$28,d$29,d$30,d$31,d$32,d$33,d$34,q$0,q$1,q$2,q$3,q$4,q$5,q$6,q$7,q$8,q$9,q$10,q$11,q$12,q$13,q$14,q$15,q$16,q$17,q$18,q$19,q$20,q$21,q$22,q$23,q$24,q$25,q$26,q$27,q$28,q$29,q$30,q$31,q$32,q$33,q$34);
endmodule // top$sm$0$slot
module top$sm$0$stack(clock,rst,cmd_op,cmd_warp,cmd_rpc,cmd_pc_a,cmd_mask_a,cmd_pc_b,cmd_mask_b,dbg_warp,dbg_entry,tos_pc$0,tos_pc$1,tos_pc$2,tos_pc$3,tos_rpc$0,tos_rpc$1,tos_rpc$2,tos_rpc$3,tos_mask$0,tos_mask$1,tos_mask$2,tos_mask$3,empty$0,empty$1,empty$2,empty$3,full$0,full$1,full$2,full$3,depth$0,depth$1,depth$2,depth$3,overflow,dbg_valid,dbg_rpc,dbg_pc,dbg_mask);
    top$sm$0$stack$stacks$0 stacks$0(
    top$sm$0$stack$stacks$0 stacks$1(
    top$sm$0$stack$stacks$0 stacks$2(
    top$sm$0$stack$stacks$0 stacks$3(
    top$sm$0$oc$rf$read_zero$0 overflow_r(
endmodule // top$sm$0$stack
module top$sm$0$stack$stacks$0(clock,rst,sel,is_reset,is_set_pc,is_split,is_exit,push_rpc,new_tos_pc,pc_a,mask_a,recon_a,pc_b,mask_b,recon_b,dbg_entry,tos_pc,tos_rpc,tos_mask,empty,full,depth,ovf,dbg_valid,dbg_rpc,dbg_pc,dbg_mask);
    top$sm$0$oc$rf$read_zero$0 valid$0(
    top$sm$0$oc$rf$read_zero$0 valid$1(
    top$sm$0$oc$rf$read_zero$0 valid$2(
    top$sm$0$oc$rf$read_zero$0 valid$3(
    top$sm$0$oc$rf$read_zero$0 valid$4(
    top$sm$0$oc$rf$read_zero$0 valid$5(
    top$sm$0$oc$rf$read_zero$0 valid$6(
    top$sm$0$oc$cu_data$0 rpc$0(
    top$sm$0$oc$cu_data$0 rpc$1(
    top$sm$0$oc$cu_data$0 rpc$2(
    top$sm$0$oc$cu_data$0 rpc$3(
    top$sm$0$oc$cu_data$0 rpc$4(
    top$sm$0$oc$cu_data$0 rpc$5(
    top$sm$0$oc$cu_data$0 rpc$6(
    top$sm$0$oc$cu_data$0 pc$0(
    top$sm$0$oc$cu_data$0 pc$1(
    top$sm$0$oc$cu_data$0 pc$2(
    top$sm$0$oc$cu_data$0 pc$3(
    top$sm$0$oc$cu_data$0 pc$4(
    top$sm$0$oc$cu_data$0 pc$5(
    top$sm$0$oc$cu_data$0 pc$6(
    top$sm$0$bu$s_mask mask$0(
    top$sm$0$bu$s_mask mask$1(
    top$sm$0$bu$s_mask mask$2(
    top$sm$0$bu$s_mask mask$3(
    top$sm$0$bu$s_mask mask$4(
    top$sm$0$bu$s_mask mask$5(
    top$sm$0$bu$s_mask mask$6(
    top$sm$0$oc$rf$read_zero$0 recon$0(
    top$sm$0$oc$rf$read_zero$0 recon$1(
    top$sm$0$oc$rf$read_zero$0 recon$2(
    top$sm$0$oc$rf$read_zero$0 recon$3(
    top$sm$0$oc$rf$read_zero$0 recon$4(
    top$sm$0$oc$rf$read_zero$0 recon$5(
    top$sm$0$oc$rf$read_zero$0 recon$6(
endmodule // top$sm$0$stack$stacks$0
module top$sm$0$tags(clock,reset,free_tag,any_free,busy$0,busy$1,busy$2,busy$3,alloc_valid,alloc_warp,alloc_pc,alloc_instr,alloc_recon,alloc_csr,alloc_mask,alloc_ends,alloc_rd,rel_valid$0,rel_valid$1,rel_valid$2,rel_tag$0,rel_tag$1,rel_tag$2,disp_tag,disp_pc,disp_instr,disp_recon,disp_csr,disp_mask,disp_ends,wb_tag,wb_warp,wb_rd,wb_instr,fault_tag,fault_pc);
    top$sm$0$tags$t_valid t_valid(
    top$sm$0$tags$t_warp t_warp(
    top$sm$0$tags$t_pc t_pc(
    top$sm$0$tags$t_pc t_instr(
    top$sm$0$tags$t_pc t_recon(
    top$sm$0$tags$t_pc t_csr(
    top$sm$0$tags$t_mask t_mask(
    top$sm$0$tags$t_valid t_ends(
    top$sm$0$tags$t_rd t_rd(
endmodule // top$sm$0$tags
module top$sm$0$tags$t_mask(clock,d$0,d$1,d$2,d$3,d$4,d$5,q$0,q$1,q$2,q$3,q$4,q$5);
endmodule // top$sm$0$tags$t_mask
module top$sm$0$tags$t_pc(clock,d$0,d$1,d$2,d$3,d$4,d$5,q$0,q$1,q$2,q$3,q$4,q$5);
endmodule // top$sm$0$tags$t_pc
module top$sm$0$tags$t_rd(clock,d$0,d$1,d$2,d$3,d$4,d$5,q$0,q$1,q$2,q$3,q$4,q$5);
endmodule // top$sm$0$tags$t_rd
module top$sm$0$tags$t_valid(clock,d$0,d$1,d$2,d$3,d$4,d$5,q$0,q$1,q$2,q$3,q$4,q$5);
endmodule // top$sm$0$tags$t_valid
module top$sm$0$tags$t_warp(clock,d$0,d$1,d$2,d$3,d$4,d$5,q$0,q$1,q$2,q$3,q$4,q$5);
endmodule // top$sm$0$tags$t_warp
module top$sm$0$u1(d$0,d$1,d$2,d$3,d$4,d$5,d$6,d$7,d$8,d$9,d$10,d$11,d$12,d$13,d$14,d$15,d$16,d$17,d$18,d$19,d$20,d$21,d$22,d$23,d$24,d$25,d$26,d$27,d$28,d$29,d$30,d$31,d$32,d$33,d$34,d$35,d$36,d$37,d$38,d$39,d$40,d$41,d$42,d$43,d$44,d$45,d$46,d$47);
endmodule // top$sm$0$u1
module top$sm$0$u12(d$0);
endmodule // top$sm$0$u12
module top$sm$0$u2(d$0,d$1,d$2,d$3,d$4,d$5,d$6);
endmodule // top$sm$0$u2
module top$sm$0$u3(d$0,d$1);
endmodule // top$sm$0$u3
module top$sm$0$u32(d$0,d$1,d$2);
endmodule // top$sm$0$u32
module top$sm$0$u4(d$0);
endmodule // top$sm$0$u4
module top$sm$0$u5(d$0,d$1,d$2);
endmodule // top$sm$0$u5
module top$sm$0$u6(d$0,d$1,d$2,d$3,d$4,d$5,d$6);
endmodule // top$sm$0$u6
module top$sm$0$u8(d$0);
endmodule // top$sm$0$u8
module top$sm$0$u9(d$0,d$1,d$2,d$3);
endmodule // top$sm$0$u9
module top$sm$0$u_full(d$0,d$1,d$2,d$3);
endmodule // top$sm$0$u_full
module top$sm$0$w_cta(clock,d$0,d$1,d$2,d$3,q$0,q$1,q$2,q$3);
endmodule // top$sm$0$w_cta
