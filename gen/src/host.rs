//! The host side of a launch on the golden model: place buffers and the parameter buffer in
//! global memory, launch, run with a cycle limit, read results back and compare them with the
//! kernel's Rust reference.

use std::fmt::Write as _;

use anyhow::{bail, Context as _, Result};
use warpforge_config::GpuConfig;
use warpforge_kernels::{Case, FaultRecord, Limits, Param};
use warpforge_loader::KernelImage;
use warpforge_sim::{Fault, Gpu, RunOutcome, Stats};

/// Default cycle limit of a model run: generous for the shipped kernels, still a watchdog.
pub const DEFAULT_MAX_CYCLES: u64 = 50_000_000;

/// Buffers of a launch as placed in global memory.
#[derive(Debug, Clone)]
pub struct Placed {
    /// Address of each buffer, in `Case::buffers` order.
    pub buffers: Vec<u32>,
    pub param: u32,
}

/// Allocate and fill every buffer and the parameter buffer of `case`.
/// What a configuration can launch: its lanes, the largest CTA (every warp of an SM) and its
/// shared memory, for choosing a kernel's reference cases.
pub fn limits(cfg: &GpuConfig) -> Limits {
    Limits {
        lanes: cfg.lanes,
        max_block: cfg.warps * cfg.lanes,
        smem_bytes: cfg.smem_bytes,
        sms: cfg.sms,
    }
}

pub fn place(gpu: &mut Gpu, case: &Case) -> Result<Placed> {
    let mut buffers = Vec::with_capacity(case.buffers.len());
    for b in &case.buffers {
        let addr = gpu
            .alloc(b.init.len() as u32)
            .with_context(|| format!("allocating buffer `{}`", b.name))?;
        gpu.write(addr, &b.init)?;
        buffers.push(addr);
    }
    for p in &case.params {
        if let Param::Buffer(i) = *p {
            anyhow::ensure!(
                i < buffers.len(),
                "parameter refers to buffer {i}, which does not exist"
            );
        }
    }
    let (bytes, offset) = case.param_allocation();
    let param = gpu.alloc(bytes)? + offset;
    gpu.write(param, &case.param_bytes(&buffers))?;
    Ok(Placed { buffers, param })
}

/// Result of one case on the model.
#[derive(Debug)]
pub struct CaseResult {
    pub outcome: RunOutcome,
    pub stats: Stats,
    /// One line per output buffer that differs from the reference (empty = pass).
    pub mismatches: Vec<String>,
    /// Whether the run ended as the case expects: finished, or stopped on exactly the
    /// case's expected fault (`Err`: what happened instead; a timeout is reported by
    /// `outcome`).
    pub fault_check: Result<(), String>,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        !matches!(self.outcome, RunOutcome::Timeout(_))
            && self.mismatches.is_empty()
            && self.fault_check.is_ok()
    }
}

/// A model fault as a plain record (the form a case's expected fault is compared in).
pub fn fault_record(f: &Fault) -> FaultRecord {
    FaultRecord {
        cause: f.cause.name().to_string(),
        sm: f.sm,
        warp: f.warp,
        pc: f.pc,
        lane: f.lane,
        addr: f.addr,
    }
}

/// The fault `case` expects, resolved against the image's functions and the placed buffers.
pub fn expected_fault(
    case: &Case,
    image: &KernelImage,
    placed: &Placed,
) -> Option<Result<FaultRecord, String>> {
    case.expected_fault
        .as_ref()
        .map(|e| e.resolve(|name| image.function_start(name), &placed.buffers))
}

/// [`warpforge_kernels::check_fault`] of a run that stopped on `fault` (`None`: finished).
pub fn check_fault(
    case: &Case,
    image: &KernelImage,
    placed: &Placed,
    fault: Option<&Fault>,
) -> Result<(), String> {
    warpforge_kernels::check_fault(
        expected_fault(case, image, placed).as_ref(),
        fault.map(fault_record).as_ref(),
    )
}

/// Run `case` of a kernel on a fresh model and compare every output buffer.
pub fn run_case(
    cfg: &GpuConfig,
    image: &KernelImage,
    case: &Case,
    max_cycles: u64,
) -> Result<CaseResult> {
    let mut gpu = Gpu::new(cfg, image)?;
    let placed = place(&mut gpu, case)?;
    gpu.set_cta_base(case.cta_base);
    gpu.launch(case.grid, case.block, placed.param)?;
    let outcome = gpu.run(max_cycles);
    let mut mismatches = Vec::new();
    let fault_check = match &outcome {
        RunOutcome::Timeout(_) => Ok(()),
        RunOutcome::Finished => check_fault(case, image, &placed, None),
        RunOutcome::Fault(f) => check_fault(case, image, &placed, Some(f)),
    };
    if outcome == RunOutcome::Finished && case.expected_fault.is_none() {
        for (b, &addr) in case.buffers.iter().zip(&placed.buffers) {
            if let Some(expected) = &b.expected {
                let got = gpu.read(addr, expected.len() as u32)?;
                if let Some(m) = describe_mismatch(b.name, addr, expected, got) {
                    mismatches.push(m);
                }
            }
        }
    }
    Ok(CaseResult {
        outcome,
        stats: gpu.stats().clone(),
        mismatches,
        fault_check,
    })
}

/// The first differing words of a buffer, or None when equal.
pub fn describe_mismatch(name: &str, addr: u32, expected: &[u8], got: &[u8]) -> Option<String> {
    if expected == got {
        return None;
    }
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(w)
            })
            .collect()
    };
    let (e, g) = (words(expected), words(got));
    let diffs: Vec<usize> = (0..e.len()).filter(|&i| e[i] != g[i]).collect();
    let mut s = format!(
        "buffer `{name}` at 0x{addr:08x}: {} of {} words differ;",
        diffs.len(),
        e.len()
    );
    for &i in diffs.iter().take(8) {
        let _ = write!(s, " [{i}] expected 0x{:08x} got 0x{:08x};", e[i], g[i]);
    }
    Some(s)
}

/// Parse a kernel argument of `warpforge run`: a number, or a buffer to allocate.
///
/// `42`, `0x2a`, `-3` — a parameter word; `buf:BYTES` — a zeroed buffer;
/// `buf:BYTES:iota` — words 0, 1, 2, …; `buf:BYTES:rand:SEED` — pseudo-random words;
/// `file:PATH` — a buffer holding the file's bytes.
pub fn parse_arg(text: &str) -> Result<ArgSpec> {
    if let Some(rest) = text.strip_prefix("buf:") {
        let mut parts = rest.split(':');
        let size = parse_u32(parts.next().unwrap_or(""))
            .with_context(|| format!("`{text}`: buffer size must be a number of bytes"))?;
        if size == 0 || size % 4 != 0 {
            bail!("`{text}`: buffer size must be a positive multiple of 4 bytes");
        }
        let init = match (parts.next(), parts.next(), parts.next()) {
            (None, ..) => vec![0; size as usize],
            (Some("iota"), None, _) => (0..size / 4).flat_map(u32::to_le_bytes).collect(),
            (Some("rand"), Some(seed), None) => {
                let seed = parse_u32(seed).with_context(|| format!("`{text}`: bad seed"))?;
                let mut x = seed as u64 ^ 0x9e37_79b9_7f4a_7c15;
                (0..size / 4)
                    .flat_map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (x as u32).to_le_bytes()
                    })
                    .collect()
            }
            _ => bail!("`{text}`: expected buf:BYTES, buf:BYTES:iota or buf:BYTES:rand:SEED"),
        };
        return Ok(ArgSpec::Buffer(init));
    }
    if let Some(path) = text.strip_prefix("file:") {
        let data = std::fs::read(path).with_context(|| format!("reading `{path}`"))?;
        if data.is_empty() {
            bail!("`{path}` is empty");
        }
        return Ok(ArgSpec::Buffer(data));
    }
    if let Some(neg) = text.strip_prefix('-') {
        let v = parse_u32(neg).with_context(|| format!("`{text}` is not a number"))?;
        return Ok(ArgSpec::Word((v as i32).wrapping_neg() as u32));
    }
    Ok(ArgSpec::Word(parse_u32(text).with_context(|| {
        format!("`{text}` is neither a number nor buf:…/file:…")
    })?))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgSpec {
    Word(u32),
    Buffer(Vec<u8>),
}

pub fn parse_u32(s: &str) -> Result<u32> {
    let s = s.trim().replace('_', "");
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16)?
    } else if let Some(suffix) = s.strip_suffix(['k', 'K']) {
        suffix
            .parse::<u32>()?
            .checked_mul(1024)
            .context("too large")?
    } else {
        s.parse::<u32>()?
    };
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args() {
        assert_eq!(parse_arg("42").unwrap(), ArgSpec::Word(42));
        assert_eq!(parse_arg("0x10").unwrap(), ArgSpec::Word(16));
        assert_eq!(parse_arg("-1").unwrap(), ArgSpec::Word(u32::MAX));
        assert_eq!(parse_arg("buf:8").unwrap(), ArgSpec::Buffer(vec![0; 8]));
        assert_eq!(
            parse_arg("buf:8:iota").unwrap(),
            ArgSpec::Buffer(vec![0, 0, 0, 0, 1, 0, 0, 0])
        );
        assert!(parse_arg("buf:7")
            .unwrap_err()
            .to_string()
            .contains("multiple of 4"));
        assert!(parse_arg("nope")
            .unwrap_err()
            .to_string()
            .contains("neither a number"));
        assert!(parse_arg("buf:8:foo").is_err());
        assert!(parse_arg("file:/nonexistent/x").is_err());
    }
}
