//! The shipped warpforge kernels.
//!
//! * C sources in `kernels/*.c`, the header `kernels/include/warpforge.h` and the runtime
//!   (`kernels/runtime/`: start-up code, linker script, a tiny libc);
//! * [`build`]: compile and link one kernel with `riscv64-unknown-elf-gcc` and [`FLAGS`],
//!   cached by content hash;
//! * for every kernel a [`KernelSpec`] whose [`KernelSpec::cases`] produce launch shapes that
//!   fit a GPU's [`Limits`], pseudo-random inputs and the expected outputs, computed by a plain
//!   Rust reference of the kernel.
//!
//! See `kernels/README.md` for the ABI, the header's API and each kernel's parameter layout.

mod cases;
mod toolchain;

pub use toolchain::{
    build, compiler, default_out_dir, kernels_dir, BuildError, COMPILER, COMPILER_ENV, FLAGS,
    LIBGCC_MULTILIB,
};

use std::path::PathBuf;

/// What a launch may use on the target GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Lanes per warp.
    pub lanes: u32,
    /// Largest CTA: `warps * lanes` of one SM.
    pub max_block: u32,
    /// Shared memory of one SM in bytes (a CTA's static shared size must fit).
    pub smem_bytes: u32,
    /// SMs of the GPU (where a CTA runs, for the cases that expect a fault).
    pub sms: u32,
}

/// One memory buffer of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub name: &'static str,
    /// Initial contents (little-endian words). Output buffers start filled with
    /// [`SENTINEL`] words, so an element the kernel fails to write is caught.
    pub init: Vec<u8>,
    /// The reference result for buffers the kernel writes (`None` for pure inputs).
    pub expected: Option<Vec<u8>>,
}

/// One 32-bit word of the parameter buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Word(u32),
    /// The address of `buffers[i]`.
    Buffer(usize),
}

/// The counter bases co-simulation starts runs from (docs/verification.md, "Counters"). Each
/// has its low word just below the 32-bit wrap, so every bit of a 32-bit counter toggles in a
/// short run and the carry into `cycleh` happens early; together they set every bit of the
/// high word both ways before and after that carry (0xFFFFFFFF → 0, 0x55555554 → 0x55555555,
/// 0xAAAAAAA9 → 0xAAAAAAAA) and every bit of the low byte both ways (0x00, 0xA5, 0x5A). With
/// one base, `cycleh` was always read after its wrap, as 0, and bit 2 of the base was never 1:
/// mutants in both passed every run (docs/mutation.md).
pub const COUNTER_BASES: [u64; 3] = [
    0xFFFF_FFFF_FFFF_FF00,
    0x5555_5554_FFFF_FFA5,
    0xAAAA_AAA9_FFFF_FF5A,
];

/// The counter base of runs that are not a kernel's case (random programs, scripts).
pub const COUNTER_BASE: u64 = COUNTER_BASES[0];

/// A complete launch: shape, memory and parameters, with the expected results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub kernel: &'static str,
    /// Human-readable shape, e.g. `"grid=3 block=7 n=19"`.
    pub label: String,
    /// CTAs in the grid (`nctaid`).
    pub grid: u32,
    /// Threads per CTA (`ntid`).
    pub block: u32,
    pub buffers: Vec<Buffer>,
    pub params: Vec<Param>,
    /// The first CTA's number (`ctaid`, then +1 per CTA, wrapping; `gtid` = `ctaid × ntid +
    /// tid`, mod 2^32). 0, as the ISA says, but in `cta_ids`, whose cases start near the top of
    /// the range to reach the high bits of `ctaid` and `gtid` in a short run: only
    /// co-simulation can set it (the RTL's verification ports `cta_base`/`gtid_base`); the
    /// model runs it with `Gpu::set_cta_base`.
    pub cta_base: u32,
    /// What reset loads into the counters in co-simulation (`cycle`/`cycleh`, each SM's
    /// performance counters and each warp's `instret`): one of [`COUNTER_BASES`], every
    /// kernel's cases taking them in turn ([`KernelSpec::cases`]). The ISA's value is 0; only
    /// co-simulation can set it (the RTL's verification port `ctr_base`).
    pub counter_base: u64,
    /// `Some`: the case must stop on exactly this fault (docs/isa.md §8). It passes when the
    /// kernel faults with every field equal and fails otherwise, also when it finishes;
    /// output buffers are not compared.
    pub expected_fault: Option<ExpectedFault>,
}

/// Where an expected fault's address lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultAddr {
    /// This address.
    Abs(u32),
    /// The address of `buffers[i]` plus the offset.
    Buffer(usize, u32),
    /// The address of the named function (an ELF `STT_FUNC` symbol) plus the offset.
    Function(&'static str, u32),
}

/// The fault a case must stop on: every field of the fault record of docs/isa.md §8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedFault {
    /// The cause's name as in docs/isa.md §8 (`illegal-instruction`, `breakpoint`, …).
    pub cause: &'static str,
    pub sm: u32,
    /// Hardware warp slot.
    pub warp: u32,
    /// The faulting instruction (usually [`FaultAddr::Function`]: a function of the kernel
    /// plus a byte offset).
    pub pc: FaultAddr,
    /// The faulting lane, for the causes that report one.
    pub lane: Option<u32>,
    /// The faulting address, for the causes that report one.
    pub addr: Option<FaultAddr>,
}

/// A fault record with every address resolved (what the model and the RTL report).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultRecord {
    pub cause: String,
    pub sm: u32,
    pub warp: u32,
    pub pc: u32,
    pub lane: Option<u32>,
    pub addr: Option<u32>,
}

impl std::fmt::Display for FaultRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} on SM {}, warp {}, pc 0x{:08x}",
            self.cause, self.sm, self.warp, self.pc
        )?;
        if let Some(l) = self.lane {
            write!(f, ", lane {l}")?;
        }
        if let Some(a) = self.addr {
            write!(f, ", address 0x{a:08x}")?;
        }
        Ok(())
    }
}

impl ExpectedFault {
    /// The record this expectation names, given the address of each function by name and of
    /// each buffer. `Err` names a function the kernel does not have.
    pub fn resolve(
        &self,
        function: impl Fn(&str) -> Option<u32>,
        buffer_addrs: &[u32],
    ) -> Result<FaultRecord, String> {
        let func = |name: &str| {
            function(name).ok_or_else(|| {
                format!(
                    "the expected fault names function `{name}`, which the kernel does not have"
                )
            })
        };
        let at = |a: FaultAddr| -> Result<u32, String> {
            Ok(match a {
                FaultAddr::Abs(a) => a,
                FaultAddr::Buffer(i, off) => buffer_addrs
                    .get(i)
                    .ok_or_else(|| {
                        format!("the expected fault names buffer {i}, which does not exist")
                    })?
                    .wrapping_add(off),
                FaultAddr::Function(name, off) => func(name)?.wrapping_add(off),
            })
        };
        let pc = at(self.pc)?;
        let addr = self.addr.map(at).transpose()?;
        Ok(FaultRecord {
            cause: self.cause.to_string(),
            sm: self.sm,
            warp: self.warp,
            pc,
            lane: self.lane,
            addr,
        })
    }
}

/// Whether a run ended as its case expects, as one message when it did not: `fault` is the
/// fault the run stopped on (`None`: it finished). A case without an expected fault must
/// finish; a case with one must stop on exactly that fault (`resolved` is
/// [`ExpectedFault::resolve`] of it, or why it could not be resolved).
pub fn check_fault(
    expected: Option<&Result<FaultRecord, String>>,
    fault: Option<&FaultRecord>,
) -> Result<(), String> {
    match (expected, fault) {
        (None, None) => Ok(()),
        (None, Some(f)) => Err(format!("unexpected fault: {f}")),
        (Some(Err(why)), _) => Err(why.clone()),
        (Some(Ok(e)), None) => Err(format!(
            "the kernel finished, but the case expects the fault {e}"
        )),
        (Some(Ok(e)), Some(f)) if e == f => Ok(()),
        (Some(Ok(e)), Some(f)) => Err(format!("expected the fault {e}; got {f}")),
    }
}

impl Case {
    /// Where the host puts the parameter buffer ([`Case::param_bytes`]): `(bytes, offset)`,
    /// allocate `bytes` (64-byte aligned, as `Gpu::alloc` does) and write the buffer `offset`
    /// bytes in. The offset, 4 to 60, is a function of the kernel and the case label: with
    /// aligned allocations alone bits 2-5 of `wf_param` were 0 in every launch and a launch
    /// register losing one of them went unseen (issue 11); across the cases each of those bits
    /// is 0 and 1.
    pub fn param_allocation(&self) -> (u32, u32) {
        // FNV-1a of the kernel name and label: stable across runs and platforms.
        let mut h: u32 = 0x811c_9dc5;
        for b in self.kernel.bytes().chain(self.label.bytes()) {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        let offset = 4 * (1 + h % 15);
        let words = (4 * self.params.len() as u32).max(4);
        (words + 60, offset)
    }

    /// The parameter buffer's words, given the address the host gave each buffer.
    ///
    /// Panics if a [`Param::Buffer`] index is out of range of `buffer_addrs`.
    pub fn param_words(&self, buffer_addrs: &[u32]) -> Vec<u32> {
        self.params
            .iter()
            .map(|p| match *p {
                Param::Word(w) => w,
                Param::Buffer(i) => buffer_addrs[i],
            })
            .collect()
    }

    /// The parameter buffer as little-endian bytes.
    pub fn param_bytes(&self, buffer_addrs: &[u32]) -> Vec<u8> {
        words_to_bytes(&self.param_words(buffer_addrs))
    }

    /// Total threads of the launch.
    pub fn threads(&self) -> u64 {
        u64::from(self.grid) * u64::from(self.block)
    }
}

/// Initial value of every word of an output buffer.
pub const SENTINEL: u32 = 0xDEAD_BEEF;

/// A shipped kernel.
#[derive(Clone, Copy, Debug)]
pub struct KernelSpec {
    pub name: &'static str,
    /// File name in `kernels/`.
    pub source: &'static str,
    /// What it computes (one line).
    pub about: &'static str,
    /// The launch shapes it supports (block and grid rules).
    pub shape: &'static str,
    /// Static shared memory of one CTA in bytes (the ELF's `.shared` size).
    pub shared_bytes: u32,
    cases: fn(&Limits, u64) -> Vec<Case>,
}

impl KernelSpec {
    /// 3 to 5 launches that fit `limits`, inputs drawn from `seed`, with expected outputs.
    /// Empty if the kernel cannot run within `limits` at all (e.g. its static shared memory is
    /// larger than `smem_bytes`, or it needs a larger block than `max_block`).
    pub fn cases(&self, limits: &Limits, seed: u64) -> Vec<Case> {
        let mut cases = (self.cases)(limits, seed);
        for (i, c) in cases.iter_mut().enumerate() {
            c.counter_base = COUNTER_BASES[i % COUNTER_BASES.len()];
        }
        cases
    }

    /// The representative launch: the first case with several CTAs and a partial last warp,
    /// else the first with several CTAs, else the first.
    ///
    /// Panics if the kernel has no case within `limits` (see [`KernelSpec::cases`]).
    pub fn default_case(&self, limits: &Limits, seed: u64) -> Case {
        let cases = self.cases(limits, seed);
        let lanes = limits.lanes.max(1);
        let pick = cases
            .iter()
            .position(|c| c.grid > 1 && c.block % lanes != 0)
            .or_else(|| cases.iter().position(|c| c.grid > 1))
            .unwrap_or(0);
        cases.into_iter().nth(pick).unwrap_or_else(|| {
            panic!(
                "kernel `{}` cannot run within {limits:?} ({}; {} bytes of shared memory)",
                self.name, self.shape, self.shared_bytes
            )
        })
    }

    /// Absolute path of the C source.
    pub fn source_path(&self) -> PathBuf {
        kernels_dir().join(self.source)
    }

    /// Build the kernel into [`default_out_dir`] (cached) and return the ELF's path.
    pub fn elf(&self) -> Result<PathBuf, BuildError> {
        build(&self.source_path(), &default_out_dir())
    }

    /// [`KernelSpec::elf`], also telling whether it was compiled now (`true`) or came from the
    /// cache.
    pub fn elf_status(&self) -> Result<(PathBuf, bool), BuildError> {
        toolchain::build_status(&self.source_path(), &default_out_dir())
    }
}

/// Every shipped kernel.
pub fn all() -> &'static [KernelSpec] {
    cases::ALL
}

/// The shipped kernel called `name`.
pub fn by_name(name: &str) -> Option<&'static KernelSpec> {
    all().iter().find(|k| k.name == name)
}

/// Little-endian bytes of 32-bit words.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// 32-bit words of little-endian bytes (a trailing partial word is ignored).
pub fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
