//! Build every shipped kernel with the installed compiler and check the ELFs against the rules
//! of docs/isa.md and the loader; check the cases every kernel produces.

mod common;

use common::temp_dir;
use std::collections::HashSet;
use std::fs;
use std::path::Path;
use warpforge_kernels::{all, build, by_name, BuildError, Case, Limits, Param, COUNTER_BASES};

const TINY: Limits = Limits {
    lanes: 4,
    max_block: 16,
    smem_bytes: 4096,
    sms: 1,
};
const SMALL: Limits = Limits {
    lanes: 8,
    max_block: 64,
    smem_bytes: 16 * 1024,
    sms: 2,
};
const FERMI: Limits = Limits {
    lanes: 32,
    max_block: 1536,
    smem_bytes: 64 * 1024,
    sms: 4,
};

// ---- a minimal ELF32 reader --------------------------------------------------------------

struct Section {
    name: String,
    kind: u32,
    flags: u32,
    addr: u32,
    offset: u32,
    size: u32,
    link: u32,
}

struct Symbol {
    name: String,
    value: u32,
    size: u32,
    kind: u8,
}

struct Elf {
    data: Vec<u8>,
    sections: Vec<Section>,
}

fn u16_at(d: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([d[o], d[o + 1]])
}

fn u32_at(d: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]])
}

fn c_str(d: &[u8], o: usize) -> String {
    let end = d[o..].iter().position(|&b| b == 0).unwrap() + o;
    String::from_utf8_lossy(&d[o..end]).into_owned()
}

const EM_RISCV: u16 = 243;
const EF_RISCV_RVC: u32 = 0x1;
const SHT_SYMTAB: u32 = 2;
const SHT_NOBITS: u32 = 8;
const SHF_EXECINSTR: u32 = 0x4;
const STT_FUNC: u8 = 2;

impl Elf {
    fn read(path: &Path) -> Elf {
        let data = fs::read(path).unwrap();
        assert_eq!(&data[0..4], b"\x7fELF", "{}", path.display());
        assert_eq!(data[4], 1, "ELFCLASS32");
        assert_eq!(data[5], 1, "little-endian");
        assert_eq!(u16_at(&data, 18), EM_RISCV, "e_machine");
        let shoff = u32_at(&data, 32) as usize;
        let shentsize = u16_at(&data, 46) as usize;
        let shnum = u16_at(&data, 48) as usize;
        let shstrndx = u16_at(&data, 50) as usize;
        let raw: Vec<(u32, u32, u32, u32, u32, u32, u32)> = (0..shnum)
            .map(|i| {
                let o = shoff + i * shentsize;
                (
                    u32_at(&data, o),
                    u32_at(&data, o + 4),
                    u32_at(&data, o + 8),
                    u32_at(&data, o + 12),
                    u32_at(&data, o + 16),
                    u32_at(&data, o + 20),
                    u32_at(&data, o + 24),
                )
            })
            .collect();
        let strtab = raw[shstrndx].4 as usize;
        let sections = raw
            .iter()
            .map(|&(name, kind, flags, addr, offset, size, link)| Section {
                name: c_str(&data, strtab + name as usize),
                kind,
                flags,
                addr,
                offset,
                size,
                link,
            })
            .collect();
        Elf { data, sections }
    }

    fn e_flags(&self) -> u32 {
        u32_at(&self.data, 36)
    }

    fn entry(&self) -> u32 {
        u32_at(&self.data, 24)
    }

    fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    fn words(&self, s: &Section) -> Vec<u32> {
        let start = s.offset as usize;
        self.data[start..start + s.size as usize]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn symbols(&self) -> Vec<Symbol> {
        let Some(symtab) = self.sections.iter().find(|s| s.kind == SHT_SYMTAB) else {
            return Vec::new();
        };
        let strtab = self.sections[symtab.link as usize].offset as usize;
        (0..symtab.size as usize / 16)
            .map(|i| {
                let o = symtab.offset as usize + i * 16;
                Symbol {
                    name: c_str(&self.data, strtab + u32_at(&self.data, o) as usize),
                    value: u32_at(&self.data, o + 4),
                    size: u32_at(&self.data, o + 8),
                    kind: self.data[o + 12] & 0xf,
                }
            })
            .collect()
    }
}

// ---- instruction checks ------------------------------------------------------------------

const RET: u32 = 0x0000_8067;
const WF_BAR: u32 = 0x0000_100b;

fn opcode(w: u32) -> u32 {
    w & 0x7f
}
fn rd(w: u32) -> u32 {
    (w >> 7) & 31
}
fn rs1(w: u32) -> u32 {
    (w >> 15) & 31
}
fn funct3(w: u32) -> u32 {
    (w >> 12) & 7
}

/// Instructions whose `rd` field is a destination register.
fn writes_reg(w: u32, reg: u32) -> bool {
    matches!(
        opcode(w),
        0x37 | 0x17 | 0x6f | 0x67 | 0x03 | 0x13 | 0x33 | 0x73
    ) && rd(w) == reg
}

const CSRS: &[u32] = &[
    0xC00, 0xC80, 0xC02, 0xC82, 0xCC0, 0xCC1, 0xCC2, 0xCC3, 0xCC4, 0xCC5, 0xCC6, 0xCC7, 0xCC8,
    0xCC9, 0xCCA, 0xCCB, 0xCCC, 0xCCD,
];

/// The rules of docs/isa.md and the loader that a compiled kernel can break, as messages.
fn lint(elf: &Elf) -> Vec<String> {
    let mut problems = Vec::new();
    if elf.e_flags() & EF_RISCV_RVC != 0 {
        problems.push(format!("e_flags {:#x} has RVC", elf.e_flags()));
    }
    for s in elf.sections.iter().filter(|s| s.flags & SHF_EXECINSTR != 0) {
        for (i, w) in elf.words(s).into_iter().enumerate() {
            let pc = s.addr + 4 * i as u32;
            if w & 3 != 3 {
                problems.push(format!("{pc:#x}: compressed instruction {w:#010x}"));
            }
            if opcode(w) == 0x67 && rd(w) == 0 && w != RET {
                problems.push(format!(
                    "{pc:#x}: indirect jump {w:#010x} (only ret is allowed)"
                ));
            }
            if opcode(w) == 0x0b && (w >> 25 != 0 || rd(w) != 0 || (w >> 20) & 31 != 0) {
                problems.push(format!("{pc:#x}: bad SIMT encoding {w:#010x}"));
            }
            if opcode(w) == 0x0b && funct3(w) > 2 {
                problems.push(format!("{pc:#x}: unknown SIMT funct3 {w:#010x}"));
            }
            if opcode(w) == 0x73 && funct3(w) != 0 {
                let csr = w >> 20;
                let write = match funct3(w) {
                    1 | 5 => true,
                    _ => rs1(w) != 0,
                };
                if write || !CSRS.contains(&csr) {
                    problems.push(format!("{pc:#x}: CSR access {w:#010x} (csr {csr:#x})"));
                }
            }
            if opcode(w) == 0x73 && funct3(w) == 0 {
                problems.push(format!("{pc:#x}: ecall/ebreak/system {w:#010x}"));
            }
        }
    }
    // A function that writes ra must have a single ret (the loader refuses branches that
    // reconverge only at a return in such functions).
    let text = elf.section(".text").expect(".text");
    let words = elf.words(text);
    for f in elf
        .symbols()
        .iter()
        .filter(|s| s.kind == STT_FUNC && s.size > 0)
    {
        let lo = ((f.value - text.addr) / 4) as usize;
        let body = &words[lo..lo + f.size as usize / 4];
        let rets = body.iter().filter(|&&w| w == RET).count();
        let writes_ra = body.iter().any(|&w| writes_reg(w, 1));
        if writes_ra && rets > 1 {
            problems.push(format!("function {} writes ra and has {rets} rets", f.name));
        }
    }
    problems
}

/// Occurrences of `needle` in C source outside comments.
fn count_in_code(source: &str, needle: &str) -> usize {
    let mut code = String::new();
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else {
            let c = rest.chars().next().unwrap();
            code.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    code.matches(needle).count()
}

// ---- tests ---------------------------------------------------------------------------------

#[test]
fn every_kernel_builds_and_obeys_the_loader_rules() {
    for spec in all() {
        let path = spec.elf().unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        let elf = Elf::read(&path);
        // Every kernel starts at crt0's `_start` at 0x0, except entry_top, whose own `_start`
        // is the last word of 16 KiB of instruction memory.
        let entry = if spec.name == "entry_top" { 0x3ffc } else { 0 };
        assert_eq!(elf.entry(), entry, "{}: entry", spec.name);
        let mut problems = lint(&elf);
        // The fault_* kernels execute faulting instructions on purpose (their cases expect
        // the fault): those are not problems there.
        if spec
            .cases(&TINY, 1)
            .iter()
            .any(|c| c.expected_fault.is_some())
        {
            problems.retain(|p| {
                !(p.contains("CSR access")
                    || p.contains("ecall/ebreak")
                    || p.contains("unknown SIMT funct3"))
            });
        }
        assert!(problems.is_empty(), "{}: {problems:#?}", spec.name);

        // Static shared memory as declared by the spec, never loaded.
        let shared = elf.section(".shared").map_or(0, |s| s.size);
        assert_eq!(shared, spec.shared_bytes, "{}: .shared size", spec.name);
        if let Some(s) = elf.section(".shared").filter(|s| s.size > 0) {
            assert_eq!(s.kind, SHT_NOBITS, "{}: .shared must be NOBITS", spec.name);
            assert_eq!(s.addr, 0x1000_0000, "{}: .shared address", spec.name);
        }
        for name in [".rodata", ".data", ".bss"] {
            if let Some(s) = elf.section(name).filter(|s| s.size > 0) {
                assert!(
                    s.addr >= 0x8000_0000,
                    "{}: {name} at {:#x}",
                    spec.name,
                    s.addr
                );
            }
        }

        // Barriers are not duplicated into divergent paths by the compiler.
        // A kernel that builds another's source with other parameters (cta_shared_w5.c:
        // `#include "cta_shared.c"`) has that source's barriers.
        let path = spec.source_path();
        let mut source = fs::read_to_string(&path).unwrap();
        let included: Vec<String> = source
            .lines()
            .filter_map(|l| l.trim().strip_prefix("#include \""))
            .filter_map(|l| l.strip_suffix(".c\""))
            .map(|stem| fs::read_to_string(path.with_file_name(format!("{stem}.c"))).unwrap())
            .collect();
        source.extend(included);
        let in_source =
            count_in_code(&source, "wf_barrier()") + count_in_code(&source, "__syncthreads()");
        let text = elf.section(".text").unwrap();
        let in_elf = elf.words(text).iter().filter(|&&w| w == WF_BAR).count();
        assert_eq!(in_elf, in_source, "{}: wf.bar count", spec.name);
    }
}

#[test]
fn the_cache_avoids_a_rebuild() {
    let dir = temp_dir("cache");
    let source = by_name("vecadd").unwrap().source_path();
    let first = build(&source, &dir).unwrap();
    let mtime = fs::metadata(&first).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    let second = build(&source, &dir).unwrap();
    assert_eq!(first, second);
    assert_eq!(fs::metadata(&second).unwrap().modified().unwrap(), mtime);
    let names = |d: &Path| -> Vec<String> {
        fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    };
    // One ELF and the hidden directory of dependency manifests (one), no temporaries left.
    let mut top = names(&dir);
    top.sort();
    assert_eq!(top.len(), 2, "{top:?}");
    assert_eq!(top[0], ".deps");
    assert!(top[1].ends_with(".elf"), "{top:?}");
    let manifests = names(&dir.join(".deps"));
    assert!(
        manifests.len() == 1 && manifests[0].ends_with(".deps"),
        "{manifests:?}"
    );

    // A changed source gets a different name.
    let copy = dir.join("vecadd.c");
    let mut text = fs::read_to_string(&source).unwrap();
    fs::write(&copy, &text).unwrap();
    let same = build(&copy, &dir).unwrap();
    text.push_str("\n/* changed */\n");
    fs::write(&copy, &text).unwrap();
    let changed = build(&copy, &dir).unwrap();
    assert_ne!(same, changed);
    assert!(first
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("vecadd-"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_syntax_error_reports_gcc_s_message() {
    let dir = temp_dir("syntax");
    let bad = dir.join("bad_kernel.c");
    fs::write(
        &bad,
        "#include \"warpforge.h\"\nWF_KERNEL(p) { int x = ; (void)p; }\n",
    )
    .unwrap();
    let err = build(&bad, &dir.join("out")).unwrap_err();
    let BuildError::Compile { ref stderr, .. } = err else {
        panic!("expected a compile error, got {err}");
    };
    assert!(stderr.contains("bad_kernel.c:2"), "{stderr}");
    assert!(stderr.contains("error"), "{stderr}");
    let message = err.to_string();
    assert!(message.contains("expected expression"), "{message}");
    assert!(!dir.join("out").exists() || fs::read_dir(dir.join("out")).unwrap().count() == 0);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn no_compiler_tells_to_run_setup() {
    assert!(BuildError::NoCompiler
        .to_string()
        .contains("run scripts/setup.sh"));
}

#[test]
fn calling_functions_keep_a_single_ret_and_barriers_stay_uniform() {
    // Early returns in a function that calls others: without -fno-shrink-wrap and
    // max-grow-copy-bb-insns=0 gcc emits several rets here. The barrier between two tests of
    // the same condition is what jump threading duplicates without -fno-thread-jumps.
    let dir = temp_dir("shapes");
    let src = dir.join("shapes.c");
    fs::write(
        &src,
        r#"#include "warpforge.h"
struct P { const uint32_t *in; uint32_t *out; uint32_t n; };
WF_SHARED static uint32_t sh[64];
__attribute__((noinline)) static uint32_t f(uint32_t v) { uint32_t s = 0; while (v) { s += v; v >>= 1; } return s; }
__attribute__((noinline)) static uint32_t g(uint32_t v) { return v * 5; }
WF_KERNEL(arg)
{
    const struct P *p = arg;
    uint32_t i = wf_gtid(), t = wf_tid();
    if (t < 16) sh[t] = p->in[i];
    wf_barrier();
    if (t < 16) sh[t ^ 1] += 1;
    wf_barrier();
    if (i >= p->n) return;
    uint32_t v = p->in[i] + sh[t & 15];
    if (v == 7) return;
    if (v & 1) { p->out[i] = f(v); return; }
    if (v & 2) { p->out[i] = g(v); return; }
    p->out[i] = f(g(v));
}
"#,
    )
    .unwrap();
    let elf = Elf::read(&build(&src, &dir).unwrap());
    let problems = lint(&elf);
    assert!(problems.is_empty(), "{problems:#?}");
    let text = elf.section(".text").unwrap();
    let bars = elf.words(text).iter().filter(|&&w| w == WF_BAR).count();
    assert_eq!(bars, 2);
    let _ = fs::remove_dir_all(&dir);
}

fn check_cases(limits: &Limits) {
    for spec in all() {
        let cases = spec.cases(limits, 7);
        // The counter bases in turn (docs/verification.md, "Counters"): every base in a
        // kernel with three or more cases.
        for (n, c) in cases.iter().enumerate() {
            assert_eq!(
                c.counter_base,
                COUNTER_BASES[n % 3],
                "{} case {n}",
                spec.name
            );
        }
        let who = format!("{} {limits:?}", spec.name);
        // Workloads: 3-5 shapes. Kernels that fault on purpose: four cases per fault (victims
        // on two SMs, four warps and four lanes), fault_ctrl's wild fetches once per warp
        // slot (two per slot) and its divergent return reporting each lane 1 … L−1, fault_hipc's six high PCs, wild_targets' ten wild PCs,
        // wild_ctrl's seven, fetch_race's five rounds in slot 2 and one in each other slot, and
        // shared_bounds' victim in every lane; tmc_masks' two side-exit cases; fault_decode's
        // late illegal word in every warp slot of two CTAs.
        let max = match spec.name {
            "fault_ctrl" => {
                4 * 7 + 2 * limits.max_block.div_ceil(limits.lanes) as usize + limits.lanes as usize
                    - 1
            }
            // Four shapes and the two cases whose divergent side ends every lane but one.
            "tmc_masks" => 4 + 2,
            "fault_hipc" => 4 * 6,
            // Five illegal accesses, and seven CSR numbers near the warpforge range once.
            "fault_csr" => 4 * 5 + 7,
            // Seven encodings, and the late illegal word in every warp slot of two CTAs.
            "fault_decode" => 7 + 2 * limits.max_block.div_ceil(limits.lanes) as usize,
            "wild_ctrl" => 7,
            // Five shapes and the long grid whose late CTAs reach high CTA slots.
            "barrier_late_cta" => 6,
            "fetch_race" => 5 + 7,
            n if n.starts_with("fault_") => 4 * 5,
            // Five wild jalr targets, three wild return addresses and two odd ones, six
            // refilled ones, and each possible lowest active lane's return with two addresses
            // (two of those among the three).
            "wild_targets" => 16 + 2 * (limits.lanes as usize - 1) - 2,
            // The victim in every lane.
            "shared_bounds" => limits.lanes as usize,
            _ => 5,
        };
        assert!(
            (3..=max).contains(&cases.len()),
            "{who}: {} cases",
            cases.len()
        );
        assert!(spec.shared_bytes <= limits.smem_bytes, "{who}");
        let mut labels = HashSet::new();
        for case in &cases {
            check_case(spec.name, limits, case);
            assert!(
                labels.insert(case.label.clone()),
                "{who}: duplicate {}",
                case.label
            );
        }
        assert!(cases.iter().any(|c| c.grid > 1), "{who}: no multi-CTA case");
        let lanes = limits.lanes;
        let any_block = spec.shape.starts_with("any grid and block") || spec.name == "reduce";
        if any_block || limits.max_block >= 19 {
            assert!(
                cases.iter().any(|c| c.block % lanes != 0),
                "{who}: no partial warp"
            );
        }
        // Deterministic in the seed, and the seed matters.
        assert_eq!(cases, spec.cases(limits, 7), "{who}");
        let other = spec.cases(limits, 8);
        assert!(
            cases
                .iter()
                .zip(&other)
                .any(|(a, b)| a.buffers != b.buffers),
            "{who}: seed ignored"
        );
        let default = spec.default_case(limits, 7);
        assert!(cases.contains(&default), "{who}");
        assert!(default.grid > 1, "{who}");
    }
}

fn check_case(kernel: &str, limits: &Limits, case: &Case) {
    let who = format!("{kernel} {limits:?} {}", case.label);
    assert_eq!(case.kernel, kernel, "{who}");
    assert!(case.grid >= 1, "{who}");
    assert!(case.block >= 1 && case.block <= limits.max_block, "{who}");
    assert!(!case.buffers.is_empty(), "{who}");
    for b in &case.buffers {
        assert!(
            !b.init.is_empty() && b.init.len() % 4 == 0,
            "{who}: {}",
            b.name
        );
        if let Some(e) = &b.expected {
            assert_eq!(e.len(), b.init.len(), "{who}: {}", b.name);
        }
    }
    assert!(case.buffers.iter().any(|b| b.expected.is_some()), "{who}");
    let mut used = HashSet::new();
    for p in &case.params {
        if let Param::Buffer(i) = *p {
            assert!(i < case.buffers.len(), "{who}: param buffer {i}");
            used.insert(i);
        }
    }
    assert_eq!(
        used.len(),
        case.buffers.len(),
        "{who}: every buffer is a parameter"
    );
    let addrs: Vec<u32> = (0..case.buffers.len() as u32)
        .map(|i| 0x8000_1000 + i * 0x100)
        .collect();
    assert_eq!(case.param_words(&addrs).len(), case.params.len());
}

#[test]
fn cases_are_valid_for_tiny_limits() {
    check_cases(&TINY);
}

#[test]
fn cases_are_valid_for_small_limits() {
    check_cases(&SMALL);
}

#[test]
fn cases_are_valid_for_fermi_limits() {
    check_cases(&FERMI);
}

#[test]
fn kernels_that_do_not_fit_have_no_cases() {
    let cramped = Limits {
        lanes: 4,
        max_block: 8,
        smem_bytes: 1024,
        sms: 1,
    };
    assert!(by_name("reduce").unwrap().cases(&cramped, 1).is_empty());
    assert!(by_name("matmul_tiled")
        .unwrap()
        .cases(&cramped, 1)
        .is_empty());
    assert!(!by_name("vecadd").unwrap().cases(&cramped, 1).is_empty());
}

#[test]
fn names_and_sources() {
    let names: Vec<&str> = all().iter().map(|k| k.name).collect();
    assert_eq!(
        names,
        [
            "vecadd",
            "saxpy",
            "reduce",
            "divergent_loop",
            "nested_divergence",
            "trip_count",
            "matmul_tiled",
            "transpose_naive",
            "transpose_tiled",
            "divergent_call",
            "alu_mix",
            "csr_all",
            "isa_ops",
            "hazards",
            "sb_full",
            "sb_full_addi",
            "sb_entries",
            "divergent_return",
            "high_pc",
            "entry_top",
            "cta_ids",
            "return_lanes",
            "tmc_masks",
            "deep_divergence",
            "cta_shared",
            "cta_shared_w5",
            "cta_shared_w12",
            "cta_slots",
            "barrier_slots",
            "barrier_late_cta",
            "huge_grid",
            "fault_sys",
            "fault_decode",
            "fault_csr",
            "fault_mem",
            "shared_bounds",
            "fault_ctrl",
            "fault_hipc",
            "wild_targets",
            "wild_ctrl",
            "fetch_race",
        ]
    );
    for k in all() {
        assert!(k.source_path().is_file(), "{}", k.name);
        assert_eq!(by_name(k.name).unwrap().source, k.source);
    }
    assert!(by_name("nope").is_none());
}

#[test]
fn every_header_function_compiles() {
    let dir = temp_dir("header");
    let src = dir.join("header_api.c");
    fs::write(
        &src,
        r#"#include "warpforge.h"
WF_SHARED static uint32_t sh[8];
WF_SHARED uint32_t sh_global[4];
WF_KERNEL(arg)
{
    uint32_t *out = *(uint32_t *const *)arg;
    uint32_t t = wf_tid();
    out[0] = wf_tid() + wf_ctaid() + wf_ntid() + wf_nctaid() + wf_gtid() + wf_laneid();
    out[1] = wf_warpid() + wf_smid() + wf_nlanes() + wf_nwarps() + wf_nsms() + wf_tmask();
    out[2] = wf_param() + wf_stack_top() + wf_cycle_lo() + wf_instret_lo();
    uint64_t c = wf_cycle(), i = wf_instret();
    out[3] = (uint32_t)(c >> 32) + (uint32_t)c + (uint32_t)(i >> 32) + (uint32_t)i;
    sh[t & 7] = t;
    sh_global[t & 3] = t;
    wf_barrier();
    __syncthreads();
    out[4] = sh[(t + 1) & 7] + sh_global[(t + 1) & 3];
    if (t & 1) {
        WF_KEEP_BRANCH();
        wf_exit();
    }
    wf_tmc(wf_tmask() & 1u);
    out[5] = t;
}
"#,
    )
    .unwrap();
    let elf = Elf::read(&build(&src, &dir).unwrap());
    let problems = lint(&elf);
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(elf.section(".shared").unwrap().size, 48);
    let text = elf.words(elf.section(".text").unwrap());
    // wf.exit in crt0 and in the kernel, wf.bar twice, one wf.tmc.
    assert_eq!(text.iter().filter(|&&w| w == 0x0000_000b).count(), 2);
    assert_eq!(text.iter().filter(|&&w| w == WF_BAR).count(), 2);
    assert_eq!(
        text.iter()
            .filter(|&&w| w & 0x7f == 0x0b && (w >> 12) & 7 == 2)
            .count(),
        1
    );
    let _ = fs::remove_dir_all(&dir);
}
