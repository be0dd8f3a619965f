//! Kernel loader: reads an RV32 ELF kernel (or a program given as raw words), checks that it
//! fits the warpforge memory map (docs/isa.md §5), finds the functions, builds each function's
//! control-flow graph and computes where the threads of every conditional branch reconverge
//! (the immediate post-dominator), giving the instruction image and its sidecar (§4).
//!
//! See docs/loader.md for the rules and every error.

mod cfg;
mod elf;
mod error;

use std::path::Path;

pub use error::LoadError;
use warpforge_isa::memmap::IMEM_BASE;
use warpforge_isa::Reconvergence;

/// Initial contents of a range of global memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub addr: u32,
    pub bytes: Vec<u8>,
}

/// A function of the kernel: instructions `start..end` (byte addresses, `end` exclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub start: u32,
    pub end: u32,
}

/// A loaded kernel: instruction memory with its reconvergence sidecar, global-memory
/// contents and the shared-memory size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelImage {
    /// Entry point (the ELF's `e_entry`, or the entry given to [`from_words`]).
    pub entry: u32,
    /// Instruction words from [`IMEM_BASE`]; gaps between sections are zero words (illegal).
    pub text: Vec<u32>,
    /// Same length as `text`: [`Reconvergence::None`] except on reachable conditional branches.
    pub sidecar: Vec<Reconvergence>,
    /// Global-memory initial contents (`.bss`-like sections as zero bytes), sorted by address,
    /// all at or above `GMEM_BASE`.
    pub data: Vec<Segment>,
    /// First global address after all data, rounded up to 64 (`GMEM_BASE` if there is none).
    pub data_end: u32,
    /// Size of the `.shared` section (the CTA's shared memory), 0 if absent.
    pub shared_bytes: u32,
    /// The functions, sorted by start, non-overlapping.
    pub functions: Vec<Function>,
}

impl KernelImage {
    /// The instruction word at `pc`; `None` outside the text or if `pc` is not 4-byte aligned.
    pub fn instr_at(&self, pc: u32) -> Option<u32> {
        let off = pc.checked_sub(IMEM_BASE)?;
        if off % 4 != 0 {
            return None;
        }
        self.text.get((off / 4) as usize).copied()
    }

    /// The reconvergence sidecar of the instruction at `pc` (`None` outside the text).
    pub fn reconvergence_at(&self, pc: u32) -> Reconvergence {
        pc.checked_sub(IMEM_BASE)
            .filter(|off| off % 4 == 0)
            .and_then(|off| self.sidecar.get((off / 4) as usize).copied())
            .unwrap_or_default()
    }

    /// The start address of the function called `name`, if the image has one.
    pub fn function_start(&self, name: &str) -> Option<u32> {
        self.functions
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.start)
    }

    /// The function containing `pc`, if any.
    pub fn function_at(&self, pc: u32) -> Option<&Function> {
        function_containing(&self.functions, pc)
    }

    /// `pc` for reports, objdump style: `"0x0000001c <vecadd+0x8>"`, `"0x00000014 <vecadd>"`,
    /// or just `"0x00000400"` outside every function.
    pub fn describe_pc(&self, pc: u32) -> String {
        describe(&self.functions, pc)
    }
}

fn function_containing(functions: &[Function], pc: u32) -> Option<&Function> {
    let i = functions.partition_point(|f| f.start <= pc);
    let f = functions[..i].last()?;
    (pc < f.end).then_some(f)
}

fn describe(functions: &[Function], pc: u32) -> String {
    match function_containing(functions, pc) {
        Some(f) if pc == f.start => format!("0x{pc:08x} <{}>", f.name),
        Some(f) => format!("0x{pc:08x} <{}+0x{:x}>", f.name, pc - f.start),
        None => format!("0x{pc:08x}"),
    }
}

/// Load a linked kernel ELF (see docs/loader.md for what is checked).
pub fn load_elf(bytes: &[u8]) -> Result<KernelImage, LoadError> {
    let elf = elf::read(bytes)?;
    let (functions, sidecar) = cfg::analyse(&elf.text, elf.entry, elf.symbols, &elf.labels)?;
    Ok(KernelImage {
        entry: elf.entry,
        text: elf.text,
        sidecar,
        data: elf.data,
        data_end: elf.data_end,
        shared_bytes: elf.shared_bytes,
        functions,
    })
}

/// [`load_elf`] on the contents of a file.
pub fn load_elf_file(path: &Path) -> Result<KernelImage, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    load_elf(&bytes)
}

/// A program given as raw words at [`IMEM_BASE`] (random-program generator, directed tests).
/// `functions` lists function entry addresses (`entry` is added if missing; targets of
/// `jal rd≠0` are added automatically); each function extends to the next function's start
/// (the last one to the end of the text); addresses outside the text are ignored. Functions are
/// named `fn_XXXXXXXX` after their start.
/// There is no data and no shared memory (`data_end` = `GMEM_BASE`).
pub fn from_words(
    entry: u32,
    words: Vec<u32>,
    functions: &[u32],
) -> Result<KernelImage, LoadError> {
    let mut starts: Vec<cfg::Symbol> = functions
        .iter()
        .map(|&start| cfg::Symbol {
            name: None,
            start,
            size: None,
        })
        .collect();
    starts.push(cfg::Symbol {
        name: None,
        start: entry,
        size: None,
    });
    let (functions, sidecar) = cfg::analyse(&words, entry, starts, &[])?;
    Ok(KernelImage {
        entry,
        text: words,
        sidecar,
        data: Vec::new(),
        data_end: warpforge_isa::memmap::GMEM_BASE,
        shared_bytes: 0,
        functions,
    })
}
