//! What the simulator's executor reports when a plan fails at run time: the collision
//! variants, each naming its core, op, tensor and address.
//! Uses: edge_order (EdgeOrderError); used by: executor (re-exported there), campaign, cli.

use crate::exec::edge_order::EdgeOrderError;

/// What the simulator detected: a collision, or edges it cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Collision {
    /// The plan's edges cannot run: an edge names an op the model does not have, or program
    /// order and the edges form a cycle (a runtime would deadlock). Found before anything
    /// executes ([`crate::exec::edge_order::check_edge_order`]).
    #[error(transparent)]
    EdgeOrder(#[from] EdgeOrderError),
    /// A read found bytes that the expected writer did not write.
    #[error("core {core}, op `{op}`: reading `{tensor}` at address {address:#x} found {found}")]
    WrongBytes {
        /// Core index.
        core: u32,
        /// Flat index of the op.
        instruction: u32,
        /// Op name.
        op: String,
        /// Tensor being read.
        tensor: String,
        /// What was found: ``bytes of tensor `x` (written by op N)``, `never-written memory`, …
        found: String,
        /// Address of the first wrong byte.
        address: u64,
    },
    /// After the core's last op, a pre-placed tensor an op wrote (a graph output: the
    /// program's caller reads it) does not hold what its last writer wrote.
    #[error("core {core}, after the last op: reading `{tensor}` at address {address:#x} (the caller's read of a pre-placed tensor) found {found}")]
    FinalBytes {
        /// Core index.
        core: u32,
        /// The tensor.
        tensor: String,
        /// What was found, as for [`Collision::WrongBytes`].
        found: String,
        /// Address of the first wrong byte.
        address: u64,
    },
    /// Two distinct operands of one op occupy overlapping bytes.
    #[error("core {core}, op `{op}`: operands `{a}` and `{b}` overlap at address {address:#x}")]
    InFlight {
        /// Core index.
        core: u32,
        /// Flat index of the op.
        instruction: u32,
        /// Op name.
        op: String,
        /// First tensor.
        a: String,
        /// Second tensor.
        b: String,
        /// Start of the overlap.
        address: u64,
    },
    /// A tensor the program reads or writes has no address.
    #[error("core {core}, op `{op}`: tensor `{tensor}` has no address")]
    Unaddressed {
        /// Core index.
        core: u32,
        /// Flat index of the op.
        instruction: u32,
        /// Op name.
        op: String,
        /// The tensor.
        tensor: String,
    },
}

impl Collision {
    /// The `(core, instruction)` of the op where it was found; `None` for
    /// [`Collision::EdgeOrder`] (found before any op ran) and [`Collision::FinalBytes`]
    /// (found after the last).
    pub fn site(&self) -> Option<(u32, u32)> {
        match self {
            Collision::EdgeOrder(_) | Collision::FinalBytes { .. } => None,
            Collision::WrongBytes { core, instruction, .. }
            | Collision::InFlight { core, instruction, .. }
            | Collision::Unaddressed { core, instruction, .. } => Some((*core, *instruction)),
        }
    }
}
