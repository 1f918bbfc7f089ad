//! Shared marking: which locations form the cross-core shared set (`is_shared_post_dram_alloc`).
//! Uses: liveness, module; used by: pipeline.
//!
//! Shared marking (seed "The isSharedPostDRAMAlloc marker"): during allocation in shared
//! mode, a predicate selects the locations of the cross-core shared set and sets
//! `is_shared_post_dram_alloc`. Only this module sets the flag.
//!
//! **The predicate:** a DRAM spill that is explicitly flagged `shared`, or that a collective
//! instruction defines (the staging buffer the collective writes). A collective's other
//! operands (the private tensors it reads from) stay private: their bytes are copied into
//! the staging buffer, and marking them would merge every core's private copy into one.

use crate::liveness::program::{Access, MemoryType, UsageClass};

use super::module::{Module, ModuleState};

/// Marks the shared set of one module; returns how many locations were marked.
/// O(locations + operands).
pub fn mark_shared(module: &Module<'_>, state: &mut ModuleState<'_>) -> u32 {
    let f = &module.function;
    let mut marked = 0u32;
    for (l, loc) in f.locations.iter().enumerate() {
        if loc.shared && loc.memory == MemoryType::Dram && loc.usage == UsageClass::Spill {
            state.locations[l].set_shared_post_dram_alloc();
            marked += 1;
        }
    }
    for i in 0..f.instructions.len() {
        if !f.instructions[i].collective {
            continue;
        }
        for o in f.operands_of(i) {
            let l = o.location as usize;
            let Some(loc) = f.locations.get(l) else { continue };
            if o.access == Access::Def
                && loc.memory == MemoryType::Dram
                && loc.usage == UsageClass::Spill
                && !state.locations[l].is_shared_post_dram_alloc()
            {
                state.locations[l].set_shared_post_dram_alloc();
                marked += 1;
            }
        }
    }
    marked
}
