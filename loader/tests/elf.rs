//! `load_elf` on the prebuilt fixtures in tests/fixtures (see regen.sh there) and on crafted or
//! patched headers.

use std::path::{Path, PathBuf};

use warpforge_isa::Reconvergence;
use warpforge_loader::{load_elf, load_elf_file, Function, LoadError, Segment};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn good() -> Vec<u8> {
    std::fs::read(fixture("good.elf")).unwrap()
}

fn words(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// good.elf = crt0.S + kernel.c; addresses from `riscv64-unknown-elf-objdump -d good.elf`
/// (update them if regen.sh ever produces different code).
#[test]
fn good_kernel_loads() {
    let k = load_elf_file(&fixture("good.elf")).unwrap();
    assert_eq!(k.entry, 0);
    assert_eq!(k.text.len(), 0x128 / 4);
    assert_eq!(k.text[0], 0xccd0_2173); // csrr sp, 0xccd
    assert_eq!(k.text[5], 0x0000_000b); // wf.exit
    assert_eq!(k.instr_at(0x38), Some(0x0000_8067)); // ret of clamp
    let f = |name: &str, start, end| Function {
        name: name.into(),
        start,
        end,
    };
    assert_eq!(
        k.functions,
        vec![
            f("_start", 0x0, 0x18),
            f("clamp", 0x18, 0x3c),
            f("pick", 0x3c, 0x54),
            f("kernel", 0x54, 0x128),
        ]
    );

    let seg = |addr, bytes| Segment { addr, bytes };
    assert_eq!(
        k.data,
        vec![
            seg(0x8000_0000, words(&[3, 1, 4, 1, 5, 9, 2, 6])), // .rodata: table
            seg(0x8000_0020, words(&[10, 20, 30, 40])),         // .data: big
            seg(0x8000_0030, words(&[7])),                      // .sdata: limit
            seg(0x8000_0034, vec![0; 4]),                       // .sbss: hits
            seg(0x8000_0038, vec![0; 64]),                      // .bss: scratch
        ]
    );
    assert_eq!(k.data_end, 0x8000_0080); // 0x80000078 rounded up to 64
    assert_eq!(k.shared_bytes, 128); // tile[32]

    let sidecar: Vec<(u32, Reconvergence)> = k
        .sidecar
        .iter()
        .enumerate()
        .filter(|(_, r)| **r != Reconvergence::None)
        .map(|(i, r)| (i as u32 * 4, *r))
        .collect();
    assert_eq!(
        sidecar,
        vec![
            (0x18, Reconvergence::At(0x38)), // clamp: if (x > hi) … ; return
            (0x3c, Reconvergence::AtReturn), // pick: two rets in a leaf
            (0x6c, Reconvergence::At(0xdc)), // kernel: if (tid >= n) return → epilogue
            (0x78, Reconvergence::At(0x90)), // kernel: if (tid & 1) … else clamp(…)
        ]
    );
    assert_eq!(k.describe_pc(0x6c), "0x0000006c <kernel+0x18>");
    assert_eq!(k.describe_pc(0x54), "0x00000054 <kernel>");
    assert_eq!(k.function_at(0x40).unwrap().name, "pick");
}

#[test]
fn rv64_elf_is_refused() {
    let err = load_elf_file(&fixture("rv64.elf")).unwrap_err();
    assert!(matches!(err, LoadError::Not32Bit), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("64-bit"), "{msg}");
    assert!(msg.contains("-march=rv32im_zicsr -mabi=ilp32"), "{msg}");
}

#[test]
fn relocatable_object_is_refused() {
    let err = load_elf_file(&fixture("kernel.o")).unwrap_err();
    assert!(matches!(err, LoadError::Relocatable), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("relocatable"), "{msg}");
    assert!(
        msg.contains("link it with kernels/runtime/link.ld"),
        "{msg}"
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let err = load_elf_file(&fixture("no-such.elf")).unwrap_err();
    assert!(matches!(err, LoadError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("no-such.elf"), "{err}");
}

#[test]
fn non_elf_bytes_are_refused() {
    for bytes in [&b"#!/bin/sh\necho hi\n"[..], &[][..], &b"\x7fEL"[..]] {
        let err = load_elf(bytes).unwrap_err();
        assert!(matches!(err, LoadError::NotElf { .. }), "{err:?}");
        assert!(err.to_string().starts_with("not an ELF file"), "{err}");
    }
    let err = load_elf(b"#!/bin/sh\n").unwrap_err();
    assert!(err.to_string().contains("23 21 2f 62"), "{err}");
}

/// A minimal 32-bit little-endian ELF header.
fn header(machine: u16, e_type: u16) -> Vec<u8> {
    let mut h = vec![0u8; 52];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 1; // ELFCLASS32
    h[5] = 1; // ELFDATA2LSB
    h[6] = 1; // EV_CURRENT
    h[16..18].copy_from_slice(&e_type.to_le_bytes());
    h[18..20].copy_from_slice(&machine.to_le_bytes());
    h[20..24].copy_from_slice(&1u32.to_le_bytes());
    h[40..42].copy_from_slice(&52u16.to_le_bytes()); // e_ehsize
    h
}

#[test]
fn x86_elf_is_refused_naming_the_machine() {
    let err = load_elf(&header(3, 2)).unwrap_err(); // EM_386, ET_EXEC
    assert!(
        matches!(err, LoadError::WrongMachine { machine: 3, .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("for x86 / i386 (e_machine 3)"), "{msg}");
    assert!(msg.contains("not RISC-V"), "{msg}");
    let err = load_elf(&header(0x1234, 2)).unwrap_err();
    assert!(err.to_string().contains("unknown machine 4660"), "{err}");
}

#[test]
fn big_endian_elf_is_refused() {
    let mut h = header(243, 2);
    h[5] = 2; // ELFDATA2MSB
    let err = load_elf(&h).unwrap_err();
    assert!(matches!(err, LoadError::BigEndian), "{err:?}");
    assert!(err.to_string().contains("big-endian"), "{err}");
}

#[test]
fn truncated_header_is_malformed() {
    let err = load_elf(&header(243, 2)[..30]).unwrap_err();
    assert!(matches!(err, LoadError::Malformed(_)), "{err:?}");
}

#[test]
fn shared_object_is_refused() {
    let mut elf = good();
    elf[16..18].copy_from_slice(&3u16.to_le_bytes()); // ET_DYN
    let err = load_elf(&elf).unwrap_err();
    assert!(
        matches!(err, LoadError::NotExecutable { e_type: 3, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("ET_EXEC"), "{err}");
}

fn set_flags(elf: &mut [u8], flags: u32) {
    elf[36..40].copy_from_slice(&flags.to_le_bytes());
}

#[test]
fn compressed_instructions_are_refused() {
    let mut elf = good();
    set_flags(&mut elf, 0x1); // EF_RISCV_RVC
    let err = load_elf(&elf).unwrap_err();
    assert!(matches!(err, LoadError::Compressed { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("compiled with the C extension"), "{msg}");
    assert!(msg.contains("use -march=rv32im_zicsr"), "{msg}");
}

#[test]
fn hard_float_abi_is_refused() {
    let mut elf = good();
    set_flags(&mut elf, 0x2); // EF_RISCV_FLOAT_ABI_SINGLE
    let err = load_elf(&elf).unwrap_err();
    assert!(matches!(err, LoadError::FloatAbi { .. }), "{err:?}");
    assert!(err.to_string().contains("-mabi=ilp32"), "{err}");
}

/// Byte offset of the section header of `name` in a 32-bit little-endian ELF.
fn section_header(elf: &[u8], name: &str) -> usize {
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) = (u32_at(32), u16_at(46), u16_at(48), u16_at(50));
    let strtab = u32_at(shoff + shstrndx * shentsize + 16);
    (0..shnum)
        .map(|i| shoff + i * shentsize)
        .find(|&sh| {
            let n = strtab + u32_at(sh);
            elf[n..].starts_with(name.as_bytes()) && elf[n + name.len()] == 0
        })
        .unwrap_or_else(|| panic!("no section {name}"))
}

fn set_section_addr(elf: &mut [u8], name: &str, addr: u32) {
    let sh = section_header(elf, name);
    elf[sh + 12..sh + 16].copy_from_slice(&addr.to_le_bytes());
}

#[test]
fn text_not_at_imem_base_is_refused() {
    let mut elf = good();
    set_section_addr(&mut elf, ".text", 0x0001_0074); // the toolchain's default placement
    let err = load_elf(&elf).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::TextNotAtBase {
                addr: 0x0001_0074,
                ..
            }
        ),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("0x00010074"), "{msg}");
    assert!(msg.contains("link with kernels/runtime/link.ld"), "{msg}");
}

#[test]
fn code_outside_instruction_memory_is_refused() {
    // A second executable section in global memory: rename .rodata's flags to AX.
    let mut elf = good();
    let sh = section_header(&elf, ".rodata");
    elf[sh + 8..sh + 12].copy_from_slice(&6u32.to_le_bytes()); // SHF_ALLOC | SHF_EXECINSTR
    let err = load_elf(&elf).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::CodeOutsideImem {
                addr: 0x8000_0000,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn rodata_in_instruction_memory_is_refused() {
    let mut elf = good();
    set_section_addr(&mut elf, ".rodata", 0x200);
    let err = load_elf(&elf).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::DataInImem {
                readonly: true,
                addr: 0x200,
                ..
            }
        ),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.starts_with("read-only data in instruction memory"),
        "{msg}"
    );
    assert!(
        msg.contains("the linker script must place .rodata in global memory"),
        "{msg}"
    );

    let mut elf = good();
    set_section_addr(&mut elf, ".bss", 0x400);
    let err = load_elf(&elf).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::DataInImem {
                readonly: false,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("data in instruction memory: section .bss"),
        "{err}"
    );
}

#[test]
fn section_in_no_memory_region_is_refused() {
    let mut elf = good();
    set_section_addr(&mut elf, ".data", 0x2000_0000);
    let err = load_elf(&elf).unwrap_err();
    assert!(
        matches!(&err, LoadError::BadSectionAddress { section, addr: 0x2000_0000, size: 16 }
            if section == ".data"),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("neither in instruction memory"),
        "{err}"
    );
}

#[test]
fn misplaced_shared_section_is_refused() {
    for addr in [0x1000_0100, 0x8000_1000] {
        let mut elf = good();
        set_section_addr(&mut elf, ".shared", addr);
        let err = load_elf(&elf).unwrap_err();
        assert!(matches!(err, LoadError::SharedMisplaced { .. }), "{err:?}");
        assert!(err.to_string().contains("NOLOAD"), "{err}");
    }
}

#[test]
fn entry_outside_text_is_refused() {
    let mut elf = good();
    elf[24..28].copy_from_slice(&0x8000_0000u32.to_le_bytes()); // e_entry
    let err = load_elf(&elf).unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::EntryOutsideText {
                entry: 0x8000_0000,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn shared_section_with_contents_is_refused() {
    let mut elf = good();
    let sh = section_header(&elf, ".shared");
    elf[sh + 4..sh + 8].copy_from_slice(&1u32.to_le_bytes()); // SHT_PROGBITS
    let err = load_elf(&elf).unwrap_err();
    assert!(matches!(err, LoadError::SharedHasContents), "{err:?}");
    assert!(err.to_string().contains("without initializers"), "{err}");
}

#[test]
fn elf_without_code_is_refused() {
    let mut elf = good();
    let sh = section_header(&elf, ".text");
    elf[sh + 8..sh + 12].copy_from_slice(&2u32.to_le_bytes()); // SHF_ALLOC only
    let err = load_elf(&elf).unwrap_err();
    assert!(matches!(err, LoadError::NoText), "{err:?}");
}
