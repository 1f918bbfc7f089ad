//! Device descriptors (Wormhole, Blackhole, custom) and [`Device`]: the bank managers of one chip.
//! Uses: bank_manager, buffer_type, error, free_list; used by: sim.
//!
//! Device descriptors (Wormhole, Blackhole, custom) and [`Device`]: the DRAM and L1 bank
//! managers of one chip.
//!
//! Seed 004 §1 "Memory Banks": "on Wormhole there are 12 ~1GB DRAM banks while Blackhole
//! devices have 8 ~4GB DRAM banks. Some portion of each DRAM bank is reserved for a barrier."
//! and "Reserved region in SRAM is used to hold FW, Kernels, and related runtime metadata".
//! Values from `banked-allocator.md` §2; layout from §1.5.

use super::bank_manager::{BankConfig, BankManager, BufferAllocation, Layout};
use super::buffer_type::BufferType;
use super::error::BankedError;
use super::free_list::Policy;

/// One GiB in bytes.
pub const GIB: u64 = 1 << 30;
/// Wormhole B0 worker L1 per Tensix core, bytes (`MEM_L1_SIZE`, 1464 KiB).
pub const WORMHOLE_L1_SIZE: u64 = 1_499_136;
/// Blackhole worker L1 per Tensix core, bytes (1536 KiB).
pub const BLACKHOLE_L1_SIZE: u64 = 1_572_864;
/// Blackhole DRAM bank (view) size, bytes (`MEM_DRAM_SIZE`, 4177920 KiB).
pub const BLACKHOLE_DRAM_BANK_SIZE: u64 = 4_278_190_080;

/// `value` rounded up to a multiple of `alignment` (bytes); `value` itself where the multiple
/// would pass `u64::MAX` (then [`Device::new`] refuses it as off the grid, where the rounding
/// overflowed before: a panic in debug builds, a base of 0 in release builds, accepted) or
/// where `alignment` is 0.
const fn round_up_or_keep(value: u64, alignment: u64) -> u64 {
    match value.checked_next_multiple_of(alignment) {
        Some(v) => v,
        None => value,
    }
}

/// The memory parameters of a device. Bytes throughout.
///
/// The region bounds `dram_reserved`, `dram_bank_size`, `dram_offset_step`,
/// `l1_unreserved_base` and `l1_size` must be multiples of `dram_alignment` (the grid of every
/// allocator of the device, seed 004 §2.1); [`Device::new`] refuses others with
/// [`BankedError::MisalignedConfig`]. The constructors round `l1_unreserved_base` up, as the
/// reference does; nothing else is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DeviceDescriptor {
    /// Number of DRAM banks used by the allocator.
    pub dram_banks: u32,
    /// DRAM bank (view) size including the reserved bottom.
    pub dram_bank_size: u64,
    /// DRAM alignment; also the alignment and minimum inside every allocator.
    pub dram_alignment: u64,
    /// Reserved DRAM at the bottom of every bank (barrier), the DRAM unreserved base.
    pub dram_reserved: u64,
    /// DRAM bank offsets repeat with this period (Wormhole: 2 views per channel).
    pub dram_offset_period: u32,
    /// DRAM view offset step (Wormhole: 1 GiB).
    pub dram_offset_step: u64,
    /// Number of L1 banks (compute cores).
    pub l1_banks: u32,
    /// Worker L1 size per core.
    pub l1_size: u64,
    /// L1 unreserved base: firmware, mailboxes and kernel config lie below (aligned up to the
    /// DRAM alignment by the constructors). CBs start here.
    pub l1_unreserved_base: u64,
    /// L1 alignment (page alignment of L1 buffers).
    pub l1_alignment: u64,
}

impl DeviceDescriptor {
    /// Wormhole B0: 12 DRAM banks of 1 GiB (views at 0 and 1 GiB of a 2 GiB channel), DRAM
    /// alignment 32, barrier 32, 64 L1 banks of 1,499,136 B, L1 alignment 16.
    /// `l1_unreserved_base` depends on the firmware build; it is aligned up to 32 (kept as given
    /// where that would pass `u64::MAX`: [`Device::new`] then refuses it).
    ///
    /// ```
    /// let wh = dramalloc_core::banked::DeviceDescriptor::wormhole(111_360);
    /// assert_eq!((wh.dram_banks, wh.l1_size, wh.l1_unreserved_base), (12, 1_499_136, 111_360));
    /// ```
    pub const fn wormhole(l1_unreserved_base: u64) -> Self {
        Self {
            dram_banks: 12,
            dram_bank_size: GIB,
            dram_alignment: 32,
            dram_reserved: 32,
            dram_offset_period: 2,
            dram_offset_step: GIB,
            l1_banks: 64,
            l1_size: WORMHOLE_L1_SIZE,
            l1_unreserved_base: round_up_or_keep(l1_unreserved_base, 32),
            l1_alignment: 16,
        }
    }

    /// Blackhole: 8 DRAM banks of 4,278,190,080 B, DRAM alignment 64, barrier 64, 110 L1 banks
    /// (the harvested count cited in the notes) of 1,572,864 B, L1 alignment 16.
    pub const fn blackhole(l1_unreserved_base: u64) -> Self {
        Self {
            dram_banks: 8,
            dram_bank_size: BLACKHOLE_DRAM_BANK_SIZE,
            dram_alignment: 64,
            dram_reserved: 64,
            dram_offset_period: 1,
            dram_offset_step: 0,
            l1_banks: 110,
            l1_size: BLACKHOLE_L1_SIZE,
            l1_unreserved_base: round_up_or_keep(l1_unreserved_base, 64),
            l1_alignment: 16,
        }
    }

    /// A custom device with bank offsets 0. `l1_unreserved_base` is aligned up to
    /// `dram_alignment` (0 alignment, or a multiple past `u64::MAX`, leaves it: [`Device::new`]
    /// then refuses it).
    #[allow(clippy::too_many_arguments)]
    pub const fn custom(
        dram_banks: u32,
        dram_bank_size: u64,
        dram_alignment: u64,
        dram_reserved: u64,
        l1_banks: u32,
        l1_size: u64,
        l1_unreserved_base: u64,
        l1_alignment: u64,
    ) -> Self {
        let base = round_up_or_keep(l1_unreserved_base, dram_alignment);
        Self {
            dram_banks,
            dram_bank_size,
            dram_alignment,
            dram_reserved,
            dram_offset_period: 1,
            dram_offset_step: 0,
            l1_banks,
            l1_size,
            l1_unreserved_base: base,
            l1_alignment,
        }
    }

    /// Checks that the region bounds `bounds` (key, value) are multiples of the DRAM alignment,
    /// the grid of every allocator of the device (seed 004 §2.1: "Allocations in DRAM and SRAM
    /// are done at DRAM_ALIGNMENT aligned addresses"; the reference asserts that an allocator's
    /// offset is aligned).
    fn check_grid(&self, bounds: &[(&'static str, u64)]) -> Result<(), BankedError> {
        let alignment = self.dram_alignment;
        if alignment == 0 {
            return Err(BankedError::InvalidConfig { what: "dram_alignment", value: 0 });
        }
        match bounds.iter().find(|(_, v)| !v.is_multiple_of(alignment)) {
            Some(&(what, value)) => Err(BankedError::MisalignedConfig { what, value, alignment }),
            None => Ok(()),
        }
    }

    /// The DRAM bank manager configuration: `[reserved, bank_size)`, bottom-up, FIRST.
    ///
    /// # Errors
    /// [`BankedError::InvalidConfig`] when `dram_alignment` is 0 or the reserved region fills
    /// the bank; [`BankedError::MisalignedConfig`] naming `dram_reserved`, `dram_bank_size` or
    /// `dram_offset_step` when it is not a multiple of `dram_alignment` (refused, not rounded:
    /// the reference asserts its allocators' offsets are aligned, and the DRAM bounds come from
    /// the hardware, aligned by construction).
    ///
    /// ```
    /// use dramalloc_core::banked::{BankedError, DeviceDescriptor};
    /// let d = DeviceDescriptor::custom(2, 1 << 20, 48, 5, 2, 1 << 20, 0, 16);
    /// assert_eq!(
    ///     d.dram_config().unwrap_err(),
    ///     BankedError::MisalignedConfig { what: "dram_reserved", value: 5, alignment: 48 }
    /// );
    /// ```
    pub fn dram_config(&self) -> Result<BankConfig, BankedError> {
        self.check_grid(&[
            ("dram_reserved", self.dram_reserved),
            ("dram_bank_size", self.dram_bank_size),
            ("dram_offset_step", self.dram_offset_step),
        ])?;
        let bank_size = self
            .dram_bank_size
            .checked_sub(self.dram_reserved)
            .filter(|s| *s > 0)
            .ok_or(BankedError::InvalidConfig { what: "dram_reserved", value: self.dram_reserved })?;
        Ok(BankConfig {
            buffer_type: BufferType::Dram,
            num_banks: self.dram_banks,
            bank_size,
            reserved: self.dram_reserved,
            page_alignment: self.dram_alignment,
            alignment: self.dram_alignment,
            policy: Policy::First,
            bottom_up: true,
            address_limit: 0,
            offset_period: self.dram_offset_period,
            offset_step: self.dram_offset_step,
        })
    }

    /// The L1 bank manager configuration: `[l1_unreserved_base, l1_size)`, top-down, FIRST,
    /// interleaved address limit = the unreserved base (no effective limit, §1.5).
    ///
    /// # Errors
    /// [`BankedError::InvalidConfig`] when `dram_alignment` is 0 or the base is at or above the
    /// L1 size; [`BankedError::MisalignedConfig`] naming `l1_unreserved_base` or `l1_size` when
    /// it is not a multiple of `dram_alignment` (the constructors round the base up, as the
    /// reference's `generate_config` does; the L1 size is the hardware's and is refused, not
    /// rounded down, when off the grid: top-down buffers start at its end).
    ///
    /// ```
    /// use dramalloc_core::banked::{BankedError, DeviceDescriptor};
    /// let d = DeviceDescriptor::custom(2, 1 << 20, 32, 0, 2, 1000, 100, 16);
    /// assert_eq!(d.l1_unreserved_base, 128);
    /// assert_eq!(
    ///     d.l1_config().unwrap_err(),
    ///     BankedError::MisalignedConfig { what: "l1_size", value: 1000, alignment: 32 }
    /// );
    /// ```
    pub fn l1_config(&self) -> Result<BankConfig, BankedError> {
        self.check_grid(&[("l1_unreserved_base", self.l1_unreserved_base), ("l1_size", self.l1_size)])?;
        let bank_size = self.l1_size.checked_sub(self.l1_unreserved_base).filter(|s| *s > 0).ok_or(
            BankedError::InvalidConfig { what: "l1_unreserved_base", value: self.l1_unreserved_base },
        )?;
        Ok(BankConfig {
            buffer_type: BufferType::L1,
            num_banks: self.l1_banks,
            bank_size,
            reserved: self.l1_unreserved_base,
            page_alignment: self.l1_alignment,
            alignment: self.dram_alignment,
            policy: Policy::First,
            bottom_up: false,
            address_limit: self.l1_unreserved_base,
            offset_period: 1,
            offset_step: 0,
        })
    }
}

/// The DRAM and L1 bank managers of one device, each with `BLOCKS` blocks.
///
/// ```
/// use dramalloc_core::banked::{Device, DeviceDescriptor, BufferType, Layout};
/// let mut dev = Device::<64>::new(DeviceDescriptor::wormhole(111_360))?;
/// let b = dev.allocate(BufferType::L1, 32768, 32768, Layout::Interleaved)?;
/// assert_eq!(b.address, 1_499_136 - 32768);
/// # Ok::<(), dramalloc_core::banked::BankedError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Device<const BLOCKS: usize> {
    descriptor: DeviceDescriptor,
    dram: BankManager<BLOCKS>,
    l1: BankManager<BLOCKS>,
}

impl<const BLOCKS: usize> Device<BLOCKS> {
    /// Builds both bank managers.
    ///
    /// # Errors
    /// As [`DeviceDescriptor::dram_config`], [`DeviceDescriptor::l1_config`], [`BankManager::new`].
    pub fn new(descriptor: DeviceDescriptor) -> Result<Self, BankedError> {
        Ok(Self {
            descriptor,
            dram: BankManager::new(descriptor.dram_config()?)?,
            l1: BankManager::new(descriptor.l1_config()?)?,
        })
    }

    /// The descriptor.
    pub const fn descriptor(&self) -> &DeviceDescriptor {
        &self.descriptor
    }

    /// The bank manager of a type.
    pub const fn bank(&self, t: BufferType) -> &BankManager<BLOCKS> {
        match t {
            BufferType::Dram => &self.dram,
            BufferType::L1 => &self.l1,
        }
    }

    /// The bank manager of a type, mutably.
    pub fn bank_mut(&mut self, t: BufferType) -> &mut BankManager<BLOCKS> {
        match t {
            BufferType::Dram => &mut self.dram,
            BufferType::L1 => &mut self.l1,
        }
    }

    /// Allocates a buffer (DRAM bottom-up, L1 top-down).
    ///
    /// # Errors
    /// As [`BankManager::allocate`].
    pub fn allocate(
        &mut self,
        t: BufferType,
        size: u64,
        page_size: u64,
        layout: Layout,
    ) -> Result<BufferAllocation, BankedError> {
        self.bank_mut(t).allocate(size, page_size, layout)
    }

    /// Frees a buffer.
    ///
    /// # Errors
    /// As [`BankManager::deallocate`].
    pub fn deallocate(&mut self, t: BufferType, address: u64) -> Result<u64, BankedError> {
        self.bank_mut(t).deallocate(address)
    }

    /// The lowest L1 buffer address of the whole device (what CB validation checks).
    pub fn lowest_l1_address(&self) -> Option<u64> {
        self.l1.lowest_occupied_address()
    }

    /// Frees every buffer of both types.
    pub fn clear(&mut self) {
        self.dram.clear();
        self.l1.clear();
    }
}
