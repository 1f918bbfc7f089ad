//! [`BankManager`]: lockstep banks of one buffer type sharing one [`FreeList`].
//! Uses: buffer_type, error, free_list; used by: circular_buffer, device, sim.
//!
//! Seed 004 §2 "Lockstep Allocation": "each bank reserves the same amount of space for a given
//! buffer regardless of how many banks the data is in". `banked-allocator.md` §1.4 gives the
//! page math: `pages = size / page_size`, `pages_per_bank = ceil(pages / banks)`,
//! `per_bank = pages_per_bank * align_up(page_size, type alignment)`. One allocation returns one
//! address, reserved in every bank; bank `b` holds it at `address + bank_offset(b)`.

use super::buffer_type::BufferType;
use super::error::{BankedError, OutOfMemory};
use super::free_list::{FreeList, FreeListConfig, Policy, Statistics};

/// How a buffer's pages are spread over the banks (§1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Layout {
    /// Page `i` in bank `i % banks`; the per-bank size uses all banks of the type.
    Interleaved,
    /// The per-bank size uses `cores` shard cores (≤ banks); the range is still reserved in
    /// every bank (lockstep).
    Sharded {
        /// Number of shard cores.
        cores: u32,
    },
}

/// Parameters of one bank manager. Bytes throughout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BankConfig {
    /// The buffer type served.
    pub buffer_type: BufferType,
    /// Number of banks (> 0).
    pub num_banks: u32,
    /// Allocatable bytes per bank (above the reserved region).
    pub bank_size: u64,
    /// Reserved bytes at the bottom of every bank (barrier / firmware); the allocator's offset.
    pub reserved: u64,
    /// Page alignment of the buffer type (DRAM: DRAM alignment, L1: L1 alignment).
    pub page_alignment: u64,
    /// Alignment and minimum size inside the allocator (the HAL DRAM alignment, §2).
    pub alignment: u64,
    /// Placement policy.
    pub policy: Policy,
    /// `true` for bottom-up (DRAM), `false` for top-down (L1).
    pub bottom_up: bool,
    /// Interleaved allocations must not start below this absolute address (L1 only).
    pub address_limit: u64,
    /// Bank offsets repeat with this period: `bank_offset(b) = (b % period) * offset_step`.
    pub offset_period: u32,
    /// See `offset_period`; Wormhole DRAM views use period 2 and a 1 GiB step.
    pub offset_step: u64,
}

/// The result of a buffer allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BufferAllocation {
    /// The address, the same in every bank.
    pub address: u64,
    /// Bytes per bank before the allocator's own rounding.
    pub size_per_bank: u64,
    /// Banks the per-bank size was computed over.
    pub num_banks: u32,
    /// The page size aligned to the type's page alignment.
    pub aligned_page: u64,
}

/// Where one page of an interleaved buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PageLocation {
    /// Bank index.
    pub bank: u32,
    /// Address inside the bank's allocator address space.
    pub address: u64,
    /// `address + bank_offset(bank)`.
    pub physical: u64,
}

/// Rounds `x` up to a multiple of `a` (`a == 0` leaves `x`).
///
/// # Errors
/// [`BankedError::Overflow`].
pub fn align_up(x: u64, a: u64) -> Result<u64, BankedError> {
    if a == 0 {
        return Ok(x);
    }
    x.div_ceil(a).checked_mul(a).ok_or(BankedError::Overflow { value: x })
}

/// Bytes each bank stores for a buffer of `size` bytes in pages of `page_size` over
/// `num_banks` banks (§1.4 `calculate_bank_size_spread`).
///
/// # Errors
/// [`BankedError::PageSizeMismatch`] when `size` is not a multiple of `page_size`, or
/// `page_size == 0` with `size != 0`; [`BankedError::InvalidConfig`] for zero banks.
///
/// ```
/// use dramalloc_core::banked::size_per_bank;
/// assert_eq!(size_per_bank(13 * 2048, 2048, 12, 32)?, 4096);
/// assert_eq!(size_per_bank(0, 0, 12, 32)?, 0);
/// assert!(size_per_bank(100, 64, 12, 32).is_err());
/// # Ok::<(), dramalloc_core::banked::BankedError>(())
/// ```
pub fn size_per_bank(
    size: u64,
    page_size: u64,
    num_banks: u32,
    page_alignment: u64,
) -> Result<u64, BankedError> {
    if num_banks == 0 {
        return Err(BankedError::InvalidConfig { what: "num_banks", value: 0 });
    }
    if page_size == 0 {
        return if size == 0 { Ok(0) } else { Err(BankedError::PageSizeMismatch { size, page_size }) };
    }
    if !size.is_multiple_of(page_size) {
        return Err(BankedError::PageSizeMismatch { size, page_size });
    }
    let pages = size / page_size;
    let pages_per_bank = pages.div_ceil(u64::from(num_banks));
    pages_per_bank
        .checked_mul(align_up(page_size, page_alignment)?)
        .ok_or(BankedError::Overflow { value: size })
}

/// Whether the reference accepts this bank count for interleaving (`validate_num_banks`,
/// newest list): a power of two or one of the listed grid sizes.
///
/// ```
/// assert!(dramalloc_core::banked::is_supported_bank_count(12));
/// assert!(!dramalloc_core::banked::is_supported_bank_count(13));
/// ```
pub const fn is_supported_bank_count(n: u32) -> bool {
    const LIST: [u32; 18] = [7, 12, 20, 48, 56, 63, 70, 72, 80, 94, 108, 110, 117, 120, 124, 126, 130, 140];
    if n.is_power_of_two() {
        return true;
    }
    let mut i = 0;
    while i < LIST.len() {
        if LIST[i] == n {
            return true;
        }
        i += 1;
    }
    false
}

/// Lockstep banks of one buffer type over one [`FreeList`] of `BLOCKS` blocks.
///
/// ```
/// use dramalloc_core::banked::{BankConfig, BankManager, BufferType, Layout, Policy};
/// let cfg = BankConfig {
///     buffer_type: BufferType::Dram, num_banks: 12, bank_size: (1 << 30) - 32, reserved: 32,
///     page_alignment: 32, alignment: 32, policy: Policy::First, bottom_up: true,
///     address_limit: 0, offset_period: 2, offset_step: 1 << 30,
/// };
/// let mut dram = BankManager::<64>::new(cfg)?;
/// let b = dram.allocate(12 * 2048, 2048, Layout::Interleaved)?;
/// assert_eq!((b.address, b.size_per_bank), (32, 2048));
/// assert_eq!(dram.physical_address(b.address, 1)?, 32 + (1 << 30));
/// # Ok::<(), dramalloc_core::banked::BankedError>(())
/// ```
#[derive(Clone, Debug)]
pub struct BankManager<const BLOCKS: usize> {
    config: BankConfig,
    allocator: FreeList<BLOCKS>,
}

impl<const BLOCKS: usize> BankManager<BLOCKS> {
    /// Creates the manager and its allocator over `[reserved, reserved + bank_size)`.
    ///
    /// # Errors
    /// [`BankedError::InvalidConfig`] for zero banks, zero offset period or a bad allocator
    /// configuration; [`BankedError::MisalignedConfig`] (`offset` = `reserved`, or `size` =
    /// `bank_size`) when the range is off the `alignment` grid (see [`FreeList::new`]).
    pub fn new(config: BankConfig) -> Result<Self, BankedError> {
        if config.num_banks == 0 {
            return Err(BankedError::InvalidConfig { what: "num_banks", value: 0 });
        }
        if config.offset_period == 0 {
            return Err(BankedError::InvalidConfig { what: "offset_period", value: 0 });
        }
        let allocator = FreeList::new(FreeListConfig::new(
            config.bank_size,
            config.reserved,
            config.alignment,
            config.alignment,
            config.policy,
        ))?;
        Ok(Self { config, allocator })
    }

    /// The configuration.
    pub const fn config(&self) -> &BankConfig {
        &self.config
    }

    /// The shared lockstep allocator (per-bank view).
    pub const fn allocator(&self) -> &FreeList<BLOCKS> {
        &self.allocator
    }

    /// Mutable access to the shared allocator (shrink, reset, allocate_at).
    pub fn allocator_mut(&mut self) -> &mut FreeList<BLOCKS> {
        &mut self.allocator
    }

    /// Bytes per bank for a buffer (see [`size_per_bank`]), with the bank count chosen by
    /// the layout.
    ///
    /// # Errors
    /// As [`size_per_bank`], plus [`BankedError::ZeroShards`] for `Sharded { cores: 0 }` and
    /// [`BankedError::TooManyShards`] for more shard cores than banks.
    pub fn size_per_bank(
        &self,
        size: u64,
        page_size: u64,
        layout: Layout,
    ) -> Result<(u64, u32), BankedError> {
        let banks = match layout {
            Layout::Interleaved => self.config.num_banks,
            Layout::Sharded { cores } => {
                if cores == 0 {
                    return Err(BankedError::ZeroShards { banks: self.config.num_banks });
                }
                if cores > self.config.num_banks {
                    return Err(BankedError::TooManyShards { shards: cores, banks: self.config.num_banks });
                }
                cores
            }
        };
        Ok((size_per_bank(size, page_size, banks, self.config.page_alignment)?, banks))
    }

    /// Allocates a buffer in the manager's default direction.
    ///
    /// # Errors
    /// [`BankedError::ZeroSize`] (with the buffer type) when `size == 0`, as the reference's
    /// `Buffer` ("Buffer size and page size should be larger than 0 bytes!");
    /// [`BankedError::OutOfMemory`] with the request, banks, per-bank need, bank size and the
    /// statistics; page-math errors; [`BankedError::BelowAddressLimit`] for interleaved L1.
    /// Nothing is allocated on error.
    pub fn allocate(
        &mut self,
        size: u64,
        page_size: u64,
        layout: Layout,
    ) -> Result<BufferAllocation, BankedError> {
        self.allocate_directed(size, page_size, layout, self.config.bottom_up)
    }

    /// As [`Self::allocate`] with an explicit direction.
    ///
    /// # Errors
    /// As [`Self::allocate`].
    pub fn allocate_directed(
        &mut self,
        size: u64,
        page_size: u64,
        layout: Layout,
        bottom_up: bool,
    ) -> Result<BufferAllocation, BankedError> {
        if size == 0 {
            return Err(BankedError::ZeroSize { buffer_type: Some(self.config.buffer_type) });
        }
        let (per_bank, banks) = self.size_per_bank(size, page_size, layout)?;
        let limit = match (self.config.buffer_type, layout) {
            (BufferType::L1, Layout::Interleaved) => self.config.address_limit,
            _ => 0,
        };
        let address = match self.allocator.allocate_with_limit(per_bank, bottom_up, limit) {
            Ok(a) => a,
            Err(BankedError::OutOfMemory(oom)) => {
                return Err(BankedError::OutOfMemory(OutOfMemory {
                    buffer_type: Some(self.config.buffer_type),
                    request: size,
                    num_banks: banks,
                    ..oom
                }))
            }
            Err(e) => return Err(e),
        };
        Ok(BufferAllocation {
            address,
            size_per_bank: per_bank,
            num_banks: banks,
            aligned_page: align_up(page_size, self.config.page_alignment)?,
        })
    }

    /// Whether a buffer with `per_bank` bytes per bank would fit now.
    pub fn can_allocate(&self, per_bank: u64) -> bool {
        self.allocator.find(per_bank, self.config.bottom_up).is_some()
    }

    /// Frees the buffer at `address` in every bank; returns its per-bank size.
    ///
    /// # Errors
    /// [`BankedError::UnknownFree`] / [`BankedError::DoubleFree`].
    pub fn deallocate(&mut self, address: u64) -> Result<u64, BankedError> {
        self.allocator.free(address)
    }

    /// Frees everything and undoes shrinks.
    pub fn clear(&mut self) {
        self.allocator.clear();
    }

    /// The offset of bank `bank`: `(bank % period) * step`.
    ///
    /// # Errors
    /// [`BankedError::NoSuchBank`].
    pub fn bank_offset(&self, bank: u32) -> Result<u64, BankedError> {
        if bank >= self.config.num_banks {
            return Err(BankedError::NoSuchBank { bank, banks: self.config.num_banks });
        }
        u64::from(bank % self.config.offset_period)
            .checked_mul(self.config.offset_step)
            .ok_or(BankedError::Overflow { value: u64::from(bank) })
    }

    /// `address + bank_offset(bank)`.
    ///
    /// # Errors
    /// As [`Self::bank_offset`].
    pub fn physical_address(&self, address: u64, bank: u32) -> Result<u64, BankedError> {
        address.checked_add(self.bank_offset(bank)?).ok_or(BankedError::Overflow { value: address })
    }

    /// Where page `page` of an interleaved buffer at `address` lives: bank `page % banks`,
    /// address `address + (page / banks) * aligned_page`.
    ///
    /// # Errors
    /// [`BankedError::Overflow`].
    pub fn page_location(
        &self,
        address: u64,
        page: u64,
        aligned_page: u64,
    ) -> Result<PageLocation, BankedError> {
        let banks = u64::from(self.config.num_banks);
        let bank = (page % banks) as u32;
        let a = (page / banks)
            .checked_mul(aligned_page)
            .and_then(|x| x.checked_add(address))
            .ok_or(BankedError::Overflow { value: page })?;
        Ok(PageLocation { bank, address: a, physical: self.physical_address(a, bank)? })
    }

    /// Per-bank statistics of the shared allocator.
    pub fn statistics(&self) -> Statistics {
        self.allocator.statistics()
    }

    /// The lowest allocated address, if any.
    pub fn lowest_occupied_address(&self) -> Option<u64> {
        self.allocator.lowest_occupied_address()
    }
}
