//! ELF → text image, data segments and function symbols (docs/loader.md §2).

use object::elf::{self as e, FileHeader32};
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::LittleEndian as LE;
use warpforge_isa::memmap::{GMEM_BASE, IMEM_BASE, SMEM_BASE};

use crate::cfg::Symbol;
use crate::{LoadError, Segment};

/// What `load_elf` needs from the file before the control-flow analysis.
pub(crate) struct Elf {
    pub entry: u32,
    pub text: Vec<u32>,
    pub data: Vec<Segment>,
    pub data_end: u32,
    pub shared_bytes: u32,
    /// `STT_FUNC` symbols, global ones first.
    pub symbols: Vec<Symbol>,
    /// Other named code addresses (`STT_NOTYPE`, e.g. `_start` in assembly without `.type`).
    pub labels: Labels,
}

fn malformed(e: object::read::Error) -> LoadError {
    LoadError::Malformed(e.to_string())
}

fn machine_name(m: u16) -> String {
    match m {
        e::EM_NONE => "no machine".into(),
        e::EM_SPARC => "SPARC".into(),
        e::EM_386 => "x86 / i386".into(),
        e::EM_68K => "Motorola 68000".into(),
        e::EM_MIPS => "MIPS".into(),
        e::EM_PPC => "PowerPC".into(),
        e::EM_PPC64 => "PowerPC64".into(),
        e::EM_S390 => "IBM S/390".into(),
        e::EM_ARM => "ARM".into(),
        e::EM_SH => "SuperH".into(),
        e::EM_SPARCV9 => "SPARC V9".into(),
        e::EM_IA_64 => "IA-64".into(),
        e::EM_X86_64 => "x86-64".into(),
        e::EM_AVR => "AVR".into(),
        e::EM_MSP430 => "MSP430".into(),
        e::EM_AARCH64 => "AArch64".into(),
        e::EM_XTENSA => "Xtensa".into(),
        e::EM_BPF => "BPF".into(),
        e::EM_LOONGARCH => "LoongArch".into(),
        _ => format!("an unknown machine {m}"),
    }
}

/// The checks that only need the identification bytes and the header, in the order that gives
/// the most useful message first.
fn check_header(bytes: &[u8]) -> Result<(), LoadError> {
    if bytes.len() < 4 || &bytes[..4] != b"\x7fELF" {
        let magic = if bytes.is_empty() {
            "empty".to_string()
        } else {
            bytes
                .iter()
                .take(4)
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        return Err(LoadError::NotElf { magic });
    }
    if bytes.len() < 52 {
        return Err(LoadError::Malformed(format!(
            "the file is {} bytes long, too short for an ELF header",
            bytes.len()
        )));
    }
    match bytes[4] /* EI_CLASS */ {
        e::ELFCLASS32 => {}
        e::ELFCLASS64 => return Err(LoadError::Not32Bit),
        c => return Err(LoadError::Malformed(format!("invalid ELF class {c}"))),
    }
    match bytes[5] /* EI_DATA */ {
        e::ELFDATA2LSB => {}
        e::ELFDATA2MSB => return Err(LoadError::BigEndian),
        d => return Err(LoadError::Malformed(format!("invalid ELF data encoding {d}"))),
    }
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
    let e_type = u16_at(16);
    let machine = u16_at(18);
    let flags = u32::from_le_bytes([bytes[36], bytes[37], bytes[38], bytes[39]]);
    if machine != e::EM_RISCV {
        return Err(LoadError::WrongMachine {
            machine,
            name: machine_name(machine),
        });
    }
    match e_type {
        e::ET_EXEC => {}
        e::ET_REL => return Err(LoadError::Relocatable),
        e::ET_DYN => {
            return Err(LoadError::NotExecutable {
                e_type,
                kind: "a shared object or position-independent executable (ET_DYN)".into(),
            })
        }
        e::ET_CORE => {
            return Err(LoadError::NotExecutable {
                e_type,
                kind: "a core dump (ET_CORE)".into(),
            })
        }
        _ => {
            return Err(LoadError::NotExecutable {
                e_type,
                kind: format!("of unknown type {e_type}"),
            })
        }
    }
    if flags & e::EF_RISCV_RVC != 0 {
        return Err(LoadError::Compressed { flags });
    }
    if flags & e::EF_RISCV_FLOAT_ABI != e::EF_RISCV_FLOAT_ABI_SOFT {
        return Err(LoadError::FloatAbi { flags });
    }
    Ok(())
}

/// One allocated, non-empty section.
struct Section<'a> {
    name: String,
    addr: u32,
    size: u32,
    end: u64,
    exec: bool,
    write: bool,
    /// `None` for NOBITS.
    contents: Option<&'a [u8]>,
}

pub(crate) fn read(bytes: &[u8]) -> Result<Elf, LoadError> {
    check_header(bytes)?;
    let header = FileHeader32::<LE>::parse(bytes).map_err(malformed)?;
    let endian = LE;
    let entry = header.e_entry.get(endian);
    let table = header.sections(endian, bytes).map_err(malformed)?;

    let mut sections = Vec::new();
    for sh in table.iter() {
        let flags = sh.sh_flags(endian);
        let size = sh.sh_size(endian);
        if flags & e::SHF_ALLOC == 0 || size == 0 {
            continue;
        }
        let name = String::from_utf8_lossy(table.section_name(endian, sh).map_err(malformed)?)
            .into_owned();
        let addr = sh.sh_addr(endian);
        let end = addr as u64 + size as u64;
        if end > 1 << 32 {
            return Err(LoadError::BadSectionAddress {
                section: name,
                addr,
                size: size as u64,
            });
        }
        let contents = if sh.sh_type(endian) == e::SHT_NOBITS {
            None
        } else {
            Some(sh.data(endian, bytes).map_err(malformed)?)
        };
        sections.push(Section {
            name,
            addr,
            size,
            end,
            exec: flags & e::SHF_EXECINSTR != 0,
            write: flags & e::SHF_WRITE != 0,
            contents,
        });
    }

    // Where the code starts comes first: a kernel linked without the warpforge linker script
    // has everything at the toolchain's default addresses, and that is the thing to report.
    let first_code = sections.iter().filter(|s| s.exec).min_by_key(|s| s.addr);
    match first_code {
        None => return Err(LoadError::NoText),
        Some(s) if s.addr != IMEM_BASE => {
            return Err(LoadError::TextNotAtBase {
                section: s.name.clone(),
                addr: s.addr,
            })
        }
        Some(_) => {}
    }

    let mut image: Vec<u8> = Vec::new();
    let mut data: Vec<Segment> = Vec::new();
    let mut shared_end: Option<u32> = None;
    for s in sections {
        let is_shared = s.name == ".shared" || s.name.starts_with(".shared.");
        let in_imem = s.end <= SMEM_BASE as u64;
        let in_smem = s.addr >= SMEM_BASE && s.end <= GMEM_BASE as u64;
        let in_gmem = s.addr >= GMEM_BASE;
        if is_shared {
            if !in_smem || (s.name == ".shared" && s.addr != SMEM_BASE) {
                return Err(LoadError::SharedMisplaced { addr: s.addr });
            }
            if s.contents.is_some() {
                return Err(LoadError::SharedHasContents);
            }
            let end = s.end as u32 - SMEM_BASE;
            shared_end = Some(shared_end.map_or(end, |e| e.max(end)));
        } else if s.exec {
            if !in_imem {
                return Err(LoadError::CodeOutsideImem {
                    section: s.name,
                    addr: s.addr,
                });
            }
            place(&mut image, &s);
        } else if in_imem {
            let readonly_data = [".rodata", ".srodata"]
                .iter()
                .any(|p| s.name == *p || s.name.starts_with(&format!("{p}.")));
            if readonly_data || s.write || s.contents.is_none() {
                return Err(LoadError::DataInImem {
                    section: s.name,
                    addr: s.addr,
                    readonly: !s.write,
                });
            }
            // Other read-only sections (notes, unwind tables) sit in the text, never executed.
            place(&mut image, &s);
        } else if in_gmem {
            let bytes = match s.contents {
                Some(c) => c.to_vec(),
                None => vec![0; s.size as usize],
            };
            data.push(Segment {
                addr: s.addr,
                bytes,
            });
        } else {
            return Err(LoadError::BadSectionAddress {
                section: s.name,
                addr: s.addr,
                size: s.size as u64,
            });
        }
    }
    data.sort_by_key(|s| s.addr);
    let data_top = data
        .iter()
        .map(|s| s.addr as u64 + s.bytes.len() as u64)
        .max();
    let data_end = match data_top {
        None => GMEM_BASE,
        Some(top) => {
            let rounded = top.div_ceil(64) * 64;
            if rounded > u32::MAX as u64 {
                let last = data.last().expect("data is not empty");
                return Err(LoadError::BadSectionAddress {
                    section: "(last data section)".into(),
                    addr: last.addr,
                    size: last.bytes.len() as u64,
                });
            }
            rounded as u32
        }
    };

    image.resize(image.len().div_ceil(4) * 4, 0);
    let text = image
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();

    let (symbols, labels) = read_symbols(&table, bytes)?;
    Ok(Elf {
        entry,
        text,
        data,
        data_end,
        shared_bytes: shared_end.unwrap_or(0),
        symbols,
        labels,
    })
}

/// Copies a section into the instruction-memory image (byte offset = address, IMEM_BASE = 0).
fn place(image: &mut Vec<u8>, s: &Section) {
    let start = (s.addr - IMEM_BASE) as usize;
    let end = start + s.size as usize;
    if image.len() < end {
        image.resize(end, 0);
    }
    match s.contents {
        Some(c) => image[start..start + c.len()].copy_from_slice(c),
        None => image[start..end].fill(0),
    }
}

/// Named code addresses that are not function symbols.
type Labels = Vec<(u32, String)>;

type SectionTable<'a> = object::read::elf::SectionTable<'a, FileHeader32<LE>, &'a [u8]>;

fn read_symbols(
    table: &SectionTable<'_>,
    bytes: &[u8],
) -> Result<(Vec<Symbol>, Labels), LoadError> {
    let endian = LE;
    let symtab = table
        .symbols(endian, bytes, e::SHT_SYMTAB)
        .map_err(malformed)?;
    let mut funcs: Vec<(bool, Symbol)> = Vec::new();
    let mut labels: Vec<(bool, u32, String)> = Vec::new();
    for sym in symtab.iter() {
        let shndx = sym.st_shndx(endian);
        if shndx == e::SHN_UNDEF || shndx == e::SHN_ABS {
            continue;
        }
        let name = String::from_utf8_lossy(symtab.symbol_name(endian, sym).map_err(malformed)?)
            .into_owned();
        // `$x…` are RISC-V mapping symbols, `.L…` assembler-local labels.
        if name.is_empty() || name.starts_with('$') || name.starts_with(".L") {
            continue;
        }
        let local = sym.st_bind() == e::STB_LOCAL;
        let value = sym.st_value(endian);
        match sym.st_type() {
            e::STT_FUNC => funcs.push((
                local,
                Symbol {
                    name: Some(name),
                    start: value,
                    size: Some(sym.st_size(endian)),
                },
            )),
            e::STT_NOTYPE => labels.push((local, value, name)),
            _ => {}
        }
    }
    // Global names win over local ones at the same address.
    funcs.sort_by_key(|(local, _)| *local);
    labels.sort_by_key(|(local, _, _)| *local);
    Ok((
        funcs.into_iter().map(|(_, s)| s).collect(),
        labels.into_iter().map(|(_, a, n)| (a, n)).collect(),
    ))
}
