//! The runtime banked device allocator (tt-metal style), heap-free.
//! Uses: nothing else in the crate; used by: sim.
//!
//! Follows seed 004 (tt-metal `allocator.md`): "The Allocator maintains a view of on device
//! memory across DRAM and SRAM (i.e. L1). It assigns addresses for Buffers and maintains a
//! record of what is free or in-use. The allocator does not interact with on-device memory."
//! The algorithm facts are in `banked-allocator.md`; the acceptance values in
//! `cases-banked.md`.
//!
//! One concept per file:
//!
//! * [`free_list`] — [`FreeList`], one address-space allocator (seed 004 §2, notes §1.2);
//! * [`bank_manager`] — [`BankManager`], lockstep banks and page math (seed 004 §2, notes §1.4);
//! * [`device`] — [`DeviceDescriptor`] and [`Device`] (seed 004 §1, notes §1.5 and §2);
//! * [`circular_buffer`] — [`CircularBuffers`] packing and clash validation (seed 004 §3,
//!   notes §1.7);
//! * [`error`] — [`BankedError`];
//! * [`buffer_type`] — [`BufferType`] (DRAM or L1) and [`core_range`] — [`CoreRange`], the
//!   two small types the error and the managers share.
//!
//! Capacities are const generics; running out of table room is an error, never a panic.
//!
//! ```
//! use dramalloc_core::banked::{FreeList, FreeListConfig, Policy};
//! let mut fl = FreeList::<16>::new(FreeListConfig::new(1 << 30, 0, 1024, 1024, Policy::First))?;
//! assert_eq!(fl.allocate(1024, true)?, 0);
//! assert_eq!(fl.allocate(1024, true)?, 1024);
//! # Ok::<(), dramalloc_core::banked::BankedError>(())
//! ```

pub mod bank_manager;
pub mod buffer_type;
pub mod circular_buffer;
pub mod core_range;
pub mod device;
pub mod error;
pub mod free_list;

pub use bank_manager::{
    align_up, is_supported_bank_count, size_per_bank, BankConfig, BankManager, BufferAllocation, Layout,
    PageLocation,
};
pub use buffer_type::BufferType;
pub use circular_buffer::{CbId, CircularBuffer, CircularBuffers};
pub use core_range::{CoreCoord, CoreRange};
pub use device::{
    Device, DeviceDescriptor, BLACKHOLE_DRAM_BANK_SIZE, BLACKHOLE_L1_SIZE, GIB, WORMHOLE_L1_SIZE,
};
pub use error::{BankedError, OomKind, OutOfMemory};
pub use free_list::{BlockInfo, Blocks, FreeList, FreeListConfig, Policy, Statistics, MAX_ADDRESS};
