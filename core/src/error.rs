//! The planner's typed error, [`PlanError`], and the stores that can run out.
//! Uses: nothing else in the crate; used by: cc_region, liveness, multicore, place, planner, workspace, sim.
//!
//! The planner's typed error.
//!
//! Every variant carries the culprit: the location (tensor) index, the instruction index, the
//! sizes in bytes or the capacity that ran out. The seed's assertions (`dram_build.cpp:61/81/93`,
//! `interval_tree.cpp:63`, `dram_select.cpp:70`) are errors here, not aborts.

use core::fmt;

/// Which fixed-capacity store ran out (see [`PlanError::Capacity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Store {
    /// Interval-tree nodes (one per liveness interval).
    Nodes,
    /// Info records (one per candidate location).
    Infos,
    /// Per-location scratch (reaching defs, keys, stamps) of the liveness pass.
    Locations,
    /// The elimination order / heap / neighbour buffers (one slot per candidate).
    Order,
    /// Occupied byte ranges gathered for one `search` call.
    Occupied,
    /// The shared-set table of the multi-core passes (`MultiStorage::shared`, one entry per
    /// shared tensor; `L` in `StaticMulti`).
    Shared,
    /// The shared-access records of the multi-core passes (`MultiStorage::accesses`, one per
    /// operand touching a shared tensor, all cores; `A` in `StaticMulti`).
    Accesses,
    /// Anti-dependency edge list.
    Edges,
    /// Modules (cores) of a multi-core program.
    Modules,
    /// The per-core states lent to a multi-core run (`ModuleState`s, one per module; `C` in
    /// `StaticMulti`).
    ModuleStates,
    /// A core's location states (`ModuleState::locations`, one per location of its
    /// function; `L` in `StaticMulti`).
    LocationStates,
    /// A core's name-index slots (`ModuleState::by_name`, one per location of its function;
    /// `L` in `StaticMulti`).
    NameIndex,
    /// The per-instruction live-byte arrays of the memory-pressure pass.
    Pressure,
    /// The block index of a sorted interval tree (two `u32` words per 8 nodes, and its
    /// search levels: `block_index::index_words`).
    Index,
}

/// Errors of the DRAM planner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum PlanError {
    /// A fixed-capacity store is full: `needed` entries were required, `capacity` exist.
    Capacity {
        /// Which store.
        store: Store,
        /// Entries required (at least; counting stopped at the first that did not fit).
        needed: usize,
        /// Entries available.
        capacity: usize,
    },
    /// A location has size 0 bytes.
    ZeroSize {
        /// Location index.
        location: u32,
    },
    /// `bytes` rounded up to the alignment, or `address + bytes`, overflows `u64`.
    SizeOverflow {
        /// Location index.
        location: u32,
        /// The byte size (or element count × element size that overflowed: `u64::MAX`).
        bytes: u64,
    },
    /// A liveness interval with `use < def` (closed interval `[def, use]`).
    BadInterval {
        /// Location (buffer) index.
        location: u32,
        /// Def flat instruction index.
        def: u32,
        /// Use flat instruction index.
        last_use: u32,
    },
    /// A candidate location is read by an instruction before any instruction defines it
    /// (seed "The Interval-Tree Liveness Model", assertion `dram_build.cpp:81`).
    UseBeforeDef {
        /// Location index.
        location: u32,
        /// Flat index of the reading instruction.
        instruction: u32,
    },
    /// An operand names a location index that does not exist.
    UnknownLocation {
        /// Flat index of the instruction.
        instruction: u32,
        /// The bad location index.
        location: u32,
    },
    /// An instruction's operand run `[first, first + count)` lies outside the operand array.
    OperandRange {
        /// Flat index of the instruction.
        instruction: u32,
        /// First operand index.
        first: u32,
        /// Operand count.
        count: u32,
    },
    /// A candidate location has neither a liveness interval nor a fixed address
    /// (assertion `dram_build.cpp:61`): it is never defined, read or pinned.
    NoInterval {
        /// Location index.
        location: u32,
    },
    /// A pre-placed (input/output/weight) DRAM location has no address.
    UnplacedPreplaced {
        /// Location index.
        location: u32,
    },
    /// A fixed (pinned) address is not a multiple of the alignment.
    MisalignedFixed {
        /// Location index.
        location: u32,
        /// The address, bytes.
        address: u64,
        /// Required alignment, bytes.
        align: u64,
    },
    /// Two pinned locations interfere (their liveness overlaps) and their byte ranges overlap.
    PinnedOverlap {
        /// First location index.
        a: u32,
        /// Second location index.
        b: u32,
    },
    /// A location cannot be placed: first-fit would need the region to extend to `needed`
    /// bytes but only `available` exist (B13). `largest_gap` is the largest free gap seen
    /// below the ceiling among the location's interfering neighbours.
    DoesNotFit {
        /// Location index.
        location: u32,
        /// Aligned size, bytes.
        size: u64,
        /// End address first-fit would need, bytes (`u64::MAX`: the end overflows `u64`).
        needed: u64,
        /// Region ceiling (window minus CC region, or the window), bytes.
        available: u64,
        /// Largest free gap found below the ceiling, bytes.
        largest_gap: u64,
    },
    /// A pinned or pre-placed location ends past the window.
    OutsideWindow {
        /// Location index.
        location: u32,
        /// End address (exclusive), bytes.
        end: u64,
        /// Window size, bytes.
        window: u64,
    },
    /// The CC region (in bytes) is larger than the window.
    CcRegionTooLarge {
        /// CC region size, bytes.
        cc_bytes: u64,
        /// Window size, bytes.
        window: u64,
    },
    /// The device layout of slab mode (`multicore::SharedMode::Slabs`), one slab of
    /// `mb_per_core` MiB per core, the shared slab of the same size and the CC region of
    /// `cc_bytes` after them, does not fit in a `u64` address space: its end,
    /// `(cores + 1) * mb_per_core * 2^20 + cc_bytes`, is past 2^64 - 1.
    SlabsOverflow {
        /// Cores (one slab each).
        cores: u32,
        /// Slab size, MiB.
        mb_per_core: u64,
        /// CC region size, bytes.
        cc_bytes: u64,
    },
    /// The CC region at the top of the window, `[window - cc_bytes, window)`, reaches down
    /// into the pre-placed tensors, which end at `floor` (the HWM floor).
    CcRegionOverlapsPreplaced {
        /// CC region size, bytes.
        cc_bytes: u64,
        /// End of the pre-placed tensors (the HWM floor), bytes.
        floor: u64,
        /// Window size, bytes.
        window: u64,
    },
    /// A tree query named a node index out of range (assertion `interval_tree.cpp:63`).
    NodeIndex {
        /// The index.
        index: u32,
        /// Number of nodes.
        len: u32,
    },
    /// A block index was lent to a tree whose nodes are not sorted by `lo` (one from
    /// `IntervalTree::from_unsorted`, the seed's shape): the index summarises runs of a sorted
    /// array and would give wrong answers.
    UnsortedTree {
        /// Number of nodes.
        len: u32,
    },
    /// After select a node is still unallocated (assertion `dram_select.cpp:70`).
    Unallocated {
        /// Location index.
        location: u32,
    },
    /// The caller's clock (`Budget::keep_going`, [`crate::plan_buffers_with`]) said stop
    /// before a single strategy had placed every candidate: there is no plan. `auto` and
    /// `exact` never return it (they keep the best plan they have).
    Stopped,
    /// A shared location on core `core` has no remote-local target, or its target
    /// (`target_core`, `target_location`) does not exist.
    MissingTwin {
        /// Core of the location being synchronised.
        core: u32,
        /// Its location index.
        location: u32,
        /// The target core named.
        target_core: u32,
        /// The target location index named (`u32::MAX` when no target is set).
        target_location: u32,
    },
    /// Twins of one shared tensor have different sizes.
    TwinSizeMismatch {
        /// Core of the location being synchronised.
        core: u32,
        /// Its location index.
        location: u32,
        /// Its size, bytes.
        bytes: u64,
        /// Target core.
        target_core: u32,
        /// Target location index.
        target_location: u32,
        /// Target size, bytes.
        target_bytes: u64,
    },
    /// Two locations of one core share a name (names identify twins across cores).
    DuplicateName {
        /// Core index.
        core: u32,
        /// First location index.
        a: u32,
        /// Second location index.
        b: u32,
    },
    /// A location is shared on core `core` but its twin on `target_core` is private.
    SharedMismatch {
        /// Core of the shared location.
        core: u32,
        /// Its location index.
        location: u32,
        /// Core of the twin.
        target_core: u32,
        /// The twin's location index.
        target_location: u32,
    },
    /// Two distinct DRAM operands of one instruction occupy overlapping bytes.
    OperandOverlap {
        /// Flat index of the instruction.
        instruction: u32,
        /// First location index.
        a: u32,
        /// Second location index.
        b: u32,
    },
    /// A core count of 0 or beyond the supported maximum.
    BadCoreCount {
        /// The count given.
        cores: u32,
    },
    /// A core's module gives fewer names than its function has locations (one name per
    /// location: names identify twins across cores).
    TooFewNames {
        /// Core index.
        core: u32,
        /// Names given (`Module::names`).
        names: u32,
        /// Locations of the core's function.
        locations: u32,
    },
    /// The plan alignment given is 0 bytes: an alignment is at least 1 byte (1 for none),
    /// as the CLI's `--align` says.
    BadAlignment {
        /// The alignment given, bytes.
        align: u64,
    },
    /// An [`ExactSizeIterator`] of buffers ([`crate::plan_buffer_iter`]) yielded another count
    /// than its `len()` said: nothing is planned (a short `len()` had planned only that many
    /// and returned `Ok`: a fresh-user trial).
    IteratorLength {
        /// What `len()` said.
        reported: u64,
        /// Buffers it yielded; `reported + 1` means at least that many (counting stops there).
        yielded: u64,
    },
    /// The HBM budget check before placement: the DRAM bytes live at one instruction do not
    /// fit the budget (the window, or a slab), so no placement can (seed `getMemPressure`,
    /// shared bytes counted once; see [`crate::multicore::pressure`]).
    OverBudget {
        /// Flat index of the instruction where the live bytes peak.
        instruction: u32,
        /// Private bytes live there (pre-placed and private spills), aligned.
        private_bytes: u64,
        /// Shared bytes live there, counted once, aligned.
        shared_bytes: u64,
        /// The budget, bytes.
        budget: u64,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PlanError::Capacity { store, needed, capacity } => write!(
                f,
                "fixed-capacity store {store:?} is full: {needed} entries needed, capacity {capacity}"
            ),
            PlanError::ZeroSize { location } => write!(f, "location {location} has size 0 bytes"),
            PlanError::SizeOverflow { location, bytes } => write!(
                f,
                "location {location}: size {bytes} bytes overflows u64 when aligned or added to its address"
            ),
            PlanError::BadInterval { location, def, last_use } => write!(
                f,
                "location {location}: liveness interval [{def}, {last_use}] has use < def"
            ),
            PlanError::UseBeforeDef { location, instruction } => write!(
                f,
                "location {location} is read by instruction {instruction} before any instruction defines it"
            ),
            PlanError::UnknownLocation { instruction, location } => write!(
                f,
                "instruction {instruction} names unknown location {location}"
            ),
            PlanError::OperandRange { instruction, first, count } => write!(
                f,
                "instruction {instruction}: operand run [{first}, {first} + {count}) is out of range"
            ),
            PlanError::NoInterval { location } => write!(
                f,
                "candidate location {location} has no liveness interval and no fixed address"
            ),
            PlanError::UnplacedPreplaced { location } => write!(
                f,
                "pre-placed (input/output/weight) location {location} has no address"
            ),
            PlanError::MisalignedFixed { location, address, align } => write!(
                f,
                "location {location}: fixed address {address} is not a multiple of {align}"
            ),
            PlanError::PinnedOverlap { a, b } => write!(
                f,
                "pinned locations {a} and {b} interfere and their byte ranges overlap"
            ),
            PlanError::DoesNotFit { location, size, needed: u64::MAX, available, largest_gap } => write!(
                f,
                "location {location} ({size} bytes) does not fit: its end overflows u64, {available} bytes available (largest free gap {largest_gap} bytes)"
            ),
            PlanError::DoesNotFit { location, size, needed, available, largest_gap } => write!(
                f,
                "location {location} ({size} bytes) does not fit: {needed} bytes needed, {available} available (largest free gap {largest_gap} bytes)"
            ),
            PlanError::OutsideWindow { location, end, window } => write!(
                f,
                "location {location} ends at {end}, past the {window}-byte window"
            ),
            PlanError::CcRegionTooLarge { cc_bytes, window } => write!(
                f,
                "CC region of {cc_bytes} bytes does not fit in the {window}-byte window"
            ),
            PlanError::SlabsOverflow { cores, mb_per_core, cc_bytes } => {
                let end = (u128::from(cores) + 1) * u128::from(mb_per_core) * (1 << 20) + u128::from(cc_bytes);
                write!(f, "{cores} slabs of {mb_per_core} MiB (one per core)")?;
                if cc_bytes == 0 {
                    write!(f, " and the shared slab of the same size")?;
                } else {
                    write!(f, ", the shared slab of the same size and the {cc_bytes}-byte CC region after them")?;
                }
                write!(f, " need {end} bytes of address space, more than a u64 address reaches ({})", u64::MAX)
            }
            PlanError::CcRegionOverlapsPreplaced { cc_bytes, floor, window } => write!(
                f,
                "CC region of {cc_bytes} bytes at [{}, {window}) overlaps the pre-placed tensors, which end at {floor}",
                window - cc_bytes
            ),
            PlanError::NodeIndex { index, len } => {
                write!(f, "interval-tree node index {index} out of range (0..{len})")
            }
            PlanError::UnsortedTree { len } => {
                write!(f, "a block index needs a tree sorted by lo; this tree of {len} nodes is in the seed's unsorted order")
            }
            PlanError::Unallocated { location } => {
                write!(f, "location {location} is still unallocated after select")
            }
            PlanError::Stopped => {
                write!(f, "stopped by the caller's clock before every buffer was placed (no plan)")
            }
            PlanError::MissingTwin { core, location, target_core, target_location } => write!(
                f,
                "shared location {location} on core {core}: remote-local target (core {target_core}, location {target_location}) is missing"
            ),
            PlanError::TwinSizeMismatch {
                core,
                location,
                bytes,
                target_core,
                target_location,
                target_bytes,
            } => write!(
                f,
                "shared location {location} on core {core} ({bytes} bytes) and its twin {target_location} on core {target_core} ({target_bytes} bytes) differ in size"
            ),
            PlanError::DuplicateName { core, a, b } => {
                write!(f, "core {core}: locations {a} and {b} have the same name")
            }
            PlanError::SharedMismatch { core, location, target_core, target_location } => write!(
                f,
                "location {location} is shared on core {core} but its twin {target_location} on core {target_core} is private"
            ),
            PlanError::OperandOverlap { instruction, a, b } => write!(
                f,
                "instruction {instruction}: operands {a} and {b} occupy overlapping bytes"
            ),
            PlanError::BadCoreCount { cores } => write!(f, "core count {cores} is not supported"),
            PlanError::TooFewNames { core, names, locations } => write!(
                f,
                "core {core}: {names} names given for {locations} locations (one name per location)"
            ),
            PlanError::BadAlignment { align } => {
                write!(f, "alignment {align} bytes: an alignment is at least 1 byte (1 for none)")
            }
            PlanError::IteratorLength { reported, yielded } if yielded > reported => write!(
                f,
                "the buffer iterator's len() said {reported} buffers but it yielded more; nothing was planned"
            ),
            PlanError::IteratorLength { reported, yielded } => write!(
                f,
                "the buffer iterator's len() said {reported} buffers but it yielded {yielded}; nothing was planned"
            ),
            PlanError::OverBudget { instruction, private_bytes, shared_bytes, budget } => write!(
                f,
                "at instruction {instruction}, {} live DRAM bytes ({private_bytes} private + {shared_bytes} shared) exceed the {budget}-byte HBM budget",
                private_bytes.saturating_add(shared_bytes)
            ),
        }
    }
}

impl core::error::Error for PlanError {}
