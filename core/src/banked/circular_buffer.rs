//! Circular buffers (CBs): packing above the L1 unreserved base and the clash validation.
//! Uses: bank_manager, core_range, error; used by: sim.
//!
//! Circular buffers (CBs): packing upward from the L1 unreserved base and validation against
//! the L1 size and the lowest L1 buffer ("clash").
//!
//! Seed 004 §3 "SRAM Banks and CircularBuffers": L1 buffers grow down from the top "to avoid
//! growing into CircularBuffers … placed after the reserved region", and "before any Program
//! is run on device there is a validation step to ensure that CBs and SRAM buffers do not
//! overlap". Rules from `banked-allocator.md` §1.7.
//!
//! Model: each CB covers one rectangular [`CoreRange`]. In creation order, a CB is placed at
//! `align_up(max(base, end of every earlier CB whose range intersects its own), alignment)`,
//! i.e. above everything already placed on any of its cores. Packing is O(n²) in the number
//! of CBs, which is small.

use heapless::Vec;

use super::core_range::CoreRange;
use super::error::BankedError;

/// One circular buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CircularBuffer {
    /// The cores it lives on.
    pub core_range: CoreRange,
    /// Total size, bytes (a positive multiple of `page_size`).
    pub total_size: u64,
    /// Page size, bytes.
    pub page_size: u64,
    /// L1 address after the last [`CircularBuffers::allocate`]; `None` when invalidated.
    pub address: Option<u64>,
}

/// Identifier of a CB: its index in creation order.
pub type CbId = u32;

/// The statically allocated CBs of one program, at most `N` of them.
///
/// ```
/// use dramalloc_core::banked::{CircularBuffers, CoreRange};
/// let mut cbs = CircularBuffers::<8>::new();
/// let a = cbs.add(CoreRange::core(0, 0), 2048, 2048)?;
/// let b = cbs.add(CoreRange::core(0, 0), 2048, 2048)?;
/// cbs.allocate(111360, 32)?;
/// assert_eq!(cbs.address(b)?, Some(111360 + 2048));
/// cbs.validate(1499136, Some(1236992))?;
/// # let _ = a;
/// # Ok::<(), dramalloc_core::banked::BankedError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CircularBuffers<const N: usize> {
    cbs: Vec<CircularBuffer, N>,
}

impl<const N: usize> CircularBuffers<N> {
    /// No CBs.
    pub const fn new() -> Self {
        Self { cbs: Vec::new() }
    }

    /// Number of CBs.
    pub fn len(&self) -> usize {
        self.cbs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.cbs.is_empty()
    }

    /// The CBs in creation order.
    pub fn iter(&self) -> impl Iterator<Item = &CircularBuffer> {
        self.cbs.iter()
    }

    /// Adds a CB (unplaced; every CB's address is invalidated).
    ///
    /// # Errors
    /// [`BankedError::CapacityExhausted`] when `N` CBs exist.
    pub fn add(
        &mut self,
        core_range: CoreRange,
        total_size: u64,
        page_size: u64,
    ) -> Result<CbId, BankedError> {
        let id = self.cbs.len() as CbId;
        self.cbs.push(CircularBuffer { core_range, total_size, page_size, address: None }).map_err(|_| {
            BankedError::CapacityExhausted { table: "circular buffer table", capacity: N as u32 }
        })?;
        self.invalidate();
        Ok(id)
    }

    /// Changes a CB's total size; invalidates the allocation (re-packed on the next
    /// [`Self::allocate`], P39c).
    ///
    /// # Errors
    /// [`BankedError::NoSuchCb`].
    pub fn set_total_size(&mut self, id: CbId, total_size: u64) -> Result<(), BankedError> {
        let cb = self.cbs.get_mut(id as usize).ok_or(BankedError::NoSuchCb { index: id })?;
        cb.total_size = total_size;
        self.invalidate();
        Ok(())
    }

    fn invalidate(&mut self) {
        for cb in &mut self.cbs {
            cb.address = None;
        }
    }

    /// The address of CB `id` after the last successful [`Self::allocate`].
    ///
    /// # Errors
    /// [`BankedError::NoSuchCb`].
    pub fn address(&self, id: CbId) -> Result<Option<u64>, BankedError> {
        self.cbs.get(id as usize).map(|c| c.address).ok_or(BankedError::NoSuchCb { index: id })
    }

    /// Packs every CB in creation order upward from `base` (the L1 unreserved base), each at
    /// an address aligned to `alignment` (the DRAM alignment, §1.7 step 2).
    ///
    /// # Errors
    /// [`BankedError::CbPageSize`] when a CB's total size is not a positive multiple of its
    /// page size (nothing is placed then); [`BankedError::Overflow`].
    pub fn allocate(&mut self, base: u64, alignment: u64) -> Result<(), BankedError> {
        for (i, cb) in self.cbs.iter().enumerate() {
            if cb.page_size == 0 || cb.total_size == 0 || !cb.total_size.is_multiple_of(cb.page_size) {
                return Err(BankedError::CbPageSize {
                    index: i as u32,
                    total_size: cb.total_size,
                    page_size: cb.page_size,
                });
            }
        }
        self.invalidate();
        for i in 0..self.cbs.len() {
            let range = self.cbs[i].core_range;
            let mut addr = base;
            for earlier in &self.cbs[..i] {
                if earlier.core_range.intersects(&range) {
                    if let Some(a) = earlier.address {
                        addr = addr.max(a + earlier.total_size);
                    }
                }
            }
            let addr = super::bank_manager::align_up(addr, alignment)?;
            addr.checked_add(self.cbs[i].total_size).ok_or(BankedError::Overflow { value: addr })?;
            self.cbs[i].address = Some(addr);
        }
        Ok(())
    }

    /// End of the CB region on the cores of `range`: the largest end of a placed CB that
    /// intersects it, or `None` when there is none.
    pub fn region_end(&self, range: &CoreRange) -> Option<u64> {
        self.cbs
            .iter()
            .filter(|c| c.core_range.intersects(range))
            .filter_map(|c| c.address.map(|a| a + c.total_size))
            .max()
    }

    /// Validates the placed CBs (§1.7): for each CB's core range in creation order, its
    /// region end must not exceed `l1_size`, nor `lowest_l1_buffer` (the lowest L1 buffer
    /// address of the device, if any). Ending exactly at the buffer is allowed (B10).
    ///
    /// # Errors
    /// [`BankedError::CbUnplaced`] naming the first CB with no address (added or resized after
    /// the last [`Self::allocate`]); [`BankedError::CbBeyondL1`] or [`BankedError::CbClash`]
    /// naming the core range, the region end and the limit.
    pub fn validate(&self, l1_size: u64, lowest_l1_buffer: Option<u64>) -> Result<(), BankedError> {
        if let Some(index) = self.cbs.iter().position(|c| c.address.is_none()) {
            return Err(BankedError::CbUnplaced { index: index as u32 });
        }
        for cb in &self.cbs {
            let Some(end) = self.region_end(&cb.core_range) else {
                continue;
            };
            if end > l1_size {
                return Err(BankedError::CbBeyondL1 { core_range: cb.core_range, region_end: end, l1_size });
            }
            if let Some(lowest) = lowest_l1_buffer {
                if lowest < end {
                    return Err(BankedError::CbClash {
                        core_range: cb.core_range,
                        region_end: end,
                        buffer_address: lowest,
                    });
                }
            }
        }
        Ok(())
    }
}
