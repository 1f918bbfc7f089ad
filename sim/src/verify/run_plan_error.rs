//! Why `dramalloc verify PROGRAM.json plan.csv` rejects a plan file: [`RunPlanError`] and the
//! pieces of its messages.
//! Uses: input (InputError), verify (VerifyError); used by: run_plan (re-exported there), cli.

use crate::input::InputError;
use crate::verify::VerifyError;

/// Why a plan file is invalid.
#[derive(Debug, thiserror::Error)]
pub enum RunPlanError {
    /// The program or the file cannot be used (exit 2).
    #[error(transparent)]
    Input(#[from] InputError),
    /// A row names a tensor its core does not have.
    #[error("line {line}: core {core} has no tensor `{tensor}` (split {split}{})", split_hint(*.guessed))]
    UnknownTensor {
        /// Line of the row.
        line: u64,
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
        /// The split tried.
        split: &'static str,
        /// The split was found, not given: the message suggests `--split`.
        guessed: bool,
    },
    /// A tensor has two rows on one core.
    #[error("line {line}: `{tensor}` on core {core} appears again (first at line {first})")]
    DuplicateRow {
        /// The second row.
        line: u64,
        /// The first row.
        first: u64,
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
    },
    /// A row's size differs from the program's.
    #[error("line {line}: `{tensor}` on core {core} has {bytes} bytes but the program says {expected}")]
    WrongSize {
        /// The row.
        line: u64,
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
        /// The row's size.
        bytes: u64,
        /// The program's.
        expected: u64,
    },
    /// A row's `shared` flag disagrees with the program's shared set.
    #[error("line {line}: `{tensor}` on core {core} has shared {shared} but {}", if *.shared {
        "the program's shared set does not have it (a private tensor)"
    } else {
        "it is in the program's shared set (flagged shared or written by a collective)"
    })]
    WrongShared {
        /// The row.
        line: u64,
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
        /// The row's flag.
        shared: bool,
    },
    /// A row's `aligned_bytes` is not its size rounded up to the planner's alignment.
    #[error("line {line}: `{tensor}` on core {core} has aligned_bytes {aligned} but its {bytes} bytes rounded up to {align} are {expected}")]
    WrongAligned {
        /// The row.
        line: u64,
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
        /// The row's `aligned_bytes`.
        aligned: u64,
        /// Its size, bytes.
        bytes: u64,
        /// The planner's alignment, bytes.
        align: u64,
        /// The size rounded up to it.
        expected: u64,
    },
    /// A row's `def,last_use` is not the core's first and last access recomputed from the ops.
    #[error("line {line}: `{tensor}` on core {core} has def,last_use {} but {}", cells(*.def, *.last_use), match .expected {
        Some((a, b)) => format!("its first and last access on core {core} are {a},{b}"),
        None => format!("core {core} never accesses it (def,last_use empty)"),
    })]
    WrongLifetime {
        /// The row.
        line: u64,
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
        /// The row's `def`.
        def: Option<u64>,
        /// The row's `last_use`.
        last_use: Option<u64>,
        /// The first and last access on the core (`None`: never accessed).
        expected: Option<(u32, u32)>,
    },
    /// A pre-placed tensor moved.
    #[error("line {line}: pre-placed `{tensor}` on core {core} is at {address} but the program places it at {expected}")]
    MovedPreplaced {
        /// The row.
        line: u64,
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
        /// Its address in the plan.
        address: u64,
        /// Its pre-placed address.
        expected: u64,
    },
    /// A pre-placed tensor (input, weight, output) of a core without a row.
    #[error("pre-placed `{tensor}` on core {core} has no row in the plan")]
    MissingPreplaced {
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
    },
    /// An accessed intermediate without an address.
    #[error("`{tensor}` on core {core} is accessed but has no row in the plan")]
    Missing {
        /// The core.
        core: usize,
        /// The name.
        tensor: String,
    },
    /// With per-core slabs, a row outside the slab it belongs in.
    #[error("line {line}: `{tensor}` on core {core} occupies [{address}, {end}) outside its slab [{slab_start}, {slab_end})")]
    OutsideSlab {
        /// The row.
        line: u64,
        /// Its core.
        core: usize,
        /// The name.
        tensor: String,
        /// Its address.
        address: u64,
        /// Its address plus its size.
        end: u64,
        /// The slab's first byte.
        slab_start: u64,
        /// The slab's end (exclusive).
        slab_end: u64,
    },
    /// A shared tensor at different addresses on two cores.
    #[error(
        "line {line}: shared `{tensor}` is at {address} on core {core} but at {first} on core {first_core}"
    )]
    SharedMoved {
        /// The row.
        line: u64,
        /// Its core.
        core: usize,
        /// The name.
        tensor: String,
        /// Its address there.
        address: u64,
        /// The first core's address.
        first: u64,
        /// The first core.
        first_core: usize,
    },
    /// A core's view fails the geometric verifier.
    #[error("core {core}: {error}")]
    Verify {
        /// The core.
        core: usize,
        /// The finding.
        error: VerifyError,
    },
}

/// The `def,last_use` cells as written (`empty` when both are).
fn cells(def: Option<u64>, last_use: Option<u64>) -> String {
    let cell = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    match (def, last_use) {
        (None, None) => "empty".to_owned(),
        _ => format!("{},{}", cell(def), cell(last_use)),
    }
}

/// What [`RunPlanError::UnknownTensor`] adds after the split: a hint where it was found, not
/// given.
fn split_hint(guessed: bool) -> &'static str {
    if guessed {
        "; try --split"
    } else {
        ""
    }
}
