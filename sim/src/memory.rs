//! Global memory of the model: a flat little-endian byte array at `GMEM_BASE`.

use warpforge_isa::memmap::GMEM_BASE;

pub struct GlobalMemory {
    bytes: Vec<u8>,
}

impl GlobalMemory {
    pub fn new(size: u32) -> Self {
        GlobalMemory {
            bytes: vec![0; size as usize],
        }
    }

    /// Offset of `[addr, addr+len)` if it lies wholly inside global memory.
    #[inline]
    pub fn offset(&self, addr: u32, len: u32) -> Option<usize> {
        let off = addr.checked_sub(GMEM_BASE)? as usize;
        (off + len as usize <= self.bytes.len()).then_some(off)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }
}

/// Read `size` (1, 2, 4) bytes little-endian from `mem[off..]`.
#[inline]
pub fn read_le(mem: &[u8], off: usize, size: u32) -> u32 {
    match size {
        1 => mem[off] as u32,
        2 => u16::from_le_bytes([mem[off], mem[off + 1]]) as u32,
        _ => u32::from_le_bytes([mem[off], mem[off + 1], mem[off + 2], mem[off + 3]]),
    }
}

/// Write the low `size` (1, 2, 4) bytes of `v` little-endian to `mem[off..]`.
#[inline]
pub fn write_le(mem: &mut [u8], off: usize, size: u32, v: u32) {
    mem[off..off + size as usize].copy_from_slice(&v.to_le_bytes()[..size as usize]);
}
