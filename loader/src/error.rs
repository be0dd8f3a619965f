//! Everything the loader can refuse, each with a message that says what is wrong and how to fix
//! it (docs/loader.md lists them with examples).

use std::path::PathBuf;

/// Why a kernel could not be loaded. Addresses in messages are hex and, for code, followed by
/// the function and offset as [`crate::KernelImage::describe_pc`] prints them.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "not an ELF file (the first bytes are {magic}, an ELF file starts with 7f 45 4c 46 = \
         \"\\x7fELF\"): give the loader the linked kernel executable"
    )]
    NotElf { magic: String },

    #[error(
        "the ELF file is a 64-bit ELF; warpforge runs RV32 code: compile with \
         -march=rv32im_zicsr -mabi=ilp32"
    )]
    Not32Bit,

    #[error(
        "the ELF file is big-endian; warpforge is little-endian RISC-V: compile with \
         riscv64-unknown-elf-gcc -march=rv32im_zicsr -mabi=ilp32"
    )]
    BigEndian,

    #[error(
        "the ELF file is for {name} (e_machine {machine}), not RISC-V: compile the kernel with \
         riscv64-unknown-elf-gcc -march=rv32im_zicsr -mabi=ilp32"
    )]
    WrongMachine { machine: u16, name: String },

    #[error(
        "the ELF file is a relocatable object (.o), not an executable: link it with \
         kernels/runtime/link.ld (and crt0.S), e.g. riscv64-unknown-elf-gcc ... -nostdlib \
         -T kernels/runtime/link.ld crt0.S kernel.c"
    )]
    Relocatable,

    #[error(
        "the ELF file is {kind}, not a static executable (ET_EXEC): link it with \
         kernels/runtime/link.ld, without -shared or -pie"
    )]
    NotExecutable { e_type: u16, kind: String },

    #[error(
        "the kernel was compiled with the C extension (compressed instructions, e_flags \
         0x{flags:x}), which warpforge does not execute: use -march=rv32im_zicsr"
    )]
    Compressed { flags: u32 },

    #[error(
        "the kernel uses a hardware floating-point ABI (e_flags 0x{flags:x}); warpforge has no \
         floating-point unit: use -march=rv32im_zicsr -mabi=ilp32"
    )]
    FloatAbi { flags: u32 },

    #[error("malformed ELF file: {0}")]
    Malformed(String),

    #[error(
        "the ELF file has no executable section: the kernel's code must be in .text (linked by \
         kernels/runtime/link.ld at 0x00000000)"
    )]
    NoText,

    #[error(
        "the code starts at 0x{addr:08x}, not at instruction memory's base 0x00000000 \
         (section {section}): link with kernels/runtime/link.ld, which places .text at 0"
    )]
    TextNotAtBase { section: String, addr: u32 },

    #[error(
        "executable section {section} at 0x{addr:08x} is outside instruction memory \
         (0x00000000..0x10000000): the linker script must place all code in .text at 0"
    )]
    CodeOutsideImem { section: String, addr: u32 },

    #[error(
        "{} in instruction memory: section {section} at 0x{addr:08x}; loads and stores cannot \
         reach instruction memory, so the linker script must place {section} in global memory \
         (0x80000000)",
        if *readonly { "read-only data" } else { "data" }
    )]
    DataInImem {
        section: String,
        addr: u32,
        readonly: bool,
    },

    #[error(
        "section {section} (0x{addr:08x}, {size} bytes) is neither in instruction memory \
         (below 0x10000000), nor in global memory (from 0x80000000), nor the shared-memory \
         section .shared: fix the linker script (kernels/runtime/link.ld)"
    )]
    BadSectionAddress {
        section: String,
        addr: u32,
        size: u64,
    },

    #[error(
        "section .shared is at 0x{addr:08x}, not at the shared-memory base 0x10000000: the \
         linker script must place it there as a NOLOAD section"
    )]
    SharedMisplaced { addr: u32 },

    #[error(
        "section .shared has contents in the file, but shared memory is zero when a CTA starts: \
         declare WF_SHARED variables without initializers and keep .shared (NOLOAD) in the \
         linker script"
    )]
    SharedHasContents,

    #[error(
        "the entry point 0x{entry:08x} is not an instruction of the text \
         (0x00000000..0x{text_end:08x}, 4-byte aligned)"
    )]
    EntryOutsideText { entry: u32, text_end: u32 },

    #[error(
        "tail jump at {location} to {target_location} leaves function {function}: a function \
         may only be left by ret or a call; build with -fno-optimize-sibling-calls"
    )]
    TailJump {
        addr: u32,
        target: u32,
        function: String,
        location: String,
        target_location: String,
    },

    #[error(
        "`jal {reg}, {target_location}` at {location} links in {reg}, not ra, and leaves \
         function {function}: the loader takes only `jal ra` for a call, so this is a jump out \
         of the function, which may only be left by ret or a call. To call a function, use \
         `call` (jal ra) and return with `ret` (not through another register, as gcc's \
         -msave-restore does); `jal {reg}` is accepted to an address inside the same function \
         (a jump that also writes pc + 4 to {reg}), and `jal {reg}, 1f` followed by `1:` reads \
         the pc"
    )]
    LinkedJump {
        addr: u32,
        target: u32,
        rd: u8,
        reg: &'static str,
        function: String,
        location: String,
        target_location: String,
    },

    #[error(
        "indirect jump `jalr zero, {offset}({reg})` at {location} in function {function}: only \
         `ret` (jalr zero, 0(ra)) may jump through a register without linking, because the \
         loader cannot know where the threads reconverge; this is usually a switch jump table: \
         compile with -fno-jump-tables"
    )]
    IndirectJump {
        addr: u32,
        function: String,
        location: String,
        reg: &'static str,
        offset: i32,
    },

    #[error(
        "{what} at {location} continues at 0x{target:08x}, outside function {function} \
         (0x{start:08x}..0x{end:08x}): a function may only be left by ret, a call, wf.exit, \
         ecall or ebreak"
    )]
    LeavesFunction {
        addr: u32,
        target: u32,
        function: String,
        location: String,
        start: u32,
        end: u32,
        what: &'static str,
    },

    #[error("no reconvergence point for the branch at {location} (function {function}): {reason}")]
    NoReconvergence {
        addr: u32,
        function: String,
        location: String,
        reason: String,
    },
}
