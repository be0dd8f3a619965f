//! `from_words`: functions, CFG rules and the reconvergence sidecar.

mod asm;

use asm::*;
use warpforge_isa::{encode, Instr, Reconvergence};
use warpforge_loader::{from_words, Function, KernelImage, LoadError};

fn load(a: &Asm, entry: &str, functions: &[&str]) -> Result<KernelImage, LoadError> {
    let starts: Vec<u32> = functions.iter().map(|f| a.addr(f)).collect();
    from_words(a.addr(entry), a.finish(), &starts)
}

/// All non-`None` sidecar entries as (pc, value).
fn sidecars(k: &KernelImage) -> Vec<(u32, Reconvergence)> {
    k.sidecar
        .iter()
        .enumerate()
        .filter(|(_, r)| **r != Reconvergence::None)
        .map(|(i, r)| (i as u32 * 4, *r))
        .collect()
}

#[test]
fn if_else_diamond_reconverges_at_the_join() {
    let mut a = Asm::new();
    a.label("f").beq(A0, ZERO, "else");
    a.addi(A1, A1, 1).j("join");
    a.label("else").addi(A1, A1, 2);
    a.label("join").addi(A2, A1, 0).exit();
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(0, Reconvergence::At(a.addr("join")))]);
    assert_eq!(k.sidecar.len(), k.text.len());
    assert_eq!(k.entry, 0);
    assert_eq!(
        k.functions,
        vec![Function {
            name: "fn_00000000".into(),
            start: 0,
            end: 0x18
        }]
    );
}

#[test]
fn if_without_else_reconverges_after_the_then_part() {
    let mut a = Asm::new();
    a.label("f").bne(A0, ZERO, "join");
    a.addi(A1, A1, 1).addi(A1, A1, 1);
    a.label("join").exit();
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(0, Reconvergence::At(a.addr("join")))]);
}

#[test]
fn loop_with_data_dependent_exit() {
    let mut a = Asm::new();
    a.label("f").addi(T0, ZERO, 0);
    a.label("loop").addi(T0, T0, 1);
    a.label("back").blt(T0, A0, "loop");
    a.label("after").exit();
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(
        sidecars(&k),
        vec![(a.addr("back"), Reconvergence::At(a.addr("after")))]
    );
}

#[test]
fn loop_with_break_reconverges_after_the_loop() {
    let mut a = Asm::new();
    a.label("f");
    a.label("loop").addi(T0, T0, 1);
    a.label("brk").beq(T0, A1, "out");
    a.addi(A2, A2, 1);
    a.label("back").blt(T0, A0, "loop");
    a.label("out").exit();
    let k = load(&a, "f", &[]).unwrap();
    let out = Reconvergence::At(a.addr("out"));
    assert_eq!(
        sidecars(&k),
        vec![(a.addr("brk"), out), (a.addr("back"), out)]
    );
}

/// Book Fig. 3.2: `do { A; if (a) { B; if (b) C else D; E } else F; G } while (c);`
#[test]
fn nested_ifs_in_a_loop_fig_3_2() {
    let mut a = Asm::new();
    a.label("A").addi(T0, T0, 1);
    a.label("if_a").beq(A0, ZERO, "F");
    a.label("B").addi(T0, T0, 2);
    a.label("if_b").beq(A1, ZERO, "D");
    a.label("C").addi(T0, T0, 3).j("E");
    a.label("D").addi(T0, T0, 4);
    a.label("E").addi(T0, T0, 5).j("G");
    a.label("F").addi(T0, T0, 6);
    a.label("G").addi(T0, T0, 7);
    a.label("while").bne(A2, ZERO, "A");
    a.label("end").exit();
    let k = load(&a, "A", &[]).unwrap();
    assert_eq!(
        sidecars(&k),
        vec![
            (a.addr("if_a"), Reconvergence::At(a.addr("G"))),
            (a.addr("if_b"), Reconvergence::At(a.addr("E"))),
            (a.addr("while"), Reconvergence::At(a.addr("end"))),
        ]
    );
}

#[test]
fn exit_on_one_side_return_on_the_other_in_a_leaf_is_at_return() {
    let mut a = Asm::new();
    a.label("main").call("leaf").exit();
    a.label("leaf").label("br").blt(A0, A1, "done");
    a.exit();
    a.label("done").ret();
    let k = load(&a, "main", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(a.addr("br"), Reconvergence::AtReturn)]);
    // The call target became a function automatically.
    let names: Vec<(&str, u32, u32)> = k
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.start, f.end))
        .collect();
    assert_eq!(names, vec![("fn_00000000", 0, 8), ("fn_00000008", 8, 0x14)]);
}

#[test]
fn two_returns_in_a_leaf_is_at_return() {
    let mut a = Asm::new();
    a.label("main").call("pick").exit();
    a.label("pick").label("br").blt(A0, ZERO, "neg");
    a.addi(A0, A0, 1).ret();
    a.label("neg").addi(A0, A0, -1).ret();
    let k = load(&a, "main", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(a.addr("br"), Reconvergence::AtReturn)]);
}

#[test]
fn both_sides_exit_is_never_even_in_a_function_that_writes_ra() {
    let mut a = Asm::new();
    a.label("main").call("g");
    a.label("br").beq(A0, ZERO, "other");
    a.addi(A1, A1, 1).exit();
    a.label("other").addi(A1, A1, 2).exit();
    a.label("g").ret();
    let k = load(&a, "main", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(a.addr("br"), Reconvergence::Never)]);
}

#[test]
fn undecodable_words_and_ecall_are_exits() {
    let mut a = Asm::new();
    a.label("f").label("br1").beq(A0, ZERO, "two");
    a.word(0); // illegal: faults if executed
    a.label("two").label("br2").bne(A1, ZERO, "three");
    a.i(Instr::Ecall);
    a.label("three").i(Instr::Ebreak);
    // Unreachable garbage after the function does not matter, not even an indirect jump.
    a.word(0xffff_ffff).jalr(ZERO, A5, 0).bne(A0, ZERO, "f");
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(
        sidecars(&k),
        vec![
            (a.addr("br1"), Reconvergence::Never),
            (a.addr("br2"), Reconvergence::Never)
        ]
    );
}

#[test]
fn two_returns_in_a_non_leaf_function_is_refused() {
    let mut a = Asm::new();
    a.label("main").call("f").exit();
    a.label("f").addi(SP, SP, -16).sw(RA, 12, SP);
    a.label("c").call("g");
    a.label("br").beq(A0, ZERO, "other");
    a.addi(A0, A0, 1).ret();
    a.label("other").ret();
    a.label("g").ret();
    let err = load(&a, "main", &[]).unwrap_err();
    match &err {
        LoadError::NoReconvergence { addr, function, .. } => {
            assert_eq!(*addr, a.addr("br"));
            assert_eq!(function, "fn_00000008");
        }
        e => panic!("unexpected error {e:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("0x00000014 <fn_00000008+0xc>"), "{msg}");
    assert!(msg.contains("different return instructions"), "{msg}");
    assert!(
        msg.contains("writes ra at 0x00000010 <fn_00000008+0x8>"),
        "{msg}"
    );
}

#[test]
fn indirect_jump_is_refused() {
    let mut a = Asm::new();
    a.label("main").call("f").exit();
    a.label("f").addi(A5, A0, 0);
    a.label("jr").jalr(ZERO, A5, 0);
    let err = load(&a, "main", &[]).unwrap_err();
    assert!(
        matches!(&err, LoadError::IndirectJump { addr, function, .. }
            if *addr == a.addr("jr") && function == "fn_00000008"),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("0x0000000c <fn_00000008+0x4>"), "{msg}");
    assert!(msg.contains("jalr zero, 0(a5)"), "{msg}");
    assert!(msg.contains("-fno-jump-tables"), "{msg}");
}

#[test]
fn indirect_call_falls_through() {
    let mut a = Asm::new();
    a.label("main").beq(A0, ZERO, "join");
    a.jalr(RA, A5, 0);
    a.label("join").exit();
    let k = load(&a, "main", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(0, Reconvergence::At(a.addr("join")))]);
}

#[test]
fn branch_in_an_endless_loop_is_refused() {
    let mut a = Asm::new();
    a.label("f").addi(T0, ZERO, 0);
    a.label("loop").addi(T0, T0, 1);
    a.label("br").bne(A0, ZERO, "loop");
    a.j("loop");
    let err = load(&a, "f", &[]).unwrap_err();
    assert!(
        matches!(&err, LoadError::NoReconvergence { addr, .. } if *addr == a.addr("br")),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("no path from this branch reaches the end of the function"),
        "{msg}"
    );
    assert!(msg.contains("0x00000008 <fn_00000000+0x8>"), "{msg}");
}

#[test]
fn endless_loop_on_one_side_only_is_accepted() {
    // The threads that take the loop never come back; the others reconverge where their own
    // path goes.
    let mut a = Asm::new();
    a.label("f").label("br").beq(A0, ZERO, "spin");
    a.label("go").addi(A1, A1, 1).exit();
    a.label("spin").j("spin");
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(0, Reconvergence::At(a.addr("go")))]);
}

#[test]
fn call_inside_an_if_falls_through() {
    let mut a = Asm::new();
    a.label("main").label("br").beq(A0, ZERO, "join");
    a.call("leaf");
    a.label("join").exit();
    a.label("leaf").addi(A0, A0, 1).ret();
    let k = load(&a, "main", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(0, Reconvergence::At(a.addr("join")))]);
    assert_eq!(k.functions.len(), 2);
    assert_eq!(k.functions[1].start, a.addr("leaf"));
}

#[test]
fn tail_jump_to_another_function_is_refused() {
    let mut a = Asm::new();
    a.label("main").call("f").exit();
    a.label("f").addi(A0, A0, 1);
    a.label("tail").j("g");
    a.label("g").ret();
    let err = load(&a, "main", &["g"]).unwrap_err();
    assert!(
        matches!(&err, LoadError::TailJump { addr, target, function, .. }
            if *addr == a.addr("tail") && *target == a.addr("g") && function == "fn_00000008"),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("tail jump at 0x0000000c <fn_00000008+0x4>"),
        "{msg}"
    );
    assert!(msg.contains("leaves function fn_00000008"), "{msg}");
    assert!(msg.contains("-fno-optimize-sibling-calls"), "{msg}");
}

#[test]
fn jal_to_the_next_instruction_reads_the_pc_and_falls_through() {
    // `jal t0, 1f; 1:` (the usual way to read the pc in assembly), inside a divergent if, in a
    // function that calls another: not a call, so `next` starts no function and the branch
    // reconverges at the join. The same with ra as the link register.
    for link in [T0, RA] {
        let mut a = Asm::new();
        a.label("main").call("f").exit();
        a.label("f").label("br").beq(A0, ZERO, "join");
        a.jal(link, "next");
        a.label("next").sw(link, 0, A1);
        a.label("join").ret();
        let k = load(&a, "main", &[]).unwrap();
        let starts: Vec<u32> = k.functions.iter().map(|f| f.start).collect();
        assert_eq!(starts, vec![0, a.addr("f")], "link register x{link}");
        assert_eq!(
            sidecars(&k),
            vec![(a.addr("br"), Reconvergence::At(a.addr("join")))],
            "link register x{link}"
        );
    }
}

#[test]
fn jal_with_a_link_register_other_than_ra_is_a_jump_inside_the_function() {
    // `jal t0, join` skips the dead word after it: a jump that also writes t0, not a call.
    let mut a = Asm::new();
    a.label("f").label("br").beq(A0, ZERO, "else");
    a.addi(A1, A1, 1).jal(T0, "join");
    a.word(0); // never executed: not a successor of the jal
    a.label("else").addi(A1, A1, 2);
    a.label("join").addi(A2, T0, 0).exit();
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(k.functions.len(), 1);
    assert_eq!(
        sidecars(&k),
        vec![(a.addr("br"), Reconvergence::At(a.addr("join")))]
    );
}

#[test]
fn jal_with_a_link_register_other_than_ra_out_of_the_function_is_refused() {
    // A call through t0 (as gcc's -msave-restore emits): the loader takes only jal ra for a
    // call, so this is a jump out of the function, and the message says so.
    let mut a = Asm::new();
    a.label("main").label("jump").jal(T0, "g").exit();
    a.label("g").ret();
    let err = load(&a, "main", &["g"]).unwrap_err();
    assert!(
        matches!(&err, LoadError::LinkedJump { addr, target, rd: T0, .. }
            if *addr == a.addr("jump") && *target == a.addr("g")),
        "{err:?}"
    );
    let msg = err.to_string();
    for part in [
        "`jal t0, 0x00000008 <fn_00000008>` at 0x00000000 <fn_00000000>",
        "links in t0, not ra",
        "leaves function fn_00000000",
        "call",
        "`jal t0, 1f` followed by `1:`",
    ] {
        assert!(msg.contains(part), "{part:?} not in: {msg}");
    }
}

#[test]
fn falling_off_the_end_of_a_function_is_refused() {
    let mut a = Asm::new();
    a.label("main").call("f").exit();
    a.label("f").addi(A0, A0, 1);
    a.label("last").addi(A0, A0, 1);
    a.label("g").ret();
    let err = load(&a, "main", &["g"]).unwrap_err();
    assert!(
        matches!(&err, LoadError::LeavesFunction { addr, target, .. }
            if *addr == a.addr("last") && *target == a.addr("g")),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("0x0000000c <fn_00000008+0x4>"), "{msg}");
    assert!(msg.contains("outside function fn_00000008"), "{msg}");
}

#[test]
fn leaving_the_text_is_a_fault_not_a_load_error() {
    // Falling off the end of the text, or jumping/branching beyond it, faults at run time
    // (out-of-range-fetch): the path simply ends there.
    let words = vec![0x13]; // nop, then the end of the text
    let k = from_words(0, words, &[0]).unwrap();
    assert_eq!(sidecars(&k), vec![]);

    let mut a = Asm::new();
    a.label("f").label("br").beq(A0, ZERO, "far");
    a.addi(A1, A1, 1);
    a.label("far"); // = the end of the text
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(0, Reconvergence::Never)]);

    let mut a = Asm::new();
    a.label("f").label("br").beq(A0, ZERO, "ret");
    a.i(Instr::Jal { rd: 0, imm: 0x100 });
    a.label("ret").ret();
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(sidecars(&k), vec![(0, Reconvergence::AtReturn)]);
}

#[test]
fn branch_out_of_a_function_is_refused() {
    let mut a = Asm::new();
    a.label("main").call("f").exit();
    a.label("f").label("br").beq(A0, ZERO, "g");
    a.ret();
    a.label("g").ret();
    let err = load(&a, "main", &["g"]).unwrap_err();
    assert!(
        matches!(&err, LoadError::LeavesFunction { addr, what: "the branch", .. }
            if *addr == a.addr("br")),
        "{err:?}"
    );
}

#[test]
fn branch_to_itself_and_to_next() {
    let mut a = Asm::new();
    a.label("f").label("next").beq(A0, ZERO, "n2"); // target = pc + 4
    a.label("n2").label("self").bne(A0, ZERO, "self"); // spin while a0 != 0
    a.label("end").exit();
    let k = load(&a, "f", &[]).unwrap();
    assert_eq!(
        sidecars(&k),
        vec![
            (a.addr("next"), Reconvergence::At(a.addr("n2"))),
            (a.addr("self"), Reconvergence::At(a.addr("end"))),
        ]
    );
}

#[test]
fn misaligned_targets_fault_instead_of_jumping() {
    // A branch to pc+6 faults when taken, so its only successor is pc+4; a jal to a misaligned
    // target faults, so it ends the path.
    let mut words = vec![
        encode(&Instr::Branch {
            op: warpforge_isa::BranchOp::Beq,
            rs1: A0,
            rs2: 0,
            imm: 6,
        }),
        encode(&Instr::Branch {
            op: warpforge_isa::BranchOp::Bne,
            rs1: A0,
            rs2: 0,
            imm: 8,
        }),
        encode(&Instr::Jal { rd: 0, imm: 2 }),
    ];
    words.push(encode(&Instr::Simt {
        op: warpforge_isa::SimtOp::Exit,
        rs1: 0,
    }));
    let k = from_words(0, words, &[]).unwrap();
    assert_eq!(
        sidecars(&k),
        vec![(0, Reconvergence::At(4)), (4, Reconvergence::Never)]
    );
}

#[test]
fn entry_must_be_in_the_text() {
    let words = vec![encode(&Instr::Simt {
        op: warpforge_isa::SimtOp::Exit,
        rs1: 0,
    })];
    for entry in [4, 2, 0x8000_0000] {
        let err = from_words(entry, words.clone(), &[]).unwrap_err();
        assert!(matches!(err, LoadError::EntryOutsideText { .. }), "{err:?}");
        assert!(err.to_string().contains(&format!("0x{entry:08x}")), "{err}");
    }
}

#[test]
fn given_functions_split_the_text_and_name_lookups_work() {
    let mut a = Asm::new();
    a.label("main").call("f").exit();
    a.label("f").addi(A0, A0, 1).addi(A0, A0, 2).ret();
    a.label("unused").ret();
    let k = load(&a, "main", &["unused"]).unwrap();
    let starts: Vec<u32> = k.functions.iter().map(|f| f.start).collect();
    assert_eq!(starts, vec![0, 8, 0x14]);
    assert_eq!(k.functions[1].end, 0x14);
    assert_eq!(k.functions[2].end, 0x18);
    assert_eq!(k.function_at(0x10).unwrap().name, "fn_00000008");
    assert_eq!(k.function_at(0x14).unwrap().name, "fn_00000014");
    assert!(k.function_at(0x18).is_none());
    assert_eq!(k.describe_pc(0x10), "0x00000010 <fn_00000008+0x8>");
    assert_eq!(k.describe_pc(0x8), "0x00000008 <fn_00000008>");
    assert_eq!(k.describe_pc(0x40), "0x00000040");
    assert_eq!(
        k.instr_at(0x14),
        Some(encode(&Instr::Jalr {
            rd: 0,
            rs1: RA,
            imm: 0
        }))
    );
    assert_eq!(k.instr_at(0x16), None);
    assert_eq!(k.instr_at(0x18), None);
    assert_eq!(k.reconvergence_at(0x0), Reconvergence::None);
    assert_eq!(k.data, vec![]);
    assert_eq!(k.data_end, 0x8000_0000);
    assert_eq!(k.shared_bytes, 0);
}

#[test]
fn error_reported_is_the_lowest_address() {
    let mut a = Asm::new();
    a.label("f").beq(A0, ZERO, "x");
    a.label("j1").jalr(ZERO, A5, 0);
    a.label("x").jalr(ZERO, A2, 0);
    let err = load(&a, "f", &[]).unwrap_err();
    assert!(
        matches!(err, LoadError::IndirectJump { addr: 4, .. }),
        "{err:?}"
    );
}

#[test]
fn long_function_is_fast_and_right() {
    // 3000 if/else diamonds in a row, in a loop.
    let mut a = Asm::new();
    a.label("top");
    let n = 3000;
    for i in 0..n {
        a.label(&format!("b{i}")).beq(A0, ZERO, &format!("e{i}"));
        a.addi(T0, T0, 1).j(&format!("j{i}"));
        a.label(&format!("e{i}")).addi(T0, T0, 2);
        a.label(&format!("j{i}"));
    }
    // (A branch reaches only ±4 KiB: loop back with a jump.)
    a.label("back").beq(A1, ZERO, "end");
    a.j("top");
    a.label("end").exit();
    let t = std::time::Instant::now();
    let k = load(&a, "top", &[]).unwrap();
    assert!(t.elapsed().as_secs_f64() < 2.0, "took {:?}", t.elapsed());
    let s = sidecars(&k);
    assert_eq!(s.len(), n + 1);
    for (i, got) in s[..n].iter().enumerate() {
        // The join of the last diamond is `back`.
        let want = Reconvergence::At(a.addr(&format!("j{i}")));
        assert_eq!(*got, (a.addr(&format!("b{i}")), want));
    }
    assert_eq!(s[n], (a.addr("back"), Reconvergence::At(a.addr("end"))));
}
