//! The program model: functions, instructions, operands and memory locations, borrowed from slices.
//! Uses: error; used by: align, intervals, multicore, planner, sim.
//!
//! The program model: a function is a flat sequence of instructions that define (write) and
//! use (read) memory locations (seed section "The allocate Driver").
//!
//! Everything is borrowed from caller-owned slices, so a firmware image can keep a function
//! in static storage and a host can keep it in `Vec`s. Instructions refer to their operands
//! as a contiguous run `operands[first .. first + count]` of one flat operand array.

use crate::error::PlanError;

/// Memory type of a location. Only DRAM locations are DRAM-planner candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MemoryType {
    /// Device DRAM / HBM (seed memType 8): aligned to 4096 bytes.
    #[default]
    Dram,
    /// On-chip state buffer (placed by another allocator; ignored here).
    Sbuf,
    /// On-chip partial-sum buffer (placed by another allocator; ignored here).
    Psum,
}

/// Usage class of a location (seed: usage class 7/9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum UsageClass {
    /// A spill / intermediate: a candidate the planner places (pinned when it has a fixed
    /// address).
    #[default]
    Spill,
    /// A graph input: pre-placed, must carry an address.
    Input,
    /// A graph output: pre-placed, must carry an address.
    Output,
    /// A constant / weight: pre-placed, must carry an address.
    Weight,
}

/// A memory location (tensor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Location {
    /// Size in bytes (element count × element size, see [`Location::from_elements`]).
    pub bytes: u64,
    /// Memory type.
    pub memory: MemoryType,
    /// Usage class.
    pub usage: UsageClass,
    /// Fixed byte address: required for pre-placed classes; on a spill it pins the location.
    pub address: Option<u64>,
    /// Explicitly flagged as shared across logical cores (multi-core passes).
    pub shared: bool,
}

impl Location {
    /// A DRAM spill (planner candidate) of `bytes` bytes.
    pub const fn spill(bytes: u64) -> Location {
        Location { bytes, memory: MemoryType::Dram, usage: UsageClass::Spill, address: None, shared: false }
    }

    /// A DRAM spill pinned at `address` (bytes).
    pub const fn pinned(bytes: u64, address: u64) -> Location {
        Location {
            bytes,
            memory: MemoryType::Dram,
            usage: UsageClass::Spill,
            address: Some(address),
            shared: false,
        }
    }

    /// A pre-placed DRAM location of `usage` at `address`.
    pub const fn preplaced(bytes: u64, usage: UsageClass, address: u64) -> Location {
        Location { bytes, memory: MemoryType::Dram, usage, address: Some(address), shared: false }
    }

    /// Size from element count × element size (seed: `elemCount * elemSize`).
    ///
    /// # Errors
    /// [`PlanError::SizeOverflow`] (location `index`) when the product overflows `u64`.
    pub const fn from_elements(
        index: u32,
        elements: u64,
        element_bytes: u32,
        usage: UsageClass,
    ) -> Result<Location, PlanError> {
        match elements.checked_mul(element_bytes as u64) {
            Some(bytes) => {
                Ok(Location { bytes, memory: MemoryType::Dram, usage, address: None, shared: false })
            }
            None => Err(PlanError::SizeOverflow { location: index, bytes: u64::MAX }),
        }
    }

    /// True for a DRAM spill: a planner candidate.
    pub const fn is_candidate(&self) -> bool {
        matches!(self.memory, MemoryType::Dram) && matches!(self.usage, UsageClass::Spill)
    }

    /// True for a DRAM input/output/weight: pre-placed, part of the HWM floor.
    pub const fn is_preplaced(&self) -> bool {
        matches!(self.memory, MemoryType::Dram) && !matches!(self.usage, UsageClass::Spill)
    }
}

/// Whether an operand writes or reads its location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Access {
    /// The instruction defines (writes) the location.
    Def,
    /// The instruction uses (reads) the location.
    Use,
}

/// One operand: a location index and an access kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Operand {
    /// Index into [`Function::locations`].
    pub location: u32,
    /// Def or use.
    pub access: Access,
}

impl Operand {
    /// A def (write) of `location`.
    pub const fn def(location: u32) -> Operand {
        Operand { location, access: Access::Def }
    }
    /// A use (read) of `location`.
    pub const fn use_(location: u32) -> Operand {
        Operand { location, access: Access::Use }
    }
}

/// One instruction: its operands are `operands[first .. first + count]` of the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Instruction {
    /// First operand index.
    pub first: u32,
    /// Number of operands.
    pub count: u32,
    /// A collective-communication op (all-reduce etc.): its operands size the auto CC region
    /// and belong to the cross-core shared set.
    pub collective: bool,
}

/// A function: locations, instructions in execution order, and the flat operand array.
/// The flat instruction index of `instructions[i]` is `i`.
#[derive(Clone, Copy, Debug)]
pub struct Function<'a> {
    /// Memory locations; operands refer to them by index.
    pub locations: &'a [Location],
    /// Instructions in execution order.
    pub instructions: &'a [Instruction],
    /// Operands of all instructions.
    pub operands: &'a [Operand],
}

impl<'a> Function<'a> {
    /// The operands of instruction `i`, or an empty slice when its run is out of range
    /// (which [`crate::liveness::intervals`] reports as an error first).
    pub fn operands_of(&self, i: usize) -> &'a [Operand] {
        let ins = &self.instructions[i];
        let (a, b) = (ins.first as usize, ins.first as usize + ins.count as usize);
        self.operands.get(a..b).unwrap_or(&[])
    }
}
