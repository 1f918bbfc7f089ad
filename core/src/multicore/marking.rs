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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::program::{Function, Instruction, Location, Operand};
    use crate::multicore::module::LocState;

    /// Marked: a shared DRAM spill (0), a private spill a collective defines (3), a shared
    /// spill a collective also defines (5, counted once). Not marked: a shared SBUF location
    /// (1), a shared DRAM input (2), a spill the collective only reads (4), a spill a plain
    /// instruction defines (6).
    #[test]
    fn the_shared_set_exactly() {
        let spill = Location::spill(4096);
        let locations = [
            Location { shared: true, ..spill },
            Location { shared: true, memory: MemoryType::Sbuf, ..spill },
            Location { shared: true, usage: UsageClass::Input, address: Some(0), ..spill },
            spill,
            spill,
            Location { shared: true, ..spill },
            spill,
        ];
        let operands = [Operand::use_(4), Operand::def(3), Operand::def(5), Operand::def(6), Operand::def(1)];
        let instructions = [
            Instruction { first: 0, count: 3, collective: true },
            Instruction { first: 3, count: 1, collective: false },
            Instruction { first: 4, count: 1, collective: true }, // defines the SBUF location
        ];
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        let module = Module {
            function: Function { locations: &locations, instructions: &instructions, operands: &operands },
            names: &names,
        };
        let (mut locs, mut by_name) = ([LocState::EMPTY; 7], [0u32; 7]);
        let mut state = ModuleState::new(&mut locs, &mut by_name);
        assert_eq!(mark_shared(&module, &mut state), 3);
        let marked = [0, 1, 2, 3, 4, 5, 6].map(|l: usize| state.locations[l].is_shared_post_dram_alloc());
        assert_eq!(marked, [true, false, false, true, false, true, false]);
    }
}
